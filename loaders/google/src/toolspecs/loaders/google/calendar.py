"""``GoogleCalendarReader``: one Document per Calendar event, times in the calendar's zone."""

from __future__ import annotations

import datetime as dt
from typing import Any

from llama_index.core.schema import Document

from toolspecs.loaders.google.auth import GoogleAuth
from toolspecs.loaders.google.errors import GoogleLoaderError
from toolspecs.loaders.google.service import GoogleApiReader, execute
from toolspecs.loaders.google.times import (
    format_date,
    format_datetime,
    local_timezone,
    timezone_named,
)

CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar"]


def parse_event_time(value: dict[str, Any], tz: dt.tzinfo) -> dt.datetime | dt.date:
    """An event's ``start``/``end``: an aware datetime in ``tz``, or a date for all-day events."""
    if "dateTime" in value:
        moment = dt.datetime.fromisoformat(value["dateTime"].replace("Z", "+00:00"))
        return moment.astimezone(tz) if moment.tzinfo else moment.replace(tzinfo=tz)
    return dt.date.fromisoformat(value["date"])


def describe_span(start: dt.datetime | dt.date, end: dt.datetime | dt.date) -> str:
    """``Monday 2026-11-23 09:00 -05:00 (America/New_York) to 09:30`` or an all-day span."""
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime):
        if start.date() == end.date() and start.utcoffset() == end.utcoffset():
            return f"{format_datetime(start)} to {end:%H:%M}"
        return f"{format_datetime(start)} to {format_datetime(end)}"
    first = start if not isinstance(start, dt.datetime) else start.date()
    last_exclusive = end if not isinstance(end, dt.datetime) else end.date()
    last = last_exclusive - dt.timedelta(days=1)
    if last <= first:
        return f"{format_date(first)} (all day)"
    return f"{format_date(first)} to {format_date(last)} (all day)"


def _person(who: dict[str, Any]) -> str:
    email = who.get("email", "")
    name = who.get("displayName")
    return f"{name} <{email}>" if name else email


def describe_event(event: dict[str, Any], tz: dt.tzinfo) -> str:
    """One line an agent reads: id, title, times with weekday and offset, place, people."""
    parts = [f"[id: {event.get('id', '?')}] {event.get('summary') or '(no title)'}"]
    if "start" in event and "end" in event:
        span = describe_span(
            parse_event_time(event["start"], tz), parse_event_time(event["end"], tz)
        )
        parts[0] += f" — {span}"
    if event.get("recurringEventId") or event.get("recurrence"):
        parts.append("recurring")
    if event.get("location"):
        parts.append(f"location: {event['location']}")
    if event.get("organizer"):
        parts.append(f"organizer: {_person(event['organizer'])}")
    attendees = event.get("attendees") or []
    if attendees:
        listed = [
            f"{_person(a)} ({a['responseStatus']})" if a.get("responseStatus") else _person(a)
            for a in attendees[:15]
        ]
        more = f", and {len(attendees) - 15} more" if len(attendees) > 15 else ""
        parts.append(f"attendees: {', '.join(listed)}{more}")
    if event.get("status") == "cancelled":
        parts.append("cancelled")
    return "; ".join(parts)


class GoogleCalendarReader(GoogleApiReader):
    """Read a Google Calendar: one Document per event, for agents and for RAG.

    Args:
        auth: How to get credentials; default: :class:`GoogleAuth` with the Calendar scope
            and ``auth_kwargs`` (the LlamaHub keywords).
        transport: An ``httplib2.Http``-like object to send requests with (tests pass a
            ``FakeCalendar``).
        **auth_kwargs: ``creds``, ``credentials_path``, ``token_path``, ... for ``GoogleAuth``.
    """

    api = "calendar"
    version = "v3"

    def __init__(
        self, auth: GoogleAuth | None = None, transport: Any = None, **auth_kwargs: Any
    ) -> None:
        super().__init__(auth or GoogleAuth(scopes=CALENDAR_SCOPES, **auth_kwargs), transport)
        self._timezones: dict[str, dt.tzinfo] = {}

    def calendar_timezone(self, calendar_id: str = "primary") -> dt.tzinfo:
        """The timezone the calendar is kept in (``calendars.get``), cached.

        Raises:
            GoogleLoaderError: When this machine does not know the calendar's timezone.
        """
        if calendar_id not in self._timezones:
            found = execute(self.service.calendars().get(calendarId=calendar_id))
            name = found.get("timeZone") or ""
            try:
                tz = timezone_named(name) if name else local_timezone()
            except ValueError:
                raise GoogleLoaderError(
                    f"the calendar's timezone {name!r} is not in this machine's timezone "
                    "database (install the tzdata package)"
                ) from None
            self._timezones[calendar_id] = tz
        return self._timezones[calendar_id]

    def list_events(
        self,
        time_min: dt.datetime,
        time_max: dt.datetime | None = None,
        max_results: int = 100,
        query: str | None = None,
        calendar_id: str = "primary",
    ) -> list[dict[str, Any]]:
        """Events starting from ``time_min`` (recurring ones expanded), in start order."""
        params: dict[str, Any] = {
            "calendarId": calendar_id,
            "timeMin": time_min.isoformat(),
            "maxResults": max_results,
            "singleEvents": True,
            "orderBy": "startTime",
        }
        if time_max is not None:
            params["timeMax"] = time_max.isoformat()
        if query:
            params["q"] = query
        items: list[dict[str, Any]] = execute(self.service.events().list(**params)).get("items", [])
        return items

    def load_data(
        self,
        number_of_results: int = 100,
        start_date: dt.date | str | None = None,
        end_date: dt.date | str | None = None,
        query: str | None = None,
        calendar_id: str = "primary",
    ) -> list[Document]:
        """Events from the start of ``start_date`` (default today) in the calendar's timezone.

        Args:
            number_of_results: At most this many events.
            start_date: The first day, ISO (``"2026-11-21"``) or a date.
            end_date: The last day, included; default: no end.
            query: Free-text filter on title, description, location and attendees.
            calendar_id: Which calendar; ``"primary"`` is the user's own.

        Returns:
            One Document per event; its text is one line with id, title, times, place, people.
        """
        tz = self.calendar_timezone(calendar_id)
        first = _as_date(start_date) or dt.datetime.now(tz).date()
        time_min = dt.datetime.combine(first, dt.time.min, tzinfo=tz)
        last = _as_date(end_date)
        time_max = (
            dt.datetime.combine(last + dt.timedelta(days=1), dt.time.min, tzinfo=tz)
            if last
            else None
        )
        events = self.list_events(time_min, time_max, number_of_results, query, calendar_id)
        return [
            Document(
                text=describe_event(event, tz),
                id_=f"gcal:{event.get('id', '')}",
                metadata={
                    "event_id": event.get("id", ""),
                    "title": event.get("summary", ""),
                    "link": event.get("htmlLink", ""),
                    "calendar_id": calendar_id,
                },
            )
            for event in events
        ]


def _as_date(value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    return dt.date.fromisoformat(value.strip()[:10])
