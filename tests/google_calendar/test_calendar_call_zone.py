"""Reading a Calendar call's arguments asks Google nothing; the calendar's zone is asked
once, for a sound call, and its times are read in that zone."""

from __future__ import annotations

import datetime as dt

import pytest

from toolspecs.loaders.google.testing import FakeCalendar


def _zone_reads(google: FakeCalendar) -> list[str]:
    return [r.path for r in google.requests if r.path.startswith("/calendars/") and r.method == "GET" and r.path.count("/") == 2]  # fmt: skip


@pytest.mark.dates
def test_a_call_with_a_wrong_argument_sends_no_request(google, tools):
    out = tools["create_event"].call(title="Sync", start_datetime="tomorrow 4pm", colour="red")
    assert out.is_error and "colour" in out.content
    assert google.requests == []  # not even the calendar's zone


@pytest.mark.dates
def test_a_wrong_time_is_reported_without_a_request(google, tools):
    out = tools["find_free_time"].call(start_datetime="tomorrow 9am", end_datetime="whenever")
    assert out.is_error and "whenever" in out.content
    assert google.requests == []


@pytest.mark.dates
def test_a_sound_call_reads_its_times_in_the_calendars_zone(tools):
    google = FakeCalendar(timezone="Asia/Tokyo")
    from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

    spec = GoogleCalendarToolSpec(transport=google)
    create = {t.metadata.name: t for t in spec.to_tool_list()}["create_event"]
    out = create.call(title="Sync", start_datetime="2026-11-23T09:00")
    assert not out.is_error, out.content
    assert "+09:00" in out.content
    event = next(iter(google.events.values()))
    start = dt.datetime.fromisoformat(event["start"]["dateTime"])
    assert start.utcoffset() == dt.timedelta(hours=9) and start.hour == 9
    assert _zone_reads(google) == ["/calendars/primary"]  # asked once, then cached
    create.call(title="Again", start_datetime="tomorrow 4pm")
    assert _zone_reads(google) == ["/calendars/primary"]


class _Unreachable:
    """An httplib2-shaped transport that fails every request, and counts them."""

    def __init__(self) -> None:
        self.requests: list[str] = []

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        self.requests.append(f"{method} {uri}")
        raise ConnectionRefusedError(111, "Connection refused")


@pytest.mark.dates
def test_reading_a_sound_call_s_arguments_makes_no_request():
    from toolspecs.core import schema
    from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

    transport = _Unreachable()
    spec = GoogleCalendarToolSpec(transport=transport)
    tools = {t.metadata.name: t for t in spec.to_tool_list(list(spec.all_functions))}
    sound = {"title": "Sync", "start_datetime": "tomorrow 4pm", "end_datetime": "2026-12-01T10:00"}
    for name, call in [
        ("create_event", sound),
        ("find_free_time", {"start_datetime": "tomorrow 9am", "end_datetime": "tomorrow 5pm"}),
        ("load_data", {"start_date": "next Monday"}),
    ]:
        model = tools[name].metadata.fn_schema
        reading = schema.read_arguments(model, (), call)
        assert reading.zone_from is not None  # its times wait for the calendar's zone
        model.model_validate(call)  # a host's validation alone asks nothing either
        assert transport.requests == [], name
    # The call itself asks for the zone (and meets the failure, as guidance).
    out = tools["create_event"].call(**sound)
    assert out.is_error and transport.requests
    assert "calendars/primary" in transport.requests[0]
