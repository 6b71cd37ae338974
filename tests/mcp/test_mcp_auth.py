"""toolspecs.server.auth: where the HTTP server's bearer token comes from, and which hosts it answers.

The server itself, with a real client and curl's requests, is in test_mcp_http.py.
"""

from __future__ import annotations

import os
import stat

import anyio
import pytest

from toolspecs.core import ConfigurationError
from toolspecs.server import auth

TOKEN = "a-long-enough-random-token-0123456789"


@pytest.fixture(autouse=True)
def _no_token_in_environment(monkeypatch, tmp_path):
    monkeypatch.delenv(auth.TOKEN_ENV, raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def private(path, text: str, mode: int = 0o600):
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)
    return path


def test_the_environment_wins_then_the_file_then_the_state_folder(monkeypatch, tmp_path):
    given = private(tmp_path / "token", TOKEN + "-file\n")
    assert auth.bearer_token(given) == (TOKEN + "-file", str(given))
    monkeypatch.setenv(auth.TOKEN_ENV, TOKEN)
    assert auth.bearer_token(given) == (TOKEN, "$TOOLSPECS_SERVE_TOKEN")


def test_a_made_token_is_private_and_the_same_on_the_next_start(tmp_path):
    token, where = auth.bearer_token()
    made = tmp_path / "state" / "toolspecs" / "serve-token"
    assert where == str(made) and made.read_text(encoding="utf-8") == token + "\n"
    assert stat.S_IMODE(made.stat().st_mode) == 0o600
    assert stat.S_IMODE(made.parent.stat().st_mode) == 0o700
    assert auth.bearer_token() == (token, where)


@pytest.mark.parametrize(
    ("mode", "text", "said"),
    [
        (0o644, TOKEN, "others may read the token file"),
        (0o600, "short", "is not 22 to 4096 printable characters"),
        (0o600, TOKEN + " " + TOKEN, "holds a space"),
    ],
)
def test_an_unfit_token_file_says_what_to_do(tmp_path, mode, text, said):
    path = private(tmp_path / "token", text, mode)
    with pytest.raises(ConfigurationError, match=said):
        auth.bearer_token(path)


def test_a_token_file_that_is_a_link_or_not_ours_is_refused(tmp_path):
    real = private(tmp_path / "real", TOKEN)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(ConfigurationError, match="not a link"):
        auth.bearer_token(link)
    if os.getuid() == 0:  # root can give the file away, as another user's would be
        os.chown(real, 65534, 65534)
        with pytest.raises(ConfigurationError, match="belongs to another user"):
            auth.bearer_token(real)


def test_the_token_is_compared_whole():
    verifier = auth.StaticTokenVerifier(TOKEN)
    assert anyio.run(verifier.verify_token, TOKEN).client_id == auth.CLIENT_ID
    for wrong in ("", TOKEN[:-1], TOKEN + "x", TOKEN.upper()):
        assert anyio.run(verifier.verify_token, wrong) is None


@pytest.mark.parametrize(
    ("address", "loopback"),
    [("127.0.0.1", True), ("127.0.0.2", True), ("::1", True), ("0.0.0.0", False),
     ("192.0.2.7", False), ("::", False), ("not-an-address", False)],
)  # fmt: skip
def test_loopback_is_decided_by_the_bound_address(address, loopback):
    assert auth.is_loopback(address) is loopback


def test_the_rebinding_check_names_this_address_and_port_only():
    loop = auth.transport_security("127.0.0.2", 8123)
    assert loop.enable_dns_rebinding_protection
    assert loop.allowed_hosts == [
        "127.0.0.2:8123",
        "localhost:8123",
        "127.0.0.1:8123",
        "[::1]:8123",
    ]
    assert "http://localhost:8123" in loop.allowed_origins
    remote = auth.transport_security("192.0.2.7", 80, ["MCP.example.com"])
    # On port 80 clients send the name alone (a default port is left out).
    assert remote.allowed_hosts == [
        "192.0.2.7:80",
        "mcp.example.com:80",
        "192.0.2.7",
        "mcp.example.com",
    ]
    with pytest.raises(ConfigurationError, match="--allowed-host NAME"):
        auth.transport_security("0.0.0.0", 80)
    assert auth.transport_security("::", 80, ["mcp.example.com"]).allowed_hosts == [
        "mcp.example.com:80",
        "mcp.example.com",
    ]


def test_an_allowed_host_with_a_port_keeps_it_for_a_load_balancers_address():
    # Behind nginx the Host is the balancer's (its port, not the replica's).
    names = ["127.0.0.1:8443", "mcp.example.com:443", "[::1]:9000", "mcp.example.com"]
    security = auth.transport_security("192.0.2.7", 8123, names)
    assert security.allowed_hosts == [
        "192.0.2.7:8123",
        "127.0.0.1:8443",
        "mcp.example.com:443",
        "[::1]:9000",
        "mcp.example.com:8123",
        "mcp.example.com",  # behind https on 443, a client's Host has no port
    ]
    assert "https://mcp.example.com:443" in security.allowed_origins
    assert "https://mcp.example.com" in security.allowed_origins
