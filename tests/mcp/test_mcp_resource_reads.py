"""What a read-only tool reads is an MCP resource: linked from the results that name it.

An arXiv paper (``arxiv_paper_text``, ``papers/{paper_id}``) and a mail attachment
(``read_attachment``, ``messages/{message_id}/attachments/{attachment_id}``): a search or
a message links them, and ``resources/read`` of a link is a call of the reading tool by
the same caller. Through mcp's own client in memory, in both ways it speaks, and over
HTTP behind a real authorization server (a token without the reader's scope reads nothing).
"""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from oauth_server import authorization_server
from oauth_server import real_clock_env as clock_env
from serving import over_http, toolspecs_serve

from toolspecs.core.large_output import as_text
from toolspecs.loaders.arxiv.testing import NEEDLE, FakeArxiv
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.server import build_server
from toolspecs.server.reads import readable_tools, tool_uri
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec

PAPER_LINK = "toolspecs://arxiv_paper_text/papers/1706.03762"
ATTACHMENT_HEADER = "<attach-0001@mail.example.com>"


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


def paper_spec() -> ArxivToolSpec:
    return ArxivToolSpec(transport=FakeArxiv().transport())


def mail_spec(gmail) -> GmailToolSpec:
    spec = GmailToolSpec(transport=gmail)
    spec.spec_functions = [*GmailToolSpec.spec_functions, "read_attachment"]
    return spec


def attachment_message(gmail) -> str:
    return next(m for m in gmail.messages if gmail.mime(m)["Message-ID"] == ATTACHMENT_HEADER)


def links(result) -> list:
    return [block for block in result.content if block.type == "resource_link"]


async def test_a_search_links_each_paper_shown_and_the_link_reads_its_text(mode):
    whole = as_text(paper_spec().arxiv_paper_text("1706.03762"))
    async with Client(build_server(paper_spec()), mode=mode) as client:
        found = await client.call_tool("arxiv_query", {"query": "1706.03762"})
        read = await client.read_resource(PAPER_LINK)
        templates = await client.list_resource_templates()

    assert found.is_error is False
    (link,) = links(found)
    assert link.uri == PAPER_LINK and link.mime_type == "text/plain"
    (paper,) = found.structured_content["papers"]
    assert paper["uri"] == PAPER_LINK  # the same link in the data, under its schema
    (contents,) = read.contents
    assert contents.uri == PAPER_LINK and contents.mime_type == "text/plain"
    # The whole text, as stored (the call's text was too long to show).
    assert contents.text == whole and NEEDLE in contents.text
    assert [t.uri_template for t in templates.resource_templates] == [
        "toolspecs://results/{tool}/{result_id}",
        "toolspecs://arxiv_paper_text/papers/{paper_id}",
    ]


async def test_links_are_made_for_the_papers_shown_only(mode):
    async with Client(build_server(paper_spec()), mode=mode) as client:
        found = await client.call_tool("arxiv_query", {"query": "attention", "max_results": 1})
    (paper,) = found.structured_content["papers"]
    (link,) = links(found)
    assert link.uri == f"toolspecs://arxiv_paper_text/papers/{paper['arxiv_id']}" == paper["uri"]


async def test_a_prefixed_reader_links_by_its_served_name_and_only_when_served(mode):
    prefixed = build_server(paper_spec().to_tool_list(prefix="ax_"))
    async with Client(prefixed, mode=mode) as client:
        found = await client.call_tool("ax_arxiv_query", {"query": "1706.03762"})
        read = await client.read_resource("toolspecs://ax_arxiv_paper_text/papers/1706.03762")
        with pytest.raises(MCPError):  # the unprefixed name is not served
            await client.read_resource(PAPER_LINK)
    assert [link.uri for link in links(found)] == [
        "toolspecs://ax_arxiv_paper_text/papers/1706.03762"
    ]
    assert NEEDLE in read.contents[0].text

    search_only = [t for t in paper_spec().to_tool_list() if t.metadata.name == "arxiv_query"]
    async with Client(build_server(search_only), mode=mode) as client:
        alone = await client.call_tool("arxiv_query", {"query": "1706.03762"})
        templates = await client.list_resource_templates()
    assert links(alone) == [] and "uri" not in alone.structured_content["papers"][0]
    assert len(templates.resource_templates) == 1


async def test_a_message_links_its_attachments_and_the_link_reads_the_text(mode):
    gmail = sample_mailbox()
    message_id = attachment_message(gmail)
    async with Client(build_server(mail_spec(gmail)), mode=mode) as client:
        shown = await client.call_tool("get_message", {"message_id": message_id})
        pdf, png = links(shown)
        read = await client.read_resource(pdf.uri)
        with pytest.raises(MCPError) as image:  # a type read_attachment does not read
            await client.read_resource(png.uri)

    base = f"toolspecs://read_attachment/messages/{message_id}/attachments"
    assert (pdf.uri, png.uri) == (f"{base}/1", f"{base}/2")
    files = shown.structured_content["message"]["attachments"]
    assert [f["uri"] for f in files] == [pdf.uri, png.uri]
    (contents,) = read.contents
    assert contents.text.startswith("Attachment Q4 report.pdf (application/pdf")
    assert "Revenue: 4.2 million pounds, up 12 percent on Q3." in contents.text
    assert image.value.error.code == INVALID_PARAMS


