"""Our tools as one MCP server, on the low-level server of ``mcp`` 2.x.

We use ``mcp.server.Server`` (the low-level server), not ``MCPServer``: ``MCPServer``
builds each tool's schema from the function's bare hints and validates the arguments
with its own model before our tool sees them, so ``max_results="5"`` would be refused
and our schema replaced. The low-level server lets us give each tool:

- ``inputSchema``: exactly ``tool.metadata.fn_schema.model_json_schema()``;
- ``description``: the composed prompt; ``title``: the service and the summary's first
  clause (``"Gmail: Send a draft"``), also as ``annotations.title`` for older clients;
- ``annotations``: the tool's policy marks (``tool.marks.annotations()``);

- ``outputSchema``: its output model's JSON schema, for tools that declare one
  (:mod:`toolspecs.core.structured`);

and answer ``tools/call`` with the raw arguments read by our own model
(``tool.guard.arun``): the text the agent reads as text content (and the same facts as
``structuredContent``), or the guidance's exact text with ``isError: true``. A tool the
server does not have is a protocol error (``-32602``, naming the tools it has), as the
MCP specification asks.

Progress: when the client sends a progress token, a call is framed by a first
notification (progress 0, "<tool> started") and a last one (progress equal to total,
"<tool> finished"), with one more every :data:`HEARTBEAT_SECONDS` in between (progress
1, 2, ... without a total), so that clients that reset their timeout on progress keep
waiting for a PDF download or a large mailbox load. Our loaders report no page counts,
so there is no per-page progress.

Results: a long result stored in one session is read in that session only, and is
dropped when the session ends (:mod:`toolspecs.core.owners`). Sessionless requests (the
2026-07-28 revision, or ``--stateless`` HTTP) have no session to scope by: theirs are
their user's, or the static token holder's (:mod:`toolspecs.server.callers`), named so that
replicas sharing a store read them; with no token at all, the served tool list's.

Resources: a stored result is also a resource, ``toolspecs://results/{tool}/{result_id}``:
the call's result carries a ``resource_link`` to it (and its ``structuredContent`` the same
``uri``), and ``resources/read`` returns its stored text, bounded, to the caller whose call
stored it only (:mod:`toolspecs.server.resources`). What a read-only tool declares it reads
(``@tool(resource="papers/{paper_id}")``) is one too, ``toolspecs://{tool}/{path}``: a
result whose data names one links it, and a read is a call of that tool by the reader
(:mod:`toolspecs.server.reads`). ``resources/list`` is empty.

Many users (behind an authorization server, :mod:`toolspecs.server.oauth`): with ``scopes``,
each request's access token says which tools its user may call (:mod:`toolspecs.server.scopes`:
``tools/list`` shows those only, a call of another is guidance), and the user it names
owns the results their calls store (:mod:`toolspecs.server.users`).

Confirmations: a destructive call of a spec that asks (``confirm_destructive``) runs once
the person said yes, where the client can show a form (:mod:`toolspecs.server.confirm`).

Sign-in: a call that needs the person's sign-in shows them the sign-in page, where the
client can open one, and goes on once they signed in (:mod:`toolspecs.server.client_signin`).

Prompts: the served specs' common tasks (:mod:`toolspecs.server.prompts`), each offered when
the tools it uses are.

Caching: on the 2026-07-28 revision, ``tools/list`` and ``prompts/list`` tell clients they
may keep the list for :data:`TOOL_LIST_TTL_MS`, shared by every caller (``public``) unless
``scopes`` filter it per token (``private``).

Calls at once: one session (one client's connection) runs at most
:data:`MAX_CALLS_PER_SESSION` tool calls at a time; one more is answered at once with
guidance to wait, so one client cannot take every worker thread of the server.
Sessionless, the count is per user (or for the static token's holder): in one process,
or, with ``shared_calls`` (Redis), across every replica (:mod:`toolspecs.server.running`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, NamedTuple

import anyio
import mcp.server as server_module
import mcp.shared.exceptions as errors
import mcp_types
from mcp.server import Server, ServerRequestContext, caching
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from toolspecs.adapters.tools import Tools, guarded_tools
from toolspecs.core.errors import SignInNeeded, ToolGuidance
from toolspecs.core.spec import ToolSpec
from toolspecs.core.store import StoredResult
from toolspecs.core.tool import GuardedTool
from toolspecs.server import client_signin, confirm, resources
from toolspecs.server.callers import Caller, Callers, counted
from toolspecs.server.definitions import tool_definition
from toolspecs.server.operations import caller_of
from toolspecs.server.prompts import handlers as prompt_handlers
from toolspecs.server.prompts import served_prompts
from toolspecs.server.reads import Reads
from toolspecs.server.running import RunningCalls, SharedSlots
from toolspecs.server.scopes import permits, refusal
from toolspecs.server.user_tools import UserTools, user_from
from toolspecs.server.users import access_of

call_log = logging.getLogger("toolspecs.calls")

# Seconds between two "still working" progress notifications during one call.
HEARTBEAT_SECONDS = 5.0
# Tool calls one session may have running at once.
MAX_CALLS_PER_SESSION = 4
# How long a client may keep the tool list (2026-07-28 cache hints): it is fixed for the
# life of the server; a restart with other tools is seen within this time.
TOOL_LIST_TTL_MS = 10 * 60 * 1000


class Answer(NamedTuple):
    """What a call answers: its text, whether it is guidance, its structure, what it stored.

    ``stored`` is the result the text was too long to show, kept for ``read_tool``.
    """

    text: str
    failed: bool
    data: dict[str, Any] | None = None
    stored: StoredResult | None = None
    read_tool: str = ""
    sign_in: bool = False  # guidance that the person must sign in (SignInNeeded)


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
        heartbeat: Seconds between two progress notifications during a call, for
            clients that sent a progress token.
        max_calls: Tool calls one session (sessionless: one user) may have running at once.
        scopes: Behind an authorization server: each tool's name and the scope a call
            of it needs (:func:`toolspecs.server.scopes.tool_scopes`). A request's token
            then sees and calls only the tools its scopes allow. ``None``: every tool.
        user_tools: Each signed-in user's own tools (:class:`toolspecs.server.user_tools.UserTools`,
            e.g. their Google specs with their credentials): a call of a user with a
            token runs that user's tool of the name called; the list stays ``sources``'.
        shared_calls: Replicas' shared count of running calls (Redis,
            :class:`toolspecs.server.running.SharedSlots`): a sessionless caller's
            ``max_calls`` then holds across every replica that shares it.
        request_state_keys: Keys that seal the state of a call that asks the person
            first (2026-07-28, :mod:`toolspecs.server.confirm`), the same on every replica
            behind one address; ``None``: a key of this process only.
        output_schemas: List each tool's ``outputSchema``. ``False`` for clients that
            send tool definitions to the model whole: the schemas then cost no tokens,
            and results still carry ``structuredContent`` (unvalidated by the client).
        resource_bytes: The most bytes of a stored result one ``resources/read`` returns
            (:mod:`toolspecs.server.resources`); the rest is left out with a note.

    Returns:
        ``mcp.server.Server`` (the low-level server). Run it with
        :func:`toolspecs.server.serve_stdio` or :func:`toolspecs.server.serve_http`, connect
        to it in-process with ``mcp.Client(server)``, or mount
        ``server.streamable_http_app()`` in your own ASGI app.

    Raises:
        ConfigurationError: When two tools share a name (give one spec a prefix:
            ``spec.to_tool_list(prefix="gmail_")``) or an item is not ours.
        ImportError: When ``mcp`` is not installed (``pip install toolspecs-server``).
    """
    tools = {t.metadata.get_name(): t for t in guarded_tools(_flatten(sources))}
    definitions = [tool_definition(t) for t in tools.values()]
    if not output_schemas:  # the results still carry structuredContent
        definitions = [d.model_copy(update={"output_schema": None}) for d in definitions]
    schemas = {d.name: d.input_schema for d in definitions}
    # Per id(connection), or a sessionless caller's key (also in Redis with shared_calls).
    running = RunningCalls(max_calls, shared_calls)
    sessionless_versions = MODERN_PROTOCOL_VERSIONS
    # Whose results a request stores and reads: the same for tools/call and resources/read.
    callers = Callers(sessionless_versions)
    # resources/read: stored results, and what read-only tools read, as their calls do.
    reads = Reads(
        tools,
        callers,
        lambda ctx, name: refused(ctx, name),
        lambda ctx, tool: _own_tool(user_tools, ctx, tool),
        lambda ctx, tool, arguments: _call(ctx, tool, arguments, heartbeat),
        resource_bytes,
    )

    def refused(ctx: ServerRequestContext[Any], name: str) -> str | None:
        """The scope a call of ``name`` needs that this request's token lacks, if any."""
        if scopes is None:
            return None
        access = access_of(ctx.request)
        needed = scopes.get(name, "")
        return None if permits(access.scopes if access else (), needed) else needed

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        shown = [d for d in definitions if refused(ctx, d.name) is None]
        result: mcp_types.ListToolsResult = mcp_types.ListToolsResult(tools=shown)
        return result

    async def run(
        ctx: ServerRequestContext[Any],
        tool: GuardedTool,
        caller: Caller,
        params: mcp_types.CallToolRequestParams,
    ) -> Answer | mcp_types.InputRequiredResult:
        """Run a call (in a slot): text, whether it is guidance, structure; or ask first."""
        tool, guidance = await _own_tool(user_tools, ctx, tool)
        if guidance is not None:
            return Answer(guidance, True)
        modern = ctx.protocol_version in sessionless_versions
        signed = await client_signin.resume(tool, params)  # back from the sign-in page
        if signed is not None:
            return Answer(signed, True)
        done = await attempt(ctx, tool, caller, params, modern)
        if not (isinstance(done, Answer) and done.sign_in and client_signin.can_open(ctx)):
            return done
        shown = await client_signin.offer(ctx, tool, modern)
        if shown is True:  # signed in, in their client: once more (no second page)
            return await attempt(ctx, tool, caller, params, modern)
        if isinstance(shown, str):  # declined, or the sign-in failed
            return Answer(shown, True)
        return done if shown is False else shown  # none to show, or show it (2026-07-28)

    async def attempt(
        ctx: ServerRequestContext[Any],
        tool: GuardedTool,
        caller: Caller,
        params: mcp_types.CallToolRequestParams,
        modern: bool,
    ) -> Answer | mcp_types.InputRequiredResult:
        """Ask first where the call asks (destructive), then run it."""
        if tool.guard.asks_first and confirm.can_ask(ctx):
            try:
                stop = await confirm.ask_first(ctx, tool, params, modern)
            except SignInNeeded as guidance:  # what the question shows needs a sign-in
                return Answer(guidance.text, True, sign_in=True)
            if isinstance(stop, str):  # guidance, nothing done (a no, no such draft now)
                return Answer(stop, True)
            if stop is not None:
                return stop  # the question to ask (2026-07-28)
        # Results stored in this session are read in this session only, and go with it.
        # A sessionless caller's results are named by the caller in a shared store
        # (``--store redis://``): any replica behind a load balancer reads them.
        with caller.results():
            return await _call(ctx, tool, params.arguments or {}, heartbeat)

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        tool = tools.get(params.name)
        if tool is None:
            raise errors.MCPError(
                mcp_types.INVALID_PARAMS,
                f"Unknown tool {params.name!r}; this server's tools: {', '.join(tools)}",
            )
        # Whose results the call stores (toolspecs.server.callers): the session's; sessionless,
        # the user's or the static token holder's; with no token at all, the tool list's.
        caller = callers.of(ctx)
        key = caller.key
        session = counted(caller.sessionless, key, caller.connection)
        needed = refused(ctx, params.name)
        answer = Answer("", True)
        if needed is not None:
            answer = Answer(refusal(params.name, needed), True)
        else:
            # A sessionless caller's running calls count on every replica (shared_calls).
            async with running.slot(session, key if caller.sessionless else None) as free:
                if free:
                    ran = await run(ctx, tool, caller, params)
                    if not isinstance(ran, Answer):
                        return ran  # the person is asked first (2026-07-28)
                    answer = ran
                else:
                    who = "This session already has" if key is None else "You already have"
                    answer = Answer(
                        f"{who} {max_calls} tool calls running. "
                        "Wait for one to finish, then call again.",
                        True,
                    )
        content: list[mcp_types.ContentBlock] = [mcp_types.TextContent(text=answer.text)]
        data = answer.data
        if answer.stored is not None:
            # The stored result as a resource: a link beside the text, its uri in the data.
            # Its size is counted over the whole text (megabytes): not on the event loop.
            link: mcp_types.ResourceLink = await anyio.to_thread.run_sync(
                resources.result_link, params.name, answer.stored, answer.read_tool, resource_bytes
            )
            content.append(link)
            if data is not None and isinstance(data.get("stored"), dict):
                data = {**data, "stored": {**data["stored"], "uri": link.uri}}
        if not answer.failed:  # links to what the data names that a served tool reads
            linked, data = reads.links(ctx, params.name, data)
            content.extend(linked)
        result: mcp_types.CallToolResult = mcp_types.CallToolResult(
            content=content, is_error=answer.failed, structured_content=data
        )
        return result

    async def list_resources(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourcesResult:
        # Stored results are each caller's own and short-lived: reached by their links only.
        listed: mcp_types.ListResourcesResult = mcp_types.ListResourcesResult(resources=[])
        return listed

    async def list_resource_templates(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListResourceTemplatesResult:
        shown: mcp_types.ListResourceTemplatesResult = mcp_types.ListResourceTemplatesResult(
            resource_templates=reads.templates()
        )
        return shown

    async def read_resource(
        ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        return await reads.read(ctx, params.uri)

    # The lists are the same for every caller unless scopes filter them: then each token's.
    hint = caching.CacheHint(
        ttl_ms=TOOL_LIST_TTL_MS, scope="public" if scopes is None else "private"
    )
    offered = served_prompts(tools.values())
    list_prompts, get_prompt = prompt_handlers(offered, refused) if offered else (None, None)
    server: Server[Any] = server_module.Server(
        name,
        version=_version(),
        cache_hints={"tools/list": hint, "prompts/list": hint},
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_read_resource=read_resource,
        get_tool_input_schema=schemas.get,
    )
    confirm.protect(server, name, request_state_keys)
    return server


async def _own_tool(
    user_tools: UserTools | None, ctx: ServerRequestContext[Any], tool: GuardedTool
) -> tuple[GuardedTool, str | None]:
    """The calling user's own tool of ``tool``'s name, or the guidance why there is none.

    Without ``user_tools`` or a user (stdio, the shared token), ``tool`` itself. A user's
    tools are built on their first call, in a worker thread (building may refresh their
    Google token); a build that fails with guidance (sign in again) is that guidance.
    """
    user = user_from(access_of(ctx.request)) if user_tools is not None else None
    if user_tools is None or user is None:
        return tool, None
    found = user_tools.cached(user)
    if found is None:
        try:
            found = await anyio.to_thread.run_sync(user_tools.get, user)
        except ToolGuidance as guidance:
            return tool, guidance.text
    return found[1][tool.metadata.get_name()], None


async def _call(
    ctx: ServerRequestContext[Any], tool: GuardedTool, arguments: dict[str, Any], heartbeat: float
) -> Answer:
    """Run one call with progress around it: its text, structure and stored result."""
    name = tool.metadata.get_name()
    # A no-op unless the client asked for progress (sent a progress token).
    report = ctx.session.report_progress
    beats = 0

    async def beat() -> None:
        nonlocal beats
        while True:
            await anyio.sleep(heartbeat)
            beats += 1
            await report(beats, None, f"{name} is still working")

    outcome = Answer("", True)
    bug: Exception | None = None
    started = time.monotonic()
    await report(0, None, f"{name} started")
    async with anyio.create_task_group() as group:
        group.start_soon(beat)
        try:
            # Our model reads the arguments as sent ("5" for 5, aliases, camelCase).
            done = await tool.guard.arun((), arguments)
            outcome = Answer(done.text, False, done.structured, done.stored, tool.guard.read_tool)
        except ToolGuidance as guidance:
            outcome = Answer(guidance.text, True, sign_in=isinstance(guidance, SignInNeeded))
        except Exception as exc:  # our bug (strict mode): re-raised outside the group
            bug = exc
        finally:
            group.cancel_scope.cancel()
    said = "bug" if bug is not None else "guidance" if outcome.failed else "ok"
    _log_call(ctx, name, said, started)
    if bug is not None:
        raise bug
    await report(beats + 1, beats + 1, f"{name} finished")
    return outcome


def _log_call(ctx: ServerRequestContext[Any], name: str, outcome: str, started: float) -> None:
    """One record per tool call (logger ``toolspecs.calls``): never its arguments or text.

    Over HTTP it carries the request id and the caller (the token's subject and client)
    that :mod:`toolspecs.server.operations` logs for the request too.
    """
    extra: dict[str, Any] = {"tool": name, "outcome": outcome}
    scope = getattr(ctx.request, "scope", None)
    if isinstance(scope, dict):
        extra.update(caller_of(scope))
        for header, value in scope.get("headers") or []:
            if header == b"x-request-id":
                extra["request_id"] = value.decode("ascii", "replace")
    extra["ms"] = round((time.monotonic() - started) * 1000, 1)
    call_log.info("%s %s", name, outcome, extra=extra)
