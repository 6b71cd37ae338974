"""Running tasks: one agent per run, on a world of its own, judged by what it left.

A run is one task, one tool set and one repetition: a new :class:`~toolspecs.evals.world.World`,
llama-index's ``FunctionAgent`` (the mission's host) over an OpenAI-compatible
endpoint (``OpenAILike``), the task's request as the user's message, then the task's
checks on the world and the final answer. Every run has a deadline, a token budget and a
cap on the agent's steps; the suite runs a few runs at once (``concurrency``).

What a run reports (:class:`RunResult`): its outcome (``passed``, ``failed``, or why it
stopped: ``deadline``, ``token budget``, ``steps``, ``model error``, ``error``), the checks
that did not hold, the tool calls and the tool errors by kind, and the tokens the
endpoint reported.

Our tools run in this process. LlamaHub's run in a process of their own, with their own
Python environment (:mod:`toolspecs.evals.llamahub`), on the same world.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import httpx

from toolspecs.evals.scripted import RUN_HEADER
from toolspecs.evals.task import Ending, Task
from toolspecs.evals.world import World

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

    from toolspecs.evals.scripted import ScriptedModel

__all__ = [
    "TOOL_SETS",
    "Endpoint",
    "Limits",
    "RunResult",
    "RunStopped",
    "Runner",
    "Usage",
    "run_suite",
]

TOOL_SETS = ("ours", "llamahub")
"""``ours``: every tool of our specs; ``llamahub``: LlamaHub's specs, as published."""

SYSTEM_PROMPT = (
    "You are an assistant with tools for the user's calendar, e-mail, arXiv and "
    "Wolfram|Alpha. Use the tools to do what the user asks, then answer briefly with "
    "what you found or did. Do not send or delete anything unless the user asks."
)
"""The agent's system prompt, the same for every tool set and model."""

_ANSWER_LIMIT = 4000  # characters of the final answer kept in a result


@dataclasses.dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat-completions endpoint and the model to ask.

    Args:
        base_url: E.g. ``https://api.openai.com/v1`` or ``http://localhost:11434/v1``.
        model: The model's name at that endpoint.
        api_key: Its key (``None``: an endpoint that takes none).
    """

    base_url: str
    model: str
    api_key: str | None = dataclasses.field(default=None, repr=False)

    def redacted(self, text: str) -> str:
        """``text`` without the key (an endpoint may echo it in an error)."""
        return text.replace(self.api_key, "***") if self.api_key else text


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one run may take.

    Args:
        deadline: Seconds, from the request to the final answer.
        token_budget: Tokens the endpoint reports (prompt and completion), all steps.
        steps: The agent's turns at most (llama-index's ``max_iterations``).
        request_timeout: Seconds one request to the endpoint may take.
    """

    deadline: float = 300.0
    token_budget: int = 300_000
    steps: int = 20
    request_timeout: float = 120.0


class Usage:
    """Tokens an endpoint reported over one run's requests, and the budget they may reach."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.prompt = 0
        self.completion = 0
        self.requests = 0

    @property
    def total(self) -> int:
        """Prompt and completion tokens."""
        return self.prompt + self.completion

    def add(self, reported: Any) -> None:
        """Count a response's ``usage`` (an object of ``prompt_tokens``, ...), if any."""
        self.requests += 1
        if isinstance(reported, dict):
            self.prompt += int(reported.get("prompt_tokens") or 0)
            self.completion += int(reported.get("completion_tokens") or 0)

    @property
    def spent(self) -> bool:
        """Whether the budget is used up."""
        return self.total > self.budget


class BudgetSpent(Exception):
    """A run's token budget is used up: its next request is not made."""


class RunStopped(Exception):
    """A run that stopped before its end (said by a runner of another process).

    Args:
        outcome: Why: ``deadline``, ``token budget``, ``steps``, ``model error``, ``error``.
        text: One line of what happened.
    """

    def __init__(self, outcome: str, text: str) -> None:
        super().__init__(text)
        self.outcome = outcome


