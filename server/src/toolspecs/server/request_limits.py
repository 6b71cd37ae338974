"""How often the sign-in endpoints answer: ``/register``, ``/authorize`` and ``/token``.

The endpoints of a sign-in provider (:mod:`toolspecs.server.signin_app`) are anonymous
(``/register``, ``/authorize``) or need only a token a client holds (``/token``), and each
answer keeps a record: a client, a person's trip to Google, a token. Unlimited, a flood
of them pushed other people's records out (in memory each kind is bounded, the oldest
going first) or filled Redis (issue 38). So each is counted in fixed windows, per client
address (an IPv6 address by its /64) and overall, and past a limit answered 429 with
``Retry-After`` before mcp's handler runs (:class:`RequestLimit`):

- ``POST /register``: :class:`~toolspecs.server.registration.RegistrationLimits` per hour;
  an OAuth error body (``temporarily_unavailable``).
- ``GET``/``POST /authorize``: :attr:`RequestLimits.authorize_per_address` and
  :attr:`RequestLimits.authorize_total` per :attr:`RequestLimits.window`. A browser shows
  the answer to a person, so it is a short page of ours saying how long to wait, not a
  redirect to the client. The trips are bounded by count too (:meth:`Admission.trips`):
  as many as the limits let start while one lives (ten minutes), so a flood
  within the limits never evicts a person's trip in progress, in memory or in Redis.
- ``POST /token``: :attr:`RequestLimits.token_per_address` per window, counted before
  mcp's handler; and :attr:`RequestLimits.token_per_client` per window, counted once the
  request presents a live refresh token of that client (so nobody can use up another
  client's count by naming its id): the provider raises :class:`TooManyRequests`, which
  the middleware answers. Both as an OAuth error body. Each refresh also ends the access
  token issued before it (:mod:`toolspecs.server.signin_tokens`), so a client refreshing in
  a loop holds one live access token, not one per refresh.

The counts live in the sign-in state (:meth:`~toolspecs.server.signin_state.SignInState.hits`):
with ``--store redis://`` every replica shares them. The address is the ASGI peer;
uvicorn takes it from ``X-Forwarded-For`` when the peer is a trusted proxy (its
``forwarded_allow_ips``: 127.0.0.1 and ::1 unless ``$FORWARDED_ALLOW_IPS`` says
otherwise), so a proxy on this machine must send ``X-Forwarded-For`` (nginx:
``proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for``), else every client
counts as the proxy's one address and a per-address limit is the total one.

Why this is ours: mcp 2.3's handlers check the requests' shape and leave storage and
limits to the provider. The ``limits`` library (fixed and moving windows on Redis) was
weighed: it would open a second Redis connection with its own failures beside the
sign-in state's, which answer one 503 (:mod:`toolspecs.server.signin_state`), for a few
fixed-window counters that are a few lines here.
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mcp.server.auth import routes
from starlette import responses

from toolspecs.server.registration import RegistrationLimits
from toolspecs.server.signin_state import SignInState

__all__ = [
    "Admission",
    "RequestLimit",
    "RequestLimits",
    "TooManyRequests",
    "answered_instead",
    "client_address",
]


class TooManyRequests(Exception):
    """A request past a limit: answered 429 with ``Retry-After``.

    Args:
        seconds: How long until the window ends.
        why: What was too many (``too many ... from your address``).
    """

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
    """How many sign-ins may start and how many token requests come, per window.

    Args:
        authorize_per_address: ``/authorize`` requests one address (an IPv6 /64) may make.
        authorize_total: ``/authorize`` requests all addresses together may make.
        token_per_address: ``/token`` requests one address may make.
        token_per_client: Refreshes one client may make.
        window: The window, in seconds.
    """

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
    """The counts of the limits, in the sign-in state.

    Every method may block on the network (Redis): the provider calls them in a thread.

    Args:
        state: Where the counts are kept.
        registration: The limits of ``/register``.
        limits: The limits of ``/authorize`` and ``/token``.
    """

    def __init__(
        self, state: SignInState, registration: RegistrationLimits, limits: RequestLimits
    ) -> None:
        self.state = state
        self.registration = registration
        self.limits = limits

    def trips(self, life: float) -> int:
        """The most trips kept at once: as many as the limits let start while one lives.

        Args:
            life: A trip's life, in seconds: those alive at a moment began in the last
                ``ceil(life / window) + 1`` fixed windows at most.
        """
        windows = math.ceil(life / self.limits.window) + 1
        return self.limits.authorize_total * windows

    def _counted(
        self, name: str, address: str, per_address: int, total: int | None, window: float
    ) -> TooManyRequests | None:
        count, left = self.state.hits(f"{name} {address}", window)
        if count > per_address:
            return TooManyRequests(left, f"too many {_WHAT[name]} from your address")
        if total is None:
            return None
        count, left = self.state.hits(name, window)
        if count > total:
            return TooManyRequests(left, f"too many {_WHAT[name]} on this server")
        return None

    def register(self, address: str) -> TooManyRequests | None:
        """Count a registration from ``address``: ``None`` if allowed."""
        bounds = self.registration
        return self._counted("register", address, bounds.per_address, bounds.total, bounds.window)

    def authorize(self, address: str) -> TooManyRequests | None:
        """Count a sign-in started from ``address``: ``None`` if allowed."""
        limits = self.limits
        return self._counted(
            "authorize",
            address,
            limits.authorize_per_address,
            limits.authorize_total,
            limits.window,
        )

    def token(self, address: str) -> TooManyRequests | None:
        """Count a token request from ``address``: ``None`` if allowed."""
        limits = self.limits
        return self._counted("token", address, limits.token_per_address, None, limits.window)

    def refresh(self, client_id: str) -> None:
        """Count a refresh by ``client_id`` (one holding a live refresh token of it).

        Raises:
            TooManyRequests: Past :attr:`RequestLimits.token_per_client`.
        """
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
    """ASGI middleware: a request past its limit is a 429, before mcp's handler.

    Args:
        app: The app.
        provider: Its :class:`~toolspecs.server.signin_app.SignInProvider` (its ``admission``,
            and its consent's page).
    """

    def __init__(self, app: Any, provider: Any) -> None:
        self.app = app
        self.provider = provider
        self.counted = {
            ("POST", routes.REGISTRATION_PATH): provider.admission.register,
            ("GET", routes.AUTHORIZATION_PATH): provider.admission.authorize,
            ("POST", routes.AUTHORIZATION_PATH): provider.admission.authorize,
            ("POST", routes.TOKEN_PATH): provider.admission.token,
        }
        self.authorize = routes.AUTHORIZATION_PATH

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Answer 429 to a request past its limit; pass everything else on."""
        admit = self.counted.get((scope.get("method"), scope.get("path")))
        if scope.get("type") != "http" or admit is None:
            await self.app(scope, receive, send)
            return
        refused = await self.provider.kept(admit, client_address(scope))
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
    """Run the ASGI ``app``; an exception it raises before its answer began may be answered.

    ``instead(exc)`` gives the ASGI app that answers in its place, or ``None`` to let the
    exception pass on (as it always does once the answer has begun).
    """
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
