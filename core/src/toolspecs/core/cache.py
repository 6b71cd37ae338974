"""A small time-limited cache, for identical calls an agent repeats within a short time."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class TTLCache(Generic[V]):
    """Keep up to ``size`` values for ``ttl`` seconds each, oldest dropped first; thread-safe.

    Args:
        ttl: Seconds a value stays fresh.
        size: How many values are kept at most.
        clock: Where the time comes from (monotonic seconds); tests pass their own.
    """

    def __init__(
        self, ttl: float = 300.0, size: int = 128, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl = ttl
        self.size = size
        self._clock = clock
        self._items: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        """The fresh value under ``key``, or ``None``."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            stored_at, value = found
            if self._clock() - stored_at > self.ttl:
                del self._items[key]
                return None
            self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> None:
        """Keep ``value`` under ``key`` from now."""
        with self._lock:
            self._items[key] = (self._clock(), value)
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
