"""What clients may cache: the tool list's hints of the 2026-07-28 revision."""

from __future__ import annotations

from mcp import Client

from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.mcp import build_server
from toolspecs.mcp.server import TOOL_LIST_TTL_MS
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
