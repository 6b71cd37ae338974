"""The mcp SDK internals compat_mcp leans on, checked against the pinned mcp.

Each test names the internal (its number in the compat module's banner). When an upgrade of
mcp fails one, read the banner and its changes before touching anything else: the results
a client stores, and its limit of running calls, rest on these.
"""

from __future__ import annotations

import inspect
from types import SimpleNamespace

from mcp.server.context import Context
from mcp.server.session import ServerSession

from toolspecs.mcp.compat_mcp import connection_of


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


def test_1_without_it_each_request_is_a_session_of_its_own():
    session = object()
    assert connection_of(session) is session
