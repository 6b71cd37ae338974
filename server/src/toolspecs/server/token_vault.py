"""Each signed-in user's Google tokens, encrypted at rest (Fernet), in memory or in Redis.

Whoever reads the server's memory dump or its Redis could act as every signed-in person,
so each record is sealed under ``$TOOLSPECS_TOKEN_KEY`` (the server refuses to start
without it); a record altered at rest reads as absent (the person signs in again), and a
Redis key is a SHA-256 of the user. The results store was weighed: its records are
results with passages and budgets, not small secrets with a TTL.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from typing import Any

from cryptography.fernet import Fernet, InvalidToken  # with pyjwt[crypto]

from toolspecs.adapters.tools import require
from toolspecs.core.errors import ConfigurationError

__all__ = ["KEY_ENV", "RedisTokenVault", "TokenVault", "fernet_from_env"]

KEY_ENV = "TOOLSPECS_TOKEN_KEY"
# A user's record lives this long after it was last written (their refresh token's life
# at Google is longer; signing in again writes it anew).
RECORD_SECONDS = 90 * 24 * 3600
_NO_KEY = (
    f"--google-sign-in keeps each user's Google tokens encrypted: set ${KEY_ENV} to a key "
    "made by python -c 'from cryptography.fernet import Fernet; "
    "print(Fernet.generate_key().decode())'"
)


def fernet_from_env(environ: Any = None) -> Any:
    """``cryptography``'s ``Fernet`` with the key in ``$TOOLSPECS_TOKEN_KEY``."""
    key = (os.environ if environ is None else environ).get(KEY_ENV, "").strip()
    if not key:
        raise ConfigurationError(_NO_KEY)
    try:
        return Fernet(key.encode("ascii"))
    except (ValueError, UnicodeEncodeError):
        raise ConfigurationError(f"${KEY_ENV} is not a Fernet key. {_NO_KEY}") from None


class TokenVault:
    """Users' token records (JSON objects), encrypted with ``fernet``, in this process."""

    def __init__(self, fernet: Any) -> None:
        self._fernet = fernet
        self._sealed: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def put(self, user: str, record: dict[str, Any]) -> None:
        """Keep ``record`` for ``user``, replacing what was kept."""
        self._write(user, self._fernet.encrypt(json.dumps(record).encode()))

    def get(self, user: str) -> dict[str, Any] | None:
        """The record of ``user``; ``None`` when none is kept or it cannot be read."""
        sealed = self._read(user)
        if sealed is None:
            return None
        try:
            record = json.loads(self._fernet.decrypt(sealed))
        except (InvalidToken, ValueError):
            return None  # altered, or sealed under another key: the user signs in again
        return record if isinstance(record, dict) else None

    def delete(self, user: str) -> None:
        """Forget ``user``'s record (signed out, or their Google access revoked)."""
        with self._lock:
            self._sealed.pop(user, None)

    def sealed(self, user: str) -> bytes | None:
        """What is kept for ``user``, as it lies at rest (tests read it)."""
        return self._read(user)

    def _write(self, user: str, sealed: bytes) -> None:
        with self._lock:
            self._sealed[user] = sealed

    def _read(self, user: str) -> bytes | None:
        with self._lock:
            return self._sealed.get(user)


class RedisTokenVault(TokenVault):
    """The same records in Redis (or Valkey), shared by every replica; ``client`` may be a URL."""

    def __init__(self, fernet: Any, client: Any, prefix: str = "toolspecs:google") -> None:
        super().__init__(fernet)
        if isinstance(client, str):
            redis = require("redis", "redis")
            client = redis.Redis.from_url(client, socket_timeout=5, socket_connect_timeout=5)
        self._client = client
        self._prefix = prefix

    def _key(self, user: str) -> str:
        return f"{self._prefix}:{hashlib.sha256(user.encode()).hexdigest()}"

    def _write(self, user: str, sealed: bytes) -> None:
        self._client.set(self._key(user), sealed, ex=RECORD_SECONDS)

    def _read(self, user: str) -> bytes | None:
        value = self._client.get(self._key(user))
        return bytes(value) if value is not None else None

    def delete(self, user: str) -> None:
        """Forget ``user``'s record."""
        self._client.delete(self._key(user))
