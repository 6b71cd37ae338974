"""Resumable SSE streams for stateful HTTP sessions: mcp's ``EventStore``, one per session.

mcp's one store keys streams by request id, which repeats across sessions, so one session
could replay another's answers: each session gets its own :class:`SessionEvents`
(``compat_mcp`` 3). A replay of a call still running waits for its answer (up to
:data:`FOLLOW_SECONDS`) and ends with it, so the answer cannot slip between the replay and
mcp's live tail. With Redis, :class:`ResumeElsewhere` answers a resume for another
replica's session after mcp's own checks, for the credential that opened it only.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, authorization_context
from mcp.server.streamable_http import (
    GET_STREAM_KEY,
    LAST_EVENT_ID_HEADER,
    MCP_SESSION_ID_HEADER,
    EventCallback,
    EventMessage,
    EventStore,
    check_accept_headers,
)
from mcp.server.transport_security import TransportSecurityMiddleware
from mcp_types import JSONRPCError, JSONRPCMessage, JSONRPCResponse, jsonrpc_message_adapter
from sse_starlette import EventSourceResponse
from starlette.requests import Request

from toolspecs.server import compat_mcp
from toolspecs.server.sessions import jsonrpc_error
from toolspecs.server.sse_events import EventBackend, event_id, owner_digest, parse_event_id

__all__ = ["FOLLOW_SECONDS", "RETRY_MS", "ResumeElsewhere", "SessionEvents", "make_resumable"]

logger = logging.getLogger(__name__)

# What the priming event tells a client to wait before reconnecting (mcp's clients wait
# one second when told nothing).
RETRY_MS = 1000
# How long a replay waits for the answer of a call still running before it ends.
FOLLOW_SECONDS = 120.0

Send = Callable[[str, str], Awaitable[None]]


async def replay(
    events: EventBackend,
    session: str,
    last_event_id: str,
    send: Send,
    follow: float = FOLLOW_SECONDS,
) -> str | None:
    """Send ``session``'s events after ``last_event_id``, following its call.

    Returns the stream's id while it goes on (mcp then tails it live), or ``None`` when it
    ended or nothing of it is kept (the resumed stream then ends too).
    """
    parsed = parse_event_id(last_event_id)
    if parsed is None:
        return None
    key, seen = parsed
    until = anyio.current_time() + follow
    stream_id: str | None = None
    while True:
        found = await events.after(session, key, seen)
        stream_id = found.stream_id or stream_id
        for number, data in found.events:
            if data is not None:  # a priming event has nothing to send
                await send(event_id(key, number), data)
            seen = number
        if stream_id is None or found.ended:
            return None
        if stream_id == GET_STREAM_KEY:
            return stream_id
        left = until - anyio.current_time()
        if left <= 0:
            return stream_id
        await events.wait(session, key, left)


class SessionEvents(EventStore):
    """mcp's ``EventStore`` for one session: its events kept in ``events``, its own only."""

    def __init__(self, events: EventBackend, session: str, owner: str) -> None:
        self.events = events
        self.session = session
        self.owner = owner

    async def store_event(self, stream_id: str, message: JSONRPCMessage | None) -> str:
        """Keep one event of the session (``None``: a priming event); its id."""
        data = (
            None if message is None else message.model_dump_json(by_alias=True, exclude_unset=True)
        )
        final = isinstance(message, JSONRPCResponse | JSONRPCError)
        return await self.events.add(self.session, self.owner, stream_id, data, final)

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        """Replay this session's events after ``last_event_id``, following a running call."""

        async def send(sent_id: str, data: str) -> None:
            message = jsonrpc_message_adapter.validate_json(data)
            await send_callback(EventMessage(message, sent_id))

        return await replay(self.events, self.session, last_event_id, send)


def make_resumable(manager: Any, events: EventBackend) -> bool:
    """Give each session of mcp's ``manager`` its :class:`SessionEvents`; whether it could."""

    def store(session: str, requestor: Any) -> SessionEvents:
        return SessionEvents(events, session, owner_digest(requestor))

    if not compat_mcp.give_sessions_event_stores(manager, store):
        logger.warning("SSE streams cannot be resumed: this mcp cannot scope events to sessions")
        return False
    manager.retry_interval = RETRY_MS  # each transport reads it when its session is admitted
    if events.shared:
        manager.asgi_app = ResumeElsewhere(manager.asgi_app, manager, events)
    return True


class ResumeElsewhere:
    """ASGI: a ``GET`` with ``Last-Event-ID`` for a session another replica holds; else mcp's."""

    def __init__(self, app: Any, manager: Any, events: EventBackend) -> None:
        self.app = app
        self.manager = manager
        self.events = events
        self.security = TransportSecurityMiddleware(manager.security_settings)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Answer a resume for another replica's session from the shared events."""
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        session = request.headers.get(MCP_SESSION_ID_HEADER)
        last = request.headers.get(LAST_EVENT_ID_HEADER)
        if not session or not last or compat_mcp.holds_session(self.manager, session) is not False:
            await self.app(scope, receive, send)
            return
        refused = await self.security.validate_request(request, is_post=False)
        if refused is None and not check_accept_headers(request)[1]:
            refused = jsonrpc_error("Not Acceptable: Client must accept text/event-stream", 406)
        user = scope.get("user")
        requestor = authorization_context(user) if isinstance(user, AuthenticatedUser) else None
        if refused is None and await self.events.owner(session) != owner_digest(requestor):
            refused = jsonrpc_error("Session not found", 404)  # mcp's answer to an unknown session
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self._replay(session, last)(scope, receive, send)

    def _replay(self, session: str, last: str) -> EventSourceResponse:
        writer, reader = anyio.create_memory_object_stream[dict[str, Any]](0)

        async def sending() -> None:
            async with writer:

                async def send(sent_id: str, data: str) -> None:
                    await writer.send({"event": "message", "id": sent_id, "data": data})

                await replay(self.events, session, last, send)

        headers = {"Cache-Control": "no-cache, no-transform", MCP_SESSION_ID_HEADER: session}
        return EventSourceResponse(content=reader, data_sender_callable=sending, headers=headers)
