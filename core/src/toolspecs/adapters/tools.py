"""What every adapter takes: a spec, several specs, or our tools; and lazy host imports."""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import TypeAlias

from toolspecs.core.errors import ConfigurationError
from toolspecs.core.spec import ToolSpec
from toolspecs.core.tool import GuardedTool, names_used_twice

# A spec, one of our tools, or any iterable of them (e.g. spec.to_tool_list(prefix="x_")).
Tools: TypeAlias = ToolSpec | GuardedTool | Iterable[ToolSpec | GuardedTool]


def guarded_tools(source: Tools) -> list[GuardedTool]:
    """The tools ``source`` stands for, in order: a spec's ``to_tool_list()``, or the tools given.

    Args:
        source: A spec, one of our tools, or an iterable of specs and tools.

    Returns:
        Our guarded tools.

    Raises:
        ConfigurationError: When an item is not ours, or two tools share a name (give
            one spec a prefix: ``spec.to_tool_list(prefix="gmail_")``).
    """
    items = [source] if isinstance(source, (ToolSpec, GuardedTool)) else list(source)
    tools: list[GuardedTool] = []
    for item in items:
        if isinstance(item, ToolSpec):
            tools.extend(t for t in item.to_tool_list() if isinstance(t, GuardedTool))
        elif isinstance(item, GuardedTool):
            tools.append(item)
        else:
            raise ConfigurationError(
                f"{item!r} is not a toolspecs spec or tool; pass a ToolSpec or its to_tool_list()"
            )
    twice = names_used_twice(t.metadata.get_name() for t in tools)
    if twice:
        raise ConfigurationError(
            f"two tools are named {', '.join(map(repr, twice))}; give one spec a prefix, "
            "e.g. spec.to_tool_list(prefix='gmail_')"
        )
    return tools


def require(module: str, extra: str) -> ModuleType:
    """Import a host library, or say which extra installs it.

    Args:
        module: The module to import, e.g. ``"langchain_core.tools"``.
        extra: The toolspecs-core extra that installs it, e.g. ``"langchain"``.

    Raises:
        ImportError: Naming the ``pip install`` command.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f'{module} is not installed: pip install "toolspecs-core[{extra}]"'
        ) from exc
