"""Brittle: everything toolspecs relies on in wolframalpha beyond its public API, in one place.

The package's public ``Client`` sends its own request (no deadline, size cap or retries),
so :mod:`.client` parses the body into ``wolframalpha``'s objects as the client does,
leaning on these internals, checked against the pinned wolframalpha (5.x) by
``tests/wolfram_alpha/test_wolframalpha_compat.py``:

1. ``wolframalpha.Document.make``, the xmltodict ``postprocessor`` ``Client.aquery`` passes
   (``queryresult`` -> ``Result``, ``pod`` -> ``Pod``). If it changes, every Full Results
   call fails as a malformed reply, or renders wrongly.
2. ``Result`` and ``Pod`` raise ``ValueError("Error <code>: <msg>")`` for Wolfram's
   ``<error>`` inside them (:data:`ERROR_ELEMENT`). If the wording changes, a refused
   AppID reads as a malformed reply.
3. A bare ``<error>`` reply, worded by ``Client.aquery`` as internal 2 (:func:`bare_error`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

ERROR_ELEMENT = re.compile(r"Error [^:\s]*: ")
"""How ``wolframalpha`` words Wolfram's ``<error>``: ``ValueError("Error 1: Invalid appid")``."""


def parse(body: bytes) -> Any:
    """The XML ``body`` as xmltodict's dict of ``wolframalpha`` objects (internal 1).

    Entity declarations are refused (``disable_entities``, xmltodict's default, said
    here): an XML bomb stops at its DTD, and no external entity is ever fetched.
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
