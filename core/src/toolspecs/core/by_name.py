"""Calling a spec's tools by name (``ToolSpec.call_tool``), and which options withhold one.

The tools are built once per spec and kept while what shapes them stays the same.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE

from toolspecs.core.declare import function_name, options_of

__all__ = ["callable_functions", "offered_tools", "withheld"]


def callable_functions(spec: Any) -> list[SPEC_FUNCTION_TYPE]:
    """``spec_functions`` (the instance's), then the opt-in ``more_functions``."""
    listed = list(spec.spec_functions)
    names = {function_name(entry) for entry in listed}
    return [*listed, *(name for name in spec.more_functions if name not in names)]


def offered_tools(spec: Any) -> dict[str, FunctionTool]:
    """The tools ``call_tool`` calls by name, rebuilt only when their inputs change.

    They depend on the spec functions listed, the functions themselves (an instance may
    replace one), which of them the options offer and this instance's argument texts
    (``argument_docs``); the tools read everything else (timezone, client, deadline) from
    the spec when they are called.
    """
    callable_functions = spec._callable_functions()
    state = []
    for entry in callable_functions:
        names = (entry,) if isinstance(entry, str) else tuple(entry)
        bound = [getattr(spec, n) for n in names]
        functions = tuple(getattr(fn, "__func__", fn) for fn in bound)
        marks = spec._marks(names[0])
        offered = (marks, spec.offers(marks))
        # This instance's argument texts shape the schema (a hidden calendar_id).
        docs = tuple(sorted((n, tuple(sorted(spec.argument_docs(n).items()))) for n in names))
        state.append((names, functions, offered, docs))
    key = tuple(state)
    cached: tuple[Any, dict[str, FunctionTool]] | None
    cached = spec.__dict__.get("_toolspecs_tools")
    if cached is None or cached[0] != key:
        tools = spec.to_tool_list(spec_functions=callable_functions)
        cached = (key, {t.metadata.get_name(): t for t in tools})
        spec.__dict__["_toolspecs_tools"] = cached
    return cached[1]


def withheld(spec: Any, name: str) -> tuple[str, ...]:
    """The options that would offer tool ``name`` that ``spec``'s options leave out."""
    reader_needs: list[tuple[str, ...]] = []
    for entry in spec._callable_functions():
        function = function_name(entry)
        options = options_of(getattr(spec, function))
        if name != function and not (options.large_output and name == spec.reader_name):
            continue
        marks = spec._marks(function)
        if spec.offers(marks):
            return ()
        needs: tuple[str, ...] = marks.needs(
            allow_destructive=spec.allow_destructive, allow_send=spec.allow_send
        )
        if name == function:
            return needs
        reader_needs.append(needs)  # the reader comes with any one of its functions
    return min(reader_needs, key=len, default=())
