"""Least-privilege scopes: each Google spec asks only for the scopes of the tools it offers.

Every tool declares its scopes beside its ``@tool`` (``needs_scopes``). A tool whose
scopes the user's token was not granted answers with ask-the-user guidance before any
request. LlamaHub's ``token.json`` (``calendar``; ``gmail.compose`` + ``gmail.readonly``)
still serves what it covers. Real google-auth ``Credentials`` (token files as google-auth
writes them, or ``AuthorizedHttp`` over the Gmail fake); no network.
"""

from __future__ import annotations

import datetime as dt
import json
import socket

import pytest
from google.oauth2.credentials import Credentials
from google_auth_httplib2 import AuthorizedHttp

from toolspecs.core import AskUser, ConfigurationError, tool
from toolspecs.loaders.google import GoogleAuth
from toolspecs.loaders.google.scopes import (
    CALENDAR,
    CALENDAR_EVENTS,
    CALENDAR_READONLY,
    COVERS,
    GMAIL_COMPOSE,
    GMAIL_MODIFY,
    GMAIL_READONLY,
    covering,
    missing,
)
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_base import GoogleToolSpec, needs_scopes
from toolspecs.specs.google_base.spec import declared_scopes, undeclared
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

KNOWN = set(COVERS) | {scope for narrower in COVERS.values() for scope in narrower}
LLAMAHUB_GMAIL = [GMAIL_COMPOSE, GMAIL_READONLY]


def token(scopes: list[str], access: str = "ya29.access") -> dict:
    """A token file as google-auth writes it (``Credentials.to_json()``), still valid."""
    return {
        "token": access, "refresh_token": "1//refresh", "client_id": "cid.apps.googleusercontent.com",
        "client_secret": "GOCSPX-secret", "token_uri": "https://oauth2.googleapis.com/token",
        "expiry": "2999-01-01T00:00:00Z", "scopes": scopes,
    }  # fmt: skip


@pytest.fixture
def offline(monkeypatch):
    """Any connection or name lookup fails the test: the check runs before any request."""
    tried: list[object] = []

    def refuse(*args, **kwargs):
        tried.append(args)
        raise AssertionError("no request may leave the machine")

    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    return tried


# -- declarations -----------------------------------------------------------------------


@pytest.mark.parametrize("spec_class", [GoogleCalendarToolSpec, GmailToolSpec])
def test_every_tool_declares_known_scopes(spec_class):
    assert undeclared(spec_class, GoogleToolSpec) == []
    for entry in spec_class.all_functions:
        declared = declared_scopes(spec_class, entry)
        if declared is None:  # the core's get_date: calls no Google API
            assert entry == "get_date" and spec_class is GmailToolSpec
            continue
        assert set(declared) <= KNOWN, entry


def test_a_tool_that_declares_no_scopes_refuses_the_spec_class():
    with pytest.raises(ConfigurationError, match="count_unread declare no Google scopes"):

        class Counting(GmailToolSpec):
            more_functions = [*GmailToolSpec.more_functions, "count_unread"]  # noqa: RUF012

            @tool(read_only=True, open_world=False)
            def count_unread(self) -> str:
                """Count the unread messages."""
                return "0"

    class Declared(GmailToolSpec):  # the same, declared: accepted, and its scopes asked
        more_functions = [*GmailToolSpec.more_functions, "count_unread"]  # noqa: RUF012

        @needs_scopes(GMAIL_READONLY)
        @tool(read_only=True, open_world=False)
        def count_unread(self) -> str:
            """Count the unread messages."""
            return "0"

    spec = Declared(transport=sample_mailbox())
    spec.to_tool_list(spec_functions=["count_unread"])
    assert spec.auth.scopes == [GMAIL_READONLY]


def test_an_override_keeps_the_scopes_its_base_declared():
    class Quiet(GoogleCalendarToolSpec):
        def list_calendars(self) -> str:
            """List the calendars."""
            return super().list_calendars()

    assert declared_scopes(Quiet, "list_calendars") == (CALENDAR_READONLY,)


# -- what a spec asks for ---------------------------------------------------------------

READING_CALENDAR = ["load_data", "search_events", "list_calendars", "find_free_time", "get_date"]
READING_GMAIL = ["load_data", "search_messages", "get_message", "get_thread", "list_drafts"]


