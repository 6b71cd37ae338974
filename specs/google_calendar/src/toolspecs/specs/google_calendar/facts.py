"""Events as data: the output models of :mod:`.outputs` from Google's answers.

The same facts as the event's line (``toolspecs.loaders.google.events.describe_event``),
its times in the same zone; what others wrote is :class:`~toolspecs.core.structured.Quoted`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from toolspecs.core.structured import Quoted, quoted
from toolspecs.loaders.google.calendar import DESCRIPTION_CHARS
from toolspecs.loaders.google.events import parse_event_time
from toolspecs.specs.google_calendar.outputs import Event, Person

# describe_event lists this many attendees, then how many more.
ATTENDEES_SHOWN = 15


def when(value: dt.datetime | dt.date) -> str:
    """A time as ISO 8601 (with its offset), or an all-day date."""
    return value.isoformat()


def title(event: Mapping[str, Any]) -> Quoted | None:
    """The event's title, someone's words (``None`` when it has none)."""
    summary = event.get("summary")
    return Quoted(text=str(summary)) if summary else None


def event(
    found: Mapping[str, Any],
    tz: dt.tzinfo,
    *,
    full: bool = False,
    url: bool = False,
    description: bool = False,
) -> Event:
    """An event as data: id, title, times and series; ``full`` adds place and people.

    Args:
        found: The event as the Calendar API returns it.
        tz: The zone its times are shown in.
        full: Also its place, organizer, guests and whether it is cancelled (as its line).
        url: Also its link.
        description: Also its description (cut as the listing cuts it).
    """
    values: dict[str, Any] = {"event_id": str(found.get("id", "?")), "title": title(found)}
    if "start" in found and "end" in found:
        try:
            start = parse_event_time(found["start"], tz)
            end = parse_event_time(found["end"], tz)
        except (ValueError, OverflowError):
            pass  # the text says "(times could not be read)"
        else:
            values.update(start=when(start), end=when(end))
            if not isinstance(start, dt.datetime):
                values["all_day"] = True
    if found.get("recurringEventId"):
        values["series_id"] = str(found["recurringEventId"])
    rules = found.get("recurrence")
    if isinstance(rules, list) and rules:
        values["recurrence"] = [str(rule) for rule in rules]
    if full:
        values["location"] = quoted(found.get("location") or None)
        if isinstance(found.get("organizer"), dict):
            values["organizer"] = person(found["organizer"])
        guests = found.get("attendees")
        guests = [g for g in guests if isinstance(g, dict)] if isinstance(guests, list) else []
        if guests:
            values["attendees"] = [person(g) for g in guests[:ATTENDEES_SHOWN]]
            if len(guests) > ATTENDEES_SHOWN:
                values["more_attendees"] = len(guests) - ATTENDEES_SHOWN
        if found.get("status") == "cancelled":
            values["cancelled"] = True
    if description:
        text = found.get("description")
        if isinstance(text, str) and text.strip():
            if len(text) > DESCRIPTION_CHARS:
                text = text[: DESCRIPTION_CHARS - 1] + "…"
            values["description"] = Quoted(text=text)
    if url and found.get("htmlLink"):
        values["url"] = str(found["htmlLink"])
    return Event(**values)


def person(who: Mapping[str, Any]) -> Person:
    """An organizer or guest: address, name (their own words), answer."""
    name = who.get("displayName")
    answer = who.get("responseStatus")
    return Person(
        email=str(who.get("email") or ""),
        name=Quoted(text=str(name)) if name else None,
        response=str(answer) if answer else None,
    )