@pytest.mark.parametrize(
    "uri",
    [
        "toolspecs://read_attachment/messages/{id}/attachments/1/more",
        "toolspecs://read_attachment/messages/{id}/attachments/",
        "toolspecs://read_attachment/messages/{id}/attachments/1?x=2",
        "toolspecs://read_attachment/messages/{id}/attachments/%FF",
        "toolspecs://read_attachment/messages/{id}/attachments/%0A1",
        "toolspecs://read_attachment/messages/{id}/attachments/" + "1" * 600,
        "toolspecs://read_attachment/messages/{id}/files/1",
        "toolspecs://get_message/messages/{id}",  # a tool that declares no resource
        "toolspecs://send_draft/messages/{id}/attachments/1",
    ],
)
async def test_a_malformed_link_is_the_not_found_error(mode, uri):
    gmail = sample_mailbox()
    message_id = attachment_message(gmail)
    good = f"toolspecs://read_attachment/messages/{message_id}/attachments/1"
    async with Client(build_server(mail_spec(gmail)), mode=mode) as client:
        assert "Revenue" in (await client.read_resource(good)).contents[0].text
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri.replace("{id}", message_id))
    assert refused.value.error.code == INVALID_PARAMS
    assert refused.value.error.message.startswith("No stored result of yours has the link")
    assert "Revenue" not in refused.value.error.message


@pytest.mark.parametrize(
    ("message", "attachment", "said"),
    [
        (None, "9", "has no attachment «9». Its attachments: Q4 report.pdf"),
        ("18f0000000000000", "1", "Gmail found nothing there (HTTP 404)"),
    ],
)
async def test_no_such_attachment_is_guidance_as_a_protocol_error(mode, message, attachment, said):
    gmail = sample_mailbox()
    message_id = message or attachment_message(gmail)
    uri = f"toolspecs://read_attachment/messages/{message_id}/attachments/{attachment}"
    async with Client(build_server(mail_spec(gmail)), mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(uri)
    assert refused.value.error.code == INVALID_PARAMS
    assert said in refused.value.error.message
    assert "Revenue" not in refused.value.error.message


async def test_a_paper_that_does_not_exist_is_guidance_as_a_protocol_error(mode):
    async with Client(build_server(paper_spec()), mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource("toolspecs://arxiv_paper_text/papers/2101.00001")
    assert refused.value.error.code == INVALID_PARAMS
    assert refused.value.error.message.startswith("No arXiv paper has the id '2101.00001'.")


async def test_another_mailbox_reads_nothing_by_the_link(mode):
    # Each user's Gmail spec is their own mailbox: alice's link names no message of bob's.
    alice, bob = sample_mailbox(), sample_mailbox(long_messages=1)
    message_id = attachment_message(alice)
    async with Client(build_server(mail_spec(alice)), mode=mode) as client:
        (link, _) = links(await client.call_tool("get_message", {"message_id": message_id}))
    bob.messages.pop(attachment_message(bob))  # bob has no such message
    async with Client(build_server(mail_spec(bob)), mode=mode) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(link.uri)
    assert refused.value.error.code == INVALID_PARAMS
    assert "Revenue" not in refused.value.error.message


async def test_a_read_is_bounded_and_says_so(mode):
    server = build_server(paper_spec(), resource_bytes=1000)
    async with Client(server, mode=mode) as client:
        read = await client.read_resource(PAPER_LINK)
    shown, note = read.contents[0].text.rsplit("\n", 1)
    assert len(shown.encode("utf-8")) == 1000
    assert note.startswith("[... cut: this read returns the first 1,000 bytes of the ")


def test_values_are_percent_encoded_one_segment_each():
    spec = mail_spec(sample_mailbox())
    readable = readable_tools({t.metadata.name: t for t in spec.to_tool_list(prefix="g_")})
    (reader,) = readable.values()
    uri = tool_uri(reader, {"message_id": "18f", "attachment_id": "q4 report/été.pdf"})
    assert uri == (
        "toolspecs://g_read_attachment/messages/18f/attachments/q4%20report%2F%C3%A9t%C3%A9.pdf"
    )


@pytest.fixture(scope="module")
def provider():
    with authorization_server() as running:
        yield running


@pytest.mark.serving
def test_a_read_needs_the_scope_a_call_of_the_reader_needs(provider):
    env = clock_env({"TOOLSPECS_SERVE_TOKEN": ""})
    serve = ("arxiv", "wolfram_alpha", "--auth-issuer", provider.issuer)
    with toolspecs_serve(*serve, env=env) as (url, _):
        alice = provider.token("alice", url)
        carol = provider.token("carol", url)  # Wolfram|Alpha only: no arXiv scope
        search = ("arxiv_query", {"query": "1706.03762"})
        for mode in ("legacy", "auto"):
            (found,), (read,) = anyio.run(over_http, url, alice, mode, [search], [PAPER_LINK])
            assert [link.uri for link in links(found)] == [PAPER_LINK]
            assert NEEDLE in read.contents[0].text
            _, (refused,) = anyio.run(over_http, url, carol, mode, [], [PAPER_LINK])
            assert isinstance(refused, MCPError) and refused.error.code == INVALID_PARAMS
            assert "needs the scope 'toolspecs:arxiv.read'" in refused.error.message


@pytest.mark.serving
def test_the_typescript_sdk_follows_a_papers_link_over_stdio(typescript_client):
    unknown = "toolspecs://arxiv_paper_text/papers/2901.99999"
    calls = [
        {"name": "arxiv_query", "arguments": {"query": "1706.03762"}},
        {"uri": PAPER_LINK},
        {"uri": unknown},
    ]
    found, read, refused = typescript_client.serve(calls, "--sandbox", "arxiv")["calls"]
    links = [b for b in found["result"]["content"] if b["type"] == "resource_link"]
    assert [link["uri"] for link in links] == [PAPER_LINK]
    assert found["result"]["structuredContent"]["papers"][0]["uri"] == PAPER_LINK
    (contents,) = read["read"]["contents"]
    assert contents["uri"] == PAPER_LINK and NEEDLE in contents["text"]
    assert refused["error"]["code"] == INVALID_PARAMS
