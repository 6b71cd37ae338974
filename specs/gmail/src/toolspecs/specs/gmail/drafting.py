"""The Gmail spec's draft tools: list, create, update, show and send drafts.

:class:`DraftTools` declares them; :class:`~toolspecs.specs.gmail.base.GmailToolSpec`,
which adds the reading tools and the constructor, is the spec users build. Drafts are
composed in :mod:`~toolspecs.specs.gmail.compose`, files come from the allowed folder
(:mod:`~toolspecs.specs.gmail.attachments_dir`), recipients are checked by
:mod:`~toolspecs.specs.gmail.recipients`, and every request goes through the client's
``drafts`` (the loader's :class:`~toolspecs.loaders.google.GmailDrafts`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from email.message import Message
from pathlib import Path
from typing import Annotated, Any

from toolspecs.core import AskUser, FixArguments, Range, fence, ref, tool
from toolspecs.core.prefixed import offered
from toolspecs.loaders.google import GmailReader
from toolspecs.loaders.google.scopes import GMAIL_COMPOSE, GMAIL_READONLY
from toolspecs.specs.gmail import facts, outputs, questions, render
from toolspecs.specs.gmail.attachments_dir import (
    AttachmentFolder,
    attachment_folder,
    check_total,
    sign_in_file,
)
from toolspecs.specs.gmail.compose import (
    Draft,
    make_forward,
    make_reply,
    part_name,
    read_draft,
)
from toolspecs.specs.gmail.compose import attachment_parts as mime_attachment_parts
from toolspecs.specs.gmail.id_guidance import find_draft
from toolspecs.specs.gmail.recipients import check_allowed, check_expected
from toolspecs.specs.gmail.render import ApiText
from toolspecs.specs.google_base import GoogleToolSpec
from toolspecs.specs.google_base.scopes import needs_scopes

_DRAFT_ALIASES = {
    "recipients": "to",
    "to_address": "to",
    "title": "subject",
    "body": "message",
    "text": "message",
    "content": "message",
    "html_body": "html",
    "files": "attachments",
    "attach": "attachments",
    "attachment": "attachments",
}
_RECIPIENTS_DOC = (
    "Required: all its To, Cc and Bcc addresses, as the user approved them, "
    "e.g. ['ada@example.com']."
)
_REPLY_ALIASES = {
    "reply_to": "reply_to_message_id",
    "in_reply_to": "reply_to_message_id",
    "message_id": "reply_to_message_id",
}


class DraftTools(GoogleToolSpec):
    """The draft tools of :class:`~toolspecs.specs.gmail.GmailToolSpec` (see its options)."""

    reader: GmailReader
    allow_send: bool = True
    confirm_recipients: bool = False
    allowed_recipients: list[str]
    max_attachment_size: int

    @property
    def attachment_dir(self) -> Path | None:
        """The folder drafts may attach files from; ``None`` when attaching is off."""
        return self._attachment_dir

    @attachment_dir.setter
    def attachment_dir(self, value: str | os.PathLike[str] | None) -> None:
        self._attachment_dir = attachment_folder(value)

    def argument_docs(self, function: str) -> Mapping[str, str | None]:
        """Arguments left out of a schema until an option makes them matter.

        ``attachments`` of the drafts' until a folder is allowed; ``recipients`` of
        send_draft's until ``confirm_recipients`` requires it (a call that sends it is
        still checked), so LlamaHub's schema and its cost stay as they were.
        """
        if function in ("create_draft", "update_draft") and self.attachment_dir is None:
            return {"attachments": None}
        if function == "send_draft":
            return {"recipients": _RECIPIENTS_DOC if self.confirm_recipients else None}
        return {}

    # -- drafts -------------------------------------------------------------------------

    @needs_scopes(GMAIL_READONLY)
    @tool(
        aliases={"limit": "max_results", "n": "max_results"},
        read_only=True,
        open_world=False,
        output=outputs.Drafts,
    )
    def list_drafts(self, max_results: Annotated[int, Range(1, 50)] = 10) -> str:
        """List drafts, newest first: id, recipients, subject and first lines.

        Args:
            max_results: At most this many.
        """
        summaries = []
        drafts = []
        for item in self.reader.drafts.list(max_results):
            resource = self.reader.drafts.get(item["id"])
            draft = read_draft(resource)
            summaries.append(render.draft_summary(resource, draft, first_lines=2))
            drafts.append(facts.draft_data(resource, draft, first_lines=2))
        return render.drafts_text(summaries, drafts)

    @needs_scopes(GMAIL_COMPOSE, GMAIL_READONLY)
    @tool(
        aliases={
            **_DRAFT_ALIASES,
            **_REPLY_ALIASES,
            "forward": "forward_message_id",
            "forward_id": "forward_message_id",
        },
        destructive=False,
        idempotent=False,
        open_world=False,
        output=outputs.DraftSaved,
    )
    def create_draft(
        self,
        to: list[str] | None = None,
        subject: str | None = None,
        message: str | None = None,
        cc: list[str] | None = None,
        bcc: list[str] | None = None,
        html: str | None = None,
        reply_to_message_id: str | None = None,
        forward_message_id: str | None = None,
        attachments: list[str] | None = None,
    ) -> ApiText:
        """Create a draft (nothing is sent); returns its id.

        Args:
            to: Recipients, e.g. ['ada@example.com'].
            subject: In a reply, default 'Re: ' + the original's.
            message: The body as plain text.
            cc: Cc recipients.
            bcc: Bcc recipients.
            html: HTML body; message is the plain text.
            reply_to_message_id: Reply in this message's thread.
            forward_message_id: Forward this message.
            attachments: Files to attach, by name in the allowed folder.
        """
        if reply_to_message_id and forward_message_id:
            raise FixArguments(
                "A draft cannot both reply to a message and forward one.",
                "Send reply_to_message_id or forward_message_id, not both.",
            )
        files = self._folder().parts(attachments or [])
        draft = Draft(to=to or [], cc=cc or [], bcc=bcc or [], text=message or "", html=html or "")
        draft.subject = subject or ""
        note = ""
        if reply_to_message_id:
            note = make_reply(self.reader, draft, reply_to_message_id.strip(), subject)
        forwarded: list[Message] = []
        if forward_message_id:
            forwarded, note = make_forward(self.reader, draft, forward_message_id.strip(), subject)
        if forwarded or files:
            draft.attachments = [*forwarded, *files]
            check_total(draft.attachments)
        check_allowed(draft, self.allowed_recipients)
        created = self.reader.drafts.create(draft.mime_bytes(), draft.thread_id)
        forward = (forward_message_id.strip(), len(forwarded)) if forward_message_id else None
        return self._saved("created", created, draft, note, forward=forward)

    @needs_scopes(GMAIL_COMPOSE, GMAIL_READONLY)
    @tool(
        aliases={**_DRAFT_ALIASES, "id": "draft_id"},
        destructive=False,
        idempotent=True,
        open_world=False,
        output=outputs.DraftSaved,
    )
    def update_draft(
        self,
        to: list[str] | None = None,
        subject: str | None = None,
        message: str | None = None,
        draft_id: str | None = None,
        cc: list[str] | None = None,
        bcc: list[str] | None = None,
        html: str | None = None,
        attachments: list[str] | None = None,
    ) -> ApiText:
        """Change a draft; what is not given is kept (body, thread, attachments).

        Args:
            to: All new recipients, e.g. ['ada@example.com'].
            subject: New subject.
            message: New body text.
            draft_id: From create_draft or list_drafts.
            cc: New Cc; [] removes all.
            bcc: New Bcc; [] removes all.
            html: New HTML body.
            attachments: All the files it carries: names attached stay, others come
                from the allowed folder; [] removes them.
        """
        if not draft_id:
            raise FixArguments("You did not provide a draft_id.", find_draft(earlier=True))
        if all(value is None for value in (to, subject, message, cc, bcc, html, attachments)):
            raise FixArguments(
                f"{ref('update_draft')} was given nothing to change.",
                "Send at least one of to, subject, message, cc, bcc or html with the draft_id.",
            )
        current = self.reader.drafts.get(draft_id.strip())
        stored = read_draft(current)
        if stored.mail is not None and stored.mail.notes:
            raise AskUser(
                f"Draft {current['id']} could not be read whole "
                f"({'; '.join(stored.mail.notes)}), so changing it here could lose parts of it.",
                "Do not retry: tell the user to edit this draft in Gmail.",
            )
        files = None
        note = ""
        removed: list[str] = []
        if attachments is not None:
            kept = mime_attachment_parts(stored.source)
            files = self._folder().parts(attachments, kept)
            check_total(files)
            gone = [
                (number, part_name(part) or "(no name)")
                for number, part in enumerate(kept, 1)
                if not any(part is file for file in files)
            ]
            removed = [name for _, name in gone]
            dropped = [f"#{number} {fence.field(name, 120)}" for number, name in gone]
            if dropped:
                note = (
                    f" Removed: {', '.join(dropped)} (to keep one, name it by its number, "
                    "e.g. '#1', or its file name)."
                )
        draft = stored.changed(
            to=to, subject=subject, text=message, cc=cc, bcc=bcc, html=html, attachments=files
        )
        check_allowed(draft, self.allowed_recipients)
        updated = self.reader.drafts.update(current["id"], draft.mime_bytes(), draft.thread_id)
        return self._saved("updated", updated, draft, note, removed=removed)

    @needs_scopes(GMAIL_READONLY)
    @tool(aliases={"id": "draft_id"}, read_only=True, open_world=False, output=outputs.DraftShown)
    def get_draft(self, draft_id: str | None = None) -> ApiText:
        """Show a draft: id, recipients, subject, thread and its whole body.

        Args:
            draft_id: From create_draft or list_drafts.
        """
        if not draft_id:
            raise FixArguments("You did not provide a draft_id.", find_draft())
        resource = self.reader.drafts.get(draft_id.strip())
        draft = read_draft(resource)
        return ApiText(
            render.draft_summary(resource, draft), resource, facts.draft_data(resource, draft)
        )

    # Sending cannot be undone, consumes the draft and reaches other people.
    @needs_scopes(GMAIL_COMPOSE, GMAIL_READONLY)
    @tool(
        aliases={"id": "draft_id"},
        destructive=True,
        idempotent=False,
        open_world=True,
        output=outputs.DraftSent,
    )
    def send_draft(
        self, draft_id: str | None = None, recipients: list[str] | None = None
    ) -> ApiText:
        """Send a draft. This cannot be undone: the user should have approved it.

        Args:
            draft_id: From create_draft or list_drafts.
            recipients: All its To, Cc and Bcc addresses, e.g. ['ada@example.com'].
        """
        draft_id, draft = self._to_send(draft_id, recipients)
        sent = self.reader.drafts.send(draft_id)
        return render.sent_text(draft_id, sent, draft, self.account_note(), self.account)

    def confirmation(self, function: str, arguments: Mapping[str, Any]) -> str | None:
        """Before ``send_draft``: the draft's recipients, subject, attachments and first lines.

        The draft is read and checked as the call reads and checks it: a call that would
        fail (no such draft, no recipients, sending off) raises its guidance, and nothing
        is asked.
        """
        if function != "send_draft":
            return super().confirmation(function, arguments)
        draft_id, draft = self._to_send(arguments.get("draft_id"), arguments.get("recipients"))
        return questions.send(draft_id, draft, self.account)

    # -- helpers ------------------------------------------------------------------------

    def _to_send(self, draft_id: str | None, recipients: list[str] | None) -> tuple[str, Draft]:
        """The draft ``send_draft`` sends, read and checked: its id and its parts.

        Raises:
            ToolGuidance: Why it cannot be sent (sending off, no id, no such draft, no
                recipients, recipients not allowed or not the ones given).
        """
        if not self.allow_send:
            raise AskUser(
                "Sending is turned off for this agent (GmailToolSpec(allow_send=False)).",
                "Tell the user the draft id so they can review and send it in Gmail.",
            )
        if not draft_id:
            raise FixArguments("You did not provide a draft_id.", find_draft())
        draft_id = draft_id.strip()
        draft = read_draft(self.reader.drafts.get(draft_id))
        if not draft.recipients():
            if not offered("update_draft"):
                raise AskUser(
                    f"Draft {draft_id} has no recipients.",
                    "Tell the user, who can add them in Gmail.",
                )
            raise FixArguments(
                f"Draft {draft_id} has no recipients.",
                f"Add them with {ref('update_draft')}(draft_id='{draft_id}', to=[...]) first.",
            )
        check_allowed(draft, self.allowed_recipients)
        check_expected(draft_id, draft, recipients, self.confirm_recipients)
        return draft_id, draft

    def _folder(self) -> AttachmentFolder:
        """The allowed folder as this call attaches from it."""
        return AttachmentFolder(
            self.attachment_dir,
            self.max_attachment_size,
            functools.partial(sign_in_file, self.auth),
            self.account_note(),
        )

    def _saved(
        self,
        verb: str,
        saved: dict[str, Any],
        draft: Draft,
        note: str,
        *,
        removed: list[str] | None = None,
        forward: tuple[str, int] | None = None,
    ) -> ApiText:
        return render.saved_text(
            verb,
            saved,
            draft,
            note,
            account=self.account_note(),
            allow_send=self.allow_send and offered("send_draft"),
            confirm_recipients=self.confirm_recipients,
            account_name=self.account,
            removed=removed,
            forward=forward,
        )
