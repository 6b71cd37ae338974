"""The local cache of downloaded papers (issue 15): reused across specs and processes,
bounded (least recently used out), written atomically, and set or off in the constructor.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolspecs.loaders.arxiv import PaperCache, default_directory
from toolspecs.loaders.arxiv.testing import FakeArxiv, make_pdf
from toolspecs.specs.arxiv import ArxivToolSpec


def pdf_requests(arxiv: FakeArxiv) -> int:
    return sum("/pdf/" in (request.url or "") for request in arxiv.requests)


def test_two_specs_share_the_cache_directory_so_a_paper_is_downloaded_once(tmp_path):
    arxiv = FakeArxiv()
    first = ArxivToolSpec(transport=arxiv.transport(), paper_cache=tmp_path)
    assert first.call_tool("arxiv_paper_text", paper_id="1706.03762").is_error is False
    assert pdf_requests(arxiv) == 1
    assert (tmp_path / "1706.03762v7.pdf").read_bytes().startswith(b"%PDF")

    second = ArxivToolSpec(transport=arxiv.transport(), paper_cache=str(tmp_path))
    for tool, arguments in [
        ("arxiv_paper_text", {"paper_id": "1706.03762"}),
        ("arxiv_paper_outline", {"paper_id": "1706.03762"}),
        ("arxiv_paper_section", {"paper_id": "1706.03762", "section": "3"}),
    ]:
        assert second.call_tool(tool, **arguments).is_error is False
    assert pdf_requests(arxiv) == 1  # only the id lookups went to arXiv
    assert len(arxiv.requests) == 5


def test_off_in_the_constructor_downloads_every_time(tmp_path):
    arxiv = FakeArxiv()
    spec = ArxivToolSpec(transport=arxiv.transport(), paper_cache=False)
    for _ in range(2):
        assert spec.call_tool("arxiv_paper_outline", paper_id="1706.03762").is_error is False
    assert pdf_requests(arxiv) == 2


def test_the_default_is_the_per_user_cache_dir_on_arxiv_and_none_on_a_fake(tmp_path, monkeypatch):
    monkeypatch.delenv("TOOLSPECS_ARXIV_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_directory() == tmp_path / "xdg" / "toolspecs" / "arxiv"
    assert ArxivToolSpec().reader.cache.directory == tmp_path / "xdg" / "toolspecs" / "arxiv"
    assert ArxivToolSpec(transport=FakeArxiv()).reader.cache is None  # a fake's PDFs stay out
    assert ArxivToolSpec(paper_cache=False).reader.cache is None
    monkeypatch.setenv("TOOLSPECS_ARXIV_CACHE", "off")
    assert ArxivToolSpec().reader.cache is None
    spec = ArxivToolSpec(transport=FakeArxiv(), paper_cache=True, paper_cache_mb=1)
    assert (spec.reader.cache.directory, spec.reader.cache.max_bytes) == (
        default_directory(),
        2**20,
    )


def pdf(label: str, size: int = 0) -> bytes:
    return make_pdf([[label, "x" * size]])


def test_the_least_recently_used_papers_go_past_the_bound(tmp_path):
    a, b, c = pdf("a"), pdf("b"), pdf("c")
    cache = PaperCache(tmp_path, max_bytes=len(a) + len(b) + 10)
    cache.put("1111.00001v1", a)
    cache.put("1111.00002v1", b)
    old = 1_700_000_000
    os.utime(tmp_path / "1111.00001v1.pdf", (old, old))
    os.utime(tmp_path / "1111.00002v1.pdf", (old + 1, old + 1))
    assert cache.get("1111.00001v1") == a  # used: now the most recent
    cache.put("1111.00003v1", c)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["1111.00001v1.pdf", "1111.00003v1.pdf"]
    assert cache.get("1111.00002v1") is None
    cache.put("hep-ex/0307015v1", pdf("big", 5000))  # larger than the bound: not kept
    assert cache.get("hep-ex/0307015v1") is None


def test_a_half_written_file_is_never_read(tmp_path, monkeypatch):
    whole = pdf("whole")
    (tmp_path / ".tmpabc.part").write_bytes(whole[:50])  # another process, mid-write
    cut = tmp_path / "1706.03762v7.pdf"
    cut.write_bytes(whole[: len(whole) // 2])  # not ours: a copy cut short by hand
    cache = PaperCache(tmp_path)
    assert cache.get("1706.03762v7") is None
    assert not cut.exists()

    def interrupted(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("toolspecs.loaders.arxiv.cache.os.replace", interrupted)
    cache.put("1706.03762v7", whole)  # fails quietly: the paper was read, only not kept
    assert sorted(p.name for p in tmp_path.iterdir()) == [".tmpabc.part"]


def test_a_damaged_pdf_is_not_kept(tmp_path):
    arxiv = FakeArxiv()
    arxiv.fail += ["ok", "damaged"]
    spec = ArxivToolSpec(transport=arxiv.transport(), paper_cache=tmp_path)
    assert spec.call_tool("arxiv_paper_text", paper_id="1706.03762").is_error is True
    assert list(tmp_path.glob("*.pdf")) == []


def test_another_process_reads_what_this_one_wrote(tmp_path):
    arxiv = FakeArxiv()
    spec = ArxivToolSpec(transport=arxiv.transport(), paper_cache=tmp_path)
    assert spec.call_tool("arxiv_paper_text", paper_id="1810.04805").is_error is False
    child = (
        "import sys; from toolspecs.loaders.arxiv import PaperCache\n"
        "data = PaperCache(sys.argv[1]).get('1810.04805v2')\n"
        "print(len(data) if data else 0)"
    )
    out = subprocess.run(
        [sys.executable, "-c", child, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert int(out.stdout) == len((Path(tmp_path) / "1810.04805v2.pdf").read_bytes()) > 0


@pytest.mark.parametrize("paper_id", ["1706.03762v7", "hep-ex/0307015v1", "../../etc/passwd"])
def test_file_names_stay_in_the_directory(tmp_path, paper_id):
    path = PaperCache(tmp_path).path(paper_id)
    assert path.parent == tmp_path and "/" not in path.name
