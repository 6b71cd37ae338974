"""Every Calendar tool, for every way of building the spec, over the wire (issue 37).

Each case builds ``GoogleCalendarToolSpec`` as one kind of user does (``as_users_modes``),
offers every tool (``allow_destructive=True``), calls one tool through ``tool.call`` and
checks the answer against the fake calendar's data: ids, titles, times in the calendar's
zone, what was stored. A service account acting as itself works on the calendar shared
with it (``calendar_id=``; its own calendar list is empty, see ``FakeGoogleServer``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from as_users_calls import Calls, built, tallied
from as_users_modes import MODES, SHARED_CALENDAR, Setting

from toolspecs.loaders.google.testing import timed_event
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

NY = ZoneInfo("America/New_York")


def calendar_spec(setting: Setting, mode: str) -> GoogleCalendarToolSpec:
    options: dict[str, Any] = {"allow_destructive": True}
    if mode == "service_account":
        options["calendar_id"] = SHARED_CALENDAR  # its own calendar holds nothing of Ada's
    return built(setting, mode, GoogleCalendarToolSpec, **options)


# -- the cases: each calls one tool (after what it needs) and checks the fake ------------


def load_data(run: Calls, s: Setting) -> None:
    text = run.ok("load_data", start_date="2026-11-23", end_date="2026-11-27", number_of_results=50)
    assert "[id: evtlunch] Lunch with Grace — Tuesday 2026-11-24 12:30 -05:00" in text
    assert "[id: evtreview] Design review — Wednesday 2026-11-25 14:00 -05:00" in text
    # The series, expanded: one line per weekday occurrence, each with its own id.
    for day in (23, 24, 25, 26, 27):
        assert f"[id: evtstandup_202611{day}T143000Z] Team standup" in text


def create_event(run: Calls, s: Setting) -> None:
    text = run.ok(
        "create_event",
        title="Tea with Grace",
        start_datetime="2026-11-27T16:00",
        end_datetime="2026-11-27T16:30",
        attendees=["grace@example.com", "alan@example.com"],
        location="Library",
    )
    new = [e for e in s.server.calendar.events.values() if e.get("summary") == "Tea with Grace"]
    assert len(new) == 1, s.server.calendar.events.keys()
    event = new[0]
    assert f"Event created with id {event['id']}" in text
    assert "Friday 2026-11-27 16:00 -05:00" in text
    assert event["start"]["dateTime"] == "2026-11-27T16:00:00-05:00"
    assert [a["email"] for a in event["attendees"]] == ["grace@example.com", "alan@example.com"]
    assert s.server.calendar.notifications[-1][2] == "none"  # nobody emailed by default


def create_recurring_event(run: Calls, s: Setting) -> None:
    text = run.ok(
        "create_event",
        title="Weekly sync",
        start_datetime="2026-11-30 10:00",
        end_datetime="2026-11-30 10:30",
        recurrence="RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4",
    )
    (event,) = [e for e in s.server.calendar.events.values() if e.get("summary") == "Weekly sync"]
    assert f"id {event['id']}" in text and "Monday 2026-11-30 10:00 -05:00" in text
    assert event["recurrence"] == ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=4"]
    listed = run.ok("load_data", start_date="2026-11-30", end_date="2026-12-22", query="sync")
    assert listed.count("Weekly sync") == 4  # the fake expands the rule the spec wrote


def update_event(run: Calls, s: Setting) -> None:
    text = run.ok(
        "update_event",
        event_id="evtreview",
        title="Design review (moved)",
        start_datetime="2026-11-25T15:00",
        end_datetime="2026-11-25T16:00",
    )
    stored = s.server.calendar.events["evtreview"]
    assert "Event updated with id evtreview" in text and "15:00 -05:00" in text
    assert stored["summary"] == "Design review (moved)"
    assert stored["start"]["dateTime"].startswith("2026-11-25T15:00:00")
    assert [a["email"] for a in stored["attendees"]] == ["alan@example.com", "grace@example.com"]


def update_occurrence(run: Calls, s: Setting) -> None:
    occurrence = "evtstandup_20261125T143000Z"
    text = run.ok("update_event", event_id=occurrence, title="Standup (demo day)", scope="this")
    assert f"Event updated with id {occurrence}" in text
    assert s.server.calendar.events[occurrence]["summary"] == "Standup (demo day)"
    assert s.server.calendar.events["evtstandup"]["summary"] == "Team standup"  # the rest kept


def delete_event(run: Calls, s: Setting) -> None:
    text = run.ok("delete_event", event_id="evtreading")
    assert "Event evtreading deleted" in text
    assert "evtreading" not in s.server.calendar.events


def find_free_time(run: Calls, s: Setting) -> None:
    text = run.ok(
        "find_free_time",
        start_datetime="2026-11-24T09:00",
        end_datetime="2026-11-24T17:00",
        attendees=["grace@example.com", "alan@example.com"],
        min_minutes=30,
    )
    # alan is busy 9-11, grace 12:30-13:30 (the fake's free/busy).
    assert "- Tuesday 2026-11-24 11:00 -05:00 (America/New_York) to 12:30" in text
    assert "- Tuesday 2026-11-24 13:30 -05:00 (America/New_York) to 17:00" in text
    assert "09:00 -05:00 (America/New_York) to 11:00" not in text.split(":\n", 1)[1]


def search_events(run: Calls, s: Setting) -> None:
    text = run.ok("search_events", query="lunch", start_date="2026-11-23", end_date="2026-11-30")
    assert "[id: evtlunch] Lunch with Grace" in text
    assert "evtreview" not in text


def list_calendars(run: Calls, s: Setting) -> None:
    text = run.ok("list_calendars")
    assert "ada@example.com" in text and "America/New_York" in text
    assert "may not exist" not in text


def respond_to_event(run: Calls, s: Setting) -> None:
    text = run.ok("respond_to_event", event_id="evtlunch", response="accepted", comment="Yes!")
    assert "The user accepted «Lunch with Grace»" in text and "evtlunch" in text
    me = [a for a in s.server.calendar.events["evtlunch"]["attendees"] if a.get("self")]
    assert me and me[0]["responseStatus"] == "accepted" and me[0].get("comment") == "Yes!"


def read_stored_events(run: Calls, s: Setting) -> None:
    # A month of planning sessions: too long to show, so load_data stores it.
    for day in range(1, 31):
        event_id = f"evtplan{day:02d}"
        s.server.calendar.events[event_id] = timed_event(
            event_id,
            f"Planning session {day}",
            f"2026-12-{day:02d}T11:00:00-05:00",
            f"2026-12-{day:02d}T12:00:00-05:00",
            description=f"Quarterly planning, part {day}: budgets and the roadmap. " * 8,
        )
    preview = run.ok("load_data", start_date="2026-12-01", end_date="2026-12-31")
    assert "read_stored_events" in preview, preview
    text = run.ok("read_stored_events", query="Planning session 17")
    assert "evtplan17" in text


CASES: dict[str, Callable[[Calls, Setting], None]] = {
    "load_data": load_data,
    "create_event": create_event,
    "create_event_recurring": create_recurring_event,
    "update_event": update_event,
    "update_event_occurrence": update_occurrence,
    "delete_event": delete_event,
    "find_free_time": find_free_time,
    "search_events": search_events,
    "list_calendars": list_calendars,
    "respond_to_event": respond_to_event,
    "read_stored_events": read_stored_events,
}

# Cases whose tool reads today's date even with dates given (search_events does): they run
# under every clock, their dates fixed, so each clock must give the same answer.
DATED = {"search_events"}


def cases() -> list[Any]:
    params = []
    for mode in MODES:
        for case in CASES:
            marks = [pytest.mark.dates] if case in DATED else []
            params.append(pytest.param(mode, case, id=f"{mode}-{case}", marks=marks))
    return params


@pytest.mark.parametrize(("mode", "case"), cases())
def test_every_calendar_tool(setting: Setting, mode: str, case: str, request, clock) -> None:
    run = Calls(calendar_spec(setting, mode), f"calendar/{mode}")
    tallied(request, f"calendar/{mode} {case}", lambda: CASES[case](run, setting))


# -- what needs today's date: relative times, get_date ------------------------------------


@pytest.fixture
def machine_in_tokyo(monkeypatch: pytest.MonkeyPatch):
    """This machine's zone is not the calendar's: a day apart at the default test time."""
    import time

    monkeypatch.setenv("TZ", "Asia/Tokyo")
    time.tzset()
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


@pytest.mark.dates
@pytest.mark.parametrize("mode", list(MODES))
def test_tomorrow_4pm_is_the_calendars(setting, mode, now, machine_in_tokyo, request):
    run = Calls(calendar_spec(setting, mode), f"calendar/{mode}")
    tomorrow = now.astimezone(NY).date() + dt.timedelta(days=1)

    def check() -> None:
        text = run.ok("create_event", title="Tea", start_datetime="tomorrow 4pm")
        (event,) = [e for e in setting.server.calendar.events.values() if e["summary"] == "Tea"]
        start = dt.datetime.fromisoformat(event["start"]["dateTime"])
        assert start.astimezone(NY).replace(tzinfo=None) == dt.datetime.combine(
            tomorrow, dt.time(16)
        ), event["start"]
        assert f"{tomorrow:%A} {tomorrow} 16:00" in text

    tallied(request, f"calendar/{mode} tomorrow 4pm", check)


@pytest.mark.dates
@pytest.mark.parametrize("mode", list(MODES))
def test_get_date_is_the_calendars_day(setting, mode, now, machine_in_tokyo, request):
    run = Calls(calendar_spec(setting, mode), f"calendar/{mode}")
    today = now.astimezone(NY).date()

    def check() -> None:
        text = run.ok("get_date")
        assert "America/New_York" in text, text
        assert f"{today:%A} {today}" in text or str(today) in text, text

    tallied(request, f"calendar/{mode} get_date", check)
