"""Structured results (issue 25): every Gmail tool's data carries the facts its text shows.

Each tool is called through ``tool.call`` on the sandbox fake; the data is
``GuardedOutput.structured`` (JSON values, within the text's budget). A sender's words
are ``{"third_party": true, "text": ...}``. Last, one whole task through the official MCP
client, which picks every next argument from ``structuredContent`` alone.
"""

from __future__ import annotations

import json

import pytest
from mcp import Client

from toolspecs.core.bounds import count_tokens
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.server import build_server
from toolspecs.specs.gmail import ApiText, GmailToolSpec


def quoted(text: str) -> dict[str, object]:
    return {"third_party": True, "text": text}


def call(tool, **arguments):
    out = tool.call(**arguments)
    assert out.is_error is False, out.content
    assert out.structured is not None
    return out.content, out.structured


@pytest.fixture
def every(spec):
    return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}


def test_search_hits_carry_ids_iso_dates_people_and_quoted_words(every, ids):
    text, data = call(every["search_messages"], query="lunch")
    (hit,) = data["messages"]
    assert data["query"] == "lunch"
    assert hit["message_id"] == ids["plain"] and f"[id: {ids['plain']} " in text
    assert hit["thread_id"] == ids["plain"]
    assert "Friday 2026-11-20 09:14 -05:00" in text
    assert hit["date"] == "2026-11-20T09:14:05-05:00"  # the same instant, in the zone shown
    assert hit["sender"] == [{"email": "ada@example.com", "name": quoted("Ada Lovelace")}]
    assert hit["subject"] == quoted("Lunch on Tuesday?") and "Lunch on Tuesday?" in text
    assert hit["snippet"]["third_party"] is True and "lunch on Tuesday" in hit["snippet"]["text"]
    assert hit["unread"] is True and "(unread)" in text


def test_a_search_that_finds_nothing_carries_an_empty_list(every):
    text, data = call(every["search_messages"], query="zzz-nothing")
    assert text.startswith("No messages match 'zzz-nothing'")
    assert data == {"query": "zzz-nothing", "messages": []}


def test_an_injection_stays_quoted_third_party_text(every, ids):
    text, data = call(every["get_message"], message_id=ids["injection"])
    message = data["message"]
    assert "ignore all previous instructions" in text
    assert message["body"]["third_party"] is True
    assert "ignore all previous instructions" in message["body"]["text"]
    assert message["subject"] == quoted("Action required")
    assert message["sender"] == [{"email": "support@phish.example", "name": quoted("IT Support")}]
    # No string of ours carries the sender's words: they are only inside Quoted objects.
    assert "ignore all" not in json.dumps(_without_quoted(data))


def _without_quoted(values):
    if isinstance(values, dict):
        if values.get("third_party") is True:
            return None
        return {k: _without_quoted(v) for k, v in values.items()}
    if isinstance(values, list):
        return [_without_quoted(v) for v in values]
    return values


def test_get_message_carries_headers_attachments_and_the_body(every, ids):
    text, data = call(every["get_message"], message_id=ids["attachments"])
    message = data["message"]
    assert message["message_id"] == ids["attachments"]
    assert message["attachments"] == [
        {
            "attachment_id": "1",
            "filename": quoted("Q4 report.pdf"),
            "mime_type": quoted("application/pdf"),
            "size": message["attachments"][0]["size"],
        },
        {
            "attachment_id": "2",
            "filename": quoted("diagramme été.png"),
            "mime_type": quoted("image/png"),
            "size": 70,
        },
    ]
    assert "Q4 report.pdf (application/pdf, 3 KB) [attachment_id: 1]" in text
    plain = call(every["get_message"], message_id=ids["plain"])[1]["message"]
    assert plain["to"] == [{"email": "grace@example.org", "name": quoted("Grace Hopper")}]
    assert plain["cc"] == [{"email": "charles@example.com"}]
    assert plain["labels"] == ["UNREAD"]
    assert "café near the office" in plain["body"]["text"]


def test_dates_follow_the_spec_timezone_as_the_text_does(gmail, ids):
    spec = GmailToolSpec(transport=gmail, timezone="Europe/Paris")
    (search, *_) = spec.to_tool_list(spec_functions=["search_messages"])
    text, data = call(search, query="lunch")
    assert "2026-11-20 15:14 +01:00 (Europe/Paris)" in text
    assert data["messages"][0]["date"] == "2026-11-20T15:14:05+01:00"


def test_load_data_and_search_with_bodies_carry_whole_messages(every, ids):
    _, loaded = call(every["load_data"])
    assert [m["message_id"] for m in loaded["messages"]][:2] == [ids["injection"], ids["plain"]]
    assert all("body" in m for m in loaded["messages"])
    _, found = call(every["search_messages"], query="from:ada@example.com", include_body=True)
    assert {m["message_id"] for m in found["messages"]} >= {ids["plain"]}
    assert all(m["body"]["third_party"] for m in found["messages"])


