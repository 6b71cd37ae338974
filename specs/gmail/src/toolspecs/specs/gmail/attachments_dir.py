"""The folder drafts may attach files from (``GmailToolSpec(attachment_dir=...)``).

Security: nothing outside it is attached. Names are checked strictly inside it (no
``..``, no symlink out, nothing hidden, no hard link, only regular files, never the
spec's own sign-in files), sizes from ``os.lstat`` before any read, and each file is
opened again without following links (``toolspecs.base.files.open_in``) and compared
with what was checked.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

from toolspecs.base.files import open_in
from toolspecs.core import AskUser, ConfigurationError, FixArguments, fence
from toolspecs.loaders.google import GoogleAuth
from toolspecs.loaders.google.mail import format_size
from toolspecs.specs.gmail.compose import ATTACHMENTS_LIMIT, file_part, part_name, part_size

MAX_ATTACHMENT_FILES = 10
"""Files of the allowed folder one create_draft or update_draft attaches at most."""
# How many files of the allowed folder a guidance names.
_LISTED_FILES = 20


@dataclass(frozen=True)
class AttachmentFolder:
    """The allowed folder (``None``: off), as one call attaches from it."""

    folder: Path | None
    max_size: int
    private: Callable[[Path], bool]
    account_note: str = ""

    def parts(self, names: list[str], kept: list[Message] | None = None) -> list[Message]:
        """The parts for ``names``: a part of ``kept`` ('#2' or its file name), else a folder file.

        Every file is checked before any is read: at most :data:`MAX_ATTACHMENT_FILES`,
        within Gmail's 25 MB together.

        Raises:
            AskUser: When a file is named but no folder is allowed (or it is missing).
            FixArguments: For a name outside the folder, hidden, missing, too many, too large.
        """
        kept = kept or []
        used: set[int] = set()
        chosen: list[Message | str] = []  # a kept part, or the name of a file to read
        files: dict[str, None] = {}  # the files' names, each once, in order
        for raw_name in names:
            name = raw_name.strip()
            if not name:
                raise FixArguments(
                    "An attachment name is empty.", "Name each file, e.g. ['report.pdf']."
                )
            index = _kept_index(name, kept, used)
            if index is not None:
                used.add(index)
                chosen.append(kept[index])
            elif name not in files:
                files[name] = None
                chosen.append(name)
        if not files:
            return [part for part in chosen if isinstance(part, Message)]
        if len(files) > MAX_ATTACHMENT_FILES:
            raise FixArguments(
                f"{len(files)} files were named; a draft attaches at most "
                f"{MAX_ATTACHMENT_FILES} files from the folder.",
                f"Attach the {MAX_ATTACHMENT_FILES} that matter most, or tell the user to "
                "share the others another way (e.g. one zip file, or a link).",
            )
        root = self._root()
        checked = {name: self._checked(root, name) for name in files}
        total = sum(file.size for file in checked.values()) + sum(
            part_size(part) for part in chosen if isinstance(part, Message)
        )
        _check_sum(total)  # from their sizes on disk, before reading any
        return [
            part if isinstance(part, Message) else self._read(root, checked[part])
            for part in chosen
        ]

    def _root(self) -> Path:
        if self.folder is None:
            raise AskUser(
                f"Attaching files is not enabled{self.account_note}: the user has not "
                "allowed a folder to attach files from (GmailToolSpec(attachment_dir=...), "
                "or --option attachment_dir=PATH on the command line).",
                "Do not retry with attachments: leave them out and tell the user which files "
                "to attach in Gmail, or ask them to allow a folder.",
            )
        root = self.folder.expanduser()
        if not root.is_dir():
            raise AskUser(
                "The folder allowed for attachments does not exist.",
                "Do not retry with attachments: tell the user to check attachment_dir.",
            )
        root = root.resolve()
        if _too_wide(root):  # a symlink pointed there since the spec was made
            raise AskUser(
                "The folder allowed for attachments is now the root or home folder itself, "
                "which is not allowed.",
                "Do not retry with attachments: tell the user to check attachment_dir.",
            )
        return root

    def _listing(self, root: Path) -> str:
        return _folder_files(root, self.private)

    def _checked(self, root: Path, name: str) -> _FolderFile:
        given = Path(name).expanduser()
        if ".." in given.parts:
            raise FixArguments(
                f"Attachment {fence.field(name, 200)} steps out of the allowed folder ('..').",
                f"Name a file in the folder by its name. {self._listing(root)}",
            )
        inside = given.relative_to(root) if given.is_relative_to(root) else given
        if not inside.is_absolute() and _hidden(inside):
            raise self._hidden(name, root)
        try:
            # Symlinks followed: where the file really is must be inside the folder.
            real = (given if given.is_absolute() else root / given).resolve(strict=True)
        except (OSError, RuntimeError):
            raise FixArguments(
                f"There is no file {fence.field(name, 200)} in the folder allowed for attachments.",
                f"Name one of its files. {self._listing(root)}",
            ) from None
        if not real.is_relative_to(root):
            raise FixArguments(
                f"{fence.field(name, 200)} is not a file inside the folder allowed for "
                "attachments; only files there can be attached.",
                f"Name one of its files, or ask the user to put the file there. "
                f"{self._listing(root)}",
            )
        if _hidden(real.relative_to(root)):
            raise self._hidden(name, root)
        if self.private(real):
            raise FixArguments(
                f"{fence.field(name, 200)} is one of this tool's Google sign-in files (its "
                "OAuth client or token), which are never attached.",
                "Leave it out, and do not try to send its contents another way.",
            )
        try:
            checked = os.lstat(real)
        except OSError:
            checked = None
        if checked is None or not stat.S_ISREG(checked.st_mode):
            # A FIFO, a device or a folder: opening one could block or read without end.
            raise FixArguments(
                f"{fence.field(name, 200)} is not a regular file inside the folder allowed "
                "for attachments; only regular files there can be attached.",
                f"Name one of its files, or ask the user to put the file there. "
                f"{self._listing(root)}",
            )
        if checked.st_nlink != 1:
            # A hard link may be the very file of another folder (e.g. ~/.ssh/id_rsa).
            raise FixArguments(
                f"{fence.field(name, 200)} is a hard link (the same file has another name "
                "elsewhere), so it cannot be attached from the folder.",
                "Leave it out, and ask the user to copy the file into the folder instead.",
            )
        self._check_size(name, checked.st_size)
        return _FolderFile(name, given.name, real.relative_to(root), checked)

    def _hidden(self, name: str, root: Path) -> FixArguments:
        return FixArguments(
            f"{fence.field(name, 200)} is a hidden file or in a hidden folder (a name that "
            "starts with '.'), which is never attached: such files hold settings and keys.",
            f"Leave it out, and name a file of the folder. {self._listing(root)}",
        )

    def _read(self, root: Path, file: _FolderFile) -> Message:
        name, checked = file.name, file.stat
        changed = FixArguments(
            f"{fence.field(name, 200)} changed while it was being attached.",
            "Leave it out, and ask the user to check the file in the folder.",
        )
        try:
            fd = open_in(root, file.relative)
        except OSError:
            raise changed from None
        with os.fdopen(fd, "rb") as handle:
            opened = os.fstat(fd)
            if (
                not stat.S_ISREG(opened.st_mode)
                or (opened.st_dev, opened.st_ino) != (checked.st_dev, checked.st_ino)
                or opened.st_nlink != 1
            ):
                raise changed
            self._check_size(name, opened.st_size)
            data = handle.read(self.max_size + 1)
        if len(data) > self.max_size:  # it grew while we read it
            raise FixArguments(
                f"{fence.field(name, 200)} is over the {format_size(self.max_size)} "
                "a file may be here.",
                "Leave it out, and tell the user to share it another way (e.g. a link).",
            )
        return file_part(file.filename, data)

    def _check_size(self, name: str, size: int) -> None:
        if size > self.max_size:
            raise FixArguments(
                f"{fence.field(name, 200)} is {format_size(size)}, over the "
                f"{format_size(self.max_size)} a file may be here.",
                "Leave it out, and tell the user to share it another way (e.g. a link).",
            )


@dataclass(frozen=True)
class _FolderFile:
    name: str  # as the agent named it
    filename: str  # the name it is attached under
    relative: Path  # where it really is, inside the folder
    stat: os.stat_result

    @property
    def size(self) -> int:
        return self.stat.st_size


def attachment_folder(value: str | os.PathLike[str] | None) -> Path | None:
    """``attachment_dir`` checked: ``None`` (off), or an absolute folder."""
    if value is None:
        return None
    text = os.fspath(value)
    if not isinstance(text, str):
        raise ConfigurationError("attachment_dir must be a folder path as text, e.g. '~/outbox'")
    if not text.strip():
        return None  # blank, e.g. `--option gmail.attachment_dir=`: attaching is off
    folder = Path(text).expanduser()
    if not folder.is_absolute():
        raise ConfigurationError(
            f"attachment_dir={text!r} is relative (it would depend on the working "
            "directory): give an absolute folder, e.g. attachment_dir='~/outbox'"
        )
    wide = _too_wide(folder.resolve())
    if wide:
        raise ConfigurationError(
            f"attachment_dir={text!r} is {wide}, which holds far more than files to mail: "
            "make a folder for them (e.g. ~/outbox) and give that"
        )
    return folder


def _too_wide(real: Path) -> str:
    if real == Path(real.anchor):
        return "the root folder"
    try:
        home = Path.home().resolve()
    except (OSError, RuntimeError):  # no home known (a bare service account)
        return ""
    return "the home folder" if real == home else ""


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _resolved(path: str) -> Path:
    return Path(path).expanduser().resolve()


def _kept_index(name: str, kept: list[Message], used: set[int]) -> int | None:
    number = re.fullmatch(r"#\s*(\d{1,4})", name)
    if number is not None:
        index = int(number.group(1)) - 1
        if not 0 <= index < len(kept):
            raise FixArguments(
                f"The draft has {len(kept)} attachment(s): there is no {name}.",
                f"Name the ones to keep as #1 to #{len(kept)}, or by file name."
                if kept
                else "Name files of the allowed folder to attach.",
            )
        return index
    for index, part in enumerate(kept):
        if index not in used and part_name(part) == name:
            return index
    return None


def _folder_files(root: Path, private: Callable[[Path], bool]) -> str:
    try:
        names = sorted(
            e.name
            for e in os.scandir(root)
            if not e.name.startswith(".") and e.is_file() and not private(root / e.name)
        )
    except OSError:
        return ""
    if not names:
        return "The folder is empty."
    shown = ", ".join(fence.field(n, 80) for n in names[:_LISTED_FILES])
    more = f" and {len(names) - _LISTED_FILES} more" if len(names) > _LISTED_FILES else ""
    return f"Its files: {shown}{more}."


def check_total(parts: list[Message]) -> None:
    """The parts stay within Gmail's 25 MB for one message (else FixArguments)."""
    _check_sum(sum(part_size(part) for part in parts))


def _check_sum(total: int) -> None:
    if total > ATTACHMENTS_LIMIT:
        raise FixArguments(
            f"The attachments take {format_size(total)} together, over Gmail's "
            f"{format_size(ATTACHMENTS_LIMIT)} for one message.",
            "Attach fewer files, or tell the user to share the large ones as links.",
        )


def sign_in_file(auth: GoogleAuth, real: Path) -> bool:
    """Whether ``real`` is one of ``auth``'s client, token (any ``token.*.json``) or key files."""
    named = (
        auth.credentials_path,
        auth.token_path,
        auth.own_token_path,
        auth.token_in_use,
        auth.service_account_key_path,
    )
    for path in named:
        if path and _resolved(path) == real:
            return True
    token = _resolved(auth.token_path) if auth.token_path else None
    if token is None or real.parent != token.parent:
        return False
    family = token.name.split(".")[0]
    return real.name == f"{family}{token.suffix}" or (
        real.name.startswith(f"{family}.") and real.name.endswith(token.suffix or ".json")
    )
