"""Tasks of Google Calendar: times in the calendar's zone, partial changes, no surprises.

The calendar is the sandbox's four weeks of meetings (:func:`.sandbox.sample_calendar`),
booked from the day after the world's today: a standup each working day at 09:30 and one
meeting of the week's pattern (Monday's design review, Tuesday's lunch with Ada,
Wednesday's 1:1 with Grace, Thursday's reading group, Friday's sprint demo). A request
that names a weekday other than by a relative word says its date too, so that every
clock of the tests (a Thursday among them) reads it one way.

Checks find events by title and day, not by id, so that a run that deletes and re-creates
an event is judged on what it left; "kept" compares every other sample event with the
sample as it was seeded.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from toolspecs.evals.task import Check, Conversation, Ending, Task, any_of, mentions
from toolspecs.loaders.google.testing import timed_event
from toolspecs.specs.google_calendar import sandbox

if TYPE_CHECKING:
    from toolspecs.evals.world import World

Event = dict[str, Any]

ME = sandbox.USER
YOGA = "yogaseries"
"""The id of the weekly yoga series a task seeds."""


# The calendar as a run left it.


def _moment(value: dict[str, Any], world: World) -> dt.datetime:
    """An event's start or end as an aware instant (a naive time is in its zone)."""
    text = str(value.get("dateTime") or value.get("date")).replace("Z", "+00:00")
    moment = dt.datetime.fromisoformat(text)
    if moment.tzinfo is None:
        zone = value.get("timeZone")
        moment = moment.replace(tzinfo=ZoneInfo(zone) if zone else world.zone)
    return moment


def _start(event: Event, world: World) -> dt.datetime:
    return _moment(event["start"], world)


def _end(event: Event, world: World) -> dt.datetime:
    return _moment(event["end"], world)


def _live(world: World) -> list[Event]:
    """The single events the calendar holds (series and their exceptions aside)."""
    return [
        event
        for event in world.calendar.events.values()
        if event.get("status") != "cancelled"
        and not event.get("recurrence")
        and not event.get("recurringEventId")
    ]


def _on(world: World, day: dt.date, title: str) -> list[Event]:
    """The events of ``day`` (in the calendar's zone) whose title has ``title``, any case."""
    return [
        event
        for event in _live(world)
        if title.lower() in str(event.get("summary", "")).lower()
        and _start(event, world).astimezone(world.zone).date() == day
    ]


def _one(world: World, day: dt.date, title: str) -> Event | None:
    found = _on(world, day, title)
    return found[0] if len(found) == 1 else None


def _emails(event: Event) -> set[str]:
    return {str(guest.get("email", "")).lower() for guest in event.get("attendees", [])}


def _answer_of(event: Event | None, email: str = ME) -> str | None:
    """How ``email`` answered the invitation to ``event`` (``None``: not a guest)."""
    for guest in (event or {}).get("attendees", []):
        if str(guest.get("email", "")).lower() == email:
            return str(guest.get("responseStatus", "needsAction"))
    return None


def _before(world: World) -> dict[str, Event]:
    """The sample events as the world was seeded with them."""
    return sandbox.sample_calendar(world.today).events


def _added(world: World) -> list[Event]:
    """Single events the run created."""
    before = _before(world)
    return [event for event in _live(world) if event["id"] not in before]


def _titled(world: World, title: str) -> list[Event]:
    return [e for e in _added(world) if title.lower() in str(e.get("summary", "")).lower()]


def _kept(world: World, but: Callable[[Event], bool] = lambda event: False) -> bool:
    """Every sample event, but those ``but`` picks (as seeded), is as it was."""
    now = world.calendar.events
    return all(now.get(key) == event for key, event in _before(world).items() if not but(event))


def _is(world: World, day: dt.date, title: str) -> Callable[[Event], bool]:
    """Picks the sample event of ``day`` titled ``title`` (for :func:`_kept`)."""
    return lambda event: (
        event["summary"] == title and _start(event, world).astimezone(world.zone).date() == day
    )


def _nobody_emailed(ending: Ending) -> bool:
    """No write asked Google to e-mail guests, and no mail was sent."""
    emailing = [n for n in ending.world.calendar.notifications if n[2] in ("all", "externalOnly")]
    return not emailing and not ending.world.gmail.sent


