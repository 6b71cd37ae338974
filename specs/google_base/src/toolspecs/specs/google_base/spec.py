"""``GoogleToolSpec``: what the Google specs share above their reader.

LlamaHub's auth attributes (``spec.creds``, ``spec.token_path``, ...) read and write
``spec.auth``, the one place they live. With ``account="work"`` a spec keeps its own token
file, prefixes its tools ``work_`` and names the account in replies and guidance.

Least privilege: each tool declares its scopes beside its ``@tool`` (:func:`needs_scopes`;
a Google spec class whose tool declares none is refused); the spec asks Google only for
those of the tools it offers, and a tool whose scopes the token lacks gets ask-the-user
guidance before any request.

Sign-in in the person's client: a call needing the person's sign-in
(:class:`~toolspecs.core.errors.SignInNeeded`) says how to authorize in a terminal; a host
that can show an address (MCP's URL elicitation) asks the policy to :func:`start` the
loader's loopback sign-in instead. One spec has one sign-in going: a second call is given
the same page, and a call that gives it up closes it only when no other call waits on it.
None is started for given credentials, ``is_cloud``, or a ``transport``/``service`` that
needs none.

Google's failures are guidance in one table shared by the Calendar and Gmail specs
(:data:`GOOGLE_FAILURES`): HTTP errors matched as ``googleapiclient.errors.HttpError`` (the
loader's ``GoogleApiError`` is one), never the token endpoint's answer (a ``RefreshError``
carries it whole); the templates' values come from ``GoogleToolSpec.failure_context``.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from email.utils import getaddresses
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from googleapiclient.errors import HttpError
from llama_index.core.tools.function_tool import FunctionTool
from llama_index.core.tools.tool_spec.base import SPEC_FUNCTION_TYPE
from llama_index.core.tools.types import ToolMetadata, ToolOutput

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    RetryLater,
    SignInNeeded,
    ToolGuidance,
    ToolSpec,
    deadline,
    fence,
)
from toolspecs.core.calls import CallPolicy
from toolspecs.core.clock import timezone_setting
from toolspecs.core.declare import function_name
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.failures import unreachable_rows
from toolspecs.core.prefixed import named, names_offered, ref
from toolspecs.loaders.google import (
    GoogleApiError,
    GoogleApiReader,
    GoogleAuth,
    GoogleAuthError,
    GoogleLoaderError,
    GoogleResponseError,
    GoogleUnreachable,
    endpoints,
)
from toolspecs.loaders.google.scopes import missing, short

if TYPE_CHECKING:  # http.server is imported only for a sign-in in the browser
    from toolspecs.loaders.google.loopback import LoopbackSignIn

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


GOOGLE_ROWS: tuple[Failure, ...] = (
    Failure(
        GoogleAuthError,
        SignInNeeded,
        "{service} cannot be used until the user signs in to Google: {reason}.",
        "Do not retry: tell the user to sign in to Google as this says{authorize_guide}.",
        when=lambda exc: getattr(exc, "setting", None) == "auth_flow",
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
        when=lambda exc: google_reason(exc) in RATE_REASONS,
    ),
    Failure(
        HttpError,
        SignInNeeded,
        "{service} refused access (HTTP 403): the authorization lacks a needed permission "
        "(scope).{said}",
        "{reauthorize}",
        status=403,
        when=lambda exc: (
            google_reason(exc) in SCOPE_REASONS
            or "scope" in str(getattr(exc, "reason", "") or "").lower()
        ),
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
        when=lambda exc: google_reason(exc) == "failedPrecondition",
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


F = TypeVar("F", bound=Callable[..., Any])
_ATTRIBUTE = "__toolspecs_google_scopes__"


def needs_scopes(*scopes: str) -> Callable[[F], F]:
    """Declare the Google scopes (full URLs) a spec function needs, above or below ``@tool``."""
    for scope in scopes:
        if not scope.startswith("https://"):
            raise ConfigurationError(f"needs_scopes: {scope!r} is not a Google scope URL")

    def mark(fn: F) -> F:
        setattr(fn, _ATTRIBUTE, tuple(dict.fromkeys(scopes)))
        return fn

    return mark


def declared_scopes(cls: type, function: str) -> tuple[str, ...] | None:
    """The scopes ``function`` of ``cls`` declared (inherited by an override), or ``None``."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(function)
        if found is None:
            continue
        declared = getattr(found, _ATTRIBUTE, None)
        if isinstance(declared, tuple):
            return declared
    return None


