"""The parts of the resource server, in-process: key fetching, scopes, users, build_server.

HTTP to the authorization server is faked at the transport (``httpx2.MockTransport``); the
end-to-end run against a real authorization server is tests/mcp/test_mcp_oauth.py.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from mcp import Client

from toolspecs.core import ConfigurationError
from toolspecs.server import answers, build_server, oauth
from toolspecs.server.scopes import permits, supported, tool_scopes
from toolspecs.server.users import Users
from toolspecs.specs.wolfram_alpha import WolframAlphaToolSpec

ISSUER = "https://login.example.com/realms/team"
RESOURCE = "https://mcp.example.com/mcp"


def _jwk(key, kid: str) -> dict:
    algorithm = jwt.algorithms.RSAAlgorithm if isinstance(key, rsa.RSAPrivateKey) else None
    text = (algorithm or jwt.algorithms.ECAlgorithm).to_jwk(key.public_key())
    return {**json.loads(text), "kid": kid, "use": "sig"}


class FakeIssuer:
    """The issuer's metadata and keys, counting the fetches."""

    def __init__(self, *keys: tuple[object, str]) -> None:
        self.keys = list(keys)
        self.fetched: list[str] = []
        self.body: bytes | None = None

    def transport(self) -> httpx2.MockTransport:
        def answer(request: httpx2.Request) -> httpx2.Response:
            self.fetched.append(request.url.path)
            if self.body is not None:
                return httpx2.Response(200, content=self.body)
            if request.url.path == "/.well-known/oauth-authorization-server/realms/team":
                return httpx2.Response(404)
            if request.url.path == "/realms/team/.well-known/openid-configuration":
                jwks = "https://login.example.com/realms/team/certs"
                return httpx2.Response(200, json={"issuer": ISSUER, "jwks_uri": jwks})
            keys = [_jwk(key, kid) for key, kid in self.keys]
            return httpx2.Response(200, json={"keys": keys})

        return httpx2.MockTransport(answer)


def _token(key, kid: str, alg: str = "RS256", **claims) -> str:
    now = int(time.time())
    body = {"iss": ISSUER, "aud": RESOURCE, "sub": "alice", "iat": now, "exp": now + 300}
    body.update(claims)
    return jwt.encode(body, key, algorithm=alg, headers={"kid": kid, "typ": "at+jwt"})


async def test_keys_are_discovered_kept_and_fetched_again_for_a_new_key_only():
    first = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    second = ec.generate_private_key(ec.SECP256R1())
    issuer = FakeIssuer((first, "k1"))
    verifier = oauth.JwtVerifier(ISSUER, RESOURCE, transport=issuer.transport())

    access = await verifier.verify_token(_token(first, "k1", scope="toolspecs:gmail.read"))
    assert access is not None and access.subject == "alice" and access.resource == RESOURCE
    assert access.scopes == ["toolspecs:gmail.read"] and access.claims == {"iss": ISSUER}
    assert await verifier.verify_token(_token(first, "k1")) is not None
    assert issuer.fetched == [
        "/.well-known/oauth-authorization-server/realms/team",
        "/realms/team/.well-known/openid-configuration",
        "/realms/team/certs",
    ]
    # The issuer rotates to a new key: an unknown kid fetches the keys again, at most so often.
    issuer.keys.append((second, "k2"))
    rotated = _token(second, "k2", alg="ES256")
    assert await verifier.verify_token(rotated) is None  # fetched moments ago: not yet
    verifier._keys._fetched -= oauth.REFETCH_SECONDS + 1
    assert await verifier.verify_token(rotated) is not None
    assert issuer.fetched[-1] == "/realms/team/certs" and len(issuer.fetched) == 4


async def test_claims_that_are_not_for_this_server_are_refused():
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    verifier = oauth.JwtVerifier(
        ISSUER, RESOURCE, f"{ISSUER}/certs", FakeIssuer((key, "k")).transport()
    )
    now = int(time.time())
    for claims in (
        {"aud": "https://other.example.com/mcp"},
        {"iss": "https://login.example.com/realms/other"},
        {"exp": now - oauth.LEEWAY_SECONDS - 5},
        {"nbf": now + oauth.LEEWAY_SECONDS + 60},
        {"sub": None},
    ):
        token = _token(key, "k", **{k: v for k, v in claims.items() if v is not None})
        if claims.get("sub", 1) is None:
            body = jwt.decode(token, options={"verify_signature": False})
            del body["sub"]
            token = jwt.encode(body, key, algorithm="RS256", headers={"kid": "k", "typ": "at+jwt"})
        assert await verifier.verify_token(token) is None, claims
    # A little clock difference is forgiven; a trailing slash on the audience too.
    late = _token(key, "k", exp=now - 5, aud=[RESOURCE + "/", "https://x.example.com"])
    assert await verifier.verify_token(late) is not None


