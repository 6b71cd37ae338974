"""Where a Google API client sends its requests: googleapiclient's own ``client_options``.

Off by default: Google's hosts, as the discovery documents name them. A reader (and the
specs above it) takes ``client_options``, a dict or a
``google.api_core.client_options.ClientOptions``, and hands it to googleapiclient's
``build``; its ``api_endpoint`` names where the API is, for a private endpoint, a proxy
or a fake Google on this machine (``toolspecs.loaders.google.testing.FakeGoogleServer``).

``api_endpoint`` may be the host's root (``"https://google-proxy.example/"``), where each
API keeps its usual path (``/calendar/v3/``, ``/gmail/v1/``) and its batch endpoint
(``/batch/calendar/v3``, ``/batch``); or, as googleapiclient reads it, the API's own base
with that path (``"https://google-proxy.example/calendar/v3/"``). Batches and uploads go
to the same host (googleapiclient itself would still send those to Google's:
:func:`~toolspecs.loaders.google.compat_googleapiclient.build_shared`).

It must be ``https://``; plain ``http://`` is refused unless the host is this machine
(``127.0.0.1``, ``::1``, ``localhost``): tokens and mail would cross the network in clear.
``credentials_file``, ``scopes`` and ``api_key`` are refused too: the reader's own
credentials (``creds=``, a token file, a service account) and its scopes say how it
signs in.

The token endpoint is not an option here: it is the credentials' own. A service account
key's ``token_uri`` is used as it is; google-auth ignores the ``token_uri`` of a user's
token file or ``authorized_user_info`` (always Google's, so that a file cannot send the
refresh token elsewhere). ``GoogleAuth(token_uri=...)`` (the specs' ``token_uri=``), set
by the program, not read from a file, moves it for every credentials the reader reads
(not for ``creds=``, which are used as given); it is checked as an endpoint is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "LOOPBACK_HOSTS",
    "check_endpoint",
    "client_options",
    "on_this_machine",
    "split_endpoint",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "::1", "localhost"})
"""Hosts an ``http://`` endpoint may name: this machine."""
_SIGN_IN_FIELDS = ("credentials_file", "scopes", "api_key")


def client_options(value: Any) -> Any:
    """``value`` as a checked ``ClientOptions`` (``None`` stays ``None``).

    Raises:
        ValueError: When it is neither a dict nor a ``ClientOptions``, names an option
            ``ClientOptions`` does not have, one that says how to sign in, or an
            ``api_endpoint`` that is not ``https://`` (nor ``http://`` to this machine).
    """
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
    """Whether checked ``client_options`` send requests to this machine (a loopback host).

    Such a client is sent without the environment's proxy
    (:mod:`~toolspecs.loaders.google.connections`).
    """
    endpoint = getattr(options, "api_endpoint", None)
    if not endpoint:
        return False
    try:
        return urlsplit(str(endpoint)).hostname in LOOPBACK_HOSTS
    except ValueError:
        return False


def check_endpoint(endpoint: str, what: str = "client_options api_endpoint") -> None:
    """Refuse an ``api_endpoint`` that is not ``https://`` (or ``http://`` to loopback).

    Args:
        endpoint: The address.
        what: The setting it is, for the message.

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
    """The API's root and its base (root + ``service_path``) for ``api_endpoint``.

    A root (``https://host/``) gets the API's path; a base that ends with it is split
    there; any other address is taken as both (a proxy with paths of its own).
    """
    address = endpoint if endpoint.endswith("/") else endpoint + "/"
    if urlsplit(address).path == "/":
        return address, address + service_path
    if service_path and address.endswith("/" + service_path):
        return address[: -len(service_path)], address
    return address, address
