"""Sign in with Google on replicas sharing one Redis: any replica takes any step.

Two sign-in servers (each a ``GoogleSignInProvider`` under uvicorn on 127.0.0.1, as
``serve --store redis://`` builds them) share a real redis-server (tests/conftest.py) for
their OAuth state and the users' Google tokens, and announce the same public URL, as
replicas behind a balancer do. The test plays the balancer: it sends each step of the
flow to the replica it chooses. Google's OAuth endpoints are ``FakeGoogleOAuth``
(the provider's requests through an ``httpx2.MockTransport``, google-auth's refresh
through ``responses``). No network.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import secrets
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
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
    what_tokens_get,
)
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from serving import toolspecs_serve

from toolspecs.core.errors import RetryLater
from toolspecs.hosting.google.accounts import GoogleSignIn
from toolspecs.hosting.google.signin import GENERATION_CLAIM, GoogleSignInProvider
from toolspecs.loaders.google.testing import FakeGmail
from toolspecs.server import build_server
from toolspecs.server.registration import RegistrationLimits
from toolspecs.server.signin_app import sign_in_app
from toolspecs.server.signin_state import RedisSignInState, SignInState
from toolspecs.server.token_vault import RedisTokenVault
from toolspecs.server.user_tools import User, UserTools
from toolspecs.specs.gmail import GmailToolSpec

pytestmark = pytest.mark.serving

redis = pytest.importorskip("redis")

PEOPLE = ("alice@example.org", "bob@example.org")
REDIRECT = "http://127.0.0.1:9/callback"
SEARCH = ("gmail_search_messages", {"query": "quokka"})


class Replica:
    """One sign-in server: its provider, its users' tools, its address."""

    def __init__(self, cluster: Cluster, redis_url: str, **options: Any) -> None:
        self.cluster = cluster
        self.vault = RedisTokenVault(cluster.fernet, redis_url)
        self.provider = GoogleSignInProvider(
            GoogleSignIn(CLIENT_ID, CLIENT_SECRET, SCOPES),
            self.vault,
            cluster.issuer,
            cluster.issuer + "/mcp",
            transport=cluster.transport(),
            state=RedisSignInState(redis_url),
            **options,
        )
        issuer = self.provider.issuer
        listed = GmailToolSpec(transport=FakeGmail()).to_tool_list(prefix="gmail_")
        self.user_tools = UserTools(
            self.build,
            [t.metadata.get_name() for t in listed],
            version=lambda user: user.claims.get(GENERATION_CLAIM),
        )
        self.provider.on_forget.append(
            lambda subject: self.user_tools.drop(User.named(subject, issuer))
        )
        self.app = sign_in_app(
            build_server(listed, user_tools=self.user_tools),
            self.provider,
            streamable_http_path="/mcp",
        )
        self.creds: dict[str, Any] = {}
        self.url = ""

    def build(self, user: Any) -> list:
        creds = self.provider.credentials(user.subject)
        self.creds[user.email] = creds
        spec = GmailToolSpec(creds=creds, transport=self.cluster.mailboxes[user.email])
        return spec.to_tool_list(prefix="gmail_")


class Cluster(FakeGoogleAndMail):
    """Two replicas, one Redis, one fake Google, everyone's mailbox."""

    def __init__(self, issuer: str) -> None:
        super().__init__(PEOPLE)
        self.issuer = issuer
        self.fernet = Fernet(Fernet.generate_key())
        self.replicas: list[Replica] = []


@contextlib.contextmanager
def two_replicas(redis_url: str, **options: Any) -> Iterator[Cluster]:
    """Two replicas on ``redis_url``; ``options`` go to each provider (``limits``)."""
    sockets = [socket.create_server(("127.0.0.1", 0)) for _ in range(2)]
    # Both announce the first one's address, as replicas behind one balancer do.
    cluster = Cluster(f"http://127.0.0.1:{sockets[0].getsockname()[1]}")
    with contextlib.ExitStack() as stack:
        stack.enter_context(refreshed_by_google(cluster.google))
        for listening in sockets:
            replica = Replica(cluster, redis_url, **options)
            replica.url = f"http://127.0.0.1:{listening.getsockname()[1]}"
            stack.enter_context(on_uvicorn(replica.app, listening))
            cluster.replicas.append(replica)
        yield cluster


