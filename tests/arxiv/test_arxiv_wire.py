"""arXiv as users run it: ``ArxivToolSpec(base_url=...)``, requests and urllib3, a real socket.

The spec is built with arXiv's defaults and the base-URL option only, pointed at
:class:`~toolspecs.loaders.arxiv.testing.ArxivServer` (the shipped ``FakeArxiv`` on
127.0.0.1): every request goes through the ``arxiv`` package's URL building, our client's
bounded GET, requests, urllib3 and an HTTP parser, as a user's call does. Every tool of
``all_functions`` (and the reader of stored papers) is called through ``tool.call`` with
arguments an agent sends, and its answer checked against the fake's catalogue. No test
here passes ``transport=`` or reads a private attribute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from wire_calls import Tally

from toolspecs.loaders.arxiv.testing import NEEDLE, ArxivServer, FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec

TALLY = Tally("arXiv")


@pytest.fixture(scope="module", autouse=True)
def _publish(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    TALLY.publish(request.config)


@pytest.fixture
def no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy of the machine's environment is not between the client and 127.0.0.1."""
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture
def server(no_proxy: None) -> Iterator[ArxivServer]:
    """arXiv on 127.0.0.1, its feeds and PDFs gzip-compressed for requests, as arXiv sends them."""
    with ArxivServer(gzip=True) as running:
        yield running


def tools_of(spec: ArxivToolSpec) -> dict:
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}


@pytest.fixture
def tools(server: ArxivServer) -> dict:
    return tools_of(ArxivToolSpec(base_url=server.url))


TRANSFORMER = ["Title: Attention Is All You Need", "arXiv id: 1706.03762v7", "Ashish Vaswani"]


def test_every_tool_answers_from_the_catalogue(server: ArxivServer, tools: dict):
    with TALLY.calling_every(tools):  # every tool of the spec (tools_of reads them)
        # The links the agent reads stay arXiv's: the base URL is the user's plumbing.
        TALLY.call(
            tools["arxiv_query"],
            [*TRANSFORMER, "URL: https://arxiv.org/abs/1706.03762v7 | PDF: https://arxiv.org/pdf/"],
            absent=[server.url],
            query="attention is all you need",
        )
        TALLY.call(
            tools["arxiv_query"],
            ["Retrieval-Augmented Generation for Large Language Models: A Survey", "2312.10997v5"],
            query="retrieval-augmented generation",
            sort_by="newest",
            max_results="2",
        )
        TALLY.call(
            tools["arxiv_query"],
            [*TRANSFORMER, "Category: cs.CL"],
            author="Vaswani",
            category="Computation and Language",
        )
        TALLY.call(
            tools["arxiv_query"],
            [*TRANSFORMER, "BERT: Pre-training of Deep Bidirectional Transformers", "1810.04805v2"],
            query="arXiv:1706.03762, https://arxiv.org/abs/1810.04805",
        )
        TALLY.call(
            tools["arxiv_paper_text"],
            ["BERT", "1810.04805v2", "Jacob Devlin", "Full text: 1 page"],
            paper_id="1810.04805",
        )
        TALLY.call(
            tools["arxiv_paper_text"],
            ["stored as result 1", "Attention Is All You Need", "30 pages"],
            paper_id="https://arxiv.org/abs/1706.03762v7",
        )
        TALLY.call(tools["read_stored_papers"], [NEEDLE], query="quokka ablation perplexity")
        TALLY.call(
            tools["arxiv_paper_outline"],
            ["1706.03762v7", "3 Scaled dot-product attention (page 3)", "13 Label smoothing"],
            paper_id="1706.03762",
        )
        TALLY.call(
            tools["arxiv_paper_section"],
            ["Section 13. Label smoothing", "label smoothing in the Transformer"],
            paper_id="1706.03762",
            section="label smoothing",
        )
        TALLY.call(
            tools["arxiv_bibtex"],
            [
                "@misc{vaswani2017attention",
                "title = {{Attention Is All You Need}}",
                "eprint = {1706.03762}",
                "primaryClass = {cs.CL}",
                "@misc{lewis2020retrievalaugmented",
                "eprint = {2005.11401}",
            ],
            paper_ids=["1706.03762", "arXiv:2005.11401v4"],
        )
        # Every request the fake answered came over the socket: feeds and PDFs alike.
        assert server.received == len(server.fake.requests) > 0
        paths = [request.path_url.split("?")[0] for request in server.fake.requests]
        assert set(paths) == {"/api/query", "/pdf/1706.03762v7", "/pdf/1810.04805v2"}


