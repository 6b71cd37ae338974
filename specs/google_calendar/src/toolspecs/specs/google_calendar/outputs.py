"""The Calendar tools' results: the data of each reply, and the reply made from it.

Times are ISO 8601 with the offset the text shows; an all-day event's are dates. What
others wrote is :class:`~toolspecs.core.structured.Quoted` in the data and fenced in the
text. The zone the text names is private (``_tz``). Also what the tools tell the agent
besides their results: guidance, and warnings.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from llama_index.core.schema import Document
from pydantic import Field, PrivateAttr

from toolspecs.base.times import format_date, format_offset
from toolspecs.core import FixArguments, fence, format_datetime, ref
from toolspecs.core.clock import timezone_name
from toolspecs.core.prefixed import offered
from toolspecs.core.structured import Listing, Output, Quoted, Structure, quoted
from toolspecs.loaders.google import GoogleResponseError
from toolspecs.loaders.google.calendar import (
    DESCRIPTION_CHARS,
    UNREADABLE_TIMES,
    describe_span,
    parse_event_time,
)

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


# How many ids a reply about a series' occurrences names.
OCCURRENCES_SHOWN = 3


def description(text: str, source: str) -> str:
    """An event's description, fenced as third-party text naming its event."""
    return fence.block(text, source, "description")


def losses(event: Mapping[str, Any], patch: Mapping[str, Any], dropped: str | None) -> list[str]:
    """What ``patch`` would destroy of ``event``, each in a few words (none: empty)."""
    found = []
    if blank(patch.get("summary")) and str(event.get("summary") or "").strip():
        found.append(f"blank the title {fence.quote(event.get('summary'), 80)}")
    if blank(patch.get("description")) and str(event.get("description") or "").strip():
        found.append("delete the description")
    if "attendees" in patch:
        removed = [str(a["email"]) for a in missing(event.get("attendees"), patch["attendees"])]
        if removed:
            named = ", ".join(fence.field(email, 80) for email in removed[:5])
            more = f" and {len(removed) - 5} more" if len(removed) > 5 else ""
            found.append(f"remove {len(removed)} attendee(s) ({named}{more})")
    if dropped:
        found.append(f"{fence.field(dropped, 300)}, which may drop occurrences")
    return found


def missing(people: Any, others: Any) -> list[dict[str, Any]]:
    """The attendees of ``people`` (with an email) whose email ``others`` lacks, any case."""

    def emailed(found: Any) -> list[dict[str, Any]]:
        return [p for p in found or [] if isinstance(p, dict) and p.get("email")]

    there = {str(p["email"]).casefold() for p in emailed(others)}
    return [p for p in emailed(people) if str(p["email"]).casefold() not in there]


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


NEXT = "You can move on to the next step."
# The line of an event lists this many attendees, then how many more (as describe_event).
ATTENDEES_SHOWN = 15
# respond_to_event's answers, as Google names them, and how the reply says them.
RESPONSES = {"accepted": "accepted", "declined": "declined", "tentative": "tentatively accepted"}
UTC = dt.timezone.utc


def when(value: dt.datetime | dt.date) -> str:
    """A time as ISO 8601 (with its offset), or an all-day date."""
    return value.isoformat()


def moment(value: str, tz: dt.tzinfo) -> dt.datetime | dt.date:
    """An ISO time of the data in ``tz`` (as Google's was read), or its all-day date."""
    return parse_event_time({"dateTime": value} if "T" in value else {"date": value}, tz)


def shown(value: str, tz: dt.tzinfo) -> str:
    """An ISO time of the data as the text writes it (weekday, offset, zone), or its date."""
    found = moment(value, tz)
    return format_datetime(found) if isinstance(found, dt.datetime) else str(found)


def _said(note: str | None) -> str:
    return f" {note}" if note else ""


