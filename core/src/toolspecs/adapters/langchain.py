"""Our tools as LangChain tools: ``to_langchain_tools(spec)`` for ``create_agent`` and friends.

Each becomes a ``StructuredTool`` that shows the model our schema unchanged and reads the
arguments as sent with our model; the structured result is the ``ToolMessage.artifact``
(never sent to the model); guidance is a ``ToolException`` with its exact text; the marks
are in ``tool.metadata`` under MCP's names, where ``langchain-mcp-adapters`` puts them.
"""

from __future__ import annotations

from typing import Any

from toolspecs.adapters.tools import Tools, guarded_tools, require
from toolspecs.core.errors import ConfigurationError, ToolGuidance
from toolspecs.core.tool import GuardedTool

require("langchain_core.tools", "langchain")  # else an ImportError naming the extra

from langchain_core.tools import ToolException  # noqa: E402

from toolspecs.adapters.compat_langchain import ArgumentsAsSent  # noqa: E402

__all__ = ["ToolspecsStructuredTool", "to_langchain_tools"]


class ToolspecsStructuredTool(ArgumentsAsSent):
    """A ``StructuredTool`` whose arguments are read by our model, not validated before it."""


def to_langchain_tools(source: Tools) -> list[ToolspecsStructuredTool]:
    """Our tools (a spec, several, or tools) as langchain-core ``StructuredTool`` objects."""
    return [_langchain_tool(tool) for tool in guarded_tools(source)]


def _langchain_tool(tool: GuardedTool) -> ToolspecsStructuredTool:
    name = tool.metadata.get_name()
    model = tool.metadata.fn_schema
    if model is None:  # every tool of a ToolSpec has one
        raise ConfigurationError(f"{name} has no argument model (fn_schema)")
    guard = tool.guard  # tool.fn's own path, keeping the structured result it drops

    def run(*args: Any, **kwargs: Any) -> tuple[str, dict[str, Any] | None]:
        try:
            outcome = guard.run(args, kwargs)
        except ToolGuidance as guidance:
            raise ToolException(guidance.text) from guidance
        return outcome.text, outcome.structured

    async def arun(*args: Any, **kwargs: Any) -> tuple[str, dict[str, Any] | None]:
        try:
            outcome = await guard.arun(args, kwargs)
        except ToolGuidance as guidance:
            raise ToolException(guidance.text) from guidance
        return outcome.text, outcome.structured

    return ToolspecsStructuredTool(
        name=name,
        description=tool.metadata.description,
        args_schema=model,
        func=run,
        coroutine=arun,
        handle_tool_error=True,  # a ToolException's text goes back to the model
        response_format="content_and_artifact",  # (text, structured): ToolMessage.artifact
        metadata=dict(tool.marks.annotations()),
    )