@pytest.mark.parametrize(
    ("spec_class", "functions", "scopes"),
    [
        (GoogleCalendarToolSpec, READING_CALENDAR, [CALENDAR_READONLY]),
        (GoogleCalendarToolSpec, None, [CALENDAR_READONLY, CALENDAR_EVENTS]),
        (GoogleCalendarToolSpec, ["get_date"], [CALENDAR_READONLY]),  # a stable token name
        (GmailToolSpec, READING_GMAIL, [GMAIL_READONLY]),
        (GmailToolSpec, None, [GMAIL_READONLY, GMAIL_COMPOSE]),
        (GmailToolSpec, ["create_draft"], [GMAIL_COMPOSE, GMAIL_READONLY]),
        (GmailToolSpec, ["list_labels"], [GMAIL_READONLY]),
        (GmailToolSpec, ["search_messages", "modify_labels"], [GMAIL_READONLY, GMAIL_MODIFY]),
    ],
    ids=[
        "cal-read",
        "cal-default",
        "cal-date",
        "gmail-read",
        "gmail-default",
        "gmail-draft",
        "gmail-labels",
        "gmail-modify",
    ],
)
def test_a_spec_asks_only_for_the_scopes_of_the_tools_it_offers(spec_class, functions, scopes):
    spec = spec_class(transport=object())
    spec.to_tool_list(spec_functions=functions)
    assert spec.auth.scopes == scopes
    assert CALENDAR not in spec.auth.scopes


def test_every_calendar_tool_offered_still_asks_for_less_than_the_full_calendar_scope():
    spec = GoogleCalendarToolSpec(transport=object(), allow_destructive=True)
    spec.to_tool_list(spec_functions=spec.all_functions)
    assert spec.auth.scopes == [CALENDAR_READONLY, CALENDAR_EVENTS]


def test_the_scopes_follow_the_tools_chosen_on_the_instance_as_tools_does():
    spec = GmailToolSpec(transport=object())
    spec.spec_functions = ["search_messages", "get_message"]  # toolspecs serve --tools
    spec.to_tool_list()
    assert spec.auth.scopes == [GMAIL_READONLY]
    assert GmailToolSpec(transport=object(), allow_send=False).requested_scopes() == [
        GMAIL_READONLY,
        GMAIL_COMPOSE,  # create_draft, still offered
    ]


def test_a_tool_called_by_name_is_offered_and_only_it():
    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    assert spec.call_tool("search_messages", query="lunch").is_error is False
    assert spec.auth.scopes == [GMAIL_READONLY]


def test_allow_modify_still_asks_for_gmail_modify():
    spec = GmailToolSpec(transport=object(), allow_modify=True)
    spec.to_tool_list(spec_functions=["search_messages"])
    assert spec.auth.scopes == [GMAIL_READONLY, GMAIL_MODIFY]


# -- a token that lacks a scope ---------------------------------------------------------


def authorized(scopes: list[str], spec_functions=None):
    """The Gmail spec over the fake, its requests signed with google-auth credentials."""
    gmail = sample_mailbox()
    creds = Credentials.from_authorized_user_info(token(scopes), scopes)
    spec = GmailToolSpec(transport=AuthorizedHttp(creds, http=gmail))
    tools = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec_functions)}
    return spec, gmail, tools


def test_a_tool_whose_scope_was_not_granted_asks_the_user_before_any_request():
    _, gmail, tools = authorized([GMAIL_READONLY])
    out = tools["create_draft"].call(to=["ada@example.com"], subject="Hi", message="Hello")
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "lacks the scope gmail.compose" in out.content
    assert "run `toolspecs authorize gmail` in a terminal" in out.content
    assert "create_draft" in out.content and "Do not retry" in out.content
    assert gmail.calls() == []  # nothing reached Google
    # What the token allows still works.
    assert tools["search_messages"].call(query="lunch").is_error is False
    assert gmail.calls()


def test_an_async_call_is_checked_too():
    import asyncio

    _, gmail, tools = authorized([GMAIL_READONLY])
    out = asyncio.run(
        tools["create_draft"].acall(to=["ada@example.com"], subject="Hi", message="Hello")
    )
    assert isinstance(out.exception, AskUser) and "gmail.compose" in out.content
    assert gmail.calls() == []


