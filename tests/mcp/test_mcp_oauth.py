"""`toolspecs serve --http --auth-issuer`: a resource server behind a real authorization server.

The authorization server is panva's oidc-provider (tests/mcp/oauth_server.py), started on
127.0.0.1; `toolspecs serve` runs as a subprocess (the real command line) and mcp's own
client calls it with the provider's access tokens in the Authorization header. Every wait
is bounded and every process is stopped.
"""

from __future__ import annotations

import base64
import json
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager as ContextManager

import anyio
import httpx
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from oauth_server import ALL_SCOPES, SECRETS, AuthorizationServer, authorization_server
from oauth_server import real_clock_env as clock_env
from serving import TOOLSPECS, toolspecs_serve
from toolsets import offered

from toolspecs.loaders.arxiv.testing import NEEDLE

pytestmark = pytest.mark.serving

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": "1"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}
CAP_SECONDS = 4  # --auth-introspect-cache in the test that waits it out


@pytest.fixture(scope="module")
def provider() -> Iterator[AuthorizationServer]:
    with authorization_server() as running:
        yield running


def served(*args: str, env: dict[str, str] | None = None) -> ContextManager[tuple[str, list[str]]]:
    """``toolspecs serve --sandbox --http --port 0 ARGS``: its URL and what it printed."""
    return toolspecs_serve(*args, env=clock_env({"TOOLSPECS_SERVE_TOKEN": "", **(env or {})}))


@pytest.fixture(scope="module")
def server(provider) -> Iterator[str]:
    """arXiv and Wolfram|Alpha behind the provider (the issuer's keys from its metadata)."""
    with served("arxiv", "wolfram_alpha", "--auth-issuer", provider.issuer) as (url, said):
        assert any(f"access tokens of {provider.issuer} for {url}" in line for line in said)
        yield url


async def session(url: str, token: str, mode: str, calls: list[tuple[str, dict]]) -> list:
    """As a configured client: list the tools, then make ``calls``, the token in a header."""
    headers = {"Authorization": f"Bearer {token}"}
    with anyio.fail_after(60):
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                return [names] + [await client.call_tool(n, a) for n, a in calls]


def text_of(result) -> str:
    # A stored result also links its resource (test_mcp_resources.py): the text comes first.
    block, *links = result.content
    assert all(link.type == "resource_link" for link in links)
    return block.text


@pytest.fixture(params=["legacy", "auto"])
def mode(request) -> str:
    return request.param


def test_a_real_token_is_accepted_and_its_scopes_choose_the_tools(provider, server, mode):
    alice = provider.token("alice", server)
    names, found = anyio.run(
        session, server, alice, mode, [("arxiv_query", {"query": "bert", "max_results": 2})]
    )
    assert names == offered("arxiv", "wolfram_alpha")  # each default set, in order
    assert found.is_error is False and text_of(found).count("arXiv id:") == 2

    # carol may use Wolfram|Alpha only: arXiv is not listed, and a call is guidance.
    carol = provider.token("carol", server)
    names, refused = anyio.run(session, server, carol, mode, [("arxiv_query", {"query": "bert"})])
    assert names == offered("wolfram_alpha")
    assert refused.is_error is True
    assert "needs the scope 'toolspecs:arxiv.read'" in text_of(refused)


class MemoryStorage:
    """mcp's ``TokenStorage``, in memory (what a client keeps between requests)."""

    def __init__(self) -> None:
        self.tokens = self.client = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info) -> None:
        self.client = client_info


async def signed_in(url: str, issuer: str, client: str, calls: list[tuple[str, dict]]) -> list:
    """As the mcp client's own OAuth support does it: discovery from the 401, then a token."""
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider

    auth = ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryStorage(),
        client_id=client,
        client_secret=SECRETS[client],
        issuer=issuer,
    )
    with anyio.fail_after(60):
        async with (
            httpx2.AsyncClient(auth=auth, timeout=httpx2.Timeout(30)) as http,
            Client(streamable_http_client(url, http_client=http)) as session,
        ):
            names = [t.name for t in (await session.list_tools()).tools]
            return [names] + [await session.call_tool(n, a) for n, a in calls]


