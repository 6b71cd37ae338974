"""Reading RFC 822 mail as an agent should see it: decoded headers, a readable body, no MIME.

Anyone can send a mail, so every step is bounded and linear in its size: a mail declaring
more than ``MAX_MIME_CONTAINERS`` multipart or message parts is read for its headers only
(the standard library's parser recurses once per level, so the count is taken first); at
most ``MAX_PARTS`` parts, ``MAX_HEADER_CHARS`` of a header (decoded when read, addresses
parsed without the standard library's recursion into nested comments), ``MAX_HTML_CHARS``
of HTML by libxml2, hidden text left out (:mod:`.html_text`), and ``MAX_BODY_CHARS`` of
the body shown, then a note of what was cut.

Attachments are found in a message's ``format=full`` payload: readers show a part's
``partId`` and accept either it or Gmail's ``attachmentId`` (long, and it may change
between reads). Reading one is bounded: no download above :data:`MAX_ATTACHMENT_BYTES` (by
``body.size``, before any byte), PDFs read by the PDF loader's bounded child process, HTML
through the mail converter (hidden text left out), at most :data:`MAX_TEXT_CHARS` kept.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import mimetypes
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from typing import Any, Literal

from toolspecs.loaders.google.html_text import convert_html, tidy

MAX_HEADER_CHARS = 16_000
"""Characters of one header value parsed."""
_MAX_PARENS = 64


def address_pairs(value: str) -> list[tuple[str, str]]:
    """``(name, email)`` pairs of an address header, bounded."""
    value = value[:MAX_HEADER_CHARS]
    if value.count("(") > _MAX_PARENS:
        value = value.replace("(", " ").replace(")", " ")
    return getaddresses([value])


class Headers(Mapping[str, str]):
    """Header values by lower-case name, decoded on first read (a reader shows five of dozens)."""

    def __init__(self, raw: dict[str, str]) -> None:
        self._raw = raw
        self._decoded: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        value = self._decoded.get(key)
        if value is None:
            value = self._decoded[key] = header_text(key, self._raw[key])
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __repr__(self) -> str:
        return f"Headers({dict(self)!r})"


# Headers whose values are addresses: parsed as such (names quoted where needed).
ADDRESS_HEADERS = frozenset(
    {"from", "to", "cc", "bcc", "reply-to", "sender", "resent-from", "resent-to", "resent-cc"}
    | {"resent-bcc", "resent-sender"}
)


def header_text(name: str, raw: str) -> str:
    """A raw header value as text: RFC 2047 words and 8-bit UTF-8 decoded, on one line."""
    # 8-bit bytes come from the parser as surrogate escapes: they are UTF-8 (RFC 6532).
    value = _utf8(raw[:MAX_HEADER_CHARS])
    value = "".join(value.splitlines())
    if name in ADDRESS_HEADERS and value.count("(") <= _MAX_PARENS:
        simple = simple_addresses(value)
        if simple is not None:
            return simple
        # email.policy's default policy (its header registry and address parser, about
        # 2 ms) is imported here, for the addresses that need it, not with the module.
        from email.policy import default

        try:
            return " ".join(str(default.header_factory(name, value)).split())
        except (ValueError, LookupError, IndexError, TypeError, OverflowError, RecursionError):
            pass  # a malformed encoded word or address: the words as they are
    return decode_words(value)


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"


# Compiled on the first address header, not at import (about 0.4 ms).
@functools.cache
def _mailbox() -> re.Pattern[str]:
    return re.compile(
        rf"[ \t]*(?:(?P<name>(?:{_ATOM} )*{_ATOM})[ \t]*<(?P<addr>{_DOT_ATOM}@{_DOT_ATOM})>"
        rf"|(?P<bare>{_DOT_ATOM}@{_DOT_ATOM}))[ \t]*(?:,|$)"
    )


def simple_addresses(value: str) -> str | None:
    """A plain list of addresses as the default policy writes it, or ``None`` (then the parser)."""
    if "=?" in value or not value.strip():
        return None
    found = []
    position = 0
    while position < len(value):
        match = _mailbox().match(value, position)
        if match is None or match.end() == position:
            return None
        found.append(match["bare"] or f"{match['name']} <{match['addr']}>")
        position = match.end()
    return ", ".join(found) if value.rstrip()[-1:] != "," else None


def decode_words(value: str) -> str:
    """A header value with RFC 2047 encoded words (``=?UTF-8?B?...?=``) decoded."""
    if "=?" not in value:
        return " ".join(value.split())
    try:
        return " ".join(str(make_header(decode_header(value))).split())
    except (LookupError, UnicodeDecodeError, ValueError):
        return " ".join(value.split())


def part_filename(part: Message) -> str:
    """A part's file name, decoded, on one line; ``""`` if it has none."""
    try:
        name = part.get_filename()
    except (ValueError, LookupError, IndexError, TypeError):
        return "(unreadable name)"
    if not name:
        return ""
    # RFC 2231 names are decoded by the parser; RFC 2047 words in a name (not standard,
    # but common) are decoded here. Either may hold line breaks: the reader shows one line.
    return decode_words(_utf8(str(name)[:MAX_HEADER_CHARS]))


