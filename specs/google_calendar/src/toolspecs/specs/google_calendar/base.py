"""The Google Calendar tool spec: the user's time, not the server's.

Side effects are explicit: every write tells Google whether to email the attendees
(``sendUpdates``: ``"none"`` unless the call sets ``notify_attendees``), and a call may
touch only the calendars the user allowed (``allowed_calendar_ids``, default the one
default calendar, ``"primary"``). What others wrote (titles, places, names,
descriptions) reaches the agent through :mod:`toolspecs.core.fence`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from llama_index.core.schema import Document

from toolspecs.core import (
    ConfigurationError,
    FixArguments,
    Marks,
    Range,
    Timezone,
    deadline,
    fence,
    resolve_timezone,
    tool,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.clock import (
    TIMEZONE_ENV,
    describe_now,
    in_range,
    timezone_name,
    timezone_setting,
)
from toolspecs.core.clock import now as clock_now
from toolspecs.loaders.google import CALENDAR_SCOPES, GoogleAuth, GoogleCalendarReader
from toolspecs.specs.google_base import GoogleToolSpec, parse_addresses
from toolspecs.specs.google_calendar import events, render
from toolspecs.specs.google_calendar.recurrence import read_scope, to_rrule
from toolspecs.specs.google_calendar.series import Calendar
from toolspecs.specs.google_calendar.times import calendar_zone, free_windows, in_zone, span

SCOPES = CALENDAR_SCOPES
IDS_HINT = render.IDS_HINT
# The most tokens get_date spends on why it could not read the calendar's zone.
WHY_TOKENS = 60
# search_events' default window: this many days back and ahead of today.
SEARCH_DAYS_BACK = 30
SEARCH_DAYS_AHEAD = 365


class GoogleCalendarToolSpec(GoogleToolSpec):
    """Google Calendar tools: a drop-in for LlamaHub's ``GoogleCalendarToolSpec``.

    Args:
        creds: Ready Google credentials (used as they are).
        credentials_path: The OAuth client file for the first authorization.
        token_path: The user's token file, LlamaHub's ``token.json`` by default; when it
            holds other scopes, ``token.calendar.json`` beside it is used instead.
        service_account_key_path: A service account key file (only when named).
        service_account_key: A service account key as a dict.
        authorized_user_info: The user's authorized info as a dict.
        is_cloud: Do not write the token file.
        subject: With a service account: the user to act for (domain-wide delegation).
        auth_flow: ``"local"`` (browser), ``"console"`` (headless machines) or ``"none"``
            (never start a login: servers).
        oauth_port: The port of the local OAuth redirect.
        timezone: Read and show times in this IANA zone instead of the calendar's.
        calendar_id: The default calendar; default the first of ``allowed_calendar_ids``,
            else ``"primary"`` (the user's own).
        allowed_calendar_ids: The calendars the agent may read and change (a call naming
            another gets guidance, before any request); default ``[calendar_id]``, so
            only ``"primary"`` unless you say otherwise.
        allow_destructive: Allow ``delete_event`` (opt-in like ``update_event``: name it
            in ``to_tool_list(spec_functions=...)``, or offer ``all_functions``), and
            the changes of ``update_event`` that destroy (removing attendees, blanking
            the title or description, shortening or ending a series), which it refuses
            otherwise; ``update_event`` is then marked destructive.
        transport: An ``httplib2.Http``-like object to send requests with (tests pass a
            ``toolspecs.loaders.google.testing.FakeCalendar``).
        account: A name for this Google account (``"work"``), for several accounts in
            one agent: its own token file (``token.work.calendar.json`` beside
            ``token_path``), tool names prefixed ``work_`` by default, and guidance
            that names it.

    Raises:
        ValueError: When ``timezone`` is not an IANA timezone name, ``calendar_id`` is
            not among ``allowed_calendar_ids`` (both a ``ConfigurationError``), or
            ``auth_flow`` is not one of its three values.
    """

    spec_functions = [  # noqa: RUF012
        "load_data",
        "create_event",
        "get_date",
    ]
    # Offered on request (to_tool_list(spec_functions=...), --tools): every tool costs
    # tokens in every request, so the default set is LlamaHub's.
    more_functions: ClassVar[list[str]] = [
        "update_event",
        "delete_event",  # destructive: offered with allow_destructive=True
        "find_free_time",
        "search_events",
        "list_calendars",
        "respond_to_event",
    ]
    service_name: ClassVar[str] = "Google Calendar"
    reader_name: ClassVar[str] = "read_stored_events"
    ids_hint: ClassVar[str] = IDS_HINT
    reader: GoogleCalendarReader

    def __init__(
        self,
        creds: Any = None,
        credentials_path: str = "credentials.json",
        token_path: str = "token.json",
        service_account_key_path: str | None = None,
        service_account_key: dict[str, Any] | None = None,
        authorized_user_info: dict[str, Any] | None = None,
        is_cloud: bool = False,
        subject: str | None = None,
        auth_flow: Literal["local", "console", "none"] = "local",
        oauth_port: int = 8080,
        timezone: str | None = None,
        calendar_id: str | None = None,
        allow_destructive: bool = False,
        transport: Any = None,
        allowed_calendar_ids: list[str] | None = None,
        account: str | None = None,
    ) -> None:
        if timezone:
            timezone_setting(timezone)  # a wrong name fails here, for the person
        allowed = _allowed(calendar_id, allowed_calendar_ids)
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
            account=account,
        )
        self.use_account(auth.account)
        self.reader = GoogleCalendarReader(
            auth=auth,
            transport=transport,
            time_left=deadline.remaining,  # retries end before the call's deadline
            field=fence.field,
            block=render.description,
        )
        self.timezone = timezone
        self.allowed_calendar_ids = allowed
        self.calendar_id = calendar_id or allowed[0]
        self.allow_destructive = allow_destructive

    def spec_timezone(self, calendar_id: str | None = None) -> dt.tzinfo:
        """The timezone times are read and shown in: ``timezone`` if set, else the calendar's."""
        return calendar_zone(self.reader, self.timezone, calendar_id or self.calendar_id)

    def call_calendar(self, calendar_id: str | None, timezone: str | None = None) -> Calendar:
        """The calendar a call works on (an allowed one) and its zone (``timezone`` if given).

        Raises:
            FixArguments: When it names a calendar the user did not allow.
        """
        calendar = self.calendar(calendar_id)
        tz = resolve_timezone(timezone) if timezone else self.spec_timezone(calendar)
        return Calendar(self.reader, calendar, tz, self.guidance_for)

    def zone_for_call(self, arguments: Mapping[str, Any]) -> dt.tzinfo:
        """A call's times are in the zone of the calendar it names (or the default one).

        A calendar the user did not allow is not asked for its zone: the call is refused.
        """
        calendar = arguments.get("calendar_id")
        allowed = self.allowed_calendar(calendar) if isinstance(calendar, str) else None
        return self.spec_timezone(allowed)

    def argument_docs(self, function: str) -> Mapping[str, str | None]:
        """``calendar_id`` lists the allowed calendars, or is left out when there is one.

        With one allowed calendar there is nothing to choose, so the schema does not offer
        the argument (a call that sends it, as LlamaHub's agents do, is still read).
        """
        allowed = self.allowed_calendar_ids
        if len(allowed) < 2:
            return {"calendar_id": None}
        listed = ", ".join(repr(c) for c in allowed[:10])
        more = f" and {len(allowed) - 10} more" if len(allowed) > 10 else ""
        return {"calendar_id": f"One of {listed}{more}; default {self.calendar_id!r}."}

    def allowed_calendar(self, calendar_id: str | None) -> str | None:
        """The allowed calendar ``calendar_id`` names (any case), or ``None``."""
        wanted = (calendar_id or "").strip().casefold()
        return next((c for c in self.allowed_calendar_ids if c.casefold() == wanted), None)

    def calendar(self, calendar_id: str | None) -> str:
        """The calendar a call may use: the default one, or an allowed one it names.

        Raises:
            FixArguments: When it names a calendar the user did not allow.
        """
        if calendar_id is None or not calendar_id.strip():
            return self.calendar_id
        found = self.allowed_calendar(calendar_id)
        if found is None:
            listed = ", ".join(repr(c) for c in self.allowed_calendar_ids[:10])
            raise FixArguments(
                f"calendar_id {shown(calendar_id)} is not a calendar the user allowed.",
                f"Use one of {listed}, or leave calendar_id out for {self.calendar_id!r}. "
                "To use another calendar, ask the user to add it to allowed_calendar_ids.",
            )
        return found

    def marks_of(self, function: str, declared: Marks) -> Marks:
        """``update_event`` is destructive with ``allow_destructive`` on, and only then.

        Off, it refuses every change that would destroy (removing attendees, blanking
        the title or description, shortening or ending a series); on, it makes them.
        """
        if function == "update_event" and self.allow_destructive:
            return dataclasses.replace(declared, destructive=True)
        return declared

    def passage_source(self, document: Document) -> str:
        """``event <id>`` for a passage of ``load_data``; ``listed events`` for a listing.

        Either is third-party text (invitations are written by others), so the core
        marks each passage as such.
        """
        event_id = document.metadata.get("event_id")
        return f"event {fence.field(event_id, 80)}" if event_id else "listed events"

    # -- tools -------------------------------------------------------------------

    @tool(read_only=True, open_world=False)
    def get_date(self) -> str:
        """Get the date, weekday, time and timezone (UTC offset, source).

        Call it before working out dates like 'next Friday'.
        """
        tz, source = self.date_zone()
        return f"{describe_now(tz)} (timezone: {timezone_name(tz)}, {source})"

    def date_zone(self) -> tuple[dt.tzinfo, str]:
        """The zone ``get_date`` answers in, and where it comes from; never starts a sign-in.

        ``timezone`` if set; else the calendar's own, when Google credentials are at hand
        that need neither a sign-in nor a refresh (``creds`` or a token not expired, a
        ``transport``); else ``$TOOLSPECS_TIMEZONE`` or this machine's zone, saying why the
        calendar's was not read. A tool marked read-only and closed-world does not renew
        a token: that is a request to Google's token server and a token file rewritten.
        """
        if self.timezone:
            return resolve_timezone(self.timezone), "from the timezone setting"
        why = "no Google sign-in"
        try:
            if self.reader.service_if_signed_in(refresh=False) is not None:
                return self.reader.calendar_timezone(self.calendar_id), "the calendar's own"
            if self.auth.credentials(sign_in=False, refresh=False) is not None:
                why = "no current Google access token (get_date does not renew one)"
        except Exception as exc:  # mapped by the failure table; anything else is our bug
            guidance = self.guidance_for(exc)
            if guidance is None:
                raise
            why = clip(guidance.message, WHY_TOKENS)
        source = (
            f"from {TIMEZONE_ENV}"
            if os.environ.get(TIMEZONE_ENV, "").strip()
            else "from this machine's local zone"
        )
        return timezone_setting(None), f"{source}; the calendar's own zone was not read: {why}"

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
        """List events, one line each: id, times (weekday, offset), people.

        Args:
            number_of_results: At most this many.
            start_date: e.g. '2026-11-21' or 'next Monday'; default today.
            end_date: Last day (included).
            query: Only events matching these words.
            calendar_id: Calendar id, one the user allowed; default the user's own.
        """
        if start_date and end_date and end_date < start_date:
            raise FixArguments(
                f"end_date {end_date} is before start_date {start_date}.",
                "Send an end_date on or after the start_date.",
            )
        calendar = self.calendar(calendar_id)
        return self.reader.load_data(
            number_of_results=number_of_results or 100,
            # Today in the user's timezone, by toolspecs' one clock (not the loader's own).
            start_date=start_date or clock_now(self.spec_timezone(calendar)).date(),
            end_date=end_date,
            query=query,
            calendar_id=calendar,
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
        notify_attendees: bool = False,
    ) -> str:
        """Create an event; returns its id and link.

        Times without an offset are in the calendar's timezone.

        Args:
            title: Title.
            description: Details.
            location: Where.
            start_datetime: Start, e.g. '2026-11-21T16:00' or 'tomorrow 4pm'.
            end_datetime: Default: an hour after the start.
            attendees: Emails to invite, e.g. ['ada@example.com'].
            all_day: Whole days.
            recurrence: RRULE or words, e.g. 'every Monday'.
            timezone: IANA zone, e.g. 'Europe/Paris'.
            calendar_id: Calendar id, one the user allowed; default the user's own.
            notify_attendees: Email guests; only if the user asks.
        """
        if start_datetime is None:
            raise FixArguments(
                "create_event needs start_datetime.",
                "Send it, e.g. '2026-11-21T16:00' (get_date helps with words like 'tomorrow').",
            )
        cal = self.call_calendar(calendar_id, timezone)
        fields = {
            "summary": title or "(no title)",
            "description": description,
            "location": location,
        }
        return events.create(
            cal, start_datetime, end_datetime, all_day, fields, attendees, recurrence,
            notify_attendees,
        )  # fmt: skip

    @tool(
        aliases={
            "id": "event_id",
            "summary": "title",
            "start": "start_datetime",
            "end": "end_datetime",
            "guests": "attendees",
            "rrule": "recurrence",
            "apply_to": "scope",
            "occurrences": "scope",
        },
        # It changes only the fields it is given, and the agent saw the old values; what
        # would destroy (removing people, blanking, shortening a series) it refuses unless
        # allow_destructive is on, and then it is marked destructive (see marks_of).
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
        notify_attendees: bool = False,
        scope: str | None = None,
    ) -> str:
        """Change an event: only the fields given change; a moved start keeps the duration.

        Removing attendees, blanking the title or description, or shortening a series
        needs the user's allow_destructive.

        Args:
            event_id: The event's id (from load_data); an occurrence's id names one occurrence.
            title: New title.
            description: New details.
            location: New place.
            start_datetime: New start, e.g. 'Friday 10am'.
            end_datetime: New end.
            attendees: The full new list of emails, e.g. ['ada@example.com'].
            recurrence: New RRULE or words, e.g. 'every weekday'.
            calendar_id: Calendar id, one the user allowed; default the user's own.
            notify_attendees: Email guests; only if the user asks.
            scope: Recurring events: 'this', 'following' (this and later) or 'all'.
        """
        event_id = events.event_id_of(event_id)
        wanted = read_scope(scope)
        cal = self.call_calendar(calendar_id)
        given = {"summary": title, "description": description, "location": location}
        patch: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        if attendees is not None:
            patch["attendees"] = events.people(attendees)
        if recurrence is not None:
            patch["recurrence"] = to_rrule(recurrence, cal.tz)
        if not patch and start_datetime is None and end_datetime is None:
            raise FixArguments(
                "update_event was given nothing to change.",
                "Send at least one of title, description, location, start_datetime, "
                "end_datetime, attendees or recurrence.",
            )
        return events.update(
            cal, event_id, patch, start_datetime, end_datetime, wanted, notify_attendees,
            self.allow_destructive,
        )  # fmt: skip

    @tool(
        aliases={"id": "event_id", "apply_to": "scope", "occurrences": "scope"},
        destructive=True,
        idempotent=True,
        open_world=True,
    )
    def delete_event(
        self,
        event_id: str,
        calendar_id: str | None = None,
        notify_attendees: bool = False,
        scope: str | None = None,
    ) -> str:
        """Delete an event. This cannot be undone: confirm with the user first.

        Args:
            event_id: The event's id (from load_data); an occurrence's id names one occurrence.
            calendar_id: Calendar id, one the user allowed; default the user's own.
            notify_attendees: Email guests; only if the user asks.
            scope: Recurring events: 'this', 'following' (this and later) or 'all'.
        """
        event_id = events.event_id_of(event_id)
        wanted = read_scope(scope)
        if wanted is None:  # one event: its times (and the calendar's zone) do not matter
            calendar = self.calendar(calendar_id)
            return events.delete(self.reader, calendar, event_id, notify_attendees)
        cal = self.call_calendar(calendar_id)
        return events.delete_scoped(cal, event_id, wanted, notify_attendees)

    @tool(
        aliases={
            "q": "query",
            "search": "query",
            "text": "query",
            "from_date": "start_date",
            "start": "start_date",
            "to_date": "end_date",
            "end": "end_date",
            "max_results": "number_of_results",
            "limit": "number_of_results",
        },
        large_output=True,
        read_only=True,
        open_world=False,
    )
    def search_events(
        self,
        query: str,
        start_date: dt.date | None = None,
        end_date: dt.date | None = None,
        number_of_results: Annotated[int, Range(1, 250)] = 25,
        calendar_id: str | None = None,
    ) -> str:
        """Search events by words (title, description, place, people); one line each with id.

        Args:
            query: Words to find, e.g. 'budget review'.
            start_date: First day, e.g. '2026-10-01'; default 30 days ago.
            end_date: Last day, included; default a year from today.
            number_of_results: At most this many.
            calendar_id: Calendar id, one the user allowed; default the user's own.
        """
        words = " ".join((query or "").split())
        if not words:
            raise FixArguments("query is empty.", "Send words to find, or use load_data.")
        cal = self.call_calendar(calendar_id)
        today = clock_now(cal.tz).date()
        first = start_date or today - dt.timedelta(days=SEARCH_DAYS_BACK)
        last = end_date or max(first, today) + dt.timedelta(days=SEARCH_DAYS_AHEAD)
        if last < first:
            raise FixArguments(
                f"end_date {last} is before start_date {first}.",
                "Send an end_date on or after the start_date.",
            )
        time_min = in_range(dt.datetime.combine(first, dt.time.min, tzinfo=cal.tz))
        after = last + dt.timedelta(days=1)
        time_max = in_range(dt.datetime.combine(after, dt.time.min, tzinfo=cal.tz))
        found = self.reader.list_events(time_min, time_max, number_of_results, words, cal.id)
        span = f"from {first} to {last}"
        return render.search_results(found, words, span, cal.tz, number_of_results)

    @tool(read_only=True, open_world=False)
    def list_calendars(self) -> str:
        """List the calendars this agent may use: id, name, timezone, access role."""
        entries = self.reader.list_calendars()
        return render.calendars(entries, self.allowed_calendar_ids, self.calendar_id)

    @tool(
        aliases={
            "id": "event_id",
            "answer": "response",
            "rsvp": "response",
            "status": "response",
            "response_status": "response",
            "note": "comment",
            "message": "comment",
            "notify": "notify_organizer",
            "notify_attendees": "notify_organizer",
        },
        # The organizer (and the other guests) see the answer in the event.
        destructive=False,
        idempotent=True,
        open_world=True,
    )
    def respond_to_event(
        self,
        event_id: str,
        response: str,
        comment: str | None = None,
        calendar_id: str | None = None,
        notify_organizer: bool = False,
    ) -> str:
        """Answer an invitation: accept, decline or tentative, with an optional comment.

        Args:
            event_id: The event's id (from load_data); an occurrence's id answers only it.
            response: 'accept', 'decline' or 'tentative'.
            comment: A note for the organizer.
            calendar_id: Calendar id, one the user allowed; default the user's own.
            notify_organizer: Email the organizer; only if the user asks.
        """
        event_id = events.event_id_of(event_id)
        answer = events.read_response(response)
        cal = self.call_calendar(calendar_id)
        offered = {name: self.offers_tool(name) for name in ("update_event", "search_events")}
        return events.respond(cal, event_id, answer, comment, notify_organizer, offered)

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
            min_minutes: Shortest window to list.
        """
        cal = self.call_calendar(None)
        start, end, _ = span(start_datetime, end_datetime, cal.tz, False)
        if end_datetime is None or end <= start:
            raise FixArguments("end_datetime must be after start_datetime.")
        people = [email for _, email in parse_addresses(attendees or [])]
        found = self.reader.free_busy(start, end, [cal.id, *people], timezone_name(cal.tz))
        busy = [interval for times in found.values() for interval in times or []]
        windows = free_windows(start, end, in_zone(busy, cal.tz), dt.timedelta(minutes=min_minutes))
        unseen = [calendar for calendar, times in found.items() if times is None]
        return render.free_time(start, end, windows, people, unseen, min_minutes)


# -- helpers ---------------------------------------------------------------------


def _allowed(calendar_id: str | None, allowed_calendar_ids: list[str] | None) -> list[str]:
    """The calendars a spec may touch, checked for the person who built it."""
    if isinstance(allowed_calendar_ids, str):  # one id given where a list is typed
        allowed_calendar_ids = [allowed_calendar_ids]
    allowed = [c.strip() for c in allowed_calendar_ids or [] if isinstance(c, str) and c.strip()]
    if allowed_calendar_ids and len(allowed) != len(allowed_calendar_ids):
        raise ConfigurationError(
            f"allowed_calendar_ids={allowed_calendar_ids!r} must be calendar ids (strings)"
        )
    if not allowed:
        return [calendar_id or "primary"]
    if calendar_id and calendar_id.casefold() not in {c.casefold() for c in allowed}:
        raise ConfigurationError(
            f"calendar_id={calendar_id!r} is not in allowed_calendar_ids={allowed!r}; "
            "add it there, or leave calendar_id out to use the first allowed calendar"
        )
    return allowed
