"""The Wolfram|Alpha loader on its own: one httpx client for both APIs, its errors
(status, reason, retry_after, never the AppID), the reader, and no toolspecs-core."""

from __future__ import annotations

import email.utils
import logging
import subprocess
import sys
import time
import traceback
from pathlib import Path

import httpx
import pytest
import wolframalpha
from llama_index.core.schema import Document

from toolspecs.loaders.wolfram_alpha import (
    AppIdError,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaClient,
    WolframAlphaLoaderError,
    WolframAlphaReader,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
)
from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "wolfram_alpha"
SECRET = "SECRET-APPID-123"


@pytest.fixture
def wolfram() -> FakeWolframAlpha:
    return FakeWolframAlpha()


def client_on(handler, app_id=SECRET, **kwargs) -> WolframAlphaClient:
    """A client whose every request ``handler`` answers (an httpx.MockTransport)."""
    return WolframAlphaClient(app_id, transport=httpx.MockTransport(handler), **kwargs)


def replying(status: int, text: str, content_type: str = "text/plain", **headers: str):
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, text=text, headers={"Content-Type": content_type, **headers})

    return handler


def raised(call) -> WolframAlphaLoaderError:
    with pytest.raises(WolframAlphaLoaderError) as info:
        call()
    return info.value


def everything_printed(exc: BaseException) -> str:
    """The traceback as Python prints it, chained exceptions included."""
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))


# -- what the client sends and returns ---------------------------------------------------


def test_llm_answer_sends_the_app_id_in_a_header_and_returns_the_text(wolfram):
    client = WolframAlphaClient("offline", transport=wolfram.transport())
    answer = client.llm_answer("(7 * 12 ^ 10) / 321", params={"maxchars": 500})
    assert "Exact result:\n144473849856/107" in answer
    (request,) = wolfram.requests
    assert request.api == "llm"
    assert request.app_id == "offline"
    assert request.params == {"maxchars": "500", "input": "(7 * 12 ^ 10) / 321"}


def test_full_results_are_read_by_the_wolframalpha_parser(wolfram):
    client = WolframAlphaClient("offline", transport=wolfram.transport())
    result = client.full_results(
        "pi", pod="Decimal approximation", assumption="*C.pi-_*NamedConstant-",
        params={"format": "plaintext"},
    )  # fmt: skip
    assert isinstance(result, wolframalpha.Result)
    assert list(result.details) == ["Decimal approximation"]
    assert result.details["Decimal approximation"].startswith("3.14159")
    assert [a["@word"] for a in result.assumptions] == ["pi"]
    params = wolfram.requests[-1].params
    assert params["podtitle"] == "Decimal approximation"
    assert params["assumption"] == "*C.pi-_*NamedConstant-"
    assert params["format"] == "plaintext"
    assert params["appid"] == "offline"


def test_one_http_client_and_a_timeout_on_every_request(wolfram):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return wolfram.handle(request)

    client = client_on(handler, timeout=7)
    client.llm_answer("2+2")
    client.full_results("2+2")
    assert [r.url.host for r in seen] == ["www.wolframalpha.com", "api.wolframalpha.com"]
    assert all(r.extensions["timeout"]["read"] == 7 for r in seen)


def test_app_id_from_the_argument_then_both_environment_variables(monkeypatch):
    monkeypatch.setenv("WOLFRAMALPHA_API_KEY", "FROM-PACKAGE-VAR")
    assert WolframAlphaClient().app_id == "FROM-PACKAGE-VAR"
    monkeypatch.setenv("WOLFRAM_ALPHA_APP_ID", "FROM-OUR-VAR")
    assert WolframAlphaClient().app_id == "FROM-OUR-VAR"
    assert WolframAlphaClient("FROM-ARG").app_id == "FROM-ARG"
    assert "FROM-ARG" not in repr(WolframAlphaClient("FROM-ARG"))


@pytest.mark.parametrize("timeout", [0, -1])
def test_a_bad_timeout_is_a_plain_value_error(timeout):
    with pytest.raises(ValueError, match="timeout"):
        WolframAlphaClient("k", timeout=timeout)


# -- errors: status, reason, retry_after --------------------------------------------------


def test_not_understood_keeps_wolframs_suggestions_as_data():
    body = (FIXTURES / "llm_501_not_understood.txt").read_text(encoding="utf-8")
    exc = raised(lambda: client_on(replying(501, body)).llm_answer("how many flurbs in a glorp"))
    assert isinstance(exc, QueryNotUnderstood)
    assert (exc.status, exc.retry_after) == (501, None)
    assert exc.reason == "Wolfram|Alpha could not understand: how many flurbs in a glorp."
    assert exc.query == "how many flurbs in a glorp"
    assert exc.suggestions == ("flurbs", "glorp")
    assert exc.did_you_mean == ()


