"""toolspecs.agents: the LlamaHub tools blog's ``OpenAIAgent`` on today's llama-index."""

from toolspecs.agents.openai_agent import OpenAIAgent

__all__ = ["OpenAIAgent"]
