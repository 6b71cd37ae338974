"""toolspecs.agents: the LlamaHub tools blog's agent API on today's llama-index.

- :class:`OpenAIAgent`: ``OpenAIAgent.from_tools(tools, verbose=True)`` and
  ``agent.chat(...)``, over llama-index's ``FunctionAgent``. Its default LLM needs
  ``pip install "toolspecs[openai]"``; any function-calling llama-index LLM works.

Offline testing: :mod:`toolspecs.agents.testing` (``FakeOpenAI``).
"""

from toolspecs.agents.openai_agent import OpenAIAgent

__all__ = ["OpenAIAgent"]
