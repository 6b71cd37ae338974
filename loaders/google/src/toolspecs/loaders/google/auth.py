"""Google credentials for toolspecs, shared by Calendar and Gmail.

The LlamaHub keywords keep their meaning, resolved in this order: ``creds`` as given; a
service account (``service_account_key`` or a ``service_account_key_path`` you name,
acting for ``subject`` if given); a user (``authorized_user_info`` or a token file,
refreshed when expired); else the OAuth flow from ``credentials_path`` (``auth_flow``:
``"local"`` browser, ``"console"``, or ``"none"`` for servers, whose error says to
authorize in a terminal).

Token files: ``token_path`` (LlamaHub's ``token.json``) is used when its scopes cover the
ones needed, or some of them (:attr:`GoogleAuth.granted`; :meth:`GoogleAuth.authorize`
asks for all). One holding other scopes (the other spec's, in a shared folder) is never
used nor overwritten: this scope set keeps ``token.<scopes>.json`` beside it
(:attr:`GoogleAuth.own_token_path`); with ``account="work"``, ``token.work.gmail.json``
only. A token granted more scopes is never rewritten with fewer. Tokens are written
(unless ``is_cloud``) by :func:`write_private`: whole, mode 0600, never through a symlink.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from toolspecs.loaders.google import loopback
from toolspecs.loaders.google.endpoints import check_endpoint
from toolspecs.loaders.google.errors import GoogleAuthError
from toolspecs.loaders.google.flow import run_flow
from toolspecs.loaders.google.loopback import LoopbackSignIn
from toolspecs.loaders.google.refresh import refresh as _refresh
from toolspecs.loaders.google.scopes import covering, scope_label
from toolspecs.loaders.google.service_accounts import key_credentials, scopes_to_ask
from toolspecs.loaders.google.token_files import (
    REAUTHORIZE,
    Coverage,
    coverage,
    credentials_scopes,
    file_name,
    file_scopes,
    one_line,
    write_private,
)

logger = logging.getLogger("toolspecs.google")

DEFAULT_TOKEN_PATH = "token.json"  # LlamaHub's
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
        target, wanted = self._sign_in_plan()
        return loopback.start(
            wanted, self.credentials_path, lambda creds: self._keep(creds, target), port
        )

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
        """The scopes a service account asks for (:func:`~.service_accounts.scopes_to_ask`)."""
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
