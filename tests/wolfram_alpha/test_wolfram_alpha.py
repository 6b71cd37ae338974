"""The Wolfram|Alpha spec as shipped (no transport given), offline.

Without a transport the client asks the LLM API with ``requests.get`` (as LlamaHub's spec
does), faked here at requests' transport with ``responses``, and the Full Results API with
httpx (read with ``wolframalpha``'s parser), faked at httpx's transport with ``respx``.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
import requests
import responses
import respx
from toolsets import by_name

from toolspecs.cli import main
from toolspecs.core import AskUser, FixArguments, RetryLater, count_tokens
from toolspecs.loaders.wolfram_alpha import LLM_API_URL
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec
from toolspecs.specs.wolfram_alpha.base import normalize_query

FIXTURES = Path(__file__).parents[1] / "fixtures" / "wolfram_alpha"
FULL_API = "https://api.wolframalpha.com/v2/query"
XML = {"Content-Type": "text/xml; charset=utf-8"}
# Measured by bench/schema_tokens.py for llama-index-tools-wolfram-alpha 0.7.0.
LLAMAHUB_SCHEMA_TOKENS = 639


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


# Every tool of the spec, read from its declaration (see tests/toolsets.py).
EVERY_TOOL = WolframAlphaToolSpec.all_functions


@pytest.fixture
def tools():
    spec = WolframAlphaToolSpec(app_id="TEST-APPID")
    return by_name(spec.to_tool_list(spec_functions=spec.all_functions))


@pytest.fixture
def llm_api(mocked_responses: responses.RequestsMock) -> responses.RequestsMock:
    """The LLM API faked at requests' transport; any other requests call fails the test."""
    return mocked_responses


@pytest.fixture
def full_api():
    """The Full Results API faked at httpx's transport."""
    with respx.mock(assert_all_called=False) as router:
        yield router


def sent(call) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(call.request.url).query))


def serve_llm(api: responses.RequestsMock, body: str, status: int = 200) -> None:
    api.upsert(responses.GET, LLM_API_URL, body=body, status=status, content_type="text/plain")


# -- prompts -----------------------------------------------------------------------


def test_every_tool_fits_openai_and_costs_less_than_llamahub():
    # The default set's names are pinned by tests/snapshots/wolfram_alpha.json.
    tools = WolframAlphaToolSpec().to_tool_list()
    total = sum(count_tokens(json.dumps(t.metadata.to_openai_tool())) for t in tools)
    assert total < LLAMAHUB_SCHEMA_TOKENS
    query = by_name(tools)["wolfram_alpha_query"]
    description = query.metadata.description
    for rule in ("English", "6*10^14, not 6e14", "single-letter", "one property per call"):
        assert rule in description
    props = query.metadata.get_parameters_dict()["properties"]
    assert set(props) == {"query", "assumption", "units", "location"}


# -- the LLM API -------------------------------------------------------------------


def test_blog_example_goes_through_unchanged(tools, llm_api):
    serve_llm(llm_api, fixture("llm_blog_example.txt"))
    out = tools["wolfram_alpha_query"].call(query="(7 * 12 ^ 10) / 321")
    assert out.is_error is False
    assert "Exact result:\n144473849856/107" in out.content
    call = llm_api.calls[0]
    assert sent(call)["input"] == "(7 * 12 ^ 10) / 321"
    assert call.request.headers["Authorization"] == "Bearer TEST-APPID"
    assert "appid" not in sent(call)  # the key travels in a header, not in URLs and logs


def test_assumption_is_passed_to_the_api(tools, llm_api):
    serve_llm(llm_api, fixture("llm_pi_assumption.txt"))
    out = tools["wolfram_alpha_query"].call(query="pi")
    assert "assumption=*C.pi-_*Movie-" in out.content
    tools["wolfram_alpha_query"].call(query="pi", assumption="*C.pi-_*Movie-")
    assert sent(llm_api.calls[1])["assumption"] == "*C.pi-_*Movie-"


