"""What every adapter takes: a spec, several specs, or our tools."""

from __future__ import annotations

import pytest

from toolspecs.adapters import guarded_tools, require
from toolspecs.core import ConfigurationError
from toolspecs.loaders.google.testing import FakeCalendar, sample_mailbox
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec


def names(tools):
    return [t.metadata.name for t in tools]


def test_a_spec_several_specs_or_tools():
    arxiv = ArxivToolSpec()
    assert names(guarded_tools(arxiv)) == names(arxiv.to_tool_list())
    first = arxiv.to_tool_list()[0]
    assert names(guarded_tools(first)) == ["arxiv_query"]
    gmail = GmailToolSpec(transport=sample_mailbox()).to_tool_list(prefix="gmail_")
    mixed = guarded_tools([arxiv, *gmail])
    assert names(mixed)[:3] == names(arxiv.to_tool_list()) and "gmail_load_data" in names(mixed)


def test_two_tools_of_one_name_say_to_use_a_prefix():
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar())
    gmail = GmailToolSpec(transport=sample_mailbox())
    with pytest.raises(ConfigurationError, match=r"'load_data'.*prefix='gmail_'"):
        guarded_tools([calendar, gmail])


def test_only_our_tools():
    with pytest.raises(ConfigurationError, match="not a toolspecs spec or tool"):
        guarded_tools([object()])


def test_a_missing_host_names_the_extra_to_install():
    with pytest.raises(ImportError, match=r'pip install "toolspecs-core\[nohost\]"'):
        require("no_such_host_library", "nohost")
