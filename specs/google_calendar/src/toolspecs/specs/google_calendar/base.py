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
import re
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal

from llama_index.core.schema import Document

from toolspecs.core import (
    AskUser,
    ConfigurationError,
    FixArguments,
    Marks,
    Range,
    Timezone,
    deadline,
    fence,
    format_datetime,
    resolve_timezone,
    tool,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.clock import (
    TIMEZONE_ENV,
    UnreadableTime,
    describe_now,
    in_range,
    timezone_name,
    timezone_setting,
)
from toolspecs.core.clock import now as clock_now
from toolspecs.loaders.google import (
    CALENDAR_SCOPES,
    GoogleAuth,
    GoogleCalendarReader,
    GoogleResponseError,
)
from toolspecs.loaders.google.calendar import describe_event, event_span, parse_event_time
from toolspecs.specs.google_base import GoogleToolSpec, parse_addresses
from toolspecs.specs.google_calendar import series
from toolspecs.specs.google_calendar.recurrence import dropped_by, read_scope, to_rrule

SCOPES = CALENDAR_SCOPES
NEXT = "You can move on to the next step."
IDS_HINT = "Get event ids with load_data (each line starts with [id: ...])."
# sendUpdates for notify_attendees=False / True.
SEND_UPDATES = {False: "none", True: "all"}
# The most tokens get_date spends on why it could not read the calendar's zone.
WHY_TOKENS = 60
# create_event names at most this many overlapping events, of at most OVERLAP_LOOKUP asked.
OVERLAP_SHOWN = 3
OVERLAP_LOOKUP = 50
# search_events' default window: this many days back and ahead of today.
SEARCH_DAYS_BACK = 30
SEARCH_DAYS_AHEAD = 365
# respond_to_event's answers, as Google names them, and how the reply says them.
RESPONSES = {"accepted": "accepted", "declined": "declined", "tentative": "tentatively accepted"}


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
            block=_description,
        )
        self.timezone = timezone
        self.allowed_calendar_ids = allowed
        self.calendar_id = calendar_id or allowed[0]
        self.allow_destructive = allow_destructive

    def spec_timezone(self, calendar_id: str | None = None) -> dt.tzinfo:
        """The timezone times are read and shown in: ``timezone`` if set, else the calendar's."""
        if self.timezone:
            return resolve_timezone(self.timezone)
        return self.reader.calendar_timezone(calendar_id or self.calendar_id)

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
        calendar = self.calendar(calendar_id)
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
        note += self.overlaps(calendar, start, end, tz, all_day)
        created = self.reader.execute(
            self.service.events().insert(
                calendarId=calendar, body=body, sendUpdates=SEND_UPDATES[notify_attendees]
            )
        )
        return _mutation("created", created, tz, note + _emailed(body, notify_attendees))

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
        event_id = _event_id(event_id)
        wanted = read_scope(scope)
        calendar = self.calendar(calendar_id)
        tz = self.spec_timezone(calendar)
        patch: dict[str, Any] = {}
        for key, value in (
            ("summary", title),
            ("description", description),
            ("location", location),
        ):
            if value is not None:
                patch[key] = value
        if attendees is not None:
            patch["attendees"] = _attendees(attendees)
        if recurrence is not None:
            patch["recurrence"] = to_rrule(recurrence, tz)
        moves = start_datetime is not None or end_datetime is not None
        if not patch and not moves:
            raise FixArguments(
                "update_event was given nothing to change.",
                "Send at least one of title, description, location, start_datetime, "
                "end_datetime, attendees or recurrence.",
            )
        send = SEND_UPDATES[notify_attendees]
        note = ""
        target = event_id
        current: dict[str, Any] | None = None
        found = series.resolve(self, calendar, event_id, wanted, tz) if wanted is not None else None
        if not self.allow_destructive and _may_destroy(patch):
            # What the patch applies to: the event, or the series a split copies.
            before = (found.series if found.split else found.event) if found else None
            if before is None:
                current = before = self.reader.execute(
                    self.service.events().get(calendarId=calendar, eventId=target)
                )
            _refuse_losses(before, patch)
        if found is not None:
            if found.split:
                return series.split(
                    self, calendar, found, patch, tz, start_datetime, end_datetime, send
                )
            target, current, note = found.target, found.event, found.note
            if moves and found.occurrence is not None and found.event is not None:
                times, moved = _moved(found.occurrence, tz, start_datetime, end_datetime)
                patch.update(series.shifted(found.occurrence, found.event, times, tz))
                note += moved + " Every occurrence moves by as much."
                moves = False
        if moves:
            if current is None:
                current = self.reader.execute(
                    self.service.events().get(calendarId=calendar, eventId=target)
                )
            times, moved = _moved(current, tz, start_datetime, end_datetime)
            patch.update(times)
            note += moved
        updated = self.reader.execute(
            self.service.events().patch(
                calendarId=calendar, eventId=target, body=patch, sendUpdates=send
            )
        )
        return _mutation("updated", updated, tz, note + _emailed(updated, notify_attendees))

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
        event_id = _event_id(event_id)
        wanted = read_scope(scope)
        calendar = self.calendar(calendar_id)
        send = SEND_UPDATES[notify_attendees]
        emailed = " The attendees were emailed." if notify_attendees else ""
        if wanted is None:
            self.reader.execute(
                self.service.events().delete(
                    calendarId=calendar, eventId=event_id, sendUpdates=send
                )
            )
            return f"Event {event_id} deleted.{emailed} {NEXT}"
        tz = self.spec_timezone(calendar)
        found = series.resolve(self, calendar, event_id, wanted, tz)
        if found.split:
            return series.end_series(self, calendar, found, tz, send) + emailed + f" {NEXT}"
        self.reader.execute(
            self.service.events().delete(
                calendarId=calendar, eventId=found.target, sendUpdates=send
            )
        )
        what = found.deleted_text()
        return f"{what} deleted.{found.note}{emailed} {NEXT}"

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
        calendar = self.calendar(calendar_id)
        tz = self.spec_timezone(calendar)
        today = clock_now(tz).date()
        first = start_date or today - dt.timedelta(days=SEARCH_DAYS_BACK)
        last = end_date or max(first, today) + dt.timedelta(days=SEARCH_DAYS_AHEAD)
        if last < first:
            raise FixArguments(
                f"end_date {last} is before start_date {first}.",
                "Send an end_date on or after the start_date.",
            )
        time_min = in_range(dt.datetime.combine(first, dt.time.min, tzinfo=tz))
        after = last + dt.timedelta(days=1)
        time_max = in_range(dt.datetime.combine(after, dt.time.min, tzinfo=tz))
        found = self.reader.list_events(time_min, time_max, number_of_results, words, calendar)
        span = f"from {first} to {last}"
        if not found:
            return (
                f"No events match {fence.quote(words, 100)} {span}. "
                "Try fewer or other words, or a wider range of dates."
            )
        lines = [f"{len(found)} events match {fence.quote(words, 100)} {span}:"]
        lines += [describe_event(event, tz, fence.field) for event in found]
        if len(found) >= number_of_results:
            lines.append(
                f"(There may be more: raise number_of_results above {number_of_results} "
                "or narrow the dates.)"
            )
        return "\n".join(lines)

    @tool(read_only=True, open_world=False)
    def list_calendars(self) -> str:
        """List the calendars this agent may use: id, name, timezone, access role."""
        entries: list[dict[str, Any]] = []
        token = None
        for _ in range(4):  # 4 pages of 250: more calendars than a person keeps
            answer = self.reader.execute(
                self.service.calendarList().list(maxResults=250, pageToken=token)
            )
            items = answer.get("items")
            if not isinstance(items, list):
                raise GoogleResponseError("Google's calendar list has no items")
            entries += [item for item in items if isinstance(item, dict)]
            token = answer.get("nextPageToken")
            if not token:
                break
        lines = ["Calendars this agent may use:"]
        matched: set[int] = set()
        for allowed in self.allowed_calendar_ids:
            index = _entry_for(entries, allowed)
            default = ", the default" if allowed == self.calendar_id else ""
            if index is None:
                lines.append(
                    f"- [id: {fence.field(allowed, 200)}] not in the user's calendar list: "
                    f"it may not exist, or the user has not added it{default}."
                )
                continue
            matched.add(index)
            entry = entries[index]
            name = fence.quote(entry.get("summaryOverride") or entry.get("summary") or "?", 80)
            own = f" ({fence.field(entry.get('id'), 200)})" if allowed != entry.get("id") else ""
            role = fence.field(entry.get("accessRole") or "unknown", 40)
            read_only = " (read only)" if role in ("reader", "freeBusyReader") else ""
            lines.append(
                f"- [id: {fence.field(allowed, 200)}]{own} {name} — timezone "
                f"{fence.field(entry.get('timeZone') or '?', 60)}, access {role}{read_only}"
                f"{', primary' if entry.get('primary') else ''}{default}"
            )
        others = len(entries) - len(matched)
        if others:
            lines.append(
                f"The user's list has {others} more calendar{'s' if others > 1 else ''} this "
                "agent may not use. To allow one, the user adds its id to allowed_calendar_ids "
                "when creating GoogleCalendarToolSpec."
            )
        return "\n".join(lines)

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
        event_id = _event_id(event_id)
        answer = _response(response)
        calendar = self.calendar(calendar_id)
        tz = self.spec_timezone(calendar)
        current = self.reader.execute(
            self.service.events().get(calendarId=calendar, eventId=event_id)
        )
        guests = current.get("attendees")
        guests = guests if isinstance(guests, list) else []
        mine = next(
            (i for i, g in enumerate(guests) if isinstance(g, dict) and g.get("self")), None
        )
        title = fence.quote(current.get("summary") or "(no title)", 80)
        organizer = current.get("organizer")
        organizes = isinstance(organizer, dict) and organizer.get("self")
        if organizes or (mine is not None and guests[mine].get("organizer")):
            change = (
                "To change it use update_event; to" if self.offers_tool("update_event") else "To"
            )
            raise FixArguments(
                f"The user organizes event {event_id} ({title}): there is no invitation to answer.",
                f"{change} answer someone else's invitation, send that event's id.",
            )
        if mine is None:
            search = " or search_events" if self.offers_tool("search_events") else ""
            raise FixArguments(
                f"The user is not a guest of event {event_id} ({title}), so there is no "
                "invitation to answer.",
                f"Check the id with load_data{search}; only events the user was "
                "invited to can be answered.",
            )
        entry = {**guests[mine], "responseStatus": answer}
        if comment is not None:
            if comment.strip():
                entry["comment"] = comment.strip()
            else:
                entry.pop("comment", None)
        body = {"attendees": [entry if i == mine else g for i, g in enumerate(guests)]}
        updated = self.reader.execute(
            self.service.events().patch(
                calendarId=calendar,
                eventId=event_id,
                body=body,
                sendUpdates=SEND_UPDATES[notify_organizer],
            )
        )
        said = ""
        if entry.get("comment"):
            said = f" with the comment {fence.quote(entry['comment'], 200)}"
        emailed = " and was emailed" if notify_organizer else "; no email was sent"
        which = ""
        if current.get("recurrence"):
            which = " This answers every occurrence; an occurrence's id answers only that one."
        elif current.get("recurringEventId"):
            which = " This answers only this occurrence."
        return (
            f"The user {RESPONSES[answer]} {title}, {event_span(updated, tz)} "
            f"(event id {fence.field(updated.get('id') or event_id, 200)}){said}. The organizer "
            f"sees the answer in the event{emailed}.{which} {NEXT}"
        )

    def overlaps(
        self, calendar: str, start: dt.datetime, end: dt.datetime, tz: dt.tzinfo, all_day: bool
    ) -> str:
        """A note naming the events a new one at ``start``-``end`` overlaps (bounded).

        Events marked free (``transparency: transparent``) and cancelled ones do not count.
        A lookup Google does not answer is said, not raised: the event is still created.
        """
        if all_day:
            last = max(end.date(), start.date() + dt.timedelta(days=1))
            start = dt.datetime.combine(start.date(), dt.time.min, tzinfo=tz)
            end = dt.datetime.combine(last, dt.time.min, tzinfo=tz)
        try:
            found = self.reader.list_events(start, end, OVERLAP_LOOKUP, calendar_id=calendar)
        except Exception as exc:  # mapped by the failure table; anything else is our bug
            if self.guidance_for(exc) is None:
                raise
            return " (Overlaps could not be checked.)"
        busy = [
            e
            for e in found
            if e.get("status") != "cancelled" and e.get("transparency") != "transparent"
        ]
        if not busy:
            return ""
        shown = [
            f"[id: {fence.field(e.get('id', '?'), 200)}] "
            f"{fence.quote(e.get('summary') or '(no title)', 60)}, {event_span(e, tz)}"
            for e in busy[:OVERLAP_SHOWN]
        ]
        more = len(busy) - len(shown)
        at_least = "at least " if len(found) >= OVERLAP_LOOKUP else ""
        listed = "; ".join(shown) + (f"; and {at_least}{more} more" if more else "")
        return f" It overlaps {at_least}{len(busy)} event{'s' if len(busy) > 1 else ''}: {listed}."

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
        answer = self.reader.execute(self.service.freebusy().query(body=body))
        busy, unknown = _busy_times(answer, tz)
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


