"""Google Calendar and Gmail on a machine without network, through the real httplib2 stack.

No fake transport: the specs get credentials and build googleapiclient's own
``AuthorizedHttp(httplib2.Http())``, and google-auth refreshes a token with requests.
``socket.getaddrinfo`` fails as with no DNS (``no_dns``: ``EAI_AGAIN``, what glibc says
offline; ``no_dns_noname``: ``EAI_NONAME``), or every connection is refused (``refused``):
nothing leaves the machine. Counted in lookups and back-off waits, not in seconds.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest
from google.oauth2.credentials import Credentials

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.google import GoogleUnreachable, build_service, execute
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """tenacity's back-off waits (it sleeps with ``time.sleep``), recorded, not slept."""
    slept: list[float] = []
    monkeypatch.setattr("tenacity.nap.time.sleep", slept.append)
    return slept


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def expired_token_json(tmp_path, monkeypatch, no_proxy):
    """A returning user: token.json from an earlier sign-in, its access token expired."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TOOLSPECS_TIMEZONE", raising=False)
    token = tmp_path / "token.json"
    token.write_text(json.dumps({
        "token": "old", "refresh_token": "r", "client_id": "cid", "client_secret": "s",
        "token_uri": "https://oauth2.googleapis.com/token",
        "scopes": ["https://www.googleapis.com/auth/calendar"],
        "expiry": "2020-01-01T00:00:00Z",
    }))  # fmt: skip
    return token


LIBRARY_TEXT = ("TransportError", "HTTPSConnectionPool", "Failed to resolve", "Errno", "urllib3")


def valid_creds() -> Credentials:
    return Credentials(token="an-access-token")  # no expiry: used as it is, no refresh


@pytest.mark.dates
def test_a_calendar_call_asks_the_user_naming_the_host(no_dns, waits, no_proxy):
    spec = GoogleCalendarToolSpec(creds=valid_creds(), timezone="UTC")
    tool = next(t for t in spec.to_tool_list() if t.metadata.name == "load_data")
    with pytest.raises(AskUser) as caught:
        tool.fn()
    assert no_dns == ["www.googleapis.com"] * 2  # EAI_AGAIN: one more try, after 0.5 s
    assert waits == [0.5]
    text = str(caught.value)
    assert "could not resolve www.googleapis.com (no network, or no DNS)" in text
    assert "Do not retry now: tell the user this machine could not look up" in text


def test_a_gmail_call_names_its_host(no_dns, waits, no_proxy):
    output = GmailToolSpec(creds=valid_creds()).call_tool("search_messages", query="invoice")
    assert output.is_error and isinstance(output.exception, AskUser)
    assert "could not resolve gmail.googleapis.com" in output.content
    assert no_dns == ["gmail.googleapis.com"] * 2 and waits == [0.5]


def test_a_name_that_does_not_exist_is_final_at_once(no_dns_noname, waits, no_proxy):
    # httplib2's ServerNotFoundError keeps the gaierror as its __context__: errno read there.
    output = GmailToolSpec(creds=valid_creds()).call_tool("search_messages", query="invoice")
    assert isinstance(output.exception, AskUser)
    assert "could not resolve gmail.googleapis.com (no network, or no DNS)" in output.content
    assert no_dns_noname == ["gmail.googleapis.com"] and waits == []


def test_a_draft_is_tried_again_when_the_name_did_not_resolve(no_dns, waits, no_proxy):
    # A POST is never sent twice after a server error, but an unresolved name sent nothing.
    output = GmailToolSpec(creds=valid_creds()).call_tool(
        "create_draft", to=["adam@example.com"], subject="Hi", message="Hello"
    )
    assert isinstance(output.exception, AskUser)
    assert no_dns == ["gmail.googleapis.com"] * 2 and waits == [0.5]


def test_no_second_try_when_the_deadline_leaves_no_time(no_dns, waits, no_proxy):
    service = build_service("calendar", "v3", credentials=valid_creds())
    with pytest.raises(GoogleUnreachable) as caught:
        execute(service.events().list(calendarId="primary"), deadline=0.4)
    assert (caught.value.resolved, caught.value.again) == (False, True)
    assert no_dns == ["www.googleapis.com"] and waits == []


@pytest.mark.dates
def test_behind_a_proxy_the_proxy_may_be_the_name_that_failed(no_dns, waits, monkeypatch):
    # httplib2 names the request's host even when the lookup was the proxy's.
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    output = GoogleCalendarToolSpec(creds=valid_creds(), timezone="UTC").call_tool("load_data")
    assert isinstance(output.exception, AskUser)
    assert "could not resolve www.googleapis.com (or the proxy) (no network" in output.content


def test_an_offline_refresh_of_token_json_asks_the_user(expired_token_json, no_dns, waits):
    # Before: RetryLater "Could not reach Google Calendar (TransportError: HTTPSConnectionPool(
    # host='oauth2.googleapis.com' ... Failed to resolve 'oauth2.googleapis.com' ...)".
    before = expired_token_json.read_text()
    output = GoogleCalendarToolSpec().call_tool("load_data")
    assert isinstance(output.exception, AskUser), output.content
    assert "could not resolve oauth2.googleapis.com (no network, or no DNS)" in output.content
    assert "tell the user this machine could not look up oauth2.googleapis.com" in output.content
    assert not any(text in output.content for text in LIBRARY_TEXT), output.content
    assert no_dns == ["oauth2.googleapis.com"] * 2 and waits == [0.5]
    assert expired_token_json.read_text() == before


def test_an_offline_refresh_with_no_such_name_is_final(expired_token_json, no_dns_noname, waits):
    output = GoogleCalendarToolSpec().call_tool("load_data")
    assert isinstance(output.exception, AskUser)
    assert "could not resolve oauth2.googleapis.com" in output.content
    assert no_dns_noname == ["oauth2.googleapis.com"] and waits == []


def test_a_refused_refresh_connection_is_retry_later_naming_the_host(
    expired_token_json, refused, waits
):
    output = GoogleCalendarToolSpec().call_tool("load_data")
    assert isinstance(output.exception, RetryLater), output.content
    assert "could not connect to oauth2.googleapis.com (connection refused)" in output.content
    assert not any(text in output.content for text in LIBRARY_TEXT), output.content


def test_behind_a_proxy_requests_names_the_proxy(expired_token_json, no_dns, monkeypatch):
    # urllib3 looks up the proxy's name, and says so.
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    output = GoogleCalendarToolSpec().call_tool("load_data")
    assert "could not resolve proxy.example (no network, or no DNS)" in output.content
    assert set(no_dns) == {"proxy.example"}


@pytest.mark.dates
def test_get_date_offline_with_an_expired_token_answers_in_this_machines_zone_saying_why(
    expired_token_json, no_dns, waits
):
    # get_date renews an expired token as any tool does (so that its day is the one the
    # other tools read "tomorrow" from); offline, it still answers, and says why.
    before = expired_token_json.read_text()
    output = GoogleCalendarToolSpec().call_tool("get_date")
    assert output.is_error is False, output.content
    assert (
        "(timezone: UTC, from this machine's local zone; the calendar's own zone was not "
        "read: " in output.content
    )
    assert "could not resolve oauth2.googleapis.com" in output.content
    assert expired_token_json.read_text() == before  # nothing renewed, nothing written


def test_a_token_refresh_without_network_names_the_token_server(no_dns, waits, no_proxy):
    expired = Credentials(
        token="old",
        refresh_token="r",
        client_id="c",
        client_secret="s",
        token_uri="https://oauth2.googleapis.com/token",
        expiry=dt.datetime(2020, 1, 1),
    )
    service = build_service("calendar", "v3", credentials=expired)
    with pytest.raises(GoogleUnreachable) as caught:
        execute(service.events().list(calendarId="primary"))
    assert (caught.value.host, caught.value.resolved) == ("oauth2.googleapis.com", False)
    assert no_dns == ["oauth2.googleapis.com"] * 2 and waits == [0.5]


def test_a_refused_connection_is_retried_then_names_the_host(refused, waits):
    service = build_service("calendar", "v3", credentials=valid_creds())
    with pytest.raises(GoogleUnreachable) as caught:
        execute(service.events().list(calendarId="primary"), num_retries=2)
    assert caught.value.resolved
    assert caught.value.reason == "could not connect to www.googleapis.com (connection refused)"
    assert refused == ["www.googleapis.com"] * 3  # the first try and 2 retries
    assert len(waits) == 2


@pytest.mark.dates
def test_a_refused_connection_is_retry_later_guidance(refused, waits):
    spec = GoogleCalendarToolSpec(creds=valid_creds(), timezone="UTC")
    output = spec.call_tool("load_data")
    assert isinstance(output.exception, RetryLater)
    assert "Google Calendar could not be reached: could not connect to www.googleapis.com" in (
        output.content
    )
    assert "www.googleapis.com refuses connections from this machine" in output.content
