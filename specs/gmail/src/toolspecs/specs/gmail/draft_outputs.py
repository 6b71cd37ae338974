"""What the draft tools return: the data, built once from Gmail's resources, and its text.

A draft's words may come from a mail it replies to: they are fenced, as mail is.
"""

from __future__ import annotations

import fnmatch
from email.message import Message as MimePart
from email.utils import parseaddr
from typing import Any, ClassVar, Literal

from pydantic import Field, PrivateAttr

from toolspecs.core import AskUser, FixArguments, bounds, fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Listing, Output, Quoted, Structure, quoted
from toolspecs.loaders.google import MailMessage
from toolspecs.loaders.google.gmail import ADDRESS_LIMIT, sender_address
from toolspecs.loaders.google.mail import format_size
from toolspecs.specs.gmail.compose import Draft, attachment_parts, part_name, part_size
from toolspecs.specs.gmail.outputs import Address, File, files_shown
from toolspecs.specs.google_base import parse_addresses

FORWARD_MARK = "---------- Forwarded message ---------"


class ApiText(str):
    """Text for the agent that still indexes like LlamaHub's API dict (``["id"]``; ``.data``)."""

    data: dict[str, Any]

    def __new__(cls, text: str, data: dict[str, Any]) -> ApiText:
        """The text, carrying ``data`` (the API resource)."""
        made = super().__new__(cls, text)
        made.data = data
        return made

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.data[key]
        return super().__getitem__(key)

    def get(self, key: str, default: Any = None) -> Any:
        """A field of the API resource, as ``dict.get``."""
        return self.data.get(key, default)


def people(addresses: list[str]) -> str:
    """Addresses on one fenced line."""
    return fence.field(", ".join(addresses), ADDRESS_LIMIT)


def addressed(draft: Draft) -> str:
    """Who a draft goes to, by field: ``to A, B; cc C; bcc D`` (a Bcc never passes for a To)."""
    fields = [("to", draft.to), ("cc", draft.cc), ("bcc", draft.bcc)]
    said = [f"{name} {people(list(values))}" for name, values in fields if values]
    return "; ".join(said) or "to nobody yet"


def _addressed(draft: Draft) -> dict[str, Any]:
    cc, bcc, subject = Address.given(draft.cc), Address.given(draft.bcc), draft.subject
    return {
        "to": Address.given(draft.to),
        "cc": cc or None,
        "bcc": bcc or None,
        "subject": quoted(subject or None),
    }


class SavedFile(Structure):
    """A file a saved or sent draft carries."""

    filename: Quoted
    size: int = Field(description="Bytes.")

    @classmethod
    def all_of(cls, parts: list[MimePart]) -> list[SavedFile]:
        """The files of a draft's attachment parts."""
        return [
            cls(filename=Quoted(text=part_name(p) or "(no name)"), size=part_size(p)) for p in parts
        ]


def carried(files: list[SavedFile]) -> str:
    """``attached: a.pdf (2 KB), b.csv (1 KB)`` or ``no attachments``, names fenced."""
    shown = [f"{fence.field(f.filename.text, 120)} ({format_size(f.size)})" for f in files]
    return f"attached: {', '.join(shown)}" if shown else "no attachments"


def _subject(subject: Quoted | str | None) -> str:
    return fence.field(subject.text if isinstance(subject, Quoted) else subject) or "(no subject)"


