"""A fake Google Calendar: ``calendars.get``, ``events.list/get/insert/patch/delete``, ``freeBusy``.

Pass it as ``GoogleCalendarToolSpec(transport=FakeCalendar())``; bodies are checked against the
bundled ``calendar.v3`` discovery document, and every write (insert, patch, delete) must say
``sendUpdates`` (who Google emails about it) explicitly: a write that leaves it to Google's
default fails the test that sent it (``require_send_updates = False`` allows it).
"""

from __future__ import annotations

import json
from typing import Any

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
    ) -> None:
        super().__init__()
        self.timezone = timezone
        self.events: dict[str, dict[str, Any]] = dict(events or {})
        self.busy: dict[str, list[dict[str, str]]] = dict(busy or {})
        self.unknown_calendars: set[str] = set()
        self.next_id = 1
        self.require_send_updates = True
        # (method, event id, sendUpdates) of every write, in order.
        self.notifications: list[tuple[str, str | None, str | None]] = []

    def route(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Reply:
        """Answer a Calendar request."""
        parts = path.strip("/").split("/")
        if method == "GET" and parts[0] == "calendars" and len(parts) == 2:
            return self.reply(
                200,
                {
                    "kind": "calendar#calendar",
                    "id": parts[1],
                    "summary": "Ada",
                    "timeZone": self.timezone,
                },
            )
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
            return self._events(method, event_id, query, body)
        return self.error(404, "notFound", "Not Found")

    def _events(
        self, method: str, event_id: str | None, query: dict[str, list[str]], body: Any
    ) -> Reply:
        if method in ("POST", "PATCH", "PUT", "DELETE"):
            self._check_send_updates(method, event_id, query)
        if method == "GET" and event_id is None:
            items = sorted(self.events.values(), key=lambda e: json.dumps(e["start"]))
            if "q" in query:
                items = [e for e in items if query["q"][0].lower() in json.dumps(e).lower()]
            limit = int(query.get("maxResults", ["250"])[0])
            return self.reply(200, {"kind": "calendar#events", "items": items[:limit]})
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
        if event_id not in self.events:
            return self.error(404, "notFound", "Not Found")
        if method == "GET":
            return self.reply(200, self.events[event_id])
        if method == "PATCH":
            self.check(body, "Event")
            self.events[event_id] = {**self.events[event_id], **body}
            return self.reply(200, self.events[event_id])
        if method == "DELETE":
            del self.events[event_id]
            return self.reply(204, None)
        return self.error(405, "methodNotAllowed", "Method not allowed")

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
