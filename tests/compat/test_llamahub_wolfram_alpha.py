"""LlamaHub's Wolfram|Alpha tests, in our words, against our spec: same assertions, same mocks.

The original is ``llama-index-tools-wolfram-alpha/tests/test_tools_wolfram_alpha.py`` in
run-llama/llama_index. Only the import changed, so the patch target is our module's
``requests.get``: that is ``requests.get`` itself, which our spec sends the LLM API
request with when no transport is given. (These tests keep LlamaHub's MagicMock.)
"""

from __future__ import annotations

from unittest.mock import MagicMock, patch

from llama_index.core.tools.tool_spec.base import BaseToolSpec

from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec


def test_the_spec_is_a_llama_index_tool_spec():
    assert BaseToolSpec.__name__ in [kind.__name__ for kind in WolframAlphaToolSpec.__mro__]


@patch("toolspecs.specs.wolfram_alpha.base.requests.get")
def test_api_params_travel_in_the_url(mock_get: MagicMock) -> None:
    reply = MagicMock()
    reply.text = "result"
    reply.raise_for_status = MagicMock()
    mock_get.return_value = reply

    spec = WolframAlphaToolSpec(app_id="test-id", api_params={"maxchars": 1000, "units": "metric"})
    spec.wolfram_alpha_query("test query")

    url = mock_get.call_args[0][0]
    assert "input=test+query" in url
    assert "maxchars=1000" in url
    assert "units=metric" in url
