"""update_event no longer goes around allow_destructive (issue 22, item 8).

With ``delete_event`` withheld (``allow_destructive=False``, the default), update_event,
marked non-destructive, cut a 20-occurrence series to one and emptied the attendees,
the title and the description. Now such a change is refused with guidance (nothing is
written) unless the spec allows destructive changes, and then update_event is marked
destructive. Against the shipped FakeCalendar.
"""

from __future__ import annotations

import pytest

from toolspecs.core import AskUser
from toolspecs.loaders.google.testing import FakeCalendar, timed_event
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec
from toolspecs.specs.google_calendar.series import dropped_by

GRACE = {"email": "grace@example.com", "displayName": "Grace", "responseStatus": "accepted"}
BOB = {"email": "bob@example.com", "responseStatus": "needsAction"}
SERIES = ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=20"]


@pytest.fixture
def google():
    return FakeCalendar(
        events={
            "wk": timed_event(
                "wk", "Weekly sync", "2026-11-24T10:00:00-05:00", "2026-11-24T10:30:00-05:00",
                recurrence=list(SERIES), attendees=[dict(GRACE), dict(BOB)],
                description="Agenda: roadmap, hiring.",
            ),
            "e1": timed_event(
                "e1", "Review", "2026-11-25T14:00:00-05:00", "2026-11-25T14:45:00-05:00",
                attendees=[dict(GRACE), dict(BOB)], description="Bring the Q3 numbers.",
            ),
        }
    )  # fmt: skip


def update(google: FakeCalendar, allow_destructive: bool = False, **arguments):
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=allow_destructive)
    return spec.call_tool("update_event", **arguments)


def writes(google: FakeCalendar) -> list:
    return [r for r in google.calls() if r.method in ("POST", "PATCH", "PUT", "DELETE")]


def refused(out) -> str:
    assert out.is_error is True, out.content
    assert isinstance(out.exception, AskUser)
    assert "Nothing was changed" in out.content
    assert "allow_destructive=True" in out.content and "user" in out.content
    return out.content


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"event_id": "wk", "recurrence": "RRULE:FREQ=WEEKLY;COUNT=1"}, "repeat rule"),
        ({"event_id": "wk", "recurrence": "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=5"}, "COUNT=20"),
        ({"event_id": "wk", "recurrence": "every Tuesday until 2026-12-15"}, "repeat rule"),
        ({"event_id": "wk", "recurrence": "EXDATE:20261201T150000Z"}, "end the series"),
        (
            {"event_id": "wk_20261201T150000Z", "recurrence": "weekly for 2 times", "scope": "all"},
            "repeat rule",
        ),
    ],
)
def test_a_series_is_not_shortened_or_ended_without_allow_destructive(google, arguments, said):
    text = refused(update(google, **arguments))
    assert said in text and "may drop occurrences" in text
    assert writes(google) == []
    assert google.events["wk"]["recurrence"] == SERIES


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        ({"attendees": []}, "remove 2 attendee(s) (grace@example.com, bob@example.com)"),
        ({"attendees": ["GRACE@example.com"]}, "remove 1 attendee(s) (bob@example.com)"),
        ({"title": ""}, "blank the title «Review»"),
        ({"description": "  "}, "delete the description"),
        ({"title": " ", "description": "", "attendees": "[]"}, "blank the title"),
    ],
)
def test_attendees_title_and_description_are_not_emptied_without_allow_destructive(
    google, arguments, said
):
    text = refused(update(google, event_id="e1", **arguments))
    assert said in text
    assert writes(google) == []
    event = google.events["e1"]
    assert (event["summary"], event["description"]) == ("Review", "Bring the Q3 numbers.")
    assert [a["email"] for a in event["attendees"]] == ["grace@example.com", "bob@example.com"]


def test_the_brief_s_case_all_at_once_on_a_series_is_refused_and_names_every_loss(google):
    everything = {"attendees": [], "title": "", "description": ""}
    text = refused(
        update(google, event_id="wk", recurrence="RRULE:FREQ=WEEKLY;COUNT=1", **everything)
    )
    for loss in ("blank the title «Weekly sync»", "delete the description", "remove 2 attendee"):
        assert loss in text
    assert writes(google) == []


