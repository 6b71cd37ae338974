"""The README's "Agents" examples run as written, the model and the services faked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from agent_payloads import no_bugs
from llama_index.llms.openai import OpenAI

from toolspecs.agents.testing import FakeOpenAI, last_tool_output
from toolspecs.loaders.arxiv import ArxivClient

README = Path(__file__).parents[2] / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def agents_section() -> str:
    text = README.read_text(encoding="utf-8")
    return text.split("\n## Agents\n", 1)[1].split("\n## ", 1)[0]


def run_block(code: str, namespace: dict) -> None:
    """Run an example as a script would: a top-level ``await`` is a SyntaxError here."""
    exec(compile(code, str(README), "exec"), namespace)


@pytest.fixture
def scripted(monkeypatch, arxiv):
    """Every OpenAI LLM the examples make is served by a script that calls arXiv."""
    monkeypatch.setattr(
        "toolspecs.loaders.arxiv.reader.shared_client",
        lambda: ArxivClient(delay_seconds=0, num_retries=1, timeout=5),
    )
    fakes: list[FakeOpenAI] = []

    def make(**kwargs):
        fake = FakeOpenAI([[("arxiv_query", {"query": "electron"})], last_tool_output])
        fakes.append(fake)
        return fake.llm(**kwargs)

    real = [make(), make()]  # built before the OpenAI class is replaced
    monkeypatch.setattr("toolspecs.agents.openai_agent.default_llm", real.pop)
    # The two examples that talk to OpenAI get those; the offline one makes its own.
    monkeypatch.setattr(
        "llama_index.llms.openai.OpenAI",
        lambda _real=OpenAI, **kwargs: real.pop() if real else _real(**kwargs),
    )
    return fakes


def test_the_agents_section_runs(scripted, capsys):
    blocks = BLOCK.findall(agents_section())
    assert len(blocks) == 4
    blog, function_agent, prefixed, offline = blocks
    assert "from toolspecs.agents import OpenAIAgent" in blog
    assert "OpenAIAgent.from_tools(" in blog and "verbose=True" in blog
    assert "FunctionAgent(" in function_agent and "asyncio.run(main())" in function_agent
    assert "FakeOpenAI(" in offline
    for code in blocks:
        namespace: dict = {}
        run_block(code, namespace)
        if code is prefixed:  # Gmail and Calendar side by side, every name once
            names = [t.metadata.name for t in namespace["tools"]]
            assert len(names) == len(set(names)) and "gmail_load_data" in names
    out = capsys.readouterr().out
    assert "=== Calling Function ===\nCalling function: arxiv_query" in out
    assert "arXiv id: hep-ex/0307015v1" in out
    assert "Event created with id evt0001" in out
    for fake in scripted:
        assert len(fake.requests) == 2  # each example made its tool call and answered
    no_bugs(namespace["response"].sources)
