"""toolspecs.specs.arxiv: arXiv tools for agents, a drop-in for ``llama_index.tools.arxiv``."""

from toolspecs.specs.arxiv.base import ArxivToolSpec

__all__ = ["ArxivToolSpec"]
