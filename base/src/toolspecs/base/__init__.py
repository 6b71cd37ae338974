"""The bottom layer of toolspecs: what toolspecs-core and the loaders both use.

The standard library only, and no other toolspecs package: core and the loaders never
import each other, so what both need lives here, once.

- :mod:`toolspecs.base.times`: how times are shown (weekday, date, time, offset, zone).
- :mod:`toolspecs.base.files`: opening files without following links or blocking.
- :mod:`toolspecs.base.cache`: a cache of bytes by key (the protocol that core's Redis
  cache and the in-memory default both follow).
- :mod:`toolspecs.base.net`: the loaders' network plumbing (errors, Retry-After, a
  bounded GET over requests or httpx, base URLs); imported on its own, not from here.
"""

from __future__ import annotations

from toolspecs.base import cache, files, times

__all__ = ["cache", "files", "times"]
