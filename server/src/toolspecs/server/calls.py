"""A served call, step by step: ``tools/call`` and a ``resources/read`` that is a call.

:meth:`Served.call_tool` runs the steps in order: :func:`resolve`, :func:`refused` and a
slot, :func:`own_tool`, :func:`confirm_first`, :func:`run`, :func:`sign_in`,
:func:`answer`. What a step says is data, never raised between steps.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import mcp.shared.exceptions as errors
import mcp_types
from mcp.server import ServerRequestContext

from toolspecs.core.calls import Outcome
from toolspecs.core.errors import SignInNeeded, ToolGuidance
from toolspecs.core.tool import GuardedTool
from toolspecs.server import client_signin, confirm, reads, resources
from toolspecs.server.callers import Caller, Callers
from toolspecs.server.running import RunningCalls
from toolspecs.server.scopes import permits, refusal
from toolspecs.server.user_tools import UserTools

__all__ = [
    "HEARTBEAT_SECONDS",
    "MAX_CALLS_PER_SESSION",
    "Call",
    "Said",
    "Served",
    "answer",
    "confirm_first",
    "own_tool",
    "refused",
    "resolve",
    "run",
    "sign_in",
]

call_log = logging.getLogger("toolspecs.calls")

# Seconds between two "still working" progress notifications during one call.
HEARTBEAT_SECONDS = 5.0
# Tool calls one session may have running at once.
MAX_CALLS_PER_SESSION = 4

# What a step says of a call: done, guidance, or (2026-07-28) ask the person first.
Said = Outcome | ToolGuidance | mcp_types.InputRequiredResult


@dataclass(frozen=True)
class Call:
    """One call as the steps hand it on (``modern``: a sessionless revision, 2026-07-28 on)."""

    ctx: ServerRequestContext[Any]
    caller: Caller
    tool: GuardedTool
    params: mcp_types.CallToolRequestParams
    modern: bool

    @property
    def name(self) -> str:
        """The tool's served name."""
        return self.tool.metadata.get_name()


@dataclass(frozen=True)
class Served:
    """What one server serves and how, the same for every request; its calls' pipeline."""

    tools: Mapping[str, GuardedTool]
    callers: Callers
    running: RunningCalls
    max_calls: int = MAX_CALLS_PER_SESSION
    scopes: Mapping[str, str] | None = None
    user_tools: UserTools | None = None
    heartbeat: float = HEARTBEAT_SECONDS
    resource_bytes: int = resources.MAX_READ_BYTES
    readables: Mapping[str, reads.Readable] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "readables", reads.readable_tools(self.tools))

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult | mcp_types.InputRequiredResult:
        """``tools/call``: the steps of a served call, in order (the module docstring)."""
        call = resolve(self, ctx, params)  # the token was verified before this handler
        said: Said | None = refused(self, call.caller, call.name)
        if said is None:
            caller = call.caller
            shared = caller.key if caller.sessionless else None  # counted on every replica
            async with self.running.slot(caller.counted, shared) as free:
                found = await own_tool(self, call) if free else busy(caller, self.max_calls)
                if isinstance(found, Call):
                    call = found
                    said = await client_signin.resume(call.tool, call.params)  # back from it
                    if said is None:
                        said = await confirm_first(call)
                        if said is None:
                            said = await run(call, self.heartbeat)
                        if isinstance(said, SignInNeeded):
                            said = await sign_in(call, said, self.heartbeat)
                else:
                    said = found
        if isinstance(said, mcp_types.InputRequiredResult):
            return said  # the person is asked first (2026-07-28)
        return await answer(self, call, said)

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: mcp_types.ReadResourceRequestParams
    ) -> mcp_types.ReadResourceResult:
        """``resources/read``: a stored result, or what a read-only tool reads (else ``-32602``)."""
        uri = params.uri
        caller = self.callers.of(ctx)
        named = resources.parse(uri)
        if named is not None:
            return await self._read_stored(caller, uri, *named)
        found = reads.parse(uri, self.readables)
        if found is None:
            raise resources.not_found(uri)
        readable, arguments = found
        tool = self.tools[readable.name]
        params_of = mcp_types.CallToolRequestParams(name=readable.name, arguments=arguments)
        call = Call(
            ctx, caller, tool, params_of, ctx.protocol_version in self.callers.modern_versions
        )
        own = refused(self, caller, readable.name) or await own_tool(self, call)
        done = own if isinstance(own, ToolGuidance) else await run(own, self.heartbeat)
        if isinstance(done, ToolGuidance):
            raise reads.error(done.text)

        def text() -> str:  # megabytes, measured and cut: not on the event loop
            if done.stored is not None:
                return resources.stored_text(done.stored, tool.guard.read_tool, self.resource_bytes)
            return reads.cut(done.text, self.resource_bytes)

        contents = mcp_types.TextResourceContents(
            uri=uri, mime_type=resources.MIME_TYPE, text=await anyio.to_thread.run_sync(text)
        )
        return mcp_types.ReadResourceResult(contents=[contents])

    async def _read_stored(
        self, caller: Caller, uri: str, name: str, result_id: int
    ) -> mcp_types.ReadResourceResult:
        tool = self.tools.get(name)
        if tool is None or not tool.guard.read_tool:
            raise resources.not_found(uri)
        reader = tool.guard.read_tool
        said = refused(self, caller, reader)  # reading it is what a call of the reader does
        own = said if said is not None else await _own(self, caller, tool)
        if isinstance(own, ToolGuidance):
            raise reads.error(own.text)

        # In the scope a call of the reader tool reads in, in a worker thread: a Redis store
        # waits on the network, and the text is measured and cut (megabytes).
        def read() -> mcp_types.ReadResourceResult | None:
            found = reads.stored(caller, own, result_id)
            if found is None:
                return None
            return resources.read_contents(uri, found, reader, self.resource_bytes)

        answered: mcp_types.ReadResourceResult | None = await anyio.to_thread.run_sync(read)
        if answered is None:
            raise resources.not_found(uri)
        return answered


