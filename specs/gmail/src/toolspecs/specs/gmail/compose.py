"""Drafts as MIME: what ``create_draft`` and ``update_draft`` write, and read back.

Messages are built with the standard library's ``compat32`` MIME classes and headers
encoded here: Python's newer header folding can drop a recipient that follows a
non-ASCII name (``René <r@x>, bob@y`` lost ``bob@y`` on CPython 3.11), so every built
message is parsed back and its recipients compared before it leaves.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field, replace
from email import message_from_bytes, policy
from email.header import Header
from email.mime.multipart import MIMEMultipart
from email.mime.nonmultipart import MIMENonMultipart
from email.mime.text import MIMEText
from email.utils import formataddr, getaddresses, make_msgid

from toolspecs.loaders.google import MailMessage, html_to_text
from toolspecs.loaders.google.mail import conversation_subject
from toolspecs.specs.google_base import parse_addresses

_RE = re.compile(r"^\s*re\s*:", re.I)


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

    @classmethod
    def from_mail(cls, mail: MailMessage, thread_id: str | None = None) -> Draft:
        """A stored draft, read back from its MIME."""
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
        )

    def changed(self, **fields: object) -> Draft:
        """A copy with the given fields replaced (``None`` means keep)."""
        given = {key: value for key, value in fields.items() if value is not None}
        if "text" in given and "html" not in given:
            given["html"] = ""  # an HTML part would still say the old text
        return replace(self, **given)  # type: ignore[arg-type]

    def recipients(self) -> list[str]:
        """Every address the draft goes to."""
        return [*self.to, *self.cc, *self.bcc]

    def mime_bytes(self) -> bytes:
        """The RFC 822 bytes: plain text, or multipart/alternative with the HTML part.

        Raises:
            FixArguments: When an address is not an email address (all are named).
            RuntimeError: When the built message would not carry every recipient.
        """
        headers = {
            "To": _address_header(self.to, "to"),
            "Cc": _address_header(self.cc, "cc"),
            "Bcc": _address_header(self.bcc, "bcc"),
        }
        text = self.text or (html_to_text(self.html) if self.html else "")
        message: MIMENonMultipart | MIMEMultipart
        if self.html:
            message = MIMEMultipart("alternative")
            message.attach(MIMEText(text, "plain", "utf-8"))
            message.attach(MIMEText(self.html, "html", "utf-8"))
        else:
            message = MIMEText(text, "plain", "utf-8")
        for name, value in headers.items():
            if value:
                message[name] = value
        if self.subject:
            message["Subject"] = _encoded(one_line(self.subject))
        if self.in_reply_to:
            # Taken from the original mail, which anyone may have written.
            message["In-Reply-To"] = one_line(self.in_reply_to)
            message["References"] = one_line(self.references or self.in_reply_to)
        message["Message-ID"] = make_msgid(domain="toolspecs.draft")
        data = message.as_bytes()
        _check_recipients(data, self)
        return data

    def raw(self) -> str:
        """The MIME as Gmail's ``raw`` field (base64url)."""
        return base64.urlsafe_b64encode(self.mime_bytes()).decode("ascii")

    def body(self) -> dict[str, object]:
        """The ``Draft`` resource body of drafts.create/update."""
        message: dict[str, object] = {"raw": self.raw()}
        if self.thread_id:
            message["threadId"] = self.thread_id
        return {"message": message}


def reply_subject(subject: str) -> str:
    """``Re: <subject>`` unless it already starts with Re:."""
    subject = subject.strip() or "(no subject)"
    return subject if _RE.match(subject) else f"Re: {subject}"


def same_thread_subject(ours: str, theirs: str) -> bool:
    """Whether Gmail would see two subjects as the same conversation."""
    return conversation_subject(ours) == conversation_subject(theirs)


# What ends a line in a header (and so could start a new header): CR, LF and the
# other breaks str.splitlines knows.
_LINE_BREAKS = re.compile("[\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]+")


def one_line(value: str) -> str:
    """A header value on one line: a line break, which would start a new header, is a space."""
    return _LINE_BREAKS.sub(" ", value).strip()


def _encoded(value: str) -> str:
    return value if value.isascii() else Header(value, "utf-8").encode()


def _address_header(values: list[str], argument: str) -> str:
    pairs = parse_addresses(values, argument) if values else []
    return ", ".join(formataddr((one_line(name), email), "utf-8") for name, email in pairs)


def _check_recipients(data: bytes, draft: Draft) -> None:
    parsed = message_from_bytes(data, policy=policy.default)
    for name, values in (("to", draft.to), ("cc", draft.cc), ("bcc", draft.bcc)):
        wanted = [email.lower() for _, email in getaddresses(values)]
        found = [email.lower() for _, email in getaddresses([str(parsed.get(name, ""))])]
        if sorted(filter(None, wanted)) != sorted(filter(None, found)):
            raise RuntimeError(f"The {name} header lost recipients: {wanted} became {found}.")
