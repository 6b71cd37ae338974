"""Brittle: everything toolspecs relies on in the mcp SDK beyond its public API, in one place.

The MCP server (:mod:`toolspecs.mcp.server`) is built on the mcp SDK's low-level
``Server``; its handlers get a ``ServerRequestContext`` (public). To keep a client's stored
results and running-call count per connection, we lean on one internal, checked against
the pinned mcp (2.x) by ``tests/mcp/test_mcp_compat.py``:

1. ``ServerSession._connection``: mcp builds a ``ServerSession`` per request (``ctx.session``)
   over the client's ``Connection``, which lasts as long as the client's session; the
   low-level context has no public accessor for it (``MCPServer``'s ``Context.connection``
   reads the same attribute). :func:`connection_of` falls back to the per-request session
   when it is missing: then every call is a session of its own, so a stored result can
   no longer be read by the next call, and the limit on running calls no longer holds.
2. The routes of ``streamable_http_app``'s Starlette app: behind an authorization server,
   mcp serves the Protected Resource Metadata with ``scopes_supported`` set to the scopes
   every request needs; :func:`routes_first` puts our own (the same metadata from mcp's
   ``create_protected_resource_routes``, with every scope we understand) before it, as
   Starlette answers with the first route that matches. Should mcp add routes
   elsewhere, the test of ``scopes_supported`` in ``tests/mcp/test_mcp_oauth.py`` fails.
"""

from __future__ import annotations

from typing import Any


def connection_of(session: Any) -> Any:
    """The client's connection under mcp's per-request ``session`` (internal 1)."""
    return getattr(session, "_connection", session)


def routes_first(app: Any, routes: list[Any]) -> None:
    """Put ``routes`` before the routes mcp made in ``app`` (internal 2)."""
    app.router.routes[:0] = routes
