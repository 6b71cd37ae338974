"""Several Google accounts in one program: ``account="work"`` gives a spec its own token
file, a tool prefix by default, and replies and guidance that name the account; ``toolspecs
serve gmail@work gmail@home`` serves one spec twice (through mcp's in-process client)."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools
from toolspecs.core import ConfigurationError
from toolspecs.loaders.google.testing import FakeCalendar, FakeGmail, fixture, sample_mailbox
from toolspecs.server import build_server
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.google_calendar import GoogleCalendarToolSpec

GMAIL = [
    "https://www.googleapis.com/auth/gmail.compose",
    "https://www.googleapis.com/auth/gmail.readonly",
]


def token(access: str) -> str:
    return json.dumps({
        "token": access, "refresh_token": f"refresh-{access}", "client_id": "cid",
        "client_secret": "secret", "token_uri": "https://oauth2.googleapis.com/token",
        "expiry": "2999-01-01T00:00:00Z", "scopes": GMAIL,
    })  # fmt: skip


def test_each_account_has_its_own_token_file_beside_token_path():
    assert GmailToolSpec(account="work").auth.token_path == "token.work.gmail.json"
    assert GoogleCalendarToolSpec(account="work").auth.token_path == "token.work.calendar.json"
    spec = GmailToolSpec(token_path="secrets/token.json", account="home")
    assert spec.auth.token_path == "secrets/token.home.gmail.json"
    assert GmailToolSpec().auth.token_path == "token.json"  # LlamaHub's, without an account


def test_an_account_reads_only_its_own_token(in_empty_dir):
    (in_empty_dir / "token.json").write_text(token("default-user"))
    (in_empty_dir / "token.work.gmail.json").write_text(token("work-user"))
    assert GmailToolSpec().auth.credentials().token == "default-user"
    assert GmailToolSpec(account="work").auth.credentials().token == "work-user"
    home = GmailToolSpec(account="home", auth_flow="none")
    assert home.auth.credentials(sign_in=False) is None  # never token.json's user


@pytest.mark.parametrize("bad", ["", "my work", "../x", "a" * 30, "work.gmail"])
def test_an_account_name_must_fit_a_file_name_and_a_tool_name(bad):
    with pytest.raises(ValueError, match="account must be a short name"):
        GmailToolSpec(account=bad)


def test_an_account_prefixes_its_tools_unless_a_prefix_is_given():
    spec = GmailToolSpec(transport=sample_mailbox(), account="work")
    names = [t.metadata.name for t in spec.to_tool_list()]
    assert names[:3] == ["work_load_data", "work_search_messages", "work_get_message"]
    assert "work_read_stored_emails" in names
    assert spec.to_tool_list(prefix="")[0].metadata.name == "load_data"
    assert spec.to_tool_list(prefix="mail_")[0].metadata.name == "mail_load_data"
    calendar = GoogleCalendarToolSpec(transport=FakeCalendar(), account="work")
    assert calendar.to_tool_list()[0].metadata.name == "work_load_data"
    # call_tool takes the tool's own name as well as the prefixed one.
    assert spec.call_tool("search_messages", query="from:ada").is_error is False
    assert spec.call_tool("work_search_messages", query="from:ada").is_error is False


def test_replies_and_guidance_name_the_account():
    spec = GmailToolSpec(transport=sample_mailbox(), account="work")
    out = spec.call_tool("create_draft", to=["ada@example.com"], subject="Hi", message="Hello")
    assert out.is_error is False and "in the 'work' account" in str(out)
    missing = spec.call_tool("get_message", message_id="0000000000000bad")
    assert missing.is_error is True and "'work' account" in str(missing)
    assert "work_search_messages" in str(missing)  # its ids hint names the prefixed tools
    no_folder = spec.call_tool("create_draft", attachments=["a.pdf"])
    assert "in the 'work' account" in str(no_folder)


def test_the_account_is_an_option_on_the_command_line():
    settings = ServeSettings(names=["gmail"], sandbox=True, options=["account=work"])
    (spec,) = build_specs(settings).values()
    assert spec.account == "work"
    assert served_tools({"gmail": spec}, [])[0].metadata.name == "work_load_data"


def names(*specs: str, prefixes=()):
    settings = ServeSettings(names=list(specs), sandbox=True, prefixes=list(prefixes))
    return [t.metadata.name for t in served_tools(build_specs(settings), settings.prefixes)]


@pytest.mark.dates
def test_one_spec_is_served_under_two_accounts():
    served = names("gmail@work", "gmail@home")
    assert "work_search_messages" in served and "home_search_messages" in served
    assert "search_messages" not in served
    # The same account in two specs: their names clash, so each carries spec and account.
    served = names("gmail@work", "google_calendar@work")
    assert "gmail_work_load_data" in served and "google_calendar_work_load_data" in served
    assert "gmail_work_send_draft" in served
    assert "arxiv_query" in names("gmail@home", "arxiv")
    assert "mail_load_data" in names("gmail@work", "gmail@home", prefixes=["gmail@work=mail_"])


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (["arxiv@work"], "has no accounts"),
        (["gmail@my.work"], "must be a short name"),
        (["gmail@work", "gmail@work"], "named twice"),
    ],
)
def test_a_wrong_account_name_says_what_to_do(specs, message):
    with pytest.raises(ConfigurationError, match=message):
        build_specs(ServeSettings(names=specs, sandbox=True))


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


def mailbox(*names: str) -> FakeGmail:
    gmail = FakeGmail()
    for name in names:
        gmail.add_message(fixture(name))
    return gmail


async def test_two_accounts_over_mcp_each_read_their_own_mailbox(mode):
    work = mailbox("attachments")  # Ada's "Report and diagram"
    home = mailbox("latin1")
    server = build_server(
        GmailToolSpec(transport=work, account="work"),
        GmailToolSpec(transport=home, account="home"),
    )
    async with Client(server, mode=mode) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert listed["work_send_draft"].title == "Gmail ('work' account): Send a draft"
        work_hits = await client.call_tool("work_search_messages", {"query": ""})
        home_hits = await client.call_tool("home_search_messages", {"query": ""})
        draft = await client.call_tool(
            "home_create_draft", {"to": ["ada@example.com"], "message": "From home."}
        )
    (work_text,) = work_hits.content
    (home_text,) = home_hits.content
    assert "Report and diagram" in work_text.text and "Report and diagram" not in home_text.text
    assert draft.is_error is False and "'home' account" in draft.content[0].text
    assert home.drafts and not work.drafts


async def test_serve_gmail_at_work_and_home_over_mcp(mode):
    settings = ServeSettings(names=["gmail@work", "gmail@home"], sandbox=True)
    server = build_server(served_tools(build_specs(settings), settings.prefixes))
    async with Client(server, mode=mode) as client:
        out = await client.call_tool("home_list_drafts", {})
    assert out.is_error is False


def test_toolspecs_call_takes_the_account_either_way(capsys):
    from toolspecs.cli import main

    assert main(["call", "--sandbox", "gmail.list_drafts", "--option", "account=work"]) == 0
    assert "work_create_draft makes one" in capsys.readouterr().out
    assert main(["call", "--sandbox", "gmail@home.get_message", "message_id=nope"]) == 1
    assert "Gmail ('home' account) found nothing" in capsys.readouterr().out
