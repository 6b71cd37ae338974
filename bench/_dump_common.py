"""Shared by the dump children: turn a tool spec into OpenAI tool JSON records.

Runs in either environment (workspace or LlamaHub venv), so it imports nothing but the stdlib.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from typing import Any


def dump_tools(spec: Any) -> list[dict[str, Any]]:
    """One record per tool: its OpenAI JSON and whether the 1024-char length check fails."""
    records = []
    for tool in spec.to_tool_list():
        try:
            openai_tool = tool.metadata.to_openai_tool()
            length_error = None
        except ValueError as exc:
            openai_tool = tool.metadata.to_openai_tool(skip_length_check=True)
            length_error = str(exc)
        # toolspecs tools declare an output model (MCP's outputSchema); LlamaHub's do not.
        options = getattr(getattr(tool, "guard", None), "options", None)
        model = getattr(options, "output", None)
        output_schema = None
        if model is not None:
            from toolspecs.core.structured import output_schema as schema_of

            output_schema = schema_of(model)
        records.append(
            {
                "name": openai_tool["function"]["name"],
                "openai_tool": openai_tool,
                "length_check_error": length_error,
                "output_schema": output_schema,
            }
        )
    return records


def versions(*dists: str) -> dict[str, str | None]:
    found: dict[str, str | None] = {}
    for dist in dists:
        try:
            found[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            found[dist] = None
    return found


def emit(document: dict[str, Any]) -> None:
    json.dump(document, sys.stdout)
    sys.stdout.write("\n")
