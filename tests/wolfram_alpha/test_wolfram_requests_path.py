"""The LLM API request as shipped (no transport): ``requests.get``, its bounds, no network.

LlamaHub's users patch ``requests.get`` (so do its tests): with it patched the way they
do, the tool gets Wolfram's text; through the shipped fake the same call still works.
The reply is faked at requests' transport with ``responses`` where it must be a real
HTTP reply (the size cap, the header); the network is stopped at ``socket.getaddrinfo``
(``no_dns``) or ``socket.socket.connect`` (``refused``) where the failure is the point.
"""

from __future__ import annotations

from unittest.mock import MagicMock, patch
from urllib.parse import parse_qsl, urlsplit

import pytest
from toolsets import by_name

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.wolfram_alpha import (
    LLM_API_URL,
    WolframAlphaClient,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
)
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

BLOG = "(7 * 12 ^ 10) / 321"


def test_with_requests_get_patched_as_llamahub_does_the_tool_returns_the_text():
    answer = FakeWolframAlpha().llm_api({"input": BLOG}, "Bearer K")[1]
    with patch("requests.get") as get:
        get.return_value = MagicMock(text=answer)
        out = WolframAlphaToolSpec(app_id="K").call_tool("wolfram_alpha_query", query=BLOG)
    assert out.is_error is False
    assert "Exact result:\n144473849856/107" in out.content
    (url,), kwargs = get.call_args
    assert dict(parse_qsl(urlsplit(url).query))["input"] == BLOG
    assert kwargs["headers"] == {"Authorization": "Bearer K"}  # the AppID: a header only
    assert "appid" not in url.lower() and "K" not in urlsplit(url).query
    assert 0 < kwargs["timeout"] <= 30 and kwargs["stream"] is True


def test_the_same_call_through_the_shipped_fake_still_works():
    fake = FakeWolframAlpha()
    with patch("requests.get") as get:  # with a transport, requests is not used
        spec = WolframAlphaToolSpec(app_id="K", transport=fake.transport())
        out = spec.call_tool("wolfram_alpha_query", query=BLOG)
    assert get.call_count == 0
    assert "Exact result:\n144473849856/107" in out.content
    assert [(r.api, r.params["input"], r.app_id) for r in fake.requests] == [("llm", BLOG, "K")]


def test_a_real_reply_is_read_within_the_size_cap(mocked_responses):
    mocked_responses.get(LLM_API_URL, body=b"Result:\n" + b"9" * 5000, content_type="text/plain")
    client = WolframAlphaClient("K", max_reply_bytes=1000)
    with pytest.raises(WolframAlphaUnavailable, match="over 1000 bytes"):
        client.llm_answer("big")
    request = mocked_responses.calls[0].request
    assert request.headers["Authorization"] == "Bearer K"
    assert "appid" not in request.url.lower()


def test_an_api_param_appid_goes_in_the_header_not_the_url(mocked_responses):
    mocked_responses.get(LLM_API_URL, body="Result:\n4", content_type="text/plain")
    spec = WolframAlphaToolSpec(api_params={"appid": "SECRET-ID", "units": "metric"})
    out = spec.call_tool("wolfram_alpha_query", query="2+2")
    assert "Result:\n4" in out.content
    request = mocked_responses.calls[0].request
    assert request.headers["Authorization"] == "Bearer SECRET-ID"
    assert "SECRET-ID" not in request.url and "units=metric" in request.url


def test_a_429_is_retried_through_requests_too(mocked_responses, sleeps):
    mocked_responses.get(LLM_API_URL, body="slow down", status=429, headers={"Retry-After": "2"})
    mocked_responses.get(LLM_API_URL, body="Result:\n4", content_type="text/plain")
    assert WolframAlphaClient("K").llm_answer("2+2") == "Result:\n4"
    assert sleeps == [2.0]


def test_a_name_that_does_not_resolve_is_asked_twice_and_named(no_dns, sleeps):
    with pytest.raises(WolframAlphaUnreachable) as caught:
        WolframAlphaClient("K", retries=3).llm_answer("2+2")
    # EAI_AGAIN ("try again"): one more lookup 0.5 s later, not the retries' back-off
    assert no_dns == ["www.wolframalpha.com"] * 2
    assert sleeps == [0.5]
    assert (caught.value.host, caught.value.resolved) == ("www.wolframalpha.com", False)
    assert caught.value.reason == "could not resolve www.wolframalpha.com (no network or DNS?)"


def test_the_full_results_api_over_httpx_fails_as_fast(no_dns, sleeps):
    with pytest.raises(WolframAlphaUnreachable) as caught:
        WolframAlphaClient("K", retries=3).full_results("pi")
    assert no_dns == ["api.wolframalpha.com"] * 2 and sleeps == [0.5]
    assert "could not resolve api.wolframalpha.com" in str(caught.value)


def test_without_network_the_tool_asks_the_user_naming_the_host(no_dns, sleeps):
    tools = by_name(WolframAlphaToolSpec(app_id="K").to_tool_list())
    query, pods = tools["wolfram_alpha_query"], tools["wolfram_alpha_pods"]
    for tool, host in ((query, "www.wolframalpha.com"), (pods, "api.wolframalpha.com")):
        with pytest.raises(AskUser) as caught:
            tool.fn(query="2+2")
        assert f"could not resolve {host} (no network, or no DNS)" in str(caught.value)
        assert "Do not retry now" in str(caught.value)
    assert len(no_dns) == 4 and sleeps == [0.5, 0.5]  # EAI_AGAIN: one more try each


def test_a_refused_connection_names_the_host(refused, sleeps):
    spec = WolframAlphaToolSpec(app_id="K")
    with pytest.raises(RetryLater) as caught:
        by_name(spec.to_tool_list())["wolfram_alpha_query"].fn(query="2+2")
    text = str(caught.value)
    assert "Wolfram|Alpha could not be reached: could not connect to www.wolframalpha.com" in text
    assert "www.wolframalpha.com refuses connections from this machine" in text
    assert refused == ["www.wolframalpha.com"] * 2  # one retry, as for any failed connection
    assert sleeps == [1.0]
