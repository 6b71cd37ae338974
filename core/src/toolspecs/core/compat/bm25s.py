"""Brittle: everything toolspecs relies on in bm25s beyond its public API, in one place.

To build the index of stored results in bounded memory and read its size, we lean on
these internals, checked against the pinned bm25s by ``tests/core/test_bm25s_compat.py``:

1. ``BM25.build_index_from_ids(unique_token_ids, corpus_token_ids, ...)`` (documented as
   the method to override) is overridden; ``index`` passes our ids as given.
2. ``bm25s.scoring._select_idf_scorer``/``_select_tfc_scorer`` and their keywords score
   each pair as bm25s does, chosen by the index's ``method``, ``k1``, ``b``... attributes.
3. The ``scores`` dict ``retrieve`` reads: CSC ``{"data", "indices", "indptr", "num_docs"}``.
4. ``nonoccurrence_array``: None for the default method, "lucene".
5. ``vocab_dict``, the ``Tokenized`` vocabulary (token -> column, ``""`` added).
6. ``unique_token_ids_set``, read only for queries given as ids: dropped (a stem's cost).
7. Importing bm25s imports ``tqdm.auto``, which warns "IProgress not found" in Jupyter.
8. :data:`WORD` and :func:`stopwords` are ``bm25s.tokenize``'s defaults, so passages are
   tokenized as llama-index's ``BM25Retriever`` tokenizes them.
"""

from __future__ import annotations

import array
import functools
import re
import threading
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

# bm25s's ``tokenize`` default ``token_pattern`` (internal 8).
WORD = re.compile(r"(?u)\b\w\w+\b")

_IMPORT_LOCK = threading.Lock()


def load() -> tuple[Any, Any]:
    """The ``bm25s`` and ``Stemmer`` modules, without tqdm's "IProgress not found" (internal 7).

    We never show bm25s's progress bars; every other warning shows as usual.
    """
    with _IMPORT_LOCK, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found", module="tqdm")
        import bm25s
        import Stemmer
    return bm25s, Stemmer


def english_stemmer() -> Callable[[str], str]:
    """A new Snowball English stemmer (PyStemmer's, as bm25s users pass it); not thread-safe."""
    _, stemmer = load()
    stem: Callable[[str], str] = stemmer.Stemmer("english", 0).stemWord
    return stem


@functools.cache
def stopwords() -> frozenset[str]:
    """bm25s's English stopwords, those of ``tokenize(stopwords="en")`` (internal 8)."""
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


class Index:
    """A bm25s index over passages given as token ids, built with :func:`_lean_build`."""

    def __init__(self, ids: list[array.array[int]], vocab: dict[str, int]) -> None:
        bm25s, _ = load()
        self._bm25 = _lean_bm25_class()()
        self._bm25.index(bm25s.tokenization.Tokenized(ids, vocab), show_progress=False)
        # Internal 6: a set of every column, read only for queries given as ids.
        self._bm25.unique_token_ids_set = None

    @property
    def vocab(self) -> dict[str, int]:
        """The index's vocabulary: token -> column (internal 5)."""
        vocab: dict[str, int] = self._bm25.vocab_dict
        return vocab

    @property
    def num_docs(self) -> int:
        """How many passages the index holds (internal 3)."""
        return int(self._bm25.scores["num_docs"])

    def postings(self, column: int) -> int:
        """How many passages hold the token of ``column`` (internal 3)."""
        indptr = self._bm25.scores["indptr"]
        return int(indptr[column + 1] - indptr[column])

    def score_bytes(self) -> int:
        """The memory of the score matrix's arrays (internal 3)."""
        return sum(getattr(a, "nbytes", 0) for a in self._bm25.scores.values())

    def retrieve(self, tokens: list[str], k: int) -> list[tuple[int, float]]:
        """The ``k`` best passages for a query of known ``tokens``, as (passage, score)."""
        found, scores = self._bm25.retrieve([tokens], k=k, show_progress=False)
        return [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True)]


def _lean_build(
    bm25: Any, unique_token_ids: list[int], corpus_token_ids: list[array.array[int]]
) -> dict[str, Any]:
    """bm25s's score matrix (CSC arrays), built in two passes with little memory.

    bm25s's own build holds about 36 bytes a (passage, stem) pair and 150 a stem; this
    one 8 and 28, scoring with bm25s's own functions, so the matrix is bm25s's to the bit
    (``tests/core/test_bm25s_compat.py``). Internals 1 to 4.
    """
    from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

    n_docs, n_vocab = len(corpus_token_ids), len(unique_token_ids)
    lengths = np.array([len(ids) for ids in corpus_token_ids])
    avg_doc_len = lengths.mean()
    df = np.zeros(n_vocab, dtype=np.int64)
    for ids in corpus_token_ids:
        df[np.unique(np.frombuffer(ids, dtype=ids.typecode))] += 1
    compute_idf = _select_idf_scorer(bm25.idf_method or bm25.method)
    idf = np.zeros(n_vocab, dtype=bm25.dtype)
    for token, count in enumerate(df.tolist()):
        if count:
            idf[token] = compute_idf(count, N=n_docs)
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    del df
    data = np.empty(indptr[-1], dtype=bm25.dtype)
    indices = np.empty(indptr[-1], dtype=bm25.int_dtype)
    cursor = indptr[:-1].copy()
    tfc = _select_tfc_scorer(bm25.method)
    for doc, ids in enumerate(corpus_token_ids):
        tokens, tf = np.unique(np.frombuffer(ids, dtype=ids.typecode), return_counts=True)
        at = cursor[tokens]
        data[at] = idf[tokens] * tfc(
            tf_array=tf.astype(bm25.dtype),
            l_d=len(ids),
            l_avg=avg_doc_len,
            k1=bm25.k1,
            b=bm25.b,
            delta=bm25.delta,
        )
        indices[at] = doc
        cursor[tokens] += 1
    return {"data": data, "indices": indices, "indptr": indptr, "num_docs": n_docs}


@functools.cache
def _lean_bm25_class() -> Any:
    bm25s, _ = load()

    class LeanBM25(bm25s.BM25):  # type: ignore[misc,name-defined]
        def build_index_from_ids(
            self, unique_token_ids: list[int], corpus_token_ids: Any, **kwargs: Any
        ) -> dict[str, Any]:
            # Ours is bm25s's default method ("lucene"): no non-occurrence scores (internal 4).
            self.nonoccurrence_array = None
            return _lean_build(self, unique_token_ids, corpus_token_ids)

    return LeanBM25
