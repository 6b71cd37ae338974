"""The stored results of a spec: each cut into passages and indexed, kept under bounds.

One interface, two stores (memory, the default, and Redis) under the same bounds.
"""

from __future__ import annotations

import array
import sys
import threading
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import BaseNode, Document, TextNode

from toolspecs.core.compat import bm25s as compat
from toolspecs.core.errors import FixArguments
from toolspecs.core.passages import Passages, cut, utf8_size

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
        max_stored_bytes: The most memory a spec's stored results hold together (text,
            offsets, indexes); one result's text is cut to half of this.
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

    ``passages[i]`` came from the document named ``sources[i]``; ``size`` is the UTF-8
    bytes stored, ``full_size`` those of the whole result; ``held`` its memory, as counted.
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


class StoredResults(Protocol):
    """One owner's stored results; an id means nothing to another owner's store."""

    budget: OutputBudget

    def add(
        self,
        function: str,
        text_or_documents: str | list[Document],
        source: Callable[[Document], str] | None = None,
    ) -> StoredResult:
        """Cut a result into passages and keep it under a new id; the oldest go past the bounds."""

    def get(self, function: str, result_id: int | None = None) -> StoredResult:
        """The result ``result_id`` of ``function``, or its latest (``FixArguments`` if none)."""

    def dropped(self, result_id: int) -> str | None:
        """The function whose result ``result_id`` was dropped (or expired), if one was."""

    def held(self) -> int:
        """What the stored results hold together, as counted against ``max_stored_bytes``."""


class ResultBackend(Protocol):
    """Where a spec keeps its owners' stored results; ``blocking``: reads wait on Redis."""

    blocking: bool

    def results(self, owner: object, scope: str, budget: OutputBudget) -> StoredResults:
        """The stored results of ``owner`` for the spec named ``scope`` (same in every process)."""