def undeclared(cls: type, base: type) -> list[str]:
    """The tools of ``cls`` defined under ``base`` that declare no scopes (not the core's)."""
    missing = []
    for entry in getattr(cls, "all_functions", []):
        name = function_name(entry)
        owner = next((k for k in cls.__mro__ if name in k.__dict__), None)
        if owner is None or not issubclass(owner, base):
            continue
        if declared_scopes(cls, name) is None:
            missing.append(name)
    return missing


AUTH_KEYWORDS = (
    "creds",
    "credentials_path",
    "token_path",
    "service_account_key_path",
    "service_account_key",
    "authorized_user_info",
    "is_cloud",
    "subject",
    "auth_flow",
    "oauth_port",
    "account",
    "token_uri",
)
"""The constructor keywords of a Google spec that say how to sign in (``GoogleAuth``'s)."""

CHECK_IDS = "Check the id (ids come from the listing tools) and call the tool again."
"""Where ids come from, naming no tool (the ``ids_hint`` when a spec has none to give)."""


class _AuthSetting:
    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, spec: GoogleToolSpec | None, owner: type | None = None) -> Any:
        if spec is None:
            return self
        return getattr(spec.auth, self.name)

    def __set__(self, spec: GoogleToolSpec, value: Any) -> None:
        setattr(spec.auth, self.name, value)


