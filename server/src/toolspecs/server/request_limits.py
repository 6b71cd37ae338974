"""How often the sign-in endpoints answer: ``/register``, ``/authorize`` and ``/token``.

These endpoints are anonymous (or need only a token a client holds) and each answer keeps
a record, so a flood of them pushed other people's records out or filled Redis (issue 38).
Each is counted in fixed windows per address (an IPv6 /64) and overall, refreshes per
client, and answered 429 before mcp's handler. Ours because mcp leaves limits to the
provider, and the ``limits`` library would open a second Redis connection with its own
failures beside the sign-in state's.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from mcp.server.auth import routes
from starlette import responses

from toolspecs.server.registration import RegistrationLimits
from toolspecs.server.signin_state import SignInState

Counted = Literal["register", "authorize", "token"]

__all__ = [
    "Admission",
    "RequestLimit",
    "RequestLimits",
    "TooManyRequests",
    "answered_instead",
    "client_address",
]


class TooManyRequests(Exception):
    """A request past a limit: answered 429 with ``Retry-After`` in ``seconds``."""

    def __init__(self, seconds: float, why: str) -> None:
        super().__init__(why)
        self.seconds = max(1, math.ceil(seconds))
        self.why = why

    @property
    def description(self) -> str:
        """What a client or a person reads."""
        return f"{self.why}: try again in {self.seconds} seconds"


@dataclass(frozen=True)
class RequestLimits:
    """How many sign-ins may start and token requests come per ``window`` (an address: a /64)."""

    authorize_per_address: int = 60
    authorize_total: int = 1000
    token_per_address: int = 600
    token_per_client: int = 60
    window: float = 600.0


def client_address(scope: Any) -> str:
    """Whom a request counts against: its peer's address, an IPv6 one by its /64."""
    peer = scope.get("client")
    host = str(peer[0]) if peer else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


class Admission:
    """The counts of the limits, in the sign-in state (may block on Redis: call in a thread)."""

    def __init__(
        self, state: SignInState, registration: RegistrationLimits, limits: RequestLimits
    ) -> None:
        self.state = state
        self.registration = registration
        self.limits = limits

    def trips(self, life: float) -> int:
        """The most trips kept at once: as many as the limits let start while one lives ``life``."""
        windows = math.ceil(life / self.limits.window) + 1
        return self.limits.authorize_total * windows

    def count(self, name: Counted, address: str) -> TooManyRequests | None:
        """Count a ``register``, ``authorize`` or ``token`` request from ``address``."""
        bounds, limits = self.registration, self.limits
        per_address, total, window = {
            "register": (bounds.per_address, bounds.total, bounds.window),
            "authorize": (limits.authorize_per_address, limits.authorize_total, limits.window),
            "token": (limits.token_per_address, None, limits.window),
        }[name]
        count, left = self.state.hits(f"{name} {address}", window)
        if count > per_address:
            return TooManyRequests(left, f"too many {_WHAT[name]} from your address")
        if total is None:
            return None
        count, left = self.state.hits(name, window)
        if count > total:
            return TooManyRequests(left, f"too many {_WHAT[name]} on this server")
        return None

    def refresh(self, client_id: str) -> None:
        """Count a refresh by ``client_id``; raises :class:`TooManyRequests` past the limit."""
        limits = self.limits
        count, left = self.state.hits(f"refresh {client_id}", limits.window)
        if count > limits.token_per_client:
            raise TooManyRequests(left, "too many token requests from this client")


_WHAT = {
    "register": "client registrations",
    "authorize": "sign-ins started",
    "token": "token requests",
}


class RequestLimit:
    """ASGI middleware: a request past its limit is a 429, before mcp's handler."""

    def __init__(self, app: Any, provider: Any) -> None:
        self.app = app
        self.provider = provider
        self.counted: dict[tuple[str, str], Counted] = {
            ("POST", routes.REGISTRATION_PATH): "register",
            ("GET", routes.AUTHORIZATION_PATH): "authorize",
            ("POST", routes.AUTHORIZATION_PATH): "authorize",
            ("POST", routes.TOKEN_PATH): "token",
        }
        self.authorize = routes.AUTHORIZATION_PATH

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Answer 429 to a request past its limit; pass everything else on."""
        name = self.counted.get((scope.get("method"), scope.get("path")))
        if scope.get("type") != "http" or name is None:
            await self.app(scope, receive, send)
            return
        count = self.provider.admission.count
        refused = await self.provider.kept(count, name, client_address(scope))
        if refused is not None:
            await self._answer(refused, scope)(scope, receive, send)
            return

        def instead(exc: Exception) -> Any:  # a client past its own limit (the provider counts)
            return self._answer(exc, scope) if isinstance(exc, TooManyRequests) else None

        await answered_instead(self.app, scope, receive, send, instead)

    def _answer(self, refused: TooManyRequests, scope: Any) -> Any:
        headers = {"Retry-After": str(refused.seconds), "Cache-Control": "no-store"}
        if scope.get("path") == self.authorize:  # a person's browser shows it
            return self.provider.consent.busy(refused.description, headers)
        return responses.JSONResponse(
            {"error": "temporarily_unavailable", "error_description": refused.description},
            status_code=429,
            headers=headers,
        )


async def answered_instead(
    app: Any, scope: Any, receive: Any, send: Any, instead: Callable[[Exception], Any]
) -> None:
    """Run the ASGI ``app``; ``instead(exc)`` may answer an exception raised before its answer."""
    started = False

    async def sending(message: Any) -> None:
        nonlocal started
        started = started or message.get("type") == "http.response.start"
        await send(message)

    try:
        await app(scope, receive, sending)
    except Exception as exc:
        answer = None if started else instead(exc)
        if answer is None:
            raise
        await answer(scope, receive, send)
