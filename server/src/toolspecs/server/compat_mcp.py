"""Brittle: everything toolspecs relies on in the mcp SDK beyond its public API, in one place.

The MCP server (:mod:`toolspecs.server.server`) is built on the mcp SDK's low-level
``Server``; its handlers get a ``ServerRequestContext`` (public). We lean on these
internals, each checked against the pinned mcp (2.x) by ``tests/mcp/test_mcp_compat.py``:

1. ``ServerSession._connection`` (a client's stored results and running-call count are per
   connection): mcp builds a ``ServerSession`` per request (``ctx.session``)
   over the client's ``Connection``, which lasts as long as the client's session; the
   low-level context has no public accessor for it (``MCPServer``'s ``Context.connection``
   reads the same attribute). :func:`connection_of` falls back to the per-request session
   when it is missing: then every call is a session of its own, so a stored result can
   no longer be read by the next call, and the limit on running calls no longer holds.
   Whether the connection has a session at all is its public ``session_id`` (``None``
   under ``--stateless``), not the header a client sends (:mod:`toolspecs.server.callers`).
2. The routes of ``streamable_http_app``'s Starlette app: behind an authorization server,
   mcp serves the Protected Resource Metadata with ``scopes_supported`` set to the scopes
   every request needs; :func:`routes_first` puts our own (the same metadata from mcp's
   ``create_protected_resource_routes``, with every scope we understand) before it, as
   Starlette answers with the first route that matches. Should mcp add routes
   elsewhere, the test of ``scopes_supported`` in ``tests/mcp/test_mcp_oauth.py`` fails.
3. ``StreamableHTTPSessionManager._admit_session(requestor)`` makes each stateful session's
   transport (its ``mcp_session_id`` set), which reads its event store from
   ``StreamableHTTPServerTransport._event_store``. mcp hands every session the manager's
   one ``event_store`` and keys streams by request id, so a shared store cannot tell
   sessions apart; :func:`give_sessions_event_stores` wraps the method and gives each new
   transport a store of its session's own (:mod:`toolspecs.server.resumption`). When either
   is missing it changes nothing and says so: streams are then not resumable (mcp sends no
   priming event without a store), never resumable across sessions.
4. ``StreamableHTTPSessionManager._server_instances``: the sessions this process holds
   (session id -> transport). :func:`holds_session` reads it, so that a resume for a
   session of another replica is answered from Redis rather than with mcp's 404; without
   it (``None``) every resume goes to mcp, and only this process's sessions resume.
5. ``StreamableHTTPSessionManager._session_owners`` (session id -> the
   ``AuthorizationContext`` of the token that opened it, mcp's record for refusing a
   session to anyone else) and ``_admit_session``, called under mcp's admission lock.
   :func:`check_admissions` runs a check of ours first, with those owners, so that one
   user's open sessions are counted when they open one more
   (:mod:`toolspecs.server.sessions`). When either is missing it changes nothing and says
   so: sessions are then bounded by ``max_sessions`` only, for everyone together.
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
    """Each new session's transport gets ``store(session_id, requestor)`` (internal 3).

    Returns ``False`` (and changes nothing) when this mcp admits sessions otherwise.
    """
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
    """Before mcp admits a session, ``check(requestor, owners)`` may refuse it (internal 5).

    ``owners`` are the ``AuthorizationContext`` of each session open; ``check`` refuses by
    raising, and the exception reaches the app's middleware. Returns ``False`` (and
    changes nothing) when this mcp admits sessions otherwise.
    """
    admit = getattr(manager, "_admit_session", None)
    if admit is None or not isinstance(getattr(manager, "_session_owners", None), dict):
        return False

    def admitting(requestor: Any) -> Any:
        check(requestor, list(manager._session_owners.values()))
        return admit(requestor)

    manager._admit_session = admitting
    return True
