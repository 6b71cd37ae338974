"""Open sessions per user: one account cannot take every session of the server.

mcp bounds a server's sessions (``max_sessions``: past it, a new one gets 503) for
everyone together, so one signed-in account that opens them all locks every other user
out for as long as it keeps them (issue 38, finding 6). mcp has no bound per user, so
this one is ours: a user (the ``iss`` and ``sub`` of their token: the same person through
any of their clients) opens at most ``per_user`` sessions at once
(``toolspecs serve --max-sessions-per-user``, default :data:`MAX_SESSIONS_PER_USER`).

- **Counted where mcp admits sessions**, under its admission lock, from the owners mcp
  records for its open sessions (:func:`toolspecs.server.compat_mcp.check_admissions`):
  two requests at once cannot both take the last place, and a session that ends (closed,
  idle, failed to open) is no longer counted, with nothing of ours to keep in step.
- **Answered 429**, not 503: the server has room, this user is at their own bound, and
  only they can make room (end a session). 503 stays mcp's answer when the server is
  full for everyone. The body is a JSON-RPC error, which mcp's client hands its caller
  as the ``initialize`` error, with ``Retry-After``.
- **Per replica.** A session lives in the process that opened it (mcp keeps it in
  memory), so each replica counts its own: behind a balancer that spreads a user's new
  sessions over N replicas, they may open up to N times the bound, never more than
  ``per_user`` on any one replica. ``--stateless`` has no sessions to bound: each user's
  calls are capped across replicas instead (:mod:`toolspecs.server.running`).
- A token that names no user (the shared static token: one person) is not bounded here;
  ``max_sessions`` holds for it.
"""

from __future__ import annotations

import logging
from typing import Any

import mcp_types
from starlette import responses

from toolspecs.server import compat_mcp

__all__ = ["MAX_SESSIONS_PER_USER", "RETRY_AFTER_SECONDS", "TooManySessions", "bound_per_user"]

logger = logging.getLogger(__name__)

# Sessions one user may have open at once: a person's few clients and conversations.
MAX_SESSIONS_PER_USER = 8
# What a refused user is told to wait: their sessions end when closed or idle.
RETRY_AFTER_SECONDS = 60


class TooManySessions(Exception):
    """A user asked for one session more than they may have open (answered 429)."""

    def __init__(self, bound: int) -> None:
        super().__init__(f"a user already has {bound} sessions open")
        self.bound = bound


def _user(requestor: Any) -> tuple[Any, Any] | None:
    """``(issuer, subject)`` of mcp's ``AuthorizationContext``; ``None``: it names no user."""
    if not isinstance(requestor, dict) or not requestor.get("subject"):
        return None
    return requestor.get("issuer"), requestor["subject"]


def bound_per_user(app: Any, manager: Any, per_user: int, idle: float) -> bool:
    """Refuse a user's session past ``per_user`` open ones, with 429 (see the module).

    Args:
        app: The Starlette app of ``server.streamable_http_app`` (not started yet).
        manager: Its session manager (``server.session_manager``).
        per_user: Sessions one user may have open at once.
        idle: Seconds after which an unused session is closed (said in the refusal).

    Returns:
        Whether the bound holds (``False``: this mcp admits sessions otherwise; logged).
    """

    def check(requestor: Any, owners: list[Any]) -> None:
        user = _user(requestor)
        if user is not None and sum(_user(o) == user for o in owners) >= per_user:
            raise TooManySessions(per_user)

    if not compat_mcp.check_admissions(manager, check):
        logger.warning(
            "this mcp admits sessions in a way toolspecs does not know: sessions are "
            "bounded for all users together only (--max-sessions)"
        )
        return False
    app.add_middleware(_Refusing, idle=idle)
    return True


class _Refusing:
    """ASGI middleware: a :class:`TooManySessions` raised at admission becomes the 429."""

    def __init__(self, app: Any, idle: float) -> None:
        self.app = app
        self.idle = idle

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await self.app(scope, receive, send)
        except TooManySessions as refused:  # raised before mcp answered anything
            logger.warning("refused a new session: %s", refused)
            error = mcp_types.JSONRPCError(
                jsonrpc="2.0",
                id=None,
                error=mcp_types.ErrorData(
                    code=mcp_types.INVALID_REQUEST,
                    message=(
                        f"Too many open sessions: this account already has {refused.bound} "
                        "sessions open on this server, the most one account may have. End "
                        "one (disconnect a client or conversation connected here), or wait "
                        f"until one unused for {self.idle:g} s is closed, then connect again."
                    ),
                ),
            )
            answer = responses.Response(
                error.model_dump_json(by_alias=True, exclude_unset=True),
                status_code=429,
                media_type="application/json",
                headers={"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"},
            )
            await answer(scope, receive, send)
