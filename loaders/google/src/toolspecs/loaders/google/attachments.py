"""Attachments of a Gmail message: found in its ``format=full`` payload, read as text.

Readers show a part's ``partId`` and accept either it or Gmail's ``attachmentId`` (long,
and it may change between reads). Reading is bounded: no download above
:data:`MAX_ATTACHMENT_BYTES` (by ``body.size``, before any byte), PDFs read by the PDF
loader's bounded child process, HTML through the mail converter (hidden text left out),
at most :data:`MAX_TEXT_CHARS` kept.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from email.message import Message
from typing import Any, Literal

from toolspecs.loaders.google.html_text import convert_html
from toolspecs.loaders.google.mail import MAX_PARTS, _clip, decode_bytes

MAX_ATTACHMENT_BYTES = 10 * 2**20
"""Bytes of one attachment downloaded at most (Gmail takes up to 25 MB)."""
MAX_TEXT_CHARS = 500_000
"""Characters of one attachment's text kept (a 100-page report has about 300,000)."""

Kind = Literal["pdf", "html", "csv", "text"]
_TEXT_APPLICATIONS = {
    "application/json": "text",
    "application/xml": "text",
    "application/csv": "csv",
    "application/x-csv": "csv",
    "application/xhtml+xml": "html",
    "application/pdf": "pdf",
    "application/x-pdf": "pdf",
}
# Types that say nothing of the content: the file name's extension decides.
_GENERIC = {"application/octet-stream", "application/x-download", "binary/octet-stream", ""}


@dataclass(frozen=True)
class AttachmentPart:
    """One attachment as Gmail's ``format=full`` payload describes it."""

    part_id: str
    filename: str
    mime_type: str
    size: int
    attachment_id: str = ""
    data: str = ""
    """The content (base64url) when Gmail put it inline instead of giving an id."""
    charset: str = ""


def _header(part: dict[str, Any], name: str) -> str:
    for header in part.get("headers") or []:
        if str(header.get("name", "")).lower() == name:
            return str(header.get("value", ""))
    return ""


def _walk(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    stack = [payload]
    seen = 0
    while stack and seen < MAX_PARTS:
        part = stack.pop()
        children = part.get("parts")
        if isinstance(children, list) and children:
            stack.extend(c for c in reversed(children) if isinstance(c, dict))
            continue
        seen += 1
        yield part


def attachment_parts(payload: dict[str, Any]) -> list[AttachmentPart]:
    """The attachments of a ``format=full`` payload: named, marked so, or not text."""
    found = []
    for part in _walk(payload):
        mime = str(part.get("mimeType", "")).lower()
        filename = str(part.get("filename", ""))
        disposition = _header(part, "content-disposition").lower()
        if not (filename or disposition.startswith("attachment") or not mime.startswith("text/")):
            continue
        body = part.get("body") or {}
        holder = Message()
        holder["content-type"] = _header(part, "content-type") or mime
        found.append(
            AttachmentPart(
                part_id=str(part.get("partId", "")),
                filename=filename or "(unnamed)",
                mime_type=mime,
                size=int(body.get("size") or 0),
                attachment_id=str(body.get("attachmentId", "")),
                data=str(body.get("data", "")),
                charset=holder.get_content_charset() or "",
            )
        )
    return found


def find_attachment(parts: list[AttachmentPart], wanted: str) -> AttachmentPart | None:
    """The part ``wanted`` names: its ``partId``, Gmail's ``attachmentId``, or its file name."""
    wanted = wanted.strip()
    if not wanted:
        return None
    for part in parts:
        if wanted in (part.part_id, part.attachment_id):
            return part
    folded = wanted.casefold()
    return next((part for part in parts if part.filename.casefold() == folded), None)


def kind_of(mime_type: str, filename: str) -> Kind | None:
    """How an attachment is read as text, or None when it is not text we read."""
    mime = mime_type.lower().split(";")[0].strip()
    if mime in _GENERIC:
        mime = (mimetypes.guess_type(filename)[0] or "").lower()
    if mime == "text/html":
        return "html"
    if mime == "text/csv":
        return "csv"
    if mime.startswith("text/"):
        return "text"
    kind = _TEXT_APPLICATIONS.get(mime)
    return kind  # type: ignore[return-value]


def decode_data(data: str) -> bytes | None:
    """Gmail's base64url content as bytes, or None when it is not base64."""
    try:
        return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return None


@dataclass
class AttachmentText:
    """The text read from an attachment, and our notes on what was left out."""

    text: str
    notes: list[str] = field(default_factory=list)
    pages: int | None = None


def attachment_text(
    content: bytes,
    kind: Kind,
    charset: str = "",
    seconds: float = 20.0,
    read_pdf: Callable[..., Any] | None = None,
) -> AttachmentText:
    """The text of an attachment's bytes, bounded (``read_pdf``: the PDF loader's reader)."""
    notes: list[str] = []
    pages = None
    if kind == "pdf":
        if read_pdf is None:
            return AttachmentText("", ["no PDF reader is installed"])
        read = read_pdf(content, seconds=seconds, max_chars=MAX_TEXT_CHARS)
        if read.error:
            return AttachmentText("", [f"the PDF could not be read: {read.error}"])
        pages = read.page_count
        text = "\n\n".join(
            f"[page {number}]\n{page.strip()}" for number, page in enumerate(read.pages, 1)
        )
        if read.stopped:
            notes.append(f"only part of the PDF was read: {read.stopped}")
        if not any(page.strip() for page in read.pages):
            notes.append("the PDF has no text layer (a scan?): its pages are images")
    else:
        text = decode_bytes(content, charset).replace("\r\n", "\n").replace("\r", "\n")
        if kind == "html":
            converted = convert_html(text, MAX_TEXT_CHARS)
            text = converted.text
            if converted.hidden_chars:
                notes.append(
                    f"{converted.hidden_chars} characters of text the HTML hides from its "
                    "reader were left out"
                )
    text, cut = _clip(text, MAX_TEXT_CHARS)
    if cut:
        notes.insert(0, f"the text was cut at {MAX_TEXT_CHARS:,} characters ({cut:,} more)")
    return AttachmentText(text, notes, pages)
