"""``toolspecs serve --http --auth-issuer URL --google-delegate KEY.json``: act as each user.

Behind the organisation's authorization server, a Google Workspace service account with
domain-wide delegation acts as the user each access token names
(:mod:`toolspecs.server.google_delegation`); each user's specs are their own
(:class:`toolspecs.server.user_tools.UserTools`), built as ``serve`` builds the served specs,
the Google ones with that user's delegated credentials.

The parser imports this module, so it imports nothing of ``toolspecs.core`` at the top.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolspecs.cli.assemble import ServeSettings
    from toolspecs.core.spec import ToolSpec
    from toolspecs.server.user_tools import UserTools

__all__ = ["add_delegate_arguments", "google_delegation", "user_claims"]


def add_delegate_arguments(serve: Any) -> None:
    """The ``--google-delegate`` flags of ``toolspecs serve``."""
    group = serve.add_argument_group(
        "act as each user with domain-wide delegation (with --auth-issuer)",
        "A Google Workspace service account acts as the user each access token names, "
        "for the users of --google-domain only. A Workspace administrator allows the "
        "service account's client id the Google scopes of the served tools.",
    )
    group.add_argument(
        "--google-delegate",
        metavar="KEY_FILE",
        help="the service account's JSON key (domain-wide delegation)",
    )
    group.add_argument(
        "--google-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="a Workspace domain whose users it may act as (repeatable; required)",
    )
    group.add_argument(
        "--google-user-claim",
        metavar="NAME",
        help="the access token claim holding the user's address (default: email, which "
        "needs email_verified: true)",
    )


def user_claims(args: argparse.Namespace) -> tuple[str, ...]:
    """The token claims the delegation reads (none without ``--google-delegate``)."""
    if not getattr(args, "google_delegate", None):
        return ()
    return tuple(dict.fromkeys([args.google_user_claim or "email", "email_verified"]))


def google_delegation(
    args: argparse.Namespace,
    settings: ServeSettings,
    specs: Mapping[str, ToolSpec],
    names: Sequence[str],
) -> UserTools | None:
    """Each user's tools, acting as them; ``None`` without ``--google-delegate``.

    Raises:
        ConfigurationError: For ``--google-domain`` or ``--google-user-claim`` without
            ``--google-delegate``, ``--google-delegate`` without ``--auth-issuer`` or with
            ``--google-sign-in``, without ``--google-domain``, or a key file that cannot
            be read (each in one line).
    """
    from toolspecs.core.errors import ConfigurationError

    key_file = getattr(args, "google_delegate", None)
    if not key_file:
        for flag in ("google_domain", "google_user_claim"):
            if getattr(args, flag, None):
                name = "--" + flag.replace("_", "-")
                raise ConfigurationError(f"{name} is for --google-delegate KEY_FILE")
        return None
    if getattr(args, "google_sign_in", False):
        raise ConfigurationError("give --google-sign-in or --google-delegate, not both")
    if not getattr(args, "auth_issuer", None):
        raise ConfigurationError(
            "--google-delegate needs --auth-issuer URL: the access tokens say whom it acts as"
        )
    from toolspecs.cli.user_specs import acting_as, google_scopes
    from toolspecs.server.google_delegation import DELEGATION_REFUSED, GoogleDelegation
    from toolspecs.server.user_tools import User, UserTools

    scopes = google_scopes(specs)
    if not scopes:
        raise ConfigurationError(
            "--google-delegate is for the Google specs: serve gmail or google_calendar"
        )
    delegation = GoogleDelegation.from_file(
        key_file,
        args.google_domain,
        scopes,
        args.google_user_claim or "email",
    )

    def build(user: User) -> list[Any]:
        address = delegation.address_of(user)  # guidance, before anything is built
        creds = delegation.credentials(address)
        return acting_as(settings, lambda: creds, DELEGATION_REFUSED)

    def key(user: User) -> str:
        # The address acted as is part of whose tools these are: a token of the same
        # subject naming another address builds anew.
        return f"{user.key}\n{[user.claims.get(c) for c in user_claims(args)]!r}"

    return UserTools(build, names, key=key)
