"""Hosts that validate a tool's arguments themselves read times as the tool would.

LangChain's ``StructuredTool`` (what llama-index's ``to_langchain_structured_tool()``
makes, and the README recommends) validates the call with the tool's ``fn_schema`` before
calling it, outside our call, where the calendar's zone is not known without a request.
The values it hands on keep what the agent wrote, and the tool reads them again in the
calendar's zone. The spec is built as a user builds it (``creds=``), and only
``httplib2.Http.request`` is faked, by the shipped fake Calendar in New York, on a
machine in UTC.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import httplib2
import pytest
from google.oauth2.credentials import Credentials

from toolspecs.loaders.google.testing import FakeCalendar
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def google(monkeypatch):
    google = FakeCalendar(timezone="America/New_York")
    monkeypatch.setattr(
        httplib2.Http,
        "request",
        lambda self, uri, method="GET", body=None, headers=None, **kw: google.request(
            uri, method, body, headers
        ),
    )
    return google


@pytest.fixture
def tools(google):
    spec = GoogleCalendarToolSpec(creds=Credentials(token="ya29.valid"))  # a fresh spec
    return {t.metadata.name: t for t in spec.to_tool_list(spec.all_functions)}


def created_start(google: FakeCalendar) -> dt.datetime:
    (event,) = google.events.values()
    return dt.datetime.fromisoformat(event["start"]["dateTime"]).astimezone(NEW_YORK)


def tomorrow_at(now: dt.datetime, hour: int) -> dt.datetime:
    day = now.astimezone(NEW_YORK).date() + dt.timedelta(days=1)
    return dt.datetime.combine(day, dt.time(hour), tzinfo=NEW_YORK)


@pytest.mark.dates
def test_tomorrow_4pm_through_llama_index_langchain_bridge(google, tools, now):
    bridge = tools["create_event"].to_langchain_structured_tool()
    bridge.invoke({"title": "Tea", "start_datetime": "tomorrow 4pm"})
    assert created_start(google) == tomorrow_at(now, 16)


@pytest.mark.dates
def test_a_naive_time_through_the_bridge_is_the_calendars(google, tools):
    bridge = tools["create_event"].to_langchain_structured_tool()
    bridge.invoke({"title": "Tea", "start_datetime": "2027-01-05T16:00"})
    assert created_start(google) == dt.datetime(2027, 1, 5, 16, tzinfo=NEW_YORK)


@pytest.mark.dates
def test_a_host_validating_with_fn_schema_then_calling_gets_the_calendars_day(google, tools, now):
    # What any host may do: validate with fn_schema, hand the validated values to the tool.
    tool = tools["load_data"]
    checked = tool.metadata.fn_schema.model_validate({"start_date": "tomorrow"})
    assert google.requests == []  # checking asks Google nothing
    out = tool.call(**{k: getattr(checked, k) for k in checked.model_fields_set})
    assert not out.is_error, out.content
    listed = next(r for r in google.requests if r.path.endswith("/events"))
    start = dt.datetime.fromisoformat(listed.query["timeMin"][0]).astimezone(NEW_YORK)
    assert start.date() == tomorrow_at(now, 0).date()


@pytest.mark.dates
def test_a_host_that_sends_the_validated_call_as_json_sends_what_the_agent_wrote(
    google, tools, now
):
    tool = tools["create_event"]
    checked = tool.metadata.fn_schema.model_validate(
        {"title": "Tea", "start_datetime": "tomorrow 4pm"}
    )
    sent = checked.model_dump(mode="json", exclude_unset=True)
    assert sent["start_datetime"] == "tomorrow 4pm"
    out = tool.call(**sent)
    assert not out.is_error, out.content
    assert created_start(google) == tomorrow_at(now, 16)


def through_bridge(tools, args):
    return tools["create_event"].to_langchain_structured_tool().invoke(args)


def through_our_langchain(tools, args):
    from toolspecs.adapters.langchain import to_langchain_tools

    (tool,) = to_langchain_tools([tools["create_event"]])
    return tool.invoke(args)


def through_smolagents(tools, args):
    from toolspecs.adapters.smolagents import to_smolagents_tools

    (tool,) = to_smolagents_tools([tools["create_event"]])
    return tool(**args)  # smolagents' own Tool.__call__, which checks the inputs


def through_acall(tools, args):
    import asyncio

    return asyncio.run(tools["create_event"].acall(**args))


@pytest.mark.dates
@pytest.mark.parametrize(
    "host", [through_bridge, through_our_langchain, through_smolagents, through_acall]
)
def test_every_host_puts_tomorrow_4pm_in_the_calendars_zone(google, tools, now, host):
    host(tools, {"title": "Tea", "start_datetime": "tomorrow 4pm"})
    assert created_start(google) == tomorrow_at(now, 16)
