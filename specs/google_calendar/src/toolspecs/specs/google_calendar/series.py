"""Changes to recurring events by scope: one occurrence, this and following, or all.

Google's own mechanisms do the work: an occurrence has its own id and, changed alone,
becomes an exception. "This and following" splits the series as Google Calendar does: a
new series is inserted first, then the old one gets an ``UNTIL``; if the cut fails the
new one is deleted (a clean undo). The exceptions past the split are lost, and named.
Recurrence is read as agents write it: an RRULE, or plain words such as 'every Monday
until Dec 31'.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from toolspecs.core import (
    AskUser,
    FixArguments,
    ToolGuidance,
    clock,
    fence,
    format_datetime,
    parse_datetime,
)
from toolspecs.core.bounds import shown
from toolspecs.core.clock import FIRST_YEAR, LAST_YEAR
from toolspecs.loaders.google import GoogleCalendarReader
from toolspecs.loaders.google.calendar import parse_event_time
from toolspecs.specs.google_calendar import outputs
from toolspecs.specs.google_calendar.outputs import EventWritten, LostOccurrence, Split
from toolspecs.specs.google_calendar.outputs import when as when_iso
from toolspecs.specs.google_calendar.times import (
    current_times,
    elapsed,
    event_times,
    later,
    moment_of,
    moved,
)

_DAYS = {
    "monday": "MO", "tuesday": "TU", "wednesday": "WE", "thursday": "TH",
    "friday": "FR", "saturday": "SA", "sunday": "SU",
    "mon": "MO", "tue": "TU", "tues": "TU", "wed": "WE", "thu": "TH", "thur": "TH",
    "thurs": "TH", "fri": "FR", "sat": "SA", "sun": "SU",
}  # fmt: skip
_FREQ = {
    "daily": "DAILY", "day": "DAILY", "days": "DAILY",
    "weekly": "WEEKLY", "week": "WEEKLY", "weeks": "WEEKLY",
    "monthly": "MONTHLY", "month": "MONTHLY", "months": "MONTHLY",
    "yearly": "YEARLY", "annually": "YEARLY", "year": "YEARLY", "years": "YEARLY",
}  # fmt: skip
EXAMPLE = "'RRULE:FREQ=WEEKLY;BYDAY=MO' or words such as 'every Monday until 2026-12-31'"
# Bounds of a rule, ours (RFC 5545 sets none, Google documents none): an interval of
# up to 1,000 periods ('every 1000 days' is under three years), at most 730 occurrences
# (two years of a daily event, which is as far as Google's calendar expands one), and an
# end in the years a time may be in (clock.FIRST_YEAR to LAST_YEAR). Past these, Python
# cannot even expand the rule (dates past 9999: OverflowError), nor can a calendar.
MAX_INTERVAL = 1000
MAX_COUNT = 730
_UNTIL = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?")


def to_rrule(text: str, tz: dt.tzinfo) -> list[str]:
    """The ``recurrence`` list for the Calendar API, from RRULEs or words ('every Monday')."""
    rules = _read(text, tz)
    for rule in rules:
        if rule.upper().startswith(("RRULE:", "EXRULE:")):
            _check_bounds(rule)
    return rules


def _read(text: str, tz: dt.tzinfo) -> list[str]:
    cleaned = text.strip()
    if cleaned.upper().startswith(("RRULE:", "EXRULE:", "RDATE", "EXDATE")):
        return [line.strip() for line in re.split(r"\n|;;", cleaned) if line.strip()]
    if cleaned.upper().startswith("FREQ="):
        return [f"RRULE:{cleaned}"]
    words = cleaned.lower().replace(",", " ").replace(" and ", " ")
    parts: dict[str, str] = {}
    until = re.search(r"\buntil\s+(.+)$", words)
    if until:
        words = words[: until.start()]
        last_day = parse_datetime(until.group(1), tz).astimezone(tz).date()
        end = dt.datetime.combine(last_day, dt.time(23, 59, 59), tzinfo=tz)
        parts["UNTIL"] = end.astimezone(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    count = re.search(r"\b(?:for\s+)?(\d+)\s+(?:times|occurrences)\b", words)
    if count:
        parts["COUNT"] = count.group(1)
        words = words[: count.start()] + words[count.end() :]
    interval = re.search(r"\bevery\s+(\d+|other)\s+(\w+)", words)
    if interval:
        parts["INTERVAL"] = "2" if interval.group(1) == "other" else interval.group(1)
    tokens = re.findall(r"[a-z]+", words)
    days = []
    for token in tokens:
        key = token if token in _DAYS else token.rstrip("s")
        if key in _DAYS:
            days.append(_DAYS[key])
    if "weekday" in tokens or "weekdays" in tokens:
        days = ["MO", "TU", "WE", "TH", "FR"]
    freq = next((_FREQ[t] for t in tokens if t in _FREQ), None)
    if freq is None and days:
        freq = "WEEKLY"
    if freq is None:
        raise FixArguments(f"I cannot read {text!r} as a recurrence.", f"Send {EXAMPLE}.")
    rule = f"RRULE:FREQ={freq}"
    if days:
        rule += f";BYDAY={','.join(dict.fromkeys(days))}"
    for key in ("INTERVAL", "COUNT", "UNTIL"):
        if key in parts:
            rule += f";{key}={parts[key]}"
    return [rule]


def _check_bounds(rule: str) -> None:
    body = rule.split(":", 1)[1]
    parts = {
        key.strip().upper(): value.strip()
        for key, _, value in (p.partition("=") for p in body.split(";"))
    }
    if "INTERVAL" in parts and not _whole(parts["INTERVAL"], MAX_INTERVAL):
        raise FixArguments(
            f"The recurrence repeats every {shown(parts['INTERVAL'])} periods, but INTERVAL "
            f"must be a whole number from 1 to {MAX_INTERVAL}.",
            f"Send 1 to {MAX_INTERVAL} periods, e.g. 'every 2 weeks' (INTERVAL=2).",
        )
    if "COUNT" in parts and not _whole(parts["COUNT"], MAX_COUNT):
        raise FixArguments(
            f"The recurrence has {shown(parts['COUNT'])} occurrences, but COUNT must be a "
            f"whole number from 1 to {MAX_COUNT}.",
            f"Send 1 to {MAX_COUNT}, e.g. 'for 10 times' (COUNT=10); or an end date such "
            "as 'until 2027-06-30'; or no end, for a series that goes on.",
        )
    if "UNTIL" in parts and not _until(parts["UNTIL"]):
        raise FixArguments(
            f"The recurrence ends {shown(parts['UNTIL'])}, but UNTIL must be a date in the "
            f"years {FIRST_YEAR} to {LAST_YEAR}, written 20271231 or 20271231T235959Z.",
            "Send e.g. 'until 2027-12-31' (UNTIL=20271231); or no end, for a series that goes on.",
        )


def _whole(value: str, most: int) -> bool:
    return re.fullmatch(r"\d{1,9}", value) is not None and 1 <= int(value) <= most


def _until(value: str) -> bool:
    found = _UNTIL.fullmatch(value)
    if found is None:
        return False
    year, month, day, hour, minute, second = (int(n or 0) for n in found.groups())
    try:
        dt.datetime(year, month, day, hour, minute, second)
    except ValueError:  # no such day or time, such as 20270231
        return False
    return FIRST_YEAR <= year <= LAST_YEAR


# -- scopes of a change to a recurring event -----------------------------------------

Scope = Literal["this", "following", "all"]
SCOPE_EXAMPLE = "'this' (one occurrence), 'following' (this and later ones) or 'all'"


def read_scope(text: str | None) -> Scope | None:
    """The scope an agent wrote ('this', 'this and following', 'all'); ``None``: what the id names.

    Raises:
        FixArguments: When the text is none of them.
    """
    words = re.sub(r"[^a-z]+", " ", (text or "").lower()).split()
    if not words:
        return None
    joined = "".join(words)
    if any(w in ("not", "no", "nor", "never", "except", "but") for w in words):
        # "not following, only this one": which scope is meant is for the agent to say.
        raise FixArguments(
            f"scope {text!r} holds a negation, so I cannot tell which scope is meant.",
            f"Send one of {SCOPE_EXAMPLE}, without 'not'.",
        )
    if any(w in joined for w in ("follow", "future", "onward", "later", "subsequent", "after")):
        return "following"
    if any(w in words for w in ("all", "series", "every", "entire", "whole", "recurring")):
        return "all"
    if any(w in words for w in ("this", "one", "single", "occurrence", "instance", "only")):
        return "this"
    raise FixArguments(f"scope {text!r} is not one I know.", f"Send {SCOPE_EXAMPLE}.")


def end_before(recurrence: list[str], start: dt.datetime | dt.date) -> list[str]:
    """A series' ``recurrence`` ended (``UNTIL``) just before the occurrence at ``start``."""
    if isinstance(start, dt.datetime):
        last = (start.astimezone(dt.timezone.utc) - dt.timedelta(seconds=1)).strftime(
            "%Y%m%dT%H%M%SZ"
        )
    else:
        last = (start - dt.timedelta(days=1)).strftime("%Y%m%d")
    return [
        _with(line, {"UNTIL": last}, drop=("COUNT",)) if line.startswith("RRULE:") else line
        for line in recurrence
    ]


