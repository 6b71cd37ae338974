"""Sign-in in the client: a call that needs Google's sign-in shows the person the page.

Through mcp's own client in both protocol modes (``legacy``: ``elicitation/create`` in URL
mode during the call; ``auto``: 2026-07-28's ``InputRequiredResult``, which mcp's client
answers with the same callback and calls again). The person is the callback: shown a
page, they agree at the fake Google (which checks the OAuth client, PKCE and the redirect)
and their browser goes back to the loopback port the server listens on. Gmail is the
sandbox mailbox behind ``googleapiclient``'s HTTP object, so a request carries the token
the sign-in gave. The code's exchange (``requests``) is answered by the fake's token
endpoint. No network.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import anyio
import mcp_types as types
import pytest
from google_signin_fakes import FakeGoogleAndMail, mail, refreshed_by_google, secret_of
from mcp import Client

from toolspecs.loaders.google.testing import FakeGmail
from toolspecs.loaders.google.testing.oauth import AUTHORIZE_URL
from toolspecs.server import build_server, client_signin
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_base.spec import start_sign_in

ALICE = "alice@example.org"


class Browser:
    """The person behind the client: shown a page, they sign in at Google as ``email``."""

    def __init__(self, google: Any, email: str = ALICE, action: str = "accept", go: bool = True):
        self.google, self.email, self.action, self.go = google, email, action, go
        self.pages: list[tuple[str, str]] = []  # (message, url)

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        assert params.mode == "url", "only a sign-in page is shown here"
        self.pages.append((params.message, params.url))
        if self.action == "accept" and self.go:
            back = self.google.consent(params.url, self.email)
            await anyio.to_thread.run_sync(lambda: urllib.request.urlopen(back, timeout=5).close())
        return types.ElicitResult(action=self.action)


class Recorded:
    """googleapiclient's HTTP object: the fake mailbox, noting each request's token."""

    def __init__(self, box: Any) -> None:
        self.box, self.tokens = box, []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        self.tokens.append((headers or {}).get("authorization", ""))
        return self.box.request(uri, method, body, headers, **kwargs)


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def world(tmp_path, monkeypatch):
    fakes = FakeGoogleAndMail([ALICE])
    gmail = Recorded(fakes.mailboxes[ALICE])
    monkeypatch.setattr("googleapiclient.http.build_http", lambda: gmail)
    monkeypatch.setattr("googleapiclient.discovery.build_http", lambda: gmail)
    spec = GmailToolSpec(
        credentials_path=fakes.google.client_file(tmp_path / "credentials.json"),
        token_path=str(tmp_path / "token.json"),
        auth_flow="none",  # a server: no browser of its own
    )
    with refreshed_by_google(fakes.google):
        yield fakes.google, gmail, spec, tmp_path / "token.json"


async def search(spec, mode, person):
    async with Client(build_server(spec), mode=mode, elicitation_callback=person) as client:
        return await client.call_tool("search_messages", {"query": "quokka"})


async def test_the_person_signs_in_on_the_page_and_the_call_goes_on(world, mode):
    google, gmail, spec, token = world
    person = Browser(google)
    result = await search(spec, mode, person)
    assert not result.is_error, result.content[0].text
    assert secret_of(ALICE) in result.content[0].text
    [(message, url)] = person.pages
    assert url.startswith(AUTHORIZE_URL + "?") and "gmail.readonly" in message
    saved = json.loads(token.read_text())  # kept as `toolspecs authorize` keeps it
    assert saved["token"] == google.users[ALICE].access_tokens[-1]
    assert gmail.tokens and set(gmail.tokens) == {f"Bearer {saved['token']}"}
    again = await search(spec, mode, person)  # signed in: nothing shown the second time
    assert not again.is_error and len(person.pages) == 1


async def test_a_declined_sign_in_runs_nothing_and_keeps_nothing(world, mode):
    google, gmail, spec, token = world
    person = Browser(google, action="decline")
    result = await search(spec, mode, person)
    assert result.is_error
    assert "did not sign in, so search_messages was not run" in result.content[0].text
    assert len(person.pages) == 1 and not token.exists() and gmail.tokens == []
    assert spec.__dict__["_client_sign_in"].closed  # its port is closed


async def test_a_client_that_cannot_show_a_page_gets_the_terminal_guidance(world, mode):
    _, gmail, spec, token = world
    async with Client(build_server(spec), mode=mode) as client:  # no elicitation at all
        result = await client.call_tool("search_messages", {"query": "quokka"})
    assert result.is_error
    assert "toolspecs authorize gmail" in result.content[0].text
    assert "_client_sign_in" not in spec.__dict__ and not token.exists() and gmail.tokens == []


async def test_a_page_opened_but_never_finished_ends_with_guidance(world, monkeypatch):
    google, gmail, spec, token = world
    monkeypatch.setattr(client_signin, "SIGN_IN_SECONDS", 0.3)
    person = Browser(google, go=False)  # agrees to open it, never signs in
    result = await search(spec, "legacy", person)
    assert result.is_error and "not finished within 0.3 s" in result.content[0].text
    assert not token.exists() and gmail.tokens == []


async def test_given_credentials_never_show_a_page(world, mode):
    google, gmail, spec, token = world
    spec.auth.authorized_user_info = {"client_id": "x", "client_secret": "y"}  # no token
    person = Browser(google)
    result = await search(spec, mode, person)
    assert result.is_error and person.pages == [] and gmail.tokens == [] and not token.exists()


class BrowserAndYes(Browser):
    """Signs in when shown a page, and says yes to each question."""

    def __init__(self, google: Any) -> None:
        super().__init__(google)
        self.questions: list[str] = []

    async def __call__(self, context: Any, params: Any) -> types.ElicitResult:
        if params.mode == "url":
            return await super().__call__(context, params)
        self.questions.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})


async def test_a_send_that_needs_a_sign_in_first_asks_to_sign_in_then_asks_to_send(world, mode):
    google, gmail, spec, token = world
    box = gmail.box
    draft = box.add_message(mail("bob@example.net", "Quarterly numbers"), labels=["DRAFT"])
    box.drafts["r-signin"] = draft["id"]
    person = BrowserAndYes(google)
    async with Client(build_server(spec), mode=mode, elicitation_callback=person) as client:
        result = await client.call_tool("send_draft", {"draft_id": "r-signin"})
    assert not result.is_error, result.content[0].text
    assert len(person.pages) == 1  # first the sign-in the question needed, then the question
    [question] = person.questions
    assert "To: bob@example.net" in question and "Quarterly numbers" in question
    assert len(box.sent) == 1 and token.exists()


def test_calls_share_one_sign_in_and_one_giving_up_leaves_it_open_for_the_other(world):
    google, _, spec, token = world
    first, second = start_sign_in(spec), start_sign_in(spec)  # two calls needing it
    assert first is second
    first.cancel()  # the person declined in one client
    assert not first.closed
    urllib.request.urlopen(google.consent(second.url, ALICE), timeout=5).close()
    second.finish(5)
    assert token.exists() and "_client_sign_in" not in spec.__dict__  # done: forgotten


def test_no_sign_in_starts_for_a_transport_the_cloud_or_given_credentials(world, tmp_path):
    _, _, spec, _ = world
    assert start_sign_in(GmailToolSpec(transport=FakeGmail())) is None
    spec.auth.is_cloud = True  # no token file to keep it in
    assert start_sign_in(spec) is None
    spec.auth.is_cloud = False
    spec.auth.authorized_user_info = {"refresh_token": "r"}
    assert start_sign_in(spec) is None
