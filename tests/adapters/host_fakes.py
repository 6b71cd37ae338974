"""Scripted models for the host tests: each host's own model class, its answers scripted.

- LangChain: langchain-core's ``GenericFakeChatModel`` plays a list of ``AIMessage``s
  (tool calls, then an answer). It has no ``bind_tools``, which ``create_agent`` calls,
  so :class:`ToolCallingFakeChatModel` adds one (the only addition): it formats the
  tools as a provider does (``convert_to_openai_tool``, what ``ChatOpenAI.bind_tools``
  sends) and records them, and it records the messages of every request.
- smolagents: its real ``OpenAIServerModel`` (the OpenAI SDK underneath), its HTTP
  answered by our shipped ``FakeOpenAI``, which records every request body: the tools
  exactly as OpenAI would receive them, and what the agent told the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import httpx
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from toolspecs.agents.testing import FakeOpenAI


class ToolCallingFakeChatModel(GenericFakeChatModel):
    """``GenericFakeChatModel`` with ``bind_tools``; records what each request carried."""

    offered: list[list[dict[str, Any]]] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        self.offered.append(formatted)
        return self.bind(tools=formatted, **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def calls(*calls: tuple[str, dict[str, Any]], turn: int = 1) -> AIMessage:
    """The model's turn that calls tools: ``calls(("arxiv_query", {"query": "bert"}))``."""
    return AIMessage(
        content="",
        tool_calls=[
            {"name": name, "args": args, "id": f"call_{turn}_{index}", "type": "tool_call"}
            for index, (name, args) in enumerate(calls)
        ],
    )


def scripted_chat_model(turns: Iterable[AIMessage | str]) -> ToolCallingFakeChatModel:
    """A LangChain chat model that plays ``turns``, one per request."""
    return ToolCallingFakeChatModel(messages=iter(list(turns)))


def openai_server_model(fake: FakeOpenAI, model_id: str = "gpt-4.1-mini", **kwargs: Any) -> Any:
    """smolagents' ``OpenAIServerModel``, its HTTP served by ``fake``."""
    from smolagents.models import OpenAIServerModel  # its home: tests may replace smolagents.X

    client = {"http_client": httpx.Client(transport=fake.transport), "max_retries": 0}
    return OpenAIServerModel(model_id=model_id, api_key="sk-test", client_kwargs=client, **kwargs)


def request_text(request: dict[str, Any]) -> str:
    """Every text of an OpenAI request's messages, joined: what the model was told."""
    parts: list[str] = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p.get("text", "") for p in content if isinstance(p, dict)]
    return "\n".join(parts)
