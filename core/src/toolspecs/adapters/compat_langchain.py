"""Brittle: everything toolspecs relies on in langchain-core beyond its public API, in one place.

Our ``StructuredTool`` lets our own model read its arguments, as every host does, by
overriding two members of ``BaseTool``, checked against the pinned langchain-core (1.x)
by ``tests/adapters/test_langchain_compat.py``:

1. ``BaseTool._to_args_and_kwargs(tool_input, tool_call_id)``, private: LangChain's
   validates with ``args_schema``; ours passes the arguments as sent, so a call our model
   cannot read gets our guidance. If it is no longer called, tolerant forms (``"5"``,
   aliases) fail with pydantic's error instead.
2. ``BaseTool.tool_call_schema``: LangChain's rebuilds ``args_schema`` and loses our
   schema generator (``"default": null``); ours is ``args_schema`` itself. If it is no
   longer read, the LangChain host's schema snapshots change.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import ArgsSchema, StructuredTool

__all__ = ["ArgumentsAsSent"]


class ArgumentsAsSent(StructuredTool):
    """A ``StructuredTool`` that shows the model ``args_schema`` and passes its call on as sent."""

    @property
    def tool_call_schema(self) -> ArgsSchema:
        """The schema the model is sent: ``args_schema`` itself (internal 2)."""
        return self.args_schema if self.args_schema is not None else super().tool_call_schema

    def _to_args_and_kwargs(
        self, tool_input: str | dict[str, Any], tool_call_id: str | None
    ) -> tuple[tuple[str, ...], dict[str, Any]]:
        """The call's input as the function's arguments, not validated (internal 1)."""
        if isinstance(tool_input, str):  # tool.invoke("text"): the first argument
            return (tool_input,), {}
        return (), dict(tool_input)
