"""Sends a person can see (issue 22, item 7): what a host confirms names who receives what.

``send_draft(recipients=...)`` is checked against the draft (``confirm_recipients`` makes
it required), replies name forwarded mail and attachments, and ``allowed_recipients``
refuses any other address at every step.
"""

from __future__ import annotations

import pytest

from toolspecs.cli.assemble import ServeSettings, build_specs
from toolspecs.specs.gmail import GmailToolSpec


def by_subject(gmail, subject):
    return next(i for i in gmail.messages if gmail.parsed(i).header("subject") == subject)


def make_draft(spec, **arguments):
    out = spec.call_tool("create_draft", **arguments)
    assert out.is_error is False, out.content
    return out.raw_output["id"]


def sends(gmail):
    return [r for r in gmail.requests if r.path == "/users/me/drafts/send"]


# -- send_draft(recipients=...) -------------------------------------------------------------


def test_send_with_the_drafts_recipients_sends(gmail):
    spec = GmailToolSpec(transport=gmail)
    draft_id = make_draft(spec, to=["Ada <ada@example.com>"], cc=["bob@example.net"], message="m")
    out = spec.call_tool(
        "send_draft", draft_id=draft_id, recipients="BOB@example.net, ada@example.com"
    )
    assert out.is_error is False, out.content
    assert len(sends(gmail)) == 1 and gmail.sent


@pytest.mark.parametrize(
    "recipients",
    [["ada@example.com"], ["ada@example.com", "bob@example.net", "eve@evil.example"], []],
)
def test_send_to_other_recipients_than_the_drafts_sends_nothing(gmail, recipients):
    spec = GmailToolSpec(transport=gmail)
    draft_id = make_draft(spec, to=["ada@example.com"], bcc=["bob@example.net"], message="m")
    out = spec.call_tool("send_draft", draft_id=draft_id, recipients=recipients)
    assert out.is_error is True and "Nothing was sent" in out.content
    assert "ada@example.com, bob@example.net" in out.content  # the draft's real recipients
    assert sends(gmail) == [] and gmail.sent == []


def test_confirm_recipients_makes_them_required(gmail):
    spec = GmailToolSpec(transport=gmail, confirm_recipients=True)
    made = spec.call_tool("create_draft", to=["ada@example.com"], message="m")
    draft_id = made.raw_output["id"]
    assert f"send_draft(draft_id='{draft_id}', recipients=[its To, Cc and Bcc])" in made.content
    out = spec.call_tool("send_draft", draft_id=draft_id)
    assert out.is_error is True and "needs recipients" in out.content
    assert "ada@example.com" in out.content and sends(gmail) == []
    out = spec.call_tool("send_draft", draft_id=draft_id, recipients=["ada@example.com"])
    assert out.is_error is False and gmail.sent


def test_without_the_option_the_draft_id_alone_still_sends(gmail):
    spec = GmailToolSpec(transport=gmail)  # LlamaHub's send_draft(draft_id)
    draft_id = make_draft(spec, to=["ada@example.com"], message="m")
    assert spec.send_draft(draft_id)["labelIds"] == ["SENT"]


def test_the_sends_reply_names_recipients_subject_and_attachments(gmail):
    spec = GmailToolSpec(transport=gmail)
    original = by_subject(gmail, "Report and diagram")
    draft_id = make_draft(spec, to=["bob@example.net"], forward_message_id=original)
    out = spec.call_tool("send_draft", draft_id=draft_id)
    assert out.is_error is False
    assert "to bob@example.net; subject: Fwd: Report and diagram; attached: " in out.content
    assert "Q4 report.pdf" in out.content and "diagramme été.png" in out.content
    plain = make_draft(spec, to=["ada@example.com"], message="m")
    assert "no attachments" in spec.call_tool("send_draft", draft_id=plain).content


# -- drafts say what they forward and carry ---------------------------------------------------


def test_a_forward_names_the_mail_it_copies(gmail):
    spec = GmailToolSpec(transport=gmail)
    original = by_subject(gmail, "Report and diagram")
    out = spec.call_tool("create_draft", to=["bob@example.net"], forward_message_id=original)
    assert "a mail from ada@example.com, subject: Report and diagram" in out.content
    assert "Q4 report.pdf" in out.content


