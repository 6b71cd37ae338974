"""What Google hosting adds to ``toolspecs serve``: its flags, their checks, each user's tools.

Each user's Google specs act as them (``GoogleToolSpec.act_as``). Imported by the parser:
nothing of ``toolspecs.core`` or ``toolspecs.server`` at the top.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from toolspecs.cli.hosting import Hosted, Serving
    from toolspecs.core.spec import ToolSpec

__all__ = ["GoogleHosting", "acting_as", "google_scopes", "public_url"]


class GoogleHosting:
    """``toolspecs serve --google-sign-in`` and ``--google-delegate`` (a hosting plug-in)."""

    def add_arguments(self, serve: argparse.ArgumentParser) -> None:
        """The ``--google-sign-in`` and ``--google-delegate`` flags of ``toolspecs serve``."""
        from toolspecs.cli.parser import whole_number

        group = serve.add_argument_group(
            "sign in with Google (HTTP)",
            "Each person who connects signs in with their Google account, and their Gmail and "
            "Calendar tools act as them. Needs a Google OAuth client of type 'Web "
            "application' whose redirect URI is this server's /oauth/google/callback, its "
            "secret in $TOOLSPECS_GOOGLE_CLIENT_SECRET, and a key in $TOOLSPECS_TOKEN_KEY "
            "that encrypts the kept Google tokens.",
        )
        group.add_argument(
            "--google-sign-in", action="store_true", help="sign each user in with Google"
        )
        group.add_argument(
            "--google-client-id",
            metavar="ID",
            help="the Google OAuth client id (default: $TOOLSPECS_GOOGLE_CLIENT_ID)",
        )
        group.add_argument(
            "--public-url",
            metavar="URL",
            help="the https address browsers and clients reach this server at, behind your TLS "
            "proxy (https://mcp.example.com): the issuer clients see, URL/mcp, and Google's "
            "redirect URI URL/oauth/google/callback; needed unless it serves 127.0.0.1 only",
        )
        # Registration bounds (toolspecs.server.registration); the defaults are RegistrationLimits'.
        group.add_argument(
            "--register-per-address",
            type=whole_number,
            metavar="N",
            help="client registrations one address (an IPv6 /64) may make per hour, else 429 "
            "(default 20); behind a proxy it must send X-Forwarded-For",
        )
        group.add_argument(
            "--register-per-hour",
            type=whole_number,
            metavar="N",
            help="client registrations all addresses together may make per hour (default 300)",
        )
        group.add_argument(
            "--unused-clients",
            type=whole_number,
            metavar="N",
            help="registered clients kept that have not signed anyone in yet, each for a day; "
            "past N the oldest go (default 1000); clients that did are never dropped",
        )
        # Sign-in and token rates (toolspecs.server.request_limits): RequestLimits' defaults.
        group.add_argument(
            "--authorize-per-address",
            type=whole_number,
            metavar="N",
            help="sign-ins one address (an IPv6 /64) may start per 10 minutes, else 429 "
            "(default 60); behind a proxy it must send X-Forwarded-For",
        )
        group.add_argument(
            "--authorize-total",
            type=whole_number,
            metavar="N",
            help="sign-ins all addresses together may start per 10 minutes (default 1000); "
            "twice as many are kept under way at most",
        )
        group.add_argument(
            "--token-per-client",
            type=whole_number,
            metavar="N",
            help="token refreshes one client may make per 10 minutes, else 429 (default 60)",
        )
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

    def user_claims(self, args: argparse.Namespace) -> Sequence[str]:
        """The token claims the delegation reads (none without ``--google-delegate``)."""
        return user_claims(args)

    def hosted(self, args: argparse.Namespace, serving: Serving) -> Hosted | None:
        """Each user's tools acting as them; ``None`` without either flag."""
        signed_in = google_sign_in(args, serving)
        delegated = google_delegation(args, serving)
        return delegated or signed_in


def google_scopes(specs: Mapping[str, ToolSpec]) -> list[str]:
    """The Google scopes the served tools need (least privilege), each once, in order."""
    from toolspecs.specs.google_base import GoogleToolSpec

    scopes: list[str] = []
    for spec in specs.values():
        if isinstance(spec, GoogleToolSpec):
            scopes.extend(spec.requested_scopes())
    return list(dict.fromkeys(scopes))


def acting_as(
    credentials: Callable[[], Any], hint: str
) -> Callable[[Mapping[str, ToolSpec]], None]:
    """What makes one user's new specs act as them (``credentials`` asked once, if needed)."""
    from toolspecs.specs.google_base import GoogleToolSpec

    def act(specs: Mapping[str, ToolSpec]) -> None:
        google = [spec for spec in specs.values() if isinstance(spec, GoogleToolSpec)]
        if google:
            creds = credentials()
            for spec in google:
                spec.act_as(creds, hint)

    return act


# -- --google-sign-in ----------------------------------------------------------------------


_LIMITS = {
    "register_per_address": "per_address",
    "register_per_hour": "total",
    "unused_clients": "unused",
}
_RATES = ("authorize_per_address", "authorize_total", "token_per_client")