def test_llamahubs_gmail_token_covers_all_but_modify_labels():
    _, gmail, tools = authorized(LLAMAHUB_GMAIL, spec_functions=GmailToolSpec.all_functions)
    out = tools["modify_labels"].call(message_ids=["18f000000000beef"], add=["archive"])
    assert isinstance(out.exception, AskUser)
    assert "lacks the scope gmail.modify" in out.content
    assert gmail.calls() == []
    assert tools["list_drafts"].call().is_error is False


def test_a_token_file_lacking_a_scope_is_guidance_without_the_network(tmp_path, offline):
    path = tmp_path / "token.json"
    path.write_text(json.dumps(token([GMAIL_READONLY])))
    spec = GmailToolSpec(token_path=str(path), auth_flow="none")
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    out = tools["create_draft"].call(to=["ada@example.com"], subject="Hi", message="Hello")
    assert isinstance(out.exception, AskUser), out.content
    assert "lacks the scope gmail.compose" in out.content
    assert spec.auth.token_in_use == str(path)  # the partial token was read, not replaced
    assert offline == []
    assert json.loads(path.read_text())["scopes"] == [GMAIL_READONLY]


def test_llamahubs_calendar_token_serves_reading_and_writing_tools(tmp_path, offline):
    path = tmp_path / "token.json"
    before = json.dumps(token([CALENDAR]))
    path.write_text(before)
    reading = GoogleCalendarToolSpec(token_path=str(path))
    reading.to_tool_list(spec_functions=["load_data"])
    reading.check_scopes("load_data")  # nothing lacking: no guidance
    assert reading.auth.scopes == [CALENDAR_READONLY]
    assert reading.auth.granted == [CALENDAR]
    writing = GoogleCalendarToolSpec(token_path=str(path))
    writing.check_scopes("create_event")
    # Read with the scope it was granted (a refresh asks for no other), never rewritten.
    assert writing._get_credentials().scopes == [CALENDAR]
    assert path.read_text() == before and offline == []


def test_the_scopes_a_refresh_asks_for_are_granted_ones_that_cover_the_need():
    assert covering([CALENDAR], [CALENDAR_READONLY]) == [CALENDAR]
    assert covering(LLAMAHUB_GMAIL, [GMAIL_READONLY]) == [GMAIL_READONLY]
    assert missing([GMAIL_MODIFY], [GMAIL_COMPOSE, GMAIL_READONLY]) == []
    assert missing([GMAIL_READONLY], [GMAIL_COMPOSE, GMAIL_READONLY]) == [GMAIL_COMPOSE]


def test_credentials_given_as_they_are_are_not_checked():
    # A service account's scopes are what domain-wide delegation allows: Google says so,
    # at the call (the 403 insufficient-scope row of the failure table).
    spec = GoogleCalendarToolSpec(creds=object(), transport=None)
    spec.reader._service = object()  # a ready client: nothing to build
    assert spec.granted_scopes() is None
    spec.check_scopes("create_event")


# -- authorizing again ------------------------------------------------------------------


