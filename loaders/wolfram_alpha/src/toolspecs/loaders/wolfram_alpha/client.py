"""``WolframAlphaClient``: Wolfram|Alpha's LLM API and Full Results API in one client.

The LLM API takes the AppID in the ``Authorization`` header; without a ``transport`` it
goes out with ``requests.get``, as LlamaHub's spec sends it, so code that patches
``requests.get`` (LlamaHub's own tests do) keeps working. The Full Results API takes the
AppID in the URL, which httpx logs at INFO: a filter (:class:`HideAppId`) on every logger
that sees request URLs masks it from the moment this module is imported, and no exception
text ever holds it (every text from a reply goes through the client's ``_scrub``). Its
XML is read with the ``wolframalpha`` package's parser, entity declarations refused, and
its shape checked.

Every request is bounded in size, time (retries and waits included) and tries by
:class:`toolspecs.base.net.BoundedGet`; a ``transport=`` (an httpx transport, e.g. the
offline ``FakeWolframAlpha``'s) is the one way in for a test double. Units and the
user's location are read from the forms people and agents write; a bad one raises
``ValueError`` with the value and the accepted forms.

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

No message, reason or attribute of these errors holds the AppID.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import quote_plus

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from toolspecs.base.net import (
    BoundedGet,
    GetFailed,
    GetTimeout,
    HeaderRefused,
    LoaderError,
    NoConnection,
    Reply,
    ReplyTooLarge,
    under,
    unreachable_reason,
)
from toolspecs.base.net import base_url as checked_base_url
from toolspecs.base.net import retry_after as parse_retry_after
from toolspecs.loaders.wolfram_alpha import compat_wolframalpha as compat

if TYPE_CHECKING:
    # httpx, wolframalpha and xmltodict load when a request needs them (about 150 ms).
    import httpx


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


LLM_API_URL = "https://www.wolframalpha.com/api/v1/llm-api"
FULL_RESULTS_URL = "https://api.wolframalpha.com/v2/query"
APP_ID_ENV = "WOLFRAM_ALPHA_APP_ID"
APP_ID_ENV_FALLBACK = "WOLFRAMALPHA_API_KEY"
# The most bytes one reply may have (after decompression): answers are a few kilobytes,
# and parsing 2 MB of hostile XML (deep nesting) takes about 2 s.
MAX_REPLY_BYTES = 2 * 1024 * 1024
DEADLINE_SECONDS = 30.0
REASON_CHARS = 200
"""The most characters of what Wolfram said that an error's ``reason`` keeps."""
SOURCE = "Wolfram|Alpha LLM API"

_APPID_IN_URL = re.compile(r"appid=[^&\s\"'<>]+", re.IGNORECASE)
# Loggers that see request URLs: httpx (INFO), httpcore (DEBUG), and urllib3 for another
# requests-based client with the same AppID. A filter on a logger applies only to records
# made on that logger (not to its children's), hence the explicit list.
_URL_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "urllib3",
    "urllib3.connectionpool",
    "urllib3.util.retry",
)


def mask_app_id(text: str) -> str:
    """``text`` with every ``appid=...`` URL parameter shown as ``appid=***``."""
    return _APPID_IN_URL.sub("appid=***", text) if "appid=" in text.lower() else text


class HideAppId(logging.Filter):
    """A logging filter that masks ``appid=...`` in a record's message and arguments.

    A record whose formatted message holds an AppID gets the masked message as ``msg``
    and no ``args``, so no handler sees the AppID, formatted or not.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Mask the record in place; never drop it."""
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its message: leave it
            return True
        masked = mask_app_id(message)
        if masked != message:
            record.msg, record.args = masked, ()
        return True


_HIDE_APP_ID = HideAppId()
for _name in _URL_LOGGERS:
    logging.getLogger(_name).addFilter(_HIDE_APP_ID)