def google_sign_in(args: argparse.Namespace, serving: Serving) -> Hosted | None:
    """Each user's tools and the provider factory for ``serve_http``; ``None`` without the flag."""
    from toolspecs.core.errors import ConfigurationError

    limits = {to: getattr(args, name) for name, to in _LIMITS.items() if getattr(args, name, None)}
    rates = {name: getattr(args, name) for name in _RATES if getattr(args, name, None)}
    if not getattr(args, "google_sign_in", False):
        for flag in ("google_client_id", "public_url", *_RATES):
            if getattr(args, flag, None):
                raise ConfigurationError(f"--{flag.replace('_', '-')} is for --google-sign-in")
        if limits:
            raise ConfigurationError("--register-* and --unused-clients are for --google-sign-in")
        return None
    if not args.http:
        raise ConfigurationError("--google-sign-in is for --http; stdio needs no sign-in")
    if getattr(args, "auth_issuer", None):
        raise ConfigurationError("give --google-sign-in or --auth-issuer, not both")
    from toolspecs.cli.hosting import Hosted
    from toolspecs.hosting.google.accounts import CALLBACK_PATH, SIGN_IN_AGAIN, GoogleSignIn
    from toolspecs.hosting.google.signin import GENERATION_CLAIM, GoogleSignInProvider
    from toolspecs.server.auth import is_loopback
    from toolspecs.server.registration import RegistrationLimits
    from toolspecs.server.request_limits import RequestLimits
    from toolspecs.server.signin_state import RedisSignInState, SignInState
    from toolspecs.server.token_vault import RedisTokenVault, TokenVault, fernet_from_env
    from toolspecs.server.user_tools import User, UserTools

    public = public_url(args.public_url) if args.public_url else None
    google = GoogleSignIn.from_env(google_scopes(serving.specs), args.google_client_id)
    fernet = fernet_from_env()
    store = serving.store
    vault = RedisTokenVault(fernet, store) if store else TokenVault(fernet)
    # Our clients, trips, codes and tokens: in Redis too, so any replica accepts them.
    state = RedisSignInState(store) if store else SignInState()
    made: list[GoogleSignInProvider] = []

    def provider(url: str) -> GoogleSignInProvider:
        base, path = url.rsplit("/", 1)
        if public is not None:  # behind a TLS proxy: the address people's browsers reach
            base, url = public, f"{public}/{path}"
        elif not is_loopback(urlsplit(url).hostname or ""):
            raise ConfigurationError(
                f"--google-sign-in serving other machines needs --public-url https://HOST: "
                f"the address browsers and Google reach (behind TLS), not {base}"
            )
        bounds, rated = RegistrationLimits(**limits), RequestLimits(**rates)
        made.append(
            GoogleSignInProvider(
                google, vault, base, url, state=state, limits=bounds, request_limits=rated
            )
        )
        # A user forgotten (signed out, or Google refused their refresh token) loses their
        # tools here at once; other replicas see their sign-in generation move on.
        made[-1].on_forget.append(lambda subject: user_tools.drop(User.named(subject, base)))
        return made[-1]

    def build(user: User) -> list[Any]:
        return serving.build(acting_as(lambda: made[-1].credentials(user.subject), SIGN_IN_AGAIN))

    def line(url: str, said: str) -> str:
        return (
            "toolspecs: users sign in with Google; register "
            f"{public or url.rsplit('/', 1)[0]}{CALLBACK_PATH} as the OAuth client's "
            "redirect URI"
        )

    user_tools = UserTools(
        build, serving.names, version=lambda user: user.claims.get(GENERATION_CLAIM)
    )
    return Hosted(user_tools, sign_in=provider, public_url=public, serving_line=line)


def public_url(url: str) -> str:
    """``--public-url``: an https origin (http only on 127.0.0.1), without a trailing slash."""
    from toolspecs.core.errors import ConfigurationError
    from toolspecs.server.oauth import checked_url

    checked = checked_url(url, "--public-url").rstrip("/")
    if urlsplit(checked).path:
        raise ConfigurationError(
            f"--public-url {url!r} has a path; give the origin alone, e.g. "
            "https://mcp.example.com (the server adds /mcp and /oauth/google/callback)"
        )
    return checked


# -- --google-delegate ---------------------------------------------------------------------


def user_claims(args: argparse.Namespace) -> tuple[str, ...]:
    """The token claims the delegation reads (none without ``--google-delegate``)."""
    if not getattr(args, "google_delegate", None):
        return ()
    return tuple(dict.fromkeys([args.google_user_claim or "email", "email_verified"]))


def google_delegation(args: argparse.Namespace, serving: Serving) -> Hosted | None:
    """Each user's tools, acting as them; ``None`` without ``--google-delegate``."""
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
    from toolspecs.cli.hosting import Hosted
    from toolspecs.hosting.google.delegation import DELEGATION_REFUSED, GoogleDelegation
    from toolspecs.server.user_tools import User, UserTools

    scopes = google_scopes(serving.specs)
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
        return serving.build(acting_as(lambda: creds, DELEGATION_REFUSED))

    def key(user: User) -> str:
        # The address acted as is part of whose tools these are: a token of the same
        # subject naming another address builds anew.
        return f"{user.key}\n{[user.claims.get(c) for c in user_claims(args)]!r}"

    domains = ", ".join(args.google_domain)

    def line(url: str, said: str) -> str:
        return f"{said}; Google acts as each user of {domains}"

    return Hosted(UserTools(build, serving.names, key=key), serving_line=line)
