"""Every tool call has a deadline; :func:`remaining` lets retries end before it."""

from __future__ import annotations

import contextvars
from dataclasses import replace

from toolspecs.core import context

DEFAULT_SECONDS = 30.0


class running:  # lower case: used as a function, ``with deadline.running(30):``
    """Run the block as one call with ``seconds`` to go (``None``: no deadline).

    For code that calls a spec's methods itself; an outer earlier deadline holds.
    """

    __slots__ = ("_seconds", "_token")

    def __init__(self, seconds: float | None) -> None:
        self._seconds = seconds
        self._token: contextvars.Token[context.CallContext] | None = None

    def __enter__(self) -> None:
        outer = context.current()
        self._token = context.enter(replace(outer, end=outer.ending(self._seconds)))

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            context.leave(self._token)
            self._token = None


def remaining(default: float | None = None) -> float | None:
    """Seconds left of the current tool call (never below 0), or ``default`` outside one."""
    return context.current().remaining(default)
