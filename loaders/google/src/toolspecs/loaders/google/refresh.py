"""Renewing a user's token at Google's token server, within the caller's deadline."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolspecs.base.net import LookupRetry
from toolspecs.loaders.google.network import unreachable


def refresh(creds: Any, time_left: Callable[[], float | None] | None = None) -> None:
    """Renew ``creds`` at Google's token server (a ``RefreshError`` when Google refuses).

    Each request waits at most ``time_left()`` (google-auth's default is 120 s), so a stalled
    refresh does not hold the client past the call's deadline.

    Raises:
        GoogleUnreachable: When the token server gets no answer (``EAI_AGAIN``: once more).
    """
    import tenacity

    from google.auth.exceptions import TransportError
    from google.auth.transport.requests import Request

    class _Bounded(Request):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            left = time_left() if time_left is not None else None
            if left is not None:
                kwargs["timeout"] = max(1.0, min(float(kwargs.get("timeout") or 120), left))
            return super().__call__(*args, **kwargs)  # type: ignore[no-untyped-call]

    lookups = LookupRetry()
    while True:
        try:
            creds.refresh(_Bounded())
            return
        except TransportError as exc:
            failure = unreachable(exc, str(creds.token_uri))
            if failure is None:
                raise
            if not lookups.allows(failure.again):
                raise failure from exc
        # tenacity's sleep, as execute() waits (tests record it there).
        tenacity.nap.sleep(lookups.wait)
