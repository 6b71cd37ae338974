"""Who may use ``toolspecs serve --http``: a bearer token, and the addresses it answers on.

Over HTTP, anyone who reaches the port could read the mailbox and send mail as the person
whose credentials the server holds (on 127.0.0.1: every other account of the machine), so
every request must carry the token, checked by mcp's ``AuthSettings`` with our verifier
(mcp has none for one shared token; compared in constant time); it is never printed.
mcp's DNS-rebinding check (``Host``, ``Origin``) is on for every address, loopback decided
by the address really bound, so a web page cannot reach the server through a name it
controls; an address other machines reach needs ``allow_remote``.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import mcp.server.transport_security as security
from mcp.server.auth import provider, settings
from mcp.server.auth.provider import AccessToken
from pydantic import AnyHttpUrl

from toolspecs.base.files import CREATE_FLAGS, READ_FLAGS
from toolspecs.core.errors import ConfigurationError

TOKEN_ENV = "TOOLSPECS_SERVE_TOKEN"
# The shortest token accepted: 128 bits of secrets.token_urlsafe are 22 characters.
MIN_TOKEN_CHARS = 22
MAX_TOKEN_CHARS = 4096
CLIENT_ID = "toolspecs-serve"


class StaticTokenVerifier:
    """mcp's ``TokenVerifier`` for one shared bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of a request whose token is ours, else ``None`` (mcp answers 401)."""
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return provider.AccessToken(token=token, client_id=CLIENT_ID, scopes=[])


def default_token_file() -> Path:
    """``$XDG_STATE_HOME/toolspecs/serve-token`` (default ``~/.local/state/...``)."""
    state = os.environ.get("XDG_STATE_HOME", "").strip()
    base = Path(state) if state and Path(state).is_absolute() else Path.home() / ".local/state"
    return base / "toolspecs" / "serve-token"


def checked_token(text: str, where: str) -> str:
    """``text`` stripped, when it is a token long and plain enough (else ConfigurationError)."""
    token = text.strip()
    if not MIN_TOKEN_CHARS <= len(token) <= MAX_TOKEN_CHARS or not token.isprintable():
        raise ConfigurationError(
            f"the token in {where} is not {MIN_TOKEN_CHARS} to {MAX_TOKEN_CHARS} printable "
            "characters; put a long random one there, e.g. "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )
    if any(c.isspace() for c in token):
        raise ConfigurationError(f"the token in {where} holds a space; use one word")
    return token


def _read_private(path: Path) -> str:
    try:
        fd = os.open(path, READ_FLAGS)  # no link followed, no FIFO waited on
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read the token file {path} ({exc.strerror or exc}); "
            "name a file of yours that is not a link"
        ) from None
    with os.fdopen(fd, encoding="utf-8") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ConfigurationError(f"the token file {path} is not a regular file")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise ConfigurationError(f"the token file {path} belongs to another user")
        if info.st_mode & 0o077:
            raise ConfigurationError(
                f"others may read the token file {path}; run: chmod 600 {path}"
            )
        return file.read(MAX_TOKEN_CHARS + 2)


def _made(path: Path) -> str:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, CREATE_FLAGS, 0o600)
    except FileExistsError:
        return _read_private(path)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        file.write(token + "\n")
    return token


def bearer_token(token_file: str | os.PathLike[str] | None = None) -> tuple[str, str]:
    """The token HTTP clients must send, and where it comes from (ConfigurationError: unfit)."""
    given = os.environ.get(TOKEN_ENV, "")
    if given.strip():
        return checked_token(given, f"${TOKEN_ENV}"), f"${TOKEN_ENV}"
    if token_file is not None and str(token_file).strip():
        path = Path(token_file).expanduser()
        return checked_token(_read_private(path), str(path)), str(path)
    path = default_token_file()
    return checked_token(_made(path), str(path)), str(path)


def is_loopback(address: str) -> bool:
    """Whether a bound address (``getsockname()[0]``) takes connections from this machine only."""
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def transport_security(address: str, port: int, allowed_hosts: Sequence[str] = ()) -> Any:
    """The DNS-rebinding check (mcp's) for a server bound to ``address``:``port``.

    ``Host`` must name this address (on loopback also ``localhost``) or one of
    ``allowed_hosts``, with this port unless written with one; with port 443 or 80, the name
    alone too. ConfigurationError for a wildcard address without ``allowed_hosts``.
    """
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    names = [f"[{ip}]" if ip.version == 6 else str(ip)]
    if ip.is_unspecified:
        if not allowed_hosts:
            raise ConfigurationError(
                f"--host {address} listens on every address; say which host names clients "
                "use with --allowed-host NAME (requests naming another are refused)"
            )
        names = []
    if ip.is_loopback:
        names += ["localhost", "127.0.0.1", "[::1]"]
    names += [h.strip().lower() for h in allowed_hosts if h.strip()]
    hosts = list(dict.fromkeys(name if _has_port(name) else f"{name}:{port}" for name in names))
    hosts += [h.rpartition(":")[0] for h in hosts if h.endswith((":443", ":80"))]
    origins = [f"{scheme}://{host}" for host in hosts for scheme in ("http", "https")]
    return security.TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _has_port(host: str) -> bool:
    name, colon, port = host.rpartition(":")
    if not colon or not port.isdigit():
        return False
    return (name.startswith("[") and name.endswith("]")) or ":" not in name


def auth_settings(url: str) -> Any:
    """The ``AuthSettings`` (mcp's) of a bearer-token resource server (no metadata published)."""
    return settings.AuthSettings(
        issuer_url=as_url(url), resource_server_url=None, required_scopes=[]
    )


def as_url(url: str) -> AnyHttpUrl:
    """``url`` for mcp's ``AnyHttpUrl`` fields, as written (``AnyHttpUrl(url)`` adds a ``/``)."""
    return cast("AnyHttpUrl", url)