def test_the_mcp_clients_oauth_finds_the_issuer_and_gets_a_token_for_this_server(provider, server):
    # From the 401's resource_metadata to the issuer's metadata, then client_credentials
    # with this server as the resource (RFC 8707), asking for every scope the metadata
    # lists; the provider grants carol hers (Wolfram|Alpha read), so she sees those tools.
    names, answer = anyio.run(
        signed_in, server, provider.issuer, "carol", [("wolfram_alpha_query", {"query": "2+2"})]
    )
    assert names == offered("wolfram_alpha")
    assert answer.is_error is False


def test_users_never_read_each_others_stored_results(provider, server, mode):
    alice, bob = provider.token("alice", server), provider.token("bob", server)
    store = ("arxiv_paper_text", {"paper_id": "1706.03762"})
    read = ("read_stored_papers", {"query": "quokka ablation"})
    _, stored, own = anyio.run(session, server, alice, mode, [store, read])
    assert "stored as result 1" in text_of(stored)
    assert NEEDLE in text_of(own)
    (_, other) = anyio.run(session, server, bob, mode, [read])
    assert NEEDLE not in text_of(other)
    if mode == "auto":  # sessionless: the user's results stay theirs across requests
        (_, again) = anyio.run(session, server, alice, mode, [read])
        assert NEEDLE in text_of(again)


def test_the_protected_resource_metadata_names_the_issuer_and_every_scope(provider, server):
    well_known = server.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    metadata = httpx.get(well_known, timeout=30).json()
    assert metadata["resource"] == server
    assert metadata["authorization_servers"] == [provider.issuer]
    assert metadata["scopes_supported"] == ALL_SCOPES
    answer = httpx.post(server, json=INITIALIZE, headers=MCP_HEADERS, timeout=30)
    assert answer.status_code == 401
    challenge = answer.headers["www-authenticate"]
    assert challenge.startswith("Bearer ") and f'resource_metadata="{well_known}"' in challenge


def _tampered(token: str) -> str:
    head, body, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
    claims["scope"] += " toolspecs:arxiv.write"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode()
    return f"{head}.{forged}.{signature}"


