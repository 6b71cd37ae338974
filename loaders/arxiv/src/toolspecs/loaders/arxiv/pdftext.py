"""Moved: a PDF's text is read by toolspecs-loader-pdf (:mod:`toolspecs.loaders.pdf.pdftext`).

The names stay importable from here for code written against this module.
"""

from __future__ import annotations

from toolspecs.loaders.pdf.pdftext import (
    MAX_CHARS,
    MAX_MEMORY,
    MAX_OUTLINE,
    MAX_PAGE_CHARS,
    MAX_PAGES,
    MAX_SECONDS,
    MAX_TITLE_CHARS,
    PdfText,
    read_pages,
)

__all__ = [
    "MAX_CHARS",
    "MAX_MEMORY",
    "MAX_OUTLINE",
    "MAX_PAGES",
    "MAX_PAGE_CHARS",
    "MAX_SECONDS",
    "MAX_TITLE_CHARS",
    "PdfText",
    "read_pages",
]
