"""What the reading tools return: the data, built once from Gmail's resources, and its text.

What a sender wrote (subjects, snippets, bodies, names, file names) is
:class:`Quoted` in the data and fenced in the text; what only the text shows (a header
as written, a date with its zone's name, a Document's metadata) is private.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import html
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

from llama_index.core.schema import Document
from pydantic import Field, PrivateAttr

from toolspecs.core import fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Listing, Output, Quoted, Structure, quoted
from toolspecs.loaders.google import MailMessage
from toolspecs.loaders.google.gmail import (
    ADDRESS_LIMIT,
    MAX_ATTACHMENTS_SHOWN,
    mail_date,
    mail_moment,
    message_metadata,
    summary_headers,
)
from toolspecs.loaders.google.mail import AttachmentPart, AttachmentText, address_pairs, format_size
from toolspecs.specs.gmail.labels import EFFECTS, Change

_DATE = "ISO 8601, with the offset the text shows."
MAX_LABELS_SHOWN = 500


# -- people, files, times ---------------------------------------------------------------


class Address(Structure):
    """One person: the email address, and the display name they gave."""

    email: str | None = None
    name: Quoted | None = None

    @classmethod
    def all_of(cls, header: str) -> list[Address]:
        """The people of an address header: each address, and the name given (quoted)."""
        if not header:
            return []
        found = [
            cls(email=email, name=quoted(name or None))
            for name, email in address_pairs(header)
            if email
        ]
        return found or [cls(name=Quoted(text=header))]

    @classmethod
    def given(cls, values: list[str]) -> list[Address]:
        """The people of a draft's recipient list (``['Ada <ada@example.com>', ...]``)."""
        return [found for value in values for found in cls.all_of(value)]

    def shown(self) -> str:
        """``Ada Lovelace <ada@example.com>``, or the address alone, or the name alone."""
        if self.email is None:
            return self.name.text if self.name else ""
        return f"{self.name.text} <{self.email}>" if self.name else self.email


def sender_of(people: list[Address]) -> str:
    """The first sender's address (``ada@example.com``), else what the header said, short."""
    if people and people[0].email:
        return people[0].email
    return (people[0].shown()[:200] if people else "") or "an unknown sender"


def _when(
    mail: MailMessage, resource: dict[str, Any], tz: dt.tzinfo | None
) -> tuple[str | None, str]:
    moment = mail_moment(mail, resource)
    if moment is None:
        return None, "unknown"
    shown = mail_date(mail, resource, tz)
    if tz is not None:
        with contextlib.suppress(ValueError, OverflowError):  # as mail_date: its own offset
            moment = moment.astimezone(tz)
    return moment.isoformat(timespec="seconds"), shown


def _document(text: str, metadata: dict[str, Any]) -> Document:
    return Document(text=text, id_=f"gmail:{metadata.get('id', '')}", metadata=dict(metadata))


class File(Structure):
    """An attachment of a message or draft."""

    attachment_id: str | None = Field(default=None, description="Pass to read_attachment.")
    filename: Quoted
    mime_type: Quoted
    size: int = Field(description="Bytes.")
    uri: str | None = Field(
        default=None, description="Its text as an MCP resource, for resources/read."
    )

    @classmethod
    def all_of(cls, mail: MailMessage, ids: bool = False) -> tuple[list[File], int]:
        """The attachments shown (with their ids, ``ids``), and how many more there are."""
        shown = mail.attachments[:MAX_ATTACHMENTS_SHOWN]
        files = [
            cls(
                attachment_id=(a.part_id or None) if ids else None,
                filename=Quoted(text=a.filename),
                mime_type=Quoted(text=a.content_type),
                size=a.size,
            )
            for a in shown
        ]
        return files, len(mail.attachments) - len(shown)

    def shown(self) -> str:
        """``«Q4 report.pdf» (application/pdf, 3 KB) [attachment_id: 1]``, names fenced."""
        found = f" [attachment_id: {self.attachment_id}]" if self.attachment_id else ""
        return (
            f"{fence.field(self.filename.text, 200)} ({fence.field(self.mime_type.text, 100)}, "
            f"{format_size(self.size)}){found}"
        )