class Person(Structure):
    """An organizer or a guest."""

    email: str
    name: Quoted | None = None
    response: str | None = Field(
        default=None, description="Google's responseStatus, e.g. accepted, needsAction."
    )

    @classmethod
    def of(cls, who: Mapping[str, Any]) -> Person:
        """An organizer or guest as the Calendar API writes one."""
        name = who.get("displayName")
        answer = who.get("responseStatus")
        return cls(
            email=str(who.get("email") or ""),
            name=Quoted(text=str(name)) if name else None,
            response=str(answer) if answer else None,
        )

    def shown(self) -> str:
        """``Name <email>`` (or the email alone), fenced."""
        email = fence.field(self.email)
        return f"{fence.field(self.name.text)} <{email}>" if self.name else email


class Event(Structure):
    """One event (or one occurrence of a series)."""

    event_id: str
    title: Quoted | None = Field(default=None, description="None: the event has no title.")
    start: str | None = Field(
        default=None, description="ISO 8601 with offset; a date for an all-day event."
    )
    end: str | None = Field(
        default=None, description="An all-day event's end is the day after its last day."
    )
    all_day: bool | None = None
    series_id: str | None = Field(
        default=None, description="The recurring series this is an occurrence of."
    )
    recurrence: list[str] | None = Field(
        default=None, description="The series' rules (RRULE lines), on a series itself."
    )
    location: Quoted | None = None
    organizer: Person | None = None
    attendees: list[Person] | None = None
    more_attendees: int | None = None
    description: Quoted | None = None
    cancelled: bool | None = None
    url: str | None = None
    _tz: dt.tzinfo = PrivateAttr(default=UTC)
    _unreadable: bool = PrivateAttr(default=False)  # Google's times could not be read

    @classmethod
    def of(
        cls,
        found: Mapping[str, Any],
        tz: dt.tzinfo,
        *,
        full: bool = False,
        url: bool = False,
        description: bool = False,
    ) -> Event:
        """An event as data; ``full`` adds place, people and cancelled, ``url`` its link."""
        summary = found.get("summary")
        values: dict[str, Any] = {
            "event_id": str(found.get("id", "?")),
            "title": Quoted(text=str(summary)) if summary else None,
        }
        unreadable = False
        if "start" in found and "end" in found:
            try:
                start = parse_event_time(found["start"], tz)
                end = parse_event_time(found["end"], tz)
            except (ValueError, OverflowError):
                unreadable = True  # the text says "(times could not be read)"
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
            if isinstance(found.get("organizer"), dict) and found["organizer"]:
                values["organizer"] = Person.of(found["organizer"])
            guests = found.get("attendees")
            guests = [g for g in guests if isinstance(g, dict)] if isinstance(guests, list) else []
            if guests:
                values["attendees"] = [Person.of(g) for g in guests[:ATTENDEES_SHOWN]]
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
        event = cls(**values)
        event._tz, event._unreadable = tz, unreadable
        return event

    def named(self, limit: int = 300) -> str:
        """Its title, quoted (``«(no title)»`` without one)."""
        return fence.quote(self.title.text if self.title else "(no title)", limit)

    def span(self) -> str:
        """``Monday 2026-11-23 09:00 -05:00 (America/New_York) to 09:30``, or all-day days."""
        if self.start is None or self.end is None:
            return UNREADABLE_TIMES
        try:
            return describe_span(moment(self.start, self._tz), moment(self.end, self._tz))
        except (ValueError, OverflowError):
            return UNREADABLE_TIMES

    def line(self) -> str:
        """The one line an agent reads, from the data (the loader's ``describe_event`` words)."""
        title = fence.field(self.title.text if self.title else "(no title)")
        parts = [f"[id: {fence.field(self.event_id)}] {title}"]
        if self.start is not None or self._unreadable:
            parts[0] += f" — {self.span()}"
        if self.series_id or self.recurrence:
            parts.append("recurring")
        if self.location:
            parts.append(f"location: {fence.field(self.location.text)}")
        if self.organizer:
            parts.append(f"organizer: {self.organizer.shown()}")
        if self.attendees:
            listed = [
                f"{p.shown()} ({fence.field(p.response)})" if p.response else p.shown()
                for p in self.attendees
            ]
            more = f", and {self.more_attendees} more" if self.more_attendees else ""
            parts.append(f"attendees: {', '.join(listed)}{more}")
        if self.cancelled:
            parts.append("cancelled")
        return "; ".join(parts)

    def document(self, calendar_id: str) -> Document:
        """The event as ``load_data``'s Document: its line, then its description, fenced."""
        text = self.line()
        if self.description:
            source = f"event {fence.field(self.event_id)}"
            text += "\n" + description(self.description.text, source)
        return Document(
            text=text,
            id_=f"gcal:{self.event_id}",
            metadata={
                "event_id": self.event_id,
                "title": self.title.text if self.title else "",
                "link": self.url or "",
                "calendar_id": calendar_id,
            },
        )


