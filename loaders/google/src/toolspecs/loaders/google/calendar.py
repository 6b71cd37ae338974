"""``GoogleCalendarReader``: the Calendar client, and one Document per event for RAG.

Each method makes one Calendar request (or a bounded run of pages) and returns plain data
(dicts as the API writes them). Titles, places, names and descriptions are written by
whoever made the event: one-line values go through ``field`` (default: one line, so a
title cannot start a line of its own), descriptions through ``block``; a tool framework
passes its own fences. An event in a shape this reader cannot read gets a note in its line.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from llama_index.core.schema import Document

from toolspecs.base.times import format_date, format_datetime, timezone_named
from toolspecs.loaders.google.auth import GoogleAuth
from toolspecs.loaders.google.errors import GoogleApiError, GoogleLoaderError, GoogleResponseError
from toolspecs.loaders.google.service import GoogleApiReader

UNREADABLE_TIMES = "(times could not be read)"


def one_line(value: object) -> str:
    """``value`` on one line (every run of whitespace, line breaks included, as one space)."""
    return " ".join(str(value).split())


def as_is(text: str, source: str) -> str:
    """A description as it is (the default ``block``; ``source`` is e.g. ``"event abc"``)."""
    return text


def parse_event_time(value: Any, tz: dt.tzinfo) -> dt.datetime | dt.date:
    """An event's ``start``/``end``: an aware datetime in ``tz``, or a date for all-day events."""
    if not isinstance(value, dict):
        raise ValueError(f"not an event time: {type(value).__name__}")
    if isinstance(value.get("dateTime"), str):
        moment = dt.datetime.fromisoformat(value["dateTime"].replace("Z", "+00:00"))
        if moment.tzinfo is None:
            return moment.replace(tzinfo=tz)
        try:
            return moment.astimezone(tz)
        except OverflowError:
            return moment
    if isinstance(value.get("date"), str):
        return dt.date.fromisoformat(value["date"])
    raise ValueError("an event time without dateTime or date")


def describe_span(start: dt.datetime | dt.date, end: dt.datetime | dt.date) -> str:
    """``Monday 2026-11-23 09:00 -05:00 (America/New_York) to 09:30`` or an all-day span."""
    if isinstance(start, dt.datetime) and isinstance(end, dt.datetime):
        if start.date() == end.date() and start.utcoffset() == end.utcoffset():
            return f"{format_datetime(start)} to {end:%H:%M}"
        return f"{format_datetime(start)} to {format_datetime(end)}"
    first = start if not isinstance(start, dt.datetime) else start.date()
    last_exclusive = end if not isinstance(end, dt.datetime) else end.date()
    if last_exclusive <= first:
        return f"{format_date(first)} (all day)"
    last = last_exclusive - dt.timedelta(days=1)
    if last <= first:
        return f"{format_date(first)} (all day)"
    return f"{format_date(first)} to {format_date(last)} (all day)"


def event_span(event: dict[str, Any], tz: dt.tzinfo) -> str:
    """The event's times as :func:`describe_span` writes them, or a note that they cannot be."""
    try:
        return describe_span(
            parse_event_time(event["start"], tz), parse_event_time(event["end"], tz)
        )
    except (KeyError, ValueError, OverflowError):
        return UNREADABLE_TIMES


def _person(who: dict[str, Any], field: Callable[[object], str]) -> str:
    email = field(who.get("email") or "")
    name = who.get("displayName")
    return f"{field(name)} <{email}>" if name else email


