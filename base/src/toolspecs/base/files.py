"""Opening files without following links, without blocking and without leaking descriptors.

A file a tool reads or writes on a user's behalf (an attachment, a cached paper, a token)
may be swapped for a symbolic link, a FIFO or a device between a check and the open. So
every such open uses one of the flag sets below, the same everywhere:

- ``O_NOFOLLOW``: a link at the name fails (``ELOOP``) instead of leading elsewhere;
- ``O_NONBLOCK`` (reads): a FIFO opens at once, and the caller's ``fstat`` refuses it;
- ``O_CLOEXEC``: the descriptor does not leak into a child process;
- ``O_BINARY`` (Windows): bytes as they are on disk.

A flag the platform lacks counts as 0: on Windows only the checks made on the open file
(``os.fstat``) hold. :func:`open_in` walks a path one folder at a time from an open
folder, so no link on the way is followed either.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CREATE_FLAGS", "FOLDER_FLAGS", "READ_FLAGS", "open_in"]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)

READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC | _BINARY
"""Read a file: no link followed, no blocking on a FIFO, not inherited."""
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY
"""Make a new file (an existing name, a link too, fails with ``FileExistsError``)."""
FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
"""Open a folder (to work relative to it, ``dir_fd``): no link followed."""


def open_in(root: str | os.PathLike[str], relative: Path) -> int:
    """A descriptor of ``root/relative`` for reading, walked from ``root`` one folder at a time.

    A link swapped in after a check fails with OSError instead of leading out of ``root``.
    Without ``dir_fd`` (Windows) the path is opened whole; ``os.fstat`` checks still hold.
    """
    if os.open not in os.supports_dir_fd:
        return os.open(Path(root) / relative, READ_FLAGS)
    folder = os.open(root, FOLDER_FLAGS)
    try:
        for part in relative.parts[:-1]:
            inner = os.open(part, FOLDER_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(relative.parts[-1], READ_FLAGS, dir_fd=folder)
    finally:
        os.close(folder)
