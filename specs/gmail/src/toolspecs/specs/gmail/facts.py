"""The facts of the Gmail replies as data: people, files, times, Documents that carry them.

:mod:`toolspecs.specs.gmail.render` writes each reply's text and, beside it, its data
(:mod:`toolspecs.specs.gmail.outputs`) from the same values with these helpers.
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
from toolspecs.loaders.google.gmail_text import MAX_ATTACHMENTS_SHOWN
from toolspecs.loaders.google.headers import address_pairs
from toolspecs.specs.gmail import outputs
from toolspecs.specs.gmail.compose import part_name, part_size


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
    """The instant :func:`mail_date` shows, as ISO 8601 in the zone it shows (else ``None``)."""
    moment = mail.date()
    if moment is None and resource.get("internalDate"):
        try:
            moment = dt.datetime.fromtimestamp(
                int(resource["internalDate"]) / 1000, dt.timezone.utc
            )
        except (ValueError, OverflowError, OSError):
            moment = None
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
    """The attachments :func:`attachments_text` shows, and how many more it counts."""
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
    """The files :func:`carried` names, as data."""
    return [
        outputs.SavedFile(filename=Quoted(text=part_name(p) or "(no name)"), size=part_size(p))
        for p in parts
    ]
