"""The Wolfram|Alpha tool spec: computation an agent can trust, within OpenAI's limits.

``wolfram_alpha_query`` (the LlamaHub function) asks the LLM API, whose answer is text
written for language models; ``wolfram_alpha_pods`` asks the Full Results API for titled
result sections in plain text, images and assumptions. Both go through one
:class:`toolspecs.loaders.wolfram_alpha.WolframAlphaClient`, each request bounded by the
time left of the tool call. Without a ``transport``, ``wolfram_alpha_query`` goes out with
``requests.get``, as LlamaHub's does: patching
``toolspecs.specs.wolfram_alpha.base.requests.get`` patches the function that sends it.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, NamedTuple

# Not used here: code written for LlamaHub's module patches "<this module>.requests.get".
import requests  # noqa: F401
from annotated_types import MaxLen
from pydantic import ValidationError

from toolspecs.base.cache import Cache, CacheBackend, MemoryCache
from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    ToolGuidance,
    ToolSpec,
    fence,
    tool,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.deadline import remaining
from toolspecs.core.failures import reason_of, unreachable_rows
from toolspecs.core.prompts import PromptArgument, TaskPrompt
from toolspecs.loaders.wolfram_alpha import (
    APP_ID_ENV,
    PLACE_KEYS,
    AppIdMalformed,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaClient,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
    location_params,
    split_app_id,
    units_param,
)
from toolspecs.specs.wolfram_alpha import outputs

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import httpx
    from llama_index.core.schema import Document

_POD_FORMATS = ("plaintext", "image")
_PLACE_PARAMS = PLACE_KEYS | {"units"}
# The cache of answers: how many, and how many bytes (one, and all).
CACHE_ENTRIES = 128
CACHE_ENTRY_BYTES = 2**20
CACHE_BYTES = 16 * 2**20


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

# Wolfram reads short keyword queries; a longer one is a mistake, not a question.
MAX_QUERY_CHARS = 1000
# About 3 characters per token for Wolfram's mix of numbers, symbols and words.
CHARS_PER_TOKEN = 3
_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")
# Characters an agent may copy around an assumption value from our « » quotes.
_QUOTES = "«»'\"` "

# A pod title or an assumption value: short words Wolfram gave, never a long text.
Choice = Annotated[str, MaxLen(200)]

COMPUTE = TaskPrompt(
    name="compute",
    title="Compute with Wolfram|Alpha",
    description="An exact answer to a question of maths, science, units or data.",
    template=(
        "Answer with {wolfram_alpha_query}, not from memory: {question}. Send it as a short "
        "query in English. Give the answer with its units, and say how Wolfram|Alpha "
        "read the question."
    ),
    uses=("wolfram_alpha_query",),
    arguments=(PromptArgument("question", "e.g. 'distance from Earth to Mars today'."),),
)


def normalize_query(query: str) -> str:
    """One line, and ``6e14`` written as Wolfram reads it: ``6*10^14``."""
    one_line = " ".join(query.split())
    return _E_NOTATION.sub(lambda m: f"{m.group(1)}*10^{_exponent(m.group(2))}", one_line)


def _exponent(text: str) -> str:
    # Never through int(), which refuses more than 4,300 digits (1e999...9).
    digits = text.lstrip("+-").lstrip("0")
    if not digits:
        return "0"
    return f"-{digits}" if text.startswith("-") else digits


def _query_text(query: str) -> str:
    """The query as sent: normalized, without our « » quotes around it (or ``FixArguments``)."""
    text = normalize_query(query)
    if len(text) > 1 and text[0] == "«" and text[-1] == "»":  # copied from our quotes
        text = text[1:-1].strip()
    if not text:
        raise FixArguments(
            "The query is empty.", "Send keywords such as 'integrate x^2' or 'France population'."
        )
    if len(text) > MAX_QUERY_CHARS:  # a text, not Wolfram's keywords
        raise FixArguments(
            f"The query is {len(text)} characters long: {shown(text)}. Wolfram|Alpha "
            f"reads short keyword queries (at most {MAX_QUERY_CHARS} characters).",
            "Send a few keywords or one expression, e.g. 'France population'.",
        )
    return text


def _choice(value: str | None) -> str | None:
    """A pod title or an assumption value, without the quotes an agent may copy with it."""
    chosen = value.strip().strip(_QUOTES) if value else ""
    return chosen or None


class Place(NamedTuple):
    """The ``units`` and ``location`` a request is for (``None``: not given)."""

    units: str | None = None
    location: str | None = None


def _call_place(place: Place, units: str | None, location: str | None) -> Place:
    """The spec's ``place``, replaced by a call's own (checked: ``FixArguments``)."""
    if units and units.strip():
        try:
            place = place._replace(units=units_param(units))
        except ValueError as exc:
            raise FixArguments(f"{exc}.", "Send 'metric', 'nonmetric', or no units.") from None
    if location and location.strip():
        try:
            location_params(location)
        except ValueError as exc:
            raise FixArguments(
                f"The location {shown(location)} cannot be used: {exc}.",
                "Send a city and region ('Boston, MA'), a latitude,longitude "
                "('42.36,-71.06'), or no location.",
            ) from None
        place = place._replace(location=location.strip())
    return place


class WolframAlphaToolSpec(ToolSpec):
    """Wolfram|Alpha tools: a drop-in for LlamaHub's ``WolframAlphaToolSpec``.

    Args:
        app_id: The Wolfram|Alpha AppID; default ``$WOLFRAM_ALPHA_APP_ID``.
        api_params: Extra parameters for every LLM API request, e.g.
            ``{"units": "metric"}``; an ``appid`` among them is the AppID when ``app_id``
            is not given (sent in a header, never in a URL).
        timeout: Seconds to wait for Wolfram|Alpha.
        units: ``"metric"`` or ``"nonmetric"`` (or ``"imperial"``) for every request.
        location: Where the user is, for every request: a place name (``"Boston, MA"``),
            ``"latitude,longitude"`` or an IP address. A call's own ``location`` or
            ``units`` replaces these, which replace those among ``api_params``.
        cache_seconds: How long an identical query is answered from the cache.
        transport: The httpx transport for both APIs (tests and demos pass a fake's).
        cache: Where answers are kept: a ``toolspecs.base.cache.Cache``, or a store that
            makes one (``open_store("redis://...")``). Default: the spec's
            ``result_store`` when it is such a store, else its own, in memory (128
            answers). Answers are keyed by the query and its options, not by who asked
            (Wolfram's answers are the same for everyone).
        base_url: Where both APIs are reached instead (a mirror, a proxy, a local fake);
            https, or plain http to this machine only. Image links under it are shown.

    Raises:
        ValueError: ``units``, ``location`` or ``base_url`` cannot be used.
    """

    prompts: ClassVar[tuple[TaskPrompt, ...]] = (COMPUTE,)
    spec_functions = ["wolfram_alpha_query", "wolfram_alpha_pods"]  # noqa: RUF012  (LlamaHub's)
    service_name: ClassVar[str] = "Wolfram|Alpha"
    failures: ClassVar[FailureTable] = FAILURES

    def __init__(
        self,
        app_id: str | None = None,
        api_params: dict[str, Any] | None = None,
        timeout: float = 30.0,
        cache_seconds: float = 300.0,
        transport: httpx.BaseTransport | None = None,
        *,
        units: str | None = None,
        location: str | None = None,
        cache: Cache | CacheBackend | None = None,
        base_url: str | None = None,
    ) -> None:
        given, self._api_params = split_app_id(api_params)
        # Only units and location of api_params reach the Full Results API.
        self._pods_params = {k: v for k, v in self._api_params.items() if k in _PLACE_PARAMS}
        if location is not None and location.strip():
            location_params(
                location
            )  # checked now (ValueError): the constructor fails, not each call
        else:
            location = None
        self._place = Place(None if units is None else units_param(units), location)
        self.client = WolframAlphaClient(
            app_id or given, timeout=timeout, transport=transport, base_url=base_url
        )
        self.timeout = self.client.timeout
        self.cache_seconds = cache_seconds
        self._cache_setting = cache
        self._memory = MemoryCache(
            ttl=cache_seconds,
            max_entries=CACHE_ENTRIES,
            max_entry_bytes=CACHE_ENTRY_BYTES,
            max_bytes=CACHE_BYTES,
        )
        # A fake's answers are kept apart from Wolfram's own in a shared cache.
        own = transport is None and base_url is None
        self._namespace = "wolfram-alpha" if own else "wolfram-alpha-via-transport"

    @property
    def token(self) -> str | None:
        """The AppID in use (LlamaHub's attribute name)."""
        return self.client.app_id

    @token.setter
    def token(self, app_id: str | None) -> None:
        self.client.app_id = app_id

    @property
    def answer_cache(self) -> Cache:
        """Where answers are kept now (see the ``cache`` argument)."""
        chosen = self._cache_setting
        if chosen is None and isinstance(self.result_store, CacheBackend):
            chosen = self.result_store
        if isinstance(chosen, CacheBackend):
            return chosen.cache_for(
                self._namespace,
                ttl=self.cache_seconds,
                max_entry_bytes=CACHE_ENTRY_BYTES,
                max_bytes=CACHE_BYTES,
            )
        return self._memory if chosen is None else chosen

    def _cached(self, *key: Any) -> tuple[Cache, str, Any]:
        # The key holds the AppID too: another AppID may be entitled to more (steps).
        answers = self.answer_cache
        named = json.dumps([*key, self.client.app_id or ""], ensure_ascii=False, default=str)
        found = answers.get(named)
        try:
            kept = None if found is None else json.loads(found.decode("utf-8", "surrogatepass"))
        except ValueError:
            kept = None
        return answers, named, kept

    @staticmethod
    def _keep(answers: Cache, key: str, kept: Any) -> None:
        answers.put(key, json.dumps(kept).encode("ascii"))  # ASCII: surrogates escaped

    @tool(
        aliases={"input": "query", "q": "query", "question": "query"},
        read_only=True,
        open_world=True,
        output=outputs.Answer,
    )
    def wolfram_alpha_query(
        self,
        query: str,
        assumption: Choice | None = None,
        units: str | None = None,
        location: str | None = None,
    ) -> outputs.Answer:
        """Wolfram|Alpha facts and math: units, dates, science, data.

        Short English keywords, not sentences ('France population'); one property per
        call; 6*10^14, not 6e14; single-letter variables; named constants ('speed of
        light') without values. Show image URLs as Markdown.

        Args:
            query: e.g. 'boiling point of water in K'.
            assumption: Another meaning an answer listed, e.g. '*C.pi-_*Movie-'.
            units: metric or nonmetric.
            location: e.g. 'Boston, MA'.
        """
        text = _query_text(query)
        place = _call_place(self._place, units, location)
        max_chars = (self.output_budget.max_tokens - 100) * CHARS_PER_TOKEN
        chosen = _choice(assumption)
        # The LLM API's reply is kept, and read again as it was when it came.
        answers, key, kept = self._cached(
            "llm-reply", text, chosen, place, max_chars, sorted(self._api_params.items())
        )
        if isinstance(kept, str):
            return outputs.Answer.of(kept, text)
        reply = self.client.llm_answer(
            text,
            assumption=chosen,
            max_chars=max_chars,
            params=self._api_params,
            deadline=remaining(None),
            **place._asdict(),  # units, location
        )
        self._keep(answers, key, reply)
        return outputs.Answer.of(reply, text)

    @tool(
        aliases={"input": "query", "q": "query", "pod_title": "pod", "title": "pod"},
        read_only=True,
        open_world=True,
        output=outputs.Pods,
    )
    def wolfram_alpha_pods(
        self,
        query: str,
        pod: Choice | None = None,
        assumption: Choice | None = None,
        steps: bool = False,
        units: str | None = None,
        location: str | None = None,
    ) -> outputs.Pods:
        """Wolfram|Alpha's result sections (pods): text, plots, assumptions.

        Args:
            query: e.g. 'integrate x^2'.
            pod: e.g. 'Result'.
            assumption: From Assumptions.
            steps: Step-by-step.
            units: metric or nonmetric.
            location: e.g. 'Boston, MA'.
        """
        text = _query_text(query)
        title = _choice(pod)
        chosen = _choice(assumption)
        place = _call_place(self._place, units, location)
        # The answer is kept as its data (another version's, which does not read, is none).
        answers, key, kept = self._cached(
            "pods-data", text, title, chosen, place, steps, sorted(self._pods_params.items())
        )
        if kept is not None:
            try:
                return outputs.Pods.model_validate(kept)
            except ValidationError:
                pass
        result = self.client.full_results(
            text,
            pod=title,
            assumption=chosen,
            steps=steps,
            formats=_POD_FORMATS,
            params=self._pods_params,
            deadline=remaining(None),
            **place._asdict(),
        )
        answer = outputs.Pods.of(result, text, title, steps, mirrored=self.client.under_base)
        self._keep(answers, key, answer.model_dump(mode="json"))
        return answer

    def passage_source(self, document: Document) -> str:
        """Stored answers are Wolfram|Alpha's text."""
        return outputs.SOURCE