def test_api_params_pass_through_and_maxchars_stays_within_budget(llm_api):
    spec = WolframAlphaToolSpec(app_id="K", api_params={"units": "metric", "maxchars": 100000})
    serve_llm(llm_api, "Result:\n42")
    spec.call_tool("wolfram_alpha_query", query="answer")
    params = sent(llm_api.calls[0])
    assert params["units"] == "metric"
    maxchars = int(params["maxchars"])
    assert maxchars < 100000
    assert maxchars // 3 <= spec.output_budget.max_tokens


def test_an_over_long_answer_is_cut_to_the_budget(tools, llm_api):
    serve_llm(llm_api, "Result:\n" + "1234567890 " * 5000)
    out = tools["wolfram_alpha_query"].call(query="big")
    assert count_tokens(out.content) <= 2000
    assert "output cut" in out.content


def test_queries_are_made_one_line_and_e_notation_is_fixed(tools, llm_api):
    serve_llm(llm_api, "Result:\n1")
    tools["wolfram_alpha_query"].call(query="6e14 / 2.5E-3\n in kg")
    assert sent(llm_api.calls[0])["input"] == "6*10^14 / 2.5*10^-3 in kg"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6e14", "6*10^14"),
        ("1.5e+3 m", "1.5*10^3 m"),
        ("e2e test", "e2e test"),
        ("x1e5", "x1e5"),
        ("2E-07", "2*10^-7"),
        ("3e-0", "3*10^0"),
        ("1e" + "9" * 5000, "1*10^" + "9" * 5000),  # past int()'s 4,300 digits: as text
    ],
)
def test_normalize_query(text, expected):
    assert normalize_query(text) == expected


@pytest.mark.parametrize("name", EVERY_TOOL)
def test_an_exponent_past_pythons_digit_limit_is_guidance_not_an_internal_error(tools, name):
    out = tools[name].call(query="1e" + "9" * 5000)
    assert isinstance(out.exception, FixArguments)
    assert out.content.startswith("The query is 5005 characters long: '1*10^999")
    assert "at most 1000 characters" in out.content
    assert out.content.endswith("e.g. 'France population'.")


def test_not_understood_carries_wolframs_suggestions(tools, llm_api):
    serve_llm(llm_api, fixture("llm_501_not_understood.txt"), status=501)
    out = tools["wolfram_alpha_query"].call(query="how many flurbs in a glorp")
    assert out.is_error is True
    assert isinstance(out.exception, FixArguments)
    assert "did not understand 'how many flurbs in a glorp'" in out.content
    assert "It suggests: «flurbs»; «glorp»." in out.content
    assert "short English keywords" in out.content


def test_invalid_app_id_is_for_the_person(tools, llm_api):
    serve_llm(llm_api, "Error 1: Invalid appid", status=403)
    out = tools["wolfram_alpha_query"].call(query="2+2")
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "Invalid appid" in out.content
    assert "Do not retry" in out.content
    assert "WOLFRAM_ALPHA_APP_ID" in out.content


@pytest.mark.parametrize(
    ("status", "phrase"),
    [(429, "rate-limiting"), (500, "server error (HTTP 500)"), (503, "HTTP 503")],
)
def test_passing_failures_say_retry(tools, llm_api, status, phrase):
    serve_llm(llm_api, "busy", status=status)
    out = tools["wolfram_alpha_query"].call(query="2+2")
    assert out.is_error is True
    assert isinstance(out.exception, RetryLater)
    assert phrase in out.content


def test_bad_request_is_guidance(tools, llm_api):
    serve_llm(llm_api, "Error: No input.", status=400)
    out = tools["wolfram_alpha_query"].call(query="2+2")
    assert isinstance(out.exception, FixArguments)
    assert "No input" in out.content