def rest_of(recurrence: list[str], before: int) -> list[str]:
    """The ``recurrence`` of a series' later part: a ``COUNT`` counts what is left."""
    out = []
    for line in recurrence:
        count = re.search(r"(?:^|;)COUNT=(\d+)", line) if line.startswith("RRULE:") else None
        if count:
            line = _with(line, {"COUNT": str(max(1, int(count.group(1)) - before))})
        out.append(line)
    return out


def _with(rule: str, values: dict[str, str], drop: tuple[str, ...] = ()) -> str:
    parts = [p for p in rule.removeprefix("RRULE:").split(";") if p]
    kept = [p for p in parts if p.split("=", 1)[0].upper() not in {*values, *drop}]
    return "RRULE:" + ";".join([*kept, *(f"{k}={v}" for k, v in values.items())])


# -- what a new recurrence drops ----------------------------------------------------------


def dropped_by(old: list[str], new: list[str]) -> str:
    """How ``new`` may drop occurrences of ``old`` (""): only a later end or none keeps all."""
    old_rules = [line for line in old if line.upper().startswith("RRULE:")]
    if not old_rules and not any(line.upper().startswith("RDATE") for line in old):
        return ""
    new_rules = [line for line in new if line.upper().startswith("RRULE:")]
    if not new_rules:
        return "end the series (no repeat rule left)"
    added = [line for line in new if line.upper().startswith(("EXDATE", "EXRULE"))]
    if set(added) - set(old):
        return "exclude occurrences of the series (EXDATE/EXRULE)"
    if {line for line in old if line.upper().startswith("RDATE")} - set(new):
        return "drop added dates of the series (RDATE)"
    unmatched = [rule for rule in old_rules if not any(_keeps(rule, n) for n in new_rules)]
    if not unmatched:
        return ""
    return f"change the series' repeat rule from {unmatched[0]} to {new_rules[0]}"