def on(replica: Replica, url: str) -> str:
    """``url`` (at the public address) sent to ``replica`` instead."""
    parts = urlsplit(url)
    return replica.url + parts.path + (f"?{parts.query}" if parts.query else "")


def register(http: httpx2.Client, replica: Replica) -> str:
    answer = http.post(
        f"{replica.url}/register",
        json={
            "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["client_id"])


def sign_in(
    cluster: Cluster,
    email: str,
    route: str = "AAAA",
    client_id: str | None = None,
    meanwhile: Callable[[], None] | None = None,
    redeem: bool = True,
) -> dict[str, Any]:
    """The whole flow, each step on the replica ``route`` names: register, authorize (and
    our consent page), the approval and Google's callback, token. Returns the token answer
    (and the client id). ``meanwhile`` runs after /authorize, before the page is read;
    without ``redeem``, the flow stops before the token: the code, verifier and client id."""
    steps = [cluster.replicas[ord(c) - ord("A")] for c in route]
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    with httpx2.Client(timeout=30) as http:
        client_id = client_id or register(http, steps[0])
        sent = http.get(
            f"{steps[1].url}/authorize",
            params={
                "response_type": "code",
                "client_id": client_id,
                "redirect_uri": REDIRECT,
                "code_challenge": challenge.rstrip(b"=").decode(),
                "code_challenge_method": "S256",
                "state": "client-state",
                "resource": cluster.issuer + "/mcp",
            },
        )
        assert sent.status_code == 302, sent.text
        if meanwhile is not None:
            meanwhile()
        # The person approves on our consent page: shown by one replica, answered to
        # the replica of Google's callback (the trip and its binding are in Redis).
        action, form = consent_form(http.get(on(steps[1], sent.headers["location"])))
        to_google = http.post(on(steps[2], action), data=form)
        assert to_google.status_code == 303, to_google.text
        back = cluster.google.consent(to_google.headers["location"], email)
        to_client = http.get(on(steps[2], back))
        assert to_client.status_code == 302, to_client.text
        query = parse_qs(urlsplit(to_client.headers["location"]).query)
        assert query["state"] == ["client-state"]
        if not redeem:
            return {"code": query["code"][0], "verifier": verifier, "client_id": client_id}
        tokens = http.post(
            f"{steps[3].url}/token",
            data={
                "grant_type": "authorization_code",
                "code": query["code"][0],
                "redirect_uri": REDIRECT,
                "client_id": client_id,
                "code_verifier": verifier,
                "resource": cluster.issuer + "/mcp",
            },
        )
        assert tokens.status_code == 200, tokens.text
        return {**tokens.json(), "client_id": client_id, "code": query["code"][0]}


async def call(replica: Replica, access: str, name: str, arguments: dict) -> Any:
    headers = {"Authorization": f"Bearer {access}"}
    with anyio.fail_after(60):
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http,
            Client(streamable_http_client(replica.url + "/mcp", http_client=http)) as session,
        ):
            return await session.call_tool(name, arguments)


def text_of(result: Any) -> str:
    (block,) = result.content
    return str(block.text)


def test_each_step_of_a_sign_in_may_reach_another_replica(redis_url):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        alice = PEOPLE[0]
        # Register on A, authorize on A, Google's callback reaches B, the code is redeemed
        # on A; the tool is called on B.
        tokens = sign_in(cluster, alice, "AABA")
        found = anyio.run(call, b, tokens["access_token"], *SEARCH)
        assert found.is_error is False, text_of(found)
        assert secret_of(alice) in text_of(found) and secret_of(PEOPLE[1]) not in text_of(found)
        assert b.creds[alice].token in cluster.google.users[alice].access_tokens
        # And the other way round, for another person.
        other = sign_in(cluster, PEOPLE[1], "BBAB")
        mine = anyio.run(call, a, other["access_token"], *SEARCH)
        assert secret_of(PEOPLE[1]) in text_of(mine) and secret_of(alice) not in text_of(mine)
        # A code is redeemed once, whichever replica sees it again.
        with httpx2.Client(timeout=30) as http:
            again = http.post(
                f"{b.url}/token",
                data={
                    "grant_type": "authorization_code",
                    "code": tokens["code"],
                    "redirect_uri": REDIRECT,
                    "client_id": tokens["client_id"],
                    "code_verifier": "x" * 43,
                },
            )
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
        # Redis holds hashes and records, never a token or code of ours; every key expires.
        raw = redis.Redis.from_url(redis_url)
        keys = raw.keys("toolspecs:*")
        stored = b"".join(keys + [raw.get(k) or b"" for k in keys])
        for secret in (tokens["access_token"], tokens["refresh_token"], tokens["code"]):
            assert secret.encode() not in stored
        lives = {k.decode().split(":")[2]: raw.ttl(k) for k in keys if b":signin:" in k}
        assert {"client", "access", "refresh"} <= set(lives) and all(t > 0 for t in lives.values())
        assert lives["access"] <= 3600
        raw.close()


def test_a_refresh_token_redeemed_twice_at_once_succeeds_once_then_its_grant_ends(redis_url):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        tokens = sign_in(cluster, PEOPLE[0], "AAAA")
        form = {
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": tokens["client_id"],
        }
        answers: list[httpx2.Response] = []

        async def both() -> None:
            async with httpx2.AsyncClient(timeout=30) as http, anyio.create_task_group() as tg:
                for replica in (a, b, a, b):

                    async def redeem(url: str = replica.url) -> None:
                        answers.append(await http.post(f"{url}/token", data=form))

                    tg.start_soon(redeem)

        anyio.run(both)
        # At most one exchange succeeds: the one that spends the token first, unless a
        # reuse has revoked the grant before it issued (then none does; both are right).
        statuses = sorted(r.status_code for r in answers)
        assert statuses in ([200, 400, 400, 400], [400] * 4), [r.text for r in answers]
        assert {r.json()["error"] for r in answers if r.status_code == 400} == {"invalid_grant"}
        # One refresh token presented four times: reuse (RFC 9700 4.14.2), so its grant is
        # revoked, the winner's new tokens with it, on both replicas.
        for fresh in [r.json() for r in answers if r.status_code == 200]:
            for replica in (a, b):
                assert refused(replica, fresh, tokens["client_id"]) == (401, "invalid_grant")
        for replica in (a, b):  # and the tokens it came from
            assert refused(replica, tokens, tokens["client_id"]) == (401, "invalid_grant")


def test_taking_a_record_is_atomic_across_many_takers(redis_url):
    shared = [RedisSignInState(redis_url) for _ in range(8)]
    for round_ in range(5):
        key = f"k{round_}"
        shared[0].put("refresh", key, {"n": round_}, 60)
        got: list[Any] = []

        def take(state: RedisSignInState, key: str = key, got: list[Any] = got) -> None:
            got.append(state.take("refresh", key))

        threads = [threading.Thread(target=take, args=(state,)) for state in shared]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [g for g in got if g is not None] == [{"n": round_}] and len(got) == 8
    memory = SignInState(max_kept=3)
    for n in range(5):
        memory.put("client", str(n), {"n": n}, 60)
    assert [memory.get("client", str(n)) for n in range(5)] == [
        None,
        None,
        {"n": 2},
        {"n": 3},
        {"n": 4},
    ]


def test_the_memory_and_redis_states_spend_bound_and_count_alike(redis_url):
    for state in (SignInState(), RedisSignInState(redis_url)):
        # A spent record is found under its new kind, once; the first spend wins.
        state.put("refresh", "r", {"grant": "g"}, 600)
        assert state.spend("refresh", "r", "spent") == {"grant": "g"}
        assert state.spend("refresh", "r", "spent") is None
        assert state.get("refresh", "r") is None and state.get("spent", "r") == {"grant": "g"}
        # A bounded kind keeps the newest; bound 0 keeps all; a deleted one leaves the count.
        for n in range(5):
            state.put("unused", str(n), {"n": n}, 600, bound=3)
            state.put("client", str(n), {"n": n}, 600, bound=0)
        kept = [state.get("unused", str(n)) is not None for n in range(5)]
        assert kept == [False, False, True, True, True]
        assert all(state.get("client", str(n)) is not None for n in range(5))
        state.delete("unused", "4")
        state.put("unused", "5", {"n": 5}, 600, bound=3)
        assert [state.get("unused", str(n)) is not None for n in (2, 3, 5)] == [True] * 3
        # Rate counts: per name, within the window.
        assert [state.hits("a", 3600)[0] for _ in range(3)] == [1, 2, 3]
        count, left = state.hits("b", 3600)
        assert count == 1 and 0 < left <= 3600
        # Counters: a hold keeps the ones that exist, makes none.
        assert state.counters("x", "y", hold=600) == [0, 0]
        state.bump("x", 600)
        assert state.counters("x", "y", hold=900) == [1, 0]
    raw = redis.Redis.from_url(redis_url)
    (counter,) = raw.keys("toolspecs:signin:n:*")
    assert 600 < raw.ttl(counter) <= 900  # held
    assert raw.zcard("toolspecs:signin:pool:unused") == 3 and not raw.keys("*:pool:client")
    raw.close()


def refused(replica: Replica, tokens: dict[str, Any], client_id: str) -> tuple[int, str]:
    """What ``tokens`` get from ``replica`` (:func:`what_tokens_get`)."""
    return what_tokens_get(replica.url, tokens["access_token"], tokens["refresh_token"], client_id)


def test_signing_out_on_one_replica_ends_every_client_of_the_user_on_every_replica(redis_url):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        bob = PEOPLE[1]
        laptop = sign_in(cluster, bob, "AAAA")
        phone = sign_in(cluster, bob, "BBBB")
        # B builds (and keeps) Bob's tools with his Google credentials.
        first = anyio.run(call, b, phone["access_token"], *SEARCH)
        assert secret_of(bob) in text_of(first)
        sub = cluster.google.users[bob].sub
        # Bob signs out on his phone; the request reaches B.
        with httpx2.Client(timeout=30) as http:
            revoked = http.post(
                f"{b.url}/revoke",
                # mcp's revocation form asks for client_secret even of a public client.
                data={
                    "token": phone["access_token"],
                    "client_id": phone["client_id"],
                    "client_secret": "",
                },
            )
        assert revoked.status_code == 200, revoked.text
        assert a.vault.get(sub) is None  # his Google tokens are gone, for every replica
        # He signs in again on his phone, through either replica, with new Google tokens.
        again = sign_in(cluster, bob, "ABAB", client_id=phone["client_id"])
        back = anyio.run(call, a, again["access_token"], *SEARCH)
        assert secret_of(bob) in text_of(back)
        assert a.creds[bob].token == cluster.google.users[bob].access_tokens[-1]
        # The laptop's old tokens, and the phone's, are over on every replica: A kept
        # Bob's tools built for his new sign-in, and they are not the laptop's to use.
        for replica in (a, b):
            assert refused(replica, laptop, laptop["client_id"]) == (401, "invalid_grant")
            assert refused(replica, phone, phone["client_id"]) == (401, "invalid_grant")
        assert refused(b, again, phone["client_id"]) == (200, "")


def test_a_spent_refresh_token_presented_on_another_replica_ends_the_grant_on_both(redis_url):
    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        tokens = sign_in(cluster, PEOPLE[0], "AAAA")
        client_id = tokens["client_id"]
        with httpx2.Client(timeout=30) as http:
            rotated = http.post(
                f"{a.url}/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": tokens["refresh_token"],
                    "client_id": client_id,
                },
            )
            assert rotated.status_code == 200, rotated.text
            current = rotated.json()
            theft = http.post(
                f"{b.url}/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": tokens["refresh_token"],
                    "client_id": client_id,
                },
            )
        assert theft.status_code == 400 and theft.json()["error"] == "invalid_grant"
        for replica in (a, b):
            assert refused(replica, current, client_id) == (401, "invalid_grant")
        # Redis keeps the spent one's digest only, until it would have expired.
        raw = redis.Redis.from_url(redis_url)
        spent = raw.keys("toolspecs:signin:spent:*")
        assert len(spent) == 1 and 0 < raw.ttl(spent[0]) <= 30 * 24 * 3600
        assert tokens["refresh_token"].encode() not in spent[0] + raw.get(spent[0])
        raw.close()


