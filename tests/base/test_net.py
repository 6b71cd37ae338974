"""toolspecs.base.net: the plumbing the three loaders share, in the bottom layer."""

from __future__ import annotations

import email.utils
import importlib.metadata
import socket
import time
from pathlib import Path

import httpx
import pytest
import requests

import toolspecs.base.net as net
from toolspecs.base.net import (
    BoundedGet,
    GetTimeout,
    HeaderRefused,
    LoaderError,
    LookupRetry,
    NoConnection,
    ReplyTooLarge,
    causes,
    failed_host,
    lookup_failure,
    retry_after,
    temporary,
)
from toolspecs.loaders.arxiv import ArxivLoaderError, ArxivUnreachable
from toolspecs.loaders.google import GoogleApiError, GoogleLoaderError, GoogleUnreachable
from toolspecs.loaders.wolfram_alpha import WolframAlphaLoaderError, WolframAlphaUnreachable

NET = Path(__file__).parents[2] / "base" / "src" / "toolspecs" / "base" / "net"


def test_all_names_what_is_public():
    public = {name for name in vars(net) if not name.startswith("_")}
    modules = {"base_urls", "bounded", "compat_requests", "errors", "testing"}
    assert set(net.__all__) == public - modules
    assert sorted(net.__all__, key=str.casefold) == sorted(net.__all__, key=str.casefold)


def test_it_depends_on_nothing_of_ours_nor_beyond_the_standard_library():
    requires = importlib.metadata.requires("toolspecs-base") or []
    assert sorted(r.replace("'", '"') for r in requires) == [
        'httpx>=0.27; extra == "httpx"',
        'requests>=2.28; extra == "requests"',
        'urllib3>=2; extra == "requests"',
    ]
    for source in NET.rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "toolspecs.core" not in text and "toolspecs.loaders.arxiv" not in text, source


def test_every_loaders_errors_derive_from_the_one_base():
    for base in (ArxivLoaderError, WolframAlphaLoaderError, GoogleLoaderError, GoogleApiError):
        assert issubclass(base, LoaderError)
    for error in (
        ArxivUnreachable("export.arxiv.org", resolved=False),
        WolframAlphaUnreachable("api.wolframalpha.com", resolved=False),
        GoogleUnreachable("gmail.googleapis.com", resolved=False),
    ):
        assert error.reason == f"could not resolve {error.host} (no network or DNS?)"
        assert (error.status, error.retry_after) == (None, None)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        (None, None),
        ("", None),
        ("soon", None),
        ("1.5", None),
        ("-5", None),
        ("nan", None),
        ("inf", None),
        ("²", None),
    ],
)
def test_retry_after_in_seconds(value, seconds):
    assert retry_after(value) == seconds


def test_retry_after_as_an_http_date_is_measured_from_the_real_time():
    assert 590 <= retry_after(email.utils.formatdate(time.time() + 600, usegmt=True)) <= 600
    assert retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # past: now


def test_causes_walk_cause_context_args_and_reason_once_each():
    inner = socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
    middle = OSError("wrapper")
    middle.reason = inner  # as urllib3's MaxRetryError keeps it
    outer = requests.ConnectionError(middle)
    outer.__context__ = outer  # a loop is walked once
    assert list(causes(outer)) == [outer, middle, inner]
    assert lookup_failure(outer) is inner and temporary(inner)
    assert not temporary(socket.gaierror(socket.EAI_NONAME, "Name or service not known"))
    assert failed_host(outer) is None


def test_a_temporary_lookup_failure_gets_one_more_try_when_it_fits():
    lookups = LookupRetry()
    assert not lookups.allows(again=False)
    assert not lookups.allows(again=True, fits=False)
    assert lookups.allows(again=True) and lookups.wait == net.DNS_RETRY_WAIT == 0.5
    assert not lookups.allows(again=True)  # one, no more


def get(handler, **kwargs) -> BoundedGet:
    options = {"timeout": 5.0, "max_bytes": 100, "retries": 1}
    return BoundedGet(transport=httpx.MockTransport(handler), **options | kwargs)


def test_the_last_reply_is_returned_whatever_its_status(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.base.net.bounded.time.sleep", slept.append)
    answers = [httpx.Response(503, headers={"Retry-After": "3"}), httpx.Response(404, text="no")]
    reply = get(lambda request: answers.pop(0)).get("https://example.org/x", {}, budget=30.0)
    assert (reply.ok, reply.status, reply.text) == (False, 404, "no")
    assert slept == [3.0]  # Retry-After was waited, within the budget


def test_a_wait_past_the_budget_returns_at_once(monkeypatch):
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.base.net.bounded.time.sleep", slept.append)
    answer = httpx.Response(429, headers={"Retry-After": "60"})
    reply = get(lambda request: answer).get("https://example.org/x", {}, budget=30.0)
    assert reply.status == 429 and slept == []


def test_a_reply_over_the_cap_is_dropped():
    with pytest.raises(ReplyTooLarge) as caught:
        get(lambda request: httpx.Response(200, content=b"x" * 101)).get(
            "https://example.org/x", {}, budget=30.0
        )
    assert (caught.value.limit, caught.value.status) == (100, 200)


def test_library_failures_become_the_kinds_a_loader_maps():
    def raising(exc):
        def handler(request):
            raise exc

        return handler

    url = "https://example.org/x"
    with pytest.raises(GetTimeout) as timeout:
        get(raising(httpx.ReadTimeout("slow"))).get(url, {}, budget=2.0)
    assert (timeout.value.seconds, timeout.value.host) == (2.0, "example.org")
    with pytest.raises(HeaderRefused):
        get(raising(httpx.LocalProtocolError("bad header"))).get(url, {}, budget=2.0)
    with pytest.raises(NoConnection) as refused:
        get(raising(httpx.ConnectError("refused")), retries=0).get(url, {}, budget=2.0)
    assert refused.value.resolved and refused.value.host == "example.org"
    with pytest.raises(GetTimeout, match="no time was left"):
        get(raising(AssertionError("not sent"))).get(url, {}, budget=0.0)
