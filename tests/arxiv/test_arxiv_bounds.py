"""Bounded downloads and parsing: size while streaming, wall time, arXiv hosts only, PDF text.

Issue 12's examples: a 500 MB PDF was read whole before the 50 MB check; a server
sending a byte at a time was never cut off (the timeout was per read); PDF links
followed redirects to any host; a 16 KB crafted PDF kept ``arxiv_paper_text`` busy for
minutes and hundreds of MB. arXiv is faked at the transport (``FakeArxiv`` and its
failure modes); timings are only checked as "well before" a generous bound.
"""

from __future__ import annotations

import time

import pytest
from arxiv_fakes import assert_guidance

from toolspecs.core import AskUser, RetryLater
from toolspecs.loaders.arxiv import ArxivClient, ArxivReader, ArxivUnavailable, PaperUnreadable
from toolspecs.loaders.arxiv.client import MAX_FEED_BYTES, arxiv_url
from toolspecs.loaders.arxiv.reader import MAX_PDF_BYTES
from toolspecs.loaders.arxiv.testing import FakeArxiv, bomb_pdf
from toolspecs.specs.arxiv import ArxivToolSpec

ABS_LINK = "https://arxiv.org/abs/1706.03762v7"


@pytest.fixture
def arxiv() -> FakeArxiv:
    return FakeArxiv()


def spec_on(arxiv: FakeArxiv, call_deadline: float = 30.0) -> ArxivToolSpec:
    spec = ArxivToolSpec(transport=arxiv.transport())
    spec.call_deadline = call_deadline
    return spec


def read_paper(spec: ArxivToolSpec, paper_id: str = "1706.03762"):
    return spec.call_tool("arxiv_paper_text", paper_id=paper_id)


# -- size: checked while streaming ----------------------------------------------------


def test_a_500_mb_pdf_is_dropped_at_the_cap_not_read_whole(arxiv):
    arxiv.fail += ["ok", "huge"]  # the id feed, then a PDF of 500 MB without Content-Length
    output = read_paper(spec_on(arxiv))
    assert_guidance(output, "the PDF is larger than 50 MB", ABS_LINK, kind=AskUser)
    # The old client read all 500 MB (and held them twice) before checking.
    assert arxiv.bytes_sent < MAX_PDF_BYTES + 2**20


def test_a_pdf_declaring_more_than_the_cap_is_not_downloaded(arxiv):
    declared = {"Content-Length": str(MAX_PDF_BYTES + 1), "Content-Type": "application/pdf"}
    arxiv.fail += ["ok", (200, declared)]
    sent_before = []

    def count(request, *args, **kwargs):
        sent_before.append(arxiv.bytes_sent)
        return FakeArxiv.send(arxiv, request, *args, **kwargs)

    arxiv.send = count  # type: ignore[method-assign]
    with pytest.raises(PaperUnreadable, match="larger than 50 MB"):
        ArxivReader(transport=arxiv.transport()).load_full_text("1706.03762")
    assert arxiv.bytes_sent == sent_before[-1]  # not one byte of the PDF was read


def test_a_feed_is_capped_too(arxiv):
    arxiv.fail_every = "huge"
    with pytest.raises(ArxivUnavailable, match="larger than 10 MB"):
        ArxivReader(ArxivClient(num_retries=0, transport=arxiv.transport())).load_data("bert")
    assert arxiv.bytes_sent < MAX_FEED_BYTES + 2**20


# -- time: one deadline for the whole download ---------------------------------------


def test_a_trickling_feed_is_cut_off_at_the_clients_deadline(arxiv):
    arxiv.fail_every = "slow"  # one byte every 0.05 s: the feed would take minutes
    client = ArxivClient(transport=arxiv.transport(), timeout=5, deadline=1)
    started = time.monotonic()
    with pytest.raises(ArxivUnavailable, match="came too slowly") as caught:
        ArxivReader(client).load_data("bert")
    assert time.monotonic() - started < 10  # each byte came well within the 5 s timeout
    assert caught.value.status is None
    assert len(arxiv.requests) == 1  # no time left to try again


def test_a_trickling_pdf_ends_in_guidance_from_the_client_before_the_call_deadline(arxiv):
    arxiv.fail += ["ok", "slow"]
    started = time.monotonic()
    output = read_paper(spec_on(arxiv, call_deadline=3))
    assert time.monotonic() - started < 10
    # The client's own words (it stopped reading), not the guard's "did not finish".
    assert_guidance(
        output, "the answer came too slowly", "try the same call again", kind=RetryLater
    )
    assert "did not finish within" not in output.content


# -- where: arXiv over https, redirects included --------------------------------------


@pytest.mark.parametrize(
    ("url", "fetched"),
    [
        ("https://arxiv.org/pdf/1706.03762v7", True),
        ("https://export.arxiv.org/api/query?id_list=1706.03762", True),
        ("https://browse.arxiv.org/pdf/1706.03762v7", True),
        ("https://ARXIV.org./pdf/1706.03762v7", True),
        ("http://arxiv.org/pdf/1706.03762v7", False),  # not https
        ("https://evilarxiv.org/pdf/1706.03762v7", False),
        ("https://arxiv.org.evil.example/pdf/1706.03762v7", False),
        ("https://arxiv.org@evil.example/pdf/1706.03762v7", False),
        ("https://user@arxiv.org/pdf/1706.03762v7", False),
        ("https://arxiv.org:8443/pdf/1706.03762v7", False),
        ("https://arxiv.org:99999/pdf", False),
        ("ftp://arxiv.org/pdf/1706.03762v7", False),
        ("//arxiv.org/pdf/1706.03762v7", False),
    ],
)
def test_only_arxiv_over_https_is_fetched(url, fetched):
    assert arxiv_url(url) is fetched


