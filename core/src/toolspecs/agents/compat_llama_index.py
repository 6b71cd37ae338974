"""Brittle: everything toolspecs relies on in llama-index's OpenAI LLM beyond its public API.

An ``OpenAI`` LLM without a key is refused before the first request, unless a client
given to it holds one, which the LLM keeps privately. Checked against the pinned
llama-index-llms-openai by ``tests/agents/test_llama_index_compat.py``:

1. ``OpenAI._client``/``_aclient``: the clients given to the constructor, ``None`` until
   the first request otherwise. If renamed, an LLM given only a client is refused.
"""

from __future__ import annotations

from typing import Any


def has_own_client(llm: Any) -> bool:
    """Whether llama-index's ``OpenAI`` ``llm`` holds a client of its own (internal 1)."""
    return getattr(llm, "_client", None) is not None or getattr(llm, "_aclient", None) is not None
