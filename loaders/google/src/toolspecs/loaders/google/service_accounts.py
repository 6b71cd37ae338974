"""Service accounts: the scopes one asks for, and its credentials read from a key.

A stray ``service_account_key.json`` in the working directory is never picked up, only
warned about: a key is used only when the user names it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from toolspecs.loaders.google.errors import GoogleAuthError
from toolspecs.loaders.google.scopes import missing
from toolspecs.loaders.google.token_files import file_name, one_line, read_json

logger = logging.getLogger("toolspecs.google")

LEGACY_SERVICE_ACCOUNT_FILE = "service_account_key.json"


def scopes_to_ask(llamahub: Sequence[str], needed: Sequence[str]) -> list[str]:
    """The scopes a service account asks for: LlamaHub's, and what they do not cover.

    An administrator allowed the delegation scopes by name (a setup made for LlamaHub allowed
    LlamaHub's); a tool beyond them (``modify_labels``) asks for its own too.
    """
    if not llamahub:
        return list(needed)
    return [*llamahub, *missing(llamahub, needed)]


def key_credentials(key: dict[str, Any] | None, key_path: str | None, scopes: Sequence[str]) -> Any:
    """google-auth's service account credentials from ``key`` or ``key_path`` (or ``None``)."""
    info, setting = key, "service_account_key"
    if info is None and key_path:
        setting = "service_account_key_path"
        info = read_json(
            key_path,
            setting,
            "the service account key file",
            "set service_account_key_path to the JSON key downloaded for the service "
            "account (Google Cloud console, IAM & Admin > Service accounts > Keys)",
        )
    if info is None:
        if Path(LEGACY_SERVICE_ACCOUNT_FILE).is_file():
            logger.warning(
                "ignoring %s in the working directory: pass service_account_key_path to use it",
                LEGACY_SERVICE_ACCOUNT_FILE,
            )
        return None
    from google.oauth2 import service_account

    try:
        return service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
            info, scopes=list(scopes)
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        path = key_path if setting.endswith("_path") else None
        where = file_name(path) if path else setting
        raise GoogleAuthError(
            f"{where} is not a usable Google service account key: set {setting} to the "
            f"JSON key downloaded for the service account ({one_line(exc)})",
            setting,
            path,
        ) from exc
