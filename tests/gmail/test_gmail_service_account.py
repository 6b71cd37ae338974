"""Gmail through a service account, as a Workspace administrator sets one up.

The spec is built from the account's key (``service_account_key=``), google-auth signs the
JWT-bearer grant, and only ``httplib2.Http.request`` is replaced: by a token endpoint
that reads the grant's claims (whom it acts for, which scopes; a delegation allows some
scopes by name) and the shipped fake Gmail, which answers as Google does for the token.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs

import httplib2
import jwt
import pytest
from service_account_keys import key_info

from toolspecs.loaders.google.scopes import GMAIL_COMPOSE, GMAIL_MODIFY, GMAIL_READONLY
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec

TOKEN_URI = "https://oauth2.googleapis.com/token"
LLAMAHUB_SCOPES = [GMAIL_COMPOSE, GMAIL_READONLY]


def json_reply(status: int, body: dict) -> tuple:
    fields = {"status": str(status), "content-type": "application/json"}
    return httplib2.Response(fields), json.dumps(body).encode()


class Workspace:
    """Google's token endpoint and Gmail, for one service account's delegation."""

    def __init__(self, delegated: list[str]) -> None:
        self.delegated = delegated
        self.gmail = sample_mailbox()
        self.tokens: dict[str, tuple[str | None, list[str]]] = {}
        self.asked: list[list[str]] = []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        if uri.startswith(TOKEN_URI):
            form = parse_qs(body.decode() if isinstance(body, bytes) else body)
            claims = jwt.decode(form["assertion"][0], options={"verify_signature": False})
            scopes = claims["scope"].split()
            self.asked.append(scopes)
            subject = claims.get("sub")
            if subject is not None and not set(scopes) <= set(self.delegated):
                return json_reply(401, {"error": "unauthorized_client", "error_description": (
                    "Client is unauthorized to retrieve access tokens using this method, or "
                    "client not authorized for any of the scopes requested.")})  # fmt: skip
            token = f"ya29.sa-{len(self.tokens)}"
            self.tokens[token] = (subject, scopes)
            return json_reply(200, {"access_token": token, "expires_in": 3599})
        sent = {k.lower(): v for k, v in (headers or {}).items()}["authorization"]
        subject, scopes = self.tokens[sent.removeprefix("Bearer ")]
        if subject is None:  # the service account itself: it has no mailbox
            return json_reply(400, {"error": {"code": 400, "message": "Precondition check failed.",
                "errors": [{"reason": "failedPrecondition", "domain": "global",
                            "message": "Precondition check failed."}],
                "status": "FAILED_PRECONDITION"}})  # fmt: skip
        self.gmail.granted = scopes
        return self.gmail.request(uri, method, body, headers)


@pytest.fixture(scope="module")
def key() -> dict:
    return key_info(TOKEN_URI, "mailbot@p.iam.gserviceaccount.com")


def workspace(monkeypatch, delegated: list[str]) -> Workspace:
    wire = Workspace(delegated)
    monkeypatch.setattr(
        httplib2.Http,
        "request",
        lambda self, uri, method="GET", body=None, headers=None, **kw: wire.request(
            uri, method, body, headers
        ),
    )
    return wire


def tools(spec: GmailToolSpec) -> dict:
    return {t.metadata.name: t for t in spec.to_tool_list(spec.all_functions)}


def test_a_service_account_without_subject_is_told_to_the_person_not_the_arguments(
    monkeypatch, key
):
    workspace(monkeypatch, LLAMAHUB_SCOPES)
    out = tools(GmailToolSpec(service_account_key=key))["search_messages"].call(query="lunch")
    assert out.is_error
    assert "Fix the arguments" not in out.content
    assert "Do not retry" in out.content
    assert "subject=" in out.content and "acts as itself" in out.content


def test_modify_labels_through_a_delegated_service_account(monkeypatch, key):
    wire = workspace(monkeypatch, [*LLAMAHUB_SCOPES, GMAIL_MODIFY])
    spec = GmailToolSpec(service_account_key=key, subject="grace@example.org", allow_modify=True)
    every = tools(spec)
    message = next(iter(wire.gmail.messages))
    out = every["modify_labels"].call(message_ids=[message], add=["STARRED"])
    assert not out.is_error, out.content
    assert "STARRED" in wire.gmail.messages[message]["labelIds"]
    assert GMAIL_MODIFY in wire.asked[-1]  # asked for what the offered tool needs
    # ... and LlamaHub's, which a delegation made for LlamaHub allowed: search still works.
    assert not every["search_messages"].call(query="lunch").is_error


def test_a_delegation_without_the_scope_an_offered_tool_needs_names_it(monkeypatch, key):
    workspace(monkeypatch, LLAMAHUB_SCOPES)
    spec = GmailToolSpec(service_account_key=key, subject="grace@example.org", allow_modify=True)
    out = tools(spec)["modify_labels"].call(message_ids=["x"], add=["STARRED"])
    assert out.is_error and "Do not retry" in out.content
    assert "gmail.modify" in out.content


def test_with_only_llamahubs_tools_the_service_account_asks_only_llamahubs_scopes(monkeypatch, key):
    wire = workspace(monkeypatch, LLAMAHUB_SCOPES)
    spec = GmailToolSpec(service_account_key=key, subject="grace@example.org")
    lean = {t.metadata.name: t for t in spec.to_tool_list()}  # LlamaHub's functions
    out = lean["search_messages"].call(query="lunch")
    assert not out.is_error, out.content
    assert sorted(wire.asked[-1]) == sorted(LLAMAHUB_SCOPES)
