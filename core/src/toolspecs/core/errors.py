"""Exceptions of toolspecs, and the text an agent reads when a call goes wrong.

Hierarchy::

    ToolspecsError                 base of everything toolspecs raises
    ├── ToolGuidance               a tool call failed; ``str()`` is text for the agent
    │   ├── FixArguments           change the arguments and call again      (kind "fix")
    │   ├── RetryLater             same call, later: rate limits, timeouts  (kind "retry")
    │   └── AskUser                stop and ask the person: keys, access    (kind "ask_user")
    └── ConfigurationError         a spec cannot be built or found: for the person, not the agent

A spec function raises a ``ToolGuidance`` (or lets an expected failure such as an
HTTP error or a timeout escape, see :func:`guidance_for_failure`); the tool built
by :class:`toolspecs.core.ToolSpec` turns it into a ``ToolOutput`` with
``is_error=True`` whose text ends with the next step.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar, Literal

Kind = Literal["fix", "retry", "ask_user"]

_NEXT_STEP: dict[str, str] = {
    "fix": "Fix the arguments and call the tool again.",
    "retry": "Wait a little and try the same call again, or use another tool.",
    "ask_user": "Do not retry: tell the user what is wrong and ask them to fix it.",
}


class ToolspecsError(Exception):
    """Base class of every exception toolspecs raises."""


class ConfigurationError(ToolspecsError):
    """A spec cannot be found or built: a message for the person, not the agent."""


class ToolGuidance(ToolspecsError):
    """A tool call that must fail, with text that tells the agent what to do next.

    Args:
        message: What went wrong, showing the bad value where there is one.
        next_step: What to do instead; defaults to the standard step for ``kind``.
    """

    kind: ClassVar[Kind] = "fix"

    def __init__(self, message: str, next_step: str | None = None) -> None:
        self.message = message.strip()
        self.next_step = next_step if next_step is not None else _NEXT_STEP[self.kind]
        super().__init__(self.text)

    @property
    def text(self) -> str:
        """The whole message as the agent reads it."""
        if not self.next_step:
            return self.message
        return f"{self.message} {self.next_step}"

    @property
    def retryable(self) -> bool:
        """Whether the same call may succeed later without any change."""
        return self.kind == "retry"


class FixArguments(ToolGuidance):
    """The arguments were wrong: change them and call again."""

    kind: ClassVar[Kind] = "fix"


class RetryLater(ToolGuidance):
    """A passing failure (rate limit, timeout, server error): the same call may work later.

    Args:
        message: What went wrong.
        next_step: What to do instead.
        retry_after: Seconds the service asked us to wait, when it said.
    """

    kind: ClassVar[Kind] = "retry"

    def __init__(
        self, message: str, next_step: str | None = None, retry_after: float | None = None
    ) -> None:
        self.retry_after = retry_after
        if next_step is None and retry_after is not None:
            next_step = f"Wait {retry_after:g} seconds and try the same call again."
        super().__init__(message, next_step)


class AskUser(ToolGuidance):
    """Only the person can fix this (a missing key, no access): do not retry."""

    kind: ClassVar[Kind] = "ask_user"


def http_guidance(service: str, status: int, detail: str = "") -> ToolGuidance:
    """Guidance for an HTTP error status from ``service``.

    Args:
        service: The service's name as the agent should read it, e.g. ``"arXiv"``.
        status: The HTTP status code.
        detail: What the service said, when it helps the agent.

    Returns:
        A ``ToolGuidance`` of the kind that fits the status.
    """
    said = f" It said: {detail.strip()}" if detail.strip() else ""
    if status == 429:
        return RetryLater(f"{service} is rate-limiting requests (HTTP 429).{said}")
    if status >= 500:
        return RetryLater(f"{service} had a server error (HTTP {status}).{said}")
    if status in (401, 403):
        return AskUser(f"{service} refused access (HTTP {status}).{said}")
    if status == 404:
        return FixArguments(f"{service} has nothing at that address (HTTP 404).{said}")
    return FixArguments(f"{service} rejected the request (HTTP {status}).{said}")


def guidance_for_failure(exc: BaseException, service: str = "The service") -> ToolGuidance | None:
    """Turn an expected failure (timeout, connection error, HTTP error) into guidance.

    Knows the exceptions of ``requests`` and ``httpx`` without importing either:
    a library that was never imported cannot have raised.

    Args:
        exc: The exception a spec function let escape.
        service: The service's name as the agent should read it.

    Returns:
        The guidance, or ``None`` when ``exc`` is not an expected failure.
    """
    if isinstance(exc, ToolGuidance):
        return exc
    status = _http_status(exc)
    if status is not None:
        return http_guidance(service, status)
    name = type(exc).__name__
    if (
        isinstance(exc, TimeoutError)
        or _is_instance(exc, "requests", "Timeout")
        or (_is_instance(exc, "httpx", "TimeoutException"))
    ):
        return RetryLater(f"{service} did not answer in time ({name}).")
    if (
        isinstance(exc, ConnectionError)
        or _is_instance(exc, "requests", "ConnectionError")
        or (_is_instance(exc, "httpx", "TransportError"))
    ):
        return RetryLater(f"Could not connect to {service} ({name}).")
    return None


def _is_instance(exc: BaseException, module: str, name: str) -> bool:
    mod = sys.modules.get(module)
    cls = getattr(mod, name, None) if mod is not None else None
    return isinstance(cls, type) and isinstance(exc, cls)


def _http_status(exc: BaseException) -> int | None:
    if not (
        _is_instance(exc, "requests", "HTTPError") or _is_instance(exc, "httpx", "HTTPStatusError")
    ):
        return None
    response: Any = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    return status if isinstance(status, int) else None
