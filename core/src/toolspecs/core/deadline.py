"""Every tool call has a deadline; :func:`remaining` lets retries end before it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from toolspecs.core import context

DEFAULT_SECONDS = 30.0


@contextmanager
def running(seconds: float | None) -> Iterator[None]:
    """Run the block as one call with ``seconds`` to go (``None``: no deadline).

    For code that calls a spec's methods itself; an outer earlier deadline holds.
    """
    outer = context.current()
    token = context.enter(replace(outer, end=outer.ending(seconds)))
    try:
        yield
    finally:
        context.leave(token)


def remaining(default: float | None = None) -> float | None:
    """Seconds left of the current tool call (never below 0), or ``default`` outside one."""
    return context.current().remaining(default)
