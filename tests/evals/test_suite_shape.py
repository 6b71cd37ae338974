"""The suite itself: 40 tasks or more, every spec and technique, the classic mistakes."""

from __future__ import annotations

from collections import Counter

from toolspecs.evals import suite
from toolspecs.evals.task import SPECS, TECHNIQUES


def test_the_suite_has_forty_tasks_or_more_over_every_spec_and_technique() -> None:
    tasks = suite.tasks()  # ids are unique, or this raises
    assert len(tasks) >= 40
    per_spec = Counter(spec for task in tasks for spec in task.specs)
    assert set(per_spec) == set(SPECS)
    assert Counter(task.group for task in tasks)["across"] >= 5
    assert {t for task in tasks for t in task.techniques} == set(TECHNIQUES)
    for task in tasks:
        assert task.id.startswith(f"{task.group}."), task.id
        assert task.reason.strip() and task.checks and task.solution


def test_the_classic_mistakes_each_have_tasks_meant_to_catch_them() -> None:
    mistakes = Counter(name for task in suite.tasks() for name in task.mistakes)
    for classic in ("utc-time", "sent-not-drafted", "hallucinated-id", "guessed"):
        assert mistakes[classic] >= 1, classic
    # Most tasks are meant to catch a mistake, not only to be done right.
    assert sum(bool(task.mistakes) for task in suite.tasks()) >= 0.75 * len(suite.tasks())


def test_choose_takes_ids_groups_and_patterns() -> None:
    assert [t.id for t in suite.choose(["wolfram_alpha.arithmetic"])] == [
        "wolfram_alpha.arithmetic"
    ]
    gmail = suite.choose(["gmail"])
    assert gmail and all(t.group == "gmail" for t in gmail)
    assert suite.choose(["gmail.*"]) == gmail
    assert len(suite.choose(["gmail", "gmail.*"])) == len(gmail)  # once each
