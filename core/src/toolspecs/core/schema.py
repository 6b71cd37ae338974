"""Tool prompts: a function's docstring and hints made into the metadata an agent reads.

The description is the docstring's summary, body, ``Returns:`` and ``Examples:``,
without the signature llama-index prepends by default; each parameter gets its
``Args:`` text, its JSON type, its default and, for ``Literal`` hints, an ``enum``.
"""

from __future__ import annotations

import copy
import inspect
import typing
from collections.abc import Callable
from typing import Any, ClassVar

from llama_index.core.bridge.pydantic import BaseModel, create_model
from llama_index.core.tools.types import ToolMetadata

from toolspecs.core import docstrings, inputs

OPENAI_DESCRIPTION_LIMIT = 1024


class ToolArguments(BaseModel):
    """Base of the generated argument models; their JSON schema is the one we compose."""

    toolspecs_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The composed schema: no pydantic titles, only what the agent needs."""
        return copy.deepcopy(cls.toolspecs_schema)


def parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """The parameters an agent fills in (no ``self``, no ``*args``/``**kwargs``)."""
    return [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def hints(fn: Callable[..., Any]) -> dict[str, Any]:
    """The type hints of ``fn``, ``Annotated`` extras kept."""
    return typing.get_type_hints(fn, include_extras=True)


def describe(doc: docstrings.Docstring) -> str:
    """The tool description composed from a parsed docstring."""
    parts = [doc.summary]
    if doc.body:
        parts.append(doc.body)
    if doc.returns:
        parts.append(f"Returns {doc.returns[0].lower()}{doc.returns[1:]}")
    if doc.examples:
        parts.append(f"Examples:\n{doc.examples}")
    return "\n".join(p for p in parts if p)


def json_parameters(fn: Callable[..., Any], doc: docstrings.Docstring) -> dict[str, Any]:
    """The JSON schema of ``fn``'s parameters as the agent sees it."""
    fn_hints = hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in parameters(fn):
        prop = inputs.json_schema(fn_hints.get(param.name, Any))
        if doc.args.get(param.name):
            prop["description"] = doc.args[param.name]
        if param.default is inspect.Parameter.empty:
            required.append(param.name)
        elif param.default is not None:
            prop["default"] = param.default
        properties[param.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def build_metadata(name: str, fn: Callable[..., Any]) -> ToolMetadata:
    """The ``ToolMetadata`` of a spec function: description and parameter schema.

    Args:
        name: The tool's name as the agent sees it.
        fn: The function; its docstring and hints make the prompt.

    Returns:
        Metadata whose ``to_openai_tool()`` gives the composed schema.
    """
    doc = docstrings.parse(fn.__doc__)
    schema = json_parameters(fn, doc)
    fields: dict[str, Any] = {}
    for param in parameters(fn):
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (Any, default)
    model = create_model(name, __base__=ToolArguments, **fields)
    model.toolspecs_schema = schema
    return ToolMetadata(name=name, description=describe(doc), fn_schema=model)
