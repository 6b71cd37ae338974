"""Google API clients from the discovery documents bundled with google-api-python-client.

:func:`execute` runs one request: passing failures (429, 5xx, rate-limit 403s, timeouts,
dropped connections) are retried with jittered back-off, at least what ``Retry-After``
asks, only while the next try starts within the deadline; an answer that is not a JSON
object is a ``GoogleResponseError``, never handed on as the result. Each thread sends with
its own HTTP object (:mod:`.authorized_http` says why).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from llama_index.core.readers.base import BaseReader
from tenacity import RetryCallState, Retrying, wait_random_exponential

from toolspecs.base.net import LookupRetry
from toolspecs.loaders.google import compat_googleapiclient as compat
from toolspecs.loaders.google import endpoints
from toolspecs.loaders.google.auth import GoogleAuth, credentials_scopes
from toolspecs.loaders.google.errors import (
    AGAIN_WAIT,
    GoogleApiError,
    GoogleResponseError,
    GoogleUnreachable,
    unreachable,
)

NUM_RETRIES = 3
# Seconds one request may take with its retries and waits, unless the caller says.
DEADLINE = 30.0
# Back-off before try n+1 is random in [0, min(2**(n-1), MAX_BACKOFF)] seconds (full jitter).
MAX_BACKOFF = 8.0


def build_service(
    api: str,
    version: str,
    credentials: Any = None,
    transport: Any = None,
    client_options: Any = None,
) -> Any:
    """A ``googleapiclient`` resource for ``api``/``version``, with no network for discovery."""
    options = endpoints.client_options(client_options)
    builder = ThreadRequests(transport, direct=endpoints.on_this_machine(options))
    if transport is not None:
        http = builder.http() if is_http_factory(transport) else transport
        return compat.build_shared(
            api, version, client_options=options, http=http, requestBuilder=builder
        )
    return compat.build_shared(
        api, version, client_options=options, credentials=credentials, requestBuilder=builder
    )


def execute(request: Any, deadline: float | None = DEADLINE, num_retries: int = NUM_RETRIES) -> Any:
    """Run a request and return its answer, a JSON object (``{}`` for "no content").

    Args:
        request: A ``googleapiclient`` request (``service.events().list(...)``).
        deadline: Seconds the whole run may take, waits included: a retry whose wait would
            end past it is not made (``None``: only ``num_retries``).
        num_retries: At most this many tries after the first.

    Raises:
        GoogleApiError: When Google still answers with an HTTP error.
        GoogleResponseError: When the answer is not a JSON object.
    """
    from googleapiclient.errors import HttpError

    compat.read_through(request, _json_object)  # the body read through a check
    # A POST (a new draft, a sent draft, a new event) that met a server error or a lost
    # connection may have been done: it is not sent again, so nothing is done twice. A
    # rate limit (429, or 403 rateLimitExceeded) means Google refused it: that one waits.
    repeatable = str(getattr(request, "method", "GET")).upper() != "POST"
    for attempt in _retrying(repeatable, deadline, num_retries):  # tries in this frame
        with attempt:
            try:
                return request.execute(num_retries=0)  # the retries are ours
            except HttpError as exc:
                if isinstance(exc, GoogleApiError):
                    raise
                raise GoogleApiError.from_http_error(exc) from exc
            except Exception as exc:
                failure = unreachable(exc, str(getattr(request, "uri", "")))
                if failure is None:
                    raise
                raise failure from exc
    raise AssertionError("tenacity ends its tries by raising")  # pragma: no cover


def execute_batch(
    service: Any,
    requests: list[Any],
    deadline: float | None = DEADLINE,
    num_retries: int = NUM_RETRIES,
) -> list[Any]:
    """Run requests (at most 100) as one batch: each call's answer, or the error it met."""
    from googleapiclient.errors import BatchError, HttpError

    answers: list[Any] = [None] * len(requests)

    def keep(request_id: str, response: Any, exception: Any) -> None:
        index = int(request_id)
        if isinstance(exception, HttpError):
            content = compat.error_content(exception)
            answers[index] = GoogleApiError(exception.resp, content, uri=exception.uri)
        else:
            answers[index] = response

    # Sent again after a server error or a lost connection only when it holds reads alone:
    # a batched write may have been done (as execute() treats a POST).
    repeatable = all(str(getattr(r, "method", "GET")).upper() == "GET" for r in requests)
    for attempt in _retrying(repeatable, deadline, num_retries):  # tries in this frame
        with attempt:
            batch = service.new_batch_http_request()
            for index, request in enumerate(requests):
                compat.read_through(request, _object_or_error)
                batch.add(request, callback=keep, request_id=str(index))
            try:
                batch.execute()
            except BatchError as exc:  # a 2xx answer that is not multipart/mixed
                raise GoogleResponseError.unreadable(exc.resp, exc.content) from exc
            except HttpError as exc:
                raise GoogleApiError.from_http_error(exc) from exc
            except Exception as exc:
                failure = unreachable(exc, compat.batch_uri(batch))
                if failure is None:
                    raise
                raise failure from exc
            return list(answers)
    raise AssertionError("tenacity ends its tries by raising")  # pragma: no cover