def _moved(
    current: dict[str, Any],
    tz: dt.tzinfo,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
) -> tuple[dict[str, Any], str]:
    """The new ``start``/``end`` of ``current`` moved as asked, and a note on the duration."""
    old_start, old_end = _current_times(current, tz, start_datetime, end_datetime)
    all_day = isinstance(current.get("start"), dict) and "date" in current["start"]
    start = start_datetime or old_start
    note = ""
    if end_datetime is None and start_datetime is not None:
        end_datetime = _later(start, _elapsed(old_start, old_end))
        note = " It keeps its duration."
    start, end, _ = _span(start, end_datetime or old_end, tz, all_day)
    return _times(start, end, tz, all_day), note


def _response(text: str) -> str:
    """Google's ``responseStatus`` for an answer as agents write it ('yes', 'maybe', ...).

    Raises:
        FixArguments: When it is none of accept, decline or tentative.
    """
    words = " ".join(re.sub(r"[^a-z]+", " ", (text or "").lower()).split())
    unsure = ("not sure", "unsure", "don t know", "do not know", "no idea", "undecided")
    if (
        words.startswith(("tentativ", "maybe", "perhaps", "possibly", "might", *unsure))
        or " not sure " in f" {words} "
    ):
        return "tentative"
    if words.startswith(("declin", "reject", "refus", "not ", "no", "can t", "cannot", "won t")):
        return "declined"
    yes = (
        "accept",
        "yes",
        "yeah",
        "yep",
        "yup",
        "ok",
        "sure",
        "attend",
        "going",
        "confirm",
        "join",
    )
    if words == "y" or words.startswith(yes):
        return "accepted"
    raise FixArguments(
        f"response {shown(text)} is not an answer I know.",
        "Send 'accept', 'decline' or 'tentative'.",
    )


