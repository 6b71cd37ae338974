"""Which paper cache an arXiv spec keeps: the constructor's ``paper_cache``, read."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolspecs.loaders.arxiv import PaperCache

CACHE_ENV = "TOOLSPECS_ARXIV_CACHE"  # a directory for the default cache, or "off"


def paper_cache(
    setting: PaperCache | str | os.PathLike[str] | bool | None, max_bytes: int, real: bool
) -> PaperCache | None:
    """The cache the constructor's ``paper_cache`` names (see ``ArxivToolSpec``).

    Args:
        setting: The constructor's ``paper_cache``.
        max_bytes: The most bytes a new cache holds.
        real: Whether the spec talks to arXiv itself (no fake transport): only then is
            there a cache by default.
    """
    from toolspecs.loaders.arxiv import PaperCache, default_directory

    if isinstance(setting, PaperCache):
        return setting
    if setting is False or (setting is None and not real):
        return None
    if setting is None:  # the environment may move or turn off the default
        chosen = os.environ.get(CACHE_ENV, "").strip()
        if chosen.lower() in ("off", "0", "false", "no", "none"):
            return None
        if chosen:
            return PaperCache(chosen, max_bytes)
    if setting is None or setting is True:
        return PaperCache(default_directory(), max_bytes)
    return PaperCache(setting, max_bytes)
