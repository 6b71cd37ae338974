"""The PDF loader's read_pages: bounded in pages, characters, time and memory.

Issue 12's example: a 16 KB crafted PDF kept ``arxiv_paper_text`` busy for minutes and
hundreds of MB. The PDFs are written by the loader's own ``make_pdf`` and ``bomb_pdf``;
timings are only checked as "well before" a generous bound. (Moved from
tests/arxiv/test_arxiv_bounds.py with the reader; the spec's side stays there.)
"""

from __future__ import annotations

import time

from toolspecs.loaders.pdf import read_pages
from toolspecs.loaders.pdf.testing import bomb_pdf, make_pdf


def long_pages() -> list[list[str]]:
    """30 pages of six lines, about 450 characters each."""
    return [
        [
            f"Section {n}, line {line}: part {n} of the report, with words enough to fill it."
            for line in range(1, 7)
        ]
        for n in range(1, 31)
    ]


def test_a_crafted_pdf_is_stopped_at_the_time_limit_with_the_pages_read():
    pdf = bomb_pdf(pages=1000, chars=2_000_000)  # about 1 s a page: 15 minutes whole
    assert len(pdf) < 20_000
    started = time.monotonic()
    text = read_pages(pdf, seconds=3)
    assert time.monotonic() - started < 15
    assert text.page_count == 1000
    assert text.stopped == "reading it took over 3.0 s"
    assert len(text.pages) < 1000
    assert all(len(page) <= 30_000 for page in text.pages)  # each page cut at its cap


def test_a_pdf_over_the_memory_limit_is_stopped():
    text = read_pages(bomb_pdf(pages=3, chars=30_000_000), memory=150 * 2**20, seconds=30)
    assert "memory" in (text.stopped or text.error)


def test_pages_and_characters_are_capped():
    pdf = make_pdf(long_pages())  # 30 pages of about 400 characters
    few = read_pages(pdf, max_pages=5)
    assert (len(few.pages), few.page_count) == (5, 30)
    assert few.stopped == "only the first 5 pages are read"
    short = read_pages(pdf, max_chars=1200)
    assert sum(len(p) for p in short.pages) == 1200
    assert short.stopped == "the text is cut at 1,200 characters"
    cut = read_pages(pdf, max_page_chars=100)
    assert len(cut.pages) == 30 and cut.cut_pages == list(range(1, 31)) and not cut.stopped
    assert all(len(page) == 100 for page in cut.pages)


def test_a_whole_paper_is_read_whole():
    text = read_pages(make_pdf(long_pages()))
    assert (len(text.pages), text.page_count, text.stopped, text.error) == (30, 30, "", "")


def test_no_process_to_read_the_pdf_is_an_error_not_an_exception(monkeypatch):
    monkeypatch.setattr("toolspecs.loaders.pdf.pdftext.sys.executable", "/nonexistent/python")
    text = read_pages(make_pdf(long_pages()))
    assert text.pages == [] and text.error.startswith("no process could be started")
