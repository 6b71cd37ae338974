"""Our tools for people who call an OpenAI-compatible or Anthropic SDK themselves.

:class:`ToolExecutor` is the executor every tool-calling loop needs, with its edge cases
(a tool name the model made up, arguments that are not JSON or were cut off). No SDK is
imported: calls may be the SDKs' objects or plain dicts. Every failure comes back as a
message, never an exception; calls of one turn run concurrently, answered in order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from llama_index.core.tools.types import ToolOutput

from toolspecs.adapters.tools import Tools, guarded_tools, json_beyond_limits
from toolspecs.core.bounds import shown
from toolspecs.core.errors import FixArguments, ToolGuidance
from toolspecs.core.tool import GuardedTool

__all__ = ["ToolAnswer", "ToolExecutor", "to_anthropic_tools", "to_openai_tools"]

_Call = tuple[str, Any, Any]  # (call id, tool name, arguments as sent)


def to_openai_tools(source: Tools) -> list[dict[str, Any]]:
    """The ``tools`` of an OpenAI chat completion (``{"type": "function", ...}``)."""
    return [tool.metadata.to_openai_tool() for tool in guarded_tools(source)]


def to_anthropic_tools(source: Tools) -> list[dict[str, Any]]:
    """The ``tools`` of an Anthropic message (``name``, ``description``, ``input_schema``)."""
    return [
        {
            "name": tool.metadata.get_name(),
            "description": tool.metadata.description,
            "input_schema": tool.metadata.get_parameters_dict(),
        }
        for tool in guarded_tools(source)
    ]


class ToolAnswer(dict[str, Any]):
    """One answer message, the ``dict`` an SDK takes, carrying the call's structured result.

    Neither API has a field for it in a tool message: ``structured`` stays beside the
    message for the caller's code (``None`` for guidance) and is never sent to the model.
    """

    structured: dict[str, Any] | None

    def __init__(self, message: Mapping[str, Any], structured: dict[str, Any] | None) -> None:
        """The message, carrying ``structured``."""
        super().__init__(message)
        self.structured = structured


class ToolExecutor:
    """Runs the tool calls a model made and returns the messages that answer them."""

    def __init__(self, source: Tools, max_workers: int = 8) -> None:
        self.tools: dict[str, GuardedTool] = {
            tool.metadata.get_name(): tool for tool in guarded_tools(source)
        }
        self.max_workers = max_workers

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tool definitions to send with an OpenAI chat completion."""
        return to_openai_tools(list(self.tools.values()))

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The tool definitions to send with an Anthropic message."""
        return to_anthropic_tools(list(self.tools.values()))

    def execute(self, tool_calls: Iterable[Any]) -> list[ToolAnswer]:
        """Run a chat completion's ``tool_calls``: the ``role: "tool"`` messages, in order."""
        calls = [_openai_call(call) for call in tool_calls]
        return _answers(calls, self._run_all(calls), _tool_message)

    async def aexecute(self, tool_calls: Iterable[Any]) -> list[ToolAnswer]:
        """:meth:`execute` for async code."""
        calls = [_openai_call(call) for call in tool_calls]
        return _answers(calls, await self._arun_all(calls), _tool_message)

    def execute_anthropic(self, content_blocks: Iterable[Any]) -> list[ToolAnswer]:
        """Run the ``tool_use`` blocks of an Anthropic message: ``tool_result`` blocks, in order."""
        uses = _anthropic_uses(content_blocks)
        return _answers(uses, self._run_all(uses), _tool_result)

    async def aexecute_anthropic(self, content_blocks: Iterable[Any]) -> list[ToolAnswer]:
        """:meth:`execute_anthropic` for async code."""
        uses = _anthropic_uses(content_blocks)
        return _answers(uses, await self._arun_all(uses), _tool_result)

    def run(self, name: str, arguments: Any) -> ToolOutput:
        """One call by tool name, arguments as sent; never raises, so the turn's others run."""
        found = self._read(name, arguments)
        if isinstance(found, ToolOutput):
            return found
        tool, kwargs = found
        try:
            return tool.call(**kwargs)
        except Exception as exc:
            return _refused(str(name), arguments, tool.guard.guidance(exc))

    async def arun(self, name: str, arguments: Any) -> ToolOutput:
        """:meth:`run` for async code."""
        found = self._read(name, arguments)
        if isinstance(found, ToolOutput):
            return found
        tool, kwargs = found
        try:
            return await tool.acall(**kwargs)
        except Exception as exc:
            return _refused(str(name), arguments, tool.guard.guidance(exc))

    def _read(self, name: Any, arguments: Any) -> ToolOutput | tuple[GuardedTool, dict[str, Any]]:
        try:
            return self._tool(name), _arguments(name, arguments)
        except ToolGuidance as guidance:
            return _refused(str(name), arguments, guidance)

    def _run_all(self, calls: list[_Call]) -> list[ToolOutput]:
        if len(calls) <= 1:
            return [self.run(name, arguments) for _, name, arguments in calls]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(calls))) as pool:
            return list(pool.map(lambda call: self.run(call[1], call[2]), calls))

    async def _arun_all(self, calls: list[_Call]) -> list[ToolOutput]:
        return list(await asyncio.gather(*(self.arun(name, args) for _, name, args in calls)))

    def _tool(self, name: Any) -> GuardedTool:
        tool = self.tools.get(name) if isinstance(name, str) else None
        if tool is None:
            known = ", ".join(self.tools) or "none"
            raise FixArguments(
                f"There is no tool named {shown(name)}. The tools are: {known}.",
                "Call one of those, by its exact name.",
            )
        return tool


