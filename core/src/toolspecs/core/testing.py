r"""Offline agent runs: a function-calling LLM that plays a script.

:class:`ScriptedLLM` stands in for a real model in a llama-index agent. Each turn of
its script is either the tool calls the model makes or its final answer, as it is or
made by a function of the last tool output (to answer with it, or to pass on an id it
holds). It records the tools it was offered and the messages it saw, so a test can
check what a real model would have been given.
Pair it with the offline service fakes the packages ship
(``toolspecs.loaders.arxiv.testing``, ``toolspecs.loaders.wolfram_alpha.testing``,
``toolspecs.loaders.google.testing``) to test your own agent without a key::

    from llama_index.core.agent.workflow import FunctionAgent

    from toolspecs.core.testing import ScriptedLLM
    from toolspecs.loaders.arxiv.testing import FakeArxiv
    from toolspecs.specs.arxiv import ArxivToolSpec

    llm = ScriptedLLM(
        [
            [("arxiv_query", {"query": "attention is all you need"})],
            lambda output: f"The top paper:\n{output}",
        ]
    )
    spec = ArxivToolSpec(transport=FakeArxiv().transport())
    agent = FunctionAgent(tools=spec.to_tool_list(), llm=llm)
    response = await agent.run("Find the Transformer paper.")
    assert "Attention Is All You Need" in str(response)
    assert "arxiv_query" in llm.offered[0]

The script is played in order, across runs (an agent that keeps its memory plays on);
an LLM call after the last turn raises :class:`ScriptExhausted`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from llama_index.core.base.llms.types import (
    ChatMessage,
    ContentBlock,
    MessageRole,
    ToolCallBlock,
)
from llama_index.core.llms import MockFunctionCallingLLM
from pydantic import PrivateAttr

__all__ = ["Reply", "ScriptExhausted", "ScriptedLLM", "ToolCall", "Turn"]

ToolCall = tuple[str, dict[str, Any] | str]
"""One tool call: the tool's name and its arguments (a dict, or raw JSON text)."""
Reply = Sequence[ToolCall] | ToolCall | str
"""What the model says in one turn: tool calls (a list of them, or one), or its answer."""
Turn = Reply | Callable[[str], Reply]
"""A reply, or a function that makes one from the last tool output's text."""


class ScriptExhausted(RuntimeError):
    """The agent asked the scripted LLM for more turns than its script has."""


class ScriptedLLM(MockFunctionCallingLLM):
    """A function-calling LLM that plays ``turns`` in order.

    Args:
        turns: The model's turns: ``[("tool", {"arg": 1}), ...]`` to call tools (several
            calls in one turn run in parallel), a string to answer, or a callable that
            takes the last tool output's text (``""`` before any) and returns either.
    """

    _turns: list[Turn] = PrivateAttr(default_factory=list)
    _played: int = PrivateAttr(default=0)
    _offered: list[list[str]] = PrivateAttr(default_factory=list)
    _seen: list[list[ChatMessage]] = PrivateAttr(default_factory=list)

    def __init__(self, turns: Sequence[Turn]) -> None:
        super().__init__(response_generator=self._respond)
        self._turns = list(turns)

    @classmethod
    def class_name(cls) -> str:
        """The name llama-index serializes this LLM under."""
        return "ScriptedLLM"

    @property
    def offered(self) -> list[list[str]]:
        """The names of the tools the agent offered, one list per LLM call."""
        return self._offered

    @property
    def seen(self) -> list[list[ChatMessage]]:
        """The messages the agent sent, one list per LLM call."""
        return self._seen

    @property
    def remaining(self) -> int:
        """How many turns of the script are still to be played."""
        return len(self._turns) - self._played

    def _respond(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        tools = kwargs.get("tools") or []
        self._offered.append([tool.metadata.name for tool in tools])
        self._seen.append(list(messages))
        if self._played >= len(self._turns):
            raise ScriptExhausted(
                f"The script has {len(self._turns)} turns and all were played; "
                "add a final answer to it."
            )
        turn = self._turns[self._played]
        self._played += 1
        reply = turn(_last_output(messages)) if callable(turn) else turn
        if isinstance(reply, str):
            return ChatMessage(role=MessageRole.ASSISTANT, content=reply)
        calls = _calls(reply)
        blocks: list[ContentBlock] = [
            ToolCallBlock(
                tool_call_id=f"call-{self._played}-{index}", tool_name=name, tool_kwargs=arguments
            )
            for index, (name, arguments) in enumerate(calls)
        ]
        return ChatMessage(role=MessageRole.ASSISTANT, blocks=blocks)


def _calls(reply: Sequence[ToolCall] | ToolCall) -> list[ToolCall]:
    if not reply:
        raise ValueError("A scripted turn has no tool call: give it one, or an answer.")
    if isinstance(reply[0], str):  # one call: ("tool", {...})
        return [cast(ToolCall, reply)]
    return list(cast(Sequence[ToolCall], reply))


def _last_output(messages: Sequence[ChatMessage]) -> str:
    outputs = [m.content or "" for m in messages if m.role == MessageRole.TOOL]
    return outputs[-1] if outputs else ""
