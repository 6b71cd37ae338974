"""Brittle: everything toolspecs relies on in wolframalpha beyond its public API, in one place.

The Full Results API's XML is read into ``wolframalpha``'s own objects (``Result``,
``Pod``, ``Subpod``...), whose public accessors (``.pods``, ``.subpods``,
``.assumptions``) the spec renders. But the package's public ``Client`` sends its own
request (no deadline, no size cap, no retries), so :mod:`.fullresults` parses the body as
the client does, leaning on these internals, checked against the pinned wolframalpha (5.x)
by ``tests/wolfram_alpha/test_wolframalpha_compat.py``:

1. ``wolframalpha.Document.make``, the xmltodict ``postprocessor`` ``Client.aquery`` passes:
   it wraps each element in the ``Document`` subclass named by its tag (``queryresult`` ->
   ``Result``, ``pod`` -> ``Pod``) and converts ``@numsubpods``, ``@success``... If it
   changes, replies parse into plain dicts: every Full Results call fails as a malformed
   reply, or renders wrongly.
2. ``Result`` and ``Pod`` (``ErrorHandler``) raise ``ValueError("Error <code>: <msg>")``
   while being made, for Wolfram's ``<error>`` element inside them (:data:`ERROR_ELEMENT`
   tells it apart from another ``ValueError``). If the wording changes, a refused AppID
   reads as a malformed reply.
3. A bare ``<error status=... message=...>`` reply, which ``Client.aquery`` checks after
   parsing and words ``"Error <status>: <message>"`` (:func:`bare_error`), as internal 2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

ERROR_ELEMENT = re.compile(r"Error [^:\s]*: ")
"""How ``wolframalpha`` words Wolfram's ``<error>``: ``ValueError("Error 1: Invalid appid")``."""


def parse(body: bytes) -> Any:
    """The XML ``body`` as xmltodict's dict of ``wolframalpha`` objects (internal 1).

    xmltodict refuses entity declarations (``disable_entities``, its default, said here):
    an XML bomb stops at its DTD, and no external entity is ever fetched.

    Raises:
        xml.parsers.expat.ExpatError: The body is not complete XML.
        ValueError: Wolfram's ``<error>`` in a ``Result`` or ``Pod`` (internal 2), entity
            declarations, or a bad number.
        TypeError, AttributeError, KeyError: An element of an unexpected shape.
    """
    import wolframalpha
    import xmltodict

    return xmltodict.parse(body, postprocessor=wolframalpha.Document.make, disable_entities=True)


def bare_error(error: Mapping[str, Any]) -> str:
    """A bare ``<error>`` reply's element, worded as ``Client.aquery`` words it (internal 3)."""
    return f"Error {error.get('@status', '?')}: {error.get('@message', '')}"


def is_result(value: Any) -> bool:
    """Whether ``value`` is a ``wolframalpha.Result`` (a ``<queryresult>``, internal 1)."""
    import wolframalpha

    return isinstance(value, wolframalpha.Result)


def is_pod(value: Any) -> bool:
    """Whether ``value`` is a ``wolframalpha.Pod`` (a ``<pod>``, internal 1)."""
    import wolframalpha

    return isinstance(value, wolframalpha.Pod)
