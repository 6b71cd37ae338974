"""A service's base URL: https anywhere, plain http on this machine only; what lies under it."""

from __future__ import annotations

import pytest
import requests

from toolspecs.base.net import BaseUrlRefused, base_url, is_loopback, under
from toolspecs.base.net.testing import LoopbackServer, WireAnswer, WireRequest
from toolspecs.loaders.arxiv import ArxivClient, ArxivReader
from toolspecs.loaders.wolfram_alpha import WolframAlphaClient, WolframAlphaReader


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://arxiv-mirror.example.com", "https://arxiv-mirror.example.com"),
        ("https://Mirror.Example.com:8443/arxiv/", "https://mirror.example.com:8443/arxiv"),
        ("  https://mirror.example.com/a/b  ", "https://mirror.example.com/a/b"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://127.8.9.10/x", "http://127.8.9.10/x"),
        ("http://[::1]:9000/", "http://[::1]:9000"),
        ("http://localhost:9000", "http://localhost:9000"),
    ],
)
def test_https_anywhere_and_http_on_this_machine_are_taken(given: str, kept: str):
    assert base_url(given, service="arXiv") == kept


@pytest.mark.parametrize(
    ("given", "why"),
    [
        ("http://arxiv-mirror.example.com", "use https for any other host"),
        ("http://10.0.0.5:8080", "use https for any other host"),
        ("http://localhost.evil.example", "use https for any other host"),
        ("ftp://mirror.example.com", "not an http(s) URL with a host"),
        ("mirror.example.com", "not an http(s) URL with a host"),
        ("https://", "not an http(s) URL with a host"),
        ("https://me:pw@mirror.example.com", "credentials are not taken in a URL"),
        ("https://mirror.example.com/?appid=x", "has a query or a fragment"),
        ("https://mirror.example.com/#top", "has a query or a fragment"),
        ("https://mirror.example.com/a/../b", "its path holds '..'"),
        ("https://mirror.example.com:http", "cannot be read"),
        ("https://mirror.example.com/a b", "spaces or control characters"),
        ("https://mirror.example.com/\r\nX: y", "spaces or control characters"),
        ("", "is empty"),
    ],
)
def test_anything_else_is_refused_with_the_reason(given: str, why: str):
    with pytest.raises(BaseUrlRefused, match="base URL of Wolfram") as refused:
        base_url(given, service="Wolfram|Alpha")
    assert why in str(refused.value)
    assert isinstance(refused.value, ValueError)


def test_loopback_is_this_machine_only():
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["10.0.0.1", "0.0.0.0", "localhost.example", "::"]))


@pytest.mark.parametrize(
    ("url", "inside"),
    [
        ("https://m.example.com/arxiv/pdf/1706.03762v7", True),
        ("https://m.example.com:443/arxiv/api/query?x=1", True),
        ("https://M.example.com/arxiv", True),
        ("https://m.example.com/arxivx/pdf/1", False),  # a sibling path, not under
        ("https://m.example.com/arxiv/../admin", False),
        ("https://m.example.com/arxiv/%2e%2e/admin", False),
        ("https://m.example.com/arxiv/..%2Fadmin", False),
        ("https://m.example.com/arxiv/pdf/hep-th%2F9711200v1", True),
        ("https://m.example.com/other", False),
        ("http://m.example.com/arxiv/pdf/1", False),
        ("https://m.example.com:8443/arxiv/pdf/1", False),
        ("https://evil.example/arxiv/pdf/1", False),
        ("https://m.example.com@evil.example/arxiv/pdf/1", False),
        ("https://user@m.example.com/arxiv/pdf/1", False),
        ("https://m.example.com:bad/arxiv", False),
    ],
)
def test_under_the_base(url: str, inside: bool):
    assert under("https://m.example.com/arxiv", url) is inside


def test_a_base_at_the_root_holds_every_path_of_its_host():
    assert under("http://127.0.0.1:8080", "http://127.0.0.1:8080/pdf/1706.03762")
    assert not under("http://127.0.0.1:8080", "http://127.0.0.1:8081/pdf/1706.03762")


def test_the_arxiv_client_fetches_only_under_its_base():
    mirror = ArxivClient(base_url="https://m.example.com/arxiv")
    assert mirror.allows("https://m.example.com/arxiv/pdf/1706.03762v7")
    assert not mirror.allows("https://arxiv.org/pdf/1706.03762v7")
    assert mirror.query_url_format == "https://m.example.com/arxiv/api/query?{}"
    assert mirror.delay_seconds == 3.0  # a mirror keeps arXiv's pace
    assert ArxivClient(base_url="http://127.0.0.1:9").delay_seconds == 0.0  # this machine
    arxiv_itself = ArxivClient()
    assert arxiv_itself.base_url is None and arxiv_itself.allows("https://arxiv.org/pdf/1")
    with pytest.raises(ValueError, match="client= or base_url="):
        ArxivReader(arxiv_itself, base_url="https://m.example.com")
    with pytest.raises(BaseUrlRefused):
        ArxivReader(base_url="http://m.example.com")


def test_the_wolfram_client_takes_its_base_for_both_apis():
    client = WolframAlphaClient("K", base_url="https://w.example.com/wa/")
    assert client.base_url == "https://w.example.com/wa"
    assert client.under_base("https://w.example.com/wa/Calculate/MSP/x.gif")
    assert not client.under_base("https://www6b3.wolframalpha.com/Calculate/MSP/x.gif")
    assert not WolframAlphaClient("K").under_base("https://w.example.com/wa/x")
    with pytest.raises(BaseUrlRefused, match="use https"):
        WolframAlphaReader(app_id="K", base_url="http://w.example.com")


def test_a_loopback_server_answers_streams_and_drops(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")

    def answer(request: WireRequest) -> WireAnswer | None:
        if request.path == "/drop":
            return None
        body = iter([b"hello ", request.query.encode()])
        return WireAnswer(200, {"Content-Type": "text/plain"}, body)

    with LoopbackServer(answer) as server:
        assert server.url.startswith("http://127.0.0.1:")
        reply = requests.get(f"{server.url}/x?a=1", timeout=5)
        assert reply.status_code == 200 and reply.text == "hello a=1"
        with pytest.raises(requests.ConnectionError):
            requests.get(f"{server.url}/drop", timeout=5)
        assert server.received == 2
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.url


def test_a_loopback_server_under_a_prefix(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    seen: list[str] = []

    def answer(request: WireRequest) -> WireAnswer:
        seen.append(request.path)
        return WireAnswer(200, {"Content-Length": "2"}, [b"ok"])

    with LoopbackServer(answer, prefix="mirror/") as server:
        assert server.url.endswith("/mirror")
        assert requests.get(f"{server.url}/api/query", timeout=5).text == "ok"
        assert requests.get(server.url, timeout=5).text == "ok"
        assert requests.get(server.url + "x/api", timeout=5).status_code == 404  # /mirrorx
    assert seen == ["/api/query", "/"]


def test_a_loopback_server_compresses_for_clients_that_accept_it(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")

    def answer(request: WireRequest) -> WireAnswer:
        return WireAnswer(200, {"Content-Length": "12"}, [b"hello ", b"world!"])

    with LoopbackServer(answer, gzip=True) as server:
        packed = requests.get(server.url, timeout=5)
        plain = requests.get(server.url, headers={"Accept-Encoding": "identity"}, timeout=5)
    assert packed.headers["Content-Encoding"] == "gzip" and packed.text == "hello world!"
    assert "Content-Encoding" not in plain.headers and plain.text == "hello world!"
