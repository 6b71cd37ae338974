"""The official TypeScript client opens the sign-in page a call needs; the call goes on.

tests/mcp_client/confirm.mjs (``@modelcontextprotocol/sdk``) declares URL-mode
elicitation and, told "yes", opens each page it is shown as a browser would (following
redirects). The fake Google is served over HTTP on 127.0.0.1 by this test: its consent
page agrees as Alice and sends the browser back to the server's loopback port; its token
endpoint answers the server's exchange. This module, run as a script, is the server: the
Gmail spec with an OAuth client file and no token, over Alice's fake mailbox behind
``googleapiclient``'s HTTP object. The SDK speaks a handshake revision. No network.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from google_signin_fakes import FakeGoogleAndMail, secret_of, served_google

from toolspecs.loaders.google.testing.oauth import FakeGoogleOAuth

pytestmark = pytest.mark.serving

ALICE = "alice@example.org"
SEARCH = {"name": "search_messages", "arguments": {"query": "quokka"}}


def run(typescript_client, answer: str, tmp_path: Path) -> tuple[dict, FakeGoogleOAuth]:
    google = FakeGoogleAndMail([ALICE]).google
    with served_google(google, consent_as=ALICE) as base:
        google.client_file(tmp_path / "credentials.json", authorize_url=f"{base}/auth")
        got = typescript_client.answers(
            "confirm.mjs", answer, json.dumps([SEARCH, SEARCH]), sys.executable, __file__,
            str(tmp_path),
        )  # fmt: skip
    return got, google


def test_the_typescript_client_opens_the_sign_in_page_and_the_call_goes_on(
    typescript_client, tmp_path
):
    got, google = run(typescript_client, "yes", tmp_path)
    [page] = got["pages"]
    assert page["url"].startswith(f"{google.token_url.removesuffix('/token')}/auth?")
    assert "Gmail needs your Google sign-in" in page["message"] and page["status"] == 200
    first, second = got["calls"]
    assert first["isError"] is False, first["content"][0]["text"]
    assert secret_of(ALICE) in first["content"][0]["text"]
    assert second["isError"] is False  # signed in: no page the second time
    saved = json.loads((tmp_path / "token.json").read_text())
    assert saved["token"] == google.users[ALICE].access_tokens[-1]


def test_a_person_who_declines_the_page_in_the_typescript_client_runs_nothing(
    typescript_client, tmp_path
):
    got, _ = run(typescript_client, "decline", tmp_path)
    assert len(got["pages"]) == 2 and all(p["status"] is None for p in got["pages"])
    for call in got["calls"]:
        assert call["isError"] is True
        assert "did not sign in, so search_messages was not run" in call["content"][0]["text"]
    assert not (tmp_path / "token.json").exists()


def _serve(folder: Path) -> None:
    """Serve the Gmail spec over stdio: an OAuth client file, no token, Alice's mailbox."""
    import signal

    import anyio
    import googleapiclient.discovery
    import googleapiclient.http

    from toolspecs.server import build_server, serve_stdio
    from toolspecs.specs.gmail import GmailToolSpec

    # The fake Google is served over plain HTTP on 127.0.0.1, which oauthlib refuses
    # unless told (Google itself is HTTPS): for this test server only.
    os.environ["OAUTHLIB_INSECURE_TRANSPORT"] = "1"
    mailbox = FakeGoogleAndMail([ALICE]).mailboxes[ALICE]
    googleapiclient.http.build_http = lambda: mailbox  # Gmail's HTTP object: the fake
    googleapiclient.discovery.build_http = lambda: mailbox
    spec = GmailToolSpec(
        credentials_path=str(folder / "credentials.json"),
        token_path=str(folder / "token.json"),
        auth_flow="none",
    )
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    anyio.run(serve_stdio, build_server(spec))


if __name__ == "__main__":  # the server the client starts
    _serve(Path(sys.argv[1]))
