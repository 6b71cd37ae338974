"""Who a draft may go to: ``allowed_recipients``, and the recipients send_draft confirms."""

from __future__ import annotations

import fnmatch
from email.utils import parseaddr

from toolspecs.core import AskUser, FixArguments, fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.loaders.google.gmail_text import ADDRESS_LIMIT
from toolspecs.specs.gmail.compose import Draft, attachment_parts
from toolspecs.specs.gmail.draft_outputs import SavedFile, carried, people, subject_of
from toolspecs.specs.google_base import parse_addresses


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
        what = f"subject: {subject_of(draft)}; {carried(files)}"
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
