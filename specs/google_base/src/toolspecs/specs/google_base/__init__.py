"""toolspecs.specs.google_base: what the toolspecs Google specs share.

- :class:`GoogleToolSpec`: the spec base (the API client, ``authorize()``, Google's
  failure table, where ids come from).
- :data:`GOOGLE_FAILURES` / :data:`GOOGLE_ROWS`: Google's failures mapped to guidance.
- :func:`parse_addresses`: email addresses as agents send them, checked.
- :func:`needs_scopes`: the Google scopes a tool needs, declared beside its ``@tool``.

It registers no spec of its own; ``toolspecs-google-calendar`` and ``toolspecs-gmail``
build on it.
"""

from toolspecs.specs.google_base.failures import GOOGLE_FAILURES, GOOGLE_ROWS, google_reason
from toolspecs.specs.google_base.people import parse_addresses
from toolspecs.specs.google_base.scopes import needs_scopes
from toolspecs.specs.google_base.spec import GoogleToolSpec

__all__ = [
    "GOOGLE_FAILURES",
    "GOOGLE_ROWS",
    "GoogleToolSpec",
    "google_reason",
    "needs_scopes",
    "parse_addresses",
]