@dataclasses.dataclass
class RunResult:
    """What one run did; one line of the results file (:meth:`to_json`)."""

    task: str
    group: str
    techniques: tuple[str, ...]
    tools: str
    model: str
    run: int
    outcome: str
    failed: list[str] = dataclasses.field(default_factory=list)
    calls: int = 0
    tool_errors: dict[str, int] = dataclasses.field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    answer: str = ""
    error: str = ""

    @property
    def passed(self) -> bool:
        """Whether every check held."""
        return self.outcome == "passed"

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON object (``tokens`` added: prompt and completion)."""
        data = dataclasses.asdict(self)
        data["techniques"] = list(self.techniques)
        data["tokens"] = self.prompt_tokens + self.completion_tokens
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunResult:
        """A result read back from its JSON object."""
        names = {field.name for field in dataclasses.fields(cls)}
        known = {key: value for key, value in data.items() if key in names}
        known["techniques"] = tuple(known.get("techniques", ()))
        return cls(**known)


def _usage_client(usage: Usage, timeout: float) -> httpx.AsyncClient:
    """An HTTP client that counts each answer's ``usage`` and stops past the budget."""

    async def before(request: httpx.Request) -> None:
        if usage.spent:
            raise BudgetSpent(f"the run's token budget ({usage.budget:,}) is used up")

    async def after(response: httpx.Response) -> None:
        if response.headers.get("content-type", "").startswith("application/json"):
            await response.aread()
            try:
                usage.add(response.json().get("usage"))
            except ValueError:
                usage.add(None)

    return httpx.AsyncClient(
        timeout=timeout, event_hooks={"request": [before], "response": [after]}
    )


def agent_llm(endpoint: Endpoint, run: str, client: httpx.AsyncClient, limits: Limits) -> LLM:
    """llama-index's ``OpenAILike`` for one run: its header, its requests sent by ``client``."""
    from llama_index.llms.openai_like import OpenAILike

    llm: LLM = OpenAILike(
        model=endpoint.model,
        api_base=endpoint.base_url,
        api_key=endpoint.api_key or "none",
        is_chat_model=True,
        is_function_calling_model=True,
        context_window=128_000,
        max_retries=3,  # the openai SDK's backoff: rate limits (429) and 5xx are retried
        timeout=limits.request_timeout,
        default_headers={RUN_HEADER: run},
        async_http_client=client,
    )
    return llm


def _error_kind(output: Any) -> str:
    """The kind of a tool error: our guidance's class, or what the host said."""
    exception = getattr(output, "exception", None)
    if exception is not None:
        return type(exception).__name__
    content = str(getattr(output, "content", ""))
    if content.startswith("Tool ") and "not found" in content:
        return "unknown tool"
    return "tool error"


async def run_ours(
    task: Task, world: World, endpoint: Endpoint, limits: Limits, run: str, result: RunResult
) -> str:
    """Run ``task`` with our tools in ``world``; fills ``result``'s counts; the final answer."""
    from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult

    usage = Usage(limits.token_budget)
    client = _usage_client(usage, limits.request_timeout)
    agent = FunctionAgent(
        tools=world.tools(task.specs),  # type: ignore[arg-type]
        llm=agent_llm(endpoint, run, client, limits),
        system_prompt=SYSTEM_PROMPT,
        streaming=False,
    )
    errors: Counter[str] = Counter()
    handler = agent.run(user_msg=task.words(world), max_iterations=limits.steps)
    try:
        async for event in handler.stream_events():
            if isinstance(event, ToolCallResult):
                result.calls += 1
                if event.tool_output.is_error:
                    errors[_error_kind(event.tool_output)] += 1
        output = await handler
        return str(output)
    finally:
        if not handler.is_done():  # the deadline: no tool call goes on against a closed world
            with contextlib.suppress(Exception):
                await handler.cancel_run()
        await client.aclose()
        result.tool_errors = dict(errors)
        result.prompt_tokens, result.completion_tokens = usage.prompt, usage.completion
        if usage.spent:
            result.error = f"token budget of {usage.budget:,} used up"


Runner = Callable[[Task, World, Endpoint, Limits, str, RunResult], Awaitable[str]]


