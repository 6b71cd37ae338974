"""The reader's fielded search, for RAG users: fields by name, plain data, quoted values.

``ArxivReader.search`` and ``load_data`` build arXiv's syntax (``au:``, ``ti:``,
``abs:``, ``cat:``, ``submittedDate:``) from the fields they are given; no value can
add an operator, a group or a field of its own. Offline, through the shipped FakeArxiv.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest

from toolspecs.loaders.arxiv import ArxivReader, SearchResults
from toolspecs.loaders.arxiv.testing import FakeArxiv

UTC = dt.timezone.utc


@pytest.fixture
def arxiv() -> FakeArxiv:
    return FakeArxiv()


@pytest.fixture
def reader(arxiv: FakeArxiv) -> ArxivReader:
    return ArxivReader(transport=arxiv.transport())


def sent(arxiv: FakeArxiv) -> str:
    return parse_qs(urlsplit(arxiv.requests[-1].url).query)["search_query"][0]


def test_load_data_takes_the_fields_by_name_and_finds_the_paper(reader, arxiv):
    papers = reader.load_data(
        authors=["Ashish Vaswani"],
        title="attention is all",
        categories=["cs.CL"],
        submitted=(dt.date(2017, 1, 1), dt.date(2017, 12, 31)),
    )
    assert sent(arxiv) == (
        'cat:cs.CL AND au:"Ashish Vaswani" AND ti:"attention is all" '
        "AND submittedDate:[201701010000 TO 201712312359]"
    )
    assert [paper.metadata["arxiv_id"] for paper in papers] == ["1706.03762v7"]


def test_search_returns_the_papers_and_the_query_it_sent(reader, arxiv):
    found = reader.search("retrieval", max_results=10, authors="Lewis")
    assert isinstance(found, SearchResults) and isinstance(found, list)
    assert found.query == sent(arxiv) == "au:Lewis AND (retrieval)"  # one string: one name
    assert sorted(paper.entry_id.split("/")[-1] for paper in found) == [
        "2004.04906v3",
        "2005.11401v4",
    ]
    none = reader.search(authors=["Nobody Atall"], categories="hep-ex")
    assert (list(none), none.query) == ([], 'cat:hep-ex AND au:"Nobody Atall"')


def test_the_abstract_is_a_field_too(reader, arxiv):
    papers = reader.load_data(abstract="dominant sequence transduction", max_results=5)
    assert sent(arxiv) == 'abs:"dominant sequence transduction"'
    assert "1706.03762v7" in [paper.metadata["arxiv_id"] for paper in papers]


@pytest.mark.parametrize(
    ("fields", "query"),
    [
        ({"title": 'x") OR (all:y'}, 'ti:"x OR all y"'),
        ({"authors": ["AND"]}, 'au:"AND"'),
        ({"authors": ["Hinton) OR au:(LeCun"]}, 'au:"Hinton OR au LeCun"'),
        ({"abstract": "[proof] ANDNOT \\ cat:hep-th"}, 'abs:"proof ANDNOT cat hep-th"'),
        ({"categories": ["cs.CL OR au:Hinton"]}, 'cat:"cs.CL OR au Hinton"'),
        ({"categories": ["cs.CL", "cs.LG"]}, "(cat:cs.CL OR cat:cs.LG)"),
    ],
)
def test_no_value_becomes_syntax_of_its_own(reader, arxiv, fields, query):
    reader.load_data(**fields)
    assert sent(arxiv) == query


def test_the_free_query_stays_arxiv_syntax_and_alone_is_sent_as_given(reader, arxiv):
    reader.load_data("ti:transformer AND cat:cs.CL", max_results=5)
    assert sent(arxiv) == "ti:transformer AND cat:cs.CL"
    reader.load_data("ti:transformer OR abs:bert", categories=["cs.CL"])
    assert sent(arxiv) == "cat:cs.CL AND (ti:transformer OR abs:bert)"


def test_times_are_sent_in_gmt_and_naive_ones_read_as_gmt(reader, arxiv):
    east = dt.timezone(dt.timedelta(hours=2))
    reader.load_data("x", submitted=(dt.datetime(2024, 1, 1, tzinfo=east), dt.datetime(2024, 2, 1)))
    assert sent(arxiv) == "submittedDate:[202312312200 TO 202402010000] AND (x)"


def test_blank_fields_are_left_out(reader, arxiv):
    reader.load_data("bert", authors=["", " "], title=" ", abstract="", categories=[])
    assert sent(arxiv) == "bert"
