"""Which paper cache an arXiv spec keeps: the constructor's ``paper_cache``, read.

PDFs are public and a version never changes, so a cache of them, keyed by versioned id
and not by who asked, may be shared by every user of a server and its replicas.
"""

from __future__ import annotations

import os

from toolspecs.base.cache import Cache, CacheBackend

CACHE_ENV = "TOOLSPECS_ARXIV_CACHE"  # a directory for the default cache, or "off"
SHARED_SECONDS = 24 * 3600.0
"""How long a shared cache (Redis) keeps a paper; its ``paper_cache_mb`` bounds it too."""


def paper_cache(
    setting: Cache | CacheBackend | str | os.PathLike[str] | bool | None, max_bytes: int, real: bool
) -> Cache | None:
    """The cache the constructor's ``paper_cache`` names (see ``ArxivToolSpec``).

    ``real``: the spec talks to arXiv itself; only then is there a cache by default.
    """
    from toolspecs.loaders.arxiv import PaperCache, default_directory

    if isinstance(setting, CacheBackend):
        return shared(setting, max_bytes, real)
    if isinstance(setting, Cache):  # a PaperCache is one
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


def may_share(setting: object) -> bool:
    """Whether a spec's ``result_store``, when it makes caches (Redis), keeps its papers.

    Only when neither the constructor nor ``TOOLSPECS_ARXIV_CACHE`` chose a cache.
    """
    return setting is None and not os.environ.get(CACHE_ENV, "").strip()


def shared(backend: CacheBackend, max_bytes: int, real: bool) -> Cache:
    """The paper cache of a shared store; a fake's PDFs are kept apart from arXiv's."""
    from toolspecs.loaders.arxiv.cache import MAX_PDF_BYTES

    return backend.cache_for(
        "arxiv-pdf" if real else "arxiv-pdf-via-transport",
        ttl=SHARED_SECONDS,
        max_entry_bytes=MAX_PDF_BYTES,
        max_bytes=max_bytes,
    )
