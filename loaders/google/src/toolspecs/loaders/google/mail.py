"""Reading RFC 822 mail as an agent should see it: decoded headers, a readable body, no MIME.

Gmail's ``format=raw`` gives the message exactly as sent. This module turns it into
``MailMessage``: headers decoded from RFC 2047, the ``text/plain`` part (else the HTML part
converted to text) decoded with its declared charset (with a fallback for charsets that
lie), and attachments listed by name, type and size instead of inlined.

Anyone can send a mail, so every step is bounded and linear in the size of the mail:

- the MIME structure: a mail that declares more than ``MAX_MIME_CONTAINERS`` multipart or
  message parts is read for its headers only (the standard library's parser recurses once
  per level and slows down with the depth, so the count is taken before it runs); at most
  ``MAX_PARTS`` parts are read;
- header values: at most ``MAX_HEADER_CHARS`` characters each are parsed;
- HTML: converted by libxml2 (lxml), which is linear where the standard library's
  ``HTMLParser`` is quadratic on some inputs (``<a<a<a…``, ``<!--<!--…``: minutes for a
  few hundred KB on CPython 3.11); at most ``MAX_HTML_CHARS`` of markup;
- the body shown: at most ``MAX_BODY_CHARS`` characters, then a note of what was cut.

Text that HTML hides from the reader (``display:none``, ``visibility:hidden``,
``font-size:0``, ``opacity:0``, ``mso-hide:all``, the ``hidden`` attribute) is left out of
the body, with a note of how much there was: it is where mails hide instructions meant
for agents. ``aria-hidden`` text is kept: people see it, only screen readers skip it.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesParser
from email.utils import getaddresses, parsedate_to_datetime
from typing import Any

MAX_BODY_CHARS = 50_000
"""Characters of one body shown; the rest is cut with a note."""
MAX_HTML_CHARS = 2_000_000
"""Characters of one HTML part converted to text."""
MAX_MIME_CONTAINERS = 64
"""Multipart and message parts a mail may declare and still have its body read."""
MAX_PARTS = 500
"""Parts of one mail read (attachments listed, text taken)."""
MAX_HEADER_CHARS = 16_000
"""Characters of one header value parsed."""

_BLOCKS = {
    "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol",
    "blockquote", "pre", "hr", "section", "article", "header", "footer",
}  # fmt: skip
_LINES = {"br": "\n", "tr": "\n", "li": "\n- ", "td": " ", "th": " "}  # at the start tag
_NOT_TEXT = {"script", "style", "head", "title", "template"}
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_ZERO = r"(?:0+(?:\.0*)?|\.0+)(?:[a-z]+|%)?\s*(?:!\s*important\s*)?(?:;|$)"


# Compiled on the first styled element, not at import: it costs about 1 ms to compile.
@functools.cache
def _hiding_style() -> re.Pattern[str]:
    return re.compile(
        r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
        rf"|mso-hide\s*:\s*all|font-size\s*:\s*{_ZERO}|opacity\s*:\s*{_ZERO})",
        re.I,
    )


_CHUNK = 256 * 1024
_SPACE_RUNS = re.compile("  +")


def _one_space(text: str) -> str:
    r"""Tabs, no-break spaces and runs of spaces as one space each.

    As ``re.sub(r"[ \t\u00a0]+", " ", text)``, 20 times quicker on mail: a class scanned
    at every character costs more than three substring searches and a literal-led regex.
    """
    if "\t" in text:
        text = text.replace("\t", " ")
    if "\u00a0" in text:
        text = text.replace("\u00a0", " ")
    return _SPACE_RUNS.sub(" ", text) if "  " in text else text


def hides_text(attributes: dict[str, str]) -> bool:
    """Whether an HTML element's attributes hide its text from a person reading the mail."""
    if "hidden" in attributes:
        return True
    style = attributes.get("style", "")
    return bool(style) and _hiding_style().search(_CSS_COMMENT.sub("", style)) is not None


