"""Running a server: over stdio (what desktop clients start), or streamable HTTP."""

from __future__ import annotations

import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import uvicorn
from mcp.server import Server, stdio

from toolspecs.core.errors import ConfigurationError
from toolspecs.server import auth
from toolspecs.server.operations import Operations, ServeState
from toolspecs.server.sessions import MAX_SESSIONS_PER_USER, bound_per_user

if TYPE_CHECKING:
    from toolspecs.server.oauth import OAuthSettings
    from toolspecs.server.sse_events import EventBackend

MCP_PATH = "/mcp"
# mcp's defaults (10,000 sessions, 30 minutes idle) let one client fill the server for half
# an hour; a person's server needs far fewer.
MAX_SESSIONS = 64
SESSION_IDLE_SECONDS = 600.0
# On SIGTERM or Ctrl-C, calls in flight get this long to finish (a spec's default deadline
# is 30 s) before they are cancelled; a cancelled call still queued is never made.
GRACEFUL_SECONDS = 35.0


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until the client closes them."""
    async with stdio.stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


async def serve_http(
    server: Server[Any],
    host: str = "127.0.0.1",
    port: int = 8000,
    ready: Callable[[str], None] | None = None,
    *,
    token: str | None = None,
    oauth: OAuthSettings | None = None,
    sign_in: Callable[[str], Any] | None = None,
    allow_remote: bool = False,
    allowed_hosts: Sequence[str] = (),
    max_sessions: int = MAX_SESSIONS,
    max_sessions_per_user: int = MAX_SESSIONS_PER_USER,
    session_idle: float = SESSION_IDLE_SECONDS,
    graceful: float = GRACEFUL_SECONDS,
    stateless: bool = False,
    events: EventBackend | None = None,
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted.

    Every request must carry ``Authorization: Bearer TOKEN`` (else 401) and name this server
    in ``Host`` (else 421): :mod:`toolspecs.server.auth`. ``/healthz`` and ``/readyz`` answer
    without it; on SIGTERM the calls in flight get ``graceful`` seconds to finish.

    Args:
        server: From :func:`toolspecs.server.build_server`.
        host: The address to listen on; the default takes connections from this machine only.
        port: The port; ``0`` picks a free one.
        ready: Called with the URL once the port is bound (the actual port when ``0``).
        token: The bearer token clients must send (:func:`toolspecs.server.auth.bearer_token`).
        oauth: Instead: the authorization server whose access tokens are accepted.
        sign_in: Instead: called with the server's URL, the provider of a sign-in that makes
            this server its clients' authorization server (``SignInProvider``).
        allow_remote: Listen on an address other machines can reach.
        allowed_hosts: More host names clients may use in ``Host``.
        max_sessions: At most this many sessions at once (then 503).
        max_sessions_per_user: At most this many of them for one user (then 429).
        session_idle: Seconds after which a session nobody uses is closed.
        graceful: Seconds the calls in flight get to finish at shutdown.
        stateless: No sessions: any replica answers any request; results are the caller's.
        events: Where sessions keep their SSE events for resumption (default: this process).

    Raises:
        ConfigurationError: For a non-loopback address without ``allow_remote``, a short
            token, or not exactly one of ``token``, ``oauth`` and ``sign_in``.
    """
    if [token, oauth, sign_in].count(None) != 2:
        raise ConfigurationError("serve_http takes a token, oauth settings or sign_in, one of them")
    if token is not None:
        token = auth.checked_token(token, "the token given")
    # We bind the socket ourselves: port 0 can say which port it got, and what is checked
    # is the address really bound, not how --host was written.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.create_server((host, port), family=family)
    try:
        address, bound = listening.getsockname()[:2]
        if not auth.is_loopback(address) and not allow_remote:
            raise ConfigurationError(
                f"--host {host} ({address}) takes connections from other machines; "
                "add --allow-remote to serve them (they need the token), or use 127.0.0.1"
            )
        security = auth.transport_security(address, bound, allowed_hosts)
    except BaseException:
        listening.close()
        raise
    shown = f"[{address}]" if family == socket.AF_INET6 else address
    url = f"http://{shown}:{bound}{MCP_PATH}"
    app = http_app(
        server,
        url,
        security,
        token=token,
        oauth=oauth,
        sign_in=sign_in,
        max_sessions=max_sessions,
        max_sessions_per_user=max_sessions_per_user,
        session_idle=session_idle,
        stateless=stateless,
        events=events,
    )
    state = ServeState()
    if ready is not None:
        ready(url)

    class Draining(uvicorn.Server):
        # handle_exit is uvicorn's public signal handler (SIGTERM, SIGINT): readiness turns
        # 503 at once, while uvicorn closes the listener and waits for the calls in flight.
        def handle_exit(self, sig: int, frame: Any) -> None:
            state.draining = True
            super().handle_exit(sig, frame)

    config = uvicorn.Config(
        Operations(app, state),
        log_level="warning",
        # uvicorn annotates an int but waits with it as a timeout: fractions of a second work.
        timeout_graceful_shutdown=graceful,  # type: ignore[arg-type]
    )
    await Draining(config).serve(sockets=[listening])


def http_app(
    server: Server[Any],
    url: str,
    security: Any,
    *,
    token: str | None = None,
    oauth: OAuthSettings | None = None,
    sign_in: Callable[[str], Any] | None = None,
    max_sessions: int = MAX_SESSIONS,
    max_sessions_per_user: int = MAX_SESSIONS_PER_USER,
    session_idle: float = SESSION_IDLE_SECONDS,
    stateless: bool = False,
    events: EventBackend | None = None,
) -> Any:
    """The app :func:`serve_http` serves at ``url`` (``security``: the DNS-rebinding check)."""
    sessions = {
        "streamable_http_path": MCP_PATH,
        "transport_security": security,
        "max_sessions": max_sessions,
        "session_idle_timeout": session_idle,
        "stateless_http": stateless,
    }
    if sign_in is not None:
        from toolspecs.server.signin_app import sign_in_app

        app = sign_in_app(server, sign_in(url), **sessions)
    elif oauth is None:
        settings, verifier = auth.auth_settings(url), auth.StaticTokenVerifier(token or "")
        app = server.streamable_http_app(auth=settings, token_verifier=verifier, **sessions)
    else:
        from toolspecs.server.oauth import publish_scopes, resource_settings

        settings, verifier = resource_settings(oauth, url)
        app = server.streamable_http_app(auth=settings, token_verifier=verifier, **sessions)
        publish_scopes(app, settings, oauth.scopes_supported)
    if not stateless:
        from toolspecs.server.resumption import make_resumable
        from toolspecs.server.sse_events import MemoryEvents

        make_resumable(server.session_manager, MemoryEvents() if events is None else events)
        bound_per_user(app, server.session_manager, max_sessions_per_user, session_idle)
    return app
