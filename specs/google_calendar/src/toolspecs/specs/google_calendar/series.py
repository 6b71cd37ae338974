"""Changes to recurring events by scope: one occurrence, this and following, or all.

Google's own mechanisms do the work: an occurrence has its own id
(``<series id>_<original start>``), changed or deleted alone it becomes an exception of
its series; ``events.instances`` lists a series' occurrences; and "this and following"
splits the series as Google Calendar does: the series gets an ``UNTIL`` just before the
occurrence, and a new series starts at it. The split is two requests: the new series is
inserted first, then the old one is cut; when the cut fails, the new series is deleted
again (a clean undo: the old series was never touched), and the reply says which of
these happened. Google drops the old series' exceptions past its new end, and the new
series has none: the reply names the changed or cancelled occurrences this loses.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolspecs.core import AskUser, FixArguments, clock, fence, format_datetime
from toolspecs.loaders.google.calendar import parse_event_time
from toolspecs.specs.google_calendar import base as _base
from toolspecs.specs.google_calendar.recurrence import Scope, end_before, rest_of

if TYPE_CHECKING:
    from toolspecs.specs.google_calendar.base import GoogleCalendarToolSpec

# What a new series copies of the one it splits from (besides times and recurrence).
COPIED = (
    "summary", "description", "location", "attendees", "colorId", "reminders",
    "transparency", "visibility", "guestsCanInviteOthers", "guestsCanModify",
    "guestsCanSeeOtherGuests", "anyoneCanAddSelf",
)  # fmt: skip
HINT_OCCURRENCES = 3
# Pages of 2,500 occurrences read to count or check a series: 25,000, beyond any COUNT.
INSTANCE_PAGES = 10


@dataclass
class Found:
    """What a scoped change applies to.

    ``target`` is the id to patch or delete; ``event`` that event, when it was read;
    ``occurrence`` the occurrence the call named when the target is its series;
    ``split`` says the call is "this and following" on a later occurrence (``series``
    is then the series read, ``event`` the occurrence).
    """

    target: str
    event: dict[str, Any] | None
    kind: str
    note: str = ""
    occurrence: dict[str, Any] | None = None
    split: bool = False
    series: dict[str, Any] | None = None

    def deleted_text(self) -> str:
        """How a delete reply names what it deleted."""
        if self.kind == "occurrence":
            return f"Occurrence {self.target} (only this one; the rest of its series stays)"
        if self.kind == "series":
            return f"Series {self.target} with all its occurrences"
        return f"Event {self.target}"


def _get(spec: GoogleCalendarToolSpec, calendar: str, event_id: str) -> dict[str, Any]:
    event: dict[str, Any] = spec.reader.execute(
        spec.service.events().get(calendarId=calendar, eventId=event_id)
    )
    return event


def resolve(
    spec: GoogleCalendarToolSpec, calendar: str, event_id: str, wanted: Scope, tz: dt.tzinfo
) -> Found:
    """Read the event the call names and work out what ``wanted`` applies to.

    Raises:
        FixArguments: 'this' with a series' id (the reply lists occurrence ids).
    """
    event = _get(spec, calendar, event_id)
    series_id = event.get("recurringEventId")
    if not series_id and not event.get("recurrence"):
        return Found(event_id, event, "event", " It is not recurring, so scope changed nothing.")
    if wanted == "this":
        if not series_id:
            raise FixArguments(
                f"{event_id} is a whole recurring series, not one occurrence; "
                f"{hint(spec, calendar, event_id, tz)}.",
                "Send one occurrence's id, or scope='all' for every occurrence.",
            )
        return Found(event_id, event, "occurrence")
    if not series_id:  # a series' id with 'all' or 'following': the whole series
        note = " 'following' from the series' id is the whole series." if wanted != "all" else ""
        return Found(event_id, event, "series", note)
    series = _get(spec, calendar, series_id)
    if wanted == "following" and not _is_first(event, series, tz):
        return Found(event_id, event, "occurrence", split=True, series=series)
    return Found(series_id, series, "series", occurrence=event)


def _original_start(event: dict[str, Any], tz: dt.tzinfo) -> dt.datetime | dt.date:
    return parse_event_time(event.get("originalStartTime") or event.get("start"), tz)


def _is_first(occurrence: dict[str, Any], series: dict[str, Any], tz: dt.tzinfo) -> bool:
    try:
        return _original_start(occurrence, tz) <= parse_event_time(series.get("start"), tz)
    except (TypeError, ValueError):
        return False


def hint(spec: GoogleCalendarToolSpec, calendar: str, series_id: str, tz: dt.tzinfo) -> str:
    """The next few occurrence ids of a series, for guidance (bounded)."""
    now = clock.now(tz)
    answer = spec.reader.execute(
        spec.service.events().instances(
            calendarId=calendar,
            eventId=series_id,
            timeMin=now.isoformat(),
            maxResults=HINT_OCCURRENCES,
        )
    )
    items = [i for i in answer.get("items") or [] if isinstance(i, dict)]
    if not items:
        return "it has no occurrences from now on"
    listed = ", ".join(f"[id: {fence.field(i.get('id', '?'), 200)}]" for i in items)
    return f"its next occurrences: {listed}"


def shifted(
    occurrence: dict[str, Any], series: dict[str, Any], times: dict[str, Any], tz: dt.tzinfo
) -> dict[str, Any]:
    """The series' new ``start``/``end``: moved as the occurrence's move, same new length."""
    old, _ = _base._current_times(occurrence, tz, None, None)
    first, _ = _base._current_times(series, tz, None, None)
    new_start = _base._moment_of(parse_event_time(times["start"], tz), tz)
    new_end = _base._moment_of(parse_event_time(times["end"], tz), tz)
    start = _base._later(first, _base._elapsed(old, new_start))
    end = _base._later(start, _base._elapsed(new_start, new_end))
    return _base._times(start, end, tz, "date" in (series.get("start") or {}))


def _day_start(start: dt.datetime | dt.date, tz: dt.tzinfo) -> dt.datetime:
    """``start`` as a moment: an all-day occurrence's date is its midnight in ``tz``."""
    if isinstance(start, dt.datetime):
        return start
    return dt.datetime.combine(start, dt.time.min, tzinfo=tz)


