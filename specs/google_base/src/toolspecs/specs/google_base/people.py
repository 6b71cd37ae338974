"""Email addresses as agents send them: a list, one string, commas, or 'Name <email>'.

A bad address gets guidance for the agent, so this lives on the spec side.
"""

from __future__ import annotations

import re
from email.utils import getaddresses

from toolspecs.core import FixArguments, fence

_MAX_COMMENTS = 64

_EMAIL = re.compile(
    r"^[^@\s<>(),;:\"]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+$"
)


def parse_addresses(values: list[str], argument: str = "attendees") -> list[tuple[str, str]]:
    """(name, email) pairs; every invalid address is named in one guidance."""
    nested = [v for v in values if v.count("(") > _MAX_COMMENTS]
    if nested:
        # getaddresses recurses into nested comments: "((((…" would exhaust the stack.
        raise FixArguments(
            f"{argument}: not email addresses: {fence.quote(nested[0], 60)} (too many '(').",
            "Send addresses such as ['ada@example.com'].",
        )
    pairs = getaddresses(values)
    bad = [raw for raw, (_, email) in zip(values, pairs, strict=False) if not _EMAIL.match(email)]
    if len(pairs) != len(values):
        bad = [v for v in values if not _EMAIL.match(getaddresses([v])[0][1] if v else "")]
    if bad:
        listed = ", ".join(repr(b) for b in bad)
        raise FixArguments(
            f"{argument}: not email addresses: {listed}.",
            "Send addresses such as ['ada@example.com'] (ask the user if you do not know them).",
        )
    return [(name, email) for name, email in pairs]
