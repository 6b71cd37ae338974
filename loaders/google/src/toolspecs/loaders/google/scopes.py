"""Google's OAuth scopes for Calendar and Gmail, and which granted scope covers which.

:data:`COVERS` is Google's hierarchy as its API reference lists the scopes each method
accepts: LlamaHub's ``token.json`` (``calendar``; ``gmail.compose`` + ``gmail.readonly``)
covers the read-only scopes the specs ask for when they only read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_AUTH = "https://www.googleapis.com/auth/"

CALENDAR = f"{_AUTH}calendar"
CALENDAR_READONLY = f"{_AUTH}calendar.readonly"
CALENDAR_EVENTS = f"{_AUTH}calendar.events"
CALENDAR_EVENTS_READONLY = f"{_AUTH}calendar.events.readonly"
GMAIL_FULL = "https://mail.google.com/"
GMAIL_MODIFY = f"{_AUTH}gmail.modify"
GMAIL_READONLY = f"{_AUTH}gmail.readonly"
GMAIL_COMPOSE = f"{_AUTH}gmail.compose"
GMAIL_SEND = f"{_AUTH}gmail.send"
GMAIL_LABELS = f"{_AUTH}gmail.labels"
GMAIL_METADATA = f"{_AUTH}gmail.metadata"

COVERS: dict[str, frozenset[str]] = {
    CALENDAR: frozenset({CALENDAR_READONLY, CALENDAR_EVENTS, CALENDAR_EVENTS_READONLY}),
    CALENDAR_EVENTS: frozenset({CALENDAR_EVENTS_READONLY}),
    CALENDAR_READONLY: frozenset({CALENDAR_EVENTS_READONLY}),
    GMAIL_FULL: frozenset(
        {GMAIL_MODIFY, GMAIL_READONLY, GMAIL_COMPOSE, GMAIL_SEND, GMAIL_LABELS, GMAIL_METADATA}
    ),
    GMAIL_MODIFY: frozenset(
        {GMAIL_READONLY, GMAIL_COMPOSE, GMAIL_SEND, GMAIL_LABELS, GMAIL_METADATA}
    ),
    GMAIL_COMPOSE: frozenset({GMAIL_SEND}),
    GMAIL_READONLY: frozenset({GMAIL_METADATA}),
}
"""A granted scope -> the narrower scopes it also allows (besides itself)."""


def covered(granted: Iterable[str]) -> frozenset[str]:
    """Every scope that ``granted`` allows: the scopes themselves and those they cover."""
    scopes = set(granted)
    for scope in list(scopes):
        scopes |= COVERS.get(scope, frozenset())
    return frozenset(scopes)


def missing(granted: Iterable[str], needed: Iterable[str]) -> list[str]:
    """The scopes of ``needed`` that ``granted`` does not allow, in ``needed``'s order."""
    allowed = covered(granted)
    return [scope for scope in dict.fromkeys(needed) if scope not in allowed]


def covering(granted: Iterable[str], needed: Iterable[str]) -> list[str]:
    """The scopes of ``granted`` that allow some of ``needed`` (themselves or narrower)."""
    wanted = set(needed)
    return [scope for scope in granted if ({scope} | COVERS.get(scope, frozenset())) & wanted]


def short(scope: str) -> str:
    """A scope as people name it: ``gmail.compose``, ``calendar.readonly``."""
    if scope == GMAIL_FULL:
        return "mail.google.com"
    return scope.removeprefix(_AUTH)


def scope_label(scopes: Sequence[str]) -> str:
    """A short name for a scope set: ``calendar``, ``gmail``, ``calendar+gmail``."""
    names = []
    for scope in scopes:
        name = scope.rstrip("/").rsplit("/", 1)[-1].split(".")[0]
        if name not in names:
            names.append(name)
    return "+".join(sorted(names)) or "google"
