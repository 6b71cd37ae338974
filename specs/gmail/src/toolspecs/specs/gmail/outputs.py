"""What the Gmail tools return as data (``structuredContent``), beside the text.

The same facts as the text of :mod:`toolspecs.specs.gmail.render`, built beside it by
:mod:`toolspecs.specs.gmail.facts`: ids, times (ISO 8601 with the offset the text
shows), people, files, what a write changed and the next step. Whatever the text fences
as a sender's words (subjects, snippets, bodies, display names, file names, label names)
is a :class:`Quoted` here.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from toolspecs.core.structured import Listing, Quoted, Structure

__all__ = [
    "Address",
    "AttachmentRead",
    "DraftSaved",
    "DraftSent",
    "DraftShown",
    "Drafts",
    "File",
    "Forwarded",
    "Label",
    "LabelChange",
    "Labels",
    "LabelsChanged",
    "Mail",
    "Message",
    "MessageRead",
    "MessageSummary",
    "SavedFile",
    "Thread",
]

_DATE = "ISO 8601, with the offset the text shows."


class Address(Structure):
    """One person: the email address, and the display name they gave."""

    email: str | None = None
    name: Quoted | None = None


class File(Structure):
    """An attachment of a message or draft."""

    attachment_id: str | None = Field(default=None, description="Pass to read_attachment.")
    filename: Quoted
    mime_type: Quoted
    size: int = Field(description="Bytes.")
    uri: str | None = Field(
        default=None, description="Its text as an MCP resource, for resources/read."
    )


class SavedFile(Structure):
    """A file a saved or sent draft carries."""

    filename: Quoted
    size: int = Field(description="Bytes.")


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


class Mail(Listing):
    """Messages, newest first: whole (``body``) or as search hits (``snippet``)."""

    items_field: ClassVar[str] = "messages"

    query: str | None = None
    messages: list[Message | MessageSummary]
    next_step: str | None = None


class MessageRead(Listing):
    """One whole message (get_message)."""

    message: Message


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


class Label(Structure):
    """One of the user's labels."""

    label_id: str
    name: Quoted


class Labels(Structure):
    """The mailbox's labels."""

    system: list[str] = Field(description="System label ids; each is also its name.")
    labels: list[Label]
    more: int | None = Field(default=None, description="The user's labels not listed.")
    next_step: str | None = None


class LabelChange(Structure):
    """One label put on or taken off."""

    label_id: str
    name: Quoted
    action: Literal["added", "removed"]
    effect: str | None = Field(default=None, description="E.g. archived, marked read.")


class LabelsChanged(Structure):
    """What modify_labels did, and how to undo it."""

    message_ids: list[str]
    changes: list[LabelChange]
    undo_add: list[str] | None = None
    undo_remove: list[str] | None = None
    next_step: str


class DraftShown(Structure):
    """A draft: its id, recipients, subject, thread, attachments and body."""

    draft_id: str
    message_id: str
    to: list[Address]
    cc: list[Address] | None = None
    bcc: list[Address] | None = None
    reply_to: list[Address] | None = None
    subject: Quoted | None = None
    reply_in_thread: str | None = None
    attachments: list[File] | None = None
    more_attachments: int | None = None
    body: Quoted | None = None
    first_lines: list[Quoted] | None = None
    more_lines: bool | None = None
    notes: list[str] | None = None


class Drafts(Listing):
    """Drafts, newest first (``first_lines`` of each body)."""

    items_field: ClassVar[str] = "drafts"

    drafts: list[DraftShown]
    next_step: str | None = None


class Forwarded(Structure):
    """The mail a draft forwards."""

    message_id: str | None = None
    sender: Quoted | None = None
    subject: Quoted | None = None
    attachments: int | None = None


class DraftSaved(Structure):
    """What create_draft or update_draft saved."""

    action: Literal["created", "updated"]
    account: str | None = None
    draft_id: str
    message_id: str | None = None
    thread_id: str | None = None
    reply_in_thread: str | None = None
    to: list[Address]
    cc: list[Address] | None = None
    bcc: list[Address] | None = None
    subject: Quoted | None = None
    empty_body: bool | None = None
    attachments: list[SavedFile] | None = None
    removed_attachments: list[Quoted] | None = None
    forwards: Forwarded | None = None
    note: str | None = None
    next_step: str


class DraftSent(Structure):
    """What send_draft sent."""

    draft_id: str
    account: str | None = None
    message_id: str
    thread_id: str
    to: list[Address]
    cc: list[Address] | None = None
    bcc: list[Address] | None = None
    subject: Quoted | None = None
    attachments: list[SavedFile]
    next_step: str
