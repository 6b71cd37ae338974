"""Every tool call has a deadline, retries and waits included.

The guard of a tool (:class:`~toolspecs.core.runner.Guard`) starts the clock of a call
with :func:`running` and stops waiting for it at the spec's ``call_deadline`` (default
30 s): past it the agent gets :class:`~toolspecs.core.RetryLater` guidance instead of a
call that hangs. Inside the call, :func:`remaining` tells a spec how long its client may
still take, so that retries and back-off end before the deadline rather than being cut
off by it (loaders take that as their own ``deadline=`` argument: they do not depend on
this package).
"""

from __future__ import annotations

import contextvars
import time

DEFAULT_SECONDS = 30.0

_END: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "toolspecs_deadline", default=None
)


class running:  # lower case: used as a function, ``with deadline.running(30):``
    """Run the block as one call with ``seconds`` to go (``None``: no deadline).

    A call inside another (a spec calling another tool) keeps the earlier deadline.
    A class rather than a ``contextlib`` generator: every tool call enters one, and the
    generator machinery was most of its cost.

    Args:
        seconds: How long the block may take.
    """

    __slots__ = ("_seconds", "_token")

    def __init__(self, seconds: float | None) -> None:
        self._seconds = seconds
        self._token: contextvars.Token[float | None] | None = None

    def __enter__(self) -> None:
        self._token = enter(self._seconds)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _END.reset(self._token)
            self._token = None


def enter(seconds: float | None) -> contextvars.Token[float | None]:
    """Start a call with ``seconds`` to go: :class:`running` without the ``with``.

    For the guard's own hot path; end the call with :func:`leave`.
    """
    end = None if seconds is None else time.monotonic() + seconds
    outer = _END.get()
    if outer is not None and (end is None or outer < end):
        end = outer
    return _END.set(end)


def leave(token: contextvars.Token[float | None]) -> None:
    """End the call that :func:`enter` started (its ``token``)."""
    _END.reset(token)


def remaining(default: float | None = None) -> float | None:
    """Seconds left of the current tool call (never below 0), or ``default`` outside one."""
    end = _END.get()
    if end is None:
        return default
    return max(0.0, end - time.monotonic())
