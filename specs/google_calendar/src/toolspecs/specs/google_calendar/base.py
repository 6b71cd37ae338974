"""The Google Calendar tool spec: the user's time, not the server's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from llama_index.core.schema import Document

from toolspecs.core import (
    FixArguments,
    Range,
    Timezone,
    format_datetime,
    resolve_timezone,
    tool,
)
from toolspecs.core.clock import describe_now, timezone_name, timezone_setting
from toolspecs.loaders.google import (
    CALENDAR_SCOPES,
    GoogleAuth,
    GoogleCalendarReader,
    execute,
)
from toolspecs.loaders.google.calendar import describe_span, parse_event_time
from toolspecs.specs.google_base import GoogleToolSpec, parse_addresses
from toolspecs.specs.google_calendar.recurrence import to_rrule

SCOPES = CALENDAR_SCOPES
NEXT = "You can move on to the next step."
IDS_HINT = "Get event ids with load_data (each line starts with [id: ...])."


class GoogleCalendarToolSpec(GoogleToolSpec):
    """Google Calendar tools: a drop-in for LlamaHub's ``GoogleCalendarToolSpec``.

    Args:
        creds: Ready Google credentials (used as they are).
        credentials_path: The OAuth client file for the first authorization.
        token_path: Where the user's token is kept; default ``token.calendar.json``.
        service_account_key_path: A service account key file (only when named).
        service_account_key: A service account key as a dict.
        authorized_user_info: The user's authorized info as a dict.
        is_cloud: Do not write the token file.
        subject: With a service account: the user to act for (domain-wide delegation).
        auth_flow: ``"local"`` (browser), ``"console"`` (headless machines) or ``"none"``
            (never start a login: servers).
        oauth_port: The port of the local OAuth redirect.
        timezone: Read and show times in this IANA zone instead of the calendar's.
        calendar_id: The default calendar; ``"primary"`` is the user's own.
        allow_destructive: Add ``delete_event`` to the tools.
        transport: An ``httplib2.Http``-like object to send requests with (tests pass a
            ``toolspecs.loaders.google.testing.FakeCalendar``).

    Raises:
        ValueError: When ``timezone`` is not an IANA timezone name (a
            ``ConfigurationError``), or ``auth_flow`` is not one of its three values.
    """

    spec_functions = [  # noqa: RUF012
        "load_data",
        "create_event",
        "update_event",
        "delete_event",  # destructive: offered with allow_destructive=True
        "find_free_time",
        "get_date",
    ]
    service_name: ClassVar[str] = "Google Calendar"
    ids_hint: ClassVar[str] = IDS_HINT
    reader: GoogleCalendarReader

    def __init__(
        self,
        creds: Any = None,
        credentials_path: str = "credentials.json",
        token_path: str | None = None,
        service_account_key_path: str | None = None,
        service_account_key: dict[str, Any] | None = None,
        authorized_user_info: dict[str, Any] | None = None,
        is_cloud: bool = False,
        subject: str | None = None,
        auth_flow: Literal["local", "console", "none"] = "local",
        oauth_port: int = 8080,
        timezone: str | None = None,
        calendar_id: str = "primary",
        allow_destructive: bool = False,
        transport: Any = None,
    ) -> None:
        if timezone:
            timezone_setting(timezone)  # a wrong name fails here, for the person
        auth = GoogleAuth(
            scopes=SCOPES,
            creds=creds,
            credentials_path=credentials_path,
            token_path=token_path,
            service_account_key_path=service_account_key_path,
            service_account_key=service_account_key,
            authorized_user_info=authorized_user_info,
            is_cloud=is_cloud,
            subject=subject,
            auth_flow=auth_flow,
            oauth_port=oauth_port,
        )
        self.reader = GoogleCalendarReader(auth=auth, transport=transport)
        self.timezone = timezone
        self.calendar_id = calendar_id
        self.allow_destructive = allow_destructive

    def spec_timezone(self, calendar_id: str | None = None) -> dt.tzinfo:
        """The timezone times are read and shown in: ``timezone`` if set, else the calendar's."""
        if self.timezone:
            return resolve_timezone(self.timezone)
        return self.reader.calendar_timezone(calendar_id or self.calendar_id)

    def zone_for_call(self, arguments: Mapping[str, Any]) -> dt.tzinfo:
        """A call's times are in the zone of the calendar it names (or the default one)."""
        calendar = arguments.get("calendar_id")
        return self.spec_timezone(calendar if isinstance(calendar, str) and calendar else None)

    # -- tools -------------------------------------------------------------------

    @tool(read_only=True, open_world=False)
    def get_date(self) -> str:
        """Get today's date, weekday, time and the calendar's timezone with its UTC offset.

        Call it before working out dates such as 'tomorrow' or 'next Friday'.
        """
        return describe_now(self.spec_timezone())

    @tool(
        aliases={
            "max_results": "number_of_results",
            "limit": "number_of_results",
            "n": "number_of_results",
            "from_date": "start_date",
            "start": "start_date",
            "to_date": "end_date",
            "end": "end_date",
            "search": "query",
            "q": "query",
        },
        large_output=True,
        empty="No events in that range. Widen the dates, or drop the query.",
        read_only=True,
        open_world=False,
    )
    def load_data(
        self,
        number_of_results: Annotated[int, Range(1, 250)] | None = 100,
        start_date: dt.date | None = None,
        end_date: dt.date | None = None,
        query: str | None = None,
        calendar_id: str | None = None,
    ) -> list[Document]:
        """List calendar events, one line each with its id, times (weekday, offset) and people.

        Args:
            number_of_results: At most this many events (default 100).
            start_date: First day, e.g. '2026-11-21' or 'next Monday'; default today.
            end_date: Last day, included; default no end.
            query: Only events matching these words.
            calendar_id: Calendar id; default the user's own.
        """
        if start_date and end_date and end_date < start_date:
            raise FixArguments(
                f"end_date {end_date} is before start_date {start_date}.",
                "Send an end_date on or after the start_date.",
            )
        return self.reader.load_data(
            number_of_results=number_of_results or 100,
            start_date=start_date,
            end_date=end_date,
            query=query,
            calendar_id=calendar_id or self.calendar_id,
        )

    @tool(
        aliases={
            "summary": "title",
            "name": "title",
            "start": "start_datetime",
            "end": "end_datetime",
            "start_time": "start_datetime",
            "end_time": "end_datetime",
            "guests": "attendees",
            "invitees": "attendees",
            "rrule": "recurrence",
            "repeat": "recurrence",
            "time_zone": "timezone",
        },
        # Attendees are invited: the event reaches other people's calendars.
        destructive=False,
        idempotent=False,
        open_world=True,
    )
    def create_event(
        self,
        title: str | None = None,
        description: str | None = None,
        location: str | None = None,
        start_datetime: dt.datetime | None = None,
        end_datetime: dt.datetime | None = None,
        attendees: list[str] | None = None,
        all_day: bool = False,
        recurrence: str | None = None,
        timezone: Timezone | None = None,
        calendar_id: str | None = None,
    ) -> str:
        """Create a calendar event and return its id and link.

        Times without an offset are in the calendar's timezone.

        Args:
            title: The event's title.
            description: Details.
            location: Where.
            start_datetime: Start, e.g. '2026-11-21T16:00' or 'tomorrow 4pm'.
            end_datetime: End; default one hour after the start.
            attendees: Emails to invite, e.g. ['ada@example.com'].
            all_day: A whole-day event (only the dates count).
            recurrence: An RRULE or words, e.g. 'every Monday until 2026-12-31'.
            timezone: IANA zone for the times, e.g. 'Europe/Paris'.
            calendar_id: Calendar id; default the user's own.
        """
        if start_datetime is None:
            raise FixArguments(
                "create_event needs start_datetime.",
                "Send it, e.g. '2026-11-21T16:00' (get_date helps with words like 'tomorrow').",
            )
        calendar = calendar_id or self.calendar_id
        tz = resolve_timezone(timezone) if timezone else self.spec_timezone(calendar)
        start, end, note = _span(start_datetime, end_datetime, tz, all_day)
        body: dict[str, Any] = {
            "summary": title or "(no title)",
            **_times(start, end, tz, all_day),
        }
        if description:
            body["description"] = description
        if location:
            body["location"] = location
        if attendees:
            body["attendees"] = _attendees(attendees)
        if recurrence:
            body["recurrence"] = to_rrule(recurrence, tz)
        created = execute(self.service.events().insert(calendarId=calendar, body=body))
        return _mutation("created", created, tz, note)

    @tool(
        aliases={
            "id": "event_id",
            "summary": "title",
            "start": "start_datetime",
            "end": "end_datetime",
            "guests": "attendees",
            "rrule": "recurrence",
        },
        # It changes only the fields it is given, and the agent saw the old values.
        destructive=False,
        idempotent=True,
        open_world=True,
    )
    def update_event(
        self,
        event_id: str,
        title: str | None = None,
        description: str | None = None,
        location: str | None = None,
        start_datetime: dt.datetime | None = None,
        end_datetime: dt.datetime | None = None,
        attendees: list[str] | None = None,
        recurrence: str | None = None,
        calendar_id: str | None = None,
    ) -> str:
        """Change an event: only the fields given change; a moved start keeps the duration.

        Args:
            event_id: The event's id (from load_data).
            title: New title.
            description: New details.
            location: New place.
            start_datetime: New start, e.g. 'Friday 10am'.
            end_datetime: New end.
            attendees: The full new list of emails, e.g. ['ada@example.com'].
            recurrence: New RRULE or words, e.g. 'every weekday'.
            calendar_id: Calendar id; default the user's own.
        """
        calendar = calendar_id or self.calendar_id
        tz = self.spec_timezone(calendar)
        patch: dict[str, Any] = {}
        for key, value in (
            ("summary", title),
            ("description", description),
            ("location", location),
        ):
            if value is not None:
                patch[key] = value
        note = ""
        if start_datetime is not None or end_datetime is not None:
            current = execute(self.service.events().get(calendarId=calendar, eventId=event_id))
            all_day = "date" in current.get("start", {})
            old_start = _event_moment(current["start"], tz)
            old_end = _event_moment(current["end"], tz)
            start = start_datetime or old_start
            if end_datetime is None and start_datetime is not None:
                end_datetime = _later(start, _elapsed(old_start, old_end))
                note = " It keeps its duration."
            start, end, _ = _span(start, end_datetime or old_end, tz, all_day)
            patch.update(_times(start, end, tz, all_day))
        if attendees is not None:
            patch["attendees"] = _attendees(attendees)
        if recurrence is not None:
            patch["recurrence"] = to_rrule(recurrence, tz)
        if not patch:
            raise FixArguments(
                "update_event was given nothing to change.",
                "Send at least one of title, description, location, start_datetime, "
                "end_datetime, attendees or recurrence.",
            )
        updated = execute(
            self.service.events().patch(calendarId=calendar, eventId=event_id, body=patch)
        )
        return _mutation("updated", updated, tz, note)

    @tool(aliases={"id": "event_id"}, destructive=True, idempotent=True, open_world=True)
    def delete_event(self, event_id: str, calendar_id: str | None = None) -> str:
        """Delete an event. This cannot be undone: confirm with the user first.

        Args:
            event_id: The event's id (from load_data).
            calendar_id: Calendar id; default the user's own.
        """
        execute(
            self.service.events().delete(
                calendarId=calendar_id or self.calendar_id, eventId=event_id
            )
        )
        return f"Event {event_id} deleted. {NEXT}"

    @tool(
        aliases={
            "start": "start_datetime",
            "end": "end_datetime",
            "from": "start_datetime",
            "to": "end_datetime",
            "emails": "attendees",
            "duration": "min_minutes",
            "minutes": "min_minutes",
        },
        read_only=True,
        open_world=False,
    )
    def find_free_time(
        self,
        start_datetime: dt.datetime,
        end_datetime: dt.datetime,
        attendees: list[str] | None = None,
        min_minutes: Annotated[int, Range(5, 1440)] = 30,
    ) -> str:
        """Find free time windows between two times, for the user and optional attendees.

        Args:
            start_datetime: From, e.g. 'tomorrow 9am'.
            end_datetime: Until, e.g. 'tomorrow 5pm'.
            attendees: Emails whose calendars must also be free, e.g. ['ada@example.com'].
            min_minutes: Shortest window worth listing (default 30).
        """
        tz = self.spec_timezone()
        start, end, _ = _span(start_datetime, end_datetime, tz, False)
        if end_datetime is None or end <= start:
            raise FixArguments("end_datetime must be after start_datetime.")
        people = [email for _, email in parse_addresses(attendees or [])]
        calendars = [self.calendar_id, *people]
        body = {
            "timeMin": start.isoformat(),
            "timeMax": end.isoformat(),
            "timeZone": timezone_name(tz),
            "items": [{"id": c} for c in calendars],
        }
        answer = execute(self.service.freebusy().query(body=body))
        busy: list[tuple[dt.datetime, dt.datetime]] = []
        unknown: list[str] = []
        for calendar, info in answer.get("calendars", {}).items():
            if info.get("errors"):
                unknown.append(calendar)
                continue
            for slot in info.get("busy", []):
                busy.append((_instant(slot["start"], tz), _instant(slot["end"], tz)))
        windows = _free_windows(start, end, busy, dt.timedelta(minutes=min_minutes))
        who = "you" if not people else "you and " + ", ".join(people)
        lines = [
            f"Free windows of at least {min_minutes} minutes for {who}, "
            f"{format_datetime(start)} to {format_datetime(end)}:"
        ]
        for a, b in windows:
            until = f"{b:%H:%M}" if a.date() == b.date() else format_datetime(b)
            lines.append(f"- {format_datetime(a)} to {until}")
        if not windows:
            lines.append("- none: everyone is busy for the whole range. Try a wider range.")
        if unknown:
            lines.append(
                f"(Could not see the calendars of {', '.join(unknown)}: "
                "they may be private or outside the user's organization.)"
            )
        return "\n".join(lines)


