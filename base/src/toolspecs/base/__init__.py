"""The bottom layer of toolspecs: what toolspecs-core and the loaders both use.

The standard library only, and no other toolspecs package: core and the loaders never
import each other, so what both need lives here, once.

- :mod:`toolspecs.base.times`: how times are shown (weekday, date, time, offset, zone).
- :mod:`toolspecs.base.files`: opening files without following links or blocking.
"""

from __future__ import annotations

from toolspecs.base import files, times

__all__ = ["files", "times"]
