"""A service's base URL as a user configures it: a mirror, a proxy, a local fake.

A loader that reaches a service at fixed addresses (arXiv's ``export.arxiv.org``,
Wolfram|Alpha's two hosts) may be pointed elsewhere by its user: a corporate mirror,
a caching proxy, or a fake on the loopback interface for tests. :func:`base_url` checks
such a value once, when the client is made: https to any host, or plain http to the
loopback interface only (``127.0.0.1``, ``::1``, ``localhost``), without a user, a
password, a query or a fragment. Anything else raises :class:`BaseUrlRefused` (a
``ValueError``) naming what was wrong, before any request is sent.

:func:`under` then tells whether a URL lies under the base (same scheme, host and port,
and a path below the base's path): a client fetches only such URLs, redirects
included, so that a link in a reply cannot send it to another host.

The base comes from the program that builds the client, never from an agent's
arguments: nothing here reads one.
"""

from __future__ import annotations

import ipaddress
import posixpath
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["BaseUrlRefused", "base_url", "is_loopback", "under"]

_LOOPBACK_NAMES = frozenset({"localhost", "localhost."})


class BaseUrlRefused(ValueError):
    """A base URL the client will not use: the message says why and what would do."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine's loopback interface: ``127.0.0.1``, ``::1``, ``localhost``.

    Any ``127.x.y.z`` counts (the whole block is loopback); other names do not (a name
    could resolve anywhere).
    """
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(url: str, *, service: str) -> str:
    """``url`` checked as the base of ``service``'s addresses, without its last ``/``.

    Args:
        url: e.g. ``"https://arxiv-mirror.example.com/arxiv"`` or
            ``"http://127.0.0.1:8080"``.
        service: The service's name, for the message (``"arXiv"``).

    Raises:
        BaseUrlRefused: Not https (plain http only to the loopback interface), no host,
            a user or password, a query or a fragment, or a port that is not a number.
    """
    shown = repr(url) if len(str(url)) <= 120 else repr(str(url)[:119] + "…")
    if not isinstance(url, str) or not url.strip():
        raise BaseUrlRefused(f"the base URL of {service} is empty: give one such as 'https://host'")
    text = url.strip()
    if any(ord(c) < 33 or ord(c) == 127 for c in text):
        raise BaseUrlRefused(
            f"the base URL of {service} {shown} holds spaces or control characters"
        )
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise BaseUrlRefused(f"the base URL of {service} {shown} cannot be read ({exc})") from None
    host = parts.hostname or ""
    scheme = parts.scheme.lower()
    why = ""
    if scheme not in ("https", "http") or not host:
        why = "it is not an http(s) URL with a host, such as 'https://host/path'"
    elif scheme == "http" and not is_loopback(host):
        why = (
            "plain http is used only on this machine (127.0.0.1, ::1, localhost): "
            "use https for any other host"
        )
    elif parts.username is not None or parts.password is not None:
        why = "it holds a user or a password: credentials are not taken in a URL"
    elif parts.query or parts.fragment or text.endswith(("?", "#")):
        why = "it has a query or a fragment: give the scheme, host, port and path only"
    elif ".." in parts.path.split("/"):
        why = "its path holds '..'"
    if why:
        raise BaseUrlRefused(f"the base URL of {service} {shown} is refused: {why}")
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))


def under(base: str, url: str) -> bool:
    """Whether ``url`` lies under ``base`` (a value :func:`base_url` returned).

    Same scheme, host and port (a default port written out or not), no user or
    password, and a path at or below the base's path once ``.`` and ``..`` are resolved,
    written plainly or percent-encoded (``%2e%2e``, which a server may decode).
    """
    try:
        want, got = urlsplit(base), urlsplit(url)
        want_port, got_port = want.port, got.port
    except ValueError:
        return False
    default = {"https": 443, "http": 80}
    if got.scheme.lower() != want.scheme or got.username is not None or got.password is not None:
        return False
    if (got.hostname or "").rstrip(".") != (want.hostname or "").rstrip("."):
        return False
    if (got_port or default.get(got.scheme.lower())) != (want_port or default.get(want.scheme)):
        return False
    path = posixpath.normpath(unquote(got.path) or "/")
    prefix = want.path.rstrip("/")
    return not prefix or path == prefix or path.startswith(prefix + "/")
