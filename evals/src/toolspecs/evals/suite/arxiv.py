"""Tasks of the arxiv group."""

from __future__ import annotations

from toolspecs.evals.task import Task

TASKS: list[Task] = []