@pytest.mark.dates  # a year or a month is read against today (a future one is refused)
def test_searches_by_submission_date(server: ArxivServer, tools: dict):
    TALLY.call(
        tools["arxiv_query"],
        [*TRANSFORMER, "Category: cs.CL"],
        author="Vaswani",
        category="cs.CL",
        submitted="2017",
    )
    TALLY.call(
        tools["arxiv_query"],
        ["Language Models are Few-Shot Learners", "2005.14165v4"],
        absent=["Attention Is All You Need"],
        title="few-shot learners",
        submitted="2020-01 to 2020-12",
    )
    sent = server.fake.requests[-1].url or ""
    assert "submittedDate%3A%5B202001010000+TO+202012312359%5D" in sent


def test_what_the_agent_gets_wrong_is_guidance(server: ArxivServer, tools: dict):
    TALLY.call(
        tools["arxiv_query"],
        ["No arXiv paper has the id", "2101.99999"],
        error=True,
        query="2101.99999",
    )
    TALLY.call(tools["arxiv_query"], ["The query is empty"], error=True, query=" ")
    TALLY.call(tools["arxiv_bibtex"], ["not an arXiv id"], error=True, paper_ids=["attention"])
    # A link to another host is not an id: nothing is fetched from it, or at all.
    before = server.received
    TALLY.call(
        tools["arxiv_paper_text"],
        ["is not an arXiv id"],
        error=True,
        absent=["Title:"],
        paper_id="https://evil.example/pdf/1706.03762",
    )
    assert server.received == before


def test_arxiv_failing_with_5xx_is_retried_then_retry_later(server: ArxivServer, tools: dict):
    server.fake.fail_every = 503
    TALLY.call(
        tools["arxiv_query"], ["HTTP 503", "try the same call again"], error=True, query="attention"
    )
    assert server.received == 4  # the first try and 3 retries, unpaced on this machine


def test_a_slow_answer_ends_at_the_call_deadline(server: ArxivServer):
    spec = ArxivToolSpec(base_url=server.url)
    spec.call_deadline = 1.5  # what a user sets; arXiv's slow answer trickles byte by byte
    server.fake.fail_every = "slow"
    started = time.monotonic()
    TALLY.call(
        tools_of(spec)["arxiv_query"],
        ["too slowly", "try the same call again"],
        error=True,
        query="attention",
    )
    assert time.monotonic() - started < 5


def test_an_oversize_pdf_is_dropped_at_the_cap(no_proxy: None):
    # Uncompressed: 500 MB of zeros gzip to 0.5 MB, which the server would send whole.
    with ArxivServer() as server:
        tools = tools_of(ArxivToolSpec(base_url=server.url))
        server.fake.fail = ["ok", "huge"]  # the id lookup answers; the PDF never ends
        TALLY.call(
            tools["arxiv_paper_text"], ["larger than 50 MB"], error=True, paper_id="1706.03762"
        )
    assert server.fake.bytes_sent < 60 * 2**20  # read to the cap, not to 500 MB


def test_a_pdf_that_inflates_past_the_cap_is_dropped(server: ArxivServer, tools: dict):
    # A compressed PDF whose inflated body passes the cap: 8 MB of it on the wire inflate
    # to 50 MB; the cap counts what is read after decompression.
    server.fake.pdfs["1810.04805"] = b"%PDF-1.7\n" + bytes(51 * 2**20)
    TALLY.call(tools["arxiv_paper_text"], ["larger than 50 MB"], error=True, paper_id="1810.04805")


def test_a_pdf_redirected_to_another_host_is_not_followed(server: ArxivServer, tools: dict):
    server.fake.fail = ["ok", (302, {"Location": "https://elsewhere.example/x.pdf"})]
    TALLY.call(
        tools["arxiv_paper_text"],
        ["redirected", "elsewhere.example"],
        error=True,
        paper_id="1706.03762",
    )
    assert server.received == 2


HOSTILE_ENTRY = """<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">
<entry><id>http://arxiv.org/abs/2401.00001v1</id>
<updated>2024-01-01T00:00:00Z</updated><published>2024-01-01T00:00:00Z</published>
<title>A Paper Whose Feed Links Elsewhere</title><summary>Its PDF link points at another host.</summary>
<author><name>Ada Lovelace</name></author>
<link href="https://evil.example/abs/2401.00001v1" rel="alternate" type="text/html"/>
<link title="pdf" href="https://evil.example/pdf/2401.00001v1" rel="related" type="application/pdf"/>
<arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
<category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/></entry></feed>"""


