"""A fake Google Calendar: calendars, calendarList, events and freeBusy.

It answers ``calendars.get``, ``calendarList.list``,
``events.list/get/instances/insert/patch/update/delete`` and ``freeBusy.query``. Lists come in
pages with ``nextPageToken``; ``page_size`` makes the pages shorter than ``maxResults``.

Recurring events are kept as Google keeps them: a series (an event with ``recurrence``)
and, for an occurrence that was changed or cancelled, an exception stored under the
occurrence's id (``<series id>_<original start, UTC, as 20261124T150000Z>``, or
``_20261124`` for all-day series). ``events.list`` with ``singleEvents`` and
``events.instances`` expand a series by its RRULE (``FREQ`` DAILY/WEEKLY/MONTHLY/YEARLY
with ``INTERVAL``, weekly ``BYDAY``, ``COUNT`` and ``UNTIL``: what the spec writes), in
the series' own timezone, and ``timeMin``/``timeMax`` filter as Google's do (an event
ending after ``timeMin`` and starting before ``timeMax``). A stored rule it cannot read
(another client's) lists as its first occurrence, and a series ends where its next
occurrence would pass the year 9999: listing never fails on a rule.

Pass it as ``GoogleCalendarToolSpec(transport=FakeCalendar())``; bodies are checked against the
bundled ``calendar.v3`` discovery document, and every write (insert, patch, update, delete) must say
``sendUpdates`` (who Google emails about it) explicitly: a write that leaves it to Google's
default fails the test that sent it (``require_send_updates = False`` allows it).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any
from zoneinfo import ZoneInfo

from toolspecs.loaders.google.testing.http import FakeGoogleHttp, Reply, SchemaError


class FakeCalendar(FakeGoogleHttp):
    """Google Calendar in memory: ``events`` by id, ``busy`` intervals per calendar."""

    prefix = "/calendar/v3"
    api = "calendar.v3"

    def __init__(
        self,
        timezone: str = "America/New_York",
        events: dict[str, dict[str, Any]] | None = None,
        busy: dict[str, list[dict[str, str]]] | None = None,
        calendar_list: list[dict[str, Any]] | None = None,
        *,
        latency: float = 0.0,
    ) -> None:
        super().__init__(latency)
        self.timezone = timezone
        self.events: dict[str, dict[str, Any]] = dict(events or {})
        self.busy: dict[str, list[dict[str, str]]] = dict(busy or {})
        self.unknown_calendars: set[str] = set()
        # calendarList entries, as Google lists the calendars the user has added.
        self.calendar_list: list[dict[str, Any]] = list(
            calendar_list
            if calendar_list is not None
            else [calendar_entry("ada@example.com", "Ada Lovelace", timezone, primary=True)]
        )
        self.next_id = 1
        self.require_send_updates = True
        # At most this many items on a page of events.list/instances (None: maxResults),
        # as Google may send short pages with a nextPageToken (``q`` makes it likely).
        self.page_size: int | None = None
        # (method, event id, sendUpdates) of every write, in order.
        self.notifications: list[tuple[str, str | None, str | None]] = []

    def route(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Reply:
        """Answer a Calendar request."""
        parts = path.strip("/").split("/")
        if method == "GET" and parts[0] == "calendars" and len(parts) == 2:
            if parts[1] in self.unknown_calendars:
                return self.error(404, "notFound", "Not Found")
            listed = next((e for e in self.calendar_list if e.get("id") == parts[1]), {})
            return self.reply(
                200,
                {
                    "kind": "calendar#calendar",
                    "id": parts[1],
                    "summary": listed.get("summary", "Ada"),
                    "timeZone": listed.get("timeZone", self.timezone),
                },
            )
        if method == "GET" and path == "/users/me/calendarList":
            limit = int(query.get("maxResults", ["100"])[0])
            items = self.calendar_list[:limit]
            return self.reply(200, {"kind": "calendar#calendarList", "items": items})
        if method == "POST" and path == "/freeBusy":
            self.check(body, "FreeBusyRequest")
            calendars = {}
            for item in body["items"]:
                if item["id"] in self.unknown_calendars:
                    calendars[item["id"]] = {
                        "errors": [{"domain": "global", "reason": "notFound"}],
                        "busy": [],
                    }
                else:
                    calendars[item["id"]] = {"busy": self.busy.get(item["id"], [])}
            return self.reply(
                200,
                {
                    "kind": "calendar#freeBusy",
                    "timeMin": body["timeMin"],
                    "timeMax": body["timeMax"],
                    "calendars": calendars,
                },
            )
        if parts[0] == "calendars" and parts[2] == "events":
            event_id = parts[3] if len(parts) > 3 else None
            if method == "GET" and len(parts) == 5 and parts[4] == "instances":
                return self._instances(parts[3], query)
            return self._events(method, event_id, query, body)
        return self.error(404, "notFound", "Not Found")

    def _events(
        self, method: str, event_id: str | None, query: dict[str, list[str]], body: Any
    ) -> Reply:
        if method in ("POST", "PATCH", "PUT", "DELETE"):
            self._check_send_updates(method, event_id, query)
        if method == "GET" and event_id is None:
            items = self._listed(query)
            if "q" in query:
                items = [e for e in items if query["q"][0].lower() in json.dumps(e).lower()]
            return self.reply(200, self._page(items, query))
        if method == "POST":
            self.check(body, "Event")
            new_id = f"evt{self.next_id:04d}"
            self.next_id += 1
            event = {
                **body,
                "id": new_id,
                "status": "confirmed",
                "htmlLink": f"https://www.google.com/calendar/event?eid={new_id}",
                "organizer": {"email": "ada@example.com", "self": True},
            }
            self.events[new_id] = event
            return self.reply(200, event)
        if event_id is None or (event_id not in self.events and self.occurrence(event_id) is None):
            return self.error(404, "notFound", "Not Found")
        if event_id not in self.events:  # an occurrence: changing it makes an exception
            occurrence = self.occurrence(event_id)
            if method == "GET":
                return self.reply(200, occurrence)
            if method == "DELETE":
                self.events[event_id] = {**(occurrence or {}), "status": "cancelled"}
                return self.reply(204, None)
            self.events[event_id] = dict(occurrence or {})
        if method == "GET":
            return self.reply(200, self.events[event_id])
        if method == "PATCH":
            self.check(body, "Event")
            self.events[event_id] = {**self.events[event_id], **body}
            return self.reply(200, self.events[event_id])
        if method == "PUT":
            self.check(body, "Event")
            kept = {k: self.events[event_id][k] for k in ("id", "htmlLink", "organizer")}
            self.events[event_id] = {**body, **kept}
            return self.reply(200, self.events[event_id])
        if method == "DELETE":
            del self.events[event_id]
            return self.reply(204, None)
        return self.error(405, "methodNotAllowed", "Method not allowed")

    def _listed(self, query: dict[str, list[str]]) -> list[dict[str, Any]]:
        """``events.list``: single events (series expanded) in the time window, by start."""
        low, high = _window(query)
        deleted = query.get("showDeleted", ["false"])[0] == "true"
        items: list[dict[str, Any]] = []
        for event in self.events.values():
            if event.get("recurringEventId"):
                continue  # an exception: listed in its series' place
            if event.get("recurrence") and query.get("singleEvents", ["false"])[0] == "true":
                items += self.expand(event, low, high, deleted)
            elif (deleted or event.get("status") != "cancelled") and _overlaps(
                event, low, high, self.zone
            ):
                items.append(event)
        return sorted(items, key=_start_key)

    def _instances(self, event_id: str, query: dict[str, list[str]]) -> Reply:
        master = self.events.get(event_id)
        if master is None:
            return self.error(404, "notFound", "Not Found")
        if not master.get("recurrence"):
            return self.error(400, "invalid", "The event is not recurring.")
        low, high = _window(query)
        deleted = query.get("showDeleted", ["false"])[0] == "true"
        return self.reply(200, self._page(self.expand(master, low, high, deleted), query))

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]]) -> dict[str, Any]:
        """One page of ``items``: ``maxResults`` (or ``page_size``) from ``pageToken`` on."""
        size = int(query.get("maxResults", ["250"])[0])
        if self.page_size is not None:
            size = min(size, self.page_size)
        first = int(query.get("pageToken", ["0"])[0])
        page: dict[str, Any] = {"kind": "calendar#events", "items": items[first : first + size]}
        if first + size < len(items):
            page["nextPageToken"] = str(first + size)
        return page

    def expand(
        self,
        master: dict[str, Any],
        low: dt.datetime | None = None,
        high: dt.datetime | None = None,
        deleted: bool = False,
    ) -> list[dict[str, Any]]:
        """The occurrences of a series in the window, its exceptions in their place."""
        out = []
        # A day beyond ``high``: an all-day date begins at midnight in the calendar's zone,
        # up to 14 hours before UTC's; ``_overlaps`` then filters exactly.
        ahead = high + dt.timedelta(days=1) if high else None
        for occurrence in _occurrences(master, ahead):
            stored = self.events.get(occurrence["id"], occurrence)
            if stored.get("status") == "cancelled" and not deleted:
                continue
            if _overlaps(stored, low, high, self.zone):
                out.append(stored)
        return out

    @property
    def zone(self) -> ZoneInfo:
        """The calendar's timezone: where an all-day event's dates begin and end."""
        return ZoneInfo(self.timezone)

    def occurrence(self, event_id: str | None) -> dict[str, Any] | None:
        """The occurrence ``event_id`` names (``<series id>_<start>``), if it is one."""
        series_id, _, when = (event_id or "").rpartition("_")
        master = self.events.get(series_id)
        if not when[:8].isdigit() or master is None or not master.get("recurrence"):
            return None
        limit = _moment({"date": f"{when[:4]}-{when[4:6]}-{when[6:8]}"}) + dt.timedelta(days=2)
        for occurrence in _occurrences(master, limit):
            if occurrence["id"] == event_id:
                found: dict[str, Any] = self.events.get(str(event_id), occurrence)
                return found
        return None

    def _check_send_updates(
        self, method: str, event_id: str | None, query: dict[str, list[str]]
    ) -> None:
        sent = query.get("sendUpdates", [None])[0]
        allowed = self.doc["resources"]["events"]["methods"]["insert"]["parameters"]
        if sent is not None and sent not in allowed["sendUpdates"]["enum"]:
            raise SchemaError(f"sendUpdates={sent!r} is not one of Google's values")
        if sent is None and self.require_send_updates:
            raise SchemaError(
                f"{method} of an event without sendUpdates: Google's default decides "
                "whether the attendees are emailed; say it explicitly"
            )
        self.notifications.append((method, event_id, sent))


def calendar_entry(
    calendar_id: str,
    name: str,
    timezone: str = "America/New_York",
    access_role: str = "owner",
    primary: bool = False,
) -> dict[str, Any]:
    """A ``calendarList`` entry as Google returns it."""
    entry: dict[str, Any] = {
        "kind": "calendar#calendarListEntry",
        "etag": f'"{abs(hash(calendar_id)) % 10**16}"',
        "id": calendar_id,
        "summary": name,
        "timeZone": timezone,
        "accessRole": access_role,
        "backgroundColor": "#9fc6e7",
        "selected": True,
    }
    if primary:
        entry["primary"] = True
    return entry


def _moment(value: Any, zone: dt.tzinfo = dt.timezone.utc) -> dt.datetime:
    """An event time as an aware moment (an all-day date is its midnight in ``zone``)."""
    if "dateTime" in value:
        return dt.datetime.fromisoformat(value["dateTime"].replace("Z", "+00:00"))
    return dt.datetime.fromisoformat(value["date"]).replace(tzinfo=zone)


def _start_key(event: dict[str, Any]) -> str:
    try:
        return _moment(event["start"]).isoformat()
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        return json.dumps(event.get("start"))  # a shape Google would not send: as before


def _window(query: dict[str, list[str]]) -> tuple[dt.datetime | None, dt.datetime | None]:
    low, high = (query.get(key, [None])[0] for key in ("timeMin", "timeMax"))
    return (
        dt.datetime.fromisoformat(low.replace("Z", "+00:00")) if low else None,
        dt.datetime.fromisoformat(high.replace("Z", "+00:00")) if high else None,
    )


def _overlaps(
    event: dict[str, Any], low: dt.datetime | None, high: dt.datetime | None, zone: ZoneInfo
) -> bool:
    """Google's window: the event ends after ``timeMin`` and starts before ``timeMax``.

    An all-day event's dates begin at midnight in the calendar's timezone, as Google's do.
    """
    try:
        return (low is None or _moment(event["end"], zone) > low) and (
            high is None or _moment(event["start"], zone) < high
        )
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError):
        return True  # a shape Google would not send: listed, for the reader's tests


_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]


def _occurrences(master: dict[str, Any], until: dt.datetime | None) -> list[dict[str, Any]]:
    """A series' occurrences by its first RRULE, up to ``until`` (at most 730)."""
    rule = next((r for r in master["recurrence"] if r.startswith("RRULE:")), "RRULE:FREQ=DAILY")
    parts = dict(p.split("=", 1) for p in rule.removeprefix("RRULE:").split(";") if "=" in p)
    all_day = "date" in master["start"]
    zone = ZoneInfo(master["start"].get("timeZone") or "UTC")
    first = _moment(master["start"]) if not all_day else None
    local = (
        first.astimezone(zone).replace(tzinfo=None)
        if first
        else dt.datetime.fromisoformat(master["start"]["date"])
    )
    length = _moment(master["end"]) - _moment(master["start"])
    try:
        step, count, end, days = _rule(parts)
    except (ValueError, OverflowError):
        # A rule Google would not have stored (it refuses an unreadable one): the series
        # is its first occurrence, never a failure of every later listing.
        step, count, end, days = 1, 1, None, []
    out: list[dict[str, Any]] = []
    period = 0
    while len(out) < min(count, 730):
        try:
            walls = _period(parts.get("FREQ", "DAILY"), local, period * step, days)
            for wall in walls:
                moment = wall.replace(tzinfo=zone).astimezone(dt.timezone.utc)
                if wall < local:
                    continue
                if (end and (moment > end if not all_day else moment >= end)) or (
                    until and moment >= until
                ):
                    return out
                if len(out) >= count:
                    return out
                out.append(_instance(master, wall, zone, length, all_day))
        except (ValueError, OverflowError):
            return out  # the next occurrence is past the year 9999: no calendar goes there
        period += 1
    return out