def _nothing_changed(ending: Ending) -> bool:
    return _kept(ending.world) and not _added(ending.world)


def _others_kept(
    day: Callable[[World], dt.date], title: str, says: str = "no other event changed"
) -> Check:
    """Every sample event but that of ``day`` titled ``title`` is as it was."""
    return Check(
        says, lambda ending: _kept(ending.world, _is(ending.world, day(ending.world), title))
    )


NOBODY_EMAILED = Check("nobody was e-mailed", _nobody_emailed)
NOTHING_CHANGED = Check("the calendar is as it was", _nothing_changed)


# What an answer says.


def _time_said(hour: int, minute: int = 0) -> Callable[[Ending], bool]:
    """The answer gives ``hour:minute``: 16:00, 4pm, 4:00 p.m., 4-5pm (9:30 and 09:30 alike)."""
    twelve, half = hour % 12 or 12, "a" if hour < 12 else "p"
    clock = rf"{twelve}(?::00)?" if minute == 0 else rf"{twelve}:{minute:02d}"
    forms = [
        rf"(?<![\d:])0?{hour}:{minute:02d}(?!\d)",
        rf"(?<![\d:]){clock}\s*{half}\.?\s?m\b",
        # A range with the half-day after its end: "4-5pm", "4:00 to 5:00 p.m.".
        rf"(?<![\d:]){clock}\s*(?:[-\u2013\u2014]|to)\s*\d{{1,2}}(?::\d\d)?\s*{half}\.?\s?m\b",
    ]
    if (hour, minute) == (12, 0):
        forms.append(r"\bnoon\b")
    pattern = re.compile("|".join(forms), re.IGNORECASE)
    return lambda ending: bool(pattern.search(ending.answer))


def _date_said(world: World, day: dt.date) -> Callable[[Ending], bool]:
    """The answer names ``day``: 2026-12-10, December 10, Dec. 10th, 10 Dec, 12/10, tomorrow."""
    month, d = day.strftime("%B").lower(), day.day
    named = rf"(?:{month}|{month[:3]}t?\.?)"
    forms = [
        re.escape(day.isoformat()),
        rf"\b{named}\s+{d}(?:st|nd|rd|th)?\b",
        rf"\b{d}(?:st|nd|rd|th)?\s+(?:of\s+)?{named}(?![a-z])",
        rf"(?<![\d/]){day.month}/{d}(?!\d)",
    ]
    if day == world.day(1):
        forms.append(r"\btomorrow\b")
    pattern = re.compile("|".join(forms), re.IGNORECASE)
    return lambda ending: bool(pattern.search(ending.answer))


def _long(day: dt.date) -> str:
    """``Thursday, December 10``: how a user names a day."""
    return f"{day:%A, %B} {day.day}"


# What scripts read in the tools' answers.

ID_OF = r"\[id: ([^\]\s]+)\] {}"
"""The id on a listed event's line, before its title (``.format(re.escape(title))``)."""


def _id(talk: Conversation, title: str) -> str:
    return talk.find(ID_OF.format(re.escape(title)))


def _ids(talk: Conversation, title: str) -> list[str]:
    return re.findall(ID_OF.format(re.escape(title)), talk.last, re.IGNORECASE)