async def test_only_a_token_typed_as_an_access_token_passes_unless_any_type_is_taken(caplog):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    keys = FakeIssuer((key, "k")).transport()
    typed = oauth.JwtVerifier(ISSUER, RESOURCE, f"{ISSUER}/certs", keys)
    anything = oauth.JwtVerifier(ISSUER, RESOURCE, f"{ISSUER}/certs", keys, token_type="any")
    good = _token(key, "k")
    body = jwt.decode(good, options={"verify_signature": False})
    for kind in ("at+jwt", "AT+JWT", "application/at+jwt"):
        token = jwt.encode(body, key, algorithm="RS256", headers={"kid": "k", "typ": kind})
        assert await typed.verify_token(token) is not None, kind
    untyped = [  # an ID token's type, another type, none at all
        jwt.encode(body, key, algorithm="RS256", headers={"kid": "k", "typ": kind})
        for kind in ("JWT", "id_token+jwt", None)
    ]
    with caplog.at_level(logging.DEBUG, logger="toolspecs.server.oauth"):
        for token in untyped:
            assert await typed.verify_token(token) is None
            assert await anything.verify_token(token) is not None
    said = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 1 and "--auth-token-type any" in said[0].getMessage()


async def test_a_key_set_too_large_slow_or_broken_refuses_the_token(monkeypatch):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer = FakeIssuer((key, "k"))
    issuer.body = b"[" * (oauth.MAX_DOCUMENT_BYTES + 1)
    verifier = oauth.JwtVerifier(ISSUER, RESOURCE, f"{ISSUER}/certs", issuer.transport())
    assert await verifier.verify_token(_token(key, "k")) is None
    with pytest.raises(oauth.OAuthFetchError, match="over"):
        await oauth.fetch_json(f"{ISSUER}/certs", transport=issuer.transport())
    issuer.body = b"not json"
    with pytest.raises(oauth.OAuthFetchError, match="JSONDecodeError"):
        await oauth.fetch_json(f"{ISSUER}/certs", transport=issuer.transport())

    async def slow(request: httpx2.Request) -> httpx2.Response:
        await anyio.sleep(5)
        return httpx2.Response(200, json={})

    monkeypatch.setattr(oauth, "FETCH_SECONDS", 0.05)
    with pytest.raises(oauth.OAuthFetchError, match="did not answer"):
        await oauth.fetch_json(f"{ISSUER}/certs", transport=httpx2.MockTransport(slow))


async def test_introspection_needs_an_active_token_for_this_server(monkeypatch):
    monkeypatch.setenv("TOOLSPECS_INTROSPECT_SECRET", "rs-secret")
    answers: list[dict] = []
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=answers.pop(0))

    verifier = oauth.IntrospectionVerifier(
        ISSUER, RESOURCE, f"{ISSUER}/introspect", "rs", httpx2.MockTransport(answer)
    )
    now = int(time.time())
    good = {"active": True, "iss": ISSUER, "aud": RESOURCE, "exp": now + 60, "client_id": "app"}
    answers += [good, {**good, "aud": "https://other.example.com"}, {"active": False}]
    access = await verifier.verify_token("opaque-1")
    assert access is not None and access.subject == "app"  # client_credentials: no sub
    assert await verifier.verify_token("opaque-2") is None
    assert await verifier.verify_token("opaque-3") is None
    assert seen[0].headers["authorization"].startswith("Basic ")
    assert b"token=opaque-1" in seen[0].content


async def test_an_accepted_introspection_is_kept_and_a_refusal_is_not(monkeypatch):
    monkeypatch.setenv("TOOLSPECS_INTROSPECT_SECRET", "rs-secret")
    now = int(time.time())
    good = {"active": True, "iss": ISSUER, "aud": RESOURCE, "exp": now + 600, "sub": "ada"}
    asked: list[bytes] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.content)
        return httpx2.Response(200, json=good if b"good" in request.content else {"active": False})

    def verifier(**cache: Any) -> oauth.IntrospectionVerifier:
        url = f"{ISSUER}/introspect"
        transport = httpx2.MockTransport(answer)
        return oauth.IntrospectionVerifier(ISSUER, RESOURCE, url, "rs", transport, **cache)

    kept = verifier()
    for _ in range(5):
        access = await kept.verify_token("good-1")
        assert access is not None and access.subject == "ada" and access.token == "good-1"
    assert len(asked) == 1  # one token, five requests: the issuer is asked once
    assert await kept.verify_token("good-2") is not None  # another token is asked about
    for _ in range(3):
        assert await kept.verify_token("revoked") is None
    assert len(asked) == 2 + 3  # a refusal is asked about every time

    # A kept answer says who the user is as the fresh one did (delegation acts on it).
    named = {**good, "email": "ada@example.com", "email_verified": True}
    good.update(named)
    keeps = verifier(keep=("email", "email_verified"))
    first, again = [await keeps.verify_token("good-named") for _ in range(2)]
    assert first is not None and again is not None
    assert (
        first.claims
        == again.claims
        == {"iss": ISSUER, **{k: named[k] for k in ("email", "email_verified")}}
    )

    asked.clear()
    off = verifier(cache_seconds=0)
    for _ in range(3):
        assert await off.verify_token("good-1") is not None
    assert len(asked) == 3


