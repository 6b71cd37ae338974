"""Sign in with Google: this server is the MCP clients' authorization server.

Google's OAuth endpoints are faked at the HTTP boundary (``FakeGoogleOAuth``: the
provider's requests through an ``httpx2.MockTransport``, google-auth's refresh through
``responses``); the server runs in this process on 127.0.0.1 under uvicorn, and mcp's
own client signs in with its OAuth support (``OAuthClientProvider``: discovery,
dynamic registration, PKCE, the redirect answered here as a person's browser would).
Each user's Gmail tools run against their own fake mailbox. No network.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
from cryptography.fernet import Fernet
from google_signin_fakes import (
    CLIENT_ID,
    CLIENT_SECRET,
    SCOPES,
    SIGN_IN_ENV,
    FakeGoogleAndMail,
    consent_form,
    on_uvicorn,
    refreshed_by_google,
    secret_of,
)
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from serving import refused_in_one_line, toolspecs_serve

from toolspecs.core.errors import ConfigurationError
from toolspecs.hosting.google.accounts import GoogleSignIn
from toolspecs.hosting.google.signin import GoogleSignInProvider
from toolspecs.loaders.google.testing import FakeGmail, long_message
from toolspecs.server import build_server
from toolspecs.server.signin_app import sign_in_app
from toolspecs.server.token_vault import RedisTokenVault, TokenVault, fernet_from_env
from toolspecs.server.user_tools import User, UserTools
from toolspecs.specs.gmail import GmailToolSpec

PEOPLE = ("alice@example.org", "bob@example.org", "carol@example.org")


class Running(FakeGoogleAndMail):
    """The server, the fakes, and what the test looks at."""

    def __init__(self) -> None:
        super().__init__(PEOPLE)
        self.mailboxes[PEOPLE[0]].add_message(long_message(3))  # "the engine ran 21 cycles"
        self.vault = TokenVault(Fernet(Fernet.generate_key()))
        self.built: dict[str, str] = {}  # email -> the Google access token its specs got
        self.creds: dict[str, Any] = {}  # email -> the credentials its specs got
        self.url = ""
        self.provider: GoogleSignInProvider | None = None
        self.user_tools: UserTools | None = None

    def build(self, user: Any) -> list:
        assert self.provider is not None
        creds = self.provider.credentials(user.subject)
        self.built[user.email] = creds.token
        self.creds[user.email] = creds
        spec = GmailToolSpec(creds=creds, transport=self.mailboxes[user.email])
        return spec.to_tool_list(prefix="gmail_")


@contextlib.contextmanager
def serving(**options: Any) -> Iterator[Running]:
    """The server on 127.0.0.1; ``options`` go to the provider (``limits``, ``state``)."""
    running = Running()
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    running.url = f"http://127.0.0.1:{port}/mcp"
    settings = GoogleSignIn(CLIENT_ID, CLIENT_SECRET, SCOPES)
    provider = GoogleSignInProvider(
        settings,
        running.vault,
        f"http://127.0.0.1:{port}",
        running.url,
        transport=running.transport(),
        **options,
    )
    running.provider = provider
    issuer = provider.issuer
    provider.on_forget.append(
        lambda subject: running.user_tools and running.user_tools.drop(User.named(subject, issuer))
    )
    listed = GmailToolSpec(transport=FakeGmail()).to_tool_list(prefix="gmail_")
    names = [t.metadata.get_name() for t in listed]
    running.user_tools = UserTools(running.build, names)
    server = build_server(listed, user_tools=running.user_tools)
    app = sign_in_app(server, provider, streamable_http_path="/mcp")
    with refreshed_by_google(running.google), on_uvicorn(app, listening):
        yield running


@pytest.fixture(scope="module")
def running() -> Iterator[Running]:
    with serving() as started:
        yield started


class Storage:
    """mcp's ``TokenStorage``, in memory (what a client keeps between requests)."""

    def __init__(self) -> None:
        self.tokens: Any = None
        self.client: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client

    async def set_client_info(self, client_info: Any) -> None:
        self.client = client_info


