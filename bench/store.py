"""Storing and searching a large result: ours next to the floor and llama-index's LoadAndSearch.

For each text (mail-like prose of 100 KB, 1 MB and 10 MB; 1 MB of base64 and 1 MB of
Chinese, runs without spaces) it prints min/median over ``--runs`` runs of:

- ours: ``ResultStore.add`` (cut into passages + BM25 index), the first read
  (``StoredResult.hits``) and a later read; peak memory (tracemalloc) of add + first read,
  as a multiple of the text's UTF-8 size;
- the floor: tiktoken's encoding of the text once (``encode_to_numpy``) plus bm25s built
  over the same passages ours cut;
- through a tool (``--tool``): the tracemalloc peak of one call of a ``large_output`` tool
  that returns the text (count its tokens, store it, write the preview), as a multiple of
  the text's size, next to ``ResultStore.add`` + first read alone;
- llama-index's ``LoadAndSearchToolSpec`` over the same Document, with ``MockEmbedding``:
  its load (``TokenTextSplitter(1024)``, as its default ``SentenceSplitter`` needs NLTK
  files that NLTK refuses when hard-linked, + a vector index); its read needs an LLM (the
  search is ``index.as_query_engine().query``), so it runs with ``MockLLM``.

- in Redis (``--redis URL``, or ``--redis start`` for a redis-server of its own on a
  free port): ``RedisStore`` add (cut, BM25, one Lua script), the first read through a
  second store (another replica: fetch the text and offsets, rebuild BM25) and a later
  read (its cache, checked as still kept), each as a ratio to the memory store's, in the
  same run.

Usage: ``uv run --frozen python bench/store.py [--runs 5] [--sizes 100k,1m,10m] [--quick]``
or ``... bench/store.py --tool [--sizes 1m,10m]`` (peaks through a tool only)
or ``... bench/store.py --redis start [--sizes 100k,1m]`` (the Redis store only)
(``--quick``: 2 runs, no 10 MB, no LoadAndSearch above 1 MB).
"""

from __future__ import annotations

import argparse
import base64
import ctypes
import gc
import json
import random
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "a",
    "in",
    "that",
    "is",
    "was",
    "he",
    "for",
    "it",
    "with",
    "as",
    "his",
    "on",
    "be",
    "at",
    "by",
    "i",
    "this",
    "had",
    "not",
    "are",
    "but",
    "from",
    "or",
    "have",
    "an",
    "they",
    "which",
    "one",
    "you",
    "were",
    "her",
    "all",
    "she",
    "there",
    "would",
    "their",
    "we",
    "him",
    "been",
    "has",
    "when",
    "who",
    "will",
    "more",
    "no",
    "if",
    "out",
    "so",
    "said",
    "what",
    "up",
    "its",
    "about",
    "into",
    "than",
    "them",
    "can",
    "only",
    "other",
    "new",
    "some",
    "could",
    "time",
    "these",
    "two",
    "may",
    "then",
    "do",
    "first",
    "any",
    "my",
    "now",
    "such",
    "like",
    "our",
    "over",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "us",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "meeting",
    "agenda",
    "quarterly",
    "revenue",
    "budget",
    "report",
    "attached",
    "review",
    "schedule",
    "deadline",
    "project",
    "customer",
    "invoice",
    "contract",
    "team",
    "proposal",
    "model",
    "results",
    "training",
    "dataset",
    "attention",
    "layer",
    "encoder",
    "decoder",
    "transformer",
    "accuracy",
    "baseline",
    "table",
]
NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]


def mail_prose(size: int, seed: int = 14) -> str:
    """Mail-like prose: headers, paragraphs of sentences, quoted replies, numbers."""
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        who = rng.choice(NAMES)
        head = (
            f"From: {who} <{who.split()[0].lower()}@example.com>\n"
            f"Date: Tue, {rng.randint(1, 28)} Oct 2025 {rng.randint(8, 18)}:{rng.randint(10, 59)}"
            f" +0200\nSubject: Re: {' '.join(rng.choices(WORDS, k=5))} #{n}\n\n"
        )
        paragraphs = []
        for _ in range(rng.randint(2, 5)):
            sentences = []
            for _ in range(rng.randint(2, 6)):
                words = rng.choices(WORDS, k=rng.randint(6, 22))
                if rng.random() < 0.3:
                    words.insert(rng.randrange(len(words)), f"{rng.randint(2, 9999):,}")
                sentences.append(" ".join(words).capitalize() + rng.choice([".", ".", "?", "!"]))
            paragraphs.append(" ".join(sentences))
        if rng.random() < 0.4:
            paragraphs.append("> " + "\n> ".join(rng.choices(WORDS, k=8)))
        parts.append(head + "\n\n".join(paragraphs) + "\n\n")
        total += len(parts[-1])
    return "".join(parts)[:size]


