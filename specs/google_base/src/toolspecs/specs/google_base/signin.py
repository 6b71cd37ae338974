"""Sign-in in the person's client: what a Google spec gives a host that can show a page.

A call needing the person's sign-in (:class:`~toolspecs.core.errors.SignInNeeded`) says
how to authorize in a terminal; a host that can show an address (MCP's URL elicitation)
asks the policy to :func:`start` the loader's loopback sign-in instead. One spec has one
sign-in going: a second call is given the same page, and a call that gives it up closes
it only when no other call waits on it. None is started for given credentials,
``is_cloud``, or a ``transport``/``service`` that needs none.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

from toolspecs.core import AskUser
from toolspecs.loaders.google import GoogleLoaderError
from toolspecs.loaders.google.loopback import LoopbackSignIn
from toolspecs.loaders.google.scopes import short

if TYPE_CHECKING:
    from toolspecs.core import ToolGuidance
    from toolspecs.loaders.google import GoogleApiReader, GoogleAuth


class GoogleToolSpec(Protocol):
    """What of a Google spec a sign-in uses (the spec module imports this one)."""

    reader: GoogleApiReader

    @property
    def service_name(self) -> str: ...  # noqa: D102

    @property
    def auth(self) -> GoogleAuth: ...  # noqa: D102

    def guidance_for(self, exc: BaseException) -> ToolGuidance | None: ...  # noqa: D102

    def rescope(self) -> None: ...  # noqa: D102


_STARTING = threading.Lock()


class GoogleSignIn:
    """One sign-in a host shows the person (:class:`toolspecs.core.calls.SignIn`)."""

    def __init__(self, spec: GoogleToolSpec, pending: LoopbackSignIn) -> None:
        self._spec = spec
        self._pending = pending
        self.shown = 0  # calls it was handed to and not given up by (under _STARTING)
        allowed = ", ".join(dict.fromkeys(short(scope) for scope in spec.auth.scopes))
        self.message = (
            f"{spec.service_name} needs your Google sign-in, allowing: {allowed}. Open the "
            "page, choose your account and allow access; the request then goes on."
        )

    @property
    def url(self) -> str:
        """Google's consent page for this sign-in."""
        return self._pending.url

    @property
    def closed(self) -> bool:
        """Whether it no longer waits (done, given up or too late)."""
        return self._pending.closed

    def finish(self, seconds: float) -> None:
        """Wait for the person and keep the token; the next call uses it."""
        try:
            self._pending.wait(seconds)
        except GoogleLoaderError as exc:
            raise _guidance(self._spec, exc) from exc
        self._spec.reader.forget()  # a client built with the old token is dropped
        with _STARTING:
            if self._spec.__dict__.get("_client_sign_in") is self:
                del self._spec.__dict__["_client_sign_in"]

    def cancel(self) -> None:
        """Give it up for one call: the page closes once no call it was shown to waits."""
        with _STARTING:
            self.shown -= 1
            if self.shown > 0:
                return
        self._pending.close()


def start(spec: GoogleToolSpec) -> GoogleSignIn | None:
    """The sign-in going for ``spec``, or a new one; ``None`` where none can be started."""
    auth, reader = spec.auth, spec.reader
    if auth.given or auth.is_cloud or reader.transport is not None or reader.given_service:
        return None
    with _STARTING:
        going = spec.__dict__.get("_client_sign_in")
        if isinstance(going, GoogleSignIn) and not going.closed:
            going.shown += 1  # another call shown the same page: one person signs in
            return going
        spec.rescope()  # the scopes of the tools offered now
        try:
            pending = auth.sign_in_elsewhere()
        except GoogleLoaderError as exc:
            raise _guidance(spec, exc) from exc
        except OSError as exc:  # no free port on 127.0.0.1
            raise AskUser(
                f"{spec.service_name} could not start a Google sign-in here ({exc.strerror})."
            ) from exc
        going = spec.__dict__["_client_sign_in"] = GoogleSignIn(spec, pending)
        going.shown = 1
        return going


def _guidance(spec: GoogleToolSpec, exc: GoogleLoaderError) -> ToolGuidance:
    """The spec's guidance for a failed sign-in; never ``str(exc)`` (it adds the file's path)."""
    return spec.guidance_for(exc) or AskUser(f"{spec.service_name} could not sign in to Google.")
