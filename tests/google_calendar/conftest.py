import pytest

from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


@pytest.fixture(autouse=True)
def _in_utc(server_in_utc):
    """The process runs in UTC; the fake calendar lives in New York."""


@pytest.fixture
def google():
    return FakeCalendar()


@pytest.fixture
def spec(google):
    return GoogleCalendarToolSpec(transport=google)


@pytest.fixture
def tools(spec):
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}
