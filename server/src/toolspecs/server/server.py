"""Our tools as one MCP server, on the low-level server of ``mcp`` 2.x.

Not ``MCPServer``: it builds each tool's schema from the function's bare hints and
validates the arguments with its own model before our tool sees them, so
``max_results="5"`` would be refused and our schema replaced.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import mcp.server as server_module
import mcp_types
from mcp.server import Server, ServerRequestContext, caching
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolspecs.adapters.tools import Tools, guarded_tools
from toolspecs.core.spec import ToolSpec
from toolspecs.core.tool import GuardedTool
from toolspecs.server import confirm, reads, resources
from toolspecs.server.callers import Callers
from toolspecs.server.calls import HEARTBEAT_SECONDS, MAX_CALLS_PER_SESSION, Served, missing_scope
from toolspecs.server.definitions import tool_definition
from toolspecs.server.prompts import handlers as prompt_handlers
from toolspecs.server.prompts import served_prompts
from toolspecs.server.running import RunningCalls, SharedSlots
from toolspecs.server.user_tools import UserTools

__all__ = ["HEARTBEAT_SECONDS", "MAX_CALLS_PER_SESSION", "TOOL_LIST_TTL_MS", "build_server"]

# How long a client may keep the tool list (2026-07-28 cache hints): it is fixed for the
# life of the server; a restart with other tools is seen within this time.
TOOL_LIST_TTL_MS = 10 * 60 * 1000


def _flatten(sources: Iterable[Tools]) -> list[ToolSpec | GuardedTool]:
    items: list[ToolSpec | GuardedTool] = []
    for source in sources:
        if isinstance(source, (ToolSpec, GuardedTool)):
            items.append(source)
        else:
            items.extend(source)
    return items


def _version() -> str:
    try:
        return version("toolspecs-core")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return ""


def build_server(
    *sources: Tools,
    name: str = "toolspecs",
    heartbeat: float = HEARTBEAT_SECONDS,
    max_calls: int = MAX_CALLS_PER_SESSION,
    scopes: Mapping[str, str] | None = None,
    user_tools: UserTools | None = None,
    shared_calls: SharedSlots | None = None,
    request_state_keys: Sequence[bytes | str] | None = None,
    output_schemas: bool = True,
    resource_bytes: int = resources.MAX_READ_BYTES,
) -> Server[Any]:
    """An MCP server offering the tools of ``sources``.

    Args:
        *sources: Specs, our tools, or lists of them (``spec.to_tool_list(prefix="gmail_")``).
        name: The server's name, as clients show it.
        heartbeat: Seconds between progress notifications during a call.
        max_calls: Tool calls one session (sessionless: one user) may have running at once.
        scopes: Each tool's name and the scope a call of it needs, behind an authorization
            server (:func:`toolspecs.server.scopes.tool_scopes`); ``None``: every tool.
        user_tools: Each signed-in user's own tools (``UserTools``).
        shared_calls: Replicas' shared count of running calls (``SharedSlots``, Redis).
        request_state_keys: Keys that seal a confirmation's state, the same on every replica;
            ``None``: a key of this process only.
        output_schemas: List each tool's ``outputSchema`` (``False`` for clients that send
            whole tool definitions to the model; results still carry ``structuredContent``).
        resource_bytes: The most bytes of a stored result one ``resources/read`` returns.

    Returns:
        The low-level ``mcp.server.Server``: run it with :func:`~toolspecs.server.serve_stdio`
        or :func:`~toolspecs.server.serve_http`, or connect with ``mcp.Client(server)``.

    Raises:
        ConfigurationError: When two tools share a name (give one spec a prefix) or an
            item is not ours.
        ImportError: When ``mcp`` is not installed (``pip install toolspecs-server``).
    """
    tools = {t.metadata.get_name(): t for t in guarded_tools(_flatten(sources))}
    definitions = [tool_definition(t) for t in tools.values()]
    if not output_schemas:  # the results still carry structuredContent
        definitions = [d.model_copy(update={"output_schema": None}) for d in definitions]
    schemas = {d.name: d.input_schema for d in definitions}
    served = Served(
        tools,
        # Whose results a request stores and reads: the same for tools/call and resources/read.
        Callers(MODERN_PROTOCOL_VERSIONS),
        # Per id(connection), or a sessionless caller's key (also in Redis with shared_calls).
        RunningCalls(max_calls, shared_calls),
        max_calls,
        scopes,
        user_tools,
        heartbeat,
        resource_bytes,
    )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        caller = served.callers.of(ctx)
        shown = [d for d in definitions if missing_scope(served, caller, d.name) is None]
        return mcp_types.ListToolsResult(tools=shown)

    async def list_resources(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        # Stored results are each caller's own and short-lived: reached by their links only.
        return mcp_types.ListResourcesResult(resources=[])

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        return mcp_types.ListResourceTemplatesResult(
            resource_templates=reads.templates(served.readables, tools)
        )

    # The lists are the same for every caller unless scopes filter them: then each token's.
    hint = caching.CacheHint(
        ttl_ms=TOOL_LIST_TTL_MS, scope="public" if scopes is None else "private"
    )
    offered = served_prompts(tools.values())
    list_prompts, get_prompt = prompt_handlers(offered, served) if offered else (None, None)
    server: Server[Any] = server_module.Server(
        name,
        version=_version(),
        cache_hints={"tools/list": hint, "prompts/list": hint},
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_tools=list_tools,
        on_call_tool=served.call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=served.read_resource,
        get_tool_input_schema=schemas.get,
    )
    confirm.protect(server, name, request_state_keys)
    return server
