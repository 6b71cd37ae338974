"""Lagent: our tools as the APIs of one Lagent toolkit (a ``BaseAction``).

Each tool is ``<Toolkit>.<tool>`` in Lagent's description format, constraints of our
schema kept. The action's parser only decodes the JSON; our model reads names and
values. Guidance is the ``errmsg``: ``ARGS_ERROR`` for a fault in the call's arguments
(unreadable, or ``FixArguments``), ``API_ERROR`` for the rest, as Lagent does. Lagent
has no channel for side-effect marks: choose tools with ``allow_send``/``allow_destructive``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from toolspecs.adapters.compat_lagent import action_of, add_api, mark_toolkit, unfenced
from toolspecs.adapters.tools import Tools, guarded_tools, json_beyond_limits, require
from toolspecs.core.bounds import shown
from toolspecs.core.errors import ConfigurationError, FixArguments, ToolGuidance
from toolspecs.core.tool import GuardedTool

__all__ = ["to_lagent_action"]

# JSON-schema types in the words of Lagent's ``tool_api`` (``Array`` is spelled so there).
_TYPES = {
    "string": "STRING",
    "integer": "NUMBER",
    "number": "FLOAT",
    "boolean": "BOOLEAN",
    "array": "Array",
    "object": "OBJECT",
}
# Keys of a property's JSON schema that the Lagent parameter says in its own words.
_OWN_KEYS = {"type", "description", "title", "anyOf", "items"}


def to_lagent_action(
    source: Tools, *, name: str | None = None, description: str | None = None
) -> Any:
    """Our tools as one Lagent toolkit: a ``BaseAction`` with one API per tool.

    Args:
        source: A spec, several specs, or our tools (``spec.to_tool_list(prefix=...)``).
        name: The toolkit's name (``"Arxiv"`` in ``"Arxiv.arxiv_query"``); default the
            spec's class name without ``ToolSpec``, or ``"Toolspecs"`` for several.
        description: The toolkit's description; default ``"arXiv tools."`` and the like.
    """
    toolkit = _toolkit_class()
    tools = guarded_tools(source)
    specs = list(dict.fromkeys(type(t.spec) for t in tools))
    if name is None:
        name = specs[0].__name__.removesuffix("ToolSpec") if len(specs) == 1 else "Toolspecs"
    if not name or "." in name:
        raise ConfigurationError(
            f"a Lagent toolkit name cannot be empty or hold a dot: {name!r} "
            "(the executor splits 'Toolkit.api' at the dot)"
        )
    if description is None:
        services = list(dict.fromkeys(getattr(s, "service_name", s.__name__) for s in specs))
        description = f"{' and '.join(services)} tools."
    return toolkit(tools, name, description)


@cache
def _toolkit_class() -> type[Any]:
    """The ``BaseAction`` subclass, defined once: Lagent registers every subclass by name."""
    actions = require("lagent.actions", "lagent")
    parser_module = require("lagent.actions.parser", "lagent")
    lagent_schema = require("lagent.schema", "lagent")
    ActionReturn = lagent_schema.ActionReturn
    ActionStatusCode = lagent_schema.ActionStatusCode
    ParseError = parser_module.ParseError
    base_action: Any = actions.BaseAction  # lagent has no type hints
    json_parser: Any = parser_module.JsonParser

    class ToolArgumentsParser(json_parser):  # type: ignore[misc]
        """Lagent's ``JsonParser`` that decodes the JSON and leaves the names to our model."""

        def parse_inputs(self, inputs: Any, name: str = "run") -> dict[str, Any]:
            """The arguments as sent, decoded; raises Lagent's ``ParseError`` with guidance."""
            action = action_of(self)
            api = f"{action.name}.{name}"
            if name not in action.tools:
                known = ", ".join(f"{action.name}.{t}" for t in action.tools)
                raise ParseError(
                    FixArguments(
                        f"{action.name} has no API {name!r}.", f"Call one of: {known}."
                    ).text
                )
            if isinstance(inputs, str):
                text = unfenced(inputs)  # as Lagent's JsonParser, inside a ```json fence too
                try:
                    inputs = json.loads(text) if text.strip() else {}
                except json.JSONDecodeError as exc:
                    raise ParseError(
                        FixArguments(
                            f"The arguments of {api} are not valid JSON "
                            f"({exc.msg} at character {exc.pos}): {shown(text)}.",
                            'Send one JSON object of parameter names and values, e.g. {"name": '
                            '"value"}, complete and with double quotes.',
                        ).text
                    ) from exc
                except (ValueError, RecursionError) as exc:
                    # Valid JSON Python will not read (a 5,000-digit number): guidance.
                    problem, step = json_beyond_limits(exc)
                    raise ParseError(
                        FixArguments(f"The arguments of {api} {problem}.", step).text
                    ) from None
            if not isinstance(inputs, dict):
                raise ParseError(
                    FixArguments(
                        f"The arguments of {api} must be one JSON object, not "
                        f"{type(inputs).__name__} {shown(inputs)}.",
                        'Send them as {"name": "value", ...} with the parameter names.',
                    ).text
                )
            return inputs

    class ToolspecsToolkit(base_action):  # type: ignore[misc]
        """toolspecs tools as the APIs of one Lagent toolkit."""

        def __init__(self, tools: list[GuardedTool], name: str, description: str) -> None:
            self.tools = {t.metadata.get_name(): t for t in tools}
            # Lagent decides this per class from its @tool_api methods; ours come per instance.
            mark_toolkit(self)
            described = {
                "name": name,
                "description": description,
                "api_list": [_api_description(t) for t in tools],
            }
            super().__init__(described, parser=ToolArgumentsParser)
            for api, tool in self.tools.items():
                if api.startswith("_") or hasattr(self, api):
                    raise ConfigurationError(
                        f"the tool name {api!r} is taken by Lagent's BaseAction; give the "
                        "spec a prefix, e.g. spec.to_tool_list(prefix='my_')"
                    )
                add_api(self, api, self._api(tool))  # where BaseAction.__call__ finds it

        def _api(self, tool: GuardedTool) -> Callable[..., Any]:
            def call(**inputs: Any) -> Any:
                try:
                    text = tool.guard.run((), inputs).text
                except ToolGuidance as guidance:
                    # The arguments were at fault, whichever stage found it: ARGS_ERROR.
                    fault = guidance.stage == "arguments" or guidance.kind == "fix"
                    state = ActionStatusCode.ARGS_ERROR if fault else ActionStatusCode.API_ERROR
                    return ActionReturn(
                        args=inputs, type=self.name, errmsg=guidance.text, state=state
                    )
                # Our text as it is: Lagent's parse_outputs would drop what GBK cannot encode.
                return ActionReturn(
                    args=inputs, type=self.name, result=[{"type": "text", "content": text}]
                )

            return call

    return ToolspecsToolkit


