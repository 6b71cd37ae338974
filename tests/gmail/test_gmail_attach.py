"""Drafts with files (attachment_dir) and forwards (forward_message_id): the raw MIME the
fake Gmail received, parsed back with the standard library, carries the parts."""

from __future__ import annotations

import os

import pytest

from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.gmail import attachments_dir as gmail_base
from toolspecs.specs.gmail import compose as gmail_compose

PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


@pytest.fixture
def folder(tmp_path):
    allowed = tmp_path / "outbox"
    allowed.mkdir()
    (allowed / "report.pdf").write_bytes(PDF)
    (allowed / "data.csv").write_text("a,b\n1,2\n")
    (allowed / "résumé.txt").write_text("Ada\n")
    (tmp_path / "secret.txt").write_text("not for mail")
    return allowed


@pytest.fixture
def gmail():
    return sample_mailbox()


@pytest.fixture
def spec(gmail, folder):
    return GmailToolSpec(transport=gmail, attachment_dir=folder)


def parts(mime):
    return [
        (p.get_filename(), p.get_content_type(), p.get_content()) for p in mime.iter_attachments()
    ]


def draft_writes(gmail):
    return [
        r for r in gmail.requests if r.path.startswith("/users/me/drafts") and r.method != "GET"
    ]


def test_create_draft_attaches_files_from_the_allowed_folder(spec, gmail):
    out = spec.call_tool(
        "create_draft",
        to=["ada@example.com"],
        message="See attached.",
        files=["report.pdf", "data.csv", "résumé.txt"],
    )
    assert out.is_error is False
    assert "Attached: report.pdf" in str(out) and "data.csv" in str(out)
    mime = gmail.last_draft_mime()
    assert mime.get_content_type() == "multipart/mixed"
    assert mime.get_body(("plain",)).get_content().strip() == "See attached."
    assert parts(mime) == [
        ("report.pdf", "application/pdf", PDF),
        ("data.csv", "text/csv", "a,b\n1,2\n"),
        ("résumé.txt", "text/plain", "Ada\n"),
    ]


@pytest.mark.parametrize(
    "name",
    ["../secret.txt", "sub/../../secret.txt", "{outside}", "link.txt", "missing.pdf", "{tmp}"],
)
def test_only_files_strictly_inside_the_folder_are_attached_and_nothing_is_written(
    spec, gmail, folder, name
):
    (folder / "link.txt").symlink_to(folder.parent / "secret.txt")
    name = name.format(outside=folder.parent / "secret.txt", tmp=folder.parent)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=[name])
    assert out.is_error is True
    assert "folder" in str(out) and "report.pdf" in str(out)  # names the files it may use
    assert "not for mail" not in str(out)
    assert draft_writes(gmail) == []


def test_an_absolute_path_inside_the_folder_and_a_symlink_inside_it_are_fine(spec, gmail, folder):
    (folder / "latest.pdf").symlink_to(folder / "report.pdf")
    out = spec.call_tool(
        "create_draft", to=["ada@example.com"], attachments=[str(folder / "data.csv"), "latest.pdf"]
    )
    assert out.is_error is False
    assert [name for name, _, _ in parts(gmail.last_draft_mime())] == ["data.csv", "latest.pdf"]


def test_without_a_folder_the_argument_is_hidden_and_a_call_is_told_the_user_must_allow_one(gmail):
    spec = GmailToolSpec(transport=gmail)
    for name in ("create_draft", "update_draft"):
        (tool,) = spec.to_tool_list(spec_functions=[name])
        assert "attachments" not in tool.metadata.fn_schema.model_json_schema()["properties"]
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["report.pdf"])
    assert out.is_error is True
    assert "attachment_dir" in str(out) and "user" in str(out)
    assert draft_writes(gmail) == []


def test_with_a_folder_the_schema_offers_attachments(spec):
    (tool,) = spec.to_tool_list(spec_functions=["create_draft"])
    assert "attachments" in tool.metadata.fn_schema.model_json_schema()["properties"]


def test_a_file_over_the_limit_and_files_over_gmails_total_are_refused(gmail, folder, monkeypatch):
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder, max_attachment_size=20)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["report.pdf"])
    assert out.is_error is True and "report.pdf" in str(out) and "link" in str(out)
    monkeypatch.setattr(gmail_base, "ATTACHMENTS_LIMIT", len(PDF) + 3)
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool(
        "create_draft", to=["ada@example.com"], attachments=["report.pdf", "data.csv"]
    )
    assert out.is_error is True and "together" in str(out)
    assert draft_writes(gmail) == []


