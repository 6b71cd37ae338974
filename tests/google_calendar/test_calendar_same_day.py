"""``get_date`` and the tools that read "tomorrow" agree on the day, on the user's stack.

The agent is told to call ``get_date`` first and work out dates from it; if it answered
in the machine's zone while ``create_event`` reads "tomorrow" in the calendar's, the
agent would start from the wrong day. The spec is built with expired credentials (the
first call must renew them) and with a service account, and only ``httplib2.Http.request``
is faked: Google's token endpoint and the shipped fake Calendar, in New York, on a machine
in UTC.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from zoneinfo import ZoneInfo

import httplib2
import pytest
from google.oauth2.credentials import Credentials
from service_account_keys import key_info

from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

TOKEN_URI = "https://oauth2.googleapis.com/token"
NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def google(monkeypatch):
    google = FakeCalendar(timezone="America/New_York")
    renewed: list[str] = []

    def wire(self, uri, method="GET", body=None, headers=None, **kwargs):
        if uri.startswith(TOKEN_URI):
            renewed.append(uri)
            answer = {"access_token": f"ya29.renewed-{len(renewed)}", "expires_in": 3599}
            fields = {"status": "200", "content-type": "application/json"}
            return httplib2.Response(fields), json.dumps(answer).encode()
        return google.request(uri, method, body, headers)

    monkeypatch.setattr(httplib2.Http, "request", wire)
    google.renewed = renewed
    return google


def expired_creds() -> Credentials:
    return Credentials(
        token="ya29.old", refresh_token="1//r", client_id="c", client_secret="s",
        token_uri=TOKEN_URI, expiry=dt.datetime(2020, 1, 1),
    )  # fmt: skip


def service_account() -> dict:
    return key_info(TOKEN_URI)


def said_day(text: str) -> dt.date:
    return dt.date.fromisoformat(re.search(r"\d{4}-\d{2}-\d{2}", text).group(0))


@pytest.mark.dates
@pytest.mark.parametrize("built", ["expired creds", "service account"])
def test_get_date_and_create_event_agree_on_the_day(google, server_in_utc, now, built):
    if built == "expired creds":
        spec = GoogleCalendarToolSpec(creds=expired_creds())
    else:
        spec = GoogleCalendarToolSpec(service_account_key=service_account())
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    today = tools["get_date"].call()
    assert not today.is_error, today.content
    assert "America/New_York" in today.content and "the calendar's own" in today.content
    calendar_today = now.astimezone(NEW_YORK).date()
    assert said_day(today.content) == calendar_today
    assert google.renewed  # the first call renewed the token (or got the account's)
    out = tools["create_event"].call(title="Tea", start_datetime="tomorrow 4pm")
    assert not out.is_error, out.content
    (event,) = google.events.values()
    start = dt.datetime.fromisoformat(event["start"]["dateTime"]).astimezone(NEW_YORK)
    assert start == dt.datetime.combine(
        said_day(today.content) + dt.timedelta(days=1), dt.time(16), tzinfo=NEW_YORK
    )


def test_a_calendar_shared_with_a_service_account_is_listed_not_called_missing(monkeypatch):
    # A service account acting as itself: its calendar list is empty (nobody adds a
    # shared calendar there), yet every tool works on a calendar shared with it.
    google = FakeCalendar(timezone="Europe/Paris", calendar_list=[])
    google.unknown_calendars.add("gone@group.calendar.google.com")

    def wire(self, uri, method="GET", body=None, headers=None, **kwargs):
        if uri.startswith(TOKEN_URI):
            answer = {"access_token": "ya29.sa", "expires_in": 3599}
            fields = {"status": "200", "content-type": "application/json"}
            return httplib2.Response(fields), json.dumps(answer).encode()
        return google.request(uri, method, body, headers)

    monkeypatch.setattr(httplib2.Http, "request", wire)
    spec = GoogleCalendarToolSpec(
        service_account_key=service_account(),
        calendar_id="team@group.calendar.google.com",
        allowed_calendar_ids=["team@group.calendar.google.com", "gone@group.calendar.google.com"],
    )
    out = spec.call_tool("list_calendars")
    assert not out.is_error, out.content
    team, gone = out.content.splitlines()[1:3]
    assert "[id: team@group.calendar.google.com]" in team
    assert "timezone Europe/Paris; shared with this account" in team and "the default" in team
    assert "may not exist" not in out.content
    assert "[id: gone@group.calendar.google.com] not found" in gone
