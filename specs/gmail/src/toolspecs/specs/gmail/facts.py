"""The facts of the Gmail replies as data: people, files, times, Documents that carry them.

Each tool's result (:mod:`toolspecs.specs.gmail.outputs`) is built here;
:mod:`toolspecs.specs.gmail.render` writes each reply's text from the same values and
pairs it with that data.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterable
from email.message import Message
from typing import Any

from llama_index.core.schema import Document
from pydantic import PrivateAttr

from toolspecs.core.structured import Quoted, Structure, quoted
from toolspecs.loaders.google import MailMessage
from toolspecs.loaders.google.attachments import AttachmentPart, AttachmentText
from toolspecs.loaders.google.gmail_text import MAX_ATTACHMENTS_SHOWN, mail_moment, sender_address
from toolspecs.loaders.google.headers import address_pairs
from toolspecs.specs.gmail import outputs
from toolspecs.specs.gmail.compose import Draft, part_name, part_size
from toolspecs.specs.gmail.labels import EFFECTS, Change


class StructuredDocument(Document):
    """A ``Document`` that carries its facts as data (``.structured``), beside its text.

    A private attribute: not part of the Document's fields, metadata or serialization.
    """

    _structured: Structure | None = PrivateAttr(default=None)

    @property
    def structured(self) -> Structure | None:
        """The data this Document's text shows."""
        return self._structured


def carrying(document: Document, data: Structure) -> StructuredDocument:
    """``document`` as a :class:`StructuredDocument` carrying ``data``."""
    fields: dict[str, Any] = {
        "text": document.text,
        "id_": document.id_,
        "metadata": dict(document.metadata),
    }
    made = StructuredDocument(**fields)
    made._structured = data
    return made


def carried_data(documents: Iterable[Document]) -> list[Any]:
    """The data each of ``documents`` carries (those that carry none are skipped)."""
    found = (getattr(d, "structured", None) for d in documents)
    return [data for data in found if data is not None]


def mail_iso(mail: MailMessage, resource: dict[str, Any], tz: dt.tzinfo | None) -> str | None:
    """The instant ``mail_date`` shows, as ISO 8601 in the zone it shows (else ``None``)."""
    moment = mail_moment(mail, resource)
    if moment is None:
        return None
    if tz is not None:
        with contextlib.suppress(ValueError, OverflowError):  # as mail_date: its own offset
            moment = moment.astimezone(tz)
    return moment.isoformat(timespec="seconds")


def addresses_of(header: str) -> list[outputs.Address]:
    """The people of an address header: each address, and the name given (quoted)."""
    if not header:
        return []
    found = [
        outputs.Address(email=email, name=quoted(name or None))
        for name, email in address_pairs(header)
        if email
    ]
    return found or [outputs.Address(name=Quoted(text=header))]


def addresses_given(values: list[str]) -> list[outputs.Address]:
    """The people of a draft's recipient list (``['Ada <ada@example.com>', ...]``)."""
    return [found for value in values for found in addresses_of(value)]


def files_of(mail: MailMessage, ids: bool = False) -> tuple[list[outputs.File], int]:
    """The attachments ``render.attachments_text`` shows, and how many more it counts."""
    shown = mail.attachments[:MAX_ATTACHMENTS_SHOWN]
    files = [
        outputs.File(
            attachment_id=(a.part_id or None) if ids else None,
            filename=Quoted(text=a.filename),
            mime_type=Quoted(text=a.content_type),
            size=a.size,
        )
        for a in shown
    ]
    return files, len(mail.attachments) - len(shown)


def saved_files(parts: list[Message]) -> list[outputs.SavedFile]:
    """The files ``render.carried`` names, as data."""
    return [
        outputs.SavedFile(filename=Quoted(text=part_name(p) or "(no name)"), size=part_size(p))
        for p in parts
    ]