class _TextFromHtml:
    """Visible text of an HTML mail, as an lxml parser target.

    Blocks become lines, links keep their address, hidden text is counted, not kept.
    """

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.size = 0
        self.hidden_chars = 0
        # One entry per open element: None, or what kind of hiding it does.
        self.open: list[str | None] = []
        self.not_text = 0
        self.hidden = 0
        self.link: str | None = None

    def _add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)

    def start(self, tag: str, attrib: Any) -> None:
        attributes = {str(k).lower(): str(v) for k, v in attrib.items()}
        kind = "not_text" if tag in _NOT_TEXT else "hidden" if hides_text(attributes) else None
        self.open.append(kind)
        if kind == "not_text":
            self.not_text += 1
        elif kind == "hidden":
            self.hidden += 1
        if self.not_text or self.hidden:
            return
        if tag in _BLOCKS:
            self._add("\n")
        self._add(_LINES.get(tag, ""))
        if tag == "a":
            self.link = attributes.get("href")
        if tag == "img" and attributes.get("alt"):
            self._add(f"[image: {attributes['alt']}]")

    def end(self, tag: str) -> None:
        kind = self.open.pop() if self.open else None
        if kind == "not_text":
            self.not_text -= 1
        elif kind == "hidden":
            self.hidden -= 1
        if self.not_text or self.hidden or kind:
            return
        if tag in _BLOCKS:
            self._add("\n")
        if tag == "a" and self.link:
            if (
                self.link.startswith(("http://", "https://"))
                and self.link not in (self.parts or [""])[-1]
            ):
                self._add(f" ({self.link})")
            self.link = None

    def data(self, data: str) -> None:
        if self.not_text:
            return
        if self.hidden:
            self.hidden_chars += len(data.strip())
        else:
            self._add(data)

    def close(self) -> None:
        return None


@dataclass
class HtmlText:
    """An HTML document as text, with what was left out of it."""

    text: str
    hidden_chars: int = 0
    cut_chars: int = 0


def convert_html(markup: str, limit: int = MAX_BODY_CHARS) -> HtmlText:
    """The visible text of ``markup``, converting until about ``limit`` characters of text.

    Linear in the input (libxml2's HTML parser, fed in chunks), and at most
    ``MAX_HTML_CHARS`` of markup are read. ``cut_chars`` counts the markup not read.
    """
    from lxml import etree  # here: about 8 ms of CPU at import, for HTML mail only

    # lxml refuses strings with lone surrogates, which a lying charset can leave behind.
    markup = markup.encode("utf-8", "replace").decode("utf-8")
    target = _TextFromHtml()
    parser = etree.HTMLParser(target=target, no_network=True, recover=True)
    read = 0
    try:
        while read < min(len(markup), MAX_HTML_CHARS) and target.size <= limit:
            parser.feed(markup[read : read + _CHUNK])
            read += _CHUNK
        parser.close()
    except etree.LxmlError:  # e.g. "Document is empty": what was read is the text
        pass
    return HtmlText(tidy("".join(target.parts)), target.hidden_chars, max(len(markup) - read, 0))


def html_to_text(markup: str) -> str:
    """Readable text of an HTML document: one line per block; no tags, scripts or hidden text."""
    return convert_html(markup, limit=MAX_HTML_CHARS).text


def conversation_subject(subject: str) -> str:
    """A subject as Gmail groups conversations: without ``Re:``/``Fwd:`` prefixes, any case."""
    return re.sub(r"^((re|fwd?|aw)\s*:\s*)+", "", subject.strip(), flags=re.I).lower()


def tidy(text: str) -> str:
    """Collapse the runs of spaces and blank lines that HTML and MIME leave behind."""
    lines = [line.strip() for line in _one_space(text).splitlines()]
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

    def describe(self) -> str:
        """``report.pdf (application/pdf, 12 KB)``."""
        return f"{self.filename} ({self.content_type}, {format_size(self.size)})"


