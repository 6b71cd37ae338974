"""A stored long result is an MCP resource: linked from the call's result, read by its caller only.

Through mcp's own client in memory, both ways it speaks (``legacy``: the handshake and a
session; ``auto``: the 2026-07-28 sessionless protocol), and over HTTP behind the static
token and behind a real authorization server (two users' tokens).
"""

from __future__ import annotations

import os
from typing import ClassVar

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from oauth_server import authorization_server
from oauth_server import real_clock_env as clock_env
from serving import over_http, toolspecs_serve

from toolspecs.core import ToolSpec, tool
from toolspecs.core.large_output import as_text
from toolspecs.core.store import OutputBudget, cut_result
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.server import build_server
from toolspecs.server.resources import parse, result_uri, stored_text
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec

PAPER = ("arxiv_paper_text", {"paper_id": "1706.03762"})
PAPER_CALL = {"name": PAPER[0], "arguments": PAPER[1]}
LINK = "toolspecs://results/arxiv_paper_text/1"


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


def paper_spec() -> ArxivToolSpec:
    return ArxivToolSpec(transport=FakeArxiv().transport())


def paper_text() -> str:
    """The text the agent would read of the paper, whole: what the store keeps."""
    return as_text(paper_spec().arxiv_paper_text("1706.03762"))


class WordsToolSpec(ToolSpec):
    """Long texts of one word, from a tool that declares no output model."""

    spec_functions: ClassVar = ["repeat"]
    reader_name: ClassVar = "read_stored_words"

    @tool(large_output=True, read_only=True, open_world=False)
    def repeat(self, word: str, times: int = 3000) -> str:
        """Repeat a word.

        Args:
            word: The word, e.g. 'quokka'.
            times: How many times.
        """
        return " ".join(f"{word}{i}" for i in range(times))


def parts(result):
    """The text block and the resource link of a call's result."""
    text, link = result.content
    assert (text.type, link.type) == ("text", "resource_link")
    return text.text, link


async def test_a_stored_result_links_its_resource_and_the_link_reads_the_stored_text(mode):
    whole = paper_text()
    async with Client(build_server(paper_spec()), mode=mode) as client:
        stored = await client.call_tool(*PAPER)
        read = await client.read_resource(LINK)

    text, link = parts(stored)
    assert stored.is_error is False and "stored as result 1" in text
    assert link.uri == LINK == result_uri("arxiv_paper_text", 1)
    assert link.mime_type == "text/plain" and link.size == len(whole.encode("utf-8"))
    assert link.name == "arxiv_paper_text-result-1"
    assert link.title == "Result 1 of arxiv_paper_text"
    assert "read_stored_papers" in link.description
    # The structured result names the same link beside its reader handle.
    assert stored.structured_content["stored"] == {
        "result_id": 1,
        "read_with": "read_stored_papers",
        "passages": stored.structured_content["stored"]["passages"],
        "uri": LINK,
    }
    (contents,) = read.contents
    assert contents.uri == LINK and contents.mime_type == "text/plain"
    assert contents.text == whole and NEEDLE in contents.text


async def test_a_tool_without_an_output_model_links_its_stored_result_too(mode):
    server = build_server(WordsToolSpec())
    async with Client(server, mode=mode) as client:
        stored = await client.call_tool("repeat", {"word": "quokka"})
        read = await client.read_resource("toolspecs://results/repeat/1")

    _, link = parts(stored)
    assert stored.structured_content is None
    assert link.uri == "toolspecs://results/repeat/1"
    whole = WordsToolSpec().repeat("quokka")
    assert read.contents[0].text == whole and link.size == len(whole)


async def test_a_short_result_has_no_link(mode):
    async with Client(build_server(WordsToolSpec()), mode=mode) as client:
        short = await client.call_tool("repeat", {"word": "quokka", "times": 3})
    assert [block.type for block in short.content] == ["text"]


async def test_a_prefixed_tool_links_by_its_served_name(mode):
    gmail = GmailToolSpec(transport=sample_mailbox(long_messages=3), max_results=12)
    server = build_server(gmail.to_tool_list(prefix="gmail_"))
    async with Client(server, mode=mode) as client:
        stored = await client.call_tool("gmail_load_data", {})
        _, link = parts(stored)
        read = await client.read_resource(link.uri)
    assert link.uri == "toolspecs://results/gmail_load_data/1"
    assert "the engine ran 14 cycles without a fault" in read.contents[0].text


