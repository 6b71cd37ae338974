"""Brittle: everything toolspecs relies on in Lagent beyond its public API, in one place.

``to_lagent_action`` (:mod:`toolspecs.adapters.lagent`) makes one ``BaseAction`` whose APIs
are our tools, given per instance, with a ``JsonParser`` that only decodes the JSON and
leaves the names and values to our argument model. Lagent (0.2.x) declares a toolkit's
APIs per class, with ``@tool_api`` methods; to give them per instance we lean on these
internals, checked against the pinned lagent by ``tests/adapters/test_lagent_compat.py``:

1. ``_is_toolkit``, which Lagent's metaclass sets per class (``True`` when the class has
   ``@tool_api`` methods besides ``run``) and ``BaseAction.is_toolkit`` reads: our class
   has none, so each instance says it is a toolkit (:func:`mark_toolkit`). If it changes,
   the executor shows and calls one ``run`` API instead of ``<Toolkit>.<tool>``.
2. ``BaseAction.__call__(inputs, name)`` finds the API with ``hasattr``/``getattr(self,
   name)``: each tool is set as an attribute of the instance (:func:`add_api`). If it
   reads the class instead, every call answers "invalid API".
3. A parser keeps its action as ``action`` (``BaseParser.__init__``): ours reads the
   toolkit's name and tools from it (:func:`action_of`).
4. ``JsonParser.parse_inputs`` takes the JSON inside a `````json`` fence too (its
   pattern is :data:`JSON_FENCE`); ours does the same (:func:`unfenced`), so a model
   reads the same rules as with Lagent's own parser.
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