def test_bad_tokens_get_401_with_the_metadata_pointer(provider, server):
    real = provider.token("alice", server)
    claims = jwt.decode(real, options={"verify_signature": False})
    now = claims["iat"]  # the provider's clock, not this process's (libfaketime moves it)
    other_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    bad = {
        "missing": None,
        "expired": provider.forge({**claims, "iat": now - 7200, "exp": now - 3600}),
        "not yet valid": provider.forge({**claims, "nbf": now + 3600}),
        "wrong audience": provider.token("alice", "http://127.0.0.1:9/mcp"),
        "wrong issuer": provider.forge({**claims, "iss": "http://127.0.0.1:9"}),
        "unsigned": jwt.encode(claims, None, algorithm="none"),
        "tampered": _tampered(real),
        "another key": provider.forge(claims, key=other_key),
        "shared secret": provider.forge(claims, key="s" * 32, alg="HS256"),
        "garbage": "not-a-token",
        "an ID token": provider.forge(id_token_claims(claims), typ="JWT"),
    }
    well_known = server.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    for why, token in bad.items():
        headers = {**MCP_HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
        answer = httpx.post(server, json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 401, why
        challenge = answer.headers["www-authenticate"]
        assert 'error="invalid_token"' in challenge, why
        assert f'resource_metadata="{well_known}"' in challenge, why
    good = {**MCP_HEADERS, "Authorization": f"Bearer {real}"}
    assert httpx.post(server, json=INITIALIZE, headers=good, timeout=30).status_code == 200


def id_token_claims(access: dict) -> dict:
    """What an ID token of the provider would carry for alice, its audience this server."""
    keep = ("iss", "sub", "aud", "iat", "exp")
    return {**{k: access[k] for k in keep}, "auth_time": access["iat"], "nonce": "n-1"}


def test_an_id_token_passes_for_an_access_token_only_when_the_operator_says_so(provider):
    # The provider types its access tokens at+jwt (RFC 9068); an ID token is typed JWT.
    # Signed by the same key, for this server's URL, it is still refused by default; an
    # operator whose issuer types no access token accepts any type.
    with served("arxiv", "--auth-issuer", provider.issuer) as (url, _):
        real = provider.token("alice", url)
        assert jwt.get_unverified_header(real)["typ"] == "at+jwt"
        claims = jwt.decode(real, options={"verify_signature": False})
        untyped = provider.forge(id_token_claims(claims), typ="JWT")
        for token, status in ((real, 200), (untyped, 401)):
            headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
            answer = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
            assert answer.status_code == status
    args = ("arxiv", "--auth-issuer", provider.issuer, "--auth-token-type", "any")
    with served(*args) as (url, _):
        claims = jwt.decode(provider.token("alice", url), options={"verify_signature": False})
        untyped = provider.forge(id_token_claims(claims), typ="JWT")
        # Accepted now; it carries no scope, so it still sees and calls no tool.
        names, found = anyio.run(
            session, url, untyped, "legacy", [("arxiv_query", {"query": "bert"})]
        )
        assert names == [] and found.is_error is True
        assert "needs the scope 'toolspecs:arxiv.read'" in text_of(found)


def test_a_scope_every_request_needs_is_403_insufficient_scope(provider):
    needed = "toolspecs:arxiv.write"
    args = ("arxiv", "--auth-issuer", provider.issuer, "--auth-scope", needed)
    with served(*args) as (url, _):
        alice = provider.token("alice", url)  # arXiv read only
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {alice}"}
        answer = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert answer.status_code == 403
        assert 'error="insufficient_scope"' in answer.headers["www-authenticate"]
        well_known = url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        assert httpx.get(well_known, timeout=30).json()["scopes_supported"][0] == needed


def test_introspection_accepts_active_tokens_for_this_server_only(provider):
    args = (
        "wolfram_alpha",
        "--auth-issuer",
        provider.issuer,
        "--auth-introspect",
        f"{provider.issuer}/token/introspection",
        "--auth-client-id",
        "resource-server",
    )
    secret = {"TOOLSPECS_INTROSPECT_SECRET": SECRETS["resource-server"]}
    with served(*args, env=secret) as (url, _):
        opaque = provider.token("alice-opaque", url)
        assert opaque.count(".") != 2  # not a JWT: only the issuer can say what it is
        (names, answer) = anyio.run(
            session, url, opaque, "legacy", [("wolfram_alpha_query", {"query": "2+2"})]
        )
        assert names == offered("wolfram_alpha")
        assert answer.is_error is False
        elsewhere = provider.token("alice-opaque", "http://127.0.0.1:9/mcp")
        for token in (elsewhere, "made-up-token"):
            headers = {**MCP_HEADERS, "Authorization": f"Bearer {token}"}
            answer = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
            assert answer.status_code == 401


def test_introspection_answers_are_kept_until_the_cap_then_a_revoked_token_is_refused(provider):
    # One client's requests with one token ask the issuer once within the cache's time;
    # a token revoked at the issuer is still accepted until then (the documented
    # latency), and refused after it, when the issuer is asked again.
    args = (
        "wolfram_alpha",
        "--auth-issuer",
        provider.issuer,
        "--auth-introspect",
        f"{provider.issuer}/token/introspection",
        "--auth-client-id",
        "resource-server",
        "--auth-introspect-cache",
        str(CAP_SECONDS),
    )
    secret = {"TOOLSPECS_INTROSPECT_SECRET": SECRETS["resource-server"]}
    with served(*args, env=secret) as (url, _):
        opaque = provider.token("alice-opaque", url)
        before = provider.introspections()
        started = time.monotonic()
        # initialize, initialized, tools/list and three calls: six requests, one token.
        calls = [("wolfram_alpha_query", {"query": "2+2"})] * 3
        (names, *answers) = anyio.run(session, url, opaque, "legacy", calls)
        assert names == offered("wolfram_alpha")
        assert [a.is_error for a in answers] == [False] * 3
        asked_by = time.monotonic()  # the answer was kept at the latest by now
        provider.revoke("alice-opaque", opaque)
        headers = {**MCP_HEADERS, "Authorization": f"Bearer {opaque}"}
        kept = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        # Within the cap (unless this machine was too slow to get here in time).
        if time.monotonic() - started < CAP_SECONDS:
            assert kept.status_code == 200
            assert provider.introspections() == before + 1
        # (time.sleep records its waits in these tests: conftest's no_backoff_sleep)
        threading.Event().wait(max(0.0, asked_by + CAP_SECONDS + 0.5 - time.monotonic()))
        asked = provider.introspections()
        refused = httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert refused.status_code == 401
        assert provider.introspections() == asked + 1
        # A refusal is not kept: each request with the revoked token asks again.
        httpx.post(url, json=INITIALIZE, headers=headers, timeout=30)
        assert provider.introspections() == asked + 2


def test_auth_settings_that_cannot_be_right_are_refused_in_one_line():
    cases = {
        ("--auth-issuer", "http://login.example.com"): "is not an https URL",
        ("--auth-jwks", "https://login.example.com/jwks"): "--auth-jwks is for --auth-issuer",
        ("--auth-issuer", "https://login.example.com", "--auth-introspect", "https://x/i"): (
            "--auth-introspect needs --auth-client-id"
        ),
        ("--auth-issuer", "https://login.example.com", "--auth-introspect-cache", "5"): (
            "--auth-introspect-cache is for --auth-introspect URL"
        ),
        ("--auth-token-type", "any"): "--auth-token-type is for --auth-issuer",
        ("--auth-issuer", "https://login.example.com", "--auth-token-type", "JWT"): (
            "argument --auth-token-type: invalid choice: 'JWT'"
        ),
        (
            *("--auth-issuer", "https://login.example.com", "--auth-token-type", "any"),
            *("--auth-introspect", "https://x/i", "--auth-client-id", "rs"),
        ): "--auth-token-type is for JWTs read here",
    }
    for args, message in cases.items():
        done = subprocess.run(
            [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", "arxiv", *args],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            env=clock_env({"TOOLSPECS_INTROSPECT_SECRET": ""}),
            check=False,
        )
        assert done.returncode != 0, args
        (line,) = done.stderr.strip().splitlines()
        assert message in line, (args, line)


def test_replicas_sharing_a_redis_store_read_a_users_results_through_any_of_them(
    provider, redis_url
):
    # Two servers as replicas behind one address (the audience clients get tokens for),
    # storing long results in one Redis: a sessionless user stores through the first and
    # reads through the second; another user reads nothing of it through either.
    audience = "http://127.0.0.1:9/mcp"  # the load balancer's address, as tokens name it
    replica = ("arxiv", "--auth-issuer", provider.issuer, "--auth-audience", audience)
    with (
        served(*replica, "--store", redis_url) as (first, _),
        served(*replica, "--store", redis_url) as (second, _),
    ):
        alice, bob = provider.token("alice", audience), provider.token("bob", audience)
        store = ("arxiv_paper_text", {"paper_id": "1706.03762"})
        read = ("read_stored_papers", {"query": "quokka ablation"})
        _, stored = anyio.run(session, first, alice, "auto", [store])
        assert "stored as result 1" in text_of(stored)
        _, elsewhere = anyio.run(session, second, alice, "auto", [read])
        assert NEEDLE in text_of(elsewhere)
        for url in (first, second):
            _, other = anyio.run(session, url, bob, "auto", [read])
            assert NEEDLE not in text_of(other)


def test_stateless_handshake_clients_keep_a_users_results_across_requests(provider):
    # --stateless: a 2025-11-25 client's requests each stand alone, yet the user the token
    # names owns the results, from one connection to the next; another user reads nothing.
    with served("arxiv", "--auth-issuer", provider.issuer, "--stateless") as (url, _):
        alice, bob = provider.token("alice", url), provider.token("bob", url)
        store = ("arxiv_paper_text", {"paper_id": "1706.03762"})
        read = ("read_stored_papers", {"query": "quokka ablation"})
        _, stored = anyio.run(session, url, alice, "legacy", [store])
        assert "stored as result 1" in text_of(stored)
        _, again = anyio.run(session, url, alice, "legacy", [read])
        assert NEEDLE in text_of(again)
        _, other = anyio.run(session, url, bob, "legacy", [read])
        assert NEEDLE not in text_of(other)
