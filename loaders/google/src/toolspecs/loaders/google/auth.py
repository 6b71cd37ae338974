"""Google credentials for toolspecs, shared by Calendar and Gmail.

The LlamaHub keywords keep their meaning, resolved in this order: ``creds`` as given; a
service account (``service_account_key`` or a ``service_account_key_path`` you name,
acting for ``subject`` if given); a user (``authorized_user_info`` or a token file,
refreshed when expired); else the OAuth flow from ``credentials_path`` (``auth_flow``:
``"local"`` browser, ``"console"``, or ``"none"`` for servers, whose error says to
authorize in a terminal). A stray ``service_account_key.json`` in the working directory is
never picked up, only warned about: a key is used only when the user names it.

Token files: ``token_path`` (LlamaHub's ``token.json``) is used when its scopes cover the
ones needed, or some of them (:attr:`GoogleAuth.granted`; :meth:`GoogleAuth.authorize`
asks for all). One holding other scopes (the other spec's, in a shared folder) is never
used nor overwritten: this scope set keeps ``token.<scopes>.json`` beside it
(:attr:`GoogleAuth.own_token_path`); with ``account="work"``, ``token.work.gmail.json``
only. A token granted more scopes is never rewritten with fewer. Tokens are written
(unless ``is_cloud``) by :func:`write_private`: whole, mode 0600, never through a symlink.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolspecs.base.net import LookupRetry
from toolspecs.loaders.google.endpoints import check_endpoint
from toolspecs.loaders.google.errors import GoogleAuthError, unreachable
from toolspecs.loaders.google.scopes import covering, missing, scope_label

if TYPE_CHECKING:  # http.server is imported only for a sign-in in the browser
    from toolspecs.loaders.google.loopback import LoopbackSignIn

logger = logging.getLogger("toolspecs.google")

DEFAULT_TOKEN_PATH = "token.json"  # LlamaHub's
LEGACY_SERVICE_ACCOUNT_FILE = "service_account_key.json"
Coverage = Literal["same", "more", "part", "other", ""]
# An account name: in a file name and a tool-name prefix (OpenAI's [a-zA-Z0-9_-]).
ACCOUNT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,23}")


@dataclass
class GoogleAuth:
    """How to get Google credentials; see the module docstring for the order."""

    scopes: Sequence[str]
    creds: Any = None
    credentials_path: str = "credentials.json"
    token_path: str = DEFAULT_TOKEN_PATH
    service_account_key_path: str | None = None
    service_account_key: dict[str, Any] | None = None
    authorized_user_info: dict[str, Any] | None = None
    is_cloud: bool = False
    subject: str | None = None
    auth_flow: Literal["local", "console", "none"] = "local"
    oauth_port: int = 8080
    prompt: Callable[[str], str] = input
    # A name for the account (``"work"``): its own token file, token.work.<scopes>.json.
    account: str | None = None
    # Where the credentials read here renew tokens (None: theirs): see endpoints.py.
    token_uri: str | None = None
    # LlamaHub's scopes (empty: ``scopes``): a token file that does not say what it was
    # granted is read with them, and a service account asks for them (see scopes_to_ask).
    llamahub_scopes: Sequence[str] = ()
    # How the person authorizes in a terminal, for a process that may not (auth_flow="none").
    authorize_hint: str = "run `toolspecs authorize gmail` (or google_calendar) in a terminal"
    # Seconds the caller still has, asked before a token refresh (None: no limit).
    time_left: Callable[[], float | None] | None = field(default=None, repr=False)
    # The token file the credentials were last read from or written to.
    token_in_use: str | None = field(default=None, init=False)
    # The scopes the credentials in use were granted (None: not known, e.g. delegation).
    granted: list[str] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        # A list, as google-auth and LlamaHub pass scopes (and as their callers compare).
        self.scopes = list(self.scopes)
        if self.account is not None:
            self.account = self.account.strip()
            if not ACCOUNT_NAME.fullmatch(self.account):
                raise ValueError(
                    f"account must be a short name of letters, digits, '_' or '-' (e.g. "
                    f"'work'), not {self.account!r}"
                )
            path = Path(self.token_path)
            label = f"{self.account}.{scope_label(self.scopes)}"
            self.token_path = str(path.with_name(f"{path.stem}.{label}{path.suffix or '.json'}"))
        if self.token_uri is not None:
            check_endpoint(self.token_uri, "token_uri")
        if self.auth_flow not in ("local", "console", "none"):
            raise ValueError(
                f"auth_flow must be 'local', 'console' or 'none', not {self.auth_flow!r}"
            )

    @property
    def own_token_path(self) -> str:
        """This scope set's own token file beside ``token_path``: ``token.calendar.json``."""
        path = Path(self.token_path)
        label = scope_label(self.scopes)
        if path.stem.endswith(f".{label}"):
            return self.token_path
        return str(path.with_name(f"{path.stem}.{label}{path.suffix or '.json'}"))

    def token_file(self) -> str:
        """The token file in use: read or written last, else the one a call would read or write."""
        if self.token_in_use is not None:
            return self.token_in_use
        for path, _ in self._token_files():
            return path
        return self._save_path()

    def credentials(self, sign_in: bool = True, refresh: bool = True) -> Any:
        """Valid credentials, refreshing or authorizing as needed.

        Args:
            sign_in: Whether the OAuth flow may run; with ``False``, ``None`` instead.
            refresh: Whether expired credentials may be renewed; with ``False`` nothing goes to
                the network or is written (such credentials come back with ``valid`` false).

        Raises:
            GoogleAuthError: When the person must act (no or malformed client file, token or
                key; a refresh Google refused).
            GoogleUnreachable: When a refresh got no answer from Google's token server.
        """
        if self.creds is not None:
            self.granted = credentials_scopes(self.creds)
            return self.creds
        service_account = self._service_account()
        if service_account is not None:
            self.granted = None
            return service_account
        creds = self._user_credentials(sign_in, refresh)
        self.granted = self._granted_to(creds)
        return creds

    def authorize(self) -> Any:
        """Run the OAuth flow now and keep the token: for scopes a saved token lacks.

        It asks for :attr:`scopes` plus those the replaced token file was granted: that file may
        be LlamaHub's, shared with code that uses those grants, and is never narrowed.

        Raises:
            GoogleAuthError: As :meth:`credentials`, or when credentials are given (nothing to
                sign in).
        """
        target, wanted = self._sign_in_plan()
        creds = self._sign_in(wanted, target)
        return self._keep(creds, target)

    def sign_in_elsewhere(self, port: int = 0) -> LoopbackSignIn:
        """:meth:`authorize`'s sign-in on a page another program shows (:mod:`.loopback`)."""
        from toolspecs.loaders.google.loopback import LoopbackSignIn

        target, wanted = self._sign_in_plan()
        flow = client_flow(wanted, self.credentials_path)
        return LoopbackSignIn(flow, lambda creds: self._keep(creds, target), port)

    @property
    def given(self) -> bool:
        """Whether the credentials are given (``creds``, a service account, a user's info)."""
        return (
            self.creds is not None
            or self.service_account_key is not None
            or bool(self.service_account_key_path)
            or self.authorized_user_info is not None
        )

    def _sign_in_plan(self) -> tuple[str | None, list[str]]:
        if self.given:
            raise GoogleAuthError(
                "these credentials are given (creds, a service account or "
                "authorized_user_info), not signed in here: authorize them where they "
                "were made, with the scopes needed",
                "creds",
            )
        target = None
        for path in dict.fromkeys((self.token_path, self.own_token_path)):
            if os.path.isfile(path) and self._coverage(path) in ("same", "more", "part"):
                target = path
                break
        if target is None:
            target = None if self.is_cloud else self._new_token_path()
        wanted = list(self.scopes)
        kept = file_scopes(target) if target is not None else None
        for scope in kept or []:
            if scope not in wanted:
                wanted.append(scope)
        return target, wanted

    def _keep(self, creds: Any, target: str | None) -> Any:
        self._save(creds, target)
        self.granted = self._granted_to(creds)
        return creds

    def _sign_in(self, scopes: Sequence[str], target: str | None) -> Any:
        return run_flow(
            scopes,
            credentials_path=self.credentials_path,
            auth_flow=self.auth_flow,
            oauth_port=self.oauth_port,
            prompt=self.prompt,
            authorize_hint=self.authorize_hint,
            save_to=target or self._save_path(),
        )

    def _granted_to(self, creds: Any) -> list[str] | None:
        if self.token_in_use is not None:
            said = file_scopes(self.token_in_use)
            if said is not None:
                return said
        if self.authorized_user_info is not None:
            return self._info_scopes()
        return credentials_scopes(creds)

    def _info_scopes(self) -> list[str] | None:
        said = (self.authorized_user_info or {}).get("scopes")
        return said.split() if isinstance(said, str) else (list(said) if said else None)

    def _coverage(self, path: str) -> Coverage:
        return coverage(file_scopes(path), self.scopes)

    def service_account_scopes(self) -> list[str]:
        """The scopes a service account asks for (:func:`scopes_to_ask`)."""
        return scopes_to_ask(self.llamahub_scopes, self.scopes)

    def _service_account(self) -> Any:
        key, path = self.service_account_key, self.service_account_key_path
        creds = key_credentials(key, path, self.service_account_scopes())
        if creds is None:
            return None
        creds = self._renewed_at(creds)
        return creds.with_subject(self.subject) if self.subject else creds

    def _renewed_at(self, creds: Any) -> Any:
        moved = creds.with_token_uri(self.token_uri) if self.token_uri else creds
        moved.expiry = creds.expiry  # google-auth's copy drops it: an old token looked valid
        return moved

    def _user_credentials(self, sign_in: bool, refresh: bool = True) -> Any:
        from google.auth.exceptions import RefreshError

        # (credentials, its file or None, may rewrite it); a dict in memory is never written.
        found: Iterator[tuple[Any, str | None, bool]]
        if self.authorized_user_info is not None:
            found = iter([(self._from_info(), None, False)])
        else:
            found = (
                (self._from_file(path), path, rewrite) for path, rewrite in self._token_files()
            )
        stale = None  # the first token that a refresh would renew
        for creds, path, rewrite in found:
            if creds.valid:
                self.token_in_use = path
                return creds
            if not (creds.expired and creds.refresh_token):
                continue  # no way to renew this one: try the next, else sign in
            if not refresh:
                stale = stale or creds
                continue
            try:
                _refresh(creds, self.time_left)
            except RefreshError as exc:
                if path is not None and self._coverage(path) == "":
                    # It does not say what it was granted: maybe another scope set's
                    # (Google refuses to renew a token for scopes it was not granted).
                    # Kept as it is; a sign-in writes this scope set's own file.
                    logger.info("Google refused to refresh %s: not using it", path)
                    continue
                # Not the exception's text: it carries the token endpoint's whole answer.
                fix = (
                    f"delete {file_name(path)} and authorize again"
                    if path is not None
                    else "authorize again and pass the new authorized_user_info"
                )
                raise GoogleAuthError(
                    "the Google sign-in expired or was revoked (Google refused to refresh "
                    f"it): {fix}",
                    "token_path" if path is not None else "authorized_user_info",
                    path,
                ) from exc
            if rewrite:
                self._save(creds, path)
            else:  # more scopes than these, or unsaid, or in memory: never rewritten
                self.token_in_use = path
            return creds
        if not sign_in or not refresh:
            return stale
        target = None if self.is_cloud else self._new_token_path()  # before a sign-in
        creds = self._sign_in(self.scopes, target)
        self._save(creds, target)
        return creds

    def _token_files(self) -> Iterator[tuple[str, bool]]:
        """The token files to read, in order, each with whether a refresh may rewrite it.

        Those covering these scopes first, then those granted some; a file granted none is
        skipped. One is rewritten only when read with all it was granted: one granted more is
        never narrowed, and one that does not say (maybe another scope set's) is kept as it is.
        """
        unsaid = []
        partial = []
        for path in dict.fromkeys((self.token_path, self.own_token_path)):
            if not os.path.isfile(path):
                continue
            granted = self._coverage(path)
            if granted == "part":
                partial.append(path)
            elif granted == "other":
                logger.info(
                    "%s holds other Google scopes than %s: not using it",
                    path,
                    scope_label(self.scopes),
                )
            elif granted == "":
                unsaid.append(path)
            else:
                yield path, self._whole(path)
        for path in partial:
            yield path, self._whole(path)
        for path in unsaid:
            yield path, False

    def _whole(self, path: str) -> bool:
        said = file_scopes(path)
        return said is not None and set(self._read_scopes(said)) == set(said)

    def _read_scopes(self, said: list[str] | None) -> list[str]:
        """Those of ``said`` covering the scopes asked for, else (unsaid) LlamaHub's, as it reads.

        A refresh then never asks for a scope the file was not granted (Google refuses it).
        """
        if said is None:
            return list(self.llamahub_scopes) or list(self.scopes)
        return covering(said, self.scopes)

    def _save_path(self) -> str:
        if self._holds_others(self.token_path):
            return self.own_token_path
        return self.token_path

    def _holds_others(self, path: str) -> bool:
        return os.path.isfile(path) and self._coverage(path) != "same"

    def _new_token_path(self) -> str:
        path = self._save_path()
        if self._holds_others(path):  # token_path is already this scope set's own name
            raise GoogleAuthError(
                f"the token file {file_name(path)!r} holds other Google scopes than "
                f"{scope_label(self.scopes)} (or does not say which), and is not "
                "overwritten: set token_path to another file",
                "token_path",
                path,
            )
        return path

    def _save(self, creds: Any, path: str | None) -> None:
        if self.is_cloud:
            return
        path = path or self._new_token_path()
        write_private(path, creds.to_json())
        self.token_in_use = path

    def _from_info(self) -> Any:
        from google.oauth2.credentials import Credentials

        try:
            # Read as a token file is: a refresh asks only for scopes it was granted.
            scopes = self._read_scopes(self._info_scopes())
            return self._renewed_at(
                Credentials.from_authorized_user_info(  # type: ignore[no-untyped-call]
                    self.authorized_user_info, scopes
                )
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise GoogleAuthError(
                "authorized_user_info is not a Google authorized-user token: pass the dict "
                "a Google authorization saved, or leave it out to authorize "
                f"({one_line(exc)})",
                "authorized_user_info",
            ) from exc

    def _from_file(self, path: str) -> Any:
        from google.oauth2.credentials import Credentials

        scopes = self._read_scopes(file_scopes(path))
        try:
            return self._renewed_at(
                Credentials.from_authorized_user_file(  # type: ignore[no-untyped-call]
                    path, scopes
                )
            )
        except OSError as exc:
            raise GoogleAuthError(
                f"the token file {file_name(path)!r} could not be read: {REAUTHORIZE} "
                f"({one_line(exc)})",
                "token_path",
                path,
            ) from exc
        except (ValueError, KeyError, TypeError, AttributeError) as exc:  # ValueError: not JSON
            raise GoogleAuthError(
                f"the token file {file_name(path)!r} is not a Google authorized-user token: "
                f"{REAUTHORIZE} ({one_line(exc)})",
                "token_path",
                path,
            ) from exc


def write_private(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path``, readable by its owner only (mode 0600) from the start.

    Security: a temporary file in the same folder (``mkstemp``: 0600, exclusive) replaces
    ``path`` in one step, so a reader never sees half a token and a symlink at ``path`` is
    replaced, never written through.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def file_scopes(path: str) -> list[str] | None:
    """The scopes the token file at ``path`` says it was granted; ``None`` when it does not say."""
    from google.oauth2.credentials import Credentials

    try:
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle)
        own = Credentials.from_authorized_user_info(info)  # type: ignore[no-untyped-call]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return list(own.scopes) if own.scopes else None


def coverage(granted: Sequence[str] | None, scopes: Sequence[str]) -> Coverage:
    """How ``granted`` meets ``scopes``: same, more, part, other, or ``""`` (unknown)."""
    if not granted:
        return ""
    lacking = missing(granted, scopes)
    if not lacking:
        return "same" if set(granted) == set(scopes) else "more"
    return "part" if len(lacking) < len(set(scopes)) else "other"


def credentials_scopes(creds: Any) -> list[str] | None:
    """The scopes user credentials were granted, or ``None`` (a service account's: unknown)."""
    from google.oauth2.credentials import Credentials

    if not isinstance(creds, Credentials):
        return None
    scopes = creds.granted_scopes or creds.scopes
    if isinstance(scopes, str):
        return scopes.split()
    return list(scopes) if scopes else None


def file_name(path: str) -> str:
    """A file's name, as a ``reason`` shows it: not where it lies (``exc.path`` has that)."""
    return os.path.basename(os.path.expanduser(path)) or path


REAUTHORIZE = "delete it and authorize again, or set token_path to another file"


def one_line(exc: BaseException, limit: int = 120) -> str:
    """An exception as one short line: ``ValueError: ...``."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split()).rstrip(".")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def read_json(path: str, setting: str, what: str, fix: str) -> Any:
    """The JSON in ``path``; a missing or unreadable file is a :class:`GoogleAuthError`."""
    if not os.path.isfile(path):
        raise GoogleAuthError(f"{what} {file_name(path)!r} does not exist: {fix}", setting, path)
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as exc:  # ValueError: not JSON, or not UTF-8
        raise GoogleAuthError(
            f"{what} {file_name(path)!r} is not readable JSON: {fix} ({one_line(exc)})",
            setting,
            path,
        ) from exc


def scopes_to_ask(llamahub: Sequence[str], needed: Sequence[str]) -> list[str]:
    """The scopes a service account asks for: LlamaHub's, and what they do not cover.

    An administrator allowed the delegation scopes by name (a setup made for LlamaHub allowed
    LlamaHub's); a tool beyond them (``modify_labels``) asks for its own too.
    """
    if not llamahub:
        return list(needed)
    return [*llamahub, *missing(llamahub, needed)]


def key_credentials(key: dict[str, Any] | None, key_path: str | None, scopes: Sequence[str]) -> Any:
    """google-auth's service account credentials from ``key`` or ``key_path`` (or ``None``)."""
    info, setting = key, "service_account_key"
    if info is None and key_path:
        setting = "service_account_key_path"
        info = read_json(
            key_path,
            setting,
            "the service account key file",
            "set service_account_key_path to the JSON key downloaded for the service "
            "account (Google Cloud console, IAM & Admin > Service accounts > Keys)",
        )
    if info is None:
        if Path(LEGACY_SERVICE_ACCOUNT_FILE).is_file():
            logger.warning(
                "ignoring %s in the working directory: pass service_account_key_path to use it",
                LEGACY_SERVICE_ACCOUNT_FILE,
            )
        return None
    from google.oauth2 import service_account

    try:
        return service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
            info, scopes=list(scopes)
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        path = key_path if setting.endswith("_path") else None
        where = file_name(path) if path else setting
        raise GoogleAuthError(
            f"{where} is not a usable Google service account key: set {setting} to the "
            f"JSON key downloaded for the service account ({one_line(exc)})",
            setting,
            path,
        ) from exc


def run_flow(
    scopes: Sequence[str],
    *,
    credentials_path: str,
    auth_flow: str,
    oauth_port: int,
    prompt: Callable[[str], str],
    authorize_hint: str,
    save_to: str,
) -> Any:
    """Sign in with google_auth_oauthlib's flow for ``scopes``; ``save_to`` is named to a server."""
    flow = client_flow(scopes, credentials_path)
    if auth_flow == "none":
        raise GoogleAuthError(
            "Google is not authorized yet, and this process may not open a login "
            "(auth_flow='none', as when serving MCP): authorize once: "
            f"{authorize_hint}, which saves the token to "
            f"{file_name(save_to)}",
            "auth_flow",
            save_to,
        )
    if auth_flow == "local":
        return flow.run_local_server(port=oauth_port)
    flow.redirect_uri = f"http://localhost:{oauth_port}/"
    url, _ = flow.authorization_url(prompt="consent", access_type="offline")
    print(f"Open this address in a browser and allow access:\n{url}")
    answer = prompt(
        "Then paste the address the browser ended on (it starts with http://localhost): "
    ).strip()
    flow.fetch_token(authorization_response=answer.replace("http://", "https://", 1))
    return flow.credentials


def client_flow(scopes: Sequence[str], credentials_path: str) -> Any:
    """google_auth_oauthlib's ``InstalledAppFlow`` of the OAuth client file, for ``scopes``."""
    from google_auth_oauthlib.flow import InstalledAppFlow

    try:
        return InstalledAppFlow.from_client_secrets_file(credentials_path, scopes)
    except FileNotFoundError as exc:
        raise GoogleAuthError(
            f"Google is not authorized yet and there is no OAuth client file at "
            f"{file_name(credentials_path)!r}: create an OAuth client (Desktop app) in the "
            "Google Cloud console, save it there (or set credentials_path to it) and "
            "authorize once",
            "credentials_path",
            credentials_path,
        ) from exc
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise GoogleAuthError(
            f"the OAuth client file {file_name(credentials_path)!r} is not a Google OAuth "
            "client: download it (Desktop app) again from the Google Cloud console, or set "
            f"credentials_path to another file ({one_line(exc)})",
            "credentials_path",
            credentials_path,
        ) from exc


def _refresh(creds: Any, time_left: Callable[[], float | None] | None = None) -> None:
    """Renew ``creds`` at Google's token server (a ``RefreshError`` when Google refuses).

    Each request waits at most ``time_left()`` (google-auth's default is 120 s), so a stalled
    refresh does not hold the client past the call's deadline.

    Raises:
        GoogleUnreachable: When the token server gets no answer (``EAI_AGAIN``: once more).
    """
    import tenacity

    from google.auth.exceptions import TransportError
    from google.auth.transport.requests import Request

    class _Bounded(Request):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            left = time_left() if time_left is not None else None
            if left is not None:
                kwargs["timeout"] = max(1.0, min(float(kwargs.get("timeout") or 120), left))
            return super().__call__(*args, **kwargs)  # type: ignore[no-untyped-call]

    lookups = LookupRetry()
    while True:
        try:
            creds.refresh(_Bounded())
            return
        except TransportError as exc:
            failure = unreachable(exc, str(creds.token_uri))
            if failure is None:
                raise
            if not lookups.allows(failure.again):
                raise failure from exc
        # tenacity's sleep, as execute() waits (tests record it there).
        tenacity.nap.sleep(lookups.wait)