def _field(item: Any, key: str) -> Any:
    if isinstance(item, Mapping):
        return item.get(key)
    return getattr(item, key, None)


def _openai_call(call: Any) -> _Call:
    function = _field(call, "function")
    return str(_field(call, "id") or ""), _field(function, "name"), _field(function, "arguments")


def _anthropic_uses(blocks: Iterable[Any]) -> list[_Call]:
    return [
        (str(_field(block, "id") or ""), _field(block, "name"), _field(block, "input"))
        for block in blocks
        if _field(block, "type") == "tool_use"
    ]


def _arguments(name: str, arguments: Any) -> dict[str, Any]:
    if arguments is None or arguments == "":
        return {}
    loaded = arguments
    if isinstance(arguments, (str, bytes)):
        text = arguments.decode("utf-8", "replace") if isinstance(arguments, bytes) else arguments
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            # Cut off: the text ends where the JSON was still open (in a string, too).
            cut = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
            problem = (
                "were cut off: the JSON ends before it is complete"
                if cut
                else f"are not valid JSON ({exc.msg}; character {exc.pos})"
            )
            raise FixArguments(
                f"The arguments of {name} {problem}: {shown(text)}.",
                'Send them again, whole, as one JSON object such as {"query": "..."}.',
            ) from None
        except (ValueError, RecursionError) as exc:
            problem, step = json_beyond_limits(exc)
            raise FixArguments(f"The arguments of {name} {problem}.", step) from None
    if not isinstance(loaded, Mapping):
        raise FixArguments(
            f"The arguments of {name} must be a JSON object of named arguments, "
            f"not {type(loaded).__name__}: {shown(loaded)}.",
            'Send an object such as {"query": "..."}.',
        )
    return {str(key): value for key, value in loaded.items()}


def _refused(name: str, arguments: Any, guidance: ToolGuidance) -> ToolOutput:
    return ToolOutput(
        tool_name=name,
        content=guidance.text,
        raw_input={"args": (), "kwargs": {"arguments": arguments}},
        raw_output=guidance.text,
        is_error=True,
        exception=guidance,
    )


def _structured(output: ToolOutput) -> dict[str, Any] | None:
    found = getattr(output, "structured", None)  # GuardedOutput; None for a refusal
    return found if isinstance(found, dict) else None


def _answers(
    calls: list[_Call], outputs: list[ToolOutput], answer: Callable[[str, ToolOutput], ToolAnswer]
) -> list[ToolAnswer]:
    return [answer(call[0], output) for call, output in zip(calls, outputs, strict=True)]


def _tool_message(call_id: str, output: ToolOutput) -> ToolAnswer:
    message = {"role": "tool", "tool_call_id": call_id, "content": output.content}
    return ToolAnswer(message, _structured(output))


def _tool_result(use_id: str, output: ToolOutput) -> ToolAnswer:
    message = {
        "type": "tool_result",
        "tool_use_id": use_id,
        "content": output.content,
        "is_error": bool(output.is_error),
    }
    return ToolAnswer(message, _structured(output))
