"""Large results go into an index the agent searches, instead of flooding its context.

When a tool's text is over its spec's :class:`OutputBudget`, the agent gets a short
preview and the name of a ``read_<function>(query)`` tool; that tool returns the
passages that best match the query, verbatim. The index is BM25 (offline: no LLM
and no embedding API), or a vector index when an embedding model is configured.
Each result keeps its own index, so passages of different loads never mix.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.node_parser import TokenTextSplitter
from llama_index.core.schema import BaseNode, Document

from toolspecs.core.bounds import count_tokens
from toolspecs.core.errors import FixArguments

# Passage headers use these brackets, and no passage text can contain them (see
# toolspecs.core.fence): a mail cannot forge "⟦passage 7 of 9 · message … from …⟧".
PASSAGE_OPEN = "⟦"
PASSAGE_CLOSE = "⟧"
_HEADER_CHARS = str.maketrans({PASSAGE_OPEN: "[", PASSAGE_CLOSE: "]"})
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
        embed_model: A llama-index embedding model; with one, reads use a vector
            index instead of BM25.
    """

    max_tokens: int = 2000
    preview_tokens: int = 250
    passage_tokens: int = 300
    top_k: int = 4
    keep: int = 8
    embed_model: Any = None


@dataclass
class StoredResult:
    """One stored result: its documents, cut into passages, with an index built on demand."""

    result_id: int
    function: str
    nodes: list[BaseNode]
    tokens: int
    budget: OutputBudget
    _retriever: BaseRetriever | None = field(default=None, repr=False)

    def hits(self, query: str) -> list[tuple[int, str, str]]:
        """The passages best matching ``query``, best first, as (position, text, source)."""
        if self._retriever is None:
            self._retriever = self._build_retriever()
        hits = self._retriever.retrieve(query)
        positions = {node.node_id: index for index, node in enumerate(self.nodes)}
        found: list[tuple[int, str, str]] = []
        for hit in hits:
            if hit.score is not None and hit.score <= 0:
                continue
            source = str(hit.node.metadata.get(SOURCE_KEY, ""))
            found.append((positions.get(hit.node.node_id, -1), hit.node.get_content(), source))
        return found

    def _build_retriever(self) -> BaseRetriever:
        top_k = min(self.budget.top_k, len(self.nodes))
        if self.budget.embed_model is not None:
            from llama_index.core import VectorStoreIndex

            index = VectorStoreIndex(self.nodes, embed_model=self.budget.embed_model)
            return index.as_retriever(similarity_top_k=top_k)
        retriever: BaseRetriever = _bm25_retriever_class().from_defaults(
            nodes=self.nodes, similarity_top_k=top_k
        )
        return retriever


_IMPORT_LOCK = threading.Lock()


def _bm25_retriever_class() -> Any:
    """llama-index's ``BM25Retriever``, imported without bm25s's notebook warning.

    bm25s (under ``llama-index-retrievers-bm25``) imports ``tqdm.auto`` when it is
    imported; in a Jupyter kernel without ipywidgets, tqdm then warns "IProgress not
    found. Please update jupyter and ipywidgets". We never show bm25s's progress bars
    (llama-index passes ``show_progress=False``), so that one warning, during that one
    import, is left out; every other warning shows as usual. This leans on the text of
    tqdm's ``WARN_NOIPYW`` and on bm25s importing tqdm at import time.
    """
    with _IMPORT_LOCK, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="IProgress not found", module="tqdm")
        from llama_index.retrievers.bm25 import BM25Retriever
    return BM25Retriever


