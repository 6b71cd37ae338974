"""The Wolfram|Alpha spec's failure table: each loader error becomes the right kind of
guidance, with bounded echoes of what the agent sent."""

from __future__ import annotations

import httpx
import pytest

from toolspecs.core import AskUser, FixArguments, RetryLater, ToolSpec, count_tokens
from toolspecs.core.errors import GUIDANCE_TOKENS
from toolspecs.loaders.wolfram_alpha import (
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
)
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec


@pytest.fixture
def spec() -> WolframAlphaToolSpec:
    return WolframAlphaToolSpec(app_id="k", transport=FakeWolframAlpha().transport())


def test_the_spec_maps_failures_by_its_table_not_an_override():
    assert "guidance_for" not in vars(WolframAlphaToolSpec)
    assert WolframAlphaToolSpec.guidance_for is ToolSpec.guidance_for


@pytest.mark.parametrize(
    ("error", "kind", "phrases"),
    [
        (
            QueryNotUnderstood("flurbs?", ["flurbs", "glorp"], status=501),
            FixArguments,
            [
                "did not understand 'flurbs?'. It suggests: «flurbs»; «glorp».",
                "short English keywords",
            ],
        ),
        (
            QueryNotUnderstood("francee populaton", did_you_mean=["france population"]),
            FixArguments,
            ["did not understand 'francee populaton'. Did you mean: «france population»?"],
        ),
        (QueryNotUnderstood("glorp"), FixArguments, ["did not understand 'glorp'."]),
        (
            AppIdMissing("no AppID", reason="no AppID was given"),
            AskUser,
            ["no AppID is set", "https://developer.wolframalpha.com", "WOLFRAM_ALPHA_APP_ID"],
        ),
        (
            AppIdRejected("refused", status=403, reason="Error 1: Invalid appid"),
            AskUser,
            ["refused the AppID. It said: «Error 1: Invalid appid».", "Do not retry"],
        ),
        (
            AppIdRejected("refused", reason="Error 1: Invalid appid"),
            AskUser,
            ["Invalid appid", "WOLFRAM_ALPHA_APP_ID"],
        ),
        (
            WolframAlphaBadRequest("bad", status=400, reason="Error: No input."),
            FixArguments,
            ["rejected the request. It said: «Error: No input.».", "non-empty one-line query"],
        ),
        (
            WolframAlphaTimeout(12.5, "ReadTimeout: timed out"),
            RetryLater,
            ["did not answer within 12.5 seconds", "simplify the query"],
        ),
        (
            MalformedReply("not XML", reason="the reply is not complete XML (no element found)"),
            RetryLater,
            ["sent a reply that is not its answer (the reply is not complete XML"],
        ),
        (
            WolframAlphaUnavailable("429", status=429, reason="Too Many", retry_after=30),
            RetryLater,
            ["rate-limiting this AppID (HTTP 429)", "Wait 30 seconds"],
        ),
        (
            WolframAlphaUnavailable("503", status=503, reason="Service Unavailable"),
            RetryLater,
            ["server error (HTTP 503). It said: «Service Unavailable»."],
        ),
        (
            WolframAlphaUnavailable("down", reason="ConnectError: refused"),
            RetryLater,
            ["gave no answer (ConnectError: refused)"],
        ),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else None,
)
def test_each_loader_error_gets_its_kind_of_guidance(spec, error, kind, phrases):
    guidance = spec.guidance_for(error)
    assert type(guidance) is kind
    for phrase in phrases:
        assert phrase in guidance.text
    assert guidance.text.startswith("Wolfram|Alpha ")


def test_retry_after_reaches_the_guidance(spec):
    error = WolframAlphaUnavailable("429", status=429, reason="", retry_after=30)
    guidance = spec.guidance_for(error)
    assert isinstance(guidance, RetryLater)
    assert guidance.retry_after == 30.0


def test_a_huge_query_gets_short_guidance_that_does_not_repeat_it():
    fake = FakeWolframAlpha()
    spec = WolframAlphaToolSpec(app_id="k", transport=fake.transport())
    query = "\u202e" * 100000
    for tool in spec.to_tool_list():
        out = tool.call(query=query)
        assert out.is_error is True
        assert isinstance(out.exception, FixArguments)
        assert count_tokens(out.content) < GUIDANCE_TOKENS
        assert query not in out.content
        assert "\u202e" not in out.content  # shown as '\u202e', never as the control itself
        assert "…" in out.content
    assert fake.requests == []  # nothing that long is sent to Wolfram|Alpha


def test_echoed_queries_and_suggestions_are_cut(spec):
    query = "glorp " * 150  # within the length Wolfram takes, too long to repeat
    out = spec.call_tool("wolfram_alpha_query", query=query)
    assert isinstance(out.exception, FixArguments)
    assert "did not understand 'glorp glorp" in out.content
    assert query.strip() not in out.content
    assert count_tokens(out.content) < GUIDANCE_TOKENS
    error = QueryNotUnderstood("x", ["\u202e" * 500 + "evil", *[f"tip {n}" for n in range(20)]])
    text = spec.guidance_for(error).text
    assert "\u202e" not in text
    assert "tip 3" in text
    assert "tip 4" not in text  # at most five suggestions
    assert count_tokens(text) < GUIDANCE_TOKENS


def test_the_table_applies_to_what_the_client_raises():
    fake = FakeWolframAlpha()
    spec = WolframAlphaToolSpec(app_id="k", transport=fake.transport())
    # A 500 is tried once more (no Retry-After: a short wait fits in the deadline).
    fake.fail += [429, httpx.ReadTimeout("slow"), 500, 500]
    kinds = [type(spec.call_tool("wolfram_alpha_pods", query=q).exception) for q in ("1", "2", "3")]
    assert kinds == [RetryLater, RetryLater, RetryLater]
    assert spec.call_tool("wolfram_alpha_pods", query="4").is_error is False


@pytest.mark.parametrize(
    ("tool", "argument"),
    [("wolfram_alpha_pods", "pod"), ("wolfram_alpha_pods", "assumption"),
     ("wolfram_alpha_query", "assumption")],
)  # fmt: skip
def test_a_pod_or_assumption_too_long_for_a_url_is_guidance_before_any_request(tool, argument):
    fake = FakeWolframAlpha()
    spec = WolframAlphaToolSpec(app_id="test", transport=fake.transport())
    out = spec.call_tool(tool, query="pi", **{argument: "x" * 100_000})
    assert out.is_error and isinstance(out.exception, FixArguments)
    assert f"{argument}: 'xxxx" in out.content and "too long; send at most 200" in out.content
    assert count_tokens(out.content) <= GUIDANCE_TOKENS
    assert fake.requests == []
