"""Tasks of the across group."""

from __future__ import annotations

from toolspecs.evals.task import Task

TASKS: list[Task] = []
