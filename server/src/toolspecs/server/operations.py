"""What running a server among others needs beside MCP: health, readiness, request ids, logs.

:class:`Operations` wraps the ASGI app that :func:`toolspecs.server.serve_http` serves:

- ``GET /healthz``: 200 ``{"status": "ok"}`` while the process answers (liveness);
- ``GET /readyz``: 200 ``{"status": "ready"}`` once the app has started (mcp's session
  manager runs) and until shutdown begins, else 503 ``{"status": "starting"}`` or
  ``{"status": "draining"}``: a load balancer sends no new call to a replica that is
  stopping, while the calls it has finish. Neither needs the token, and neither says
  anything about users or tools.
- **A request id** on every request: the ``X-Request-Id`` a load balancer sent when it is a
  short id of safe characters, else a new one. It goes on to the app (the tool-call log
  of :mod:`toolspecs.server.server` reads it) and back in the response's ``X-Request-Id``.
- **One access-log record** per request (logger ``toolspecs.access``, INFO): request id,
  method, path, status, milliseconds, and who called (the verified token's subject and
  client) when the request was authenticated. Never a header value, query string or
  body: no token can reach the log. The fields are record attributes (``extra``): a JSON
  formatter (``toolspecs serve --log-format json``) writes them as keys. The path is
  logged as the client sent it (still percent-encoded), anything but a visible ASCII
  character escaped (:func:`logged_path`): an unauthenticated ``GET /mcp%0A...`` cannot
  start a line of its own in the text log (issue 38, finding 9).
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import pythonjsonlogger.json as formats

from toolspecs.server.users import access_in

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
    """Where the server is in its life: readiness reads it.

    Attributes:
        started: The app's startup finished (its lifespan said so).
        draining: Shutdown began: no new calls, the running ones finish.
    """

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
    if token is None:
        return {}
    found = {"client": str(token.client_id)}
    if token.subject:
        found["user"] = str(token.subject)
    return found


def logged_path(scope: Scope) -> str:
    r"""The request's path as received, on one line of visible characters.

    ``raw_path`` (the bytes sent, ``%0A`` still ``%0A``) where the server gives it, else
    the decoded ``path``; a space, a control character, a backslash or anything past
    ASCII is written ``\xNN`` (``\uNNNN``), so no path ends a log line or fakes one.
    """
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
    """The ASGI app of ``serve_http``, with health, readiness, request ids and access logs.

    Args:
        app: The MCP app (``server.streamable_http_app(...)``).
        state: Shared with the process's server, which marks it draining on shutdown.
    """

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
        if path == HEALTH_PATH:
            await _json(send, 200, {"status": "ok"})
            return
        if path == READY_PATH:
            status = self.state.status
            await _json(send, 200 if status == "ready" else 503, {"status": status})
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
    """Write the access and tool-call records (and toolspecs' warnings) to ``stream``.

    Args:
        style: ``"json"`` (one object per line: ``timestamp`` in UTC, ``level``,
            ``logger``, ``message`` and the record's fields, e.g. ``request_id``,
            ``status``, ``user``), ``"text"`` (one readable line), or ``"off"``.
        stream: Where to (default standard error).

    Returns:
        The handler added to the ``toolspecs`` logger (``None`` for ``"off"``).
    """
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


async def _json(send: Send, status: int, body: dict[str, str]) -> None:
    data = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(data)).encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": data})
