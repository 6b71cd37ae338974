"""Sign in with Google: the Google side (settings, scopes in words, each user's credentials)."""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar
from urllib.parse import urlencode

from toolspecs.core.errors import AskUser, ConfigurationError
from toolspecs.server.token_vault import TokenVault

__all__ = [
    "CALLBACK_PATH",
    "GOOGLE_AUTHORIZE_URL",
    "GOOGLE_TOKEN_URL",
    "GOOGLE_USERINFO_URL",
    "SCOPE_WORDS",
    "GoogleSignIn",
    "google_authorize_url",
    "google_credentials",
]

logger = logging.getLogger(__name__)

GOOGLE_AUTHORIZE_URL = "https://accounts.google.com/o/oauth2/v2/auth"
GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"
GOOGLE_USERINFO_URL = "https://openidconnect.googleapis.com/v1/userinfo"
CALLBACK_PATH = "/oauth/google/callback"
CLIENT_ID_ENV = "TOOLSPECS_GOOGLE_CLIENT_ID"
CLIENT_SECRET_ENV = "TOOLSPECS_GOOGLE_CLIENT_SECRET"
IDENTITY_SCOPES = ("openid", "email")
SIGN_IN_AGAIN = (
    "Do not retry. Tell the user to sign in with Google again: reconnect this MCP "
    "server in their client (its sign-in opens Google's consent)."
)

_AUTH = "https://www.googleapis.com/auth/"
SCOPE_WORDS = {
    "openid": "Know which Google account is yours",
    "email": "See your Google account's email address",
    "profile": "See your name and profile picture",
    "https://mail.google.com/": "Read, write, send and permanently delete all your Gmail",
    f"{_AUTH}gmail.modify": "Read, write and send your Gmail, and change its labels",
    f"{_AUTH}gmail.readonly": "Read your Gmail messages and settings",
    f"{_AUTH}gmail.compose": "Write Gmail drafts and send them",
    f"{_AUTH}gmail.send": "Send email from your Gmail",
    f"{_AUTH}gmail.labels": "See and change your Gmail labels",
    f"{_AUTH}gmail.metadata": "See your Gmail messages' headers and labels (not their text)",
    f"{_AUTH}calendar": "See, change and delete all your Google calendars",
    f"{_AUTH}calendar.readonly": "See your Google calendars and their events",
    f"{_AUTH}calendar.events": "See and change the events of your Google calendars",
    f"{_AUTH}calendar.events.readonly": "See the events of your Google calendars",
}
"""Google's scopes as a person reads them on our consent page."""


@dataclass(frozen=True)
class GoogleSignIn:
    """How this server signs its users in with Google (its secret from the environment only)."""

    # What our consent page says of Google (toolspecs.server.signin_consent.Upstream).
    name: ClassVar[str] = "Google"
    authorize_url: ClassVar[str] = GOOGLE_AUTHORIZE_URL

    client_id: str
    client_secret: str = field(repr=False)
    scopes: Sequence[str] = ()

    @classmethod
    def from_env(cls, scopes: Sequence[str], client_id: str | None = None) -> GoogleSignIn:
        """The settings from ``client_id`` (else the environment) and the secret's variable."""
        client = client_id or os.environ.get(CLIENT_ID_ENV, "")
        secret = os.environ.get(CLIENT_SECRET_ENV, "")
        if not client or not secret:
            raise ConfigurationError(
                "--google-sign-in needs a Google OAuth client (type 'Web application'): "
                f"its id in --google-client-id or ${CLIENT_ID_ENV}, its secret in "
                f"${CLIENT_SECRET_ENV}"
            )
        return cls(client, secret, tuple(scopes))

    @property
    def requested(self) -> list[str]:
        """Every scope asked at Google's consent."""
        return list(dict.fromkeys([*IDENTITY_SCOPES, *self.scopes]))

    def scope_words(self, scopes: Sequence[str]) -> list[str]:
        """Each scope as a person reads it; one we have no words for, as Google names it."""
        return [SCOPE_WORDS.get(scope, f"Google scope {scope}") for scope in scopes]


