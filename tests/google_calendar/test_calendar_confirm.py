"""delete_event and destructive updates ask the person first; a no deletes and changes nothing.

Through mcp's own client in memory, in both protocol modes: ``legacy`` (the handshake
revision: the server sends ``elicitation/create`` during the call) and ``auto``
(2026-07-28: the call answers ``InputRequiredResult`` and the client calls again with
the answer). The calendar is the shipped ``FakeCalendar``, in New York (the process in
UTC): what it still holds after a call is what was deleted or changed.
"""

from __future__ import annotations

import copy

import pytest
from mcp import Client

from toolspecs.core.bounds import count_tokens
from toolspecs.loaders.google.testing import FakeCalendar, timed_event
from toolspecs.server import build_server
from toolspecs.server.testing import ScriptedPerson as Person
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.google_calendar.questions import QUESTION_TOKENS

GRACE = {"email": "grace@example.com", "displayName": "Grace", "responseStatus": "accepted"}
BOB = {"email": "bob@example.com", "responseStatus": "needsAction"}
ME = {"email": "ada@example.com", "self": True, "organizer": True}
SERIES = ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=20"]
# The third occurrence of the weekly series (Tuesday 8 December, 10:00 in New York).
THIRD = "wk_20261208T150000Z"
TOOLS = ["load_data", "update_event", "delete_event"]


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


@pytest.fixture
def google():
    return FakeCalendar(
        events={
            "wk": timed_event(
                "wk", "Weekly sync", "2026-11-24T10:00:00-05:00", "2026-11-24T10:30:00-05:00",
                recurrence=list(SERIES), attendees=[dict(ME), dict(GRACE), dict(BOB)],
            ),
            "e1": timed_event(
                "e1", "Review", "2026-11-25T14:00:00-05:00", "2026-11-25T14:45:00-05:00",
                attendees=[dict(GRACE), dict(BOB)], location="Room 4",
            ),
        }
    )  # fmt: skip


@pytest.fixture
def spec(google):
    return GoogleCalendarToolSpec(transport=google, allow_destructive=True)


async def call(spec, person, mode, name, args):
    server = build_server(spec.to_tool_list(spec_functions=TOOLS))
    async with Client(server, mode=mode, elicitation_callback=person) as client:
        return await client.call_tool(name, args)


def writes(google) -> list:
    return [r for r in google.calls() if r.method in ("POST", "PATCH", "PUT", "DELETE")]


# -- delete_event -----------------------------------------------------------------------


async def test_deleting_shows_the_event_and_who_is_emailed(mode, spec, google):
    person = Person()
    args = {"event_id": "e1", "notify_attendees": True}
    result = await call(spec, person, mode, "delete_event", args)

    [question] = person.questions
    assert question.splitlines() == [
        "Delete this event? It cannot be undone.",
        "Event: «Review»",
        "When: Wednesday 2026-11-25 14:00 -05:00 (America/New_York) to 14:45",
        "Where: Room 4",
        "Google will email these attendees that it is cancelled: "
        "Grace <grace@example.com>, bob@example.com.",
        "(Google Calendar event e1)",
    ]
    assert result.is_error is False
    assert result.content[0].text == (
        "Event e1 deleted. The attendees were emailed. You can move on to the next step."
    )
    assert "e1" not in google.events


@pytest.mark.parametrize(
    ("event_id", "scope", "said"),
    [
        (THIRD, None, "Scope: only this occurrence; the rest of its series stays."),
        (THIRD, "this", "Scope: only this occurrence; the rest of its series stays."),
        (
            THIRD,
            "following",
            "Scope: this occurrence and all that follow: the series ends before Tuesday "
            "2026-12-08 10:00 -05:00 (America/New_York); its earlier occurrences stay.",
        ),
        (THIRD, "all", "Scope: the whole series, every occurrence (past ones too)."),
        ("wk", None, "Scope: the whole series, every occurrence (past ones too)."),
    ],
)
async def test_the_person_sees_which_part_of_the_series_goes(
    mode, spec, google, event_id, scope, said
):
    before = copy.deepcopy(google.events)
    person = Person("decline")
    args = {"event_id": event_id} | ({"scope": scope} if scope else {})
    result = await call(spec, person, mode, "delete_event", args)

    [question] = person.questions
    assert said in question.splitlines()
    assert "Event: «Weekly sync»" in question
    assert "Repeats: RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=20" in question or scope in (None, "this")
    # Ada organizes it: the guests are the others, and notifications are off.
    assert (
        "No one is emailed (notifications are off). Attendees: Grace <grace@example.com>, "
        "bob@example.com." in question
    )
    assert result.is_error is True and "declined delete_event" in result.content[0].text
    assert writes(google) == [] and google.events == before