async def approved(
    browser: httpx2.AsyncClient,
    authorize_url: str,
    meanwhile: Callable[[], Awaitable[None]] | None = None,
) -> str:
    """The person opens the /authorize link and approves on our page: Google's URL.

    ``meanwhile`` runs after /authorize, before the person reads the page.
    """
    to_consent = await browser.get(authorize_url)
    assert to_consent.status_code == 302, to_consent.text
    if meanwhile is not None:
        await meanwhile()
    page = await browser.get(to_consent.headers["location"])
    action, form = consent_form(page, "approve")
    to_google = await browser.post(action, data=form)
    assert to_google.status_code == 303, to_google.text
    return str(to_google.headers["location"])


async def signed_in(
    running: Running,
    email: str,
    calls: list[tuple[str, dict]],
    storage: Storage | None = None,
    meanwhile: Callable[[], Awaitable[None]] | None = None,
    codes: list[str] | None = None,
) -> list:
    """``email`` connects with mcp's OAuth client, consents at the fake Google, calls.

    ``meanwhile`` runs while the person is on their way (see :func:`approved`); each code
    of ours the client is given is added to ``codes``.
    """
    answered: dict[str, str | None] = {}

    async def browser(authorize_url: str) -> None:
        # What the person's browser does (keeping its cookies): our /authorize shows our
        # consent page, where they approve; that sends it to Google; Google's consent
        # sends it to our callback; that sends it to the client with a code.
        async with httpx2.AsyncClient(timeout=30, follow_redirects=False) as browser:
            to_google = await approved(browser, authorize_url, meanwhile)
            back = running.google.consent(to_google, email)
            to_client = await browser.get(back)
            assert to_client.status_code == 302, to_client.text
        query = parse_qs(urlsplit(to_client.headers["location"]).query)
        answered["code"] = query["code"][0]
        answered["state"] = query.get("state", [None])[0]
        if codes is not None:
            codes.append(query["code"][0])

    async def callback() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=answered["code"], state=answered["state"])

    auth = OAuthClientProvider(
        server_url=running.url,
        client_metadata=OAuthClientMetadata(
            client_name="test client",
            redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=storage or Storage(),
        redirect_handler=browser,
        callback_handler=callback,
    )
    with anyio.fail_after(60):
        async with (
            httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30)) as http,
            Client(streamable_http_client(running.url, http_client=http)) as session,
        ):
            names = [t.name for t in (await session.list_tools()).tools]
            return [names] + [await session.call_tool(n, a) for n, a in calls]


def text_of(result: Any) -> str:
    # A stored result also links its resource (test_mcp_resources.py): the text comes first.
    block, *links = result.content
    assert all(link.type == "resource_link" for link in links)
    return block.text


SEARCH = ("gmail_search_messages", {"query": "quokka"})


def test_each_user_signs_in_with_google_and_reads_their_own_mailbox_only(running, caplog):
    caplog.set_level(logging.DEBUG)
    found = {}
    for email in PEOPLE[:2]:
        names, result = anyio.run(signed_in, running, email, [SEARCH])
        assert "gmail_search_messages" in names
        assert result.is_error is False, text_of(result)
        found[email] = text_of(result)
    alice, bob = PEOPLE[:2]
    assert secret_of(alice) in found[alice] and secret_of(bob) not in found[alice]
    assert secret_of(bob) in found[bob] and secret_of(alice) not in found[bob]
    # Each one's specs were built with that user's own Google token.
    google = running.google.users
    assert running.built[alice] in google[alice].access_tokens
    assert running.built[bob] in google[bob].access_tokens
    # Google was asked for the served tools' scopes and who the user is, with PKCE.
    assert google[alice].scopes == ["openid", "email", *SCOPES]
    # No Google token, nor any token or code of ours, in any record the server logged
    # (the client in this process logs its own requests to the server: not ours).
    logged = "\n".join(
        record.getMessage()
        for record in caplog.records
        if not record.name.startswith(("mcp.client", "httpcore2"))
        and not (record.name.startswith("httpx2") and "127.0.0.1" in record.getMessage())
    )
    assert "oauth2.googleapis.com/token" in logged  # the server's own requests are there
    secrets = [t for u in google.values() for t in u.access_tokens + u.refresh_tokens]
    assert secrets and not any(s in logged for s in secrets)
    assert "code=" not in logged and "Bearer " not in logged


