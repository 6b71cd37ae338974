"""A task of the suite: a request, the world it starts in, and how its end is judged.

Tasks are outcome-centric, as WorkBench's and tau-bench's are: a run passes when the
sandboxes are left in the state the request asked for and the final answer states the
facts it asked for, however the agent got there. No check looks at which tools were
called or with what arguments; a check that needs to know whether something happened
reads the sandbox (a draft saved, a mail sent, an event's attendees notified).

Each task also carries the scripts of a model that does it right (:attr:`Task.solution`)
and of models that make the classic mistakes (:attr:`Task.mistakes`): the scripted model
(:mod:`toolspecs.evals.scripted`) plays them, so the tests prove that a right run passes
and that each mistake fails the check meant to catch it. They are not shown to a real
model.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from toolspecs.agents.testing import Reply, message_text

if TYPE_CHECKING:
    from toolspecs.evals.world import World

__all__ = [
    "SPECS",
    "TECHNIQUES",
    "Check",
    "Conversation",
    "Ending",
    "Script",
    "Task",
    "Turn",
    "any_of",
    "matches",
    "mentions",
    "mentions_number",
]

SPECS = ("google_calendar", "gmail", "arxiv", "wolfram_alpha")
"""The specs a task may use, by their entry point names."""

TECHNIQUES = {
    "relative dates": "times in words ('tomorrow 4pm') read in the calendar's zone",
    "partial update": "a change to part of a draft or event keeps the rest",
    "recovery": "a wrong first call whose guidance leads to the right one",
    "large result": "a result longer than the context, stored and searched",
    "no side effect": "nothing sent, deleted or notified that was not asked for",
    "lookup": "facts read from a service and stated in the answer",
    "across specs": "facts from one service used in another",
}
"""What a task exercises (the blog's techniques), for the report's breakdown."""


class Conversation:
    """A conversation as the scripted model sees it: its world and the tools' answers.

    Attributes:
        world: The run's world (its "now", its zone).
        body: The request body as sent.
    """

    def __init__(self, world: World, body: dict[str, Any]) -> None:
        self.world = world
        self.body = body

    @property
    def outputs(self) -> list[str]:
        """The text of every tool answer so far, in order."""
        messages = self.body.get("messages", [])
        return [message_text(m) for m in messages if m.get("role") == "tool"]

    @property
    def last(self) -> str:
        """The last tool answer (``""`` when there is none)."""
        outputs = self.outputs
        return outputs[-1] if outputs else ""

    def tool(self, name: str) -> str:
        """The tool offered whose name is ``name`` or ends with ``_name`` (a prefix)."""
        offered = [t["function"]["name"] for t in self.body.get("tools") or []]
        if name in offered:
            return name
        return next(
            (found for found in offered if found.endswith(f"_{name}")), name
        )  # not offered: the agent's host answers that it has no such tool

    def find(self, pattern: str, text: str | None = None) -> str:
        """The first group (or the match) of ``pattern`` in the tools' answers, newest first.

        Raises:
            LookupError: When no answer has it (the script cannot go on).
        """
        for output in [text] if text is not None else reversed(self.outputs):
            found = re.search(pattern, output, re.IGNORECASE | re.DOTALL)
            if found:
                return str(found.group(1) if found.groups() else found.group(0))
        raise LookupError(f"no tool answer matches {pattern!r}")


Turn: TypeAlias = Reply | Callable[[Conversation], Reply]
Script: TypeAlias = Sequence[Turn]


@dataclasses.dataclass(frozen=True)
class Ending:
    """What a run left behind: the world's state and the agent's final answer."""

    world: World
    answer: str


@dataclasses.dataclass(frozen=True)
class Check:
    """One fact the end of a run must show.

    Args:
        says: The fact, in words (what the report shows when it does not hold).
        holds: Whether the ending shows it.
    """

    says: str
    holds: Callable[[Ending], bool]


@dataclasses.dataclass(frozen=True)
class Task:
    """One request of the suite.

    Args:
        id: ``SPEC.name`` (``across.name`` for a task of several specs), unique.
        specs: The specs whose tools the agent is given.
        request: What the user asks; a function of the world when it names a date or
            an id that the world knows.
        checks: What the end must show, all of it.
        reason: Why the task is in the suite: what a model must get right.
        techniques: Which of :data:`TECHNIQUES` it exercises.
        seed: What the world holds beyond the sandboxes' sample data, added before the run.
        solution: The script of a model that does it right.
        mistakes: Scripts of models that make a classic mistake, by the mistake's name;
            each must fail at least one check.
    """

    id: str
    specs: tuple[str, ...]
    request: str | Callable[[World], str]
    checks: tuple[Check, ...]
    reason: str
    techniques: tuple[str, ...]
    solution: Script
    mistakes: Mapping[str, Script] = dataclasses.field(default_factory=dict)
    seed: Callable[[World], None] | None = None

    def __post_init__(self) -> None:
        unknown = [spec for spec in self.specs if spec not in SPECS]
        strange = [t for t in self.techniques if t not in TECHNIQUES]
        if unknown or strange or not self.checks or not self.specs:
            raise ValueError(
                f"task {self.id}: unknown specs {unknown} or techniques {strange}, "
                "or no checks or specs"
            )

    @property
    def group(self) -> str:
        """The report's group: the spec's name, or ``across`` for several."""
        return self.specs[0] if len(self.specs) == 1 else "across"

    def words(self, world: World) -> str:
        """The request as the user writes it in ``world``."""
        return self.request if isinstance(self.request, str) else self.request(world)

    def judge(self, ending: Ending) -> list[str]:
        """What the ending does not show (empty: the run passed).

        A check that raises does not hold, and says why: one task's broken check (or an
        ending no check foresaw) fails that run, not the suite.
        """
        failed = []
        for check in self.checks:
            try:
                held = check.holds(ending)
            except Exception as exc:
                failed.append(f"{check.says} (the check raised {type(exc).__name__}: {exc})")
                continue
            if not held:
                failed.append(check.says)
        return failed


def _plain(text: str) -> str:
    """Lowercase, with runs of spaces and the thousands' separators agents write folded."""
    text = re.sub(r"(?<=\d)[,\u202f\u00a0 ](?=\d{3}\b)", "", text)
    return re.sub(r"\s+", " ", text).lower()


def mentions(*phrases: str) -> Callable[[Ending], bool]:
    """A check's test: the answer mentions every one of ``phrases`` (case and spacing aside)."""
    return lambda ending: all(_plain(p) in _plain(ending.answer) for p in phrases)


def mentions_number(value: float, tolerance: float = 0.0) -> Callable[[Ending], bool]:
    """A check's test: the answer has a number within ``tolerance`` (relative) of ``value``."""

    def holds(ending: Ending) -> bool:
        for found in re.findall(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", _plain(ending.answer)):
            number = float(found)
            if number == value or abs(number - value) <= abs(value) * tolerance:
                return True
        return False

    return holds


def matches(pattern: str) -> Callable[[Ending], bool]:
    """A check's test: ``pattern`` (a regex) is in the answer, read as :func:`mentions` reads it.

    For a fact that a bare number would pass too loosely: section 13, not any 13.
    """
    compiled = re.compile(pattern, re.IGNORECASE)
    return lambda ending: compiled.search(_plain(ending.answer)) is not None


def any_of(tests: Sequence[Callable[[Ending], bool]]) -> Callable[[Ending], bool]:
    """A check's test that holds when any of ``tests`` does."""
    return lambda ending: any(test(ending) for test in tests)
