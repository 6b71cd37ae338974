"""Our tools as LangChain tools: ``to_langchain_tools(spec)`` for ``create_agent`` and friends.

Each tool becomes a langchain-core ``StructuredTool`` that shows the model exactly what
our tool shows it and answers exactly as it answers:

- ``args_schema`` is the tool's own typed argument model (``tool.metadata.fn_schema``),
  and the model is sent its JSON schema unchanged (the ``parameters`` of
  ``to_openai_tool()``: types, descriptions, defaults, ``enum``, bounds);
- the arguments the model sent reach our argument model as they are, so ``"5"`` for an
  integer, an alias (``q``) or ``camelCase`` names are read as everywhere else, and a
  call it cannot read gets our guidance, not pydantic's error;
- a result is our text (what ``tool.fn`` returns; ``ainvoke`` awaits it, so async agents
  do not block their event loop) with the call's structured result beside it
  (``response_format="content_and_artifact"``): invoked with a ``ToolCall`` (as agents
  do), the tool answers a ``ToolMessage`` whose ``content`` is the text and whose
  ``artifact`` is the JSON-ready dict of a tool declared ``@tool(output=Model)``
  (``GuardedOutput.structured``, what MCP sends as ``structuredContent``), ``None`` for
  a tool without one. LangChain never sends the artifact to the model. Invoked with
  plain arguments, the tool returns the text alone, as before;
- guidance becomes a ``ToolException`` carrying exactly ``ToolGuidance.text``, which
  LangChain hands back to the model as a ``ToolMessage`` with ``status="error"``
  (``handle_tool_error=True``);
- the policy marks are in ``tool.metadata`` under MCP's names (``readOnlyHint``,
  ``destructiveHint``, ``idempotentHint``, ``openWorldHint``), where
  ``langchain-mcp-adapters`` puts the annotations of MCP tools, so a host can pick the
  tools to confirm (e.g. ``HumanInTheLoopMiddleware(interrupt_on=...)``).

Importing this module needs langchain-core: ``pip install "toolspecs-core[langchain]"``.
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
    """A ``StructuredTool`` whose arguments are read by our model, not validated before it.

    Made by :func:`to_langchain_tools`. The model is sent ``args_schema``'s own schema, and
    the arguments as it sent them reach our model, so that a call it cannot read is
    answered with our guidance (a ``ToolMessage`` with ``status="error"``) instead of
    pydantic's ``ValidationError``: both lean on langchain-core's tool internals, listed
    in :mod:`toolspecs.adapters.compat_langchain`.
    """


def to_langchain_tools(source: Tools) -> list[ToolspecsStructuredTool]:
    """Our tools as langchain-core ``StructuredTool`` objects, in order.

    Args:
        source: A spec, several specs, or our tools (e.g. ``spec.to_tool_list(prefix=...)``).

    Returns:
        One tool per tool of ``source``: same name, description and schema, our text as
        its result and the structured result as its ``ToolMessage.artifact``, guidance as
        a ``ToolMessage`` with ``status="error"``, and the policy marks in ``metadata``.

    Raises:
        ConfigurationError: When an item is not ours, or two tools share a name.
    """
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