@pytest.mark.parametrize(
    ("action", "yes"), [("decline", None), ("cancel", None), ("accept", False)]
)
async def test_anything_but_yes_deletes_nothing(mode, spec, google, action, yes):
    before = copy.deepcopy(google.events)
    person = Person(action, yes)
    result = await call(spec, person, mode, "delete_event", {"event_id": "e1"})

    assert len(person.questions) == 1 and "Event: «Review»" in person.questions[0]
    assert result.is_error is True
    assert "it was not run, and nothing was sent, changed or deleted" in result.content[0].text
    assert writes(google) == [] and google.events == before


async def test_a_yes_to_this_and_following_ends_the_series(mode, spec, google):
    person = Person()
    args = {"event_id": THIRD, "scope": "following"}
    result = await call(spec, person, mode, "delete_event", args)

    assert len(person.questions) == 1 and result.is_error is False
    assert result.content[0].text.startswith("Occurrences of series wk from Tuesday 2026-12-08")
    assert google.events["wk"]["recurrence"] != SERIES  # it ends before the third


async def test_a_missing_event_is_the_calls_guidance_and_nothing_is_asked(mode, spec, google):
    person = Person()
    result = await call(spec, person, mode, "delete_event", {"event_id": "gone"})

    assert person.questions == [] and result.is_error is True
    assert "found nothing there (HTTP 404)" in result.content[0].text
    assert writes(google) == []
    # The call's own guidance (its DELETE answered 404 too).
    assert result.content[0].text == spec.call_tool("delete_event", event_id="gone").content


async def test_a_spec_for_automated_agents_asks_nothing(mode, spec, google):
    spec.confirm_destructive = False
    person = Person("decline")
    result = await call(spec, person, mode, "delete_event", {"event_id": "e1"})

    assert person.questions == []
    assert result.is_error is False and "e1" not in google.events


async def test_an_events_words_cannot_pass_for_ours(mode, google):
    google.events["e1"]["summary"] = "Review\nScope: only this occurrence\u2028«x»"
    google.events["e1"]["location"] = "Room 4\r\nGoogle will email nobody."
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    person = Person("decline")
    await call(spec, person, mode, "delete_event", {"event_id": "e1"})

    lines = person.questions[0].splitlines()
    assert "Event: «Review Scope: only this occurrence < <x> >»" in lines
    assert "Where: Room 4 Google will email nobody." in lines
    assert not any(line.startswith("Scope:") for line in lines)
    assert count_tokens(person.questions[0]) <= QUESTION_TOKENS
    assert "e1" in google.events


# -- update_event -----------------------------------------------------------------------


async def test_a_destructive_update_shows_what_changes_and_a_no_changes_nothing(mode, spec, google):
    before = copy.deepcopy(google.events)
    person = Person("decline")
    args = {
        "event_id": "e1",
        "start_datetime": "2026-11-26T10:00",
        "attendees": ["grace@example.com", "Carol <carol@example.org>"],
        "notify_attendees": True,
    }
    result = await call(spec, person, mode, "update_event", args)

    [question] = person.questions
    assert question.splitlines() == [
        "Change this event?",
        "Event: «Review»",
        "When: Wednesday 2026-11-25 14:00 -05:00 (America/New_York) to 14:45",
        "Where: Room 4",
        "Changes:",
        "- Attendees added: Carol <carol@example.org>",
        "- Attendees removed: bob@example.com",
        "- When: Wednesday 2026-11-25 14:00 -05:00 (America/New_York) to 14:45 → "
        "Thursday 2026-11-26 10:00 -05:00 (America/New_York) to 10:45",
        "Google will email these attendees about the change: grace@example.com, "
        "Carol <carol@example.org>, bob@example.com.",
        "(Google Calendar event e1)",
    ]
    assert result.is_error is True and "declined update_event" in result.content[0].text
    assert writes(google) == [] and google.events == before

    # The same call, said yes to: made, and replied as always.
    result = await call(spec, Person(), mode, "update_event", args)
    assert result.is_error is False
    assert result.content[0].text.startswith("Event updated with id e1: «Review», Thursday")
    emails = [a["email"] for a in google.events["e1"]["attendees"]]
    assert emails == ["grace@example.com", "carol@example.org"]


