"""The ways a user builds a Google spec, each pointed at the fake Google on 127.0.0.1.

Each mode is a builder: given the running :class:`FakeGoogleServer` (with a fresh OAuth
fake), a folder of the test's own and the spec's class, it writes what that user would
have (a token file, LlamaHub's ``token.json``, a service account key), tells the OAuth
fake what Google would know (the consent given, the token it issued), and builds the
spec with the documented keywords and ``client_options=server.client_options``. Nothing
here passes ``transport=`` or ``service=``, or reads a private attribute: every call goes
through google-auth, ``AuthorizedHttp``, googleapiclient (and its batch code) and httplib2.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from google.oauth2.credentials import Credentials

from toolspecs.loaders.google.scopes import (
    CALENDAR,
    GMAIL_COMPOSE,
    GMAIL_MODIFY,
    GMAIL_READONLY,
)
from toolspecs.loaders.google.testing import FakeGoogleServer

USER = "ada@example.com"
SERVICE_ACCOUNT = "toolspecs-agent@acme-project.iam.gserviceaccount.com"
# What the user consented to, once, for both specs (and every opt-in tool).
GRANTED = [CALENDAR, GMAIL_READONLY, GMAIL_COMPOSE, GMAIL_MODIFY]
# LlamaHub's token.json when its Calendar and Gmail specs shared one folder (its last writer).
LLAMAHUB_TOKEN_SCOPES = [CALENDAR, GMAIL_COMPOSE]
# What a Workspace admin allowed the service account by delegation: LlamaHub's scopes,
# and gmail.modify, which the user's allow_modify=True needs.
DELEGATED = [CALENDAR, GMAIL_COMPOSE, GMAIL_READONLY, GMAIL_MODIFY]
SHARED_CALENDAR = "ada@example.com"  # shared with the service account acting as itself
PAST = dt.datetime(2000, 1, 1)


@dataclass
class Setting:
    """What one test's user has: the server, their folder, the service account's key."""

    server: FakeGoogleServer
    folder: Path
    key_pem: str
    monkeypatch: pytest.MonkeyPatch
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def oauth(self) -> Any:
        return self.server.oauth

    def refresh_token(self, scopes: list[str] | None = None) -> str:
        """The refresh token of the user's consent, given earlier."""
        return str(self.oauth.grant(USER, list(scopes or GRANTED)))

    def access_token(self, scopes: list[str] | None = None, name: str = "ya29.valid") -> str:
        """A token Google gave the user, good for an hour."""
        self.oauth.accept(name, USER, list(scopes or GRANTED), expires_in=3600)
        return name

    def token_info(self, token: str | None, expiry: dt.datetime, scopes: list[str]) -> dict:
        """An authorized-user token as google-auth writes it (``creds.to_json()``)."""
        info = {
            "refresh_token": self.refresh_token(scopes),
            "token_uri": self.server.token_uri,
            "client_id": self.server.client_id,
            "client_secret": self.server.client_secret,
            "scopes": scopes,
            "universe_domain": "googleapis.com",
            "account": "",
            "expiry": expiry.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        }
        if token is not None:
            info["token"] = token
        return info

    def key_file(self) -> str:
        """The service account's JSON key, as the Cloud console downloads it."""
        path = self.folder / "service-account.json"
        key = {
            "type": "service_account",
            "project_id": "acme-project",
            "private_key_id": "k1",
            "private_key": self.key_pem,
            "client_email": SERVICE_ACCOUNT,
            "client_id": "1234567890",
            "auth_uri": "https://accounts.google.com/o/oauth2/auth",
            "token_uri": self.server.token_uri,
            "universe_domain": "googleapis.com",
        }
        path.write_text(json.dumps(key))
        return str(path)

    def credentials(self, token: str | None, expiry: dt.datetime | None = None) -> Credentials:
        return Credentials(
            token=token,
            refresh_token=self.refresh_token(),
            token_uri=self.server.token_uri,
            client_id=self.server.client_id,
            client_secret=self.server.client_secret,
            expiry=expiry,
        )


def _later() -> dt.datetime:
    # google-auth compares expiry with its own clock (the real one, naive UTC).
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) + dt.timedelta(hours=1)


def creds_valid(s: Setting) -> dict[str, Any]:
    return {"creds": s.credentials(s.access_token(), _later())}


def creds_expired(s: Setting) -> dict[str, Any]:
    return {"creds": s.credentials("ya29.expired", PAST)}


def creds_refused(s: Setting) -> dict[str, Any]:
    # A token google-auth holds as good, which Google refuses (revoked mid-session): the
    # first call meets a 401, renews it through the token endpoint and is sent again.
    token = s.access_token(name="ya29.revoked-mid-session")
    s.oauth.refuse(token)
    return {"creds": s.credentials(token, _later())}


def token_file(s: Setting) -> dict[str, Any]:
    path = s.folder / "token.json"
    path.write_text(json.dumps(s.token_info(s.access_token(), _later(), GRANTED)))
    return {"token_path": str(path)}


def token_file_expired(s: Setting) -> dict[str, Any]:
    path = s.folder / "token.json"
    path.write_text(json.dumps(s.token_info("ya29.expired", PAST, GRANTED)))
    s.notes["token_file"] = path
    return {"token_path": str(path)}


def authorized_user_info(s: Setting) -> dict[str, Any]:
    info = s.token_info(None, PAST, GRANTED)
    del info["expiry"]
    return {"authorized_user_info": info}


def llamahub_token_json(s: Setting) -> dict[str, Any]:
    # LlamaHub's specs write token.json in the working directory and read it from there.
    (s.folder / "token.json").write_text(
        json.dumps(s.token_info("ya29.expired", PAST, LLAMAHUB_TOKEN_SCOPES))
    )
    s.monkeypatch.chdir(s.folder)
    return {}


def service_account(s: Setting) -> dict[str, Any]:
    return {"service_account_key_path": s.key_file()}


def service_account_subject(s: Setting) -> dict[str, Any]:
    return {"service_account_key_path": s.key_file(), "subject": USER}


def account(s: Setting) -> dict[str, Any]:
    # account="work": its own token file beside token_path, named for the account and the
    # scope set (token.work.gmail.json); tools prefixed work_.
    info = json.dumps(s.token_info(s.access_token(), _later(), GRANTED))
    for label in ("calendar", "gmail"):
        (s.folder / f"token.work.{label}.json").write_text(info)
    return {"token_path": str(s.folder / "token.json"), "account": "work"}


MODES: dict[str, Callable[[Setting], dict[str, Any]]] = {
    "creds": creds_valid,
    "creds_expired": creds_expired,
    "creds_refused": creds_refused,
    "token_file": token_file,
    "token_file_expired": token_file_expired,
    "authorized_user_info": authorized_user_info,
    "llamahub_token_json": llamahub_token_json,
    "service_account": service_account,
    "service_account_subject": service_account_subject,
    "account": account,
}


@dataclass
class Tally:
    """What the matrix saw, for the lead's note: calls, internal errors, wrong answers."""

    calls: int = 0
    internal_errors: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    xfailed: list[str] = field(default_factory=list)


TALLY = Tally()
