"""What running a server among others needs beside MCP: health, readiness, request ids, logs.

``/healthz`` and ``/readyz`` (503 while starting or draining) need no token and say
nothing of users. Each request gets an ``X-Request-Id`` and one access-log record, never a
header value, query or body, so no token reaches the log; the path is logged with all but
visible ASCII escaped, so ``GET /mcp%0A...`` cannot forge a log line (issue 38).
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import pythonjsonlogger.json as formats
from starlette.responses import JSONResponse

from toolspecs.server.users import access_in, who

__all__ = [
    "HEALTH_PATH",
    "READY_PATH",
    "Operations",
    "ServeState",
    "caller_of",
    "log_requests",
    "logged_path",
]

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
REQUEST_ID_HEADER = b"x-request-id"
# A request id we pass on: what load balancers send (uuids, nginx's $request_id).
_SAFE_ID = re.compile(rb"[A-Za-z0-9._-]{1,64}")
# What a logged path never carries as it is: all but visible ASCII, and the backslash.
_HIDDEN = re.compile(r"[^\x21-\x5b\x5d-\x7e]")

access_log = logging.getLogger("toolspecs.access")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class ServeState:
    """Where the server is in its life (its app started; shutdown began): readiness reads it."""

    started: bool = False
    draining: bool = False

    @property
    def status(self) -> str:
        """``"ready"``, ``"starting"`` or ``"draining"``."""
        if self.draining:
            return "draining"
        return "ready" if self.started else "starting"


def caller_of(scope: Scope) -> dict[str, str]:
    """Who made an authenticated request: the token's subject and client, never the token."""
    token = access_in(scope)
    return {} if token is None else who(token.client_id, token.subject)


def logged_path(scope: Scope) -> str:
    """The request's path as received (``%0A`` still ``%0A``), on one line of visible characters."""
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) else str(scope.get("path", ""))
    path = path.partition("?")[0]  # never a query string, should a server leave it there
    return _HIDDEN.sub(_escaped, path)


def _escaped(found: re.Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def request_id(scope: Scope) -> str:
    """The request's id: the load balancer's when safe, else a new one (set in the scope)."""
    headers: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
    for name, value in headers:
        if name == REQUEST_ID_HEADER and _SAFE_ID.fullmatch(value):
            return value.decode("ascii")
    made = uuid.uuid4().hex
    scope["headers"] = [(n, v) for n, v in headers if n != REQUEST_ID_HEADER]
    scope["headers"].append((REQUEST_ID_HEADER, made.encode("ascii")))
    return made


class Operations:
    """The ASGI app of ``serve_http``, with health, readiness, request ids and access logs."""

    def __init__(self, app: App, state: ServeState | None = None) -> None:
        self.app = app
        self.state = state or ServeState()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer health and readiness here; pass everything else on, with an id and a log."""
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._watch_lifespan(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        if path in (HEALTH_PATH, READY_PATH):
            status = "ok" if path == HEALTH_PATH else self.state.status
            code = 200 if status in ("ok", "ready") else 503
            no_store = {"Cache-Control": "no-store"}
            await JSONResponse({"status": status}, code, no_store)(scope, receive, send)
            return
        await self._logged(scope, receive, send)

    async def _logged(self, scope: Scope, receive: Receive, send: Send) -> None:
        rid = request_id(scope)
        started = time.monotonic()
        status = 500  # unless the app answers

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                headers = [
                    (n, v)
                    for n, v in message.get("headers") or []
                    if n.lower() != REQUEST_ID_HEADER
                ]
                message["headers"] = [*headers, (REQUEST_ID_HEADER, rid.encode("ascii"))]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            path = logged_path(scope)
            access_log.info(
                "%s %s %s",
                scope.get("method", ""),
                path,
                status,
                extra={
                    "request_id": rid,
                    "method": scope.get("method", ""),
                    "path": path,
                    "status": status,
                    "ms": round((time.monotonic() - started) * 1000, 1),
                    **caller_of(scope),
                },
            )

    def _watch_lifespan(self, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "lifespan.startup.complete":
                self.state.started = True
            elif message["type"].startswith("lifespan.shutdown"):
                self.state.draining = True
            await send(message)

        return sending


def log_requests(style: str, stream: Any = None) -> logging.Handler | None:
    """Write the access and tool-call records to ``stream`` (``style``: json, text or off)."""
    if style == "off":
        return None
    handler = logging.StreamHandler(stream)
    if style == "json":
        handler.setFormatter(
            formats.JsonFormatter(
                "{levelname}{name}{message}",
                style="{",
                timestamp=True,
                rename_fields={"levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
    logger = logging.getLogger("toolspecs")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    return handler