def _instances(
    spec: GoogleCalendarToolSpec, calendar: str, series_id: str, **window: str
) -> list[dict[str, Any]]:
    """A series' occurrences in ``window`` (cancelled ones included), page by page."""
    items: list[dict[str, Any]] = []
    token = None
    for _ in range(INSTANCE_PAGES):
        answer = spec.reader.execute(
            spec.service.events().instances(
                calendarId=calendar,
                eventId=series_id,
                showDeleted=True,
                maxResults=2500,
                pageToken=token,
                **window,
            )
        )
        items += [i for i in answer.get("items") or [] if isinstance(i, dict)]
        token = answer.get("nextPageToken")
        if not token:
            break
    return items


def _before_count(
    spec: GoogleCalendarToolSpec, calendar: str, series: dict[str, Any], start: Any
) -> int:
    """How many occurrences come before ``start`` (only asked when a COUNT needs it)."""
    if not any("COUNT=" in line for line in series.get("recurrence") or []):
        return 0
    # An all-day occurrence starts at its date's midnight in the calendar's zone (not UTC's:
    # east of UTC that would count the occurrence itself).
    high = _day_start(start, spec.spec_timezone(calendar)).isoformat()
    return len(_instances(spec, calendar, str(series["id"]), timeMax=high))


def split(
    spec: GoogleCalendarToolSpec,
    calendar: str,
    found: Found,
    patch: dict[str, Any],
    tz: dt.tzinfo,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
    send: str,
) -> str:
    """'This and following' for an update: start a new series, then end the old one before it.

    The new series is inserted first: when the cut of the old one fails, deleting the new
    one is a clean undo (the old series was never touched). Occurrences after the split
    that were changed or cancelled alone are not carried into the new series; the reply
    names them.

    Raises:
        ToolGuidance: When a step fails (the same kind as Google's failure, saying the
            series is as it was), or ``AskUser`` when the undo failed too (saying what to
            delete).
    """
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
    body["recurrence"] = rest_of(original, _before_count(spec, calendar, series, start))
    note = ""
    if start_datetime is not None or end_datetime is not None:
        times, note = _base._moved(unmoved, tz, start_datetime, end_datetime)
        body.update(times)
    body.update(patch)
    when = format_datetime(start) if isinstance(start, dt.datetime) else str(start)
    series_id = str(series.get("id"))
    lost = _exceptions_from(spec, calendar, series, start)
    created = spec.reader.execute(
        spec.service.events().insert(calendarId=calendar, body=body, sendUpdates=send)
    )
    try:
        spec.reader.execute(
            spec.service.events().patch(
                calendarId=calendar,
                eventId=series_id,
                body={"recurrence": end_before(original, start)},
                sendUpdates=send,
            )
        )
    except Exception as exc:  # mapped by the failure table; anything else is our bug
        raise _undo(spec, calendar, series_id, created, when, exc, send) from exc
    said = (
        f" Split the series: {series_id} now ends before {when} (its earlier occurrences "
        "are unchanged), and this new series takes over from that occurrence with the "
        f"changes.{note}{_lost_text(lost)}"
    )
    return _base._mutation("created", created, tz, said)