def test_google_tokens_at_rest_cannot_be_read_without_the_key(running):
    anyio.run(signed_in, running, PEOPLE[0], [])
    user = running.google.users[PEOPLE[0]]
    sealed = running.vault.sealed(user.sub)
    assert sealed is not None
    assert not any(t.encode() in sealed for t in user.access_tokens + user.refresh_tokens)
    assert PEOPLE[0].encode() not in sealed
    stranger = TokenVault(Fernet(Fernet.generate_key()))
    stranger._write(user.sub, sealed)
    assert stranger.get(user.sub) is None  # another key reads nothing
    assert running.vault.get(user.sub)["refresh_token"] in user.refresh_tokens


def test_a_revoked_google_access_is_ask_the_user_guidance_to_sign_in_again(running):
    carol = PEOPLE[2]
    kept = Storage()  # her client keeps its tokens of this server
    _, first = anyio.run(signed_in, running, carol, [SEARCH], kept)
    assert first.is_error is False and secret_of(carol) in text_of(first)
    # Carol removes the app at Google, her Google access token expires, and her tools
    # are built anew (a new replica, or dropped when idle): the refresh is refused.
    running.google.revoke(carol)
    sub = running.google.users[carol].sub
    record = running.vault.get(sub)
    running.vault.put(sub, {**record, "expiry": time.time() - 60})
    assert running.provider is not None and running.user_tools is not None
    running.user_tools.drop(User.named(sub, running.provider.issuer))
    (_, again) = anyio.run(signed_in, running, carol, [SEARCH], kept)
    assert again.is_error is True
    said = text_of(again)
    assert "expired or was revoked" in said and "sign in with Google again" in said
    assert "invalid_grant" not in said and secret_of(carol) not in said
    assert running.vault.get(sub) is None  # her tokens are forgotten


def test_the_server_refuses_to_start_without_a_token_key(monkeypatch):
    monkeypatch.delenv("TOOLSPECS_TOKEN_KEY", raising=False)
    with pytest.raises(ConfigurationError, match="TOOLSPECS_TOKEN_KEY"):
        fernet_from_env()
    monkeypatch.setenv("TOOLSPECS_TOKEN_KEY", "not-a-key")
    with pytest.raises(ConfigurationError, match="not a Fernet key"):
        fernet_from_env()
    monkeypatch.setenv("TOOLSPECS_TOKEN_KEY", Fernet.generate_key().decode())
    assert fernet_from_env() is not None


def test_the_google_client_comes_from_options_or_the_environment(monkeypatch):
    monkeypatch.delenv("TOOLSPECS_GOOGLE_CLIENT_ID", raising=False)
    monkeypatch.delenv("TOOLSPECS_GOOGLE_CLIENT_SECRET", raising=False)
    with pytest.raises(ConfigurationError, match="TOOLSPECS_GOOGLE_CLIENT_SECRET"):
        GoogleSignIn.from_env(SCOPES)
    monkeypatch.setenv("TOOLSPECS_GOOGLE_CLIENT_ID", "id")
    monkeypatch.setenv("TOOLSPECS_GOOGLE_CLIENT_SECRET", "shh")
    settings = GoogleSignIn.from_env(SCOPES)
    assert settings.requested == ["openid", "email", *SCOPES] and "shh" not in repr(settings)


