"""Serving many Google users reaches ``toolspecs serve`` through an entry point (issue 39).

The Google packages register their hosting (``toolspecs.hosting.google``: sign in with
Google, domain-wide delegation) in the entry-point group ``toolspecs.hosting``; the
server lists no hosting, and a Google flag given without the Google package says in one
line what to install. Each user's Google specs act as the user through
``GoogleToolSpec.act_as``, a method of their type, not attributes set from outside.
"""

from __future__ import annotations

from importlib.metadata import entry_points

import pytest
from google.oauth2.credentials import Credentials
from google_auth_httplib2 import AuthorizedHttp
from refused_google_token import TOKEN, TokenEndpoint

import toolspecs.cli.hosting
from toolspecs.cli import build_parser, main
from toolspecs.cli.hosting import Hosting, hostings
from toolspecs.hosting.google import GoogleHosting
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import SCOPES, GmailToolSpec

HINT = "Do not retry. Tell the user to sign in with Google again."


def test_the_server_finds_the_google_hosting_through_its_entry_point():
    (point,) = [p for p in entry_points(group="toolspecs.hosting") if p.name == "google"]
    assert point.dist is not None and point.dist.name == "toolspecs-google-base"
    found = hostings()
    assert isinstance(found["google"], GoogleHosting)
    assert isinstance(found["google"], Hosting)
    # Its flags are serve's, and the parsed command line carries the hostings found.
    args = build_parser().parse_args(["serve", "gmail", "--http", "--google-sign-in"])
    assert args.google_sign_in is True and isinstance(args.hostings["google"], GoogleHosting)


def without_the_google_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hosting installed: what a server installed without toolspecs-google-base sees."""
    monkeypatch.setattr(toolspecs.cli.hosting, "entry_points", lambda group: [])


@pytest.mark.parametrize("flag", ["--google-sign-in", "--google-client-id=abc"])
def test_a_google_flag_without_the_google_package_says_in_one_line_what_to_install(
    flag, monkeypatch, capsys
):
    without_the_google_package(monkeypatch)
    with pytest.raises(SystemExit) as done:
        main(["serve", "--http", flag, "gmail"])
    assert done.value.code == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"toolspecs serve: {flag.split('=')[0]} needs the Google hosting")
    assert 'pip install "toolspecs-google-base[server]"' in line


def test_without_the_google_package_serve_lists_no_google_flag(monkeypatch, capsys):
    without_the_google_package(monkeypatch)
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = capsys.readouterr().out
    assert "--auth-issuer" in shown
    assert "--google-sign-in]" not in shown and "--google-delegate" not in shown
    # Other commands' unknown flags are said as before.
    with pytest.raises(SystemExit) as done:
        main(["list", "--google-sign-in"])
    assert done.value.code == 2
    assert "unrecognized arguments: --google-sign-in" in capsys.readouterr().err


def test_a_spec_acting_as_a_user_tells_the_agent_what_the_server_said_when_google_refuses():
    users = Credentials.from_authorized_user_info(TOKEN, SCOPES)  # expired: refreshed first
    google = TokenEndpoint(sample_mailbox())
    spec = GmailToolSpec(transport=AuthorizedHttp(users, http=google))
    spec.act_as(users, HINT)  # as a server acting for this user does
    assert spec.creds is users
    out = spec.call_tool("search_messages", query="x")
    assert google.refreshes >= 1  # the user's credentials were used, and refused
    assert out.is_error is True
    assert HINT in out.content
    assert "pass new ones" not in out.content  # not the advice for a Python caller
    assert str(TOKEN["refresh_token"]) not in out.content
