"""Dynamic client registration's bounds: who may register, how many, with what redirects.

``/register`` is anonymous and mcp checks only the metadata's shape, so the rest is ours
(issue 38): rate limits (:mod:`.request_limits`); never-used clients in a bounded pool of
their own, used ones never evicted by count, so a flood of registrations cannot log a
signed-in person out; and redirect URIs limited to https, http to this machine, or a
native app's own scheme, so a browser is never sent with a code to ``javascript:``,
``data:`` or plain http elsewhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from mcp.server.auth import provider

from toolspecs.server.auth import is_loopback
from toolspecs.server.signin_state import SignInState

__all__ = [
    "CLIENT_SECONDS",
    "Clients",
    "RegistrationLimits",
    "check_redirect_uris",
]

# A used client's life, renewed by each use (its tokens last 30 days at most).
CLIENT_SECONDS = 90 * 24 * 3600
REDIRECTS_ALLOWED = (
    "use https, http on this machine (localhost, 127.0.0.1 or [::1]), or your app's own "
    "scheme named after a domain you own (com.example.app:/callback), without a fragment"
)


@dataclass(frozen=True)
class RegistrationLimits:
    """How many clients may register per ``window`` (an address: an IPv6 /64), and unused kept."""

    per_address: int = 20
    total: int = 300
    window: float = 3600.0
    unused: int = 1000
    unused_seconds: float = 24 * 3600.0


def redirect_problem(uri: str) -> str | None:
    """What is wrong with ``uri`` as a registered redirect URI (``None``: nothing)."""
    try:
        parts = urlsplit(uri)
        host = (parts.hostname or "").lower()
    except ValueError:
        return "is not a URL"
    scheme = parts.scheme.lower()
    if "#" in uri:
        return "has a fragment"
    if scheme == "https":
        return None if host else "names no host"
    if scheme == "http":
        return (
            None if host == "localhost" or is_loopback(host) else "is plain http to another machine"
        )
    if "." in scheme:
        return None  # a native app's private-use scheme (RFC 8252 7.1)
    return f"has the scheme {scheme + ':'!r}, which is not a redirect to a client"


def check_redirect_uris(uris: Iterable[Any] | None) -> None:
    """Refuse redirect URIs a browser must not be sent to with a code (``invalid_redirect_uri``)."""
    given = [str(uri) for uri in uris or ()]
    if not given:
        raise provider.RegistrationError(
            "invalid_redirect_uri", f"give at least one redirect_uri: {REDIRECTS_ALLOWED}"
        )
    for uri in given:
        problem = redirect_problem(uri)
        if problem is not None:
            shown = uri if len(uri) <= 100 else uri[:100] + "..."
            raise provider.RegistrationError(
                "invalid_redirect_uri", f"redirect_uri {shown!r} {problem}: {REDIRECTS_ALLOWED}"
            )


class Clients:
    """The registered clients: the unused pool and the used ones (may block on Redis)."""

    def __init__(self, state: SignInState, limits: RegistrationLimits) -> None:
        self.state = state
        self.limits = limits

    def find(self, key: str) -> dict[str, Any] | None:
        """The client kept under ``key`` (a used one's life is renewed)."""
        found = self.state.get("client", key, CLIENT_SECONDS)
        return found if found is not None else self.state.get("unused", key)

    def keep(self, key: str, record: dict[str, Any]) -> None:
        """Keep a new registration in the unused pool."""
        limits = self.limits
        self.state.put("unused", key, record, limits.unused_seconds, bound=limits.unused)

    def adopt(self, key: str) -> None:
        """A token is being issued to the client: move it to the used ones (never evicted)."""
        if self.state.get("client", key, CLIENT_SECONDS) is not None:
            return
        record = self.state.get("unused", key)
        if record is not None:
            self.state.put("client", key, record, CLIENT_SECONDS, bound=0)
            self.state.delete("unused", key)
