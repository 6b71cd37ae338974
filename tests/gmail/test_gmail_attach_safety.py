"""attachment_dir served safely (issue 22): no secrets, no working directory, bounded memory.

The fake Gmail records what was written; a draft that must not be made leaves no write.
"""

from __future__ import annotations

import json

import pytest

from toolspecs.core import ConfigurationError
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import GmailToolSpec
from toolspecs.specs.gmail import attachments_dir as gmail_base

SECRET = "refresh-token-SECRET-1//0g"


@pytest.fixture
def gmail():
    return sample_mailbox()


@pytest.fixture
def folder(tmp_path):
    allowed = tmp_path / "outbox"
    allowed.mkdir()
    (allowed / "report.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (allowed / ".env").write_text(f"API_KEY={SECRET}\n")
    (allowed / ".git").mkdir()
    (allowed / ".git" / "config").write_text(f"[remote]\n\turl = https://{SECRET}@x\n")
    (allowed / "sub").mkdir()
    (allowed / "sub" / ".ssh").mkdir()
    (allowed / "sub" / ".ssh" / "id_rsa").write_text(SECRET)
    return allowed


def draft_writes(gmail):
    return [
        r for r in gmail.requests if r.path.startswith("/users/me/drafts") and r.method != "GET"
    ]


def attached_names(gmail):
    return [p.get_filename() for p in gmail.last_draft_mime().iter_attachments()]


def count_opens(monkeypatch):
    opened = []
    real_open = gmail_base.open_in

    def counting_open(root, relative):
        opened.append(relative)
        return real_open(root, relative)

    monkeypatch.setattr(gmail_base, "open_in", counting_open)
    return opened


# -- (5) secrets inside the folder ---------------------------------------------------------


@pytest.mark.parametrize(
    "name", [".env", ".git/config", "sub/.ssh/id_rsa", "{folder}/.env", "notes.txt"]
)
def test_hidden_files_and_files_in_hidden_folders_are_never_attached(gmail, folder, name):
    (folder / "notes.txt").symlink_to(folder / ".env")  # a plain name leading to a hidden file
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool(
        "create_draft", to=["ada@example.com"], attachments=[name.format(folder=folder)]
    )
    assert out.is_error is True
    assert "hidden" in str(out) and "report.pdf" in str(out)  # what it may attach instead
    assert SECRET not in str(out)
    assert draft_writes(gmail) == []


def test_the_specs_own_sign_in_files_are_never_attached(gmail, folder):
    for name in ("token.json", "credentials.json", "sa-key.json", "token.work.calendar.json"):
        (folder / name).write_text(json.dumps({"refresh_token": SECRET}))
    spec = GmailToolSpec(
        transport=gmail,
        attachment_dir=folder,
        token_path=str(folder / "token.json"),
        credentials_path=str(folder / "credentials.json"),
        service_account_key_path=str(folder / "sa-key.json"),
    )
    (folder / "latest.json").symlink_to(folder / "token.json")
    for name in (
        "token.json",
        "credentials.json",
        "sa-key.json",
        "token.gmail.json",  # its own scope set's token, beside token_path
        "token.work.calendar.json",  # another account's or spec's, beside token_path
        "latest.json",  # a symlink to one: compared where it really is
    ):
        if not (folder / name).exists():
            (folder / name).write_text(json.dumps({"refresh_token": SECRET}))
        out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=[name])
        assert out.is_error is True, name
        assert "sign-in files" in str(out) and SECRET not in str(out)
    assert draft_writes(gmail) == []


def test_the_default_token_and_client_files_in_the_working_directory_are_not_attached(
    gmail, folder, monkeypatch
):
    # LlamaHub's defaults: token.json and credentials.json, relative to where it runs.
    (folder / "token.json").write_text(json.dumps({"refresh_token": SECRET}))
    (folder / "credentials.json").write_text(json.dumps({"installed": {"client_secret": SECRET}}))
    monkeypatch.chdir(folder)
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    for name in ("token.json", "credentials.json"):
        out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=[name])
        assert out.is_error is True and "sign-in files" in str(out)
    assert draft_writes(gmail) == []


def test_a_wrong_name_lists_no_hidden_or_sign_in_files(gmail, folder):
    (folder / "token.json").write_text("{}")
    (folder / "data.csv").write_text("a,b\n")
    spec = GmailToolSpec(
        transport=gmail, attachment_dir=folder, token_path=str(folder / "token.json")
    )
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["missing.pdf"])
    assert out.is_error is True
    assert "Its files: data.csv, report.pdf." in str(out)
    for hidden in (".env", ".git", "token.json"):
        assert hidden not in str(out)