@dataclass
class MailMessage:
    """One message, decoded: what an agent reads and what a draft update keeps.

    ``text`` and ``html`` are the parts whole (a draft update keeps them); ``body`` and
    :meth:`readable` are what a reader is shown: bounded, hidden text left out.
    ``notes`` say what could not be read (e.g. a MIME structure nested too deep).
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
        """The body to show (at most about ``limit`` characters) and notes on what was left out.

        The body is the plain text part, else the HTML part as text, without hidden text.
        The notes (ours, not the sender's) say how much was cut or hidden, and what of the
        mail could not be read.
        """
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


def address_pairs(value: str) -> list[tuple[str, str]]:
    """``(name, email)`` pairs of an address header, for any value (bounded, no recursion).

    The standard library's address parser recurses into nested comments (``((((…``), so
    a value with many of them is read with its parentheses as spaces.
    """
    value = value[:MAX_HEADER_CHARS]
    if value.count("(") > _MAX_PARENS:
        value = value.replace("(", " ").replace(")", " ")
    return getaddresses([value])


def _clip(text: str, limit: int) -> tuple[str, int]:
    """``text`` cut to about ``limit`` characters at a line or word end, and how much was cut."""
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


_MAX_PARENS = 64
# A Content-Type header (folded or not, comments allowed) of a part that holds parts.
_CONTAINER = re.compile(
    rb"^content-type:(?:[^\r\n]|\r?\n[ \t])*?(?:multipart|message)/", re.I | re.M
)


def mime_containers(source: bytes) -> int:
    """How many multipart or message parts ``source`` declares (a bound on its depth).

    Every level of nesting needs one (a ``multipart/digest`` part holds ``message`` parts
    by default, so the depth is at most twice this count plus one).
    """
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
    """The first value of each header, by lower-case name, each decoded when first read."""
    raw: dict[str, str] = {}
    for name, value in parsed.raw_items():
        raw.setdefault(str(name).lower(), str(value))
    return Headers(raw)


class Headers(Mapping[str, str]):
    """Header values by lower-case name, decoded (:func:`header_text`) on first read.

    A mail carries dozens of headers (``Received``, ``DKIM-Signature``, ...) and a reader
    shows five: only those are decoded.
    """

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
    """A raw header value as text: RFC 2047 words and 8-bit UTF-8 decoded, on one line.

    At most ``MAX_HEADER_CHARS`` characters are read; address headers are parsed as
    addresses (names quoted where needed) unless they nest more than a few comments;
    other headers only have their encoded words decoded (``email.header``), which is what
    the default policy's unstructured headers do, at a fraction of its cost.
    """
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
    """A plain list of addresses as the default policy writes it, or ``None``.

    Plain: each ``Name Words <local@domain>`` or ``local@domain`` (atoms only: no encoded
    words, comments, quotes, groups or 8-bit text), where the address parser would return
    the same text; anything else goes to the parser.
    """
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


def _walk(root: Message, mail: MailMessage) -> None:
    """Take the text and HTML parts and list the attachments, at most ``MAX_PARTS`` parts."""
    for seen, (part_id, part) in enumerate(_parts(root), 1):
        if seen > MAX_PARTS:
            mail.notes.append(f"the mail has more than {MAX_PARTS} parts; only those were read")
            return
        _take(part, mail, part_id)


def _parts(root: Message) -> Iterator[tuple[str, Message]]:
    """The leaf parts of ``root`` with Gmail's ``partId``, depth first, in order.

    Gmail numbers the parts of a multipart ``"0"``, ``"1"``…, and theirs ``"1.0"``…; the
    root is ``""``. Without recursion.
    """
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
    filename = _filename(part)
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


def _filename(part: Message) -> str:
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
    """A value the parser read from bytes, with its 8-bit bytes read as UTF-8."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def format_size(size: int) -> str:
    """``820 B``, ``12 KB``, ``3.4 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"