def _retrying(repeatable: bool, deadline: float | None, num_retries: int) -> Retrying:
    return Retrying(
        retry=_retry(_passing if repeatable else _refused),
        wait=_back_off,
        stop=_stop(num_retries, deadline),
        reraise=True,
    )


def _object_or_error(postproc: Callable[[Any, bytes], Any]) -> Callable[[Any, bytes], Any]:

    def read(resp: Any, content: bytes) -> Any:
        try:
            answer = postproc(resp, content)
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            return answer
        return GoogleResponseError.unreadable(resp, content)

    return read


def _retry(worth: Callable[[BaseException], bool]) -> Callable[[RetryCallState], bool]:
    lookups = LookupRetry()

    def retry(state: RetryCallState) -> bool:
        if state.outcome is None or not state.outcome.failed:
            return False
        exc = state.outcome.exception()
        if isinstance(exc, GoogleUnreachable) and not exc.resolved:
            # Whether the wait fits in the deadline is _stop's to say.
            return lookups.allows(exc.again)
        return exc is not None and worth(exc)

    return retry


def _passing(exc: BaseException) -> bool:
    if isinstance(exc, GoogleApiError):
        return exc.passing
    if isinstance(exc, GoogleUnreachable):
        return exc.resolved
    return isinstance(exc, (TimeoutError, ConnectionError))


def _refused(exc: BaseException) -> bool:
    return isinstance(exc, GoogleApiError) and exc.passing and exc.status in (403, 429)


def _back_off(state: RetryCallState) -> float:
    failure = state.outcome.exception() if state.outcome is not None else None
    if isinstance(failure, GoogleUnreachable) and not failure.resolved:
        return AGAIN_WAIT
    jitter: float = wait_random_exponential(multiplier=1, max=MAX_BACKOFF)(state)
    asked = getattr(failure, "retry_after", None)
    return max(jitter, float(asked)) if asked is not None else jitter


def _stop(num_retries: int, deadline: float | None) -> Callable[[RetryCallState], bool]:
    def stop(state: RetryCallState) -> bool:
        if state.attempt_number > num_retries:
            return True
        if deadline is None:
            return False
        # The time used: what the clock says, or the waits alone where sleeping is faked.
        used = max(state.seconds_since_start or 0.0, state.idle_for)
        return used + state.upcoming_sleep >= deadline

    return stop


def _json_object(postproc: Callable[[Any, bytes], Any]) -> Callable[[Any, bytes], Any]:
    # A method without a response body (events.delete) hands on the raw body: there, an
    # empty one is the success Google sends.
    bodiless = compat.bodiless(postproc)

    def read(resp: Any, content: bytes) -> Any:
        try:
            answer = postproc(resp, content)
        except ValueError:  # not UTF-8 (googleapiclient hands other non-JSON on as text)
            answer = None
        if bodiless and isinstance(answer, (str, bytes)):
            answer = _object_or_none(answer)
        if not isinstance(answer, dict):
            raise GoogleResponseError.unreadable(resp, content)
        return answer

    return read


