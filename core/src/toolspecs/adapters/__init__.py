"""Adapters: our tools in other hosts' shapes, with the same schema, text and errors.

One module per host (openai, langchain, smolagents, lagent), each importing its host
library lazily. They are thin: they translate one guarded tool into the host's shapes
and add no behaviour of their own.
"""

from toolspecs.adapters.tools import Tools, guarded_tools, require

__all__ = ["Tools", "guarded_tools", "require"]
