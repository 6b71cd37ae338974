"""``WolframAlphaClient``: Wolfram|Alpha's LLM API and Full Results API in one client.

- :meth:`WolframAlphaClient.llm_answer` asks the LLM API
  (``https://www.wolframalpha.com/api/v1/llm-api``), whose answer is text written for
  language models. The AppID travels in the ``Authorization`` header. Without a
  ``transport``, the request goes out with ``requests.get`` and the query in its URL, as
  LlamaHub's spec sends it: code written against that spec, which patches
  ``requests.get`` (LlamaHub's own tests do), keeps working.
- :meth:`WolframAlphaClient.full_results` asks the Full Results API
  (``https://api.wolframalpha.com/v2/query``) and reads its XML with the ``wolframalpha``
  package's parser (entity declarations refused, so an XML bomb cannot expand), then
  checks that the reply has the shape that parser promises. That API takes the AppID in
  the URL: a filter on every logger that sees request URLs (``httpx``, ``httpcore.*``,
  ``urllib3``) masks it, and no exception text ever holds it.

Each request is bounded: its reply is read up to ``max_reply_bytes``, and the whole
request, retries and ``Retry-After`` waits included, ends within a deadline (the
client's ``deadline``, or the ``deadline=`` of one call), not per read, however slowly
the body arrives (each read returns what has come). A host name that does not resolve
raises :class:`WolframAlphaUnreachable` naming the host: at once when the name does not
exist, after one more try 0.5 s later when the resolver said "try again" (``EAI_AGAIN``,
what glibc says with no network, and in a passing DNS hiccup).

The AppID is read without surrounding whitespace (a key file's last newline); one that
still holds spaces or control characters is refused before anything is sent
(:class:`AppIdMalformed`), and its value is never shown.

A ``base_url`` (a mirror, a local fake; https, or http to this machine only) replaces
both hosts: ``<base_url>/api/v1/llm-api``, ``<base_url>/v2/query``. No redirect is followed.

Failures raise the loader's own exceptions (:mod:`toolspecs.loaders.wolfram_alpha.errors`),
each carrying ``status``, ``reason`` and ``retry_after``. Tests and demos pass an httpx
transport (``transport=``), e.g. the offline
:class:`toolspecs.loaders.wolfram_alpha.testing.FakeWolframAlpha`'s: then both APIs go
through httpx and that transport, the one way in for a test double.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, NoReturn

from toolspecs.base.net import (
    BoundedGet,
    GetFailed,
    GetTimeout,
    HeaderRefused,
    NoConnection,
    Reply,
    ReplyTooLarge,
    under,
)
from toolspecs.base.net import (
    base_url as checked_base_url,
)
from toolspecs.base.net import retry_after as parse_retry_after
from toolspecs.loaders.wolfram_alpha import fullresults
from toolspecs.loaders.wolfram_alpha import params as named
from toolspecs.loaders.wolfram_alpha.appid import mask_app_id, split_app_id, stripped
from toolspecs.loaders.wolfram_alpha.errors import (
    AppIdMalformed,
    AppIdMissing,
    AppIdRejected,
    MalformedReply,
    QueryNotUnderstood,
    WolframAlphaBadRequest,
    WolframAlphaLoaderError,
    WolframAlphaTimeout,
    WolframAlphaUnavailable,
    WolframAlphaUnreachable,
    cut,
)
from toolspecs.loaders.wolfram_alpha.llmtext import answer_text, suggestions

if TYPE_CHECKING:
    # httpx, wolframalpha and xmltodict are imported where a request needs them: about
    # 150 ms at import (httpx loads its CLI's rich and click), and the LLM API, the tool
    # agents call most, goes out with requests when no transport is given.
    import httpx

LLM_API_URL = "https://www.wolframalpha.com/api/v1/llm-api"
FULL_RESULTS_URL = "https://api.wolframalpha.com/v2/query"
APP_ID_ENV = "WOLFRAM_ALPHA_APP_ID"
# Also read: the variable the ``wolframalpha`` package documents.
APP_ID_ENV_FALLBACK = "WOLFRAMALPHA_API_KEY"
# The most bytes one reply may have (after decompression): answers are a few kilobytes,
# and parsing 2 MB of hostile XML (deep nesting) takes about 2 s.
MAX_REPLY_BYTES = 2 * 1024 * 1024
# The most seconds one request may take, retries and waits included.
DEADLINE_SECONDS = 30.0

__all__ = [
    "APP_ID_ENV",
    "APP_ID_ENV_FALLBACK",
    "DEADLINE_SECONDS",
    "FULL_RESULTS_URL",
    "LLM_API_URL",
    "MAX_REPLY_BYTES",
    "WolframAlphaClient",
]


class WolframAlphaClient:
    """Both Wolfram|Alpha APIs, over one synchronous ``httpx.Client``.

    Args:
        app_id: The Wolfram|Alpha AppID; default ``$WOLFRAM_ALPHA_APP_ID``, else
            ``$WOLFRAMALPHA_API_KEY``. Without one, requests raise :class:`AppIdMissing`.
        timeout: Seconds to wait for Wolfram|Alpha (connecting, then each read).
        transport: The httpx transport both APIs go through, e.g.
            ``FakeWolframAlpha().transport()``. Without one, the LLM API is asked with
            ``requests.get`` (as LlamaHub's spec asks it) and the Full Results API with
            httpx's own transport.
        max_reply_bytes: The most bytes a reply may have.
        deadline: The most seconds one request may take in all: its retries, the waits
            Wolfram asks for (``Retry-After``) and the reading of a slow reply. A call's
            own ``deadline=`` replaces it.
        retries: Extra tries after a rate limit (429), a server error (5xx but 501) or a
            failed connection, when the wait before it ends within the deadline.
        base_url: Where both APIs are reached instead of Wolfram's hosts (a mirror, a
            local fake): ``<base_url>/api/v1/llm-api`` and ``<base_url>/v2/query``. https,
            or plain http to this machine only (``127.0.0.1``, ``::1``, ``localhost``).

    Raises:
        ValueError: ``timeout``, ``max_reply_bytes`` or ``deadline`` is not positive,
            ``retries`` is negative, or ``base_url`` is refused (``BaseUrlRefused``).
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
        # The bounded GET (deadline, size cap, retries), shared with the other loaders.
        self._net = BoundedGet(
            timeout=float(timeout),
            max_bytes=max_reply_bytes,
            retries=retries,
            transport=transport,
        )

    def __repr__(self) -> str:
        shown = "set" if self.app_id else "missing"
        return f"WolframAlphaClient(app_id=<{shown}>, timeout={self.timeout:g})"

    # -- the two APIs ------------------------------------------------------------------

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

        The AppID travels in the ``Authorization`` header, never in the URL: an
        ``appid`` in ``params`` (as LlamaHub's ``api_params`` allow) is used as the
        AppID when none was given, and is not sent as a parameter.

        Args:
            query: The input, e.g. ``"(7 * 12 ^ 10) / 321"``.
            assumption: A value from a previous answer's assumptions, e.g.
                ``"*C.pi-_*Movie-"``.
            units: ``"metric"`` or ``"nonmetric"`` (``"imperial"``, ``"SI"``... read as
                :func:`~toolspecs.loaders.wolfram_alpha.units_param` reads them); replaces
                the ``units`` among ``params``. ``None`` or blank: theirs, else Wolfram's.
            location: Where the user is: a place name (``"Boston, MA"``),
                ``"latitude,longitude"`` or an IP address, sent as ``location``,
                ``latlong`` or ``ip`` in place of any of those among ``params``.
            max_chars: The most characters the answer should have (``maxchars``; a lower
                one among ``params`` stays). Wolfram may send a little more.
            params: More LLM API parameters, e.g. ``{"units": "metric", "maxchars": 3000}``.
            deadline: Seconds this request may take in all (default: the client's).

        Returns:
            The answer text: the input as Wolfram read it, results, assumptions, a link.

        Raises:
            ValueError: ``units`` or ``location`` is none of the forms above (nothing
                is sent).
            QueryNotUnderstood: Wolfram could not read the query (HTTP 501); its
                suggestions are in ``suggestions``.
            WolframAlphaLoaderError: Any other failure (see the errors module).
        """
        given, rest = split_app_id(params)
        rest = named.capped_maxchars(named.with_place(rest, units, location), max_chars)
        request_params = {**rest, "input": query}
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
                [self._scrub(tip) for tip in suggestions(text)],
                status=501,
                reason=self._first_line(text),
            )
        self._check_status(reply, text)
        return answer_text(text, reply.headers.get("Content-Type", ""))

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
            steps: Ask for step-by-step solutions (Wolfram's documented podstates
                :data:`~toolspecs.loaders.wolfram_alpha.params.STEP_PODSTATES`); an AppID
                not entitled to them gets the results without.
            units: As for :meth:`llm_answer`.
            location: As for :meth:`llm_answer`.
            formats: The pod formats, e.g. ``("plaintext", "image")`` (``format``);
                default: those among ``params``, else Wolfram's.
            params: More Full Results parameters, e.g. ``{"format": "plaintext"}``.
            deadline: Seconds this request may take in all (default: the client's).

        Returns:
            A ``wolframalpha.Result`` (a dict): ``.pods``, ``.assumptions``, ``.details``.
            Its shape is checked: every pod is a dict with a text ``title`` and subpods
            that are dicts whose ``plaintext`` is text or missing; every assumption is
            a dict whose values are dicts.

        Raises:
            ValueError: ``units`` or ``location`` is none of the forms Wolfram takes
                (nothing is sent).
            QueryNotUnderstood: Wolfram could not read the query (``success="false"``);
                its "did you mean" inputs are in ``did_you_mean``.
            MalformedReply: The reply is not the Full Results XML (another root, HTML,
                cut short, entity declarations, an unexpected shape).
            WolframAlphaLoaderError: Any other failure (see the errors module).
        """
        given, rest = split_app_id(params)
        rest = named.full_results_params(named.with_place(rest, units, location), steps, formats)
        request_params = {**rest, "appid": self._app_id(given), "input": query}
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
        result = self._parse(reply.body)
        if not result.get("@success", False):
            raise QueryNotUnderstood(
                query,
                did_you_mean=[self._scrub(text) for text in fullresults.did_you_mean(result)],
                reason="Wolfram|Alpha could not interpret the input (success=false)",
            )
        return result

    @property
    def timeout(self) -> float:
        """Seconds to wait for Wolfram|Alpha (connecting, then each read)."""
        return self._net.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._net.timeout = seconds

    @property
    def max_reply_bytes(self) -> int:
        """The most bytes a reply may have."""
        return self._net.max_bytes

    @max_reply_bytes.setter
    def max_reply_bytes(self, limit: int) -> None:
        self._net.max_bytes = limit

    @property
    def retries(self) -> int:
        """Extra tries after a rate limit, a server error or a failed connection."""
        return self._net.retries

    @retries.setter
    def retries(self, count: int) -> None:
        self._net.retries = count

    def close(self) -> None:
        """Close the HTTP connections."""
        self._net.close()

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

    def under_base(self, url: str) -> bool:
        """Whether ``url`` lies under ``base_url`` (never without one): a mirror's own link."""
        return self.base_url is not None and under(self.base_url, url)

    def _endpoint(self, url: str, path: str) -> str:
        """Wolfram's ``url`` (read when sent: tests patch it), or ``path`` under the base URL."""
        return url if self.base_url is None else self.base_url + path

    def _app_id(self, given: str | None = None) -> str:
        """The AppID to send, without surrounding whitespace; checked, never shown.

        Stripped here too: ``app_id`` (LlamaHub's ``token``) may be set after the
        constructor.
        """
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
        """One GET and its body, bounded by :class:`~toolspecs.base.net.BoundedGet`.

        The last reply is returned whatever its status (the caller reads it); what got no
        usable reply raises this loader's error, naming the host and never the AppID.
        ``with_requests``: sent with ``requests.get`` instead of the httpx client.
        """
        budget = round(self.deadline if deadline is None else max(0.0, float(deadline)), 1)
        try:
            return self._net.get(url, params, headers, budget=budget, with_requests=with_requests)
        except GetFailed as exc:
            failure = exc  # raised below, outside this block: no library error as context
        self._raise(*self._error_for(failure))

    def _error_for(
        self, failure: GetFailed
    ) -> tuple[WolframAlphaLoaderError, BaseException | None]:
        """This loader's error for a GET that got no usable reply, and the cause to show."""
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
        """Raise the loader's error for a reply whose HTTP status is a failure."""
        if reply.ok:
            return
        status = reply.status
        if "html" in reply.headers.get("Content-Type", ""):
            said = reply.reason_phrase  # an error page: its markup says nothing useful
        else:
            said = self._first_line(text)
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

    def _parse(self, body: bytes) -> Any:
        """The Full Results XML as ``wolframalpha`` objects (see :func:`.fullresults.parse`)."""
        return fullresults.parse(body, self._scrub)

    def _first_line(self, text: str) -> str:
        """The first non-blank line of ``text``, cut short, with any AppID hidden."""
        return fullresults.first_line(text, self._scrub)

    def _describe(self, exc: BaseException) -> str:
        detail = str(exc).strip()
        text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
        return self._scrub(cut(text, fullresults.REASON_CHARS))

    def _scrub(self, text: str) -> str:
        """``text`` without the AppID: as given, stripped, and as ``repr`` shows it."""
        text = mask_app_id(text)
        shown: set[str] = set()
        for app_id in (self.app_id, *self._given_app_ids):
            for form in (app_id, stripped(app_id)):
                if form:
                    shown.update((form, repr(form)[1:-1]))
        for form in sorted(shown, key=len, reverse=True):  # the longest first
            text = text.replace(form, "***")
        return text

    def _raise(self, error: WolframAlphaLoaderError, cause: BaseException | None) -> NoReturn:
        """Raise ``error`` from ``cause``, unless ``cause``'s text would show the AppID."""
        text = str(cause)
        raise error from (cause if self._scrub(text) == text else None)
