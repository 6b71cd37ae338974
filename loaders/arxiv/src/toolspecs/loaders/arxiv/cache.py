"""A directory of downloaded papers, shared by calls and processes, bounded in size.

Each PDF is one file named by its versioned id (``1706.03762v7.pdf``): it never goes
stale. The cache deletes only what it wrote: its directory carries a ``CACHEDIR.TAG``
(https://bford.info/cachedir/); one holding other files without it (``~/Papers``) gets a
``toolspecs-arxiv/`` folder for the cache.

The folder must be the user's alone: another local user could otherwise plant a paper,
or turn a write onto the user's files through a link. It is made ``0700``; one that is a
link, another user's, or writable by group or others is refused
(:class:`~toolspecs.loaders.arxiv.errors.UnsafeCacheFolder`), checked on the opened
folder, and every file is then opened, made, renamed and deleted relative to it
(``dir_fd``), so a swap after the check changes nothing. Files are made new
(``O_CREAT | O_EXCL | O_NOFOLLOW``, ``0600``) and renamed into place: a link at a name is
replaced, never followed. A paper is served only from a file the cache could have
written (regular, the user's, one link, ``0600``), opened without following a link or
blocking. POSIX permissions only: on Windows only links are refused.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from toolspecs.base.files import CREATE_FLAGS, FOLDER_FLAGS, READ_FLAGS
from toolspecs.loaders.arxiv.errors import UnsafeCacheFolder

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
# The names the cache gives, the only ones eviction deletes: a versioned id, new or old.
_OURS = re.compile(r"^(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?_\d{7})v\d+\.pdf$")
# POSIX: owners and modes to check, and folders to open and work relative to (dir_fd).
_POSIX = hasattr(os, "geteuid") and hasattr(os, "O_DIRECTORY")
_AT = _POSIX and {os.open, os.unlink, os.rename} <= os.supports_dir_fd  # os.replace too
_GROUP_OR_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
_NOT_OWNER_ONLY = stat.S_IRWXG | stat.S_IRWXO | stat.S_IXUSR


def default_directory() -> Path:
    """The per-user cache directory (on Linux ``$XDG_CACHE_HOME/toolspecs/arxiv``)."""
    import platformdirs

    return Path(platformdirs.user_cache_dir("toolspecs", appauthor=False)) / "arxiv"


class PaperCache:
    """PDFs by versioned arXiv id in ``directory``, at most ``max_bytes`` in all.

    Args:
        directory: Where the files live (or in its ``toolspecs-arxiv/`` folder: :attr:`home`).
        max_bytes: The most bytes the directory holds.
    """

    def __init__(self, directory: str | os.PathLike[str], max_bytes: int = DEFAULT_MAX_BYTES):
        self.directory = Path(directory).expanduser()
        self.max_bytes = max(int(max_bytes), 0)

    def __repr__(self) -> str:
        return f"PaperCache({str(self.directory)!r}, max_bytes={self.max_bytes})"

    @property
    def home(self) -> Path:
        """:attr:`directory` when tagged, new or empty; else its ``toolspecs-arxiv/`` folder."""
        if _tagged(self.directory / TAG):
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
        """The cached PDF of ``paper_id``, or ``None``; a hit counts as a use.

        Raises:
            UnsafeCacheFolder: When the folder cannot be trusted.
        """
        with self._folder(create=False) as folder:
            if folder is None:  # not made yet, or unreadable
                return None
            return folder.read_paper(self.path(paper_id).name, min(self.max_bytes, MAX_PDF_BYTES))

    def put(self, paper_id: str, data: bytes) -> None:
        """Store ``data`` as the PDF of ``paper_id`` (unless the disk refuses), then evict.

        Raises:
            UnsafeCacheFolder: When the folder cannot be trusted.
        """
        if len(data) > min(self.max_bytes, MAX_PDF_BYTES) or not _whole(data):
            return
        with self._folder(create=True) as folder:
            if folder is None:
                return
            try:
                if not _tagged_at(folder):
                    folder.write(TAG, _TAG_TEXT.encode("ascii"))
                folder.write(self.path(paper_id).name, data)
            except OSError:
                return
        self.evict()

    def evict(self) -> list[Path]:
        """Delete the least recently used papers (and hour-old temporary files) past the bound.

        Raises:
            UnsafeCacheFolder: When the folder cannot be trusted.
        """
        with self._folder(create=False) as folder:
            if folder is None or not _tagged_at(folder):
                return []
            return folder.evict(self.max_bytes)

    @contextlib.contextmanager
    def _folder(self, *, create: bool) -> Iterator[_Folder | None]:
        home = self.home
        if create:
            with contextlib.suppress(OSError):  # a read-only disk: the open will say
                home.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(OSError):  # made already: checked below, as found
                os.mkdir(home, 0o700)
        folder = _Folder.open(home)
        try:
            yield folder
        finally:
            if folder is not None:
                folder.close()


class _Folder:
    """The cache's folder, checked and held open: names are taken relative to it."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd  # POSIX: the open folder (dir_fd); elsewhere None, and full paths

    @classmethod
    def open(cls, path: Path) -> _Folder | None:
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise UnsafeCacheFolder(str(path), "is a symbolic link, not a folder")
        if not _AT:  # checked by name: Windows (links only), or a POSIX without dir_fd
            _check_folder(path, info)
            return cls(path, None)
        try:
            fd = os.open(path, FOLDER_FLAGS)
        except OSError as exc:
            if os.path.islink(path):  # made a link since the lstat
                raise UnsafeCacheFolder(str(path), "is a symbolic link, not a folder") from exc
            return None
        try:
            _check_folder(path, os.fstat(fd))  # the folder opened, not the name
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _name(self, name: str) -> str:
        return name if self.fd is not None else str(self.path / name)

    def read_paper(self, name: str, limit: int) -> bytes | None:
        """The whole PDF at ``name`` if the cache could have written it, else ``None``.

        Opened without following a link or blocking (a FIFO is refused), checked on the
        open file. One of ours cut short is deleted.
        """
        try:
            handle = os.open(self._name(name), READ_FLAGS, dir_fd=self.fd)
        except OSError:  # missing, a link (ELOOP), or unreadable
            return None
        try:
            info = os.fstat(handle)
            if not _ours(info) or info.st_size > limit:
                return None
            with os.fdopen(handle, "rb", closefd=False) as file:
                data = file.read(limit + 1)
            if len(data) > limit:
                return None
            if not _whole(data):
                with contextlib.suppress(OSError):
                    os.unlink(self._name(name), dir_fd=self.fd)
                return None
            with contextlib.suppress(OSError):  # most recently used
                if os.utime in os.supports_fd:
                    os.utime(handle)
                else:
                    os.utime(self._name(name))
            return data
        except OSError:
            return None
        finally:
            os.close(handle)

    def write(self, name: str, data: bytes) -> None:
        """Put ``data`` at ``name``: a new file under a temporary name, renamed (or ``OSError``)."""
        temporary = f"{_PARTIAL_PREFIX}{secrets.token_hex(8)}{_PARTIAL}"
        handle = os.open(self._name(temporary), CREATE_FLAGS, 0o600, dir_fd=self.fd)
        try:
            if len(data) <= 512:  # the tag: one write
                try:
                    while data:
                        data = data[os.write(handle, data) :]
                finally:
                    os.close(handle)
            else:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
            os.replace(
                self._name(temporary), self._name(name), src_dir_fd=self.fd, dst_dir_fd=self.fd
            )
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(self._name(temporary), dir_fd=self.fd)
            raise

    def evict(self, max_bytes: int) -> list[Path]:
        stale = time.time() - 3600
        entries = []
        where = self.path if self.fd is None else self.fd
        with contextlib.suppress(OSError), os.scandir(where) as found:
            for entry in found:
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    if not stat.S_ISREG(info.st_mode):
                        continue
                    name = entry.name
                    if name.startswith(_PARTIAL_PREFIX) and name.endswith(_PARTIAL):
                        if info.st_mtime < stale:
                            os.unlink(self._name(name), dir_fd=self.fd)
                    elif _OURS.match(name):
                        entries.append((info.st_mtime, info.st_size, name))
        total = sum(size for _, size, _ in entries)
        removed = []
        for _, size, name in sorted(entries):
            if total <= max_bytes:
                break
            with contextlib.suppress(OSError):
                os.unlink(self._name(name), dir_fd=self.fd)
                removed.append(self.path / name)
            total -= size
        return removed


