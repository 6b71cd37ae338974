"""toolspecs.specs.google_base: what the toolspecs Google specs share (no spec of its own)."""

from toolspecs.specs.google_base.spec import (
    GOOGLE_FAILURES,
    GOOGLE_ROWS,
    GoogleToolSpec,
    google_reason,
    needs_scopes,
    parse_addresses,
)

__all__ = [
    "GOOGLE_FAILURES",
    "GOOGLE_ROWS",
    "GoogleToolSpec",
    "google_reason",
    "needs_scopes",
    "parse_addresses",
]
