"""The arXiv tool spec: search, id lookup and full text, with guidance instead of tracebacks."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from llama_index.core.schema import Document
from requests.adapters import BaseAdapter

from toolspecs.core import (
    AskUser,
    Failure,
    FailureTable,
    FixArguments,
    Range,
    RetryLater,
    Synonyms,
    ToolSpec,
    tool,
)
from toolspecs.core.bounds import shown
from toolspecs.loaders.arxiv import (
    ArxivClient,
    ArxivQueryError,
    ArxivReader,
    ArxivUnavailable,
    PaperNotFound,
    PaperUnreadable,
    parse_id,
    parse_ids,
)

MAX_RESULTS_LIMIT = 50

SortBy = Annotated[
    Literal["relevance", "recent", "updated"],
    Synonyms(
        {
            "date": "recent",
            "newest": "recent",
            "latest": "recent",
            "new": "recent",
            "submitted": "recent",
            "submitted_date": "recent",
            "submitteddate": "recent",
            "published": "recent",
            "last_updated": "updated",
            "lastupdateddate": "updated",
            "last_updated_date": "updated",
            "relevant": "relevance",
            "best": "relevance",
        }
    ),
]


class ArxivToolSpec(ToolSpec):
    """arXiv tools: a drop-in for LlamaHub's ``ArxivToolSpec``, and more.

    Args:
        max_results: Papers per search unless the agent asks for another number
            (1 to 50; ``None`` means 3).
        transport: A ``requests`` transport adapter for this spec's own client, e.g.
            ``FakeArxiv().transport()`` (``toolspecs.loaders.arxiv.testing``) offline.
        client: An ``ArxivClient`` to share with other specs and readers (one rate
            limit, your retries and timeout). Default: the process-wide shared client.

    Raises:
        ValueError: When given both ``transport`` and ``client``.
    """

    spec_functions = ["arxiv_query", "arxiv_paper_text"]  # noqa: RUF012  (as in LlamaHub)
    service_name: ClassVar[str] = "arXiv"
    failures: ClassVar[FailureTable] = FailureTable(
        Failure(
            ArxivUnavailable,
            RetryLater,
            "arXiv did not answer usefully ({reason}), even after retrying.",
        ),
        Failure(
            ArxivQueryError,
            FixArguments,
            "arXiv rejected the request: {reason}.",
            "Use plain keywords, or a valid id such as '1706.03762'.",
        ),
        Failure(
            PaperNotFound,
            FixArguments,
            "No arXiv paper has the id {exc.paper_id!r}.",
            "Check the id, or search for the paper with arxiv_query to get it.",
        ),
        Failure(
            PaperUnreadable,
            AskUser,
            "The full text of {exc.paper_id} cannot be read: {reason}.",
            "Use the abstract from arxiv_query instead, or give the user the link "
            "https://arxiv.org/abs/{exc.paper_id}.",
        ),
    )

    def __init__(
        self,
        max_results: int | None = 3,
        *,
        transport: BaseAdapter | None = None,
        client: ArxivClient | None = None,
    ) -> None:
        self.max_results = min(max(int(max_results or 3), 1), MAX_RESULTS_LIMIT)
        self.reader = ArxivReader(client, transport=transport)

    @tool(
        aliases={
            "q": "query",
            "search": "query",
            "search_query": "query",
            "sort": "sort_by",
            "order_by": "sort_by",
            "limit": "max_results",
            "n": "max_results",
            "num_results": "max_results",
            "count": "max_results",
        },
        large_output=True,
        read_only=True,
        open_world=True,
        empty=(
            "No arXiv papers match {query!r}. Broaden the query: use fewer or more general "
            "keywords, check the spelling, or drop field prefixes such as 'ti:'."
        ),
    )
    def arxiv_query(
        self,
        query: str,
        sort_by: SortBy = "relevance",
        max_results: Annotated[int, Range(1, MAX_RESULTS_LIMIT)] | None = None,
    ) -> list[Document]:
        """Search arXiv papers, or look them up by id.

        Returns per paper: title, authors, date, id, URL, abstract.

        Args:
            query: Keywords ('graph neural networks'), arXiv syntax ('au:hinton AND
                ti:capsule'), or an arXiv id or URL ('1706.03762') to look a paper up.
            sort_by: 'recent' lists the newest first.
            max_results: Papers to return, 1-50 (default 3).
        """
        text = query.strip()
        if not text:
            raise FixArguments(
                "The query is empty.",
                "Send keywords such as 'protein folding' or an arXiv id such as '1706.03762'.",
            )
        count = max_results or self.max_results
        ids = parse_ids(text)
        if ids:
            papers = self.reader.load_data(id_list=ids, max_results=len(ids))
            if not papers:
                raise PaperNotFound(", ".join(ids))
            return papers
        return self.reader.load_data(query=text, max_results=count, sort_by=sort_by)

    @tool(
        aliases={"id": "paper_id", "arxiv_id": "paper_id", "url": "paper_id", "paper": "paper_id"},
        large_output=True,
        read_only=True,
        open_world=True,
    )
    def arxiv_paper_text(self, paper_id: str) -> list[Document]:
        """Read the full text of one arXiv paper (from its PDF).

        Long papers are stored and searched: use the read tool it names for details.

        Args:
            paper_id: The arXiv id or URL, e.g. '1706.03762' or 'arxiv.org/abs/1706.03762v7'.
        """
        clean = parse_id(paper_id)
        if clean is None:
            raise FixArguments(
                f"{shown(paper_id)} is not an arXiv id.",
                "Send an id such as '1706.03762' (find it with arxiv_query first).",
            )
        return self.reader.load_full_text(clean)
