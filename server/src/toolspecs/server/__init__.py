"""toolspecs.server: our tools as an MCP server (``pip install toolspecs-server``).

- :func:`build_server`: specs or tools as an ``mcp.server.Server`` (mcp 2.x): our schema
  as each tool's ``inputSchema``, its description, a title, annotations from its policy
  marks, results as text and guidance as ``isError`` results with the exact text;
- :func:`serve_stdio`, :func:`serve_http`: run it (``toolspecs serve`` does);
- :func:`sandbox_spec`, ``SANDBOXES``: the installed specs over their seeded fakes
  (``toolspecs serve --sandbox``), each registered by its spec's package.
"""

import typing

from toolspecs.core.registry import list_sandboxes as _list_sandboxes
from toolspecs.core.registry import sandbox_spec
from toolspecs.server.definitions import tool_definition
from toolspecs.server.server import HEARTBEAT_SECONDS, build_server
from toolspecs.server.transports import serve_http, serve_stdio

__all__ = [
    "HEARTBEAT_SECONDS",
    "SANDBOXES",
    "build_server",
    "sandbox_spec",
    "serve_http",
    "serve_stdio",
    "tool_definition",
]


def __getattr__(name: str) -> typing.Any:
    # SANDBOXES (the specs that register a sandbox) is read from the installed metadata
    # when it is first asked for, not when this package is imported.
    if name == "SANDBOXES":
        return _list_sandboxes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "SANDBOXES"})
