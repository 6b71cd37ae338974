"""Issue 22 (3): a stored result belongs to whoever made it (toolspecs.core.owners).

Two agents that share one spec instance, two MCP sessions of one server, two users of one
app: none reads another's long results, by search or by id, and a result goes with its
owner. Over the shipped arXiv fake: a 30-page paper is over the output budget and stored.
"""

from __future__ import annotations

import gc

import pytest
from mcp import Client

from toolspecs.core.owners import results_owner
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.server import build_server
from toolspecs.specs.arxiv import ArxivToolSpec

PAPER = {"paper_id": "1706.03762"}
QUERY = {"query": "quokka ablation"}


@pytest.fixture
def spec() -> ArxivToolSpec:
    return ArxivToolSpec(transport=FakeArxiv().transport())


def tools_of(spec: ArxivToolSpec) -> dict:
    chosen = ["arxiv_query", "arxiv_paper_text"]
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=chosen)}


def test_two_agents_sharing_a_spec_read_only_their_own_results(spec):
    ada, grace = tools_of(spec), tools_of(spec)
    stored = ada["arxiv_paper_text"].call(**PAPER)
    assert "stored as result 1" in stored.content
    assert NEEDLE in ada["read_stored_papers"].call(**QUERY).content
    for attempt in (QUERY, {**QUERY, "result_id": 1}):
        other = grace["read_stored_papers"].call(**attempt)
        assert other.is_error is True and NEEDLE not in other.content
        assert other.content.startswith("There is no stored result")
    # Grace's own result is her result 1, and Ada's stays hers.
    assert "stored as result 1" in grace["arxiv_paper_text"].call(**PAPER).content
    assert NEEDLE in grace["read_stored_papers"].call(**QUERY).content


def test_an_app_sharing_one_tool_list_scopes_results_per_user(spec):
    class User:  # anything that lives as long as the user's session
        pass

    tools, ada, grace = tools_of(spec), User(), User()
    with results_owner(ada):
        tools["arxiv_paper_text"].call(**PAPER)
        assert NEEDLE in tools["read_stored_papers"].call(**QUERY).content
    with results_owner(grace):
        assert tools["read_stored_papers"].call(**QUERY).is_error is True
    with pytest.raises(TypeError), results_owner("ada@example.com"):  # no weak reference
        pass


def test_results_go_with_their_owner(spec):
    tools = tools_of(spec)
    tools["arxiv_paper_text"].call(**PAPER)
    assert len(spec.__dict__["_toolspecs_memory"]) == 1
    del tools
    gc.collect()
    assert len(spec.__dict__["_toolspecs_memory"]) == 0


def test_outside_any_owner_the_spec_keeps_its_own_store(spec):
    class Owner:
        pass

    own = spec.results
    assert spec.results is own  # the same store on every read outside a tool call
    with results_owner(Owner()):
        assert spec.results is not own


async def test_two_mcp_sessions_of_one_server_do_not_read_each_other_s_results(spec):
    server = build_server(spec)
    async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
        stored = await first.call_tool("arxiv_paper_text", PAPER)
        assert "stored as result 1" in stored.content[0].text
        mine = await first.call_tool("read_stored_papers", QUERY)
        assert NEEDLE in mine.content[0].text
        for attempt in (QUERY, {**QUERY, "result_id": 1}):
            theirs = await second.call_tool("read_stored_papers", attempt)
            assert theirs.is_error is True and NEEDLE not in theirs.content[0].text
