"""Google Calendar and Gmail on a machine without network, through the real httplib2 stack.

No fake transport: the specs get credentials and build googleapiclient's own
``AuthorizedHttp(httplib2.Http())``. ``socket.getaddrinfo`` fails as with no DNS
(``no_dns``), or every connection is refused (``refused``): nothing leaves the machine.
Counted in lookups and back-off waits, not in seconds.
"""

from __future__ import annotations

import datetime as dt

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


def valid_creds() -> Credentials:
    return Credentials(token="an-access-token")  # no expiry: used as it is, no refresh


def test_a_calendar_call_asks_the_user_naming_the_host(no_dns, waits):
    spec = GoogleCalendarToolSpec(creds=valid_creds(), timezone="UTC")
    tool = next(t for t in spec.to_tool_list() if t.metadata.name == "load_data")
    with pytest.raises(AskUser) as caught:
        tool.fn()
    assert no_dns == ["www.googleapis.com"]  # one lookup: not retried
    assert waits == []
    text = str(caught.value)
    assert "could not resolve www.googleapis.com (no network, or no DNS)" in text
    assert "Do not retry now: tell the user this machine could not look up" in text


def test_a_gmail_call_names_its_host(no_dns, waits):
    output = GmailToolSpec(creds=valid_creds()).call_tool("search_messages", query="invoice")
    assert output.is_error and isinstance(output.exception, AskUser)
    assert "could not resolve gmail.googleapis.com" in output.content
    assert no_dns == ["gmail.googleapis.com"] and waits == []


def test_a_token_refresh_without_network_names_the_token_server(no_dns, waits):
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
    assert no_dns == ["oauth2.googleapis.com"] and waits == []


def test_a_refused_connection_is_retried_then_names_the_host(refused, waits):
    service = build_service("calendar", "v3", credentials=valid_creds())
    with pytest.raises(GoogleUnreachable) as caught:
        execute(service.events().list(calendarId="primary"), num_retries=2)
    assert caught.value.resolved
    assert caught.value.reason == "could not connect to www.googleapis.com (connection refused)"
    assert refused == ["www.googleapis.com"] * 3  # the first try and 2 retries
    assert len(waits) == 2


def test_a_refused_connection_is_retry_later_guidance(refused, waits):
    spec = GoogleCalendarToolSpec(creds=valid_creds(), timezone="UTC")
    output = spec.call_tool("load_data")
    assert isinstance(output.exception, RetryLater)
    assert "Google Calendar could not be reached: could not connect to www.googleapis.com" in (
        output.content
    )
    assert "www.googleapis.com refuses connections from this machine" in output.content
