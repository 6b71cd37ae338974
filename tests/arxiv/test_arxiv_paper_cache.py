"""The local cache of downloaded papers (issue 15): reused across specs and processes,
bounded (least recently used out), written atomically, and set or off in the constructor.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from toolspecs.loaders.arxiv import PaperCache, default_directory
from toolspecs.loaders.arxiv.cache import MAX_PDF_BYTES
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
    assert sorted(p.name for p in tmp_path.glob("*.pdf")) == [
        "1111.00001v1.pdf",
        "1111.00003v1.pdf",
    ]
    assert cache.get("1111.00002v1") is None
    cache.put("hep-ex/0307015v1", pdf("big", 5000))  # larger than the bound: not kept
    assert cache.get("hep-ex/0307015v1") is None


def test_a_write_cut_short_leaves_nothing_under_the_papers_name(tmp_path, monkeypatch):
    """A reader (here, mid-write) sees the whole file or none: the write goes elsewhere."""
    whole = pdf("whole")
    cache = PaperCache(tmp_path)
    seen_mid_write = []

    class DiskFull:
        def __init__(self, handle):
            self.out = open(handle, "wb")  # noqa: SIM115 - closed in __exit__

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.out.close()

        def write(self, data):
            self.out.write(data[: len(data) // 2])
            self.out.flush()
            seen_mid_write.append((cache.path("1706.03762v7").exists(), cache.get("1706.03762v7")))
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("toolspecs.loaders.arxiv.cache.os.fdopen", lambda h, mode: DiskFull(h))
    cache.put("1706.03762v7", whole)  # fails quietly: the paper was read, only not kept
    assert seen_mid_write == [(False, None)]
    monkeypatch.undo()
    assert cache.get("1706.03762v7") is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["CACHEDIR.TAG"]  # no .part left

    def interrupted(source, target, **dir_fds):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("toolspecs.loaders.arxiv.cache.os.replace", interrupted)
    cache.put("1706.03762v7", whole)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["CACHEDIR.TAG"]


def test_a_pdf_cut_short_by_hand_is_treated_as_missing(tmp_path):
    """Not the cache's writes (those are atomic): a copy cut short outside it."""
    whole = pdf("whole")
    PaperCache(tmp_path).put("1111.00001v1", pdf("other"))
    cut = tmp_path / "1706.03762v7.pdf"
    cut.write_bytes(whole[: len(whole) // 2])
    cut.chmod(0o600)  # as the cache makes its files: one it would trust, but cut short
    assert PaperCache(tmp_path).get("1706.03762v7") is None
    assert not cut.exists()


def test_eviction_never_deletes_the_users_own_files(tmp_path):
    papers = tmp_path / "Papers"
    papers.mkdir()
    own = {"thesis.pdf": pdf("thesis", 3000), "1706.03762v7.pdf": pdf("saved by hand", 3000)}
    for name, data in own.items():
        (papers / name).write_bytes(data)
    cache = PaperCache(papers, max_bytes=len(pdf("a")) + 10)
    for n in range(1, 4):
        cache.put(f"1111.0000{n}v1", pdf("a"))
    assert {name: (papers / name).read_bytes() for name in own} == own  # untouched
    assert cache.home == papers / "toolspecs-arxiv"
    assert sorted(p.name for p in cache.home.iterdir()) == ["1111.00003v1.pdf", "CACHEDIR.TAG"]
    # and in its own directory, a file it did not name is not its to delete
    (cache.home / "notes.pdf").write_bytes(pdf("notes", 3000))
    cache.put("1111.00004v1", pdf("a"))
    assert (cache.home / "notes.pdf").exists()
    assert PaperCache(papers).get("1111.00004v1") == pdf("a")  # found again by another


def test_a_directory_without_the_tag_is_not_evicted(tmp_path):
    (tmp_path / "1111.00001v1.pdf").write_bytes(pdf("a"))
    assert PaperCache(tmp_path, max_bytes=0).evict() == []
    assert (tmp_path / "1111.00001v1.pdf").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs and links")
def test_a_read_takes_only_a_regular_file_of_bounded_size(tmp_path):
    cache = PaperCache(tmp_path)
    cache.put("1111.00001v1", pdf("a"))
    secret = tmp_path.parent / f"{tmp_path.name}-secret.pdf"
    secret.write_bytes(pdf("private"))
    os.symlink(secret, cache.path("1706.03762v7"))
    assert cache.get("1706.03762v7") is None
    assert secret.exists()

    os.mkfifo(cache.path("1810.04805v2"))
    got = []
    reader = threading.Thread(target=lambda: got.append(cache.get("1810.04805v2")), daemon=True)
    reader.start()
    reader.join(30)  # a hang guard, not a timing: the read must not wait for a writer
    if reader.is_alive():  # free the stuck reader before failing
        with open(cache.path("1810.04805v2"), "wb"):
            pass
    assert got == [None]

    huge = cache.path("2101.00001v1")
    with open(huge, "wb") as out:  # sparse: a PDF head, 50 MB of nothing, a PDF tail
        out.write(b"%PDF-1.4\n")
        out.seek(MAX_PDF_BYTES)
        out.write(b"\n%%EOF\n")
    assert cache.get("2101.00001v1") is None


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
