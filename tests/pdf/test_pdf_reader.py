"""PDFReader: a llama-index reader of PDF files, one Document per page, within the limits."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

import pytest
from llama_index.core.readers.base import BaseReader

import toolspecs.loaders.pdf as pdf
from toolspecs.loaders.pdf import PDFReader, PDFUnreadable
from toolspecs.loaders.pdf.testing import bomb_pdf, make_pdf

LOADER = Path(__file__).parents[2] / "loaders" / "pdf"


def test_all_names_what_is_public():
    public = {name for name in vars(pdf) if not name.startswith("_")}
    assert set(pdf.__all__) == public - {"pdftext", "reader", "testing"}


def test_one_document_per_page_with_its_number(tmp_path):
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf([["First page."], ["Second page."]]))
    reader = PDFReader()
    assert isinstance(reader, BaseReader)
    docs = reader.load_data(path, extra_info={"source": "mail"})
    assert [d.text.strip() for d in docs] == ["First page.", "Second page."]
    assert docs[1].metadata == {
        "file_name": "report.pdf",
        "page": 2,
        "page_count": 2,
        "source": "mail",
    }


def test_a_pdf_stopped_early_says_why_on_its_last_page(tmp_path):
    path = tmp_path / "long.pdf"
    path.write_bytes(make_pdf([[f"Page {n}."] for n in range(1, 8)]))
    docs = PDFReader().load_data(str(path))
    assert len(docs) == 7 and "stopped" not in docs[-1].metadata
    path.write_bytes(make_pdf([["x" * 20_000] for _ in range(30)]))  # 600,000 characters
    docs = PDFReader().load_data(path)
    # 25 pages whole, then the 26th cut to the room left (none).
    assert len(docs) == 26 and docs[-1].text == "" and docs[-1].metadata["page_count"] == 30
    assert docs[-1].metadata["stopped"] == "the text is cut at 500,000 characters"


def test_too_large_or_damaged_raises_its_own_error(tmp_path):
    path = tmp_path / "big.pdf"
    path.write_bytes(make_pdf([["x"]]))
    with pytest.raises(PDFUnreadable, match=r"big\.pdf is larger than 100 bytes"):
        PDFReader(max_bytes=100).load_data(path)
    path.write_bytes(b"%PDF-1.4\n" + b"noise" * 100)
    with pytest.raises(PDFUnreadable, match=r"big\.pdf cannot be read: the PDF is damaged"):
        PDFReader().load_data(path)
    path.write_bytes(bomb_pdf(pages=5, chars=30_000_000))  # no page read within 1 s
    with pytest.raises(PDFUnreadable, match=r"big\.pdf cannot be read: reading it"):
        PDFReader(seconds=1).load_data(path)


def test_the_loader_imports_and_reads_without_toolspecs_core():
    code = (
        "import sys\n"
        "from toolspecs.loaders.pdf import read_pages\n"
        "from toolspecs.loaders.pdf.testing import make_pdf\n"
        "assert read_pages(make_pdf([['alone']])).pages[0].strip() == 'alone'\n"
        "ours = sorted(m for m in sys.modules if m.startswith('toolspecs.')\n"
        "              and not m.startswith('toolspecs.loaders.pdf'))\n"
        "assert ours == ['toolspecs.loaders'], ours\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_it_depends_on_no_package_of_ours():
    needs = requires("toolspecs-loader-pdf") or []
    assert [n for n in needs if n.startswith("toolspecs")] == [], needs
    assert any(n.startswith("pypdf") for n in needs), needs
    for source in (LOADER / "src").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "toolspecs.core" not in text and "toolspecs.loaders.arxiv" not in text, source


def test_the_package_page_example_runs():
    import re

    page = LOADER / "README.md"
    (code,) = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    exec(compile(code, str(page), "exec"), {"__name__": "readme"})
