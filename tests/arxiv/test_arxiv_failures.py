"""arXiv failing: retried where a retry can help, then guidance; never an exception."""

from __future__ import annotations

import pytest
import requests
import responses
from arxiv_fakes import API_ANY, assert_guidance, feed, sent

from toolspecs.core import AskUser, FixArguments, RetryLater
from toolspecs.loaders.arxiv import (
    ArxivClient,
    ArxivQueryError,
    ArxivUnavailable,
    ArxivUnreachable,
    PaperNotFound,
    PaperUnreadable,
    UnsafeCacheFolder,
)
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec

TITLE = "Title: Attention Is All You Need"


def search(spec, **kwargs):
    return spec.call_tool("arxiv_query", **{"query": "attention", **kwargs})


def test_429_then_200_is_retried_and_succeeds(spec, api):
    api.add(responses.GET, API_ANY, status=429, body="Rate exceeded.")
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    output = search(spec)
    assert output.is_error is False
    assert TITLE in output.content
    assert len(api.calls) == 2
    assert sent(api.calls[0]) == sent(api.calls[1])  # the same request again


@pytest.mark.parametrize("num_retries", [0, 2, 3])
def test_503_on_every_try_ends_in_retry_later_guidance(api, num_retries):
    spec = ArxivToolSpec(client=ArxivClient(delay_seconds=0, num_retries=num_retries, timeout=5))
    api.add(responses.GET, API_ANY, status=503, body="Service Unavailable")
    output = search(spec)
    assert_guidance(
        output,
        "arXiv did not answer usefully (HTTP 503), even after retrying.",
        "try the same call again",
        kind=RetryLater,
    )
    assert len(api.calls) == num_retries + 1


def test_a_short_retry_after_is_waited_for(spec, api, no_sleep):
    api.add(responses.GET, API_ANY, status=429, headers={"Retry-After": "2"})
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    output = search(spec)
    assert output.is_error is False
    assert TITLE in output.content
    assert no_sleep == [2.0]
    assert len(api.calls) == 2


def test_a_long_retry_after_is_passed_on_to_the_agent_without_hammering(spec, api, no_sleep):
    api.add(responses.GET, API_ANY, status=429, headers={"Retry-After": "120"})
    output = search(spec)
    assert_guidance(
        output, "HTTP 429", "Wait 120 seconds and try the same call again.", kind=RetryLater
    )
    assert output.exception.retry_after == 120
    assert len(api.calls) == 1  # arXiv said two minutes: no retry now
    assert no_sleep == []


@pytest.mark.parametrize(
    ("error", "reason", "step"),
    [
        (
            requests.exceptions.ReadTimeout("Read timed out. (read timeout=5)"),
            "no answer from export.arxiv.org within 5 s",
            "try the same call again",
        ),
        (
            requests.exceptions.ConnectTimeout("Connect timed out"),
            "no answer from export.arxiv.org within 5 s",
            "try the same call again",
        ),
        (
            requests.exceptions.ConnectionError("Connection reset by peer"),
            "could not connect to export.arxiv.org",
            "Wait a minute and try again",
        ),
    ],
)
def test_timeouts_and_connection_errors_become_guidance(spec, api, error, reason, step):
    api.add(responses.GET, API_ANY, body=error)
    output = search(spec)
    assert_guidance(output, reason, step, kind=RetryLater)
    assert len(api.calls) == 3


def test_a_timeout_then_an_answer_succeeds(spec, api):
    api.add(responses.GET, API_ANY, body=requests.exceptions.ReadTimeout("Read timed out."))
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    output = search(spec)
    assert output.is_error is False
    assert TITLE in output.content


@pytest.mark.parametrize("name", ["malformed.xml", "maintenance.html"])
def test_a_malformed_answer_is_retried_then_guidance(spec, api, name):
    api.add(responses.GET, API_ANY, body=feed(name))
    output = search(spec)
    assert_guidance(output, "the response was not a complete Atom feed", "try the same call again")
    assert len(api.calls) == 3


def test_a_feed_cut_short_is_never_half_read(spec, api):
    """A truncated feed must not give a half entry ("Authors: unknown", abstract cut)."""
    api.add(responses.GET, API_ANY, body=feed("malformed.xml"))
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    output = search(spec)
    assert output.is_error is False
    assert "Authors: unknown" not in output.content
    assert output.content.count("Title: ") == 3
    assert "Authors: Minh-Thang Luong, Hieu Pham, Christopher D. Manning" in output.content
    assert len(api.calls) == 2


def test_an_empty_200_body_is_retried(spec, api):
    api.add(responses.GET, API_ANY, body="")
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    assert search(spec).is_error is False
    assert len(api.calls) == 2


def test_a_rejected_query_is_not_retried_and_quotes_arxiv(spec, api):
    api.add(responses.GET, API_ANY, status=400, body=feed("error_bad_id.xml"))
    output = spec.call_tool("arxiv_query", query="1234.12345")
    assert_guidance(
        output,
        "arXiv rejected the request: incorrect id format for 1234.12345.",
        "a valid id such as '1706.03762'",
        kind=FixArguments,
    )
    assert len(api.calls) == 1


