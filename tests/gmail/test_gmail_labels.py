"""list_labels and modify_labels: names, ids and the words people use (archive, mark read),
checked by the fake against Gmail's discovery document; bounded; guidance, never a raise."""

from __future__ import annotations

import pytest

from toolspecs.core import AskUser, FixArguments
from toolspecs.server import build_server, sandbox_spec
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.gmail.base import MODIFY_SCOPE


def test_list_labels_shows_system_and_user_labels_with_ids(spec):
    out = spec.call_tool("list_labels").content
    assert out.startswith("System labels (id = name): CATEGORY_FORUMS, ")
    assert "INBOX" in out and "UNREAD" in out and "STARRED" in out
    assert "- Projects/Engine [Label_2]\n- Receipts [Label_1]\n- Travel [Label_3]" in out


def test_archive_and_mark_read(spec, gmail, ids):
    pair = [ids["plain"], ids["thread_1"]]
    out = spec.call_tool("modify_labels", message_ids=pair, add=["archive", "mark read"])
    assert out.is_error is False
    assert out.content.startswith(
        f"2 message(s) archived; marked read: {ids['plain']}, {ids['thread_1']}. "
        "Doing it again changes nothing. The reverse, modify_labels with the same ids and "
        "add=['INBOX', 'UNREAD'], applies to every id given: it undoes this exactly only if "
        "they all had the same labels before."
    )
    for message_id in pair:
        assert gmail.messages[message_id]["labelIds"] == []
    (call,) = [c for c in gmail.calls() if c.path.endswith("batchModify")]
    assert call.method == "POST"
    assert call.body == {"ids": pair, "removeLabelIds": ["INBOX", "UNREAD"]}
    # idempotent: the same call again leaves the same labels
    spec.call_tool("modify_labels", message_ids=pair, add=["archive", "mark read"])
    assert gmail.messages[ids["plain"]]["labelIds"] == []


def test_the_undo_hint_of_a_mixed_batch_does_not_promise_an_exact_undo(spec, gmail, ids):
    unread, read = ids["plain"], ids["thread_1"]
    spec.call_tool("modify_labels", message_ids=[read], add=["mark read"])
    out = spec.call_tool("modify_labels", message_ids=[unread, read], add=["mark read"]).content
    # add=['UNREAD'] on both would mark unread the one that was read before this call
    assert "to undo, call" not in out
    assert "add=['UNREAD'], applies to every id given" in out and "only if" in out


def test_names_ids_and_words_in_both_lists(spec, gmail, ids):
    one = ids["plain"]
    spec.call_tool("modify_labels", ids=f"{one}, {one}", add=["star", "receipts", "Label_3"])
    assert gmail.messages[one]["labelIds"] == ["INBOX", "UNREAD", "STARRED", "Label_1", "Label_3"]
    out = spec.call_tool("modify_labels", message_id=one, remove=["starred", "archive", "TRAVEL"])
    assert "unstarred; moved to the inbox; label «Travel» removed" in out.content
    assert gmail.messages[one]["labelIds"] == ["INBOX", "UNREAD", "Label_1"]
    # a label name or id only: labels.list is asked only when a name is not a system one
    listed = [c for c in gmail.calls() if c.path == "/users/me/labels"]
    assert len(listed) == 2
    spec.call_tool("modify_labels", message_ids=[one], remove=["UNREAD"])
    assert len([c for c in gmail.calls() if c.path == "/users/me/labels"]) == 2


def test_unknown_label_gets_the_close_matches(spec, gmail, ids):
    out = spec.call_tool("modify_labels", message_ids=[ids["plain"]], add=["Receits"])
    assert out.is_error is True
    assert out.content.startswith("There is no label «Receits». Close matches: «Receipts».")
    assert not any(c.path.endswith("batchModify") for c in gmail.calls())


def test_replies_name_the_other_label_tool_only_when_the_agent_has_it(spec, ids):
    def chosen(*names):
        return {t.metadata.name: t for t in spec.to_tool_list(spec_functions=list(names))}

    alone = chosen("list_labels")["list_labels"].call().content
    assert "modify_labels" not in alone and "search_messages" not in alone
    with_search = chosen("list_labels", "search_messages")["list_labels"].call().content
    assert with_search.endswith(
        "search_messages finds a label's mail, e.g. query='label:Receipts'."
    )
    both = chosen("list_labels", "modify_labels")["list_labels"].call().content
    assert both.endswith(
        "modify_labels takes these names or ids, and archive, mark read, mark unread, star."
    )

    unknown = {"message_ids": [ids["plain"]], "add": ["Receits"]}
    modify = chosen("modify_labels")["modify_labels"].call(**unknown)
    assert modify.is_error is True
    assert "list_labels" not in modify.content and "of a label the user has" in modify.content
    modify = chosen("modify_labels", "list_labels")["modify_labels"].call(**unknown)
    assert "Use a name or id from list_labels" in modify.content