@pytest.fixture
def sign_in(tmp_path, monkeypatch):
    """The console sign-in, for real but for Google's token endpoint; the scopes asked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "credentials.json").write_text(json.dumps({"installed": {
        "client_id": "cid.apps.googleusercontent.com", "client_secret": "s",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "redirect_uris": ["http://localhost"],
    }}))  # fmt: skip
    asked: list[list[str]] = []

    def fetch_token(self, **kwargs):
        asked.append(list(self.oauth2session.scope))
        self.oauth2session.token = {"access_token": "new", "refresh_token": "r",
                                    "expires_at": 4102444800}  # fmt: skip

    monkeypatch.setattr("google_auth_oauthlib.flow.Flow.fetch_token", fetch_token)
    return asked


def console(spec):
    spec.auth.auth_flow = "console"
    spec.auth.prompt = lambda _: "http://localhost:8080/?state=x&code=abc"
    return spec


def test_authorizing_again_asks_for_the_union_and_keeps_the_shared_token(tmp_path, sign_in):
    # LlamaHub's token.json, shared with Calendar, granted Gmail's read-only scope alone.
    shared = tmp_path / "token.json"
    shared.write_text(json.dumps(token([CALENDAR, GMAIL_READONLY])))
    spec = console(GmailToolSpec())
    spec.to_tool_list()  # the default tools: drafts need gmail.compose
    assert spec.authorize() == "Authorized; the token is in token.json."
    assert sign_in == [[GMAIL_READONLY, GMAIL_COMPOSE, CALENDAR]]
    assert set(json.loads(shared.read_text())["scopes"]) == {
        CALENDAR,
        GMAIL_READONLY,
        GMAIL_COMPOSE,
    }
    assert spec.auth.granted is not None and not missing(spec.auth.granted, spec.auth.scopes)
    # Calendar still finds its grant in it.
    assert GoogleCalendarToolSpec()._get_credentials().token == "new"


def test_authorizing_a_token_that_covers_everything_signs_in_no_more(tmp_path, sign_in):
    (tmp_path / "token.json").write_text(json.dumps(token(LLAMAHUB_GMAIL)))
    assert console(GmailToolSpec()).authorize() == "Authorized; the token is in token.json."
    assert sign_in == []


def test_authorize_refuses_credentials_that_are_not_signed_in_here():
    from toolspecs.loaders.google import GoogleAuthError

    with pytest.raises(GoogleAuthError, match="authorize them where they were made"):
        GoogleAuth(
            scopes=[GMAIL_READONLY], authorized_user_info=token([GMAIL_READONLY])
        ).authorize()


# -- the command line -------------------------------------------------------------------


@pytest.fixture
def local_sign_in(tmp_path, monkeypatch):
    """google_auth_oauthlib's browser sign-in, its consent answered: the scopes it asked."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "credentials.json").write_text(json.dumps({"installed": {
        "client_id": "cid.apps.googleusercontent.com", "client_secret": "s",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
        "redirect_uris": ["http://localhost"],
    }}))  # fmt: skip
    asked: list[list[str]] = []

    def consent(self, port=0, **kwargs):
        scopes = list(self.oauth2session.scope)
        asked.append(scopes)
        return Credentials(
            "new", refresh_token="r", token_uri="https://oauth2.googleapis.com/token",
            client_id="cid.apps.googleusercontent.com", client_secret="s", scopes=scopes,
            expiry=dt.datetime(2999, 1, 1),  # valid: the next command refreshes nothing
        )  # fmt: skip

    monkeypatch.setattr("google_auth_oauthlib.flow.InstalledAppFlow.run_local_server", consent)
    return asked


@pytest.mark.parametrize(
    ("argv", "scopes"),
    [
        (["gmail", "--tools", "search_messages,get_message"], [GMAIL_READONLY]),
        (["gmail"], [GMAIL_READONLY, GMAIL_COMPOSE]),
        (["google_calendar", "--tools", "load_data"], [CALENDAR_READONLY]),
        (["google_calendar"], [CALENDAR_READONLY, CALENDAR_EVENTS]),
    ],
)
def test_the_authorize_command_asks_for_the_scopes_of_the_tools_offered(
    local_sign_in, tmp_path, capsys, argv, scopes
):
    from toolspecs.cli import main

    assert main(["authorize", *argv]) == 0
    assert capsys.readouterr().out == "Authorized; the token is in token.json.\n"
    assert local_sign_in == [scopes]
    assert json.loads((tmp_path / "token.json").read_text())["scopes"] == scopes


def test_the_authorize_command_adds_the_scopes_a_saved_token_lacks(local_sign_in, tmp_path):
    from toolspecs.cli import main

    assert main(["authorize", "gmail", "--tools", "search_messages"]) == 0
    assert main(["authorize", "gmail", "--tools", "search_messages"]) == 0  # it has them
    assert main(["authorize", "gmail", "--tools", "all"]) == 0
    assert local_sign_in == [[GMAIL_READONLY], [GMAIL_READONLY, GMAIL_COMPOSE, GMAIL_MODIFY]]


def test_the_authorize_command_says_what_to_set(tmp_path, monkeypatch, capsys):
    from toolspecs.cli import main

    monkeypatch.chdir(tmp_path)  # no OAuth client file
    assert main(["authorize", "gmail"]) == 2
    assert "no OAuth client file at 'credentials.json'" in capsys.readouterr().err
    assert main(["authorize", "gmail", "--sandbox"]) == 2
    assert "a sandbox needs no authorization" in capsys.readouterr().err
    assert main(["authorize", "arxiv"]) == 2
    assert "spec 'arxiv' needs no authorization" in capsys.readouterr().err
