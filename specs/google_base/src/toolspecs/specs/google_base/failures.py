"""Google's failures as guidance, in one table shared by the Calendar and Gmail specs.

HTTP errors are matched as ``googleapiclient.errors.HttpError`` (the loader's
``GoogleApiError`` is one). Never the token endpoint's answer: a ``RefreshError`` carries
it whole. The templates' values come from ``GoogleToolSpec.failure_context``.
"""

from __future__ import annotations

from googleapiclient.errors import HttpError

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    SignInNeeded,
)
from toolspecs.core.failures import unreachable_rows
from toolspecs.loaders.google import (
    GoogleApiError,
    GoogleAuthError,
    GoogleLoaderError,
    GoogleResponseError,
    GoogleUnreachable,
)

RATE_REASONS = frozenset(
    {"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded", "RATE_LIMIT_EXCEEDED"}
)
SCOPE_REASONS = frozenset({"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT"})
# authorize_guide: " (see 'Authorize Google' in the README of toolspecs-gmail)".
_ASK = "Do not retry: tell the user what to set{authorize_guide}."


def google_reason(exc: BaseException) -> str:
    """Google's machine-readable reason for an HTTP error (``"rateLimitExceeded"``), or ""."""
    if isinstance(exc, GoogleApiError):
        return exc.google_reason
    if isinstance(exc, HttpError):
        return GoogleApiError.from_http_error(exc).google_reason
    return ""


def _rate_limited(exc: BaseException) -> bool:
    return google_reason(exc) in RATE_REASONS


def _lacks_scope(exc: BaseException) -> bool:
    said = str(getattr(exc, "reason", "") or "").lower()
    return google_reason(exc) in SCOPE_REASONS or "scope" in said


def _failed_precondition(exc: BaseException) -> bool:
    return google_reason(exc) == "failedPrecondition"


def _not_signed_in(exc: BaseException) -> bool:
    return getattr(exc, "setting", None) == "auth_flow"


GOOGLE_ROWS: tuple[Failure, ...] = (
    Failure(
        GoogleAuthError,
        SignInNeeded,
        "{service} cannot be used until the user signs in to Google: {reason}.",
        "Do not retry: tell the user to sign in to Google as this says{authorize_guide}.",
        when=_not_signed_in,
    ),
    Failure(
        GoogleAuthError,
        AskUser,
        "{service} cannot be used until the user sets up Google access: {reason}.",
        _ASK,
    ),
    Failure(
        "google.auth.exceptions.RefreshError",
        SignInNeeded,
        # Never {exc}: a RefreshError carries the token endpoint's whole answer.
        "{service} could not be reached: the Google sign-in expired or was revoked.",
        "{reauthorize}",
    ),
    Failure(
        HttpError,
        FixArguments,
        "{service} found nothing there (HTTP {status}).{said}",
        "{ids_hint}",
        status=(404, 410),
    ),
    Failure(
        HttpError,
        SignInNeeded,
        "{service} rejected the credentials (HTTP 401).{said}",
        "{reauthorize}",
        status=401,
    ),
    Failure(
        HttpError,
        RetryLater,
        "{service} is rate-limiting requests (HTTP {status}), even after retries.{said}",
        status=429,
    ),
    Failure(
        HttpError,
        RetryLater,
        "{service} is rate-limiting requests (HTTP {status}), even after retries.{said}",
        status=403,
        when=_rate_limited,
    ),
    Failure(
        HttpError,
        SignInNeeded,
        "{service} refused access (HTTP 403): the authorization lacks a needed permission "
        "(scope).{said}",
        "{reauthorize}",
        status=403,
        when=_lacks_scope,
    ),
    Failure(
        HttpError,
        AskUser,
        "{service} refused access (HTTP 403).{said}",
        "Do not retry: tell the user their Google account has no access to this; they can "
        "ask the owner to share it.",
        status=403,
    ),
    Failure(
        HttpError,
        FixArguments,
        "{service} reports a conflict (HTTP 409).{said}",
        "Use a different id, or update the existing item instead.",
        status=409,
    ),
    Failure(
        HttpError,
        RetryLater,
        "{service} had a server error (HTTP {status}), even after retries.{said}",
        status=range(500, 600),
    ),
    Failure(
        HttpError,
        AskUser,
        # Gmail's answer to a service account acting as itself (it has no mailbox), or
        # to an account without Gmail: no argument changes it.
        "{service} cannot do this for the account these credentials act as "
        "(HTTP 400, failed precondition).{said}",
        "Do not retry: tell the user {account_hint}{authorize_guide}.",
        status=400,
        when=_failed_precondition,
    ),
    Failure(
        HttpError,
        FixArguments,
        "{service} rejected the request (HTTP {status}).{said}",
        status=range(400, 500),
    ),
    *unreachable_rows(GoogleUnreachable),
    Failure(
        (
            "google.auth.exceptions.TransportError",
            "httplib2.HttpLib2Error",
            "ssl.SSLError",
            TimeoutError,  # socket.timeout is TimeoutError
            ConnectionError,
        ),
        RetryLater,
        "Could not reach {service} ({exc.__class__.__name__}: {exc}).",
    ),
    Failure(
        GoogleResponseError,
        RetryLater,
        "{service} sent an answer that could not be read ({reason}); a proxy or a "
        "network login page may be in the way.",
        "Wait a minute and try again. If the call was to change something, first check "
        "(list or get it) whether it was done, so that it is not done twice.",
    ),
    Failure(
        GoogleLoaderError,
        AskUser,
        "{service} failed: {reason}.",
        "Do not retry: tell the user what went wrong.",
    ),
)
"""The rows, for a Google spec that puts its own in front: ``FailureTable(*mine, *GOOGLE_ROWS)``."""

GOOGLE_FAILURES = FailureTable(*GOOGLE_ROWS)
"""The Google rows followed by the core's defaults (``GoogleToolSpec.failures``)."""
