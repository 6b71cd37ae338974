"""`toolspecs serve`: which specs, with which options, under which tool names."""

from __future__ import annotations

import pytest

from toolspecs.cli import build_parser, main
from toolspecs.cli.assemble import ServeSettings, build_specs, prefixes, served_tools
from toolspecs.cli.commands import SERVING_YOUNG_THRESHOLD
from toolspecs.core import ConfigurationError
from toolspecs.server import SANDBOXES, sandbox_spec
from toolspecs.specs.google_calendar.sandbox import sample_calendar


def names(settings: ServeSettings) -> list[str]:
    return [t.metadata.name for t in served_tools(build_specs(settings), settings.prefixes)]


def sandbox(*specs: str, **more) -> ServeSettings:
    return ServeSettings(names=list(specs), sandbox=True, **more)


# -- tool names ---------------------------------------------------------------------------


@pytest.mark.dates
def test_specs_that_share_a_tool_name_both_carry_their_name():
    served = names(sandbox("gmail", "google_calendar", "arxiv"))
    assert "gmail_load_data" in served and "gmail_read_stored_emails" in served
    assert "google_calendar_load_data" in served and "google_calendar_get_date" in served
    assert "gmail_send_draft" in served  # every tool of the spec, not only the shared ones
    assert "arxiv_query" in served and "read_stored_papers" in served  # no clash: as it is
    assert "load_data" not in served


@pytest.mark.dates
def test_the_rule_does_not_depend_on_the_order():
    one = names(sandbox("gmail", "google_calendar"))
    other = names(sandbox("google_calendar", "gmail"))
    assert sorted(one) == sorted(other)


@pytest.mark.dates
def test_one_spec_keeps_its_names():
    served = names(sandbox("google_calendar"))
    assert (served[0], served[-1]) == ("load_data", "read_stored_events")


@pytest.mark.dates
def test_a_prefix_given_wins_and_can_keep_names():
    served = names(sandbox("gmail", "google_calendar", prefixes=["google_calendar="]))
    assert "load_data" in served and "gmail_load_data" in served  # calendar kept its names
    served = names(sandbox("gmail", "google_calendar", prefixes=["gmail=mail_"]))
    assert "mail_load_data" in served and "load_data" in served


@pytest.mark.dates
def test_a_clash_that_remains_is_refused_naming_prefix():
    with pytest.raises(ConfigurationError, match=r"'load_data'; give one a prefix, e.g. --prefix"):
        names(sandbox("gmail", "google_calendar", prefixes=["gmail=", "google_calendar="]))


def test_the_rule_in_isolation():
    found = prefixes({"a": ["x", "y"], "b": ["y"], "c": ["z"]}, {})
    assert found == {"a": "a_", "b": "b_", "c": ""}
    # b is given "a_" as prefix: its a_y meets nothing, and a keeps x, y.
    assert prefixes({"a": ["x", "y"], "b": ["y"]}, {"b": "a_"}) == {"a": "", "b": "a_"}


# -- options ------------------------------------------------------------------------------


@pytest.mark.dates
def test_shared_flags_reach_every_spec_that_takes_them():
    specs = build_specs(
        sandbox(
            "gmail",
            "google_calendar",
            "arxiv",
            allow_send=False,
            allow_destructive=True,
            timezone="Europe/Paris",
        )
    )
    assert specs["gmail"].allow_send is False
    assert specs["google_calendar"].allow_destructive is True
    assert specs["google_calendar"].timezone == "Europe/Paris"
    assert specs["arxiv"].timezone == "Europe/Paris"  # the ToolSpec setting (its get_date)
    served = [t.metadata.name for t in served_tools(specs, [])]
    assert "gmail_send_draft" not in served and "gmail_create_draft" in served


@pytest.mark.dates
def test_allow_destructive_offers_the_destructive_tools():
    assert "delete_event" not in names(sandbox("google_calendar", tools=["all"]))
    assert "delete_event" in names(
        sandbox("google_calendar", allow_destructive=True, tools=["all"])
    )
    # Allowed is not chosen: the default set stays lean.
    assert "delete_event" not in names(sandbox("google_calendar", allow_destructive=True))


def test_options_are_read_as_tool_arguments_are():
    specs = build_specs(
        sandbox(
            "arxiv",
            "wolfram_alpha",
            "gmail",
            options=[
                "arxiv.max_results=5",
                'wolfram_alpha.api_params={"units": "metric"}',
                "wolfram_alpha.timeout=12.5",
                "gmail.allow_send=no",
                "gmail.auth_flow=console",
            ],
        )
    )
    assert specs["arxiv"].max_results == 5
    assert specs["wolfram_alpha"]._api_params == {"units": "metric"}
    assert specs["wolfram_alpha"].timeout == 12.5
    assert specs["gmail"].allow_send is False