class GoogleApiReader(BaseReader):
    """Base of the Google readers: one API client, built (and authorized) on first use.

    Args:
        auth: How to get credentials.
        transport: An ``httplib2.Http``-like object shared by every thread (tests pass a
            fake such as ``FakeCalendar``), or a callable making one per thread.
        service: A ready client for the API (used as it is).
        time_left: Asked before each request for the seconds it may take, retries
            included; without one, or when it answers ``None``, :data:`DEADLINE`.
        client_options: googleapiclient's ``client_options``: ``api_endpoint`` says where
            requests go (:mod:`.endpoints`; a refused one is a ``ValueError``).
    """

    api: ClassVar[str] = ""
    version: ClassVar[str] = ""

    def __init__(
        self,
        auth: GoogleAuth,
        transport: Any = None,
        service: Any = None,
        time_left: Callable[[], float | None] | None = None,
        client_options: Any = None,
    ) -> None:
        self.auth = auth
        self.transport = transport
        self.client_options = endpoints.client_options(client_options)
        self._service = service
        self._built = False  # whether _service is ours (built from self.auth), not given
        self._building = threading.Lock()
        self.time_left = time_left
        if time_left is not None and auth.time_left is None:
            auth.time_left = time_left  # a token refresh keeps to the same deadline

    @property
    def service(self) -> Any:
        """The API client, built on first use (no credentials needed with a ``transport``)."""
        if self._service is None:
            with self._building:  # two first calls in two threads build one client
                if self._service is None:
                    creds = None if self.transport is not None else self.auth.credentials()
                    self._service = build_service(
                        self.api,
                        self.version,
                        credentials=creds,
                        transport=self.transport,
                        client_options=self.client_options,
                    )
                    self._built = True
        return self._service

    def rescope(self, scopes: Sequence[str]) -> None:
        """Ask for ``scopes`` from now on; a client built for others is dropped."""
        if list(scopes) == list(self.auth.scopes):
            return
        self.auth.scopes = list(scopes)
        if self._built and self.transport is None:
            self._service = None
            self._built = False

    def granted_scopes(self) -> list[str] | None:
        """The scopes the credentials in use were granted; ``None`` when not known."""
        if self.transport is not None:
            return credentials_scopes(getattr(self.transport, "credentials", None))
        self.service  # noqa: B018  (reads the credentials once, with the client)
        return self.auth.granted

    @property
    def given_service(self) -> bool:
        """Whether the API client was given (``service=``), not built from credentials."""
        return self._service is not None and not self._built

    def forget(self) -> None:
        """Drop a client built from credentials: the next request reads them again."""
        with self._building:
            if self._built and self.transport is None:
                self._service = None
                self._built = False

    def service_if_signed_in(self, refresh: bool = True) -> Any:
        """The API client if it can be had without starting a sign-in, else ``None``."""
        if self._service is None and self.transport is None:
            with self._building:
                if self._service is None:
                    creds = self.auth.credentials(sign_in=False, refresh=refresh)
                    if creds is None or not (refresh or getattr(creds, "valid", True)):
                        return None
                    self._service = build_service(
                        self.api,
                        self.version,
                        credentials=creds,
                        client_options=self.client_options,
                    )
                    self._built = True
        return self.service

    def execute(self, request: Any) -> dict[str, Any]:
        """:func:`execute` ``request`` within the time left."""
        answer: dict[str, Any] = execute(request, deadline=self.deadline())
        return answer

    def execute_batch(self, requests: list[Any]) -> list[Any]:
        """:func:`execute_batch` ``requests`` within the time left."""
        return execute_batch(self.service, requests, deadline=self.deadline())

    def deadline(self) -> float:
        """Seconds the next request may take, retries included."""
        left = self.time_left() if self.time_left is not None else None
        return DEADLINE if left is None else left


def _object_or_none(raw: str | bytes) -> dict[str, Any] | None:
    if not raw.strip():
        return {}
    try:
        loaded = json.loads(raw)
    except ValueError:
        return None
    return loaded if isinstance(loaded, dict) else None


def is_http_factory(transport: Any) -> bool:
    """Whether ``transport`` makes HTTP objects (a callable) rather than being one."""
    return callable(transport) and not hasattr(transport, "request")


class PerThreadHttp:
    """Each thread's own HTTP object, made by ``make`` on the thread's first request."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make
        self._local = threading.local()

    def get(self) -> Any:
        """The calling thread's HTTP object."""
        http = getattr(self._local, "http", None)
        if http is None:
            http = self._local.http = self.make()
        return http


class ThreadRequests:
    """A ``requestBuilder`` for ``build()`` whose requests send with their thread's HTTP."""

    def __init__(self, transport: Any = None, *, direct: bool = False) -> None:
        self.direct = direct
        self._https: PerThreadHttp | None = None
        if is_http_factory(transport):
            self._https = PerThreadHttp(transport)
        elif transport is not None:
            self._https = PerThreadHttp(lambda: transport)
        self._making = threading.Lock()

    def http(self, shared: Any = None) -> Any:
        """The calling thread's HTTP object (``shared``: the one ``build`` made)."""
        if self._https is None:
            with self._making:
                if self._https is None:
                    self._https = PerThreadHttp(_copies(shared, self.direct))
        return self._https.get()

    def __call__(self, http: Any, *args: Any, **kwargs: Any) -> Any:
        """A ``googleapiclient.http.HttpRequest`` sent with the calling thread's HTTP."""
        from googleapiclient.http import HttpRequest

        return HttpRequest(self.http(http), *args, **kwargs)


def _copies(shared: Any, direct: bool = False) -> Callable[[], Any]:
    import google_auth_httplib2  # 0.1 s of httplib2 and pyparsing: when a client is made
    from googleapiclient.http import build_http

    from toolspecs.loaders.google.authorized_http import SerialAuthorizedHttp

    if not isinstance(shared, google_auth_httplib2.AuthorizedHttp):
        # Credentials of another kind (oauth2client's) authorized it themselves: shared.
        return lambda: shared
    credentials = shared.credentials
    renewing = threading.Lock()

    def make() -> Any:
        http = build_http()
        if direct:
            http.proxy_info = None  # httplib2's documented "no proxy"
        return SerialAuthorizedHttp(credentials, http, renewing)

    return make