def _check_folder(path: Path, info: os.stat_result) -> None:
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeCacheFolder(str(path), "is not a folder")
    if not _POSIX:
        return
    if info.st_uid != os.geteuid():
        raise UnsafeCacheFolder(
            str(path), f"is owned by another user (uid {info.st_uid}, not {os.geteuid()})"
        )
    if info.st_mode & _GROUP_OR_OTHERS_WRITE:
        raise UnsafeCacheFolder(
            str(path), f"is writable by group or others (mode {stat.S_IMODE(info.st_mode):o})"
        )


def _ours(info: os.stat_result) -> bool:
    if not stat.S_ISREG(info.st_mode):
        return False
    if not _POSIX:
        return True
    return info.st_uid == os.geteuid() and info.st_nlink == 1 and not info.st_mode & _NOT_OWNER_ONLY


def _tagged_at(folder: _Folder) -> bool:
    return _tagged(folder._name(TAG), folder.fd)


def _tagged(tag: str | Path, dir_fd: int | None = None) -> bool:
    """Whether ``tag`` is our ``CACHEDIR.TAG``: a regular file, not a link, nor another tool's."""
    try:
        handle = os.open(tag, READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(handle).st_mode) and b"toolspecs" in os.read(handle, 512)
    except OSError:
        return False
    finally:
        os.close(handle)


def _whole(data: bytes) -> bool:
    return data.startswith(b"%PDF") and b"%%EOF" in data[-1024:]
