"""What the Gmail tools reply: every text the agent reads, with the sender's words fenced.

Everything a sender wrote reaches the agent through the core's fences: one-line fields
for headers and file names, a quote that cannot be closed for snippets, a block naming
the message and its sender for bodies. A draft's recipients, subject and body may come
from a mail it replies to: they are shown through the fences, as mail is.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Iterable
from email.message import Message
from typing import Any, cast

from llama_index.core.schema import Document

from toolspecs.core import fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Reply, Structure
from toolspecs.loaders.google import MailMessage
from toolspecs.loaders.google.attachments import AttachmentPart, AttachmentText
from toolspecs.loaders.google.gmail_text import (
    ADDRESS_LIMIT,
    MAX_ATTACHMENTS_SHOWN,
    mail_date,
    mail_document,
    sender_address,
    summary_headers,
)
from toolspecs.loaders.google.mail import format_size
from toolspecs.specs.gmail import outputs
from toolspecs.specs.gmail.compose import Draft, attachment_parts, part_name, part_size
from toolspecs.specs.gmail.facts import (
    StructuredDocument,
    attachment_data,
    carrying,
    forward_fields,
    labels_changed_data,
    labels_data,
    message_data,
    saved_data,
    sent_data,
    summary_data,
    thread_data,
)
from toolspecs.specs.gmail.labels import Change

MAX_LABELS_SHOWN = 500


def message_text(resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None) -> str:
    """A whole message as the agent reads it: ids, headers, attachments, fenced body.

    Every value the sender wrote is fenced; our notes (a body cut, hidden text left out,
    a MIME structure too deep to read) follow the body, outside its fence.
    """
    message_id = resource.get("id", "?")
    lines = [f"Message id: {message_id} (thread {resource.get('threadId', '?')})"]
    for name in ("From", "To", "Cc", "Reply-To"):
        if mail.header(name):
            lines.append(f"{name}: {fence.field(mail.header(name), ADDRESS_LIMIT)}")
    lines.append(f"Date: {mail_date(mail, resource, tz)}")
    lines.append(f"Subject: {fence.field(mail.header('subject'), 300) or '(no subject)'}")
    labels = [label for label in resource.get("labelIds", []) if label in {"UNREAD", "DRAFT"}]
    if labels:
        lines.append(f"Labels: {', '.join(labels)}")
    if mail.attachments:
        lines.append("Attachments: " + attachments_text(mail, ids=True))
    body, notes = mail.readable()
    source = f"message {message_id} from {sender_address(mail.header('from'))}"
    lines.append(fence.block(body, source, "mail body"))
    lines.extend(f"Note: {note}." for note in notes)
    return "\n".join(lines)


def message_document(resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None) -> Document:
    """A whole message as a Document: :func:`message_text`, the reader's id and metadata.

    It carries the message as data (``.structured``, an :class:`outputs.Message`).
    """
    made = mail_document(resource, mail.headers, message_text(resource, mail, tz))
    return carrying(made, message_data(resource, mail, tz))


def message_documents(
    pairs: Iterable[tuple[dict[str, Any], MailMessage]], tz: dt.tzinfo | None
) -> list[Document]:
    """Whole messages as Documents, one message held at a time (a pair is let go)."""
    documents = []
    for resource, mail in pairs:
        documents.append(message_document(resource, mail, tz))
        del resource, mail  # not held while the next one is fetched and parsed
    return documents


def attachments_text(mail: MailMessage, ids: bool = False) -> str:
    """``«Q4 report.pdf» (application/pdf, 3 KB) [attachment_id: 1]; …``, names fenced."""
    shown = [
        f"{fence.field(a.filename, 200)} ({fence.field(a.content_type, 100)}, "
        f"{format_size(a.size)})" + (f" [attachment_id: {a.part_id}]" if ids and a.part_id else "")
        for a in mail.attachments[:MAX_ATTACHMENTS_SHOWN]
    ]
    more = len(mail.attachments) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def summary_document(
    resource: dict[str, Any], tz: dt.tzinfo | None, size: int | None = None
) -> Document:
    """One search hit in three lines: ids, date, from, subject and Gmail's snippet."""
    headers = summary_headers(resource)
    mail = MailMessage(headers=headers)
    unread = " (unread)" if "UNREAD" in resource.get("labelIds", []) else ""
    snippet = html.unescape(str(resource.get("snippet", ""))[:2000])
    sender = ", ".join(mail.addresses("from")) or headers.get("from", "?")
    subject = fence.field(headers.get("subject", ""), 300) or "(no subject)"
    text = (
        f"[id: {resource.get('id', '?')} | thread: {resource.get('threadId', '?')}]{unread} "
        f"{mail_date(mail, resource, tz)}\n"
        f"From: {fence.field(sender, 300)} | Subject: {subject}\n"
        f"Snippet (quoted mail): {fence.quote(snippet, 300)}"
    )
    data = summary_data(resource, mail, snippet, tz, size)
    document = carrying(mail_document(resource, headers, text), data)
    if size is not None:
        document.metadata["size"] = size
    return document