def resolve(
    served: Served, ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
) -> Call:
    """The served tool a request calls and who calls; ``-32602`` for a tool the server lacks."""
    tool = served.tools.get(params.name)
    if tool is None:
        raise errors.MCPError(
            mcp_types.INVALID_PARAMS,
            f"Unknown tool {params.name!r}; this server's tools: {', '.join(served.tools)}",
        )
    modern = ctx.protocol_version in served.callers.modern_versions
    return Call(ctx, served.callers.of(ctx), tool, params, modern)


def refused(served: Served, caller: Caller, name: str) -> ToolGuidance | None:
    """Guidance when ``caller``'s token lacks the scope a call of ``name`` needs."""
    needed = missing_scope(served, caller, name)
    return None if needed is None else ToolGuidance(refusal(name, needed), "")


def missing_scope(served: Served, caller: Caller, name: str) -> str | None:
    """The scope a call of ``name`` needs that ``caller``'s token lacks, if any."""
    if served.scopes is None:
        return None
    needed = served.scopes.get(name, "")
    return None if permits(caller.scopes, needed) else needed


def busy(caller: Caller, max_calls: int) -> ToolGuidance:
    """Guidance for a call over the caller's running calls: wait for one to finish."""
    who = "This session already has" if caller.key is None else "You already have"
    return ToolGuidance(
        f"{who} {max_calls} tool calls running. Wait for one to finish, then call again.", ""
    )


async def own_tool(served: Served, call: Call) -> Call | ToolGuidance:
    """The call with the caller's own tool of its name, or the guidance why there is none."""
    found = await _own(served, call.caller, call.tool)
    return found if isinstance(found, ToolGuidance) else dataclasses.replace(call, tool=found)


async def _own(served: Served, caller: Caller, tool: GuardedTool) -> GuardedTool | ToolGuidance:
    """``caller``'s own tool of ``tool``'s name, built in a worker thread on their first call."""
    user_tools, user = served.user_tools, caller.user
    if user_tools is None or user is None:
        return tool
    found = user_tools.cached(user)
    if found is None:
        try:
            found = await anyio.to_thread.run_sync(user_tools.get, user)
        except ToolGuidance as guidance:
            return guidance
    return found[1][tool.metadata.get_name()]