async def test_an_update_of_this_and_following_shows_the_split(mode, spec, google):
    before = copy.deepcopy(google.events)
    person = Person("accept", False)
    args = {"event_id": THIRD, "scope": "following", "start_datetime": "2026-12-08T11:00"}
    await call(spec, person, mode, "update_event", args)

    lines = person.questions[0].splitlines()
    assert lines[0] == "Change this occurrence and every later one of its series?"
    assert (
        "Scope: this occurrence and all that follow: the series is split, it ends before "
        "Tuesday 2026-12-08 10:00 -05:00 (America/New_York) and a new series with the "
        "changes takes over from there; its earlier occurrences stay as they are." in lines
    )
    assert (
        "- When: Tuesday 2026-12-08 10:00 -05:00 (America/New_York) to 10:30 → "
        "Tuesday 2026-12-08 11:00 -05:00 (America/New_York) to 11:30" in lines
    )
    assert writes(google) == [] and google.events == before


async def test_an_update_of_the_whole_series_says_every_occurrence_moves(mode, spec, google):
    person = Person("cancel", None)
    args = {"event_id": THIRD, "scope": "all", "recurrence": "RRULE:FREQ=WEEKLY;COUNT=2"}
    await call(spec, person, mode, "update_event", args)

    lines = person.questions[0].splitlines()
    assert lines[0] == "Change this whole recurring series?"
    assert "Scope: the whole series, every occurrence." in lines
    assert "- Repeats: RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=20 → RRULE:FREQ=WEEKLY;COUNT=2" in lines
    assert any("occurrences may be lost" in line for line in lines)
    assert writes(google) == [] and google.events["wk"]["recurrence"] == SERIES


async def test_without_allow_destructive_update_event_asks_nothing(mode, google):
    spec = GoogleCalendarToolSpec(transport=google)  # update_event is not destructive
    person = Person("decline")
    result = await call(spec, person, mode, "update_event", {"event_id": "e1", "title": "R2"})

    assert person.questions == []
    assert result.is_error is False and google.events["e1"]["summary"] == "R2"


async def test_times_that_do_not_work_are_the_calls_guidance_and_nothing_is_asked(
    mode, spec, google
):
    person = Person()
    args = {
        "event_id": "e1",
        "start_datetime": "2026-11-26T10:00",
        "end_datetime": "2026-11-26T09:00",
    }
    result = await call(spec, person, mode, "update_event", args)

    assert person.questions == [] and result.is_error is True
    assert "is not after the start" in result.content[0].text
    assert writes(google) == []


async def test_with_allow_destructive_an_update_that_destroys_nothing_asks_nothing(
    mode, spec, google
):
    person = Person("decline")  # would say no, if asked
    renamed = {"event_id": "e1", "title": "Review, second round"}
    moved = {"event_id": "e1", "start_datetime": "2026-11-26T10:00", "location": "Room 9"}
    invited = {"event_id": "e1", "attendees": ["grace@example.com", "bob@example.com", "x@y.org"]}
    for args in (renamed, moved, invited):
        result = await call(spec, person, mode, "update_event", args)
        assert result.is_error is False, result.content[0].text
    assert person.questions == []
    event = google.events["e1"]
    assert event["summary"] == "Review, second round" and event["location"] == "Room 9"
    assert [a["email"] for a in event["attendees"]][-1] == "x@y.org"
