"""The Wolfram|Alpha tool spec: computation an agent can trust, within OpenAI's limits.

Two tools over two Wolfram APIs, both through one
:class:`toolspecs.loaders.wolfram_alpha.WolframAlphaClient`:

- ``wolfram_alpha_query`` (the LlamaHub function) asks the LLM API, whose answer is
  text written for language models: the input as Wolfram read it, results,
  assumptions with the value to change them, and a link.
- ``wolfram_alpha_pods`` asks the Full Results API (read with the ``wolframalpha``
  package's parser) for titled result sections in plain text, one of them by title,
  and the assumptions as values to send back: for one exact value, or to choose a
  meaning.

Wolfram's text is third-party text: answers and result sections reach the agent inside
a :func:`toolspecs.core.fence.block`, one-line values (assumptions, suggestions, what
Wolfram said in an error) as :func:`~toolspecs.core.fence.field` or
:func:`~toolspecs.core.fence.quote`. Each request is bounded by the time left of the
tool call (:func:`toolspecs.core.deadline.remaining`), retries and waits included.

The client raises the loader's errors; :attr:`WolframAlphaToolSpec.failures` turns
them into guidance. Tests and demos pass an httpx transport (``transport=``): the
offline ``toolspecs.loaders.wolfram_alpha.testing.FakeWolframAlpha`` serves both APIs.
Without one, ``wolfram_alpha_query`` goes out with ``requests.get``, as LlamaHub's does:
patching ``toolspecs.specs.wolfram_alpha.base.requests.get`` (LlamaHub's tests patch
their module's) patches the function that sends it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar
from urllib.parse import urlsplit

# Not used here: LlamaHub's module imports requests, and code written for it patches
# "<this module>.requests.get" (its own tests do); that is requests.get, which the client
# sends the LLM API request with when no transport is given.
import requests  # noqa: F401

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    ToolGuidance,
    ToolSpec,
    TTLCache,
    fence,
    tool,
)
from toolspecs.core.bounds import clip, shown
from toolspecs.core.deadline import remaining
from toolspecs.core.failures import reason_of, unreachable_rows
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

if TYPE_CHECKING:
    import httpx
    from llama_index.core.schema import Document
from annotated_types import MaxLen

GET_APP_ID = (
    "Tell the user: Wolfram|Alpha needs an AppID. Get one free at "
    "https://developer.wolframalpha.com (choose the LLM API), then set the environment "
    f"variable {APP_ID_ENV} or pass app_id=... to WolframAlphaToolSpec."
)
# About 3 characters per token for Wolfram's mix of numbers, symbols and words.
CHARS_PER_TOKEN = 3
# Wolfram reads short keyword queries; a longer one is a mistake, not a question.
MAX_QUERY_CHARS = 1000
# How many of Wolfram's suggestions guidance repeats, and how long each may be.
SHOWN_SUGGESTIONS = 5
SUGGESTION_TOKENS = 20
_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")
SOURCE = "Wolfram|Alpha"
# Characters an agent may copy around an assumption value from our « » quotes.
_QUOTES = "«»'\"` "
_REPHRASE = "Rephrase as short English keywords (e.g. 'France population', 'x^2 = 4')"


def normalize_query(query: str) -> str:
    """One line, and ``6e14`` written as Wolfram reads it: ``6*10^14``."""
    one_line = " ".join(query.split())
    return _E_NOTATION.sub(lambda m: f"{m.group(1)}*10^{_exponent(m.group(2))}", one_line)


def _exponent(text: str) -> str:
    """``"+05"`` as ``"5"``, ``"-07"`` as ``"-7"``, as text.

    Never through ``int()``, which refuses more than 4,300 digits (``1e999...9``).
    """
    digits = text.lstrip("+-").lstrip("0")
    if not digits:
        return "0"
    return f"-{digits}" if text.startswith("-") else digits


# A pod title or an assumption value: short words Wolfram gave, never a long text.
Choice = Annotated[str, MaxLen(200)]
# The podstate that asks for a pod's step-by-step solution, as Wolfram documents it: by its
# name (the first pod offering it) and for the pod most math queries offer it on.
STEP_PODSTATES = ("Step-by-step solution", "Result__Step-by-step solution")
# Images are listed only from Wolfram's own hosts (www6b3.wolframalpha.com,
# public5.wolframalpha.com...), over https, and written with the few URL characters
# Wolfram's image links use: none that Markdown reads (``( ) [ ] ! ' *``), so a link
# cannot close itself and open an image from another host.
_IMAGE_HOST = re.compile(r"^(?:www|public)[0-9a-z]*\.wolframalpha\.com$")
_URL_CHARS = re.compile(r"^[A-Za-z0-9._~/?=&%:-]{1,600}$")
SHOWN_IMAGES = 8
_NOT_ENTITLED = (
    "Wolfram|Alpha offers a step-by-step solution for {pods} but sent none: this AppID is "
    "likely not entitled to step-by-step results. Tell the user that their Wolfram|Alpha "
    "API plan needs step-by-step access (https://developer.wolframalpha.com); the results "
    "above stand without steps."
)
_NO_STEPS = (
    "Wolfram|Alpha has no step-by-step solution for {query}: none of its sections offers "
    "one. Steps come for math such as 'solve 3x-7=11' or 'integrate x^2 sin x'; use the "
    "results above."
)


class _Failures(FailureTable):
    """Failure rows whose templates may also name ``query``, ``suggestions``, ``did_you_mean``.

    These are the loader error's data, cut short for guidance.

    The core fills templates from the exception's attributes as they are; Wolfram's
    errors carry the query the agent sent, which can be any length, so this table adds
    bounded echoes of it (``shown``) and of Wolfram's proposals (``clip``). What Wolfram
    said is third-party text: rows show it as ``{wolfram_said}`` (`` It said: «…».``) or
    ``{why}`` (one fenced line), never as the core's raw ``{said}`` or ``{reason}`` (but
    in :func:`~toolspecs.core.failures.unreachable_rows`, where no reply came: there the
    reason is the client's own words on the connection, AppID scrubbed).
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
    """Wolfram's proposals as one line of quoted fields, each cut short."""
    kept = []
    for item in items:
        text = fence.field(item, 200) if isinstance(item, str) else ""
        if text:
            kept.append(fence.quote(clip(text, SUGGESTION_TOKENS)))
        if len(kept) == SHOWN_SUGGESTIONS:
            break
    return "; ".join(kept)