class GoogleToolSpec(ToolSpec):
    """Base of the Google specs: the API client, authorization, Google's failure table."""

    ids_hint: ClassVar[str] = ""
    # The distribution whose README (its package page) says how to authorize Google.
    package: ClassVar[str] = "toolspecs-google-calendar"
    failures: ClassVar[FailureTable] = GOOGLE_FAILURES
    # LlamaHub's spec's scopes (GoogleAuth.llamahub_scopes).
    llamahub_scopes: ClassVar[tuple[str, ...]] = ()
    reader: GoogleApiReader
    account: str | None = None
    # The scopes asked for when no tool offered needs any (a stable token file name).
    base_scopes: ClassVar[tuple[str, ...]] = ()
    cli_name: ClassVar[str] = ""
    # What a refused refresh tells the agent when a server acts for a user (act_as).
    acting_hint: str | None = None
    # LlamaHub's attributes, kept in spec.auth.
    creds = _AuthSetting()
    credentials_path = _AuthSetting()
    token_path = _AuthSetting()
    service_account_key_path = _AuthSetting()
    service_account_key = _AuthSetting()
    authorized_user_info = _AuthSetting()
    is_cloud = _AuthSetting()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Refuse a Google spec with a tool that does not declare its scopes."""
        super().__init_subclass__(**kwargs)
        lacking = undeclared(cls, GoogleToolSpec)
        if lacking:
            raise ConfigurationError(
                f"{cls.__name__}: {', '.join(lacking)} declare no Google scopes: add "
                "@needs_scopes(...) beside @tool (none for a tool that calls no Google API)"
            )

    # -- scopes -------------------------------------------------------------------------

    def scopes_for(self, functions: Sequence[str]) -> list[str]:
        """The scopes the spec functions ``functions`` need together, in order."""
        wanted: dict[str, None] = {}
        for function in functions:
            wanted.update(dict.fromkeys(declared_scopes(type(self), function) or ()))
        return list(wanted)

    def offered_functions(self) -> list[str]:
        """The functions handed out by ``to_tool_list()``/``call_tool()``, else ``spec_functions``.

        Only those the options allow (``allow_send``, ...) count.
        """
        handed: dict[str, None] | None = self.__dict__.get("_google_offered")
        names = list(handed) if handed else [function_name(e) for e in self.spec_functions]
        return [name for name in names if self.offers(self._marks(name))]

    def requested_scopes(self) -> list[str]:
        """The scopes to ask Google for: those of :meth:`offered_functions`."""
        return self.scopes_for(self.offered_functions()) or list(self.base_scopes)

    def _offer(self, functions: Sequence[str]) -> None:
        handed: dict[str, None] = self.__dict__.setdefault("_google_offered", {})
        handed.update(dict.fromkeys(functions))
        self.rescope()

    def rescope(self) -> None:
        """Ask for :meth:`requested_scopes` from now on (the offered tools may change)."""
        self.reader.rescope(self.requested_scopes())
        self.auth.authorize_hint = self.authorize_command()

    def to_tool_list(
        self,
        spec_functions: list[SPEC_FUNCTION_TYPE] | None = None,
        func_to_metadata_mapping: dict[str, ToolMetadata] | None = None,
        prefix: str | None = None,
    ) -> list[FunctionTool]:
        """``ToolSpec.to_tool_list``; the spec then asks Google for these tools' scopes too."""
        tools = super().to_tool_list(spec_functions, func_to_metadata_mapping, prefix)
        self._offer([function_name(e) for e in spec_functions or self.spec_functions])
        return tools

    def call_tool(self, name: str, **kwargs: Any) -> ToolOutput:
        """``ToolSpec.call_tool``; the spec then asks Google for this tool's scopes too."""
        bare = name.removeprefix(self.default_prefix) if self.default_prefix else name
        if bare in {function_name(e) for e in self.all_functions}:
            self._offer([bare])
        return super().call_tool(name, **kwargs)

    def granted_scopes(self) -> list[str] | None:
        """The scopes the credentials in use were granted (``None``: unknown)."""
        return self.reader.granted_scopes()

    def check_scopes(self, function: str) -> None:
        """Refuse ``function`` before any request when the token lacks a scope it needs."""
        needed = declared_scopes(type(self), function)
        if not needed:
            return
        granted = self.granted_scopes()  # the tool was handed out: its scopes were asked
        if granted is None:
            return
        lacking = missing(granted, needed)
        if not lacking:
            return
        names = ", ".join(short(scope) for scope in lacking)
        if self.auth.creds is not None or self.auth.authorized_user_info is not None:
            fix = "authorize again with it and pass the new credentials to the spec"
        else:
            fix = f"authorize again with it: {self.authorize_command()}"
        raise SignInNeeded(
            f"{self.service_name} was not authorized for {ref(function)}: the user's Google "
            f"authorization lacks the scope {names}.",
            f"Do not retry. Tell the user to {fix}; see {self.authorize_guide()}.",
        )

    def call_policy(self) -> CallPolicy:
        """``ToolSpec.call_policy``, with the sign-in a host may show (:mod:`.signin`)."""
        return replace(super().call_policy(), sign_in=lambda: start_sign_in(self))

    def authorize_command(self) -> str:
        """How the person authorizes again: ``toolspecs authorize gmail`` (``--tools``)."""
        if not self.cli_name:
            return "call authorize() on the spec"
        name = f"{self.cli_name}@{self.account}" if self.account else self.cli_name
        offered = self.offered_functions()
        tools = ""
        if offered == [function_name(e) for e in self.all_functions]:
            tools = " --tools all"
        elif offered != [function_name(e) for e in type(self).spec_functions]:
            tools = f" --tools {','.join(offered)}"
        return (
            f"run `toolspecs authorize {name}{tools}` in a terminal (in Python: spec.authorize())"
        )

    def before_call(self, function: str) -> None:
        """Refuse a tool whose scope the token lacks, before any request (:meth:`check_scopes`)."""
        self.check_scopes(function)

    @property
    def default_prefix(self) -> str:
        """The tool-name prefix when none is asked for: ``work_`` for ``account="work"``."""
        return f"{self.account}_" if self.account else ""

    def account_note(self) -> str:
        """`` in the 'work' account``, for replies and guidance; empty without an account."""
        return f" in the {self.account!r} account" if self.account else ""

    def reader_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        """A reader's keywords from a constructor's ``locals()``, every setting checked.

        The auth takes every :data:`AUTH_KEYWORDS`; it asks for ``base_scopes`` until
        ``rescope()`` sets the offered tools' own.
        """
        if given["timezone"]:
            timezone_setting(given["timezone"])  # a wrong name fails here, for the person
        auth = GoogleAuth(
            scopes=self.base_scopes,
            llamahub_scopes=self.llamahub_scopes,
            **{key: given[key] for key in AUTH_KEYWORDS},
        )
        self.use_account(auth.account)
        try:
            client_options = endpoints.client_options(given["client_options"])
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None
        return {
            "auth": auth,
            "transport": given["transport"],
            "time_left": deadline.remaining,  # retries end before the call's deadline
            "client_options": client_options,
        }

    def use_account(self, account: str | None) -> None:
        """Name the account: ``service_name`` becomes ``Gmail ('work' account)``."""
        self.account = account
        if account:
            # An instance value over the class's ClassVar (the core reads spec.service_name).
            setattr(self, "service_name", f"{type(self).service_name} ({account!r} account)")  # noqa: B010

    @property
    def auth(self) -> GoogleAuth:
        """How this spec gets its credentials."""
        return self.reader.auth

    @property
    def service(self) -> Any:
        """The API client (built, and authorized, on first use)."""
        return self.reader.service

    def authorize(self) -> str:
        """Run the authorization now (e.g. once on a new machine), instead of on first call."""
        self.rescope()
        self.auth.credentials()
        granted = self.auth.granted
        if granted is not None and missing(granted, self.auth.scopes):
            self.auth.authorize()
        if self.auth.token_in_use is None:
            return "Authorized (no token file: the credentials were given, or is_cloud)."
        return f"Authorized; the token is in {self.auth.token_in_use}."

    def _get_credentials(self) -> Any:
        self.rescope()
        return self.auth.credentials()

    def failure_context(self) -> dict[str, Any]:
        """Template values for the failure table: ids, reauthorize and account hints, the guide."""
        return {
            **super().failure_context(),
            "ids_hint": self.where_ids_come_from(),
            "reauthorize": self.reauthorize_hint(),
            "account_hint": self.account_hint(),
            "authorize_guide": f" (see {self.authorize_guide()})",
        }

    def account_hint(self) -> str:
        """What the person sets when the account the credentials act as cannot do a call."""
        auth = self.auth
        has_key = auth.service_account_key is not None or bool(auth.service_account_key_path)
        if auth.creds is None and has_key and not auth.subject:
            return (
                "that the service account acts as itself, and has no mailbox or calendar "
                "of its own: set subject= to the address of the user it acts for (with "
                "domain-wide delegation of the scopes in Google Workspace)"
            )
        return f"that this Google account cannot use {self.service_name} this way"

    def where_ids_come_from(self) -> str:
        """A 404's ``{ids_hint}``: ``ids_hint`` if the agent has every tool it names."""
        functions = {function_name(entry) for entry in self.all_functions}
        if self.ids_hint and names_offered(self.ids_hint, functions | {self.reader_name}):
            return named(self.ids_hint)
        return CHECK_IDS

    def authorize_guide(self) -> str:
        """Where the person reads how to authorize: a section of this spec's package page."""
        return f"'Authorize Google' in the README of {self.package}"

    def act_as(self, credentials: Any, reauthorize_hint: str) -> None:
        """Act with a user's ``credentials`` (a multi-user server asks this)."""
        self.creds = credentials
        self.acting_hint = reauthorize_hint

    def reauthorize_hint(self) -> str:
        """What the person does when Google no longer accepts this spec's credentials."""
        if self.acting_hint is not None:  # a server acting for a user (act_as)
            return self.acting_hint
        auth = self.auth
        if auth.creds is not None:
            fix = "the credentials passed to the tool (creds=) no longer work; pass new ones"
        elif auth.service_account_key is not None or auth.service_account_key_path:
            asked = ", ".join(short(scope) for scope in auth.service_account_scopes())
            fix = (
                "check the service account key (service_account_key_path or "
                "service_account_key) and the access it was granted (with subject=, the "
                f"domain-wide delegation must allow the scopes {asked}), then try again"
            )
        elif auth.authorized_user_info is not None:
            fix = "authorized_user_info no longer works: authorize again and pass the new token"
        else:
            # Its name only: where it lies on the user's machine is not the agent's to read.
            fix = f"delete {Path(auth.token_file()).name} and authorize again"
        return (
            f"Do not retry. Tell the user the Google authorization must be renewed: {fix} "
            f"(see {self.authorize_guide()})."
        )


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


