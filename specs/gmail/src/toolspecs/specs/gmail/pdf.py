"""PDF attachments: read by the arXiv loader's bounded reader, within the call's deadline."""

from __future__ import annotations

from typing import Any

from toolspecs.core import AskUser, deadline

PDF_EXTRA = "toolspecs-gmail[pdf]"
"""What to install to read PDF attachments (pypdf, through the arXiv loader's reader)."""


def pdf_reader(shown: str) -> Any:
    """The arXiv loader's bounded PDF reader (``toolspecs-gmail[pdf]``), else guidance."""
    try:
        from toolspecs.loaders.arxiv.pdftext import read_pages
    except ImportError:
        raise AskUser(
            f"{shown} is a PDF, and this installation cannot read PDFs.",
            f"Do not retry: tell the user to install {PDF_EXTRA!r} (it adds pypdf).",
        ) from None
    return read_pages


def pdf_seconds() -> float:
    """Seconds a PDF may take to read: 20, or less when the call's deadline is nearer."""
    left = deadline.remaining()
    return 20.0 if left is None else max(min(20.0, left - 1.0), 0.5)