class WolframAlphaToolSpec(ToolSpec):
    """Wolfram|Alpha tools: a drop-in for LlamaHub's ``WolframAlphaToolSpec``.

    Args:
        app_id: The Wolfram|Alpha AppID; default ``$WOLFRAM_ALPHA_APP_ID``.
        api_params: Extra parameters for every LLM API request, e.g.
            ``{"units": "metric"}``; ``maxchars`` is kept within the output budget. An
            ``appid`` among them (as LlamaHub's spec allows) is the AppID when ``app_id``
            is not given; it is sent in a header, never in a URL.
        timeout: Seconds to wait for Wolfram|Alpha.
        units: ``"metric"`` or ``"nonmetric"`` (or ``"imperial"``) for every request;
            default Wolfram's choice for the location.
        location: Where the user is, for every request: a place name (``"Boston, MA"``),
            ``"latitude,longitude"`` (``"42.36,-71.06"``) or an IP address; sent as
            Wolfram's ``location``, ``latlong`` or ``ip``. A call's own ``location`` or
            ``units`` replaces these, which replace those among ``api_params``.
        cache_seconds: How long an identical query is answered from the cache.
        transport: The httpx transport for both APIs (tests and demos pass a fake's).

    Raises:
        ValueError: ``units`` or ``location`` is not one of the forms above.
    """

    spec_functions = ["wolfram_alpha_query", "wolfram_alpha_pods"]  # noqa: RUF012  (LlamaHub's)
    service_name: ClassVar[str] = "Wolfram|Alpha"
    failures: ClassVar[FailureTable] = _Failures(
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
            QueryNotUnderstood,
            FixArguments,
            "{service} did not understand {query}.",
            _REPHRASE + ".",
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
        Failure(
            MalformedReply, RetryLater, "{service} sent a reply that is not its answer ({why})."
        ),
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
    ) -> None:
        given, self._api_params = split_app_id(api_params)
        # Units and location for every request: LlamaHub's api_params may hold them (sent
        # as they are, as LlamaHub sends them); the constructor's replace them.
        self._place = {k: v for k, v in self._api_params.items() if k in PLACE_KEYS or k == "units"}
        if units is not None:
            self._place["units"] = units_param(units)
        if location is not None and location.strip():
            self._place = {k: v for k, v in self._place.items() if k not in PLACE_KEYS}
            self._place.update(location_params(location))
        self.client = WolframAlphaClient(app_id or given, timeout=timeout, transport=transport)
        self.timeout = self.client.timeout
        self._cache: TTLCache[str] = TTLCache(ttl=cache_seconds, size=128)

    @property
    def token(self) -> str | None:
        """The AppID in use (LlamaHub's attribute name)."""
        return self.client.app_id

    @token.setter
    def token(self, app_id: str | None) -> None:
        self.client.app_id = app_id

    # -- tools -------------------------------------------------------------------

    @tool(
        aliases={"input": "query", "q": "query", "question": "query"},
        read_only=True,
        open_world=True,
    )
    def wolfram_alpha_query(
        self,
        query: str,
        assumption: Choice | None = None,
        units: str | None = None,
        location: str | None = None,
    ) -> str:
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
        text = self._query_text(query)
        rest = {k: v for k, v in self._api_params.items() if k not in self._place_keys}
        params = {**rest, **self._place_params(units, location), "maxchars": self._maxchars()}
        chosen = _choice(assumption)
        key = ("llm", text, chosen, tuple(sorted((k, str(v)) for k, v in params.items())))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        # maxchars is a request, not a promise: the framework cuts what is over budget.
        reply = self.client.llm_answer(
            text, assumption=chosen, params=params, deadline=remaining(None)
        )
        answer = fence.block(reply, SOURCE, "answer")
        self._cache.put(key, answer)
        return answer

    @tool(
        aliases={"input": "query", "q": "query", "pod_title": "pod", "title": "pod"},
        read_only=True,
        open_world=True,
    )
    def wolfram_alpha_pods(
        self,
        query: str,
        pod: Choice | None = None,
        assumption: Choice | None = None,
        steps: bool = False,
        units: str | None = None,
        location: str | None = None,
    ) -> str:
        """Wolfram|Alpha's result sections (pods): text, plots, assumptions.

        Args:
            query: e.g. 'integrate x^2'.
            pod: e.g. 'Result'.
            assumption: From Assumptions.
            steps: Step-by-step.
            units: metric or nonmetric.
            location: e.g. 'Boston, MA'.
        """
        text = self._query_text(query)
        title = _choice(pod)
        chosen = _choice(assumption)
        place = self._place_params(units, location)
        params: dict[str, Any] = {**place, "format": "plaintext,image"}
        if steps:
            params["podstate"] = list(STEP_PODSTATES)
        key = ("pods", text, title, chosen, tuple(sorted((k, str(v)) for k, v in params.items())))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        result = self.client.full_results(
            text, pod=title, assumption=chosen, params=params, deadline=remaining(None)
        )
        answer = _describe_pods(result, text, title, steps)
        self._cache.put(key, answer)
        return answer

    # -- plumbing ----------------------------------------------------------------

    def passage_source(self, document: Document) -> str:
        """Stored answers are Wolfram|Alpha's text."""
        return SOURCE

    def _query_text(self, query: str) -> str:
        text = normalize_query(query)
        if len(text) > 1 and text[0] == "«" and text[-1] == "»":  # copied from our quotes
            text = text[1:-1].strip()
        if not text:
            raise FixArguments(
                "The query is empty.",
                "Send keywords such as 'integrate x^2' or 'France population'.",
            )
        if len(text) > MAX_QUERY_CHARS:
            raise FixArguments(
                f"The query is {len(text)} characters long: {shown(text)}. Wolfram|Alpha "
                f"reads short keyword queries (at most {MAX_QUERY_CHARS} characters).",
                "Send a few keywords or one expression, e.g. 'France population'.",
            )
        return text

    @property
    def _place_keys(self) -> frozenset[str]:
        return PLACE_KEYS | {"units"}

    def _place_params(self, units: str | None, location: str | None) -> dict[str, str]:
        """The spec's units and location, replaced by a call's own (checked) ones."""
        place = dict(self._place)
        if units and units.strip():
            try:
                place["units"] = units_param(units)
            except ValueError as exc:
                raise FixArguments(f"{exc}.", "Send 'metric', 'nonmetric', or no units.") from None
        if location and location.strip():
            try:
                where = location_params(location)
            except ValueError as exc:
                raise FixArguments(
                    f"The location {shown(location)} cannot be used: {exc}.",
                    "Send a city and region ('Boston, MA'), a latitude,longitude "
                    "('42.36,-71.06'), or no location.",
                ) from None
            place = {k: v for k, v in place.items() if k not in PLACE_KEYS} | where
        return place

    def _maxchars(self) -> int:
        budget_chars = (self.output_budget.max_tokens - 100) * CHARS_PER_TOKEN
        asked = self._api_params.get("maxchars")
        try:
            return min(int(asked), budget_chars) if asked is not None else budget_chars
        except (TypeError, ValueError):
            return budget_chars