def _unmoved(occurrence: dict[str, Any], series: dict[str, Any], tz: dt.tzinfo) -> dict[str, Any]:
    """The occurrence's ``start``/``end`` as its series puts them (its original start)."""
    first, last = _base._current_times(series, tz, None, None)
    begin = _base._moment_of(_original_start(occurrence, tz), tz)
    end = _base._later(begin, _base._elapsed(first, last))
    return _base._times(begin, end, tz, "date" in (series.get("start") or {}))


def _exceptions_from(
    spec: GoogleCalendarToolSpec, calendar: str, series: dict[str, Any], start: Any
) -> list[tuple[str, str]]:
    """(id, what) of the series' occurrences from ``start`` on changed or cancelled alone.

    Google keeps them as exceptions of the old series; a split drops them with its later
    part, and the new series has none (bounded to ``EXCEPTION_PAGES`` pages).
    """
    tz = spec.spec_timezone(calendar)
    low = _day_start(start, tz)
    keys = ("summary", "description", "location")
    lost: list[tuple[str, str]] = []
    for item in _instances(spec, calendar, str(series.get("id")), timeMin=low.isoformat()):
        if item.get("status") == "cancelled":
            lost.append((str(item.get("id", "?")), "cancelled"))
        elif _moved_alone(item, tz) or any(item.get(k) != series.get(k) for k in keys):
            lost.append((str(item.get("id", "?")), "changed"))
    return lost


def _moved_alone(occurrence: dict[str, Any], tz: dt.tzinfo) -> bool:
    """Whether an occurrence starts elsewhere than its series put it."""
    try:
        moved = parse_event_time(occurrence.get("start"), tz)
        return moved != _original_start(occurrence, tz)
    except (TypeError, ValueError):
        return False


def _lost_text(lost: list[tuple[str, str]]) -> str:
    if not lost:
        return ""
    shown = ", ".join(f"[id: {fence.field(i, 200)}] {what}" for i, what in lost[:HINT_OCCURRENCES])
    more = f" and {len(lost) - HINT_OCCURRENCES} more" if len(lost) > HINT_OCCURRENCES else ""
    return (
        f" Warning: {len(lost)} occurrence(s) from that one on had been changed or cancelled "
        f"alone ({shown}{more}); the new series does not keep that: cancelled ones are back "
        "and changed ones are as the series. Tell the user; redo them on the new series' "
        "occurrences if they want."
    )


def _undo(
    spec: GoogleCalendarToolSpec,
    calendar: str,
    series_id: str,
    created: dict[str, Any],
    when: str,
    exc: Exception,
    send: str,
) -> Exception:
    """Delete the new series when the old one could not be cut; the guidance that says so."""
    guidance = spec.guidance_for(exc)
    if guidance is None:
        return exc
    new_id = str(created.get("id"))
    emailed = " (its attendees were emailed an invitation to it)" if send != "none" else ""
    try:
        spec.reader.execute(
            spec.service.events().delete(calendarId=calendar, eventId=new_id, sendUpdates="none")
        )
    except Exception as again:
        if spec.guidance_for(again) is None:
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


def end_series(
    spec: GoogleCalendarToolSpec, calendar: str, found: Found, tz: dt.tzinfo, send: str
) -> str:
    """'This and following' for a delete: the series ends just before the occurrence."""
    occurrence, series = found.event or {}, found.series or {}
    start = _original_start(occurrence, tz)
    when = format_datetime(start) if isinstance(start, dt.datetime) else str(start)
    series_id = str(series.get("id"))
    spec.reader.execute(
        spec.service.events().patch(
            calendarId=calendar,
            eventId=series_id,
            body={"recurrence": end_before(list(series.get("recurrence") or []), start)},
            sendUpdates=send,
        )
    )
    return (
        f"Occurrences of series {series_id} from {when} on deleted: the series now ends "
        "before it; its earlier occurrences stay."
    )