def _listing(day: Callable[[World], dt.date], query: str | None = None) -> Callable[..., Any]:
    """A turn that lists ``day``'s events (those matching ``query``)."""

    def turn(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
        date = str(day(talk.world))
        arguments: dict[str, Any] = {"start_date": date, "end_date": date}
        if query:
            arguments["query"] = query
        return [("load_data", arguments)]

    return turn


def _lines(text: str) -> list[tuple[str, str, str]]:
    """(title, date, time) of each event line of a listing."""
    return re.findall(r"\] ([^\n]+?) — \w+ (\d{4}-\d\d-\d\d) (\d\d:\d\d)", text)


def _thursday(world: World) -> dt.date:
    return world.next_weekday(3)


def _tuesday(world: World) -> dt.date:
    return world.next_weekday(1)


def _wednesday(world: World) -> dt.date:
    return world.next_weekday(2)


def _friday(world: World) -> dt.date:
    return world.next_weekday(4)


# Creating events from the user's words.


def _dentist_at_four(ending: Ending) -> bool:
    world = ending.world
    found = _titled(world, "dentist")
    return len(found) == 1 and _start(found[0], world) == world.at(world.day(1), 16)


def _focus_block(ending: Ending) -> bool:
    world = ending.world
    found = _titled(world, "focus")
    if len(found) != 1:
        return False
    start, end = _start(found[0], world), _end(found[0], world)
    tuesday = _tuesday(world)
    days = (tuesday, tuesday + dt.timedelta(days=7))  # "next Tuesday": this week's or the next
    return any(start == world.at(day, 10) and end == world.at(day, 11, 30) for day in days)


def _report_booked(ending: Ending) -> bool:
    world, day = ending.world, _thursday(ending.world)
    found = _titled(world, "report")
    if len(found) != 1:
        return False
    start, end = _start(found[0], world), _end(found[0], world)
    return (
        world.at(day, 13) <= start
        and end <= world.at(day, 17)
        and end - start == dt.timedelta(hours=1)
    )


def _report_overlaps_nothing(ending: Ending) -> bool:
    world = ending.world
    found = _titled(world, "report")
    if len(found) != 1:
        return False
    start, end = _start(found[0], world), _end(found[0], world)
    others = [e for e in _live(world) if e is not found[0]]
    return not any(_start(e, world) < end and start < _end(e, world) for e in others)


def _free_hour(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
    start = talk.find(r"\n- \w+ (\d{4}-\d\d-\d\d \d\d:\d\d)").replace(" ", "T")
    return [("create_event", {"title": "Write report", "start_datetime": start})]


CREATING = [
    Task(
        id="google_calendar.dentist_tomorrow",
        specs=("google_calendar",),
        request="Put a dentist appointment on my calendar tomorrow at 4pm.",
        checks=(
            Check(
                "one dentist appointment, tomorrow at 16:00 in the calendar's zone",
                _dentist_at_four,
            ),
            Check("no other event changed", lambda ending: _kept(ending.world)),
            NOBODY_EMAILED,
        ),
        reason="'Tomorrow at 4pm' is 16:00 in the calendar's zone, not in UTC.",
        techniques=("relative dates", "no side effect"),
        solution=[
            [("create_event", {"title": "Dentist", "start_datetime": "tomorrow 4pm"})],
            "Done: the dentist is on your calendar tomorrow at 4pm.",
        ],
        mistakes={
            "utc-time": [
                lambda talk: [
                    (
                        "create_event",
                        {"title": "Dentist", "start_datetime": f"{talk.world.day(1)}T16:00:00Z"},
                    )
                ],
                "Done: the dentist is on your calendar tomorrow at 4pm.",
            ],
        },
    ),
    Task(
        id="google_calendar.focus_next_tuesday",
        specs=("google_calendar",),
        request="Block next Tuesday from 10 to 11:30 in the morning as 'Focus time'.",
        checks=(
            Check("one 'Focus time' event, next Tuesday 10:00 to 11:30 local", _focus_block),
            Check("no other event changed", lambda ending: _kept(ending.world)),
            NOBODY_EMAILED,
        ),
        reason="A weekday and two times in words, read in the calendar's zone, end included.",
        techniques=("relative dates",),
        solution=[
            [
                (
                    "create_event",
                    {
                        "title": "Focus time",
                        "start_datetime": "next Tuesday 10am",
                        "end_datetime": "next Tuesday 11:30am",
                    },
                )
            ],
            "Blocked next Tuesday 10:00-11:30 as Focus time.",
        ],
        mistakes={
            "utc-time": [
                lambda talk: [
                    (
                        "create_event",
                        {
                            "title": "Focus time",
                            "start_datetime": f"{_tuesday(talk.world)}T10:00:00Z",
                            "end_datetime": f"{_tuesday(talk.world)}T11:30:00Z",
                        },
                    )
                ],
                "Blocked next Tuesday 10:00-11:30 as Focus time.",
            ],
            "dropped-end": [
                [("create_event", {"title": "Focus time", "start_datetime": "next Tuesday 10am"})],
                "Blocked next Tuesday from 10:00 as Focus time.",
            ],
        },
    ),
    Task(
        id="google_calendar.book_free_hour",
        specs=("google_calendar",),
        request=lambda world: (
            f"Find a free hour on {_long(_thursday(world))} afternoon, between 1pm and 5pm, "
            "and book it as 'Write report'."
        ),
        checks=(
            Check("one 'Write report' hour that day between 13:00 and 17:00", _report_booked),
            Check("it overlaps no other event", _report_overlaps_nothing),
            Check("no other event changed", lambda ending: _kept(ending.world)),
            NOBODY_EMAILED,
        ),
        reason="Read the free windows (find_free_time) and book inside one, not over a meeting.",
        techniques=("lookup",),
        solution=[
            lambda talk: [
                (
                    "find_free_time",
                    {
                        "start_datetime": f"{_thursday(talk.world)}T13:00",
                        "end_datetime": f"{_thursday(talk.world)}T17:00",
                        "min_minutes": 60,
                    },
                )
            ],
            _free_hour,
            "Booked 'Write report' in the first free hour of that afternoon.",
        ],
        mistakes={
            "double-booked": [
                lambda talk: [
                    (
                        "create_event",
                        {
                            "title": "Write report",
                            "start_datetime": f"{_thursday(talk.world)}T16:00",
                        },
                    )
                ],
                "Booked 'Write report' at 4pm.",
            ],
        },
    ),
]


# Changing part of an event: the rest stays.

LUNCH, ONE_TO_ONE, DEMO, READING = (
    "Lunch with Ada",
    "1:1 with Grace",
    "Sprint demo",
    "Reading group: Attention Is All You Need",
)


def _lunch_moved(ending: Ending) -> bool:
    world, day = ending.world, _tuesday(ending.world)
    lunch = _one(world, day, LUNCH)
    return (
        lunch is not None
        and _start(lunch, world) == world.at(day, 13, 30)
        and _end(lunch, world) == world.at(day, 14, 30)
    )


def _lunch_whole(ending: Ending) -> bool:
    lunch = _one(ending.world, _tuesday(ending.world), LUNCH)
    return (
        lunch is not None
        and _emails(lunch) == {"ada@example.com", ME}
        and "cafe lumen" in str(lunch.get("location", "")).lower()
        and "retrieval" in str(lunch.get("description", "")).lower()
    )


def _renamed(ending: Ending) -> bool:
    world, day = ending.world, _wednesday(ending.world)
    return _one(world, day, "roadmap chat with grace") is not None and not _on(
        world, day, ONE_TO_ONE
    )


def _renamed_whole(ending: Ending) -> bool:
    world, day = ending.world, _wednesday(ending.world)
    chat = _one(world, day, "roadmap chat with grace")
    return (
        chat is not None
        and _start(chat, world) == world.at(day, 11)
        and _end(chat, world) == world.at(day, 11, 30)
        and chat.get("location") == "Room 3.4"
        and _emails(chat) == {"grace@example.com", ME}
    )


EDSGER = "edsger@example.com"
DEMO_GUESTS = {"alan@example.com", "ada@example.com", ME}


def _edsger_added(ending: Ending) -> bool:
    demo = _one(ending.world, _friday(ending.world), DEMO)
    return demo is not None and _emails(demo) == DEMO_GUESTS | {EDSGER}


def _demo_whole(ending: Ending) -> bool:
    world, day = ending.world, _friday(ending.world)
    demo = _one(world, day, DEMO)
    return (
        demo is not None
        and _start(demo, world) == world.at(day, 15)
        and _end(demo, world) == world.at(day, 15, 45)
        and demo.get("location") == "Room 4.2"
    )


def _alan_accepts_the_demo(world: World) -> None:
    demo = _one(world, _friday(world), DEMO)
    assert demo is not None
    for guest in demo["attendees"]:
        if guest["email"] == "alan@example.com":
            guest["responseStatus"] = "accepted"


def _answers_kept(ending: Ending) -> bool:
    demo = _one(ending.world, _friday(ending.world), DEMO)
    answers = {g.get("email"): g.get("responseStatus") for g in (demo or {}).get("attendees", [])}
    return answers.get("alan@example.com") == "accepted"


def _guests_plus_edsger(talk: Conversation) -> list[str]:
    listed = talk.find(r"\] Sprint demo — [^\n]*?attendees: ([^\n]+)")
    return [*re.findall(r"[\w.+-]+@[\w.-]+", listed), EDSGER]


def _add_edsger(notify: bool) -> Callable[[Conversation], Any]:
    def turn(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
        arguments = {"event_id": _id(talk, DEMO), "attendees": _guests_plus_edsger(talk)}
        return [("update_event", {**arguments, "notify_attendees": notify})]

    return turn


CHANGING = [
    Task(
        id="google_calendar.move_lunch",
        specs=("google_calendar",),
        request=lambda world: (
            f"Move my lunch with Ada on {_long(_tuesday(world))} to 1:30pm. "
            "No need to e-mail her, I'll tell her myself."
        ),
        checks=(
            Check("that day's lunch with Ada is from 13:30 to 14:30, local", _lunch_moved),
            Check("it keeps Ada, the place and the note", _lunch_whole),
            _others_kept(_tuesday, LUNCH),
            NOBODY_EMAILED,
        ),
        reason="A move changes the time alone: the guests, place and note stay, as does the hour.",
        techniques=("partial update", "no side effect"),
        solution=[
            _listing(_tuesday, "lunch with Ada"),
            lambda talk: [
                (
                    "update_event",
                    {
                        "event_id": _id(talk, LUNCH),
                        "start_datetime": f"{_tuesday(talk.world)}T13:30",
                    },
                )
            ],
            "Moved: lunch with Ada is now 1:30-2:30pm, same place and guests.",
        ],
        mistakes={
            "dropped-fields": [
                _listing(_tuesday, "lunch with Ada"),
                lambda talk: [
                    ("delete_event", {"event_id": _id(talk, LUNCH)}),
                    (
                        "create_event",
                        {"title": LUNCH, "start_datetime": f"{_tuesday(talk.world)}T13:30"},
                    ),
                ],
                "Moved: lunch with Ada is now at 1:30pm.",
            ],
            "utc-time": [
                _listing(_tuesday, "lunch with Ada"),
                lambda talk: [
                    (
                        "update_event",
                        {
                            "event_id": _id(talk, LUNCH),
                            "start_datetime": f"{_tuesday(talk.world)}T13:30:00Z",
                        },
                    )
                ],
                "Moved: lunch with Ada is now at 1:30pm.",
            ],
        },
    ),
    Task(
        id="google_calendar.rename_one_to_one",
        specs=("google_calendar",),
        request=lambda world: (
            f"Rename my 1:1 with Grace on {_long(_wednesday(world))} to 'Roadmap chat with Grace'."
        ),
        checks=(
            Check("that day's 1:1 is now 'Roadmap chat with Grace'", _renamed),
            Check("it keeps its time, room and guests", _renamed_whole),
            _others_kept(_wednesday, ONE_TO_ONE, "the other 1:1s and events are unchanged"),
            NOBODY_EMAILED,
        ),
        reason="Change the title of one event, no other occurrence of the weekly meeting.",
        techniques=("partial update",),
        solution=[
            _listing(_wednesday, ONE_TO_ONE),
            lambda talk: [
                (
                    "update_event",
                    {"event_id": _id(talk, ONE_TO_ONE), "title": "Roadmap chat with Grace"},
                )
            ],
            "Renamed it to 'Roadmap chat with Grace'.",
        ],
        mistakes={
            "renamed-every-one": [
                [("search_events", {"query": ONE_TO_ONE})],
                lambda talk: [
                    ("update_event", {"event_id": found, "title": "Roadmap chat with Grace"})
                    for found in _ids(talk, ONE_TO_ONE)
                ],
                "Renamed it to 'Roadmap chat with Grace'.",
            ],
            "dropped-attendees": [
                _listing(_wednesday, ONE_TO_ONE),
                lambda talk: [
                    (
                        "update_event",
                        {
                            "event_id": _id(talk, ONE_TO_ONE),
                            "title": "Roadmap chat with Grace",
                            "attendees": ["grace@example.com"],
                        },
                    )
                ],
                "Renamed it to 'Roadmap chat with Grace'.",
            ],
        },
    ),
    Task(
        id="google_calendar.add_guest_quietly",
        specs=("google_calendar",),
        request=lambda world: (
            f"Add {EDSGER} to the sprint demo on {_long(_friday(world))}, without notifying anyone."
        ),
        checks=(
            Check("Edsger is a guest of that demo, beside everyone who was", _edsger_added),
            Check("the demo keeps its time and room", _demo_whole),
            Check("Alan, who had accepted, still has", _answers_kept),
            _others_kept(_friday, DEMO),
            NOBODY_EMAILED,
        ),
        seed=_alan_accepts_the_demo,
        reason="Attendees are a whole list: add one to it, keep the rest and their answers, "
        "and e-mail nobody.",
        techniques=("partial update", "no side effect"),
        solution=[
            _listing(_friday, DEMO),
            _add_edsger(False),
            "Added Edsger; nobody was e-mailed.",
        ],
        mistakes={
            "notified-attendees": [
                _listing(_friday, DEMO),
                _add_edsger(True),
                "Added Edsger to the demo.",
            ],
            "dropped-attendees": [
                _listing(_friday, DEMO),
                lambda talk: [
                    ("update_event", {"event_id": _id(talk, DEMO), "attendees": [EDSGER]})
                ],
                "Added Edsger to the demo.",
            ],
        },
    ),
]


# Deleting what was asked, and nothing else.


def _seed_yoga(world: World) -> None:
    """A weekly yoga class, Wednesdays 07:00 to 08:00 from the next Wednesday on."""
    start = world.at(world.next_weekday(2), 7)
    world.calendar.events[YOGA] = timed_event(
        YOGA,
        "Yoga",
        start.isoformat(),
        (start + dt.timedelta(hours=1)).isoformat(),
        location="Studio 5",
        recurrence=["RRULE:FREQ=WEEKLY;BYDAY=WE"],
    )


def _yoga_days(world: World) -> set[dt.date]:
    """The days of the first three weeks with a yoga class on the calendar."""
    series = world.calendar.events.get(YOGA)
    if series is None or series.get("status") == "cancelled":
        return set()
    first = world.next_weekday(2)
    low, high = world.at(first, 0), world.at(first + dt.timedelta(days=15), 0)
    found = world.calendar.expand(series, low, high)
    return {_start(event, world).astimezone(world.zone).date() for event in found}


def _skipped_week(world: World) -> dt.date:
    return world.next_weekday(2) + dt.timedelta(days=7)


def _demo_gone(ending: Ending) -> bool:
    return not _on(ending.world, _friday(ending.world), DEMO)


def _rest_kept(ending: Ending) -> bool:
    world = ending.world
    return _kept(world, _is(world, _friday(world), DEMO)) and not _added(world)


def _deleting_every(title: str) -> list[Any]:
    return [
        [("search_events", {"query": title})],
        lambda talk: [("delete_event", {"event_id": found}) for found in _ids(talk, title)],
        f"Deleted the {title.lower()}.",
    ]


DELETING = [
    Task(
        id="google_calendar.delete_one_demo",
        specs=("google_calendar",),
        request=lambda world: (
            f"Delete the sprint demo on {_long(_friday(world))} from my calendar. "
            "Leave the other demos alone."
        ),
        checks=(
            Check("that day's sprint demo is gone", _demo_gone),
            Check("every other event is still there, unchanged", _rest_kept),
        ),
        reason="Delete the one event asked for: not the weekly meeting's others, not its day's.",
        techniques=("no side effect",),
        solution=[
            _listing(_friday, DEMO),
            lambda talk: [("delete_event", {"event_id": _id(talk, DEMO)})],
            "Deleted that day's sprint demo; the others stay.",
        ],
        mistakes={
            "deleted-every-one": _deleting_every(DEMO),
            "deleted-wrong-event": [
                _listing(_friday),
                lambda talk: [("delete_event", {"event_id": talk.find(r"\[id: ([^\]\s]+)\]")})],
                "Deleted that day's sprint demo.",
            ],
        },
    ),
    Task(
        id="google_calendar.skip_one_yoga",
        specs=("google_calendar",),
        request=lambda world: (
            f"I can't make yoga on {_long(_skipped_week(world))}. Take that one class off my "
            "calendar, but keep the rest of the series."
        ),
        checks=(
            Check(
                "no yoga that day",
                lambda ending: _skipped_week(ending.world) not in _yoga_days(ending.world),
            ),
            Check(
                "the classes a week before and after are still on",
                lambda ending: (
                    {_skipped_week(ending.world) + dt.timedelta(days=n) for n in (-7, 7)}
                    <= _yoga_days(ending.world)
                ),
            ),
            Check("the other events are unchanged", lambda ending: _kept(ending.world)),
        ),
        reason="One occurrence of a series is deleted by its own id, the series kept.",
        techniques=("no side effect",),
        seed=_seed_yoga,
        solution=[
            _listing(_skipped_week, "yoga"),
            lambda talk: [("delete_event", {"event_id": _id(talk, "Yoga")})],
            "Done: that yoga class is off your calendar; the series goes on.",
        ],
        mistakes={
            "deleted-series": [
                _listing(_skipped_week, "yoga"),
                lambda talk: [("delete_event", {"event_id": _id(talk, "Yoga"), "scope": "all"})],
                "Done: that yoga class is off your calendar.",
            ],
            "deleted-following": [
                _listing(_skipped_week, "yoga"),
                lambda talk: [
                    ("delete_event", {"event_id": _id(talk, "Yoga"), "scope": "following"})
                ],
                "Done: that yoga class is off your calendar.",
            ],
        },
    ),
]


# Answering from the calendar.


def _agenda(talk: Conversation) -> str:
    said = [f"{title} at {time}" for title, _, time in _lines(talk.last)]
    return "You have: " + "; ".join(said) + "."


def _lunch_answer(talk: Conversation, which: int = 0) -> str:
    found = re.findall(
        r"\] Lunch with Ada — \w+ (\d{4}-\d\d-\d\d) (\d\d:\d\d)[^\n]*?; location: ([^;\n]+)",
        talk.last,
    )
    day, time, place = found[which]
    return f"Your next lunch with Ada is on {day} at {time}, at {place}."


def _demo_days(world: World) -> list[dt.date]:
    """The Fridays of the next four weeks (their last day aside: 'four weeks' may end there)."""
    return [world.day(n) for n in range(1, 28) if world.day(n).weekday() == 4]


def _demo_dates(talk: Conversation) -> str:
    days = sorted({day for title, day, _ in _lines(talk.last) if title == DEMO})
    return "Sprint demos: " + ", ".join(days) + "." if days else "I see no sprint demo."


ANSWERING = [
    Task(
        id="google_calendar.agenda_thursday",
        specs=("google_calendar",),
        request=lambda world: f"What's on my calendar on {_long(_thursday(world))}?",
        checks=(
            Check(
                "the answer gives the standup at 9:30",
                lambda ending: (
                    any_of([mentions("standup"), mentions("stand-up")])(ending)
                    and _time_said(9, 30)(ending)
                ),
            ),
            Check(
                "the answer gives the reading group at 4pm",
                lambda ending: mentions("reading group")(ending) and _time_said(16)(ending),
            ),
            NOTHING_CHANGED,
        ),
        reason="The day's events, as the calendar has them, with their times in its zone.",
        techniques=("lookup", "no side effect"),
        solution=[_listing(_thursday), _agenda],
        mistakes={
            "guessed": ["You have the team meeting at 10am and a 1:1 in the afternoon."],
        },
    ),
    Task(
        id="google_calendar.next_lunch_with_ada",
        specs=("google_calendar",),
        request="When is my next lunch with Ada, and where?",
        checks=(
            Check(
                "the answer gives the next lunch's day",
                lambda ending: _date_said(ending.world, _tuesday(ending.world))(ending),
            ),
            Check("the answer gives 12:30", _time_said(12, 30)),
            Check(
                "the answer gives Cafe Lumen",
                any_of([mentions("cafe lumen"), mentions("café lumen")]),
            ),
            NOTHING_CHANGED,
        ),
        reason="The first of a weekly meeting's occurrences from now, and its place.",
        techniques=("lookup",),
        solution=[[("search_events", {"query": LUNCH})], _lunch_answer],
        mistakes={
            "guessed": ["Your lunch with Ada is on Wednesday at noon, at the usual place."],
            "wrong-one": [
                [("search_events", {"query": LUNCH})],
                lambda talk: _lunch_answer(talk, 1),
            ],
        },
    ),
    Task(
        id="google_calendar.demo_dates_four_weeks",
        specs=("google_calendar",),
        request="Go through my calendar for the next four weeks and tell me the date of "
        "every sprint demo.",
        checks=(
            Check(
                "the answer gives every sprint demo's date",
                lambda ending: all(
                    _date_said(ending.world, day)(ending) for day in _demo_days(ending.world)
                ),
            ),
            NOTHING_CHANGED,
        ),
        reason="Four weeks of meetings are too long to show: the stored listing is searched.",
        techniques=("large result", "lookup"),
        solution=[
            lambda talk: [
                (
                    "load_data",
                    {
                        "start_date": str(talk.world.today),
                        "end_date": str(talk.world.day(28)),
                        "number_of_results": 250,
                    },
                )
            ],
            [("read_stored_events", {"query": "Sprint demo"})],
            _demo_dates,
        ],
        mistakes={
            "read-preview-only": [
                lambda talk: [
                    (
                        "load_data",
                        {
                            "start_date": str(talk.world.today),
                            "end_date": str(talk.world.day(28)),
                        },
                    )
                ],
                _demo_dates,
            ],
        },
    ),
]


# Answering invitations.


def _answered(day: Callable[[World], dt.date], title: str, answer: str) -> Check:
    def holds(ending: Ending) -> bool:
        return _answer_of(_one(ending.world, day(ending.world), title)) == answer

    return Check(f"the user's answer to that day's {title} is {answer}", holds)


def _respond(title: str, response: str, **more: Any) -> Callable[[Conversation], Any]:
    def turn(talk: Conversation) -> list[tuple[str, dict[str, Any]]]:
        arguments = {"event_id": _id(talk, title), "response": response, **more}
        return [("respond_to_event", arguments)]

    return turn


UNANSWERED = "no other event changed (the other invitations unanswered)"

INVITATIONS = [
    Task(
        id="google_calendar.accept_reading_group",
        specs=("google_calendar",),
        request=lambda world: (
            f"Accept the invitation to the reading group on {_long(_thursday(world))}. "
            "Don't e-mail anyone about it."
        ),
        checks=(
            _answered(_thursday, READING, "accepted"),
            _others_kept(_thursday, READING, UNANSWERED),
            NOBODY_EMAILED,
        ),
        reason="Answer one invitation; the organizer sees it in the event, and nobody is mailed.",
        techniques=("no side effect",),
        solution=[
            _listing(_thursday, "reading group"),
            _respond(READING, "accept"),
            "Accepted; nobody was e-mailed.",
        ],
        mistakes={
            "notified-attendees": [
                _listing(_thursday, "reading group"),
                _respond(READING, "accept", notify_organizer=True),
                "Accepted.",
            ],
            "accepted-every-one": [
                [("search_events", {"query": "reading group"})],
                lambda talk: [
                    ("respond_to_event", {"event_id": found, "response": "accept"})
                    for found in _ids(talk, READING)
                ],
                "Accepted.",
            ],
        },
    ),
    Task(
        id="google_calendar.decline_after_guidance",
        specs=("google_calendar",),
        request=lambda world: f"Decline my 1:1 with Grace on {_long(_wednesday(world))}.",
        checks=(
            _answered(_wednesday, ONE_TO_ONE, "declined"),
            _others_kept(_wednesday, ONE_TO_ONE, UNANSWERED),
        ),
        reason="A title is not an id: the guidance says where ids come from, and that is enough.",
        techniques=("recovery",),
        solution=[
            [("respond_to_event", {"event_id": ONE_TO_ONE, "response": "decline"})],
            _listing(_wednesday, ONE_TO_ONE),
            _respond(ONE_TO_ONE, "decline"),
            "Declined the 1:1 with Grace.",
        ],
        mistakes={
            "gave-up": [
                [("respond_to_event", {"event_id": ONE_TO_ONE, "response": "decline"})],
                "I could not find that 1:1 with Grace on your calendar.",
            ],
        },
    ),
]

TASKS: list[Task] = [*CREATING, *CHANGING, *DELETING, *ANSWERING, *INVITATIONS]