def _entry_for(entries: list[dict[str, Any]], calendar_id: str) -> int | None:
    """The index of the calendarList entry of an allowed id (``"primary"``: the primary one)."""
    wanted = calendar_id.casefold()
    for index, entry in enumerate(entries):
        if str(entry.get("id", "")).casefold() == wanted or (
            wanted == "primary" and entry.get("primary")
        ):
            return index
    return None


def _description(text: str, source: str) -> str:
    """An event's description, fenced as third-party text naming its event."""
    return fence.block(text, source, "description")


def _event_id(event_id: str) -> str:
    """``event_id`` without spaces; an empty one is guidance before any request."""
    cleaned = event_id.strip()
    if not cleaned:
        raise FixArguments("event_id is empty.", IDS_HINT)
    return cleaned


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def _may_destroy(patch: Mapping[str, Any]) -> bool:
    """Whether ``patch`` may destroy something, to be checked against the event."""
    return (
        "attendees" in patch
        or "recurrence" in patch
        or _blank(patch.get("summary"))
        or _blank(patch.get("description"))
    )


def _refuse_losses(event: Mapping[str, Any], patch: Mapping[str, Any]) -> None:
    """Refuse a patch that would destroy part of ``event`` (the spec does not allow it).

    Destroying: blanking a title or description the event has, removing attendees, or a
    recurrence that shortens, ends or otherwise may drop occurrences of a series.

    Raises:
        AskUser: Naming what would be lost; nothing was changed.
    """
    losses = []
    if _blank(patch.get("summary")) and str(event.get("summary") or "").strip():
        losses.append(f"blank the title {fence.quote(event.get('summary'), 80)}")
    if _blank(patch.get("description")) and str(event.get("description") or "").strip():
        losses.append("delete the description")
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
            losses.append(f"remove {len(removed)} attendee(s) ({named}{more})")
    if "recurrence" in patch:
        dropped = dropped_by(list(event.get("recurrence") or []), list(patch["recurrence"]))
        if dropped:
            losses.append(f"{fence.field(dropped, 300)}, which may drop occurrences")
    if losses:
        raise AskUser(
            f"Nothing was changed: this update would {'; '.join(losses)}, and destructive "
            "changes are not allowed (allow_destructive=False).",
            "Do not retry it: tell the user that they must allow destructive changes "
            "(allow_destructive=True) for this. Other changes (new title or times, added "
            "attendees, a longer series) work without it.",
        )


