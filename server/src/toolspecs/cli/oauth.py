"""``toolspecs serve --http --auth-issuer URL``: the ``--auth-*`` flags (standard library only)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolspecs.core.tool import GuardedTool
    from toolspecs.server.oauth import OAuthSettings

__all__ = ["add_auth_arguments", "oauth_settings"]


def add_auth_arguments(serve: Any) -> None:
    """The ``--auth-*`` flags of ``toolspecs serve``."""
    group = serve.add_argument_group(
        "many users (HTTP)",
        "Accept the access tokens of your organisation's OAuth 2.1 authorization server "
        "instead of one shared token. Each served spec NAME gives the scopes "
        "toolspecs:NAME.read (its read-only tools) and toolspecs:NAME.write (all its tools).",
    )
    group.add_argument(
        "--auth-issuer", metavar="URL", help="the authorization server's issuer URL (https)"
    )
    group.add_argument(
        "--auth-audience",
        metavar="URL",
        help="this server's resource URL, as clients name it (default: the URL it serves at)",
    )
    how = group.add_mutually_exclusive_group()
    how.add_argument(
        "--auth-jwks",
        metavar="URL",
        help="the issuer's JSON Web Key Set (default: the jwks_uri of its metadata)",
    )
    how.add_argument(
        "--auth-introspect",
        metavar="URL",
        help="ask this introspection endpoint about each token (RFC 7662) instead of "
        "reading it as a JWT; needs --auth-client-id and $TOOLSPECS_INTROSPECT_SECRET",
    )
    group.add_argument(
        "--auth-token-type",
        choices=["at+jwt", "any"],
        help="the header type a JWT access token must carry: at+jwt (default, RFC 9068: "
        "no ID token of the issuer passes for an access token) or any, for issuers that "
        "do not type their access tokens (they send JWT; the log says so once)",
    )
    group.add_argument(
        "--auth-client-id", metavar="ID", help="this server's client id at --auth-introspect"
    )
    group.add_argument(
        "--auth-introspect-cache",
        type=float,
        metavar="SECONDS",
        help="keep each accepted --auth-introspect answer this long, at most until the token "
        "expires (default 60; 0: ask about every request). A token revoked at the issuer is "
        "still accepted for up to this long",
    )
    group.add_argument(
        "--auth-scope",
        action="append",
        default=[],
        metavar="SCOPE",
        help="a scope every request needs, else 403 (repeatable)",
    )


def oauth_settings(
    args: argparse.Namespace, tools_by_spec: Mapping[str, Sequence[GuardedTool]]
) -> OAuthSettings | None:
    """The settings the ``--auth-*`` flags ask for; ``None`` without ``--auth-issuer``."""
    from toolspecs.core.errors import ConfigurationError

    issuer = getattr(args, "auth_issuer", None)
    flags = ("auth_audience", "auth_jwks", "auth_introspect", "auth_client_id")
    others = [f for f in (*flags, "auth_token_type", "auth_scope") if getattr(args, f, None)]
    cache = getattr(args, "auth_introspect_cache", None)
    if cache is not None:
        others.append("auth_introspect_cache")
    if issuer is None:
        if others:
            flag = "--" + others[0].replace("_", "-")
            raise ConfigurationError(f"{flag} is for --auth-issuer URL; give the issuer too")
        return None
    if not args.http:
        raise ConfigurationError("--auth-issuer is for --http; stdio needs no token")
    if cache is not None and not args.auth_introspect:
        raise ConfigurationError(
            "--auth-introspect-cache is for --auth-introspect URL; JWTs are checked here"
        )
    token_type = getattr(args, "auth_token_type", None)
    if token_type is not None and args.auth_introspect:
        raise ConfigurationError(
            "--auth-token-type is for JWTs read here; --auth-introspect asks the issuer"
        )
    from toolspecs.server.answers import INTROSPECT_CACHE_SECONDS
    from toolspecs.server.oauth import OAuthSettings
    from toolspecs.server.scopes import supported

    return OAuthSettings(
        issuer=issuer,
        audience=args.auth_audience,
        jwks_url=args.auth_jwks,
        introspection_url=args.auth_introspect,
        client_id=args.auth_client_id,
        introspect_cache=INTROSPECT_CACHE_SECONDS if cache is None else cache,
        required_scopes=tuple(args.auth_scope),
        scopes_supported=tuple(supported(tools_by_spec)),
        # The claims a hosting reads (whom Google's delegation acts as).
        user_claims=tuple(
            dict.fromkeys(c for h in args.hostings.values() for c in h.user_claims(args))
        ),
        token_type=token_type or "at+jwt",
    )
