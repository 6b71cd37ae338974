"""Changes to recurring events by scope: one occurrence, this and following, or all.

Google's own mechanisms do the work: an occurrence has its own id and, changed alone,
becomes an exception. "This and following" splits the series as Google Calendar does: a
new series is inserted first, then the old one gets an ``UNTIL``; if the cut fails the
new one is deleted (a clean undo). The exceptions past the split are lost, and named.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from toolspecs.core import AskUser, FixArguments, ToolGuidance, clock, fence, format_datetime
from toolspecs.loaders.google import GoogleCalendarReader
from toolspecs.loaders.google.calendar import parse_event_time
from toolspecs.specs.google_calendar import render
from toolspecs.specs.google_calendar.outputs import EventWritten, LostOccurrence, Split
from toolspecs.specs.google_calendar.outputs import when as when_iso
from toolspecs.specs.google_calendar.recurrence import Scope, end_before, rest_of
from toolspecs.specs.google_calendar.times import (
    current_times,
    elapsed,
    event_times,
    later,
    moment_of,
    moved,
)

# What a new series copies of the one it splits from (besides times and recurrence).
COPIED = (
    "summary", "description", "location", "attendees", "colorId", "reminders",
    "transparency", "visibility", "guestsCanInviteOthers", "guestsCanModify",
    "guestsCanSeeOtherGuests", "anyoneCanAddSelf",
)  # fmt: skip
HINT_OCCURRENCES = render.OCCURRENCES_SHOWN
# Pages of 2,500 occurrences read to count or check a series: 25,000, beyond any COUNT.
INSTANCE_PAGES = 10


@dataclass(frozen=True)
class Calendar:
    """The calendar one call works on; ``mapped`` is the spec's failure table."""

    client: GoogleCalendarReader
    id: str
    tz: dt.tzinfo
    mapped: Callable[[BaseException], ToolGuidance | None]


@dataclass
class Found:
    """What a scoped change applies to.

    ``target``: the id to patch or delete; ``event``: it, when read; ``occurrence``: the one
    named when the target is its series; ``split``: "this and following" on a later one.
    """

    target: str
    event: dict[str, Any] | None
    kind: str
    note: str = ""
    occurrence: dict[str, Any] | None = None
    split: bool = False
    series: dict[str, Any] | None = None


def resolve(cal: Calendar, event_id: str, wanted: Scope) -> Found:
    """Read the event the call names and work out what ``wanted`` applies to."""
    tz = cal.tz
    event = cal.client.get_event(cal.id, event_id)
    series_id = event.get("recurringEventId")
    if not series_id and not event.get("recurrence"):
        return Found(event_id, event, "event", " It is not recurring, so scope changed nothing.")
    if wanted == "this":
        if not series_id:
            raise FixArguments(
                f"{event_id} is a whole recurring series, not one occurrence; "
                f"{hint(cal, event_id)}.",
                "Send one occurrence's id, or scope='all' for every occurrence.",
            )
        return Found(event_id, event, "occurrence")
    if not series_id:  # a series' id with 'all' or 'following': the whole series
        note = " 'following' from the series' id is the whole series." if wanted != "all" else ""
        return Found(event_id, event, "series", note)
    series = cal.client.get_event(cal.id, series_id)
    if wanted == "following" and not _is_first(event, series, tz):
        return Found(event_id, event, "occurrence", split=True, series=series)
    return Found(series_id, series, "series", occurrence=event)


@dataclass(frozen=True)
class SplitPoint:
    """Where "this and following" splits a series (when, the occurrence's times, lost)."""

    when: str
    times: dict[str, Any]
    lost: list[tuple[str, str]]


