"""Every tool call has a deadline, retries and waits included.

The guard of a tool (:class:`~toolspecs.core.tool.Guard`) starts the clock of a call
with :func:`running` and stops waiting for it at the spec's ``call_deadline`` (default
30 s): past it the agent gets :class:`~toolspecs.core.RetryLater` guidance instead of a
call that hangs. Inside the call, :func:`remaining` tells a spec how long its client may
still take, so that retries and back-off end before the deadline rather than being cut
off by it (loaders take that as their own ``deadline=`` argument: they do not depend on
this package).
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

DEFAULT_SECONDS = 30.0

_END: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "toolspecs_deadline", default=None
)


@contextlib.contextmanager
def running(seconds: float | None) -> Iterator[None]:
    """Run the block as one call with ``seconds`` to go (``None``: no deadline).

    A call inside another (a spec calling another tool) keeps the earlier deadline.
    """
    end = None if seconds is None else time.monotonic() + seconds
    outer = _END.get()
    if outer is not None and (end is None or outer < end):
        end = outer
    token = _END.set(end)
    try:
        yield
    finally:
        _END.reset(token)


def remaining(default: float | None = None) -> float | None:
    """Seconds left of the current tool call (never below 0), or ``default`` outside one."""
    end = _END.get()
    if end is None:
        return default
    return max(0.0, end - time.monotonic())