def _utf8(value: str) -> str:
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


MAX_BODY_CHARS = 50_000
"""Characters of one body shown; the rest is cut with a note."""
MAX_MIME_CONTAINERS = 64
"""Multipart and message parts a mail may declare and still have its body read."""
MAX_PARTS = 500
"""Parts of one mail read (attachments listed, text taken)."""


def conversation_subject(subject: str) -> str:
    """A subject as Gmail groups conversations: without ``Re:``/``Fwd:`` prefixes, any case."""
    return re.sub(r"^((re|fwd?|aw)\s*:\s*)+", "", subject.strip(), flags=re.I).lower()


def decode_part(part: Message) -> str:
    """A text part's content, decoded with its declared charset, else UTF-8, else Latin-1."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload() or "")
    return decode_bytes(payload, part.get_content_charset())


def decode_bytes(payload: bytes, declared: str | None = None) -> str:
    """Text bytes decoded with their declared charset, else UTF-8, else Latin-1."""
    for charset in (declared, "utf-8", "windows-1252", "latin-1"):
        if not charset:
            continue
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            continue
    return payload.decode("utf-8", errors="replace")  # not reached: latin-1 decodes anything


@dataclass
class Attachment:
    """A file attached to a message: listed, never inlined."""

    filename: str
    content_type: str
    size: int
    part_id: str = ""
    """Gmail's ``partId`` of the part (``"1"``, ``"1.2"``): its id for ``read_attachment``."""


