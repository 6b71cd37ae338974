"""A directory of downloaded papers, shared by calls and processes, bounded in size.

Each PDF is one file named by its versioned id (``1706.03762v7.pdf``; an old-style
id's ``/`` becomes ``_``): a version never changes, so a cached file never goes stale.
A file is written under a temporary name in the same directory and renamed into place
(``os.replace``, atomic on POSIX and Windows), so a reader, in this process or another,
sees the whole file or none: a half-written one is never read. A file that is not a
whole PDF (no ``%PDF`` head, no ``%%EOF`` near the end) is treated as missing.

The directory is bounded (``max_bytes``): after each write, the least recently used
files go first (a read marks a file used by its modification time). Two processes may
evict at once; each only deletes whole files, and a file deleted under a reader is
a miss, fetched again.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

__all__ = ["DEFAULT_MAX_BYTES", "PaperCache", "default_directory"]

DEFAULT_MAX_BYTES = 500 * 2**20
"""The default bound of the directory: 500 MB, about 250 papers."""
_SUFFIX = ".pdf"
_PARTIAL = ".part"
_SAFE = re.compile(r"[^A-Za-z0-9.\-]")


def default_directory() -> Path:
    """The per-user cache directory: platformdirs' ``user_cache_dir`` for toolspecs.

    On Linux ``$XDG_CACHE_HOME/toolspecs/arxiv`` (``~/.cache/toolspecs/arxiv``).
    """
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolspecs", appauthor=False)) / "arxiv"


class PaperCache:
    """PDFs by versioned arXiv id in ``directory``, at most ``max_bytes`` in all.

    Args:
        directory: Where the files live; made when the first file is written.
        max_bytes: The most bytes the directory holds; the least recently used files
            are deleted past it.
    """

    def __init__(self, directory: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = Path(directory).expanduser()
        self.max_bytes = max(int(max_bytes), 0)

    def __repr__(self) -> str:
        return f"PaperCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    def path(self, paper_id: str) -> Path:
        """The file of ``paper_id`` (e.g. ``1706.03762v7``)."""
        return self.directory / (_SAFE.sub("_", paper_id) + _SUFFIX)

    def get(self, paper_id: str) -> bytes | None:
        """The cached PDF of ``paper_id``, or ``None``; a hit counts as a use."""
        path = self.path(paper_id)
        try:
            data = path.read_bytes()
        except OSError:  # missing, or deleted by another process's eviction
            return None
        if not _whole(data):
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # most recently used
        return data

    def put(self, paper_id: str, data: bytes) -> None:
        """Store ``data`` as the PDF of ``paper_id``, then evict past the bound.

        A cache that cannot be written (a read-only or full disk) is skipped: the paper
        was read, only not kept.
        """
        if len(data) > self.max_bytes or not _whole(data):
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".", suffix=_PARTIAL)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, self.path(paper_id))
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            return
        self.evict()

    def evict(self) -> list[Path]:
        """Delete the least recently used PDFs until the directory is within its bound.

        Temporary files an interrupted write left behind (an hour old) go too.
        """
        stale = time.time() - 3600
        for partial in self.directory.glob(".*" + _PARTIAL):
            with contextlib.suppress(OSError):
                if partial.stat().st_mtime < stale:
                    partial.unlink()
        entries = []
        for path in self.directory.glob("*" + _SUFFIX):
            with contextlib.suppress(OSError):
                info = path.stat()
                entries.append((info.st_mtime, info.st_size, path))
        total = sum(size for _, size, _ in entries)
        removed = []
        for _, size, path in sorted(entries):
            if total <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                path.unlink()
                removed.append(path)
            total -= size
        return removed


def _whole(data: bytes) -> bool:
    return data.startswith(b"%PDF") and b"%%EOF" in data[-1024:]
