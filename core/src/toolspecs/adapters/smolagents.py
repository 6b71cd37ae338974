"""Our tools as smolagents tools: ``to_smolagents_tools(spec)`` for its agents.

smolagents is the successor of the transformers agents ``Tool`` of the seed documents.
Each of our tools becomes a smolagents ``Tool``:

- ``inputs``: one entry per argument, from the tool's JSON schema as it is (type,
  description, ``enum``, bounds, default, list items), ``nullable: True`` for the
  optional ones; ``$ref`` definitions are written out in place, since smolagents keeps
  no ``$defs``. Types map one to one onto smolagents' (``string``, ``integer``,
  ``number``, ``boolean``, ``array``, ``object``); a union is a list of types, and an
  argument of no JSON type is ``any``.
- ``output_type = "string"``: the result is our text (``tool.fn``). With
  ``structured_output=True`` (the name of smolagents' own ``MCPClient`` option, which
  does the same for MCP tools), a tool declared ``@tool(output=Model)`` is instead
  ``output_type = "object"`` with ``output_schema`` its model's JSON schema, and returns
  the structured result (a dict: what MCP sends as ``structuredContent``). smolagents
  shows a ``CodeAgent`` that schema and ``-> dict``, so its code reads fields
  (``result["papers"][0]["id"]``) instead of parsing text; a ``ToolCallingAgent`` sees
  the dict as its observation. The schema costs tokens in every prompt, so it is opt-in.
- ``forward`` hands the arguments to our argument model as they came, positional ones
  included (``CodeAgent`` code may call ``arxiv_query("bert", 5)``); guidance is raised
  as our ``ToolGuidance``, whose ``str()`` is exactly its text. ``ToolCallingAgent``
  reports it to the model as ``Error executing tool '<name>' with arguments {...}:
  FixArguments: <text>``, ``CodeAgent`` as ``Code execution failed at line '...' due to:
  FixArguments: <text>`` (the class name says the kind: ``FixArguments``,
  ``RetryLater`` or ``AskUser``).
- ``tool.marks`` keeps the policy marks (smolagents has no place for them).

``ToolCallingAgent`` checks the model's arguments against ``inputs`` before it calls a
tool (smolagents' ``validate_tool_arguments``): ``"5"`` for an integer, an alias such as
``q`` or a ``camelCase`` name are refused there with smolagents' own message and never
reach our model. ``CodeAgent`` calls tools from the model's Python code without that
check, so our model reads those forms as everywhere else.

Importing this module needs smolagents: ``pip install "toolspecs-core[smolagents]"``.
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
    """One of our tools as a smolagents ``Tool`` (made by :func:`to_smolagents_tools`).

    Args:
        tool: Our tool.
        structured_output: Return the structured result of a tool that declares an
            output model (a dict, ``output_type="object"``, ``output_schema`` set)
            instead of its text.

    Attributes:
        marks: The tool's policy marks.
    """

    # forward takes what the model sent, however it was named: smolagents' check that
    # forward's parameters are the keys of ``inputs`` does not apply (AnyArguments, an
    # internal of smolagents: see compat_smolagents).
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
        """Our text for the call (or its structured result); raises ``ToolGuidance``.

        The agent reports guidance to the model. A tool that returned no structured
        result (outside strict mode) answers its text, even with ``structured_output``.
        """
        outcome = self._guard.run(args, kwargs)  # what tool.fn runs, the data kept
        if self._structured and outcome.structured is not None:
            return outcome.structured
        return outcome.text


def to_smolagents_tools(
    source: Tools, *, structured_output: bool = False
) -> list[ToolspecsSmolagentsTool]:
    """Our tools as smolagents ``Tool`` objects, in order.

    Args:
        source: A spec, several specs, or our tools (e.g. ``spec.to_tool_list(prefix=...)``).
        structured_output: Tools that declare an output model return their structured
            result (a dict) under its ``output_schema`` instead of their text.

    Returns:
        One tool per tool of ``source``: same name and description, ``inputs`` from
        its schema, our text as a ``"string"`` output (or the structured result as an
        ``"object"``), guidance raised as a tool error.

    Raises:
        ConfigurationError: When an item is not ours, or two tools share a name.
    """
    return [
        ToolspecsSmolagentsTool(tool, structured_output=structured_output)
        for tool in guarded_tools(source)
    ]


def smolagents_inputs(schema: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The smolagents ``inputs`` for a tool's JSON schema (its ``parameters`` object).

    Args:
        schema: An object schema: ``properties``, ``required``, maybe ``$defs``.

    Returns:
        Each property as it is, ``$ref`` written out, with ``type`` first (a smolagents
        type or a list of them), ``description``, and ``nullable: True`` when optional.
    """
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
    """The smolagents type of a property: a JSON type, a list of them, or ``any``."""
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
    """``value`` (a copy) with each ``{"$ref": "#/$defs/X"}`` replaced by ``X`` itself."""
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
