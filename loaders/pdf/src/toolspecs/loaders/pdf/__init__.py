"""The text of PDFs, read in a child process bounded in time, memory, pages and characters.

- :func:`read_pages` (:mod:`toolspecs.loaders.pdf.pdftext`): a PDF's bytes to its pages'
  text, its page count, its bookmarks and why the reading stopped early, if it did.
- :class:`PDFReader`: a llama-index reader, one Document per page of a PDF file.
- :mod:`toolspecs.loaders.pdf.testing`: small PDFs for tests (``make_pdf``, ``bomb_pdf``).

No dependency on toolspecs-core, no agent wording: the arXiv loader and the Gmail spec
read PDFs with it.
"""

from toolspecs.loaders.pdf.pdftext import PdfText, read_pages
from toolspecs.loaders.pdf.reader import PDFReader, PDFUnreadable

__all__ = ["PDFReader", "PDFUnreadable", "PdfText", "read_pages"]