def describe_event(
    event: dict[str, Any], tz: dt.tzinfo, field: Callable[[object], str] = one_line
) -> str:
    """One line: id, title, times (weekday, offset) in ``tz``, place, people (each ``field``)."""
    parts = [f"[id: {field(event.get('id', '?'))}] {field(event.get('summary') or '(no title)')}"]
    if "start" in event and "end" in event:
        parts[0] += f" — {event_span(event, tz)}"
    if event.get("recurringEventId") or event.get("recurrence"):
        parts.append("recurring")
    if event.get("location"):
        parts.append(f"location: {field(event['location'])}")
    if isinstance(event.get("organizer"), dict) and event["organizer"]:
        parts.append(f"organizer: {_person(event['organizer'], field)}")
    attendees = event.get("attendees")
    attendees = [a for a in attendees if isinstance(a, dict)] if isinstance(attendees, list) else []
    if attendees:
        listed = [
            f"{_person(a, field)} ({field(a['responseStatus'])})"
            if a.get("responseStatus")
            else _person(a, field)
            for a in attendees[:15]
        ]
        more = f", and {len(attendees) - 15} more" if len(attendees) > 15 else ""
        parts.append(f"attendees: {', '.join(listed)}{more}")
    if event.get("status") == "cancelled":
        parts.append("cancelled")
    return "; ".join(parts)


CALENDAR_SCOPES = ["https://www.googleapis.com/auth/calendar"]
# The most characters of one event's description a Document shows.
DESCRIPTION_CHARS = 1000
# Pages of events.list followed for one list_events: Google may send short or empty
# pages with a nextPageToken; a bound keeps a call from walking a huge calendar.
LIST_PAGES = 5