def test_an_option_wins_over_a_shared_flag():
    specs = build_specs(sandbox("gmail", allow_send=False, options=["gmail.allow_send=true"]))
    assert specs["gmail"].allow_send is True


def test_credentials_as_arguments_then_the_environment(monkeypatch):
    monkeypatch.setenv("WOLFRAM_ALPHA_APP_ID", "from-the-environment")
    (spec,) = build_specs(ServeSettings(names=["wolfram_alpha"])).values()
    assert spec.token == "from-the-environment"
    given = ServeSettings(names=["wolfram_alpha"], options=["wolfram_alpha.app_id=given"])
    (spec,) = build_specs(given).values()
    assert spec.token == "given"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (ServeSettings(names=["nope"]), "no spec named 'nope'; installed specs: arxiv"),
        (ServeSettings(names=["arxiv", "arxiv"]), "'arxiv' is named twice"),
        (
            ServeSettings(names=["arxiv"], options=["arxiv.colour=red"]),
            "spec 'arxiv' has no option 'colour'; its options: max_results",
        ),
        (
            ServeSettings(names=["arxiv"], options=["arxiv.transport=x"]),
            "spec 'arxiv' has no option 'transport'",
        ),
        (
            ServeSettings(names=["arxiv"], options=["gmail.max_results=3"]),
            "--option gmail.max_results is for a spec that is not named here; named: arxiv",
        ),
        (
            ServeSettings(names=["arxiv", "gmail"], options=["arxiv=3"]),
            "--option 'arxiv=3' is not NAME.key=value; write e.g. --option arxiv.max_results=5",
        ),
        (  # with one spec, key=value is for it
            ServeSettings(names=["arxiv"], options=["arxiv=3"]),
            "spec 'arxiv' has no option 'arxiv'; its options: max_results",
        ),
        (
            ServeSettings(names=["arxiv"], options=["arxiv.max_results=many"]),
            "--option arxiv.max_results: the value cannot be read as a whole number",
        ),
        (
            ServeSettings(names=["wolfram_alpha"], options=["wolfram_alpha.api_params={units"]),
            "is not valid JSON",
        ),
        (ServeSettings(names=["arxiv"], timezone="Mars/Olympus"), "not an IANA timezone"),
    ],
)
def test_a_wrong_setting_says_what_to_do(settings, message):
    with pytest.raises(ConfigurationError) as raised:
        served_tools(build_specs(settings), settings.prefixes)
    assert message in str(raised.value)


def test_a_wrong_prefix_says_what_to_do():
    specs = build_specs(sandbox("arxiv"))
    with pytest.raises(ConfigurationError, match="'arxiv' is not NAME=PREFIX"):
        served_tools(specs, ["arxiv"])
    with pytest.raises(ConfigurationError, match="--prefix gmail= is for a spec that is not"):
        served_tools(specs, ["gmail=mail_"])