# -- (6) an empty folder setting is not the working directory -----------------------------


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_or_blank_attachment_dir_turns_attaching_off(gmail, folder, monkeypatch, value):
    monkeypatch.chdir(folder)  # it once meant '.': this folder
    spec = GmailToolSpec(transport=gmail, attachment_dir=value)
    assert spec.attachment_dir is None
    (tool,) = spec.to_tool_list(spec_functions=["create_draft"])
    assert "attachments" not in tool.metadata.fn_schema.model_json_schema()["properties"]
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["report.pdf"])
    assert out.is_error is True and "not enabled" in str(out)
    assert draft_writes(gmail) == []


def test_an_empty_attachment_dir_on_the_command_line_turns_attaching_off(folder, monkeypatch):
    from toolspecs.cli.assemble import ServeSettings, build_specs

    monkeypatch.chdir(folder)
    settings = ServeSettings(names=["gmail"], options=["attachment_dir="])
    (spec,) = build_specs(settings).values()
    assert spec.attachment_dir is None


@pytest.mark.parametrize("value", [".", "outbox", "./outbox", "outbox/sub"])
def test_a_relative_attachment_dir_is_a_configuration_error(folder, monkeypatch, value):
    monkeypatch.chdir(folder.parent)
    with pytest.raises(ConfigurationError) as caught:
        GmailToolSpec(transport=sample_mailbox(), attachment_dir=value)
    message = str(caught.value)
    assert "relative" in message and "absolute" in message and "\n" not in message


def test_the_root_or_home_folder_itself_is_refused_and_a_folder_under_home_is_fine(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "outbox").mkdir()
    for value in ("/", str(tmp_path), "~", "~/"):
        with pytest.raises(ConfigurationError, match="folder"):
            GmailToolSpec(transport=sample_mailbox(), attachment_dir=value)
    spec = GmailToolSpec(transport=sample_mailbox(), attachment_dir="~/outbox")
    assert spec.attachment_dir == tmp_path / "outbox"


# -- (11) memory: nothing is read before everything is checked -----------------------------


def test_a_file_named_many_times_is_read_once_and_attached_once(gmail, folder, monkeypatch):
    opened = count_opens(monkeypatch)
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["report.pdf"] * 30)
    assert out.is_error is False
    assert attached_names(gmail) == ["report.pdf"]
    assert len(opened) == 1


def test_more_files_than_the_limit_are_refused_before_any_is_read(gmail, folder, monkeypatch):
    names = [f"file{n}.txt" for n in range(gmail_base.MAX_ATTACHMENT_FILES + 1)]
    for name in names:
        (folder / name).write_text("x")
    opened = count_opens(monkeypatch)
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=names)
    assert out.is_error is True
    assert f"at most {gmail_base.MAX_ATTACHMENT_FILES} files" in str(out)
    assert opened == [] and draft_writes(gmail) == []
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=names[:-1])
    assert out.is_error is False and len(opened) == gmail_base.MAX_ATTACHMENT_FILES


def test_files_over_gmails_total_are_refused_from_their_sizes_before_any_is_read(
    gmail, folder, monkeypatch
):
    for name in ("a.bin", "b.bin"):
        with (folder / name).open("wb") as handle:  # sparse: 13 MB each on paper
            handle.truncate(13 * 1024 * 1024)
    opened = count_opens(monkeypatch)
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    out = spec.call_tool("create_draft", to=["ada@example.com"], attachments=["a.bin", "b.bin"])
    assert out.is_error is True and "together" in str(out) and "25.0 MB" in str(out)
    assert opened == [] and draft_writes(gmail) == []


def test_update_draft_counts_the_kept_attachments_before_reading_a_file(gmail, folder, monkeypatch):
    spec = GmailToolSpec(transport=gmail, attachment_dir=folder)
    draft_id = spec.create_draft(["ada@example.com"], "Files", "x", attachments=["report.pdf"])[
        "id"
    ]
    with (folder / "big.bin").open("wb") as handle:
        handle.truncate(25 * 1024 * 1024)  # alone within the limit; with report.pdf over it
    opened = count_opens(monkeypatch)
    out = spec.call_tool("update_draft", draft_id=draft_id, attachments=["#1", "big.bin"])
    assert out.is_error is True and "together" in str(out)
    assert opened == []
