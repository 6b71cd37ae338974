"""Failures of a spec's client, mapped to guidance in one table (core/README.md shows one).

The guard looks a failure up once, at one boundary (as httpx maps transport errors): the
first row that matches wins, a spec's rows before :data:`DEFAULT_FAILURES`; no match is a
bug in our code. A ``"module.Class"`` row is looked up in ``sys.modules`` (a library never
imported cannot have raised). Texts are templates over ``service``, ``status``,
``reason``, ``said``, ``retry_after``, ``exc`` and the spec's ``failure_context()``; a
``!r`` echo is cut short (:func:`~toolspecs.core.bounds.shown`) so it cannot flood. Under
a prefix the row's own words are renamed, never the values filled in.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolspecs.core.bounds import ELLIPSIS, fill
from toolspecs.core.errors import (
    AskUser,
    ConfigurationError,
    FixArguments,
    RetryLater,
    ToolGuidance,
    strict,
)
from toolspecs.core.inputs import TimezoneUnavailable
from toolspecs.core.prefixed import named

Match = type[BaseException] | str
logger = logging.getLogger("toolspecs")
REASON_CHARS = 300


@dataclass(frozen=True)
class Failure:
    """One row of a failure table: exception types, the guidance kind and its templates.

    ``status`` and ``when`` narrow the row to HTTP statuses or a predicate.
    """

    on: Match | tuple[Match, ...]
    kind: type[ToolGuidance]
    message: str
    next_step: str | None = None
    status: int | Collection[int] | None = None
    when: Callable[[BaseException], bool] | None = None

    def matches(self, exc: BaseException) -> bool:
        """Whether this row is the one for ``exc``."""
        kinds = self.on if isinstance(self.on, tuple) else (self.on,)
        if not any(_is_instance(exc, kind) for kind in kinds):
            return False
        if self.status is not None:
            status = status_of(exc)
            wanted = {self.status} if isinstance(self.status, int) else self.status
            if status is None or status not in wanted:
                return False
        return self.when is None or bool(self.when(exc))


class FailureTable:
    """A spec's failure rows (most specific first), then the core's defaults."""

    def __init__(self, *rows: Failure, defaults: bool = True) -> None:
        self.rows: tuple[Failure, ...] = rows + (DEFAULT_ROWS if defaults else ())

    def __iter__(self) -> Iterator[Failure]:
        return iter(self.rows)

    def row_for(self, exc: BaseException) -> Failure | None:
        """The first row that matches ``exc``."""
        return next((row for row in self.rows if row.matches(exc)), None)

    def guidance(
        self,
        exc: BaseException,
        service: str = "The service",
        context: Mapping[str, Any] | None = None,
    ) -> ToolGuidance | None:
        """The guidance for ``exc``; ``None`` when no row matches (a bug in our code)."""
        if isinstance(exc, ToolGuidance):
            return exc
        row = self.row_for(exc)
        if row is None:
            return None
        reason = reason_of(exc)
        values: dict[str, Any] = {
            **(context or {}),
            "service": service,
            "status": status_of(exc),
            "reason": reason,
            "said": f" It said: {reason.rstrip('.')}." if reason else "",
            "retry_after": retry_after_of(exc),
            "exc": exc,
        }
        try:
            message = fill(named(row.message), values)
            step = fill(named(row.next_step), values) if row.next_step is not None else None
        except (AttributeError, LookupError, ValueError, TypeError):
            # A row whose template does not fit this exception: a bug in the declaration,
            # which must not turn a mapped failure into an exception out of the tool.
            if strict():
                raise
            logger.exception("toolspecs: the failure row for %r has a bad template", exc)
            message, step = f"{service} failed ({type(exc).__name__}).", None
        if row.kind is RetryLater:
            return RetryLater(message, step, retry_after=retry_after_of(exc))
        return row.kind(message, step)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status a failure carries: our loaders', requests', httpx's, googleapiclient's."""
    for holder, name in (
        (exc, "status"),
        (exc, "status_code"),
        (getattr(exc, "response", None), "status_code"),
        (getattr(exc, "resp", None), "status"),
    ):
        value = getattr(holder, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str) and value.isdigit():
            return int(value)
    return None


