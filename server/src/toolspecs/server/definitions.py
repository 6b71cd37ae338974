"""How a client sees one of our tools in ``tools/list``: name, title, schemas, marks."""

from __future__ import annotations

import re
from typing import Any

import mcp_types

from toolspecs.core import structured
from toolspecs.core.tool import GuardedTool

__all__ = ["input_schema", "output_schema", "title", "tool_definition"]

# The summary's first clause: up to a '.', ':', ';' or ',' that ends a word.
_CLAUSE_END = re.compile(r"[.:;,](?=\s|$)")


def title(tool: GuardedTool) -> str:
    """A tool's title: its service and its summary's first clause (``"Gmail: Send a draft"``)."""
    summary = tool.metadata.description.strip().split("\n", 1)[0]
    clause = _CLAUSE_END.split(summary, maxsplit=1)[0].strip()
    service = tool.guard.policy.service
    return f"{service}: {clause}" if clause else service


def input_schema(tool: GuardedTool) -> dict[str, Any]:
    """The tool's ``inputSchema``: its argument model's JSON schema, as OpenAI gets it."""
    model = tool.metadata.fn_schema
    if model is None:  # not one of ours: every GuardedTool has its argument model
        return {"type": "object", "properties": {}}
    return model.model_json_schema()


def tool_definition(tool: GuardedTool) -> mcp_types.Tool:
    """How a client sees one of our tools in ``tools/list``."""
    shown = title(tool)
    annotations = {"title": shown, **tool.marks.annotations()}
    return mcp_types.Tool(
        name=tool.metadata.get_name(),
        title=shown,
        description=tool.metadata.description,
        input_schema=input_schema(tool),
        annotations=mcp_types.ToolAnnotations.model_validate(annotations),
        output_schema=output_schema(tool),
    )


def output_schema(tool: GuardedTool) -> dict[str, Any] | None:
    """The tool's ``outputSchema``: its output model's JSON schema (``None``: it has none)."""
    model = tool.guard.options.output
    return None if model is None else structured.output_schema(model)
