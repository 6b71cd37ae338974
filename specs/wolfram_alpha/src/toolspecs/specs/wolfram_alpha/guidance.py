"""What the Wolfram|Alpha tools tell the agent when a call cannot go on: every guidance.

What Wolfram said in an error, and its suggestions, reach the agent as third-party text
(fenced). The functions return the exception for the tool to raise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    ToolGuidance,
    fence,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.failures import reason_of, unreachable_rows
from toolspecs.loaders.wolfram_alpha import (
    APP_ID_ENV,
    AppIdMalformed,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
)

GET_APP_ID = (
    "Tell the user: Wolfram|Alpha needs an AppID. Get one free at "
    "https://developer.wolframalpha.com (choose the LLM API), then set the environment "
    f"variable {APP_ID_ENV} or pass app_id=... to WolframAlphaToolSpec."
)
# How many of Wolfram's suggestions guidance repeats, and how long each may be.
SHOWN_SUGGESTIONS = 5
SUGGESTION_TOKENS = 20
_REPHRASE = "Rephrase as short English keywords (e.g. 'France population', 'x^2 = 4')"


class _Failures(FailureTable):
    """Failure rows whose templates may also name ``query``, ``suggestions``, ``did_you_mean``.

    Bounded echoes of the loader error's data. What Wolfram said is third-party text:
    rows show it as ``{wolfram_said}`` or ``{why}`` (fenced), never as the raw
    ``{reason}`` (but in ``unreachable_rows``, where no reply came: the reason is then
    the client's own words, AppID scrubbed).
    """

    def guidance(
        self,
        exc: BaseException,
        service: str = "The service",
        context: Mapping[str, Any] | None = None,
    ) -> ToolGuidance | None:
        reason = reason_of(exc)
        echoes = {
            "wolfram_said": f" It said: {fence.quote(reason, 200)}." if reason else "",
            "why": fence.field(reason, 200),
            "query": shown(getattr(exc, "query", "")),
            "at": f" at {host}" if (host := getattr(exc, "host", "")) else "",
            "suggestions": _listed(getattr(exc, "suggestions", ())),
            "did_you_mean": _listed(getattr(exc, "did_you_mean", ())),
        }
        return super().guidance(exc, service, {**(context or {}), **echoes})


def _listed(items: Iterable[str]) -> str:
    kept = []
    for item in items:
        text = fence.field(item, 200) if isinstance(item, str) else ""
        if text:
            kept.append(fence.quote(clip(text, SUGGESTION_TOKENS)))
        if len(kept) == SHOWN_SUGGESTIONS:
            break
    return "; ".join(kept)


FAILURES: FailureTable = _Failures(
    Failure(
        QueryNotUnderstood,
        FixArguments,
        "{service} did not understand {query}. It suggests: {suggestions}.",
        f"{_REPHRASE}, or send one of its suggestions.",
        when=lambda exc: bool(_listed(getattr(exc, "suggestions", ()))),
    ),
    Failure(
        QueryNotUnderstood,
        FixArguments,
        "{service} did not understand {query}. Did you mean: {did_you_mean}?",
        f"{_REPHRASE}, or send the input it proposes.",
        when=lambda exc: bool(_listed(getattr(exc, "did_you_mean", ()))),
    ),
    Failure(
        QueryNotUnderstood, FixArguments, "{service} did not understand {query}.", _REPHRASE + "."
    ),
    Failure(AppIdMissing, AskUser, "{service} cannot be asked: no AppID is set.", GET_APP_ID),
    Failure(
        AppIdMalformed,
        AskUser,
        "{service} cannot be asked: the AppID as set holds spaces or control characters "
        "inside, so it was not sent.",
        "Do not retry. Tell the user to check the Wolfram|Alpha AppID in "
        f"{APP_ID_ENV} (or app_id=...): it should be one word of letters, digits and "
        "dashes, as shown at https://developer.wolframalpha.com.",
    ),
    Failure(
        AppIdRejected,
        AskUser,
        "{service} refused the AppID.{wolfram_said}",
        "Do not retry. Tell the user their Wolfram|Alpha AppID is invalid or not enabled "
        f"for this API, and to check {APP_ID_ENV}.",
    ),
    Failure(
        WolframAlphaBadRequest,
        FixArguments,
        "{service} rejected the request.{wolfram_said}",
        "Send a non-empty one-line query.",
    ),
    Failure(
        WolframAlphaTimeout,
        RetryLater,
        "{service}{at} did not answer within {exc.seconds:g} seconds.",
        "Try again, or simplify the query.",
    ),
    *unreachable_rows(WolframAlphaUnreachable),
    Failure(MalformedReply, RetryLater, "{service} sent a reply that is not its answer ({why})."),
    Failure(
        WolframAlphaUnavailable,
        RetryLater,
        "{service} is rate-limiting this AppID (HTTP 429).",
        status=429,
    ),
    Failure(
        WolframAlphaUnavailable,
        RetryLater,
        "{service} had a server error (HTTP {status}).{wolfram_said}",
        status=range(500, 600),
    ),
    Failure(WolframAlphaUnavailable, RetryLater, "{service} gave no answer ({why})."),
)
"""How the loader's errors reach the agent (the spec's ``failures``)."""


def empty_query() -> FixArguments:
    """A query with no text (or only our quotes)."""
    return FixArguments(
        "The query is empty.", "Send keywords such as 'integrate x^2' or 'France population'."
    )


def long_query(text: str, most: int) -> FixArguments:
    """A query over ``most`` characters: a text, not Wolfram's keywords."""
    return FixArguments(
        f"The query is {len(text)} characters long: {shown(text)}. Wolfram|Alpha "
        f"reads short keyword queries (at most {most} characters).",
        "Send a few keywords or one expression, e.g. 'France population'.",
    )


def bad_units(exc: ValueError) -> FixArguments:
    """A call's ``units`` that is neither system (``exc`` says which forms are read)."""
    return FixArguments(f"{exc}.", "Send 'metric', 'nonmetric', or no units.")


def bad_location(location: str, exc: ValueError) -> FixArguments:
    """A call's ``location`` that is none of the forms Wolfram takes."""
    return FixArguments(
        f"The location {shown(location)} cannot be used: {exc}.",
        "Send a city and region ('Boston, MA'), a latitude,longitude "
        "('42.36,-71.06'), or no location.",
    )
