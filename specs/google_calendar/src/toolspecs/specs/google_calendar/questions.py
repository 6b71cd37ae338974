"""What a person is asked before an event is deleted or changed in a way that destroys.

The event is read as the call reads it, writing nothing; what others wrote is shown one
cleaned line each (``fence.field``), so it cannot pass for our lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toolspecs.core import bounds, fence
from toolspecs.loaders.google.calendar import event_span
from toolspecs.specs.google_calendar import events, outputs, series
from toolspecs.specs.google_calendar.series import Calendar, Found, Scope, dropped_by, read_scope
from toolspecs.specs.google_calendar.times import moved

# People of one list shown; the others are counted.
PEOPLE_SHOWN = 20
# The whole question, in tokens: a dialog a person reads.
QUESTION_TOKENS = 900
_ONE = "only this occurrence; the rest of its series stays"


def asked(
    function: str,
    arguments: Mapping[str, Any],
    calendar_of: Callable[[str | None], Calendar],
    allow_destructive: bool,
) -> str | None:
    """The question before ``delete_event`` or ``update_event`` (``None``: nothing to ask)."""
    notify = bool(arguments.get("notify_attendees"))
    if function == "delete_event":
        event_id = events.event_id_of(arguments["event_id"])
        wanted = read_scope(arguments.get("scope"))
        cal = calendar_of(arguments.get("calendar_id"))
        return deleting(cal, event_id, wanted, notify)
    if function == "update_event":
        change = events.update_asked(
            calendar_of, arguments["event_id"], arguments.get("title"),
            arguments.get("description"), arguments.get("location"),
            arguments.get("start_datetime"), arguments.get("end_datetime"),
            arguments.get("attendees"), arguments.get("recurrence"),
            arguments.get("calendar_id"), arguments.get("scope"), notify,
        )  # fmt: skip
        return updating(change, allow_destructive)
    raise ValueError(f"no question is written for {function}")  # the spec asks for two


def deleting(cal: Calendar, event_id: str, wanted: Scope | None, notify: bool) -> str:
    """The question before ``delete_event`` deletes ``event_id`` (``wanted``: its scope)."""
    found = _found(cal, event_id, wanted)
    shown = found.event or {}
    if found.split:
        at = series.split_point(cal, found)
        whole = found.series or {}
        head = "Delete this occurrence and every later one of its series?"
        scope = (
            f"this occurrence and all that follow: the series ends before {at.when}; "
            "its earlier occurrences stay"
        )
        people = whole
    elif found.kind == "series":
        head = "Delete this whole recurring series, every occurrence?"
        scope = "the whole series, every occurrence (past ones too)"
        people = shown
    elif found.kind == "occurrence":
        head, scope, people = "Delete this occurrence of a recurring event?", _ONE, shown
    else:
        head, scope, people = "Delete this event?", "", shown
    lines = [f"{head} It cannot be undone.", *_event_lines(cal, shown, found)]
    if scope:
        lines.append(f"Scope: {scope}.")
    lines.append(_told(people, notify, "that it is cancelled"))
    return _bounded(lines, event_id)


def updating(change: events.Change, allow_destructive: bool) -> str | None:
    """The question before a destructive ``update_event``; ``None`` when nothing is lost."""
    cal, patch, event_id = change.cal, change.patch, change.event_id
    start_datetime, end_datetime = change.start_datetime, change.end_datetime
    found = _found(cal, event_id, change.wanted)
    before = (found.series if found.split else found.event) or {}
    if not allow_destructive and events.may_destroy(patch):
        events.refuse_losses(before, patch)  # the call refuses it: nothing to ask
    if not found.split and not events.losses_of(before, patch):
        return None  # nothing destroyed: a change like any other, not asked about
    moves = start_datetime is not None or end_datetime is not None
    lost: list[tuple[str, str]] = []
    if found.split:
        at = series.split_point(cal, found, lost=True)
        lost = at.lost
        head = "Change this occurrence and every later one of its series?"
        scope = (
            f"this occurrence and all that follow: the series is split, it ends before "
            f"{at.when} and a new series with the changes takes over from there; its "
            "earlier occurrences stay as they are"
        )
        old_times = at.times
    elif found.kind == "series":
        head = "Change this whole recurring series?"
        scope = "the whole series, every occurrence"
        old_times = found.occurrence or found.event or {}
    elif found.kind == "occurrence":
        head, scope, old_times = "Change this occurrence of a recurring event?", _ONE, before
    else:
        head, scope, old_times = "Change this event?", "", before
    lines = [head, *_event_lines(cal, found.event or {}, found)]
    if scope:
        lines.append(f"Scope: {scope}.")
    lines.append("Changes:")
    lines.extend(_changes(cal, before, patch))
    if moves:
        new_times, _ = moved(old_times, cal.tz, start_datetime, end_datetime)
        every = " (every occurrence moves by as much)" if found.kind == "series" else ""
        lines.append(
            f"- When: {event_span(dict(old_times), cal.tz)} → "
            f"{event_span(new_times, cal.tz)}{every}"
        )
    if lost:
        lines.append(
            f"Note: {len(lost)} later occurrence(s) changed or cancelled on their own will "
            "be as the series again."
        )
    after = before
    if "attendees" in patch:
        after = {**before, "attendees": [*patch["attendees"], *_removed(before, patch)]}
    lines.append(_told(after, change.notify, "about the change"))
    return _bounded(lines, event_id)


def _found(cal: Calendar, event_id: str, wanted: Scope | None) -> Found:
    if wanted is not None:
        return series.resolve(cal, event_id, wanted)
    event = cal.client.get_event(cal.id, event_id)
    if event.get("recurringEventId"):
        return Found(event_id, event, "occurrence")
    return Found(event_id, event, "series" if event.get("recurrence") else "event")


def _event_lines(cal: Calendar, event: Mapping[str, Any], found: Found) -> list[str]:
    lines = [f"Event: {fence.quote(event.get('summary') or '(no title)', 200)}"]
    when = event_span(dict(event), cal.tz)
    if found.kind == "series" and found.occurrence is not None:
        named = event_span(dict(found.occurrence), cal.tz)
        lines.append(f"When: the series starts {when}; the occurrence named is {named}")
    elif found.kind == "series":
        lines.append(f"When: the series starts {when}")
    else:
        lines.append(f"When: {when}")
    if event.get("location"):
        lines.append(f"Where: {fence.field(event['location'], 200)}")
    rules = (found.series if found.split else found.event or {}) or {}
    repeats = [str(line) for line in rules.get("recurrence") or []]
    if repeats:
        lines.append(f"Repeats: {fence.field('; '.join(repeats), 300)}")
    return lines


def _changes(cal: Calendar, before: Mapping[str, Any], patch: Mapping[str, Any]) -> list[str]:
    lines = []
    if "summary" in patch:
        old = fence.quote(before.get("summary") or "(no title)", 120)
        new = (
            fence.quote(patch["summary"], 120) if not outputs.blank(patch["summary"]) else "(none)"
        )
        lines.append(f"- Title: {old} → {new}")
    if "location" in patch:
        old = fence.quote(before.get("location"), 120) if before.get("location") else "(none)"
        new = fence.quote(patch["location"], 120) if patch["location"].strip() else "(none)"
        lines.append(f"- Where: {old} → {new}")
    if "description" in patch:
        if not outputs.blank(patch["description"]):
            lines.append(f"- Description: replaced by {fence.quote(patch['description'], 200)}")
        elif str(before.get("description") or "").strip():
            lines.append("- Description: removed")
    if "attendees" in patch:
        added = outputs.missing(patch["attendees"], before.get("attendees"))
        removed = _removed(before, patch)
        if added:
            lines.append(f"- Attendees added: {_people(added)}")
        if removed:
            lines.append(f"- Attendees removed: {_people(removed)}")
        if not added and not removed:
            lines.append("- Attendees: the same people")
    if "recurrence" in patch:
        old_rules = [str(line) for line in before.get("recurrence") or []]
        new_rules = [str(line) for line in patch["recurrence"]]
        old = fence.field("; ".join(old_rules), 300) or "(does not repeat)"
        lines.append(f"- Repeats: {old} → {fence.field('; '.join(new_rules), 300)}")
        dropped = dropped_by(old_rules, new_rules)
        if dropped:
            lines.append(f"  This would {fence.field(dropped, 300)}: occurrences may be lost.")
    return lines


def _removed(before: Mapping[str, Any], patch: Mapping[str, Any]) -> list[dict[str, Any]]:
    return outputs.missing(before.get("attendees"), patch["attendees"])


def _people(people: list[dict[str, Any]]) -> str:
    shown = []
    for person in people[:PEOPLE_SHOWN]:
        email = fence.field(person.get("email"), 200)
        name = fence.field(person.get("displayName"), 80)
        shown.append(f"{name} <{email}>" if name else email)
    more = len(people) - len(shown)
    return ", ".join(shown) + (f" and {more} more ({len(people)} in all)" if more else "")


def _told(event: Mapping[str, Any], notify: bool, about: str) -> str:
    guests = [p for p in event.get("attendees") or [] if isinstance(p, dict) and not p.get("self")]
    if not guests:
        return "Attendees: none besides you."
    if notify:
        return f"Google will email these attendees {about}: {_people(guests)}."
    return f"No one is emailed (notifications are off). Attendees: {_people(guests)}."


def _bounded(lines: list[str], event_id: str) -> str:
    lines.append(f"(Google Calendar event {fence.field(event_id, 120)})")
    return bounds.clip("\n".join(lines), QUESTION_TOKENS)
