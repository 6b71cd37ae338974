"""A cache of bytes by key: one small protocol, and its in-memory default.

A loader or a spec that keeps what a service answered (arXiv's PDFs, Wolfram|Alpha's
answers) takes a :class:`Cache`; where the cache lives is its caller's choice:

- :class:`MemoryCache`, in this process (the default): least recently used entries go
  first past ``max_entries`` or ``max_bytes``, each entry for ``ttl`` seconds at most,
  and an entry over ``max_entry_bytes`` is not kept;
- a cache in Redis, shared by every process on one server, under the same bounds (made
  by toolspecs-core's Redis result store, a :class:`CacheBackend`), so replicas behind a
  load balancer ask a service once.

A cache is never the reason a call fails: :meth:`Cache.get` answers ``None`` (a miss)
and :meth:`Cache.put` gives up when the cache cannot be used, and the caller asks the
service. What a cache holds is shared by whoever uses it, so only public data, the same
for every user (a paper, an answer to a query), may go in one: never a user's own.
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
        """The cache named ``namespace``, with these bounds.

        Args:
            namespace: Names what the cache holds, the same in every process
                (``"wolfram-alpha"``); never text an agent chose.
            ttl: Seconds an entry is kept from when it was put.
            max_entry_bytes: The largest entry kept; a larger one is not stored.
            max_bytes: The most bytes all the entries hold; the least recently used
                go first past it.
        """


class MemoryCache:
    """Bytes by key in this process, least recently used first out; thread-safe.

    Args:
        ttl: Seconds an entry is kept from when it was put (``None``: no limit; ``0`` or
            less: nothing is kept).
        max_entries: The most entries kept.
        max_entry_bytes: The largest entry kept; a larger one is not stored.
        max_bytes: The most bytes all the entries hold together.
        clock: Where the time comes from (monotonic seconds); tests pass their own.
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
