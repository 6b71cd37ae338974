"""Schema tokens per request: what the four specs' tool schemas cost in every prompt.

Counted as bench/schema_tokens.py counts (cl100k_base over ``json.dumps`` of each tool's
``to_openai_tool()``). LlamaHub's side needs a venv of its own (its packages pin old
dependencies), so its per-tool costs are recorded here as constants, measured by
``uv run --frozen python bench/schema_tokens.py --json`` against llama-index-tools-arxiv
0.6.0, llama-index-tools-wolfram-alpha 0.7.0 and llama-index-tools-google 0.8.0.
"""

from __future__ import annotations

import json

from llama_index.core.utils import get_tokenizer

from toolspecs.core import list_specs, load_spec

LLAMAHUB_TOKENS = {
    "arxiv": {"arxiv_query": 212},
    "wolfram_alpha": {"wolfram_alpha_query": 639},
    "google_calendar": {"load_data": 255, "create_event": 469, "get_date": 62},
    "gmail": {
        "load_data": 56,
        "search_messages": 196,
        "create_draft": 279,
        "update_draft": 352,
        "get_draft": 136,
        "send_draft": 136,
    },
}
LLAMAHUB_TOTAL = 2792
# Each spec's default set (to_tool_list() with no arguments) within its share of
# LLAMAHUB_TOTAL: the four together never cost more than LlamaHub's. Opt-in tools
# (more_functions) are not counted: they are sent only when chosen.
SPEC_BUDGETS = {"arxiv": 440, "wolfram_alpha": 420, "google_calendar": 760, "gmail": 1150}
# 0.65 until issue 15 gave arxiv_query its fielded search in the default set (author,
# title, category, submitted: +66 tokens, which the issue asks for there): 0.662 now.
DROP_IN_RATIO = 0.67


def tokens_per_tool() -> dict[str, dict[str, int]]:
    count = get_tokenizer()
    measured: dict[str, dict[str, int]] = {}
    for name in LLAMAHUB_TOKENS:
        tools = load_spec(name).to_tool_list()
        measured[name] = {
            t.metadata.name: len(count(json.dumps(t.metadata.to_openai_tool()))) for t in tools
        }
    return measured


def test_the_recorded_specs_are_the_registered_ones():
    assert set(LLAMAHUB_TOKENS) <= set(list_specs())
    assert sum(sum(per_tool.values()) for per_tool in LLAMAHUB_TOKENS.values()) == LLAMAHUB_TOTAL


def test_the_budgets_share_llamahubs_total():
    assert set(SPEC_BUDGETS) == set(LLAMAHUB_TOKENS)
    assert sum(SPEC_BUDGETS.values()) <= LLAMAHUB_TOTAL


def test_each_default_tool_set_costs_at_most_its_budget():
    measured = tokens_per_tool()
    over = {
        name: sum(per_tool.values())
        for name, per_tool in measured.items()
        if sum(per_tool.values()) > SPEC_BUDGETS[name]
    }
    assert not over, (over, measured)


def test_each_spec_offers_at_most_one_reader():
    for name, per_tool in tokens_per_tool().items():
        readers = [tool for tool in per_tool if tool.startswith("read_")]
        assert len(readers) <= 1, (name, readers)


def test_llamahubs_function_set_costs_at_most_065_of_llamahubs():
    measured = tokens_per_tool()
    ours = theirs = 0
    for name, their_tools in LLAMAHUB_TOKENS.items():
        for tool, their_tokens in their_tools.items():
            ours += measured[name][tool]  # every LlamaHub function is in our default set
            theirs += their_tokens
    assert ours <= DROP_IN_RATIO * theirs, f"{ours} / {theirs} = {ours / theirs:.3f}"