def _emailed(event: Mapping[str, Any], notify: bool) -> str:
    """What the agent is told about emails to the attendees of a written event."""
    if notify:
        return " The attendees were emailed."
    return " No emails were sent to the attendees." if event.get("attendees") else ""


def _current_times(
    current: dict[str, Any],
    tz: dt.tzinfo,
    start_datetime: dt.datetime | None,
    end_datetime: dt.datetime | None,
) -> tuple[dt.datetime, dt.datetime]:
    """An event's start and end as Google has them, for the ones a move does not give.

    Raises:
        GoogleResponseError: When Google's answer has no readable times.
        FixArguments: When they lie outside the years we accept and the call needs them.
    """
    if start_datetime is not None and end_datetime is not None:
        return start_datetime, end_datetime
    try:
        start, end = (
            _moment_of(parse_event_time(current.get(key), tz), tz) for key in ("start", "end")
        )
    except ValueError:
        raise GoogleResponseError("Google's answer about the event has no readable times") from None
    try:
        return in_range(start), in_range(end)
    except UnreadableTime:
        raise FixArguments(
            f"The event's current times ({event_span(current, tz)}) are outside the years "
            "dates may be in, so the missing one cannot be worked out from them.",
            "Send both start_datetime and end_datetime.",
        ) from None


