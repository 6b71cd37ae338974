"""Adapters: our tools in other hosts' shapes, with the same schema, text and errors.

One module per host, each importing its host library lazily (an ImportError names
the extra to install):

- :mod:`toolspecs.adapters.openai`: OpenAI/Anthropic tool definitions and
  ``ToolExecutor`` for people who call those SDKs themselves;
- :mod:`toolspecs.adapters.langchain`: langchain-core ``StructuredTool`` objects;
- :mod:`toolspecs.adapters.smolagents`: smolagents ``Tool`` objects;
- :mod:`toolspecs.adapters.lagent`: a Lagent ``BaseAction`` toolkit.

Each takes a spec, several specs, or a list of our tools (:func:`guarded_tools`). They
are thin: they translate one :class:`~toolspecs.core.GuardedTool` into the host's shapes
(schema, result, error channel, side-effect hints) and add no behaviour of their own.

The structured result of a tool declared ``@tool(output=Model)`` travels where the host
has a place for it: LangChain's ``ToolMessage.artifact``, the executor's
``ToolAnswer.structured``, smolagents' ``output_schema`` (``structured_output=True``).
Lagent has none: its agents read only the text (``ActionReturn.format_result()``).
"""

from toolspecs.adapters.tools import Tools, guarded_tools, require

__all__ = ["Tools", "guarded_tools", "require"]