def google_authorize_url(settings: GoogleSignIn, callback: str, state: str, verifier: str) -> str:
    """Google's consent for a trip: the scopes asked, ``state``, and the S256 of ``verifier``."""
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest())
    query = {
        "client_id": settings.client_id,
        "redirect_uri": callback,
        "response_type": "code",
        "scope": " ".join(settings.requested),
        "state": state,
        "access_type": "offline",  # a refresh token
        "prompt": "consent",  # a refresh token every time, with the scopes asked now
        "code_challenge": challenge.rstrip(b"=").decode("ascii"),
        "code_challenge_method": "S256",
    }
    return f"{GOOGLE_AUTHORIZE_URL}?{urlencode(query)}"


def google_credentials(
    settings: GoogleSignIn, vault: TokenVault, subject: str, on_revoked: Callable[[str], None]
) -> Any:
    """The user's Google credentials, refreshed now when expired (blocking; else ``AskUser``)."""
    from datetime import datetime, timezone

    from google.auth.exceptions import RefreshError
    from google.auth.transport.requests import Request

    record = vault.get(subject)
    if record is None:
        raise AskUser("This user's Google access is not set up on this server.", SIGN_IN_AGAIN)
    expiry = datetime.fromtimestamp(float(record["expiry"]), timezone.utc).replace(tzinfo=None)
    creds = _signed_in_class()(
        token=record.get("token"),
        refresh_token=record.get("refresh_token"),
        token_uri=GOOGLE_TOKEN_URL,
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        scopes=record.get("scopes") or None,
        expiry=expiry,
    )
    creds.on_revoked = lambda: on_revoked(subject)
    creds.kept = lambda: vault.get(subject)
    creds.on_refreshed = lambda fresh: _write_back(vault, subject, fresh)
    if creds.valid:
        return creds
    try:
        creds.refresh(Request())  # written back to the vault (SignedInCredentials.refresh)
    except RefreshError:  # never its text: it carries Google's whole answer
        raise AskUser("The user's Google sign-in expired or was revoked.", SIGN_IN_AGAIN) from None
    return creds


def _write_back(vault: TokenVault, subject: str, creds: Any) -> None:
    from datetime import timezone

    record = vault.get(subject)
    if record is None:
        return
    expires = creds.expiry.replace(tzinfo=timezone.utc).timestamp() if creds.expiry else 0
    fresh = {**record, "token": creds.token, "expiry": expires}
    if creds.refresh_token:  # Google may rotate it
        fresh["refresh_token"] = creds.refresh_token
    vault.put(subject, fresh)


@functools.cache
def _signed_in_class() -> type:
    from google.auth.exceptions import RefreshError
    from google.oauth2.credentials import Credentials

    class SignedInCredentials(Credentials):
        """A signed-in user's credentials, kept in step with the vault across replicas.

        A refresh of a user signed out meanwhile is refused, so the old token is never used
        again; a refused refresh token drops the user's record and tools.
        """

        on_revoked: Callable[[], None] = staticmethod(lambda: None)
        kept: Callable[[], dict[str, Any] | None] = staticmethod(lambda: {})
        on_refreshed: Callable[[Any], None] = staticmethod(lambda fresh: None)

        def refresh(self, request: Any) -> None:
            if self.kept() is None:  # signed out, on some replica: not the old token
                self.token = None
                raise RefreshError("the user signed out")  # type: ignore[no-untyped-call]
            try:
                super().refresh(request)  # type: ignore[no-untyped-call]
            except RefreshError:
                logger.info("a user's Google refresh token was refused; they must sign in again")
                self.on_revoked()
                raise
            self.on_refreshed(self)

    return SignedInCredentials
