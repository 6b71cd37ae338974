"""A service's base URL as a user configures it: a mirror, a proxy, a local fake.

:func:`base_url` checks it once, when the client is made: https to any host, or plain
http to the loopback interface only, with no credentials, query or fragment. A client
fetches only URLs :func:`under` the base, redirects included, so that a link in a reply
cannot send it to another host. The base comes from the program that builds the
client, never from an agent's arguments.
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
    """Whether ``host`` is the loopback interface (``127.x.y.z``, ``::1``, ``localhost``).

    Other names do not count: a name could resolve anywhere.
    """
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def base_url(url: str, *, service: str) -> str:
    """``url`` checked as the base of ``service``'s addresses, without its last ``/``."""
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
    """Whether ``url`` lies under ``base``: same origin, no user, path below it.

    ``..`` is resolved written plainly or percent-encoded (``%2e%2e``, which a server
    may decode).
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
