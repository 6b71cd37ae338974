"""The served specs' task prompts as MCP prompts, offered when every tool they use is.

A prompt's message is the person's own request: a user message, never a tool result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import mcp.shared.exceptions as errors
import mcp_types
from mcp.server import ServerRequestContext

from toolspecs.core.errors import ConfigurationError, ToolGuidance
from toolspecs.core.prompts import TaskPrompt
from toolspecs.core.tool import GuardedTool
from toolspecs.server.calls import Served, missing_scope


@dataclass(frozen=True)
class ServedPrompt:
    """A task prompt as one server offers it: its name there and its tools' names there."""

    name: str
    prompt: TaskPrompt
    tools: dict[str, str]  # function -> the name it is served under

    def definition(self) -> mcp_types.Prompt:
        """How ``prompts/list`` shows it."""
        arguments = [
            mcp_types.PromptArgument(name=a.name, description=a.description, required=a.required)
            for a in self.prompt.arguments
        ]
        return mcp_types.Prompt(
            name=self.name,
            title=self.prompt.title,
            description=self.prompt.description,
            arguments=arguments or None,
        )


def served_prompts(tools: Iterable[GuardedTool]) -> dict[str, ServedPrompt]:
    """The prompts of the specs of ``tools`` whose every used tool is among them."""
    specs: dict[int, tuple[Any, str, dict[str, str]]] = {}
    for tool in tools:
        if tool.spec is None:
            continue
        _, prefix, names = specs.setdefault(id(tool.spec), (tool.spec, tool.guard.names.prefix, {}))
        names[tool.guard.function] = tool.metadata.get_name()
    found: dict[str, ServedPrompt] = {}
    for spec, prefix, names in specs.values():
        for prompt in getattr(type(spec), "prompts", ()):
            if not all(function in names for function in prompt.uses):
                continue
            name = f"{prefix}{prompt.name}"
            if name in found:
                raise ConfigurationError(
                    f"two served specs have a prompt named {name!r}: give one a tool prefix"
                )
            found[name] = ServedPrompt(name, prompt, {f: names[f] for f in prompt.uses})
    return found


def handlers(
    prompts: dict[str, ServedPrompt], served: Served
) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The ``prompts/list`` and ``prompts/get`` handlers of ``prompts``, filtered by scope."""

    def allowed(ctx: ServerRequestContext[Any]) -> list[ServedPrompt]:
        caller = served.callers.of(ctx)  # who the request comes from, read once
        return [
            p
            for p in prompts.values()
            if all(missing_scope(served, caller, name) is None for name in p.tools.values())
        ]

    async def list_prompts(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListPromptsResult:
        shown = [p.definition() for p in allowed(ctx)]
        return mcp_types.ListPromptsResult(prompts=shown)

    async def get_prompt(
        ctx: ServerRequestContext[Any], params: mcp_types.GetPromptRequestParams
    ) -> mcp_types.GetPromptResult:
        mine = allowed(ctx)
        found = prompts.get(params.name)
        if found is None or found not in mine:
            shown = ", ".join(p.name for p in mine)
            raise errors.MCPError(
                mcp_types.INVALID_PARAMS,
                f"Unknown prompt {params.name!r}; this server's prompts: {shown or 'none'}",
            )
        try:
            text = found.prompt.render(found.tools, params.arguments)
        except ToolGuidance as guidance:
            raise errors.MCPError(mcp_types.INVALID_PARAMS, guidance.text) from None
        message = mcp_types.PromptMessage(role="user", content=mcp_types.TextContent(text=text))
        return mcp_types.GetPromptResult(description=found.prompt.description, messages=[message])

    return list_prompts, get_prompt
