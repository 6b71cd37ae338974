"""Docs are tested: the README's "Testing your own agents offline" example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_the_offline_testing_example_runs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Testing your own agents offline", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_every_fake_the_readme_lists_exists():
    import importlib

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Testing your own agents offline", 1)[1].split("\n## ", 1)[0]
    for module, name in re.findall(r"`(toolspecs(?:\.\w+)+)\.(\w+)`", section):
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


def readme_subsection(heading):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"### {heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]


def test_the_openai_sdk_example_runs(capsys):
    (code,) = re.findall(
        r"```python\n(.*?)```",
        readme_subsection("Use it from the OpenAI or Anthropic SDK"),
        re.DOTALL,
    )
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.count("Title: ") == 2


def test_the_readme_shows_a_filled_mailbox_where_gmail_is_faked():
    from toolspecs.loaders.google.testing import FakeGmail, sample_mailbox
    from toolspecs.specs.gmail import GmailToolSpec

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Testing your own agents offline", 1)[1].split("\n## ", 1)[0]
    (row,) = [line for line in section.splitlines() if "`FakeGmail`" in line]
    plug = "GmailToolSpec(transport=sample_mailbox())"
    assert f"`{plug}`" in row and "`FakeGmail()` starts empty" in row
    names = {"GmailToolSpec": GmailToolSpec, "sample_mailbox": sample_mailbox}
    tools = {t.metadata.name: t for t in eval(plug, names).to_tool_list()}
    assert "Subject: Lunch on Tuesday?" in tools["search_messages"].call(query="").content
    empty = GmailToolSpec(transport=FakeGmail()).to_tool_list()
    assert (
        "Subject:"
        not in next(t for t in empty if t.metadata.name == "search_messages")(query="").content
    )
