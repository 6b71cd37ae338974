"""Where a Google API client sends its requests: googleapiclient's own ``client_options``.

Default: Google's hosts. ``api_endpoint`` may be a host's root (each API keeps its usual
path and batch endpoint) or the API's own base; batches and uploads go to the same host
(:func:`~toolspecs.loaders.google.compat_googleapiclient.build_shared`).

It must be ``https://``, or ``http://`` to this machine only: tokens and mail would cross
the network in clear. ``credentials_file``, ``scopes`` and ``api_key`` are refused: the
reader's own credentials say how it signs in.

The token endpoint is the credentials' own: google-auth ignores a user token file's
``token_uri`` (so a file cannot send the refresh token elsewhere). ``GoogleAuth(token_uri=)``,
set by the program, moves it for every credentials read (not ``creds=``), checked as an
endpoint is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
"""Hosts an ``http://`` endpoint may name: this machine."""
_SIGN_IN_FIELDS = ("credentials_file", "scopes", "api_key")


def client_options(value: Any) -> Any:
    """``value`` as a checked ``ClientOptions`` (``None`` stays ``None``)."""
    if value is None:
        return None
    # google-api-core comes with google-api-python-client (its build() imports it).
    from google.api_core.client_options import ClientOptions, from_dict

    if isinstance(value, Mapping):
        try:
            options = from_dict(dict(value))
        except ValueError as exc:
            raise ValueError(f"client_options: {exc} (e.g. {{'api_endpoint': ...}})") from None
    elif isinstance(value, ClientOptions):
        options = value
    else:
        raise ValueError(
            "client_options must be a dict such as {'api_endpoint': 'https://host/'} or a "
            f"google.api_core.client_options.ClientOptions, not {type(value).__name__}"
        )
    for name in _SIGN_IN_FIELDS:
        if getattr(options, name, None):
            raise ValueError(
                f"client_options {name} is not taken here: the spec's own keywords (creds, "
                "token_path, service_account_key_path, ...) say how to sign in"
            )
    if options.api_endpoint is not None:
        check_endpoint(str(options.api_endpoint))
    return options


def on_this_machine(options: Any) -> bool:
    """Whether checked ``client_options`` send requests to a loopback host (then no proxy)."""
    endpoint = getattr(options, "api_endpoint", None)
    if not endpoint:
        return False
    try:
        return urlsplit(str(endpoint)).hostname in LOOPBACK_HOSTS
    except ValueError:
        return False


def check_endpoint(endpoint: str, what: str = "client_options api_endpoint") -> None:
    """Refuse an endpoint that is not ``https://`` (or ``http://`` to loopback); ``what`` names it.

    Raises:
        ValueError: Naming the endpoint and what to write instead.
    """
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname
    except ValueError:
        host = None
        parts = urlsplit("")
    where = f"{what} {endpoint!r}"
    if not host or parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(
            f"{where} is not an address such as 'https://google-proxy.example/' (a scheme "
            "and a host, no user, query or fragment)"
        )
    if parts.scheme == "https":
        return
    if parts.scheme == "http" and host in LOOPBACK_HOSTS:
        return
    raise ValueError(
        f"{where} is refused: use https:// (http:// only to 127.0.0.1, ::1 or localhost, "
        "a server on this machine), since tokens and mail would cross the network in clear"
    )


def split_endpoint(endpoint: str, service_path: str) -> tuple[str, str]:
    """The API's root and base (root + ``service_path``) for ``api_endpoint``."""
    address = endpoint if endpoint.endswith("/") else endpoint + "/"
    if urlsplit(address).path == "/":
        return address, address + service_path
    if service_path and address.endswith("/" + service_path):
        return address[: -len(service_path)], address
    return address, address
