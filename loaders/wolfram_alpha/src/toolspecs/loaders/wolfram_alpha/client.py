"""``WolframAlphaClient``: Wolfram|Alpha's LLM API and Full Results API over one httpx client.

- :meth:`WolframAlphaClient.llm_answer` asks the LLM API
  (``https://www.wolframalpha.com/api/v1/llm-api``), whose answer is text written for
  language models. The AppID travels in the ``Authorization`` header.
- :meth:`WolframAlphaClient.full_results` asks the Full Results API
  (``https://api.wolframalpha.com/v2/query``) and reads its XML with the ``wolframalpha``
  package's parser. That API takes the AppID in the URL: a filter on the ``httpx``
  logger hides it, and no exception text ever holds it.

Failures raise the loader's own exceptions (:mod:`toolspecs.loaders.wolfram_alpha.errors`),
each carrying ``status``, ``reason`` and ``retry_after``. Tests and demos pass an httpx
transport (``transport=``), e.g. the offline
:class:`toolspecs.loaders.wolfram_alpha.testing.FakeWolframAlpha`'s.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import logging
import os
import re
from collections.abc import Iterable, Mapping
from types import TracebackType
from typing import Any, NoReturn
from xml.parsers.expat import ExpatError

import httpx
import wolframalpha
import xmltodict

from toolspecs.loaders.wolfram_alpha.errors import (
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaLoaderError,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    cut,
)

LLM_API_URL = "https://www.wolframalpha.com/api/v1/llm-api"
FULL_RESULTS_URL = "https://api.wolframalpha.com/v2/query"
APP_ID_ENV = "WOLFRAM_ALPHA_APP_ID"
# Also read: the variable the ``wolframalpha`` package documents.
APP_ID_ENV_FALLBACK = "WOLFRAMALPHA_API_KEY"
# The most bytes one reply may have (after decompression): answers are a few kilobytes.
MAX_REPLY_BYTES = 5 * 1024 * 1024
_REASON_CHARS = 200
_APPID_IN_URL = re.compile(r"appid=[^&\s\"']+", re.IGNORECASE)


class _HideAppId(logging.Filter):
    """The Full Results API takes the AppID in the URL, which httpx logs at INFO: hide it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any("appid=" in str(a) for a in record.args):
            record.args = tuple(
                _APPID_IN_URL.sub("appid=***", str(a)) if "appid=" in str(a) else a
                for a in record.args
            )
        return True


logging.getLogger("httpx").addFilter(_HideAppId())


