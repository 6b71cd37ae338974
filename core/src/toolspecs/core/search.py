r"""BM25 search over the passages of one stored result, in memory bounded by its size.

Passages are tokenized as llama-index's ``BM25Retriever`` tokenizes them (bm25s's word
pattern, English stopwords dropped, the Snowball English stemmer) and scored by bm25s
(through :mod:`toolspecs.core.compat.bm25s`, where every reliance on its internals is
listed); the vocabulary is bounded by the text's size (see :class:`Bm25`).
"""

from __future__ import annotations

import array
import sys
import threading
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from toolspecs.core.compat import bm25s as compat

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
