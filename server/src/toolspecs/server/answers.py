"""Accepted introspection answers, kept a short while (``--auth-introspect-cache``)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import cachetools

__all__ = ["INTROSPECT_CACHE_SECONDS", "INTROSPECT_CACHE_TOKENS", "AnswerCache"]

# Introspection answers (active, accepted ones only) are kept at most this long, for at
# most this many tokens (the least recently used go first).
INTROSPECT_CACHE_SECONDS = 60.0
INTROSPECT_CACHE_TOKENS = 4096


class AnswerCache:
    """Accepted introspection answers, by a SHA-256 of the token, until its ``exp`` or ``seconds``.

    Inactive answers are not kept: a refusal kept would spare the issuer little, while any
    stranger could fill the cache with made-up tokens and push the good ones out.
    """

    def __init__(
        self, seconds: float, tokens: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._seconds = max(0.0, seconds)
        self._clock = clock
        self._kept: Any = None
        if self._seconds > 0 and tokens > 0:
            # ttu(key, value, now): when the entry expires, on ``clock``.
            self._kept = cachetools.TLRUCache(tokens, lambda _k, value, _n: value[0], clock)

    @staticmethod
    def _key(token: str) -> bytes:
        return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()

    def get(self, token: str) -> dict[str, Any] | None:
        """The claims an accepted answer about ``token`` gave, while kept."""
        if self._kept is None:
            return None
        found = self._kept.get(self._key(token))
        return None if found is None else dict(found[1])

    def keep(self, token: str, claims: dict[str, Any]) -> None:
        """Keep the claims an accepted answer gave, until ``exp`` or the cap."""
        if self._kept is None:
            return
        remaining = min(float(claims["exp"]) - time.time(), self._seconds)
        if remaining > 0:
            self._kept[self._key(token)] = (self._clock() + remaining, dict(claims))
