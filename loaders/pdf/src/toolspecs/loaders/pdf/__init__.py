"""The text of PDFs, read in a child process bounded in time, memory, pages and characters.

Used by the arXiv loader and the Gmail spec; small PDFs for tests are in ``.testing``.
"""

from toolspecs.loaders.pdf.pdftext import PdfText, read_pages
from toolspecs.loaders.pdf.reader import PDFReader, PDFUnreadable

__all__ = ["PDFReader", "PDFUnreadable", "PdfText", "read_pages"]
