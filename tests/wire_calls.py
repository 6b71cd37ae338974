"""Tool calls on the user's path, counted: calls, internal errors, wrong answers.

The wire tier (``tests/arxiv/test_arxiv_wire.py``, ``tests/wolfram_alpha/test_wolfram_wire.py``)
calls every tool through ``tool.call`` as a host does, with the spec built as a user builds
it and the service faked only at the wire. :class:`Tally` makes each call, checks its
answer against what the fake holds, and counts; a check that fails fails the test at once,
with the answer shown. Each module's counts are written to the terminal at its end (with
``-n 0``) and appended to ``$TOOLSPECS_WIRE_TALLY`` when that names a file.
Imported as ``wire_calls`` (tests/ is on the path of every test).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

INTERNAL = "internal error"


@dataclass
class Tally:
    """The calls of one module: how many, which were internal errors, which were wrong."""

    service: str
    calls: int = 0
    internal_errors: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    called: list[str] = field(default_factory=list)  # the tools' names, in call order

    def call(
        self,
        tool: Any,
        expect: Iterable[str] = (),
        *,
        error: bool = False,
        absent: Iterable[str] = (),
        **arguments: Any,
    ) -> str:
        """``tool.call(**arguments)``; its text, checked, counted.

        Args:
            tool: A tool of ``spec.to_tool_list(...)``.
            expect: Pieces of text the answer must hold (the fake's data).
            error: Whether the answer must be guidance (``is_error``) rather than a result.
            absent: Pieces the answer must not hold (a secret, another host).
            **arguments: The tool's arguments, as an agent sends them.
        """
        return self.check(tool, tool.call(**arguments), expect, error, absent, arguments)

    async def acall(
        self,
        tool: Any,
        expect: Iterable[str] = (),
        *,
        error: bool = False,
        absent: Iterable[str] = (),
        **arguments: Any,
    ) -> str:
        """:meth:`call` through ``await tool.acall(**arguments)``, the async hosts' path."""
        output = await tool.acall(**arguments)
        return self.check(tool, output, expect, error, absent, arguments)

    def check(
        self,
        tool: Any,
        output: Any,
        expect: Iterable[str],
        error: bool,
        absent: Iterable[str],
        arguments: dict[str, Any],
    ) -> str:
        """Count one call's ``output`` and check it; its text."""
        self.calls += 1
        self.called.append(tool.metadata.name)
        text = str(output.content)
        name = f"{tool.metadata.name}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"
        if INTERNAL in text.lower():
            self.internal_errors.append(name)
            raise AssertionError(f"{name} answered with an internal error:\n{text}")
        missing = [piece for piece in expect if piece not in text]
        present = [piece for piece in absent if piece in text]
        if bool(output.is_error) != error or missing or present:
            self.wrong.append(name)
            raise AssertionError(
                f"{name}: is_error={output.is_error} (wanted {error}), missing {missing}, "
                f"holding {present}:\n{text}"
            )
        return text

    @contextmanager
    def calling_every(self, tools: Iterable[str]) -> Iterator[None]:
        """Check that the block calls each of ``tools`` (a spec's, read from the spec).

        The wire tier calls every tool: a tool added to the spec fails here until the
        block makes a call of it.
        """
        start = len(self.called)
        yield
        missing = sorted(set(tools) - set(self.called[start:]))
        assert not missing, f"no call of {missing} on the wire: add one to this test"

    def report(self) -> str:
        """One line: the counts."""
        return (
            f"{self.service} on the wire: {self.calls} calls, "
            f"{len(self.internal_errors)} internal errors, {len(self.wrong)} wrong answers"
        )

    def publish(self, config: Any) -> None:
        """Write :meth:`report` to the terminal and to ``$TOOLSPECS_WIRE_TALLY``."""
        line = self.report()
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        capture = config.pluginmanager.get_plugin("capturemanager")
        if reporter is not None and capture is not None:
            with capture.global_and_fixture_disabled():
                reporter.write_line(f"\n{line}")
        target = os.environ.get("TOOLSPECS_WIRE_TALLY")
        if target:
            with open(target, "a", encoding="utf-8") as out:
                out.write(line + "\n")