def files_shown(files: list[File], more: int | None) -> str:
    """Attachments on one line: each :meth:`File.shown`, then how many more."""
    return "; ".join(f.shown() for f in files) + (f"; and {more} more" if more else "")


# -- messages ---------------------------------------------------------------------------


class MessageSummary(Structure):
    """A search hit: ids, date, sender, subject and Gmail's snippet (no body)."""

    message_id: str
    thread_id: str
    date: str | None = Field(default=None, description=_DATE)
    sender: list[Address]
    subject: Quoted | None = None
    snippet: Quoted
    unread: bool
    size: int | None = Field(
        default=None, description="Bytes, for a message listed without its body."
    )
    _date: str = PrivateAttr(default="unknown")
    _metadata: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def of(
        cls, resource: dict[str, Any], tz: dt.tzinfo | None, size: int | None = None
    ) -> MessageSummary:
        """One hit from Gmail's ``format=metadata`` resource; ``size``: listed without body."""
        headers = summary_headers(resource)
        date, shown = _when(MailMessage(headers=headers), resource, tz)
        made = cls(
            message_id=str(resource.get("id", "?")),
            thread_id=str(resource.get("threadId", "?")),
            date=date,
            sender=Address.all_of(headers.get("from", "")),
            subject=quoted(headers.get("subject") or None),
            snippet=Quoted(text=html.unescape(str(resource.get("snippet", ""))[:2000])),
            unread="UNREAD" in resource.get("labelIds", []),
            size=size,
        )
        made._date = shown
        made._metadata = message_metadata(resource, headers)
        if size is not None:
            made._metadata["size"] = size
        return made

    def document(self) -> Document:
        """The hit in three lines: ids, date, from, subject and the snippet, quoted."""
        unread = " (unread)" if self.unread else ""
        emailed = [p.shown() for p in self.sender if p.email]
        sender = ", ".join(emailed) or (self.sender[0].shown() if self.sender else "?")
        subject = fence.field(self.subject.text if self.subject else "", 300) or "(no subject)"
        text = (
            f"[id: {self.message_id} | thread: {self.thread_id}]{unread} {self._date}\n"
            f"From: {fence.field(sender, 300)} | Subject: {subject}\n"
            f"Snippet (quoted mail): {fence.quote(self.snippet.text, 300)}"
        )
        return _document(text, self._metadata)


