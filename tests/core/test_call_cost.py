"""What one call costs, counted not timed (issue 14): objects built, threads started.

A sync call runs in a worker thread under its deadline. The workers are reused from call
to call (starting a thread was most of a trivial call) and bounded, yet a stuck call still
holds only its own: the next call gets another worker and keeps its deadline. Each call builds one
``ToolOutput``, the one it returns.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as dt
import os
import threading
from typing import Any, ClassVar

import pytest
from llama_index.core.tools import types as tool_types

from toolspecs.core import ToolSpec, tool
from toolspecs.core.tool import Workers


class CounterSpec(ToolSpec):
    """A trivial tool, and one that waits until it is let go."""

    spec_functions: ClassVar[list[str]] = ["add", "wait"]
    service_name = "The counter"

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.release = threading.Event()

    @tool(read_only=True)
    def add(self, a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        self.threads.append(threading.current_thread())
        return str(a + b)

    @tool(read_only=True)
    def wait(self) -> str:
        """Wait until the test lets go."""
        self.release.wait(30)
        return "done"


def tools(spec: ToolSpec) -> dict[str, Any]:
    return {t.metadata.name: t for t in spec.to_tool_list()}


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[tool_types.ToolOutput]:
    """Every ``ToolOutput`` built while the test runs."""
    seen: list[tool_types.ToolOutput] = []
    original = tool_types.ToolOutput.__init__

    def counting(self: tool_types.ToolOutput, *args: Any, **kwargs: Any) -> None:
        seen.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(tool_types.ToolOutput, "__init__", counting)
    return seen


def test_each_call_builds_one_tool_output_the_one_it_returns(built):
    spec = CounterSpec()
    add = tools(spec)["add"]
    outs = [add.call(a=1, b=2), asyncio.run(add.acall(a=1, b=2)), spec.call_tool("add", a=1, b=2)]
    assert [out.content for out in outs] == ["3", "3", "3"]
    assert built == outs
    built.clear()
    bad = add.call(a="one", b=2)
    assert bad.is_error and built == [bad]


def test_sync_calls_reuse_a_worker_thread_instead_of_starting_one_each():
    spec = CounterSpec()
    add = tools(spec)["add"]
    assert add.call(a=1, b=2).content == "3"
    workers = {t for t in threading.enumerate() if t.name == "toolspecs-call"}
    for _ in range(5):
        assert add.call(a=1, b=2).content == "3"
    assert threading.current_thread() not in spec.threads  # the deadline still applies
    assert set(spec.threads) <= workers  # idle workers took them: none was started
    assert all(thread.daemon for thread in spec.threads)  # never keeps the process from exiting


def test_a_stuck_call_holds_only_its_own_worker():
    spec = CounterSpec()
    spec.call_deadline = 0.5
    listed = tools(spec)
    try:
        assert listed["add"].call(a=1, b=2).content == "3"
        stuck = listed["wait"].call()  # holds the idle worker past its deadline
        assert stuck.is_error and "deadline" in stuck.content
        assert listed["add"].call(a=2, b=2).content == "4"  # another worker answers
        first, second = spec.threads
        assert first is not second
    finally:
        spec.release.set()


def test_the_workers_are_bounded_and_a_call_dropped_while_queued_never_runs():
    # Before: a new daemon thread for every call that found none idle, without limit.
    workers = Workers(max_threads=2)
    release = threading.Event()
    started = [threading.Event() for _ in range(2)]
    for event in started:
        workers.submit(lambda e=event: (e.set(), release.wait(10)))
    assert all(event.wait(5) for event in started)
    ran: list[str] = []
    queued = workers.submit(ran.append, "dropped")  # both threads are busy: it waits
    later = workers.submit(ran.append, "made")
    assert queued.cancel()  # its caller stopped waiting (a deadline, a cancelled task)
    release.set()
    later.result(timeout=5)
    assert ran == ["made"] and workers._threads == 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_calls_through_its_own_workers():
    # Before: the child inherited the parent's idle inboxes, whose threads it does not
    # have; its call waited out the whole deadline and came back as "did not finish".
    spec = CounterSpec()
    add = tools(spec)["add"]
    assert add.call(a=1, b=2).content == "3"  # a worker is now idle in the parent
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report the call's text, then leave at once
        try:
            text = add.call(a=2, b=3).content
        except BaseException as exc:  # anything, reported to the parent
            text = repr(exc)
        os.write(write, text.encode()[:500])
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        got = answer.read()
    os.waitpid(pid, 0)
    assert got == "5"


class ZoneSpec(ToolSpec):
    """A tool with a date and one without; the spec counts the zone lookups."""

    spec_functions: ClassVar[list[str]] = ["on", "add"]
    service_name = "The zones"

    def __init__(self) -> None:
        self.lookups = 0

    def zone_for_call(self, arguments: Any) -> Any:
        self.lookups += 1
        return super().zone_for_call(arguments)

    @tool(read_only=True, open_world=False)
    def on(self, day: dt.date | None = None) -> str:
        """Say the day.

        Args:
            day: e.g. 'tomorrow'.
        """
        return str(day)

    @tool(read_only=True, open_world=False)
    def add(self, a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        return str(a + b)


@pytest.mark.dates
def test_only_a_tool_with_dates_or_times_sets_up_a_timezone_for_its_call():
    spec = ZoneSpec()
    # Structural, not timed: a model without dates skips the per-call timezone context.
    assert spec.arguments_model("add").toolspecs_reads_times is False
    assert spec.arguments_model("on").toolspecs_reads_times is True
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    assert tools["add"].call(a=1, b=2).content == "3"
    assert spec.lookups == 0
    assert tools["on"].call(day="2026-11-21").content == "2026-11-21"
    tools["on"].call(day="tomorrow")
    assert spec.lookups >= 1  # a relative day is still read in the spec's zone


SPAN: contextvars.ContextVar[str] = contextvars.ContextVar("span", default="none")


class SpanSpec(ToolSpec):
    """A tool that reads the caller's context variable (a host's tracing span)."""

    spec_functions: ClassVar[list[str]] = ["span"]

    @tool(read_only=True)
    def span(self) -> str:
        """The span the call runs in, and on which thread."""
        return f"{SPAN.get()} on {threading.current_thread().name}"


def test_a_call_in_a_worker_sees_the_callers_context_variables():
    found = tools(SpanSpec())["span"]
    token = SPAN.set("sync-request")
    try:
        assert found.call().content == "sync-request on toolspecs-call"
    finally:
        SPAN.reset(token)

    async def served() -> str:
        SPAN.set("async-request")  # this task's own context
        return (await found.acall()).content

    assert asyncio.run(served()) == "async-request on toolspecs-call"
    assert SPAN.get() == "none"  # a worker's context is a copy: nothing leaks back
