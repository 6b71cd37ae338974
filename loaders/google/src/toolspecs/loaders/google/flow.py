"""The OAuth sign-in of a person: a browser (``local``), a console, or none (servers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from toolspecs.loaders.google.errors import GoogleAuthError
from toolspecs.loaders.google.token_files import file_name, one_line


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