# -- helpers ---------------------------------------------------------------------


def _span(
    start: dt.datetime, end: dt.datetime | None, tz: dt.tzinfo, all_day: bool
) -> tuple[dt.datetime, dt.datetime, str]:
    """Start and end in ``tz``; a missing end is one hour (or one day) later, and said so.

    The times arrive aware: the argument model read naive ones in the call's zone.
    """
    note = ""
    if end is None:
        end = _later(start, dt.timedelta(days=1) if all_day else dt.timedelta(hours=1))
        note = (
            " No end time was given, so it lasts one day."
            if all_day
            else (" No end time was given, so it ends one hour after the start.")
        )
    if end <= start and not (all_day and end.date() >= start.date()):
        raise FixArguments(
            f"The end ({format_datetime(end, tz)}) is not after the start "
            f"({format_datetime(start, tz)}).",
            "Send an end_datetime after the start_datetime.",
        )
    return start.astimezone(tz), end.astimezone(tz), note


def _elapsed(start: dt.datetime, end: dt.datetime) -> dt.timedelta:
    """Real time between two aware moments (Python subtracts wall clocks in one zone)."""
    return end.astimezone(dt.timezone.utc) - start.astimezone(dt.timezone.utc)


def _later(moment: dt.datetime, delta: dt.timedelta) -> dt.datetime:
    """``moment`` plus real time, in its own zone: right across a DST change."""
    later = moment.astimezone(dt.timezone.utc) + delta
    return later.astimezone(moment.tzinfo) if moment.tzinfo is not None else later


