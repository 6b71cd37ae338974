"""Open sessions per user: one account cannot take every session of the server.

mcp bounds sessions for everyone together, so one account that opens them all locks every
other user out (issue 38). A user (their token's ``iss`` and ``sub``) opens at most
``--max-sessions-per-user``, counted under mcp's admission lock from the owners it records
(``compat_mcp`` 5), so two requests cannot both take the last place; past it, 429 (503
stays mcp's answer when the server is full). Each replica counts its own sessions.
"""

from __future__ import annotations

import logging
from typing import Any

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
    if not isinstance(requestor, dict) or not requestor.get("subject"):
        return None
    return requestor.get("issuer"), requestor["subject"]


def bound_per_user(app: Any, manager: Any, per_user: int, idle: float) -> bool:
    """Refuse a user's session past ``per_user`` open ones, with 429; whether the bound holds."""

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
            message = (
                f"Too many open sessions: this account already has {refused.bound} "
                "sessions open on this server, the most one account may have. End "
                "one (disconnect a client or conversation connected here), or wait "
                f"until one unused for {self.idle:g} s is closed, then connect again."
            )
            headers = {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
            await jsonrpc_error(message, 429, headers)(scope, receive, send)


def jsonrpc_error(message: str, status: int, headers: dict[str, str] | None = None) -> Any:
    """A JSON-RPC error without an id, as mcp answers a request it refuses."""
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}
    return responses.JSONResponse(body, status_code=status, headers=headers)