@dataclass
class MailMessage:
    """One message, decoded: ``text`` and ``html`` whole (a draft update keeps them).

    ``body`` and :meth:`readable` are what a reader is shown: bounded, hidden text left out;
    ``notes`` say what could not be read.
    """

    headers: Mapping[str, str]
    text: str = ""
    html: str = ""
    attachments: list[Attachment] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def header(self, name: str) -> str:
        """A decoded header, or ``""``."""
        return self.headers.get(name.lower(), "")

    def readable(self, limit: int = MAX_BODY_CHARS) -> tuple[str, list[str]]:
        """The body shown (about ``limit`` characters; else the HTML as text) and our notes."""
        notes = list(self.notes)
        if self.text.strip():
            head = self.text[: 2 * limit]
            text, cut = _clip(tidy(head), limit)
            cut += len(self.text) - len(head)
        elif self.html:
            converted = convert_html(self.html, limit)
            text, cut = _clip(converted.text, limit)
            cut += converted.cut_chars
            if converted.hidden_chars:
                notes.append(
                    f"{converted.hidden_chars} characters of text the mail hides from its "
                    "reader (invisible in a mail program) were left out"
                )
        else:
            text, cut = "", 0
        if cut:
            notes.insert(0, f"the body was cut: {format_size(cut)} more (all of it is in Gmail)")
        return text, notes

    @property
    def body(self) -> str:
        """The readable body, bounded, with the notes of :meth:`readable` at its end."""
        text, notes = self.readable()
        return "\n\n".join([text, *(f"[{note}]" for note in notes)]).strip()

    def addresses(self, name: str) -> list[str]:
        """The addresses of an address header, each as ``Name <email>`` or ``email``."""
        pairs = address_pairs(self.header(name))
        return [f"{who} <{email}>" if who else email for who, email in pairs if email]

    def date(self) -> dt.datetime | None:
        """The Date header as an aware datetime (with the sender's offset), if readable."""
        raw = self.header("date")
        if not raw:
            return None
        try:
            moment = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def _clip(text: str, limit: int) -> tuple[str, int]:
    if len(text) <= limit:
        return text, 0
    end = text.rfind("\n", limit * 4 // 5, limit)
    if end < 0:
        end = text.rfind(" ", limit * 4 // 5, limit)
    if end < 0:
        end = limit
    return text[:end].rstrip(), len(text) - end


def decode_raw(raw: str | bytes) -> bytes:
    """The RFC 822 bytes of a Gmail ``raw`` field (base64url); ``b""`` if it is not base64."""
    data = raw.encode("ascii", "replace") if isinstance(raw, str) else raw
    try:
        return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        return b""


def parse_raw(raw: str | bytes) -> MailMessage:
    """A Gmail ``raw`` field (base64url of the RFC 822 bytes) as a ``MailMessage``."""
    return parse_bytes(decode_raw(raw))


# A Content-Type header (folded or not, comments allowed) of a part that holds parts.
_CONTAINER = re.compile(
    rb"^content-type:(?:[^\r\n]|\r?\n[ \t])*?(?:multipart|message)/", re.I | re.M
)


def mime_containers(source: bytes) -> int:
    """How many multipart or message parts ``source`` declares: a bound on its depth."""
    return sum(1 for _ in _CONTAINER.finditer(source))


def parse_bytes(source: bytes) -> MailMessage:
    """RFC 822 bytes as a ``MailMessage``, in time and depth bounded for any input."""
    containers = mime_containers(source)
    parsed: Message | None = None
    if containers <= MAX_MIME_CONTAINERS:
        try:
            # compat32 (the parser's documented default; email.policy, which spells it out,
            # costs 2 ms to import): headers stay raw (decoded below, one at a time and
            # bounded); the default policy parses Content-Type while it reads and recurses
            # into comments.
            parsed = BytesParser().parsebytes(source)
        except RecursionError:  # not expected under the bound above; kept as a last guard
            parsed = None
    if parsed is None:
        headers_only = BytesParser().parsebytes(source, headersonly=True)
        mail = MailMessage(headers=_headers(headers_only))
        mail.notes.append(
            f"the mail's MIME structure is nested too deep to read safely ({containers} "
            "multipart or message parts): its body and attachments were not read; the user "
            "can open it in Gmail"
        )
        return mail
    mail = MailMessage(headers=_headers(parsed))
    _walk(parsed, mail)
    return mail


def _headers(parsed: Message) -> Headers:
    raw: dict[str, str] = {}
    for name, value in parsed.raw_items():
        raw.setdefault(str(name).lower(), str(value))
    return Headers(raw)


def _walk(root: Message, mail: MailMessage) -> None:
    for seen, (part_id, part) in enumerate(_parts(root), 1):
        if seen > MAX_PARTS:
            mail.notes.append(f"the mail has more than {MAX_PARTS} parts; only those were read")
            return
        _take(part, mail, part_id)


def _parts(root: Message) -> Iterator[tuple[str, Message]]:
    stack: list[tuple[str, Message]] = [("", root)]
    while stack:
        part_id, part = stack.pop()
        if part.is_multipart():
            children = part.get_payload()
            if isinstance(children, list):
                prefix = f"{part_id}." if part_id else ""
                stack.extend(
                    (f"{prefix}{i}", c)
                    for i, c in reversed(list(enumerate(children)))
                    if isinstance(c, Message)
                )
        else:
            yield part_id, part


def _take(part: Message, mail: MailMessage, part_id: str = "") -> None:
    content_type = part.get_content_type()
    filename = part_filename(part)
    disposition = (part.get_content_disposition() or "").lower()
    if filename or disposition == "attachment" or part.get_content_maintype() not in {"text"}:
        if content_type.startswith("multipart/"):
            return
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        mail.attachments.append(Attachment(filename or "(unnamed)", content_type, size, part_id))
        return
    if content_type == "text/plain" and not mail.text:
        mail.text = decode_part(part)
    elif content_type == "text/html" and not mail.html:
        mail.html = decode_part(part)


def format_size(size: int) -> str:
    """``820 B``, ``12 KB``, ``3.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


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


def _payload_parts(payload: dict[str, Any]) -> Iterator[dict[str, Any]]:
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
    for part in _payload_parts(payload):
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