def test_guidance_for_what_it_does_not_do(spec, ids):
    with pytest.raises(AskUser, match="does not change TRASH"):
        spec.modify_labels([ids["plain"]], add=["TRASH"])
    with pytest.raises(FixArguments, match="both put on and taken off"):
        spec.modify_labels([ids["plain"]], add=["archive"], remove=["archive"])
    with pytest.raises(FixArguments, match="no label to put on or take off"):
        spec.modify_labels([ids["plain"]])
    with pytest.raises(FixArguments, match="You did not provide message_ids"):
        spec.modify_labels([], add=["star"])


def test_at_most_1000_ids_a_call(spec, gmail):
    many = [f"{0x18F3A2C4D5E60000 + i:x}" for i in range(1001)]
    out = spec.call_tool("modify_labels", message_ids=many, add=["archive"])
    assert out.is_error is True
    assert "at most 1000 message ids a call (Google's limit); you sent 1001" in out.content
    assert gmail.calls() == []


def test_an_unknown_message_id_is_guidance(spec, gmail):
    out = spec.call_tool("modify_labels", message_ids=["18f000000000beef"], add=["archive"])
    assert out.is_error is True
    assert "Gmail found nothing there (HTTP 404)" in out.content


def test_without_the_modify_scope_the_user_is_told_how_to_allow_it(spec, gmail, ids):
    gmail.fail[("POST", "batchModify")] = [
        (403, "insufficientPermissions", "Request had insufficient authentication scopes.")
    ]
    out = spec.call_tool("modify_labels", message_ids=[ids["plain"]], add=["archive"])
    assert out.is_error is True
    assert "GmailToolSpec(allow_modify=True)" in out.content


def test_allow_modify_asks_for_the_scope(gmail):
    assert MODIFY_SCOPE not in GmailToolSpec(transport=gmail).reader.auth.scopes
    assert MODIFY_SCOPE in GmailToolSpec(transport=gmail, allow_modify=True).reader.auth.scopes


def test_marks_and_opt_in():
    spec = GmailToolSpec(transport=object())
    default = [t.metadata.name for t in spec.to_tool_list()]
    new = ["get_thread", "read_attachment", "list_labels", "modify_labels"]
    assert not set(new) & set(default)
    tools = {t.metadata.name: t for t in spec.to_tool_list(spec_functions=spec.all_functions)}
    modify = tools["modify_labels"].marks
    assert (modify.read_only, modify.destructive, modify.idempotent) == (False, False, True)
    assert modify.open_world is False
    for name in ("get_thread", "read_attachment", "list_labels"):
        assert tools[name].marks.read_only is True


def test_the_sandbox_reads_an_attachment_and_archives():
    spec = sandbox_spec("gmail")
    hit = spec.call_tool("search_messages", query="subject:diagram").content
    message_id = hit.split("[id: ", 1)[1].split(" ", 1)[0]
    assert (
        "Revenue: 4.2 million"
        in spec.call_tool("read_attachment", message_id=message_id, attachment_id="1").content
    )
    out = spec.call_tool("modify_labels", message_ids=[message_id], add=["archive"])
    assert out.content.startswith("1 message(s) archived")


async def test_over_mcp(gmail, ids):
    from mcp import Client

    spec = GmailToolSpec(transport=gmail)
    spec.spec_functions = spec.all_functions
    async with Client(build_server(spec)) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert {"get_thread", "read_attachment", "list_labels", "modify_labels"} <= set(names)
        thread = await client.call_tool("get_thread", {"thread_id": ids["thread_1"]})
        assert "2 message(s), oldest first" in thread.content[0].text
        read = await client.call_tool(
            "read_attachment", {"message_id": ids["attachments"], "attachment_id": "1"}
        )
        assert "Revenue: 4.2 million" in read.content[0].text
        done = await client.call_tool(
            "modify_labels", {"message_ids": [ids["plain"]], "add": ["mark read"]}
        )
        assert done.content[0].text.startswith("1 message(s) marked read")
    assert "UNREAD" not in gmail.messages[ids["plain"]]["labelIds"]