def reason_of(exc: BaseException) -> str:
    """What the service said (``exc.reason`` when it is text), cut short; "" when nothing."""
    reason = getattr(exc, "reason", None)
    if not isinstance(reason, str):
        return ""
    reason = " ".join(reason.split())
    return reason if len(reason) <= REASON_CHARS else reason[: REASON_CHARS - 1] + ELLIPSIS


def retry_after_of(exc: BaseException) -> float | None:
    """The seconds the service asked us to wait (``exc.retry_after``), if it said."""
    value = getattr(exc, "retry_after", None)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def guidance_for_failure(exc: BaseException, service: str = "The service") -> ToolGuidance | None:
    """Guidance for ``exc`` by the core's default rows alone; ``None`` when not expected."""
    return DEFAULT_FAILURES.guidance(exc, service)


def _is_instance(exc: BaseException, kind: Match) -> bool:
    if isinstance(kind, str):
        module, _, name = kind.rpartition(".")
        found = getattr(sys.modules.get(module), name, None)
        return isinstance(found, type) and isinstance(exc, found)
    return isinstance(exc, kind)


_REAUTH = "Do not retry: tell the user what is wrong and ask them to fix it."

DEFAULT_ROWS: tuple[Failure, ...] = (
    Failure(
        (ConfigurationError, TimezoneUnavailable),
        AskUser,
        "{service} is not set up correctly: {exc}.",
        "Do not retry: tell the user what to set (the message says which setting).",
    ),
    Failure(
        Exception, RetryLater, "{service} is rate-limiting requests (HTTP 429).{said}", status=429
    ),
    Failure(
        Exception,
        RetryLater,
        "{service} had a server error (HTTP {status}).{said}",
        status=range(500, 600),
    ),
    Failure(
        Exception,
        AskUser,
        "{service} refused access (HTTP {status}).{said}",
        _REAUTH,
        status=(401, 403),
    ),
    Failure(
        Exception,
        FixArguments,
        "{service} has nothing at that address (HTTP 404).{said}",
        status=404,
    ),
    Failure(
        Exception,
        FixArguments,
        "{service} rejected the request (HTTP {status}).{said}",
        status=range(400, 500),
    ),
    Failure(
        (TimeoutError, "requests.Timeout", "httpx.TimeoutException"),
        RetryLater,
        "{service} did not answer in time.",
    ),
    Failure(
        (ConnectionError, "requests.ConnectionError", "httpx.TransportError"),
        RetryLater,
        "Could not connect to {service}.",
    ),
)

DEFAULT_FAILURES = FailureTable()


# A name that does not resolve: AskUser, as only the person can fix it (connect, DNS, a
# proxy); it says what failed, not that the machine is offline (the name may be a proxy's).
# A refused or broken connection to a host that resolved may pass: RetryLater.
NO_NETWORK = (
    "{service} cannot be reached: this machine could not resolve {exc.host} "
    "(no network, or no DNS)."
)
NO_NETWORK_STEP = (
    "Do not retry now: tell the user this machine could not look up {exc.host}, and ask "
    "them to check its internet connection, DNS or proxy settings; the same call works "
    "once that name resolves."
)
REFUSED_STEP = (
    "Wait a minute and try again; if it keeps failing, tell the user that {exc.host} "
    "refuses connections from this machine (a firewall or a proxy may be in the way)."
)


def unreachable_rows(on: Match | tuple[Match, ...]) -> tuple[Failure, Failure]:
    """The rows for a loader's "no connection" error (it carries ``host`` and ``resolved``)."""
    return (
        Failure(
            on,
            AskUser,
            NO_NETWORK,
            NO_NETWORK_STEP,
            when=lambda exc: getattr(exc, "resolved", True) is False,
        ),
        Failure(on, RetryLater, "{service} could not be reached: {reason}.", REFUSED_STEP),
    )