def test_a_registration_flood_on_two_replicas_is_counted_and_bounded_in_redis(redis_url):
    limits = RegistrationLimits(per_address=3, total=6, unused=2)
    with two_replicas(redis_url, limits=limits) as cluster:
        a, b = cluster.replicas
        alice = PEOPLE[0]
        tokens = sign_in(cluster, alice, "AAAA")  # 1 of 6 this hour
        flood: list[str] = []
        with httpx2.Client(timeout=30) as http:

            def registered(replica: Replica, address: str) -> httpx2.Response:
                return http.post(
                    f"{replica.url}/register",
                    json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
                    headers={"X-Forwarded-For": address},
                )

            # One address, both replicas: three in all, then 429 from either.
            for replica in (a, b, a):
                made = registered(replica, "203.0.113.7")
                assert made.status_code == 201, made.text
                flood.append(made.json()["client_id"])
            for replica in (a, b):
                over = registered(replica, "203.0.113.7")
                assert over.status_code == 429 and over.headers["retry-after"]
                assert over.json()["error"] == "temporarily_unavailable"
            for address in ("198.51.100.1", "198.51.100.2"):
                made = registered(b, address)
                assert made.status_code == 201
                flood.append(made.json()["client_id"])
            over = registered(a, "198.51.100.3")
            assert over.status_code == 429 and "on this server" in over.text
        # Five never-used clients in Redis, two kept (the newest); Alice's is a used one.
        raw = redis.Redis.from_url(redis_url)
        unused = raw.keys("toolspecs:signin:unused:*")
        assert len(unused) == 2 and all(0 < raw.ttl(k) <= 24 * 3600 for k in unused)
        assert len(raw.keys("toolspecs:signin:client:*")) == 1
        raw.close()
        gone = [anyio.run(a.provider.get_client, c) is None for c in flood]
        assert gone == [True, True, True, False, False]
        # Alice keeps working on both replicas: her client refreshes and calls.
        fresh = refused(b, tokens, tokens["client_id"])
        assert fresh == (200, "")


