"""The Calendar client: every request a Calendar tool makes, as a method on plain data."""

import datetime as dt
import pathlib
import re
from zoneinfo import ZoneInfo

import pytest

from toolspecs.loaders.google import GoogleApiError, GoogleCalendarReader, GoogleResponseError
from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.loaders.google.testing.calendar import calendar_entry

NEW_YORK = ZoneInfo("America/New_York")
SPEC = pathlib.Path(__file__).parents[2] / "specs" / "google_calendar" / "src"


def _event(title: str, start: str, end: str, **extra):
    zone = "America/New_York"
    return {
        "summary": title,
        "start": {"dateTime": start, "timeZone": zone},
        "end": {"dateTime": end, "timeZone": zone},
        **extra,
    }


def test_an_event_is_created_read_changed_replaced_and_deleted():
    google = FakeCalendar()
    client = GoogleCalendarReader(transport=google)
    created = client.insert_event(
        "primary", _event("Budget", "2026-11-23T09:00:00-05:00", "2026-11-23T10:00:00-05:00"), "all"
    )
    event_id = created["id"]
    assert client.get_event("primary", event_id)["summary"] == "Budget"
    assert client.patch_event("primary", event_id, {"location": "Room 4"})["location"] == "Room 4"
    replaced = client.update_event(
        "primary",
        event_id,
        _event("Review", "2026-11-23T11:00:00-05:00", "2026-11-23T12:00:00-05:00"),
    )
    assert (replaced["id"], replaced["summary"]) == (event_id, "Review")
    assert "location" not in replaced  # an update replaces the whole event
    client.delete_event("primary", event_id)
    with pytest.raises(GoogleApiError) as caught:
        client.get_event("primary", event_id)
    assert caught.value.status == 404
    assert [(m, s) for m, _, s in google.notifications] == [
        ("POST", "all"),
        ("PATCH", "none"),
        ("PUT", "none"),
        ("DELETE", "none"),
    ]


def test_instances_follow_pages_within_the_bound():
    google = FakeCalendar()
    google.page_size = 2
    client = GoogleCalendarReader(transport=google)
    series = client.insert_event(
        "primary",
        _event(
            "Standup",
            "2026-11-23T09:00:00-05:00",
            "2026-11-23T09:15:00-05:00",
            recurrence=["RRULE:FREQ=DAILY;COUNT=5"],
        ),
    )
    start = dt.datetime(2026, 11, 1, tzinfo=NEW_YORK)
    assert len(client.list_instances("primary", series["id"], time_min=start, pages=10)) == 5
    assert len(client.list_instances("primary", series["id"], time_min=start, pages=2)) == 4
    first = client.list_instances("primary", series["id"], time_min=start, max_results=1)
    assert [i["recurringEventId"] for i in first] == [series["id"]]


def test_free_busy_gives_intervals_per_calendar_and_none_for_an_unseen_one():
    google = FakeCalendar(
        busy={"primary": [{"start": "2026-11-23T14:00:00Z", "end": "2026-11-23T15:00:00Z"}]}
    )
    google.unknown_calendars.add("ceo@corp.com")
    client = GoogleCalendarReader(transport=google)
    start = dt.datetime(2026, 11, 23, 8, tzinfo=NEW_YORK)
    found = client.free_busy(start, start + dt.timedelta(hours=9), ["primary", "ceo@corp.com"])
    busy = found["primary"]
    assert busy is not None
    assert busy[0][0] == dt.datetime(2026, 11, 23, 14, tzinfo=dt.timezone.utc)
    assert found["ceo@corp.com"] is None


def test_the_calendar_list_and_zones():
    google = FakeCalendar(
        calendar_list=[calendar_entry("ada@example.com", "Ada", primary=True)]
        + [calendar_entry(f"c{i}@x.com", f"C{i}") for i in range(3)]
    )
    client = GoogleCalendarReader(transport=google)
    assert [e["id"] for e in client.list_calendars()][:2] == ["ada@example.com", "c0@x.com"]
    assert client.known_timezone("primary") is None  # nothing asked yet: no request
    assert client.calendar_timezone("primary") == NEW_YORK
    assert client.known_timezone("primary") == NEW_YORK
    assert len([r for r in google.requests if r.path == "/calendars/primary"]) == 1


def test_an_unreadable_busy_time_is_a_response_error():
    google = FakeCalendar(busy={"primary": [{"start": "soon", "end": "later"}]})
    client = GoogleCalendarReader(transport=google)
    start = dt.datetime(2026, 11, 23, 8, tzinfo=NEW_YORK)
    with pytest.raises(GoogleResponseError, match="busy time"):
        client.free_busy(start, start + dt.timedelta(hours=1), ["primary"])


def test_the_calendar_spec_makes_no_request_itself():
    """Every request is the client's: no spec module touches a googleapiclient resource."""
    resource = re.compile(r"\.(events|calendars|calendarList|freebusy)\(\)|\.execute\(|\.service\b")
    for path in SPEC.rglob("*.py"):
        assert not resource.search(path.read_text()), path
