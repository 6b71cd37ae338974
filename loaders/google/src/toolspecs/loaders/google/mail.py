"""Reading RFC 822 mail as an agent should see it: decoded headers, a readable body, no MIME.

Gmail's ``format=raw`` gives the message exactly as sent. This module turns it into
``MailMessage``: headers decoded from RFC 2047, the ``text/plain`` part (else the HTML part
converted to text) decoded with its declared charset (with a fallback for charsets that
lie), and attachments listed by name, type and size instead of inlined.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import Message
from email.utils import getaddresses, parsedate_to_datetime
from html.parser import HTMLParser

_BLOCKS = {
    "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
    "blockquote", "pre", "hr", "section", "article", "header", "footer",
}  # fmt: skip
_LINES = {"br": "\n", "tr": "\n", "li": "\n- ", "td": " ", "th": " "}  # at the start tag
_HIDDEN = {"script", "style", "head", "title", "template"}


class _TextFromHtml(HTMLParser):
    """Visible text of an HTML mail: blocks become lines, links keep their address."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.hidden = 0
        self.link: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _BLOCKS:
            self.parts.append("\n")
        self.parts.append(_LINES.get(tag, ""))
        if tag == "a":
            self.link = dict(attrs).get("href")
        if tag == "img" and not self.hidden:
            alt = dict(attrs).get("alt")
            if alt:
                self.parts.append(f"[image: {alt}]")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")
        if tag == "a" and self.link:
            if self.link.startswith(("http://", "https://")) and self.link not in self.parts[-1]:
                self.parts.append(f" ({self.link})")
            self.link = None

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """Readable text of an HTML document: no tags, scripts or styles; one line per block."""
    parser = _TextFromHtml()
    parser.feed(markup)
    parser.close()
    return tidy("".join(parser.parts))


def conversation_subject(subject: str) -> str:
    """A subject as Gmail groups conversations: without ``Re:``/``Fwd:`` prefixes, any case."""
    return re.sub(r"^((re|fwd?|aw)\s*:\s*)+", "", subject.strip(), flags=re.I).lower()


def tidy(text: str) -> str:
    """Collapse the runs of spaces and blank lines that HTML and MIME leave behind."""
    lines = [re.sub(r"[ \t\u00a0]+", " ", line).strip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()


def decode_part(part: Message) -> str:
    """A text part's content, decoded with its declared charset, else UTF-8, else Latin-1."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return str(part.get_payload() or "")
    declared = part.get_content_charset()
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

    def describe(self) -> str:
        """``report.pdf (application/pdf, 12 KB)``."""
        return f"{self.filename} ({self.content_type}, {format_size(self.size)})"


@dataclass
class MailMessage:
    """One message, decoded: what an agent reads and what a draft update keeps."""

    headers: dict[str, str]
    text: str = ""
    html: str = ""
    attachments: list[Attachment] = field(default_factory=list)

    def header(self, name: str) -> str:
        """A decoded header, or ``""``."""
        return self.headers.get(name.lower(), "")

    @property
    def body(self) -> str:
        """The readable body: the plain text part, else the HTML part as text."""
        if self.text.strip():
            return tidy(self.text)
        return html_to_text(self.html) if self.html else ""

    def addresses(self, name: str) -> list[str]:
        """The addresses of an address header, each as ``Name <email>`` or ``email``."""
        pairs = getaddresses([self.header(name)])
        return [f"{who} <{email}>" if who else email for who, email in pairs if email]

    def date(self) -> dt.datetime | None:
        """The Date header as an aware datetime (with the sender's offset), if readable."""
        raw = self.header("date")
        if not raw:
            return None
        try:
            moment = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)


def parse_raw(raw: str | bytes) -> MailMessage:
    """A Gmail ``raw`` field (base64url of the RFC 822 bytes) as a ``MailMessage``."""
    data = raw.encode("ascii") if isinstance(raw, str) else raw
    try:
        source = base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))
    except (binascii.Error, ValueError):
        source = b""
    return parse_bytes(source)


def parse_bytes(source: bytes) -> MailMessage:
    """RFC 822 bytes as a ``MailMessage``."""
    parsed = message_from_bytes(source, policy=policy.default)
    headers = {}
    for name in parsed:
        key = name.lower()
        if key not in headers:
            headers[key] = _header_text(parsed, name)
    mail = MailMessage(headers=headers)
    _walk(parsed, mail)
    return mail


def _header_text(parsed: Message, name: str) -> str:
    try:
        return " ".join(str(parsed.get(name, "")).split())
    except (ValueError, LookupError, IndexError):  # a malformed encoded word
        raw = parsed.get_all(name) or [""]
        return " ".join(str(raw[0]).split())


def _walk(part: Message, mail: MailMessage) -> None:
    if part.is_multipart():
        children = part.get_payload()
        for child in children if isinstance(children, list) else []:
            if isinstance(child, Message):
                _walk(child, mail)
        return
    content_type = part.get_content_type()
    filename = _filename(part)
    disposition = (part.get_content_disposition() or "").lower()
    if filename or disposition == "attachment" or part.get_content_maintype() not in {"text"}:
        if content_type.startswith("multipart/"):
            return
        payload = part.get_payload(decode=True)
        size = len(payload) if isinstance(payload, bytes) else 0
        mail.attachments.append(Attachment(filename or "(unnamed)", content_type, size))
        return
    if content_type == "text/plain" and not mail.text:
        mail.text = decode_part(part)
    elif content_type == "text/html" and not mail.html:
        mail.html = decode_part(part)


def _filename(part: Message) -> str:
    try:
        return str(part.get_filename() or "")
    except (ValueError, LookupError, IndexError):
        return "(unreadable name)"


def format_size(size: int) -> str:
    """``820 B``, ``12 KB``, ``3.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"
