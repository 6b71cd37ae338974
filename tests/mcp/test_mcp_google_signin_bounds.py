"""Sign in with Google: floods of /authorize and /token, and a replayed authorization code.

The three gaps issue 38 left, each played over HTTP on 127.0.0.1 against the server of
test_mcp_google_signin.py (uvicorn on a thread, the fake Google) and against two replicas
sharing Redis (test_mcp_google_signin_replicas.py): the people's clients are mcp's own
(``OAuthClientProvider``) or the replicas' step-by-step flow, the attacker's requests raw
``httpx2``. The bounds are shrunk through the provider's options (``state``,
``request_limits``) instead of sending thousands of requests; the limits' window is a day,
so that no test runs across two windows.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import secrets

import anyio
import httpx2
import pytest
from cryptography.fernet import Fernet
from google_signin_fakes import SIGN_IN_ENV, secret_of
from serving import refused_in_one_line, toolspecs_serve
from test_mcp_google_signin import PEOPLE, SEARCH, Storage, serving, signed_in, text_of
from test_mcp_google_signin_grants import base_of, expired, refused
from test_mcp_google_signin_replicas import call, redis, sign_in, two_replicas
from test_mcp_google_signin_replicas import refused as refused_by
from test_mcp_google_signin_replicas import text_of as text_at

from toolspecs.server.request_limits import RequestLimits
from toolspecs.server.signin_state import SignInState

REDIRECT = "http://127.0.0.1:9/callback"
WINDOW = 24 * 3600.0
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "a client", "version": "1"},
    },
}


def authorize_params(client_id: str, resource: str) -> dict[str, str]:
    """A valid /authorize request of ``client_id`` (PKCE S256): each one starts a trip."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    return {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "code_challenge": challenge.rstrip(b"=").decode(),
        "code_challenge_method": "S256",
        "state": "s",
        "resource": resource,
    }


def attacker(http: httpx2.Client, base: str, resource: str):
    """The attacker's client, registered as anyone may; its /authorize from an address."""
    made = http.post(
        f"{base}/register",
        json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
        headers={"X-Forwarded-For": "192.0.2.50"},
    )
    assert made.status_code == 201, made.text
    client_id = made.json()["client_id"]

    def authorize(at: str, address: str) -> httpx2.Response:
        return http.get(
            f"{at}/authorize",
            params=authorize_params(client_id, resource),
            headers={"X-Forwarded-For": address},
        )

    return authorize


def status_of(mcp_url: str, access: str) -> int:
    """What an access token gets at /mcp now (200: it works; 401: it is refused)."""
    with httpx2.Client(timeout=30) as http:
        answer = http.post(
            mcp_url,
            json=INITIALIZE,
            headers={
                "Authorization": f"Bearer {access}",
                "Accept": "application/json, text/event-stream",
            },
        )
    return answer.status_code


def busy_page(answer: httpx2.Response, where: str) -> None:
    """``answer`` is our 429 page for a person's browser: readable, with Retry-After."""
    assert answer.status_code == 429, answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert 1 <= int(answer.headers["retry-after"]) <= WINDOW
    assert "location" not in answer.headers  # shown: not sent on to the client or Google
    assert "Sign-in is busy: too many sign-ins started " + where in answer.text
    assert "try again in" in answer.text and "Traceback" not in answer.text
    assert answer.headers["x-frame-options"] == "DENY"  # our pages' headers


def too_many(answer: httpx2.Response, where: str) -> None:
    """``answer`` is a 429 OAuth error with Retry-After, saying ``where`` it is counted."""
    assert answer.status_code == 429, answer.text
    assert 1 <= int(answer.headers["retry-after"]) <= WINDOW
    error = answer.json()
    assert error["error"] == "temporarily_unavailable"
    assert f"too many token requests {where}" in error["error_description"]


# 1. /authorize floods.