def start_sign_in(spec: GoogleToolSpec) -> GoogleSignIn | None:
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


_MAX_COMMENTS = 64

_EMAIL = re.compile(
    r"^[^@\s<>(),;:\"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+$"
)


def parse_addresses(values: list[str], argument: str = "attendees") -> list[tuple[str, str]]:
    """(name, email) pairs; every invalid address is named in one guidance."""
    nested = [v for v in values if v.count("(") > _MAX_COMMENTS]
    if nested:
        # getaddresses recurses into nested comments: "((((…" would exhaust the stack.
        raise FixArguments(
            f"{argument}: not email addresses: {fence.quote(nested[0], 60)} (too many '(').",
            "Send addresses such as ['ada@example.com'].",
        )
    pairs = getaddresses(values)
    bad = [raw for raw, (_, email) in zip(values, pairs, strict=False) if not _EMAIL.match(email)]
    if len(pairs) != len(values):
        bad = [v for v in values if not _EMAIL.match(getaddresses([v])[0][1] if v else "")]
    if bad:
        listed = ", ".join(repr(b) for b in bad)
        raise FixArguments(
            f"{argument}: not email addresses: {listed}.",
            "Send addresses such as ['ada@example.com'] (ask the user if you do not know them).",
        )
    return [(name, email) for name, email in pairs]
