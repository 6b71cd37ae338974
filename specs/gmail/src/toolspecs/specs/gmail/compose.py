"""Drafts as MIME: what ``create_draft`` and ``update_draft`` write, and read back.

Built with ``compat32`` MIME classes and headers encoded here: Python's newer folding can
drop a recipient after a non-ASCII name (``René <r@x>, bob@y`` lost ``bob@y`` on 3.11),
so every message is parsed back and its recipients compared before it leaves.
``update_draft`` edits the stored MIME: only what it was asked to change is rewritten.
Every agent-given header value goes through :func:`one_line`: a line break cannot start
a header of its own.
"""

from __future__ import annotations

import functools
import html as html_lib
import mimetypes
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from email import encoders
from email.header import Header
from email.message import Message
from email.parser import BytesParser
from email.utils import formataddr, getaddresses, make_msgid
from typing import TYPE_CHECKING, Any

from toolspecs.core import AskUser, fence
from toolspecs.loaders.google import GmailReader, MailMessage, html_to_text
from toolspecs.loaders.google.gmail import sender_address
from toolspecs.loaders.google.mail import (
    address_pairs,
    conversation_subject,
    decode_raw,
    format_size,
    parse_bytes,
)
from toolspecs.specs.google_base import parse_addresses

if TYPE_CHECKING:
    # email.mime and email.policy are imported where a draft is written (about 3 ms at
    # import, with the header registry): importing the spec does not write one.
    from email.mime.multipart import MIMEMultipart
    from email.mime.nonmultipart import MIMENonMultipart

_RE = re.compile(r"^\s*re\s*:", re.I)
_FWD = re.compile(r"^\s*(fwd?|fw)\s*:", re.I)
ATTACHMENTS_LIMIT = 25 * 1024 * 1024
"""Gmail's limit on what one message carries in attachments."""


@dataclass
class Draft:
    """The parts of a draft an agent controls; ``update_draft`` keeps the ones not given."""

    to: list[str] = field(default_factory=list)
    cc: list[str] = field(default_factory=list)
    bcc: list[str] = field(default_factory=list)
    subject: str = ""
    text: str = ""
    html: str = ""
    in_reply_to: str = ""
    references: str = ""
    thread_id: str | None = None
    # The attachment parts; None keeps a stored draft's (an update that names none).
    attachments: list[Message] | None = None
    # A stored draft: its MIME as Gmail keeps it, which an update edits in place, and
    # the fields the update changes.
    source: bytes = b""
    changed_fields: frozenset[str] = frozenset()
    mail: MailMessage | None = None

    @classmethod
    def from_mail(
        cls, mail: MailMessage, thread_id: str | None = None, source: bytes = b""
    ) -> Draft:
        """A stored draft, read back from its MIME (``source``, kept for updates)."""
        return cls(
            to=mail.addresses("to"),
            cc=mail.addresses("cc"),
            bcc=mail.addresses("bcc"),
            subject=mail.header("subject"),
            text=mail.text or (html_to_text(mail.html) if mail.html else ""),
            html=mail.html,
            in_reply_to=mail.header("in-reply-to"),
            references=mail.header("references"),
            thread_id=thread_id,
            source=source,
            mail=mail,
        )

    def changed(self, **fields: object) -> Draft:
        """A copy with the given fields replaced (``None`` means keep)."""
        given = {key: value for key, value in fields.items() if value is not None}
        if "text" in given and "html" not in given:
            given["html"] = ""  # an HTML part would still say the old text
        if "html" in given and "text" not in given:
            given["text"] = ""  # the plain part is made from the new HTML
        return replace(self, **given, changed_fields=self.changed_fields | set(given))  # type: ignore[arg-type]

    def recipients(self) -> list[str]:
        """Every address the draft goes to."""
        return [*self.to, *self.cc, *self.bcc]

    def mime_bytes(self) -> bytes:
        """The RFC 822 bytes (a stored ``source`` is edited: only ``changed_fields``)."""
        data = (self._edited() if self.source else self._built()).as_bytes()
        _check_recipients(data, self)
        return data

    def _body_part(self) -> MIMENonMultipart | MIMEMultipart:
        # Imported here, where a draft is written (see TYPE_CHECKING above).
        from email.mime.multipart import MIMEMultipart
        from email.mime.text import MIMEText

        text = self.text or (html_to_text(self.html) if self.html else "")
        if not self.html:
            return MIMEText(text, "plain", "utf-8")
        alternative = MIMEMultipart("alternative")
        alternative.attach(MIMEText(text, "plain", "utf-8"))
        alternative.attach(MIMEText(self.html, "html", "utf-8"))
        return alternative

    def _address_headers(self) -> dict[str, str]:
        return {
            "To": _address_header(self.to, "to"),
            "Cc": _address_header(self.cc, "cc"),
            "Bcc": _address_header(self.bcc, "bcc"),
        }

    def _edited(self) -> Message:
        # compat32 (the parser's documented default): every header comes back exactly as
        # it was stored.
        message = BytesParser().parsebytes(self.source)
        for name, value in self._address_headers().items():
            if name.lower() in self.changed_fields:
                _set_header(message, name, value)
        if "subject" in self.changed_fields:
            _set_header(message, "Subject", _encoded(one_line(self.subject)))
        if self.changed_fields & {"text", "html"}:
            _replace_body(message, self._body_part())
        if "attachments" in self.changed_fields:
            _set_attachments(message, self.attachments or [])
        return message

    def _built(self) -> Message:
        message: Message = self._body_part()
        if self.attachments:
            from email.mime.multipart import MIMEMultipart  # see TYPE_CHECKING above

            mixed = MIMEMultipart("mixed")
            for part in [message, *self.attachments]:
                mixed.attach(part)
            message = mixed
        for name, value in self._address_headers().items():
            if value:
                message[name] = value
        if self.subject:
            message["Subject"] = _encoded(one_line(self.subject))
        if self.in_reply_to:
            # Taken from the original mail, which anyone may have written.
            message["In-Reply-To"] = one_line(self.in_reply_to)
            message["References"] = one_line(self.references or self.in_reply_to)
        message["Message-ID"] = make_msgid(domain="toolspecs.draft")
        return message