def _times(start: dt.datetime, end: dt.datetime, tz: dt.tzinfo, all_day: bool) -> dict[str, Any]:
    if all_day:
        last = max(end.date(), start.date() + dt.timedelta(days=1))
        return {"start": {"date": start.date().isoformat()}, "end": {"date": last.isoformat()}}
    zone = timezone_name(tz)
    return {
        "start": {"dateTime": start.isoformat(), "timeZone": zone},
        "end": {"dateTime": end.isoformat(), "timeZone": zone},
    }


def _attendees(values: list[str]) -> list[dict[str, str]]:
    people = []
    for name, email in parse_addresses(values):
        person = {"email": email}
        if name:
            person["displayName"] = name
        people.append(person)
    return people


def _event_moment(value: dict[str, Any], tz: dt.tzinfo) -> dt.datetime:
    if "dateTime" in value:
        return _instant(value["dateTime"], tz)
    return dt.datetime.combine(dt.date.fromisoformat(value["date"]), dt.time.min, tzinfo=tz)


def _instant(text: str, tz: dt.tzinfo) -> dt.datetime:
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(tz)


def _free_windows(
    start: dt.datetime,
    end: dt.datetime,
    busy: list[tuple[dt.datetime, dt.datetime]],
    shortest: dt.timedelta,
) -> list[tuple[dt.datetime, dt.datetime]]:
    windows = []
    cursor = start
    for busy_start, busy_end in sorted(busy):
        if busy_start > cursor and busy_start - cursor >= shortest:
            windows.append((cursor, min(busy_start, end)))
        cursor = max(cursor, busy_end)
        if cursor >= end:
            break
    if end - cursor >= shortest:
        windows.append((cursor, end))
    return windows


def _mutation(verb: str, event: dict[str, Any], tz: dt.tzinfo, note: str) -> str:
    span = describe_span(parse_event_time(event["start"], tz), parse_event_time(event["end"], tz))
    link = f" Link: {event['htmlLink']}." if event.get("htmlLink") else ""
    title = event.get("summary") or "(no title)"
    return f"Event {verb} with id {event['id']}: '{title}', {span}.{note}{link} {NEXT}"
