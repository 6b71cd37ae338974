"""The bottom layer of toolspecs: what toolspecs-core and the loaders both use.

The standard library only, and no other toolspecs package: core and the loaders never
import each other, so what both need lives here, once (``toolspecs.base.net`` is
imported on its own).
"""

from __future__ import annotations

from toolspecs.base import cache, files, times

__all__ = ["cache", "files", "times"]