def test_a_refreshed_google_token_is_written_back_for_every_replica(redis_url):
    from google.auth.transport.requests import Request

    with two_replicas(redis_url) as cluster:
        a, b = cluster.replicas
        alice = PEOPLE[0]
        tokens = sign_in(cluster, alice, "AAAA")
        sub = cluster.google.users[alice].sub
        record = a.vault.get(sub)
        # Her Google token expired: B builds her tools, refreshing it once.
        a.vault.put(sub, {**record, "expiry": time.time() - 60})
        found = anyio.run(call, b, tokens["access_token"], *SEARCH)
        assert secret_of(alice) in text_of(found)
        refreshed = b.creds[alice].token
        assert refreshed != record["token"]
        assert refreshed in cluster.google.users[alice].access_tokens
        reader = RedisTokenVault(cluster.fernet, redis_url)  # a replica started later
        kept = reader.get(sub)
        assert kept["token"] == refreshed and kept["expiry"] > time.time() + 3000
        assert kept["refresh_token"] == record["refresh_token"]
        # A spec refreshing the credentials it keeps writes the new token back too.
        puts: list[str] = []
        real_put = b.vault.put
        b.vault.put = lambda user, rec: (puts.append(user), real_put(user, rec))[1]  # type: ignore[method-assign]
        b.creds[alice].refresh(Request())
        assert puts == [sub]  # once
        assert reader.get(sub)["token"] == b.creds[alice].token != refreshed


