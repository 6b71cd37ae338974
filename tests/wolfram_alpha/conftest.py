"""Fixtures of the Wolfram|Alpha tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_env_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No AppID from the environment: each test gives its own, or none."""
    monkeypatch.delenv("WOLFRAM_ALPHA_APP_ID", raising=False)
    monkeypatch.delenv("WOLFRAMALPHA_API_KEY", raising=False)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The Wolfram client's waits (back-off, Retry-After, the DNS retry), recorded, not slept."""
    slept: list[float] = []
    monkeypatch.setattr("toolspecs.base.net.bounded.time.sleep", slept.append)
    return slept