def _rule_parts(rule: str) -> dict[str, str]:
    parts = (p.split("=", 1) for p in rule.split(":", 1)[-1].split(";") if "=" in p)
    return {key.strip().upper(): value.strip().upper() for key, value in parts}


def _keeps(old: str, new: str) -> bool:
    before, after = _rule_parts(old), _rule_parts(new)
    ends = ("COUNT", "UNTIL")
    if {k: v for k, v in before.items() if k not in ends} != {
        k: v for k, v in after.items() if k not in ends
    }:
        return False
    if not any(key in after for key in ends):  # no end: every occurrence, forever
        return True
    if "COUNT" in before and "COUNT" in after:
        return _number(after["COUNT"]) >= _number(before["COUNT"])
    if "UNTIL" in before and "UNTIL" in after:
        return _moment(after["UNTIL"]) >= _moment(before["UNTIL"])
    return False  # no end before, or ends of two kinds: cannot tell, so it may drop some


def _number(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _moment(text: str) -> str:
    value = text.removesuffix("Z")
    return value if "T" in value else f"{value}T235959"


# What a new series copies of the one it splits from (besides times and recurrence).
COPIED = (
    "summary", "description", "location", "attendees", "colorId", "reminders",
    "transparency", "visibility", "guestsCanInviteOthers", "guestsCanModify",
    "guestsCanSeeOtherGuests", "anyoneCanAddSelf",
)  # fmt: skip
HINT_OCCURRENCES = outputs.OCCURRENCES_SHOWN
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
    return outputs.occurrence_ids(items)


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
        f"changes.{note}{outputs.lost(lost)}"
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
