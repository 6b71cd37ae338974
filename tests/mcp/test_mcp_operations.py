"""Health, readiness, request ids and logs of `toolspecs serve --http` (mcp/operations.py).

The wrapper is tested here around a real Starlette app (what mcp's streamable HTTP app
is); the real server with it in tests/mcp/test_mcp_http.py.
"""

from __future__ import annotations

import logging

import anyio
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from toolspecs.server.operations import Operations, ServeState


def echo_app(seen: list[dict]) -> Starlette:
    async def mcp(request: Request) -> PlainTextResponse:
        seen.append({"request_id": request.headers.get("x-request-id")})
        # What mcp's auth middleware does for a verified token.
        token = AccessToken(token="secret-token-value", client_id="desk", scopes=[], subject="ada")
        request.scope["user"] = AuthenticatedUser(token)
        return PlainTextResponse("answered", headers={"X-Request-Id": "from-the-app"})

    return Starlette(routes=[Route("/mcp", mcp, methods=["POST"])])


async def readiness(app: Operations) -> int:
    """The status ``GET /readyz`` answers, asked in the ASGI app directly."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b""}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/readyz", "headers": []}
    await app(scope, receive, send)
    return int(sent[0]["status"])


async def a_life(app: Operations) -> tuple[list[str], list[int]]:
    """Start ``app`` and stop it (the lifespan protocol); readiness along the way."""
    inbox = [{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}]
    answered: list[str] = []
    ready: list[int] = []

    async def receive() -> dict:
        ready.append(await readiness(app))  # before startup, then while it runs
        return inbox.pop(0)

    async def send(message: dict) -> None:
        answered.append(message["type"])

    with anyio.fail_after(10):
        await app({"type": "lifespan", "asgi": {"version": "3.0"}}, receive, send)
    ready.append(await readiness(app))  # after shutdown began
    return answered, ready


def test_health_and_readiness_follow_the_life_of_the_server():
    state = ServeState()
    app = Operations(echo_app([]), state)
    client = TestClient(app)  # not entered: no lifespan, as before a server starts
    assert client.get("/healthz").json() == {"status": "ok"}
    starting = client.get("/readyz")
    assert (starting.status_code, starting.json()) == (503, {"status": "starting"})
    assert starting.headers["cache-control"] == "no-store"

    answered, ready = anyio.run(a_life, app)
    assert answered == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
    assert ready == [503, 200, 503]  # starting, ready, draining

    fresh = ServeState(started=True)
    app = Operations(echo_app([]), fresh)
    assert TestClient(app).get("/readyz").status_code == 200
    fresh.draining = True  # the server was told to stop (SIGTERM): no new calls here
    draining = TestClient(app).get("/readyz")
    assert (draining.status_code, draining.json()) == (503, {"status": "draining"})
    assert TestClient(app).get("/healthz").status_code == 200  # alive while calls finish


def test_every_request_has_an_id_passed_on_returned_and_logged_without_the_token(caplog):
    seen: list[dict] = []
    app = Operations(echo_app(seen))
    client = TestClient(app)  # not entered: no lifespan, as before a server starts
    caplog.set_level(logging.INFO, logger="toolspecs.access")
    given = client.post("/mcp", headers={"X-Request-Id": "lb-7f3a.1"})
    assert given.text == "answered"
    assert given.headers.get_list("x-request-id") == ["lb-7f3a.1"]  # ours, once
    made = client.post("/mcp", headers={"X-Request-Id": "x" * 65})  # too long: a new one
    (new,) = made.headers.get_list("x-request-id")
    assert len(new) == 32 and new != "x" * 65
    odd = client.post("/mcp", headers={"X-Request-Id": "a b;c"})
    assert odd.headers["x-request-id"] not in ("a b;c", new)
    assert [s["request_id"] for s in seen] == ["lb-7f3a.1", new, odd.headers["x-request-id"]]

    records = [r for r in caplog.records if r.name == "toolspecs.access"]
    assert [r.request_id for r in records] == [s["request_id"] for s in seen]
    first = records[0]
    assert (first.method, first.path, first.status, first.user, first.client) == (
        "POST",
        "/mcp",
        200,
        "ada",
        "desk",
    )
    assert all("secret-token-value" not in str(vars(r)) for r in records)


def test_a_path_is_logged_as_sent_on_one_line_even_from_a_server_without_raw_path():
    from toolspecs.server.operations import logged_path

    sent = {"raw_path": b"/mcp%0Aforged", "path": "/mcp\nforged", "query_string": b"t=1"}
    assert logged_path(sent) == "/mcp%0Aforged"
    assert logged_path({"raw_path": b"/mcp?token=x"}) == "/mcp"  # never a query string
    decoded = {"path": "/mcp\r\n2026 toolspecs.access POST /x 200 \\ \u202e\x00"}
    assert logged_path(decoded) == (
        "/mcp\\x0d\\x0a2026\\x20toolspecs.access\\x20POST\\x20/x\\x20200\\x20\\x5c\\x20\\u202e\\x00"
    )
