"""``WolframAlphaReader``: the LLM API's answers (text for language models) as Documents."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from toolspecs.loaders.wolfram_alpha.appid import split_app_id
from toolspecs.loaders.wolfram_alpha.client import WolframAlphaClient

if TYPE_CHECKING:
    import httpx

SOURCE = "Wolfram|Alpha LLM API"


def website_url(query: str) -> str:
    """The Wolfram|Alpha web page of ``query``."""
    return f"https://www.wolframalpha.com/input?i={quote_plus(query)}"


class WolframAlphaReader(BaseReader):
    """Wolfram|Alpha's LLM API as a reader: one Document per query.

    ``api_params`` are LLM API parameters for every query, e.g. ``{"units": "metric"}``
    (an ``appid`` among them is the AppID); the others are ``WolframAlphaClient``'s.
    """

    def __init__(
        self,
        app_id: str | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        api_params: Mapping[str, Any] | None = None,
        deadline: float = 30.0,
        base_url: str | None = None,
    ) -> None:
        given, self.api_params = split_app_id(api_params)
        self.client = WolframAlphaClient(
            app_id or given,
            timeout=timeout,
            transport=transport,
            deadline=deadline,
            base_url=base_url,
        )

    def load_data(self, query: str, assumption: str | None = None, **params: Any) -> list[Document]:
        """Ask the LLM API; its answer as one Document.

        Args:
            query: The input, e.g. ``"boiling point of water in K"``.
            assumption: A value from a previous answer's assumptions, e.g. ``"*C.pi-_*Movie-"``.
            **params: More LLM API parameters for this query, e.g. ``maxchars=2000``.

        Returns:
            One Document; metadata ``query``, ``assumption``, ``source`` and ``url`` (the
            Wolfram|Alpha web page of the query).
        """
        answer = self.client.llm_answer(
            query, assumption=assumption, params={**self.api_params, **params}
        )
        metadata: dict[str, Any] = {"query": query, "source": SOURCE, "url": website_url(query)}
        if assumption:
            metadata["assumption"] = assumption
        return [
            Document(text=answer, metadata=metadata, excluded_embed_metadata_keys=["source", "url"])
        ]
