"""How large results are stored: passages cut from one tokenization, bounds in count and bytes."""

from __future__ import annotations

import base64
import functools
import random
from typing import ClassVar

import pytest
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.schema import Document
from llama_index.core.utils import get_tokenizer

from toolspecs.core import FixArguments, OutputBudget, ToolSpec, tool
from toolspecs.core.bounds import COUNT_BLOCK_CHARS, count_tokens
from toolspecs.core.large_output import read_passages, stored_message
from toolspecs.core.memory_store import ResultStore
from toolspecs.core.redis_store import RedisStore
from toolspecs.core.store import max_stems

WORDS = [
    "meeting",
    "agenda",
    "revenue",
    "budget",
    "report",
    "invoice",
    "contract",
    "team",
    "proposal",
    "review",
]


def mail(n: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    return "\n\n".join(
        f"From: ada@example.com\nSubject: note {i}\n\n"
        + " ".join(rng.choices(WORDS, k=40))
        + f". Reference code K{i:05d}."
        for i in range(n)
    )


class _ReadBack:
    """A Redis store whose results are read back through a second client, as another
    replica of the server would read them."""

    def __init__(self, writer, reader):
        self.writer, self.reader, self.budget = writer, reader, writer.budget

    def add(self, function, text_or_documents, source=None):
        stored = self.writer.add(function, text_or_documents, source)
        return self.reader.get(function, stored.result_id)

    def get(self, function, result_id=None):
        return self.reader.get(function, result_id)

    def dropped(self, result_id):
        return self.reader.dropped(result_id)

    def held(self):
        return self.reader.held()


def kept(store) -> list[int]:
    """The ids a store keeps, oldest first."""
    if isinstance(store, _ReadBack):
        return [result_id for result_id, _, _ in store.reader._view()[0]]
    return [r.result_id for r in store._results.values()]


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.serving)])
def new_store(request):
    """Makes a store from a budget: in memory, or in a real Redis read through a replica."""
    if request.param == "memory":
        return ResultStore
    url = request.getfixturevalue("redis_url")
    writer, reader = RedisStore(url), RedisStore(url)

    class Owner:
        pass

    owner, made = Owner(), []  # the owner lives as long as the test: its key stays

    def make(budget):
        made.append(budget)
        scope = f"test{len(made)}"
        return _ReadBack(writer.results(owner, scope, budget), reader.results(owner, scope, budget))

    return make


def test_passages_are_about_passage_tokens_long_overlap_and_cover_the_text(new_store):
    text = mail(120)
    stored = new_store(OutputBudget(passage_tokens=100)).add("load", text)
    assert len(stored.passages) > 10
    assert all(count_tokens(p) <= 102 for p in stored.passages)  # re-encoded alone: ±1
    assert all(count_tokens(p) >= 50 for p in stored.passages[:-1])
    for earlier, later in zip(stored.passages, stored.passages[1:], strict=False):
        assert later.split()[0] in earlier.split()[-12:]  # about 10 tokens of overlap
    assert all(f"K{i:05d}" in "".join(stored.passages) for i in range(120))
    assert all(p in text for p in stored.passages)  # verbatim, cut between words
    assert stored.tokens == count_tokens(text)


@pytest.mark.parametrize(
    "text",
    [
        base64.b64encode(random.Random(1).randbytes(30_000)).decode(),
        "".join(random.Random(2).choices([chr(c) for c in range(0x4E00, 0x4F00)], k=12_000)),
        "x" * 50_000,
    ],
    ids=["base64", "chinese", "one-letter"],
)
def test_text_without_spaces_is_cut_into_whole_characters_of_about_passage_tokens(text, new_store):
    stored = new_store(OutputBudget(passage_tokens=200)).add("load", text)
    assert len(stored.passages) >= count_tokens(text) // 200
    assert all(p in text for p in stored.passages)  # no character cut in two
    assert text.startswith(stored.passages[0]) and text.endswith(stored.passages[-1])
    assert all(count_tokens(p) <= 210 for p in stored.passages)