class DraftShown(Output):
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
    _people: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _reply_to: str = PrivateAttr(default="")
    _resource: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def of(
        cls, resource: dict[str, Any], draft: Draft, first_lines: int | None = None
    ) -> DraftShown:
        """A draft (Gmail's resource, read): whole, or its ``first_lines`` as list_drafts."""
        message = resource.get("message", {})
        mail = draft.mail
        files, more = File.all_of(mail) if mail is not None else ([], 0)
        reply_to = mail.header("reply-to") if mail is not None else ""
        made = cls(
            draft_id=str(resource.get("id", "?")),
            message_id=str(message.get("id", "?")),
            **_addressed(draft),
            reply_to=Address.all_of(reply_to) or None,
            reply_in_thread=str(message.get("threadId", "?")) if draft.in_reply_to else None,
            attachments=files or None,
            more_attachments=more or None,
        )
        body = draft.text.strip()
        if first_lines is not None:
            written = [line for line in body.splitlines() if line.strip()]
            made.first_lines = [Quoted(text=line) for line in written[:first_lines]]
            made.more_lines = len(written) > first_lines or None
        else:
            text, notes = (mail or MailMessage(headers={}, text=body)).readable()
            made.body = Quoted(text=text)
            made.notes = notes or None
        made._people = {"To": draft.to, "Cc": draft.cc, "Bcc": draft.bcc}
        made._reply_to = reply_to
        made._resource = resource
        return made

    def text(self) -> str:
        """The draft as get_draft shows it (its whole body), or list_drafts (first lines)."""
        lines = [f"Draft id: {self.draft_id} (message {self.message_id})"]
        lines.append(f"To: {people(self._people.get('To', [])) or '(nobody yet)'}")
        for name in ("Cc", "Bcc"):
            if self._people.get(name):
                lines.append(f"{name}: {people(self._people[name])}")
        if self._reply_to:
            lines.append(f"Reply-To: {fence.field(self._reply_to, ADDRESS_LIMIT)}")
        lines.append(f"Subject: {_subject(self.subject)}")
        if self.reply_in_thread is not None:
            lines.append(f"Reply in thread {self.reply_in_thread}")
        if self.attachments or self.more_attachments:
            lines.append(
                "Attachments: " + files_shown(self.attachments or [], self.more_attachments)
            )
        if self.first_lines is not None:
            kept = [fence.field(line.text, 200) for line in self.first_lines]
            more = " ..." if self.more_lines else ""
            lines.append("Starts: " + " / ".join(kept) + more if kept else "Starts: (empty)")
        else:
            body = self.body.text if self.body else ""
            lines.append(fence.block(body, f"draft {self.draft_id}", "draft body"))
            lines.extend(f"Note: {note}." for note in self.notes or [])
        return "\n".join(lines)

    def reply(self) -> ApiText:
        """:meth:`text`, indexing like Gmail's ``Draft`` resource (LlamaHub's dict)."""
        return ApiText(self.text(), self._resource)


class Drafts(Listing):
    """Drafts, newest first (``first_lines`` of each body)."""

    items_field: ClassVar[str] = "drafts"

    drafts: list[DraftShown]
    next_step: str | None = None

    @classmethod
    def of(cls, drafts: list[DraftShown]) -> Drafts:
        """The drafts listed; none: how to make one."""
        if drafts:
            return cls(drafts=drafts)
        make = f"{ref('create_draft')} makes one." if offered("create_draft") else ""
        return cls(drafts=[], next_step=make or None)

    def reply(self) -> str:
        """The drafts' summaries, newest first."""
        if not self.drafts:
            return f"There are no drafts. {self.next_step or ''}".rstrip()
        shown = [draft.text() for draft in self.drafts]
        return "\n\n".join([f"{len(shown)} draft(s), newest first:", *shown])


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


class Forwarded(Structure):
    """The mail a draft forwards."""

    message_id: str | None = None
    sender: Quoted | None = None
    subject: Quoted | None = None
    attachments: int | None = None

    @classmethod
    def of(
        cls, text: str, message_id: str | None = None, attachments: int | None = None
    ) -> Forwarded:
        """The mail a draft's body (``text``) forwards."""
        fields = forward_fields(text) or {}
        sender = sender_address(fields["From"]) if fields.get("From") else None
        return cls(
            message_id=message_id,
            sender=quoted(sender),
            subject=quoted(fields.get("Subject") or None),
            attachments=attachments if message_id else None,
        )

    def shown(self) -> str:
        """The sentence naming it: `` It forwards a mail from X, subject: Y.``."""
        sender = fence.field(self.sender.text if self.sender else "an unknown sender", 120)
        return (
            f" It forwards a mail from {sender or '(unknown)'}, subject: {_subject(self.subject)}."
        )


def _account(name: str | None) -> str:
    return f" in the {name!r} account" if name else ""