def split_point(cal: Calendar, found: Found, *, lost: bool = False) -> SplitPoint:
    """Where :func:`split` or :func:`end_series` would split ``found``'s series (read only)."""
    occurrence, series = found.event or {}, found.series or {}
    start = _original_start(occurrence, cal.tz)
    when = format_datetime(start) if isinstance(start, dt.datetime) else str(start)
    times = {**occurrence, **_unmoved(occurrence, series, cal.tz)}
    return SplitPoint(when, times, _exceptions_from(cal, series, start) if lost else [])


def _original_start(event: dict[str, Any], tz: dt.tzinfo) -> dt.datetime | dt.date:
    return parse_event_time(event.get("originalStartTime") or event.get("start"), tz)


def _is_first(occurrence: dict[str, Any], series: dict[str, Any], tz: dt.tzinfo) -> bool:
    try:
        return _original_start(occurrence, tz) <= parse_event_time(series.get("start"), tz)
    except (TypeError, ValueError):
        return False


def hint(cal: Calendar, series_id: str) -> str:
    """The next few occurrence ids of a series, for guidance (bounded)."""
    items = cal.client.list_instances(
        cal.id, series_id, time_min=clock.now(cal.tz), max_results=HINT_OCCURRENCES
    )
    return render.occurrence_ids(items)


def shifted(
    occurrence: dict[str, Any], series: dict[str, Any], times: dict[str, Any], tz: dt.tzinfo
) -> dict[str, Any]:
    """The series' new ``start``/``end``: moved as the occurrence's move, same new length."""
    old, _ = current_times(occurrence, tz, None, None)
    first, _ = current_times(series, tz, None, None)
    new_start = moment_of(parse_event_time(times["start"], tz), tz)
    new_end = moment_of(parse_event_time(times["end"], tz), tz)
    start = later(first, elapsed(old, new_start))
    end = later(start, elapsed(new_start, new_end))
    return event_times(start, end, tz, "date" in (series.get("start") or {}))


def _before_count(cal: Calendar, series: dict[str, Any], start: dt.datetime | dt.date) -> int:
    if not any("COUNT=" in line for line in series.get("recurrence") or []):
        return 0
    # An all-day occurrence starts at its date's midnight in the calendar's zone (not UTC's:
    # east of UTC that would count the occurrence itself).
    high = moment_of(start, cal.tz)
    return len(_instances(cal, str(series["id"]), time_max=high))


def _instances(
    cal: Calendar,
    series_id: str,
    time_min: dt.datetime | None = None,
    time_max: dt.datetime | None = None,
) -> list[dict[str, Any]]:
    return cal.client.list_instances(
        cal.id,
        series_id,
        time_min=time_min,
        time_max=time_max,
        show_deleted=True,
        pages=INSTANCE_PAGES,
    )


def split(
    cal: Calendar,
    found: Found,
    patch: dict[str, Any],
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
    send: str,
    changed: list[str],
) -> EventWritten:
    """'This and following' for an update: a new series, then the old one ended before it."""
    tz = cal.tz
    occurrence, series = found.event or {}, found.series or {}
    original = list(series.get("recurrence") or [])
    start = _original_start(occurrence, tz)
    body: dict[str, Any] = {k: series[k] for k in COPIED if k in series}
    body["attendees"] = [
        {k: v for k, v in a.items() if k not in ("id", "self", "organizer")}
        for a in body.get("attendees") or []
        if isinstance(a, dict)
    ] or None
    if body["attendees"] is None:
        del body["attendees"]
    # The series' own time at the occurrence's original start: an occurrence moved alone
    # must not move every later one.
    unmoved = {**occurrence, **_unmoved(occurrence, series, tz)}
    body["start"], body["end"] = unmoved["start"], unmoved["end"]
    body["recurrence"] = rest_of(original, _before_count(cal, series, start))
    note = ""
    if start_datetime is not None or end_datetime is not None:
        times, note = moved(unmoved, tz, start_datetime, end_datetime)
        body.update(times)
    body.update(patch)
    when = format_datetime(start) if isinstance(start, dt.datetime) else str(start)
    series_id = str(series.get("id"))
    lost = _exceptions_from(cal, series, start)
    created = cal.client.insert_event(cal.id, body, send)
    try:
        cal.client.patch_event(cal.id, series_id, {"recurrence": end_before(original, start)}, send)
    except Exception as exc:  # mapped by the failure table; anything else is our bug
        raise _undo(cal, series_id, created, when, exc, send) from exc
    said = (
        f" Split the series: {series_id} now ends before {when} (its earlier occurrences "
        "are unchanged), and this new series takes over from that occurrence with the "
        f"changes.{note}{render.lost(lost)}"
    )
    ended = Split(
        ended_series_id=series_id,
        ends_before=when_iso(start),
        lost=[LostOccurrence(event_id=i, was=was) for i, was in lost] or None,  # type: ignore[arg-type]
    )
    notify = send != "none"
    return EventWritten.of("created", created, tz, notify, said, changed=changed, split=ended)


