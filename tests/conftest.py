"""Shared fixtures. Every test is offline: HTTP is faked at the transport with ``responses``."""

from __future__ import annotations

import os
import time

import pytest

# Our own bugs must surface in tests, not turn into "the tool failed" text.
os.environ["TOOLSPECS_STRICT"] = "1"


@pytest.fixture(autouse=True)
def _strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSPECS_STRICT", "1")


@pytest.fixture(autouse=True)
def no_backoff_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """googleapiclient's retry backoff records its waits instead of sleeping."""
    slept: list[float] = []
    monkeypatch.setattr("googleapiclient.http.time.sleep", slept.append)
    return slept


@pytest.fixture
def server_in_utc(monkeypatch: pytest.MonkeyPatch):
    """The process runs in UTC, so times that must be the user's cannot pass by accident."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def mocked_responses():
    """A ``responses`` mock that fails on any request it was not told about."""
    import responses

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps
