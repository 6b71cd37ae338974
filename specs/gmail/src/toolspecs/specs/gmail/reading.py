"""Reading threads and attachments through the Gmail client, for get_thread and read_attachment."""

from __future__ import annotations

import re
from typing import Any

from toolspecs.core import AskUser, FixArguments, deadline, fence, ref
from toolspecs.core.prefixed import offered
from toolspecs.loaders.google import GmailReader, GoogleApiError, GoogleResponseError
from toolspecs.loaders.google.gmail import size_estimate, summary_headers
from toolspecs.loaders.google.mail import (
    AttachmentPart,
    attachment_parts,
    attachment_text,
    decode_data,
    find_attachment,
    format_size,
    kind_of,
)
from toolspecs.specs.gmail.outputs import AttachmentRead
from toolspecs.specs.google_base.spec import CHECK_IDS


def ids_hint() -> str:
    """Where Gmail's ids come from (a 404's ``{ids_hint}``), naming the tools offered."""
    found = []
    if offered("search_messages"):
        found.append(f"Message ids come from {ref('search_messages')} ([id: ...])")
    drafts = [ref("list_drafts")] if offered("list_drafts") else []
    if offered("create_draft"):
        drafts.append(f"from the reply of {ref('create_draft')}")
    if drafts:
        found.append(f"{'draft' if found else 'Draft'} ids from {' or '.join(drafts)}")
    return "; ".join(found) + "." if found else CHECK_IDS


def id_shown(shows: str) -> str:
    """Where an id that was not one comes from: ``search_messages lists [id: ...]``."""
    if offered("search_messages"):
        return f"{ref('search_messages')} lists {shows}"
    return "Send the id alone, as a reply showed it (e.g. '18f3a2c4d5e605d9')"


_EARLIER = "If you created or read the draft earlier, its id is in the conversation; "


def find_draft(*, earlier: bool = False) -> str:
    """Where a missing draft id comes from: ``list_drafts``, or (``earlier``) the conversation."""
    if not offered("list_drafts"):
        return f"{_EARLIER}otherwise ask the user which draft they mean."
    if earlier:
        return f"{_EARLIER}otherwise call {ref('list_drafts')}."
    return f"Call {ref('list_drafts')} to find it."


MAX_THREAD_MESSAGES = 100
"""Messages of one thread read (Gmail keeps at most 100 in a thread)."""
MAX_THREAD_BYTES = 32 * 1024 * 1024
"""What the messages get_thread reads may take together, by Gmail's ``sizeEstimate``
(the first message is read whatever its size, as get_message would)."""
PDF_EXTRA = "toolspecs-gmail[pdf]"
"""What to install to read PDF attachments (pypdf, through the PDF loader's reader)."""
_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def find_thread(client: GmailReader, wanted: str) -> tuple[dict[str, Any], str]:
    """The thread ``wanted`` names (its id or a message's), and ``wanted`` if a message's."""
    try:
        return client.thread(wanted), ""
    except GoogleApiError as exc:
        if exc.status != 404:
            raise
    # Not a thread id: perhaps a message's (the first message's id is its thread's).
    try:
        message = client.get_summary(wanted)
    except GoogleApiError as missing:
        if missing.status != 404:
            raise
        raise FixArguments(
            f"There is no thread or message with id {wanted}.",
            f"Take the thread id from {ref('search_messages')} ([id: ... | thread: ...])."
            if offered("search_messages")
            else "Check the id: a reply that listed the mail shows it as [id: ... | thread: ...].",
        ) from None
    thread = client.thread(str(message.get("threadId", wanted)))
    return thread, wanted


