"""The stored results of a spec: each cut into passages and indexed, kept under bounds.

A :class:`ResultStore` keeps a spec's (or one owner's) results that were too long to show,
at most ``OutputBudget.keep`` of them and ``max_stored_bytes`` of memory, oldest dropped
first. Each :class:`StoredResult` holds its text once, its passages as offsets
(:mod:`toolspecs.core.passages`) and its index: BM25 (:mod:`toolspecs.core.search`), or a
llama-index vector index when the budget names an embedding model. What the agent reads
of them is written by :mod:`toolspecs.core.large_output`.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import BaseNode, Document, TextNode

from toolspecs.core.errors import FixArguments
from toolspecs.core.passages import Passages, cut, utf8_size
from toolspecs.core.search import Bm25, max_stems

SOURCE_KEY = "toolspecs_source"


@dataclass(frozen=True)
class OutputBudget:
    """How much of a result an agent reads at once, per spec.

    Args:
        max_tokens: Results longer than this are stored and searched instead of shown.
        preview_tokens: How much of a stored result the agent sees straight away.
        passage_tokens: The size of the passages a stored result is cut into.
        top_k: How many passages one read returns.
        keep: How many stored results a spec keeps (oldest dropped first).
        max_stored_bytes: The most memory a spec's stored results hold together, 64 MiB
            by default: their text, passage offsets and indexes (see
            ``StoredResult.held``); the oldest are dropped first. A single result's text
            is stored cut to half of this (its preview says so), as its passages and
            BM25 index take about as much again.
        embed_model: A llama-index embedding model; with one, reads use a vector
            index instead of BM25.
    """

    max_tokens: int = 2000
    preview_tokens: int = 250
    passage_tokens: int = 300
    top_k: int = 4
    keep: int = 8
    max_stored_bytes: int = 64 * 2**20
    embed_model: Any = None


@dataclass
class StoredResult:
    """One stored result cut into passages, with its BM25 index (or a vector index, on demand).

    ``passages[i]`` came from the document named ``sources[i]`` ("" when unnamed).
    ``size`` is the UTF-8 bytes stored; ``full_size`` those of the whole result (larger
    when the result was cut to the store's ``max_stored_bytes``). ``held`` is what the
    store counts against ``max_stored_bytes``: the memory of its text, passage offsets,
    sources and BM25 index, estimated from their arrays and tables.
    """

    result_id: int
    function: str
    passages: Sequence[str]
    sources: list[str]
    tokens: int
    budget: OutputBudget
    size: int = 0
    full_size: int = 0
    held: int = 0
    _index: Any = field(default=None, repr=False)
    _nodes: list[BaseNode] | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def nodes(self) -> list[BaseNode]:
        """The passages as llama-index nodes (their source in metadata the index does not read)."""
        if self._nodes is None:
            self._nodes = [
                TextNode(
                    text=text,
                    metadata={SOURCE_KEY: origin} if origin else {},
                    excluded_llm_metadata_keys=[SOURCE_KEY],
                    excluded_embed_metadata_keys=[SOURCE_KEY],
                )
                for text, origin in zip(self.passages, self.sources, strict=True)
            ]
        return self._nodes

    def hits(self, query: str) -> list[tuple[int, str, str]]:
        """The passages best matching ``query``, best first, as (position, text, source)."""
        top_k = min(self.budget.top_k, len(self.passages))
        if not top_k:
            return []
        index = self.index()
        if isinstance(index, BaseRetriever):
            positions = {node.node_id: i for i, node in enumerate(self.nodes)}
            ranked = [(positions[hit.node.node_id], hit.score) for hit in index.retrieve(query)]
        else:
            ranked = index.search(query, top_k)
        return [
            (position, self.passages[position], self.sources[position])
            for position, score in ranked
            if score is None or score > 0
        ]

    def index(self) -> Any:
        """The index of the passages, built on first use (BM25 at once, when stored)."""
        with self._lock:
            if self._index is None:
                self._index = self._build_index()
            return self._index

    def _build_index(self) -> Any:
        if self.budget.embed_model is not None:
            from llama_index.core import VectorStoreIndex

            index = VectorStoreIndex(self.nodes, embed_model=self.budget.embed_model)
            return index.as_retriever(similarity_top_k=min(self.budget.top_k, len(self.nodes)))
        return Bm25(self.passages, max_stems=max_stems(self.size))


class ResultStore:
    """The stored results of one spec instance, newest last; safe to share between threads.

    Async tool calls run in worker threads, and an agent may make several at once. The
    store keeps at most ``budget.keep`` results and ``budget.max_stored_bytes`` of text,
    dropping the oldest first; a read of a dropped result says so.
    """

    # How many dropped results a store remembers, to tell a read of one that it is gone.
    REMEMBER_DROPPED = 1024

    def __init__(self, budget: OutputBudget) -> None:
        self.budget = budget
        self._results: OrderedDict[int, StoredResult] = OrderedDict()
        self._dropped: OrderedDict[int, str] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(
        self,
        function: str,
        text_or_documents: str | list[Document],
        source: Callable[[Document], str] | None = None,
    ) -> StoredResult:
        """Cut a result into passages, index them, and keep them under a new id.

        Args:
            function: The tool whose result it is.
            text_or_documents: The result.
            source: Names the source of each document (e.g. ``"message 18c… from
                ada@example.com"``); every passage read from it is headed with that name.
        """
        documents = (
            [Document(text=text_or_documents)]
            if isinstance(text_or_documents, str)
            else text_or_documents
        )
        size = self.budget.passage_tokens
        overlap = min(30, size // 10)
        # Half the bound for the text: its passages and index take about as much again.
        room = max(self.budget.max_stored_bytes // 2, 0)
        texts: list[str] = []
        docs: list[int] = []
        starts: list[int] = []
        ends: list[int] = []
        sources: list[str] = []
        tokens = stored_bytes = full_bytes = 0
        for document in documents:
            text = document.get_content()
            if not text:
                continue
            try:
                length = utf8_size(text)
            except UnicodeEncodeError:  # lone surrogates, as tiktoken replaces them
                text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
                length = utf8_size(text)
            full_bytes += length
            if stored_bytes >= room:
                continue
            if length > room - stored_bytes:
                text = text.encode("utf-8")[: room - stored_bytes].decode("utf-8", "ignore")
                length = len(text.encode("utf-8"))
            stored_bytes += length
            first, last, counted = cut(text, size, overlap)
            tokens += counted
            if not first:
                continue
            # The text is held once, the very string the tool returned; the passages
            # are offsets into it. Passages carry only their text, and the name of their
            # source kept apart from it (the index does not read it; it cannot be forged).
            docs.extend([len(texts)] * len(first))
            texts.append(text)
            starts.extend(first)
            ends.extend(last)
            origin = source(document) if source is not None else ""
            sources.extend([origin] * len(first))
        passages = Passages(
            texts,
            np.array(docs, dtype=np.int32),
            np.array(starts, dtype=np.int64),
            np.array(ends, dtype=np.int64),
        )
        stored = StoredResult(
            result_id=0,
            function=function,
            passages=passages,
            sources=sources,
            tokens=tokens,
            budget=self.budget,
            size=stored_bytes,
            full_size=full_bytes,
        )
        if self.budget.embed_model is None and passages:
            stored.index()  # BM25 now, so that the first read is as quick as the next
        stored.held = _held(stored, texts)
        with self._lock:
            stored.result_id = next(self._ids)
            self._results[stored.result_id] = stored
            held = sum(r.held for r in self._results.values())
            while len(self._results) > 1 and (
                len(self._results) > self.budget.keep or held > self.budget.max_stored_bytes
            ):
                _, dropped = self._results.popitem(last=False)
                held -= dropped.held
                self._dropped[dropped.result_id] = dropped.function
            while len(self._dropped) > self.REMEMBER_DROPPED:
                self._dropped.popitem(last=False)
        return stored

    def held(self) -> int:
        """The memory the stored results hold together, as counted against the bound."""
        with self._lock:
            return sum(r.held for r in self._results.values())

    def dropped(self, result_id: int) -> str | None:
        """The function whose result ``result_id`` was dropped to make room, if one was."""
        with self._lock:
            return self._dropped.get(result_id)

    def get(self, function: str, result_id: int | None = None) -> StoredResult:
        """The result ``result_id`` of ``function``, or its latest one.

        Raises:
            FixArguments: When there is no such result, or it was dropped to make room.
        """
        with self._lock:
            mine = [r for r in self._results.values() if r.function == function]
            dropped = [i for i, f in self._dropped.items() if f == function]
        limits = (
            f"a spec keeps its newest {self.budget.keep} long results and at most "
            f"{self.budget.max_stored_bytes / 2**20:g} MB of memory for them"
        )
        if result_id is not None and result_id in dropped:
            raise FixArguments(
                f"Result {result_id} of {function} is gone: it was dropped to make room "
                f"({limits}).",
                f"Call {function} again to load it anew, then read the new result.",
            )
        if not mine:
            if dropped:
                raise FixArguments(
                    f"The stored results of {function} are gone: they were dropped to make "
                    f"room ({limits}).",
                    f"Call {function} again to load what you need, then read it here.",
                )
            raise FixArguments(
                f"There is no stored result of {function} to read.",
                f"Call {function} first; when its result is long, it tells you to read it here.",
            )
        if result_id is None:
            return mine[-1]
        for stored in mine:
            if stored.result_id == result_id:
                return stored
        known = ", ".join(str(r.result_id) for r in mine)
        raise FixArguments(
            f"There is no stored result {result_id} of {function}; the stored ones are {known}.",
            "Call again with one of those result_id values, or leave result_id out for the latest.",
        )


def _held(stored: StoredResult, texts: list[str]) -> int:
    """The memory ``stored`` holds: texts, passage offsets, sources and its BM25 index.

    A vector index (built on first read) is not counted: its size depends on the model.
    """
    total = sum(sys.getsizeof(text) for text in texts)
    passages = stored.passages
    if isinstance(passages, Passages):
        total += passages.nbytes()
    sources = stored.sources
    total += sys.getsizeof(sources) + sum(sys.getsizeof(s) for s in dict.fromkeys(sources))
    if isinstance(stored._index, Bm25):
        total += stored._index.nbytes()
    return total
