"""Issue 25: every arXiv tool's structured result holds the facts its text shows.

(a) each tool on the sandbox's fake arXiv, text and data side by side; (b) one whole task
(search, then read a section of the first hit) through mcp's own client, whose every next
argument comes from ``structured_content``, never from the text.
"""

from __future__ import annotations

import re

import pytest
from mcp import Client

from toolspecs.core.registry import sandbox_spec
from toolspecs.server import build_server

QUOTED = {"third_party": True}


@pytest.fixture
def tools():
    spec = sandbox_spec("arxiv")
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}


def call(tools, name, **arguments):
    out = tools[name].call(**arguments)
    assert out.is_error is False, out.content
    return out.content, out.structured


def quoted(value) -> str:
    """The text of a Quoted value, checking that it is marked as third-party text."""
    assert value["third_party"] is True, value
    return value["text"]


# -- (a) the facts of each tool's text, as data ------------------------------------------


def test_a_search_holds_each_paper_and_the_query_as_sent(tools):
    text, data = call(
        tools, "arxiv_query", query="retrieval", category="cs.CL", max_results=2, sort_by="recent"
    )
    assert data["query"] == "cat:cs.CL AND (retrieval)"  # arXiv's search_query as sent
    assert (data["sort_by"], data["max_results"], data["count"]) == ("recent", 2, 2)
    assert data["more_may_exist"] is True  # as many as asked for came
    assert len(data["papers"]) == text.count("Title: ") == 2
    for paper in data["papers"]:
        assert f"Title: {quoted(paper['title'])}\n" in text
        assert f"arXiv id: {paper['versioned_id']} | Category: {paper['primary_category']}" in text
        assert paper["versioned_id"].startswith(paper["arxiv_id"] + "v")
        assert f"URL: {paper['url']} | PDF: {paper['pdf_url']}" in text
        assert quoted(paper["abstract"]) in text
        names = ", ".join(quoted(a) for a in paper["authors"])
        assert f"Authors: {names}" in text
        # The day the text shows, as an instant with its offset (arXiv's, UTC).
        assert f"Published: {paper['published'][:10]}" in text
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", paper["published"])
        assert paper["updated"].endswith("+00:00")
        assert paper["primary_category"] in paper["categories"]
    first = data["papers"][0]
    assert first["arxiv_id"] == "2312.10997"
    assert f"Published: 2023-12-18 (updated {first['updated'][:10]})" in text


def test_an_id_lookup_names_its_ids_and_more_authors_than_shown_are_counted(tools):
    text, data = call(tools, "arxiv_query", query="2005.14165")
    assert (data["query"], data["ids"], data["count"]) == ("", ["2005.14165"], 1)
    assert data["more_may_exist"] is False
    (paper,) = data["papers"]
    assert paper["versioned_id"] == "2005.14165v4"
    assert len(paper["authors"]) == 10 and paper["author_count"] == 31
    assert f"et al. ({paper['author_count']} authors)" in text
    text, data = call(tools, "arxiv_query", query="hep-ex/0307015")
    (paper,) = data["papers"]
    assert (paper["arxiv_id"], paper["versioned_id"]) == ("hep-ex/0307015", "hep-ex/0307015v1")
    assert f"Journal: {quoted(paper['journal_ref'])}" in text


def test_searches_that_find_nothing_carry_an_empty_list_and_what_to_do(tools):
    text, data = call(tools, "arxiv_query", query="zzzqqq")
    assert data["papers"] == [] and data["count"] == 0 and data["more_may_exist"] is False
    assert data["query"] == "zzzqqq"
    assert text == f"No arXiv papers match 'zzzqqq'. {data['next_step']}"
    text, data = call(tools, "arxiv_query", author="Nobody Here")
    assert data["papers"] == [] and data["query"] == 'au:"Nobody Here"'
    assert text == f"No arXiv papers match {data['query']}. {data['next_step']}"


def test_a_short_paper_s_full_text_is_shown_page_by_page(tools):
    text, data = call(tools, "arxiv_paper_text", paper_id="1810.04805")
    assert "stored" not in data
    assert data["paper"]["versioned_id"] == "1810.04805v2"
    assert data["page_count"] == 1 and "Full text: 1 page, read from the PDF." in text
    (page,) = data["pages"]
    assert page["number"] == 1 and "<<< page 1/1 of arXiv 1810.04805v2" in text
    assert quoted(page["text"]) in text


