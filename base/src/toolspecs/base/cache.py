"""A cache of bytes by key: one small protocol, and its in-memory default.

In this process (:class:`MemoryCache`) or in Redis (a :class:`CacheBackend`), under the
same bounds. A cache is never the reason a call fails: an unusable one reads as a miss.
What a cache holds is shared by whoever uses it, so only public data, the same for every
user (a paper, an answer to a query), may go in one: never a user's own.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol, runtime_checkable

__all__ = ["Cache", "CacheBackend", "MemoryCache"]


@runtime_checkable
class Cache(Protocol):
    """Bytes by key. A miss, an expired entry or an unusable cache reads as ``None``."""

    def get(self, key: str, /) -> bytes | None:
        """The bytes kept under ``key``, or ``None``; a hit counts as a use."""

    def put(self, key: str, value: bytes, /) -> None:
        """Keep ``value`` under ``key`` (not at all when it is over the bounds)."""


@runtime_checkable
class CacheBackend(Protocol):
    """Where the caches of several specs live together, each under its own namespace."""

    def cache_for(
        self, namespace: str, *, ttl: float, max_entry_bytes: int, max_bytes: int
    ) -> Cache:
        """The cache named ``namespace`` (never text an agent chose), with these bounds."""


class MemoryCache:
    """Bytes by key in this process, least recently used first out; thread-safe.

    ``ttl`` ``None`` keeps entries without limit; ``0`` or less keeps nothing.
    """

    def __init__(
        self,
        *,
        ttl: float | None = 300.0,
        max_entries: int = 128,
        max_entry_bytes: int = 2**20,
        max_bytes: int = 16 * 2**20,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl = ttl
        self.max_entries = max_entries
        self.max_entry_bytes = max_entry_bytes
        self.max_bytes = max_bytes
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, bytes]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return (
            f"MemoryCache(ttl={self.ttl}, max_entries={self.max_entries}, "
            f"max_entry_bytes={self.max_entry_bytes}, max_bytes={self.max_bytes})"
        )

    def get(self, key: str) -> bytes | None:
        """The fresh bytes under ``key``, or ``None``."""
        with self._lock:
            found = self._items.get(key)
            if found is None:
                return None
            stored_at, value = found
            if self.ttl is not None and self._clock() - stored_at > self.ttl:
                self._drop(key)
                return None
            self._items.move_to_end(key)
            return value

    def put(self, key: str, value: bytes) -> None:
        """Keep ``value`` under ``key`` from now; the least recently used go past the bounds."""
        size = len(value)
        with self._lock:
            if key in self._items:
                self._drop(key)
            if (self.ttl is not None and self.ttl <= 0) or size > min(
                self.max_entry_bytes, self.max_bytes
            ):
                return
            self._items[key] = (self._clock(), value)
            self._bytes += size
            while len(self._items) > self.max_entries or self._bytes > self.max_bytes:
                self._drop(next(iter(self._items)))

    def held(self) -> int:
        """The bytes the entries hold together."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._items)

    def _drop(self, key: str) -> None:
        _, value = self._items.pop(key)
        self._bytes -= len(value)