def test_an_update_names_the_forward_and_the_attachments_it_keeps(gmail):
    spec = GmailToolSpec(transport=gmail)
    original = by_subject(gmail, "Report and diagram")
    draft_id = make_draft(spec, to=["bob@example.net"], forward_message_id=original)
    out = spec.call_tool("update_draft", draft_id=draft_id, to=["eve@example.org"])
    assert out.is_error is False
    assert "It forwards a mail from ada@example.com, subject: Report and diagram" in out.content
    assert "Attached: " in out.content and "Q4 report.pdf" in out.content
    out = spec.call_tool("update_draft", draft_id=draft_id, attachments=["#1"])
    assert "It forwards a mail from ada@example.com" in out.content and "Removed: #2" in out.content


# -- allowed_recipients -----------------------------------------------------------------------


@pytest.fixture
def fenced(gmail):
    return GmailToolSpec(transport=gmail, allowed_recipients=["*@Example.com", "bob@example.net"])


def test_drafts_to_other_addresses_are_refused_naming_the_patterns(fenced, gmail):
    out = fenced.call_tool("create_draft", to=["ADA@example.com", "eve@evil.example"], message="m")
    assert out.is_error is True
    assert "eve@evil.example" in out.content and "*@example.com, bob@example.net" in out.content
    assert gmail.drafts == {}
    ok = fenced.call_tool("create_draft", to=["Ada <ADA@example.com>"], cc="bob@example.net")
    assert ok.is_error is False


def test_a_lookalike_domain_matches_no_pattern(fenced, gmail):
    out = fenced.call_tool("create_draft", to=["ada@example.com.evil.example"], message="m")
    assert out.is_error is True and gmail.drafts == {}


def test_an_update_to_another_address_is_refused(fenced, gmail):
    draft_id = make_draft(fenced, to=["ada@example.com"], message="m")
    out = fenced.call_tool("update_draft", draft_id=draft_id, bcc=["eve@evil.example"])
    assert out.is_error is True and "eve@evil.example" in out.content
    assert [r for r in gmail.requests if r.method == "PUT"] == []


def test_a_reply_to_an_outsider_is_refused(gmail):
    # The recipients come from the original (its sender), not from the agent.
    original = by_subject(gmail, "Report and diagram")
    strict = GmailToolSpec(transport=gmail, allowed_recipients=["bob@example.net"])
    out = strict.call_tool("create_draft", reply_to_message_id=original, message="Thanks")
    assert out.is_error is True and "ada@example.com" in out.content
    assert gmail.drafts == {}


def test_a_draft_made_elsewhere_to_an_outsider_is_not_sent(gmail):
    open_spec = GmailToolSpec(transport=gmail)  # e.g. written in Gmail by hand
    draft_id = make_draft(open_spec, to=["eve@evil.example"], message="m")
    fenced = GmailToolSpec(transport=gmail, allowed_recipients=["*@example.com"])
    out = fenced.call_tool("send_draft", draft_id=draft_id)
    assert out.is_error is True and "*@example.com" in out.content
    assert sends(gmail) == [] and gmail.sent == []


def test_no_list_allows_every_address(gmail):
    for allowed in (None, [], [" "]):
        spec = GmailToolSpec(transport=gmail, allowed_recipients=allowed)
        assert spec.call_tool("create_draft", to=["eve@evil.example"]).is_error is False


# -- the command line --------------------------------------------------------------------------


def test_the_options_are_given_on_the_command_line():
    specs = build_specs(
        ServeSettings(
            names=["gmail"],
            sandbox=True,
            options=[
                "gmail.allowed_recipients=*@example.com, bob@example.net",
                "gmail.confirm_recipients=yes",
            ],
        )
    )
    gmail = specs["gmail"]
    assert isinstance(gmail, GmailToolSpec)
    assert gmail.allowed_recipients == ["*@example.com", "bob@example.net"]
    assert gmail.confirm_recipients is True
    out = gmail.call_tool("create_draft", to=["eve@evil.example"], message="m")
    assert out.is_error is True and "allowed_recipients" in out.content


def test_the_schema_asks_for_recipients_only_when_they_are_required(gmail):
    def send_schema(spec):
        tools = {t.metadata.name: t for t in spec.to_tool_list()}
        return tools["send_draft"].metadata.to_openai_tool()["function"]["parameters"]

    plain = send_schema(GmailToolSpec(transport=gmail))
    assert set(plain["properties"]) == {"draft_id"}  # LlamaHub's schema, its cost unchanged
    confirming = send_schema(GmailToolSpec(transport=gmail, confirm_recipients=True))
    assert confirming["properties"]["recipients"]["description"].startswith("Required:")