def read_draft(resource: dict[str, Any]) -> Draft:
    """A stored draft from Gmail's ``Draft`` resource (its message in ``format=raw``)."""
    message = resource.get("message", {})
    source = decode_raw(message.get("raw", ""))
    return Draft.from_mail(parse_bytes(source), message.get("threadId"), source=source)


def prefixed(prefix: str, mark: re.Pattern[str], subject: str) -> str:
    """``<prefix>: <subject>`` unless it already starts with ``mark`` (Re:, Fwd:)."""
    subject = subject.strip() or "(no subject)"
    return subject if mark.match(subject) else f"{prefix}: {subject}"


# What ends a line in a header (and so could start a new header): CR, LF and the
# other breaks str.splitlines knows.
# Compiled on first use, not at import (about 0.5 ms).
@functools.cache
def _line_breaks() -> re.Pattern[str]:
    return re.compile("[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")


def one_line(value: str) -> str:
    """A header value on one line: a line break, which would start a new header, is a space."""
    return _line_breaks().sub(" ", value).strip()


def _encoded(value: str) -> str:
    return value if value.isascii() else Header(value, "utf-8").encode()


def _address_header(values: list[str], argument: str) -> str:
    # One line before parsing: the address parser ends a quoted name at a CR, so
    # '"B\rBcc: evil@x.com" <b@x.com>' would read as two addresses, evil@x.com one of them.
    pairs = parse_addresses([one_line(v) for v in values], argument) if values else []
    return ", ".join(formataddr((one_line(name), email), "utf-8") for name, email in pairs)


def _set_header(message: Message, name: str, value: str) -> None:
    if not value:
        del message[name]
    elif name in message:
        del message[name]
        message[name] = value
    else:
        message[name] = value


def _attachment(part: Message) -> bool:
    return bool(part.get_filename()) or part.get_content_disposition() == "attachment"


def _replace_body(message: Message, body: Message) -> None:
    if message.is_multipart() and message.get_content_type() != "multipart/alternative":
        parts = message.get_payload()
        assert isinstance(parts, list)
        for index, part in enumerate(parts):
            if isinstance(part, Message) and not _attachment(part):
                parts[index] = body
                return
        parts.insert(0, body)
        return
    # The whole draft is its body: the new one takes its place under the same headers.
    _become(message, body)


def file_part(filename: str, data: bytes) -> Message:
    """An attachment part for a file: its MIME type taken from its name, base64 inside."""
    kind, encoding = mimetypes.guess_type(filename, strict=False)
    if kind is None or encoding is not None:  # unknown, or compressed (.tar.gz): bytes
        kind = "application/octet-stream"
    main, _, sub = kind.partition("/")
    from email.mime.base import MIMEBase  # here, where a draft is written (see TYPE_CHECKING)

    part = MIMEBase(main, sub)
    part.set_payload(data)
    encoders.encode_base64(part)
    name = one_line(filename)
    # RFC 2231 for a name that is not ASCII (what mail programs read).
    part.add_header(
        "Content-Disposition",
        "attachment",
        filename=name if name.isascii() else ("utf-8", "", name),
    )
    return part


def attachment_parts(source: bytes) -> list[Message]:
    """The attachment parts of a stored message (``source``), as they are, in order."""
    message = BytesParser().parsebytes(source)  # compat32, the parser's default
    return [part for part in message.walk() if not part.is_multipart() and _attachment(part)]


def part_name(part: Message) -> str:
    """An attachment part's file name (``""`` when it has none)."""
    return one_line(str(part.get_filename() or ""))


