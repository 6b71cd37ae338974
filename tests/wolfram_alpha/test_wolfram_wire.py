"""Wolfram|Alpha as users run it: an AppID, ``base_url=``, requests and httpx, a real socket.

The spec is built as a user builds it (``app_id=``, or ``WOLFRAM_ALPHA_APP_ID``), pointed
with the base-URL option at :class:`~toolspecs.loaders.wolfram_alpha.testing.WolframAlphaServer`
(the shipped ``FakeWolframAlpha`` on 127.0.0.1, accepting one AppID as Wolfram does): the
LLM API goes out with ``requests.get`` and the Full Results API with httpx, as a user's
call does. Every tool is called through ``tool.call`` with arguments an agent sends, and
its answer checked against the fake's recordings and arithmetic. No test here passes
``transport=`` or reads a private attribute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from wire_calls import Tally

from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha, WolframAlphaServer
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

APP_ID = "DEMO-K7Q2X9R4T1"
TALLY = Tally("Wolfram|Alpha")


@pytest.fixture(scope="module", autouse=True)
def _publish(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    TALLY.publish(request.config)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[WolframAlphaServer]:
    """Wolfram on 127.0.0.1, taking one AppID; no proxy of the machine's in between."""
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with WolframAlphaServer(FakeWolframAlpha(app_ids={APP_ID}), gzip=True) as running:
        yield running  # answers gzip-compressed for requests and httpx, as Wolfram sends them


def tools_of(spec: WolframAlphaToolSpec) -> dict:
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}


def every_tool(server: WolframAlphaServer, tools: dict) -> None:
    """Each tool of ``tools`` (every tool of the spec) called, its answer checked."""
    with TALLY.calling_every(tools):
        query, pods = tools["wolfram_alpha_query"], tools["wolfram_alpha_pods"]
        TALLY.call(query, ["Exact result:\n144473849856/107"], query="(7 * 12 ^ 10) / 321")
        TALLY.call(query, ["Result:\n373.12 K (kelvins)"], query="boiling point of water in K")
        TALLY.call(
            query,
            ["Pi (movie)", "director | Darren Aronofsky"],
            query="pi",
            assumption="*C.pi-_*Movie-",
        )
        TALLY.call(
            query, ["299792458 m/s"], query="speed of light", units="SI", location="Boston, MA"
        )
        TALLY.call(query, ["Result:\n4"], query="2+2")
        TALLY.call(
            pods,
            ["Indefinite integral:", "Possible intermediate steps:", "= -x^2 cos(x) + 2 x sin(x)"],
            query="integrate x^2 sin x",
            steps=True,
        )
        TALLY.call(
            pods,
            ["Decimal approximation:\n3.14159265358979", "assumption=«*C.pi-_*Movie-»"],
            query="pi",
            pod="Decimal approximation",
        )
        TALLY.call(pods, ["Exact result:\n7/2", "Decimal approximation:\n3.5"], query="7/2")
        TALLY.call(query, ["did not understand"], error=True, query="asdkjh qwpoe zzzz")
        asked = server.fake.requests
        assert server.received == len(asked) == 9  # every answer came over the socket
        assert {r.app_id for r in asked} == {APP_ID}
        llm = [r for r in asked if r.api == "llm"]
        assert all("appid" not in r.params for r in llm)  # a header, never the URL
        assert llm[3].params["units"] == "metric" and llm[3].params["location"] == "Boston, MA"
        assert ("podstate", "Step-by-step solution") in asked[5].pairs


def test_every_tool_with_app_id(server: WolframAlphaServer):
    every_tool(server, tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url)))


def test_every_tool_with_the_environment_variable(
    server: WolframAlphaServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("WOLFRAM_ALPHA_APP_ID", f"{APP_ID}\n")  # as a key file reads
    every_tool(server, tools_of(WolframAlphaToolSpec(base_url=server.url)))


def test_a_wrong_app_id_is_refused_as_wolfram_refuses_it(server: WolframAlphaServer):
    tools = tools_of(WolframAlphaToolSpec(app_id="WRONG-APPID-1", base_url=server.url))
    for name in ("wolfram_alpha_query", "wolfram_alpha_pods"):
        TALLY.call(
            tools[name],
            ["refused the AppID", "Invalid appid", "Do not retry", "WOLFRAM_ALPHA_APP_ID"],
            error=True,
            absent=["WRONG-APPID-1"],
            query="pi",
        )
    assert [r.app_id for r in server.fake.requests] == ["WRONG-APPID-1"] * 2  # not retried


def test_a_server_error_is_retry_later(server: WolframAlphaServer):
    tools = tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url))
    server.fake.fail = [503, 502]  # Retry-After 30 s on the 503: past the deadline's room
    TALLY.call(tools["wolfram_alpha_query"], ["server error (HTTP 503)"], error=True, query="pi")
    server.fake.retry_after = None  # the 502 is tried again after a second, then answers
    TALLY.call(tools["wolfram_alpha_pods"], ["Decimal approximation"], query="pi")
    assert server.received == 3


