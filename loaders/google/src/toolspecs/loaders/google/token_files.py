"""Token files: written privately, and what the scopes they were granted cover.

Also the small helpers the messages about these files share (:func:`file_name`,
:func:`one_line`, :func:`read_json`).

:func:`write_private` writes a token whole, mode 0600 from the start, never through a
symlink. :func:`file_scopes` reads the scopes a token file says it was granted, and
:func:`coverage` says how they meet the scopes a spec needs (with Google's hierarchy,
:mod:`~toolspecs.loaders.google.scopes`: a ``calendar`` token covers ``calendar.readonly``).
"""

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

    The text goes to a new temporary file in the same folder (``mkstemp``: mode 0600,
    created exclusively), which then replaces ``path`` in one step: a reader never sees
    half a token, and a symlink at ``path`` is replaced, never written through. Missing
    parent folders are created.
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
    """The scopes the token file at ``path`` says it was granted.

    ``None`` when it does not say (no scope list, not readable, not a token): then the
    library's reading of it decides.
    """
    from google.oauth2.credentials import Credentials

    try:
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle)
        own = Credentials.from_authorized_user_info(info)  # type: ignore[no-untyped-call]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return list(own.scopes) if own.scopes else None


def coverage(granted: Sequence[str] | None, scopes: Sequence[str]) -> Coverage:
    """How the ``granted`` scopes meet ``scopes``.

    ``"same"`` (exactly these), ``"more"`` (all of them, some through a broader scope, or
    others too), ``"part"`` (some of them), ``"other"`` (none), or ``""`` when nothing
    is known of what was granted.
    """
    if not granted:
        return ""
    lacking = missing(granted, scopes)
    if not lacking:
        return "same" if set(granted) == set(scopes) else "more"
    return "part" if len(lacking) < len(set(scopes)) else "other"


def credentials_scopes(creds: Any) -> list[str] | None:
    """The scopes user credentials were granted (google-auth's), or ``None`` if unknown.

    A service account's (or any other kind's) are unknown: what domain-wide delegation
    allows is Google's to say, at the call.
    """
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
