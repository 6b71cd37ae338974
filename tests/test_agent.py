"""One agent run: llama-index's FunctionAgent, a scripted LLM, our arXiv tool, a faked arXiv."""

from __future__ import annotations

from pathlib import Path

import pytest
import responses
from llama_index.core.agent.workflow import FunctionAgent, ToolCallResult
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms import MockFunctionCallingLLM

from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.specs.arxiv import ArxivToolSpec

FEED = (Path(__file__).parent / "fixtures" / "arxiv" / "hep_ex_electron.xml").read_text()
API = "https://export.arxiv.org/api/query"


def scripted(calls):
    """An LLM script: make each tool call in turn, then answer with the last tool result."""
    seen_tools: list[list[str]] = []

    def respond(messages, **kwargs):
        seen_tools.append([t.metadata.name for t in kwargs.get("tools", [])])
        done = sum(1 for m in messages if m.role == MessageRole.TOOL)
        if done < len(calls):
            name, arguments = calls[done]
            return ChatMessage(
                role=MessageRole.ASSISTANT,
                blocks=[
                    ToolCallBlock(
                        tool_call_id=f"call-{done}", tool_name=name, tool_kwargs=arguments
                    )
                ],
            )
        last = [m for m in messages if m.role == MessageRole.TOOL][-1]
        return ChatMessage(
            role=MessageRole.ASSISTANT, content=f"Here is what I found:\n{last.content}"
        )

    return respond, seen_tools


async def run_agent(calls, message="Find papers about electrons"):
    spec = ArxivToolSpec(client=ArxivClient(delay_seconds=0, num_retries=1, timeout=5))
    respond, seen = scripted(calls)
    agent = FunctionAgent(
        tools=spec.to_tool_list(), llm=MockFunctionCallingLLM(response_generator=respond)
    )
    handler = agent.run(message)
    results = [
        event async for event in handler.stream_events() if isinstance(event, ToolCallResult)
    ]
    return await handler, results, seen


@pytest.fixture
def arxiv_api(mocked_responses):
    mocked_responses.add(responses.GET, API, body=FEED)
    return mocked_responses


async def test_function_agent_calls_arxiv_and_reads_what_we_promise(arxiv_api):
    response, results, seen = await run_agent(
        [("arxiv_query", {"query": "electron", "sort_by": "newest", "max_results": "1"})]
    )
    assert seen[0] == [
        "arxiv_query",
        "read_arxiv_query",
        "arxiv_paper_text",
        "read_arxiv_paper_text",
    ]
    (result,) = results
    assert result.tool_output.is_error is False
    text = result.tool_output.content
    assert (
        "Title: Multi-Electron Production at High Transverse Momenta in ep Collisions at HERA"
        in text
    )
    assert "Authors: H1 Collaboration" in text
    assert "Published: 2003-07-07" in text
    assert "arXiv id: hep-ex/0307015v1" in text
    assert "URL: https://arxiv.org/abs/hep-ex/0307015v1" in text
    assert "Abstract: Multi-electron production is studied" in text
    assert text in str(response)
    sent = arxiv_api.calls[0].request.url
    assert "sortBy=submittedDate" in sent
    assert "search_query=electron" in sent


async def test_the_agent_recovers_from_a_bad_call_through_the_guidance(arxiv_api):
    response, results, _ = await run_agent(
        [
            ("arxiv_query", {"search": "electron", "max_results": "all of them"}),
            ("arxiv_query", {"query": "electron", "max_results": 1}),
        ]
    )
    first, second = results
    assert first.tool_output.is_error is True
    assert "max_results: 'all of them' is not a whole number" in first.tool_output.content
    assert second.tool_output.is_error is False
    assert "hep-ex/0307015v1" in str(response)
    assert len(arxiv_api.calls) == 1  # the bad call never reached arXiv
