"""Brittle: everything toolspecs relies on in langchain-core beyond its public API, in one place.

:class:`~toolspecs.adapters.langchain.ToolspecsStructuredTool` is a ``StructuredTool``
(public API: ``name``, ``description``, ``args_schema``, ``func``, ``coroutine``,
``handle_tool_error``) whose arguments our own model reads, as in every other host. For
that it inherits :class:`ArgumentsAsSent`, which overrides two members of langchain-core's
``BaseTool``, checked against the pinned langchain-core (1.x) by
``tests/adapters/test_langchain_compat.py``:

1. ``BaseTool._to_args_and_kwargs(tool_input, tool_call_id)``, private, which ``run`` and
   ``arun`` call to turn the call's input into the function's arguments: LangChain's
   validates the input with ``args_schema`` and passes on only the validated values. Ours
   passes the arguments as the model sent them (a bare string as the first argument), so
   our model reads them once and a call it cannot read gets our guidance (a
   ``ToolMessage`` with ``status="error"``), not pydantic's ``ValidationError``. If it
   is renamed or no longer called, LangChain validates again: ``"5"`` for an integer, an
   alias or ``camelCase`` names fail with pydantic's error instead of being read.
2. ``BaseTool.tool_call_schema``, the schema the model is sent: LangChain rebuilds a copy
   of ``args_schema`` (to leave out injected arguments, which our tools never have) and
   loses our schema generator on the way (it would show ``"default": null`` for optional
   arguments). Ours is ``args_schema`` itself. If LangChain stops reading this property
   for the model's schema, the schema snapshots of the LangChain host change.

Importing this module needs langchain-core (the adapter checks that first).
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