def test_a_long_paper_s_full_text_is_stored_and_the_data_names_the_handle(tools):
    text, data = call(tools, "arxiv_paper_text", paper_id="1706.03762")
    stored = data["stored"]
    assert f"it is stored as result {stored['result_id']} ({stored['passages']} passages)" in text
    assert stored["read_with"] == "read_stored_papers" and "call read_stored_papers" in text
    assert data["paper"]["versioned_id"] == "1706.03762v7" and data["page_count"] == 30
    # Within the text's budget: pages cut first, then the last pages left out, counted.
    assert data["pages"][0]["number"] == 1
    assert len(data["pages"]) + data.get("omitted", 0) == 30
    assert all(page["text"].get("cut") for page in data["pages"])
    # The handle reads the whole paper back.
    _, passages = call(
        tools, "read_stored_papers", result_id=stored["result_id"], query="quokka ablation"
    )
    assert passages


def test_an_outline_lists_each_heading_and_what_to_pass_to_read_it(tools):
    text, data = call(tools, "arxiv_paper_outline", paper_id="1706.03762")
    assert (data["arxiv_id"], data["versioned_id"]) == ("1706.03762", "1706.03762v7")
    assert text.startswith(
        f"Outline of arXiv {data['versioned_id']}: {quoted(data['title'])} "
        f"({data['page_count']} pages; {data['heading_count']} headings, from the PDF's "
        f"{data['source']}):"
    )
    assert len(data["headings"]) == data["heading_count"] == 30
    for heading in data["headings"]:
        assert f"- {quoted(heading['title'])} (page {heading['page']})" in text
        assert quoted(heading["title"]).startswith(heading["section"] + " ")
    assert text.endswith(data["next_step"])
    assert "section='2'" in data["next_step"]


def test_a_section_holds_its_text_heading_and_the_next_one(tools):
    text, data = call(tools, "arxiv_paper_section", paper_id="1706.03762", section="3")
    heading = data["section"]
    assert (heading["section"], heading["page"]) == ("3", 3)
    assert text.startswith(
        f"Section {quoted(heading['title'])!r} of arXiv {data['versioned_id']} (from page 3):"
    )
    assert quoted(data["text"]) in text and "Scaled dot-product attention" in data["text"]["text"]
    assert data["next_section"] == "4"
    assert text.endswith(data["next_step"])
    assert "section='4'" in data["next_step"]
    assert "cut_at_chars" not in data
    text, data = call(tools, "arxiv_paper_section", paper_id="1706.03762", section="30")
    assert "next_section" not in data
    assert data["next_step"].startswith("This is the last section") and text.endswith(
        data["next_step"]
    )


def test_bibtex_holds_each_entry_and_the_ids_not_found(tools):
    text, data = call(tools, "arxiv_bibtex", paper_ids=["1706.03762", "2101.00001"])
    (entry,) = data["entries"]
    assert (entry["arxiv_id"], entry["versioned_id"]) == ("1706.03762", "1706.03762v7")
    assert quoted(entry["bibtex"]) in text and "@misc{vaswani2017attention," in text
    assert data["missing"] == ["2101.00001"]
    assert text.endswith(data["next_step"]) and "2101.00001" in data["next_step"]


def test_guidance_carries_no_structured_result(tools):
    out = tools["arxiv_paper_section"].call(paper_id="1706.03762", section="Nope")
    assert out.is_error is True
    assert getattr(out, "structured", None) is None


# -- (b) a task from structured content alone, through mcp's client ----------------------


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_agent_reading_only_structured_content_finds_a_paper_and_reads_a_section(mode):
    spec = sandbox_spec("arxiv")
    spec.spec_functions = spec.all_functions  # the server follows the instance
    async with Client(build_server(spec), mode=mode) as client:
        listed = {t.name: t.output_schema for t in (await client.list_tools()).tools}
        assert all(listed.values()), "every tool has an outputSchema"

        async def ask(name: str, **arguments):
            # mcp's client validates structuredContent against the tool's outputSchema
            # and raises when it does not match (ClientSession.validate_tool_result).
            result = await client.call_tool(name, arguments)
            assert result.is_error is False
            return result.structured_content

        found = await ask("arxiv_query", query="attention is all you need", max_results=1)
        first = found["papers"][0]
        outline = await ask("arxiv_paper_outline", paper_id=first["arxiv_id"])
        wanted = next(h for h in outline["headings"] if "attention" in h["title"]["text"].lower())
        section = await ask(
            "arxiv_paper_section", paper_id=outline["versioned_id"], section=wanted["section"]
        )
        following = await ask(
            "arxiv_paper_section", paper_id=section["versioned_id"], section=section["next_section"]
        )

    assert first["versioned_id"] == "1706.03762v7"
    assert section["section"]["title"] == wanted["title"]
    assert "scaled dot-product attention" in section["text"]["text"]
    assert section["text"]["third_party"] is True
    assert following["section"]["section"] == "4"
