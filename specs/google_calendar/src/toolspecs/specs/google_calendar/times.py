"""Event times: a calendar's zone and the arithmetic on them.

Every moment is aware; a length of time is real time (across a DST change). An all-day
event's end date is exclusive, as Google keeps it.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from typing import Any

from toolspecs.core import FixArguments, ToolGuidance, format_datetime, resolve_timezone
from toolspecs.core.bounds import clip
from toolspecs.core.clock import (
    TIMEZONE_ENV,
    UnreadableTime,
    in_range,
    timezone_name,
    timezone_setting,
)
from toolspecs.loaders.google import GoogleCalendarReader, GoogleResponseError
from toolspecs.loaders.google.calendar import event_span, parse_event_time

# The most tokens get_date spends on why it could not read the calendar's zone.
WHY_TOKENS = 60


def date_zone(
    client: GoogleCalendarReader,
    setting: str | dt.tzinfo | None,
    calendar_id: str,
    mapped: Callable[[BaseException], ToolGuidance | None],
) -> tuple[dt.tzinfo, str]:
    """The zone ``get_date`` answers in, and where it comes from; never starts a sign-in.

    ``setting`` if set; else the calendar's, when credentials are at hand without a
    sign-in (an expired token is renewed, so that "tomorrow" is the day the other tools
    read); else ``$TOOLSPECS_TIMEZONE`` or this machine's, saying why. A failure
    ``mapped`` (the spec's table) maps is said, any other raised.
    """
    if setting:
        return resolve_timezone(setting), "from the timezone setting"
    why = "no Google sign-in"
    try:
        if client.service_if_signed_in() is not None:
            return client.calendar_timezone(calendar_id), "the calendar's own"
    except Exception as exc:  # mapped by the failure table; anything else is our bug
        guidance = mapped(exc)
        if guidance is None:
            raise
        why = clip(guidance.message, WHY_TOKENS)
    source = (
        f"from {TIMEZONE_ENV}"
        if os.environ.get(TIMEZONE_ENV, "").strip()
        else "from this machine's local zone"
    )
    return timezone_setting(None), f"{source}; the calendar's own zone was not read: {why}"


def span(
    start: dt.datetime, end: dt.datetime | None, tz: dt.tzinfo, all_day: bool
) -> tuple[dt.datetime, dt.datetime, str]:
    """Start and end in ``tz``; a missing end is one hour (or one day) later, and said so."""
    note = ""
    in_range(start)
    if end is None:
        end = later(start, dt.timedelta(days=1) if all_day else dt.timedelta(hours=1))
        note = (
            " No end time was given, so it lasts one day."
            if all_day
            else (" No end time was given, so it ends one hour after the start.")
        )
    if end <= start and not (all_day and end.date() >= start.date()):
        raise FixArguments(
            f"The end ({format_datetime(end, tz)}) is not after the start "
            f"({format_datetime(start, tz)}).",
            "Send an end_datetime after the start_datetime.",
        )
    in_range(end)
    return start.astimezone(tz), end.astimezone(tz), note


def elapsed(start: dt.datetime, end: dt.datetime) -> dt.timedelta:
    """Real time between two aware moments (Python subtracts wall clocks in one zone)."""
    return end.astimezone(dt.timezone.utc) - start.astimezone(dt.timezone.utc)


def later(moment: dt.datetime, delta: dt.timedelta) -> dt.datetime:
    """``moment`` plus real time, in its own zone (``FixArguments`` past the calendar's end)."""
    try:
        after = moment.astimezone(dt.timezone.utc) + delta
        return in_range(after.astimezone(moment.tzinfo) if moment.tzinfo is not None else after)
    except OverflowError:
        raise FixArguments(
            f"{format_datetime(moment)} plus {delta} is past the end of the calendar.",
            "Send both start_datetime and end_datetime.",
        ) from None


def event_times(
    start: dt.datetime, end: dt.datetime, tz: dt.tzinfo, all_day: bool
) -> dict[str, Any]:
    """An event's ``start`` and ``end`` as the Calendar API writes them."""
    if all_day:
        last = max(end.date(), start.date() + dt.timedelta(days=1))
        return {"start": {"date": start.date().isoformat()}, "end": {"date": last.isoformat()}}
    zone = timezone_name(tz)
    return {
        "start": {"dateTime": start.isoformat(), "timeZone": zone},
        "end": {"dateTime": end.isoformat(), "timeZone": zone},
    }


def moment_of(value: dt.datetime | dt.date, tz: dt.tzinfo) -> dt.datetime:
    """An event time as a moment: an all-day date is its midnight in ``tz``."""
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime.combine(value, dt.time.min, tzinfo=tz)


def current_times(
    current: dict[str, Any],
    tz: dt.tzinfo,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
) -> tuple[dt.datetime, dt.datetime]:
    """An event's start and end as Google has them, for those a move does not give."""
    if start_datetime is not None and end_datetime is not None:
        return start_datetime, end_datetime
    try:
        start, end = (
            moment_of(parse_event_time(current.get(key), tz), tz) for key in ("start", "end")
        )
    except ValueError:
        raise GoogleResponseError("Google's answer about the event has no readable times") from None
    try:
        return in_range(start), in_range(end)
    except UnreadableTime:
        raise FixArguments(
            f"The event's current times ({event_span(current, tz)}) are outside the years "
            "dates may be in, so the missing one cannot be worked out from them.",
            "Send both start_datetime and end_datetime.",
        ) from None


def moved(
    current: dict[str, Any],
    tz: dt.tzinfo,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
) -> tuple[dict[str, Any], str]:
    """The new ``start``/``end`` of ``current`` moved as asked, and a note on the duration."""
    old_start, old_end = current_times(current, tz, start_datetime, end_datetime)
    all_day = isinstance(current.get("start"), dict) and "date" in current["start"]
    start = start_datetime or old_start
    note = ""
    if end_datetime is None and start_datetime is not None:
        end_datetime = later(start, elapsed(old_start, old_end))
        note = " It keeps its duration."
    start, end, _ = span(start, end_datetime or old_end, tz, all_day)
    return event_times(start, end, tz, all_day), note


def whole_days(
    start: dt.datetime, end: dt.datetime, tz: dt.tzinfo
) -> tuple[dt.datetime, dt.datetime]:
    """The days an all-day event from ``start`` to ``end`` covers, midnight to midnight."""
    last = max(end.date(), start.date() + dt.timedelta(days=1))
    return (
        dt.datetime.combine(start.date(), dt.time.min, tzinfo=tz),
        dt.datetime.combine(last, dt.time.min, tzinfo=tz),
    )


def free_windows(
    start: dt.datetime,
    end: dt.datetime,
    busy: list[tuple[dt.datetime, dt.datetime]],
    shortest: dt.timedelta,
) -> list[tuple[dt.datetime, dt.datetime]]:
    """The windows of at least ``shortest`` from ``start`` to ``end`` outside every busy one."""
    windows = []
    cursor = start
    for busy_start, busy_end in sorted(busy):
        if busy_start > cursor and busy_start - cursor >= shortest:
            windows.append((cursor, min(busy_start, end)))
        cursor = max(cursor, busy_end)
        if cursor >= end:
            break
    if end - cursor >= shortest:
        windows.append((cursor, end))
    return windows


def in_zone(
    busy: list[tuple[dt.datetime, dt.datetime]], tz: dt.tzinfo
) -> list[tuple[dt.datetime, dt.datetime]]:
    """Busy intervals in ``tz`` (``GoogleResponseError`` past the calendar's ends)."""
    try:
        return [(a.astimezone(tz), b.astimezone(tz)) for a, b in busy]
    except (OverflowError, ValueError):
        raise GoogleResponseError(
            "a busy time in Google's free/busy answer is unreadable"
        ) from None