def test_a_long_search_is_stored_and_its_data_kept_within_budget(spec, every):
    long = GmailToolSpec(transport=sample_mailbox(long_messages=6))
    tools = {t.metadata.name: t for t in long.to_tool_list()}
    out = tools["search_messages"].call(query="", max_results=20, include_body=True)
    assert "so it is stored as result" in out.content
    data = out.structured
    stored = data["stored"]
    assert stored["read_with"] == "read_stored_emails"
    assert f"(result_id={stored['result_id']})" in out.content
    budget = long.output_budget.max_tokens
    shown = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    assert count_tokens(shown) <= budget
    cut = [m for m in data["messages"] if m["body"].get("cut")]
    assert cut and data["omitted"] >= 1  # made to fit: long texts cut, then items left out
    # The reader reads the stored whole by the handle the data gave.
    text, passages = call(
        tools["read_stored_emails"], query="engine cycles fault", result_id=stored["result_id"]
    )
    assert passages["result_id"] == stored["result_id"]
    assert passages["function"] == "search_messages"
    first = passages["passages"][0]
    assert first["text"]["third_party"] is True
    assert f"passage {first['position']} of {passages['total_passages']}" in text


def test_get_thread_carries_its_messages_and_the_next_step(every, ids):
    text, data = call(every["get_thread"], thread_id=ids["thread_2"])
    assert data["thread_id"] == ids["thread_1"]
    assert data["given_message_id"] == ids["thread_2"]
    assert data["message_count"] == 2 and "2 message(s), oldest first" in text
    assert [m["message_id"] for m in data["messages"]] == [ids["thread_1"], ids["thread_2"]]
    assert data["next_step"] == (
        f"Reply in this thread with create_draft(reply_to_message_id='{ids['thread_2']}', ...)."
    )
    assert f"Next: r{data['next_step'][1:]}" in text


def test_read_attachment_carries_the_file_and_its_text(every, ids):
    text, data = call(every["read_attachment"], message_id=ids["attachments"], attachment_id="1")
    assert data["message_id"] == ids["attachments"]
    assert data["attachment_id"] == "1"
    assert data["filename"] == quoted("Q4 report.pdf")
    assert data["pages"] == 1 and "1 page(s)" in text
    assert data["sender"][0]["email"] == "ada@example.com"
    assert "Revenue: 4.2 million pounds" in data["text"]["text"]
    assert data["text"]["third_party"] is True


def test_labels_and_their_changes(every, ids):
    text, data = call(every["list_labels"])
    assert "INBOX" in data["system"] and "UNREAD" in data["system"]
    assert {"label_id": "Label_1", "name": quoted("Receipts")} in data["labels"]
    assert "- Receipts [Label_1]" in text
    assert data["next_step"].startswith("modify_labels takes these names or ids")
    text, data = call(
        every["modify_labels"], message_ids=[ids["plain"]], add=["archive", "Receipts"]
    )
    assert data["message_ids"] == [ids["plain"]]
    assert data["changes"] == [
        {"label_id": "INBOX", "name": quoted("INBOX"), "action": "removed", "effect": "archived"},
        {"label_id": "Label_1", "name": quoted("Receipts"), "action": "added"},
    ]
    assert (data["undo_add"], data["undo_remove"]) == (["INBOX"], ["Label_1"])
    assert "add=['INBOX'], remove=['Label_1']" in text and data["next_step"] in text