def test_this_and_following_does_not_drop_attendees_from_the_new_series(google):
    text = refused(
        update(google, event_id="wk_20261208T150000Z", attendees=["grace@example.com"],
               scope="following")
    )  # fmt: skip
    assert "bob@example.com" in text
    assert writes(google) == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"event_id": "e1", "title": "Review (room 2)"},
        {"event_id": "e1", "description": "Bring the Q4 numbers."},
        {"event_id": "e1", "attendees": ["grace@example.com", "bob@example.com", "cy@x.example"]},
        {"event_id": "e1", "recurrence": "every Wednesday for 3 times"},  # it did not recur
        {"event_id": "wk", "recurrence": "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=30"},  # longer
        {"event_id": "wk", "recurrence": "RRULE:FREQ=WEEKLY;BYDAY=TU"},  # no end
        {"event_id": "wk", "start_datetime": "2026-11-24 11:00"},
    ],
)
def test_changes_that_keep_what_exists_need_no_option(google, arguments):
    out = update(google, **arguments)
    assert out.is_error is False, out.content
    assert "Event updated with id" in out.content


@pytest.mark.parametrize(
    "arguments",
    [
        {"event_id": "wk", "recurrence": "RRULE:FREQ=WEEKLY;COUNT=1"},
        {"event_id": "e1", "attendees": [], "title": "", "description": ""},
    ],
)
def test_with_allow_destructive_the_change_is_made(google, arguments):
    out = update(google, allow_destructive=True, **arguments)
    assert out.is_error is False, out.content
    event = google.events[arguments["event_id"]]
    if "recurrence" in arguments:
        assert event["recurrence"] == ["RRULE:FREQ=WEEKLY;COUNT=1"]
    else:
        assert not event.get("attendees") and not event.get("summary")


def test_the_marks_say_destructive_exactly_when_it_may_destroy(google):
    def marks(allow_destructive: bool):
        spec = GoogleCalendarToolSpec(transport=google, allow_destructive=allow_destructive)
        tools = spec.to_tool_list(spec_functions=spec.all_functions)
        return {t.metadata.name: t.marks for t in tools}["update_event"]

    careful, allowed = marks(False), marks(True)
    assert careful.annotations()["destructiveHint"] is False
    assert allowed.annotations()["destructiveHint"] is True
    assert (careful.idempotent, careful.open_world) == (allowed.idempotent, allowed.open_world)
    # Offered either way; with the option on, its marks (not only delete_event's) need it.
    spec = GoogleCalendarToolSpec(transport=google, allow_destructive=True)
    spec.call_tool("update_event", event_id="e1", title="x")
    spec.allow_destructive = False
    assert spec.withheld("update_event") == ()
    tools = spec.to_tool_list(spec_functions=["update_event"])
    assert tools[0].marks.destructive is False
    assert "allow_destructive" in tools[0].metadata.description


@pytest.mark.parametrize(
    ("old", "new", "drops"),
    [
        ([], ["RRULE:FREQ=DAILY;COUNT=2"], False),
        (SERIES, SERIES, False),
        (SERIES, ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=21"], False),
        (SERIES, ["RRULE:FREQ=WEEKLY;BYDAY=TU"], False),
        (SERIES, ["RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=19"], True),
        (SERIES, ["RRULE:FREQ=WEEKLY;BYDAY=WE;COUNT=20"], True),
        (SERIES, ["RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20301231"], True),  # cannot tell: refused
        (SERIES, [*SERIES, "EXDATE:20261201T150000Z"], True),
        (["RRULE:FREQ=DAILY;UNTIL=20261231"], ["RRULE:FREQ=DAILY;UNTIL=20270131T000000Z"], False),
        (["RRULE:FREQ=DAILY;UNTIL=20261231"], ["RRULE:FREQ=DAILY;UNTIL=20261230T235959Z"], True),
        (["RRULE:FREQ=DAILY"], ["RRULE:FREQ=DAILY;COUNT=500"], True),
    ],
)
def test_what_a_new_recurrence_drops(old, new, drops):
    assert bool(dropped_by(old, new)) is drops


@pytest.mark.parametrize("allow_destructive", [False, True])
def test_a_guest_added_keeps_the_others_answers_and_names(google, allow_destructive):
    # Google replaces the attendee list as sent: bare addresses would reset Grace's "yes".
    out = update(
        google,
        allow_destructive,
        event_id="e1",
        attendees=["grace@example.com", "bob@example.com", "Ada <ada@example.com>"],
    )
    assert out.is_error is False, out.content
    attendees = google.events["e1"]["attendees"]
    assert attendees[0] == GRACE and attendees[1] == BOB
    assert attendees[2]["email"] == "ada@example.com"
    assert attendees[2]["displayName"] == "Ada"
    assert "responseStatus" not in attendees[2] or attendees[2]["responseStatus"] == "needsAction"