def thread_share(stubs: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The ids of a thread's messages read whole (bounded), oldest first, and why the rest not."""
    ids: list[str] = []
    total = 0
    for stub in stubs[:MAX_THREAD_MESSAGES]:
        size = size_estimate(stub)
        if ids and total + size > MAX_THREAD_BYTES:
            break  # the raw messages are held at once: stop before memory runs away
        ids.append(str(stub["id"]))
        total += size
    why = (
        f"at most {MAX_THREAD_MESSAGES} are read"
        if len(ids) == MAX_THREAD_MESSAGES
        else f"the next would take the thread over {format_size(MAX_THREAD_BYTES)}"
    )
    return ids, why


def read_attachment(
    client: GmailReader, message_id: str, attachment_id: str, limit: int
) -> AttachmentRead:
    """The text of an attachment (PDF, plain text, CSV, HTML) of at most ``limit`` bytes."""
    resource = client.payload(message_id)
    parts = attachment_parts(resource.get("payload") or {})
    if not parts:
        raise FixArguments(
            f"Message {message_id} has no attachments.",
            "Search with 'has:attachment' to find mail that has some.",
        )
    part = find_attachment(parts, attachment_id)
    if part is None:
        raise FixArguments(
            f"Message {message_id} has no attachment {fence.quote(attachment_id, 100)}.",
            f"Its attachments: {_listing(parts)}. Pass one of these attachment_id values.",
        )
    shown = _shown(part)
    kind = kind_of(part.mime_type, part.filename)
    if kind is None:
        raise AskUser(
            f"{shown} is not a file {ref('read_attachment')} reads: it reads the text of PDF, "
            "plain text, CSV and HTML files.",
            "Do not retry: tell the user the file's name so they can open it in Gmail.",
        )
    too_large = AskUser(
        f"{shown} is over the {format_size(limit)} {ref('read_attachment')} downloads.",
        "Do not retry: tell the user the file's name so they can open it in Gmail.",
    )
    if part.size > limit:
        raise too_large
    reader = _pdf_reader(shown) if kind == "pdf" else None
    data = part.data or client.attachment_data(message_id, part.attachment_id)
    if len(data) * 3 // 4 > limit + 3:  # Gmail's size was wrong: still not decoded
        raise too_large
    content = decode_data(data)
    if content is None:
        raise GoogleResponseError("Google's attachment data is not base64")
    read = attachment_text(content, kind, part.charset, _pdf_seconds(), reader)
    return AttachmentRead.of(message_id, part, read, summary_headers(resource))


def one_id(value: str, name: str, where: str) -> str:
    """An id as agents send it (``[id: 18f…]``, quoted, padded), checked."""
    text = value.strip().strip("[]'\"").strip()
    text = re.sub(r"^(id|thread|message)\s*:\s*", "", text, flags=re.I)
    if not _ID.fullmatch(text):
        raise FixArguments(f"{fence.quote(value, 100)} is not a Gmail id ({name}).", f"{where}.")
    return text


def message_ids_given(values: list[str]) -> list[str]:
    """Message ids as agents send them: a list, or ids in one string, each checked."""
    found = []
    for value in values:
        for piece in str(value).split():
            piece = piece.strip(",")
            if piece:
                found.append(one_id(piece, "message_ids", id_shown("[id: ...]")))
    return found


def _shown(part: AttachmentPart) -> str:
    name = fence.field(part.filename, 200)
    return f"{name} ({fence.field(part.mime_type, 100)}, {format_size(part.size)})"


def _listing(parts: list[AttachmentPart]) -> str:
    shown = [
        f"{_shown(p)} [attachment_id: {p.part_id or fence.field(p.filename, 200)}]"
        for p in parts[:20]
    ]
    more = f"; and {len(parts) - 20} more" if len(parts) > 20 else ""
    return "; ".join(shown) + more


def _pdf_reader(shown: str) -> Any:
    try:
        from toolspecs.loaders.pdf.pdftext import read_pages
    except ImportError:
        raise AskUser(
            f"{shown} is a PDF, and this installation cannot read PDFs.",
            f"Do not retry: tell the user to install {PDF_EXTRA!r} (it adds pypdf).",
        ) from None
    return read_pages


def _pdf_seconds() -> float:
    left = deadline.remaining()
    return 20.0 if left is None else max(min(20.0, left - 1.0), 0.5)