# -- the command line ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve"], "toolspecs serve: the following arguments are required: NAME"),
        (["serve", "arxiv", "--bogus"], "toolspecs serve: unrecognized arguments: --bogus"),
        (["serve", "arxiv", "--port", "http"], "toolspecs serve: argument --port: invalid int"),
        (["serve", "arxiv", "--option", "arxiv.colour=red"], "toolspecs: spec 'arxiv' has no"),
        (
            [
                "serve",
                "gmail",
                "google_calendar",
                "--prefix",
                "gmail=",
                "--prefix",
                "google_calendar=",
            ],
            "toolspecs: gmail and google_calendar would both offer",
        ),
    ],
)
def test_a_wrong_command_line_is_one_line_and_exit_2(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own mistakes
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert err.count("\n") == 1, err


def test_the_serve_options_parse():
    args = build_parser().parse_args(
        [
            "serve",
            "gmail",
            "arxiv",
            "--http",
            "--port",
            "9000",
            "--no-allow-send",
            "--allow-destructive",
            "--timezone",
            "UTC",
            "--option",
            "arxiv.max_results=5",
            "--option",
            "gmail.max_results=20",
            "--prefix",
            "gmail=mail_",
        ]
    )
    assert args.names == ["gmail", "arxiv"]
    assert (args.http, args.host, args.port, args.sandbox) == (True, "127.0.0.1", 9000, False)
    assert (args.allow_send, args.allow_destructive, args.timezone) == (False, True, "UTC")
    assert args.option == ["arxiv.max_results=5", "gmail.max_results=20"]
    assert args.prefix == ["gmail=mail_"]
    defaults = build_parser().parse_args(["serve", "gmail"])
    assert (defaults.allow_send, defaults.allow_destructive, defaults.http) == (None, None, False)


# -- sandboxes ----------------------------------------------------------------------------


@pytest.mark.dates
def test_every_sandbox_builds_and_answers():
    assert SANDBOXES == ("arxiv", "gmail", "google_calendar", "wolfram_alpha")
    for name in SANDBOXES:
        spec = sandbox_spec(name)
        first = spec.to_tool_list()[0]
        arguments = {"query": "bert"} if name == "arxiv" else {}
        if name == "wolfram_alpha":
            arguments = {"query": "2 + 2"}
        out = first.call(**arguments)
        assert out.is_error is False, (name, out.content)


def test_the_sandbox_calendar_has_working_days_of_meetings():
    import datetime as dt

    calendar = sample_calendar(today=dt.date(2026, 6, 5))  # a Friday
    days = {e["start"]["dateTime"][:10] for e in calendar.events.values()}
    assert min(days) == "2026-06-08" and "2026-06-06" not in days  # from Monday, no weekends
    assert len(days) == 20 and len(calendar.events) == 40
    titles = {e["summary"] for e in calendar.events.values()}
    assert {"Team standup", "Lunch with Ada", "Sprint demo"} <= titles
    assert len(calendar.busy["primary"]) == 40


def test_sandbox_options_and_mistakes():
    assert sandbox_spec("gmail", allow_send=False).allow_send is False
    with pytest.raises(ConfigurationError, match="spec 'nope' has no sandbox; sandboxes: arxiv"):
        sandbox_spec("nope")


# -- what the review found -------------------------------------------------------------


def test_a_served_google_spec_never_opens_a_login(tmp_path, monkeypatch):
    # A real client file and no token: a terminal would open a browser; a server must not.
    monkeypatch.chdir(tmp_path)
    client = {"installed": {"client_id": "id.apps.googleusercontent.com", "client_secret": "s",
              "auth_uri": "https://accounts.google.com/o/oauth2/auth",
              "token_uri": "https://oauth2.googleapis.com/token",
              "redirect_uris": ["http://localhost"]}}  # fmt: skip
    (tmp_path / "credentials.json").write_text(__import__("json").dumps(client))
    specs = build_specs(ServeSettings(names=["gmail"]))
    out = specs["gmail"].call_tool("list_drafts")
    assert out.is_error and out.exception.kind == "ask_user"
    assert "may not open a login" in out.content
    assert "run `toolspecs authorize gmail --tools list_drafts` in a terminal" in out.content


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "arxiv", "--http", "--port", "70000"], "toolspecs serve: argument --port: "
         "70000 is not a port; use 0 to 65535"),
        (["serve", "arxiv", "--prefix", "arxiv=my paper "], "toolspecs: --prefix arxiv='my "
         "paper ' is not a tool-name prefix"),
    ],
)  # fmt: skip
def test_ports_and_prefixes_are_checked_in_one_line(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(message), err
    assert err.count("\n") == 1, err


def test_a_port_in_use_is_one_line_and_exit_2(capsys):
    import socket

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code = main(["serve", "arxiv", "--sandbox", "--http", "--port", str(port)])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"toolspecs: cannot listen on 127.0.0.1:{port}"), err


def test_an_option_value_is_never_repeated_in_an_error():
    secret = '{"refresh_token": "SECRET-TOKEN", "client_id": '  # cut short: not JSON
    with pytest.raises(ConfigurationError) as bad:
        build_specs(
            ServeSettings(names=["gmail"], options=[f"gmail.authorized_user_info={secret}"])
        )
    assert "SECRET" not in str(bad.value) and "is not valid JSON" in str(bad.value)
    with pytest.raises(ConfigurationError) as wrong:
        build_specs(
            ServeSettings(names=["gmail"], options=['gmail.service_account_key=["SECRET"]'])
        )
    assert "SECRET" not in str(wrong.value) and "a JSON object" in str(wrong.value)


FREEZE_PROBE = """
import gc, sys
import toolspecs.server
from toolspecs.cli import main

async def serve_http(server, host, port, ready, **options):
    before = gc.get_freeze_count()
    ready("http://127.0.0.1:1/mcp")  # serving starts here
    print(before, gc.get_freeze_count(), gc.get_threshold()[0])

toolspecs.server.serve_http = serve_http
sys.exit(main(["serve", "--sandbox", "--http", "gmail"]))
"""


def test_serving_freezes_the_startup_heap_once_the_port_is_bound():
    # A full collection walked every module, spec and discovery document again, stopping
    # the server each time (bench/serve_load.py); frozen, they are skipped, and the young
    # are collected less often. Run in a process of its own: freezing this one would keep
    # the test session's garbage.
    import os
    import subprocess
    import sys

    environment = {**os.environ, "TOOLSPECS_SERVE_TOKEN": "t" * 40}
    done = subprocess.run(
        [sys.executable, "-c", FREEZE_PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert done.returncode == 0, done.stderr
    before, after, young = (int(count) for count in done.stdout.split())
    # Python 3.12 on freezes a few hundred objects of its own at startup; what starting
    # the server made is some 200,000.
    assert after - before > 10_000, (before, after)
    assert young == SERVING_YOUNG_THRESHOLD