def part_size(part: Message) -> int:
    """The decoded size of an attachment part, in bytes."""
    payload = part.get_payload(decode=True)
    return len(payload) if isinstance(payload, bytes) else 0


def _set_attachments(message: Message, parts: Sequence[Message]) -> None:
    if message.get_content_type() == "multipart/mixed":
        payload = message.get_payload()
        assert isinstance(payload, list)
        body = [p for p in payload if isinstance(p, Message) and not _attachment(p)]
    else:
        body = [_detached_body(message)]
    if not parts and len(body) == 1:
        _become(message, body[0])
        return
    from email.mime.multipart import MIMEMultipart  # where a draft is written (TYPE_CHECKING)

    mixed = MIMEMultipart("mixed")
    for part in [*body, *parts]:
        mixed.attach(part)
    _become(message, mixed)


def _detached_body(message: Message) -> Message:
    part = Message()
    for name, value in message.items():
        if name.lower().startswith("content-"):
            part[name] = value
    part.set_payload(message.get_payload())
    return part


def _become(message: Message, body: Message) -> None:
    for name in {n for n in message if n.lower().startswith("content-")}:
        del message[name]
    for name, value in body.items():
        if name.lower() != "mime-version":
            message[name] = value
    if "MIME-Version" not in message:
        message["MIME-Version"] = "1.0"
    message.set_payload(body.get_payload())


def _check_recipients(data: bytes, draft: Draft) -> None:
    from email.policy import default  # here, where a draft is written (see TYPE_CHECKING)

    # The headers alone: a draft's attachments (megabytes) need not be parsed again.
    parsed = BytesParser(policy=default).parsebytes(data, headersonly=True)
    for name, values in (("to", draft.to), ("cc", draft.cc), ("bcc", draft.bcc)):
        wanted = [email.lower() for _, email in getaddresses([one_line(v) for v in values])]
        found = [email.lower() for _, email in address_pairs(str(parsed.get(name, "")))]
        if sorted(filter(None, wanted)) != sorted(filter(None, found)):
            raise RuntimeError(f"The {name} header lost recipients: {wanted} became {found}.")


def make_reply(client: GmailReader, draft: Draft, message_id: str, subject: str | None) -> str:
    """Fill in thread, reply headers, recipients and subject; a note when the subject forks it."""
    original, mail = client.read(message_id)
    draft.thread_id = original.get("threadId")
    reference = mail.header("message-id")
    draft.in_reply_to = reference
    draft.references = " ".join(filter(None, [mail.header("references"), reference]))
    if not draft.to:
        mine = "SENT" in original.get("labelIds", [])
        draft.to = (
            mail.addresses("to") if mine else (mail.addresses("reply-to") or mail.addresses("from"))
        )
    if not subject:
        draft.subject = prefixed("Re", _RE, mail.header("subject"))
        return ""
    if conversation_subject(subject) != conversation_subject(mail.header("subject")):
        return (
            " Its subject differs from the original's, so Gmail may show it as a new "
            "conversation; leave subject out to keep the thread."
        )
    return ""


def make_forward(
    client: GmailReader, draft: Draft, message_id: str, subject: str | None
) -> tuple[list[Message], str]:
    """Quote the original below the draft's text, with its attachments (from its ``raw``)."""
    original = client.get_raw(message_id)
    source = decode_raw(original.get("raw", ""))
    mail = parse_bytes(source)
    lines = ["---------- Forwarded message ---------"]
    for name in ("From", "Date", "Subject", "To", "Cc"):
        if mail.header(name):
            lines.append(f"{name}: {mail.header(name)}")
    quoted = "\n".join(lines) + "\n\n" + (mail.text or html_to_text(mail.html)).strip()
    draft.text = f"{draft.text.rstrip()}\n\n{quoted}" if draft.text.strip() else quoted
    if draft.html:
        escaped = html_lib.escape(quoted)
        draft.html += f'<br><br><div style="white-space:pre-wrap">{escaped}</div>'
    draft.subject = subject or prefixed("Fwd", _FWD, mail.header("subject"))
    parts = attachment_parts(source)
    total = sum(part_size(part) for part in parts)
    if total > ATTACHMENTS_LIMIT:
        raise AskUser(
            f"Message {message_id}'s attachments take {format_size(total)}, over Gmail's "
            f"{format_size(ATTACHMENTS_LIMIT)} for one message, so it cannot be forwarded "
            "with them here.",
            "Do not retry: tell the user to forward it from Gmail (which links large files).",
        )
    kept = f" with its {len(parts)} attachment(s)" if parts else ""
    sender = fence.field(sender_address(mail.header("from")), 120)
    return parts, (
        f" It forwards message {message_id}{kept}: a mail from {sender}, "
        f"subject: {fence.field(mail.header('subject')) or '(no subject)'}."
    )
