"""Google API failures as guidance an agent can act on; shared by Calendar and Gmail."""

from __future__ import annotations

import json
import socket
from typing import Any

from toolspecs.core import AskUser, FixArguments, RetryLater, ToolGuidance
from toolspecs.core.failures import guidance_for_failure
from toolspecs.loaders.google.auth import reauthorize_hint

_RATE_REASONS = {"rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"}
_SCOPE_REASONS = {"insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "forbidden"}


def http_error_details(exc: Any) -> tuple[int, str, str]:
    """(status, reason, message) of a ``googleapiclient.errors.HttpError``."""
    status = int(getattr(exc.resp, "status", 0) or 0)
    reason, message = "", ""
    try:
        payload = json.loads(exc.content.decode("utf-8"))
        error = payload.get("error", {})
        message = str(error.get("message", ""))
        reasons = [e.get("reason", "") for e in error.get("errors", []) if isinstance(e, dict)]
        details = [d.get("reason", "") for d in error.get("details", []) if isinstance(d, dict)]
        reason = next((r for r in [*reasons, *details] if r), str(error.get("status", "")))
    except (ValueError, AttributeError, UnicodeDecodeError):
        message = str(getattr(exc, "reason", "") or "")
    return status, reason, message


def google_guidance(
    exc: BaseException,
    service: str,
    token_path: str | None = None,
    not_found: str | None = None,
) -> ToolGuidance | None:
    """Guidance for what a Google API call raised; ``None`` when it is not an expected failure.

    Args:
        exc: The exception.
        service: How the agent should call the service, e.g. ``"Google Calendar"``.
        token_path: The token file, named in re-authorization hints.
        not_found: What to say for a 404 (e.g. how to get valid ids).
    """
    from googleapiclient.errors import HttpError

    from google.auth.exceptions import RefreshError, TransportError

    if isinstance(exc, ToolGuidance):
        return exc
    if isinstance(exc, RefreshError):
        return AskUser(
            f"{service} could not be reached: the Google authorization no longer works ({exc}).",
            reauthorize_hint(token_path),
        )
    if isinstance(exc, HttpError):
        status, reason, message = http_error_details(exc)
        said = f" Google said: {message}" if message else ""
        if status == 404 or status == 410:
            return FixArguments(f"{service} found nothing there (HTTP {status}).{said}", not_found)
        if status == 401:
            return AskUser(
                f"{service} rejected the credentials (HTTP 401).{said}",
                reauthorize_hint(token_path),
            )
        if status == 429 or (status == 403 and reason in _RATE_REASONS):
            return RetryLater(f"{service} is rate-limiting requests (HTTP {status}).{said}")
        if status == 403:
            scope = (
                " The authorization lacks a needed permission (scope)."
                if (reason in _SCOPE_REASONS or "scope" in message.lower())
                else ""
            )
            return AskUser(
                f"{service} refused access (HTTP 403).{scope}{said}", reauthorize_hint(token_path)
            )
        if status == 409:
            return FixArguments(
                f"{service} reports a conflict (HTTP 409).{said}",
                "Use a different id, or update the existing item instead.",
            )
        if status >= 500:
            return RetryLater(f"{service} had a server error (HTTP {status}), even after retries.")
        return FixArguments(f"{service} rejected the request (HTTP {status}).{said}")
    if isinstance(exc, (TransportError, socket.timeout, TimeoutError)):
        return RetryLater(f"Could not reach {service} ({type(exc).__name__}: {exc}).")
    if type(exc).__module__.startswith("httplib2"):
        return RetryLater(f"Could not reach {service} ({type(exc).__name__}).")
    return guidance_for_failure(exc, service)
