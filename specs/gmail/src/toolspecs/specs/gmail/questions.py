"""What a person is asked before a draft is sent: who receives what.

The person reads the draft's own words, bounded and unable to pass for our lines: header
values and file names one cleaned line each, the body quoted after ``> ``.
"""

from __future__ import annotations

from toolspecs.core import bounds, fence
from toolspecs.loaders.google import MailMessage
from toolspecs.loaders.google.mail import format_size
from toolspecs.specs.gmail.compose import Draft

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


def send(draft_id: str, draft: Draft, account: str | None = None) -> str:
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
