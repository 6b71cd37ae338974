"""The blog's ``OpenAIAgent.from_tools(...)`` on today's llama-index, over ``FunctionAgent``.

The original lived in ``llama-index-agent-openai`` (llama-index-core below 0.13); this
keeps its calls. ``chat`` runs on a private event loop kept for the agent's life (pooled
connections belong to the loop that opened them), in a helper thread where a loop
already runs; use ``chat`` or ``achat`` per agent, not both.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import sys
import weakref
from collections.abc import Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from llama_index.core.agent.workflow import AgentOutput, FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.chat_engine.types import AgentChatResponse
from llama_index.core.llms import LLM
from llama_index.core.memory import BaseMemory, ChatMemoryBuffer
from llama_index.core.tools import BaseTool, ToolOutput

from toolspecs.agents.compat_llama_index import has_own_client
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.tool import names_used_twice

DEFAULT_MODEL = "gpt-4.1-mini"
INSTALL = 'pip install "toolspecs[openai]"'
NO_KEY = (
    "OPENAI_API_KEY is not set: export it, or pass llm=OpenAI(api_key=...) "
    "(or any function-calling llama-index LLM)."
)

T = TypeVar("T")


def default_llm(model: str = DEFAULT_MODEL) -> LLM:
    """llama-index's ``OpenAI`` LLM; the key comes from ``OPENAI_API_KEY``."""
    try:
        from llama_index.llms.openai import OpenAI
    except ImportError as exc:
        raise ImportError(
            "OpenAIAgent's default LLM is llama-index's OpenAI class, which is not "
            f"installed: {INSTALL}, or pass llm=... (any function-calling llama-index LLM)."
        ) from exc
    return OpenAI(model=model)


def require_openai_key(llm: LLM) -> None:
    """Refuse llama-index's ``OpenAI`` LLM when it has no key, before any request.

    Else the client is made deep inside the workflow, and "Missing credentials" ends a
    long traceback.
    """
    module = sys.modules.get("llama_index.llms.openai")  # an OpenAI LLM has imported it
    # Only the OpenAI class itself: subclasses (AzureOpenAI) find credentials their own
    # way, and a client given to it holds its own key.
    if module is None or type(llm) is not module.OpenAI:
        return
    openai_llm: Any = llm  # an OpenAI, which mypy cannot tell from the check above
    if not openai_llm.api_key and not has_own_client(openai_llm):
        raise ConfigurationError(NO_KEY)


class _PrivateLoop:
    """One event loop for the synchronous calls of an agent, closed with the agent."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            weakref.finalize(self, self._loop.close)
        loop = self._loop
        if not _loop_running_here():
            # Not inside the ``except`` that asked: an error of the call would be chained
            # to "RuntimeError: no running event loop" and buried under it.
            return loop.run_until_complete(coro)
        context = contextvars.copy_context()
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(context.run, loop.run_until_complete, coro).result()


def _loop_running_here() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


class OpenAIAgent:
    """A chat agent with tools: ``FunctionAgent`` behind the blog's ``OpenAIAgent`` calls."""

    def __init__(self, agent: FunctionAgent, memory: BaseMemory, verbose: bool = False) -> None:
        self.function_agent = agent
        self.memory = memory
        self.verbose = verbose
        self._loop = _PrivateLoop()

    @classmethod
    def from_tools(
        cls,
        tools: Sequence[BaseTool] | None = None,
        llm: LLM | None = None,
        verbose: bool = False,
        system_prompt: str | None = None,
        memory: BaseMemory | None = None,
        chat_history: Sequence[ChatMessage] | None = None,
        **kwargs: Any,
    ) -> OpenAIAgent:
        """An agent over ``tools``, as ``OpenAIAgent.from_tools`` made one.

        Args:
            tools: The tools, e.g. ``spec.to_tool_list()``.
            llm: A function-calling llama-index LLM; default ``OpenAI(model="gpt-4.1-mini")``.
            verbose: Print each tool call and its output.
            system_prompt: A system prompt sent before the conversation.
            memory: Where the conversation is kept; default a ``ChatMemoryBuffer``.
            chat_history: Messages the conversation starts with.
            **kwargs: More ``FunctionAgent`` fields (``streaming`` is off by default here).
        """
        tools = list(tools or [])
        twice = names_used_twice(t.metadata.get_name() for t in tools)
        if twice:
            raise ValueError(
                f"more than one tool is named {', '.join(map(repr, twice))}; the model could "
                "call only one of them. Give one spec a prefix, e.g. "
                "GmailToolSpec().to_tool_list(prefix='gmail_')."
            )
        llm = llm or default_llm()
        require_openai_key(llm)
        if not llm.metadata.is_function_calling_model:
            raise ValueError(
                f"{llm.metadata.model_name!r} cannot call functions; "
                "pass a function-calling LLM such as OpenAI(model='gpt-4.1-mini')."
            )
        kwargs.setdefault("streaming", False)
        agent = FunctionAgent(tools=list(tools), llm=llm, system_prompt=system_prompt, **kwargs)
        if memory is None:
            memory = ChatMemoryBuffer.from_defaults(llm=llm, chat_history=list(chat_history or []))
        elif chat_history:
            memory.set(list(chat_history))
        return cls(agent, memory, verbose=verbose)

    async def achat(
        self, message: str, chat_history: Sequence[ChatMessage] | None = None
    ) -> AgentChatResponse:
        """Send a message; the reply's ``str()`` is the answer, ``.sources`` the tool outputs."""
        handler = self.function_agent.run(
            user_msg=message,
            chat_history=list(chat_history) if chat_history else None,
            memory=self.memory,
        )
        sources: list[ToolOutput] = []
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                sources.append(event.tool_output)
                if self.verbose:
                    _print_call(event)
        output: object = await handler
        answer = output.response.content if isinstance(output, AgentOutput) else str(output)
        return AgentChatResponse(response=answer or "", sources=sources)

    def chat(
        self, message: str, chat_history: Sequence[ChatMessage] | None = None
    ) -> AgentChatResponse:
        """``achat`` for synchronous code (scripts, notebook cells without ``await``)."""
        return self._loop.run(self.achat(message, chat_history))

    @property
    def chat_history(self) -> list[ChatMessage]:
        """The conversation so far."""
        return self.memory.get_all()

    def reset(self) -> None:
        """Forget the conversation."""
        self.memory.reset()


def _print_call(result: ToolCallResult) -> None:
    arguments = json.dumps(result.tool_kwargs, ensure_ascii=False, default=str)
    print("=== Calling Function ===")
    print(f"Calling function: {result.tool_name} with args: {arguments}")
    print(f"Got output: {result.tool_output.content}")
    print("========================\n")
