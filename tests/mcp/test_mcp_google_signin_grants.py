"""Sign in with Google: sign-out, refresh-token reuse, registration floods and redirects.

The attacks of issue 38's findings 3, 4, 5 and 8, each played over HTTP on 127.0.0.1
against the server of test_mcp_google_signin.py (uvicorn on a thread, the fake Google),
the people's clients being mcp's own (``OAuthClientProvider``), the attacker's raw
requests. Their replicas' side is in test_mcp_google_signin_replicas.py.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import anyio
import httpx2
import pytest
from cryptography.fernet import Fernet
from google_signin_fakes import SIGN_IN_ENV, secret_of, what_tokens_get
from serving import refused_in_one_line, toolspecs_serve
from test_mcp_google_signin import (
    PEOPLE,
    SEARCH,
    Running,
    Storage,
    serving,
    signed_in,
    text_of,
)

from toolspecs.core.errors import AskUser
from toolspecs.server.registration import RegistrationLimits

REDIRECT = "http://127.0.0.1:9/callback"


def base_of(running: Running) -> str:
    return running.url.rsplit("/", 1)[0]


def consents(running: Running, email: str) -> int:
    """How many times ``email`` has been through Google's consent (a token each)."""
    return len(running.google.users[email].access_tokens)


def expired(storage: Storage) -> None:
    """The client knows its access token is over: its next request refreshes first."""
    storage.tokens = storage.tokens.model_copy(update={"access_token": ""})


def refused(running: Running, tokens: Any, client_id: str) -> tuple[int, str]:
    """What ``tokens`` get now (:func:`what_tokens_get`)."""
    return what_tokens_get(base_of(running), tokens.access_token, tokens.refresh_token, client_id)


def register(http: httpx2.Client, running: Running, address: str, *uris: str) -> httpx2.Response:
    """A registration, as if from ``address`` (uvicorn trusts X-Forwarded-For from 127.0.0.1)."""
    return http.post(
        f"{base_of(running)}/register",
        json={"redirect_uris": list(uris or [REDIRECT]), "token_endpoint_auth_method": "none"},
        headers={"X-Forwarded-For": address},
    )


def known(http: httpx2.Client, running: Running, client_id: str) -> bool:
    """Whether the server still knows ``client_id`` (see :func:`known_at`)."""
    return known_at(http, base_of(running), client_id)


def known_at(http: httpx2.Client, base: str, client_id: str) -> bool:
    """Whether the server at ``base`` knows ``client_id`` (/token: 401 invalid_client if not)."""
    answer = http.post(
        f"{base}/token",
        data={
            "grant_type": "authorization_code",
            "code": "no-such-code",
            "redirect_uri": REDIRECT,
            "client_id": client_id,
            "code_verifier": "v" * 43,
        },
    )
    assert answer.status_code in (400, 401), answer.text
    return answer.status_code == 400


def test_signing_out_on_the_phone_ends_the_laptops_tokens_even_after_signing_in_again():
    alice = PEOPLE[0]
    with serving() as running:
        laptop, phone = Storage(), Storage()
        for device in (laptop, phone):
            _, found = anyio.run(signed_in, running, alice, [SEARCH], device)
            assert secret_of(alice) in text_of(found)
        old, old_phone = laptop.tokens, phone.tokens
        # She signs out on her phone: its client revokes its token (RFC 7009).
        with httpx2.Client(timeout=30) as http:
            out = http.post(
                f"{base_of(running)}/revoke",
                data={
                    "token": phone.tokens.access_token,
                    "client_id": phone.client.client_id,
                    "client_secret": "",  # mcp's revocation form asks it even of a public client
                },
            )
        assert out.status_code == 200
        # She signs in again on her phone: its token is refused, so it sends her to Google.
        before = consents(running, alice)
        _, again = anyio.run(signed_in, running, alice, [SEARCH], phone)
        assert secret_of(alice) in text_of(again)
        assert consents(running, alice) == before + 1
        assert phone.tokens.access_token != old_phone.access_token
        # The laptop's old tokens read nothing: 401, and its refresh is invalid_grant.
        assert refused(running, old, laptop.client.client_id) == (401, "invalid_grant")
        assert refused(running, old_phone, phone.client.client_id) == (401, "invalid_grant")
        # Her phone's new sign-in works.
        assert refused(running, phone.tokens, phone.client.client_id) == (200, "")


