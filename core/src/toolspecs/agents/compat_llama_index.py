"""Brittle: everything toolspecs relies on in llama-index's OpenAI LLM beyond its public API.

:func:`~toolspecs.agents.openai_agent.require_openai_key` refuses llama-index's ``OpenAI``
LLM (``llama-index-llms-openai``) that has no key, before the agent's first request. A key
may also come inside a client given to the LLM (``openai_client=``,
``async_openai_client=``), which the LLM keeps in private attributes only. We lean on
these, checked against the pinned llama-index-llms-openai by
``tests/agents/test_llama_index_compat.py``:

1. ``OpenAI._client`` and ``OpenAI._aclient``: the clients given to the constructor
   (``openai_client=``, ``async_openai_client=``), ``None`` until the first request
   otherwise (:func:`has_own_client`). If they are renamed, an LLM given only a client
   is refused as if it had no key (the attribute missing reads as no client).
"""

from __future__ import annotations

from typing import Any


def has_own_client(llm: Any) -> bool:
    """Whether llama-index's ``OpenAI`` ``llm`` holds a client of its own (internal 1)."""
    return getattr(llm, "_client", None) is not None or getattr(llm, "_aclient", None) is not None