async def run_one(
    task: Task,
    tools: str,
    endpoint: Endpoint,
    limits: Limits,
    index: int,
    runner: Runner,
    scripted: ScriptedModel | None = None,
) -> RunResult:
    """One run of ``task``: a new world, the agent, then the checks."""
    result = RunResult(
        task=task.id,
        group=task.group,
        techniques=task.techniques,
        tools=tools,
        model=endpoint.model,
        run=index,
        outcome="error",
    )
    run = uuid.uuid4().hex
    started = time.monotonic()
    world: World | None = None
    try:
        world = await asyncio.to_thread(World, task.specs)
        if task.seed is not None:
            task.seed(world)
        if scripted is not None:
            scripted.begin(run, task, world)
        answer = await asyncio.wait_for(
            runner(task, world, endpoint, limits, run, result), limits.deadline
        )
        result.answer = answer[:_ANSWER_LIMIT]
        failed = await asyncio.to_thread(task.judge, Ending(world, answer))
        result.failed = failed
        result.outcome = "failed" if failed else "passed"
    except (asyncio.TimeoutError, TimeoutError):
        result.outcome, result.error = "deadline", f"no answer within {limits.deadline:g} s"
    except Exception as exc:  # what stopped the run is its outcome, not the suite's end
        result.outcome, result.error = _stopped(exc, result)
    finally:
        result.seconds = round(time.monotonic() - started, 3)
        result.error = endpoint.redacted(result.error)
        result.answer = endpoint.redacted(result.answer)
        if scripted is not None:
            scripted.end(run)
        if world is not None:
            await asyncio.to_thread(world.close)
    return result


def _stopped(exc: BaseException, result: RunResult) -> tuple[str, str]:
    """The outcome and one line for a run that an exception stopped."""
    if isinstance(exc, RunStopped):
        return exc.outcome, str(exc)
    seen: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and cause not in seen:
        seen.append(cause)
        cause = cause.__cause__ or cause.__context__
    names = {type(e).__name__ for e in seen}
    text = " ".join(str(e) for e in seen)[:300]
    if "BudgetSpent" in names or result.error.startswith("token budget"):
        return "token budget", result.error or text
    if "Max iterations" in text:
        return "steps", text
    if names & {"APIConnectionError", "APIStatusError", "APITimeoutError", "ConnectError"} or (
        any(type(e).__module__.startswith(("openai", "httpx")) for e in seen)
    ):
        return "model error", text
    return "error", f"{type(exc).__name__}: {text}"


async def run_suite(
    tasks: Sequence[Task],
    tool_sets: Sequence[str],
    endpoint: Endpoint,
    *,
    runs: int = 1,
    concurrency: int = 4,
    limits: Limits | None = None,
    runners: dict[str, Runner] | None = None,
    scripted: ScriptedModel | None = None,
    done: Callable[[RunResult], None] | None = None,
) -> list[RunResult]:
    """Every task, with every tool set, ``runs`` times, ``concurrency`` runs at once.

    Args:
        tasks: The tasks.
        tool_sets: Of :data:`TOOL_SETS`.
        endpoint: The model.
        runs: Repetitions of each (task, tool set).
        concurrency: Runs at once.
        limits: What each run may take.
        runners: How each tool set runs a task (default: ours in this process; LlamaHub's
            must be given, see :mod:`toolspecs.evals.llamahub`).
        scripted: The scripted model serving ``endpoint``, told of each run.
        done: Called with each result as it comes (e.g. to write it at once).

    Returns:
        The results, in the order they finished.
    """
    limits = limits or Limits()
    chosen = {"ours": run_ours, **(runners or {})}
    missing = [name for name in tool_sets if name not in chosen]
    if missing:
        raise ValueError(f"no runner for the tool sets {missing}")
    gate = asyncio.Semaphore(max(1, concurrency))
    results: list[RunResult] = []

    async def one(task: Task, tools: str, index: int) -> None:
        async with gate:
            result = await run_one(task, tools, endpoint, limits, index, chosen[tools], scripted)
        results.append(result)
        if done is not None:
            done(result)

    plan: Iterable[tuple[Task, str, int]] = (
        (task, tools, index)
        for index in range(1, runs + 1)
        for tools in tool_sets
        for task in tasks
    )
    await asyncio.gather(*(one(task, tools, index) for task, tools, index in plan))
    return results
