"""What an HTTP library's error wraps: a failed name lookup, the host that failed.

requests, httpx, httplib2 and google-auth each wrap the socket's error their own way;
:func:`causes` walks all of them. A ``socket.gaierror`` is a name that did not resolve:
``EAI_AGAIN`` (no network, or a DNS hiccup) gets one more try, any other is final.
"""

from __future__ import annotations

import socket
import sys
import urllib.request
from collections.abc import Iterator

DNS_RETRY_WAIT = 0.5
"""Seconds to wait before the one more try a lookup that failed with ``EAI_AGAIN`` gets."""

# getattr: a platform may lack the constant.
_EAI_AGAIN = getattr(socket, "EAI_AGAIN", None)


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it wraps (causes, ``args``, urllib3's ``reason``), each once."""
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


def lookup_failure(exc: BaseException) -> socket.gaierror | None:
    """The ``socket.gaierror`` among ``exc``'s causes: a name that did not resolve."""
    return next((cause for cause in causes(exc) if isinstance(cause, socket.gaierror)), None)


def temporary(lookup: socket.gaierror) -> bool:
    """Whether the lookup failed with ``EAI_AGAIN``: worth one more try, no more."""
    return _EAI_AGAIN is not None and lookup.errno == _EAI_AGAIN


def failed_host(exc: BaseException) -> str | None:
    """The host urllib3 could not connect to (the proxy's, behind one); else ``None``."""
    urllib3_errors = sys.modules.get("urllib3.exceptions")
    if urllib3_errors is None:
        return None
    for cause in causes(exc):
        if isinstance(cause, urllib3_errors.NewConnectionError):
            host = getattr(getattr(cause, "conn", None), "host", None)
            if isinstance(host, str) and host:
                return host
    return None


def proxied(scheme: str = "https") -> bool:
    """Whether a proxy is set for ``scheme`` (``HTTPS_PROXY``, ``ALL_PROXY``...)."""
    proxies = urllib.request.getproxies()
    return bool(proxies.get(scheme) or proxies.get("all"))


def maybe_the_proxy(host: str, scheme: str = "https") -> str:
    """``host``, or ``"<host> (or the proxy)"`` when a proxy is set: the name may be its."""
    return f"{host} (or the proxy)" if proxied(scheme) else host


class LookupRetry:
    """The one more try a call gives a lookup that failed with ``EAI_AGAIN`` (one per call)."""

    wait = DNS_RETRY_WAIT

    def __init__(self) -> None:
        self.used = False

    def allows(self, again: bool, fits: bool = True) -> bool:
        """Whether to wait :attr:`wait` and try again (``fits``: within the deadline)."""
        if not again or self.used or not fits:
            return False
        self.used = True
        return True