def test_a_400_without_an_error_feed_names_the_status(spec, api):
    api.add(responses.GET, API_ANY, status=400, body="Bad Request")
    output = search(spec)
    assert_guidance(output, "arXiv rejected the request: HTTP 400", "Use plain keywords")
    assert len(api.calls) == 1


def test_the_client_keeps_arxivs_pace_between_requests(api, no_sleep):
    spec = ArxivToolSpec(client=ArxivClient(delay_seconds=3, num_retries=0, timeout=5))
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    assert search(spec).is_error is False
    assert no_sleep == []  # the first request goes at once
    assert search(spec).is_error is False
    assert len(no_sleep) == 1
    assert 2.5 < no_sleep[0] <= 3


async def test_failures_are_guidance_in_async_calls_too(spec, api):
    api.add(responses.GET, API_ANY, status=503)
    tool = next(t for t in spec.to_tool_list() if t.metadata.name == "arxiv_query")
    output = await tool.acall(query="attention")
    assert_guidance(output, "HTTP 503", "try the same call again", kind=RetryLater)


# -- the failure table: each loader error, its kind of guidance ----------------------


@pytest.mark.parametrize(
    ("error", "kind", "needles"),
    [
        (
            ArxivUnavailable("HTTP 429", 120, status=429),
            RetryLater,
            [
                "arXiv did not answer usefully (HTTP 429), even after retrying.",
                "Wait 120 seconds and try the same call again.",
            ],
        ),
        (
            ArxivUnavailable("no answer within 5 s"),
            RetryLater,
            ["arXiv did not answer usefully (no answer within 5 s), even after retrying."],
        ),
        (
            ArxivQueryError("incorrect id format for 1234.12345"),
            FixArguments,
            [
                "arXiv rejected the request: incorrect id format for 1234.12345.",
                "Use plain keywords, or a valid id such as '1706.03762'.",
            ],
        ),
        (
            PaperNotFound("2501.99999"),
            FixArguments,
            [
                "No arXiv paper has the id '2501.99999'.",
                "Check the id, or search for the paper with arxiv_query to get it.",
            ],
        ),
        (
            PaperUnreadable("1706.03762v7", "the PDF is damaged (PdfReadError)"),
            AskUser,
            [
                "The full text of 1706.03762v7 cannot be read: the PDF is damaged (PdfReadError).",
                "give the user the link https://arxiv.org/abs/1706.03762v7.",
            ],
        ),
    ],
)
def test_the_table_maps_each_loader_error(error, kind, needles):
    guidance = ArxivToolSpec(transport=FakeArxiv().transport()).guidance_for(error)
    assert type(guidance) is kind
    for needle in needles:
        assert needle in guidance.text, guidance.text
    if kind is RetryLater:
        assert guidance.retry_after == error.retry_after


def test_each_loader_error_has_its_own_row_before_the_defaults():
    table = ArxivToolSpec.failures
    errors = [
        ArxivUnavailable("HTTP 503", status=503),
        ArxivQueryError("HTTP 404", status=404),
        PaperNotFound("2501.99999"),
        PaperUnreadable("1706.03762v7", "damaged", status=403),
        UnsafeCacheFolder("/tmp/papers", "is owned by another user (uid 1001, not 1000)"),
    ]
    rows = [table.row_for(error) for error in errors]
    # One row each, not the core's rows for their statuses (503, 404, 403).
    assert [row.on for row in rows] == [type(error) for error in errors]
    # First the two rows of "no connection" (no network: AskUser; refused: RetryLater).
    assert [(row.on, row.kind) for row in table.rows[:2]] == [
        (ArxivUnreachable, AskUser),
        (ArxivUnreachable, RetryLater),
    ]
    assert rows == list(table.rows[2:7])
    # The table replaces the isinstance ladder: the spec does not override guidance_for.
    assert "guidance_for" not in vars(ArxivToolSpec)


def test_a_429_with_retry_after_reaches_the_agent_through_the_tool():
    arxiv = FakeArxiv()
    arxiv.fail.append((429, {"Retry-After": "120"}))
    output = ArxivToolSpec(transport=arxiv.transport()).call_tool("arxiv_query", query="bert")
    assert_guidance(output, "(HTTP 429)", "Wait 120 seconds", kind=RetryLater)
    assert output.exception.retry_after == 120


def test_echoed_ids_are_cut_short():
    many = ", ".join(f"2501.{n:05d}" for n in range(200))
    guidance = ArxivToolSpec.failures.guidance(PaperNotFound(many), "arXiv")
    assert "No arXiv paper has the id '2501.00000, 2501.00001, " in guidance.text
    assert "…" in guidance.text
    assert "2501.00199" not in guidance.text
    assert len(guidance.text) < 300


def test_a_huge_non_id_is_echoed_cut_short():
    spec = ArxivToolSpec(transport=FakeArxiv().transport())
    output = spec.call_tool("arxiv_paper_text", paper_id="not an id " * 10_000)
    assert_guidance(
        output, "'not an id not an id", "not an i… is not an arXiv id.", kind=FixArguments
    )
    assert len(output.content) < 400