def test_an_authorize_flood_gets_429_and_never_evicts_a_persons_sign_in_in_progress():
    alice = PEOPLE[0]
    # Each kind in memory bounded at 3 (10,000 by default): when the trips were bounded by
    # that alone, the flood below pushed Alice's trip out and her sign-in failed.
    limits = RequestLimits(authorize_per_address=3, authorize_total=6, window=WINDOW)
    with serving(state=SignInState(max_kept=3), request_limits=limits) as running:
        seen: list[int] = []

        async def flood() -> None:
            # Alice is on her way to our consent page (her trip: 1 of 6 this window).
            with httpx2.Client(timeout=30) as http:
                authorize = attacker(http, base_of(running), running.url)
                here = base_of(running)
                for _ in range(3):  # one address: 3, then our 429 page
                    seen.append(authorize(here, "203.0.113.7").status_code)
                busy_page(authorize(here, "203.0.113.7"), "from your address")
                for n in (1, 2):  # an IPv6 /64 counts as one address
                    seen.append(authorize(here, f"2001:db8:1:2::{n}").status_code)
                # Alice's, then 3 and 2: six trips under way, the most this window starts.
                busy_page(authorize(here, "198.51.100.1"), "on this server")

        _, found = anyio.run(signed_in, running, alice, [SEARCH], Storage(), flood)
        assert seen == [302] * 5
        assert found.is_error is False and secret_of(alice) in text_of(found)


@pytest.mark.serving
def test_an_authorize_flood_on_two_replicas_is_counted_in_redis_and_its_trips_bounded(
    redis_url,
):
    alice = PEOPLE[0]
    limits = RequestLimits(authorize_per_address=3, authorize_total=5, window=WINDOW)
    with two_replicas(redis_url, request_limits=limits) as cluster:
        a, b = cluster.replicas

        def flood() -> None:
            with httpx2.Client(timeout=30) as http:
                authorize = attacker(http, a.url, cluster.issuer + "/mcp")
                for replica in (a, b, a):  # one address, both replicas: 3 in all
                    assert authorize(replica.url, "203.0.113.7").status_code == 302
                for replica in (a, b):
                    busy_page(authorize(replica.url, "203.0.113.7"), "from your address")
                assert authorize(b.url, "198.51.100.1").status_code == 302
                busy_page(authorize(a.url, "198.51.100.2"), "on this server")
            # Five trips under way in Redis, counted by expiry, each for ten minutes.
            raw = redis.Redis.from_url(redis_url)
            trips = raw.keys("toolspecs:signin:trip:*")
            assert len(trips) == 5 and raw.zcard("toolspecs:signin:pool:trip") == 5
            assert all(0 < raw.ttl(k) <= 600 for k in trips)
            raw.close()

        # Alice's trip (begun on B) is among them: she approves on A, Google's callback
        # reaches A, and her client redeems the code on B.
        tokens = sign_in(cluster, alice, "ABAB", meanwhile=flood)
        found = anyio.run(call, a, tokens["access_token"], *SEARCH)
        assert secret_of(alice) in text_at(found)


# 2. /token floods.