class Message(Structure):
    """A whole message: ids, headers, attachments and the body."""

    message_id: str
    thread_id: str
    sender: list[Address]
    to: list[Address] | None = None
    cc: list[Address] | None = None
    reply_to: list[Address] | None = None
    date: str | None = Field(default=None, description=_DATE)
    subject: Quoted | None = None
    labels: list[str] | None = Field(default=None, description="UNREAD and DRAFT, if set.")
    attachments: list[File] | None = None
    more_attachments: int | None = None
    body: Quoted
    notes: list[str] | None = None
    _headers: list[tuple[str, str]] = PrivateAttr(default_factory=list)
    _date: str = PrivateAttr(default="unknown")
    _metadata: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def of(cls, resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None) -> Message:
        """A message from Gmail's resource and its decoded content."""
        body, notes = mail.readable()
        files, more = File.all_of(mail, ids=True)
        date, shown = _when(mail, resource, tz)
        labels = [label for label in resource.get("labelIds", []) if label in {"UNREAD", "DRAFT"}]
        made = cls(
            message_id=str(resource.get("id", "?")),
            thread_id=str(resource.get("threadId", "?")),
            sender=Address.all_of(mail.header("from")),
            to=Address.all_of(mail.header("to")) or None,
            cc=Address.all_of(mail.header("cc")) or None,
            reply_to=Address.all_of(mail.header("reply-to")) or None,
            date=date,
            subject=quoted(mail.header("subject") or None),
            labels=labels or None,
            attachments=files or None,
            more_attachments=more or None,
            body=Quoted(text=body),
            notes=notes or None,
        )
        names = ("From", "To", "Cc", "Reply-To")
        made._headers = [(name, mail.header(name)) for name in names if mail.header(name)]
        made._date = shown
        made._metadata = message_metadata(resource, mail.headers)
        return made

    def text(self) -> str:
        """The message as the agent reads it: ids, headers, attachments, fenced body."""
        lines = [f"Message id: {self.message_id} (thread {self.thread_id})"]
        lines.extend(
            f"{name}: {fence.field(value, ADDRESS_LIMIT)}" for name, value in self._headers
        )
        lines.append(f"Date: {self._date}")
        subject = fence.field(self.subject.text if self.subject else "", 300)
        lines.append(f"Subject: {subject or '(no subject)'}")
        if self.labels:
            lines.append(f"Labels: {', '.join(self.labels)}")
        if self.attachments or self.more_attachments:
            lines.append(
                "Attachments: " + files_shown(self.attachments or [], self.more_attachments)
            )
        source = f"message {self.message_id} from {sender_of(self.sender)}"
        lines.append(fence.block(self.body.text, source, "mail body"))
        lines.extend(f"Note: {note}." for note in self.notes or [])
        return "\n".join(lines)

    def document(self) -> Document:
        """The message as a Document: :meth:`text`, the reader's id and metadata."""
        return _document(self.text(), self._metadata)


def messages_of(
    pairs: Iterable[tuple[dict[str, Any], MailMessage]], tz: dt.tzinfo | None
) -> list[Message]:
    """Whole messages, one held at a time (a pair is let go before the next is read)."""
    found = []
    for resource, mail in pairs:
        found.append(Message.of(resource, mail, tz))
        del resource, mail  # not held while the next one is fetched and parsed
    return found


class Mail(Listing):
    """Messages, newest first: whole (``body``) or as search hits (``snippet``)."""

    items_field: ClassVar[str] = "messages"

    query: str | None = None
    messages: list[Message | MessageSummary]
    next_step: str | None = None

    @classmethod
    def budgeted(
        cls,
        whole: list[Message],
        left_out: list[MessageSummary],
        query: str | None,
        read: str,
        most: int,
        largest: int,
    ) -> Mail:
        """Whole messages, and those listed without their body (``next_step`` says why and how)."""
        if not left_out:
            return cls(query=query, messages=list(whole))
        note = (
            f"{len(left_out)} of {len(whole) + len(left_out)} messages are listed "
            f"without their body: one call reads at most {format_size(most)} "
            f"of whole messages, none over {format_size(largest)}. {read}: "
            + ", ".join(str(m._metadata.get("id", "")) for m in left_out)
            + "."
        )
        return cls(query=query, messages=[*whole, *left_out], next_step=note)

    def reply(self) -> list[Document]:
        """A Document per message; the note on those without their body goes before them."""
        documents = []
        noted = False
        for message in self.messages:
            if isinstance(message, MessageSummary) and self.next_step and not noted:
                documents.append(Document(text=f"[{self.next_step}]"))
                noted = True
            documents.append(message.document())
        return documents


class MessageRead(Listing):
    """One whole message (get_message)."""

    message: Message

    def reply(self) -> Document:
        """The message's Document."""
        return self.message.document()