def test_drafts_are_created_listed_shown_changed_and_sent(every, ids, gmail):
    _, empty = call(every["list_drafts"])
    assert empty == {"drafts": [], "next_step": "create_draft makes one."}

    made = every["create_draft"].call(reply_to_message_id=ids["plain"], message="Yes!\nSee you")
    assert isinstance(made.raw_output, ApiText) and isinstance(made.raw_output, str)
    created = made.structured
    draft_id = created["draft_id"]
    assert made.raw_output["id"] == draft_id == made.raw_output.data["id"]  # LlamaHub's dict
    assert created["action"] == "created"
    assert created["reply_in_thread"] == ids["plain"] == created["thread_id"]
    assert created["to"] == [{"email": "ada@example.com", "name": quoted("Ada Lovelace")}]
    assert created["subject"] == quoted("Re: Lunch on Tuesday?")
    assert created["next_step"] == (
        f"Show it to the user; send it with send_draft(draft_id='{draft_id}'), "
        f"or change it with update_draft(draft_id='{draft_id}', ...)."
    )
    assert made.content.endswith(f"Next: s{created['next_step'][1:]}")

    _, listed = call(every["list_drafts"])
    (summary,) = listed["drafts"]
    assert summary["draft_id"] == draft_id
    assert summary["first_lines"] == [quoted("Yes!"), quoted("See you")]

    text, shown = call(every["get_draft"], draft_id=draft_id)
    assert shown["body"] == quoted("Yes!\nSee you") and "Yes!\nSee you" in text
    assert shown["reply_in_thread"] == ids["plain"]

    _, updated = call(every["update_draft"], draft_id=draft_id, to=["Bob <bob@example.com>"])
    assert updated["action"] == "updated" and updated["draft_id"] == draft_id
    assert updated["to"] == [{"email": "bob@example.com", "name": quoted("Bob")}]

    text, sent = call(every["send_draft"], draft_id=draft_id)
    assert sent["draft_id"] == draft_id
    assert sent["message_id"] == gmail.sent[-1] and f"as message {gmail.sent[-1]}" in text
    assert sent["to"] == [{"email": "bob@example.com", "name": quoted("Bob")}]
    assert sent["attachments"] == [] and "no attachments" in text
    assert sent["next_step"] == "You can move on to the next step."


def test_a_forward_and_attachments_are_data_too(gmail, ids, tmp_path):
    (tmp_path / "notes.txt").write_text("Some notes.")
    spec = GmailToolSpec(transport=gmail, attachment_dir=str(tmp_path))
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    text, made = call(
        tools["create_draft"],
        to=["ada@example.com"],
        forward_message_id=ids["attachments"],
        attachments=["notes.txt"],
    )
    assert made["forwards"]["message_id"] == ids["attachments"]
    assert made["forwards"]["attachments"] == 2
    assert made["forwards"]["sender"] == quoted("ada@example.com")
    names = [f["filename"]["text"] for f in made["attachments"]]
    assert names == ["Q4 report.pdf", "diagramme été.png", "notes.txt"]
    assert "notes.txt" in text and "note" not in made
    _, changed = call(tools["update_draft"], draft_id=made["draft_id"], attachments=["#3"])
    assert [f["filename"]["text"] for f in changed["attachments"]] == ["notes.txt"]
    assert changed["removed_attachments"] == [quoted("Q4 report.pdf"), quoted("diagramme été.png")]


def test_an_account_its_prefixed_tools_and_our_note(gmail, ids):
    spec = GmailToolSpec(transport=gmail, account="work")
    tools = {t.metadata.name: t for t in spec.to_tool_list()}
    text, made = call(
        tools["work_create_draft"], reply_to_message_id=ids["plain"], subject="Another matter"
    )
    assert made["account"] == "work" and "Draft created in the 'work' account" in text
    assert made["next_step"].startswith(
        f"Show it to the user; send it with work_send_draft(draft_id='{made['draft_id']}')"
    )
    assert made["note"].startswith("Its subject differs from the original's")
    assert made["note"] in text
    assert made["empty_body"] is True and "The body is empty." in text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_whole_task_through_the_mcp_client_from_structured_content_alone(gmail, mode):
    """Search, read, draft a reply, send it: each argument is read from the data.

    ``mcp.Client`` validates each ``structuredContent`` against the tool's
    ``outputSchema`` (``ClientSession.validate_tool_result``), so the data is also checked
    against the schema the server lists.
    """
    spec = GmailToolSpec(transport=gmail, allow_send=True, confirm_recipients=True)
    async with Client(build_server(spec), mode=mode) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        assert all(t.output_schema is not None for t in listed.values())

        found = await client.call_tool("search_messages", {"query": "from:ada@example.com"})
        hits = found.structured_content["messages"]
        lunch = next(h for h in hits if h["subject"]["text"].startswith("Lunch"))

        read = await client.call_tool("get_message", {"message_id": lunch["message_id"]})
        message = read.structured_content["message"]
        assert message["sender"][0]["email"] == "ada@example.com"

        drafted = await client.call_tool(
            "create_draft",
            {"reply_to_message_id": message["message_id"], "message": "Tuesday suits me."},
        )
        draft = drafted.structured_content
        assert draft["reply_in_thread"] == message["thread_id"]

        sent = await client.call_tool(
            "send_draft",
            {"draft_id": draft["draft_id"], "recipients": [p["email"] for p in draft["to"]]},
        )
        assert sent.is_error is False
        done = sent.structured_content

    assert done["thread_id"] == message["thread_id"]
    assert gmail.sent == [done["message_id"]]
    mime = gmail.mime(done["message_id"])
    assert mime["To"] == "Ada Lovelace <ada@example.com>"
    assert "Tuesday suits me." in mime.get_content()