def test_a_client_refreshing_in_a_loop_gets_429_and_other_users_tokens_keep_working():
    alice, bob = PEOPLE[:2]
    # At most 4 records of a kind in memory: when every refresh left the access token
    # before it alive, Bob's refreshes pushed Alice's access token out (she got 401).
    limits = RequestLimits(token_per_client=6, token_per_address=20, window=WINDOW)
    with serving(state=SignInState(max_kept=4), request_limits=limits) as running:
        holder, looper = Storage(), Storage()
        anyio.run(signed_in, running, alice, [SEARCH], holder)
        anyio.run(signed_in, running, bob, [SEARCH], looper)
        tokens, token_url = looper.tokens, f"{base_of(running)}/token"
        form = {"grant_type": "refresh_token", "client_id": looper.client.client_id}
        with httpx2.Client(timeout=30) as http:
            for _ in range(6):  # Bob's client refreshes in a loop
                fresh = http.post(token_url, data={**form, "refresh_token": tokens.refresh_token})
                assert fresh.status_code == 200, fresh.text
                # Each refresh ends the access token before it: one live per grant.
                assert status_of(running.url, tokens.access_token) == 401
                tokens = tokens.model_copy(update=fresh.json())
                assert status_of(running.url, tokens.access_token) == 200
                assert status_of(running.url, holder.tokens.access_token) == 200  # Alice's
            over = http.post(token_url, data={**form, "refresh_token": tokens.refresh_token})
            too_many(over, "from this client")
            # Refused before it was spent: Bob's current tokens still work.
            assert status_of(running.url, tokens.access_token) == 200
            # One address sending token requests (made-up refresh tokens): 20, then 429.
            away = {"X-Forwarded-For": "203.0.113.9"}
            for n in range(20):
                made_up = {**form, "refresh_token": f"made-up-{n}"}
                answer = http.post(token_url, data=made_up, headers=away)
                assert answer.status_code == 400 and answer.json()["error"] == "invalid_grant"
            made_up = {**form, "refresh_token": "made-up"}
            too_many(http.post(token_url, data=made_up, headers=away), "from your address")
        # Alice's client never noticed: it calls, then refreshes and calls again.
        _, found = anyio.run(signed_in, running, alice, [SEARCH], holder)
        assert secret_of(alice) in text_of(found)
        before = len(running.google.users[alice].access_tokens)
        expired(holder)
        _, again = anyio.run(signed_in, running, alice, [SEARCH], holder)
        assert secret_of(alice) in text_of(again)
        assert len(running.google.users[alice].access_tokens) == before  # refreshed


@pytest.mark.serving
def test_a_refresh_loop_across_two_replicas_is_counted_in_redis_and_holds_one_access_token(
    redis_url,
):
    alice, bob = PEOPLE[:2]
    limits = RequestLimits(token_per_client=4, window=WINDOW)
    with two_replicas(redis_url, request_limits=limits) as cluster:
        a, b = cluster.replicas
        hers = sign_in(cluster, alice, "AAAA")
        tokens = sign_in(cluster, bob, "BBBB")
        form = {"grant_type": "refresh_token", "client_id": tokens["client_id"]}
        raw = redis.Redis.from_url(redis_url)
        with httpx2.Client(timeout=30) as http:
            for replica in (a, b, a, b):
                fresh = http.post(
                    f"{replica.url}/token", data={**form, "refresh_token": tokens["refresh_token"]}
                )
                assert fresh.status_code == 200, fresh.text
                for other in (a, b):
                    assert status_of(f"{other.url}/mcp", tokens["access_token"]) == 401
                    assert status_of(f"{other.url}/mcp", hers["access_token"]) == 200
                tokens = {**tokens, **fresh.json()}
                # One access token per grant in Redis: Alice's and Bob's.
                assert len(raw.keys("toolspecs:signin:access:*")) == 2
            for replica in (a, b):
                over = http.post(
                    f"{replica.url}/token", data={**form, "refresh_token": tokens["refresh_token"]}
                )
                too_many(over, "from this client")
        raw.close()
        for replica in (a, b):
            assert status_of(f"{replica.url}/mcp", tokens["access_token"]) == 200
        found = anyio.run(call, b, hers["access_token"], *SEARCH)
        assert secret_of(alice) in text_at(found)


# 3. A replayed authorization code.


def test_a_replayed_code_is_refused_and_revokes_the_tokens_of_its_first_redemption(caplog):
    caplog.set_level(logging.WARNING)
    carol = PEOPLE[2]
    with serving() as running:
        holder, codes = Storage(), []
        _, found = anyio.run(signed_in, running, carol, [SEARCH], holder, None, codes)
        assert secret_of(carol) in text_of(found)
        (code,) = codes  # mcp's client redeemed it; an attacker saw it on its way
        with httpx2.Client(timeout=30) as http:
            replay = http.post(
                f"{base_of(running)}/token",
                data={
                    "grant_type": "authorization_code",
                    "code": code,
                    "redirect_uri": REDIRECT,
                    "client_id": holder.client.client_id,
                    "code_verifier": "v" * 43,
                },
            )
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
        # The tokens of the first redemption are over: 401, and the refresh invalid_grant.
        assert refused(running, holder.tokens, holder.client.client_id) == (401, "invalid_grant")
        warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("code" in line and "grant is revoked" in line for line in warned)
        assert not any(code in line for line in warned)
        # Her client, refused, sends her to Google; she signs in and works again.
        _, back = anyio.run(signed_in, running, carol, [SEARCH], holder)
        assert secret_of(carol) in text_of(back)


