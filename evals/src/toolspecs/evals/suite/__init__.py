"""The task suite: the tasks of each spec, and those across specs.

Each module holds ``TASKS``, the tasks of its group; :func:`tasks` is all of them, in
the order of :data:`GROUPS`, and ``toolspecs eval --tasks`` chooses among them.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from toolspecs.evals.suite import across, arxiv, gmail, google_calendar, wolfram_alpha
from toolspecs.evals.task import Task

__all__ = ["GROUPS", "choose", "tasks"]

GROUPS = {
    "google_calendar": google_calendar.TASKS,
    "gmail": gmail.TASKS,
    "arxiv": arxiv.TASKS,
    "wolfram_alpha": wolfram_alpha.TASKS,
    "across": across.TASKS,
}


def tasks() -> list[Task]:
    """Every task of the suite, group by group."""
    found = [task for group in GROUPS.values() for task in group]
    ids = [task.id for task in found]
    twice = sorted({name for name in ids if ids.count(name) > 1})
    if twice:
        raise ValueError(f"task ids used twice: {twice}")
    return found


def choose(patterns: Sequence[str]) -> list[Task]:
    """The tasks whose id or group matches any of ``patterns`` (shell-style: ``gmail.*``).

    Raises:
        ValueError: When a pattern matches no task.
    """
    every = tasks()
    if not patterns:
        return every
    chosen: dict[str, Task] = {}
    for pattern in patterns:
        found = [
            task for task in every if fnmatch.fnmatchcase(task.id, pattern) or task.group == pattern
        ]
        if not found:
            raise ValueError(f"no task matches {pattern!r} (see toolspecs eval --list)")
        chosen.update((task.id, task) for task in found)
    return list(chosen.values())