def test_full_results_not_understood_keeps_did_you_mean(wolfram):
    client = WolframAlphaClient("k", transport=wolfram.transport())
    exc = raised(lambda: client.full_results("francee populaton"))
    assert isinstance(exc, QueryNotUnderstood)
    assert exc.status is None  # an HTTP 200 whose XML says success=false
    assert "success=false" in exc.reason
    assert exc.did_you_mean == ("france population",)
    assert isinstance(raised(lambda: client.full_results("glorp")), QueryNotUnderstood)


def test_no_app_id_fails_before_any_request(wolfram):
    client = WolframAlphaClient(transport=wolfram.transport())
    for call in (lambda: client.llm_answer("2+2"), lambda: client.full_results("2+2")):
        exc = raised(call)
        assert isinstance(exc, AppIdMissing)
        assert isinstance(exc, AppIdError)
        assert exc.status is None
        assert "WOLFRAM_ALPHA_APP_ID" in exc.reason
    assert wolfram.requests == []


def test_a_refused_app_id_in_both_apis():
    fake = FakeWolframAlpha(app_ids={"GOOD"})
    client = WolframAlphaClient(SECRET, transport=fake.transport())
    llm = raised(lambda: client.llm_answer("2+2"))
    assert isinstance(llm, AppIdRejected)
    assert (llm.status, llm.reason) == (403, "Error 1: Invalid appid")
    full = raised(lambda: client.full_results("2+2"))
    assert isinstance(full, AppIdRejected)
    assert full.status is None  # Wolfram says it inside an HTTP 200
    assert full.reason == "Error 1: Invalid appid"


def test_a_rate_limit_carries_retry_after(wolfram):
    wolfram.fail.append(429)
    exc = raised(lambda: WolframAlphaClient("k", transport=wolfram.transport()).llm_answer("2+2"))
    assert type(exc) is WolframAlphaUnavailable
    assert (exc.status, exc.reason, exc.retry_after) == (429, "Too Many Requests", 30.0)


def test_retry_after_as_an_http_date():
    # The real clock, on purpose: the client measures a Retry-After date from it.
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    exc = raised(lambda: client_on(replying(503, "busy", **{"Retry-After": when})).llm_answer("x"))
    assert exc.status == 503
    assert 100 <= exc.retry_after <= 120


@pytest.mark.parametrize("status", [500, 502, 503])
def test_server_errors_are_unavailable(wolfram, status):
    wolfram.fail += [status, status]  # one more try after the first
    exc = raised(lambda: WolframAlphaClient("k", transport=wolfram.transport()).full_results("pi"))
    assert type(exc) is WolframAlphaUnavailable
    assert exc.status == status
    assert exc.reason


def test_an_html_error_page_is_reported_by_its_status_phrase():
    handler = replying(502, "<html><body>Bad gateway</body></html>", "text/html")
    exc = raised(lambda: client_on(handler).full_results("pi"))
    assert (type(exc), exc.status, exc.reason) == (WolframAlphaUnavailable, 502, "Bad Gateway")


def test_a_bad_request():
    handler = replying(
        400, "Error: No input.  Please specify the input using the 'input' parameter."
    )
    exc = raised(lambda: client_on(handler).llm_answer(""))
    assert isinstance(exc, WolframAlphaBadRequest)
    assert exc.status == 400
    assert exc.reason.startswith("Error: No input.")


def test_timeouts_say_how_long_the_client_waited(wolfram):
    wolfram.fail.append(httpx.ReadTimeout("timed out"))
    exc = raised(
        lambda: WolframAlphaClient("k", timeout=12.5, transport=wolfram.transport()).llm_answer("x")
    )
    assert isinstance(exc, WolframAlphaTimeout)
    assert isinstance(exc, WolframAlphaUnavailable)
    assert (exc.seconds, exc.status, exc.retry_after) == (12.5, None, None)
    assert exc.reason == "ReadTimeout: timed out"
    assert "12.5 seconds" in str(exc)


def test_connection_errors_are_unavailable_and_name_the_host(wolfram):
    wolfram.fail += [httpx.ConnectError("[Errno 111] Connection refused")] * 2
    exc = raised(lambda: WolframAlphaClient("k", transport=wolfram.transport()).full_results("x"))
    assert type(exc) is WolframAlphaUnreachable  # a WolframAlphaUnavailable
    assert isinstance(exc, WolframAlphaUnavailable)
    assert (exc.host, exc.resolved, exc.status) == ("api.wolframalpha.com", True, None)
    assert exc.reason == (
        "could not connect to api.wolframalpha.com (ConnectError: [Errno 111] Connection refused)"
    )
    assert len(wolfram.requests) == 2  # tried again: a refused connection may pass