def _rule(parts: dict[str, str]) -> tuple[int, int, dt.datetime | None, list[int]]:
    """A rule's ``INTERVAL``, ``COUNT``, ``UNTIL`` (as a UTC limit) and weekly ``BYDAY``.

    Raises:
        ValueError: When a part is not in RFC 5545's form (a digit string too long to
            read as a number included).
    """
    for key in ("INTERVAL", "COUNT"):
        if key in parts and not (len(parts[key]) <= 9 and parts[key].isdigit()):
            raise ValueError(f"{key}={parts[key][:20]} is not a number Google reads")
    step, count = int(parts.get("INTERVAL", "1")), int(parts.get("COUNT", "730"))
    if step < 1:
        raise ValueError("INTERVAL must be at least 1")
    last = parts.get("UNTIL")
    end = (
        dt.datetime.strptime(last[:8], "%Y%m%d").replace(tzinfo=dt.timezone.utc)
        + dt.timedelta(days=1)
        if last and len(last) == 8
        else dt.datetime.strptime(last, "%Y%m%dT%H%M%SZ").replace(tzinfo=dt.timezone.utc)
        if last
        else None
    )
    days = [_DAYS.index(d[-2:]) for d in parts.get("BYDAY", "").split(",") if d]
    return step, count, end, days