class ApiText(Reply):
    """Text for the agent that still indexes like the API dict LlamaHub returned.

    ``spec.create_draft(...)["id"]`` keeps working for code written against LlamaHub;
    ``.data`` is the whole API resource, ``.structured`` the facts of the text as data
    (:mod:`toolspecs.specs.gmail.outputs`).
    """

    data: dict[str, Any]

    def __new__(
        cls, text: str, data: dict[str, Any], structured: Structure | None = None
    ) -> ApiText:
        """The text, carrying ``data`` (the API resource) and ``structured``."""
        made = cast("ApiText", super().__new__(cls, text, structured))
        made.data = data
        return made

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.data[key]
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the API resource, as ``dict.get``."""
        return self.data.get(key, default)


def saved_text(
    verb: str,
    saved: dict[str, Any],
    draft: Draft,
    note: str,
    *,
    account: str = "",
    allow_send: bool = True,
    confirm_recipients: bool = False,
    account_name: str | None = None,
    removed: list[str] | None = None,
    forward: tuple[str, int] | None = None,
) -> ApiText:
    """What create_draft and update_draft reply: the draft's id, who, what, and what next.

    Args:
        verb: ``"created"`` or ``"updated"``.
        saved: Gmail's ``Draft`` resource as saved.
        draft: The draft that was saved.
        note: Our note on the reply or forward, or on the attachments removed.
        account: `` in the 'work' account`` (empty without an account).
        allow_send: Whether the agent has send_draft (and may send).
        confirm_recipients: Whether send_draft needs the recipients listed.
        account_name: The account's name (``"work"``), for the data.
        removed: The names of the attachments an update removed (``note`` says so).
        forward: The message a new draft forwards and how many of its attachments it
            carries (``note`` says so).
    """
    draft_id = saved.get("id", "?")
    thread = saved.get("message", {}).get("threadId")
    where = (
        f" in thread {thread} (a reply)" if draft.thread_id and thread == draft.thread_id else ""
    )
    recipients = people(draft.recipients()) or "nobody yet"
    body = "" if (draft.text or draft.html) else " The body is empty."
    parts = draft.attachments
    if parts is None and draft.source:  # an update keeps the stored draft's
        parts = attachment_parts(draft.source)
    if parts or draft.attachments is not None:
        files = carried(parts or [])
        body += f" {files[0].upper()}{files[1:]}."
    if " forwards message " not in note:  # create_draft's note names the forward
        body += _forwarded(draft.text)
    listed = ", recipients=[its To, Cc and Bcc]" if confirm_recipients else ""
    send = (
        f" send it with {ref('send_draft')}(draft_id='{draft_id}'{listed})"
        if allow_send
        else " the user sends it from Gmail"
    )
    change = (
        f", or change it with {ref('update_draft')}(draft_id='{draft_id}', ...)"
        if offered("update_draft")
        else ""
    )
    next_step = f"show it to the user;{send}{change}."
    text = (
        f"Draft {verb}{account} with id {draft_id}{where}: to {recipients}; "
        f"subject: {subject_of(draft)}.{body}{note} "
        f"Next: {next_step}"
    )
    data = saved_data(
        verb,
        saved,
        draft,
        parts,
        note,
        next_step[0].upper() + next_step[1:],
        account_name=account_name,
        in_thread=bool(where),
        removed=removed,
        forward=forward,
    )
    return ApiText(text, saved, data)


def people(addresses: list[str]) -> str:
    """Addresses on one fenced line."""
    return fence.field(", ".join(addresses), ADDRESS_LIMIT)


def carried(parts: list[Message]) -> str:
    """``attached: a.pdf (2 KB), b.csv (1 KB)`` or ``no attachments``, names fenced."""
    files = [
        f"{fence.field(part_name(p) or '(no name)', 120)} ({format_size(part_size(p))})"
        for p in parts
    ]
    return f"attached: {', '.join(files)}" if files else "no attachments"


def _forwarded(text: str) -> str:
    """`` It forwards a mail from X, subject: Y.`` when the body quotes one; else ``""``."""
    fields = forward_fields(text)
    if fields is None:
        return ""
    sender = fence.field(sender_address(fields.get("From", "")), 120) or "(unknown)"
    subject = fence.field(fields.get("Subject", "")) or "(no subject)"
    return f" It forwards a mail from {sender}, subject: {subject}."


def subject_of(draft: Draft) -> str:
    """A draft's subject, fenced, or ``(no subject)``."""
    return fence.field(draft.subject) or "(no subject)"