def test_kept_answers_go_at_the_cap_or_the_tokens_exp_and_the_least_used_first():
    clock = [1000.0]
    cache = answers.AnswerCache(60, 2, clock=lambda: clock[0])
    soon = {"exp": time.time() + 10, "sub": "ada"}
    later = {"exp": time.time() + 3600, "sub": "bob"}
    cache.keep("soon", soon)
    cache.keep("later", later)
    assert cache.get("soon") == soon and cache.get("later") == later
    clock[0] += 11  # past the first token's exp, within the cap
    assert cache.get("soon") is None and cache.get("later") == later
    clock[0] += 50  # past the cap
    assert cache.get("later") is None
    cache.keep("gone", {"exp": time.time() - 1, "sub": "eve"})  # expired: not kept
    assert cache.get("gone") is None
    for name in ("a", "b", "c"):  # two tokens at most: the least recently used goes
        cache.keep(name, later)
    assert [cache.get(name) is not None for name in ("a", "b", "c")] == [False, True, True]


def test_settings_refuse_plain_http_off_this_machine_and_half_introspection(monkeypatch):
    monkeypatch.delenv("TOOLSPECS_INTROSPECT_SECRET", raising=False)
    oauth.OAuthSettings(issuer="http://127.0.0.1:9000")  # a test server here is fine
    for bad in ("http://login.example.com", "ftp://x", "https://x/?a=1", "login.example.com"):
        with pytest.raises(ConfigurationError, match="https URL"):
            oauth.OAuthSettings(issuer=bad)
    with pytest.raises(ConfigurationError, match="--auth-client-id"):
        oauth.OAuthSettings(issuer=ISSUER, introspection_url=f"{ISSUER}/i", client_id="rs")
    monkeypatch.setenv("TOOLSPECS_INTROSPECT_SECRET", "rs-secret")
    for bad in (-1.0, float("inf"), float("nan")):
        with pytest.raises(ConfigurationError, match="--auth-introspect-cache"):
            oauth.OAuthSettings(
                issuer=ISSUER, introspection_url=f"{ISSUER}/i", client_id="rs", introspect_cache=bad
            )


def test_scopes_are_per_spec_with_write_covering_read():
    spec = WolframAlphaToolSpec(app_id="x")
    by_spec = {"wolfram_alpha@work": spec.to_tool_list()}
    assert set(tool_scopes(by_spec).values()) == {"toolspecs:wolfram_alpha@work.read"}
    assert supported(by_spec) == [
        "toolspecs:wolfram_alpha@work.read",
        "toolspecs:wolfram_alpha@work.write",
    ]
    assert permits(["toolspecs:gmail.write"], "toolspecs:gmail.read")
    assert not permits(["toolspecs:gmail.read"], "toolspecs:gmail.write")
    assert not permits(["toolspecs:gmail.write"], "toolspecs:google_calendar.read")
    assert not permits([], "")


def test_sessionless_users_are_kept_for_the_last_users_only():
    users = Users(max_users=2)
    a = users.owner("iss a", object(), sessionless=True)
    assert users.owner("iss a", object(), sessionless=True) is a
    users.owner("iss b", None, sessionless=True)
    users.owner("iss c", None, sessionless=True)  # a is pushed out
    assert users.owner("iss a", None, sessionless=True) is not a
    connection = type("Connection", (), {})()
    in_session = users.owner("iss a", connection, sessionless=False)
    assert users.owner("iss a", connection, sessionless=False) is in_session
    assert users.owner("iss b", connection, sessionless=False) is not in_session


async def test_with_scopes_a_request_without_an_access_token_sees_no_tool():
    spec = WolframAlphaToolSpec(app_id="x")
    tools = spec.to_tool_list()
    server = build_server(tools, scopes=tool_scopes({"wolfram_alpha": tools}))
    async with Client(server) as client:  # in memory: no HTTP request, no token
        assert (await client.list_tools()).tools == []
        refused = await client.call_tool("wolfram_alpha_query", {"query": "2+2"})
    assert refused.is_error is True
    assert "toolspecs:wolfram_alpha.read" in refused.content[0].text
