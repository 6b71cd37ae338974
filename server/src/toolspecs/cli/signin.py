"""``toolspecs serve --http --google-sign-in``: each user signs in with Google.

The server is its MCP clients' authorization server (:mod:`toolspecs.server.google_signin`):
each person who connects is sent to Google's consent, and their calls run on spec
instances of their own (:class:`toolspecs.server.user_tools.UserTools`), built as
``serve`` builds the served specs, the Google ones with that person's Google credentials.

The parser imports this module, so it imports nothing of ``toolspecs.core`` at the top.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from toolspecs.cli.assemble import ServeSettings
    from toolspecs.core.spec import ToolSpec
    from toolspecs.server.user_tools import UserTools

__all__ = ["add_sign_in_arguments", "google_sign_in", "public_url"]


def add_sign_in_arguments(serve: Any) -> None:
    """The ``--google-sign-in`` flags of ``toolspecs serve``."""
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
        type=_count,
        metavar="N",
        help="client registrations one address (an IPv6 /64) may make per hour, else 429 "
        "(default 20); behind a proxy it must send X-Forwarded-For",
    )
    group.add_argument(
        "--register-per-hour",
        type=_count,
        metavar="N",
        help="client registrations all addresses together may make per hour (default 300)",
    )
    group.add_argument(
        "--unused-clients",
        type=_count,
        metavar="N",
        help="registered clients kept that have not signed anyone in yet, each for a day; "
        "past N the oldest go (default 1000); clients that did are never dropped",
    )
    # Sign-in and token rates (toolspecs.server.request_limits); the defaults are RequestLimits'.
    group.add_argument(
        "--authorize-per-address",
        type=_count,
        metavar="N",
        help="sign-ins one address (an IPv6 /64) may start per 10 minutes, else 429 "
        "(default 60); behind a proxy it must send X-Forwarded-For",
    )
    group.add_argument(
        "--authorize-total",
        type=_count,
        metavar="N",
        help="sign-ins all addresses together may start per 10 minutes (default 1000); "
        "twice as many are kept under way at most",
    )
    group.add_argument(
        "--token-per-client",
        type=_count,
        metavar="N",
        help="token refreshes one client may make per 10 minutes, else 429 (default 60)",
    )


_LIMITS = {
    "register_per_address": "per_address",
    "register_per_hour": "total",
    "unused_clients": "unused",
}
_RATES = {
    "authorize_per_address": "authorize_per_address",
    "authorize_total": "authorize_total",
    "token_per_client": "token_per_client",
}


def _count(text: str) -> int:
    """A whole number from 1 to 1,000,000 (argparse says the error in one line)."""
    value = int(text) if text.isdigit() else 0
    if not 1 <= value <= 1_000_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 1000000")
    return value


def google_sign_in(
    args: argparse.Namespace,
    settings: ServeSettings,
    specs: Mapping[str, ToolSpec],
    names: Sequence[str],
) -> tuple[UserTools, Callable[[str], Any]] | None:
    """Each user's tools and the provider factory for ``serve_http``; ``None`` without the flag.

    Raises:
        ConfigurationError: Without ``--http``, with ``--auth-issuer``, without the Google
            client or ``$TOOLSPECS_TOKEN_KEY`` (each in one line).
    """
    from toolspecs.core.errors import ConfigurationError

    limits = {to: getattr(args, name) for name, to in _LIMITS.items() if getattr(args, name, None)}
    rates = {to: getattr(args, name) for name, to in _RATES.items() if getattr(args, name, None)}
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
    from toolspecs.cli.user_specs import acting_as, google_scopes
    from toolspecs.server.auth import is_loopback
    from toolspecs.server.google_accounts import SIGN_IN_AGAIN, GoogleSignIn
    from toolspecs.server.google_signin import GENERATION_CLAIM, GoogleSignInProvider
    from toolspecs.server.registration import RegistrationLimits
    from toolspecs.server.request_limits import RequestLimits
    from toolspecs.server.signin_state import RedisSignInState, SignInState
    from toolspecs.server.token_vault import RedisTokenVault, TokenVault, fernet_from_env
    from toolspecs.server.user_tools import User, UserTools

    public = public_url(args.public_url) if args.public_url else None
    google = GoogleSignIn.from_env(google_scopes(specs), args.google_client_id)
    fernet = fernet_from_env()
    vault = RedisTokenVault(fernet, settings.store) if settings.store else TokenVault(fernet)
    # Our clients, trips, codes and tokens: in Redis too, so any replica accepts them.
    state = RedisSignInState(settings.store) if settings.store else SignInState()
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
        return acting_as(settings, lambda: made[-1].credentials(user.subject), SIGN_IN_AGAIN)

    user_tools = UserTools(build, names, version=lambda user: user.claims.get(GENERATION_CLAIM))
    return user_tools, provider


def public_url(url: str) -> str:
    """``--public-url``: an https origin (http only on 127.0.0.1), without a trailing slash.

    Raises:
        ConfigurationError: For another scheme, a remote http, a path, a query or a fragment.
    """
    from toolspecs.core.errors import ConfigurationError
    from toolspecs.server.oauth import checked_url

    checked = checked_url(url, "--public-url").rstrip("/")
    if urlsplit(checked).path:
        raise ConfigurationError(
            f"--public-url {url!r} has a path; give the origin alone, e.g. "
            "https://mcp.example.com (the server adds /mcp and /oauth/google/callback)"
        )
    return checked
