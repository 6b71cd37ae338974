"""Every tool call ends by its spec's deadline, with guidance that says when to retry."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import pytest

from toolspecs.core import RetryLater, ToolGuidance, ToolSpec, tool
from toolspecs.core.deadline import remaining, running


class SlowSpec(ToolSpec):
    """A service that answers after ``delay`` seconds."""

    spec_functions: ClassVar[list] = ["lookup", "save", "alookup"]
    service_name = "The slow service"

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.left: list[float | None] = []
        self.finished = threading.Event()

    @tool(read_only=True)
    def lookup(self, query: str) -> str:
        """Look something up.

        Args:
            query: What to look up.
        """
        self.left.append(remaining())
        threading.Event().wait(self.delay)
        self.finished.set()
        return f"found {query}"

    @tool(read_only=False, destructive=False)
    def save(self, text: str) -> str:
        """Save a text.

        Args:
            text: What to save.
        """
        threading.Event().wait(self.delay)
        return "saved"

    @tool(read_only=True)
    async def alookup(self, query: str) -> str:
        """Look something up, asynchronously.

        Args:
            query: What to look up.
        """
        await asyncio.sleep(self.delay)
        return f"found {query}"


def tools(spec: ToolSpec) -> dict:
    return {t.metadata.name: t for t in spec.to_tool_list()}


def test_a_call_past_its_deadline_is_guidance_to_retry_later():
    spec = SlowSpec(delay=20)
    spec.call_deadline = 0.5
    started = time.monotonic()
    out = tools(spec)["lookup"].call(query="x")
    assert time.monotonic() - started < 5
    assert out.is_error is True
    assert "did not finish within its 0.5 s deadline" in out.content
    assert "The slow service is slow or not answering" in out.content
    assert isinstance(out.exception, RetryLater) and out.exception.retry_after == 60


def test_fn_raises_the_same_guidance_and_a_write_says_to_check_before_retrying():
    spec = SlowSpec(delay=20)
    spec.call_deadline = 0.3
    with pytest.raises(ToolGuidance) as caught:
        tools(spec)["save"].fn(text="x")
    assert caught.value.kind == "retry"
    assert "check" in caught.value.next_step and "done twice" in caught.value.next_step


def test_a_call_within_its_deadline_sees_the_time_left_and_answers():
    spec = SlowSpec(delay=0)
    spec.call_deadline = 10
    out = tools(spec)["lookup"].call(query="x")
    assert out.content == "found x"
    (left,) = spec.left
    assert left is not None and 5 < left <= 10  # the client is told to end a little early


def test_no_deadline_means_no_time_left_to_report():
    spec = SlowSpec(delay=0)
    spec.call_deadline = None
    assert tools(spec)["lookup"].call(query="x").content == "found x"
    assert spec.left == [None]


def test_async_calls_have_the_same_deadline():
    spec = SlowSpec(delay=20)
    spec.call_deadline = 0.3
    listed = tools(spec)

    async def both():
        return await asyncio.gather(
            listed["lookup"].acall(query="x"), listed["alookup"].acall(query="y")
        )

    started = time.monotonic()
    sync_fn, async_fn = asyncio.run(both())
    assert time.monotonic() - started < 5
    for out in (sync_fn, async_fn):
        assert out.is_error and "deadline" in out.content


def test_a_nested_call_keeps_the_earlier_deadline():
    with running(1.0), running(100.0):
        left = remaining()
    assert left is not None and left <= 1.0
    assert remaining() is None


class TakingTurnsSpec(SlowSpec):
    """A spec whose client is not thread-safe: its calls wait for one another."""

    thread_safe = False


def test_a_write_abandoned_while_waiting_for_its_turn_is_never_made():
    spec = TakingTurnsSpec(delay=1.5)
    spec.call_deadline = 0.5
    saves = []
    spec.save = lambda text: saves.append(text) or "saved"  # type: ignore[method-assign]
    listed = tools(spec)
    first = threading.Thread(target=listed["lookup"].call, kwargs={"query": "slow"})
    first.start()  # holds the spec's turn for 1.5 s, past its own deadline
    threading.Event().wait(0.1)
    out = listed["save"].call(text="draft")  # waits for the turn, and gives up at 0.5 s
    assert out.is_error and "deadline" in out.content
    first.join()
    assert spec.finished.wait(5)
    threading.Event().wait(0.3)  # the turn is free: the abandoned save would run now
    assert saves == []


def test_async_calls_queued_for_their_turn_keep_their_own_deadline_and_are_not_made_late():
    spec = TakingTurnsSpec(delay=3)
    spec.call_deadline = 0.5
    listed = tools(spec)

    async def six():
        calls = [listed["lookup"].acall(query=str(n)) for n in range(6)]
        return await asyncio.gather(*calls)

    started = time.monotonic()
    outs = asyncio.run(six())
    # Each call's deadline runs from when it was made, not from when its turn came
    # (queued one after another, the six took 6 x 0.5 s).
    assert time.monotonic() - started < 2.0
    assert all(out.is_error and "deadline" in out.content for out in outs)
    threading.Event().wait(3.5)  # the first call ends; the queued ones get their turn
    assert len(spec.left) == 1  # ... and are not made: their callers were told


class _NoExecutor(ThreadPoolExecutor):
    """An event loop's default executor that fails the test if anything is sent to it."""

    def submit(self, *args, **kwargs):  # type: ignore[override]
        raise AssertionError("the call went through the event loop's executor")


@pytest.mark.parametrize("spec_class", [SlowSpec, TakingTurnsSpec])
def test_an_async_call_of_a_sync_tool_makes_one_thread_hop(spec_class):
    # One hop: the event loop hands the call to the worker it runs in (the same pool as a
    # sync caller's; a spec that is not thread-safe takes turns by its lock there), never
    # through the loop's executor first.
    spec = spec_class(delay=0)
    spec.call_deadline = 10
    ran_on: list[str] = []
    spec.save = lambda text: ran_on.append(threading.current_thread().name) or "saved"  # type: ignore[method-assign]

    async def call():
        asyncio.get_running_loop().set_default_executor(_NoExecutor())
        return await tools(spec)["save"].acall(text="x")

    out = asyncio.run(call())
    assert out.content == "saved" and not out.is_error
    assert len(ran_on) == 1 and ran_on[0] != threading.current_thread().name
    assert ran_on == ["toolspecs-call"]  # a worker, as a sync caller's call


def test_an_async_call_cancelled_while_waiting_for_its_turn_is_never_made():
    spec = TakingTurnsSpec(delay=1.0)
    spec.call_deadline = 10
    saves: list[str] = []
    spec.save = lambda text: saves.append(text) or "saved"  # type: ignore[method-assign]
    listed = tools(spec)

    async def cancel_the_save():
        first = asyncio.ensure_future(listed["lookup"].acall(query="slow"))  # takes the turn
        await asyncio.sleep(0.1)
        save = asyncio.ensure_future(listed["save"].acall(text="draft"))  # waits for it
        await asyncio.sleep(0.1)
        save.cancel()
        with pytest.raises(asyncio.CancelledError):
            await save
        await first

    asyncio.run(cancel_the_save())
    assert spec.finished.is_set()
    threading.Event().wait(0.3)  # the turn is free: the cancelled save would run now
    assert saves == []
