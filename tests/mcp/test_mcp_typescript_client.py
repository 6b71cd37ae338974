"""A real client nobody here wrote: the official MCP TypeScript SDK drives `toolspecs serve`.

tests/mcp_client/client.mjs (``@modelcontextprotocol/sdk``, pinned in its package-lock.json,
installed by ``npm ci --prefix tests/mcp_client``, which .ci/run does) starts
``toolspecs serve --sandbox gmail google_calendar arxiv wolfram_alpha`` as a subprocess,
speaks MCP to it over stdio, and prints what it received as JSON.
"""

from __future__ import annotations

import pytest

from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools
from toolspecs.core import ToolGuidance

pytestmark = pytest.mark.serving

SPECS = ["gmail", "google_calendar", "arxiv", "wolfram_alpha"]


@pytest.mark.dates
def test_the_typescript_sdk_lists_and_calls_the_sandbox_over_stdio(typescript_client):
    calls = [
        {"name": "wolfram_alpha_query", "arguments": {"query": "3 * 14.50"}},
        {"name": "arxiv_query", "arguments": {"query": "language models", "max_results": "5"}},
        {"name": "arxiv_query", "arguments": {"query": "attention", "max_results": 500}},
        {"name": "arxiv_paper_text", "arguments": {"paper_id": "1706.03762"}},
        {"name": "read_stored_papers", "arguments": {"query": "quokka ablation"}},
        {"name": "google_calendar_load_data", "arguments": {"number_of_results": "3"}},
    ]
    got = typescript_client.serve(calls, "--sandbox", *SPECS)

    # What the same command line serves, built in this process.
    ours = served_tools(build_specs(ServeSettings(names=SPECS, sandbox=True)), [])
    assert got["server"]["name"] == "toolspecs"
    listed = {t["name"]: t for t in got["tools"]}
    assert list(listed) == [t.metadata.name for t in ours]
    assert {
        "gmail_load_data",
        "google_calendar_load_data",
        "arxiv_query",
        "gmail_send_draft",
    } <= set(listed)
    for mine in ours:
        shown = listed[mine.metadata.name]
        assert shown["inputSchema"] == mine.metadata.fn_schema.model_json_schema()
        assert shown["description"] == mine.metadata.description
        assert shown["annotations"] == {"title": shown["title"], **mine.marks.annotations()}
    assert listed["gmail_send_draft"]["title"] == "Gmail: Send a draft"
    assert listed["gmail_send_draft"]["annotations"]["destructiveHint"] is True

    wolfram, tolerant, guidance, paper, passage, events = (c["result"] for c in got["calls"])
    assert wolfram["isError"] is False
    assert "Result:\n43.5" in wolfram["content"][0]["text"]
    assert tolerant["isError"] is False
    assert tolerant["content"][0]["text"].count("arXiv id:") == 5  # "5" read as 5

    (query,) = [t for t in ours if t.metadata.name == "arxiv_query"]
    with pytest.raises(ToolGuidance) as expected:
        query.fn(query="attention", max_results=500)
    assert guidance["isError"] is True
    assert guidance["content"] == [{"type": "text", "text": expected.value.text}]

    assert "call read_stored_papers with a query" in paper["content"][0]["text"]
    assert "The quokka ablation lowered perplexity" in passage["content"][0]["text"]
    assert "Team standup" in events["content"][0]["text"]

    # The SDK runs notification handlers a tick late but settles the result at once, so a
    # notification read in the same chunk as the result is dropped as "unknown": the last
    # one always may be, and for a call answered within a millisecond (the sandbox's
    # Wolfram answer), the first too. What arrives comes in order, from "started"; and a
    # call that takes a while (parsing a paper) shows it.
    for call in got["calls"]:
        progress = call["progress"]
        if progress:
            assert progress[0]["progress"] == 0 and progress[0]["message"].endswith(" started")
        values = [p["progress"] for p in progress]
        assert values == sorted(set(values))
    assert [p["message"] for p in got["calls"][3]["progress"]][:1] == ["arxiv_paper_text started"]


def test_options_reach_the_specs_a_client_sees(typescript_client):
    got = typescript_client.serve(
        [
            {"name": "google_calendar_get_date", "arguments": {}},
            {"name": "gmail_load_data", "arguments": {}},
        ],
        "--sandbox",
        "google_calendar",
        "gmail",
        "--no-allow-send",
        "--option",
        "gmail.max_results=3",
        "--timezone",
        "Europe/Paris",
    )
    names = [t["name"] for t in got["tools"]]
    assert "gmail_send_draft" not in names and "gmail_create_draft" in names  # --no-allow-send
    assert "google_calendar_create_event" not in names  # it invites people: not without send
    assert "google_calendar_load_data" in names
    date, mail = got["calls"]
    assert "Europe/Paris" in date["result"]["content"][0]["text"]  # --timezone
    assert mail["result"]["content"][0]["text"].count("Message id:") == 3  # --option
