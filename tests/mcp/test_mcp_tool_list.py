"""What the tool list tells clients: how long to keep it, and output schemas or not."""

from __future__ import annotations

from mcp import Client

from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.server import build_server
from toolspecs.server.server import TOOL_LIST_TTL_MS
from toolspecs.specs.arxiv import ArxivToolSpec


async def test_the_tool_list_says_how_long_and_for_whom_clients_may_keep_it():
    spec = ArxivToolSpec(transport=FakeArxiv().transport())
    async with Client(build_server(spec), mode="auto") as client:
        shared = await client.list_tools()
    # Behind an authorization server, each token may see other tools: its own list.
    scoped = build_server(spec, scopes={"arxiv_query": "papers"})
    async with Client(scoped, mode="auto") as client:
        private = await client.list_tools()
    assert (shared.ttl_ms, shared.cache_scope) == (TOOL_LIST_TTL_MS, "public")
    assert (private.ttl_ms, private.cache_scope) == (TOOL_LIST_TTL_MS, "private")


async def test_output_schemas_can_be_left_out_of_the_list_and_results_keep_their_data():
    spec = ArxivToolSpec(transport=FakeArxiv().transport())
    async with Client(build_server(spec, output_schemas=False), mode="auto") as client:
        listed = (await client.list_tools()).tools
        found = await client.call_tool("arxiv_query", {"query": "1706.03762"})
    assert listed and all(t.output_schema is None for t in listed)
    assert found.structured_content["papers"][0]["arxiv_id"] == "1706.03762"