class DraftSaved(Output):
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
    _recipients: str = PrivateAttr(default="")
    _note: str = PrivateAttr(default="")
    _resource: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def of(
        cls,
        action: Literal["created", "updated"],
        saved: dict[str, Any],
        draft: Draft,
        note: str,
        *,
        account: str | None = None,
        allow_send: bool = True,
        confirm_recipients: bool = False,
        removed: list[str] | None = None,
        forward: tuple[str, int] | None = None,
    ) -> DraftSaved:
        """What create_draft and update_draft saved: the draft's id, who, what, what next."""
        draft_id = saved.get("id", "?")
        message = saved.get("message", {})
        thread = message.get("threadId")
        parts = draft.attachments
        if parts is None and draft.source:  # an update keeps the stored draft's
            parts = attachment_parts(draft.source)
        forwards = None
        if " forwards message " not in note:  # create_draft's note names the forward
            if forward_fields(draft.text) is not None:
                forwards = Forwarded.of(draft.text)
        elif forward is not None:
            forwards = Forwarded.of(draft.text, *forward)
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
        made = cls(
            action=action,
            account=account,
            draft_id=str(draft_id),
            message_id=message.get("id"),
            thread_id=thread,
            reply_in_thread=thread if draft.thread_id and thread == draft.thread_id else None,
            **_addressed(draft),
            empty_body=None if (draft.text or draft.html) else True,
            attachments=(
                SavedFile.all_of(parts or []) if parts or draft.attachments is not None else None
            ),
            removed_attachments=[Quoted(text=name) for name in removed] if removed else None,
            forwards=forwards,
            note=None if (removed or forward or not note.strip()) else note.strip(),
            next_step=f"Show it to the user;{send}{change}.",
        )
        made._recipients = addressed(draft)
        made._note = note
        made._resource = saved
        return made

    def reply(self) -> ApiText:
        """The draft's id, who, what, and what next; indexing like Gmail's ``Draft``."""
        where = f" in thread {self.reply_in_thread} (a reply)" if self.reply_in_thread else ""
        body = " The body is empty." if self.empty_body else ""
        if self.attachments is not None:
            files = carried(self.attachments)
            body += f" {files[0].upper()}{files[1:]}."
        if self.forwards is not None and self.forwards.message_id is None:
            body += self.forwards.shown()
        text = (
            f"Draft {self.action}{_account(self.account)} with id {self.draft_id}{where}: "
            f"{self._recipients}; "
            f"subject: {_subject(self.subject)}.{body}{self._note} "
            f"Next: {self.next_step[0].lower()}{self.next_step[1:]}"
        )
        return ApiText(text, self._resource)


class DraftSent(Output):
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
    _recipients: str = PrivateAttr(default="")
    _resource: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def of(
        cls, draft_id: str, sent: dict[str, Any], draft: Draft, account: str | None
    ) -> DraftSent:
        """The sent message (Gmail's resource) of ``draft``: who, what."""
        made = cls(
            draft_id=draft_id,
            account=account,
            message_id=str(sent.get("id")),
            thread_id=str(sent.get("threadId")),
            **_addressed(draft),
            attachments=SavedFile.all_of(attachment_parts(draft.source)),
            next_step="You can move on to the next step.",
        )
        made._recipients = addressed(draft)
        made._resource = sent
        return made

    def reply(self) -> ApiText:
        """The sent message's id and thread, who, what; indexing like Gmail's ``Message``."""
        text = (
            f"Draft {self.draft_id} sent{_account(self.account)} as message {self.message_id} "
            f"(thread {self.thread_id}) {self._recipients}; "
            f"subject: {_subject(self.subject)}; {carried(self.attachments)}. {self.next_step}"
        )
        return ApiText(text, self._resource)


def check_expected(
    draft_id: str, draft: Draft, recipients: list[str] | None, required: bool = False
) -> None:
    """``recipients`` (``required``: ``confirm_recipients``) are the draft's own, as a set.

    Asked for them, the agent is told the draft's recipients, so the person approves a call
    that names them.

    Raises:
        FixArguments: When they are missing but required, or are not the draft's own.
    """
    actual = {_address(a) for a in draft.recipients()}
    shown = people(sorted(actual))
    if recipients is None:
        if not required:
            return
        # What a client that asks from the call's arguments cannot show: said here.
        files = SavedFile.all_of(attachment_parts(draft.source))
        what = f"subject: {_subject(draft.subject)}; {carried(files)}"
        raise FixArguments(
            f"Nothing was sent: {ref('send_draft')} needs recipients, the addresses draft "
            f"{draft_id} goes to, so the user sees who receives it. It goes to: {shown}; "
            f"{what}.",
            f"If the user approved sending to them, call {ref('send_draft')}(draft_id="
            f"'{draft_id}', recipients=[...]) with these addresses; otherwise "
            + (
                f"change the draft with {ref('update_draft')} first."
                if offered("update_draft")
                else "do not send it: tell the user."
            ),
        )
    given = {email.casefold() for _, email in parse_addresses(list(recipients), "recipients")}
    if given != actual:
        raise FixArguments(
            f"Nothing was sent: draft {draft_id} goes to {shown}, not to "
            f"{people(sorted(given)) or 'nobody'} as recipients says.",
            "Check with the user who should receive it; "
            + (
                f"change the draft with {ref('update_draft')}, or send"
                if offered("update_draft")
                else "send"
            )
            + " with recipients equal to the draft's.",
        )


