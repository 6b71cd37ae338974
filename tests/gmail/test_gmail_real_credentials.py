"""Gmail with a user's own google-auth credentials: the batch paths googleapiclient runs.

A user builds ``GmailToolSpec(creds=Credentials(...))``; their calls go through
google-auth, ``AuthorizedHttp``, googleapiclient's ``BatchHttpRequest`` and httplib2. Here
only ``httplib2.Http.request`` is replaced, by the shipped fake Gmail and a token endpoint
that renews tokens, so everything above the wire is the user's stack.
"""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import parse_qs

import httplib2
import pytest
from google.oauth2.credentials import Credentials

from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec

TOKEN_URI = "https://oauth2.googleapis.com/token"


class Wire:
    """What ``httplib2.Http.request`` reaches: Gmail, and Google's token endpoint."""

    def __init__(self) -> None:
        self.gmail = sample_mailbox()
        self.renewals = 0
        self.tokens: list[str] = []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        if uri.startswith(TOKEN_URI):
            form = parse_qs(body.decode() if isinstance(body, bytes) else body)
            assert form["refresh_token"] == ["1//refresh"]
            self.renewals += 1
            answer = {"access_token": f"renewed-{self.renewals}", "expires_in": 3599}
            fields = {"status": "200", "content-type": "application/json"}
            return httplib2.Response(fields), json.dumps(answer).encode()
        self.tokens.append(
            dict((k.lower(), v) for k, v in (headers or {}).items())["authorization"]
        )
        return self.gmail.request(uri, method, body, headers)


@pytest.fixture
def wire(monkeypatch):
    wire = Wire()
    monkeypatch.setattr(
        httplib2.Http,
        "request",
        lambda self, uri, method="GET", body=None, headers=None, **kw: wire.request(
            uri, method, body, headers
        ),
    )
    return wire


def user_spec(token: str = "ya29.valid") -> GmailToolSpec:
    creds = Credentials(
        token=token,
        refresh_token="1//refresh",
        token_uri=TOKEN_URI,
        client_id="client.apps.googleusercontent.com",
        client_secret="secret",
    )
    return GmailToolSpec(creds=creds)


def tools(spec: GmailToolSpec) -> dict:
    return {t.metadata.name: t for t in spec.to_tool_list(spec.all_functions)}


def test_search_with_several_matches_answers_each(wire):
    out = tools(user_spec())["search_messages"].call(query="from:ada@example.com")
    assert out.is_error is False, out.content
    assert len(out.content.split("\n\n")) == 3
    assert "Subject: Lunch on Tuesday?" in out.content
    batch = [r for r in wire.gmail.requests if r.parts]
    assert batch and len(batch[0].parts) == 3  # the three gets went as one batch
    assert set(wire.tokens) == {"Bearer ya29.valid"}


def test_load_data_and_get_thread_with_user_credentials(wire):
    spec = user_spec()
    docs = spec.load_data()
    assert len(docs) >= 3 and all(doc.text for doc in docs)
    thread = next(
        m
        for m in wire.gmail.messages
        if wire.gmail.mime(m)["Message-ID"] == ("<thread-start@example.org>")
    )
    out = tools(spec)["get_thread"].call(thread_id=thread)
    assert out.is_error is False, out.content
    assert out.content.count("From:") == 2  # both messages of the thread


def test_a_token_google_refuses_inside_the_batch_is_renewed_and_the_calls_answered(wire):
    # Google refuses the token on the batched gets (it was revoked mid-session): each
    # is renewed through the token endpoint and sent again; the agent sees its answer.
    for message_id in wire.gmail.messages:
        wire.gmail.fail[("GET", f"/users/me/messages/{message_id}")] = [
            (401, "authError", "Invalid Credentials")
        ]
    out = tools(user_spec())["search_messages"].call(query="from:ada@example.com")
    assert out.is_error is False, out.content
    assert len(out.content.split("\n\n")) == 3
    assert wire.renewals == 1
    assert wire.tokens[-1] == "Bearer renewed-1"


def test_an_expired_token_is_renewed_before_the_batch(wire):
    creds = Credentials(
        token="ya29.expired",
        refresh_token="1//refresh",
        token_uri=TOKEN_URI,
        client_id="client.apps.googleusercontent.com",
        client_secret="secret",
        expiry=dt.datetime(2000, 1, 1),
    )
    out = tools(GmailToolSpec(creds=creds))["search_messages"].call(query="from:ada@example.com")
    assert out.is_error is False, out.content
    assert wire.renewals == 1
    assert set(wire.tokens) == {"Bearer renewed-1"}