def no_spaces_base64(size: int) -> str:
    return base64.b64encode(random.Random(14).randbytes(size * 3 // 4)).decode()[:size]


def random_words(size: int) -> str:
    """Short random words (ids, hashes, a hex dump): every word its own stem."""
    rng = random.Random(14)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
    words = ("".join(rng.choices(alphabet, k=rng.randint(3, 8))) for _ in iter(int, 1))
    out: list[str] = []
    total = 0
    while total < size:
        out.append(next(words))
        total += len(out[-1]) + 1
    return " ".join(out)[:size]


def no_spaces_chinese(size: int) -> str:
    rng = random.Random(14)
    chars = [chr(c) for c in range(0x4E00, 0x4E00 + 500)]  # common CJK ideographs
    return "".join(rng.choices(chars, k=size // 3))


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def passages_of(stored: Any) -> list[str]:
    if hasattr(stored, "passages"):
        return list(stored.passages)
    return [node.get_content() for node in stored.nodes]  # before issue 14


def ours(text: str, memory: bool = False) -> dict[str, Any]:
    """One run: timed without tracemalloc (it slows allocation-heavy code), or traced."""
    from llama_index.core.schema import Document

    from toolspecs.core.memory_store import ResultStore
    from toolspecs.core.store import OutputBudget

    store = ResultStore(OutputBudget(max_stored_bytes=2**40) if _has_bytes() else OutputBudget())
    docs = [Document(text=text)]
    if memory:
        tracemalloc.start()
    add, stored = timed(lambda: store.add("load", docs))
    first, _ = timed(lambda: stored.hits("quarterly revenue budget"))
    peak = tracemalloc.get_traced_memory()[1] if memory else 0
    tracemalloc.stop()
    later, _ = timed(lambda: stored.hits("transformer attention accuracy"))
    return {"add": add, "first": first, "later": later, "peak": peak, "stored": stored}


def through_tool(text: str) -> int:
    """The tracemalloc peak of one call of a large_output tool that returns ``text``."""
    from typing import ClassVar

    from toolspecs.core import OutputBudget, ToolSpec, tool

    class Loads(ToolSpec):
        """A spec whose one function returns a long text."""

        spec_functions: ClassVar = ["load"]
        output_budget: ClassVar[OutputBudget] = OutputBudget(max_stored_bytes=2**40)

        @tool(large_output=True, read_only=True)
        def load(self) -> str:
            """Load a text."""
            return text

    (load,) = [t for t in Loads().to_tool_list() if t.metadata.name == "load"]
    load.call()  # warm up: imports, tables, the worker thread
    gc.collect()
    tracemalloc.start()
    output = load.call()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert "stored as result" in output.content, output.content[:200]
    return peak


def tool_peaks(sizes: list[int]) -> None:
    """Peak memory through a tool next to ResultStore.add + first read, per text."""
    ours("warm up " * 2000)
    print("peak memory (tracemalloc) / text bytes: through a tool call | store.add + first read")
    kinds = [("mail", size) for size in sizes] + [
        (kind, 1_000_000) for kind in ("base64", "Chinese", "random words")
    ]
    for kind, length in kinds:
        text = CASES[kind](length)
        size = len(text.encode())
        tool_peak = through_tool(text)
        add_peak = ours(text, memory=True)["peak"]
        print(
            f"  {kind} {length // 1000:,} KB: tool x{tool_peak / size:.2f}"
            f" | add x{add_peak / size:.2f}  (tool/add x{tool_peak / add_peak:.2f})"
        )


def _has_bytes() -> bool:
    from toolspecs.core.store import OutputBudget

    return "max_stored_bytes" in OutputBudget.__dataclass_fields__


def floor(text: str, passages: list[str], trace: bool = True) -> dict[str, Any]:
    import bm25s
    import Stemmer

    from toolspecs.core.bounds import count_tokens

    count_tokens("warm up")  # load the encoding outside the timing
    import llama_index.core

    encoder = llama_index.core.global_tokenizer
    encoding = encoder.func.__self__  # type: ignore[union-attr]  # functools.partial(enc.encode)

    def build() -> Any:
        encoding.encode_to_numpy(text, allowed_special="all")
        tokens = bm25s.tokenize(
            passages, stopwords="en", stemmer=Stemmer.Stemmer("english"), show_progress=False
        )
        index = bm25s.BM25()
        index.index(tokens, show_progress=False)
        return index

    seconds, index = timed(build)
    if not trace:
        return {"add": seconds, "index": index}
    del index
    tracemalloc.start()
    build()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"add": seconds, "peak": peak}


def load_and_search(text: str, read: bool) -> dict[str, Any]:
    from llama_index.core import Settings
    from llama_index.core.embeddings.mock_embed_model import MockEmbedding
    from llama_index.core.llms.mock import MockLLM
    from llama_index.core.node_parser import TokenTextSplitter
    from llama_index.core.schema import Document
    from llama_index.core.tools import FunctionTool
    from llama_index.core.tools.tool_spec.load_and_search import LoadAndSearchToolSpec

    Settings.llm = MockLLM()
    Settings.embed_model = MockEmbedding(embed_dim=8)
    # Its default SentenceSplitter loads NLTK files that NLTK refuses when they are
    # hard-linked (as uv installs them); the token splitter of the same size stands in.
    Settings.transformations = [TokenTextSplitter(chunk_size=1024, chunk_overlap=20)]
    tool = FunctionTool.from_defaults(fn=lambda: [Document(text=text)], name="load")
    spec = LoadAndSearchToolSpec.from_defaults(tool)
    seconds, _ = timed(spec.load)
    result = {"add": seconds}
    if read:
        result["first"], _ = timed(lambda: spec.read("quarterly revenue budget"))
        result["later"], _ = timed(lambda: spec.read("transformer attention accuracy"))
    return result


def redis_run(url: str, text: str) -> dict[str, Any]:
    """One run of the Redis store: add here, first read through a replica, a later read."""
    from llama_index.core.schema import Document

    from toolspecs.core.redis_store import RedisStore
    from toolspecs.core.store import OutputBudget

    class Owner:
        pass

    owner, budget = Owner(), OutputBudget(max_stored_bytes=2**40)
    here, replica = RedisStore(url), RedisStore(url)
    add, stored = timed(
        lambda: here.results(owner, "bench", budget).add("load", [Document(text=text)])
    )

    def read() -> Any:
        found = replica.results(owner, "bench", budget).get("load", stored.result_id)
        return found.hits("quarterly revenue budget")

    first, _ = timed(read)
    later, _ = timed(read)
    here.client.flushdb()
    return {"add": add, "first": first, "later": later}


def started_redis() -> tuple[str, Any]:
    """A redis-server of this run's own: no persistence, a free port, a temp folder."""
    import shutil
    import socket
    import tempfile

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    folder = tempfile.mkdtemp()
    binary = shutil.which("redis-server") or "redis-server"
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(
        [binary, *options, "--dir", folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    return f"redis://127.0.0.1:{port}/0", process


def redis_bench(url: str, sizes: list[int], runs: int) -> None:
    process = None
    if url == "start":
        url, process = started_redis()
    try:
        ours("warm up " * 2000)
        redis_run(url, "warm up " * 2000)
        print(f"min/median of {runs} runs; Redis at {url}; ratio = Redis / memory (medians)")
        for size in sizes:
            text = mail_prose(size)
            memory = [ours(text) for _ in range(runs)]
            shared = [redis_run(url, text) for _ in range(runs)]
            print(f"\n== mail {size // 1000:,} KB ({len(text.encode()):,} bytes)")
            for key, label, unit in [
                ("add", "store+index", "s"),
                ("first", "first read", "ms"),
                ("later", "later read", "ms"),
            ]:
                mem, red = [r[key] for r in memory], [r[key] for r in shared]
                ratio = statistics.median(red) / statistics.median(mem)
                print(
                    f"  {label:<12} memory {stats(mem, unit=unit)}  redis {stats(red, unit=unit)}"
                    f"  x{ratio:.2f}"
                )
    finally:
        if process is not None:
            process.terminate()
            process.wait()


def stats(values: list[float], scale: float = 1.0, unit: str = "s") -> str:
    if not values:
        return "—"
    low, mid = min(values) * scale, statistics.median(values) * scale
    if unit == "ms":
        return f"{low * 1000:8.1f}/{mid * 1000:<8.1f}ms"
    if unit == "x":
        return f"{low:6.1f}/{mid:<6.1f}x"
    return f"{low:7.3f}/{mid:<7.3f}s"


CASES: dict[str, Callable[[int], str]] = {
    "mail": mail_prose,
    "base64": no_spaces_base64,
    "Chinese": no_spaces_chinese,
    "random words": random_words,
}


def _rss(field: str) -> int:
    with open("/proc/self/status") as status:
        return int(re.search(rf"{field}:\s+(\d+) kB", status.read()).group(1)) * 1024  # type: ignore[union-attr]


def rss_child(side: str, kind: str, size: int) -> None:
    """In a fresh process: the growth of peak RSS while ``side`` stores the text, printed.

    Imports, the tokenizer's tables and the text come first; then freed memory goes back to
    the system (``malloc_trim``), the peak is reset (``/proc/self/clear_refs``, Linux ≥ 4.0)
    and the RSS read; what the peak rises above it is the side's extra memory.
    """
    text = CASES[kind](size)
    ours("warm up " * 2000)
    floor("warm up " * 2000, ["warm up"])
    passages = passages_of(ours(text)["stored"]) if side == "floor" else []
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    before = _rss("VmRSS")
    # Each side's result is kept while the peak is read, as a spec keeps its stored result.
    kept = ours(text) if side == "ours" else floor(text, passages, trace=False)
    extra = _rss("VmHWM") - before
    del kept
    print(json.dumps({"extra": extra}))


def rss_peaks(side: str, kind: str, size: int, runs: int) -> list[int]:
    """Peak RSS growth of ``runs`` fresh child processes (see ``rss_child``)."""
    command = [sys.executable, __file__, "--rss-child", f"{side},{kind},{size}"]
    return [
        json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)[
            "extra"
        ]
        for _ in range(runs)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", default="100k,1m,10m")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--tool", action="store_true", help="peak memory through a tool only")
    parser.add_argument("--redis", metavar="URL", help="the Redis store only (URL or 'start')")
    parser.add_argument("--rss-child", help=argparse.SUPPRESS)  # SIDE,KIND,SIZE: one child
    args = parser.parse_args()
    if args.rss_child:
        side, kind, size = args.rss_child.split(",")
        rss_child(side, kind, int(size))
        return
    runs = 2 if args.quick else args.runs
    units = {"k": 1000, "m": 1_000_000}
    sizes = [int(s[:-1]) * units[s[-1]] for s in args.sizes.split(",")]
    if args.tool:
        tool_peaks(sizes)
        return
    if args.redis:
        redis_bench(args.redis, [s for s in sizes if s <= 1_000_000] or sizes, runs)
        return
    if args.quick:
        sizes = [s for s in sizes if s <= 1_000_000]
    kinds = [("mail", size) for size in sizes] + [
        (kind, 1_000_000) for kind in ("base64", "Chinese", "random words")
    ]
    cases = [(kind, size, CASES[kind](size)) for kind, size in kinds]
    rss_runs = min(runs, 3)
    ours("warm up " * 2000)  # imports and the tokenizer's tables, outside the timings
    print(
        f"min/median of {runs} runs; peak = tracemalloc peak of add + first read "
        f"(one extra run) / text bytes; RSS = peak RSS growth in {rss_runs} fresh processes"
        " / text bytes (min/median)"
    )
    for kind, length, text in cases:
        name = f"{kind} {length // 1000:,} KB"
        size = len(text.encode())
        mine = [ours(text) for _ in range(runs)]
        peak = ours(text, memory=True)["peak"]
        rss = {side: rss_peaks(side, kind, length, rss_runs) for side in ("ours", "floor")}
        passages = passages_of(mine[0]["stored"])
        base = [floor(text, passages) for _ in range(runs)]
        llama_runs = runs if size <= 1_000_000 else 1
        read = size <= 1_000_000 and not args.quick
        theirs = (
            [load_and_search(text, read) for _ in range(llama_runs)]
            if size <= 1_000_000 or not args.quick
            else []
        )
        col = {k: [r[k] for r in mine] for k in ("add", "first", "later")}
        print(f"\n== {name} ({size:,} bytes, {len(passages):,} passages)")
        print(
            f"  ours  store+index {stats(col['add'])}  first read {stats(col['first'], unit='ms')}"
            f"  later read {stats(col['later'], unit='ms')}  peak {peak / size:.1f}x"
            f"  RSS {stats([r / size for r in rss['ours']], unit='x')}"
        )
        floor_add = [r["add"] for r in base]
        print(
            f"  floor encode+bm25 {stats(floor_add)}  peak {base[0]['peak'] / size:.1f}x"
            f"  RSS {stats([r / size for r in rss['floor']], unit='x')}"
        )
        ratio = [a / min(floor_add) for a in col["add"]]
        with_first = [
            (a + f) / min(floor_add) for a, f in zip(col["add"], col["first"], strict=True)
        ]
        print(
            f"  ratio ours/floor: store+index x{min(ratio):.2f}/{statistics.median(ratio):.2f}"
            f", store+index+first read x{min(with_first):.2f}/{statistics.median(with_first):.2f}"
        )
        if theirs:
            load = [r["add"] for r in theirs]
            line = f"  LoadAndSearch load (MockEmbedding) {stats(load)}"
            if "first" in theirs[0]:
                line += (
                    f"  read (MockLLM) {stats([r['first'] for r in theirs], unit='ms')}"
                    f" / {stats([r['later'] for r in theirs], unit='ms')}"
                )
            print(line)
            print(f"  ratio ours/LoadAndSearch load x{min(col['add']) / min(load):.2f}")


if __name__ == "__main__":
    main()