class Thread(Listing):
    """A conversation, oldest message first."""

    items_field: ClassVar[str] = "messages"

    thread_id: str
    given_message_id: str | None = Field(
        default=None, description="The message id given instead of the thread's."
    )
    message_count: int
    messages: list[Message]
    not_read: list[str] | None = Field(default=None, description="Ids of messages not shown.")
    why_not_read: str | None = None
    next_step: str | None = None
    _read: str = PrivateAttr(default="")
    _drafts: set[str] = PrivateAttr(default_factory=set)

    @classmethod
    def of(
        cls,
        thread_id: str,
        given: str,
        stubs: list[dict[str, Any]],
        messages: list[Message],
        shown: list[str],
        why: str,
        read: str,
    ) -> Thread:
        """The thread read: its messages in order, which were left out (``why``), what next."""
        rest = [str(m["id"]) for m in stubs[len(shown) :]]
        next_step = None
        if offered("create_draft"):
            last = shown[-1] if shown else "?"
            reply = f"{ref('create_draft')}(reply_to_message_id='{last}', ...)"
            next_step = f"Reply in this thread with {reply}."
        made = cls(
            thread_id=thread_id,
            given_message_id=given or None,
            message_count=len(stubs),
            messages=messages,
            not_read=rest or None,
            why_not_read=why if rest else None,
            next_step=next_step,
        )
        made._read = read
        made._drafts = {str(m["id"]) for m in stubs if "DRAFT" in (m.get("labelIds") or [])}
        return made

    def head(self) -> str:
        """The messages in order, which were left out, what next."""
        given = self.given_message_id
        note = f" ({given} is a message id: this is the thread that holds it)" if given else ""
        lines = [f"Thread {self.thread_id}{note}: {self.message_count} message(s), oldest first."]
        for number, message in enumerate(self.messages, 1):
            shown_id = message._metadata.get("id")
            draft = " (draft)" if str(shown_id) in self._drafts else ""
            date = fence.field(message._metadata.get("date"), 60)
            lines.append(
                f"{number}. [id: {shown_id}]{draft} {date}"
                f" from {fence.field(sender_of(message.sender), 120)}"
            )
        if self.not_read:
            rest = self.not_read
            shown = self.message_count - len(rest)
            more = ", ".join(rest[:10]) + (f" and {len(rest) - 10} more" if len(rest) > 10 else "")
            lines.append(
                f"Only the first {shown} messages are shown ({self.why_not_read}).{self._read}: "
                f"{more}."
            )
        if self.next_step:
            lines.append(f"Next: {self.next_step[0].lower()}{self.next_step[1:]}")
        return "\n".join(lines)

    def reply(self) -> list[Document]:
        """The head, then each message's Document."""
        return [Document(text=self.head()), *(m.document() for m in self.messages)]


class AttachmentRead(Listing):
    """The text of one attachment."""

    message_id: str
    attachment_id: str
    filename: Quoted
    mime_type: Quoted
    size: int = Field(description="Bytes.")
    pages: int | None = None
    sender: list[Address]
    text: Quoted
    notes: list[str] | None = None
    _metadata: dict[str, Any] = PrivateAttr(default_factory=dict)
    _part_id: str = PrivateAttr(default="")

    @classmethod
    def of(
        cls, message_id: str, part: AttachmentPart, read: AttachmentText, headers: dict[str, str]
    ) -> AttachmentRead:
        """The file ``part`` of a message (``headers``: its summary headers), as ``read``."""
        made = cls(
            message_id=message_id,
            attachment_id=part.part_id or part.filename,
            filename=Quoted(text=part.filename),
            mime_type=Quoted(text=part.mime_type),
            size=part.size,
            pages=read.pages or None,
            sender=Address.all_of(headers.get("from", "")),
            text=Quoted(text=read.text),
            notes=list(read.notes) or None,
        )
        made._part_id = part.part_id
        made._metadata = {"id": message_id, "from": headers.get("from", ""), "file": part.filename}
        return made

    def reply(self) -> Document:
        """Which file of which message, and its text fenced."""
        name = fence.field(self.filename.text, 200)
        sender = sender_of(self.sender)
        pages = f", {self.pages} page(s)" if self.pages else ""
        source = f"file {name} in message {self.message_id} from {sender}"
        kind = fence.field(self.mime_type.text, 100)
        lines = [
            f"Attachment {name} ({kind}, {format_size(self.size)}{pages}) "
            f"[attachment_id: {self._part_id or name}] "
            f"of message {self.message_id} from {fence.field(sender, 120)}",
            fence.block(self.text.text, source, "attachment"),
            *(f"Note: {note}." for note in self.notes or []),
        ]
        return Document(
            text="\n".join(lines),
            id_=f"gmail:{self.message_id}:{self._part_id}",
            metadata=dict(self._metadata),
        )


