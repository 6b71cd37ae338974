"""The review of issue 13: a slow body on the requests path, an AppID with a newline, DNS.

A slow body is served for real by a local ``http.server`` (127.0.0.1, one byte every
0.2 s), so both HTTP stacks read from a socket; the other failures are stopped at
``socket.getaddrinfo`` or inside requests/httpx, before anything leaves the machine.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
import requests
from toolsets import by_name

from toolspecs.core import AskUser
from toolspecs.loaders.wolfram_alpha import (
    AppIdMalformed,
    WolframAlphaClient,
    WolframAlphaTimeout,
    WolframAlphaUnreachable,
)
from toolspecs.loaders.wolfram_alpha import client as client_module
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

SECRET = "SECRETKEY123"
# The slow server: one byte every 0.2 s, 300 bytes in all (a 60 s body).
STEP_SECONDS = 0.2
BODY_BYTES = 300


# -- 1. the deadline holds on a slow body, on both paths ------------------------------


@dataclass
class SlowServer:
    """What the slow server did: the bytes it sent, and whether to stop."""

    url: str = ""
    sent: int = 0
    stop: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def slow_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[SlowServer]:
    """A server on 127.0.0.1 that sends a text body one byte every ``STEP_SECONDS``."""
    state = SlowServer()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(BODY_BYTES))
            self.end_headers()
            try:
                for _ in range(BODY_BYTES):
                    if state.stop.wait(STEP_SECONDS):
                        return
                    self.wfile.write(b"7")
                    self.wfile.flush()
                    state.sent += 1
            except OSError:  # the client went away: what we wanted
                return

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    monkeypatch.setattr(client_module, "LLM_API_URL", f"{state.url}/api/v1/llm-api")
    monkeypatch.setattr(client_module, "FULL_RESULTS_URL", f"{state.url}/v2/query")
    try:
        yield state
    finally:
        state.stop.set()
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("api", ["llm_answer", "full_results"])
def test_a_slow_body_ends_at_the_deadline_on_both_paths(slow_server: SlowServer, api: str):
    # llm_answer goes out with requests.get (no transport), full_results with httpx.
    client = WolframAlphaClient("K", timeout=1, deadline=2, retries=0)
    started = time.monotonic()
    with pytest.raises(WolframAlphaTimeout, match="did not answer within 2 seconds") as caught:
        getattr(client, api)("2+2")
    sent = slow_server.sent
    assert "did not arrive in full within 2 seconds" in caught.value.reason
    # A read to the end would have taken all 300 bytes (60 s); at the deadline about 10
    # had come. The bound is loose: a busy machine may be slow, not 10 times slower.
    assert 0 < sent < BODY_BYTES // 3
    assert time.monotonic() - started < 20  # against a 60 s body


# -- 2. the AppID: whitespace, control characters, never in guidance ------------------


def test_an_app_id_read_from_a_file_with_its_newline_works(mocked_responses):
    mocked_responses.get(client_module.LLM_API_URL, body="Result:\n4", content_type="text/plain")
    spec = WolframAlphaToolSpec(app_id=f"{SECRET}\n")
    out = spec.call_tool("wolfram_alpha_query", query="2+2")
    assert out.is_error is False and "Result:\n4" in out.content
    assert mocked_responses.calls[0].request.headers["Authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize(
    "where", ["argument", "api_params", "WOLFRAM_ALPHA_APP_ID", "WOLFRAMALPHA_API_KEY"]
)
def test_surrounding_whitespace_is_stripped_wherever_the_app_id_is_read(
    where: str, monkeypatch: pytest.MonkeyPatch
):
    fake = FakeWolframAlpha()
    kwargs: dict[str, object] = {"transport": fake.transport()}
    if where == "argument":
        kwargs["app_id"] = f"  {SECRET}\r\n"
    elif where == "api_params":
        kwargs["api_params"] = {"appid": f"{SECRET}\n"}
    else:
        monkeypatch.setenv(where, f"{SECRET}\n")
    out = WolframAlphaToolSpec(**kwargs).call_tool("wolfram_alpha_pods", query="pi")  # type: ignore[arg-type]
    assert out.is_error is False
    assert fake.requests[0].app_id == SECRET


BAD_APP_IDS = [f"{SECRET}\nX", f"{SECRET} X", f"{SECRET}\tX", f"{SECRET}\x00X", f"{SECRET}\x7f"]


@pytest.mark.parametrize("app_id", BAD_APP_IDS)
@pytest.mark.parametrize("tool", WolframAlphaToolSpec.all_functions)  # every tool
def test_an_app_id_with_inner_whitespace_asks_the_user_without_showing_it(app_id, tool):
    fake = FakeWolframAlpha()
    for spec in (
        WolframAlphaToolSpec(app_id=app_id),  # the LLM API over requests.get
        WolframAlphaToolSpec(app_id=app_id, transport=fake.transport()),
    ):
        with pytest.raises(AskUser) as caught:
            by_name(spec.to_tool_list(spec_functions=spec.all_functions))[tool].fn(query="2+2")
        text = str(caught.value)
        assert "AppID" in text and "WOLFRAM_ALPHA_APP_ID" in text
        assert "spaces or control characters" in text
        assert SECRET not in text and "SECRET" not in text
    assert fake.requests == []  # nothing was sent


def test_the_client_refuses_such_an_app_id_before_sending(mocked_responses):
    with pytest.raises(AppIdMalformed) as caught:
        WolframAlphaClient(f"{SECRET}\nX").llm_answer("2+2")
    assert SECRET not in str(caught.value) and SECRET not in caught.value.reason
    assert caught.value.__cause__ is None
    assert len(mocked_responses.calls) == 0


def test_a_header_requests_refuses_is_a_settings_error_not_an_unreachable_host(
    mocked_responses,
):
    # requests refusing the Authorization header, as in the review (faked at its
    # transport): the agent is told to ask the user, not to retry a "connection".
    refused = requests.exceptions.InvalidHeader(
        f"Invalid leading whitespace, reserved character(s), or return character(s) in "
        f"header value: {('Bearer ' + SECRET + chr(10))!r}"
    )
    mocked_responses.get(client_module.LLM_API_URL, body=refused)
    spec = WolframAlphaToolSpec(app_id=SECRET)
    with pytest.raises(AskUser) as caught:
        spec.to_tool_list()[0].fn(query="2+2")
    text = str(caught.value)
    assert "could not connect" not in text and "Wait a minute" not in text
    assert SECRET not in text and "AppID" in text


def test_a_header_httpx_refuses_is_a_settings_error_too():
    def send(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value b'Bearer {SECRET}\\n'")

    spec = WolframAlphaToolSpec(app_id=SECRET, transport=httpx.MockTransport(send))
    for fn in spec.to_tool_list():
        with pytest.raises(AskUser) as caught:
            fn.fn(query="2+2")
        assert SECRET not in str(caught.value) and "AppID" in str(caught.value)


def test_scrub_hides_the_app_id_as_repr_shows_it():
    client = WolframAlphaClient(SECRET)
    client.app_id = f"{SECRET}\n"  # set later, as LlamaHub's ``token`` allows
    shown = f"InvalidHeader: {('Bearer ' + SECRET + chr(10))!r}"
    assert SECRET not in client._scrub(shown)


# -- 3. DNS: EAI_AGAIN is tried once more after 0.5 s, EAI_NONAME is final -------------


@pytest.mark.parametrize(
    ("api", "host"),
    [("llm_answer", "www.wolframalpha.com"), ("full_results", "api.wolframalpha.com")],
)
def test_a_temporary_dns_failure_gets_one_more_try_after_half_a_second(no_dns, sleeps, api, host):
    with pytest.raises(WolframAlphaUnreachable) as caught:
        getattr(WolframAlphaClient("K", retries=3), api)("2+2")
    assert no_dns == [host, host] and sleeps == [0.5]
    assert (caught.value.host, caught.value.resolved) == (host, False)
    assert caught.value.reason == f"could not resolve {host} (no network or DNS?)"


@pytest.mark.parametrize(
    ("api", "host"),
    [("llm_answer", "www.wolframalpha.com"), ("full_results", "api.wolframalpha.com")],
)
def test_a_name_that_does_not_exist_is_final_at_once(no_dns_noname, sleeps, api, host):
    with pytest.raises(WolframAlphaUnreachable) as caught:
        getattr(WolframAlphaClient("K", retries=3), api)("2+2")
    assert no_dns_noname == [host] and sleeps == []
    assert caught.value.resolved is False


def test_a_temporary_dns_failure_that_clears_is_answered(mocked_responses, sleeps):
    # The first try fails as requests words a failed lookup (EAI_AGAIN); the second is answered.
    again = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    mocked_responses.get(client_module.LLM_API_URL, body=requests.ConnectionError(again))
    mocked_responses.get(client_module.LLM_API_URL, body="Result:\n4", content_type="text/plain")
    assert WolframAlphaClient("K", retries=0).llm_answer("2+2") == "Result:\n4"
    assert len(mocked_responses.calls) == 2 and sleeps == [0.5]


def test_no_dns_retry_when_the_deadline_leaves_no_time(no_dns, sleeps):
    with pytest.raises(WolframAlphaUnreachable):
        WolframAlphaClient("K", deadline=1).llm_answer("2+2")
    assert len(no_dns) == 1 and sleeps == []


def test_behind_a_proxy_the_guidance_says_the_name_may_be_the_proxys(
    no_dns_noname, sleeps, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.example:3128")
    monkeypatch.setenv("https_proxy", "http://proxy.example:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    tools = by_name(WolframAlphaToolSpec(app_id="K").to_tool_list())
    query, pods = tools["wolfram_alpha_query"], tools["wolfram_alpha_pods"]
    with pytest.raises(AskUser) as caught:
        query.fn(query="2+2")  # requests: urllib3 names the host it failed to resolve
    assert "could not resolve proxy.example" in str(caught.value)
    with pytest.raises(AskUser) as caught:
        pods.fn(query="2+2")  # httpx: the host is not in the error
    assert "could not resolve api.wolframalpha.com (or the proxy)" in str(caught.value)
    assert sleeps == []
