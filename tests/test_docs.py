"""Docs are tested: the Python examples of the package pages run as written."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

ROOT = Path(__file__).parents[1]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def python_blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", ["core/README.md"])
def test_offline_examples_run(page):
    blocks = python_blocks(ROOT / page)
    assert blocks, f"{page} has no python example"
    for code in blocks:
        namespace: dict = {}
        exec(compile(code, page, "exec"), namespace)
    tools = namespace["tools"]
    assert [t.metadata.name for t in tools] == ["find_papers", "get_date", "read_stored_result"]
    out = tools[0].call(q="everything", order="newest")
    assert out.is_error is True
    assert out.content == "That query is too broad. Send a few specific keywords."
    assert tools[0].fn(query="proteins") == "..."
    assert tools[0].marks.read_only and tools[0].marks.open_world
    import requests

    redirected = tools[0].spec.guidance_for(requests.TooManyRedirects())
    assert redirected.kind == "retry" and "Papers is redirecting" in redirected.text


RUN = (
    "uv run --no-dev toolspecs call --sandbox google_calendar.create_event "
    'title="Tea with Ada" start_datetime="tomorrow 4pm" attendees=ada@example.com'
)


def quick_start_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first = quick.split("```bash", 1)[1].split("```", 1)[0]
    return [c.split("  #")[0].strip() for c in re.findall(r"^uv run \S+.*$", first, re.M)]


def test_root_readme_quick_start_has_the_two_commands():
    assert quick_start_commands() == [RUN, "uv run pytest"]


# The day the README's printed output was made on (its "tomorrow" is Tuesday 2026-11-24).
README_NOW = "2026-11-23T10:00:00-05:00"


def _quick_start_output(capsys) -> str:
    import shlex

    from toolspecs.cli import main

    argv = shlex.split(quick_start_commands()[0])
    assert argv[:4] == ["uv", "run", "--no-dev", "toolspecs"]
    assert main(argv[4:]) == 0
    return capsys.readouterr().out


@pytest.mark.dates
def test_the_quick_start_run_command_works_with_no_key_and_no_network(
    no_dns, tmp_path, monkeypatch, capsys, now
):
    """A fresh machine: no network (every name lookup fails), no key, no credentials file."""
    for name in ("WOLFRAM_ALPHA_APP_ID", "OPENAI_API_KEY", "TOOLSPECS_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    out = _quick_start_output(capsys)
    assert out.startswith("Event created with id evt0001: «Tea with Ada», ")
    # The sandbox calendar is in New York time: -05:00 in winter, -04:00 in summer.
    zone = ZoneInfo("America/New_York")
    tomorrow = now.astimezone(zone).date() + dt.timedelta(days=1)
    offset = dt.datetime.combine(tomorrow, dt.time(16), zone).strftime("%z")
    assert f"{tomorrow} 16:00 {offset[:3]}:{offset[3:]} (America/New_York)" in out
    assert "No emails were sent" in out
    assert not no_dns, f"the sandbox looked up {no_dns}"
    assert not list(tmp_path.iterdir()), "the sandbox wrote files"


@pytest.mark.dates
def test_the_quick_start_prints_what_the_readme_shows(no_dns, tmp_path, monkeypatch, capsys):
    for name in ("WOLFRAM_ALPHA_APP_ID", "OPENAI_API_KEY", "TOOLSPECS_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOOLSPECS_NOW", README_NOW)
    monkeypatch.chdir(tmp_path)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    shown = quick.split("```text\n", 1)[1].split("```", 1)[0]
    assert _quick_start_output(capsys) == shown


def test_gmail_page_examples_run_offline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no credentials.json: nothing may try to authorize
    namespace: dict = {}
    for code in python_blocks(ROOT / "specs/gmail/README.md"):
        exec(compile(code, "specs/gmail/README.md", "exec"), namespace)
        if "allow_send=False" in code:
            assert "send_draft" not in [t.metadata.name for t in namespace["spec"].to_tool_list()]
    printed = capsys.readouterr().out
    assert "Subject: Lunch on Tuesday?" in printed
    assert printed.rstrip().endswith("ada@example.com")


def test_arxiv_loader_page_examples_run_offline(monkeypatch, capsys):
    from toolspecs.loaders.arxiv import ArxivClient
    from toolspecs.loaders.arxiv.testing import FakeArxiv

    # The first example reads arXiv through the shared client: the fake stands in for it.
    offline = ArxivClient(transport=FakeArxiv().transport())
    monkeypatch.setattr("toolspecs.loaders.arxiv.reader.shared_client", lambda: offline)
    page = "loaders/arxiv/README.md"
    blocks = python_blocks(ROOT / page)
    assert len(blocks) == 2
    for code in blocks:
        namespace: dict = {}
        exec(compile(code, page, "exec"), namespace)
        if "load_full_text" in code:
            assert namespace["pages"][0].metadata["arxiv_id"] == "1706.03762v7"
            assert len(namespace["pages"]) == 31  # the header, then 30 pages
    assert capsys.readouterr().out == "429 HTTP 429 120.0\n"


def test_arxiv_spec_page_example_runs_offline():
    namespace: dict = {}
    for code in python_blocks(ROOT / "specs/arxiv/README.md"):
        exec(compile(code, "specs/arxiv/README.md", "exec"), namespace)
    assert namespace["tools"][0].metadata.name == "arxiv_query"


def test_google_loader_page_says_what_the_gmail_reader_does():
    import inspect
    import types

    from toolspecs.loaders.google import GmailReader
    from toolspecs.loaders.google.testing import sample_mailbox

    page = (ROOT / "loaders/google/README.md").read_text(encoding="utf-8")
    assert "Gmail next" not in page and "(Calendar and Gmail)" in page
    gmail_part = page.split("`GmailReader` takes", 1)[1].split("`GoogleAuth`", 1)[0]
    for method, arguments in re.findall(r"- `(\w+)\(([^)]*)\)`", gmail_part):
        names = [a.split("=")[0].strip() for a in arguments.split(",") if a.strip()]
        assert list(inspect.signature(getattr(GmailReader, method)).parameters)[1:] == names
    # LlamaHub's keywords are taken; its two parser options are accepted and ignored.
    reader = GmailReader(
        query="from:ada",
        max_results=2,
        use_iterative_parser=True,
        results_per_page=5,
        transport=sample_mailbox(),
    )
    docs = reader.load_data()
    assert len(docs) == 2 and docs[0].text.startswith("Message id: ")
    keys = re.findall(r"`(\w+)`", gmail_part.split("metadata keeps", 1)[1])
    assert sorted(docs[0].metadata) == sorted(keys)
    assert isinstance(reader.iter_documents("from:ada", 2), types.GeneratorType)
    (summary,) = reader.summary_documents("from:ada", 1)
    assert "Subject: " in summary.text and "Snippet" in summary.text