def _unmoved(occurrence: dict[str, Any], series: dict[str, Any], tz: dt.tzinfo) -> dict[str, Any]:
    first, last = current_times(series, tz, None, None)
    begin = moment_of(_original_start(occurrence, tz), tz)
    end = later(begin, elapsed(first, last))
    return event_times(begin, end, tz, "date" in (series.get("start") or {}))


def _exceptions_from(
    cal: Calendar, series: dict[str, Any], start: dt.datetime | dt.date
) -> list[tuple[str, str]]:
    """(id, what) of the occurrences from ``start`` on changed or cancelled alone (bounded)."""
    tz = cal.tz
    keys = ("summary", "description", "location")
    lost: list[tuple[str, str]] = []
    for item in _instances(cal, str(series.get("id")), time_min=moment_of(start, tz)):
        if item.get("status") == "cancelled":
            lost.append((str(item.get("id", "?")), "cancelled"))
        elif _moved_alone(item, tz) or any(item.get(k) != series.get(k) for k in keys):
            lost.append((str(item.get("id", "?")), "changed"))
    return lost


def _moved_alone(occurrence: dict[str, Any], tz: dt.tzinfo) -> bool:
    try:
        moved_to = parse_event_time(occurrence.get("start"), tz)
        return moved_to != _original_start(occurrence, tz)
    except (TypeError, ValueError):
        return False


def _undo(
    cal: Calendar,
    series_id: str,
    created: dict[str, Any],
    when: str,
    exc: Exception,
    send: str,
) -> Exception:
    guidance = cal.mapped(exc)
    if guidance is None:
        return exc
    new_id = str(created.get("id"))
    emailed = " (its attendees were emailed an invitation to it)" if send != "none" else ""
    try:
        cal.client.delete_event(cal.id, new_id, "none")
    except Exception as again:
        if cal.mapped(again) is None:
            raise
        return AskUser(
            f"The series was only half split: the new series {fence.field(new_id, 200)} from "
            f"{when} was created{emailed}, but series {series_id} could not be ended before it "
            f"({guidance.message}), and deleting the new series failed too, so both run "
            "from then on.",
            f"Tell the user to delete the series {fence.field(new_id, 200)} in Google "
            "Calendar, or to try the change again later.",
        )
    return type(guidance)(
        f"The series was not split: {guidance.message} The new series created first "
        f"was deleted again{emailed}, so series {series_id} is as it was.",
        guidance.next_step,
    )


def end_series(cal: Calendar, found: Found, send: str) -> tuple[str, str]:
    """'This and following' for a delete: the series' id and the occurrence's start (ISO)."""
    occurrence, series = found.event or {}, found.series or {}
    start = _original_start(occurrence, cal.tz)
    series_id = str(series.get("id"))
    ended = {"recurrence": end_before(list(series.get("recurrence") or []), start)}
    cal.client.patch_event(cal.id, series_id, ended, send)
    return series_id, when_iso(start)
