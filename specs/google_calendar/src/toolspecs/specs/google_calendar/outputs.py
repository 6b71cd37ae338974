"""The Calendar tools' structured results: the facts of each reply, as data.

:mod:`.render` builds each model beside the text it writes. Times are ISO 8601 with the
offset the text shows (the calendar's zone, or the call's); an all-day event's are dates.
What others wrote (titles, places, descriptions, names, calendar names) is a
:class:`~toolspecs.core.structured.Quoted`, as the text fences it.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from toolspecs.core.structured import Listing, Quoted, Structure

__all__ = [
    "Answered",
    "CalendarEntry",
    "Calendars",
    "Deleted",
    "Event",
    "EventWritten",
    "Events",
    "FreeTime",
    "LostOccurrence",
    "Person",
    "Split",
    "Today",
    "Window",
]


class Person(Structure):
    """An organizer or a guest."""

    email: str
    name: Quoted | None = None
    response: str | None = Field(
        default=None, description="Google's responseStatus, e.g. accepted, needsAction."
    )


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


class Events(Listing):
    """Events in start order: ``load_data`` and ``search_events``."""

    items_field: ClassVar[str] = "events"

    calendar_id: str
    timezone: str
    query: str | None = None
    start_date: str | None = None
    end_date: str | None = Field(default=None, description="The last day, included.")
    events: list[Event]
    next_step: str | None = None


class LostOccurrence(Structure):
    """An occurrence changed or cancelled alone that a split series does not keep."""

    event_id: str
    was: Literal["changed", "cancelled"]


class Split(Structure):
    """'This and following' on a later occurrence: the old series ends, a new one starts."""

    ended_series_id: str
    ends_before: str = Field(description="The old series' occurrences stop before this.")
    lost: list[LostOccurrence] | None = None


class EventWritten(Structure):
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


class Deleted(Structure):
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


class Answered(Structure):
    """``respond_to_event``: the user's answer to an invitation."""

    event: Event
    response: Literal["accepted", "declined", "tentative"]
    comment: Quoted | None = None
    organizer_emailed: bool
    applies_to: Literal["series", "occurrence"] | None = None
    next_step: str


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


class Calendars(Structure):
    """``list_calendars``: the calendars this agent may use."""

    calendars: list[CalendarEntry]
    not_allowed: int | None = Field(
        default=None, description="More calendars in the user's list, not allowed here."
    )
    next_step: str | None = None


class Window(Structure):
    """A free window."""

    start: str
    end: str


class FreeTime(Structure):
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


class Today(Structure):
    """``get_date``: now, in the calendar's zone."""

    now: str
    date: str
    time: str
    weekday: str
    tomorrow: str
    timezone: str
    utc_offset: str
    timezone_source: str
