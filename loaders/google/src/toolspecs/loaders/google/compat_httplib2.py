"""Brittle: what toolspecs relies on in httplib2 beyond its public API, in one place.

Checked against the pinned httplib2 by ``tests/google_base/test_httplib2_compat.py``:

1. The wording "Unable to find the server at <host>" (:func:`named_host`): httplib2 keeps
   no host attribute. If it changes, the error names the request's host "(or the proxy)".
2. ``ServerNotFoundError`` is raised inside ``except socket.gaierror``, so the
   ``gaierror`` (its errno: ``EAI_AGAIN`` gets one more try) is its ``__context__``.
   If it changes, a passing DNS hiccup is final at once.
"""

from __future__ import annotations

import re

_NOT_FOUND_AT = re.compile(r"Unable to find the server at (\S+)")


def named_host(exc: BaseException) -> str | None:
    """The host httplib2's ``ServerNotFoundError`` text names, else ``None`` (internal 1)."""
    named = _NOT_FOUND_AT.search(str(exc))
    return named.group(1) if named else None
