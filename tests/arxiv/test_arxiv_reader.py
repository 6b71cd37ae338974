"""ArxivReader: one Document per paper whose text carries what an agent needs."""

from __future__ import annotations

import pytest
import responses
from arxiv_fakes import API, API_ANY, feed, sent

from toolspecs.loaders.arxiv import ArxivClient, ArxivReader, PaperNotFound, shared_client


@pytest.fixture
def reader(client):
    return ArxivReader(client)


@pytest.fixture
def search_api(api):
    api.add(responses.GET, API_ANY, body=feed("search_attention.xml"))
    return api


def test_document_text_carries_title_authors_dates_id_links_and_abstract(reader, search_api):
    first, second, third = reader.load_data(query="attention")

    text = first.text
    assert text.startswith("Title: Attention Is All You Need\n")
    assert (
        "Authors: Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, "
        "Aidan N. Gomez, Lukasz Kaiser, Illia Polosukhin\n"
    ) in text
    assert "Published: 2017-06-12 (updated 2023-08-02)" in text
    assert "arXiv id: 1706.03762v7 | Category: cs.CL" in text
    assert (
        "URL: https://arxiv.org/abs/1706.03762v7 | PDF: https://arxiv.org/pdf/1706.03762v7" in text
    )
    # The abstract's line breaks are gone: an agent quotes it as one paragraph.
    assert (
        "Abstract: The dominant sequence transduction models are based on complex recurrent or "
        "convolutional neural networks in an encoder-decoder configuration."
    ) in text
    assert "English constituency parsing both with large and limited training data." in text
    assert first.id_ == "arxiv:1706.03762v7"

    # A title broken over two lines in the feed reads as one; the journal reference is shown.
    assert "Title: Effective Approaches to Attention-based Neural Machine Translation\n" in (
        second.text
    )
    assert "Authors: Minh-Thang Luong, Hieu Pham, Christopher D. Manning" in second.text
    assert "Journal: Proceedings of EMNLP 2015, pages 1412-1421" in second.text
    assert "arXiv id: 2005.14165v4" in third.text


def test_many_authors_end_in_et_al_with_the_count(reader, search_api):
    gpt3 = reader.load_data(query="attention")[2]
    assert (
        "Authors: Tom B. Brown, Benjamin Mann, Nick Ryder, Melanie Subbiah, Jared Kaplan, "
        "Prafulla Dhariwal, Arvind Neelakantan, Pranav Shyam, Girish Sastry, Amanda Askell, "
        "et al. (31 authors)\n"
    ) in gpt3.text
    assert "Sandhini Agarwal" not in gpt3.text  # the 11th author
    assert "Dario Amodei" not in gpt3.text


def test_the_request_arxiv_gets(reader, search_api):
    reader.load_data(query="ti:attention AND cat:cs.CL", max_results=3)
    (call,) = search_api.calls
    assert call.request.url.startswith(API + "?")
    assert sent(call) == {
        "search_query": "ti:attention AND cat:cs.CL",
        "id_list": "",
        "sortBy": "relevance",
        "sortOrder": "descending",
        "start": "0",
        "max_results": "3",  # only what is wanted, not a page of 100
    }
    assert call.request.req_kwargs["timeout"] == 5
    assert call.request.headers["user-agent"].startswith("toolspecs-arxiv")


@pytest.mark.parametrize(
    ("sort_by", "sent_sort"),
    [
        ("relevance", "relevance"),
        ("recent", "submittedDate"),
        ("submitted", "submittedDate"),
        ("updated", "lastUpdatedDate"),
    ],
)
def test_sort_by_reaches_arxiv(reader, search_api, sort_by, sent_sort):
    reader.load_data(query="attention", sort_by=sort_by)
    assert sent(search_api.calls[0])["sortBy"] == sent_sort


def test_id_list_lookup(reader, api):
    api.add(responses.GET, API_ANY, body=feed("id_1706.03762.xml"))
    (paper,) = reader.load_data(id_list=["1706.03762"], max_results=1)
    assert "Title: Attention Is All You Need" in paper.text
    params = sent(api.calls[0])
    assert params["id_list"] == "1706.03762"
    assert params["search_query"] == ""
    assert params["max_results"] == "1"


def test_no_results_is_an_empty_list(reader, api):
    api.add(responses.GET, API_ANY, body=feed("empty.xml"))
    assert reader.load_data(query="zzyzxqv") == []


def test_unknown_paper_raises_paper_not_found(reader, api):
    api.add(responses.GET, API_ANY, body=feed("empty.xml"))
    with pytest.raises(PaperNotFound) as caught:
        reader.load_paper("arXiv:2501.99999")
    assert caught.value.paper_id == "2501.99999"


def test_a_second_page_asks_only_for_the_papers_still_wanted(reader, api):
    first_page = feed(
        "search_attention.xml"
    ).replace(
        'totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">3<',
        'totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">4<',  # 3 here, 1 on the next page
    )
    api.add(
        responses.GET,
        API,
        body=first_page,
        match=[responses.matchers.query_param_matcher({"start": "0"}, strict_match=False)],
    )
    api.add(
        responses.GET,
        API,
        body=feed("id_1706.03762.xml"),
        match=[responses.matchers.query_param_matcher({"start": "3"}, strict_match=False)],
    )
    papers = reader.load_data(query="attention", max_results=5)
    assert len(papers) == 4
    assert [sent(c)["max_results"] for c in api.calls] == ["5", "2"]


def test_readers_without_a_client_share_one(monkeypatch):
    monkeypatch.setattr("toolspecs.loaders.arxiv.client._shared", None)
    one, two = ArxivReader(), ArxivReader()
    assert one.client is two.client
    assert one.client is shared_client()
    assert isinstance(one.client, ArxivClient)
    # arXiv's rate limit: one request every 3 seconds, across every reader.
    assert one.client.delay_seconds == 3.0


def test_a_reader_given_a_client_keeps_it(client):
    assert ArxivReader(client).client is client
    assert ArxivReader(client).client is not shared_client()
