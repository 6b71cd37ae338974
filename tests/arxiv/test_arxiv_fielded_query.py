"""arxiv_query's fields (issue 15): author, title, category and submitted dates.

The spec checks categories against arXiv's taxonomy and reads dates as periods; the
reader builds arXiv's syntax from them (``au:``, ``ti:``, ``cat:``, ``submittedDate:``;
its own tests: test_arxiv_reader_fields.py); the shipped
FakeArxiv answers the query it receives, date ranges included.
"""

from __future__ import annotations

import datetime as dt
from urllib.parse import parse_qs, urlsplit

import pytest
from arxiv_fakes import assert_guidance

from toolspecs.core import FixArguments
from toolspecs.loaders.arxiv import CATEGORIES, fielded_query
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.arxiv.arguments import submitted_range

UTC = dt.timezone.utc


@pytest.fixture
def arxiv() -> FakeArxiv:
    return FakeArxiv()


@pytest.fixture
def spec(arxiv) -> ArxivToolSpec:
    return ArxivToolSpec(transport=arxiv.transport())


def search_query(arxiv: FakeArxiv) -> str:
    return parse_qs(urlsplit(arxiv.requests[-1].url).query)["search_query"][0]


def ids_in(text: str) -> list[str]:
    return [line.split()[2] for line in text.splitlines() if line.startswith("arXiv id:")]


@pytest.mark.dates
def test_the_fields_become_arxivs_syntax_joined_with_and(spec, arxiv):
    output = spec.call_tool(
        "arxiv_query",
        author="Ashish Vaswani",
        title="attention is all",
        category="cs.CL",
        submitted="2017",
    )
    assert output.is_error is False, output.content
    assert search_query(arxiv) == (
        'cat:cs.CL AND au:"Ashish Vaswani" AND ti:"attention is all" '
        "AND submittedDate:[201701010000 TO 201712312359]"
    )
    assert ids_in(output.content) == ["1706.03762v7"]


@pytest.mark.dates
def test_the_query_is_optional_when_a_field_is_given_and_fields_narrow_it(spec, arxiv):
    output = spec.call_tool("arxiv_query", category="cs.CL", submitted="2020", max_results=10)
    assert output.is_error is False, output.content
    assert search_query(arxiv) == "cat:cs.CL AND submittedDate:[202001010000 TO 202012312359]"
    assert sorted(ids_in(output.content)) == ["2004.04906v3", "2005.11401v4", "2005.14165v4"]
    keywords = spec.call_tool("arxiv_query", query="retrieval", author="Lewis", max_results=10)
    assert search_query(arxiv) == "au:Lewis AND (retrieval)"
    assert sorted(ids_in(keywords.content)) == ["2004.04906v3", "2005.11401v4"]  # RAG, DPR


def test_phrases_are_quoted_and_cannot_add_operators_or_fields(spec, arxiv):
    spec.call_tool("arxiv_query", title='x") OR (all:y', author="AND")
    assert search_query(arxiv) == 'au:"AND" AND ti:"x OR all y"'


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("CS.cl", "cat:cs.CL"),
        ("Computation and Language", "cat:cs.CL"),
        ("machine learning", "(cat:cs.LG OR cat:stat.ML)"),
        ("cs.CL, cs.LG", "(cat:cs.CL OR cat:cs.LG)"),
        ("hep-th", "cat:hep-th"),
    ],
)
def test_categories_are_read_tolerantly(spec, arxiv, given, sent):
    assert spec.call_tool("arxiv_query", category=given).is_error is False
    assert search_query(arxiv) == sent


@pytest.mark.parametrize(
    ("given", "close"),
    [("cs.ML", "stat.ML (Machine Learning)"), ("cs", "cs.AI"), ("computer vision", "cs.CV")],
)
def test_a_wrong_category_is_guidance_listing_close_ones(spec, arxiv, given, close):
    output = spec.call_tool("arxiv_query", query="attention", category=given)
    text = assert_guidance(output, "is not an arXiv category", close, "'cs.CL'", kind=FixArguments)
    assert len(text) < 600
    assert arxiv.requests == []


def test_the_taxonomy_is_arxivs():
    assert len(CATEGORIES) > 150
    assert CATEGORIES["cs.CL"] == "Computation and Language"
    assert CATEGORIES["cond-mat.str-el"] == "Strongly Correlated Electrons"


NOW = dt.datetime(2026, 11, 23, 8, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("given", "first", "last"),
    [
        ("2024", "2024-01-01 00:00", "2024-12-31 23:59"),
        ("last year", "2025-01-01 00:00", "2025-12-31 23:59"),
        ("2024-03", "2024-03-01 00:00", "2024-03-31 23:59"),
        ("2024-03-05", "2024-03-05 00:00", "2024-03-05 23:59"),
        ("2023 to 2024-06", "2023-01-01 00:00", "2024-06-30 23:59"),
        ("2024-03-05..March 7, 2024", "2024-03-05 00:00", "2024-03-07 23:59"),
        ("since 2025", "2025-01-01 00:00", "2026-11-23 07:59"),
        ("before 2020", "1991-08-01 00:00", "2019-12-31 23:59"),
        ("this month", "2026-11-01 00:00", "2026-11-23 07:59"),
        ("2024-03-05T10:30+02:00", "2024-03-05 08:30", "2024-03-05 08:30"),
        # A month by its name is the month, not a day of it (today's day number was used).
        ("May 2020", "2020-05-01 00:00", "2020-05-31 23:59"),
        ("sept. 2020 to 2021 Feb", "2020-09-01 00:00", "2021-02-28 23:59"),
        ("January 2020 - Jun 2020", "2020-01-01 00:00", "2020-06-30 23:59"),
    ],
)
@pytest.mark.dates
def test_dates_are_tolerant_and_read_in_gmt(given, first, last):
    start, end = submitted_range(given, NOW)
    assert (f"{start:%Y-%m-%d %H:%M}", f"{end:%Y-%m-%d %H:%M}") == (first, last)


@pytest.mark.parametrize(
    ("given", "needle"),
    [
        ("2025 to 2024", "end before they start"),
        ("12345", "is not a date"),
        ("2020-13", "has no month 13"),  # not day 13 of this month
    ],
)
@pytest.mark.dates
def test_unreadable_or_reversed_dates_are_guidance(spec, arxiv, given, needle):
    output = spec.call_tool("arxiv_query", author="Vaswani", submitted=given)
    assert_guidance(output, needle, "'2024'", kind=FixArguments)
    assert arxiv.requests == []


def test_no_match_for_fields_says_what_was_searched(spec):
    output = spec.call_tool("arxiv_query", author="Nobody Atall", category="hep-ex")
    assert output.is_error is False
    assert output.content.startswith('No arXiv papers match cat:hep-ex AND au:"Nobody Atall".')
    assert "drop a field" in output.content


def test_the_loader_builds_the_query_for_rag_users_too():
    start = dt.datetime(2024, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    end = dt.datetime(2024, 2, 1, tzinfo=UTC)
    assert fielded_query(authors=["Hinton"], submitted=(start, end)) == (
        "au:Hinton AND submittedDate:[202312312200 TO 202402010000]"
    )


def test_the_default_set_carries_the_fields():
    (query,) = [t for t in ArxivToolSpec(transport=FakeArxiv()).to_tool_list()
                if t.metadata.name == "arxiv_query"]  # fmt: skip
    schema = query.metadata.fn_schema.model_json_schema()
    assert {"author", "title", "category", "submitted"} <= set(schema["properties"])
    assert "query" not in schema.get("required", [])
