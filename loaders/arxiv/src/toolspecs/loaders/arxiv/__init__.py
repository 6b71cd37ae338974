"""toolspecs.loaders.arxiv: arXiv as LlamaIndex Documents, for agents and for RAG.

The client and the reader (with the ``arxiv`` package and lxml, about 20 ms of CPU) are
imported on first use of one of their names (PEP 562): importing the spec costs only what
it needs then, and the errors, ids and categories stay plain imports.
"""

import importlib
import typing

from toolspecs.loaders.arxiv.errors import (
    ArxivLoaderError,
    ArxivQueryError,
    ArxivUnavailable,
    ArxivUnreachable,
    PaperNotFound,
    PaperUnreadable,
    UnsafeCacheFolder,
)
from toolspecs.loaders.arxiv.query import (
    CATEGORIES,
    close_categories,
    fielded_query,
    find_category,
    parse_id,
    parse_ids,
)

if typing.TYPE_CHECKING:
    from toolspecs.loaders.arxiv.cache import PaperCache, default_directory
    from toolspecs.loaders.arxiv.client import ArxivClient, shared_client
    from toolspecs.loaders.arxiv.reader import (
        ArxivReader,
        SearchResults,
        SortBy,
        describe,
        to_document,
    )

_LAZY = {
    **dict.fromkeys(["PaperCache", "default_directory"], "cache"),
    **dict.fromkeys(["ArxivClient", "shared_client"], "client"),
    **dict.fromkeys(
        ["ArxivReader", "SearchResults", "SortBy", "describe", "to_document"], "reader"
    ),
}

__all__ = [
    "CATEGORIES",
    "ArxivClient",
    "ArxivLoaderError",
    "ArxivQueryError",
    "ArxivReader",
    "ArxivUnavailable",
    "ArxivUnreachable",
    "PaperCache",
    "PaperNotFound",
    "PaperUnreadable",
    "SearchResults",
    "SortBy",
    "UnsafeCacheFolder",
    "close_categories",
    "default_directory",
    "describe",
    "fielded_query",
    "find_category",
    "parse_id",
    "parse_ids",
    "shared_client",
    "to_document",
]


def __getattr__(name: str) -> typing.Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