def message_data(
    resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None
) -> outputs.Message:
    """The facts of ``render.message_text`` as data: a whole message."""
    body, notes = mail.readable()
    files, more = files_of(mail, ids=True)
    return outputs.Message(
        message_id=str(resource.get("id", "?")),
        thread_id=str(resource.get("threadId", "?")),
        sender=addresses_of(mail.header("from")),
        to=addresses_of(mail.header("to")) or None,
        cc=addresses_of(mail.header("cc")) or None,
        reply_to=addresses_of(mail.header("reply-to")) or None,
        date=mail_iso(mail, resource, tz),
        subject=quoted(mail.header("subject") or None),
        labels=[label for label in resource.get("labelIds", []) if label in {"UNREAD", "DRAFT"}]
        or None,
        attachments=files or None,
        more_attachments=more or None,
        body=Quoted(text=body),
        notes=notes or None,
    )


def summary_data(
    resource: dict[str, Any],
    mail: MailMessage,
    snippet: str,
    tz: dt.tzinfo | None,
    size: int | None = None,
) -> outputs.MessageSummary:
    """The facts of ``render.summary_document`` as data: one search hit."""
    return outputs.MessageSummary(
        message_id=str(resource.get("id", "?")),
        thread_id=str(resource.get("threadId", "?")),
        date=mail_iso(mail, resource, tz),
        sender=addresses_of(mail.header("from")),
        subject=quoted(mail.header("subject") or None),
        snippet=Quoted(text=snippet),
        unread="UNREAD" in resource.get("labelIds", []),
        size=size,
    )


def message_read(document: Document) -> outputs.MessageRead:
    """get_message's data: the message its Document carries."""
    data = getattr(document, "structured", None)
    if not isinstance(data, outputs.Message):
        raise TypeError(f"get_message returned a Document without its message: {document!r}")
    return outputs.MessageRead(message=data)


def mail_data(
    documents: list[Document], query: str | None = None, next_step: str | None = None
) -> outputs.Mail:
    """load_data's and search_messages' data: the messages their Documents carry."""
    return outputs.Mail(query=query, messages=carried_data(documents), next_step=next_step)


FORWARD_MARK = "---------- Forwarded message ---------"


def forward_fields(text: str) -> dict[str, str] | None:
    """The From and Subject of the mail a draft's body forwards (``None``: it forwards none)."""
    _, mark, rest = text.partition(FORWARD_MARK)
    if not mark:
        return None
    fields: dict[str, str] = {}
    for line in rest.strip().splitlines()[:6]:
        name, colon, value = line.partition(": ")
        if colon and name in ("From", "Subject"):
            fields.setdefault(name, value)
    return fields


def forwarded_data(
    text: str, message_id: str | None = None, attachments: int | None = None
) -> outputs.Forwarded:
    """The mail a draft's body forwards, as data."""
    fields = forward_fields(text) or {}
    sender = sender_address(fields["From"]) if fields.get("From") else None
    return outputs.Forwarded(
        message_id=message_id,
        sender=quoted(sender),
        subject=quoted(fields.get("Subject") or None),
        attachments=attachments if message_id else None,
    )


def saved_data(
    verb: str,
    saved: dict[str, Any],
    draft: Draft,
    parts: list[Message] | None,
    note: str,
    next_step: str,
    *,
    account_name: str | None,
    in_thread: bool,
    removed: list[str] | None,
    forward: tuple[str, int] | None,
) -> outputs.DraftSaved:
    """The facts of ``render.saved_text`` as data (its arguments, and the parts carried)."""
    forwards = None
    if " forwards message " not in note:  # create_draft's note names the forward
        if forward_fields(draft.text) is not None:
            forwards = forwarded_data(draft.text)
    elif forward is not None:
        forwards = forwarded_data(draft.text, *forward)
    message = saved.get("message", {})
    thread = message.get("threadId")
    return outputs.DraftSaved(
        action="created" if verb == "created" else "updated",
        account=account_name,
        draft_id=str(saved.get("id", "?")),
        message_id=message.get("id"),
        thread_id=thread,
        reply_in_thread=thread if in_thread else None,
        to=addresses_given(draft.to),
        cc=addresses_given(draft.cc) or None,
        bcc=addresses_given(draft.bcc) or None,
        subject=quoted(draft.subject or None),
        empty_body=None if (draft.text or draft.html) else True,
        attachments=saved_files(parts or []) if parts or draft.attachments is not None else None,
        removed_attachments=[Quoted(text=name) for name in removed] if removed else None,
        forwards=forwards,
        note=None if (removed or forward or not note.strip()) else note.strip(),
        next_step=next_step,
    )


