"""The README's "Use it from LangChain" and "Use it from smolagents" examples run as written.

Offline: arXiv is the shipped fake (through the shared client the spec uses by default),
and the model each example names is a scripted one of the host's own kind.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from host_fakes import calls, openai_server_model, request_text, scripted_chat_model

from toolspecs.agents.testing import FakeOpenAI
from toolspecs.loaders.arxiv import ArxivClient
from toolspecs.loaders.arxiv.testing import FakeArxiv

README = Path(__file__).parents[2] / "README.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def subsection(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    assert "\n## Use it from other hosts\n" in text
    body = text.split(f"\n### {heading}\n", 1)[1]
    return re.split(r"\n##+ ", body, maxsplit=1)[0]


@pytest.fixture
def arxiv(monkeypatch) -> FakeArxiv:
    fake = FakeArxiv()
    offline = ArxivClient(transport=fake.transport())
    monkeypatch.setattr("toolspecs.loaders.arxiv.reader.shared_client", lambda: offline)
    return fake


def test_the_langchain_example_runs(arxiv, monkeypatch, capsys):
    model = scripted_chat_model(
        [
            calls(("arxiv_query", {"query": "electron", "sort_by": "newest", "max_results": "1"})),
            "The newest is 'Multi-Electron Production at High Transverse Momenta'.",
        ]
    )
    asked: list[str] = []

    def init_chat_model(name, **kwargs):
        asked.append(name)
        return model

    monkeypatch.setattr("langchain.agents.factory.init_chat_model", init_chat_model)
    (code,) = BLOCK.findall(subsection("Use it from LangChain"))
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    assert asked == ["openai:gpt-4.1-mini"]
    assert sorted(namespace["confirm"]) == ["create_event"]
    (result,) = [m for m in namespace["state"]["messages"] if m.type == "tool"]
    assert result.status == "success" and "Multi-Electron Production" in result.content
    out = capsys.readouterr().out
    assert "The newest is 'Multi-Electron Production" in out
    assert "error arxiv_query was called wrongly: max_results: 500 is above the maximum" in out


def test_the_smolagents_example_runs(arxiv, monkeypatch, capsys):
    fake = FakeOpenAI(
        [
            [("arxiv_query", {"query": "electron", "sort_by": "recent", "max_results": 1})],
            [("final_answer", {"answer": "Multi-Electron Production at High Transverse Momenta"})],
            # CodeAgent: a string for an integer, read by our tool (smolagents lets it through).
            'Thought: search.\n<code>\npapers = arxiv_query(query="retrieval", max_results="10")\n'
            'print(papers.count("Title: "))\n',
            'Thought: done.\n<code>\nfinal_answer("4 papers")\n',
        ]
    )
    made: list[str] = []

    def server_model(model_id, **kwargs):
        made.append(model_id)
        return openai_server_model(fake, model_id, **kwargs)

    monkeypatch.setattr("smolagents.OpenAIServerModel", server_model)
    (code,) = BLOCK.findall(subsection("Use it from smolagents"))
    exec(compile(code, str(README), "exec"), {})
    assert made == ["gpt-4.1-mini"]
    assert len(fake.requests) == 4 and fake.tool_names(0)[:1] == ["arxiv_query"]
    assert "Multi-Electron Production" in request_text(fake.requests[1])
    assert "Execution logs:\n4\n" in request_text(fake.requests[3])
    out = capsys.readouterr().out
    assert "Multi-Electron Production at High Transverse Momenta" in out and "4 papers" in out