def draft_summary(resource: dict[str, Any], draft: Draft, first_lines: int | None = None) -> str:
    """A draft as get_draft shows it (its whole body), or list_drafts (``first_lines``)."""
    message = resource.get("message", {})
    draft_id = resource.get("id", "?")
    lines = [f"Draft id: {draft_id} (message {message.get('id', '?')})"]
    lines.append(f"To: {people(draft.to) or '(nobody yet)'}")
    for name, values in (("Cc", draft.cc), ("Bcc", draft.bcc)):
        if values:
            lines.append(f"{name}: {people(values)}")
    if draft.mail is not None and draft.mail.header("reply-to"):
        lines.append(f"Reply-To: {fence.field(draft.mail.header('reply-to'), ADDRESS_LIMIT)}")
    lines.append(f"Subject: {subject_of(draft)}")
    if draft.in_reply_to:
        lines.append(f"Reply in thread {message.get('threadId', '?')}")
    if draft.mail is not None and draft.mail.attachments:
        lines.append("Attachments: " + attachments_text(draft.mail))
    body = draft.text.strip()
    if first_lines is not None:
        written = [line for line in body.splitlines() if line.strip()]
        kept = [fence.field(line, 200) for line in written[:first_lines]]
        more = " ..." if len(written) > first_lines else ""
        lines.append("Starts: " + " / ".join(kept) + more if kept else "Starts: (empty)")
    else:
        text, notes = (draft.mail or MailMessage(headers={}, text=body)).readable()
        lines.append(fence.block(text, f"draft {draft_id}", "draft body"))
        lines.extend(f"Note: {note}." for note in notes)
    return "\n".join(lines)


def part_listing(parts: list[AttachmentPart]) -> str:
    """A message's attachments with their ids, for a guidance."""
    shown = [
        f"{fence.field(p.filename, 200)} ({fence.field(p.mime_type, 100)}, {format_size(p.size)})"
        f" [attachment_id: {p.part_id or fence.field(p.filename, 200)}]"
        for p in parts[:20]
    ]
    more = f"; and {len(parts) - 20} more" if len(parts) > 20 else ""
    return "; ".join(shown) + more


def sent_text(
    draft_id: str,
    sent: dict[str, Any],
    draft: Draft,
    account: str = "",
    account_name: str | None = None,
) -> ApiText:
    """What send_draft replies: the sent message's id and thread, who, what."""
    parts = attachment_parts(draft.source)
    done = "You can move on to the next step."
    text = (
        f"Draft {draft_id} sent{account} as message {sent.get('id')} "
        f"(thread {sent.get('threadId')}) to {people(draft.recipients())}; "
        f"subject: {subject_of(draft)}; {carried(parts)}. {done}"
    )
    return ApiText(text, sent, sent_data(draft_id, sent, draft, parts, account_name, done))


def drafts_text(summaries: list[str], drafts: list[outputs.DraftShown] | None = None) -> Reply:
    """list_drafts' reply: the drafts' summaries, newest first (``drafts``: as data)."""
    if not summaries:
        make = f"{ref('create_draft')} makes one." if offered("create_draft") else ""
        text = f"There are no drafts. {make}".rstrip()
        return Reply(text, outputs.Drafts(drafts=[], next_step=make or None))
    text = "\n\n".join([f"{len(summaries)} draft(s), newest first:", *summaries])
    return Reply(text, outputs.Drafts(drafts=list(drafts or [])))


def load_note(
    documents: list[Document], left_out: list[Document], read: str, most: int, largest: int
) -> Document:
    """The note between whole messages and the ones listed without their body.

    ``most``: the bytes of whole messages one call reads; ``largest``: of one message.
    """
    return Document(
        text=(
            f"[{len(left_out)} of {len(documents) + len(left_out)} messages are listed "
            f"without their body: one call reads at most {format_size(most)} "
            f"of whole messages, none over {format_size(largest)}. {read}: "
            + ", ".join(str(doc.metadata.get("id", "")) for doc in left_out)
            + ".]"
        )
    )