@pytest.mark.parametrize(
    "location",
    [
        "https://evil.example/1706.03762v7.pdf",
        "http://arxiv.org/pdf/1706.03762v7",  # a downgrade to http
        "https://arxiv.org.evil.example/pdf/1706.03762v7",
    ],
)
def test_a_pdf_redirected_away_from_arxiv_is_not_followed(arxiv, location):
    arxiv.fail += ["ok", (302, {"Location": location})]
    output = read_paper(spec_on(arxiv))
    assert_guidance(
        output, "the PDF link was redirected", "which is not arXiv over https", kind=AskUser
    )
    # The old client followed the redirect: a third request, to wherever it pointed.
    assert [r.url for r in arxiv.requests][1:] == ["https://arxiv.org/pdf/1706.03762v7"]


def test_a_redirect_within_arxiv_is_followed(arxiv):
    arxiv.fail += ["ok", (301, {"Location": "https://export.arxiv.org/pdf/1706.03762v7"})]
    output = read_paper(spec_on(arxiv))
    assert output.is_error is False
    assert arxiv.requests[-1].url == "https://export.arxiv.org/pdf/1706.03762v7"


def test_a_feed_redirected_away_is_guidance_not_a_request(arxiv):
    arxiv.fail.append((302, {"Location": "https://evil.example/api/query"}))
    output = spec_on(arxiv).call_tool("arxiv_query", query="bert")
    assert_guidance(output, "https://evil.example/api/query, which is not arXiv", kind=RetryLater)
    assert len(arxiv.requests) == 1


def test_a_redirect_loop_ends(arxiv):
    arxiv.fail_every = (302, {"Location": "https://arxiv.org/pdf/again"})
    output = read_paper(spec_on(arxiv))
    assert_guidance(output, "more than 5 redirects", kind=RetryLater)


# -- PDF text: bounded in pages, characters, time and memory (read_pages itself: tests/pdf) --


def test_the_crafted_pdf_through_the_tool_is_an_answer_within_the_deadline(arxiv):
    arxiv.fail += ["ok", "bomb"]
    started = time.monotonic()
    output = read_paper(spec_on(arxiv, call_deadline=4))
    assert time.monotonic() - started < 15
    # Either the pages read in time, with a note, or guidance: never the guard's timeout.
    assert "did not finish within" not in output.content
    assert "internal error" not in output.content
    assert "reading it took over" in output.content


def test_the_note_says_which_pages_the_agent_sees(arxiv):
    arxiv.pdfs["1706.03762"] = bomb_pdf(pages=40, chars=40_000)
    started = time.monotonic()
    output = read_paper(spec_on(arxiv))
    assert time.monotonic() - started < 20
    assert output.is_error is False
    # The notes come before the abstract: the preview of a stored result shows them.
    assert "stored as result 1" in output.content
    assert "Full text: 40 pages, read from the PDF." in output.content
    assert "[Only pages 1-17 of 40 are shown: the text is cut at 500,000 characters.]" in (
        output.content
    )
    assert "[Page(s) 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, ... are cut: a page shows at most its" in (
        output.content
    )


# -- the tool call's deadline bounds the client ----------------------------------------


def test_the_spec_passes_its_call_deadline_to_every_fetch(arxiv, no_backoff_sleep):
    # The client alone would wait (Retry-After: 2 s) and try again, within its 30 s;
    # the call has 3 s: it answers at once and says when to try again.
    arxiv.fail += [(429, {"Retry-After": "2"})] * 4
    output = spec_on(arxiv, call_deadline=3).call_tool("arxiv_query", query="bert")
    assert isinstance(output.exception, RetryLater)
    assert output.exception.retry_after == 2.0
    assert no_backoff_sleep == [] and len(arxiv.requests) == 1


def test_within_bounds_every_fetch_of_a_reader_call(arxiv, no_backoff_sleep):
    arxiv.fail += [(503, {"Retry-After": "5"})] * 4
    reader = ArxivReader(ArxivClient(num_retries=3, transport=arxiv.transport()))
    with pytest.raises(ArxivUnavailable):
        reader.load_data("bert", deadline=4)
    assert no_backoff_sleep == [] and len(arxiv.requests) == 1
    arxiv.fail = [(503, {"Retry-After": "5"})]
    assert reader.load_data("bert", deadline=60)  # time enough: waits, then reads
    assert no_backoff_sleep == [5.0]


def test_no_process_to_read_the_pdf_is_guidance_not_an_exception(arxiv, monkeypatch):
    # read_pages itself: tests/pdf/test_pdf_text.py
    monkeypatch.setattr("toolspecs.loaders.pdf.pdftext.sys.executable", "/nonexistent/python")
    output = read_paper(spec_on(arxiv))
    assert_guidance(output, "cannot be read: no process could be started to read it", kind=AskUser)


def test_keeping_arxivs_pace_never_waits_past_the_callers_deadline():
    # arXiv asks for 3 s between requests; a call with 1 s left must not sleep 3 s first.
    import time as clock

    from toolspecs.loaders.arxiv.client import ArxivClient
    from toolspecs.loaders.arxiv.testing import FakeArxiv

    client = ArxivClient(transport=FakeArxiv(), delay_seconds=3)
    url = "https://export.arxiv.org/api/query?id_list=1706.03762"
    client.get(url)
    started = clock.monotonic()
    with pytest.raises(Exception, match="pace"):
        client.get(url, end=clock.monotonic() + 1.0)
    assert clock.monotonic() - started < 0.5
