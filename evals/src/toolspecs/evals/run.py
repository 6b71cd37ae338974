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
import dataclasses
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolspecs.evals import agent
from toolspecs.evals.scripted import RUN_HEADER
from toolspecs.evals.task import Ending, Task
from toolspecs.evals.world import World

if TYPE_CHECKING:
    from toolspecs.evals.scripted import ScriptedModel

__all__ = [
    "TOOL_SETS",
    "Endpoint",
    "Limits",
    "RunResult",
    "RunStopped",
    "Runner",
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


async def run_ours(
    task: Task, world: World, endpoint: Endpoint, limits: Limits, run: str, result: RunResult
) -> str:
    """Run ``task`` with our tools in ``world``; fills ``result``'s counts; the final answer."""
    usage = agent.Usage(limits.token_budget)
    client = usage.client(limits.request_timeout)
    tally = agent.Tally()
    llm = agent.model(
        endpoint.model,
        endpoint.base_url,
        endpoint.api_key,
        {RUN_HEADER: run},
        client,
        limits.request_timeout,
    )
    try:
        return await agent.play(
            world.tools(task.specs), llm, SYSTEM_PROMPT, task.words(world), limits.steps, tally
        )
    except Exception as exc:
        raise RunStopped(*agent.stopped(exc, usage)) from exc
    finally:
        await client.aclose()
        result.calls, result.tool_errors = tally.calls, dict(tally.errors)
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
        result.outcome, result.error = _stopped(exc)
    finally:
        result.seconds = round(time.monotonic() - started, 3)
        result.error = endpoint.redacted(result.error)
        result.answer = endpoint.redacted(result.answer)
        if scripted is not None:
            scripted.end(run)
        if world is not None:
            await asyncio.to_thread(world.close)
    return result


def _stopped(exc: BaseException) -> tuple[str, str]:
    """The outcome and one line for a run that an exception stopped."""
    if isinstance(exc, RunStopped):
        return exc.outcome, str(exc)
    return "error", f"{type(exc).__name__}: {exc}"[:300]


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