class ResultStore:
    """The stored results of one spec instance, newest last; safe to share between threads.

    Async tool calls run in worker threads, and an agent may make several at once.
    """

    def __init__(self, budget: OutputBudget) -> None:
        self.budget = budget
        self._results: OrderedDict[int, StoredResult] = OrderedDict()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(
        self,
        function: str,
        text_or_documents: str | list[Document],
        source: Callable[[Document], str] | None = None,
    ) -> StoredResult:
        """Cut a result into passages and keep it under a new id.

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
        # TokenTextSplitter needs no NLTK data (SentenceSplitter's punkt files are
        # refused by NLTK's path checks when a package manager hard-links them).
        splitter = TokenTextSplitter(
            chunk_size=self.budget.passage_tokens,
            chunk_overlap=min(30, self.budget.passage_tokens // 10),
            separator=" ",
            backup_separators=["\n"],
        )
        nodes: list[BaseNode] = []
        for document in documents:
            # Passages carry only their text (metadata would be repeated in every chunk),
            # and the name of their source, kept out of the text the index reads.
            origin = source(document) if source is not None else ""
            bare = Document(
                text=document.get_content(),
                metadata={SOURCE_KEY: origin} if origin else {},
                excluded_llm_metadata_keys=[SOURCE_KEY],
                excluded_embed_metadata_keys=[SOURCE_KEY],
            )
            nodes.extend(splitter.get_nodes_from_documents([bare]))
        tokens = sum(count_tokens(node.get_content()) for node in nodes)
        with self._lock:
            stored = StoredResult(
                result_id=next(self._ids),
                function=function,
                nodes=nodes,
                tokens=tokens,
                budget=self.budget,
            )
            self._results[stored.result_id] = stored
            while len(self._results) > self.budget.keep:
                self._results.popitem(last=False)
        return stored

    def get(self, function: str, result_id: int | None = None) -> StoredResult:
        """The result ``result_id`` of ``function``, or its latest one.

        Raises:
            FixArguments: When there is no such result.
        """
        with self._lock:
            mine = [r for r in self._results.values() if r.function == function]
        if not mine:
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


def preview(text: str, tokens: int) -> str:
    """The start of ``text``, at most ``tokens`` long, cut at a line or word boundary."""
    tokens = max(tokens, 1)
    limit = tokens * 4
    while True:
        if len(text) <= limit:
            cut = text
        else:
            cut = text[:limit]
            boundary = max(cut.rfind("\n"), cut.rfind(" "))
            cut = cut[: boundary if boundary > limit // 2 else limit].rstrip()
        counted = count_tokens(cut)
        if counted <= tokens or not cut:
            return cut
        # Dense text (digits, symbols, other scripts) has fewer characters per token.
        limit = max(0, min(len(cut) - 1, int(len(cut) * tokens / counted * 0.95)))


def stored_message(stored: StoredResult, text: str, read_tool: str) -> str:
    """What the agent sees instead of a result that is over budget."""
    return (
        f"[This result is {stored.tokens:,} tokens, more than this tool shows at once, "
        f"so it is stored as result {stored.result_id} ({len(stored.nodes)} passages). "
        f"It begins:]\n{preview(text, stored.budget.preview_tokens)}\n"
        f"[... To read more, call {read_tool} with a query saying what you are looking for; "
        f"it returns the best-matching passages verbatim (result_id={stored.result_id}).]"
    )


def truncated_message(text: str, budget: OutputBudget, total_tokens: int) -> str:
    """A result over budget from a tool without a read tool: its start and a note."""
    start = preview(text, max(budget.max_tokens - 60, budget.max_tokens // 2))
    return (
        f"{start}\n[... output cut: it was {total_tokens:,} tokens, "
        f"over this tool's budget of {budget.max_tokens:,}. Ask for less, e.g. fewer results.]"
    )


def read_passages(stored: StoredResult, query: str, label: str = "") -> str:
    """The text a ``read_<function>`` call returns; ``label`` marks each passage (e.g. quoted).

    Each passage is headed ``⟦passage 3 of 9 · {source}{label}⟧``; the passage text
    cannot contain those brackets, so it cannot forge a header or a source.
    """
    hits = stored.hits(query)
    total = len(stored.nodes)
    if not hits:
        raise FixArguments(
            f"No passage of result {stored.result_id} matches {query!r}.",
            "Try other words, ones likely to appear in the text itself.",
        )
    parts = [
        f"Passages of result {stored.result_id} ({stored.function}) that best match {query!r}:"
    ]
    for position, passage, source in hits:
        origin = f" · {source.translate(_HEADER_CHARS)}" if source else ""
        header = f"{PASSAGE_OPEN}passage {position + 1} of {total}{origin}{label}{PASSAGE_CLOSE}"
        parts.append(f"{header}\n{passage.translate(_HEADER_CHARS)}")
    return "\n\n".join(parts)
