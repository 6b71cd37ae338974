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
   browser and listens on ``oauth_port``; ``auth_flow="console"`` (headless machines)
   prints the consent URL and reads back the address the browser was sent to.

Tokens are written (unless ``is_cloud``) with mode 0600 to a file per scope set
(``token.calendar.json``, ``token.gmail.json``), so the two specs never overwrite
each other's token as LlamaHub's shared ``token.json`` does.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from toolspecs.core import AskUser, ConfigurationError

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
    """Write ``text`` to ``path`` readable by its owner only (mode 0600)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(path, 0o600)


def reauthorize_hint(token_path: str | None) -> str:
    """What the person does when the stored authorization no longer works."""
    where = f"delete {token_path} and " if token_path else ""
    return (
        "Do not retry. Tell the user the Google authorization expired or was revoked: "
        f"{where}authorize again (see the toolspecs README, 'Authorize Google')."
    )


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
    auth_flow: Literal["local", "console"] = "local"
    oauth_port: int = 8080
    prompt: Callable[[str], str] = input

    def __post_init__(self) -> None:
        if self.token_path is None:
            self.token_path = f"token.{scope_label(self.scopes)}.json"
        if self.auth_flow not in ("local", "console"):
            raise ConfigurationError(
                f"auth_flow must be 'local' or 'console', not {self.auth_flow!r}"
            )

    def credentials(self) -> Any:
        """Valid credentials, refreshing or authorizing as needed.

        Raises:
            AskUser: When the person must act: no client secrets file, a revoked token.
        """
        if self.creds is not None:
            return self.creds
        service_account = self._service_account()
        if service_account is not None:
            return service_account
        return self._user_credentials()

    def _service_account(self) -> Any:
        info = self.service_account_key
        if info is None and self.service_account_key_path:
            path = Path(self.service_account_key_path)
            if not path.is_file():
                raise ConfigurationError(f"service account key file {path} does not exist")
            info = json.loads(path.read_text(encoding="utf-8"))
        if info is None:
            if Path(LEGACY_SERVICE_ACCOUNT_FILE).is_file():
                logger.warning(
                    "ignoring %s in the working directory: pass service_account_key_path to use it",
                    LEGACY_SERVICE_ACCOUNT_FILE,
                )
            return None
        from google.oauth2 import service_account

        creds = service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
            info, scopes=self.scopes
        )
        return creds.with_subject(self.subject) if self.subject else creds

    def _user_credentials(self) -> Any:
        from google.auth.exceptions import RefreshError
        from google.auth.transport.requests import Request
        from google.oauth2.credentials import Credentials

        assert self.token_path is not None
        creds = None
        if self.authorized_user_info is not None:
            creds = Credentials.from_authorized_user_info(  # type: ignore[no-untyped-call]
                self.authorized_user_info, self.scopes
            )
        elif os.path.isfile(self.token_path):
            creds = Credentials.from_authorized_user_file(  # type: ignore[no-untyped-call]
                self.token_path, self.scopes
            )
        if creds is not None and creds.valid:
            return creds
        if creds is not None and creds.expired and creds.refresh_token:
            try:
                creds.refresh(Request())
            except RefreshError as exc:
                raise AskUser(
                    f"Google refused to refresh the authorization ({exc}).",
                    reauthorize_hint(self.token_path),
                ) from exc
        else:
            creds = self._run_flow()
        if not self.is_cloud:
            write_private(self.token_path, creds.to_json())
        return creds

    def _run_flow(self) -> Any:
        if not os.path.isfile(self.credentials_path):
            raise AskUser(
                f"Google is not authorized yet and there is no OAuth client file at "
                f"{self.credentials_path!r}.",
                "Tell the user to create an OAuth client (Desktop app) in the Google Cloud "
                "console, save it as credentials.json, and authorize once (see the toolspecs "
                "README, 'Authorize Google').",
            )
        from google_auth_oauthlib.flow import InstalledAppFlow

        flow = InstalledAppFlow.from_client_secrets_file(self.credentials_path, self.scopes)
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
