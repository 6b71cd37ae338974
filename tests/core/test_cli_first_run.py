"""The first ten minutes at the command line: help, versions, the sandbox, spec options.

Issue 13: `--help` imported llama-index before reading the arguments; there was no
`--version`, no way to try a tool without keys, no way to give a spec option, and a tool
left out by the spec's options was "no tool" with no word of the flag that offers it.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
import subprocess
import sys
from importlib.metadata import entry_points, version
from zoneinfo import ZoneInfo

import pytest
import responses

from toolspecs.cli import main
from toolspecs.server import SANDBOXES
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.google_calendar.sandbox import CALENDAR_ZONE

# -- --help and --version answer without llama-index ---------------------------------------

# What the console script `toolspecs` runs: its entry point, loaded as pip's launcher does.
PROBE = """
import sys
from importlib.metadata import entry_points
(script,) = entry_points(group="console_scripts", name="toolspecs")
main = script.load()
try:
    main(sys.argv[1:])
except SystemExit as done:
    assert done.code in (0, None), done.code
heavy = sorted(m for m in sys.modules if m.split(".")[0] == "llama_index")
print("LLAMA_INDEX_MODULES", len(heavy), heavy[:3], file=sys.stderr)
"""


@pytest.mark.parametrize("flag", ["--help", "--version", "call --help"])
def test_help_and_version_do_not_import_llama_index(flag):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *flag.split()],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "LLAMA_INDEX_MODULES 0 []" in done.stderr
    assert "toolspecs" in done.stdout


def test_version_names_core_and_each_installed_spec(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"toolspecs-core {version('toolspecs-core')}"
    for spec in entry_points(group="toolspecs.specs"):
        assert spec.dist is not None
        assert any(
            line.split() == [spec.name, spec.dist.name, spec.dist.version] for line in lines[1:]
        )


def test_help_shows_the_examples(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "Examples:\n  toolspecs call --sandbox gmail.search_messages" in out
    assert "toolspecs call arxiv.arxiv_query --json" in out


def test_call_help_says_how_values_are_read(capsys):
    with pytest.raises(SystemExit):
        main(["call", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Arguments are key=value pairs" in out
    assert '"5" is 5' in out
    assert '"a, b" or \'["a", "b"]\' is a list' in out
    assert "--json gives the arguments as one JSON object" in out
    assert "--option key=value" in out
    assert "--sandbox" in out


# -- --sandbox: every built-in spec, no keys, no network --------------------------------------


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """A fresh machine: no network, no keys in the environment, no token files about.

    This machine is reached (the sandbox's fakes listen on 127.0.0.1); any other address
    is refused, and no name is looked up.
    """
    lookup, connect = socket.getaddrinfo, socket.socket.connect

    def lookup_loopback(host, *args, **kwargs):
        if host != "127.0.0.1":
            raise OSError(f"no network in this test (looked up {host!r})")
        return lookup(host, *args, **kwargs)

    def connect_loopback(sock, address):
        if not (isinstance(address, tuple) and address[0] == "127.0.0.1"):
            raise OSError(f"no network in this test (connected to {address!r})")
        return connect(sock, address)

    monkeypatch.setattr(socket, "getaddrinfo", lookup_loopback)
    monkeypatch.setattr(socket.socket, "connect", connect_loopback)
    for name in ("WOLFRAM_ALPHA_APP_ID", "GOOGLE_APPLICATION_CREDENTIALS", "TOOLSPECS_TIMEZONE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


FIRST_CALLS = {
    "arxiv": (["arxiv.arxiv_query", "query=attention is all you need", "max_results=1"],
              "Title: Attention Is All You Need"),
    "gmail": (["gmail.search_messages", "query=lunch", "max_results=2"],
              "Subject: Lunch on Tuesday?"),
    "google_calendar": (
        ["google_calendar.create_event", "title=Tea with Ada", "start_datetime=tomorrow 4pm",
         "attendees=ada@example.com"],
        "Event created with id ",
    ),
    "wolfram_alpha": (["wolfram_alpha.wolfram_alpha_query", "query=2+2"], "Result:"),
}  # fmt: skip


def test_every_sandbox_has_a_first_call():
    assert sorted(FIRST_CALLS) == sorted(SANDBOXES)


@pytest.mark.dates
@pytest.mark.parametrize("name", sorted(FIRST_CALLS))
def test_call_sandbox_works_offline_without_keys(offline, capsys, name):
    argv, expected = FIRST_CALLS[name]
    assert main(["call", "--sandbox", *argv]) == 0
    assert expected in capsys.readouterr().out


@pytest.mark.dates
@pytest.mark.faketime
def test_the_sandbox_reads_inputs_as_the_agent_sends_them(offline, capsys):
    # Natural-language times and one address where a list is typed, as an LLM sends them.
    argv = ["call", "--sandbox", "google_calendar.find_free_time", "attendees=ada@example.com"]
    argv += ["start_datetime=tomorrow 9am", "end_datetime=tomorrow 5pm", "min_minutes=60"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Free windows of at least 60 minutes for you and ada@example.com")
    assert "(America/New_York)" in out


@pytest.mark.dates
def test_describe_and_schema_take_the_sandbox_and_policy_flags(offline, capsys):
    assert main(["describe", "--sandbox", "google_calendar"]) == 0
    assert "delete_event" not in capsys.readouterr().out
    assert main(["describe", "google_calendar", "--sandbox", "--allow-destructive"]) == 0
    assert "delete_event  (" in capsys.readouterr().out
    assert main(["schema", "gmail", "--no-allow-send", "--format", "openai"]) == 0
    names = [t["function"]["name"] for t in json.loads(capsys.readouterr().out)]
    assert "create_draft" in names and "send_draft" not in names


# -- spec options ------------------------------------------------------------------------------


def test_option_reaches_the_constructor_with_or_without_the_spec_name(
    mocked_responses, capsys, monkeypatch
):
    monkeypatch.setattr(ArxivToolSpec, "call_deadline", 5.0)
    feed = '<feed xmlns="http://www.w3.org/2005/Atom"></feed>'
    mocked_responses.add(responses.GET, "https://export.arxiv.org/api/query", body=feed)
    for option in ("max_results=3", "arxiv.max_results=3"):
        argv = ["call", "arxiv.arxiv_query", "--option", option, "query=electron"]
        assert main(argv) in (0, 1)
    assert [c.request.url.count("max_results=3") for c in mocked_responses.calls] == [1, 1]


def test_pairs_after_an_option_are_still_arguments(offline, capsys):
    argv = ["call", "--sandbox", "gmail.search_messages", "--no-allow-send", "query=lunch"]
    assert main(argv) == 0
    assert "Subject: Lunch on Tuesday?" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--option", "colour=red"], "spec 'arxiv' has no option 'colour'; its options: max_results"),
        (["--option", "max_results=many"], "--option arxiv.max_results: the value cannot be read as a whole number"),
        (["--option", "gmail.max_results=3"], "--option gmail.max_results is for a spec that is not named here; named: arxiv"),
        (["--option", "=3"], "--option '=3' is not NAME.key=value"),
        (["--timezone", "Mars/Olympus"], "not an IANA timezone"),
        (["--sandbox", "--option", "transport=x"], "spec 'arxiv' has no option 'transport'"),
    ],
)  # fmt: skip
def test_a_wrong_option_is_one_line_and_exit_2(capsys, argv, message):
    assert main(["call", "arxiv.arxiv_query", *argv, "query=x"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1


# -- a tool the spec's options leave out --------------------------------------------------------


@pytest.mark.dates
def test_a_tool_left_out_by_policy_names_the_flag(offline, capsys):
    assert main(["call", "--sandbox", "google_calendar.delete_event", "event_id=x"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "toolspecs: google_calendar.delete_event is left out by the spec's options "
        "(allow_destructive=False): it is destructive (it may delete or overwrite what "
        "exists); add --allow-destructive to call it\n"
    )
    argv = ["call", "--sandbox", "gmail.send_draft", "--no-allow-send", "draft_id=r-1"]
    assert main(argv) == 2
    assert "(allow_send=False)" in (err := capsys.readouterr().err)
    assert err.endswith("; add --allow-send to call it\n")


@pytest.mark.dates
def test_with_the_flag_the_tool_is_called(offline, capsys, now):
    # The sandbox books a 09:30 standup on every working day from tomorrow (New York).
    day = now.astimezone(ZoneInfo(CALENDAR_ZONE)).date() + dt.timedelta(days=1)
    while day.weekday() >= 5:
        day += dt.timedelta(days=1)
    standup = f"sbx{day:%Y%m%d}0930"
    argv = ["call", "--sandbox", "google_calendar.delete_event", "--allow-destructive"]
    assert main([*argv, f"event_id={standup}"]) == 0
    assert standup in capsys.readouterr().out


@pytest.mark.dates
def test_a_tool_that_does_not_exist_still_lists_the_tools(offline, capsys):
    assert main(["call", "--sandbox", "google_calendar.delete_everything"]) == 2
    assert "has no tool 'delete_everything'; its tools: load_data" in capsys.readouterr().err
