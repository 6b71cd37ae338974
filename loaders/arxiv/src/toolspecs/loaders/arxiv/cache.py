"""A directory of downloaded papers, shared by calls and processes, bounded in size.

Each PDF is one file named by its versioned id (``1706.03762v7.pdf``; an old-style
id's ``/`` becomes ``_``): a version never changes, so a cached file never goes stale.
A file is written under a temporary name in the same directory and renamed into place
(``os.replace``, atomic on POSIX and Windows), so a reader, in this process or another,
sees the whole file or none: a half-written one is never read. A file that is not a
whole PDF (no ``%PDF`` head, no ``%%EOF`` near the end) is treated as missing. A read
takes only a regular file of at most :data:`MAX_PDF_BYTES`, opened without following a
link and without blocking (a FIFO or a device at a paper's name is a miss).

The cache deletes only what it wrote. It marks its directory with a ``CACHEDIR.TAG``
(the Cache Directory Tagging Specification, https://bford.info/cachedir/; backup tools
skip such directories). A directory that is new, empty or already tagged is the cache's
own; one that holds other files without the tag (``paper_cache="~/Papers"``) gets a
``toolspecs-arxiv/`` folder inside, and the cache lives there, so the user's own PDFs
are never counted or deleted. Eviction runs only in a tagged directory and only on the
names the cache gives (``1706.03762v7.pdf``, ``.toolspecs-*.part``).

The directory is bounded (``max_bytes``): after each write, the least recently used
files go first (a read marks a file used by its modification time). Two processes may
evict at once; each only deletes whole files, and a file deleted under a reader is
a miss, fetched again.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time
from pathlib import Path

__all__ = ["DEFAULT_MAX_BYTES", "MAX_PDF_BYTES", "PaperCache", "default_directory"]

DEFAULT_MAX_BYTES = 500 * 2**20
"""The default bound of the directory: 500 MB, about 250 papers."""
MAX_PDF_BYTES = 50 * 2**20
"""The largest PDF read, downloaded or from the cache: 50 MB."""
SUBFOLDER = "toolspecs-arxiv"
"""The cache's folder inside a directory that holds other files."""
TAG = "CACHEDIR.TAG"
_TAG_TEXT = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by toolspecs (arXiv papers).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_SUFFIX = ".pdf"
_PARTIAL_PREFIX = ".toolspecs-"
_PARTIAL = ".part"
_SAFE = re.compile(r"[^A-Za-z0-9.\-]")
# The names the cache gives, the only ones eviction deletes: a versioned id, new style
# (1706.03762v7) or old (hep-ex/0307015v1, math.AG/0601001v2, written with "_").
_OURS = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?_\d{7})v\d+\.pdf$")
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def default_directory() -> Path:
    """The per-user cache directory: platformdirs' ``user_cache_dir`` for toolspecs.

    On Linux ``$XDG_CACHE_HOME/toolspecs/arxiv`` (``~/.cache/toolspecs/arxiv``).
    """
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolspecs", appauthor=False)) / "arxiv"


class PaperCache:
    """PDFs by versioned arXiv id in ``directory``, at most ``max_bytes`` in all.

    Args:
        directory: Where the files live; made when the first file is written. If it
            holds other files and is not the cache's yet, the files live in its
            ``toolspecs-arxiv/`` folder (:attr:`home`).
        max_bytes: The most bytes the directory holds; the least recently used files
            are deleted past it.
    """

    def __init__(self, directory: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = Path(directory).expanduser()
        self.max_bytes = max(int(max_bytes), 0)

    def __repr__(self) -> str:
        return f"PaperCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    @property
    def home(self) -> Path:
        """Where the files live: :attr:`directory`, or its ``toolspecs-arxiv/`` folder.

        The directory itself when it is the cache's (tagged), new or empty; its folder
        when it holds other files (the user's own, never to be evicted).
        """
        if _tagged(self.directory):
            return self.directory
        try:
            with os.scandir(self.directory) as entries:
                if next(entries, None) is None:
                    return self.directory
        except OSError:  # not made yet (or unreadable: the write will say)
            return self.directory
        return self.directory / SUBFOLDER

    def path(self, paper_id: str) -> Path:
        """The file of ``paper_id`` (e.g. ``1706.03762v7``)."""
        return self.home / (_SAFE.sub("_", paper_id) + _SUFFIX)

    def get(self, paper_id: str) -> bytes | None:
        """The cached PDF of ``paper_id``, or ``None``; a hit counts as a use."""
        path = self.path(paper_id)
        data = _read_regular(path, min(self.max_bytes, MAX_PDF_BYTES))
        if data is None:  # missing, deleted by another process's eviction, or not a PDF
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
        if len(data) > min(self.max_bytes, MAX_PDF_BYTES) or not _whole(data):
            return
        try:
            home = self.home
            home.mkdir(parents=True, exist_ok=True)
            if not _tagged(home):
                (home / TAG).write_text(_TAG_TEXT, encoding="ascii")
            handle, temporary = tempfile.mkstemp(dir=home, prefix=_PARTIAL_PREFIX, suffix=_PARTIAL)
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.replace(temporary, home / self.path(paper_id).name)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
                raise
        except OSError:
            return
        self.evict()

    def evict(self) -> list[Path]:
        """Delete the least recently used papers until the cache is within its bound.

        Temporary files an interrupted write left behind (an hour old) go too. Only the
        cache's own files go: those it names, in a directory it tagged.
        """
        home = self.home
        if not _tagged(home):
            return []
        stale = time.time() - 3600
        entries = []
        with contextlib.suppress(OSError), os.scandir(home) as found:
            for entry in found:
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode):
                        continue
                    name = entry.name
                    if name.startswith(_PARTIAL_PREFIX) and name.endswith(_PARTIAL):
                        if info.st_mtime < stale:
                            os.unlink(entry.path)
                    elif _OURS.match(name):
                        entries.append((info.st_mtime, info.st_size, Path(entry.path)))
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


def _tagged(directory: Path) -> bool:
    """Whether ``directory`` holds the cache's ``CACHEDIR.TAG`` (not another tool's)."""
    try:
        with open(directory / TAG, "rb") as tag:
            return b"toolspecs" in tag.read(512)
    except OSError:
        return False


def _read_regular(path: Path, limit: int) -> bytes | None:
    """The bytes of ``path`` if it is a regular file of at most ``limit`` bytes, else None.

    Opened without following a link (``O_NOFOLLOW``) and without blocking
    (``O_NONBLOCK``: a FIFO opens at once and is refused), checked on the open file.
    """
    try:
        handle = os.open(path, _OPEN_FLAGS)
    except OSError:  # missing, a link (ELOOP), or unreadable
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        with os.fdopen(handle, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(handle)
    return data if len(data) <= limit else None


def _whole(data: bytes) -> bool:
    return data.startswith(b"%PDF") and b"%%EOF" in data[-1024:]