def test_google_refusing_her_refresh_token_ends_our_tokens_too():
    bob = PEOPLE[1]
    with serving() as running:
        laptop = Storage()
        anyio.run(signed_in, running, bob, [SEARCH], laptop)
        # Bob removes the app at Google; his Google token expires; his tools are built anew.
        running.google.revoke(bob)
        sub = running.google.users[bob].sub
        assert running.provider is not None
        running.vault.put(sub, {**running.vault.get(sub), "expiry": 0})
        try:
            running.provider.credentials(sub)
        except AskUser:
            pass
        else:
            raise AssertionError("Google's refusal was not ask-the-user guidance")
        # He signs in again elsewhere; the laptop's tokens stay refused.
        anyio.run(signed_in, running, bob, [SEARCH])
        assert refused(running, laptop.tokens, laptop.client.client_id) == (401, "invalid_grant")


def test_a_stolen_refresh_token_used_after_rotation_revokes_the_whole_grant(caplog):
    caplog.set_level(logging.WARNING)
    carol = PEOPLE[2]
    with serving() as running:
        holder = Storage()
        anyio.run(signed_in, running, carol, [SEARCH], holder)
        stolen = holder.tokens.refresh_token  # a copy leaks (a backup, a log, malware)
        # Her client refreshes: new access and refresh tokens, the old refresh token spent.
        before = consents(running, carol)
        expired(holder)
        _, found = anyio.run(signed_in, running, carol, [SEARCH], holder)
        assert secret_of(carol) in text_of(found)
        assert consents(running, carol) == before  # refreshed, not signed in again
        current = holder.tokens
        assert current.refresh_token != stolen and current.access_token
        # The thief presents the stolen one: refused.
        with httpx2.Client(timeout=30) as http:
            theft = http.post(
                f"{base_of(running)}/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": stolen,
                    "client_id": holder.client.client_id,
                },
            )
        assert theft.status_code == 400 and theft.json()["error"] == "invalid_grant"
        # The whole grant is over: her current access and refresh tokens too.
        assert refused(running, current, holder.client.client_id) == (401, "invalid_grant")
        warned = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        assert any("presented again" in line and "grant is revoked" in line for line in warned)
        assert not any(stolen in line or current.refresh_token in line for line in warned)
        # Her client, refused, sends her to Google; she signs in and works again.
        _, back = anyio.run(signed_in, running, carol, [SEARCH], holder)
        assert secret_of(carol) in text_of(back) and consents(running, carol) == before + 1


def test_two_exchanges_of_one_refresh_token_at_once_get_one_answer_then_the_grant_ends():
    alice = PEOPLE[0]
    with serving() as running:
        holder = Storage()
        anyio.run(signed_in, running, alice, [SEARCH], holder)
        form = {
            "grant_type": "refresh_token",
            "refresh_token": holder.tokens.refresh_token,
            "client_id": holder.client.client_id,
        }
        answers: list[httpx2.Response] = []

        async def both() -> None:
            async with httpx2.AsyncClient(timeout=30) as http, anyio.create_task_group() as tg:
                for _ in range(2):

                    async def redeem() -> None:
                        answers.append(await http.post(f"{base_of(running)}/token", data=form))

                    tg.start_soon(redeem)

        anyio.run(both)
        assert sorted(r.status_code for r in answers) == [200, 400]
        (lost,) = [r.json() for r in answers if r.status_code == 400]
        assert lost["error"] == "invalid_grant"
        # One token presented twice: the grant is revoked (RFC 9700 4.14.2), the winner's too.
        (won,) = [r.json() for r in answers if r.status_code == 200]
        tokens = holder.tokens.model_copy(
            update={"access_token": won["access_token"], "refresh_token": won["refresh_token"]}
        )
        assert refused(running, tokens, holder.client.client_id) == (401, "invalid_grant")