# -- labels -----------------------------------------------------------------------------


class Label(Structure):
    """One of the user's labels."""

    label_id: str
    name: Quoted


class Labels(Output):
    """The mailbox's labels."""

    system: list[str] = Field(description="System label ids; each is also its name.")
    labels: list[Label]
    more: int | None = Field(default=None, description="The user's labels not listed.")
    next_step: str | None = None

    @classmethod
    def of(cls, labels: list[dict[str, Any]], next_step: str) -> Labels:
        """Gmail's labels: the system ones' ids, the user's by name."""
        user = sorted(
            (x for x in labels if x.get("type") != "system"),
            key=lambda x: str(x.get("name", "")).casefold(),
        )
        return cls(
            system=sorted(str(x.get("id")) for x in labels if x.get("type") == "system"),
            labels=[
                Label(label_id=str(x.get("id")), name=Quoted(text=str(x.get("name", ""))))
                for x in user[:MAX_LABELS_SHOWN]
            ],
            more=max(len(user) - MAX_LABELS_SHOWN, 0) or None,
            next_step=next_step or None,
        )

    def reply(self) -> str:
        """The system labels' ids, the user's names with ids, what next."""
        lines = [f"System labels (id = name): {', '.join(self.system) or 'none'}."]
        if self.labels:
            lines.append(f"The user's labels ({len(self.labels) + (self.more or 0)}), name [id]:")
            lines.extend(
                f"- {fence.field(x.name.text, 200)} [{fence.field(x.label_id, 100)}]"
                for x in self.labels
            )
            if self.more:
                lines.append(f"... and {self.more} more.")
        else:
            lines.append("The user has no labels of their own.")
        if self.next_step:
            lines.append(self.next_step)
        return "\n".join(lines)


class LabelChange(Structure):
    """One label put on or taken off."""

    label_id: str
    name: Quoted
    action: Literal["added", "removed"]
    effect: str | None = Field(default=None, description="E.g. archived, marked read.")

    def shown(self) -> str:
        """``archived``, ``label «Receipts» added``..."""
        return self.effect or f"label {fence.quote(self.name.text, 100)} {self.action}"


class LabelsChanged(Output):
    """What modify_labels did, and how to undo it."""

    message_ids: list[str]
    changes: list[LabelChange]
    undo_add: list[str] | None = None
    undo_remove: list[str] | None = None
    next_step: str

    @classmethod
    def of(cls, ids: list[str], changes: list[Change]) -> LabelsChanged:
        """The ``changes`` made to messages ``ids``, and their reverse."""
        undo_add = [c.label_id for c in changes if c.sign < 0]
        undo_remove = [c.label_id for c in changes if c.sign > 0]
        undo = ", ".join(
            f"{verb}={found}"
            for verb, found in (("add", undo_add), ("remove", undo_remove))
            if found
        )
        return cls(
            message_ids=ids,
            changes=[
                LabelChange(
                    label_id=c.label_id,
                    name=Quoted(text=c.name),
                    action="added" if c.sign > 0 else "removed",
                    effect=EFFECTS.get((c.label_id, c.sign)),
                )
                for c in changes
            ],
            undo_add=undo_add or None,
            undo_remove=undo_remove or None,
            next_step=(
                f"Doing it again changes nothing. "
                f"The reverse, {ref('modify_labels')} with the same ids and {undo}, applies to "
                "every id given: it undoes this exactly only if they all had the same labels "
                "before. You can move on to the next step."
            ),
        )

    def reply(self) -> str:
        """What was done to which messages, and how to undo it."""
        ids = self.message_ids
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        done = "; ".join(c.shown() for c in self.changes)
        return f"{len(ids)} message(s) {done}: {shown}. {self.next_step}"