def sent_data(
    draft_id: str,
    sent: dict[str, Any],
    draft: Draft,
    parts: list[Message],
    account_name: str | None,
    next_step: str,
) -> outputs.DraftSent:
    """The facts of ``render.sent_text`` as data: the sent message, who, what."""
    return outputs.DraftSent(
        draft_id=draft_id,
        account=account_name,
        message_id=str(sent.get("id")),
        thread_id=str(sent.get("threadId")),
        to=addresses_given(draft.to),
        cc=addresses_given(draft.cc) or None,
        bcc=addresses_given(draft.bcc) or None,
        subject=quoted(draft.subject or None),
        attachments=saved_files(parts),
        next_step=next_step,
    )


def draft_data(
    resource: dict[str, Any], draft: Draft, first_lines: int | None = None
) -> outputs.DraftShown:
    """The facts of ``render.draft_summary`` as data (``first_lines``: as list_drafts)."""
    message = resource.get("message", {})
    mail = draft.mail
    files, more = files_of(mail) if mail is not None else ([], 0)
    body = draft.text.strip()
    data = outputs.DraftShown(
        draft_id=str(resource.get("id", "?")),
        message_id=str(message.get("id", "?")),
        to=addresses_given(draft.to),
        cc=addresses_given(draft.cc) or None,
        bcc=addresses_given(draft.bcc) or None,
        reply_to=addresses_of(mail.header("reply-to")) or None if mail is not None else None,
        subject=quoted(draft.subject or None),
        reply_in_thread=str(message.get("threadId", "?")) if draft.in_reply_to else None,
        attachments=files or None,
        more_attachments=more or None,
    )
    if first_lines is not None:
        written = [line for line in body.splitlines() if line.strip()]
        data.first_lines = [Quoted(text=line) for line in written[:first_lines]]
        data.more_lines = len(written) > first_lines or None
    else:
        text, notes = (mail or MailMessage(headers={}, text=body)).readable()
        data.body = Quoted(text=text)
        data.notes = notes or None
    return data


def thread_data(
    thread_id: str,
    given: str,
    count: int,
    documents: list[Document],
    not_read: list[str],
    why: str,
    next_step: str | None,
) -> outputs.Thread:
    """The facts of ``render.thread_head`` as data: the messages read and those not read."""
    return outputs.Thread(
        thread_id=thread_id,
        given_message_id=given or None,
        message_count=count,
        messages=carried_data(documents),
        not_read=not_read or None,
        why_not_read=why if not_read else None,
        next_step=next_step,
    )


def attachment_data(
    message_id: str, part: AttachmentPart, read: AttachmentText, sender: str
) -> outputs.AttachmentRead:
    """The facts of ``render.attachment_document`` as data (``sender``: the From header)."""
    return outputs.AttachmentRead(
        message_id=message_id,
        attachment_id=part.part_id or part.filename,
        filename=Quoted(text=part.filename),
        mime_type=Quoted(text=part.mime_type),
        size=part.size,
        pages=read.pages or None,
        sender=addresses_of(sender),
        text=Quoted(text=read.text),
        notes=list(read.notes) or None,
    )


def labels_data(
    system: list[str], shown: list[dict[str, Any]], more: int, next_step: str
) -> outputs.Labels:
    """The facts of ``render.labels_text`` as data: the user's labels ``shown``, ``more``."""
    return outputs.Labels(
        system=system,
        labels=[
            outputs.Label(label_id=str(x.get("id")), name=Quoted(text=str(x.get("name", ""))))
            for x in shown
        ],
        more=max(more, 0) or None,
        next_step=next_step or None,
    )


def labels_changed_data(
    ids: list[str], changes: list[Change], next_step: str
) -> outputs.LabelsChanged:
    """The facts of ``render.modified_text`` as data: each change, and its reverse."""
    return outputs.LabelsChanged(
        message_ids=ids,
        changes=[
            outputs.LabelChange(
                label_id=c.label_id,
                name=Quoted(text=c.name),
                action="added" if c.sign > 0 else "removed",
                effect=EFFECTS.get((c.label_id, c.sign)),
            )
            for c in changes
        ],
        undo_add=[c.label_id for c in changes if c.sign < 0] or None,
        undo_remove=[c.label_id for c in changes if c.sign > 0] or None,
        next_step=next_step,
    )
