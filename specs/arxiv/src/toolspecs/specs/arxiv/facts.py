"""Papers as data: the output models of :mod:`.outputs` from arXiv's answers.

The same facts as the reply texts of :mod:`~toolspecs.specs.arxiv.render`, bounded the
same way; what papers say (titles, names, abstracts) is
:class:`~toolspecs.core.structured.Quoted`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from llama_index.core.schema import Document
from pydantic import PrivateAttr

from toolspecs.core import fence
from toolspecs.core.structured import Quoted
from toolspecs.specs.arxiv import outputs

if TYPE_CHECKING:
    import arxiv
    from toolspecs.loaders.arxiv.outline import Heading

MAX_AUTHORS_SHOWN = 10
MAX_ABSTRACT_CHARS = 3000  # arXiv allows 1,920
_VERSION = re.compile(r"v\d+$")


def short_id_of(paper: arxiv.Result) -> str:
    """``1706.03762v7`` for a paper."""
    return str(paper.entry_id).split("/abs/")[-1]


def ids_of(paper: arxiv.Result) -> tuple[str, str]:
    """A paper's ``arxiv_id`` (``1706.03762``) and ``versioned_id`` (``1706.03762v7``)."""
    versioned = fence.field(short_id_of(paper), 60)
    return _VERSION.sub("", versioned), versioned


def paper_data(paper: arxiv.Result) -> outputs.Paper:
    """What :func:`~.render.describe` shows of ``paper``, as data (all its times, with offset)."""
    from toolspecs.loaders.arxiv import to_document

    metadata = to_document(paper).metadata
    paper_id = fence.field(metadata["arxiv_id"], 60)
    arxiv_id, versioned_id = ids_of(paper)
    names = [Quoted(text=fence.field(name, 100)) for name in metadata["authors"]]
    category = fence.field(paper.primary_category, 40)
    return outputs.Paper(
        arxiv_id=arxiv_id,
        versioned_id=versioned_id,
        title=Quoted(text=fence.field(paper.title)),
        authors=names[:MAX_AUTHORS_SHOWN],
        author_count=len(names),
        published=paper.published.isoformat(),
        updated=paper.updated.isoformat(),
        primary_category=category or None,
        categories=[fence.field(c, 40) for c in paper.categories],
        journal_ref=Quoted(text=fence.field(paper.journal_ref)) if paper.journal_ref else None,
        url=f"https://arxiv.org/abs/{paper_id}",
        pdf_url=f"https://arxiv.org/pdf/{paper_id}",
        abstract=Quoted(text=fence.field(paper.summary, MAX_ABSTRACT_CHARS)),
    )


def heading_data(heading: Heading) -> outputs.Heading:
    """One heading as data: what to pass as ``section`` to read it, its title and page."""
    return outputs.Heading(
        section=fence.field(heading.number or heading.name, 80),
        title=Quoted(text=fence.field(heading.title, 200)),
        level=heading.level,
        page=heading.page,
    )


class SectionDocument(Document):
    """The Document of one section, carrying its data (``structured``) for the guard."""

    _data: outputs.Section | None = PrivateAttr(default=None)

    def __init__(self, **data: Any) -> None:
        """A ``Document`` (llama-index reads ``text`` and the rest as its own)."""
        super().__init__(**data)

    @property
    def structured(self) -> outputs.Section | None:
        """The section as data (:class:`~toolspecs.specs.arxiv.outputs.Section`)."""
        return self._data