def test_a_slow_answer_ends_at_the_call_deadline(server: WolframAlphaServer):
    spec = WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url)
    spec.call_deadline = 1.5  # what a user sets; the answer trickles 16 bytes a second
    server.fake.fail = ["slow", "slow"]
    tools = tools_of(spec)
    for name in ("wolfram_alpha_query", "wolfram_alpha_pods"):
        started = time.monotonic()
        TALLY.call(tools[name], ["did not answer within", "Try again"], error=True, query="2+2")
        assert time.monotonic() - started < 5


def test_a_huge_or_dropped_answer_is_guidance(server: WolframAlphaServer):
    import httpx

    tools = tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url))
    server.fake.fail = ["huge"]  # 8 MB without Content-Length: read to the 2 MB cap
    TALLY.call(
        tools["wolfram_alpha_pods"],
        ["gave no answer", "the reply is over 2097152 bytes"],
        error=True,
        query="pi",
    )
    server.fake.fail = [httpx.ReadError("dropped")] * 2  # the connection closes unanswered
    TALLY.call(
        tools["wolfram_alpha_query"], ["could not be reached", "127.0.0.1"], error=True, query="pi"
    )


def test_a_mirror_serving_its_own_images_is_linked(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    with WolframAlphaServer(images_here=True) as server:
        tools = tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url))
        TALLY.call(
            tools["wolfram_alpha_pods"],
            [f"Plots of the integral» {server.url}/Calculate/MSP/"],
            absent=["wolframalpha.com/Calculate"],
            query="integrate x^2 sin x",
        )


def test_the_base_url_is_checked_when_the_spec_is_made():
    with pytest.raises(ValueError, match="use https for any other host"):
        WolframAlphaToolSpec(app_id=APP_ID, base_url="http://wolfram-mirror.example.com")
    with pytest.raises(ValueError, match="has a query or a fragment"):
        WolframAlphaToolSpec(app_id=APP_ID, base_url="https://mirror.example.com/?appid=x")
    spec = WolframAlphaToolSpec(app_id=APP_ID, base_url="https://wolfram-mirror.example.com/")
    assert spec.client.base_url == "https://wolfram-mirror.example.com"


def test_concurrent_calls_on_the_wire(server: WolframAlphaServer):
    from concurrent.futures import ThreadPoolExecutor

    tools = tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url))
    asks = [("wolfram_alpha_query", "6*7", "42"), ("wolfram_alpha_pods", "6*8", "48")] * 2
    asks += [("wolfram_alpha_query", "2^10", "1024"), ("wolfram_alpha_pods", "3^4", "81")]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda a: TALLY.call(tools[a[0]], [f"Result:\n{a[2]}"], query=a[1]), asks))
    assert 4 <= server.received <= 6  # identical queries may be answered from the cache


def test_the_reader_on_the_wire(server: WolframAlphaServer):
    from toolspecs.loaders.wolfram_alpha import WolframAlphaReader

    (answer,) = WolframAlphaReader(app_id=APP_ID, base_url=server.url).load_data("2+2")
    assert "Result:\n4" in answer.text
    assert answer.metadata["url"] == "https://www.wolframalpha.com/input?i=2%2B2"
    assert server.fake.requests[-1].app_id == APP_ID


def test_llamahubs_api_params_appid_and_a_mirror_under_a_path(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    fake = FakeWolframAlpha(app_ids={APP_ID})
    with WolframAlphaServer(fake, prefix="/wolfram") as server:
        spec = WolframAlphaToolSpec(api_params={"appid": APP_ID}, base_url=server.url)
        tools = tools_of(spec)
        TALLY.call(tools["wolfram_alpha_query"], ["Exact result:\n7/2"], query="7/2")
        TALLY.call(tools["wolfram_alpha_pods"], ["Result:\n12"], query="3*4")
        assert [(r.api, r.app_id) for r in fake.requests] == [("llm", APP_ID), ("full", APP_ID)]
        assert "appid" not in fake.requests[0].params  # a header on the LLM API


def test_the_async_path_on_the_wire(server: WolframAlphaServer):
    import asyncio

    tools = tools_of(WolframAlphaToolSpec(app_id=APP_ID, base_url=server.url))
    query = tools["wolfram_alpha_query"]
    asyncio.run(TALLY.acall(query, ["373.12 K"], query="boiling point of water in K"))


def test_the_command_line_on_the_wire(server: WolframAlphaServer, capsys: pytest.CaptureFixture):
    from toolspecs.cli import main

    options = ["--option", f"base_url={server.url}", "--option", f"app_id={APP_ID}"]
    assert main(["call", "wolfram_alpha.wolfram_alpha_query", *options, "query=6*7"]) == 0
    assert "Result:\n42" in capsys.readouterr().out
    TALLY.calls += 1  # a call through the CLI, its answer checked above
    refused = ["--option", "base_url=http://wolfram-mirror.example.com", "--option", "app_id=K"]
    assert main(["call", "wolfram_alpha.wolfram_alpha_query", *refused, "query=6*7"]) == 2
    said = capsys.readouterr().err
    assert "cannot build spec 'wolfram_alpha'" in said and "use https for any other host" in said
    assert server.fake.requests[-1].params["input"] == "6*7"  # nothing sent for the refusal
