"""The mcp SDK internals compat_mcp leans on, checked against the pinned mcp.

Each test names the internal (its number in the compat module's banner). When an upgrade of
mcp fails one, read the banner and its changes before touching anything else: the results
a client stores, its limit of running calls and its resumable streams rest on these.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import pytest
from mcp.server import Server
from mcp.server.auth.settings import AuthSettings
from mcp.server.context import Context
from mcp.server.session import ServerSession
from mcp.server.streamable_http import StreamableHTTPServerTransport
from starlette.testclient import TestClient

from toolspecs.server.compat_mcp import connection_of, routes_first


def test_1_a_request_session_keeps_the_client_connection_in_connection():
    params = inspect.signature(ServerSession.__init__).parameters
    assert "connection" in params
    connection = SimpleNamespace(protocol_version="2025-06-18")
    first = ServerSession(None, connection)
    second = ServerSession(None, connection)
    assert first._connection is connection
    assert connection_of(first) is connection_of(second) is connection


def test_1_mcp_server_context_reads_the_same_attribute_publicly():
    assert "return self._connection" in inspect.getsource(Context.connection.fget)


def test_1_a_connection_says_whether_it_has_a_session():
    from mcp.server.connection import Connection

    # A stateful session's loop has its id; mcp's stateless requests have none.
    assert Connection.for_loop(None, session_id="abc").session_id == "abc"
    assert Connection.from_envelope("2025-11-25", None, None).session_id is None


def test_1_without_it_each_request_is_a_session_of_its_own():
    session = object()
    assert connection_of(session) is session


class _Verifier:
    async def verify_token(self, token):
        return None


def test_2_routes_put_first_answer_before_mcps_own_metadata():
    from mcp.server.auth.routes import create_protected_resource_routes

    settings = AuthSettings(
        issuer_url="https://login.example.com",
        resource_server_url="http://127.0.0.1:8000/mcp",
        required_scopes=["a"],
        validate_token_resource=True,
    )
    app = Server("t").streamable_http_app(auth=settings, token_verifier=_Verifier())
    path = "/.well-known/oauth-protected-resource/mcp"
    client = TestClient(app)  # no lifespan: the metadata route needs no session manager
    assert client.get(path).json()["scopes_supported"] == ["a"]  # mcp's own
    ours = create_protected_resource_routes(
        resource_url=settings.resource_server_url,
        authorization_servers=[settings.issuer_url],
        scopes_supported=["a", "b"],
    )
    routes_first(app, ours)
    assert client.get(path).json()["scopes_supported"] == ["a", "b"]


class _Store:
    def __init__(self, session, requestor):
        self.session, self.requestor = session, requestor


def test_3_each_admitted_session_gets_a_store_of_its_own():
    from toolspecs.server.compat_mcp import give_sessions_event_stores

    server = Server("t")
    server.streamable_http_app()
    manager = server.session_manager
    assert manager.event_store is None  # mcp's one store for all sessions: not used
    assert give_sessions_event_stores(manager, _Store)
    first, second = manager._admit_session({"client_id": "a"}), manager._admit_session(None)
    for transport, requestor in ((first, {"client_id": "a"}), (second, None)):
        assert isinstance(transport._event_store, _Store)
        assert transport._event_store.session == transport.mcp_session_id
        assert transport._event_store.requestor == requestor
    # The transport reads the attribute where it primes, stores and replays events.
    source = inspect.getsource(StreamableHTTPServerTransport)
    assert source.count("self._event_store") >= 4


def test_3_without_the_method_nothing_is_changed_and_it_says_so():
    from toolspecs.server.compat_mcp import give_sessions_event_stores

    assert give_sessions_event_stores(SimpleNamespace(), _Store) is False


def test_4_the_manager_knows_which_sessions_this_process_holds():
    from toolspecs.server.compat_mcp import holds_session

    server = Server("t")
    server.streamable_http_app()
    manager = server.session_manager
    transport = manager._admit_session(None)
    assert holds_session(manager, transport.mcp_session_id) is True
    assert holds_session(manager, "another") is False
    assert holds_session(SimpleNamespace(), "another") is None


def test_5_a_check_of_ours_sees_the_owners_of_open_sessions_before_mcp_admits_one():
    from toolspecs.server.compat_mcp import check_admissions

    server = Server("t")
    server.streamable_http_app()
    manager = server.session_manager
    seen: list = []

    def check(requestor, owners):
        seen.append((requestor, owners))
        if requestor == {"client_id": "b"}:
            raise LookupError("refused")

    assert check_admissions(manager, check)
    first = manager._admit_session({"client_id": "a"})
    assert seen == [({"client_id": "a"}, [])]
    with pytest.raises(LookupError):
        manager._admit_session({"client_id": "b"})
    assert seen[-1] == ({"client_id": "b"}, [{"client_id": "a"}])
    assert list(manager._server_instances) == [first.mcp_session_id]  # b was not admitted
    # mcp admits under its lock and forgets a session's owner when the session ends.
    source = inspect.getsource(type(manager))
    assert "self._admit_session(requestor)" in source
    assert "self._session_owners.pop(session_id, None)" in source
    assert check_admissions(SimpleNamespace(), check) is False
