"""The official TypeScript client shows the person what send_draft will send; a no sends nothing.

tests/mcp_client/confirm.mjs (``@modelcontextprotocol/sdk``) declares the elicitation
capability and answers every question as the test tells it. This module, run as a
script, serves the Gmail spec over a ``FakeGmail`` holding one draft (``r-ts``), and
writes what the mailbox sent and which drafts it holds to a file when the client leaves.
The SDK speaks a handshake revision: the server asks during the call (elicitation).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.serving

DRAFT = "r-ts"


def run_client(typescript_client, answer: str, calls: list[dict], state: Path) -> dict:
    return typescript_client.answers(
        "confirm.mjs", answer, json.dumps(calls), sys.executable, __file__, str(state)
    )


SEND_THEN_LOOK = [
    {"name": "send_draft", "arguments": {"draft_id": DRAFT}},
    {"name": "get_draft", "arguments": {"draft_id": DRAFT}},
]


def test_a_person_who_declines_in_the_typescript_client_sends_nothing(typescript_client, tmp_path):
    state = tmp_path / "mailbox.json"
    got = run_client(typescript_client, "decline", SEND_THEN_LOOK, state)

    [asked] = got["questions"]
    lines = asked["message"].splitlines()
    assert lines[0] == "Send this email? Once sent, it cannot be undone."
    assert "To: Ada Lovelace <ada@example.com>" in lines and "Cc: bob@example.net" in lines
    assert "Subject: «Fwd: Report and diagram»" in lines
    assert "Attachments (2, 3 KB): «Q4 report.pdf» (3 KB), «diagramme été.png» (70 B)" in lines
    assert asked["requestedSchema"]["required"] == ["confirm"]

    sent, looked = got["calls"]
    assert sent["isError"] is True
    assert "The user declined send_draft: it was not run" in sent["content"][0]["text"]
    assert looked["isError"] is False  # the draft is still there
    assert looked["content"][0]["text"].startswith(f"Draft id: {DRAFT} ")
    mailbox = json.loads(state.read_text())
    assert mailbox == {"sent": [], "sends": 0, "drafts": [DRAFT]}


def test_a_yes_in_the_typescript_client_sends_it(typescript_client, tmp_path):
    state = tmp_path / "mailbox.json"
    got = run_client(typescript_client, "yes", SEND_THEN_LOOK[:1], state)

    assert len(got["questions"]) == 1
    [sent] = got["calls"]
    assert sent["isError"] is False
    assert sent["content"][0]["text"].startswith(f"Draft {DRAFT} sent as message ")
    mailbox = json.loads(state.read_text())
    assert len(mailbox["sent"]) == 1 and mailbox["sends"] == 1 and mailbox["drafts"] == []


def _serve(state: Path) -> None:
    """Serve the Gmail spec over stdio; write the mailbox's state when the client leaves."""
    import signal

    import anyio

    from toolspecs.loaders.google.testing import sample_mailbox
    from toolspecs.server import build_server, serve_stdio
    from toolspecs.specs.gmail import GmailToolSpec

    gmail = sample_mailbox()
    spec = GmailToolSpec(transport=gmail)
    original = next(
        i for i in gmail.messages if gmail.parsed(i).header("subject") == "Report and diagram"
    )
    made = spec.call_tool(
        "create_draft",
        to=["Ada Lovelace <ada@example.com>"],
        cc=["bob@example.net"],
        message="Hi Ada,\n\nthe report you asked for.",
        forward_message_id=original,
    )
    gmail.drafts[DRAFT] = gmail.drafts.pop(made.raw_output["id"])
    # The client ends stdin, then sends SIGTERM if we are slow: leave through ``finally``.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        anyio.run(serve_stdio, build_server(spec))
    finally:
        sends = [r for r in gmail.calls() if r.path == "/users/me/drafts/send"]
        found = {"sent": gmail.sent, "sends": len(sends), "drafts": list(gmail.drafts)}
        state.write_text(json.dumps(found))


if __name__ == "__main__":  # the server the client starts
    _serve(Path(sys.argv[1]))