def test_a_feed_linking_another_host_is_read_from_the_base(no_proxy: None):
    with ArxivServer(FakeArxiv(feeds=[HOSTILE_ENTRY])) as server:
        tools = tools_of(ArxivToolSpec(base_url=server.url))
        TALLY.call(
            tools["arxiv_paper_text"],
            ["A Paper Whose Feed Links Elsewhere", "Its PDF link points at another host"],
            absent=["evil.example"],
            paper_id="2401.00001",
        )
        paths = [request.path_url.split("?")[0] for request in server.fake.requests]
    assert paths == ["/api/query", "/pdf/2401.00001v1"]  # from the base, not evil.example


def test_a_mirror_serving_its_own_pdf_links_is_followed(no_proxy: None):
    with ArxivServer(links_here=True) as server:
        tools = tools_of(ArxivToolSpec(base_url=server.url))
        TALLY.call(tools["arxiv_paper_text"], ["BERT", "Full text: 1 page"], paper_id="1810.04805")
        assert server.received == 2


def test_the_query_parameters_are_checked_as_arxiv_checks_them(server: ArxivServer):
    import requests

    answer = requests.get(
        f"{server.url}/api/query", params={"search_query": "all:x", "sortBy": "date"}, timeout=5
    )
    assert answer.status_code == 400
    assert "sortBy must be in: relevance, lastUpdatedDate, submittedDate" in answer.text
    answer = requests.get(f"{server.url}/api/query", params={"max_results": "ten"}, timeout=5)
    assert answer.status_code == 400 and "max_results must be an integer" in answer.text


def test_the_base_url_is_checked_when_the_spec_is_made():
    with pytest.raises(ValueError, match="use https for any other host"):
        ArxivToolSpec(base_url="http://arxiv-mirror.example.com")
    with pytest.raises(ValueError, match="credentials are not taken in a URL"):
        ArxivToolSpec(base_url="https://me:secret@arxiv-mirror.example.com")
    spec = ArxivToolSpec(base_url="https://arxiv-mirror.example.com/arxiv/")
    assert spec.reader.client.base_url == "https://arxiv-mirror.example.com/arxiv"
    assert spec.reader.client.delay_seconds == 3.0  # a mirror keeps arXiv's pace
    assert spec.paper_cache is None  # a mirror's PDFs are not kept as arXiv's by default


def test_concurrent_calls_share_the_client_on_the_wire(server: ArxivServer, tools: dict):
    from concurrent.futures import ThreadPoolExecutor

    asks = [
        ("attention is all you need", "1706.03762v7"),
        ("dense passage retrieval", "2004.04906v3"),
        ("few-shot learners", "2005.14165v4"),
        ("bidirectional transformers", "1810.04805v2"),
    ]
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda ask: TALLY.call(tools["arxiv_query"], [ask[1]], query=ask[0]), asks))
    assert server.received == 4


def test_the_reader_on_the_wire(server: ArxivServer):
    from toolspecs.loaders.arxiv import ArxivReader

    reader = ArxivReader(base_url=server.url)
    (paper,) = reader.load_data("bert", max_results=1)
    assert paper.metadata["arxiv_id"] == "1810.04805v2"
    assert paper.metadata["pdf_url"] == "https://arxiv.org/pdf/1810.04805v2"  # arXiv's link
    header, page = reader.load_full_text("1810.04805")
    assert header.metadata["pages"] == 1 and "Jacob Devlin" in page.text


def test_a_mirror_under_a_path(no_proxy: None):
    with ArxivServer(prefix="/mirrors/arxiv", links_here=True) as server:
        assert server.url.endswith("/mirrors/arxiv")
        tools = tools_of(ArxivToolSpec(base_url=server.url + "/"))
        TALLY.call(tools["arxiv_query"], TRANSFORMER, query="attention is all you need")
        TALLY.call(tools["arxiv_paper_text"], ["BERT", "Full text: 1 page"], paper_id="1810.04805")
        assert server.received == len(server.fake.requests) == 3


def test_the_async_path_on_the_wire(tools: dict):
    import asyncio

    asyncio.run(
        TALLY.acall(tools["arxiv_bibtex"], ["@misc{devlin2018bert"], paper_ids="1810.04805")
    )


def test_a_paper_cache_the_user_asks_for_keeps_the_mirrors_pdfs(server: ArxivServer, tmp_path):
    tools = tools_of(ArxivToolSpec(base_url=server.url, paper_cache=tmp_path / "papers"))
    TALLY.call(
        tools["arxiv_paper_outline"], ["3 Scaled dot-product attention"], paper_id="1706.03762"
    )
    TALLY.call(
        tools["arxiv_paper_section"],
        ["Section 17. Attention head ablations", NEEDLE],
        paper_id="1706.03762",
        section="17",
    )
    pdfs = [r for r in server.fake.requests if (r.path_url or "").startswith("/pdf/")]
    assert len(pdfs) == 1  # the second read came from the cache
