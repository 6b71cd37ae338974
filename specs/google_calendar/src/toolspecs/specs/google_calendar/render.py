"""What the Calendar tools tell the agent: every reply, in the agent's words.

What others wrote (titles, places, names, descriptions, calendar names) goes through
:mod:`toolspecs.core.fence`: a value on one line with ``fence.field``, quoted with
``fence.quote``, a description as a fenced block naming its event.

Each reply carries the same facts as data (:mod:`.outputs`, built by :mod:`.facts`):
a ``Reply`` (text) or ``Replies`` (Documents) with ``.structured``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Literal

from llama_index.core.schema import Document

from toolspecs.base.times import format_date, format_offset
from toolspecs.core import FixArguments, fence, format_datetime, ref
from toolspecs.core.clock import now as clock_now
from toolspecs.core.clock import timezone_name
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Quoted, Replies, Reply
from toolspecs.loaders.google import GoogleResponseError
from toolspecs.loaders.google.events import describe_event, event_span
from toolspecs.specs.google_calendar import facts, outputs

NEXT = "You can move on to the next step."
# load_data's empty reply (its tool's ``empty=``), and the step it says.
NO_EVENTS_STEP = "Widen the dates, or drop the query."
NO_EVENTS = f"No events in that range. {NO_EVENTS_STEP}"
IDS_HINT = "Get event ids with load_data (each line starts with [id: ...])."
"""Where event ids come from, as declared (the failure table's ``ids_hint``)."""


def ids_hint() -> str:
    """:data:`IDS_HINT` at a call, naming a listing tool the agent has, if any."""
    lister = next((name for name in ("load_data", "search_events") if offered(name)), None)
    if lister is None:
        return "Check the id: a reply that listed the event shows it as [id: ...]."
    return f"Get event ids with {ref(lister)} (each line starts with [id: ...])."


def no_start() -> FixArguments:
    """``create_event`` without ``start_datetime``."""
    helps = f" ({ref('get_date')} helps with words like 'tomorrow')" if offered("get_date") else ""
    return FixArguments(
        f"{ref('create_event')} needs start_datetime.", f"Send it, e.g. '2026-11-21T16:00'{helps}."
    )


def dates_reversed(start_date: dt.date, end_date: dt.date) -> FixArguments:
    """``load_data`` with an ``end_date`` before its ``start_date``."""
    return FixArguments(
        f"end_date {end_date} is before start_date {start_date}.",
        "Send an end_date on or after the start_date.",
    )


def empty_query() -> FixArguments:
    """``search_events`` without words to find."""
    listing = f", or use {ref('load_data')}" if offered("load_data") else ""
    return FixArguments("query is empty.", f"Send words to find{listing}.")


# respond_to_event's answers, as Google names them, and how the reply says them.
RESPONSES = {"accepted": "accepted", "declined": "declined", "tentative": "tentatively accepted"}
# create_event names at most this many overlapping events.
OVERLAP_SHOWN = 3
# How many ids a reply about a series' occurrences names.
OCCURRENCES_SHOWN = 3


def description(text: str, source: str) -> str:
    """An event's description, fenced as third-party text naming its event."""
    return fence.block(text, source, "description")


def mutation(
    verb: str, event: Mapping[str, Any], tz: dt.tzinfo, note: str, facts_of: Mapping[str, Any]
) -> Reply:
    """What a write tells the agent: the event's id, title, times, link, and what was said.

    ``facts_of`` are the other fields of its :class:`~.outputs.EventWritten` (whether the
    attendees were emailed, the overlaps, what changed, the split, our ``note``).

    Raises:
        GoogleResponseError: When Google's answer has no event id (the guidance says to
            check whether the write was done).
    """
    event_id = event.get("id")
    if not isinstance(event_id, str) or not event_id:
        raise GoogleResponseError("Google's answer to the write names no event id")
    span = event_span(dict(event), tz)
    link = f" Link: {fence.field(event['htmlLink'])}." if event.get("htmlLink") else ""
    title = fence.quote(event.get("summary") or "(no title)")
    text = f"Event {verb} with id {fence.field(event_id)}: {title}, {span}.{note}{link} {NEXT}"
    data = outputs.EventWritten(
        action="created" if verb == "created" else "updated",
        event=facts.event(event, tz, url=True),
        next_step=NEXT,
        **facts_of,
    )
    return Reply(text, data)


def emailed(event: Mapping[str, Any], notify: bool) -> str:
    """What the agent is told about emails to the attendees of a written event."""
    if notify:
        return " The attendees were emailed."
    return " No emails were sent to the attendees." if event.get("attendees") else ""


def overlaps(found: list[dict[str, Any]], tz: dt.tzinfo, lookup: int) -> tuple[str, dict[str, Any]]:
    """A note naming the events (of ``found``, at most ``lookup`` asked) a new one overlaps.

    Events marked free (``transparency: transparent``) and cancelled ones do not count.
    Returns the note and the same as fields of :class:`~.outputs.EventWritten`.
    """
    busy = [
        e
        for e in found
        if e.get("status") != "cancelled" and e.get("transparency") != "transparent"
    ]
    if not busy:
        return "", {}
    shown = [
        f"[id: {fence.field(e.get('id', '?'), 200)}] "
        f"{fence.quote(e.get('summary') or '(no title)', 60)}, {event_span(e, tz)}"
        for e in busy[:OVERLAP_SHOWN]
    ]
    more = len(busy) - len(shown)
    at_least = "at least " if len(found) >= lookup else ""
    listed = "; ".join(shown) + (f"; and {at_least}{more} more" if more else "")
    data: dict[str, Any] = {"overlaps": [facts.event(e, tz) for e in busy[:OVERLAP_SHOWN]]}
    if more:
        data["more_overlaps"] = more
    text = f" It overlaps {at_least}{len(busy)} event{'s' if len(busy) > 1 else ''}: {listed}."
    return text, data


def search_results(
    found: list[dict[str, Any]],
    words: str,
    dates: tuple[dt.date, dt.date],
    tz: dt.tzinfo,
    asked: int,
    calendar_id: str,
) -> Reply:
    """``search_events``' reply: one line per event, or what to try when none matched."""
    first, last = dates
    span = f"from {first} to {last}"
    data = outputs.Events(
        calendar_id=calendar_id,
        timezone=timezone_name(tz),
        query=words,
        start_date=first.isoformat(),
        end_date=last.isoformat(),
        events=[facts.event(event, tz, full=True) for event in found],
    )
    if not found:
        step = "Try fewer or other words, or a wider range of dates."
        data.next_step = step
        return Reply(f"No events match {fence.quote(words, 100)} {span}. {step}", data)
    lines = [f"{len(found)} events match {fence.quote(words, 100)} {span}:"]
    lines += [describe_event(event, tz, fence.field) for event in found]
    if len(found) >= asked:
        data.next_step = (
            f"There may be more: raise number_of_results above {asked} or narrow the dates."
        )
        lines.append(f"({data.next_step})")
    return Reply("\n".join(lines), data)


def listed(
    documents: list[Document],
    found: list[dict[str, Any]],
    tz: dt.tzinfo,
    calendar_id: str,
    asked: Mapping[str, Any],
) -> Replies:
    """``load_data``'s Documents (one per event, the client's), carrying the events as data.

    ``asked`` holds the call's ``start_date``, ``end_date`` and ``query``.
    """
    data = outputs.Events(
        calendar_id=calendar_id,
        timezone=timezone_name(tz),
        query=asked.get("query") or None,
        start_date=asked["start_date"].isoformat(),
        end_date=asked["end_date"].isoformat() if asked.get("end_date") else None,
        events=[facts.event(event, tz, full=True, description=True) for event in found],
        next_step=None if found else NO_EVENTS_STEP,
    )
    return Replies(documents, data)


def today(tz: dt.tzinfo, source: str) -> Reply:
    """``get_date``'s reply: now, as ``toolspecs.core.clock.describe_now`` says it."""
    moment = clock_now(tz)
    zone = timezone_name(moment.tzinfo) if moment.tzinfo else "UTC"
    offset = format_offset(moment)
    tomorrow = moment.date() + dt.timedelta(days=1)
    text = (
        f"Today is {moment:%A}, {moment:%Y-%m-%d}. "
        f"The time is {moment:%H:%M} in {zone} (UTC{offset}). "
        f"Tomorrow is {format_date(tomorrow)}."
    )
    data = outputs.Today(
        now=moment.isoformat(timespec="seconds"),
        date=moment.date().isoformat(),
        time=f"{moment:%H:%M}{offset}",  # a zoneinfo time alone has no offset
        weekday=f"{moment:%A}",
        tomorrow=tomorrow.isoformat(),
        timezone=timezone_name(tz),
        utc_offset=offset,
        timezone_source=source,
    )
    return Reply(f"{text} (timezone: {timezone_name(tz)}, {source})", data)


def calendars(
    entries: list[dict[str, Any]],
    allowed_ids: list[str],
    default: str,
    shared: dict[str, dict[str, Any] | None] | None = None,
) -> Reply:
    """``list_calendars``' reply: each allowed calendar as the user's list has it.

    ``shared``: for an allowed calendar not in the list, Google's record of it
    (``calendars.get``), or ``None`` when Google knows none for these credentials.
    """
    shared = shared or {}
    lines = ["Calendars this agent may use:"]
    listed: list[outputs.CalendarEntry] = []
    matched: set[int] = set()
    for allowed in allowed_ids:
        index = entry_for(entries, allowed)
        is_default = ", the default" if allowed == default else ""
        found = shared.get(allowed) if index is None else None
        if found is not None:
            name = found.get("summary")
            lines.append(
                f"- [id: {fence.field(allowed, 200)}] {fence.quote(name or '?', 80)} — timezone "
                f"{fence.field(found.get('timeZone') or '?', 60)}; shared with this account, "
                f"not in its calendar list{is_default}"
            )
            listed.append(
                outputs.CalendarEntry(
                    calendar_id=allowed,
                    in_list=False,
                    name=Quoted(text=str(name)) if name else None,
                    timezone=str(found["timeZone"]) if found.get("timeZone") else None,
                    default=allowed == default or None,
                )
            )
            continue
        if index is None:
            lines.append(
                f"- [id: {fence.field(allowed, 200)}] not found: Google knows no such "
                f"calendar for this account (check the id, or ask the owner to share "
                f"it){is_default}."
            )
            listed.append(
                outputs.CalendarEntry(
                    calendar_id=allowed, in_list=False, default=allowed == default or None
                )
            )
            continue
        matched.add(index)
        entry = entries[index]
        name = entry.get("summaryOverride") or entry.get("summary")
        own = f" ({fence.field(entry.get('id'), 200)})" if allowed != entry.get("id") else ""
        role = fence.field(entry.get("accessRole") or "unknown", 40)
        read_only = " (read only)" if role in ("reader", "freeBusyReader") else ""
        lines.append(
            f"- [id: {fence.field(allowed, 200)}]{own} {fence.quote(name or '?', 80)} — timezone "
            f"{fence.field(entry.get('timeZone') or '?', 60)}, access {role}{read_only}"
            f"{', primary' if entry.get('primary') else ''}{is_default}"
        )
        listed.append(
            outputs.CalendarEntry(
                calendar_id=allowed,
                in_list=True,
                list_id=str(entry.get("id")) if own else None,
                name=Quoted(text=str(name)) if name else None,
                timezone=str(entry["timeZone"]) if entry.get("timeZone") else None,
                access_role=str(entry["accessRole"]) if entry.get("accessRole") else None,
                read_only=True if read_only else None,
                primary=True if entry.get("primary") else None,
                default=allowed == default or None,
            )
        )
    data = outputs.Calendars(calendars=listed)
    others = len(entries) - len(matched)
    if others:
        data.not_allowed = others
        data.next_step = (
            "To allow one, the user adds its id to allowed_calendar_ids "
            "when creating GoogleCalendarToolSpec."
        )
        lines.append(
            f"The user's list has {others} more calendar{'s' if others > 1 else ''} this "
            f"agent may not use. {data.next_step}"
        )
    return Reply("\n".join(lines), data)


def entry_for(entries: list[dict[str, Any]], calendar_id: str) -> int | None:
    """The index of the calendarList entry of an allowed id (``"primary"``: the primary one)."""
    wanted = calendar_id.casefold()
    for index, entry in enumerate(entries):
        if str(entry.get("id", "")).casefold() == wanted or (
            wanted == "primary" and entry.get("primary")
        ):
            return index
    return None


def free_time(
    start: dt.datetime,
    end: dt.datetime,
    windows: list[tuple[dt.datetime, dt.datetime]],
    people: list[str],
    unseen: list[str],
    min_minutes: int,
) -> Reply:
    """``find_free_time``' reply: the free windows, and whose calendars could not be seen."""
    who = "you" if not people else "you and " + ", ".join(people)
    lines = [
        f"Free windows of at least {min_minutes} minutes for {who}, "
        f"{format_datetime(start)} to {format_datetime(end)}:"
    ]
    data = outputs.FreeTime(
        start=facts.when(start),
        end=facts.when(end),
        timezone=timezone_name(start.tzinfo) if start.tzinfo else "UTC",
        min_minutes=min_minutes,
        attendees=list(people),
        windows=[outputs.Window(start=facts.when(a), end=facts.when(b)) for a, b in windows],
        unseen=list(unseen) or None,
    )
    for a, b in windows:
        until = f"{b:%H:%M}" if a.date() == b.date() else format_datetime(b)
        lines.append(f"- {format_datetime(a)} to {until}")
    if not windows:
        data.next_step = "Try a wider range."
        lines.append(f"- none: everyone is busy for the whole range. {data.next_step}")
    if unseen:
        names = ", ".join(fence.field(calendar, 100) for calendar in unseen)
        lines.append(
            f"(Could not see the calendars of {names}: "
            "they may be private or outside the user's organization.)"
        )
    return Reply("\n".join(lines), data)


def answered(
    answer: str,
    current: Mapping[str, Any],
    updated: Mapping[str, Any],
    event_id: str,
    entry: Mapping[str, Any],
    tz: dt.tzinfo,
    notify: bool,
) -> Reply:
    """``respond_to_event``' reply: the answer given, to which event, and who was told."""
    title = fence.quote(current.get("summary") or "(no title)", 80)
    said = ""
    if entry.get("comment"):
        said = f" with the comment {fence.quote(entry['comment'], 200)}"
    told = " and was emailed" if notify else "; no email was sent"
    which = ""
    applies_to: Literal["series", "occurrence"] | None = None
    if current.get("recurrence"):
        which = " This answers every occurrence; an occurrence's id answers only that one."
        applies_to = "series"
    elif current.get("recurringEventId"):
        which = " This answers only this occurrence."
        applies_to = "occurrence"
    shown = {**updated, "id": updated.get("id") or event_id, "summary": current.get("summary")}
    data = outputs.Answered(
        event=facts.event(shown, tz),
        response=answer,  # type: ignore[arg-type]  # one of RESPONSES (read_response)
        comment=Quoted(text=str(entry["comment"])) if entry.get("comment") else None,
        organizer_emailed=notify,
        applies_to=applies_to,
        next_step=NEXT,
    )
    return Reply(
        f"The user {RESPONSES[answer]} {title}, {event_span(dict(updated), tz)} "
        f"(event id {fence.field(updated.get('id') or event_id, 200)}){said}. The organizer "
        f"sees the answer in the event{told}.{which} {NEXT}",
        data,
    )


def losses(event: Mapping[str, Any], patch: Mapping[str, Any], dropped: str | None) -> list[str]:
    """What ``patch`` would destroy of ``event``, each in a few words (none: empty).

    Args:
        event: The event as Google has it.
        patch: The changes asked.
        dropped: How the new recurrence may drop occurrences, when it may.
    """
    found = []
    if blank(patch.get("summary")) and str(event.get("summary") or "").strip():
        found.append(f"blank the title {fence.quote(event.get('summary'), 80)}")
    if blank(patch.get("description")) and str(event.get("description") or "").strip():
        found.append("delete the description")
    if "attendees" in patch:
        kept = {str(a.get("email", "")).casefold() for a in patch["attendees"]}
        removed = [
            str(a.get("email"))
            for a in event.get("attendees") or []
            if isinstance(a, dict) and a.get("email") and str(a["email"]).casefold() not in kept
        ]
        if removed:
            named = ", ".join(fence.field(email, 80) for email in removed[:5])
            more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
            found.append(f"remove {len(removed)} attendee(s) ({named}{more})")
    if dropped:
        found.append(f"{fence.field(dropped, 300)}, which may drop occurrences")
    return found


def blank(value: Any) -> bool:
    """Whether a new value blanks a field (a string of spaces at most)."""
    return isinstance(value, str) and not value.strip()


def occurrence_ids(items: list[dict[str, Any]]) -> str:
    """The next occurrences of a series, for guidance (``items`` from the client)."""
    if not items:
        return "it has no occurrences from now on"
    listed = ", ".join(f"[id: {fence.field(i.get('id', '?'), 200)}]" for i in items)
    return f"its next occurrences: {listed}"


def lost(found: list[tuple[str, str]]) -> str:
    """The warning of a split about the changed or cancelled occurrences it does not keep."""
    if not found:
        return ""
    shown = ", ".join(
        f"[id: {fence.field(i, 200)}] {what}" for i, what in found[:OCCURRENCES_SHOWN]
    )
    more = f" and {len(found) - OCCURRENCES_SHOWN} more" if len(found) > OCCURRENCES_SHOWN else ""
    return (
        f" Warning: {len(found)} occurrence(s) from that one on had been changed or cancelled "
        f"alone ({shown}{more}); the new series does not keep that: cancelled ones are back "
        "and changed ones are as the series. Tell the user; redo them on the new series' "
        "occurrences if they want."
    )
