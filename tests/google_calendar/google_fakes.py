"""A fake Google Calendar at the HTTP layer: an ``httplib2.Http`` stand-in for googleapiclient.

It serves ``calendars.get``, ``events.list/get/insert/patch/delete`` and ``freebusy.query``
from memory, records every request, can be told to fail (status and Google's error JSON),
and checks each request body against the schema in the bundled ``calendar.v3`` discovery
document, so a body Google would reject fails the test.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import googleapiclient
import httplib2

DISCOVERY = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"


def discovery(name: str) -> dict[str, Any]:
    return json.loads((DISCOVERY / f"{name}.json").read_text(encoding="utf-8"))


class SchemaError(AssertionError):
    pass


def check_schema(value: Any, schema: dict[str, Any], doc: dict[str, Any], path: str = "$") -> None:
    """Check ``value`` against a discovery-document schema: known fields and their types."""
    if "$ref" in schema:
        schema = doc["schemas"][schema["$ref"]]
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            raise SchemaError(f"{path}: expected an object, got {value!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                check_schema(item, props[key], doc, f"{path}.{key}")
            elif extra is not None:
                check_schema(item, extra, doc, f"{path}.{key}")
            else:
                raise SchemaError(f"{path}: unknown field {key!r}")
    elif kind == "array":
        if not isinstance(value, list):
            raise SchemaError(f"{path}: expected an array, got {value!r}")
        for index, item in enumerate(value):
            check_schema(item, schema["items"], doc, f"{path}[{index}]")
    elif kind == "string":
        if not isinstance(value, str):
            raise SchemaError(f"{path}: expected a string, got {value!r}")
        if schema.get("format") == "date" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise SchemaError(f"{path}: not an RFC 3339 date: {value!r}")
        if schema.get("format") == "date-time" and not re.fullmatch(
            r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})", value
        ):
            raise SchemaError(f"{path}: not an RFC 3339 date-time with offset: {value!r}")
    elif kind == "boolean" and not isinstance(value, bool):
        raise SchemaError(f"{path}: expected a boolean, got {value!r}")
    elif kind == "integer" and not isinstance(value, int):
        raise SchemaError(f"{path}: expected an integer, got {value!r}")


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any


@dataclass
class FakeCalendar:
    """Google Calendar in memory. ``fail[(METHOD, suffix)]`` = list of statuses to answer first."""

    timezone: str = "America/New_York"
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    busy: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    unknown_calendars: set[str] = field(default_factory=set)
    fail: dict[tuple[str, str], list[tuple[int, str, str]]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    next_id: int = 1

    def __post_init__(self) -> None:
        self.doc = discovery("calendar.v3")

    # the httplib2.Http interface googleapiclient uses
    def request(
        self, uri, method="GET", body=None, headers=None, redirections=5, connection_type=None
    ):
        parsed = urlparse(uri)
        path = unquote(parsed.path).removeprefix("/calendar/v3")
        payload = json.loads(body) if body else None
        self.requests.append(Request(method, path, parse_qs(parsed.query), payload))
        for (fail_method, suffix), queue in self.fail.items():
            if fail_method == method and path.endswith(suffix) and queue:
                status, reason, message = queue.pop(0)
                return self._error(status, reason, message)
        return self._route(method, path, parse_qs(parsed.query), payload)

    def _reply(self, status: int, content: Any) -> tuple[httplib2.Response, bytes]:
        data = b"" if content is None else json.dumps(content).encode()
        return httplib2.Response({"status": str(status), "content-type": "application/json"}), data

    def _error(self, status: int, reason: str, message: str):
        error = {
            "error": {
                "code": status,
                "message": message,
                "errors": [{"domain": "global", "reason": reason, "message": message}],
            }
        }
        return self._reply(status, error)

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any):
        parts = path.strip("/").split("/")
        if method == "GET" and parts[0] == "calendars" and len(parts) == 2:
            return self._reply(
                200,
                {
                    "kind": "calendar#calendar",
                    "id": parts[1],
                    "summary": "Ada",
                    "timeZone": self.timezone,
                },
            )
        if method == "POST" and path == "/freeBusy":
            check_schema(body, {"$ref": "FreeBusyRequest"}, self.doc)
            calendars = {}
            for item in body["items"]:
                if item["id"] in self.unknown_calendars:
                    calendars[item["id"]] = {
                        "errors": [{"domain": "global", "reason": "notFound"}],
                        "busy": [],
                    }
                else:
                    calendars[item["id"]] = {"busy": self.busy.get(item["id"], [])}
            return self._reply(
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
        return self._error(404, "notFound", "Not Found")

    def _events(self, method: str, event_id: str | None, query, body):
        if method == "GET" and event_id is None:
            items = sorted(self.events.values(), key=lambda e: json.dumps(e["start"]))
            if "q" in query:
                items = [e for e in items if query["q"][0].lower() in json.dumps(e).lower()]
            limit = int(query.get("maxResults", ["250"])[0])
            return self._reply(200, {"kind": "calendar#events", "items": items[:limit]})
        if method == "POST":
            check_schema(body, {"$ref": "Event"}, self.doc)
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
            return self._reply(200, event)
        if event_id not in self.events:
            return self._error(404, "notFound", "Not Found")
        if method == "GET":
            return self._reply(200, self.events[event_id])
        if method == "PATCH":
            check_schema(body, {"$ref": "Event"}, self.doc)
            self.events[event_id] = {**self.events[event_id], **body}
            return self._reply(200, self.events[event_id])
        if method == "DELETE":
            del self.events[event_id]
            return self._reply(204, None)
        return self._error(405, "methodNotAllowed", "Method not allowed")


def timed_event(event_id: str, title: str, start: str, end: str, **extra: Any) -> dict[str, Any]:
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