class GoogleCalendarReader(GoogleApiReader):
    """Read a Google Calendar: one Document per event, for agents and for RAG.

    Args:
        auth: How to get credentials; default: :class:`GoogleAuth` with the Calendar scope
            and ``auth_kwargs`` (the LlamaHub keywords: ``creds``, ``token_path``, ...).
        transport: As :class:`~.service.GoogleApiReader`'s (tests pass a ``FakeCalendar``).
        time_left: As :class:`~.service.GoogleApiReader`'s (default 30 s).
        field: How a one-line third-party value (title, place, name) is shown.
        block: How a description is shown, given its text and source (``"event <id>"``).
        client_options: As :class:`~.service.GoogleApiReader`'s.
    """

    api = "calendar"
    version = "v3"

    def __init__(
        self,
        auth: GoogleAuth | None = None,
        transport: Any = None,
        time_left: Callable[[], float | None] | None = None,
        field: Callable[[object], str] = one_line,
        block: Callable[[str, str], str] = as_is,
        client_options: Any = None,
        **auth_kwargs: Any,
    ) -> None:
        super().__init__(
            auth or GoogleAuth(scopes=CALENDAR_SCOPES, **auth_kwargs),
            transport,
            time_left=time_left,
            client_options=client_options,
        )
        self.field = field
        self.block = block
        self._timezones: dict[str, dt.tzinfo] = {}

    def calendar_timezone(self, calendar_id: str = "primary") -> dt.tzinfo:
        """The timezone the calendar is kept in (``calendars.get``), cached."""
        if calendar_id not in self._timezones:
            found = self.execute(self.service.calendars().get(calendarId=calendar_id))
            name = found.get("timeZone")
            if not isinstance(name, str) or not name.strip():
                raise GoogleResponseError("Google's answer about the calendar has no timeZone")
            try:
                tz = timezone_named(name)
            except ValueError:
                raise GoogleLoaderError(
                    f"the calendar's timezone {self.field(name)[:80]!r} is not in this "
                    "machine's timezone database (install the tzdata package)"
                ) from None
            self._timezones[calendar_id] = tz
        return self._timezones[calendar_id]

    def shared_calendar(self, calendar_id: str) -> dict[str, Any] | None:
        """A calendar not in the caller's list, by ``calendars.get``; ``None`` on HTTP 404."""
        try:
            found: dict[str, Any] = self.execute(
                self.service.calendars().get(calendarId=calendar_id)
            )
        except GoogleApiError as exc:
            if exc.status == 404:
                return None
            raise
        return found

    def list_events(
        self,
        time_min: dt.datetime,
        time_max: dt.datetime | None = None,
        max_results: int = 100,
        query: str | None = None,
        calendar_id: str = "primary",
    ) -> list[dict[str, Any]]:
        """Events from ``time_min`` (recurring ones expanded), in start order."""
        params: dict[str, Any] = {
            "calendarId": calendar_id,
            "timeMin": time_min.isoformat(),
            "singleEvents": True,
            "orderBy": "startTime",
        }
        if time_max is not None:
            params["timeMax"] = time_max.isoformat()
        if query:
            params["q"] = query
        events = self._pages(
            lambda token, taken: self.service.events().list(
                **params, maxResults=max_results - taken, pageToken=token
            ),
            LIST_PAGES,
            "Google's list of events is not a list",
            max_results,
        )
        return events[:max_results]

    def known_timezone(self, calendar_id: str = "primary") -> dt.tzinfo | None:
        """The calendar's timezone if it was read already, else ``None`` (no request)."""
        return self._timezones.get(calendar_id)

    # -- events: each method is one request (or a bounded run of pages) ----------------

    def get_event(self, calendar_id: str, event_id: str) -> dict[str, Any]:
        """The event (or occurrence) ``event_id`` (``events.get``)."""
        return self.execute(self.service.events().get(calendarId=calendar_id, eventId=event_id))

    def insert_event(
        self, calendar_id: str, event: dict[str, Any], send_updates: str = "none"
    ) -> dict[str, Any]:
        """Create ``event`` (``events.insert``); ``send_updates``: none, all or externalOnly."""
        return self.execute(
            self.service.events().insert(
                calendarId=calendar_id, body=event, sendUpdates=send_updates
            )
        )

    def patch_event(
        self,
        calendar_id: str,
        event_id: str,
        changes: dict[str, Any],
        send_updates: str = "none",
    ) -> dict[str, Any]:
        """Change the fields in ``changes`` of an event (``events.patch``); the event after."""
        return self.execute(
            self.service.events().patch(
                calendarId=calendar_id, eventId=event_id, body=changes, sendUpdates=send_updates
            )
        )

    def update_event(
        self,
        calendar_id: str,
        event_id: str,
        event: dict[str, Any],
        send_updates: str = "none",
    ) -> dict[str, Any]:
        """Replace an event with ``event`` (``events.update``); the event after."""
        return self.execute(
            self.service.events().update(
                calendarId=calendar_id, eventId=event_id, body=event, sendUpdates=send_updates
            )
        )

    def delete_event(self, calendar_id: str, event_id: str, send_updates: str = "none") -> None:
        """Delete an event, or cancel one occurrence of a series (``events.delete``)."""
        self.execute(
            self.service.events().delete(
                calendarId=calendar_id, eventId=event_id, sendUpdates=send_updates
            )
        )

    def list_instances(
        self,
        calendar_id: str,
        series_id: str,
        *,
        time_min: dt.datetime | None = None,
        time_max: dt.datetime | None = None,
        max_results: int = 2500,
        show_deleted: bool = False,
        pages: int = 1,
    ) -> list[dict[str, Any]]:
        """A series' occurrences (``events.instances``), following at most ``pages`` pages."""
        window: dict[str, Any] = {}
        if time_min is not None:
            window["timeMin"] = time_min.isoformat()
        if time_max is not None:
            window["timeMax"] = time_max.isoformat()
        if show_deleted:
            window["showDeleted"] = True
        return self._pages(
            lambda token, _: self.service.events().instances(
                calendarId=calendar_id,
                eventId=series_id,
                maxResults=max_results,
                pageToken=token,
                **window,
            ),
            pages,
            "Google's list of occurrences is not a list",
        )

    # -- calendars -----------------------------------------------------------------

    def list_calendars(self, pages: int = 4) -> list[dict[str, Any]]:
        """The user's calendar list (``calendarList.list``), at most ``pages`` pages of 250."""
        return self._pages(
            lambda token, _: self.service.calendarList().list(maxResults=250, pageToken=token),
            pages,
            "Google's calendar list has no items",
            required=True,
        )

    def _pages(
        self,
        request: Callable[[str | None, int], Any],
        pages: int,
        unreadable: str,
        most: int | None = None,
        required: bool = False,
    ) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        token = None
        for _ in range(pages):
            answer = self.execute(request(token, len(found)))
            items = answer.get("items", None if required else [])
            if not isinstance(items, list):
                raise GoogleResponseError(unreadable)
            found += [item for item in items if isinstance(item, dict)]
            token = answer.get("nextPageToken")
            if not token or (most is not None and len(found) >= most):
                break
        return found

    def free_busy(
        self,
        time_min: dt.datetime,
        time_max: dt.datetime,
        calendar_ids: list[str],
        time_zone: str | None = None,
    ) -> dict[str, list[tuple[dt.datetime, dt.datetime]] | None]:
        """Each calendar's busy intervals (``freebusy.query``); ``None``: Google cannot see it."""
        body: dict[str, Any] = {"timeMin": time_min.isoformat(), "timeMax": time_max.isoformat()}
        if time_zone is not None:
            body["timeZone"] = time_zone
        body["items"] = [{"id": c} for c in calendar_ids]
        answer = self.execute(self.service.freebusy().query(body=body))
        calendars = answer.get("calendars")
        if not isinstance(calendars, dict):
            raise GoogleResponseError("Google's free/busy answer has no calendars")
        found: dict[str, list[tuple[dt.datetime, dt.datetime]] | None] = {}
        try:
            for calendar, info in calendars.items():
                if info.get("errors"):
                    found[calendar] = None
                    continue
                found[calendar] = [
                    (_instant(slot["start"]), _instant(slot["end"]))
                    for slot in info.get("busy") or []
                ]
        except (AttributeError, KeyError, TypeError, ValueError):
            raise GoogleResponseError(
                "a busy time in Google's free/busy answer is unreadable"
            ) from None
        return found

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
            One Document per event: its line, then its description, if any.
        """
        tz, events = self.days_events(
            _as_date(start_date), _as_date(end_date), number_of_results, query, calendar_id
        )
        return [event_document(e, tz, calendar_id, self.field, self.block) for e in events]

    def days_events(
        self,
        first: dt.date | None,
        last: dt.date | None,
        max_results: int = 100,
        query: str | None = None,
        calendar_id: str = "primary",
    ) -> tuple[dt.tzinfo, list[dict[str, Any]]]:
        """The calendar's zone, and its events from day ``first`` (default today) to ``last``."""
        tz = self.calendar_timezone(calendar_id)
        first = first or dt.datetime.now(tz).date()
        time_min = dt.datetime.combine(first, dt.time.min, tzinfo=tz)
        time_max = None
        if last is not None and last < dt.date.max:  # the last day there is: no end
            time_max = dt.datetime.combine(last + dt.timedelta(days=1), dt.time.min, tzinfo=tz)
        return tz, self.list_events(time_min, time_max, max_results, query, calendar_id)


def event_document(
    event: dict[str, Any],
    tz: dt.tzinfo,
    calendar_id: str,
    field: Callable[[object], str] = one_line,
    block: Callable[[str, str], str] = as_is,
) -> Document:
    """One event as a Document: its line, then its description (cut), if it has one."""
    event_id = str(event.get("id", ""))
    text = describe_event(event, tz, field)
    description = event.get("description")
    if isinstance(description, str) and description.strip():
        if len(description) > DESCRIPTION_CHARS:
            description = description[: DESCRIPTION_CHARS - 1] + "…"
        text += "\n" + block(description, f"event {field(event_id)}")
    return Document(
        text=text,
        id_=f"gcal:{event_id}",
        metadata={
            "event_id": event_id,
            "title": str(event.get("summary", "")),
            "link": str(event.get("htmlLink", "")),
            "calendar_id": calendar_id,
        },
    )


def _instant(text: Any) -> dt.datetime:
    if not isinstance(text, str):
        raise ValueError(f"not a time: {type(text).__name__}")
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))


def _as_date(value: dt.date | str | None) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value.date() if isinstance(value, dt.datetime) else value
    return dt.date.fromisoformat(value.strip()[:10])
