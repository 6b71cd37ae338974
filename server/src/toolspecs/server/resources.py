"""Stored results as MCP resources: ``toolspecs://results/{tool}/{result_id}``.

The link names no user, session or token: it is read in the scope of the request that
reads it, as a call of the reader tool is, so elsewhere it names nothing (ids count per
owner, so the error is the same whether another owner has one). Not listed: each
caller's own and short-lived.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import mcp.shared.exceptions as errors
import mcp_types

from toolspecs.core.passages import Passages, utf8_size
from toolspecs.core.store import StoredResult

__all__ = [
    "MAX_READ_BYTES",
    "MIME_TYPE",
    "RESULTS_TEMPLATE",
    "not_found",
    "parse",
    "read_contents",
    "result_link",
    "result_uri",
    "stored_text",
    "template",
    "utf8_head",
]

# The most bytes of stored text one resources/read returns (then a note says it was cut).
MAX_READ_BYTES = 1024 * 1024
MIME_TYPE = "text/plain"
RESULTS_TEMPLATE = "toolspecs://results/{tool}/{result_id}"
# A tool name as MCP allows it, and a result id (1, 2, ... within its owner).
_URI = re.compile(r"toolspecs://results/([A-Za-z0-9_.-]{1,128})/([1-9][0-9]{0,17})")
# How the texts of a result stored from several documents are joined (as the agent read them).
_JOIN = "\n\n"


def result_uri(tool: str, result_id: int) -> str:
    """The link of result ``result_id`` of ``tool`` (the tool's served name)."""
    return f"toolspecs://results/{tool}/{result_id}"


def parse(uri: str) -> tuple[str, int] | None:
    """The tool and result id a link names, or ``None`` when it is not one of ours."""
    found = _URI.fullmatch(uri)
    return None if found is None else (found[1], int(found[2]))


def _texts(stored: StoredResult) -> Sequence[str]:
    passages = stored.passages
    # Both stores hold Passages; another sequence's passages are read one after another.
    return passages.texts if isinstance(passages, Passages) else list(passages)


def text_size(stored: StoredResult) -> int:
    """The UTF-8 bytes of the whole stored text, as :func:`stored_text` joins it."""
    texts = _texts(stored)
    return sum(utf8_size(text) for text in texts) + len(_JOIN) * max(len(texts) - 1, 0)


def result_link(
    tool: str, stored: StoredResult, read_tool: str, max_bytes: int = MAX_READ_BYTES
) -> mcp_types.ResourceLink:
    """The ``resource_link`` content block of a result ``tool`` stored."""
    size = text_size(stored)
    whole = (
        "The whole stored text"
        if size <= max_bytes
        else f"The stored text (a read returns its first {max_bytes:,} bytes)"
    )
    return mcp_types.ResourceLink(
        uri=result_uri(tool, stored.result_id),
        name=f"{tool}-result-{stored.result_id}",
        title=f"Result {stored.result_id} of {tool}",
        description=(
            f"{whole} of result {stored.result_id} of {tool}, readable in this session "
            f"(or by this user) only; {read_tool} searches it."
        ),
        mime_type=MIME_TYPE,
        size=size,
    )


def utf8_head(text: str, max_bytes: int) -> str:
    """The longest start of ``text`` of at most ``max_bytes`` UTF-8 bytes, whole characters."""
    room = max(max_bytes, 0)
    # A character is at least one byte: the first ``room`` characters hold the cut.
    return text[:room].encode("utf-8")[:room].decode("utf-8", "ignore")


def stored_text(stored: StoredResult, read_tool: str, max_bytes: int = MAX_READ_BYTES) -> str:
    """The stored text of a result, at most ``max_bytes`` of it, and a note when cut."""
    texts = _texts(stored)
    size = text_size(stored)
    room = max(max_bytes, 0)
    parts: list[str] = []
    for i, text in enumerate(texts):
        piece = text if i == 0 else _JOIN + text
        if room <= 0:
            break
        if len(piece) * 4 <= room:  # a character is at most 4 bytes: it fits whole
            parts.append(piece)
            room -= utf8_size(piece)
            continue
        head = utf8_head(piece, room)
        parts.append(head)
        room -= len(head.encode("utf-8"))
        if len(head) < len(piece):
            break
    shown = "".join(parts)
    notes = []
    kept = utf8_size(shown)
    if kept < size:
        notes.append(
            f"[... cut: this read returns the first {kept:,} bytes of the {size:,} stored. "
            f"To find a part of the rest, call {read_tool} with a query "
            f"(result_id={stored.result_id}).]"
        )
    if stored.size < stored.full_size:
        notes.append(
            f"[The store kept the first {stored.size:,} bytes of this {stored.full_size:,}-"
            "byte result: ask the tool for less to read the rest.]"
        )
    return "\n".join([shown, *notes]) if notes else shown


def read_contents(
    uri: str, stored: StoredResult, read_tool: str, max_bytes: int = MAX_READ_BYTES
) -> mcp_types.ReadResourceResult:
    """The answer to a ``resources/read`` of a stored result."""
    text = stored_text(stored, read_tool, max_bytes)
    contents = mcp_types.TextResourceContents(uri=uri, mime_type=MIME_TYPE, text=text)
    return mcp_types.ReadResourceResult(contents=[contents])


def not_found(uri: str) -> Exception:
    """The ``-32602`` error (as mcp's servers answer) of a read naming nothing of the caller's."""
    shown = uri if len(uri) <= 200 else uri[:200] + "..."
    return errors.MCPError(
        mcp_types.INVALID_PARAMS,
        f"No stored result of yours has the link {shown!r}. A stored result is read by the "
        "session (or the signed-in user) whose call stored it, while it is kept; call the "
        "tool again to store it anew.",
    )


def template() -> mcp_types.ResourceTemplate:
    """The form of a stored result's link, for ``resources/templates/list``."""
    return mcp_types.ResourceTemplate(
        uri_template=RESULTS_TEMPLATE,
        name="stored-result",
        title="A stored long result",
        description=(
            "The whole text of a tool result too long to show, by the link in that "
            "result; readable by the session or user whose call stored it."
        ),
        mime_type=MIME_TYPE,
    )
