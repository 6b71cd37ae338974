"""Brittle: everything toolspecs relies on in the mcp SDK beyond its public API, in one place.

Each is checked against the pinned mcp (2.x) by ``tests/mcp/test_mcp_compat.py``, and
each function changes nothing (and says so) when its internal is missing:

1. ``ServerSession._connection``: results and running calls are per client connection.
2. The routes of ``streamable_http_app``'s app: our Protected Resource Metadata goes first.
3. ``StreamableHTTPSessionManager._admit_session`` and the transport's ``_event_store``:
   mcp's one event store cannot tell sessions apart, so each session gets its own.
4. ``StreamableHTTPSessionManager._server_instances``: whether this process holds a session.
5. ``StreamableHTTPSessionManager._session_owners``: one user's open sessions are counted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def connection_of(session: Any) -> Any:
    """The client's connection under mcp's per-request ``session`` (internal 1)."""
    return getattr(session, "_connection", session)


def routes_first(app: Any, routes: list[Any]) -> None:
    """Put ``routes`` before the routes mcp made in ``app`` (internal 2)."""
    app.router.routes[:0] = routes


def give_sessions_event_stores(manager: Any, store: Callable[[str, Any], Any]) -> bool:
    """Each new session's transport gets ``store(session_id, requestor)``; ``False``: cannot."""
    from mcp.server.streamable_http import StreamableHTTPServerTransport

    admit = getattr(manager, "_admit_session", None)
    if admit is None or "_event_store" not in vars(StreamableHTTPServerTransport(None)):
        return False

    def admitting(requestor: Any) -> Any:
        transport = admit(requestor)
        if transport is not None:
            transport._event_store = store(transport.mcp_session_id, requestor)
        return transport

    manager._admit_session = admitting
    return True


def holds_session(manager: Any, session_id: str) -> bool | None:
    """Whether this process holds ``session_id`` (internal 4); ``None`` when it cannot tell."""
    held = getattr(manager, "_server_instances", None)
    return None if held is None else session_id in held


def check_admissions(manager: Any, check: Callable[[Any, list[Any]], None]) -> bool:
    """Before mcp admits a session, ``check(requestor, owners)`` may refuse it by raising."""
    admit = getattr(manager, "_admit_session", None)
    if admit is None or not isinstance(getattr(manager, "_session_owners", None), dict):
        return False

    def admitting(requestor: Any) -> Any:
        check(requestor, list(manager._session_owners.values()))
        return admit(requestor)

    manager._admit_session = admitting
    return True