def test_a_reply_that_is_not_xml_or_is_cut_short(wolfram):
    not_xml = raised(lambda: client_on(replying(200, "{}", "application/json")).full_results("pi"))
    assert isinstance(not_xml, MalformedReply)
    assert "application/json" in not_xml.reason
    full = wolfram.full_results({"input": "pi", "appid": "k"})
    cut = raised(lambda: client_on(replying(200, full[:300], "text/xml")).full_results("pi"))
    assert isinstance(cut, MalformedReply)
    assert "not complete XML" in cut.reason
    other = raised(lambda: client_on(replying(200, "<html/>", "text/xml")).full_results("pi"))
    assert isinstance(other, MalformedReply)
    assert "no <queryresult>" in other.reason


def test_a_reply_over_the_size_limit_is_not_read_to_the_end():
    handler = replying(200, "Result:\n" + "9" * 5000)
    exc = raised(lambda: client_on(handler, max_reply_bytes=1000).llm_answer("big"))
    assert type(exc) is WolframAlphaUnavailable
    assert exc.reason == "the reply is over 1000 bytes"


def test_no_exception_text_holds_the_app_id(wolfram, caplog):
    """The Full Results API takes the AppID in its URL: it must not leak into errors or logs."""
    caplog.set_level(logging.DEBUG)

    def leaky(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"could not connect to {request.url}")

    def echoing(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, text=f"overloaded, try {request.url} later")

    failures = [
        raised(lambda: client_on(leaky).full_results("pi")),
        raised(lambda: client_on(echoing).full_results("pi")),
        raised(lambda: client_on(replying(200, "<queryresult", "text/xml")).full_results("pi")),
    ]
    wolfram.fail.append(httpx.ReadTimeout(f"timed out for appid={SECRET}"))
    failures.append(raised(lambda: client_on(wolfram.handle).full_results("pi")))
    for exc in failures:
        assert SECRET not in everything_printed(exc), everything_printed(exc)
        assert SECRET not in repr(vars(exc))
    assert "appid=***" in failures[0].reason
    assert SECRET not in caplog.text


# -- the reader ------------------------------------------------------------------------------


def test_the_reader_returns_one_document_with_the_answer(wolfram):
    reader = WolframAlphaReader(
        app_id="offline", transport=wolfram.transport(), api_params={"units": "metric"}
    )
    docs = reader.load_data("pi", assumption="*C.pi-_*Movie-", maxchars=1500)
    assert len(docs) == 1
    (doc,) = docs
    assert isinstance(doc, Document)
    assert "Darren Aronofsky" in doc.text
    assert doc.metadata == {
        "query": "pi",
        "assumption": "*C.pi-_*Movie-",
        "source": "Wolfram|Alpha LLM API",
        "url": "https://www.wolframalpha.com/input?i=pi",
    }
    assert wolfram.requests[-1].params == {
        "units": "metric",
        "maxchars": "1500",
        "input": "pi",
        "assumption": "*C.pi-_*Movie-",
    }


def test_the_reader_raises_the_loaders_errors(wolfram):
    reader = WolframAlphaReader(app_id="offline", transport=wolfram.transport())
    with pytest.raises(QueryNotUnderstood) as info:
        reader.load_data("how many flurbs in a glorp")
    assert info.value.suggestions == ("many", "flurbs", "glorp")


# -- standing alone ----------------------------------------------------------------------------


def test_the_loader_imports_without_toolspecs_core():
    code = (
        "import sys\n"
        "from toolspecs.loaders.wolfram_alpha import WolframAlphaReader\n"
        "from toolspecs.loaders.wolfram_alpha.testing import FakeWolframAlpha\n"
        "fake = FakeWolframAlpha()\n"
        "(doc,) = WolframAlphaReader(app_id='k', transport=fake.transport()).load_data('2+2')\n"
        "assert 'Result:' in doc.text, doc.text\n"
        "found = sorted(m for m in sys.modules if m.startswith('toolspecs.core'))\n"
        "assert not found, found\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_loader_declares_no_toolspecs_core_and_no_agent_wording():
    package = ROOT / "loaders" / "wolfram_alpha"
    assert "toolspecs-core" not in (package / "pyproject.toml").read_text(encoding="utf-8")
    for source in (package / "src").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert "toolspecs.core" not in text, source
        assert "tell the user" not in text.lower(), source


def test_the_package_page_example_runs_offline(capsys):
    import re

    page = ROOT / "loaders" / "wolfram_alpha" / "README.md"
    (code,) = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    exec(compile(code, str(page), "exec"), {"__name__": "readme"})
    printed = capsys.readouterr().out
    assert "https://www.wolframalpha.com/input?i=boiling+point+of+water+in+K" in printed
    assert "{'Decimal approximation': '3.14159" in printed