def _redis_on(port: int, folder: str) -> subprocess.Popen:
    binary = shutil.which("redis-server")
    assert binary is not None
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "LD_PRELOAD" and not k.startswith(("FAKETIME", "DONT_FAKE"))
    }
    process = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            folder,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    for _ in range(200):  # counted, not timed: the tests' clock may be faked
        try:
            if client.ping():
                break
        except redis.exceptions.ConnectionError:
            threading.Event().wait(0.05)
    client.close()
    return process


def test_redis_stopped_mid_run_is_a_clean_503_and_the_server_stays_up(redis_server, tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = _redis_on(port, str(tmp_path))
    url = f"redis://127.0.0.1:{port}/0"
    try:
        with two_replicas(url) as cluster:
            a, _ = cluster.replicas
            tokens = sign_in(cluster, PEOPLE[0], "AAAA")
            process.terminate()
            process.wait(30)
            with httpx2.Client(timeout=30) as http:
                answers = [
                    http.post(f"{a.url}/register", json={"redirect_uris": [REDIRECT]}),
                    http.post(
                        f"{a.url}/token",
                        data={
                            "grant_type": "refresh_token",
                            "refresh_token": tokens["refresh_token"],
                            "client_id": tokens["client_id"],
                        },
                    ),
                    http.post(
                        f"{a.url}/mcp",
                        json={},
                        headers={
                            "Authorization": f"Bearer {tokens['access_token']}",
                            "Accept": "application/json, text/event-stream",
                        },
                    ),
                    http.get(f"{a.url}/oauth/google/callback", params={"state": "s", "code": "c"}),
                ]
                for answer in answers:
                    assert answer.status_code == 503, (answer.request.url, answer.text)
                    assert answer.json()["error"] == "temporarily_unavailable"
                    assert "Traceback" not in answer.text and str(port) not in answer.text
                    assert answer.headers["retry-after"]
                # A user's tools built meanwhile: retry-later guidance, not a traceback.
                with pytest.raises(RetryLater, match="cannot be reached"):
                    a.provider.credentials(cluster.google.users[PEOPLE[0]].sub)
                authorize = http.get(
                    f"{a.url}/authorize",
                    params={"client_id": tokens["client_id"], "redirect_uri": REDIRECT},
                )
                assert authorize.status_code == 503 and "Traceback" not in authorize.text
                # Redis is back (empty: a restart without persistence): the server answers.
                process = _redis_on(port, str(tmp_path))
                assert register(http, a)
                denied = http.post(
                    f"{a.url}/mcp",
                    json={},
                    headers={"Authorization": f"Bearer {tokens['access_token']}"},
                )
                assert denied.status_code == 401  # its token was lost with Redis's memory
    finally:
        process.terminate()
        process.wait(30)


def test_serve_with_a_redis_store_shares_the_sign_in_state_between_processes(redis_url):
    environment = {
        **os.environ,
        **SIGN_IN_ENV,
        "TOOLSPECS_TOKEN_KEY": Fernet.generate_key().decode(),
    }
    args = ("gmail", "--google-sign-in", "--store", redis_url)
    with contextlib.ExitStack() as processes:
        started = [processes.enter_context(toolspecs_serve(*args, env=environment)) for _ in "ab"]
        bases = [url.rsplit("/", 1)[0] for url, _ in started]
        with httpx2.Client(timeout=30) as http:
            client = http.post(
                f"{bases[0]}/register",
                json={"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"},
            ).json()
            sent = http.get(
                f"{bases[1]}/authorize",  # the other process knows the client
                params={
                    "response_type": "code",
                    "client_id": client["client_id"],
                    "redirect_uri": REDIRECT,
                    "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
                    "code_challenge_method": "S256",
                    "state": "s",
                },
            )
            assert sent.status_code == 302, sent.text
            consent = sent.headers["location"]
            assert consent.startswith(f"{bases[1]}/oauth/consent?")
            # The first process shows the page; the second takes the approval.
            page = http.get(consent.replace(bases[1], bases[0]))
            action, form = consent_form(page)
            approved = http.post(action.replace(bases[0], bases[1]), data=form)
        assert approved.status_code == 303, approved.text
        assert approved.headers["location"].startswith("https://accounts.google.com/")
        raw = redis.Redis.from_url(redis_url)
        # The client, registered and not yet used, is in the unused pool.
        assert raw.keys("toolspecs:signin:trip:*") and raw.keys("toolspecs:signin:unused:*")
        assert raw.keys("toolspecs:signin:consent:*")
        raw.close()
