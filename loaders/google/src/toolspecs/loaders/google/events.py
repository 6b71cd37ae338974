"""How a Calendar event reads: its times (weekday, offset, zone) and its one line."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from toolspecs.base.times import format_date, format_datetime

UNREADABLE_TIMES = "(times could not be read)"


def one_line(value: object) -> str:
    """``value`` on one line (every run of whitespace, line breaks included, as one space)."""
    return " ".join(str(value).split())


def as_is(text: str, source: str) -> str:
    """A description as it is (the default ``block``; ``source`` is e.g. ``"event abc"``)."""
    return text


def parse_event_time(value: Any, tz: dt.tzinfo) -> dt.datetime | dt.date:
    """An event's ``start``/``end``: an aware datetime in ``tz``, or a date for all-day events."""
    if not isinstance(value, dict):
        raise ValueError(f"not an event time: {type(value).__name__}")
    if isinstance(value.get("dateTime"), str):
        moment = dt.datetime.fromisoformat(value["dateTime"].replace("Z", "+00:00"))
        if moment.tzinfo is None:
            return moment.replace(tzinfo=tz)
        try:
            return moment.astimezone(tz)
        except OverflowError:
            return moment
    if isinstance(value.get("date"), str):
        return dt.date.fromisoformat(value["date"])
    raise ValueError("an event time without dateTime or date")


def describe_span(start: dt.datetime | dt.date, end: dt.datetime | dt.date) -> str:
    """``Monday 2026-11-23 09:00 -05:00 (America/New_York) to 09:30`` or an all-day span."""
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime):
        if start.date() == end.date() and start.utcoffset() == end.utcoffset():
            return f"{format_datetime(start)} to {end:%H:%M}"
        return f"{format_datetime(start)} to {format_datetime(end)}"
    first = start if not isinstance(start, dt.datetime) else start.date()
    last_exclusive = end if not isinstance(end, dt.datetime) else end.date()
    if last_exclusive <= first:
        return f"{format_date(first)} (all day)"
    last = last_exclusive - dt.timedelta(days=1)
    if last <= first:
        return f"{format_date(first)} (all day)"
    return f"{format_date(first)} to {format_date(last)} (all day)"


def event_span(event: dict[str, Any], tz: dt.tzinfo) -> str:
    """The event's times as :func:`describe_span` writes them, or a note that they cannot be."""
    try:
        return describe_span(
            parse_event_time(event["start"], tz), parse_event_time(event["end"], tz)
        )
    except (KeyError, ValueError, OverflowError):
        return UNREADABLE_TIMES


def _person(who: dict[str, Any], field: Callable[[object], str]) -> str:
    email = field(who.get("email") or "")
    name = who.get("displayName")
    return f"{field(name)} <{email}>" if name else email


def describe_event(
    event: dict[str, Any], tz: dt.tzinfo, field: Callable[[object], str] = one_line
) -> str:
    """One line: id, title, times (weekday, offset) in ``tz``, place, people (each ``field``)."""
    parts = [f"[id: {field(event.get('id', '?'))}] {field(event.get('summary') or '(no title)')}"]
    if "start" in event and "end" in event:
        parts[0] += f" — {event_span(event, tz)}"
    if event.get("recurringEventId") or event.get("recurrence"):
        parts.append("recurring")
    if event.get("location"):
        parts.append(f"location: {field(event['location'])}")
    if isinstance(event.get("organizer"), dict) and event["organizer"]:
        parts.append(f"organizer: {_person(event['organizer'], field)}")
    attendees = event.get("attendees")
    attendees = [a for a in attendees if isinstance(a, dict)] if isinstance(attendees, list) else []
    if attendees:
        listed = [
            f"{_person(a, field)} ({field(a['responseStatus'])})"
            if a.get("responseStatus")
            else _person(a, field)
            for a in attendees[:15]
        ]
        more = f", and {len(attendees) - 15} more" if len(attendees) > 15 else ""
        parts.append(f"attendees: {', '.join(listed)}{more}")
    if event.get("status") == "cancelled":
        parts.append("cancelled")
    return "; ".join(parts)