class Listed(Listing):
    """Events in start order (:class:`Events`, :class:`Matches`)."""

    items_field: ClassVar[str] = "events"

    calendar_id: str
    timezone: str
    query: str | None = None
    start_date: str | None = None
    end_date: str | None = Field(default=None, description="The last day, included.")
    events: list[Event]
    next_step: str | None = None


class Events(Listed):
    """Events in start order: ``load_data``."""

    def reply(self) -> list[Document]:
        """One Document per event, as LlamaHub's ``load_data`` returns them."""
        return [event.document(self.calendar_id) for event in self.events]


class Matches(Listed):
    """Events matching words, in start order: ``search_events``."""

    def reply(self) -> str:
        """``search_events``' text: one line per event, or what to try when none matched."""
        words = fence.quote(self.query, 100)
        span = f"from {self.start_date} to {self.end_date}"
        if not self.events:
            return f"No events match {words} {span}. {self.next_step}"
        lines = [f"{len(self.events)} events match {words} {span}:"]
        lines += [event.line() for event in self.events]
        if self.next_step:
            lines.append(f"({self.next_step})")
        return "\n".join(lines)


class LostOccurrence(Structure):
    """An occurrence changed or cancelled alone that a split series does not keep."""

    event_id: str
    was: Literal["changed", "cancelled"]


class Split(Structure):
    """'This and following' on a later occurrence: the old series ends, a new one starts."""

    ended_series_id: str
    ends_before: str = Field(description="The old series' occurrences stop before this.")
    lost: list[LostOccurrence] | None = None


class EventWritten(Output):
    """``create_event`` and ``update_event``: the event as Google now has it."""

    action: Literal["created", "updated"]
    event: Event
    changed: list[str] | None = Field(default=None, description="The fields this update set.")
    overlaps: list[Event] | None = Field(
        default=None, description="Busy events the new one overlaps."
    )
    more_overlaps: int | None = None
    split: Split | None = None
    attendees_emailed: bool
    note: str | None = None
    next_step: str
    _lookup_full: bool = PrivateAttr(default=False)  # the overlaps looked for: maybe more

    @classmethod
    def of(
        cls,
        action: Literal["created", "updated"],
        event: Mapping[str, Any],
        tz: dt.tzinfo,
        notify: bool,
        note: str,
        **more: Any,
    ) -> EventWritten:
        """What a write did (``GoogleResponseError`` when Google's answer names no event id)."""
        event_id = event.get("id")
        if not isinstance(event_id, str) or not event_id:
            raise GoogleResponseError("Google's answer to the write names no event id")
        return cls(
            action=action,
            event=Event.of(event, tz, full=True, url=True),
            attendees_emailed=notify,
            note=note.strip() or None,
            next_step=NEXT,
            **more,
        )

    def reply(self) -> str:
        """The event's id, title, times and link, and what was said (emails, overlaps)."""
        event = self.event
        link = f" Link: {fence.field(event.url)}." if event.url else ""
        said = _said(self.note) + self._overlapping()
        if self.split is None:  # a split's note says it all
            said += self._emailed()
        return (
            f"Event {self.action} with id {fence.field(event.event_id)}: {event.named()}, "
            f"{event.span()}.{said}{link} {self.next_step}"
        )

    def _overlapping(self) -> str:
        if not self.overlaps:
            return ""
        named = [
            f"[id: {fence.field(e.event_id, 200)}] {e.named(60)}, {e.span()}" for e in self.overlaps
        ]
        more = self.more_overlaps or 0
        at_least = "at least " if self._lookup_full else ""
        listed = "; ".join(named) + (f"; and {at_least}{more} more" if more else "")
        busy = len(named) + more
        return f" It overlaps {at_least}{busy} event{'s' if busy > 1 else ''}: {listed}."

    def _emailed(self) -> str:
        if self.attendees_emailed:
            return " The attendees were emailed."
        return " No emails were sent to the attendees." if self.event.attendees else ""


