"""LlamaHub's own arXiv test (``tests/test_tools_arxiv.py`` of llama-index-tools-arxiv),
rewritten in our words against our spec: the same assertion, the import changed."""

from __future__ import annotations

from llama_index.core.tools.tool_spec.base import BaseToolSpec

from toolspecs.specs.arxiv import ArxivToolSpec


def test_class():
    assert BaseToolSpec.__name__ in [base.__name__ for base in ArxivToolSpec.__mro__]