def test_a_registration_flood_gets_429_and_never_evicts_a_signed_in_client():
    alice = PEOPLE[0]
    limits = RegistrationLimits(per_address=3, total=8, unused=4)
    with serving(limits=limits) as running:
        holder = Storage()
        anyio.run(signed_in, running, alice, [SEARCH], holder)  # her registration: 1 of 8
        flood: list[str] = []
        with httpx2.Client(timeout=30) as http:
            # One address: 3 registrations, then 429.
            for _ in range(3):
                made = register(http, running, "203.0.113.7")
                assert made.status_code == 201, made.text
                flood.append(made.json()["client_id"])
            over = register(http, running, "203.0.113.7")
            assert over.status_code == 429
            assert 1 <= int(over.headers["retry-after"]) <= 3600
            assert over.json()["error"] == "temporarily_unavailable"
            assert "from your address" in over.json()["error_description"]
            # An IPv6 attacker's /64 is one address.
            for n, status in ((1, 201), (2, 201), (3, 201), (4, 429)):
                made = register(http, running, f"2001:db8:1:2::{n}")
                assert made.status_code == status, made.text
                if status == 201:
                    flood.append(made.json()["client_id"])
            # Other addresses: the overall limit (8 an hour here) stops the rest.
            last = register(http, running, "198.51.100.1")
            assert last.status_code == 201
            flood.append(last.json()["client_id"])
            over = register(http, running, "198.51.100.2")
            assert over.status_code == 429
            assert "on this server" in over.json()["error_description"]
            # Seven never-used clients, four kept: the oldest went.
            assert [known(http, running, c) for c in flood] == [False] * 3 + [True] * 4
        # Alice's client, which has tokens, was never evicted: it refreshes and calls.
        before = consents(running, alice)
        expired(holder)
        _, found = anyio.run(signed_in, running, alice, [SEARCH], holder)
        assert secret_of(alice) in text_of(found) and consents(running, alice) == before


def test_redirect_uris_a_browser_must_not_be_sent_to_are_refused_at_registration():
    refused_uris = [
        "javascript:alert(document.domain)",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "http://attacker.example/callback",
        "http://localhost.attacker.example/callback",
        "http://127.0.0.1.nip.io/callback",
        "https://client.example/callback#fragment",
        "myapp:/callback",
    ]
    accepted = [
        "https://client.example/callback",
        "http://localhost:8080/callback",
        "http://127.0.0.1:9/callback",
        "http://127.8.9.10/callback",
        "http://[::1]:3000/callback",
        "com.example.app:/oauth2redirect",
    ]
    limits = RegistrationLimits(per_address=100, total=100)
    with serving(limits=limits) as running, httpx2.Client(timeout=30) as http:
        for uri in refused_uris:
            answer = register(http, running, "192.0.2.1", uri)
            assert answer.status_code == 400, (uri, answer.text)
            error = answer.json()
            assert error["error"] == "invalid_redirect_uri", uri
            assert "use https, http on this machine" in error["error_description"]
        # One bad among good ones refuses the registration.
        mixed = register(http, running, "192.0.2.1", accepted[0], refused_uris[0])
        assert mixed.status_code == 400 and mixed.json()["error"] == "invalid_redirect_uri"
        for uri in accepted:
            answer = register(http, running, "192.0.2.1", uri)
            assert answer.status_code == 201, (uri, answer.text)


@pytest.mark.serving
def test_serve_takes_the_registration_limits_as_options_and_refuses_bad_ones_in_one_line():
    environment = {
        **os.environ,
        **SIGN_IN_ENV,
        "TOOLSPECS_TOKEN_KEY": Fernet.generate_key().decode(),
    }
    limits = ("--register-per-address", "2", "--register-per-hour", "5", "--unused-clients", "1")
    with toolspecs_serve("gmail", "--google-sign-in", *limits, env=environment) as (url, _):
        base = url.rsplit("/", 1)[0]
        form = {"redirect_uris": [REDIRECT], "token_endpoint_auth_method": "none"}
        with httpx2.Client(timeout=30) as http:
            made = [http.post(f"{base}/register", json=form) for _ in range(3)]
        assert [m.status_code for m in made] == [201, 201, 429]
        assert made[2].headers["retry-after"] and "from your address" in made[2].text
        with httpx2.Client(timeout=30) as http:  # one unused client kept: the newest
            assert [known_at(http, base, m.json()["client_id"]) for m in made[:2]] == [
                False,
                True,
            ]
    cases = [
        (("--http", "--google-sign-in", "--register-per-hour", "0"), "not a whole number"),
        (("--http", "--unused-clients", "5"), "are for --google-sign-in"),
    ]
    for args, message in cases:
        line = refused_in_one_line(*args, env=environment)
        assert message in line, (args, line)