def test_hits_are_found_with_their_source_and_position(new_store):
    documents = [Document(text=mail(20, seed=s) + f" Marker{s}word.") for s in range(3)]
    stored = new_store(OutputBudget(passage_tokens=80)).add(
        "load", documents, source=lambda d: f"doc {d.text[-10:-5]}"
    )
    position, passage, source = stored.hits("Marker2word")[0]
    assert "Marker2word" in passage and stored.passages[position] == passage
    assert source == "doc rker2"
    assert stored.hits("zzzz nothing like it") == []


def test_the_vector_index_path_still_reads_passages(new_store):
    budget = OutputBudget(passage_tokens=80, embed_model=MockEmbedding(embed_dim=8))
    stored = new_store(budget).add("load", mail(20))
    found = stored.hits("revenue")
    assert len(found) == 4
    assert all(stored.passages[position] == text for position, text, _ in found)


def test_the_oldest_results_are_dropped_past_keep_and_a_read_of_one_says_it_is_gone(new_store):
    store = new_store(OutputBudget(keep=2))
    for _ in range(3):
        store.add("load", mail(10))
    assert store.get("load", 3).result_id == 3 and store.get("load", 2).result_id == 2
    with pytest.raises(FixArguments) as gone:
        store.get("load", 1)
    assert "Result 1 of load is gone" in str(gone.value)
    assert "Call load again" in str(gone.value)


def test_the_oldest_results_are_dropped_past_max_stored_bytes(new_store):
    text = mail(40)
    held = new_store(OutputBudget()).add("load", text).held
    store = new_store(OutputBudget(max_stored_bytes=int(held * 2.5)))
    for _ in range(4):
        store.add("load", text)
    assert kept(store) == [3, 4]
    assert store.held() <= int(held * 2.5)
    with pytest.raises(FixArguments, match="dropped to make room"):
        store.get("load", 2)


def test_a_result_over_max_stored_bytes_is_stored_cut_and_its_preview_says_so():
    first, second = mail(30, seed=1), mail(30, seed=2) + " Lastwordhere."
    # A result's text is cut to half the bound: its passages and index take the rest.
    budget = OutputBudget(max_stored_bytes=2 * (len(first.encode()) + 100), passage_tokens=80)
    store = ResultStore(budget)
    store.add("load", "an older result " * 100)
    stored = store.add("load", [Document(text=first), Document(text=second)])
    assert stored.size <= budget.max_stored_bytes // 2 < stored.full_size
    assert [r.result_id for r in store._results.values()] == [2]  # the older one made room
    note = stored_message(stored, first + second, "read_load")
    # The whole result's size, not its stored part's tokens, as if that were all of it.
    assert note.startswith(f"[This result is {stored.full_size:,} bytes, more than")
    assert f"Only its first {stored.size:,} bytes ({stored.tokens:,} tokens) are stored" in note
    assert stored.hits("Lastwordhere") == []
    assert "K00029" in read_passages(stored, "K00029").reply()


def test_what_a_stored_result_holds_counts_its_passages_and_bm25_index_too():
    text = mail(40)
    stored = ResultStore(OutputBudget()).add("load", text)
    index = stored._index.nbytes()
    assert index > len(text) // 4  # the BM25 score arrays and vocabulary are not small
    assert stored.held >= len(text.encode()) + index + 3 * 4 * len(stored.passages)


def test_the_store_drops_old_results_when_text_and_indexes_together_are_over_the_bound():
    text = mail(40)
    size = len(text.encode())
    # Three texts fit in the bound; three texts with their passages and indexes do not.
    budget = OutputBudget(max_stored_bytes=int(size * 3.2))
    store = ResultStore(budget)
    for _ in range(3):
        store.add("load", text)
    assert 0 < store.held() <= budget.max_stored_bytes
    assert len(store._results) < 3
    with pytest.raises(FixArguments, match="dropped to make room"):
        store.get("load", 1)