def _api_description(tool: GuardedTool) -> dict[str, Any]:
    model = tool.metadata.fn_schema
    parameters = model.model_json_schema() if model is not None else {}
    properties: dict[str, Any] = parameters.get("properties", {})
    return {
        "name": tool.metadata.get_name(),
        "description": tool.metadata.description,
        "parameters": [_parameter(name, prop) for name, prop in properties.items()],
        "required": list(parameters.get("required", [])),
    }


def _parameter(name: str, prop: dict[str, Any]) -> dict[str, Any]:
    prop = _non_null(prop)
    parameter: dict[str, Any] = {
        "name": name,
        "type": _type(prop),
        "description": prop.get("description", ""),
    }
    if "items" in prop:
        parameter["items"] = {"type": _type(_non_null(prop["items"]))}
    parameter.update((key, value) for key, value in prop.items() if key not in _OWN_KEYS)
    return parameter


def _non_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = [o for o in prop.get("anyOf", []) if o.get("type") != "null"]
    if len(options) != 1:
        return prop
    return {**{k: v for k, v in prop.items() if k != "anyOf"}, **options[0]}


def _type(prop: dict[str, Any]) -> str:
    # ``STRING`` when it names none, as Lagent's ``tool_api`` does.
    kind = prop.get("type")
    if kind is None and "enum" in prop:
        kind = "string" if all(isinstance(v, str) for v in prop["enum"]) else None
    return _TYPES.get(kind, "STRING") if isinstance(kind, str) else "STRING"
