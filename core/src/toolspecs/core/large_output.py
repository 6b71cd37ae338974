"""Large results go into an index the agent searches, instead of flooding its context.

This module writes what the agent reads of stored, cut and read results.
"""

from __future__ import annotations

from typing import Any, ClassVar

from llama_index.core.schema import BaseNode
from pydantic import Field, PrivateAttr

from toolspecs.core.bounds import count_tokens
from toolspecs.core.errors import FixArguments
from toolspecs.core.fence import NOT_INSTRUCTIONS
from toolspecs.core.store import OutputBudget, StoredResult
from toolspecs.core.structured import Listing, Quoted, Structure

__all__ = [
    "PASSAGE_CLOSE",
    "PASSAGE_OPEN",
    "THIRD_PARTY_LABEL",
    "Passage",
    "PassagesRead",
    "as_text",
    "preview",
    "read_passages",
    "stored_message",
    "truncated_message",
]

# Passage headers use these brackets, and no passage text can contain them (see
# toolspecs.core.fence): a mail cannot forge "⟦passage 7 of 9 · message … from …⟧".
PASSAGE_OPEN = "⟦"
PASSAGE_CLOSE = "⟧"
_HEADER_CHARS = str.maketrans({PASSAGE_OPEN: "[", PASSAGE_CLOSE: "]"})
# Marks a passage whose source is named (a named source is a third party: a mail, an
# event, a paper, Wolfram|Alpha), unless the spec marks it in its own words.
THIRD_PARTY_LABEL = f" · {NOT_INSTRUCTIONS}"


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
    cut = ""
    size = f"This result is {stored.tokens:,} tokens"
    if stored.size < stored.full_size:
        size = f"This result is {stored.full_size:,} bytes"  # only its stored part is counted
        cut = (
            f" Only its first {stored.size:,} bytes ({stored.tokens:,} tokens) are stored (a "
            f"spec stores at most {stored.budget.max_stored_bytes // 2:,} of one result): ask "
            "for less to read the rest."
        )
    return (
        f"[{size}, more than this tool shows at once, "
        f"so it is stored as result {stored.result_id} ({len(stored.passages)} passages).{cut} "
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


class Passage(Structure):
    """One passage a read returned."""

    position: int = Field(description="1-based, of total_passages.")
    source: str | None = None
    text: Quoted


class PassagesRead(Listing):
    """What a call of a spec's reader tool returns: the best-matching passages, verbatim."""

    items_field: ClassVar[str] = "passages"

    result_id: int
    function: str = Field(description="The tool whose result this is.")
    query: str
    total_passages: int
    passages: list[Passage]
    _label: str = PrivateAttr(default="")

    def reply(self) -> str:
        """Each passage under a header naming its place, its source and, if quoted, that."""
        parts = [
            f"Passages of result {self.result_id} ({self.function}) that best match {self.query!r}:"
        ]
        for passage in self.passages:
            source = passage.source or ""
            origin = f" · {source.translate(_HEADER_CHARS)}" if source else ""
            mark = self._label or (THIRD_PARTY_LABEL if source else "")
            header = (
                f"{PASSAGE_OPEN}passage {passage.position} of {self.total_passages}"
                f"{origin}{mark}{PASSAGE_CLOSE}"
            )
            parts.append(f"{header}\n{passage.text.text.translate(_HEADER_CHARS)}")
        return "\n\n".join(parts)


def read_passages(stored: StoredResult, query: str, label: str = "") -> PassagesRead:
    """What a call of the spec's reader tool returns; ``label`` marks each passage.

    Headers are ``⟦passage 3 of 9 · {source}{label}⟧``; passage text cannot hold those
    brackets, so it cannot forge a header. A named source without a ``label`` is marked
    third-party, and every passage is quoted in the data: its fence may be in another.
    """
    hits = stored.hits(query)
    if not hits:
        raise FixArguments(
            f"No passage of result {stored.result_id} matches {query!r}.",
            "Try other words, ones likely to appear in the text itself.",
        )
    read = PassagesRead(
        result_id=stored.result_id,
        function=stored.function,
        query=query,
        total_passages=len(stored.passages),
        passages=[
            Passage(position=position + 1, source=source or None, text=Quoted(text=passage))
            for position, passage, source in hits
        ],
    )
    read._label = label
    return read


def as_text(raw: Any) -> str:
    """What the agent reads of a spec function's return value."""
    if raw is None:
        return ""
    if isinstance(raw, str):
        return str.__str__(raw)
    if isinstance(raw, BaseNode):
        return raw.get_content()
    if isinstance(raw, list) and all(isinstance(item, BaseNode) for item in raw):
        return "\n\n".join(item.get_content() for item in raw)
    return str(raw)