def _choice(value: str | None) -> str | None:
    """A pod title or an assumption value, without the quotes an agent may copy with it."""
    chosen = value.strip().strip(_QUOTES) if value else ""
    return chosen or None


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, Iterable) and not isinstance(value, (str, dict)):
        return list(value)
    return [value]


def _describe_pods(result: Any, query: str, pod: str | None, steps: bool = False) -> str:
    """The pods' text in one fence; the image pods as links; then the assumptions.

    The client has checked the shape: pods with a text title, subpods whose
    ``plaintext`` is text or missing, assumption values with text ``desc`` and ``input``.
    A subpod with a title (e.g. "Possible intermediate steps") is shown under it. With
    ``steps``, a reply without steps ends with why and what to do (:func:`_steps_note`).
    """
    sections = []
    images: list[str] = []
    for found in result.pods:
        pod_title = fence.field(found.get("@title"), 100)
        texts = []
        for subpod in found.subpods:
            plain = subpod.get("plaintext")
            if plain and plain.strip():
                sub_title = fence.field(subpod.get("@title"), 100)
                texts.append(f"{sub_title}:\n{plain}" if sub_title else plain)
            else:  # an image pod (a plot, a map): its picture is the content
                images += [
                    f"- {pod_title}: {link}"
                    for link in map(_image_link, _as_list(subpod.get("img")))
                    if link
                ]
        if texts:
            sections.append(f"{pod_title}:\n" + "\n".join(texts))
    if not sections and not images:
        if pod:
            raise FixArguments(
                f"Wolfram|Alpha has no section titled {shown(pod)} for {shown(query)}.",
                "Call again without pod to see the section titles.",
            )
        return f"Wolfram|Alpha understood {shown(query)} but has no text answer for it."
    parts = []
    if sections:
        parts.append(fence.block("\n\n".join(sections), SOURCE, "result"))
    if images:
        more = len(images) - SHOWN_IMAGES
        listed = images[:SHOWN_IMAGES] + ([f"- ({more} more)"] if more > 0 else [])
        parts.append(
            "Images (links on Wolfram|Alpha's server; alt text quoted; show as Markdown "
            "images):\n" + "\n".join(listed)
        )
    answer = "\n".join(parts)
    assumptions = []
    for assumption in result.assumptions:
        values = _as_list(assumption.get("value"))
        choices = [
            f"{fence.field(v.get('@desc'), 80)} (assumption={fence.quote(v.get('@input'), 120)})"
            for v in values
        ]
        word = fence.field(assumption.get("@word") or assumption.get("@type", ""), 80)
        if choices:
            assumptions.append(f"- {word}: " + "; ".join(choices))
    if assumptions:
        answer += "\nAssumptions (the first is the one used):\n" + "\n".join(assumptions)
    note = _steps_note(result, query, steps)
    return f"{answer}\n{note}" if note else answer


