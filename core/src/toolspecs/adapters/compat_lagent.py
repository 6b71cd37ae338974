"""Brittle: everything toolspecs relies on in Lagent beyond its public API, in one place.

Lagent (0.2.x) declares a toolkit's APIs per class (``@tool_api``); ours come per
instance, leaning on these internals, checked against the pinned lagent by
``tests/adapters/test_lagent_compat.py``:

1. ``_is_toolkit``, set per class by Lagent's metaclass: each instance says it is one
   (else the executor shows one ``run`` API instead of ``<Toolkit>.<tool>``).
2. ``BaseAction.__call__`` finds an API with ``getattr(self, name)``: each tool is an
   instance attribute (else every call answers "invalid API").
3. A parser keeps its action as ``action`` (``BaseParser.__init__``).
4. ``JsonParser.parse_inputs`` takes JSON inside a `````json`` fence too
   (:data:`JSON_FENCE`); ours does the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

JSON_FENCE = re.compile(r"^\s*(```json\n)?(.*)\n```\s*$", re.S)
"""The pattern of Lagent's ``JsonParser`` for arguments sent inside a fence (internal 4)."""


def mark_toolkit(action: Any) -> None:
    """Make ``action``, whose class has no ``@tool_api`` methods, a toolkit (internal 1)."""
    action._is_toolkit = True


def add_api(action: Any, name: str, api: Callable[..., Any]) -> None:
    """Give ``action`` the API ``name``, which ``BaseAction.__call__`` finds (internal 2)."""
    setattr(action, name, api)


def action_of(parser: Any) -> Any:
    """The action a Lagent parser parses for (internal 3)."""
    return parser.action


def unfenced(text: str) -> str:
    """The JSON of ``text``, taken out of a `````json`` fence as Lagent does (internal 4)."""
    fenced = JSON_FENCE.search(text)
    return fenced.group(2).strip() if fenced else text