def test_a_large_file_is_refused_by_its_size_without_being_read(gmail, folder, monkeypatch):
    big = folder / "video.mp4"
    with big.open("wb") as handle:  # sparse: 26 MB on paper
        handle.truncate(26 * 1024 * 1024)
    opened = []
    monkeypatch.setattr(gmail_base, "open_in", lambda *args: opened.append(args))
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["video.mp4"])
    assert out.is_error is True and "video.mp4" in str(out) and "25.0 MB" in str(out)
    assert opened == []  # refused by its size on the check, never opened
    assert draft_writes(gmail) == []


def swap_after_the_check(monkeypatch, swap):
    """Run ``swap`` between the folder check and the open (the race a check invites)."""
    real_open = gmail_base.open_in

    def racing_open(root, relative):
        swap()
        return real_open(root, relative)

    monkeypatch.setattr(gmail_base, "open_in", racing_open)


def test_a_file_swapped_for_a_symlink_after_the_check_is_not_attached(
    spec, gmail, folder, monkeypatch
):
    target = folder / "report.pdf"

    def swap():
        target.unlink()
        target.symlink_to(folder.parent / "secret.txt")

    swap_after_the_check(monkeypatch, swap)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["report.pdf"])
    assert out.is_error is True and "changed while it was being attached" in str(out)
    assert "not for mail" not in str(out)
    assert draft_writes(gmail) == []


def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_walked(
    spec, gmail, folder, monkeypatch
):
    (folder / "sub").mkdir()
    (folder / "sub" / "secret.txt").write_text("fine")
    outside = folder.parent / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("not for mail")

    def swap():
        (folder / "sub" / "secret.txt").unlink()
        (folder / "sub").rmdir()
        (folder / "sub").symlink_to(outside)

    swap_after_the_check(monkeypatch, swap)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["sub/secret.txt"])
    assert out.is_error is True and "changed while it was being attached" in str(out)
    assert draft_writes(gmail) == []


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_blocking_in_place_or_swapped_in(
    spec, gmail, folder, monkeypatch
):
    os.mkfifo(folder / "pipe.txt")
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["pipe.txt"])
    assert out.is_error is True and "regular file" in str(out)

    target = folder / "data.csv"

    def swap():  # nobody writes to it: a blocking open would wait forever
        target.unlink()
        os.mkfifo(target)

    swap_after_the_check(monkeypatch, swap)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["data.csv"])
    assert out.is_error is True and "changed while it was being attached" in str(out)
    assert draft_writes(gmail) == []


def test_a_hard_link_to_a_file_outside_is_refused_and_one_swapped_in_too(
    spec, gmail, folder, monkeypatch
):
    os.link(folder.parent / "secret.txt", folder / "notes.txt")
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["notes.txt"])
    assert out.is_error is True and "hard link" in str(out) and "copy" in str(out)
    assert "not for mail" not in str(out)

    target = folder / "data.csv"

    def swap():
        target.unlink()
        os.link(folder.parent / "secret.txt", target)

    swap_after_the_check(monkeypatch, swap)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["data.csv"])
    assert out.is_error is True and "changed while it was being attached" in str(out)
    assert draft_writes(gmail) == []


def test_update_draft_keeps_attachments_adds_by_name_and_empty_list_removes(spec, gmail):
    created = spec.create_draft(
        ["ada@example.com"], "Files", "Two files.", attachments=["report.pdf"]
    )
    draft_id = created["id"]
    spec.update_draft(draft_id=draft_id, subject="Files, again")
    mime = gmail.draft_mime(draft_id)
    assert str(mime["Subject"]) == "Files, again"
    assert parts(mime) == [("report.pdf", "application/pdf", PDF)]

    spec.update_draft(
        draft_id=draft_id, message="Now three.", attachments=["report.pdf", "data.csv"]
    )
    mime = gmail.draft_mime(draft_id)
    assert mime.get_body(("plain",)).get_content().strip() == "Now three."
    assert [name for name, _, _ in parts(mime)] == ["report.pdf", "data.csv"]

    out = spec.call_tool("update_draft", draft_id=draft_id, attachments=[])
    assert "No attachments" in str(out)
    mime = gmail.draft_mime(draft_id)
    assert mime.get_content_type() == "text/plain" and list(mime.iter_attachments()) == []
    assert mime.get_content().strip() == "Now three."


def test_a_plain_draft_gets_attachments_by_update(spec, gmail):
    draft_id = spec.create_draft(["ada@example.com"], "Plain", "Body stays.")["id"]
    spec.update_draft(draft_id=draft_id, attachments=["data.csv"])
    mime = gmail.draft_mime(draft_id)
    assert mime.get_body(("plain",)).get_content().strip() == "Body stays."
    assert [name for name, _, _ in parts(mime)] == ["data.csv"]