def split_app_id(params: Mapping[str, Any] | None) -> tuple[str | None, dict[str, Any]]:
    """An ``appid`` among request parameters (any case), and the other parameters.

    LlamaHub's users may pass the AppID as ``api_params={"appid": ...}``.
    """
    rest = dict(params or {})
    found = [key for key in rest if str(key).lower() == "appid"]
    values = [rest.pop(key) for key in found]
    given = next((stripped(str(value)) for value in values if stripped(str(value))), None)
    return given, rest


def stripped(app_id: str | None) -> str | None:
    """An AppID without surrounding whitespace (a key file's last newline); ``None`` if empty."""
    return (app_id.strip() or None) if app_id else None


STEP_PODSTATES = ("Step-by-step solution", "Result__Step-by-step solution")
"""The podstates that ask for a step-by-step solution, as Wolfram documents them."""

UNITS = ("metric", "nonmetric")
"""Wolfram's two systems of units."""
PLACE_KEYS = frozenset({"location", "latlong", "ip"})
"""The parameters that say where the user is; a request sends at most one of them."""
MAX_LOCATION_CHARS = 100
"""The longest place name sent: a city and its region, not a text."""
_UNIT_SYNONYMS = {
    **dict.fromkeys(["metric", "si"], "metric"),
    **dict.fromkeys(["nonmetric", "non-metric", "imperial", "us", "customary"], "nonmetric"),
}
_NUMBER = r"[+-]?\d{1,3}(?:\.\d+)?"
# "40.42,-3.71", "40.42, -3.71", "40.42° N, 3.71° W" (degrees, then a hemisphere).
_LATLONG = re.compile(
    rf"^\s*({_NUMBER})\s*°?\s*([NSns])?\s*[,;]\s*({_NUMBER})\s*°?\s*([EWew])?\s*$"
)


def units_param(value: str) -> str:
    """``metric`` or ``nonmetric`` for ``value`` (any case; ``imperial``, ``US``, ``SI``...)."""
    key = " ".join(str(value).split()).lower()
    if key not in _UNIT_SYNONYMS:
        raise ValueError(
            f"units must be 'metric' or 'nonmetric' (or 'imperial'), not {str(value)[:40]!r}"
        )
    return _UNIT_SYNONYMS[key]


def location_params(value: str) -> dict[str, str]:
    """Wolfram's parameter for where the user is: ``latlong``, ``ip`` or ``location``.

    Args:
        value: A latitude and longitude (``'40.42,-3.71'``, ``'40.42° N, 3.71° W'``), an
            IP address, or a place name of at most :data:`MAX_LOCATION_CHARS` characters
            on one line (``'Boston, MA'``). Blank gives ``{}``.
    """
    text = str(value).strip()
    if not text:
        return {}
    found = _LATLONG.match(text)
    if found:
        return {"latlong": _latlong(*found.groups())}
    try:
        return {"ip": str(ipaddress.ip_address(text))}
    except ValueError:
        pass
    if len(text) > MAX_LOCATION_CHARS:
        raise ValueError(
            f"the location is {len(text)} characters long; give a place name of at most "
            f"{MAX_LOCATION_CHARS} (e.g. 'Boston, MA') or a latitude,longitude"
        )
    if not text.isprintable():
        raise ValueError(
            "the location holds line breaks or control characters; give one line, "
            "e.g. 'Boston, MA' or '42.36,-71.06'"
        )
    return {"location": text}


def _latlong(lat: str, north: str | None, long: str, east: str | None) -> str:
    latitude, longitude = float(lat), float(long)
    if north and north.upper() == "S":
        latitude = -latitude
    if east and east.upper() == "W":
        longitude = -longitude
    if not -90 <= latitude <= 90:
        raise ValueError(f"the latitude {lat} is outside -90..90 (degrees north)")
    if not -180 <= longitude <= 180:
        raise ValueError(f"the longitude {long} is outside -180..180 (degrees east)")
    return f"{latitude},{longitude}"


