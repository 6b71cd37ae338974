"""Running a server: over stdio (what desktop clients start), or streamable HTTP."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolspecs.adapters.tools import require

if TYPE_CHECKING:
    from mcp.server import Server

MCP_PATH = "/mcp"


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client closes them.

    Args:
        server: From :func:`toolspecs.mcp.build_server`.
    """
    stdio = require("mcp.server.stdio", "mcp")
    async with stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    server: Server[Any],
    host: str = "127.0.0.1",
    port: int = 8000,
    ready: Callable[[str], None] | None = None,
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted.

    On a loopback host, mcp's protection against DNS rebinding is on (requests must name
    a loopback ``Host`` and ``Origin``).

    Args:
        server: From :func:`toolspecs.mcp.build_server`.
        host: The address to listen on; the default takes connections from this machine only.
        port: The port; ``0`` picks a free one.
        ready: Called with the URL once the port is bound (the actual port when ``0``).
    """
    uvicorn = require("uvicorn", "mcp")  # a dependency of mcp
    app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    # We bind the socket ourselves so that port 0 can say which port it got.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.create_server((host, port), family=family)
    bound = listening.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    if ready is not None:
        ready(f"http://{shown}:{bound}{MCP_PATH}")
    config = uvicorn.Config(app, log_level="warning")
    await uvicorn.Server(config).serve(sockets=[listening])