def cut_result(
    budget: OutputBudget,
    function: str,
    text_or_documents: str | list[Document],
    source: Callable[[Document], str] | None = None,
) -> tuple[StoredResult, list[str]]:
    """A result cut into passages (id 0, no index yet), and the texts its passages slice."""
    documents = (
        [Document(text=text_or_documents)]
        if isinstance(text_or_documents, str)
        else text_or_documents
    )
    size = budget.passage_tokens
    overlap = min(30, size // 10)
    room = max(budget.max_stored_bytes // 2, 0)
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
        # The text is held once; passages are offsets into it, their source kept apart
        # (the index does not read it; it cannot be forged).
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
        budget=budget,
        size=stored_bytes,
        full_size=full_bytes,
    )
    return stored, texts


# Why a result is gone: dropped to make room, or older than the store's ttl.
ROOM, EXPIRED = "room", "expired"


def choose(
    function: str,
    result_id: int | None,
    live: Sequence[tuple[int, str]],
    gone: Mapping[int, tuple[str, str]],
    budget: OutputBudget,
    ttl: float | None,
) -> int:
    """The id :meth:`StoredResults.get` returns, or the guidance for a result that is not there.

    ``live`` is (id, function) oldest first; ``gone`` is id: (function, ROOM or EXPIRED).
    """
    mine = [i for i, f in live if f == function]
    reasons = {reason for f, reason in gone.values() if f == function}
    limits = (
        f"a spec keeps its newest {budget.keep} long results and at most "
        f"{budget.max_stored_bytes / 2**20:g} MB of memory for them"
    )
    kept = f"a stored result is kept for {ttl:g} s" if ttl is not None else ""
    it = {ROOM: f"was dropped to make room ({limits})", EXPIRED: f"expired ({kept})"}
    they = {ROOM: f"were dropped to make room ({limits})", EXPIRED: f"expired ({kept})"}
    if result_id is not None and gone.get(result_id, ("", ""))[0] == function:
        raise FixArguments(
            f"Result {result_id} of {function} is gone: it {it[gone[result_id][1]]}.",
            f"Call {function} again to load it anew, then read the new result.",
        )
    if not mine:
        if reasons:
            said = " or ".join(they[r] for r in sorted(reasons, reverse=True))
            raise FixArguments(
                f"The stored results of {function} are gone: they {said}.",
                f"Call {function} again to load what you need, then read it here.",
            )
        raise FixArguments(
            f"There is no stored result of {function} to read.",
            f"Call {function} first; when its result is long, it tells you to read it here.",
        )
    if result_id is None:
        return mine[-1]
    if result_id in mine:
        return result_id
    known = ", ".join(map(str, mine))
    raise FixArguments(
        f"There is no stored result {result_id} of {function}; the stored ones are {known}.",
        "Call again with one of those result_id values, or leave result_id out for the latest.",
    )


def held_by(stored: StoredResult, texts: list[str]) -> int:
    """The memory ``stored`` holds (a vector index is not counted: it depends on the model)."""
    total = sum(sys.getsizeof(text) for text in texts)
    passages = stored.passages
    if isinstance(passages, Passages):
        total += passages.nbytes()
    sources = stored.sources
    total += sys.getsizeof(sources) + sum(sys.getsizeof(s) for s in dict.fromkeys(sources))
    if isinstance(stored._index, Bm25):
        total += stored._index.nbytes()
    return total


# BM25 search over the passages of one stored result, in memory bounded by its size.
# Passages are tokenized as llama-index's BM25Retriever tokenizes them (bm25s's word
# pattern, English stopwords dropped, the Snowball English stemmer) and scored by bm25s
# (through toolspecs.core.compat.bm25s, where every reliance on its internals is listed);
# the vocabulary is bounded by the text's size (see Bm25).
# A result names at most one stem per this many bytes of its text (and at least
# _MIN_STEMS): natural prose stays well under it (1 MB of English has some 20,000 distinct
# words), text of near-unique tokens shares buckets past it. See Bm25.
_BYTES_PER_STEM = 100
_MIN_STEMS = 8192

# The words met first are remembered (their stem id) up to this many, of at most this
# length: the frequent words of prose are stemmed once.
_SEEN_WORDS = 4096
_SEEN_LENGTH = 24


def max_stems(size: int) -> int:
    """How many stems a result of ``size`` UTF-8 bytes keeps by name."""
    return max(_MIN_STEMS, size // _BYTES_PER_STEM)


class Bm25:
    """BM25 over passages, tokenized as llama-index's ``BM25Retriever`` does, in bounded memory.

    A stem costs about 150 bytes, so text of near-unique words (base64) would hold several
    times its size in vocabulary: past ``max_stems``, new stems share CRC-32 buckets
    (passages holding the query's own word come first). Below that, scores are bm25s's.
    """

    def __init__(self, passages: Sequence[str], max_stems: int) -> None:
        self._passages = passages
        self._stem = compat.english_stemmer()
        self._buckets = max(max_stems // 4, 1)
        self._overflowed = False
        ids, vocab = self._stem_ids(passages, max_stems)
        # Passages with no word to index (digits alone, punctuation, stopwords): bm25s
        # cannot build an index over an empty vocabulary, and no query could match.
        self._index: compat.Index | None = compat.Index(ids, vocab) if vocab else None
        self._lock = threading.Lock()  # PyStemmer's stemmer is not safe to share

    def _words(self, text: str) -> Iterator[str]:
        stem, stopwords = self._stem, compat.stopwords()
        for word in compat.WORD.findall(text.lower()):
            if word not in stopwords:
                yield stem(word)

    def _bucket(self, stem: str) -> str:
        # "\0" cannot occur in a stem (it is not a word character): no stem is a bucket.
        return f"\0{zlib.crc32(stem.encode('utf-8', 'surrogatepass')) % self._buckets}"

    def _stem_ids(self, passages: Iterable[str], max_stems: int) -> tuple[Any, dict[str, int]]:
        # Each passage's ids are a compact array of its own (2 or 4 bytes an id): a list
        # costs 8, and one growing array leaves as much again in freed holes.
        vocab: dict[str, int] = {}
        named = 0
        ids = []
        # The ids of the words met first (-1: a stopword), so that the frequent words of
        # prose are stemmed once; bounded (in count, and in length: a run of Chinese is
        # one "word"), as text of unique words would never hit it.
        seen: dict[str, int] = {}
        stem_of, stopwords = self._stem, compat.stopwords()
        for passage in passages:
            doc = []
            for word in compat.WORD.findall(passage.lower()):
                sid = seen.get(word)
                if sid is None:
                    if word in stopwords:
                        sid = -1
                    else:
                        stem = stem_of(word)
                        sid = vocab.get(stem)
                        if sid is None:
                            if named < max_stems:
                                named += 1
                            else:
                                self._overflowed = True
                                stem = self._bucket(stem)
                                sid = vocab.get(stem)
                            if sid is None:
                                sid = vocab[stem] = len(vocab)
                    if len(seen) < _SEEN_WORDS and len(word) <= _SEEN_LENGTH:
                        seen[word] = sid
                if sid >= 0:
                    doc.append(sid)
            ids.append(array.array("H" if len(vocab) <= 2**16 else "i", doc))
        return ids, vocab

    def nbytes(self) -> int:
        """About the memory the index holds: its score arrays, its vocabulary table."""
        if self._index is None:
            return 0
        vocab = self._index.vocab
        # Each stem: its str, a dict entry, and its int id.
        tables = sys.getsizeof(vocab) + 32 * len(vocab)
        return self._index.score_bytes() + tables + sum(sys.getsizeof(stem) for stem in vocab)

    def search(self, query: str, top_k: int) -> list[tuple[int, float]]:
        """The ``top_k`` passages that best match ``query``, as (position, score), best first."""
        if self._index is None:
            return []
        vocab = self._index.vocab
        with self._lock:
            stems = list(self._words(query))
            hashed = {s for s in stems if s not in vocab} if self._overflowed else set()
            stems = [self._bucket(s) if s in hashed else s for s in stems]
            tokens = [s for s in stems if s in vocab]
            if not tokens:  # bm25s refuses a query with no known token
                return []
            k = top_k
            buckets = {vocab[s] for s in tokens if s.startswith("\0")}
            if buckets:  # every passage of those buckets is a candidate
                shared = sum(self._index.postings(b) for b in buckets)
                k = min(self._index.num_docs, top_k + shared)
            ranked = self._index.retrieve(tokens, k)
            if buckets:
                # A bucket matches the rare words of other passages too: those that hold
                # the query's own words come first (the sort keeps BM25's order within).
                ranked.sort(
                    key=lambda hit: -len(hashed.intersection(self._words(self._passages[hit[0]])))
                )
                ranked = ranked[:top_k]
        return ranked
