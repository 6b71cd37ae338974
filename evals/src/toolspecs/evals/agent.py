"""One agent run, as both tool sets make it: llama-index's ``FunctionAgent`` over ``OpenAILike``.

The harness runs our tools with it in its own process (:mod:`toolspecs.evals.run`); the
LlamaHub child (``llamahub_child.py``) runs LlamaHub's with it in the LlamaHub environment,
where toolspecs is not installed. So this module imports llama-index and httpx only, and
the child imports it as a file beside its own (a script's folder is first on
``sys.path``): both sides get the same model settings, retries, token budget, step cap,
counts and names of outcomes.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

__all__ = [
    "BudgetSpent",
    "Tally",
    "Usage",
    "clashing",
    "error_kind",
    "model",
    "play",
    "stopped",
]


class Usage:
    """Tokens an endpoint reported over one run's requests, and the budget they may reach."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.prompt = 0
        self.completion = 0

    @property
    def total(self) -> int:
        """Prompt and completion tokens."""
        return self.prompt + self.completion

    @property
    def spent(self) -> bool:
        """Whether the budget is used up."""
        return self.total > self.budget

    def add(self, reported: Any) -> None:
        """Count a response's ``usage`` (an object of ``prompt_tokens``, ...), if any."""
        if isinstance(reported, dict):
            self.prompt += int(reported.get("prompt_tokens") or 0)
            self.completion += int(reported.get("completion_tokens") or 0)

    def client(self, timeout: float) -> httpx.AsyncClient:
        """An HTTP client that counts each answer's ``usage`` and stops past the budget."""

        async def before(request: httpx.Request) -> None:
            if self.spent:
                raise BudgetSpent(f"the run's token budget ({self.budget:,}) is used up")

        async def after(response: httpx.Response) -> None:
            if response.headers.get("content-type", "").startswith("application/json"):
                await response.aread()
                with contextlib.suppress(ValueError):
                    self.add(response.json().get("usage"))

        return httpx.AsyncClient(
            timeout=timeout, event_hooks={"request": [before], "response": [after]}
        )


class BudgetSpent(Exception):
    """A run's token budget is used up: its next request is not made."""


@dataclasses.dataclass
class Tally:
    """The tool calls of one run, and its tool errors by kind (:func:`error_kind`)."""

    calls: int = 0
    errors: Counter[str] = dataclasses.field(default_factory=Counter)


def clashing(names: Mapping[str, Sequence[str]]) -> set[str]:
    """The specs (of ``names``: each spec's tool names) that share a tool name with another.

    Each of them offers every tool prefixed with its name (``gmail_load_data``), on both
    sides alike: Gmail and Calendar both have ``load_data``.
    """
    counts = Counter(name for tools in names.values() for name in set(tools))
    return {spec for spec, tools in names.items() if any(counts[name] > 1 for name in tools)}


def error_kind(output: Any) -> str:
    """The kind of a tool error: its exception's class (our guidance's), or what the host said."""
    exception = getattr(output, "exception", None)
    if exception is not None:
        return type(exception).__name__
    content = str(getattr(output, "content", ""))
    if content.startswith("Tool ") and "not found" in content:
        return "unknown tool"
    return "tool error"


def model(
    name: str,
    base_url: str,
    api_key: str | None,
    headers: Mapping[str, str],
    client: httpx.AsyncClient,
    timeout: float,
) -> LLM:
    """llama-index's ``OpenAILike`` for one run, its requests sent by ``client``."""
    from llama_index.llms.openai_like import OpenAILike

    llm: LLM = OpenAILike(
        model=name,
        api_base=base_url,
        api_key=api_key or "none",
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=128_000,
        max_retries=3,  # the openai SDK's backoff: rate limits (429) and 5xx are retried
        timeout=timeout,
        default_headers=dict(headers),
        async_http_client=client,
    )
    return llm


async def play(
    tools: Sequence[Any], llm: LLM, system_prompt: str, request: str, steps: int, tally: Tally
) -> str:
    """Run the agent on ``request``; its final answer. ``tally`` counts as it goes."""
    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult

    agent = FunctionAgent(tools=list(tools), llm=llm, system_prompt=system_prompt, streaming=False)
    handler = agent.run(user_msg=request, max_iterations=steps)
    try:
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                tally.calls += 1
                if event.tool_output.is_error:
                    tally.errors[error_kind(event.tool_output)] += 1
        return str(await handler)
    finally:
        if not handler.is_done():  # the deadline: no tool call goes on against a closed world
            with contextlib.suppress(Exception):
                await handler.cancel_run()


def stopped(exc: BaseException, usage: Usage) -> tuple[str, str]:
    """The outcome of a run that ``exc`` stopped, and one line of what happened.

    ``token budget``, ``steps`` (llama-index's ``max_iterations``), ``model error`` (the
    endpoint: openai's or httpx's errors) or ``error``.
    """
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen:
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    text = " ".join(str(e) for e in seen)[:300]
    if usage.spent or any(isinstance(e, BudgetSpent) for e in seen):
        return "token budget", f"token budget of {usage.budget:,} used up"
    if "Max iterations" in text:
        return "steps", text
    if any(type(e).__module__.startswith(("openai", "httpx")) for e in seen):
        return "model error", text
    return "error", f"{type(exc).__name__}: {text}"