async def test_another_session_reads_nothing_by_the_link():
    server = build_server(WordsToolSpec())
    async with Client(server, mode="legacy") as first, Client(server, mode="legacy") as second:
        await first.call_tool("repeat", {"word": "alice"})
        link = "toolspecs://results/repeat/1"
        with pytest.raises(MCPError) as refused:
            await second.read_resource(link)
        # Its own result 1 is its own text, never the first session's.
        await second.call_tool("repeat", {"word": "bob"})
        own = await second.read_resource(link)
        mine = await first.read_resource(link)

    assert refused.value.error.code == INVALID_PARAMS
    assert "alice" not in refused.value.error.message
    assert "No stored result of yours has the link" in refused.value.error.message
    assert own.contents[0].text.startswith("bob0 bob1 ")
    assert mine.contents[0].text.startswith("alice0 alice1 ")


@pytest.mark.parametrize(
    "uri",
    [
        "toolspecs://results/arxiv_paper_text/2",  # no such result (yet)
        "toolspecs://results/arxiv_query/1",  # a tool that stored nothing
        "toolspecs://results/read_stored_papers/1",  # the reader stores nothing
        "toolspecs://results/no_such_tool/1",
        "toolspecs://results/arxiv_paper_text/0",
        "toolspecs://results/arxiv_paper_text/1/../2",
        "toolspecs://results/arxiv_paper_text/99999999999999999999999",
        "file:///etc/passwd",
        "toolspecs://results/arxiv_paper_text/1?owner=someone",
    ],
)
async def test_a_made_up_link_is_a_protocol_error(mode, uri):
    async with Client(build_server(paper_spec()), mode=mode) as client:
        await client.call_tool(*PAPER)
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
    assert refused.value.error.code == INVALID_PARAMS
    assert NEEDLE not in refused.value.error.message


async def test_a_read_is_bounded_and_says_what_it_left_out(mode):
    whole = paper_text()
    server = build_server(paper_spec(), resource_bytes=1000)
    async with Client(server, mode=mode) as client:
        stored = await client.call_tool(*PAPER)
        read = await client.read_resource(LINK)

    _, link = parts(stored)
    assert link.size == len(whole.encode("utf-8"))  # the whole, as stored
    assert "a read returns its first 1,000 bytes" in link.description
    text = read.contents[0].text
    shown, note = text.rsplit("\n", 1)
    assert whole.startswith(shown) and len(shown.encode("utf-8")) == 1000
    assert note == (
        f"[... cut: this read returns the first 1,000 bytes of the {link.size:,} stored. "
        "To find a part of the rest, call read_stored_papers with a query (result_id=1).]"
    )


async def test_the_capability_is_declared_and_stored_results_are_not_listed(mode):
    async with Client(build_server(paper_spec()), mode=mode) as client:
        await client.call_tool(*PAPER)
        listed = await client.list_resources()
        templates = await client.list_resource_templates()
        capabilities = client.server_capabilities
    assert capabilities.resources is not None
    assert listed.resources == []
    # The stored results' link, then what arxiv_paper_text reads (test_mcp_resource_reads).
    results, papers = templates.resource_templates
    assert results.uri_template == "toolspecs://results/{tool}/{result_id}"
    assert papers.uri_template == "toolspecs://arxiv_paper_text/papers/{paper_id}"


@pytest.mark.serving
async def test_a_redis_store_is_read_the_same_way(redis_url):
    from toolspecs.core.redis_store import open_store

    spec = WordsToolSpec()
    spec.result_store = open_store(redis_url)
    async with Client(build_server(spec), mode="legacy") as client:
        await client.call_tool("repeat", {"word": "quokka"})
        read = await client.read_resource("toolspecs://results/repeat/1")
    assert read.contents[0].text == spec.repeat("quokka")


def test_links_name_a_tool_and_an_id_only():
    assert parse(result_uri("gmail_load_data", 12)) == ("gmail_load_data", 12)
    for uri in ("toolspecs://results/a/b", "toolspecs://results//1", "toolspecs://results/a/01"):
        assert parse(uri) is None


