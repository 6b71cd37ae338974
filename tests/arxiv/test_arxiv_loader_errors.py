"""The loader's errors carry status, reason and retry_after from arXiv's HTTP answers.

arXiv is faked at the transport (``FakeArxiv`` through ``transport=``, or a transport
that never answers); no test here needs toolspecs-core.
"""

from __future__ import annotations

import email.utils
import time

import pytest
import requests
from requests.adapters import BaseAdapter, HTTPAdapter

from toolspecs.loaders.arxiv import (
    ArxivClient,
    ArxivLoaderError,
    ArxivQueryError,
    ArxivReader,
    ArxivUnavailable,
    PaperNotFound,
    PaperUnreadable,
    shared_client,
)
from toolspecs.loaders.arxiv.testing import FakeArxiv


@pytest.fixture
def arxiv() -> FakeArxiv:
    return FakeArxiv()


def reader_on(transport: BaseAdapter, num_retries: int = 0) -> ArxivReader:
    return ArxivReader(ArxivClient(num_retries=num_retries, timeout=5, transport=transport))


class Unreachable(BaseAdapter):
    """A transport whose every request fails before an answer, as ``error`` says."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error
        self.sent = 0

    def send(self, request, *args, **kwargs):
        self.sent += 1
        raise self.error

    def close(self) -> None:
        pass


class NoPdfs(FakeArxiv):
    """arXiv knowing its papers but answering 404 for every PDF."""

    def pdf(self, paper_id: str) -> bytes | None:
        return None


# -- ArxivUnavailable -----------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_carries_its_status(arxiv, status):
    arxiv.fail += [status, status]
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(arxiv.transport(), num_retries=1).load_data("bert")
    error = caught.value
    assert (error.status, error.reason, error.retry_after) == (status, f"HTTP {status}", None)
    assert str(error) == f"arXiv is unavailable: HTTP {status}"
    assert len(arxiv.requests) == 2


def test_a_429_carries_arxivs_retry_after(arxiv):
    arxiv.fail.append((429, {"Retry-After": "120"}))
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(arxiv.transport(), num_retries=3).load_data("bert")
    assert (caught.value.status, caught.value.retry_after) == (429, 120.0)
    assert caught.value.reason == "HTTP 429"
    assert len(arxiv.requests) == 1  # two minutes is too long to wait: passed on, not retried


def test_a_retry_after_given_as_an_http_date_is_read_as_seconds(arxiv):
    # The real clock, on purpose: the client measures a Retry-After date from it.
    later = email.utils.formatdate(time.time() + 600, usegmt=True)
    arxiv.fail.append((503, {"Retry-After": later}))
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(arxiv.transport()).load_data("bert")
    assert caught.value.status == 503
    assert 590 <= caught.value.retry_after <= 600


@pytest.mark.parametrize("value", ["soon", "nan", "inf", ""])
def test_a_retry_after_that_is_not_a_time_is_ignored(arxiv, value):
    arxiv.fail.append((503, {"Retry-After": value}))
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(arxiv.transport()).load_data("bert")
    assert caught.value.retry_after is None


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (
            requests.ReadTimeout("Read timed out. (read timeout=5)"),
            "no answer from export.arxiv.org within 5 s",
        ),
        (
            requests.ConnectionError("Connection refused"),
            "could not connect to export.arxiv.org (ConnectionError)",
        ),
    ],
)
def test_no_answer_at_all_has_no_status(error, reason):
    down = Unreachable(error)
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(down, num_retries=2).load_data("bert")
    assert (caught.value.status, caught.value.reason, caught.value.retry_after) == (
        None,
        reason,
        None,
    )
    assert down.sent == 3


# -- ArxivQueryError ------------------------------------------------------------------


def test_a_malformed_id_carries_400_and_arxivs_message(arxiv):
    with pytest.raises(ArxivQueryError) as caught:
        reader_on(arxiv.transport()).load_data(id_list=["1234.12345"])
    error = caught.value
    assert error.status == 400
    assert error.reason == error.message == "incorrect id format for 1234.12345"
    assert error.retry_after is None
    assert len(arxiv.requests) == 1  # a rejected query is not retried


@pytest.mark.parametrize("status", [400, 403, 414])
def test_a_rejection_without_a_message_carries_its_status(arxiv, status):
    arxiv.fail.append(status)
    with pytest.raises(ArxivQueryError) as caught:
        reader_on(arxiv.transport(), num_retries=2).load_data("bert")
    assert (caught.value.status, caught.value.reason) == (status, f"HTTP {status}")
    assert len(arxiv.requests) == 1


# -- PaperNotFound, PaperUnreadable ---------------------------------------------------


def test_an_unknown_id_is_paper_not_found_with_404(arxiv):
    with pytest.raises(PaperNotFound) as caught:
        reader_on(arxiv.transport()).load_full_text("2501.99999")
    error = caught.value
    assert (error.paper_id, error.status, error.retry_after) == ("2501.99999", 404, None)
    assert error.reason == "arXiv returned no entry for 2501.99999"


def test_a_pdf_arxiv_does_not_serve_carries_the_pdfs_status():
    arxiv = NoPdfs()
    with pytest.raises(PaperUnreadable) as caught:
        reader_on(arxiv.transport()).load_full_text("1706.03762")
    error = caught.value
    assert (error.paper_id, error.status, error.retry_after) == ("1706.03762v7", 404, None)
    assert error.reason == "arXiv did not serve the PDF (HTTP 404)"
    assert [r.path_url.split("?")[0] for r in arxiv.requests] == ["/api/query", "/pdf/1706.03762v7"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html>Processing...</html>", "arXiv did not send a PDF (it may still be processing)"),
        (b"%PDF-1.4\nnot really", "the PDF is damaged"),
    ],
)
def test_a_200_that_is_no_readable_pdf_has_no_status(body, reason):
    arxiv = FakeArxiv(pdfs={"1706.03762": body})
    with pytest.raises(PaperUnreadable) as caught:
        reader_on(arxiv.transport()).load_full_text("1706.03762")
    assert caught.value.status is None
    assert caught.value.reason.startswith(reason)


def test_every_error_is_a_loader_error_with_the_three_fields():
    errors = [
        ArxivUnavailable("HTTP 503", 5, status=503),
        ArxivQueryError("incorrect id format for x"),
        PaperNotFound("2501.99999"),
        PaperUnreadable("1706.03762v7", "the PDF is damaged"),
        ArxivLoaderError("something else"),
    ]
    for error in errors:
        assert isinstance(error, ArxivLoaderError)
        assert isinstance(error.reason, str)
        assert error.status is None or isinstance(error.status, int)
    assert ArxivLoaderError("x").status is None
    assert ArxivLoaderError("x").retry_after is None
    assert ArxivUnavailable("HTTP 503").retryable is True


# -- the seam: transport= ---------------------------------------------------------


def test_every_request_goes_through_the_transport_over_https(arxiv):
    client = ArxivClient(transport=arxiv.transport())
    assert arxiv.transport() is arxiv
    reader = ArxivReader(client)
    reader.load_data("bert", max_results=1)  # https://export.arxiv.org/api/query
    reader.load_full_text("2004.04906")  # the feed links http://arxiv.org/pdf/...
    assert [r.url for r in arxiv.requests][2] == "https://arxiv.org/pdf/2004.04906v3"
    assert [r.url.split(":")[0] for r in arxiv.requests] == ["https", "https", "https"]


def test_a_reader_given_a_transport_gets_a_client_of_its_own(arxiv):
    reader = ArxivReader(transport=arxiv.transport())
    assert reader.client is not shared_client()
    assert reader.client.transport is arxiv
    assert reader.load_data("bert", max_results=1)[0].metadata["arxiv_id"] == "1810.04805v2"


def test_the_fake_asks_for_no_pause_and_arxiv_for_three_seconds(arxiv):
    assert ArxivClient(transport=arxiv.transport()).delay_seconds == 0
    assert ArxivClient(transport=HTTPAdapter()).delay_seconds == 3.0
    assert ArxivClient().delay_seconds == 3.0
    assert ArxivClient(delay_seconds=1, transport=arxiv.transport()).delay_seconds == 1


def test_a_reader_takes_a_client_or_a_transport_not_both(arxiv):
    with pytest.raises(ValueError, match="client= or transport=, not both"):
        ArxivReader(ArxivClient(), transport=arxiv.transport())


# -- the deadline: retries and waits within it ----------------------------------------


def test_no_wait_after_the_last_try(arxiv, no_backoff_sleep):
    arxiv.fail += [(503, {"Retry-After": "5"})] * 2
    with pytest.raises(ArxivUnavailable) as caught:
        reader_on(arxiv.transport(), num_retries=1).load_data("bert")
    assert len(arxiv.requests) == 2
    assert no_backoff_sleep == [5.0]  # between the tries, not after the last
    assert caught.value.retry_after == 5.0


def test_retry_after_waits_stop_at_the_deadline(arxiv, no_backoff_sleep):
    # arXiv says "30 s" every time: the old client slept 30 s before each of 4 tries.
    arxiv.fail += [(429, {"Retry-After": "30"})] * 4
    client = ArxivClient(transport=arxiv.transport(), num_retries=3, deadline=45)
    with pytest.raises(ArxivUnavailable) as caught:
        ArxivReader(client=client).load_data("bert")
    assert len(arxiv.requests) == 2 and no_backoff_sleep == [30.0]
    assert caught.value.retry_after == 30.0  # the guidance says when to try again


def test_the_spec_answers_within_its_deadline_with_when_to_retry(arxiv, no_backoff_sleep):
    from toolspecs.core import RetryLater
    from toolspecs.specs.arxiv import ArxivToolSpec

    arxiv.fail += [(503, {"Retry-After": "120"})] * 4
    out = ArxivToolSpec(transport=arxiv.transport()).call_tool("arxiv_query", query="bert")
    assert isinstance(out.exception, RetryLater) and out.exception.retry_after == 120.0
    assert sum(no_backoff_sleep) <= 30.0 and len(arxiv.requests) == 1
