"""Gmail messages as plain text, for the Documents :class:`GmailReader` gives RAG.

The text carries what a reader needs (llama-index drops metadata when a Document becomes
text). Header values and file names are put on one line, and nothing the sender wrote
can fake a body marker.
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Mapping
from typing import Any

from llama_index.core.schema import Document

from toolspecs.base.times import format_datetime
from toolspecs.loaders.google.headers import address_pairs, header_text
from toolspecs.loaders.google.mail import MailMessage, format_size

BODY_OPEN = "<<< mail body: quoted content from the mail >>>"
BODY_CLOSE = "<<< end of mail body >>>"


def plain_field(text: str, limit: int = 300) -> str:
    """A header value or file name on one line, short, without fence markers."""
    one = " ".join(str(text).replace("<<<", "< < <").replace(">>>", "> > >").split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"


def plain_quote(text: str, limit: int = 300) -> str:
    """A one-line value between ``«`` and ``»``, which it can no longer contain."""
    return f"«{plain_field(text.replace('«', '<').replace('»', '>'), limit)}»"


def plain_block(text: str) -> str:
    """A body between markers that say where it starts and ends; they cannot be faked."""
    safe = text.replace("<<<", "< < <").replace(">>>", "> > >")
    return f"{BODY_OPEN}\n{safe or '(empty)'}\n{BODY_CLOSE}"


ADDRESS_LIMIT = 2000  # To and Cc may list many people: the agent needs them all to reply
MAX_ATTACHMENTS_SHOWN = 50


def mail_moment(mail: MailMessage, resource: dict[str, Any]) -> dt.datetime | None:
    """When a mail was sent: its Date header, else Gmail's ``internalDate`` (UTC), else None."""
    moment = mail.date()
    if moment is None and resource.get("internalDate"):
        try:
            moment = dt.datetime.fromtimestamp(
                int(resource["internalDate"]) / 1000, dt.timezone.utc
            )
        except (ValueError, OverflowError, OSError):
            moment = None
    return moment


def mail_date(mail: MailMessage, resource: dict[str, Any], tz: dt.tzinfo | None) -> str:
    """The Date header with weekday and offset (in ``tz`` when given), else Gmail's time."""
    moment = mail_moment(mail, resource)
    if moment is None:
        return "unknown"
    try:
        return format_datetime(moment, tz)
    except (ValueError, OverflowError):  # a year 1 or 9999 Date moved into another zone
        return format_datetime(moment, None)


def sender_address(from_header: str) -> str:
    """The email address of a From header (``ada@example.com``), else the header, short."""
    pairs = [email for _, email in address_pairs(from_header) if email]
    return pairs[0] if pairs else from_header[:200] or "an unknown sender"


def describe_message(
    resource: dict[str, Any], mail: MailMessage, tz: dt.tzinfo | None = None
) -> str:
    """A whole message as plain text: ids, headers, attachments, the body between markers, notes."""
    message_id = resource.get("id", "?")
    lines = [f"Message id: {message_id} (thread {resource.get('threadId', '?')})"]
    for name in ("From", "To", "Cc", "Reply-To"):
        if mail.header(name):
            lines.append(f"{name}: {plain_field(mail.header(name), ADDRESS_LIMIT)}")
    lines.append(f"Date: {mail_date(mail, resource, tz)}")
    subject = plain_field(mail.header("subject"), 300) or "(no subject)"
    lines.append(f"Subject: {subject}")
    labels = [label for label in resource.get("labelIds", []) if label in {"UNREAD", "DRAFT"}]
    if labels:
        lines.append(f"Labels: {', '.join(labels)}")
    if mail.attachments:
        lines.append("Attachments: " + describe_attachments(mail, ids=True))
    body, notes = mail.readable()
    lines.append(plain_block(body))
    lines.extend(f"Note: {note}." for note in notes)
    return "\n".join(lines)


def describe_attachments(mail: MailMessage, ids: bool = False) -> str:
    """``Q4 report.pdf (application/pdf, 3 KB); …``; with ``ids``, each ``[attachment_id: 1]``."""
    shown = [
        f"{plain_field(a.filename, 200)} ({plain_field(a.content_type, 100)}, "
        f"{format_size(a.size)})" + (f" [attachment_id: {a.part_id}]" if ids and a.part_id else "")
        for a in mail.attachments[:MAX_ATTACHMENTS_SHOWN]
    ]
    more = len(mail.attachments) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def summary_headers(resource: dict[str, Any]) -> dict[str, str]:
    """Decoded headers of a ``format=metadata`` message, by lower-case name."""
    found: dict[str, str] = {}
    for header in resource.get("payload", {}).get("headers", []):
        key = str(header.get("name", "")).lower()
        if key and key not in found:
            found[key] = header_text(key, str(header.get("value", "")))
    return found


def describe_summary(resource: dict[str, Any], tz: dt.tzinfo | None = None) -> str:
    """One search hit in three lines: ids, date, from, subject and Gmail's snippet."""
    headers = summary_headers(resource)
    mail = MailMessage(headers=headers)
    unread = " (unread)" if "UNREAD" in resource.get("labelIds", []) else ""
    snippet = html.unescape(str(resource.get("snippet", ""))[:2000])
    sender = ", ".join(mail.addresses("from")) or headers.get("from", "?")
    subject = plain_field(headers.get("subject", ""), 300) or "(no subject)"
    return (
        f"[id: {resource.get('id', '?')} | thread: {resource.get('threadId', '?')}]{unread} "
        f"{mail_date(mail, resource, tz)}\n"
        f"From: {plain_field(sender, 300)} | Subject: {subject}\n"
        f"Snippet (quoted mail): {plain_quote(snippet, 300)}"
    )


def message_metadata(resource: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """A message Document's metadata: LlamaHub's keys (id, threadId, snippet), the headers."""
    return {
        "id": resource.get("id", ""),
        "threadId": resource.get("threadId", ""),
        "snippet": html.unescape(resource.get("snippet", "")),
        "from": headers.get("from", ""),
        "subject": headers.get("subject", ""),
        "date": headers.get("date", ""),
    }


def mail_document(
    resource: dict[str, Any], headers: Mapping[str, str], text: str, message_id: str = ""
) -> Document:
    """A message's Document: ``text``, its id ``gmail:<id>``, :func:`message_metadata`."""
    return Document(
        text=text,
        id_=f"gmail:{resource.get('id', message_id)}",
        metadata=message_metadata(resource, headers),
    )
