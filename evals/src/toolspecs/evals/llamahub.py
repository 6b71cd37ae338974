"""LlamaHub's specs on the same sandboxes (placeholder: being written)."""

from __future__ import annotations

from typing import Any


class Missing(Exception):
    """No environment with LlamaHub's packages."""


def runner(python: str | None) -> Any:
    """The runner of the ``llamahub`` tool set."""
    raise Missing("--tools llamahub is not ready yet")
