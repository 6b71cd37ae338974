"""Google Calendar, offline: a fake Google at the HTTP layer, request bodies checked
against the bundled calendar.v3 discovery document, the process in UTC and the
calendar in New York."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest
from google.auth.exceptions import RefreshError

from toolspecs.core import AskUser, FixArguments, RetryLater, count_tokens
from toolspecs.loaders.google.testing import FakeCalendar, timed_event
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

NY = ZoneInfo("America/New_York")


def created(google: FakeCalendar) -> dict:
    posts = [r for r in google.requests if r.method == "POST" and r.path.endswith("/events")]
    return posts[-1].body


# -- LlamaHub usage, unchanged -------------------------------------------------------


def test_llamahub_usage_works_unchanged(google, spec):
    names = [t.metadata.name for t in spec.to_tool_list()]
    for llamahub_name in ("load_data", "create_event", "get_date"):
        assert llamahub_name in names
    assert "delete_event" not in names  # destructive: only when the user opts in
    out = spec.create_event(
        "Standup", "Daily sync", "Room 1", "2026-11-23T09:00:00-05:00",
        "2026-11-23T09:15:00-05:00", ["bob@example.com"],
    )  # fmt: skip
    assert out.startswith("Event created with id evt0001")
    docs = spec.load_data(number_of_results=10, start_date="2026-11-23")
    assert "[id: evt0001] Standup" in docs[0].text


def test_delete_is_opt_in():
    every = GoogleCalendarToolSpec.all_functions
    offered = GoogleCalendarToolSpec().to_tool_list(spec_functions=every)
    assert "delete_event" not in [t.metadata.name for t in offered]
    opted = GoogleCalendarToolSpec(allow_destructive=True).to_tool_list(spec_functions=every)
    delete = next(t for t in opted if t.metadata.name == "delete_event")
    assert delete.marks.destructive and not delete.marks.read_only
    # Allowed is not chosen: the default set stays LlamaHub's.
    default = GoogleCalendarToolSpec(allow_destructive=True).to_tool_list()
    without = GoogleCalendarToolSpec().to_tool_list()  # the names: the snapshot's
    assert [t.metadata.name for t in default] == [t.metadata.name for t in without]


# -- time semantics ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("sent", "expected"),
    [
        ("2026-11-21 16:00", "2026-11-21T16:00:00-05:00"),
        ("2026-11-21T16:00:00", "2026-11-21T16:00:00-05:00"),
        ("2026-11-21T16:00:00Z", "2026-11-21T11:00:00-05:00"),
        ("2026-11-21T16:00:00+01:00", "2026-11-21T10:00:00-05:00"),
        ("2026-06-21 16:00", "2026-06-21T16:00:00-04:00"),  # summer time
    ],
)
def test_times_are_the_calendars_not_the_servers(google, tools, sent, expected):
    out = tools["create_event"].call(title="Talk", start_datetime=sent)
    assert out.is_error is False, out.content
    body = created(google)
    assert body["start"] == {"dateTime": expected, "timeZone": "America/New_York"}
    start = dt.datetime.fromisoformat(expected)
    assert body["end"]["dateTime"] == (start + dt.timedelta(hours=1)).isoformat()
    assert "ends one hour after the start" in out.content


@pytest.mark.dates
@pytest.mark.faketime
def test_relative_times_are_read_in_the_calendar_zone(google, tools, now):
    out = tools["create_event"].call(title="Tea", start_datetime="tomorrow 4pm")
    assert out.is_error is False
    start = dt.datetime.fromisoformat(created(google)["start"]["dateTime"])
    assert start.date() == now.astimezone(NY).date() + dt.timedelta(days=1)
    assert (start.hour, start.minute) == (16, 0)
    # The offset is New York's on that date (not UTC's, not today's if DST changes overnight).
    assert start.utcoffset() == dt.datetime.combine(start.date(), dt.time(16), NY).utcoffset()


def test_every_time_shown_has_weekday_and_offset(tools):
    out = tools["create_event"].call(title="Tea", start_datetime="2026-11-21 16:00")
    assert "Saturday 2026-11-21 16:00 -05:00 (America/New_York) to 17:00" in out.content
    assert "Link: https://www.google.com/calendar/event?eid=evt0001" in out.content
    assert out.content.endswith("You can move on to the next step.")


def test_across_the_fall_back_change(google, tools):
    out = tools["create_event"].call(
        title="Night shift", start_datetime="2026-10-31 23:00", end_datetime="2026-11-01 09:00"
    )
    body = created(google)
    assert body["start"]["dateTime"] == "2026-10-31T23:00:00-04:00"
    assert body["end"]["dateTime"] == "2026-11-01T09:00:00-05:00"
    assert "Saturday 2026-10-31 23:00 -04:00" in out.content
    assert "Sunday 2026-11-01 09:00 -05:00" in out.content


def test_around_midnight_the_day_is_new_yorks(google, spec):
    # 23:30 in New York on the 21st is 04:30 UTC on the 22nd; listing "2026-11-21" must include it.
    google.events["late"] = timed_event(
        "late", "Late call", "2026-11-21T23:30:00-05:00", "2026-11-22T00:15:00-05:00"
    )
    spec.load_data(start_date="2026-11-21", end_date="2026-11-21")
    listed = [r for r in google.requests if r.path.endswith("/events") and r.method == "GET"][-1]
    assert listed.query["timeMin"] == ["2026-11-21T00:00:00-05:00"]
    assert listed.query["timeMax"] == ["2026-11-22T00:00:00-05:00"]


def test_an_explicit_timezone_reads_naive_times_there(google, tools):
    tools["create_event"].call(
        title="Call", start_datetime="2026-11-21 16:00", timezone="Europe/Paris"
    )
    body = created(google)
    assert body["start"] == {"dateTime": "2026-11-21T16:00:00+01:00", "timeZone": "Europe/Paris"}


@pytest.mark.dates
def test_a_zone_written_in_the_time_is_kept_when_a_timezone_is_given(google, tools):
    # The timezone argument is for naive times; "4pm EST" says its own zone.
    out = tools["create_event"].call(
        title="Call", start_datetime="Nov 21 2026 4pm EST", timezone="Europe/Paris"
    )
    assert out.is_error is False, out.content
    body = created(google)
    assert body["start"] == {"dateTime": "2026-11-21T22:00:00+01:00", "timeZone": "Europe/Paris"}
    assert body["end"]["dateTime"] == "2026-11-21T23:00:00+01:00"


@pytest.mark.dates
def test_the_timezone_setting_overrides_the_calendar(google):
    spec = GoogleCalendarToolSpec(transport=google, timezone="Asia/Kolkata")
    assert "Asia/Kolkata (UTC+05:30)" in spec.get_date()


@pytest.mark.dates
def test_get_date_gives_the_calendars_zone(tools, now):
    text = tools["get_date"].call().content
    here = now.astimezone(NY)
    assert f"Today is {here:%A}, {here:%Y-%m-%d}" in text
    assert "America/New_York (UTC-0" in text


def test_end_before_start_is_guidance(tools, google):
    out = tools["create_event"].call(
        title="x", start_datetime="2026-11-21 16:00", end_datetime="2026-11-21 15:00"
    )
    assert out.is_error is True
    assert "is not after the start" in out.content
    assert "Saturday 2026-11-21 15:00 -05:00" in out.content
    assert not [r for r in google.requests if r.method == "POST"]


def test_unknown_timezone_is_guidance(tools):
    out = tools["create_event"].call(
        title="x", start_datetime="2026-11-21 16:00", timezone="Mars/Base"
    )
    assert out.is_error is True
    assert "'Mars/Base' is not a timezone name" in out.content


def test_missing_start_is_guidance(tools):
    out = tools["create_event"].call(title="x")
    assert out.is_error is True
    assert "needs start_datetime" in out.content


def test_invalid_attendees_are_named(tools, google):
    out = tools["create_event"].call(
        title="x",
        start_datetime="2026-11-21 16:00",
        attendees="bob@example.com, not-an-email, ann@",
    )
    assert out.is_error is True
    assert "'not-an-email', 'ann@'" in out.content
    assert not [r for r in google.requests if r.method == "POST"]


def test_attendees_in_every_form(tools, google):
    tools["create_event"].call(
        title="x", start_datetime="2026-11-21 16:00",
        attendees='["Bob Smith <bob@example.com>", "ann@example.com"]',
    )  # fmt: skip
    assert created(google)["attendees"] == [
        {"email": "bob@example.com", "displayName": "Bob Smith"},
        {"email": "ann@example.com"},
    ]


def test_all_day_events(tools, google):
    out = tools["create_event"].call(title="Offsite", start_datetime="2026-11-23", all_day="yes")
    assert created(google)["start"] == {"date": "2026-11-23"}
    assert created(google)["end"] == {"date": "2026-11-24"}
    assert "Monday 2026-11-23 (all day)" in out.content


@pytest.mark.parametrize(
    ("sent", "rule"),
    [
        ("RRULE:FREQ=WEEKLY;BYDAY=MO", "RRULE:FREQ=WEEKLY;BYDAY=MO"),
        ("every weekday", "RRULE:FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"),
        ("every 2 weeks on Tuesday and Thursday", "RRULE:FREQ=WEEKLY;BYDAY=TU,TH;INTERVAL=2"),
        ("monthly for 6 times", "RRULE:FREQ=MONTHLY;COUNT=6"),
        # The last day ends at 23:59:59 in New York, 04:59:59 UTC the next day.
        ("every Monday until 2026-12-31", "RRULE:FREQ=WEEKLY;BYDAY=MO;UNTIL=20270101T045959Z"),
    ],
)
def test_recurrence_as_rrule_or_words(tools, google, sent, rule):
    out = tools["create_event"].call(title="r", start_datetime="2026-11-23 09:00", recurrence=sent)
    assert out.is_error is False, out.content
    assert created(google)["recurrence"] == [rule]


def test_unreadable_recurrence_is_guidance(tools):
    out = tools["create_event"].call(
        title="r", start_datetime="2026-11-23 09:00", recurrence="sometimes"
    )
    assert out.is_error is True
    assert "RRULE:FREQ=WEEKLY;BYDAY=MO" in out.content


# -- listing -------------------------------------------------------------------------


def test_listing_is_one_line_per_event_with_its_id(google, tools):
    google.events["a1"] = timed_event(
        "a1", "Design review", "2026-11-23T10:00:00-05:00", "2026-11-23T11:00:00-05:00",
        location="Room 4", attendees=[{"email": "bob@example.com", "responseStatus": "accepted"}],
    )  # fmt: skip
    google.events["a2"] = timed_event("a2", "Lunch", "2026-11-23T17:00:00Z", "2026-11-23T18:00:00Z")
    out = tools["load_data"].call(start_date="2026-11-23", max_results="5")
    lines = out.content.split("\n\n")
    assert lines[0] == (
        "[id: a1] Design review — Monday 2026-11-23 10:00 -05:00 (America/New_York) to 11:00; "
        "location: Room 4; organizer: Ada Lovelace <ada@example.com>; "
        "attendees: bob@example.com (accepted)"
    )
    assert lines[1].startswith("[id: a2] Lunch — Monday 2026-11-23 12:00 -05:00")
    listed = [r for r in google.requests if r.path.endswith("/events")][-1]
    assert listed.query["maxResults"] == ["5"]
    assert listed.query["singleEvents"] == ["true"]


def test_empty_range_says_so(tools):
    out = tools["load_data"].call(start_date="2026-11-23")
    assert out.is_error is False
    assert out.content == "No events in that range. Widen the dates, or drop the query."


def test_large_listings_are_stored_and_searchable(google, tools):
    for i in range(150):
        day = 1 + i % 28
        google.events[f"e{i:03d}"] = timed_event(
            f"e{i:03d}", f"Meeting number {i} about {'budget' if i == 77 else 'roadmap'}",
            f"2026-12-{day:02d}T09:00:00-05:00", f"2026-12-{day:02d}T10:00:00-05:00",
        )  # fmt: skip
    out = tools["load_data"].call(start_date="2026-12-01", number_of_results=200)
    assert count_tokens(out.content) < 2000
    assert "read_stored_events" in out.content
    found = tools["read_stored_events"].call(query="budget")
    assert "[id: e077] Meeting number 77 about budget" in found.content


def test_end_date_before_start_date(tools):
    out = tools["load_data"].call(start_date="2026-11-23", end_date="2026-11-01")
    assert out.is_error is True
    assert "before start_date" in out.content


# -- update and delete ------------------------------------------------------------------


@pytest.fixture
def with_event(google):
    google.events["m1"] = timed_event(
        "m1", "1:1", "2026-11-24T14:00:00-05:00", "2026-11-24T14:45:00-05:00",
        description="Agenda", attendees=[{"email": "bob@example.com"}],
    )  # fmt: skip
    return google


def test_update_changes_only_what_is_given(with_event, tools):
    out = tools["update_event"].call(event_id="m1", title="1:1 with Bob")
    assert out.is_error is False
    patch = [r for r in with_event.requests if r.method == "PATCH"][-1].body
    assert patch == {"summary": "1:1 with Bob"}
    event = with_event.events["m1"]
    assert event["description"] == "Agenda"
    assert event["attendees"] == [{"email": "bob@example.com"}]
    assert "Event updated with id m1: «1:1 with Bob»" in out.content


def test_moving_the_start_keeps_the_duration(with_event, tools):
    out = tools["update_event"].call(event_id="m1", start_datetime="2026-11-25 09:00")
    patch = [r for r in with_event.requests if r.method == "PATCH"][-1].body
    assert patch["start"]["dateTime"] == "2026-11-25T09:00:00-05:00"
    assert patch["end"]["dateTime"] == "2026-11-25T09:45:00-05:00"
    assert "keeps its duration" in out.content


def test_update_with_nothing_to_change(with_event, tools):
    out = tools["update_event"].call(event_id="m1")
    assert out.is_error is True
    assert "nothing to change" in out.content


def test_unknown_event_id_says_how_to_get_ids(google, tools):
    out = tools["update_event"].call(event_id="nope", title="x")
    assert out.is_error is True
    assert isinstance(out.exception, FixArguments)
    assert "HTTP 404" in out.content
    assert "Get event ids with load_data" in out.content


def test_delete(with_event):
    spec = GoogleCalendarToolSpec(transport=with_event, allow_destructive=True)
    out = spec.call_tool("delete_event", id="m1")
    assert out.content == "Event m1 deleted. You can move on to the next step."
    assert "m1" not in with_event.events
    again = spec.call_tool("delete_event", event_id="m1")
    assert again.is_error is True
    assert "load_data" in again.content


# -- free time ------------------------------------------------------------------------


def test_free_time_for_several_people(google, tools):
    google.busy = {
        "primary": [{"start": "2026-11-23T14:00:00Z", "end": "2026-11-23T15:00:00Z"}],
        "bob@example.com": [{"start": "2026-11-23T17:00:00Z", "end": "2026-11-23T18:30:00Z"}],
    }
    out = tools["find_free_time"].call(
        start_datetime="2026-11-23 09:00", end_datetime="2026-11-23 17:00",
        attendees=["bob@example.com"], min_minutes="60",
    )  # fmt: skip
    assert out.is_error is False
    assert out.content.splitlines()[1:] == [
        "- Monday 2026-11-23 10:00 -05:00 (America/New_York) to 12:00",
        "- Monday 2026-11-23 13:30 -05:00 (America/New_York) to 17:00",
    ]
    query = [r for r in google.requests if r.path == "/freeBusy"][-1].body
    assert query["timeZone"] == "America/New_York"
    assert query["items"] == [{"id": "primary"}, {"id": "bob@example.com"}]


def test_free_time_notes_calendars_it_cannot_see(google, tools):
    google.unknown_calendars = {"zed@other.org"}
    out = tools["find_free_time"].call(
        start="2026-11-23 09:00", end="2026-11-23 10:00", attendees="zed@other.org"
    )
    assert "Could not see the calendars of zed@other.org" in out.content


# -- API errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "reason", "kind", "phrase"),
    [
        (403, "insufficientPermissions", AskUser, "lacks a needed permission"),
        (403, "rateLimitExceeded", RetryLater, "rate-limiting"),
        (401, "authError", AskUser, "authorize again"),
        (409, "duplicate", FixArguments, "conflict (HTTP 409)"),
        (400, "badRequest", FixArguments, "rejected the request (HTTP 400)"),
    ],
)
def test_api_errors_become_guidance(google, tools, status, reason, kind, phrase):
    google.fail[("POST", "/events")] = [(status, reason, "Google's message")] * 5
    out = tools["create_event"].call(title="x", start_datetime="2026-11-21 16:00")
    assert out.is_error is True
    assert isinstance(out.exception, kind)
    assert phrase in out.content
    assert "Google's message" in out.content


@pytest.mark.dates
def test_429_and_5xx_are_retried_with_backoff_then_succeed(google, tools, no_backoff_sleep):
    google.fail[("GET", "/events")] = [
        (429, "rateLimitExceeded", "slow"),
        (503, "backendError", "x"),
    ]
    out = tools["load_data"].call()
    assert out.is_error is False
    assert len(no_backoff_sleep) == 2


@pytest.mark.dates
def test_5xx_after_every_retry_is_retry_later(google, tools):
    google.fail[("GET", "/events")] = [(500, "backendError", "boom")] * 10
    out = tools["load_data"].call()
    assert isinstance(out.exception, RetryLater)
    assert "even after retries" in out.content
    assert len([r for r in google.requests if r.path.endswith("/events")]) == 4


def test_an_insert_that_met_a_server_error_is_not_sent_again(google, tools):
    # Google may have made the event before failing: a second insert could make two.
    google.fail[("POST", "/events")] = [(500, "backendError", "boom")] * 10
    out = tools["create_event"].call(title="x", start_datetime="2026-11-21 16:00")
    assert isinstance(out.exception, RetryLater)
    assert len([r for r in google.requests if r.method == "POST"]) == 1


def test_network_errors_are_retry_later(tools, google, monkeypatch):
    def down(*args, **kwargs):
        raise TimeoutError("timed out")

    monkeypatch.setattr(google, "request", down)
    out = tools["load_data"].call()
    assert out.is_error is True
    assert isinstance(out.exception, RetryLater)


def test_revoked_refresh_token_tells_the_person_to_reauthorize(tmp_path, monkeypatch):
    token = tmp_path / "token.calendar.json"
    token.write_text(json.dumps({
        "token": "old", "refresh_token": "revoked", "client_id": "cid", "client_secret": "sec",
        "token_uri": "https://oauth2.googleapis.com/token", "expiry": "2020-01-01T00:00:00Z",
        "scopes": ["https://www.googleapis.com/auth/calendar"],
    }))  # fmt: skip

    def refuse(self, request):
        raise RefreshError("invalid_grant: Token has been expired or revoked.")

    monkeypatch.setattr("google.oauth2.credentials.Credentials.refresh", refuse)
    spec = GoogleCalendarToolSpec(token_path=str(token))
    out = spec.call_tool("load_data")
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "invalid_grant" not in out.content  # the token endpoint's answer stays out
    assert "delete token.calendar.json" in out.content
    assert str(tmp_path) not in out.content  # the file's name, not where it lies


def test_missing_oauth_client_file_is_guidance(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = GoogleCalendarToolSpec().call_tool("load_data")  # get_date needs no sign-in
    assert out.is_error is True
    assert "no OAuth client file at 'credentials.json'" in out.content


def test_the_package_page_examples_run_offline(tmp_path, monkeypatch, capsys):
    import re
    from pathlib import Path

    monkeypatch.chdir(tmp_path)  # no credentials.json: nothing may try to authorize
    page = Path(__file__).parents[2] / "specs" / "google_calendar" / "README.md"
    namespace: dict = {}
    for code in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL):
        exec(compile(code, "specs/google_calendar/README.md", "exec"), namespace)
    assert "Event created with id evt0001: «Tea»" in capsys.readouterr().out


def test_a_missing_end_is_one_real_hour_across_a_dst_change(google, tools):
    # 2026-03-29 in Paris: 02:00 jumps to 03:00. One hour after 01:30 is 03:30, not 02:30.
    out = tools["create_event"].call(
        title="Early", start_datetime="2026-03-29 01:30", timezone="Europe/Paris"
    )
    assert out.is_error is False, out.content
    body = created(google)
    assert body["start"]["dateTime"] == "2026-03-29T01:30:00+01:00"
    assert body["end"]["dateTime"] == "2026-03-29T03:30:00+02:00"


def test_under_a_prefix_googles_words_in_guidance_stay_as_google_wrote_them(google):
    # Google's reason is echoed outside «»; only our own words name the prefixed tools.
    said = "Event nope is gone: call load_data() to list events"
    google.fail[("PATCH", "/events/nope")] = [(404, "notFound", said)]
    spec = GoogleCalendarToolSpec(transport=google)
    tools = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions,
                                                            prefix="cal_")}  # fmt: skip
    out = tools["cal_update_event"].call(event_id="nope", title="x")
    assert out.is_error is True and "HTTP 404" in out.content
    assert said in out.content
    assert "cal_load_data()" not in out.content
    assert "Get event ids with cal_load_data (each line" in out.content