def with_place(
    params: Mapping[str, Any], units: str | None = None, location: str | None = None
) -> dict[str, Any]:
    """``params`` with ``units`` and ``location`` in place of their own (when not blank)."""
    sent = dict(params)
    if units is not None and str(units).strip():
        sent["units"] = units_param(units)
    if location is not None and str(location).strip():
        sent = {k: v for k, v in sent.items() if k not in PLACE_KEYS} | location_params(location)
    return sent


class WolframAlphaClient:
    """Both Wolfram|Alpha APIs, over one synchronous ``httpx.Client``.

    Args:
        app_id: The AppID; default ``$WOLFRAM_ALPHA_APP_ID``, else ``$WOLFRAMALPHA_API_KEY``.
        timeout: Seconds to wait for Wolfram|Alpha (connecting, then each read).
        transport: The httpx transport both APIs go through, e.g.
            ``FakeWolframAlpha().transport()``.
        max_reply_bytes: The most bytes a reply may have.
        deadline: The most seconds one request may take in all, retries and waits included.
        retries: Extra tries after a 429, a 5xx (but 501) or a failed connection.
        base_url: Where both APIs are reached instead (a mirror, a local fake): https, or
            plain http to this machine only. No redirect is followed.
    """

    def __init__(
        self,
        app_id: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        *,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        deadline: float = DEADLINE_SECONDS,
        retries: int = 1,
        base_url: str | None = None,
    ) -> None:
        if not timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        if max_reply_bytes <= 0:
            raise ValueError(f"max_reply_bytes must be positive, not {max_reply_bytes!r}")
        if not deadline > 0:
            raise ValueError(f"deadline must be a positive number of seconds, not {deadline!r}")
        if retries < 0:
            raise ValueError(f"retries must be 0 or more, not {retries!r}")
        self.base_url = (
            None if base_url is None else checked_base_url(base_url, service="Wolfram|Alpha")
        )
        self.app_id = (
            stripped(app_id)
            or stripped(os.environ.get(APP_ID_ENV))
            or stripped(os.environ.get(APP_ID_ENV_FALLBACK))
        )
        self.deadline = float(deadline)
        self._given_app_ids: set[str] = set()
        self._transport = transport
        self._net = BoundedGet(
            timeout=float(timeout), max_bytes=max_reply_bytes, retries=retries, transport=transport
        )

    def __repr__(self) -> str:
        shown = "set" if self.app_id else "missing"
        return f"WolframAlphaClient(app_id=<{shown}>, timeout={self.timeout:g})"

    def llm_answer(
        self,
        query: str,
        *,
        assumption: str | None = None,
        units: str | None = None,
        location: str | None = None,
        max_chars: int | None = None,
        params: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> str:
        """Ask the LLM API; its answer as Wolfram writes it for language models.

        An ``appid`` in ``params`` (as LlamaHub's ``api_params`` allow) is the AppID when
        none was given; it is sent in the header, never as a parameter.

        Args:
            query: The input, e.g. ``"(7 * 12 ^ 10) / 321"``.
            assumption: A value from a previous answer's assumptions, e.g. ``"*C.pi-_*Movie-"``.
            units: ``"metric"`` or ``"nonmetric"`` (:func:`units_param`); replaces the
                ``units`` among ``params``, as ``location`` (:func:`location_params`)
                replaces any place among them.
            location: A place name, ``"latitude,longitude"`` or an IP address.
            max_chars: The most characters the answer should have (``maxchars``).
            params: More LLM API parameters, e.g. ``{"maxchars": 3000}``.
            deadline: Seconds this request may take in all (default: the client's).

        Raises:
            ValueError: ``units`` or ``location`` cannot be sent (nothing is sent).
            QueryNotUnderstood: HTTP 501; Wolfram's tips are in ``suggestions``.
        """
        given, rest = split_app_id(params)
        request_params = with_place(rest, units, location)
        if max_chars is not None:  # a lower one among params stays; an unreadable one goes
            try:
                asked = int(request_params.get("maxchars", max_chars))
            except (TypeError, ValueError):
                asked = max_chars
            request_params["maxchars"] = min(asked, int(max_chars))
        request_params["input"] = query
        if assumption:
            request_params["assumption"] = assumption
        headers = {"Authorization": f"Bearer {self._app_id(given)}"}
        reply = self._get(
            self._endpoint(LLM_API_URL, "/api/v1/llm-api"),
            request_params,
            headers,
            deadline=deadline,
            with_requests=self._transport is None,
        )
        text = reply.text.strip()
        if not reply.ok and reply.status == 501:
            raise QueryNotUnderstood(
                query,
                [self._scrub(tip) for tip in _suggestions(text)],
                status=501,
                reason=first_line(text, self._scrub),
            )
        self._check_status(reply, text)
        return _answer_text(text, reply.headers.get("Content-Type", ""))

    def full_results(
        self,
        query: str,
        *,
        pod: str | None = None,
        assumption: str | None = None,
        steps: bool = False,
        units: str | None = None,
        location: str | None = None,
        formats: str | Sequence[str] | None = None,
        params: Mapping[str, Any] | None = None,
        deadline: float | None = None,
    ) -> Any:
        """Ask the Full Results API; its answer read as ``wolframalpha.Client.query`` reads it.

        Args:
            query: The input, e.g. ``"pi"``.
            pod: Only the sections with this title (``podtitle``), e.g. ``"Result"``.
            assumption: A value from a previous answer's assumptions.
            steps: Ask for step-by-step solutions (:data:`STEP_PODSTATES`).
            units: As for :meth:`llm_answer`.
            location: As for :meth:`llm_answer`.
            formats: The pod formats (``format``), e.g. ``("plaintext", "image")``.
            params: More Full Results parameters, e.g. ``{"format": "plaintext"}``.
            deadline: Seconds this request may take in all (default: the client's).

        Returns:
            A ``wolframalpha.Result`` (``.pods``, ``.assumptions``), its shape checked.

        Raises:
            QueryNotUnderstood: ``success="false"``; see ``did_you_mean``.
            MalformedReply: The reply is not the Full Results XML.
        """
        given, rest = split_app_id(params)
        request_params = with_place(rest, units, location)
        if formats:
            request_params["format"] = formats if isinstance(formats, str) else ",".join(formats)
        if steps:
            request_params["podstate"] = list(STEP_PODSTATES)
        request_params |= {"appid": self._app_id(given), "input": query}
        if pod:
            request_params["podtitle"] = pod
        if assumption:
            request_params["assumption"] = assumption
        reply = self._get(
            self._endpoint(FULL_RESULTS_URL, "/v2/query"), request_params, deadline=deadline
        )
        content_type = reply.headers.get("Content-Type", "")
        if reply.status != 200 or "xml" not in content_type:
            self._check_status(reply, reply.text)
            raise MalformedReply(
                "Wolfram|Alpha sent a reply that is not its XML",
                reason=f"the reply is not XML (Content-Type {cut(content_type, 60)!r})",
            )
        result = parse_full_results(reply.body, self._scrub)
        if not result.get("@success", False):
            raise QueryNotUnderstood(
                query,
                did_you_mean=[self._scrub(text) for text in did_you_mean(result)],
                reason="Wolfram|Alpha could not interpret the input (success=false)",
            )
        return result

    @property
    def timeout(self) -> float:
        """Seconds to wait for Wolfram|Alpha (connecting, then each read)."""
        return self._net.timeout

    def close(self) -> None:
        """Close the HTTP connections."""
        self._net.close()

    def __enter__(self) -> WolframAlphaClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def under_base(self, url: str) -> bool:
        """Whether ``url`` lies under ``base_url`` (never without one): a mirror's own link."""
        return self.base_url is not None and under(self.base_url, url)

    def _endpoint(self, url: str, path: str) -> str:
        # Wolfram's ``url`` is read when sent: tests patch it.
        return url if self.base_url is None else self.base_url + path

    def _app_id(self, given: str | None = None) -> str:
        # Stripped here too: ``app_id`` (LlamaHub's ``token``) may be set after __init__.
        given = stripped(given)
        if given and not stripped(self.app_id):
            self._given_app_ids.add(given)  # for _scrub
        app_id = stripped(self.app_id) or given
        if not app_id:
            raise AppIdMissing(
                "no Wolfram|Alpha AppID: pass app_id=... or set "
                f"{APP_ID_ENV} (or {APP_ID_ENV_FALLBACK})",
                reason=f"no AppID was given, and neither {APP_ID_ENV} nor "
                f"{APP_ID_ENV_FALLBACK} is set",
            )
        if not (app_id.isascii() and app_id.isprintable()) or any(c.isspace() for c in app_id):
            raise AppIdMalformed(
                "the Wolfram|Alpha AppID cannot be sent: it holds spaces or control characters",
                reason="the AppID holds spaces, control characters or non-ASCII characters "
                "inside (surrounding whitespace is ignored); it was not sent",
            )
        return app_id

    def _get(
        self,
        url: str,
        params: Mapping[str, Any],
        headers: Mapping[str, str] | None = None,
        *,
        deadline: float | None = None,
        with_requests: bool = False,
    ) -> Reply:
        budget = round(self.deadline if deadline is None else max(0.0, float(deadline)), 1)
        try:
            return self._net.get(url, params, headers, budget=budget, with_requests=with_requests)
        except GetFailed as exc:
            failure = exc  # raised below, outside this block: no library error as context
        error, cause = self._error_for(failure)
        raise_as(error, cause, self._scrub)

    def _error_for(
        self, failure: GetFailed
    ) -> tuple[WolframAlphaLoaderError, BaseException | None]:
        cause = failure.cause
        if isinstance(failure, HeaderRefused):
            # The library refused to send a header: ours is the AppID's. Its text may
            # show the AppID (escaped), so only the type is told; nothing was sent.
            return AppIdMalformed(
                "the Wolfram|Alpha AppID cannot be sent in a header",
                reason=f"{type(cause).__name__}: the AppID holds characters a header "
                "cannot carry; it was not sent",
            ), None
        if isinstance(failure, GetTimeout):
            reason = failure.reason if cause is None else self._describe(cause)
            return WolframAlphaTimeout(failure.seconds, reason, host=failure.host), cause
        if isinstance(failure, ReplyTooLarge):
            return WolframAlphaUnavailable(
                f"Wolfram|Alpha sent too much: {failure.reason}",
                status=failure.status,
                reason=failure.reason,
            ), None
        assert isinstance(failure, NoConnection), failure
        if not failure.resolved:
            return WolframAlphaUnreachable(failure.host, resolved=False), cause
        reason = f"could not connect to {failure.host} ({self._describe(cause or failure)})"
        return WolframAlphaUnreachable(failure.host, resolved=True, reason=reason), cause

    def _check_status(self, reply: Reply, text: str) -> None:
        if reply.ok:
            return
        status = reply.status
        if "html" in reply.headers.get("Content-Type", ""):
            said = reply.reason_phrase  # an error page: its markup says nothing useful
        else:
            said = first_line(text, self._scrub)
        retry_after = parse_retry_after(reply.headers.get("Retry-After"))
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

    def _describe(self, exc: BaseException) -> str:
        detail = str(exc).strip()
        text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        return self._scrub(cut(text, REASON_CHARS))

    def _scrub(self, text: str) -> str:
        # Without the AppID: as given, stripped, and as ``repr`` shows it.
        text = mask_app_id(text)
        shown: set[str] = set()
        for app_id in (self.app_id, *self._given_app_ids):
            for form in (app_id, stripped(app_id)):
                if form:
                    shown.update((form, repr(form)[1:-1]))
        for form in sorted(shown, key=len, reverse=True):  # the longest first
            text = text.replace(form, "***")
        return text


def _answer_text(text: str, content_type: str) -> str:
    """``text``, a successful reply's stripped body; ``MalformedReply`` for markup or nothing."""
    content_type = content_type.lower()
    start = text[:64].lstrip().lower()
    markup = start.startswith(("<!doctype", "<html", "<?xml", "<head", "<body"))
    if "html" in content_type or "xml" in content_type or markup:
        raise MalformedReply(
            "Wolfram|Alpha sent a reply that is not its answer text",
            reason=f"the reply is a web page or markup (Content-Type {cut(content_type, 60)!r})",
        )
    if not text:
        raise MalformedReply("Wolfram|Alpha sent an empty answer", reason="the reply has no text")
    return text


def _suggestions(body: str) -> list[str]:
    """The "things to try instead" of an LLM API 501 body, in Wolfram's order."""
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    tips = (line.lstrip("-* ").strip() for line in lines[1:])
    return [tip for tip in tips if tip and not tip.lower().startswith("things to")]


def parse_full_results(body: bytes, scrub: Callable[[str], str]) -> Any:
    """The Full Results XML as ``wolframalpha`` objects (``Result``, ``Pod``, ...).

    Whatever those objects raise on a reply of another shape (``TypeError``,
    ``AttributeError``, ``KeyError``, a ``ValueError`` of a bad number) means the reply
    is not Wolfram's XML: :class:`MalformedReply`. Wolfram's own ``<error>`` raises the
    error it means.
    """
    from xml.parsers.expat import ExpatError  # with xmltodict, which loads it anyway

    try:
        doc = compat.parse(body)
    except ExpatError as exc:  # a reply cut short, or not XML at all
        raise_as(_malformed(f"the reply is not complete XML ({exc})"), exc, scrub)
    except ValueError as exc:
        if compat.ERROR_ELEMENT.match(str(exc)):
            raise_as(_error_element(str(exc), scrub), exc, scrub)
        if "entities" in str(exc):
            raise_as(_malformed("the reply declares XML entities, which are not read"), exc, scrub)
        raise_as(_malformed(f"the reply has an unexpected value ({exc})"), exc, scrub)
    except (TypeError, AttributeError, KeyError) as exc:
        raise_as(_malformed(f"the reply has an unexpected shape ({exc!r})"), exc, scrub)
    if isinstance(doc, dict) and "error" in doc:  # a bare <error>, as wolframalpha checks
        error = doc["error"]
        if not isinstance(error, dict):
            raise _malformed("the reply is an <error> without status or message")
        raise _error_element(compat.bare_error(error), scrub)
    result = doc.get("queryresult") if isinstance(doc, dict) else None
    if not compat.is_result(result):
        raise _malformed("the reply has no <queryresult>")
    try:
        problem = _shape_problem(result)
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        problem = f"it cannot be read ({exc!r})"
    if problem:
        raise _malformed(f"the reply's <queryresult> is not as documented: {problem}")
    return result


def _error_element(message: str, scrub: Callable[[str], str]) -> WolframAlphaLoaderError:
    said = first_line(message, scrub)
    if "appid" in said.lower():
        return AppIdRejected(f"Wolfram|Alpha refused the AppID ({said})", reason=said)
    if "input" in said.lower():
        return WolframAlphaBadRequest(f"Wolfram|Alpha rejected the request ({said})", reason=said)
    return WolframAlphaUnavailable(f"Wolfram|Alpha reported an error ({said})", reason=said)


def first_line(text: str, scrub: Callable[[str], str]) -> str:
    """The first non-blank line of ``text``, cut short, passed through ``scrub``."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return scrub(cut(line, REASON_CHARS))


def raise_as(
    error: WolframAlphaLoaderError, cause: BaseException | None, scrub: Callable[[str], str]
) -> NoReturn:
    """Raise ``error`` from ``cause``, unless ``cause``'s text would show the AppID."""
    text = str(cause)
    raise error from (cause if scrub(text) == text else None)


def _malformed(reason: str) -> MalformedReply:
    return MalformedReply("Wolfram|Alpha sent a reply that is not its XML", reason=reason)


def _shape_problem(result: Any) -> str:
    """What in a parsed ``<queryresult>`` is not as the spec reads it; "" when all is."""
    for pod in result.pods:
        if not compat.is_pod(pod) or not isinstance(pod.get("@title"), str):
            return "a <pod> without a title"
        for subpod in pod.subpods:
            if not isinstance(subpod, dict):
                return f"a <subpod> of {cut(pod['@title'], 40)!r} is not an element"
            if not isinstance(subpod.get("plaintext"), (str, type(None))):
                return f"a <plaintext> of {cut(pod['@title'], 40)!r} holds elements"
    for assumption in result.assumptions:
        if not isinstance(assumption, dict):
            return "an <assumption> is not an element"
        for value in as_list(assumption.get("value")):
            if not isinstance(value, dict) or not all(
                isinstance(value.get(key), str) for key in ("@desc", "@input")
            ):
                return "an assumption's <value> has no desc or input"
    if not isinstance(result.get("didyoumeans"), (dict, type(None))):
        return "<didyoumeans> is not an element"
    return ""


def as_list(value: Any) -> list[Any]:
    """An element xmltodict gives as one item or a list of them, as a list (``None``: [])."""
    if value is None:
        return []
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        return list(value)
    return [value]


def did_you_mean(result: Mapping[str, Any]) -> list[str]:
    """The ``<didyoumean>`` inputs of a Full Results reply, best first."""
    items = as_list((result.get("didyoumeans") or {}).get("didyoumean"))
    texts = (item.get("#text", "") if isinstance(item, dict) else item for item in items)
    return [text.strip() for text in texts if isinstance(text, str) and text.strip()]


class WolframAlphaReader(BaseReader):
    """Wolfram|Alpha's LLM API as a reader: one Document per query.

    ``api_params`` are LLM API parameters for every query, e.g. ``{"units": "metric"}``
    (an ``appid`` among them is the AppID); the others are ``WolframAlphaClient``'s.
    """

    def __init__(
        self,
        app_id: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        api_params: Mapping[str, Any] | None = None,
        deadline: float = 30.0,
        base_url: str | None = None,
    ) -> None:
        given, self.api_params = split_app_id(api_params)
        self.client = WolframAlphaClient(
            app_id or given,
            timeout=timeout,
            transport=transport,
            deadline=deadline,
            base_url=base_url,
        )

    def load_data(self, query: str, assumption: str | None = None, **params: Any) -> list[Document]:
        """Ask the LLM API; its answer as one Document.

        Args:
            query: The input, e.g. ``"boiling point of water in K"``.
            assumption: A value from a previous answer's assumptions, e.g. ``"*C.pi-_*Movie-"``.
            **params: More LLM API parameters for this query, e.g. ``maxchars=2000``.

        Returns:
            One Document; metadata ``query``, ``assumption``, ``source`` and ``url`` (the
            Wolfram|Alpha web page of the query).
        """
        answer = self.client.llm_answer(
            query, assumption=assumption, params={**self.api_params, **params}
        )
        url = f"https://www.wolframalpha.com/input?i={quote_plus(query)}"  # its web page
        metadata: dict[str, Any] = {"query": query, "source": SOURCE, "url": url}
        if assumption:
            metadata["assumption"] = assumption
        return [
            Document(text=answer, metadata=metadata, excluded_embed_metadata_keys=["source", "url"])
        ]