def _image_link(img: Any) -> str:
    """One ``<img>`` as ``«alt» URL (W x H px)``; "" unless it is on Wolfram's own host.

    The URL is Wolfram's as sent, checked, never fetched: https, a host of
    :data:`_IMAGE_HOST`, no user or port, only the characters of :data:`_URL_CHARS` (so
    it cannot hold our markers, a line break, or Markdown that opens another link).
    The alt text is third-party text, quoted.
    """
    src = img.get("@src") if isinstance(img, dict) else None
    if not isinstance(src, str) or not _URL_CHARS.match(src):
        return ""
    try:
        parts = urlsplit(src)
        port = parts.port
    except ValueError:
        return ""
    host = parts.hostname or ""
    if parts.scheme != "https" or port or parts.username or not _IMAGE_HOST.match(host):
        return ""
    width, height = img.get("@width"), img.get("@height")
    size = f" ({width} x {height} px)" if isinstance(width, int) and isinstance(height, int) else ""
    alt = fence.field(img.get("@alt"), 120)
    return f"{fence.quote(alt) + ' ' if alt else ''}{src}{size}"


def _step_states(result: Any) -> list[str]:
    """The titles of the pods that offer a step-by-step solution (a state Wolfram marks)."""
    offering = []
    for found in result.pods:
        states = found.get("states")
        listed = _as_list(states.get("state")) if isinstance(states, dict) else []
        if any(
            isinstance(state, dict)
            and (
                state.get("@stepbystep") == "true"
                or "step-by-step" in str(state.get("@name")).lower()
            )
            for state in listed
        ):
            offering.append(fence.quote(found.get("@title"), 80))
    return offering


def _has_steps(result: Any) -> bool:
    return any(
        "step" in str(subpod.get("@title", "")).lower()
        for found in result.pods
        for subpod in found.subpods
    )


def _steps_note(result: Any, query: str, steps: bool) -> str:
    """What the agent should know about steps: none came, or some may be asked for."""
    offering = _step_states(result)
    if not steps:
        return "A step-by-step solution is offered: call again with steps=true." if offering else ""
    if _has_steps(result):
        return ""
    if offering:
        return _NOT_ENTITLED.format(pods=", ".join(offering[:3]))
    return _NO_STEPS.format(query=shown(query))