@pytest.mark.serving
def test_sign_in_settings_that_cannot_work_are_refused_in_one_line():
    key = Fernet.generate_key().decode()
    cases = [
        (("--http", "--google-sign-in"), {}, "TOOLSPECS_TOKEN_KEY"),
        (
            ("--http", "--google-sign-in"),
            {"TOOLSPECS_TOKEN_KEY": key, "TOOLSPECS_GOOGLE_CLIENT_SECRET": ""},
            "TOOLSPECS_GOOGLE_CLIENT_SECRET",
        ),
        (("--google-sign-in",), {"TOOLSPECS_TOKEN_KEY": key}, "is for --http"),
        (("--http", "--public-url", "https://mcp.example.com"), {}, "is for --google-sign-in"),
        # Served to other machines, the issuer and Google's redirect URI must be the
        # address browsers reach (mcp refuses a plain-http issuer with a traceback).
        (
            (
                "--http",
                "--google-sign-in",
                "--host",
                "0.0.0.0",
                "--allow-remote",
                "--allowed-host",
                "mcp.example.com",
            ),
            {"TOOLSPECS_TOKEN_KEY": key},
            "needs --public-url https://HOST",
        ),
        (
            ("--http", "--google-sign-in", "--public-url", "http://mcp.example.com"),
            {"TOOLSPECS_TOKEN_KEY": key},
            "is not an https URL",
        ),
        (
            ("--http", "--google-sign-in", "--public-url", "https://mcp.example.com/mcp"),
            {"TOOLSPECS_TOKEN_KEY": key},
            "give the origin alone",
        ),
        (
            ("--http", "--google-sign-in", "--auth-issuer", "https://login.example.com"),
            {"TOOLSPECS_TOKEN_KEY": key},
            "not both",
        ),
    ]
    for args, env, message in cases:
        environment = {**os.environ, **SIGN_IN_ENV, **env}
        if "TOOLSPECS_TOKEN_KEY" not in env:
            environment.pop("TOOLSPECS_TOKEN_KEY", None)
        line = refused_in_one_line(*args, env=environment)
        assert message in line, (args, line)


@pytest.mark.serving
def test_serve_google_sign_in_is_an_authorization_server_sending_people_to_google():
    environment = {
        **os.environ,
        **SIGN_IN_ENV,
        "TOOLSPECS_TOKEN_KEY": Fernet.generate_key().decode(),
    }
    with toolspecs_serve("gmail", "--google-sign-in", env=environment) as (url, said):
        base = url.rsplit("/", 1)[0]
        assert f"{base}/oauth/google/callback" in said[-1]  # the line after the URL's
        with httpx2.Client(timeout=30) as http:
            unauthorized = http.post(url, json={}, headers={"Accept": "application/json"})
            assert unauthorized.status_code == 401
            assert "resource_metadata=" in unauthorized.headers["www-authenticate"]
            metadata = http.get(f"{base}/.well-known/oauth-authorization-server").json()
            assert metadata["issuer"] == base
            assert metadata["code_challenge_methods_supported"] == ["S256"]
            client = http.post(
                metadata["registration_endpoint"],
                json={
                    "redirect_uris": ["http://127.0.0.1:9/cb"],
                    "token_endpoint_auth_method": "none",
                },
            ).json()
            query = {
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": "http://127.0.0.1:9/cb",
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "code_challenge_method": "S256",
                "state": "s",
                "resource": url,
            }
            sent = http.get(metadata["authorization_endpoint"], params=query)
            assert sent.status_code == 302
            assert sent.headers["location"].startswith(f"{base}/oauth/consent?")  # ours first
            action, form = consent_form(http.get(sent.headers["location"]), "approve")
            approved = http.post(action, data=form)
        assert approved.status_code == 303
        google = approved.headers["location"]
        assert google.startswith("https://accounts.google.com/o/oauth2/v2/auth?")
        asked = parse_qs(urlsplit(google).query)
        scopes = asked["scope"][0].split()
        assert scopes[:2] == ["openid", "email"]
        assert all(s.startswith("https://www.googleapis.com/auth/gmail.") for s in scopes[2:])
        assert asked["redirect_uri"] == [f"{base}/oauth/google/callback"]
        assert asked["client_id"] == [CLIENT_ID] and CLIENT_SECRET not in google


