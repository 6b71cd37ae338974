"""The ``@tool`` declaration: how a spec function is exposed, checked when it is made."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ParamSpec

from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE
from pydantic import BaseModel

from toolspecs.core import schema
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.policy import Marks
from toolspecs.core.structured import Listing, Output

__all__ = [
    "ToolOptions",
    "declare",
    "function_name",
    "inherited_options",
    "options_of",
    "resource_fields",
    "tool",
    "undecorated",
]

P = ParamSpec("P")


@dataclass(frozen=True)
class ToolOptions:
    """How a spec function is exposed; set with :func:`tool`."""

    aliases: Mapping[str, str] = field(default_factory=dict)
    large_output: bool = False
    empty: str | None = None
    marks: Marks = field(default_factory=Marks)
    blocking: bool = True
    output: type[BaseModel] | None = None
    resource: str | None = None


# A resource path: segments of letters, digits, '_', '.', '-', or one '{argument}' each.
_SEGMENT = re.compile(r"[A-Za-z0-9_.-]{1,64}|\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


def resource_fields(path: str) -> tuple[str, ...]:
    """The arguments a resource path names (``"papers/{paper_id}"``), in order."""
    names: list[str] = []
    for segment in path.split("/"):
        found = _SEGMENT.fullmatch(segment)
        if found is None:
            raise ValueError(
                f"resource={path!r}: each segment is letters, digits, '_', '.', '-' "
                "or one '{argument}'"
            )
        if found[1] is not None:
            if found[1] in names:
                raise ValueError(f"resource={path!r}: {{{found[1]}}} is named twice")
            names.append(found[1])
    if not names:
        raise ValueError(f"resource={path!r}: name at least one argument, e.g. '{{paper_id}}'")
    return tuple(names)


def tool(
    *,
    aliases: Mapping[str, str] | None = None,
    large_output: bool = False,
    empty: str | None = None,
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    blocking: bool = True,
    output: type[BaseModel] | None = None,
    resource: str | None = None,
) -> Callable[[Callable[P, Any]], Callable[P, Any]]:
    """Declare how a spec function is exposed as a tool.

    Args:
        aliases: Other names the agent may use for an argument, e.g. ``{"q": "query"}``.
        large_output: Results over the budget are stored and read with the spec's reader
            tool (otherwise they are cut short with a note).
        empty: What the agent reads when the function returns nothing, formatted with
            the call's arguments (``"No papers match {query!r}."``).
        read_only: It changes nothing (then it is also non-destructive and idempotent).
        destructive: It may change or remove what exists irreversibly.
        idempotent: Repeating the same call has no further effect.
        open_world: It reaches the public web or other people (MCP's meanings; left
            out, MCP's worst-case defaults apply).
        blocking: ``False`` promises no I/O: it runs on the caller's thread.
        output: The ``Output`` model it returns (a ``Listing`` when ``large_output``);
            its ``reply()`` is the agent's text and what a direct Python call returns.
        resource: The path (``"papers/{paper_id}"``) by which hosts that serve resources
            read this read-only tool.
    """
    try:
        marks = Marks.of(read_only, destructive, idempotent, open_world)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None
    if output is not None:
        _check_output(output, large_output)
    if resource is not None:
        _check_resource(resource, marks)
    options = ToolOptions(
        aliases=dict(aliases or {}),
        large_output=large_output,
        empty=empty,
        marks=marks,
        blocking=blocking,
        output=output,
        resource=resource,
    )

    def mark(fn: Callable[P, Any]) -> Callable[P, Any]:
        if resource is not None:
            _check_resource_arguments(fn, resource)
        return declare(fn, options)

    return mark


def _check_output(output: Any, large_output: bool) -> None:
    if not (isinstance(output, type) and issubclass(output, Output)):
        raise ConfigurationError(
            f"output={output!r}: give a subclass of toolspecs.core.structured.Output"
        )
    if large_output and not issubclass(output, Listing):
        raise ConfigurationError(
            f"output={output.__name__}: a large_output tool's model subclasses Listing "
            "(its result may be stored, and its data cut to the budget)"
        )


def _check_resource(resource: str, marks: Marks) -> None:
    if marks.read_only is not True:
        raise ConfigurationError(f"resource={resource!r}: only a read_only=True tool reads one")
    try:
        resource_fields(resource)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None


def _check_resource_arguments(fn: Callable[..., Any], resource: str) -> None:
    parameters = list(inspect.signature(fn).parameters)[1:]  # after self
    missing = [name for name in resource_fields(resource) if name not in parameters]
    if missing:
        raise ConfigurationError(
            f"{fn.__qualname__}: resource={resource!r} names {', '.join(missing)}, "
            f"not an argument of the function (its arguments: {', '.join(parameters)})"
        )


def declare(fn: Callable[P, Any], options: ToolOptions) -> Callable[P, Any]:
    """``fn`` checked and wrapped so that direct Python calls read their arguments too."""
    errors = schema.declaration_errors(fn, options.aliases)
    if errors and _in_class_body(fn):
        raise ConfigurationError(f"{fn.__qualname__}: {'; '.join(errors)}")  # "Spec.function"

    @functools.wraps(fn)
    def reading(self: Any, *args: Any, **kwargs: Any) -> Any:  # self: a ToolSpec
        # This function's own model: a subclass's override calling super() gets the base's.
        model = self._model(fn.__name__, fn, options.aliases)
        result = fn(self, **schema.prepare(model, args, kwargs))
        return result.reply() if isinstance(result, Output) else result

    reading.__toolspecs_options__ = options  # type: ignore[attr-defined]
    # Declared outside a class body, it is named with its spec when one lists it.
    reading.__toolspecs_errors__ = tuple(errors)  # type: ignore[attr-defined]
    # Which function is the reading wrapper and what it wraps: a decorator stacked on top
    # copies these attributes, and must not be skipped (see undecorated).
    reading.__toolspecs_raw__ = (reading, fn)  # type: ignore[attr-defined]
    return reading  # type: ignore[return-value]


def _in_class_body(fn: Callable[..., Any]) -> bool:
    parts = fn.__qualname__.split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


def options_of(fn: Callable[..., Any]) -> ToolOptions:
    """The :class:`ToolOptions` of a function (defaults when it was not decorated)."""
    found = getattr(fn, "__toolspecs_options__", None)
    return found if isinstance(found, ToolOptions) else ToolOptions()


def undecorated(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function ``@tool`` wraps, bound like ``fn``; a decorator stacked on top is kept."""
    func = getattr(fn, "__func__", None)
    owner = getattr(fn, "__self__", None)
    pair = getattr(func, "__toolspecs_raw__", None)
    if isinstance(pair, tuple) and pair[0] is func and owner is not None:
        raw: Callable[..., Any] = pair[1].__get__(owner)
        return raw
    return fn


def function_name(entry: SPEC_FUNCTION_TYPE) -> str:
    """The name of a ``spec_functions`` entry: itself, or the sync name of a LlamaHub pair."""
    return entry if isinstance(entry, str) else entry[0]


def inherited_options(cls: type, name: str) -> ToolOptions | None:
    """The options of the nearest base's ``name``, when a base declared it with ``@tool``."""
    for base in cls.__mro__[1:]:
        found = base.__dict__.get(name)
        if found is not None:
            options = getattr(found, "__toolspecs_options__", None)
            return options if isinstance(options, ToolOptions) else None
    return None
