"""Token files: written privately, and how the scopes they were granted cover a spec's."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from toolspecs.loaders.google.errors import GoogleAuthError
from toolspecs.loaders.google.scopes import missing

Coverage = Literal["same", "more", "part", "other", ""]


def write_private(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path``, readable by its owner only (mode 0600) from the start.

    Security: a temporary file in the same folder (``mkstemp``: 0600, exclusive) replaces
    ``path`` in one step, so a reader never sees half a token and a symlink at ``path`` is
    replaced, never written through.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def file_scopes(path: str) -> list[str] | None:
    """The scopes the token file at ``path`` says it was granted; ``None`` when it does not say."""
    from google.oauth2.credentials import Credentials

    try:
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle)
        own = Credentials.from_authorized_user_info(info)  # type: ignore[no-untyped-call]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return list(own.scopes) if own.scopes else None


def coverage(granted: Sequence[str] | None, scopes: Sequence[str]) -> Coverage:
    """How ``granted`` meets ``scopes``: same, more, part, other, or ``""`` (unknown)."""
    if not granted:
        return ""
    lacking = missing(granted, scopes)
    if not lacking:
        return "same" if set(granted) == set(scopes) else "more"
    return "part" if len(lacking) < len(set(scopes)) else "other"


def credentials_scopes(creds: Any) -> list[str] | None:
    """The scopes user credentials were granted, or ``None`` (a service account's: unknown)."""
    from google.oauth2.credentials import Credentials

    if not isinstance(creds, Credentials):
        return None
    scopes = creds.granted_scopes or creds.scopes
    if isinstance(scopes, str):
        return scopes.split()
    return list(scopes) if scopes else None


def file_name(path: str) -> str:
    """A file's name, as a ``reason`` shows it: not where it lies (``exc.path`` has that)."""
    return os.path.basename(os.path.expanduser(path)) or path


REAUTHORIZE = "delete it and authorize again, or set token_path to another file"


def one_line(exc: BaseException, limit: int = 120) -> str:
    """An exception as one short line: ``ValueError: ...``."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(".")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_json(path: str, setting: str, what: str, fix: str) -> Any:
    """The JSON in ``path``; a missing or unreadable file is a :class:`GoogleAuthError`."""
    if not os.path.isfile(path):
        raise GoogleAuthError(f"{what} {file_name(path)!r} does not exist: {fix}", setting, path)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
        raise GoogleAuthError(
            f"{what} {file_name(path)!r} is not readable JSON: {fix} ({one_line(exc)})",
            setting,
            path,
        ) from exc
