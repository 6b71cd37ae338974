"""Google credentials for toolspecs, shared by Calendar and Gmail.

The LlamaHub keywords keep their meaning (``creds``, ``credentials_path``,
``token_path``, ``service_account_key_path``, ``service_account_key``,
``authorized_user_info``, ``is_cloud``), resolved in this order:

1. ``creds``: ready credentials, used as they are;
2. a service account: ``service_account_key`` (a dict) or ``service_account_key_path``
   (a file you name; a stray ``service_account_key.json`` in the working directory is
   never picked up), acting for ``subject`` with domain-wide delegation if given;
3. a user: ``authorized_user_info`` (a dict) or the token file, refreshed when expired;
4. otherwise the OAuth flow from ``credentials_path``: ``auth_flow="local"`` opens a
   browser and listens on ``oauth_port``; ``auth_flow="none"`` never starts one (a
   server: the error says to authorize in a terminal); ``auth_flow="console"`` (headless machines)
   prints the consent URL and reads back the address the browser was sent to.

Tokens are written (unless ``is_cloud``) with mode 0600 to a file per scope set
(``token.calendar.json``, ``token.gmail.json``), so the two specs never overwrite
each other's token as LlamaHub's shared ``token.json`` does.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolspecs.loaders.google.errors import GoogleAuthError

logger = logging.getLogger("toolspecs.google")

LEGACY_SERVICE_ACCOUNT_FILE = "service_account_key.json"


def scope_label(scopes: Sequence[str]) -> str:
    """A short name for a scope set: ``calendar``, ``gmail``, ``calendar+gmail``."""
    names = []
    for scope in scopes:
        name = scope.rstrip("/").rsplit("/", 1)[-1].split(".")[0]
        if name not in names:
            names.append(name)
    return "+".join(sorted(names)) or "google"


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


@dataclass
class GoogleAuth:
    """How to get Google credentials; see the module docstring for the order."""

    scopes: Sequence[str]
    creds: Any = None
    credentials_path: str = "credentials.json"
    token_path: str | None = None
    service_account_key_path: str | None = None
    service_account_key: dict[str, Any] | None = None
    authorized_user_info: dict[str, Any] | None = None
    is_cloud: bool = False
    subject: str | None = None
    auth_flow: Literal["local", "console", "none"] = "local"
    oauth_port: int = 8080
    prompt: Callable[[str], str] = input

    def __post_init__(self) -> None:
        if self.token_path is None:
            self.token_path = f"token.{scope_label(self.scopes)}.json"
        if self.auth_flow not in ("local", "console", "none"):
            raise ValueError(
                f"auth_flow must be 'local', 'console' or 'none', not {self.auth_flow!r}"
            )

    def credentials(self) -> Any:
        """Valid credentials, refreshing or authorizing as needed.

        Raises:
            GoogleAuthError: When the person must act: no OAuth client file, a malformed
                client file, token or service-account key, a refresh Google refused.
        """
        if self.creds is not None:
            return self.creds
        service_account = self._service_account()
        if service_account is not None:
            return service_account
        return self._user_credentials()

    def _service_account(self) -> Any:
        info = self.service_account_key
        setting = "service_account_key"
        if info is None and self.service_account_key_path:
            setting = "service_account_key_path"
            info = _read_json(
                self.service_account_key_path,
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
            creds = service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
                info, scopes=self.scopes
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            where = self.service_account_key_path if setting.endswith("_path") else setting
            raise GoogleAuthError(
                f"{where} is not a usable Google service account key: set {setting} to the "
                f"JSON key downloaded for the service account ({_short(exc)})",
                setting,
            ) from exc
        return creds.with_subject(self.subject) if self.subject else creds

    def _user_credentials(self) -> Any:
        from google.auth.exceptions import RefreshError
        from google.auth.transport.requests import Request
        from google.oauth2.credentials import Credentials

        assert self.token_path is not None
        creds = None
        if self.authorized_user_info is not None:
            try:
                creds = Credentials.from_authorized_user_info(  # type: ignore[no-untyped-call]
                    self.authorized_user_info, self.scopes
                )
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise GoogleAuthError(
                    "authorized_user_info is not a Google authorized-user token: pass the dict "
                    "a Google authorization saved, or leave it out to authorize "
                    f"({_short(exc)})",
                    "authorized_user_info",
                ) from exc
        elif os.path.isfile(self.token_path):
            info = _read_json(self.token_path, "token_path", "the token file", _REAUTHORIZE)
            try:
                creds = Credentials.from_authorized_user_info(  # type: ignore[no-untyped-call]
                    info, self.scopes
                )
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise GoogleAuthError(
                    f"the token file {self.token_path!r} is not a Google authorized-user "
                    f"token: {_REAUTHORIZE} ({_short(exc)})",
                    "token_path",
                ) from exc
        if creds is not None and creds.valid:
            return creds
        if creds is not None and creds.expired and creds.refresh_token:
            try:
                creds.refresh(Request())
            except RefreshError as exc:
                # Not the exception's text: it carries the token endpoint's whole answer.
                raise GoogleAuthError(
                    "the Google sign-in expired or was revoked (Google refused to refresh "
                    f"it): delete {self.token_path} and authorize again",
                    "token_path",
                ) from exc
        else:
            creds = self._run_flow()
        if not self.is_cloud:
            write_private(self.token_path, creds.to_json())
        return creds

    def _run_flow(self) -> Any:
        if not os.path.isfile(self.credentials_path):
            raise GoogleAuthError(
                f"Google is not authorized yet and there is no OAuth client file at "
                f"{self.credentials_path!r}: create an OAuth client (Desktop app) in the Google "
                "Cloud console, save it there (or set credentials_path to it) and authorize "
                "once",
                "credentials_path",
            )
        if self.auth_flow == "none":
            raise GoogleAuthError(
                "Google is not authorized yet, and this process may not open a login "
                "(auth_flow='none', as when serving MCP): authorize once in a terminal, e.g. "
                f"`toolspecs call gmail.list_drafts`, which saves the token to {self.token_path}",
                "auth_flow",
            )
        from google_auth_oauthlib.flow import InstalledAppFlow

        try:
            flow = InstalledAppFlow.from_client_secrets_file(self.credentials_path, self.scopes)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise GoogleAuthError(
                f"the OAuth client file {self.credentials_path!r} is not a Google OAuth "
                "client: download it (Desktop app) again from the Google Cloud console, or set "
                f"credentials_path to another file ({_short(exc)})",
                "credentials_path",
            ) from exc
        if self.auth_flow == "local":
            return flow.run_local_server(port=self.oauth_port)
        flow.redirect_uri = f"http://localhost:{self.oauth_port}/"
        url, _ = flow.authorization_url(prompt="consent", access_type="offline")
        print(f"Open this address in a browser and allow access:\n{url}")
        answer = self.prompt(
            "Then paste the address the browser ended on (it starts with http://localhost): "
        ).strip()
        flow.fetch_token(authorization_response=answer.replace("http://", "https://", 1))
        return flow.credentials


_REAUTHORIZE = "delete it and authorize again, or set token_path to another file"


def _short(exc: BaseException, limit: int = 120) -> str:
    """An exception as one short line: ``ValueError: ...``."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(".")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_json(path: str, setting: str, what: str, fix: str) -> Any:
    """The JSON in ``path``; a missing or unreadable file is a :class:`GoogleAuthError`."""
    if not os.path.isfile(path):
        raise GoogleAuthError(f"{what} {path!r} does not exist: {fix}", setting)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
        raise GoogleAuthError(
            f"{what} {path!r} is not readable JSON: {fix} ({_short(exc)})", setting
        ) from exc