class WolframAlphaClient:
    """Both Wolfram|Alpha APIs, over one synchronous ``httpx.Client``.

    Args:
        app_id: The Wolfram|Alpha AppID; default ``$WOLFRAM_ALPHA_APP_ID``, else
            ``$WOLFRAMALPHA_API_KEY``. Without one, requests raise :class:`AppIdMissing`.
        timeout: Seconds to wait for Wolfram|Alpha (connecting, then each read).
        transport: The httpx transport, e.g. ``FakeWolframAlpha().transport()``; default
            httpx's own.
        max_reply_bytes: The most bytes a reply may have.

    Raises:
        ValueError: ``timeout`` or ``max_reply_bytes`` is not positive.
    """

    def __init__(
        self,
        app_id: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        *,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if max_reply_bytes <= 0:
            raise ValueError(f"max_reply_bytes must be positive, not {max_reply_bytes!r}")
        self.app_id = app_id or os.environ.get(APP_ID_ENV) or os.environ.get(APP_ID_ENV_FALLBACK)
        self.timeout = float(timeout)
        self.max_reply_bytes = max_reply_bytes
        self._http = httpx.Client(timeout=self.timeout, transport=transport)

    def __repr__(self) -> str:
        shown = "set" if self.app_id else "missing"
        return f"WolframAlphaClient(app_id=<{shown}>, timeout={self.timeout:g})"

    # -- the two APIs ------------------------------------------------------------------

    def llm_answer(
        self,
        query: str,
        *,
        assumption: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> str:
        """Ask the LLM API; its answer as Wolfram writes it for language models.

        Args:
            query: The input, e.g. ``"(7 * 12 ^ 10) / 321"``.
            assumption: A value from a previous answer's assumptions, e.g.
                ``"*C.pi-_*Movie-"``.
            params: More LLM API parameters, e.g. ``{"units": "metric", "maxchars": 3000}``.

        Returns:
            The answer text: the input as Wolfram read it, results, assumptions, a link.

        Raises:
            QueryNotUnderstood: Wolfram could not read the query (HTTP 501); its
                suggestions are in ``suggestions``.
            WolframAlphaLoaderError: Any other failure (see the errors module).
        """
        request_params = {**(params or {}), "input": query}
        if assumption:
            request_params["assumption"] = assumption
        headers = {"Authorization": f"Bearer {self._app_id()}"}
        response, body = self._get(LLM_API_URL, request_params, headers)
        text = _decode(response, body).strip()
        if response.status_code == 501:
            raise QueryNotUnderstood(
                query, _suggestions(text), status=501, reason=self._first_line(text)
            )
        self._check_status(response, text)
        return text

    def full_results(
        self,
        query: str,
        *,
        pod: str | None = None,
        assumption: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> Any:
        """Ask the Full Results API; its answer read as ``wolframalpha.Client.query`` reads it.

        Args:
            query: The input, e.g. ``"pi"``.
            pod: Only the sections with this title (``podtitle``), e.g. ``"Result"``.
            assumption: A value from a previous answer's assumptions.
            params: More Full Results parameters, e.g. ``{"format": "plaintext"}``.

        Returns:
            A ``wolframalpha.Result`` (a dict): ``.pods``, ``.assumptions``, ``.details``.

        Raises:
            QueryNotUnderstood: Wolfram could not read the query (``success="false"``);
                its "did you mean" inputs are in ``did_you_mean``.
            WolframAlphaLoaderError: Any other failure (see the errors module).
        """
        request_params = {**(params or {}), "appid": self._app_id(), "input": query}
        if pod:
            request_params["podtitle"] = pod
        if assumption:
            request_params["assumption"] = assumption
        response, body = self._get(FULL_RESULTS_URL, request_params)
        content_type = response.headers.get("Content-Type", "")
        if response.status_code != 200 or "xml" not in content_type:
            self._check_status(response, _decode(response, body))
            raise MalformedReply(
                "Wolfram|Alpha sent a reply that is not its XML",
                reason=f"the reply is not XML (Content-Type {cut(content_type, 60)!r})",
            )
        result = self._parse(body)
        if not result.get("@success", False):
            raise QueryNotUnderstood(
                query,
                did_you_mean=_did_you_mean(result),
                reason="Wolfram|Alpha could not interpret the input (success=false)",
            )
        return result

    def close(self) -> None:
        """Close the HTTP connections."""
        self._http.close()

    def __enter__(self) -> WolframAlphaClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # -- plumbing ----------------------------------------------------------------------

    def _app_id(self) -> str:
        if not self.app_id:
            raise AppIdMissing(
                "no Wolfram|Alpha AppID: pass app_id=... or set "
                f"{APP_ID_ENV} (or {APP_ID_ENV_FALLBACK})",
                reason=f"no AppID was given, and neither {APP_ID_ENV} nor "
                f"{APP_ID_ENV_FALLBACK} is set",
            )
        return self.app_id

    def _get(
        self, url: str, params: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> tuple[httpx.Response, bytes]:
        """One GET, its body read up to ``max_reply_bytes``; transport failures mapped."""
        try:
            with self._http.stream("GET", url, params=params, headers=headers) as response:
                return response, self._read(response)
        except httpx.TimeoutException as exc:
            self._raise(WolframAlphaTimeout(self.timeout, self._describe(exc)), exc)
        except httpx.RequestError as exc:  # connection refused, DNS, protocol errors...
            reason = self._describe(exc)
            self._raise(
                WolframAlphaUnavailable(f"could not reach Wolfram|Alpha ({reason})", reason=reason),
                exc,
            )

    def _read(self, response: httpx.Response) -> bytes:
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > self.max_reply_bytes:
            raise self._too_large(response)
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > self.max_reply_bytes:
                raise self._too_large(response)
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_large(self, response: httpx.Response) -> WolframAlphaUnavailable:
        reason = f"the reply is over {self.max_reply_bytes} bytes"
        return WolframAlphaUnavailable(
            f"Wolfram|Alpha sent too much: {reason}", status=response.status_code, reason=reason
        )

    def _check_status(self, response: httpx.Response, text: str) -> None:
        """Raise the loader's error for a reply whose HTTP status is a failure."""
        status = response.status_code
        if 200 <= status < 300:
            return
        if "html" in response.headers.get("Content-Type", ""):
            said = response.reason_phrase  # an error page: its markup says nothing useful
        else:
            said = self._first_line(text)
        retry_after = _retry_after(response.headers.get("Retry-After"))
        kwargs: dict[str, Any] = {"status": status, "reason": said, "retry_after": retry_after}
        if status in (401, 403):
            raise AppIdRejected(f"Wolfram|Alpha refused the AppID (HTTP {status})", **kwargs)
        if status == 429:
            raise WolframAlphaUnavailable(
                "Wolfram|Alpha is rate-limiting this AppID (HTTP 429)", **kwargs
            )
        if 400 <= status < 500:
            raise WolframAlphaBadRequest(
                f"Wolfram|Alpha rejected the request (HTTP {status})", **kwargs
            )
        raise WolframAlphaUnavailable(f"Wolfram|Alpha answered HTTP {status}", **kwargs)

    def _parse(self, body: bytes) -> Any:
        """The Full Results XML as ``wolframalpha`` objects (``Result``, ``Pod``, ...).

        We rely on the ``wolframalpha`` package's internals here (5.x): its public
        ``Client`` does its own HTTP, so we parse its way, with ``Document.make`` as the
        xmltodict postprocessor (as ``Client.aquery`` does); its ``Result`` and ``Pod``
        raise ``ValueError("Error <code>: <msg>")`` for Wolfram's ``<error>`` element.
        """
        try:
            doc = xmltodict.parse(body, postprocessor=wolframalpha.Document.make)
        except ValueError as exc:
            self._raise(self._error_element(str(exc)), exc)
        except ExpatError as exc:  # a reply cut short, or not XML at all
            reason = f"the reply is not complete XML ({exc})"
            self._raise(
                MalformedReply("Wolfram|Alpha sent a reply that is not its XML", reason=reason), exc
            )
        if isinstance(doc, dict) and "error" in doc:  # a bare <error>, as wolframalpha checks
            error = doc["error"]
            message = f"Error {error.get('@status', '?')}: {error.get('@message', '')}"
            raise self._error_element(message)
        result = doc.get("queryresult") if isinstance(doc, dict) else None
        if not isinstance(result, dict):
            raise MalformedReply(
                "Wolfram|Alpha sent a reply that is not its XML",
                reason="the reply has no <queryresult>",
            )
        return result

    def _error_element(self, message: str) -> WolframAlphaLoaderError:
        """The loader's error for Wolfram's ``<error>`` in a Full Results reply."""
        said = self._first_line(message)
        if "appid" in said.lower():
            return AppIdRejected(f"Wolfram|Alpha refused the AppID ({said})", reason=said)
        if "input" in said.lower():
            return WolframAlphaBadRequest(
                f"Wolfram|Alpha rejected the request ({said})", reason=said
            )
        return WolframAlphaUnavailable(f"Wolfram|Alpha reported an error ({said})", reason=said)

    def _first_line(self, text: str) -> str:
        """The first non-blank line of ``text``, cut short, with any AppID hidden."""
        line = next((line.strip() for line in text.splitlines() if line.strip()), "")
        return self._scrub(cut(line, _REASON_CHARS))

    def _describe(self, exc: BaseException) -> str:
        detail = str(exc).strip()
        text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        return self._scrub(cut(text, _REASON_CHARS))

    def _scrub(self, text: str) -> str:
        text = _APPID_IN_URL.sub("appid=***", text)
        return text.replace(self.app_id, "***") if self.app_id else text

    def _raise(self, error: WolframAlphaLoaderError, cause: BaseException) -> NoReturn:
        """Raise ``error`` from ``cause``, unless ``cause``'s text would show the AppID."""
        text = str(cause)
        raise error from (cause if self._scrub(text) == text else None)


def _decode(response: httpx.Response, body: bytes) -> str:
    try:
        return body.decode(response.charset_encoding or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def _suggestions(body: str) -> list[str]:
    """The "things to try instead" of an LLM API 501 body, in Wolfram's order."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    tips = (line.lstrip("-* ").strip() for line in lines[1:])
    return [tip for tip in tips if tip and not tip.lower().startswith("things to")]


def _did_you_mean(result: Mapping[str, Any]) -> list[str]:
    """The ``<didyoumean>`` inputs of a Full Results reply, best first."""
    found = (result.get("didyoumeans") or {}).get("didyoumean")
    items: Iterable[Any] = found if isinstance(found, list) else [found]
    texts = (item.get("#text", "") if isinstance(item, dict) else item for item in items)
    return [text.strip() for text in texts if isinstance(text, str) and text.strip()]


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` in seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return max(0.0, (when - dt.datetime.now(dt.timezone.utc)).total_seconds())
