"""What one call is, apart from how it runs: its spec's policy, its outcome, its flag."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from llama_index.core.schema import Document
from llama_index.core.tools.types import ToolOutput

from toolspecs.core.errors import ToolGuidance
from toolspecs.core.store import OutputBudget, StoredResult, StoredResults

__all__ = ["Abandoned", "CallPolicy", "GuardedOutput", "Outcome", "SignIn"]


class SignIn(Protocol):
    """A sign-in the person does in their browser; a host shows ``url``, then :meth:`finish`."""

    @property
    def url(self) -> str:
        """The sign-in page to open (the service's own consent page)."""

    @property
    def message(self) -> str:
        """What the person is told: who asks, for what access."""

    def finish(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the person, and keep what the sign-in gave."""

    def cancel(self) -> None:
        """Give it up: nothing more is waited for."""


@dataclass(frozen=True)
class CallPolicy:
    """What the guard of each tool needs of its spec: the spec builds it, the guard obeys.

    What may change after the tools are made (``call_deadline``, the budget) is read
    through a function at each call. ``sign_in`` starts a browser sign-in for a call that
    raised ``SignInNeeded`` (``None``: never, or the spec cannot here).
    """

    service: str
    deadline: Callable[[], float | None]
    lock: threading.RLock | None
    budget: Callable[[], OutputBudget]
    guidance: Callable[[BaseException], ToolGuidance | None]
    results: Callable[[object | None], StoredResults]
    source: Callable[[Document], str]
    before: Callable[[str], None] | None = None
    confirm: Callable[[str, Mapping[str, Any]], str | None] | None = None
    sign_in: Callable[[], SignIn | None] | None = None


class Outcome(NamedTuple):
    """What one call returned: the function's value, the agent's text, the structured result.

    ``stored`` is the stored result when the text was too long to show.
    """

    raw: Any
    text: str
    structured: dict[str, Any] | None = None
    stored: StoredResult | None = None


class GuardedOutput(ToolOutput):
    """A ``ToolOutput`` that also carries the call's structured result (``structured``)."""

    structured: dict[str, Any] | None = None


class Abandoned:
    """Set by a caller that stopped waiting for a call: the call, if not begun, is not made.

    A plain flag (atomic under the GIL): a ``threading.Event`` costs more, and nobody waits.
    """

    __slots__ = ("_set",)

    def __init__(self) -> None:
        self._set = False

    def set(self) -> None:
        """Mark the call abandoned."""
        self._set = True

    def is_set(self) -> bool:
        """Whether the call was abandoned."""
        return self._set