@pytest.mark.serving
def test_a_code_replayed_on_another_replica_revokes_its_grant_on_both(redis_url):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        tokens = sign_in(cluster, PEOPLE[0], "AAAA")  # redeemed on A
        with httpx2.Client(timeout=30) as http:
            replay = http.post(
                f"{b.url}/token",
                data={
                    "grant_type": "authorization_code",
                    "code": tokens["code"],
                    "redirect_uri": REDIRECT,
                    "client_id": tokens["client_id"],
                    "code_verifier": "x" * 43,
                },
            )
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
        for replica in (a, b):
            assert refused_by(replica, tokens, tokens["client_id"]) == (401, "invalid_grant")
        # Redis remembers the redeemed code by its hash, until it would have expired and
        # an hour more; never the code itself.
        raw = redis.Redis.from_url(redis_url)
        (redeemed,) = raw.keys("toolspecs:signin:redeemed:*")
        assert 3600 < raw.ttl(redeemed) <= 3600 + 300
        assert tokens["code"].encode() not in redeemed + raw.get(redeemed)
        raw.close()


@pytest.mark.serving
def test_a_code_redeemed_on_two_replicas_at_once_gives_at_most_one_answer_then_its_grant_ends(
    redis_url,
):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        started = sign_in(cluster, PEOPLE[1], "ABAB", redeem=False)
        form = {
            "grant_type": "authorization_code",
            "code": started["code"],
            "redirect_uri": REDIRECT,
            "client_id": started["client_id"],
            "code_verifier": started["verifier"],
            "resource": cluster.issuer + "/mcp",
        }
        answers: list[httpx2.Response] = []

        async def both() -> None:
            async with httpx2.AsyncClient(timeout=30) as http, anyio.create_task_group() as tg:
                for replica in (a, b):

                    async def redeem(url: str = replica.url) -> None:
                        answers.append(await http.post(f"{url}/token", data=form))

                    tg.start_soon(redeem)

        anyio.run(both)
        # One code presented twice: at most one redemption answers (none, when the
        # replay revoked the grant before the first had issued); the grant ends either way.
        statuses = sorted(r.status_code for r in answers)
        assert statuses in ([200, 400], [400, 400]), [r.text for r in answers]
        assert {r.json()["error"] for r in answers if r.status_code == 400} == {"invalid_grant"}
        for won in [r.json() for r in answers if r.status_code == 200]:
            for replica in (a, b):
                assert refused_by(replica, won, started["client_id"]) == (401, "invalid_grant")


# The operator's options.


@pytest.mark.serving
def test_serve_takes_the_sign_in_rates_as_options_and_refuses_bad_ones_in_one_line():
    environment = {
        **os.environ,
        **SIGN_IN_ENV,
        "TOOLSPECS_TOKEN_KEY": Fernet.generate_key().decode(),
    }
    rates = ("--authorize-per-address", "2", "--authorize-total", "50", "--token-per-client", "3")
    with toolspecs_serve("gmail", "--google-sign-in", *rates, env=environment) as (url, _):
        with httpx2.Client(timeout=30) as http:
            authorize = attacker(http, url.rsplit("/", 1)[0], url)
            here = url.rsplit("/", 1)[0]
            answers = [authorize(here, "203.0.113.7") for _ in range(3)]
        assert [a.status_code for a in answers[:2]] == [302, 302]
        busy_page(answers[2], "from your address")
        assert int(answers[2].headers["retry-after"]) <= 600  # ten-minute windows
    cases = [
        (("--http", "--google-sign-in", "--authorize-total", "0"), "not a whole number"),
        (("--http", "--token-per-client", "5"), "--token-per-client is for --google-sign-in"),
    ]
    for args, message in cases:
        line = refused_in_one_line(*args, env=environment)
        assert message in line, (args, line)
