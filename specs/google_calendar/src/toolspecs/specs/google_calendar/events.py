"""The work behind the Calendar tools, each on the call's :class:`.series.Calendar`."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from toolspecs.core import AskUser, FixArguments, Marks, clock, fence, ref
from toolspecs.core.bounds import shown
from toolspecs.core.clock import timezone_name
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Quoted
from toolspecs.loaders.google import GoogleCalendarReader
from toolspecs.specs.google_base import parse_addresses
from toolspecs.specs.google_calendar import outputs, series
from toolspecs.specs.google_calendar.outputs import (
    NEXT,
    Answered,
    Deleted,
    Event,
    Events,
    EventWritten,
    FreeTime,
    Matches,
    Window,
    when,
)
from toolspecs.specs.google_calendar.series import Calendar, Scope, dropped_by, read_scope, to_rrule
from toolspecs.specs.google_calendar.times import (
    event_times,
    free_windows,
    in_zone,
    moved,
    span,
    whole_days,
)

# What update_event's data calls the fields a patch sets.
CHANGED = {"summary": "title"}
# sendUpdates for notify_attendees=False / True.
SEND_UPDATES = {False: "none", True: "all"}
# create_event looks at most this many events for overlaps, and names this many.
OVERLAP_LOOKUP = 50
OVERLAP_SHOWN = 3
# search_events' default window: this many days back and ahead of today.
SEARCH_DAYS_BACK = 30
SEARCH_DAYS_AHEAD = 365


def create(
    cal: Calendar,
    start_datetime: dt.datetime,
    end_datetime: dt.datetime | None,
    all_day: bool,
    fields: Mapping[str, Any],
    attendees: list[str] | None,
    recurrence: str | None,
    notify: bool,
) -> EventWritten:
    """Create an event; the reply names the busy events it overlaps."""
    tz = cal.tz
    start, end, note = span(start_datetime, end_datetime, tz, all_day)
    body: dict[str, Any] = {"summary": fields["summary"], **event_times(start, end, tz, all_day)}
    body.update({k: v for k, v in fields.items() if k != "summary" and v})
    if attendees:
        body["attendees"] = people(attendees)
    if recurrence:
        body["recurrence"] = to_rrule(recurrence, tz)
    checked = overlaps(cal, start, end, all_day)
    created = cal.client.insert_event(cal.id, body, SEND_UPDATES[notify])
    if checked is None:
        note += " (Overlaps could not be checked.)"
    written = EventWritten.of("created", created, tz, notify, note)
    busy, written._lookup_full = checked or ([], False)
    if busy:
        written.overlaps = [Event.of(found, tz) for found in busy[:OVERLAP_SHOWN]]
        written.more_overlaps = len(busy) - OVERLAP_SHOWN if len(busy) > OVERLAP_SHOWN else None
    return written


def overlaps(
    cal: Calendar, start: dt.datetime, end: dt.datetime, all_day: bool
) -> tuple[list[dict[str, Any]], bool] | None:
    """The busy events start-end overlaps, and whether the lookup was full; None: not checked."""
    if all_day:
        start, end = whole_days(start, end, cal.tz)
    try:
        found = cal.client.list_events(start, end, OVERLAP_LOOKUP, calendar_id=cal.id)
    except Exception as exc:  # mapped by the failure table; anything else is our bug
        if cal.mapped(exc) is None:
            raise
        return None
    busy = [
        e
        for e in found
        if e.get("status") != "cancelled" and e.get("transparency") != "transparent"
    ]
    return busy, len(found) >= OVERLAP_LOOKUP


@dataclasses.dataclass
class Change:
    """What ``update_event`` is asked, read once for the call and the question before it."""

    cal: Calendar
    event_id: str
    wanted: Scope | None
    patch: dict[str, Any]
    start_datetime: dt.datetime | None
    end_datetime: dt.datetime | None
    notify: bool


def update_asked(
    calendar_of: Callable[[str | None], Calendar],
    event_id: str,
    title: str | None,
    description: str | None,
    location: str | None,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
    attendees: list[str] | None,
    recurrence: str | None,
    calendar_id: str | None,
    scope: str | None,
    notify: bool,
) -> Change:
    """What ``update_event`` is asked, checked (guidance when it changes nothing)."""
    event_id = event_id_of(event_id)
    wanted = read_scope(scope)
    cal = calendar_of(calendar_id)
    given = {"summary": title, "description": description, "location": location}
    patch: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
    if attendees is not None:
        patch["attendees"] = people(attendees)
    if recurrence is not None:
        patch["recurrence"] = to_rrule(recurrence, cal.tz)
    if not patch and start_datetime is None and end_datetime is None:
        raise FixArguments(
            f"{ref('update_event')} was given nothing to change.",
            "Send at least one of title, description, location, start_datetime, "
            "end_datetime, attendees or recurrence.",
        )
    return Change(cal, event_id, wanted, patch, start_datetime, end_datetime, notify)


def update(change: Change, allow_destructive: bool) -> EventWritten:
    """Change an event (or the part of a series ``wanted`` names) by ``patch`` and a move."""
    cal, patch, tz = change.cal, change.patch, change.cal.tz
    start_datetime, end_datetime = change.start_datetime, change.end_datetime
    moves = start_datetime is not None or end_datetime is not None
    send = SEND_UPDATES[change.notify]
    changed = [CHANGED.get(key, key) for key in patch] + (["start", "end"] if moves else [])
    note = ""
    target = change.event_id
    current: dict[str, Any] | None = None
    wanted = change.wanted
    found = series.resolve(cal, target, wanted) if wanted is not None else None
    checked = not allow_destructive and may_destroy(patch)
    if checked or "attendees" in patch:  # both read the event as it is
        # What the patch applies to: the event, or the series a split copies.
        before = (found.series if found.split else found.event) if found else None
        if before is None:
            current = before = cal.client.get_event(cal.id, target)
        if checked:
            refuse_losses(before, patch)
        if "attendees" in patch:
            # Google replaces the list as sent: a guest who stays keeps, as the event has
            # them, their answer, name and Google's markers (a bare address would reset them).
            patch["attendees"] = kept(before, patch["attendees"])
    if found is not None:
        if found.split:
            return series.split(cal, found, patch, start_datetime, end_datetime, send, changed)
        target, current, note = found.target, found.event, found.note
        if moves and found.occurrence is not None and found.event is not None:
            times, said = moved(found.occurrence, tz, start_datetime, end_datetime)
            patch.update(series.shifted(found.occurrence, found.event, times, tz))
            note += said + " Every occurrence moves by as much."
            moves = False
    if moves:
        if current is None:
            current = cal.client.get_event(cal.id, target)
        times, said = moved(current, tz, start_datetime, end_datetime)
        patch.update(times)
        note += said
    updated = cal.client.patch_event(cal.id, target, patch, send)
    return EventWritten.of("updated", updated, tz, change.notify, note, changed=changed)


def delete(client: GoogleCalendarReader, calendar_id: str, event_id: str, notify: bool) -> Deleted:
    """Delete one event (or one occurrence, by its own id)."""
    client.delete_event(calendar_id, event_id, SEND_UPDATES[notify])
    return Deleted(event_id=event_id, deleted="event", attendees_emailed=notify, next_step=NEXT)


def delete_scoped(cal: Calendar, event_id: str, wanted: Scope, notify: bool) -> Deleted:
    """Delete the part of a series ``wanted`` names (or the event, when it does not recur)."""
    send = SEND_UPDATES[notify]
    found = series.resolve(cal, event_id, wanted)
    if found.split:
        series_id, before = series.end_series(cal, found, send)
        deleted = Deleted(
            event_id=event_id,
            deleted="following",
            series_id=series_id,
            ends_before=before,
            attendees_emailed=notify,
            next_step=NEXT,
        )
        deleted._tz = cal.tz
        return deleted
    cal.client.delete_event(cal.id, found.target, send)
    series_of = (found.event or {}).get("recurringEventId") if found.kind == "occurrence" else None
    return Deleted(
        event_id=found.target,
        deleted=found.kind,  # type: ignore[arg-type]  # event, occurrence or series
        series_id=str(series_of) if series_of else None,
        attendees_emailed=notify,
        note=found.note.strip() or None,
        next_step=NEXT,
    )


def respond(
    cal: Calendar,
    event_id: str,
    answer: str,
    comment: str | None,
    notify: bool,
) -> Answered:
    """Answer an invitation of the user's with ``answer`` (Google's ``responseStatus``)."""
    current = cal.client.get_event(cal.id, event_id)
    guests = current.get("attendees")
    guests = guests if isinstance(guests, list) else []
    mine = next((i for i, g in enumerate(guests) if isinstance(g, dict) and g.get("self")), None)
    title = fence.quote(current.get("summary") or "(no title)", 80)
    organizer = current.get("organizer")
    organizes = isinstance(organizer, dict) and organizer.get("self")
    if organizes or (mine is not None and guests[mine].get("organizer")):
        change = f"To change it use {ref('update_event')}; to" if offered("update_event") else "To"
        raise FixArguments(
            f"The user organizes event {event_id} ({title}): there is no invitation to answer.",
            f"{change} answer someone else's invitation, send that event's id.",
        )
    if mine is None:
        listers = [ref(name) for name in ("load_data", "search_events") if offered(name)]
        with_tools = f" with {' or '.join(listers)}" if listers else ""
        raise FixArguments(
            f"The user is not a guest of event {event_id} ({title}), so there is no "
            "invitation to answer.",
            f"Check the id{with_tools}; only events the user was invited to can be answered.",
        )
    entry = {**guests[mine], "responseStatus": answer}
    if comment is not None:
        if comment.strip():
            entry["comment"] = comment.strip()
        else:
            entry.pop("comment", None)
    body = {"attendees": [entry if i == mine else g for i, g in enumerate(guests)]}
    updated = cal.client.patch_event(cal.id, event_id, body, SEND_UPDATES[notify])
    shown = {**updated, "id": updated.get("id") or event_id, "summary": current.get("summary")}
    applies_to = "series" if current.get("recurrence") else None
    if not applies_to and current.get("recurringEventId"):
        applies_to = "occurrence"
    return Answered(
        event=Event.of(shown, cal.tz),
        response=answer,  # type: ignore[arg-type]  # one of outputs.RESPONSES (read_response)
        comment=Quoted(text=str(entry["comment"])) if entry.get("comment") else None,
        organizer_emailed=notify,
        applies_to=applies_to,  # type: ignore[arg-type]  # series, occurrence or None
        next_step=NEXT,
    )


def listing(
    client: GoogleCalendarReader,
    calendar_id: str,
    number_of_results: int,
    start_date: dt.date,
    end_date: dt.date | None,
    query: str | None,
) -> Events:
    """``load_data``: as ``GoogleCalendarReader.load_data``, with the events as data."""
    tz, found = client.days_events(start_date, end_date, number_of_results, query, calendar_id)
    return Events(
        calendar_id=calendar_id,
        timezone=timezone_name(tz),
        query=query or None,
        start_date=start_date.isoformat(),
        end_date=end_date.isoformat() if end_date else None,
        events=[Event.of(e, tz, full=True, url=True, description=True) for e in found],
        next_step=None if found else outputs.NO_EVENTS_STEP,
    )


def search(
    cal: Calendar, words: str, start_date: dt.date | None, end_date: dt.date | None, asked: int
) -> Matches:
    """Events matching ``words``, one line each (default dates: a window around today)."""
    today = clock.now(cal.tz).date()
    first = start_date or today - dt.timedelta(days=SEARCH_DAYS_BACK)
    last = end_date or max(first, today) + dt.timedelta(days=SEARCH_DAYS_AHEAD)
    if last < first:
        raise FixArguments(
            f"end_date {last} is before start_date {first}.",
            "Send an end_date on or after the start_date.",
        )
    time_min = clock.in_range(dt.datetime.combine(first, dt.time.min, tzinfo=cal.tz))
    after = last + dt.timedelta(days=1)
    time_max = clock.in_range(dt.datetime.combine(after, dt.time.min, tzinfo=cal.tz))
    found = cal.client.list_events(time_min, time_max, asked, words, cal.id)
    step = None
    if not found:
        step = "Try fewer or other words, or a wider range of dates."
    elif len(found) >= asked:
        step = f"There may be more: raise number_of_results above {asked} or narrow the dates."
    return Matches(
        calendar_id=cal.id,
        timezone=timezone_name(cal.tz),
        query=words,
        start_date=first.isoformat(),
        end_date=last.isoformat(),
        events=[Event.of(event, cal.tz, full=True) for event in found],
        next_step=step,
    )


def free_time(
    cal: Calendar,
    start_datetime: dt.datetime,
    end_datetime: dt.datetime,
    attendees: list[str] | None,
    min_minutes: int,
) -> FreeTime:
    """The windows of at least ``min_minutes`` when the calendar and ``attendees`` are free."""
    start, end, _ = span(start_datetime, end_datetime, cal.tz, False)
    if end_datetime is None or end <= start:
        raise FixArguments("end_datetime must be after start_datetime.")
    emails = [email for _, email in parse_addresses(attendees or [])]
    found = cal.client.free_busy(start, end, [cal.id, *emails], clock.timezone_name(cal.tz))
    busy = in_zone([interval for times in found.values() for interval in times or []], cal.tz)
    windows = free_windows(start, end, busy, dt.timedelta(minutes=min_minutes))
    unseen = [calendar for calendar, times in found.items() if times is None]
    free = FreeTime(
        start=when(start),
        end=when(end),
        timezone=timezone_name(start.tzinfo) if start.tzinfo else "UTC",
        min_minutes=min_minutes,
        attendees=emails,
        windows=[Window(start=when(a), end=when(b)) for a, b in windows],
        unseen=unseen or None,
        next_step=None if windows else "Try a wider range.",
    )
    free._tz = cal.tz
    return free


def people(values: list[str]) -> list[dict[str, str]]:
    """Attendees as the Calendar API writes them, from addresses as agents send them."""
    found = []
    for name, email in parse_addresses(values):
        person = {"email": email}
        if name:
            person["displayName"] = name
        found.append(person)
    return found


def kept(event: Mapping[str, Any], attendees: list[dict[str, str]]) -> list[dict[str, Any]]:
    """``attendees`` to send, each one ``event`` has already as it has them, updated."""
    known = {
        str(person.get("email", "")).lower(): person
        for person in event.get("attendees") or []
        if isinstance(person, Mapping)
    }
    return [{**known.get(person["email"].lower(), {}), **person} for person in attendees]


def event_id_of(event_id: str) -> str:
    """``event_id`` without spaces; an empty one is guidance before any request."""
    cleaned = event_id.strip()
    if not cleaned:
        raise FixArguments("event_id is empty.", outputs.ids_hint())
    return cleaned


def read_response(text: str) -> str:
    """Google's ``responseStatus`` for an answer as agents write it ('yes', 'maybe', ...)."""
    words = " ".join(re.sub(r"[^a-z]+", " ", (text or "").lower()).split())
    unsure = ("not sure", "unsure", "don t know", "do not know", "no idea", "undecided")
    if (
        words.startswith(("tentativ", "maybe", "perhaps", "possibly", "might", *unsure))
        or " not sure " in f" {words} "
    ):
        return "tentative"
    if words.startswith(("declin", "reject", "refus", "not ", "no", "can t", "cannot", "won t")):
        return "declined"
    yes = (
        "accept",
        "yes",
        "yeah",
        "yep",
        "yup",
        "ok",
        "sure",
        "attend",
        "going",
        "confirm",
        "join",
    )
    if words == "y" or words.startswith(yes):
        return "accepted"
    raise FixArguments(
        f"response {shown(text)} is not an answer I know.",
        "Send 'accept', 'decline' or 'tentative'.",
    )


