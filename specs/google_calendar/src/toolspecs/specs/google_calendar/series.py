"""Changes to recurring events by scope: one occurrence, this and following, or all.

Google's own mechanisms do the work: an occurrence has its own id
(``<series id>_<original start>``), changed or deleted alone it becomes an exception of
its series; ``events.instances`` lists a series' occurrences; and "this and following"
splits the series as Google Calendar does: the series gets an ``UNTIL`` just before the
occurrence, and a new series starts at it. The split is two requests; when the second
fails, the first is undone, and the reply says which of these happened.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolspecs.core import AskUser, FixArguments, fence, format_datetime
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
    now = dt.datetime.now(tz)
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


def _before_count(
    spec: GoogleCalendarToolSpec, calendar: str, series: dict[str, Any], start: Any
) -> int:
    """How many occurrences come before ``start`` (only asked when a COUNT needs it)."""
    if not any("COUNT=" in line for line in series.get("recurrence") or []):
        return 0
    limit = start if isinstance(start, dt.datetime) else dt.datetime.combine(start, dt.time.min)
    answer = spec.reader.execute(
        spec.service.events().instances(
            calendarId=calendar,
            eventId=series["id"],
            timeMax=limit.isoformat() if limit.tzinfo else limit.isoformat() + "Z",
            showDeleted=True,
            maxResults=2500,
        )
    )
    return len(answer.get("items") or [])


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
    """'This and following' for an update: end the series before it, start a new one.

    Raises:
        ToolGuidance: When the new series cannot be created (the same kind as Google's
            failure, saying the series was restored), or ``AskUser`` when restoring
            failed too (saying how to restore it).
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
    body["start"], body["end"] = occurrence["start"], occurrence["end"]
    body["recurrence"] = rest_of(original, _before_count(spec, calendar, series, start))
    note = ""
    if start_datetime is not None or end_datetime is not None:
        times, note = _base._moved(occurrence, tz, start_datetime, end_datetime)
        body.update(times)
    body.update(patch)
    cut = end_before(original, start)
    when = format_datetime(start) if isinstance(start, dt.datetime) else str(start)
    series_id = str(series.get("id"))
    spec.reader.execute(
        spec.service.events().patch(
            calendarId=calendar, eventId=series_id, body={"recurrence": cut}, sendUpdates=send
        )
    )
    try:
        created = spec.reader.execute(
            spec.service.events().insert(calendarId=calendar, body=body, sendUpdates=send)
        )
    except Exception as exc:  # mapped by the failure table; anything else is our bug
        raise _undo(spec, calendar, series_id, original, when, exc, send) from exc
    said = (
        f" Split the series: {series_id} now ends before {when} (its earlier occurrences "
        "are unchanged), and this new series takes over from that occurrence with the "
        f"changes.{note}"
    )
    return _base._mutation("created", created, tz, said)


def _undo(
    spec: GoogleCalendarToolSpec,
    calendar: str,
    series_id: str,
    original: list[str],
    when: str,
    exc: Exception,
    send: str,
) -> Exception:
    """Restore a series whose split failed half way; the guidance that says how it ended."""
    guidance = spec.guidance_for(exc)
    if guidance is None:
        return exc
    try:
        spec.reader.execute(
            spec.service.events().patch(
                calendarId=calendar,
                eventId=series_id,
                body={"recurrence": original},
                sendUpdates=send,
            )
        )
    except Exception as again:
        if spec.guidance_for(again) is None:
            raise
        rule = fence.field("\n".join(original), 300)
        return AskUser(
            f"The series was only half split: {series_id} now ends before {when}, but the new "
            f"series could not be created ({guidance.message}), and restoring failed too.",
            f"Tell the user. To restore it: update_event(event_id='{series_id}', "
            f"recurrence='{rule}', scope='all').",
        )
    return type(guidance)(
        f"The series was not split: {guidance.message} The first step (ending series "
        f"{series_id} before {when}) was undone, so the series is as it was.",
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
