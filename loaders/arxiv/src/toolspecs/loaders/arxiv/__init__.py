"""toolspecs.loaders.arxiv: arXiv as LlamaIndex Documents, for agents and for RAG."""

from toolspecs.loaders.arxiv.client import ArxivClient, shared_client
from toolspecs.loaders.arxiv.errors import (
    ArxivLoaderError,
    ArxivQueryError,
    ArxivUnavailable,
    ArxivUnreachable,
    PaperNotFound,
    PaperUnreadable,
)
from toolspecs.loaders.arxiv.ids import parse_id, parse_ids
from toolspecs.loaders.arxiv.reader import ArxivReader, SortBy, describe, to_document

__all__ = [
    "ArxivClient",
    "ArxivLoaderError",
    "ArxivQueryError",
    "ArxivReader",
    "ArxivUnavailable",
    "ArxivUnreachable",
    "PaperNotFound",
    "PaperUnreadable",
    "SortBy",
    "describe",
    "parse_id",
    "parse_ids",
    "shared_client",
    "to_document",
]