def marks(function: str, declared: Marks, allow_destructive: bool) -> Marks:
    """``update_event`` is destructive with ``allow_destructive`` on (else it refuses that)."""
    if function == "update_event" and allow_destructive:
        return dataclasses.replace(declared, destructive=True)
    return declared


def may_destroy(patch: Mapping[str, Any]) -> bool:
    """Whether ``patch`` may destroy something, to be checked against the event."""
    return (
        "attendees" in patch
        or "recurrence" in patch
        or outputs.blank(patch.get("summary"))
        or outputs.blank(patch.get("description"))
    )


def losses_of(event: Mapping[str, Any], patch: Mapping[str, Any]) -> list[str]:
    """What ``patch`` would destroy of ``event``, in words (empty: nothing)."""
    if not may_destroy(patch):
        return []
    dropped = None
    if "recurrence" in patch:
        dropped = dropped_by(list(event.get("recurrence") or []), list(patch["recurrence"]))
    return outputs.losses(event, patch, dropped)


def refuse_losses(event: Mapping[str, Any], patch: Mapping[str, Any]) -> None:
    """Refuse a patch that would destroy part of ``event`` (titles, attendees, occurrences)."""
    losses = losses_of(event, patch)
    if losses:
        raise AskUser(
            f"Nothing was changed: this update would {'; '.join(losses)}, and destructive "
            "changes are not allowed (allow_destructive=False).",
            "Do not retry it: tell the user that they must allow destructive changes "
            "(allow_destructive=True) for this. Other changes (new title or times, added "
            "attendees, a longer series) work without it.",
        )
