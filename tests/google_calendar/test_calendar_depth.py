"""Issue 15, Google Calendar: search, calendars, invitations, recurring scopes, overlaps.

Against the shipped FakeCalendar (request bodies checked against calendar.v3's discovery
document); the process in UTC, the calendar in New York.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from toolspecs.core import AskUser, FixArguments, RetryLater
from toolspecs.loaders.google.testing import FakeCalendar, timed_event
from toolspecs.loaders.google.testing.calendar import calendar_entry
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.google_calendar.series import read_scope

ME = {"email": "ada@example.com", "self": True, "responseStatus": "needsAction"}
GRACE = {"email": "grace@example.com", "displayName": "Grace", "responseStatus": "accepted"}
WEEKLY = ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=6"]


@pytest.fixture
def google():
    events = {
        "e1": timed_event(
            "e1", "Budget review", "2026-11-24T14:00:00-05:00", "2026-11-24T14:45:00-05:00",
            organizer={"email": "grace@example.com"}, attendees=[GRACE, dict(ME)],
        ),
        "e2": timed_event(
            "e2", "Lunch", "2026-11-24T12:00:00-05:00", "2026-11-24T13:00:00-05:00",
            organizer={"email": "ada@example.com", "self": True},
        ),
        "wk": timed_event(
            "wk", "Weekly sync", "2026-11-24T10:00:00-05:00", "2026-11-24T10:30:00-05:00",
            recurrence=list(WEEKLY), attendees=[GRACE],
        ),
    }  # fmt: skip
    return FakeCalendar(events=events)


@pytest.fixture
def tools(google):
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}


def writes(google):
    return [r for r in google.calls() if r.method in ("POST", "PATCH", "DELETE")]


# -- the default set stays lean ----------------------------------------------------


def test_new_tools_are_opt_in():
    spec = GoogleCalendarToolSpec()
    default = [t.metadata.name for t in spec.to_tool_list()]
    # The declared default set, then the reader (the names: tests/snapshots/google_calendar.json).
    assert default == [*spec.spec_functions, spec.reader_name]
    assert {"load_data", "create_event", "get_date"} <= set(default)  # LlamaHub's
    for name in spec.more_functions:
        assert name in spec.all_functions and name not in default


# -- search_events -----------------------------------------------------------------


@pytest.mark.dates
def test_search_events_sends_q_in_a_window_and_lists_ids_times_titles(google, tools):
    out = tools["search_events"].call(query="budget", start_date="2026-11-01")
    assert out.is_error is False, out.content
    sent = [r for r in google.calls() if r.path.endswith("/events") and r.method == "GET"][-1]
    assert sent.query["q"] == ["budget"]
    assert sent.query["timeMin"] == ["2026-11-01T00:00:00-04:00"]
    assert "timeMax" in sent.query
    assert "1 events match «budget» from 2026-11-01 to " in out.content
    assert "[id: e1] Budget review — Tuesday 2026-11-24 14:00 -05:00" in out.content
    assert "Lunch" not in out.content


@pytest.mark.dates
def test_search_events_guides_on_nothing_found_and_empty_query(tools):
    none = tools["search_events"].call(query="zebra", start_date="2026-11-01")
    assert none.is_error is False and "No events match" in none.content
    assert "wider range" in none.content
    empty = tools["search_events"].call(query="  ")
    assert isinstance(empty.exception, FixArguments)


@pytest.mark.dates
def test_search_events_follows_a_short_page_to_the_matches(google, tools):
    # Google may answer a page with nothing on it but a nextPageToken (above all with q).
    empty = b'{"kind": "calendar#events", "items": [], "nextPageToken": "0"}'
    google.fail[("GET", "/events")] = [(200, empty)]
    out = tools["search_events"].call(query="budget", start_date="2026-11-01")
    assert out.is_error is False, out.content
    assert "[id: e1] Budget review" in out.content and "No events match" not in out.content
    pages = [r for r in google.calls() if r.path.endswith("/events") and r.method == "GET"]
    assert [p.query.get("pageToken") for p in pages] == [None, ["0"]]


def test_load_data_reads_later_pages_up_to_the_number_asked(google, tools):
    google.page_size = 1
    out = tools["load_data"].call(start_date="2026-11-24", end_date="2026-11-24")
    assert out.is_error is False, out.content
    assert "[id: wk_20261124T150000Z]" in out.content
    assert "[id: e2]" in out.content and "[id: e1]" in out.content
    two = tools["load_data"].call(
        start_date="2026-11-24", end_date="2026-11-24", number_of_results=2
    )
    assert "[id: e2]" in two.content and "[id: e1]" not in two.content
    last = [r for r in google.calls() if r.path.endswith("/events") and r.method == "GET"][-1]
    assert last.query["maxResults"] == ["1"] and last.query["pageToken"] == ["1"]


def test_the_overlap_warning_sees_events_on_later_pages(google, tools):
    google.page_size = 1
    out = tools["create_event"].call(
        title="Call", start_datetime="2026-11-24 12:30", end_datetime="2026-11-24 14:15"
    )
    assert "It overlaps 2 events: [id: e2] «Lunch»" in out.content, out.content
    assert "[id: e1] «Budget review»" in out.content


# -- list_calendars ----------------------------------------------------------------


def test_list_calendars_shows_only_allowed_ones_and_how_to_allow_more():
    google = FakeCalendar(
        calendar_list=[
            calendar_entry("ada@example.com", "Ada Lovelace", primary=True),
            calendar_entry("team@group.calendar.google.com", "Team", "Europe/Paris", "writer"),
            calendar_entry("secret@group.calendar.google.com", "Secret", access_role="reader"),
        ]
    )
    spec = GoogleCalendarToolSpec(
        transport=google, allowed_calendar_ids=["primary", "team@group.calendar.google.com"]
    )
    out = spec.call_tool("list_calendars")
    assert out.is_error is False, out.content
    assert "[id: primary] (ada@example.com)" in out.content
    assert "timezone America/New_York, access owner, primary, the default" in out.content
    assert "[id: team@group.calendar.google.com]" in out.content
    assert "timezone Europe/Paris, access writer" in out.content
    assert "Secret" not in out.content and "secret@" not in out.content
    assert "1 more calendar this agent may not use" in out.content
    assert "allowed_calendar_ids" in out.content
    assert google.calls()[-1].path == "/users/me/calendarList"


# -- respond_to_event --------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "status"),
    [("accept", "accepted"), ("yes", "accepted"), ("Accepted", "accepted"),
     ("maybe", "tentative"), ("tentatively", "tentative"), ("no", "declined"),
     ("decline", "declined")],
)  # fmt: skip
def test_respond_patches_only_the_users_own_entry(google, tools, said, status):
    out = tools["respond_to_event"].call(event_id="e1", response=said, comment="Running late")
    assert out.is_error is False, out.content
    patch = writes(google)[-1]
    assert patch.method == "PATCH" and patch.path.endswith("/events/e1")
    assert patch.query["sendUpdates"] == ["none"]
    assert set(patch.body) == {"attendees"}
    grace, me = patch.body["attendees"]
    assert grace == GRACE  # every other attendee as it was
    assert me == {**ME, "responseStatus": status, "comment": "Running late"}
    assert "(event id e1)" in out.content and "no email was sent" in out.content


def test_respond_guides_the_organizer_the_uninvited_and_odd_answers(google, tools):
    own = tools["respond_to_event"].call(event_id="e2", response="accept")
    assert isinstance(own.exception, FixArguments) and "organizes" in own.content
    absent = tools["respond_to_event"].call(event_id="wk", response="accept")
    assert isinstance(absent.exception, FixArguments) and "not a guest" in absent.content
    odd = tools["respond_to_event"].call(event_id="e1", response="purple")
    assert isinstance(odd.exception, FixArguments) and "'tentative'" in odd.content
    assert not writes(google)


@pytest.mark.parametrize(
    ("said", "status"),
    [("not sure", "tentative"), ("Not sure yet", "tentative"), ("I'm not sure", "tentative"),
     ("no idea yet", "tentative"), ("don't know", "tentative"), ("unsure", "tentative"),
     ("sure", "accepted"), ("yeah", "accepted"), ("y", "accepted"), ("nope", "declined"),
     ("not going", "declined")],
)  # fmt: skip
def test_respond_reads_doubt_as_tentative(google, tools, said, status):
    out = tools["respond_to_event"].call(event_id="e1", response=said)
    assert out.is_error is False, out.content
    assert writes(google)[-1].body["attendees"][1]["responseStatus"] == status


def test_respond_does_not_read_any_y_word_as_yes(google, tools):
    odd = tools["respond_to_event"].call(event_id="e1", response="yellow")
    assert isinstance(odd.exception, FixArguments), odd.content
    assert not writes(google)


def test_respond_guidance_names_only_tools_the_agent_has(google):
    spec = GoogleCalendarToolSpec(transport=google)
    alone = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=["respond_to_event"])}
    own = alone["respond_to_event"].call(event_id="e2", response="accept")
    assert isinstance(own.exception, FixArguments) and "organizes" in own.content
    assert "update_event" not in own.content
    absent = alone["respond_to_event"].call(event_id="wk", response="accept")
    assert isinstance(absent.exception, FixArguments) and "Check the id;" in absent.content
    assert "load_data" not in absent.content and "search_events" not in absent.content
    both = spec.to_tool_list(spec_functions=["respond_to_event", "update_event", "search_events"])
    tools = {t.metadata.name: t for t in both}
    assert "update_event" in tools["respond_to_event"].call(event_id="e2", response="y").content
    assert "search_events" in tools["respond_to_event"].call(event_id="wk", response="y").content


def test_respond_marks():
    spec = GoogleCalendarToolSpec()
    tool = next(
        t for t in spec.to_tool_list(spec_functions=["respond_to_event"])
        if t.metadata.name == "respond_to_event"
    )  # fmt: skip
    assert not tool.marks.read_only and not tool.marks.destructive and tool.marks.open_world


# -- recurring events: scopes ------------------------------------------------------


def test_scope_spellings():
    assert read_scope("This occurrence") == "this"
    assert read_scope("this and following events") == "following"
    assert read_scope("thisAndFollowing") == "following"
    assert read_scope("entire series") == "all"
    assert read_scope(None) is None
    with pytest.raises(FixArguments):
        read_scope("sideways")


@pytest.mark.parametrize(
    "text", ["not following, only this one", "all but this one", "not the whole series"]
)
def test_a_scope_with_a_negation_is_refused(google, tools, text):
    with pytest.raises(FixArguments):
        read_scope(text)
    out = tools["update_event"].call(event_id="wk_20261208T150000Z", title="v2", scope=text)
    assert isinstance(out.exception, FixArguments) and "negation" in out.content
    assert not writes(google)


def test_update_this_occurrence_by_its_id_changes_only_it(google, tools):
    out = tools["update_event"].call(
        event_id="wk_20261201T150000Z", title="Sync (moved room)", scope="this occurrence"
    )
    assert out.is_error is False, out.content
    assert google.events["wk_20261201T150000Z"]["summary"] == "Sync (moved room)"
    assert google.events["wk"]["summary"] == "Weekly sync"
    listed = tools["load_data"].call(start_date="2026-11-24", end_date="2026-12-09").content
    assert "[id: wk_20261201T150000Z] Sync (moved room)" in listed
    assert "[id: wk_20261208T150000Z] Weekly sync" in listed


@pytest.mark.dates
def test_this_with_a_series_id_lists_occurrence_ids(google, tools, now):
    # The hint lists the occurrences "from now on": a series of Tuesdays from next week,
    # whatever day the suite runs on.
    ny = ZoneInfo("America/New_York")
    day = now.astimezone(ny).date() + dt.timedelta(days=7)
    day += dt.timedelta(days=(1 - day.weekday()) % 7)  # a Tuesday, as BYDAY=TU asks
    start = dt.datetime.combine(day, dt.time(10), ny)
    end = start + dt.timedelta(minutes=30)
    google.events["nx"] = timed_event(
        "nx", "Next sync", start.isoformat(), end.isoformat(), recurrence=list(WEEKLY)
    )
    out = tools["update_event"].call(event_id="nx", title="X", scope="this")
    assert isinstance(out.exception, FixArguments)
    first = start.astimezone(dt.timezone.utc)
    assert f"its next occurrences: [id: nx_{first:%Y%m%dT%H%M%SZ}]" in out.content
    assert "scope='all'" in out.content
    assert not writes(google)


def test_update_all_from_an_occurrence_moves_the_series(google, tools):
    out = tools["update_event"].call(
        event_id="wk_20261201T150000Z", start_datetime="2026-12-01 11:00", scope="all"
    )
    assert out.is_error is False, out.content
    patch = writes(google)[-1]
    assert patch.path.endswith("/events/wk")
    assert patch.body["start"]["dateTime"] == "2026-11-24T11:00:00-05:00"
    assert patch.body["end"]["dateTime"] == "2026-11-24T11:30:00-05:00"


def test_this_and_following_splits_the_series_with_until(google, tools):
    out = tools["update_event"].call(
        event_id="wk_20261208T150000Z", title="Weekly sync v2", scope="this and following"
    )
    assert out.is_error is False, out.content
    made, cut = writes(google)[-2:]  # the new series first, then the cut: a clean undo
    assert made.method == "POST"
    assert made.body["start"]["dateTime"] == "2026-12-08T10:00:00-05:00"
    assert made.body["recurrence"] == ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4"]  # 6 - 2 before
    assert made.body["summary"] == "Weekly sync v2"
    assert cut.method == "PATCH" and cut.path.endswith("/events/wk")
    assert cut.body == {"recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261208T145959Z"]}
    assert "Split the series: wk now ends before" in out.content
    assert "Warning" not in out.content
    listed = tools["load_data"].call(start_date="2026-11-24", end_date="2027-01-31").content
    assert listed.count("Weekly sync v2") == 4 and listed.count("Weekly sync —") == 2


def test_a_split_counts_what_came_before_across_pages(google, tools):
    google.page_size = 1  # Google pages instances too
    out = tools["update_event"].call(event_id="wk_20261215T150000Z", title="v2", scope="following")
    assert out.is_error is False, out.content
    made = [w for w in writes(google) if w.method == "POST"][-1]
    assert made.body["recurrence"] == ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=3"]  # 6 - 3 before


def test_an_all_day_split_east_of_utc_counts_the_days_before_it():
    holidays = {
        "hd": {
            "id": "hd", "status": "confirmed", "summary": "Office closed",
            "start": {"date": "2026-12-01"}, "end": {"date": "2026-12-02"},
            "recurrence": ["RRULE:FREQ=DAILY;COUNT=10"],
        }
    }  # fmt: skip
    google = FakeCalendar(timezone="Asia/Tokyo", events=holidays)
    spec = GoogleCalendarToolSpec(transport=google)
    out = spec.call_tool("update_event", event_id="hd_20261204", title="Closed", scope="following")
    assert out.is_error is False, out.content
    made = [w for w in writes(google) if w.method == "POST"][-1]
    assert made.body["recurrence"] == ["RRULE:FREQ=DAILY;COUNT=7"]  # Dec 1, 2, 3 before
    cut = writes(google)[-1]
    assert cut.body == {"recurrence": ["RRULE:FREQ=DAILY;UNTIL=20261203"]}


def test_a_split_from_a_moved_occurrence_keeps_the_series_time(google, tools):
    moved = google.occurrence("wk_20261208T150000Z")
    moved["start"] = {"dateTime": "2026-12-08T16:00:00-05:00", "timeZone": "America/New_York"}
    moved["end"] = {"dateTime": "2026-12-08T17:00:00-05:00", "timeZone": "America/New_York"}
    google.events["wk_20261208T150000Z"] = moved  # moved alone to 16:00, one hour long
    out = tools["update_event"].call(event_id="wk_20261208T150000Z", title="v2", scope="following")
    assert out.is_error is False, out.content
    made = [w for w in writes(google) if w.method == "POST"][-1]
    assert made.body["start"]["dateTime"] == "2026-12-08T10:00:00-05:00"
    assert made.body["end"]["dateTime"] == "2026-12-08T10:30:00-05:00"
    assert "[id: wk_20261208T150000Z] changed" in out.content  # its move is not kept


def test_a_failed_insert_leaves_the_series_untouched(google, tools):
    google.fail[("POST", "/events")] = [(503, "backendError", "Backend Error")] * 5
    out = tools["update_event"].call(event_id="wk_20261208T150000Z", title="v2", scope="following")
    assert isinstance(out.exception, RetryLater), out.content
    assert not [w for w in writes(google) if w.method != "POST"]
    assert google.events["wk"]["recurrence"] == WEEKLY


def test_a_failed_cut_deletes_the_new_series_and_says_so(google, tools):
    google.fail[("PATCH", "/events/wk")] = [(503, "backendError", "Backend Error")] * 5
    out = tools["update_event"].call(
        event_id="wk_20261208T150000Z", title="v2", scope="following", notify_attendees=True
    )
    assert isinstance(out.exception, RetryLater), out.content
    assert "The series was not split" in out.content and "deleted again" in out.content
    assert "emailed an invitation" in out.content
    undo = writes(google)[-1]
    assert undo.method == "DELETE" and undo.path.endswith("/events/evt0001")
    assert undo.query["sendUpdates"] == ["none"]  # the undo emails no one
    assert "evt0001" not in google.events
    assert google.events["wk"]["recurrence"] == WEEKLY
    listed = tools["load_data"].call(start_date="2026-11-24", end_date="2027-01-31").content
    assert listed.count("Weekly sync") == 6 and "v2" not in listed


def test_a_split_that_cannot_be_undone_asks_the_user(google, tools):
    google.fail[("PATCH", "/events/wk")] = [(503, "backendError", "Backend Error")] * 5
    google.fail[("DELETE", "/events/evt0001")] = [(403, "forbidden", "Forbidden")]
    out = tools["update_event"].call(event_id="wk_20261208T150000Z", title="v2", scope="following")
    assert isinstance(out.exception, AskUser), out.content
    assert "only half split" in out.content
    assert "delete the series evt0001 in Google Calendar" in out.content


def test_a_split_warns_about_occurrences_changed_or_cancelled_after_it(google, tools):
    google.events["wk_20261215T150000Z"] = {
        **google.occurrence("wk_20261215T150000Z"), "status": "cancelled"
    }  # fmt: skip
    google.events["wk_20261222T150000Z"] = {
        **google.occurrence("wk_20261222T150000Z"), "summary": "Sync with the board"
    }  # fmt: skip
    google.events["wk_20261201T150000Z"] = {  # before the split: it stays, not named
        **google.occurrence("wk_20261201T150000Z"), "location": "Room 2"
    }  # fmt: skip
    out = tools["update_event"].call(event_id="wk_20261208T150000Z", title="v2", scope="following")
    assert out.is_error is False, out.content
    assert "Warning: 2 occurrence(s) from that one on had been changed or cancelled" in out.content
    assert "[id: wk_20261215T150000Z] cancelled" in out.content
    assert "[id: wk_20261222T150000Z] changed" in out.content
    assert "wk_20261201T150000Z" not in out.content


def test_delete_scopes(google, tools):
    one = tools["delete_event"].call(event_id="wk_20261201T150000Z", scope="just this one")
    assert one.is_error is False and "only this one" in one.content
    assert google.events["wk_20261201T150000Z"]["status"] == "cancelled"
    later = tools["delete_event"].call(event_id="wk_20261215T150000Z", scope="following")
    assert later.is_error is False and "now ends before" in later.content
    assert google.events["wk"]["recurrence"] == [
        "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20261215T145959Z"
    ]
    listed = tools["load_data"].call(start_date="2026-11-24", end_date="2027-01-31").content
    assert listed.count("Weekly sync") == 2  # Nov 24 and Dec 8
    every = tools["delete_event"].call(event_id="wk_20261208T150000Z", scope="all")
    assert every.is_error is False and "Series wk with all its occurrences" in every.content
    assert "wk" not in google.events


# -- create_event warns about overlaps ---------------------------------------------


def test_create_event_warns_about_overlaps_without_refusing(google, tools):
    out = tools["create_event"].call(
        title="Call", start_datetime="2026-11-24 12:30", end_datetime="2026-11-24 14:15"
    )
    assert out.is_error is False, out.content
    assert "Event created with id evt0001" in out.content
    assert "It overlaps 2 events: [id: e2] «Lunch», Tuesday 2026-11-24 12:00" in out.content
    assert "; [id: e1] «Budget review», Tuesday 2026-11-24 14:00 -05:00" in out.content
    free = tools["create_event"].call(title="Quiet", start_datetime="2026-11-25 08:00")
    assert "overlaps" not in free.content


def test_the_overlap_warning_is_bounded(google, tools):
    for i in range(6):
        google.events[f"b{i}"] = timed_event(
            f"b{i}", f"Busy {i}", "2026-11-26T09:00:00-05:00", "2026-11-26T10:00:00-05:00"
        )
    out = tools["create_event"].call(title="Call", start_datetime="2026-11-26 09:15")
    assert "It overlaps 6 events" in out.content and "and 3 more" in out.content
    assert out.content.count("[id: b") == 3


# -- over MCP and in the sandbox ---------------------------------------------------


@pytest.mark.dates
async def test_the_new_tools_answer_over_mcp(google):
    from mcp import Client

    from toolspecs.server import build_server

    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    spec.spec_functions = spec.all_functions  # the server follows the instance
    async with Client(build_server(spec)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        found = await client.call_tool(
            "search_events", {"query": "budget", "start_date": "2026-11-01"}
        )
        answered = await client.call_tool("respond_to_event", {"event_id": "e1", "response": "yes"})
        moved = await client.call_tool(
            "update_event", {"event_id": "wk_20261201T150000Z", "title": "Moved", "scope": "this"}
        )
    assert {"search_events", "list_calendars", "respond_to_event"} <= set(names)
    assert "[id: e1] Budget review" in found.content[0].text
    assert "The user accepted" in answered.content[0].text
    assert "Event updated with id wk_20261201T150000Z" in moved.content[0].text


@pytest.mark.dates
def test_the_new_tools_work_in_the_sandbox():
    from toolspecs.server import sandbox_spec

    spec = sandbox_spec("google_calendar")
    found = spec.call_tool("search_events", query="standup")
    assert found.is_error is False and "Team standup" in found.content
    calendars = spec.call_tool("list_calendars")
    assert calendars.is_error is False and "[id: primary]" in calendars.content
    # The user is invited to the week's meetings: an invitation can be answered.
    lunch = spec.call_tool("search_events", query="Lunch with Ada")
    lunch_id = lunch.content.split("[id: ", 1)[1].split("]", 1)[0]
    answered = spec.call_tool("respond_to_event", event_id=lunch_id, response="yes")
    assert answered.is_error is False and "accepted" in answered.content, answered.content