def thread_head(
    thread_id: str,
    note: str,
    stubs: list[dict[str, Any]],
    documents: list[Document],
    shown: list[str],
    why: str,
    read: str,
    given: str = "",
) -> StructuredDocument:
    """get_thread's first Document: the messages in order, which were left out, what next.

    It carries the whole thread as data (an :class:`outputs.Thread`).

    Args:
        thread_id: The thread's id.
        note: Ours, when the id given was a message's.
        stubs: The thread's messages (``id``, ``labelIds``), oldest first.
        documents: The messages read, in order.
        shown: Their ids.
        why: Why the others were not read (when some were not).
        read: How the others can be read.
        given: The message id given instead of the thread's (``note`` says so).
    """
    drafts = {str(m["id"]) for m in stubs if "DRAFT" in (m.get("labelIds") or [])}
    lines = [f"Thread {thread_id}{note}: {len(stubs)} message(s), oldest first."]
    for number, doc in enumerate(documents, 1):
        meta = doc.metadata
        draft = " (draft)" if str(meta.get("id")) in drafts else ""
        lines.append(
            f"{number}. [id: {meta.get('id')}]{draft} {fence.field(meta.get('date'), 60)}"
            f" from {fence.field(sender_address(str(meta.get('from', ''))), 120)}"
        )
    rest: list[str] = []
    if len(stubs) > len(shown):
        rest = [str(m["id"]) for m in stubs[len(shown) :]]
        more = ", ".join(rest[:10]) + (f" and {len(rest) - 10} more" if len(rest) > 10 else "")
        lines.append(f"Only the first {len(shown)} messages are shown ({why}).{read}: {more}.")
    next_step = None
    if offered("create_draft"):
        last = shown[-1] if shown else "?"
        reply = f"{ref('create_draft')}(reply_to_message_id='{last}', ...)"
        next_step = f"Reply in this thread with {reply}."
        lines.append(f"Next: reply in this thread with {reply}.")
    data = thread_data(thread_id, given, len(stubs), documents, rest, why, next_step)
    return carrying(Document(text="\n".join(lines)), data)


def part_shown(part: AttachmentPart) -> str:
    """``«name» (type, 3 KB)``: an attachment as guidance and replies name it."""
    name = fence.field(part.filename, 200)
    return f"{name} ({fence.field(part.mime_type, 100)}, {format_size(part.size)})"


def attachment_document(
    message_id: str, part: AttachmentPart, read: AttachmentText, headers: dict[str, str]
) -> Document:
    """read_attachment's reply: which file of which message, and its text fenced."""
    name = fence.field(part.filename, 200)
    shown = part_shown(part)
    sender = sender_address(headers.get("from", ""))
    pages = f", {read.pages} page(s)" if read.pages else ""
    source = f"file {name} in message {message_id} from {sender}"
    lines = [
        f"Attachment {shown[:-1]}{pages}) [attachment_id: {part.part_id or name}] "
        f"of message {message_id} from {fence.field(sender, 120)}",
        fence.block(read.text, source, "attachment"),
        *(f"Note: {note}." for note in read.notes),
    ]
    data = attachment_data(message_id, part, read, headers.get("from", ""))
    document = Document(
        text="\n".join(lines),
        id_=f"gmail:{message_id}:{part.part_id}",
        metadata={"id": message_id, "from": headers.get("from", ""), "file": part.filename},
    )
    return carrying(document, data)


def labels_text(labels: list[dict[str, Any]], next_step: str) -> Reply:
    """list_labels' reply: the system labels' ids, the user's names with ids, what next."""
    system = sorted(str(x.get("id")) for x in labels if x.get("type") == "system")
    user = sorted(
        (x for x in labels if x.get("type") != "system"),
        key=lambda x: str(x.get("name", "")).casefold(),
    )
    lines = [f"System labels (id = name): {', '.join(system) or 'none'}."]
    if user:
        lines.append(f"The user's labels ({len(user)}), name [id]:")
        lines.extend(
            f"- {fence.field(x.get('name'), 200)} [{fence.field(x.get('id'), 100)}]"
            for x in user[:MAX_LABELS_SHOWN]
        )
        if len(user) > MAX_LABELS_SHOWN:
            lines.append(f"... and {len(user) - MAX_LABELS_SHOWN} more.")
    else:
        lines.append("The user has no labels of their own.")
    if next_step:
        lines.append(next_step)
    data = labels_data(system, user[:MAX_LABELS_SHOWN], len(user) - MAX_LABELS_SHOWN, next_step)
    return Reply("\n".join(lines), data)


def modified_text(ids: list[str], changes: Iterable[Change]) -> Reply:
    """modify_labels' reply: what was done to which messages, and how to undo it."""
    changes = list(changes)
    shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
    done = "; ".join(c.effect() for c in changes)
    undo = ", ".join(
        f"{verb}={[c.label_id for c in changes if c.sign == sign]}"
        for verb, sign in (("add", -1), ("remove", 1))
        if any(c.sign == sign for c in changes)
    )
    next_step = (
        f"Doing it again changes nothing. "
        f"The reverse, {ref('modify_labels')} with the same ids and {undo}, applies to every id "
        "given: it undoes this exactly only if they all had the same labels before. "
        "You can move on to the next step."
    )
    text = f"{len(ids)} message(s) {done}: {shown}. {next_step}"
    return Reply(text, labels_changed_data(ids, changes, next_step))
