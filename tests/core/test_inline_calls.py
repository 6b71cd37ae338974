"""A function that does no I/O runs on the caller's thread, still under its deadline (issue 14).

``@tool(blocking=False)`` (and the spec's stored-result reader) promise that nothing in
the call waits: the guard then calls it where it is called instead of handing it to a
worker thread, which cost more than the rest of a trivial call. The deadline still holds:
the call sees it through ``deadline.remaining()``, and the one thing it may wait for, the
call lock of a spec whose client is not thread-safe, it waits for no longer than that.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, ClassVar

from toolspecs.core import ToolSpec, tool
from toolspecs.core.deadline import remaining
from toolspecs.core.errors import ToolGuidance


class LocalSpec(ToolSpec):
    """A tool that only computes, one that waits for a service, and a large result."""

    spec_functions: ClassVar[list[str]] = ["add", "wait", "report"]
    service_name = "The counter"

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.left: list[float | None] = []
        self.release = threading.Event()
        self.guided: list[threading.Thread] = []

    @tool(read_only=True, open_world=False, blocking=False)
    def add(self, a: int, b: int) -> str:
        """Add two integers.

        Args:
            a: The first.
            b: The second.
        """
        self.threads.append(threading.current_thread())
        self.left.append(remaining())
        return str(a + b)

    @tool(read_only=True)
    def wait(self) -> str:
        """Wait until the test lets go (a service that does not answer)."""
        self.release.wait(30)
        return "done"

    @tool(read_only=True, large_output=True)
    def report(self) -> str:
        """A long report."""
        return "\n\n".join(f"Line {i}: the quarterly numbers of widget {i}." for i in range(400))

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None:
        """Record where the failure was turned into guidance (the call's own thread)."""
        self.guided.append(threading.current_thread())
        return super().guidance_for(exc)


class LockedSpec(LocalSpec):
    """The same, with a client that is not thread-safe: one call at a time."""

    thread_safe = False


def tools(spec: ToolSpec) -> dict[str, Any]:
    return {t.metadata.name: t for t in spec.to_tool_list()}


def test_a_non_blocking_tool_runs_on_the_callers_thread_under_its_deadline():
    # Before: every sync call went to a worker thread, and ``blocking=`` did not exist.
    spec = LocalSpec()
    spec.call_deadline = 20
    add = tools(spec)["add"]
    assert add.call(a=1, b=2).content == "3"
    assert add.fn(a=2, b=2) == "4"
    assert spec.threads == [threading.current_thread()] * 2
    assert all(left is not None and 0 < left <= 20 for left in spec.left)
    assert remaining() is None  # the call's deadline ends with it


def test_an_async_call_of_a_non_blocking_tool_stays_in_the_event_loop_thread():
    spec = LocalSpec()
    add = tools(spec)["add"]

    async def call() -> tuple[str, threading.Thread]:
        return (await add.acall(a=1, b=2)).content, threading.current_thread()

    text, loop_thread = asyncio.run(call())
    assert text == "3" and spec.threads == [loop_thread]


def test_a_tool_that_may_block_still_runs_in_a_worker():
    spec = LocalSpec()
    spec.call_deadline = 0.3
    listed = tools(spec)
    try:
        stuck = listed["wait"].call()
        assert stuck.is_error and "did not finish within its 0.3 s deadline" in stuck.content
    finally:
        spec.release.set()


def test_the_stored_result_reader_runs_on_the_callers_thread():
    spec = LocalSpec()
    listed = tools(spec)
    assert "stored as result 1" in listed["report"].call().content
    found = listed["read_stored_result"].call(query="widget 17")
    assert not found.is_error and "widget 17" in found.content
    empty = listed["read_stored_result"].call(query=" ")  # guidance, made where it ran
    assert empty.is_error and "The query is empty" in empty.content
    assert spec.guided == [threading.current_thread()]


def test_a_non_blocking_tool_waits_for_a_stuck_calls_lock_no_longer_than_its_deadline():
    # A stuck call of a spec that is not thread-safe holds its call lock past its deadline.
    # The next call must not wait for that lock longer than its own deadline.
    spec = LockedSpec()
    spec.call_deadline = 0.3
    listed = tools(spec)
    try:
        stuck = listed["wait"].call()
        assert stuck.is_error and "deadline" in stuck.content
        waited = listed["add"].call(a=1, b=2)
        assert waited.is_error and "did not finish within its 0.3 s deadline" in waited.content
        assert isinstance(waited.exception, ToolGuidance) and waited.exception.kind == "retry"
        assert spec.threads == []  # the lock was never had: the function did not run
    finally:
        spec.release.set()
    for _ in range(100):  # once the stuck call is let go, the lock is free again
        done = listed["add"].call(a=1, b=2)
        if not done.is_error:
            break
        threading.Event().wait(0.05)
    assert done.content == "3" and spec.threads == [threading.current_thread()]
