"""What one call is, apart from how it runs: its spec's policy, its outcome, its flag.

:class:`CallPolicy` is what a spec gives each tool's guard; :class:`Outcome` and
:class:`GuardedOutput` are what a call returns; :class:`Abandoned` marks a call its
caller stopped waiting for. :mod:`toolspecs.core.runner` runs calls with them.
"""

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
    """A sign-in the person does in their browser, started for a call that needed one.

    A host that can show the person an address (MCP's URL elicitation) shows ``url`` with
    ``message``, waits with :meth:`finish`, and calls again; or :meth:`cancel`.
    """

    @property
    def url(self) -> str:
        """The sign-in page to open (the service's own consent page)."""

    @property
    def message(self) -> str:
        """What the person is told: who asks, for what access."""

    def finish(self, seconds: float) -> None:
        """Wait up to ``seconds`` for the person, and keep what the sign-in gave.

        Raises:
            ToolGuidance: When it did not happen (refused at the service, too late).
        """

    def cancel(self) -> None:
        """Give it up: nothing more is waited for."""


@dataclass(frozen=True)
class CallPolicy:
    """What the guard of each tool needs of its spec: the spec builds it, the guard obeys.

    What may change after the tools are made is read through a function at each call:
    an instance may set its own ``call_deadline``, and results belong to the call's owner.

    Args:
        service: How the agent should call the service (``service_name``).
        deadline: The seconds a call may take, retries included (``None``: no deadline).
        lock: Held during each call when the spec's client is not thread-safe;
            ``None``: calls run side by side.
        budget: The token budget of the text a call returns.
        guidance: An expected failure as guidance (the spec's failure table); ``None``
            for our own bugs.
        results: Where an owner (``None``: the spec) keeps results too long to show.
        source: Who wrote one stored document, for the header of its passages.
        before: Called with the spec function's name once its arguments are read, in the
            call's thread, under its lock and deadline, before the function: it may raise
            ``ToolGuidance`` (or an error the failure table maps) to stop the call.
        confirm: The question a person answers before a destructive call of a spec
            function with its arguments read; it returns ``None`` when the spec does not
            ask (``confirm_destructive`` off). ``None``: never ask.
        sign_in: Starts a sign-in the person does in their browser, for a call that
            failed with :class:`~toolspecs.core.errors.SignInNeeded`; it returns ``None``
            when the spec cannot start one here (credentials given). ``None``: never.
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

    ``structured`` is the JSON-ready data of a tool declared with ``@tool(output=...)``
    (:mod:`toolspecs.core.structured`), within the same budget as the text; ``None`` for
    a tool without one, or for a call that did nothing. ``stored`` is the stored result
    when the text was too long to show (a host may offer it to read, as MCP's resources).
    """

    raw: Any
    text: str
    structured: dict[str, Any] | None = None
    stored: StoredResult | None = None


class GuardedOutput(ToolOutput):
    """A ``ToolOutput`` that also carries the call's structured result (``structured``).

    ``raw_output`` stays the function's own return value (LlamaHub's type), ``content``
    the agent's text.
    """

    structured: dict[str, Any] | None = None


class Abandoned:
    """Set by a caller that stopped waiting for a call: the call, if not begun, is not made.

    A plain flag (setting and reading an attribute is atomic under the GIL): a
    ``threading.Event`` costs a condition and a lock to build, and nobody waits on this.
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
