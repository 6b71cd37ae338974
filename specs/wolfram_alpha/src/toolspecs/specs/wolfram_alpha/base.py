"""The Wolfram|Alpha tool spec: computation an agent can trust, within OpenAI's limits.

Two tools over two Wolfram APIs:

- ``wolfram_alpha_query`` (the LlamaHub function) asks the LLM API, whose answer is
  text written for language models: the input as Wolfram read it, results,
  assumptions with the value to change them, and a link.
- ``wolfram_alpha_pods`` asks the Full Results API (over httpx, read with the
  ``wolframalpha`` package's parser) for titled result sections in plain text, one of
  them by title, and the assumptions as values to send back: for one exact value, or
  to choose a meaning.

Both transports can be replaced (``session=``, ``transport=``): the offline
``toolspecs.specs.wolfram_alpha.testing.FakeWolframAlpha`` provides both.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from collections.abc import Coroutine, Iterable
from typing import Any, ClassVar, TypeVar
from xml.parsers.expat import ExpatError

import httpx
import requests

from toolspecs.core import (
    AskUser,
    FixArguments,
    RetryLater,
    ToolGuidance,
    ToolSpec,
    TTLCache,
    tool,
)


class _HideAppId(logging.Filter):
    """The Full Results API takes the AppID in the URL, which httpx logs at INFO: hide it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any("appid=" in str(a) for a in record.args):
            record.args = tuple(
                re.sub(r"appid=[^&\s\"]+", "appid=***", str(a)) if "appid=" in str(a) else a
                for a in record.args
            )
        return True


logging.getLogger("httpx").addFilter(_HideAppId())

LLM_API_URL = "https://www.wolframalpha.com/api/v1/llm-api"
FULL_RESULTS_URL = "https://api.wolframalpha.com/v2/query"
APP_ID_ENV = "WOLFRAM_ALPHA_APP_ID"
# Also read: the variable the ``wolframalpha`` package documents.
APP_ID_ENV_FALLBACK = "WOLFRAMALPHA_API_KEY"
GET_APP_ID = (
    "Tell the user: Wolfram|Alpha needs an AppID. Get one free at "
    "https://developer.wolframalpha.com (choose the LLM API), then set the environment "
    f"variable {APP_ID_ENV} or pass app_id=... to WolframAlphaToolSpec."
)
# About 3 characters per token for Wolfram's mix of numbers, symbols and words.
CHARS_PER_TOKEN = 3
_E_NOTATION = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[eE]([+-]?\d+)(?![\w.])")
T = TypeVar("T")


def normalize_query(query: str) -> str:
    """One line, and ``6e14`` written as Wolfram reads it: ``6*10^14``."""
    one_line = " ".join(query.split())
    return _E_NOTATION.sub(lambda m: f"{m.group(1)}*10^{int(m.group(2))}", one_line)