@pytest.mark.parametrize(
    ("error", "phrase"),
    [
        # The call's deadline (30 s, less the guard's margin) bounds the wait.
        (requests.ReadTimeout("slow"), "did not answer within 29 seconds"),
        (requests.ConnectionError("down"), "could not connect to www.wolframalpha.com"),
    ],
)
def test_timeouts_and_connection_errors(tools, llm_api, error, phrase):
    llm_api.get(LLM_API_URL, body=error)
    out = tools["wolfram_alpha_query"].call(query="2+2")
    assert out.is_error is True
    assert isinstance(out.exception, RetryLater)
    assert phrase in out.content


def test_requests_have_a_timeout_within_the_time_left_of_the_call(tools, llm_api):
    serve_llm(llm_api, "Result:\n4")
    tools["wolfram_alpha_query"].call(query="2+2")
    # 30 s for the call, less the guard's margin: what is left when the request starts.
    assert 25 < llm_api.calls[0].request.req_kwargs["timeout"] <= 29.0


def test_identical_queries_are_served_from_the_cache(tools, llm_api):
    serve_llm(llm_api, "Result:\n4")
    first = tools["wolfram_alpha_query"].call(query="2+2")
    second = tools["wolfram_alpha_query"].call(query=" 2+2 ")
    assert first.content == second.content
    assert len(llm_api.calls) == 1
    tools["wolfram_alpha_query"].call(query="2+2", assumption="*C.x-_*Y-")
    assert len(llm_api.calls) == 2


def test_failures_are_not_cached(tools, llm_api):
    serve_llm(llm_api, "busy", status=503)
    assert tools["wolfram_alpha_query"].call(query="2+2").is_error is True
    serve_llm(llm_api, "Result:\n4")
    assert "\nResult:\n4\n" in tools["wolfram_alpha_query"].call(query="2+2").content


# -- the app id --------------------------------------------------------------------


def test_without_an_app_id_the_answer_says_how_to_get_one(llm_api):
    spec = WolframAlphaToolSpec()
    for tool in spec.to_tool_list(spec_functions=spec.all_functions):
        out = tool.call(query="2+2")
        assert out.is_error is True
        assert isinstance(out.exception, AskUser)
        assert "https://developer.wolframalpha.com" in out.content
        assert "WOLFRAM_ALPHA_APP_ID" in out.content
    assert len(llm_api.calls) == 0  # never "Bearer None"


def test_app_id_from_the_environment_and_the_argument_wins(monkeypatch, llm_api):
    monkeypatch.setenv("WOLFRAM_ALPHA_APP_ID", "FROM-ENV")
    serve_llm(llm_api, "Result:\n4")
    WolframAlphaToolSpec().call_tool("wolfram_alpha_query", query="2+2")
    WolframAlphaToolSpec(app_id="FROM-ARG").call_tool("wolfram_alpha_query", query="2+3")
    headers = [c.request.headers["Authorization"] for c in llm_api.calls]
    assert headers == ["Bearer FROM-ENV", "Bearer FROM-ARG"]


# -- the Full Results API (wolframalpha package, httpx) ------------------------------


@respx.mock
def test_pods_give_sections_and_assumptions_with_their_values(tools):
    route = respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_pi.xml"), headers=XML)
    )
    out = tools["wolfram_alpha_pods"].call(query="pi")
    assert out.is_error is False
    assert "Decimal approximation:\n3.14159265358979" in out.content
    assert "- pi: a mathematical constant (assumption=«*C.pi-_*NamedConstant-»)" in out.content
    assert "a movie (assumption=«*C.pi-_*Movie-»)" in out.content
    params = route.calls[0].request.url.params
    assert params["appid"] == "TEST-APPID"
    assert params["input"] == "pi"
    assert params["format"] == "plaintext,image"


