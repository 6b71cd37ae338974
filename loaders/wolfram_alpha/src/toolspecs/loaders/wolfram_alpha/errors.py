"""What can go wrong when asking Wolfram|Alpha, as exceptions carrying what happened.

Hierarchy::

    WolframAlphaLoaderError         base: ``status``, ``reason``, ``retry_after``
    ├── QueryNotUnderstood          LLM API 501, or Full Results success=false
    ├── AppIdError                  the AppID is the problem: a person has to fix it
    │   ├── AppIdMissing            none was given, nor set in the environment
    │   ├── AppIdMalformed          it cannot be sent in a header: it was never sent
    │   └── AppIdRejected           HTTP 403, or the Full Results API's appid error
    ├── WolframAlphaBadRequest      HTTP 400 (and other 4xx), or a Full Results input error
    └── WolframAlphaUnavailable     429, 5xx, a reply too large: may work later
        ├── WolframAlphaTimeout     no answer from ``host`` within ``seconds``
        ├── WolframAlphaUnreachable no connection to ``host`` (``resolved``: did its name?)
        └── MalformedReply          a reply that is not the expected XML, or is cut short

No message, reason or attribute holds the AppID.
"""

from __future__ import annotations

from collections.abc import Iterable

from toolspecs.base.net import LoaderError, unreachable_reason


def cut(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters with "…"."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


class WolframAlphaLoaderError(LoaderError):
    """Base of the Wolfram|Alpha loader's exceptions (a ``toolspecs.base.net.LoaderError``)."""


class QueryNotUnderstood(WolframAlphaLoaderError):
    """Wolfram|Alpha could not read ``query``; its ``suggestions`` or ``did_you_mean`` are kept."""

    def __init__(
        self,
        query: str,
        suggestions: Iterable[str] = (),
        did_you_mean: Iterable[str] = (),
        *,
        status: int | None = None,
        reason: str = "",
    ) -> None:
        self.query = query
        self.suggestions = tuple(suggestions)
        self.did_you_mean = tuple(did_you_mean)
        super().__init__(
            f"Wolfram|Alpha did not understand the query {cut(query)!r}",
            status=status,
            reason=reason,
        )


class AppIdError(WolframAlphaLoaderError):
    """The AppID is missing or Wolfram|Alpha refused it: a person has to fix it."""


class AppIdMissing(AppIdError):
    """No AppID was given, and none is set in the environment variables named in ``reason``."""


class AppIdMalformed(AppIdError):
    """The AppID holds spaces or control characters, or a library refused its header; not sent."""


class AppIdRejected(AppIdError):
    """Wolfram|Alpha refused the AppID (invalid, or not enabled for this API)."""


class WolframAlphaBadRequest(WolframAlphaLoaderError):
    """Wolfram|Alpha rejected the request itself (e.g. no input)."""


class WolframAlphaUnavailable(WolframAlphaLoaderError):
    """Wolfram|Alpha gave no usable answer this time; the same call may work later."""


class WolframAlphaTimeout(WolframAlphaUnavailable):
    """Wolfram|Alpha (``host``) did not answer within ``seconds``; ``reason``: what timed out."""

    def __init__(self, seconds: float, reason: str = "", *, host: str = "") -> None:
        self.seconds = seconds
        self.host = host
        at = f" ({host})" if host else ""
        super().__init__(
            f"Wolfram|Alpha{at} did not answer within {seconds:g} seconds", reason=reason
        )


class WolframAlphaUnreachable(WolframAlphaUnavailable):
    """No connection could be made to ``host`` (``resolved``: its name did resolve)."""

    def __init__(self, host: str, *, resolved: bool, reason: str = "") -> None:
        self.host = host
        self.resolved = resolved
        reason = reason or unreachable_reason(host, resolved=resolved)
        super().__init__(f"Wolfram|Alpha is unreachable: {reason}", reason=reason)


class MalformedReply(WolframAlphaUnavailable):
    """Wolfram|Alpha's reply is not the XML it should send, or ends early."""