def _period(freq: str, first: dt.datetime, n: int, days: list[int]) -> list[dt.datetime]:
    """The wall-clock starts in the ``n``-th period of a rule starting at ``first``."""
    if freq == "WEEKLY":
        week = first + dt.timedelta(weeks=n)
        monday = week - dt.timedelta(days=week.weekday())
        return [monday + dt.timedelta(days=d) for d in sorted(days)] if days else [week]
    if freq == "MONTHLY":
        month = first.month - 1 + n
        return [first.replace(year=first.year + month // 12, month=month % 12 + 1)]
    if freq == "YEARLY":
        return [first.replace(year=first.year + n)]
    return [first + dt.timedelta(days=n)]


def _instance(
    master: dict[str, Any], wall: dt.datetime, zone: ZoneInfo, length: dt.timedelta, all_day: bool
) -> dict[str, Any]:
    body = {k: v for k, v in master.items() if k not in ("recurrence", "id", "htmlLink")}
    if all_day:
        day = wall.date()
        suffix = f"{day:%Y%m%d}"
        times = {
            "start": {"date": day.isoformat()},
            "end": {"date": (day + length).isoformat()},
        }
        original = {"date": day.isoformat()}
    else:
        start = wall.replace(tzinfo=zone)
        utc = start.astimezone(dt.timezone.utc)
        suffix = f"{utc:%Y%m%dT%H%M%SZ}"
        name = master["start"].get("timeZone")
        end = (utc + length).astimezone(zone)
        times = {
            "start": {"dateTime": start.isoformat(), "timeZone": name},
            "end": {"dateTime": end.isoformat(), "timeZone": name},
        }
        original = {"dateTime": start.isoformat(), "timeZone": name}
    instance_id = f"{master['id']}_{suffix}"
    return {
        **body,
        **times,
        "id": instance_id,
        "recurringEventId": master["id"],
        "originalStartTime": original,
        "htmlLink": f"https://www.google.com/calendar/event?eid={instance_id}",
    }


def timed_event(event_id: str, title: str, start: str, end: str, **extra: Any) -> dict[str, Any]:
    """An event as the Calendar API returns it, in New York time."""
    return {
        "id": event_id,
        "status": "confirmed",
        "summary": title,
        "htmlLink": f"https://www.google.com/calendar/event?eid={event_id}",
        "start": {"dateTime": start, "timeZone": "America/New_York"},
        "end": {"dateTime": end, "timeZone": "America/New_York"},
        "organizer": {"email": "ada@example.com", "displayName": "Ada Lovelace"},
        **extra,
    }
