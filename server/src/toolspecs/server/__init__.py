"""toolspecs.server: our tools as an MCP server (``pip install toolspecs-server``)."""

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
