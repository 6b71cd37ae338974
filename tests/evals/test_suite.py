"""The task suite, proved with the scripted model: right runs pass, each mistake is caught.

Each group's tasks run through the real harness (``run_suite``: a world per run,
llama-index's ``FunctionAgent`` over ``OpenAILike``, the scripted model on 127.0.0.1),
once with every task's solution, which must pass every check, and once with each of its
mistakes, which must fail one. A group that reads "now" (the calendar is booked from
today; "tomorrow" is a day of it) runs under every clock of tests/conftest.py; Wolfram's
runs once.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable

import pytest

from toolspecs.evals import suite
from toolspecs.evals.run import Endpoint, RunResult, run_suite
from toolspecs.evals.scripted import GIVE_UP, ScriptedModel
from toolspecs.evals.task import Script, Task

# Each run serves a world (a fake Google on 127.0.0.1) and the scripted model over a
# socket: the suite is CI's slowest tests, run on .ci/run's Python (the `serving` mark);
# on the other Pythons, tests/evals/test_cli.py drives the same harness on one task.
pytestmark = pytest.mark.serving

# Wolfram|Alpha's tasks read no date; every other group does: the calendar is booked from
# today, and arXiv's submission dates ("this month") are read from now.
UNDATED = ["wolfram_alpha"]
DATED = [g for g, tasks in suite.GROUPS.items() if tasks and g not in UNDATED]


def play(tasks: list[Task], choose: Callable[[Task], Script]) -> list[RunResult]:
    model = ScriptedModel(choose)
    with model.serve() as url:
        return asyncio.run(
            run_suite(tasks, ["ours"], Endpoint(url, "scripted"), scripted=model, concurrency=4)
        )


def solutions_pass(group: str) -> None:
    tasks = suite.GROUPS[group]
    results = play(tasks, lambda task: task.solution)
    wrong = {
        r.task: (r.outcome, r.failed, r.error, r.answer[:300]) for r in results if not r.passed
    }
    assert not wrong
    assert len(results) == len(tasks)


def mistakes_fail(group: str) -> None:
    # Every mistake of the group in one suite run: each (task, mistake) a task of its own,
    # whose solution is the mistake, so that the runs share one model and run side by side.
    plays = [
        dataclasses.replace(task, id=f"{task.id} [{name}]", solution=script)
        for task in suite.GROUPS[group]
        for name, script in task.mistakes.items()
    ]
    results = play(plays, lambda task: task.solution)
    assert len(results) == len(plays)
    passed = [r.task for r in results if r.outcome == "passed"]
    assert not passed, f"these mistakes passed: {passed}"
    # Caught by a check (the end state or the answer), not by the run breaking down.
    broken = {r.task: (r.outcome, r.error) for r in results if r.outcome != "failed"}
    assert not broken, f"these mistakes did not run to their end: {broken}"
    # ... and by the mistake itself: a script that stopped (what it looked for was not in
    # the tools' answers, or it ran out of turns) says GIVE_UP, which any check fails.
    stalled = [r.task for r in results if r.answer == GIVE_UP]
    assert not stalled, f"these mistakes stalled instead of being made: {stalled}"


@pytest.mark.dates
@pytest.mark.parametrize("group", DATED)
def test_a_model_that_does_each_task_right_passes_every_check(group: str) -> None:
    solutions_pass(group)


@pytest.mark.parametrize("group", UNDATED)
def test_a_model_that_does_each_read_only_task_right_passes_every_check(group: str) -> None:
    solutions_pass(group)


@pytest.mark.dates
@pytest.mark.parametrize("group", DATED)
def test_each_classic_mistake_fails_the_task_meant_to_catch_it(group: str) -> None:
    mistakes_fail(group)


@pytest.mark.parametrize("group", UNDATED)
def test_each_classic_mistake_of_a_read_only_task_fails_it(group: str) -> None:
    mistakes_fail(group)