def test_the_cut_keeps_whole_characters_and_names_a_store_cut():
    budget = OutputBudget(passage_tokens=50)
    stored, _ = cut_result(budget, "f", "é" * 600)  # 2 bytes each
    stored.result_id = 3
    text = stored_text(stored, "read_f", max_bytes=101)
    shown, note = text.split("\n", 1)
    assert shown == "é" * 50 and "first 100 bytes of the 1,200 stored" in note

    small = OutputBudget(passage_tokens=50, max_stored_bytes=400)  # keeps 200 bytes
    kept, _ = cut_result(small, "f", "word " * 100)
    text = stored_text(kept, "read_f", max_bytes=10_000)
    assert text.endswith(
        "[The store kept the first 200 bytes of this 500-byte result: "
        "ask the tool for less to read the rest.]"
    )
    assert text.startswith("word " * 40)


def test_documents_are_joined_as_the_agent_read_them():
    from llama_index.core.schema import Document

    documents = [Document(text="first page"), Document(text="second page")]
    stored, _ = cut_result(OutputBudget(), "f", documents)
    assert stored_text(stored, "read_f") == as_text(documents)
    assert stored_text(stored, "read_f", max_bytes=12) == (
        "first page\n\n"
        "\n[... cut: this read returns the first 12 bytes of the 23 stored. To find a part "
        "of the rest, call read_f with a query (result_id=0).]"
    )


@pytest.mark.serving
def test_the_static_tokens_holder_reads_its_links_over_stateless_http():
    # --stateless: every request stands alone (both revisions); the token's holder owns them.
    token = "test-token-" + "x" * 32
    env = {**os.environ, "TOOLSPECS_SERVE_TOKEN": token}
    with toolspecs_serve("arxiv", "--stateless", env=env) as (url, _):
        for number, mode in enumerate(("legacy", "auto"), start=1):
            (stored,), _ = anyio.run(over_http, url, token, mode, [PAPER], [])
            _, link = parts(stored)
            assert link.uri == f"toolspecs://results/arxiv_paper_text/{number}"
            # A request (a connection) of its own reads it: the holder's, not the session's.
            _, (read,) = anyio.run(over_http, url, token, mode, [], [link.uri])
            assert NEEDLE in read.contents[0].text


@pytest.fixture(scope="module")
def provider():
    with authorization_server() as running:
        yield running


@pytest.mark.serving
def test_users_read_their_own_links_and_never_anothers(provider):
    env = clock_env({"TOOLSPECS_SERVE_TOKEN": ""})
    with toolspecs_serve("arxiv", "wolfram_alpha", "--auth-issuer", provider.issuer, env=env) as (
        url,
        _,
    ):
        alice, bob = provider.token("alice", url), provider.token("bob", url)
        carol = provider.token("carol", url)  # Wolfram|Alpha only: no arXiv scope
        for mode in ("legacy", "auto"):
            (stored,), (own,) = anyio.run(over_http, url, alice, mode, [PAPER], [LINK])
            _, link = parts(stored)
            assert link.uri == LINK and NEEDLE in own.contents[0].text
            _, (other,) = anyio.run(over_http, url, bob, mode, [], [LINK])
            assert isinstance(other, MCPError) and other.error.code == INVALID_PARAMS
            assert NEEDLE not in other.error.message and "alice" not in other.error.message
            _, (refused,) = anyio.run(over_http, url, carol, mode, [], [LINK])
            assert isinstance(refused, MCPError)
            assert "needs the scope 'toolspecs:arxiv.read'" in refused.error.message
            _, (again,) = anyio.run(over_http, url, alice, mode, [], [LINK])
            if mode == "auto":  # sessionless: the user's results are theirs across requests
                assert NEEDLE in again.contents[0].text
            else:  # a session's results are that session's: a new one reads nothing
                assert isinstance(again, MCPError) and again.error.code == INVALID_PARAMS


@pytest.mark.serving
def test_the_typescript_sdk_follows_the_link_over_stdio(typescript_client):
    unknown = "toolspecs://results/arxiv_paper_text/2"
    calls = [PAPER_CALL, {"uri": LINK}, {"uri": unknown}]
    got = typescript_client.serve(calls, "--sandbox", "arxiv")
    stored, read, refused = got["calls"]
    text, link = stored["result"]["content"]
    assert text["type"] == "text" and "stored as result 1" in text["text"]
    assert link["type"] == "resource_link" and link["uri"] == LINK
    assert link["mimeType"] == "text/plain" and link["size"] > 0
    assert stored["result"]["structuredContent"]["stored"]["uri"] == LINK  # under its schema
    (contents,) = read["read"]["contents"]
    assert contents["uri"] == LINK and NEEDLE in contents["text"]
    assert refused["error"]["code"] == INVALID_PARAMS
