"""Stored results in this process: the embedded default of :mod:`toolspecs.core.store`."""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable

from llama_index.core.schema import Document

from toolspecs.core.store import (
    EXPIRED,
    ROOM,
    OutputBudget,
    StoredResult,
    choose,
    cut_result,
    held_by,
)

__all__ = ["MemoryStore", "ResultStore"]


class ResultStore:
    """One owner's stored results in memory, newest last; thread-safe (calls run at once)."""

    # How many dropped results a store remembers, to tell a read of one that it is gone.
    REMEMBER_DROPPED = 1024

    def __init__(
        self,
        budget: OutputBudget,
        ttl: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = budget
        self.ttl = ttl
        self._clock = clock
        self._results: OrderedDict[int, StoredResult] = OrderedDict()
        self._stored_at: dict[int, float] = {}
        self._dropped: OrderedDict[int, tuple[str, str]] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(
        self,
        function: str,
        text_or_documents: str | list[Document],
        source: Callable[[Document], str] | None = None,
    ) -> StoredResult:
        """Cut a result into passages, index them, and keep them under a new id."""
        stored, texts = cut_result(self.budget, function, text_or_documents, source)
        if self.budget.embed_model is None and stored.passages:
            stored.index()  # BM25 now, so that the first read is as quick as the next
        stored.held = held_by(stored, texts)
        with self._lock:
            self._expire()
            stored.result_id = next(self._ids)
            self._results[stored.result_id] = stored
            self._stored_at[stored.result_id] = self._clock()
            held = sum(r.held for r in self._results.values())
            while len(self._results) > 1 and (
                len(self._results) > self.budget.keep or held > self.budget.max_stored_bytes
            ):
                oldest = next(iter(self._results))
                held -= self._results[oldest].held
                self._drop(oldest, ROOM)
        return stored

    def _drop(self, result_id: int, reason: str) -> None:
        dropped = self._results.pop(result_id)
        del self._stored_at[result_id]
        self._dropped[result_id] = (dropped.function, reason)
        while len(self._dropped) > self.REMEMBER_DROPPED:
            self._dropped.popitem(last=False)

    def _expire(self) -> None:
        if self.ttl is None:
            return
        oldest = self._clock() - self.ttl
        for result_id in [i for i, at in self._stored_at.items() if at <= oldest]:
            self._drop(result_id, EXPIRED)

    def held(self) -> int:
        """The memory the stored results hold together, as counted against the bound."""
        with self._lock:
            self._expire()
            return sum(r.held for r in self._results.values())

    def dropped(self, result_id: int) -> str | None:
        """The function whose result ``result_id`` was dropped (or expired), if one was."""
        with self._lock:
            self._expire()
            found = self._dropped.get(result_id)
        return found[0] if found else None

    def get(self, function: str, result_id: int | None = None) -> StoredResult:
        """The result ``result_id`` of ``function``, or its latest one."""
        with self._lock:
            self._expire()
            live = [(i, r.function) for i, r in self._results.items()]
            gone = dict(self._dropped)
            results = dict(self._results)
        return results[choose(function, result_id, live, gone, self.budget, self.ttl)]


class MemoryStore:
    """Stored results in this process: each owner's own :class:`ResultStore`, dropped with it."""

    blocking = False  # reads search memory: nothing to wait for

    def __init__(self, ttl: float | None = None) -> None:
        self.ttl = ttl
        self._owners: weakref.WeakKeyDictionary[object, dict[str, ResultStore]] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def results(self, owner: object, scope: str, budget: OutputBudget) -> ResultStore:
        """The store of ``owner`` for the spec named ``scope`` (made on first use)."""
        with self._lock:  # two first calls in two threads must share one store
            scopes = self._owners.setdefault(owner, {})
            store = scopes.get(scope)
            if store is None:
                store = scopes[scope] = ResultStore(budget, self.ttl)
            return store

    def __len__(self) -> int:
        """How many owners have results here."""
        return len(self._owners)