def check_allowed(draft: Draft, patterns: list[str]) -> None:
    """Every recipient matches one of ``patterns`` (``allowed_recipients``), if any."""
    if not patterns:
        return
    addresses = [email.casefold() for _, email in parse_addresses(draft.recipients(), "to")]
    refused = [a for a in addresses if not any(fnmatch.fnmatchcase(a, p) for p in patterns)]
    if refused:
        raise AskUser(
            f"Mail from this agent may go only to addresses matching "
            f"{fence.field(', '.join(patterns), ADDRESS_LIMIT)} (allowed_recipients); "
            f"no pattern matches {people(refused)}. Nothing was saved or sent.",
            "Do not retry with these addresses: leave them out, or tell the user they "
            "are not allowed here (only whoever set up the agent can allow them).",
        )


def _address(value: str) -> str:
    return (parseaddr(value)[1] or value).strip().casefold()


# Addresses of one header shown; the others are counted.
RECIPIENTS_SHOWN = 25
# Attachments named; the others are counted.
ATTACHMENTS_SHOWN = 10
# Lines of the body shown, and the characters of each.
BODY_LINES = 12
LINE_CHARS = 160
# Characters of the body read to find those lines (hidden text already left out).
BODY_CHARS = 4000
# The whole question, in tokens: a dialog a person reads.
QUESTION_TOKENS = 900


def send_question(draft_id: str, draft: Draft, account: str | None = None) -> str:
    """The question before draft ``draft_id`` is sent."""
    where = f" from the Gmail account {fence.quote(account, 60)}" if account else ""
    lines = [f"Send this email{where}? Once sent, it cannot be undone."]
    for name, values in (("To", draft.to), ("Cc", draft.cc), ("Bcc", draft.bcc)):
        if values:
            lines.append(f"{name}: {_people(values)}")
    lines.append(f"Subject: {fence.quote(draft.subject, 200) if draft.subject else '(none)'}")
    mail = draft.mail
    if mail is not None and mail.attachments:
        lines.append(_attachments(mail))
    else:
        lines.append("Attachments: none")
    if draft.in_reply_to:
        lines.append("It replies in an existing conversation.")
    lines.extend(_body(draft))
    lines.append(f"(Gmail draft {fence.field(draft_id, 80)})")
    return bounds.clip("\n".join(lines), QUESTION_TOKENS)


def _people(addresses: list[str]) -> str:
    shown = [fence.field(address, 200) for address in addresses[:RECIPIENTS_SHOWN]]
    more = len(addresses) - len(shown)
    return ", ".join(shown) + (f" and {more} more ({len(addresses)} in all)" if more else "")


def _attachments(mail: MailMessage) -> str:
    files = mail.attachments
    shown = [
        f"{fence.quote(a.filename or '(no name)', 120)} ({format_size(a.size)})"
        for a in files[:ATTACHMENTS_SHOWN]
    ]
    more = f" and {len(files) - len(shown)} more" if len(files) > len(shown) else ""
    total = format_size(sum(a.size for a in files))
    return f"Attachments ({len(files)}, {total}): {', '.join(shown)}{more}"


def _body(draft: Draft) -> list[str]:
    mail = draft.mail or MailMessage(headers={}, text=draft.text)
    text, notes = mail.readable(BODY_CHARS)
    written = [fence.field(line, LINE_CHARS) for line in text.splitlines() if line.strip()]
    cut = [note for note in notes if note.startswith("the body was cut")]
    said = [f"Note: {fence.field(note, 300)}." for note in notes if note not in cut][:3]
    if not written:
        return ["The message has no text.", *said]
    shown = [f"> {line}" for line in written[:BODY_LINES]]
    more = len(written) - len(shown)
    if more or cut:
        shown.append("> … (the rest is not shown)")
    head = "It starts:" if more or cut else "The message:"
    return [head, *shown, *said]
