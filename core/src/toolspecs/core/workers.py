"""The one bounded pool of daemon threads that tool calls run in (:data:`WORKERS`)."""

from __future__ import annotations

import contextvars
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

__all__ = ["MAX_THREADS", "WORKERS", "Workers"]

T = TypeVar("T")

# The most calls that run at once in one process; more wait in the queue, each under its
# own deadline. The MCP server also caps the calls of each session.
MAX_THREADS = 32

# (its future, or the function told its result or exception; the function; its arguments)
_Item = tuple[
    "Future[Any] | Callable[[Any], None]", Callable[..., Any], tuple[Any, ...], dict[str, Any]
]


class Workers(Executor):
    """Up to ``max_threads`` daemon threads, started when no thread is idle, then reused.

    Not ``ThreadPoolExecutor``: its threads are joined at exit (a call stuck in a service
    would keep the process alive), and a forked child must start its own.
    """

    def __init__(self, max_threads: int = MAX_THREADS) -> None:
        self.max_threads = max_threads
        self._start()
        if hasattr(os, "register_at_fork"):
            # A forked child (gunicorn's preload, multiprocessing's fork) has none of the
            # parent's threads, and a lock held at the fork would never be released.
            os.register_at_fork(after_in_child=self._start)

    def _start(self) -> None:
        self._work: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._idle = threading.Semaphore(0)  # one per thread waiting for work
        self._lock = threading.Lock()
        self._threads = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in a worker; cancel the future to drop it unrun."""
        future: Future[T] = Future()
        self._put((future, fn, args, kwargs))
        return future

    def run(self, answer: Callable[[Any], None], fn: Callable[..., Any], /, *args: Any) -> None:
        """Run ``fn(*args)`` in a worker, then ``answer`` its result or the exception raised.

        Cheaper than a ``Future``; ``fn`` runs in a copy of the caller's context variables
        (as ``asyncio.to_thread``). ``answer`` must not raise.
        """
        self._put((answer, contextvars.copy_context().run, (fn, *args), {}))

    def _put(self, item: _Item) -> None:
        self._work.put(item)
        if self._idle.acquire(blocking=False):
            return  # an idle worker takes it
        with self._lock:
            if self._threads < self.max_threads:
                self._threads += 1
                threading.Thread(target=self._serve, name="toolspecs-call", daemon=True).start()

    def _serve(self) -> None:
        work, idle = self._work, self._idle
        while True:
            future, fn, args, kwargs = work.get()
            if not isinstance(future, Future):
                try:
                    result = fn(*args)
                except BaseException as exc:  # the caller's to see
                    result = exc
                idle.release()  # before the caller hears: its next call finds this thread
                future(result)
                del future, fn, args, result
                continue
            if not future.set_running_or_notify_cancel():
                idle.release()
                continue  # its caller stopped waiting before it began
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # the caller's to see
                idle.release()  # before the caller hears: its next call finds this thread
                future.set_exception(exc)
            else:
                idle.release()
                future.set_result(result)
                result = None
            del future, fn, args, kwargs  # the call's frame and result are not kept while idle


WORKERS = Workers()
