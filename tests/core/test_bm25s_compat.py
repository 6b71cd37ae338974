"""The bm25s internals toolspecs.core.compat.bm25s leans on, checked against the pinned bm25s.

Each test names the internal (its number in the compat module's banner). When an upgrade of
bm25s fails one, read the banner and bm25s's changes before touching anything else: the
store's ranking and memory bounds rest on these.
"""

from __future__ import annotations

import array
import inspect
import random
import re
import subprocess
import sys

import bm25s
import numpy as np
import pytest
import Stemmer

from toolspecs.core.compat import bm25s as compat

WORDS = ["meeting", "agenda", "revenue", "budget", "report", "invoice", "team", "review"]


def corpus(n: int = 30, seed: int = 4) -> tuple[list[array.array[int]], dict[str, int]]:
    """Passages as compact arrays of token ids, and their vocabulary, as search.Bm25 makes them."""
    rng = random.Random(seed)
    vocab = {word: i for i, word in enumerate(WORDS)}
    ids = [array.array("H", rng.choices(range(len(WORDS)), k=rng.randint(1, 25))) for _ in range(n)]
    ids.append(array.array("H", [0]))  # a passage of one word
    return ids, vocab


def test_1_index_hands_build_index_from_ids_our_arrays_and_the_vocabulary_columns():
    params = inspect.signature(bm25s.BM25.build_index_from_ids).parameters
    assert list(params)[:3] == ["self", "unique_token_ids", "corpus_token_ids"]
    seen = {}

    class Recording(bm25s.BM25):
        def build_index_from_ids(self, unique_token_ids, corpus_token_ids, **kwargs):
            seen.update(unique=unique_token_ids, corpus=corpus_token_ids)
            return super().build_index_from_ids(unique_token_ids, corpus_token_ids, **kwargs)

    ids, vocab = corpus()
    Recording().index(bm25s.tokenization.Tokenized(ids, vocab), show_progress=False)
    assert seen["unique"] == list(range(len(WORDS)))
    assert seen["corpus"] is ids  # our compact arrays, not copied into lists


def test_2_scorers_take_the_arguments_we_pass_and_the_index_carries_its_parameters():
    from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

    index = bm25s.BM25()
    assert index.method == "lucene" and index.idf_method in (None, "lucene")
    assert (index.k1, index.b) == (1.5, 0.75) and hasattr(index, "delta")
    assert np.dtype(index.dtype) == np.float32 and np.dtype(index.int_dtype) == np.int32
    idf = _select_idf_scorer(index.idf_method or index.method)(3, N=10)
    assert idf == pytest.approx(np.log(1 + (10 - 3 + 0.5) / (3 + 0.5)))
    tfc = _select_tfc_scorer(index.method)(
        tf_array=np.array([2.0], dtype=np.float32), l_d=4, l_avg=5.0, k1=1.5, b=0.75, delta=0.5
    )
    assert tfc == pytest.approx(2 / (1.5 * (0.25 + 0.75 * 4 / 5) + 2))


@pytest.mark.parametrize("typecode", ["H", "i"])
def test_3_our_lean_build_is_bm25s_own_score_matrix_to_the_bit(typecode):
    ids, vocab = corpus()
    ids = [array.array(typecode, doc) for doc in ids]
    reference = bm25s.BM25()
    reference.index(
        bm25s.tokenization.Tokenized([list(doc) for doc in ids], dict(vocab)), show_progress=False
    )
    ours = compat.Index(ids, dict(vocab))
    expected, lean = reference.scores, ours._bm25.scores
    assert set(expected) == set(lean) == {"data", "indices", "indptr", "num_docs"}
    assert lean["num_docs"] == expected["num_docs"] == len(ids)
    for key in ("data", "indices", "indptr"):
        assert np.array_equal(lean[key], expected[key]), key
        assert lean[key].dtype == expected[key].dtype or key == "indptr", key
    assert ours.num_docs == len(ids)
    assert ours.postings(0) == sum(0 in doc for doc in ids)
    assert ours.score_bytes() == sum(lean[k].nbytes for k in ("data", "indices", "indptr"))


def test_4_the_default_method_needs_no_nonoccurrence_array_and_retrieve_reads_it():
    index = bm25s.BM25()
    assert index.method not in index.methods_requiring_nonoccurrence
    ids, vocab = corpus()
    reference = bm25s.BM25()
    reference.index(bm25s.tokenization.Tokenized(ids, dict(vocab)), show_progress=False)
    assert reference.nonoccurrence_array is None
    assert "nonoccurrence_array" in inspect.getsource(bm25s.BM25.retrieve)


def test_5_6_retrieve_reads_our_own_vocabulary_and_not_the_set_of_ids_for_tokens():
    ids, vocab = corpus()
    ours = compat.Index(ids, vocab)
    assert ours.vocab is vocab and vocab[""] == len(WORDS)  # bm25s's empty token, added
    assert ours._bm25.vocab_dict is vocab
    assert ours._bm25.unique_token_ids_set is None  # dropped: queries are tokens
    reference = bm25s.BM25()
    reference.index(bm25s.tokenization.Tokenized(ids, dict(vocab)), show_progress=False)
    for query in (["revenue"], ["budget", "team", "team"], ["agenda", "invoice"]):
        found, scores = reference.retrieve([query], k=5, show_progress=False)
        expected = [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True)]
        assert ours.retrieve(query, 5) == expected
    with pytest.raises(ValueError, match="larger than the number"):
        ours.retrieve(["revenue"], len(ids) + 1)  # search.Bm25 asks for at most num_docs


def test_7_importing_bm25s_imports_tqdm_auto_whose_notebook_warning_we_filter():
    from tqdm.notebook import WARN_NOIPYW

    assert WARN_NOIPYW.startswith("IProgress not found")
    # A fresh interpreter: the test session has imported tqdm already.
    probe = "import sys, bm25s; print('tqdm.auto' in sys.modules)"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "True"


def test_8_our_word_pattern_and_stopwords_are_bm25s_tokenize_defaults():
    params = inspect.signature(bm25s.tokenize).parameters
    assert re.compile(params["token_pattern"].default).pattern == compat.WORD.pattern
    text = "The Quarterly REVENUE of the team, and its 2 budgets: x y zz Überweisung 日本語"
    tokens = bm25s.tokenize(text, stopwords="en", return_ids=False, show_progress=False)
    ours = [w for w in compat.WORD.findall(text.lower()) if w not in compat.stopwords()]
    assert tokens[0] == ours
    stem = compat.english_stemmer()
    stemmed = bm25s.tokenize(
        text,
        stopwords="en",
        stemmer=Stemmer.Stemmer("english"),
        return_ids=False,
        show_progress=False,
    )
    assert stemmed[0] == [stem(w) for w in ours]