class Deleted(Output):
    """``delete_event``: what was deleted."""

    event_id: str
    deleted: Literal["event", "occurrence", "series", "following"] = Field(
        description="following: the series' occurrences from this one on."
    )
    series_id: str | None = None
    ends_before: str | None = Field(
        default=None, description="following: the series now ends before this."
    )
    attendees_emailed: bool
    note: str | None = None
    next_step: str
    _tz: dt.tzinfo = PrivateAttr(default=UTC)

    def reply(self) -> str:
        """What was deleted, whether the attendees were emailed, and the next step."""
        told = " The attendees were emailed." if self.attendees_emailed else ""
        if self.deleted == "following":
            return (
                f"Occurrences of series {self.series_id} from "
                f"{shown(self.ends_before or '', self._tz)} on deleted: the series now ends "
                f"before it; its earlier occurrences stay.{told} {self.next_step}"
            )
        what = {
            "event": f"Event {self.event_id}",
            "occurrence": f"Occurrence {self.event_id} (only this one; the rest of its "
            "series stays)",
            "series": f"Series {self.event_id} with all its occurrences",
        }[self.deleted]
        return f"{what} deleted.{_said(self.note)}{told} {self.next_step}"


class Answered(Output):
    """``respond_to_event``: the user's answer to an invitation."""

    event: Event
    response: Literal["accepted", "declined", "tentative"]
    comment: Quoted | None = None
    organizer_emailed: bool
    applies_to: Literal["series", "occurrence"] | None = None
    next_step: str

    def reply(self) -> str:
        """The answer given, to which event, and who was told."""
        said = f" with the comment {fence.quote(self.comment.text, 200)}" if self.comment else ""
        told = " and was emailed" if self.organizer_emailed else "; no email was sent"
        which = {
            "series": " This answers every occurrence; an occurrence's id answers only that one.",
            "occurrence": " This answers only this occurrence.",
            None: "",
        }[self.applies_to]
        event = self.event
        return (
            f"The user {RESPONSES[self.response]} {event.named(80)}, {event.span()} "
            f"(event id {fence.field(event.event_id, 200)}){said}. The organizer sees the "
            f"answer in the event{told}.{which} {self.next_step}"
        )


class CalendarEntry(Structure):
    """An allowed calendar, as the user's calendar list has it."""

    calendar_id: str
    in_list: bool = Field(
        description="False: not in the user's list; shared with the account when it has "
        "a name, else not found."
    )
    list_id: str | None = Field(
        default=None, description="The list's own id, when calendar_id is an alias."
    )
    name: Quoted | None = None
    timezone: str | None = None
    access_role: str | None = None
    read_only: bool | None = None
    primary: bool | None = None
    default: bool | None = None
    _shared: bool = PrivateAttr(default=False)  # not in the list, but Google knows it

    def line(self) -> str:
        """The calendar's line: id, name, zone, access, or that Google does not know it."""
        listed = f"- [id: {fence.field(self.calendar_id, 200)}]"
        is_default = ", the default" if self.default else ""
        name = fence.quote(self.name.text if self.name else "?", 80)
        zone = fence.field(self.timezone or "?", 60)
        if self._shared:
            return (
                f"{listed} {name} — timezone {zone}; shared with this account, "
                f"not in its calendar list{is_default}"
            )
        if not self.in_list:
            return (
                f"{listed} not found: Google knows no such calendar for this account (check "
                f"the id, or ask the owner to share it){is_default}."
            )
        own = f" ({fence.field(self.list_id, 200)})" if self.list_id else ""
        role = fence.field(self.access_role or "unknown", 40)
        read_only = " (read only)" if self.read_only else ""
        primary = ", primary" if self.primary else ""
        return (
            f"{listed}{own} {name} — timezone {zone}, access {role}{read_only}{primary}{is_default}"
        )