class Papers(ToolSpec):
    """A spec whose one function returns long text."""

    spec_functions: ClassVar = ["load_paper"]
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=300, keep=1)

    @tool(large_output=True, read_only=True)
    def load_paper(self, seed: int = 1) -> str:
        """Load a paper.

        Args:
            seed: Which paper.
        """
        return mail(30, seed=seed)


def test_reading_a_dropped_result_through_the_tool_is_guidance_to_call_again():
    tools = {t.metadata.name: t for t in Papers().to_tool_list()}
    assert "stored as result 1" in tools["load_paper"].call(seed=1).content
    assert "stored as result 2" in tools["load_paper"].call(seed=2).content
    read = tools["read_stored_result"].call(query="revenue", result_id=1)
    assert read.is_error is True
    assert "Result 1 of load_paper is gone" in read.content
    assert "Call load_paper again" in read.content
    assert tools["read_stored_result"].call(query="revenue").is_error is False


@pytest.mark.parametrize(
    "text",
    [
        " ".join(str(i % 10) for i in range(5000)),  # digits alone
        "| -- | ** | ;; |\n" * 800,  # punctuation tables
        "the and of to in is it that " * 600,  # stopwords only
    ],
    ids=["digits", "punctuation", "stopwords"],
)
def test_a_result_with_no_word_to_index_is_stored_and_read_as_no_match(text, new_store):
    # Before: bm25s raised ValueError (an empty vocabulary) on add, and again on reads.
    store = new_store(OutputBudget())
    stored = store.add("f", [Document(text=text)])
    assert stored.passages and "".join(stored.passages).strip()
    assert stored.hits("7 the |") == []
    assert store.get("f") is stored


def test_a_stored_result_holds_its_text_once_and_its_passages_are_slices_of_it():
    # Before: each passage was a copy, decoded from its tokens (overlaps copied twice).
    text = "Grüße aus Köln, 日本語 🙂.\n\n" + mail(60) + "\n\n  "
    document = Document(text=text)
    stored = ResultStore(OutputBudget(passage_tokens=80)).add("load", [document, Document()])
    assert stored.passages.texts == [text]  # type: ignore[attr-defined]
    assert stored.passages.texts[0] is document.text  # type: ignore[attr-defined]
    assert sum(map(len, stored.passages)) > len(text)  # they overlap: made when read
    assert all(p == p.strip() and p in text for p in stored.passages)
    assert stored.passages[0].startswith("Grüße") and stored.passages[-1].endswith("K00059.")
    assert list(stored.passages)[1:3] == stored.passages[1:3]


@pytest.mark.parametrize("passage_tokens", [300, 40])
def test_passages_rank_as_bm25s_ranks_them_with_its_own_tokenizer(passage_tokens, new_store):
    # The store tokenizes passage by passage and builds bm25s's matrix its own way; the
    # scores are those of bm25s.tokenize + BM25().index over the same passages.
    bm25s = pytest.importorskip("bm25s")
    stemmer = pytest.importorskip("Stemmer").Stemmer("english")
    rng = random.Random(9)
    text = "\n\n".join(mail(40, seed=s) + " Überweisung Grüße 日本語 " * s for s in range(6))
    text += "\n\n" + "the and of to " * 200  # a passage with stopwords alone
    stored = new_store(OutputBudget(passage_tokens=passage_tokens, top_k=6)).add("f", text)
    passages = list(stored.passages)
    reference = bm25s.BM25()
    corpus = bm25s.tokenize(passages, stopwords="en", stemmer=stemmer, show_progress=False)
    reference.index(corpus, show_progress=False)
    for query in [" ".join(rng.choices(WORDS, k=3)) for _ in range(20)] + ["Grüße", "K00017"]:
        tokens = bm25s.tokenize(query, stemmer=stemmer, show_progress=False)
        found, scores = reference.retrieve(tokens, k=6, show_progress=False)
        expected = [(int(i), float(s)) for i, s in zip(found[0], scores[0], strict=True)]
        assert stored.index().search(query, 6) == expected