def _span(
    start: dt.datetime, end: dt.datetime | None, tz: dt.tzinfo, all_day: bool
) -> tuple[dt.datetime, dt.datetime, str]:
    """Start and end in ``tz``; a missing end is one hour (or one day) later, and said so.

    The times arrive aware: the argument model read naive ones in the call's zone.
    """
    note = ""
    in_range(start)
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
    in_range(end)
    return start.astimezone(tz), end.astimezone(tz), note


def _elapsed(start: dt.datetime, end: dt.datetime) -> dt.timedelta:
    """Real time between two aware moments (Python subtracts wall clocks in one zone)."""
    return end.astimezone(dt.timezone.utc) - start.astimezone(dt.timezone.utc)


def _later(moment: dt.datetime, delta: dt.timedelta) -> dt.datetime:
    """``moment`` plus real time, in its own zone: right across a DST change.

    Raises:
        FixArguments: When that is past the end of the calendar.
    """
    try:
        later = moment.astimezone(dt.timezone.utc) + delta
        return in_range(later.astimezone(moment.tzinfo) if moment.tzinfo is not None else later)
    except OverflowError:
        raise FixArguments(
            f"{format_datetime(moment)} plus {delta} is past the end of the calendar.",
            "Send both start_datetime and end_datetime.",
        ) from None


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


def _moment_of(value: dt.datetime | dt.date, tz: dt.tzinfo) -> dt.datetime:
    """An event time as a moment: an all-day date is its midnight in ``tz``."""
    if isinstance(value, dt.datetime):
        return value
    return dt.datetime.combine(value, dt.time.min, tzinfo=tz)


def _instant(text: Any, tz: dt.tzinfo) -> dt.datetime:
    if not isinstance(text, str):
        raise ValueError(f"not a time: {type(text).__name__}")
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(tz)


def _busy_times(
    answer: dict[str, Any], tz: dt.tzinfo
) -> tuple[list[tuple[dt.datetime, dt.datetime]], list[str]]:
    """The busy intervals of a free/busy answer, and the calendars Google could not see.

    Raises:
        GoogleResponseError: When the answer is not in the shape Google writes (a free
            window shown from a busy time that could not be read would be wrong).
    """
    calendars = answer.get("calendars")
    if not isinstance(calendars, dict):
        raise GoogleResponseError("Google's free/busy answer has no calendars")
    busy: list[tuple[dt.datetime, dt.datetime]] = []
    unknown: list[str] = []
    try:
        for calendar, info in calendars.items():
            if info.get("errors"):
                unknown.append(fence.field(calendar, 100))
                continue
            for slot in info.get("busy") or []:
                busy.append((_instant(slot["start"], tz), _instant(slot["end"], tz)))
    except (AttributeError, KeyError, TypeError, ValueError, OverflowError):
        raise GoogleResponseError(
            "a busy time in Google's free/busy answer is unreadable"
        ) from None
    return busy, unknown


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
    """What a write tells the agent: the event's id, title, times, link, and what was said.

    Raises:
        GoogleResponseError: When Google's answer has no event id (the guidance says to
            check whether the write was done).
    """
    event_id = event.get("id")
    if not isinstance(event_id, str) or not event_id:
        raise GoogleResponseError("Google's answer to the write names no event id")
    span = event_span(event, tz)
    link = f" Link: {fence.field(event['htmlLink'])}." if event.get("htmlLink") else ""
    title = fence.quote(event.get("summary") or "(no title)")
    return f"Event {verb} with id {fence.field(event_id)}: {title}, {span}.{note}{link} {NEXT}"