class Calendars(Output):
    """``list_calendars``: the calendars this agent may use."""

    calendars: list[CalendarEntry]
    not_allowed: int | None = Field(
        default=None, description="More calendars in the user's list, not allowed here."
    )
    next_step: str | None = None

    def reply(self) -> str:
        """Each allowed calendar, and how many more the user's list has."""
        lines = ["Calendars this agent may use:", *(entry.line() for entry in self.calendars)]
        if self.not_allowed:
            others = self.not_allowed
            lines.append(
                f"The user's list has {others} more calendar{'s' if others > 1 else ''} this "
                f"agent may not use. {self.next_step}"
            )
        return "\n".join(lines)


class Window(Structure):
    """A free window."""

    start: str
    end: str


class FreeTime(Output):
    """``find_free_time``: the windows when everyone asked is free."""

    start: str
    end: str
    timezone: str
    min_minutes: int
    attendees: list[str]
    windows: list[Window]
    unseen: list[str] | None = Field(
        default=None, description="Calendars that could not be seen (private or external)."
    )
    next_step: str | None = None
    _tz: dt.tzinfo = PrivateAttr(default=UTC)

    def reply(self) -> str:
        """The free windows, and whose calendars could not be seen."""
        who = "you" if not self.attendees else "you and " + ", ".join(self.attendees)
        lines = [
            f"Free windows of at least {self.min_minutes} minutes for {who}, "
            f"{shown(self.start, self._tz)} to {shown(self.end, self._tz)}:"
        ]
        for window in self.windows:
            start = dt.datetime.fromisoformat(window.start).astimezone(self._tz)
            end = dt.datetime.fromisoformat(window.end).astimezone(self._tz)
            until = f"{end:%H:%M}" if start.date() == end.date() else format_datetime(end)
            lines.append(f"- {format_datetime(start)} to {until}")
        if not self.windows:
            lines.append(f"- none: everyone is busy for the whole range. {self.next_step}")
        if self.unseen:
            names = ", ".join(fence.field(calendar, 100) for calendar in self.unseen)
            lines.append(
                f"(Could not see the calendars of {names}: "
                "they may be private or outside the user's organization.)"
            )
        return "\n".join(lines)


class Today(Output):
    """``get_date``: now, in the calendar's zone."""

    now: str
    date: str
    time: str
    weekday: str
    tomorrow: str
    timezone: str
    utc_offset: str
    timezone_source: str

    @classmethod
    def of(cls, moment: dt.datetime, tz: dt.tzinfo, source: str) -> Today:
        """``moment`` (now, in ``tz``) as data; ``source`` says where the zone came from."""
        offset = format_offset(moment)
        return cls(
            now=moment.isoformat(timespec="seconds"),
            date=moment.date().isoformat(),
            time=f"{moment:%H:%M}{offset}",  # a zoneinfo time alone has no offset
            weekday=f"{moment:%A}",
            tomorrow=(moment.date() + dt.timedelta(days=1)).isoformat(),
            timezone=timezone_name(tz),
            utc_offset=offset,
            timezone_source=source,
        )

    def reply(self) -> str:
        """As ``toolspecs.core.clock.describe_now`` says it, then the zone and its source."""
        tomorrow = format_date(dt.date.fromisoformat(self.tomorrow))
        return (
            f"Today is {self.weekday}, {self.date}. The time is {self.time[:5]} in "
            f"{self.timezone} (UTC{self.utc_offset}). Tomorrow is {tomorrow}. "
            f"(timezone: {self.timezone}, {self.timezone_source})"
        )
