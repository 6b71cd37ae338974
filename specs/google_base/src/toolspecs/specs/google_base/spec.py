"""``GoogleToolSpec``: what the Google specs share above their reader.

A subclass sets ``reader`` (a :class:`~toolspecs.loaders.google.GoogleApiReader`, holding
``auth``) in its constructor, ``service_name``, and ``ids_hint``: what a 404 tells the
agent about where valid ids come from. Google's failures become guidance by
:data:`~toolspecs.specs.google_base.failures.GOOGLE_FAILURES`.

LlamaHub's specs keep their auth settings as attributes of the spec (``spec.creds``,
``spec.token_path``, ..., and ``spec._get_credentials()``); here they read and write
``spec.auth``, the one place they live.

**Several accounts.** A spec built with ``account="work"`` keeps its own token file
(``token.work.gmail.json``), offers its tools as ``work_search_messages`` when
``to_tool_list()`` is called without a prefix (``prefix=""`` keeps the names), and names
the account in its replies and guidance, so an agent holding two mailboxes knows which
one answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from toolspecs.core import FailureTable, ToolSpec
from toolspecs.core.prefixed import named
from toolspecs.loaders.google import GoogleApiReader, GoogleAuth
from toolspecs.specs.google_base.failures import GOOGLE_FAILURES

_CHECK_IDS = "Check the id (ids come from the listing tools) and call the tool again."


class _AuthSetting:
    """A LlamaHub attribute of the spec (``spec.token_path``) that is ``spec.auth``'s."""

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
    # Calls of one spec run side by side: each thread sends with its own httplib2.Http
    # (httplib2 is not thread-safe; see toolspecs.loaders.google.connections).
    reader: GoogleApiReader
    # The account's name (``"work"``), when the program holds several; see the module.
    account: str | None = None
    # LlamaHub's attributes, kept in spec.auth.
    creds = _AuthSetting()
    credentials_path = _AuthSetting()
    token_path = _AuthSetting()
    service_account_key_path = _AuthSetting()
    service_account_key = _AuthSetting()
    authorized_user_info = _AuthSetting()
    is_cloud = _AuthSetting()

    @property
    def default_prefix(self) -> str:
        """The tool-name prefix when none is asked for: ``work_`` for ``account="work"``."""
        return f"{self.account}_" if self.account else ""

    def account_note(self) -> str:
        """`` in the 'work' account``, for replies and guidance; empty without an account."""
        return f" in the {self.account!r} account" if self.account else ""

    def use_account(self, account: str | None) -> None:
        """Name this spec's account (``auth.account``, already checked) where the agent reads.

        ``service_name`` becomes ``Gmail ('work' account)`` on this instance: Google's
        failures as guidance, late-call guidance and MCP titles all name the account.
        """
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
        """Run the authorization now (e.g. once on a new machine), instead of on first call.

        Raises:
            GoogleAuthError: When the person must set something first (the message says what).
        """
        self.auth.credentials()
        if self.auth.token_in_use is None:
            return "Authorized (no token file: the credentials were given, or is_cloud)."
        return f"Authorized; the token is in {self.auth.token_in_use}."

    def _get_credentials(self) -> Any:
        """LlamaHub's name for :meth:`GoogleAuth.credentials` (same order, same keywords).

        Raises:
            GoogleAuthError: When the person must set something first (the message says what).
        """
        return self.auth.credentials()

    def failure_context(self) -> dict[str, Any]:
        """Template values for the failure table.

        ``ids_hint``, ``reauthorize`` (what the person does) and ``authorize_guide`` (where
        they read how).
        """
        return {
            **super().failure_context(),
            "ids_hint": named(self.ids_hint or _CHECK_IDS),  # ours: tools by public names
            "reauthorize": self.reauthorize_hint(),
            "authorize_guide": f" (see {self.authorize_guide()})",
        }

    def authorize_guide(self) -> str:
        """Where the person reads how to authorize: a section of this spec's package page."""
        return f"'Authorize Google' in the README of {self.package}"

    def reauthorize_hint(self) -> str:
        """What the person does when Google no longer accepts this spec's credentials."""
        auth = self.auth
        if auth.creds is not None:
            fix = "the credentials passed to the tool (creds=) no longer work; pass new ones"
        elif auth.service_account_key is not None or auth.service_account_key_path:
            fix = (
                "check the service account key (service_account_key_path or "
                "service_account_key) and the access it was granted (with subject=, the "
                "domain-wide delegation of the scopes), then authorize again"
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