class WolframAlphaToolSpec(ToolSpec):
    """Wolfram|Alpha tools: a drop-in for LlamaHub's ``WolframAlphaToolSpec``.

    Args:
        app_id: The Wolfram|Alpha AppID; default ``$WOLFRAM_ALPHA_APP_ID``.
        api_params: Extra parameters for every LLM API request, e.g.
            ``{"units": "metric"}``; ``maxchars`` is kept within the output budget.
        timeout: Seconds to wait for Wolfram|Alpha.
        cache_seconds: How long an identical query is answered from the cache.
        session: The ``requests.Session`` for the LLM API (tests and demos pass a fake).
        transport: The httpx transport for the Full Results API (e.g. a fake's).
    """

    spec_functions = ["wolfram_alpha_query", "wolfram_alpha_pods"]  # noqa: RUF012  (LlamaHub's)
    service_name: ClassVar[str] = "Wolfram|Alpha"

    def __init__(
        self,
        app_id: str | None = None,
        api_params: dict[str, Any] | None = None,
        timeout: float = 30.0,
        cache_seconds: float = 300.0,
        session: requests.Session | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.token = app_id or os.environ.get(APP_ID_ENV) or os.environ.get(APP_ID_ENV_FALLBACK)
        self._api_params = dict(api_params or {})
        self.timeout = timeout
        self._cache: TTLCache[str] = TTLCache(ttl=cache_seconds, size=128)
        self._session = session or requests.Session()
        self._transport = transport

    # -- tools -------------------------------------------------------------------

    @tool(
        aliases={"input": "query", "q": "query", "question": "query"},
        read_only=True,
        open_world=True,
    )
    def wolfram_alpha_query(self, query: str, assumption: str | None = None) -> str:
        """Compute or look up facts with Wolfram|Alpha: math, units, dates, science, data.

        Send short English keywords, not sentences ('France population'); one
        property per call; exponents as 6*10^14, never 6e14; single-letter variables
        (n, x1); named constants ('speed of light') without values. If the answer is
        about another meaning, call again with the same query and an assumption it
        lists. Show image URLs as Markdown images.

        Args:
            query: One line, e.g. '(7 * 12 ^ 10) / 321' or 'boiling point of water in K'.
            assumption: A value from a previous answer's assumptions, e.g. '*C.pi-_*Movie-'.
        """
        text = self._query_text(query)
        params = {**self._api_params, "input": text, "maxchars": self._maxchars()}
        if assumption:
            params["assumption"] = assumption.strip()
        key = ("llm", tuple(sorted((k, str(v)) for k, v in params.items())))
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        response = self._session.get(
            LLM_API_URL,
            params=params,
            headers={"Authorization": f"Bearer {self._app_id()}"},
            timeout=self.timeout,
        )
        answer = self._llm_api_answer(response, text)
        self._cache.put(key, answer)
        return answer

    @tool(
        aliases={"input": "query", "q": "query", "pod_title": "pod", "title": "pod"},
        read_only=True,
        open_world=True,
    )
    def wolfram_alpha_pods(
        self, query: str, pod: str | None = None, assumption: str | None = None
    ) -> str:
        """Get Wolfram|Alpha's result sections (pods) as plain text, and its assumptions.

        Use it for one exact value (pod='Result') or to see the meanings Wolfram
        assumed, each with the value to pass as assumption.

        Args:
            query: Short English keywords, e.g. 'pi' or 'integrate x^2 sin x'.
            pod: Only the section with this title, e.g. 'Result' or 'Decimal approximation'.
            assumption: A value listed under Assumptions, e.g. '*C.pi-_*Movie-'.
        """
        text = self._query_text(query)
        key = ("pods", text, pod, assumption)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        params: dict[str, str] = {"format": "plaintext"}
        if pod:
            params["podtitle"] = pod.strip()
        if assumption:
            params["assumption"] = assumption.strip()
        result = _run(self._full_results(text, params))
        answer = _describe_pods(result, text, pod)
        self._cache.put(key, answer)
        return answer

    # -- plumbing ----------------------------------------------------------------

    async def _full_results(self, text: str, params: dict[str, str]) -> Any:
        """Ask the Full Results API; its XML read as ``wolframalpha.Client.aquery`` reads it."""
        import wolframalpha
        import xmltodict  # wolframalpha's own parser, installed with it

        query = {"appid": self._app_id(), "input": text, **params}
        async with httpx.AsyncClient(timeout=self.timeout, transport=self._transport) as http:
            response = await http.get(FULL_RESULTS_URL, params=query)
        if "xml" not in response.headers.get("Content-Type", ""):
            raise RetryLater("Wolfram|Alpha sent a reply that is not its XML.")
        try:  # wolframalpha reports Wolfram's <error> as a ValueError while parsing
            doc = xmltodict.parse(response.content, postprocessor=wolframalpha.Document.make)
        except ValueError as exc:
            raise self._full_results_error(str(exc)) from exc
        except ExpatError as exc:  # a reply cut short
            raise RetryLater("Wolfram|Alpha sent a reply that is not its XML.") from exc
        if "error" in doc:
            error = doc["error"]
            raise self._full_results_error(f"Error {error['@status']}: {error['@message']}")
        return doc["queryresult"]

    def _app_id(self) -> str:
        if not self.token:
            raise AskUser("Wolfram|Alpha cannot be asked: no AppID is set.", GET_APP_ID)
        return self.token

    def _query_text(self, query: str) -> str:
        text = normalize_query(query)
        if not text:
            raise FixArguments(
                "The query is empty.",
                "Send keywords such as 'integrate x^2' or 'France population'.",
            )
        return text

    def _maxchars(self) -> int:
        budget_chars = (self.output_budget.max_tokens - 100) * CHARS_PER_TOKEN
        asked = self._api_params.get("maxchars")
        try:
            return min(int(asked), budget_chars) if asked is not None else budget_chars
        except (TypeError, ValueError):
            return budget_chars

    def _llm_api_answer(self, response: requests.Response, query: str) -> str:
        status = response.status_code
        body = response.text.strip()
        if status == 200:
            # maxchars is a request, not a promise: the framework cuts what is over budget.
            return body
        if status == 501:
            raise FixArguments(
                f"Wolfram|Alpha did not understand {query!r}." + _suggestions(body),
                "Rephrase as short English keywords (e.g. 'France population', 'x^2 = 4'), "
                "or send one of its suggestions.",
            )
        if status == 400:
            raise FixArguments(
                f"Wolfram|Alpha rejected the request (HTTP 400: {_first_line(body)}).",
                "Send a non-empty one-line query.",
            )
        if status == 403:
            raise AskUser(
                f"Wolfram|Alpha refused the AppID (HTTP 403: {_first_line(body)}).",
                "Do not retry. Tell the user their Wolfram|Alpha AppID is invalid or not "
                f"enabled for the LLM API, and to check {APP_ID_ENV}.",
            )
        if status == 429:
            raise RetryLater("Wolfram|Alpha is rate-limiting this AppID (HTTP 429).")
        if status >= 500:
            raise RetryLater(f"Wolfram|Alpha had a server error (HTTP {status}).")
        raise FixArguments(f"Wolfram|Alpha answered HTTP {status}: {_first_line(body)}.")

    def _full_results_error(self, message: str) -> ToolGuidance:
        if "appid" in message.lower():
            return AskUser(
                f"Wolfram|Alpha refused the AppID ({message}).",
                f"Do not retry. Tell the user to check {APP_ID_ENV}.",
            )
        return RetryLater(f"Wolfram|Alpha reported an error ({message}).")

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None:
        """Timeouts and connection errors of both APIs (requests and httpx) as guidance."""
        if isinstance(exc, (requests.Timeout, httpx.TimeoutException)):
            return RetryLater(
                f"Wolfram|Alpha did not answer within {self.timeout:g} seconds.",
                "Try again, or simplify the query.",
            )
        return super().guidance_for(exc)


def _first_line(body: str) -> str:
    return body.splitlines()[0].strip()[:200] if body else "no details"


def _suggestions(body: str) -> str:
    """Wolfram's own suggestions from a 501 body, as one sentence."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    tips = [line.lstrip("-* ") for line in lines[1:] if not line.lower().startswith("things to")]
    return f" It suggests: {'; '.join(tips[:5])}." if tips else ""


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, Iterable) and not isinstance(value, (str, dict)):
        return list(value)
    return [value]


def _describe_pods(result: Any, query: str, pod: str | None) -> str:
    if not result.get("@success", False):
        didyoumeans = _as_list(result.get("didyoumeans", {}).get("didyoumean"))
        hints = [d.get("#text", "") for d in didyoumeans]
        tips = f" Did you mean: {'; '.join(h for h in hints if h)}?" if any(hints) else ""
        raise FixArguments(
            f"Wolfram|Alpha did not understand {query!r}.{tips}",
            "Rephrase as short English keywords.",
        )
    sections = []
    for found in result.pods:
        texts = [t for t in (s.get("plaintext") for s in found.subpods) if t]
        if texts:
            sections.append(f"{found.title}:\n" + "\n".join(texts))
    if not sections:
        if pod:
            raise FixArguments(
                f"Wolfram|Alpha has no section titled {pod!r} for {query!r}.",
                "Call again without pod to see the section titles.",
            )
        return f"Wolfram|Alpha understood {query!r} but has no text answer for it."
    assumptions = []
    for assumption in result.assumptions:
        values = _as_list(assumption.get("value"))
        choices = [f"{v.get('@desc')} (assumption='{v.get('@input')}')" for v in values]
        word = assumption.get("@word") or assumption.get("@type", "")
        assumptions.append(f"- {word}: " + "; ".join(choices))
    if assumptions:
        sections.append("Assumptions (the first is the one used):\n" + "\n".join(assumptions))
    return "\n\n".join(sections)


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion, also when this thread already has an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(coroutine)
        except BaseException as exc:
            box["error"] = exc

    worker = threading.Thread(target=target)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    value: T = box["value"]
    return value
