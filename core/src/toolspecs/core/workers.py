"""Daemon threads that sync tool calls run in, reused from call to call (:class:`Workers`).

The runner (:mod:`toolspecs.core.runner`) hands each sync call with a deadline to one of
them, and stops waiting at the deadline; :data:`WORKERS` is the process's one pool.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["WORKERS", "Workers"]


class Workers:
    """Daemon threads that run sync calls under their deadline, reused from call to call.

    Starting a thread per call cost more than the rest of a trivial call together. A call
    goes to an idle worker, or to a new one when none is idle: a stuck call holds only its
    own thread (never a queue other calls wait in), and as daemons they never keep the
    process from exiting. At most ``keep`` idle workers wait for the next call; the others
    end when their call does. (``concurrent.futures`` pools are neither: their threads are
    joined at exit, and a full pool queues calls behind stuck ones.)

    Args:
        keep: The most idle workers kept.
    """

    def __init__(self, keep: int = 8) -> None:
        self.keep = keep
        self._idle: list[queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]]]] = []
        self._lock = threading.Lock()
        if hasattr(os, "register_at_fork"):
            # A forked child (gunicorn's preload, multiprocessing's fork) has none of the
            # parent's threads: their inboxes would swallow its calls, and a lock held at
            # the fork would never be released.
            os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        self._idle = []
        self._lock = threading.Lock()

    def run(self, fn: Callable[..., Any], *args: Any) -> None:
        """Start ``fn(*args)`` in a worker thread; it must not raise."""
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            inbox.put((fn, args))
            threading.Thread(
                target=self._serve, args=(inbox,), name="toolspecs-call", daemon=True
            ).start()
        else:
            inbox.put((fn, args))

    def _serve(self, inbox: queue.SimpleQueue[tuple[Callable[..., Any], tuple[Any, ...]]]) -> None:
        while True:
            fn, args = inbox.get()
            fn(*args)
            del fn, args  # the call's frame and result are not kept while idle
            with self._lock:
                if len(self._idle) >= self.keep:
                    return
                self._idle.append(inbox)


WORKERS = Workers()