@pytest.mark.serving
def test_behind_a_tls_proxy_the_public_url_is_the_issuer_the_consent_and_googles_redirect():
    environment = {
        **os.environ,
        **SIGN_IN_ENV,
        "TOOLSPECS_TOKEN_KEY": Fernet.generate_key().decode(),
    }
    public = "https://mcp.example.com"
    args = ("gmail", "--google-sign-in", "--public-url", public)
    with toolspecs_serve(*args, env=environment) as (url, said):
        assert f"register {public}/oauth/google/callback" in said[-1]
        # What the proxy passes on: the name clients use, without the default port.
        proxied = {"Host": "mcp.example.com", "X-Forwarded-Proto": "https"}
        with httpx2.Client(timeout=30, headers=proxied) as http:
            unauthorized = http.post(url, json={}, headers={"Accept": "application/json"})
            assert unauthorized.status_code == 401
            pointer = unauthorized.headers["www-authenticate"]
            assert f'resource_metadata="{public}/.well-known/oauth-protected-resource' in pointer
            base = url.rsplit("/", 1)[0]
            metadata = http.get(f"{base}/.well-known/oauth-authorization-server").json()
            assert metadata["issuer"] == public
            assert metadata["authorization_endpoint"] == f"{public}/authorize"
            redirect = "http://127.0.0.1:9/cb"
            client = http.post(
                f"{base}/register",
                json={"redirect_uris": [redirect], "token_endpoint_auth_method": "none"},
            ).json()
            query = {
                "response_type": "code",
                "client_id": client["client_id"],
                "redirect_uri": redirect,
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                "code_challenge_method": "S256",
                "state": "s",
                "resource": f"{public}/mcp",
            }
            sent = http.get(f"{base}/authorize", params=query)
            assert sent.status_code == 302, sent.text
            consent = sent.headers["location"]
            assert consent.startswith(f"{public}/oauth/consent?")
            page = http.get(base + consent.removeprefix(public))
            assert page.status_code == 200
            # Over https the binding cookie is host-only and sent back over TLS only.
            cookie = page.headers["set-cookie"]
            assert cookie.startswith("__Host-") and "Secure" in cookie and "Domain" not in cookie
            assert f'action="{public}/oauth/consent"' in page.text


@pytest.mark.serving
def test_a_redis_vault_keeps_records_sealed_and_shared_by_replicas(redis_url):
    import redis

    fernet = Fernet(Fernet.generate_key())
    first, second = RedisTokenVault(fernet, redis_url), RedisTokenVault(fernet, redis_url)
    record = {"token": "ya29.secret-access", "refresh_token": "1//secret-refresh"}
    first.put("100000001", record)
    assert second.get("100000001") == record  # another replica reads it
    raw = redis.Redis.from_url(redis_url)
    (key,) = raw.keys("toolspecs:google:*")
    assert b"100000001" not in key  # the key names no one
    sealed = raw.get(key)
    assert b"secret" not in sealed and 0 < raw.ttl(key) <= 90 * 24 * 3600
    assert RedisTokenVault(Fernet(Fernet.generate_key()), redis_url).get("100000001") is None
    second.delete("100000001")
    assert first.get("100000001") is None
    raw.close()


def test_a_refresh_google_refuses_later_forgets_the_user_and_drops_their_tools(running):
    from google.auth.exceptions import RefreshError
    from google.auth.transport.requests import Request

    bob = PEOPLE[1]
    _, found = anyio.run(signed_in, running, bob, [SEARCH])
    assert found.is_error is False
    assert running.provider is not None and running.user_tools is not None
    sub = running.google.users[bob].sub
    user = User.named(sub, running.provider.issuer)
    assert running.user_tools.cached(user) is not None
    # His tools are kept; Google refuses when one of his specs refreshes his token.
    running.google.revoke(bob)
    with pytest.raises(RefreshError):
        running.creds[bob].refresh(Request())
    assert running.vault.get(sub) is None
    assert running.user_tools.cached(user) is None


def test_a_users_stored_results_are_theirs_only(running):
    alice, bob = PEOPLE[:2]
    read = ("gmail_read_stored_emails", {"query": "engine cycles", "result_id": 1})
    _, loaded, own = anyio.run(signed_in, running, alice, [("gmail_load_data", {}), read])
    assert "stored as result 1" in text_of(loaded)
    assert "21 cycles" in text_of(own)
    (_, other) = anyio.run(signed_in, running, bob, [read])
    assert "21 cycles" not in text_of(other) and "Weekly report 3" not in text_of(other)
