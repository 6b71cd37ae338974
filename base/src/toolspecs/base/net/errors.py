"""The base of every loader's exceptions, and the ones the bounded GET raises.

Hierarchy::

    LoaderError              base: ``status``, ``reason``, ``retry_after``; each loader's
    │                        own base derives from it (ArxivLoaderError,
    │                        WolframAlphaLoaderError, GoogleLoaderError)
    └── GetFailed            a bounded GET got no usable reply (``cause``: the HTTP
        │                    library's exception, or ``None``); a loader turns each kind
        │                    into its own error
        ├── GetTimeout       no reply, or not all of it, within ``seconds``
        ├── ReplyTooLarge    the reply is over ``limit`` bytes
        ├── HeaderRefused    the HTTP library refused to send a header: nothing was sent
        └── NoConnection     no connection to ``host``: its name did not resolve
                             (``resolved`` is ``False``) or the connection failed

"""

from __future__ import annotations


class LoaderError(Exception):
    """Base of the loaders' exceptions: ``status``, ``reason`` and ``retry_after``, if known."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        reason: str = "",
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.reason = reason
        self.retry_after = retry_after
        # Not super(): a subclass may also derive from another library's error whose
        # constructor wants other arguments (GoogleApiError is an HttpError too).
        Exception.__init__(self, message)


def unreachable_reason(host: str, *, resolved: bool) -> str:
    """What happened when no connection could be made to ``host``, in a few words."""
    if resolved:
        return f"could not connect to {host}"
    return f"could not resolve {host} (no network or DNS?)"


class GetFailed(LoaderError):
    """A bounded GET got no usable reply; ``cause`` is the HTTP library's error, if any."""

    def __init__(
        self, message: str, *, cause: BaseException | None = None, status: int | None = None
    ) -> None:
        super().__init__(message, status=status, reason=message)
        self.cause = cause


class GetTimeout(GetFailed):
    """No reply, or not all of it, within ``seconds``; ``host`` when the library said."""

    def __init__(
        self, seconds: float, what: str, *, host: str = "", cause: BaseException | None = None
    ) -> None:
        super().__init__(what, cause=cause)
        self.seconds = seconds
        self.host = host


class ReplyTooLarge(GetFailed):
    """The reply is over ``limit`` bytes (declared, or counted as it came)."""

    def __init__(self, limit: int, status: int | None = None) -> None:
        super().__init__(f"the reply is over {limit} bytes", status=status)
        self.limit = limit


class HeaderRefused(GetFailed):
    """The HTTP library refused to send a header (``cause``): the request was not sent.

    Its text may repeat the header's value: a caller shows only the cause's type.
    """

    def __init__(self, cause: BaseException) -> None:
        super().__init__(f"{type(cause).__name__}: a header could not be sent", cause=cause)


class NoConnection(GetFailed):
    """No connection could be made to ``host``, the name that failed (a proxy's, behind one).

    ``resolved`` is ``False`` for a name that did not resolve; ``again`` for ``EAI_AGAIN``.
    """

    def __init__(
        self, host: str, *, resolved: bool, again: bool = False, cause: BaseException | None
    ) -> None:
        super().__init__(unreachable_reason(host, resolved=resolved), cause=cause)
        self.host = host
        self.resolved = resolved
        self.again = again
