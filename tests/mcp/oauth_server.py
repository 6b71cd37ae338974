"""A real OAuth 2.1 authorization server for the tests: panva's oidc-provider, on 127.0.0.1.

tests/oauth_server/server.mjs (``oidc-provider``, pinned in its package-lock.json,
installed by ``npm ci --prefix tests/oauth_server``, which .ci/run does) listens on a port
of its own choosing and prints its issuer URL. It signs JWT access tokens with a key this
module makes (so a test can also forge tokens with it), for any resource on 127.0.0.1.

Its clients (client_credentials; each client acts for itself, so its id is the token's
``sub``: one client is one user; each may ask for any scope and is granted its ``SCOPES``):
``alice`` and ``bob`` (arXiv read, Wolfram|Alpha write), ``carol`` (Wolfram|Alpha read
only), ``alice-opaque`` (opaque tokens, for introspection) and ``resource-server`` (what
``toolspecs serve`` authenticates as at the introspection endpoint). It counts the
introspection requests it answers (:meth:`AuthorizationServer.introspections`) and revokes
tokens (:meth:`AuthorizationServer.revoke`).

Times: the subprocesses get the real clock even under libfaketime (.ci/clocks moves the
test process's clock only), so tokens are minted and checked on one clock.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from installed import missing

NODE = shutil.which("node")
FOLDER = Path(__file__).parents[1] / "oauth_server"
KID = "test-key-1"
SECRETS = {
    "alice": "alice-secret-" + "a" * 24,
    "bob": "bob-secret-" + "b" * 24,
    "carol": "carol-secret-" + "c" * 24,
    "alice-opaque": "alice-opaque-secret-" + "d" * 24,
    "resource-server": "resource-server-secret-" + "e" * 24,
}
SCOPES = {
    "alice": "toolspecs:arxiv.read toolspecs:wolfram_alpha.write",
    "bob": "toolspecs:arxiv.read toolspecs:wolfram_alpha.write",
    "carol": "toolspecs:wolfram_alpha.read",
    "alice-opaque": "toolspecs:arxiv.read toolspecs:wolfram_alpha.write",
    "resource-server": "",
}
ALL_SCOPES = [
    "toolspecs:arxiv.read",
    "toolspecs:arxiv.write",
    "toolspecs:wolfram_alpha.read",
    "toolspecs:wolfram_alpha.write",
]
# What libfaketime puts in a process's environment: subprocesses keep the real clock.
FAKED = ("LD_PRELOAD", "FAKETIME", "FAKETIME_DONT_FAKE_MONOTONIC", "DONT_FAKE_MONOTONIC")


def real_clock_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without libfaketime's variables, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in FAKED and not k.startswith("FAKETIME")}
    return {**env, **(extra or {})}


@dataclass
class AuthorizationServer:
    """The running provider: its issuer and the private key its tokens are signed with."""

    issuer: str
    key: Any

    def token(self, client: str, resource: str, scope: str | None = None) -> str:
        """An access token for ``client`` (client_credentials) bound to ``resource``.

        It asks for every scope (``scope``: these), as MCP clients do; the provider grants
        the client's own (``SCOPES``).
        """
        answer = httpx.post(
            f"{self.issuer}/token",
            data={
                "grant_type": "client_credentials",
                "resource": resource,
                "scope": " ".join(ALL_SCOPES) if scope is None else scope,
            },
            auth=(client, SECRETS[client]),
            timeout=30,
        )
        assert answer.status_code == 200, answer.text
        token: str = answer.json()["access_token"]
        return token

    def introspections(self) -> int:
        """How many introspection requests the provider has answered so far."""
        answer = httpx.get(f"{self.issuer}/test/introspections", timeout=30)
        count: int = answer.json()["introspections"]
        return count

    def revoke(self, client: str, token: str) -> None:
        """Revoke ``client``'s ``token`` at the provider (RFC 7009)."""
        answer = httpx.post(
            f"{self.issuer}/token/revocation",
            data={"token": token, "token_type_hint": "access_token"},
            auth=(client, SECRETS[client]),
            timeout=30,
        )
        assert answer.status_code == 200, answer.text

    def forge(
        self, claims: dict[str, Any], key: Any = None, alg: str = "RS256", typ: str = "at+jwt"
    ) -> str:
        """A JWT signed with the provider's key (or ``key``), with the provider's ``kid``.

        Typed ``at+jwt`` as the provider types its access tokens, unless ``typ`` says
        otherwise (``JWT``: as an ID token is).
        """
        headers = {"kid": KID, "typ": typ}
        return jwt.encode(claims, key or self.key, algorithm=alg, headers=headers)


def _config(key: Any) -> dict[str, Any]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key))
    jwk.update(kid=KID, use="sig", alg="RS256")
    clients = [
        {
            "client_id": client,
            "client_secret": secret,
            "grant_types": ["client_credentials"],
            "response_types": [],
            "redirect_uris": [],
            "scope": " ".join(ALL_SCOPES),
        }
        for client, secret in SECRETS.items()
    ]
    return {"jwks": {"keys": [jwk]}, "clients": clients, "scopes": ALL_SCOPES, "grants": SCOPES}


@contextlib.contextmanager
def authorization_server() -> Iterator[AuthorizationServer]:
    """Start the provider; stop it after (closing its stdin ends it, else it is killed)."""
    if NODE is None:
        missing("node is not installed")
    if not (FOLDER / "node_modules" / "oidc-provider").is_dir():
        missing("oidc-provider is not installed: run `npm ci --prefix tests/oauth_server`")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    process = subprocess.Popen(
        [NODE, "server.mjs"],
        cwd=FOLDER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=real_clock_env({"OAUTH_TEST_CONFIG": json.dumps(_config(key))}),
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    try:
        issuer = json.loads(lines.get(timeout=60))["issuer"]
        yield AuthorizationServer(issuer=issuer, key=key)
    finally:
        if process.stdin is not None:
            process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()
