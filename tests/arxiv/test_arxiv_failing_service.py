"""Every arXiv tool answers (text or guidance) under every failure FakeArxiv can stage.

Never an exception out of ``call``/``acall``, never "internal error", never the guard's
"did not finish" (the client stops first, and says why), well within the deadline.
"""

from __future__ import annotations

import time

import pytest

from toolspecs.core import ToolGuidance
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec

DEADLINE = 3.0
FAILURES = [
    "html",
    "empty",
    "slow",
    "damaged",
    "huge",
    "bomb",
    429,
    503,
    404,
    (429, {"Retry-After": "30"}),
    (503, {"Retry-After": "Wed, 21 Oct 2099 07:28:00 GMT"}),
    (302, {"Location": "https://evil.example/x"}),
    (302, {"Location": "http://arxiv.org/pdf/1706.03762v7"}),
]
CALLS = [
    ("arxiv_query", {"query": "attention"}),
    ("arxiv_query", {"query": "1706.03762, 1810.04805"}),
    ("arxiv_paper_text", {"paper_id": "1706.03762"}),
    ("read_stored_papers", {"query": "quokka"}),
]


def check(output, started: float) -> None:
    assert time.monotonic() - started < DEADLINE + 5
    assert "internal error" not in output.content
    assert "did not finish within" not in output.content
    if output.is_error:
        assert isinstance(output.exception, ToolGuidance)
    assert len(output.content) < 10_000


def staged(failure, where: str) -> tuple[ArxivToolSpec, dict]:
    arxiv = FakeArxiv()
    arxiv.trickle_seconds = 0.02
    if where == "every request":
        arxiv.fail_every = failure
    else:  # the PDF only: the id feed answers first
        arxiv.fail += ["ok", failure]
    spec = ArxivToolSpec(transport=arxiv.transport())
    spec.call_deadline = DEADLINE
    tools = {tool.metadata.name: tool for tool in spec.to_tool_list()}
    return spec, tools


@pytest.mark.parametrize("where", ["every request", "the PDF"])
@pytest.mark.parametrize("failure", FAILURES, ids=str)
def test_every_tool_answers_under_the_failure(failure, where, no_backoff_sleep):
    _, tools = staged(failure, where)
    for name, arguments in CALLS:
        if where == "the PDF" and name != "arxiv_paper_text":
            continue
        started = time.monotonic()
        check(tools[name].call(**arguments), started)


@pytest.mark.parametrize("failure", ["huge", "html", 503], ids=str)
async def test_acall_answers_too(failure, no_backoff_sleep):
    _, tools = staged(failure, "every request")
    for name, arguments in CALLS:
        started = time.monotonic()
        check(await tools[name].acall(**arguments), started)


NEW_CALLS = [  # issue 15's tools and arguments
    ("arxiv_query", {"author": "Vaswani", "category": "cs.CL", "submitted": "2017"}),
    ("arxiv_paper_outline", {"paper_id": "1706.03762"}),
    ("arxiv_paper_section", {"paper_id": "1706.03762", "section": "3"}),
    ("arxiv_bibtex", {"paper_ids": ["1706.03762", "1810.04805"]}),
]


@pytest.mark.parametrize("where", ["every request", "the PDF"])
@pytest.mark.parametrize(
    "failure", [429, (429, {"Retry-After": "120"}), 503, "html", "damaged"], ids=str
)
@pytest.mark.dates
def test_the_new_tools_answer_under_throttling_and_failures(failure, where, no_backoff_sleep):
    for name, arguments in NEW_CALLS:
        if where == "the PDF" and name not in ("arxiv_paper_outline", "arxiv_paper_section"):
            continue
        spec, _ = staged(failure, where)
        tool = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}
        started = time.monotonic()
        output = tool[name].call(**arguments)
        check(output, started)
        # Throttled throughout: guidance to retry later (one 429 on the PDF is retried).
        if where == "every request" and (failure in (429, 503) or isinstance(failure, tuple)):
            assert output.is_error, (name, output.content)
            assert "try again" in output.content.lower() or "retry" in output.content.lower()
