"""A Google user whose refresh token Google refuses: their expired token, and Google's answer.

Shared by the tests of a refused refresh (tests/gmail/test_gmail_auth.py) and of a spec
acting for a served user (tests/google_base/test_google_hosting.py).
"""

from __future__ import annotations

import json

import httplib2

from toolspecs.specs.gmail import SCOPES

TOKEN_URI = "https://oauth2.googleapis.com/token"
ANSWER = {
    "error": "invalid_grant",
    "error_description": "Token has been expired or revoked.",
    "error_uri": "https://accounts.example/oauth-debug?session=SECRET-SESSION-42",
}
TOKEN = {
    "token": "ya29.old-access-token",
    "refresh_token": "1//revoked-refresh-token",
    "client_id": "cid.apps.googleusercontent.com",
    "client_secret": "GOCSPX-client-secret",
    "token_uri": TOKEN_URI,
    "expiry": "2020-01-01T00:00:00Z",
    "scopes": SCOPES,
}


class TokenEndpoint:
    """httplib2 stand-in: the token endpoint refuses; everything else goes to Gmail."""

    def __init__(self, gmail):
        self.gmail = gmail
        self.refreshes = 0

    def request(self, uri, method="GET", body=None, headers=None, **kwargs):
        if uri == TOKEN_URI:
            self.refreshes += 1
            reply = httplib2.Response({"status": "400", "content-type": "application/json"})
            return reply, json.dumps(ANSWER).encode()
        return self.gmail.request(uri, method, body, headers, **kwargs)