@respx.mock
def test_pods_send_the_pod_title_and_assumption(tools):
    route = respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_pi.xml"), headers=XML)
    )
    tools["wolfram_alpha_pods"].call(query="pi", pod_title="Result", assumption="*C.pi-_*Movie-")
    params = route.calls[0].request.url.params
    assert params["podtitle"] == "Result"
    assert params["assumption"] == "*C.pi-_*Movie-"


@respx.mock
def test_pods_not_understood_gives_did_you_mean(tools):
    respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_not_understood.xml"), headers=XML)
    )
    out = tools["wolfram_alpha_pods"].call(query="francee populaton")
    assert out.is_error is True
    assert "Did you mean: «france population»?" in out.content


@respx.mock
def test_pods_invalid_app_id(tools):
    respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_invalid_appid.xml"), headers=XML)
    )
    out = tools["wolfram_alpha_pods"].call(query="pi")
    assert isinstance(out.exception, AskUser)
    assert "Invalid appid" in out.content


@respx.mock
def test_pods_timeout_and_non_xml_replies(tools):
    respx.get(FULL_API).mock(side_effect=httpx.ReadTimeout("slow"))
    out = tools["wolfram_alpha_pods"].call(query="pi")
    assert isinstance(out.exception, RetryLater)
    assert "did not answer within 29 seconds" in out.content
    respx.get(FULL_API).mock(return_value=httpx.Response(502, text="<html>Bad gateway</html>"))
    out = tools["wolfram_alpha_pods"].call(query="e")
    assert isinstance(out.exception, RetryLater)


@respx.mock
def test_pods_missing_section(tools):
    empty = fixture("full_pi.xml").replace("numpods='3'", "numpods='0'")
    start, end = empty.index(" <pod "), empty.index(" <assumptions")
    respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=empty[:start] + empty[end:], headers=XML)
    )
    out = tools["wolfram_alpha_pods"].call(query="pi", pod="Nope")
    assert out.is_error is True
    assert "no section titled 'Nope'" in out.content


@respx.mock
async def test_pods_work_from_inside_an_event_loop(tools):
    respx.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_pi.xml"), headers=XML)
    )
    out = await tools["wolfram_alpha_pods"].acall(query="pi")
    assert "Property:\nπ is a transcendental number" in out.content
    spec = WolframAlphaToolSpec(app_id="K")
    # The direct sync call inside a running loop must not fail with "asyncio.run() cannot be called".
    assert "Decimal approximation" in spec.wolfram_alpha_pods("pi")


# -- never raises --------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        {},
        {"query": None},
        {"query": ""},
        {"query": "   "},
        {"query": {"nested": 1}},
        {"query": ["2+2", "3+3"]},
        {"query": 42, "assumption": 7},
        {"query": "2+2", "pod": ["a", "b"]},
        {"query": "x", "unknown": True},
        {"input": "2+2", "query": "3+3"},
    ],
)
def test_no_malformed_call_raises(tools, llm_api, full_api, arguments):
    serve_llm(llm_api, "Result:\n4")
    full_api.get(FULL_API).mock(
        return_value=httpx.Response(200, text=fixture("full_pi.xml"), headers=XML)
    )
    for tool in tools.values():
        out = tool.call(**arguments)
        assert isinstance(out.content, str)
        assert out.content


# -- CLI -------------------------------------------------------------------------------


def test_cli_without_a_key_says_how_in_one_line(capsys):
    assert main(["call", "wolfram_alpha.wolfram_alpha_query", "query=2+2"]) == 1
    out = capsys.readouterr().out.strip()
    assert "\n" not in out
    assert "WOLFRAM_ALPHA_APP_ID" in out


def test_cli_with_a_key(monkeypatch, capsys, llm_api):
    monkeypatch.setenv("WOLFRAM_ALPHA_APP_ID", "K")
    serve_llm(llm_api, "Input:\n2+2\n\nResult:\n4")
    assert main(["call", "wolfram_alpha.wolfram_alpha_query", "query=2+2"]) == 0
    assert "Result:\n4" in capsys.readouterr().out
