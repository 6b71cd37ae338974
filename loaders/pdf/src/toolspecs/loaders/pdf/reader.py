"""A llama-index reader of PDF files: one Document per page, read within the limits."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from toolspecs.loaders.pdf import pdftext

MAX_PDF_BYTES = 50 * 2**20
"""The largest PDF file read: 50 MB."""


class PDFUnreadable(ValueError):
    """A PDF that could not be read at all (too large, damaged, or its reading failed)."""


class PDFReader(BaseReader):
    """A PDF file (at most ``max_bytes``) read in a bounded child process within ``seconds``."""

    def __init__(self, max_bytes: int = MAX_PDF_BYTES, seconds: float = pdftext.MAX_SECONDS):
        self.max_bytes = max_bytes
        self.seconds = seconds

    def load_data(
        self, file: str | os.PathLike[str], extra_info: dict[str, Any] | None = None
    ) -> list[Document]:
        """A Document per page (metadata: ``file_name``, ``page``, ``page_count``, ``stopped``).

        Raises:
            PDFUnreadable: When the file is over ``max_bytes``, or no page of it could be read.
        """
        path = Path(file)
        with path.open("rb") as handle:
            data = handle.read(self.max_bytes + 1)
        if len(data) > self.max_bytes:
            raise PDFUnreadable(f"{path.name} is larger than {self.max_bytes:,} bytes")
        text = pdftext.read_pages(data, seconds=self.seconds)
        if text.error or not text.pages:
            why = text.error or text.stopped or "it has no pages"
            raise PDFUnreadable(f"{path.name} cannot be read: {why}")
        documents = [
            Document(
                text=page,
                metadata={
                    "file_name": path.name,
                    "page": number,
                    "page_count": text.page_count,
                    **(extra_info or {}),
                },
            )
            for number, page in enumerate(text.pages, start=1)
        ]
        if text.stopped and documents:
            documents[-1].metadata["stopped"] = text.stopped
        return documents
