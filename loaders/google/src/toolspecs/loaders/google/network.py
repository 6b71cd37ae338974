"""Requests that got no answer, as :class:`~toolspecs.loaders.google.errors.GoogleUnreachable`.

Causes are walked, and a failed lookup judged, by :mod:`toolspecs.base.net` as every
loader does; Google's own here is httplib2's wording of a name that did not resolve.
"""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit

from toolspecs.base.net import DNS_RETRY_WAIT, causes, failed_host, maybe_the_proxy, temporary
from toolspecs.loaders.google.compat_httplib2 import named_host
from toolspecs.loaders.google.errors import GoogleUnreachable

AGAIN_WAIT = DNS_RETRY_WAIT
"""Seconds to wait before the one more try a name that failed with ``EAI_AGAIN`` gets."""


def unreachable(exc: BaseException, uri: str) -> GoogleUnreachable | None:
    """The loader's error for a request to ``uri`` that got no answer; ``None`` for others."""
    import httplib2

    host = urlsplit(uri).hostname or "Google"
    wrapped = list(causes(exc))
    lookups = [cause for cause in wrapped if isinstance(cause, socket.gaierror)]
    if lookups or any(isinstance(c, httplib2.ServerNotFoundError) for c in wrapped):
        again = any(temporary(cause) for cause in lookups)
        return GoogleUnreachable(_unresolved_host(exc, wrapped, host), resolved=False, again=again)
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


def _unresolved_host(exc: BaseException, wrapped: list[BaseException], host: str) -> str:
    """The name that did not resolve, or ``"<host> (or the proxy)"`` when unknowable."""
    looked_up = failed_host(exc)
    if looked_up:
        return looked_up
    for cause in wrapped:
        named = named_host(cause)
        if named:
            host = named
            break
    return maybe_the_proxy(host)
