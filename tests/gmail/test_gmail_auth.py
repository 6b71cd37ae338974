"""A sign-in Google no longer accepts: guidance says what to do, never what Google answered.

google-auth's ``RefreshError`` carries the token endpoint's whole answer in its args
(``('invalid_grant: Token has been expired or revoked.', {'error': ..., ...})``); that
answer is not for the agent (nor for the model provider's logs). Real
``google.oauth2.credentials.Credentials`` refresh against a fake token endpoint, at the
HTTP boundary: ``responses`` for the refresh at start-up (google-auth's requests
transport), and an httplib2 stand-in under ``google_auth_httplib2.AuthorizedHttp`` for a
refresh in the middle of a call.
"""

from __future__ import annotations

import json

import pytest
import responses
from google.oauth2.credentials import Credentials
from google_auth_httplib2 import AuthorizedHttp
from refused_google_token import ANSWER, TOKEN, TOKEN_URI, TokenEndpoint

from toolspecs.core import AskUser
from toolspecs.loaders.google.testing import sample_mailbox
from toolspecs.specs.gmail import SCOPES, GmailToolSpec

NEVER_SHOWN = (
    "invalid_grant",
    "error_description",
    "Token has been expired or revoked",
    "SECRET-SESSION-42",
    "revoked-refresh-token",
    "GOCSPX",
    "{",
)


def assert_guidance_without_the_answer(out, fix):
    assert out.is_error is True
    assert isinstance(out.exception, AskUser)
    assert "sign-in expired or was revoked" in out.content
    assert fix in out.content
    for secret in NEVER_SHOWN:
        assert secret not in out.content, secret


@responses.activate
def test_a_refresh_refused_at_sign_in_is_guidance_without_googles_answer(tmp_path):
    token = tmp_path / "token.gmail.json"
    token.write_text(json.dumps(TOKEN))
    refresh = responses.post(TOKEN_URI, json=ANSWER, status=400)
    out = GmailToolSpec(token_path=str(token)).call_tool("search_messages", query="x")
    assert refresh.call_count == 1  # the real refresh ran, and Google refused it
    assert_guidance_without_the_answer(out, "delete token.gmail.json and authorize again")
    assert str(tmp_path) not in out.content  # the file's name, not where it lies


@pytest.mark.parametrize("tool", ["search_messages", "list_drafts"])
def test_a_refresh_refused_during_a_call_is_guidance_without_googles_answer(
    tool, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # no token file: the hint names the one Gmail would read
    expired = Credentials.from_authorized_user_info(TOKEN, SCOPES)
    assert expired.expired
    http = TokenEndpoint(sample_mailbox())
    spec = GmailToolSpec(transport=AuthorizedHttp(expired, http=http))
    out = spec.call_tool(tool)
    assert http.refreshes >= 1
    assert_guidance_without_the_answer(out, "delete token.json and authorize again")


def test_a_refresh_refused_during_a_call_names_the_token_file_not_its_folder(tmp_path):
    expired = Credentials.from_authorized_user_info(TOKEN, SCOPES)
    http = TokenEndpoint(sample_mailbox())
    token = tmp_path / "private" / "token.json"
    spec = GmailToolSpec(token_path=str(token), transport=AuthorizedHttp(expired, http=http))
    out = spec.call_tool("list_drafts")
    assert_guidance_without_the_answer(out, "delete token.json and authorize again")
    assert str(tmp_path) not in out.content and "private" not in out.content
