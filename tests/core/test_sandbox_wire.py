"""The sandboxes run what users run: each spec built as a user builds it, over the wire.

Each built-in sandbox serves its fake on 127.0.0.1 in this process and returns the
arguments a user passes to reach the service: google-auth credentials and
``client_options`` (Google), ``base_url`` (arXiv), ``app_id`` and ``base_url``
(Wolfram|Alpha); never ``transport=``. A test that looks at a fake starts a server of its
own with the sandbox's public ``start`` and builds the spec with its ``connect``.
"""

from __future__ import annotations

import gc
import importlib
import os
import time
from typing import Any

import pytest
from google.api_core.client_options import ClientOptions
from google.oauth2.credentials import Credentials

from toolspecs.base.net.testing import direct_to_loopback
from toolspecs.core import load_spec
from toolspecs.core.registry import list_sandboxes, sandbox_arguments, sandbox_spec
from toolspecs.loaders.google.scopes import CALENDAR
from toolspecs.loaders.google.testing import FakeGoogleServer


def sandbox(name: str) -> Any:
    return importlib.import_module(f"toolspecs.specs.{name}.sandbox")


def stopped(server: FakeGoogleServer, within: float = 10.0) -> bool:
    """Whether ``server`` stops listening within ``within`` seconds (its ``url`` then raises)."""
    end = time.monotonic() + within
    while time.monotonic() < end:
        gc.collect()
        try:
            server.url  # noqa: B018
        except RuntimeError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.dates
def test_every_sandbox_gives_what_a_user_passes_and_no_transport():
    assert list_sandboxes() == ("arxiv", "gmail", "google_calendar", "wolfram_alpha")
    for name in ("gmail", "google_calendar"):
        built = sandbox_arguments(name)
        assert set(built) == {"creds", "client_options"}
        creds, options = built["creds"], built["client_options"]
        assert type(creds) is Credentials and creds.valid and creds.refresh_token
        assert creds.token_uri == options.api_endpoint + "token"
        assert isinstance(options, ClientOptions)
        assert options.api_endpoint.startswith("http://127.0.0.1:")
    assert set(sandbox_arguments("arxiv")) == {"base_url"}
    wolfram = sandbox_arguments("wolfram_alpha")
    assert set(wolfram) == {"app_id", "base_url"} and wolfram["app_id"] == "sandbox"
    for name in list_sandboxes():
        assert "transport" not in sandbox_arguments(name)


@pytest.mark.dates
@pytest.mark.parametrize("name", ["gmail", "google_calendar"])
def test_a_google_sandbox_server_stops_once_its_spec_is_gone(monkeypatch, name):
    servers: list[FakeGoogleServer] = []
    start = sandbox(name).start

    def recorded(latency: float = 0.0) -> FakeGoogleServer:
        servers.append(start(latency))
        return servers[-1]

    monkeypatch.setattr(sandbox(name), "start", recorded)
    spec = sandbox_spec(name)
    assert not spec.call_tool("load_data").is_error  # the server answers while the spec lives
    (server,) = servers
    assert not stopped(server, within=0.2)
    del spec
    assert stopped(server)


@pytest.mark.dates
def test_a_google_sandbox_renews_a_token_google_refuses_mid_session():
    module = sandbox("gmail")
    with module.start() as google:
        spec = load_spec("gmail", **module.connect(google))
        first = spec.auth.creds.token
        google.oauth.refuse(first)  # as after a revocation: the next call meets a 401
        out = spec.call_tool("search_messages", query="lunch", max_results=1)
        assert not out.is_error, out.content
        assert spec.auth.creds.token != first  # renewed at the server's token endpoint
        assert ("POST", google.token_uri) in google.oauth.requests


def test_a_sandbox_google_takes_another_googles_tokens_and_checks_its_own():
    import httplib2

    with FakeGoogleServer() as google:
        mine = google.user_credentials("ada@example.com", [CALENDAR])
        url = f"{google.url}calendar/v3/users/me/calendarList"

        def status(token: str) -> int:
            http = httplib2.Http(proxy_info=None)
            try:
                answer, _ = http.request(url, headers={"authorization": f"Bearer {token}"})
            finally:
                http.close()
            return int(answer.status)

        assert status("ya29.from-another-google") == 401  # by default, as Google answers
        google.other_tokens = True  # a sandbox behind a sign-in elsewhere
        assert status("ya29.from-another-google") == 200
        assert status(mine.token) == 200
        google.oauth.refuse(mine.token)
        assert status(mine.token) == 401  # a token this Google refuses stays refused


@pytest.mark.parametrize("name", ["arxiv", "wolfram_alpha"])
def test_a_read_only_sandbox_answers_every_spec_from_one_server(name):
    first, second = sandbox_spec(name), sandbox_spec(name)
    served = sandbox(name).shared_server()
    tool = "arxiv_query" if name == "arxiv" else "wolfram_alpha_query"
    asked = len(served.fake.requests)
    for spec in (first, second):
        assert not spec.call_tool(tool, query="attention" if name == "arxiv" else "2+2").is_error
    assert len(served.fake.requests) > asked


def test_this_machine_is_reached_without_the_environments_proxy(monkeypatch):
    monkeypatch.setenv("NO_PROXY", "corp.example, .internal")
    monkeypatch.delenv("no_proxy", raising=False)
    direct_to_loopback()
    direct_to_loopback()  # once is enough: nothing added twice
    assert os.environ["NO_PROXY"] == os.environ["no_proxy"]
    assert os.environ["NO_PROXY"].split(",") == [
        "corp.example",
        ".internal",
        "127.0.0.1",
        "::1",
        "localhost",
    ]
    monkeypatch.setenv("no_proxy", "*")
    direct_to_loopback()
    assert os.environ["no_proxy"] == "*"
