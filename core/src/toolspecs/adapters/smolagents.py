"""Our tools as smolagents tools: ``to_smolagents_tools(spec)`` for its agents.

``inputs`` come from the tool's JSON schema as it is, ``$ref`` written out (smolagents
keeps no ``$defs``). ``structured_output=True`` (smolagents' own ``MCPClient`` option
name) returns a declared output model's dict under ``output_schema``; it is opt-in, as
the schema costs tokens in every prompt. ``forward`` takes arguments as they came
(``CodeAgent`` code may pass them by position) and raises ``ToolGuidance``, whose
``str()`` is its text. ``ToolCallingAgent`` checks arguments against ``inputs`` first,
so tolerant forms (``"5"``, aliases) are refused there; ``CodeAgent`` does not check.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toolspecs.adapters.compat_smolagents import AnyArguments
from toolspecs.adapters.tools import Tools, guarded_tools, require
from toolspecs.core import structured
from toolspecs.core.policy import Marks
from toolspecs.core.tool import GuardedTool

require("smolagents", "smolagents")  # else an ImportError naming the extra

from smolagents import Tool  # noqa: E402

__all__ = ["ToolspecsSmolagentsTool", "smolagents_inputs", "to_smolagents_tools"]

# smolagents' AUTHORIZED_TYPES that a JSON schema can name ("image" and "audio" it cannot).
_JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")


class ToolspecsSmolagentsTool(AnyArguments, Tool):  # type: ignore[misc]  # no type hints
    """One of our tools as a smolagents ``Tool``; ``marks`` keeps its policy marks."""

    # forward takes what the model sent, however named: smolagents' check of forward's
    # parameters against ``inputs`` does not apply (AnyArguments, see compat_smolagents).
    output_type = "string"

    def __init__(self, tool: GuardedTool, structured_output: bool = False) -> None:
        self.name = tool.metadata.get_name()
        self.description = tool.metadata.description
        self.inputs = smolagents_inputs(tool.metadata.get_parameters_dict())
        self.marks: Marks = tool.marks
        self._guard = tool.guard
        model = tool.guard.options.output
        self._structured = structured_output and model is not None
        if self._structured and model is not None:
            self.output_type = "object"
            self.output_schema = structured.output_schema(model)
        super().__init__()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Our text for the call (or its structured result); raises ``ToolGuidance``."""
        outcome = self._guard.run(args, kwargs)  # what tool.fn runs, the data kept
        if self._structured and outcome.structured is not None:
            return outcome.structured
        return outcome.text


def to_smolagents_tools(
    source: Tools, *, structured_output: bool = False
) -> list[ToolspecsSmolagentsTool]:
    """Our tools (a spec, several, or tools) as smolagents ``Tool`` objects, in order."""
    return [
        ToolspecsSmolagentsTool(tool, structured_output=structured_output)
        for tool in guarded_tools(source)
    ]


def smolagents_inputs(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The smolagents ``inputs`` for a tool's JSON schema (its ``parameters`` object)."""
    definitions = schema.get("$defs", {})
    required = set(schema.get("required", []))
    inputs: dict[str, dict[str, Any]] = {}
    for name, prop in schema.get("properties", {}).items():
        found = _inline(prop, definitions, frozenset())
        entry: dict[str, Any] = {
            "type": _type_of(found),
            "description": found.pop("description", ""),
        }
        found.pop("type", None)
        members = found.get("anyOf", [])
        if not all(isinstance(m, Mapping) and isinstance(m.get("type"), str) for m in members):
            del found["anyOf"]  # smolagents reads each member's "type": the list above says it
        entry.update(found)
        if name not in required:
            entry["nullable"] = True
        inputs[name] = entry
    return inputs


def _type_of(prop: Mapping[str, Any]) -> str | list[str]:
    kind = prop.get("type")
    if isinstance(kind, str):
        return kind if kind in _JSON_TYPES else "any"
    if isinstance(kind, list):
        return kind if kind and all(k in _JSON_TYPES for k in kind) else "any"
    members = prop.get("anyOf") or prop.get("oneOf")
    if isinstance(members, list) and members:
        kinds: list[str] = []
        for member in members:
            found = _type_of(member) if isinstance(member, Mapping) else "any"
            if found == "any" or not isinstance(member, Mapping) or "type" not in member:
                return "any"
            kinds += [found] if isinstance(found, str) else found
        unique = list(dict.fromkeys(kinds))
        return unique[0] if len(unique) == 1 else unique
    values = prop.get("enum", [prop["const"]] if "const" in prop else None)
    if isinstance(values, list) and values:
        kinds = list(dict.fromkeys(_json_type_of_value(v) for v in values))
        return kinds[0] if len(kinds) == 1 and kinds[0] != "any" else "any"
    return "any"


def _json_type_of_value(value: Any) -> str:
    if value is None:
        return "null"
    for python, kind in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if isinstance(value, python):
            return kind
    return "any"


def _inline(value: Any, definitions: Mapping[str, Any], expanding: frozenset[str]) -> Any:
    if isinstance(value, list):
        return [_inline(item, definitions, expanding) for item in value]
    if not isinstance(value, Mapping):
        return copy.deepcopy(value)
    ref = value.get("$ref")
    rest = {k: _inline(v, definitions, expanding) for k, v in value.items() if k != "$ref"}
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return rest
    name = ref.removeprefix("#/$defs/")
    if name in expanding or name not in definitions:  # a recursive model: an object
        return {"type": "object", **rest}
    target = _inline(definitions[name], definitions, expanding | {name})
    target.pop("title", None)
    return {**target, **rest}
