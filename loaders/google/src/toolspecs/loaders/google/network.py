"""Requests that got no answer, as :class:`~toolspecs.loaders.google.errors.GoogleUnreachable`.

Shared by :mod:`~toolspecs.loaders.google.service` (a request run by ``execute``) and
:mod:`~toolspecs.loaders.google.auth` (a token refresh, which runs before any request).

A ``socket.gaierror`` anywhere in the cause chain is a name that did not resolve. Its
errno says whether one more try is worth it: ``EAI_AGAIN`` ("Temporary failure in name
resolution", what glibc says with no network, and in a passing DNS hiccup) gets one, after
:data:`AGAIN_WAIT` seconds; any other (``EAI_NONAME``, ``EAI_NODATA``, ``EAI_FAIL``) is
final at once.
"""

from __future__ import annotations

import re
import socket
import ssl
import urllib.request
from collections.abc import Iterator
from urllib.parse import urlsplit

from toolspecs.loaders.google.errors import GoogleUnreachable

AGAIN_WAIT = 0.5
"""Seconds to wait before the one more try a name that failed with ``EAI_AGAIN`` gets."""

# getattr: a platform may lack one of them.
_AGAIN = frozenset(code for code in (getattr(socket, "EAI_AGAIN", None),) if isinstance(code, int))

# httplib2 words a name that does not resolve "Unable to find the server at <host>" and
# keeps no host attribute: we read the host from that text (httplib2 0.2x's wording). It
# raises ServerNotFoundError inside its ``except socket.gaierror``, so the gaierror (and
# its errno) is the ``__context__``.
_NOT_FOUND_AT = re.compile(r"Unable to find the server at (\S+)")


def unreachable(exc: BaseException, uri: str) -> GoogleUnreachable | None:
    """The loader's error for a request to ``uri`` that got no answer; ``None`` for others.

    httplib2 raises ``ServerNotFoundError`` for a name that does not resolve, and the
    socket's own errors for a refused connection or a timeout; google-auth wraps what its
    transport (httplib2, or requests and urllib3) raised in ``TransportError`` when it
    happens during a token refresh (then ``uri`` is its token server's).
    """
    import httplib2

    host = urlsplit(uri).hostname or "Google"
    wrapped = list(causes(exc))
    lookups = [cause for cause in wrapped if isinstance(cause, socket.gaierror)]
    if lookups or any(isinstance(c, httplib2.ServerNotFoundError) for c in wrapped):
        again = any(cause.errno in _AGAIN for cause in lookups)
        return GoogleUnreachable(_unresolved_host(wrapped, host), resolved=False, again=again)
    if any(isinstance(cause, ssl.SSLError) for cause in wrapped):
        return None  # a certificate or TLS failure: not a missing connection
    for cause in wrapped:
        if isinstance(cause, TimeoutError):
            return GoogleUnreachable(host, resolved=True, reason=f"no answer from {host} in time")
        if isinstance(cause, ConnectionError):
            what = (
                "connection refused"
                if isinstance(cause, ConnectionRefusedError)
                else type(cause).__name__
            )
            return GoogleUnreachable(
                host, resolved=True, reason=f"could not connect to {host} ({what})"
            )
    return None


def _unresolved_host(wrapped: list[BaseException], host: str) -> str:
    """The name that did not resolve, or ``"<host> (or the proxy)"`` when unknowable.

    urllib3 names the name it looked up, the proxy's when one is used: its
    ``NameResolutionError`` keeps it in ``_host`` (an internal of urllib3 2.x). httplib2
    names the request's host even when it connects through a proxy, so its text only
    tells when no proxy is set.
    """
    for cause in wrapped:
        looked_up = getattr(cause, "_host", None)
        if type(cause).__name__ == "NameResolutionError" and isinstance(looked_up, str):
            return looked_up
    for cause in wrapped:
        named = _NOT_FOUND_AT.search(str(cause))
        if named:
            host = named.group(1)
            break
    return f"{host} (or the proxy)" if urllib.request.getproxies().get("https") else host


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it wraps.

    Its ``__cause__``, ``__context__``, ``args``, and ``reason`` (where urllib3's
    ``MaxRetryError`` keeps what failed), and theirs.
    """
    seen: set[int] = set()
    stack = [exc]
    while stack:
        found = stack.pop()
        if id(found) in seen:
            continue
        seen.add(id(found))
        yield found
        inner = (found.__cause__, found.__context__, getattr(found, "reason", None), *found.args)
        stack.extend(item for item in inner if isinstance(item, BaseException))
