"""toolspecs.mcp: our tools as an MCP server (``pip install "toolspecs-core[mcp]"``).

- :func:`build_server`: specs or tools as an ``mcp.server.Server`` (mcp 2.x): our schema
  as each tool's ``inputSchema``, its description, a title, annotations from its policy
  marks, results as text and guidance as ``isError`` results with the exact text;
- :func:`serve_stdio`, :func:`serve_http`: run it (``toolspecs serve`` does);
- :func:`sandbox_spec`, :data:`SANDBOXES`: the built-in specs over seeded fakes
  (``toolspecs serve --sandbox``).

``mcp`` is imported when a server is built or run, not when this package is imported.
"""

from toolspecs.mcp.sandbox import SANDBOXES, sandbox_spec
from toolspecs.mcp.server import HEARTBEAT_SECONDS, build_server, tool_definition
from toolspecs.mcp.transports import serve_http, serve_stdio

__all__ = [
    "HEARTBEAT_SECONDS",
    "SANDBOXES",
    "build_server",
    "sandbox_spec",
    "serve_http",
    "serve_stdio",
    "tool_definition",
]