async def confirm_first(call: Call) -> ToolGuidance | mcp_types.InputRequiredResult | None:
    """Ask the person first where the call asks (destructive): ``None`` to run it."""
    if not (call.tool.guard.asks_first and confirm.can_ask(call.ctx)):
        return None
    return await confirm.ask_first(call.ctx, call.tool, call.params, call.modern)


async def run(call: Call, heartbeat: float) -> Outcome | ToolGuidance:
    """Run the guarded call with progress around it: its outcome, or its guidance."""
    name = call.name
    # A no-op unless the client asked for progress (sent a progress token).
    report = call.ctx.session.report_progress
    beats = 0

    async def beat() -> None:
        nonlocal beats
        while True:
            await anyio.sleep(heartbeat)
            beats += 1
            await report(beats, None, f"{name} is still working")

    said: Outcome | ToolGuidance | None = None
    bug: Exception | None = None
    started = time.monotonic()
    await report(0, None, f"{name} started")
    async with anyio.create_task_group() as group:
        group.start_soon(beat)
        try:
            # Our model reads the arguments as sent ("5" for 5, aliases, camelCase).
            said = await call.tool.guard.arun(
                (), call.params.arguments or {}, call.caller.context()
            )
        except ToolGuidance as guidance:
            said = guidance
        except Exception as exc:  # our bug (strict mode): re-raised outside the group
            bug = exc
        finally:
            group.cancel_scope.cancel()
    outcome = "bug" if bug is not None else "guidance" if isinstance(said, ToolGuidance) else "ok"
    _log_call(call, outcome, started)
    if bug is not None:
        raise bug
    assert said is not None
    await report(beats + 1, beats + 1, f"{name} finished")
    return said


async def sign_in(call: Call, needed: SignInNeeded, heartbeat: float) -> Said:
    """After a call that needed the person's sign-in: show the page, then run once more."""
    if not client_signin.can_open(call.ctx):
        return needed
    shown = await client_signin.offer(call.ctx, call.tool, call.modern)
    if shown is True:  # signed in, in their client: once more (no second page)
        said = await confirm_first(call)
        return said if said is not None else await run(call, heartbeat)
    return needed if shown is False else shown  # declined, failed, or show it (2026-07-28)


async def answer(
    served: Served, call: Call, said: Outcome | ToolGuidance
) -> mcp_types.CallToolResult:
    """The ``CallToolResult``: the text, the structure, and links to what they name."""
    if isinstance(said, ToolGuidance):
        content: list[mcp_types.ContentBlock] = [mcp_types.TextContent(text=said.text)]
        return mcp_types.CallToolResult(content=content, is_error=True)
    content = [mcp_types.TextContent(text=said.text)]
    data = said.structured
    if said.stored is not None:
        # Its size is counted over the whole text (megabytes): not on the event loop.
        link: mcp_types.ResourceLink = await anyio.to_thread.run_sync(
            resources.result_link,
            call.name,
            said.stored,
            call.tool.guard.read_tool,
            served.resource_bytes,
        )
        content.append(link)
        if data is not None and isinstance(data.get("stored"), dict):
            data = {**data, "stored": {**data["stored"], "uri": link.uri}}
    called = served.tools[call.name]
    readables = [
        r
        for r in served.readables.values()
        if r.name != call.name
        and served.tools[r.name].spec is called.spec
        and missing_scope(served, call.caller, r.name) is None
    ]
    linked, data = reads.links(readables, called, data)
    content.extend(linked)
    return mcp_types.CallToolResult(content=content, is_error=False, structured_content=data)


def _log_call(call: Call, outcome: str, started: float) -> None:
    """One record per tool call (logger ``toolspecs.calls``): never its arguments or text."""
    extra: dict[str, Any] = {"tool": call.name, "outcome": outcome, **dict(call.caller.logged)}
    scope = getattr(call.ctx.request, "scope", None)
    if isinstance(scope, dict):
        for header, value in scope.get("headers") or []:
            if header == b"x-request-id":
                extra["request_id"] = value.decode("ascii", "replace")
    extra["ms"] = round((time.monotonic() - started) * 1000, 1)
    call_log.info("%s %s", call.name, outcome, extra=extra)
