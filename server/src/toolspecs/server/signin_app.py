"""The HTTP app of a server that is its clients' authorization server (a hosting's sign-in).

mcp serves the OAuth endpoints from the provider; ours adds the provider's routes, the
rate limits before mcp's handlers, and a 503 when the sign-in state is out of reach.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import mcp.server.auth.settings as settings_module
from starlette import responses

from toolspecs.server.auth import as_url
from toolspecs.server.request_limits import RequestLimit, answered_instead
from toolspecs.server.signin_state import unreachable

if TYPE_CHECKING:
    from toolspecs.server.request_limits import Admission
    from toolspecs.server.signin_consent import SignInConsent

__all__ = ["SignInProvider", "sign_in_app"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


class SignInProvider(Protocol):
    """What the server serves of a sign-in, beside mcp's provider interface.

    The provider is also mcp's ``OAuthAuthorizationServerProvider`` and ``TokenVerifier``, as
    :class:`toolspecs.hosting.google.signin.GoogleSignInProvider` is; ``issuer`` is this
    server's base URL, ``resource`` its ``.../mcp`` URL (its tokens are bound to it).
    """

    issuer: str
    resource: str
    admission: Admission
    consent: SignInConsent

    def routes(self) -> list[Any]:
        """Its Starlette routes besides mcp's: the consent page, the provider's callback."""
        ...

    async def kept(self, method: Callable[..., _T], *args: Any) -> _T:
        """Call a method of its state, off the event loop when that blocks (Redis)."""
        ...


def sign_in_app(server: Any, provider: SignInProvider, **options: Any) -> Any:
    """The streamable HTTP app of ``server``, ``provider`` its authorization server."""
    settings = settings_module.AuthSettings(
        issuer_url=as_url(provider.issuer),
        resource_server_url=as_url(provider.resource),
        client_registration_options=settings_module.ClientRegistrationOptions(enabled=True),
        revocation_options=settings_module.RevocationOptions(enabled=True),
        validate_token_resource=True,
    )
    app = server.streamable_http_app(
        auth=settings,
        token_verifier=provider,
        auth_server_provider=provider,
        custom_starlette_routes=provider.routes(),
        **options,
    )
    # A request past its rate limit: a 429 before mcp's handler (toolspecs.server.request_limits).
    app.add_middleware(RequestLimit, provider=provider)
    # Outermost of the app's middleware (inside Starlette's error middleware, which would
    # answer a 500 and log a traceback): the bearer check and every auth endpoint.
    app.add_middleware(_StateUnavailable)
    return app


class _StateUnavailable:
    """ASGI middleware: the sign-in state out of reach (Redis down) is a 503, not a 500."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        def instead(exc: Exception) -> Any:
            if scope.get("type") != "http" or not unreachable(exc):
                return None
            logger.warning("the sign-in state cannot be reached: answered 503")
            return responses.JSONResponse(
                {
                    "error": "temporarily_unavailable",
                    "error_description": "sign-in is unavailable for a moment: try again",
                },
                status_code=503,
                headers={"Retry-After": "30", "Cache-Control": "no-store"},
            )

        await answered_instead(self.app, scope, receive, send, instead)
