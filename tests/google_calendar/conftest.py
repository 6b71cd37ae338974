import time

import pytest

from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture(autouse=True)
def server_in_utc(monkeypatch):
    """The process runs in UTC; the calendar lives in New York."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def google():
    return FakeCalendar()


@pytest.fixture
def spec(google):
    return GoogleCalendarToolSpec(http=google)


@pytest.fixture
def tools(spec):
    return {t.metadata.name: t for t in spec.to_tool_list()}