class Floods(ToolSpec):
    """A spec whose one function returns a result far over its budget."""

    spec_functions: ClassVar = ["load_all"]
    output_budget: ClassVar[OutputBudget] = OutputBudget(max_tokens=300)

    @tool(large_output=True, read_only=True)
    def load_all(self) -> str:
        """Load everything."""
        return mail(4000)


def test_a_tool_counts_a_long_result_in_blocks_and_only_until_it_is_over_budget(monkeypatch):
    import llama_index.core

    counted: list[int] = []
    encode = llama_index.core.global_tokenizer or get_tokenizer()

    def recording(text: str) -> list[int]:
        counted.append(len(text))
        return encode(text)

    monkeypatch.setattr(llama_index.core, "global_tokenizer", recording)
    (load_all,) = [t for t in Floods().to_tool_list() if t.metadata.name == "load_all"]
    text = mail(4000)
    assert len(text) > 4 * COUNT_BLOCK_CHARS
    out = load_all.call()
    assert "stored as result" in out.content
    # Never the whole text in one list of token ids: a block at a time, and the count
    # stops once the result is over budget (storing counts it as it cuts passages).
    assert max(counted) <= COUNT_BLOCK_CHARS
    assert sum(counted) < len(text) // 2


def _unique_words(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [f"id{rng.getrandbits(40):010x}" for _ in range(n)]  # ids, hashes: no two alike


def test_a_text_of_unique_words_holds_a_vocabulary_bounded_by_its_size():
    # Before: every distinct stem was held by name (a str, a dict and a set entry): 1 MB of
    # base64 held 9 times its size once stored, and peaked at 12 times while indexing.
    words = _unique_words(80_000)  # 1 MB
    text = " ".join(words)
    size = len(text.encode())
    stored = ResultStore(OutputBudget()).add("load", text)
    vocab = stored.index()._index.vocab
    named = [s for s in vocab if s and not s.startswith("\0")]  # "": bm25s's empty token
    assert len(named) == max_stems(size) < len(words)
    assert len(vocab) <= len(named) * 5 // 4 + 1
    assert stored.held < 4 * size  # the text itself, its passages and its index


@functools.cache
def _megabyte_of_ids() -> str:
    return " ".join(_unique_words(80_000))


class Ids(ToolSpec):
    """A spec whose one function returns a megabyte of unique ids."""

    spec_functions: ClassVar = ["load_ids"]

    @tool(large_output=True, read_only=True)
    def load_ids(self) -> str:
        """Load ids."""
        return _megabyte_of_ids()


def test_storing_a_text_of_unique_words_through_a_tool_peaks_under_five_times_its_size():
    # The path agents use (count the tokens, store, index, preview); bench/store.py --tool
    # measures the other kinds of text. Before: x11 for this text, x12 for base64.
    import gc
    import tracemalloc

    (load_ids,) = [t for t in Ids().to_tool_list() if t.metadata.name == "load_ids"]
    size = len(load_ids.call().raw_output.encode())  # also warms up imports and tables
    gc.collect()
    tracemalloc.start()
    try:
        out = load_ids.call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "stored as result 2" in out.content
    assert peak < 5 * size


def test_a_word_past_the_vocabulary_bound_still_finds_its_own_passage_first(new_store):
    words = _unique_words(40_000)
    stored = new_store(OutputBudget(top_k=2)).add("load", " ".join(words))
    for word in (words[3], words[20_000], words[-3]):  # named, and past the bound
        hits = stored.hits(f"{word} anything")
        assert hits and word in hits[0][1], word
