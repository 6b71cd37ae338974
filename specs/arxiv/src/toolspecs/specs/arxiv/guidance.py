"""What the arXiv tools tell the agent when a call cannot go on, and what to do instead.

The functions return the exception for the tool to raise. What papers say is fenced.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from toolspecs.core import AskUser, Failure, FailureTable, FixArguments, RetryLater, fence, ref
from toolspecs.core.bounds import shown
from toolspecs.core.failures import unreachable_rows
from toolspecs.core.prefixed import offered
from toolspecs.loaders.arxiv import (
    ArxivQueryError,
    ArxivUnavailable,
    ArxivUnreachable,
    PaperNotFound,
    PaperUnreadable,
    UnsafeCacheFolder,
)
from toolspecs.specs.arxiv.outputs import short_id_of

if TYPE_CHECKING:
    import arxiv
    from toolspecs.loaders.arxiv.reader import Heading

MAX_HEADINGS_IN_GUIDANCE = 25

# Templates: the guard names the tools in them by their public names (prefixed.named);
# ref() here would run once, at import, outside any tool list.
FAILURES = FailureTable(
    *unreachable_rows(ArxivUnreachable),
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
        PaperNotFound, FixArguments, "No arXiv paper has the id {exc.paper_id!r}.", "{check_id}"
    ),
    Failure(
        PaperUnreadable,
        AskUser,
        "The full text of {exc.paper_id} cannot be read: {reason}.",
        "{give_link} https://arxiv.org/abs/{exc.paper_id}.",
    ),
    Failure(
        UnsafeCacheFolder,
        AskUser,
        "The full text was not read: {exc}, so another local user could plant a "
        "paper in it or turn its writes onto the user's files.",
        "Do not retry: tell the user, who can make that folder theirs alone "
        "(chmod 700, after checking its files) or choose another one with paper_cache "
        "or TOOLSPECS_ARXIV_CACHE (paper_cache=False or TOOLSPECS_ARXIV_CACHE=off "
        "turns the cache off).",
    ),
)
"""How the loader's errors reach the agent (the spec's ``failures``)."""


def failure_context() -> dict[str, str]:
    """The values of :data:`FAILURES` that name ``arxiv_query`` when the agent has it."""
    if not offered("arxiv_query"):
        return {"check_id": "Check the id.", "give_link": "Give the user the link"}
    query = ref("arxiv_query")
    return {
        "check_id": f"Check the id, or search for the paper with {query} to get it.",
        "give_link": f"Use the abstract from {query} instead, or give the user the link",
    }


def empty_query() -> FixArguments:
    """``arxiv_query`` with neither keywords nor a field."""
    return FixArguments(
        "The query is empty.",
        "Send keywords such as 'protein folding', an arXiv id such as '1706.03762', "
        "or a field: author, title, category or submitted.",
    )


def not_a_category(part: str, close: Sequence[str]) -> FixArguments:
    """A category that names none of arXiv's, with the ``close`` codes listed."""
    from toolspecs.loaders.arxiv import CATEGORIES

    listed = ", ".join(f"{code} ({CATEGORIES[code]})" for code in close)
    return FixArguments(
        f"{shown(part.strip())} is not an arXiv category."
        + (f" Close ones: {listed}." if listed else ""),
        "Send a category code such as 'cs.CL' or 'hep-th' "
        "(https://arxiv.org/category_taxonomy), or leave category out.",
    )


def not_an_id(paper_id: str) -> FixArguments:
    """A ``paper_id`` that is no arXiv id or URL."""
    find = f" (find it with {ref('arxiv_query')} first)" if offered("arxiv_query") else ""
    return FixArguments(
        f"{shown(paper_id)} is not an arXiv id.", f"Send an id such as '1706.03762'{find}."
    )


def no_headings(paper: arxiv.Result, reader_name: str, *, outline: bool) -> FixArguments:
    """A paper without headings, for ``arxiv_paper_outline`` (``outline``) or ``_section``."""
    why = (
        " (no bookmarks in its PDF, no numbered heading lines)."
        if outline
        else ", so no section can be picked out."
    )
    pid = fence.field(short_id_of(paper), 60)
    step = None  # without the full text tool, the standard step: fix the arguments
    if offered("arxiv_paper_text"):
        step = f"Read it with {ref('arxiv_paper_text')}(paper_id={pid!r})"
        step += f" and search it with {ref(reader_name)}." if offered(reader_name) else "."
    return FixArguments(f"No headings were found in arXiv {pid}{why}", step)


def empty_section() -> FixArguments:
    """``arxiv_paper_section`` with no section named."""
    return FixArguments(
        "The section is empty.", "Send a number such as '3' or a title such as 'Method'."
    )


def no_section(paper: arxiv.Result, wanted: str, found: Sequence[Heading]) -> FixArguments:
    """A section that matches no heading, listing the headings."""
    pid = fence.field(short_id_of(paper), 60)
    listed = "; ".join(fence.field(h.title, 80) for h in found[:MAX_HEADINGS_IN_GUIDANCE])
    more = (
        f"; and {len(found) - MAX_HEADINGS_IN_GUIDANCE} more"
        if len(found) > MAX_HEADINGS_IN_GUIDANCE
        else ""
    )
    return FixArguments(
        f"arXiv {pid} has no section {shown(wanted)}. Its headings: {listed}{more}.",
        "Send one of these numbers or titles as section.",
    )


def bad_ids(bad: Sequence[str]) -> FixArguments:
    """``arxiv_bibtex`` given parts that are no ids, or nothing."""
    find = f" (find them with {ref('arxiv_query')})" if offered("arxiv_query") else ""
    return FixArguments(
        f"{shown(', '.join(bad))} is not an arXiv id." if bad else "No ids were given.",
        f"Send ids such as ['1706.03762', '1810.04805']{find}.",
    )


def too_many_ids(count: int, most: int) -> FixArguments:
    """``arxiv_bibtex`` given more ids than one call takes."""
    return FixArguments(
        f"{count} ids is more than {most} in one call.", f"Send at most {most} ids per call."
    )