def test_update_with_a_bad_file_changes_nothing(spec, gmail):
    draft_id = spec.create_draft(["ada@example.com"], "Files", "x", attachments=["report.pdf"])[
        "id"
    ]
    before = len(draft_writes(gmail))
    out = spec.call_tool(
        "update_draft", draft_id=draft_id, subject="New", attachments=["../secret.txt"]
    )
    assert out.is_error is True
    assert len(draft_writes(gmail)) == before
    assert str(gmail.draft_mime(draft_id)["Subject"]) == "Files"


# -- forwarding ---------------------------------------------------------------------------


def by_subject(gmail, subject):
    return next(i for i in gmail.messages if gmail.parsed(i).header("subject") == subject)


def test_forward_quotes_the_original_and_keeps_its_attachments(gmail):
    spec = GmailToolSpec(transport=gmail)  # no folder needed to forward
    original = by_subject(gmail, "Report and diagram")
    out = spec.call_tool(
        "create_draft", to=["bob@example.net"], message="FYI, see below.", forward=original
    )
    assert out.is_error is False
    assert f"forwards message {original} with its 2 attachment(s)" in str(out)
    mime = gmail.last_draft_mime()
    assert str(mime["Subject"]) == "Fwd: Report and diagram"
    text = mime.get_body(("plain",)).get_content()
    assert text.startswith("FYI, see below.")
    assert "---------- Forwarded message ---------" in text
    assert "From: Ada Lovelace <ada@example.com>" in text and "Subject: Report and diagram" in text
    assert gmail.parsed(original).text.strip().splitlines()[0] in text
    before = {p.get_filename(): p.get_content() for p in gmail.mime(original).iter_attachments()}
    after = {p.get_filename(): p.get_content() for p in mime.iter_attachments()}
    assert after == before and set(after) == {"Q4 report.pdf", "diagramme été.png"}
    assert "In-Reply-To" not in mime


def test_forward_and_reply_together_are_refused(gmail):
    spec = GmailToolSpec(transport=gmail)
    original = by_subject(gmail, "Report and diagram")
    out = spec.call_tool("create_draft", forward_message_id=original, reply_to_message_id=original)
    assert out.is_error is True and "not both" in str(out)


def test_forwarded_attachments_over_gmails_limit_ask_the_user(gmail, monkeypatch):
    monkeypatch.setattr(gmail_compose, "ATTACHMENTS_LIMIT", 100)
    spec = GmailToolSpec(transport=gmail)
    original = by_subject(gmail, "Report and diagram")
    out = spec.call_tool("create_draft", to=["bob@example.net"], forward_message_id=original)
    assert out.is_error is True and "forward it from Gmail" in str(out)
    assert draft_writes(gmail) == []


def test_forward_of_an_unknown_message_is_guidance(gmail):
    out = GmailToolSpec(transport=gmail).call_tool("create_draft", forward_message_id="nope")
    assert out.is_error is True
    assert draft_writes(gmail) == []


def test_the_folder_may_be_given_on_the_command_line(folder, gmail):
    from toolspecs.cli.assemble import ServeSettings, build_specs

    settings = ServeSettings(names=["gmail"], options=[f"attachment_dir={folder}"])
    (spec,) = build_specs(settings).values()
    assert os.fspath(spec.attachment_dir) == str(folder)


def test_update_draft_keeps_attachments_by_number_even_unnamed_or_of_one_name(spec, gmail):
    from email.message import EmailMessage

    draft_id = spec.create_draft(["ada@example.com"], "Scans", "Three.", files=["data.csv"])["id"]
    # As the user left it in Gmail: two scans of one name and a part without a name.
    mime = EmailMessage()
    mime["To"], mime["Subject"] = "ada@example.com", "Scans"
    mime.set_content("Three.")
    mime.add_attachment(b"first", "application", "pdf", filename="scan.pdf")
    mime.add_attachment(b"second", "application", "pdf", filename="scan.pdf")
    mime.add_attachment(b"nameless", "application", "octet-stream")
    gmail.messages[gmail.drafts[draft_id]]["source"] = mime.as_bytes()

    out = spec.call_tool(
        "update_draft", draft_id=draft_id, attachments=["scan.pdf", "scan.pdf", "#3"]
    )
    assert out.is_error is False and "Removed" not in str(out)
    assert [p[2] for p in parts(gmail.draft_mime(draft_id))] == [b"first", b"second", b"nameless"]

    out = spec.call_tool("update_draft", draft_id=draft_id, attachments=["#2", "data.csv"])
    assert "Removed: #1 scan.pdf, #3 (no name) (to keep one, name it by its number" in str(out)
    assert [p[2] for p in parts(gmail.draft_mime(draft_id))] == [b"second", "a,b\n1,2\n"]

    out = spec.call_tool("update_draft", draft_id=draft_id, attachments=["#7"])
    assert out.is_error is True and "#1 to #2" in str(out)
