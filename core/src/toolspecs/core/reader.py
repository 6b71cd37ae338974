"""The spec's reader tool: one search over the stored results of its large-output functions."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from toolspecs.core import large_output
from toolspecs.core.declare import ToolOptions
from toolspecs.core.errors import FixArguments
from toolspecs.core.policy import Marks
from toolspecs.core.store import StoredResult, StoredResults

__all__ = ["READER_OPTIONS", "stored_reader"]


def stored_reader(
    name: str,
    results: Callable[[], StoredResults],
    functions: list[str],
    label: str = "",
    *,
    blocking: bool = False,
) -> Callable[..., large_output.PassagesRead]:
    """The reader tool's function: it searches the stored results of ``functions``.

    ``results`` is asked at each call (the running call's owner's store).
    """

    def reader(query: str, result_id: int | None = None) -> large_output.PassagesRead:
        if not query.strip():
            raise FixArguments("The query is empty.", "Send the words you are looking for.")
        stored = _stored_result(results(), functions, result_id)
        return large_output.read_passages(stored, query, label)

    reader.__name__ = name
    reader.__doc__ = _READER_DOC
    reader.__annotations__ = {
        "query": str,
        "result_id": int | None,
        "return": large_output.PassagesRead,
    }
    options = replace(READER_OPTIONS, blocking=True) if blocking else READER_OPTIONS
    reader.__toolspecs_options__ = options  # type: ignore[attr-defined]
    return reader


_READER_DOC = """Search stored long results; returns the best-matching passages verbatim.

Args:
    query: Words in the passage you want.
    result_id: From the preview; default the latest.
"""
READER_OPTIONS = ToolOptions(
    marks=Marks.of(read_only=True, destructive=None, idempotent=None, open_world=False),
    output=large_output.PassagesRead,
    blocking=False,  # it searches results held in memory (a Redis store's: blocking)
)


def _stored_result(
    store: StoredResults, functions: list[str], result_id: int | None
) -> StoredResult:
    latest: list[StoredResult] = []
    for function in functions:
        try:
            latest.append(store.get(function))
        except FixArguments:
            continue
    if not latest:
        raise FixArguments(
            "There is no stored result to read.",
            f"Call {' or '.join(functions)} first; a result too long to show is stored "
            "and its preview says to read it here.",
        )
    if result_id is None:
        return max(latest, key=lambda stored: stored.result_id)
    owner = store.dropped(result_id)
    if owner in functions:
        return store.get(owner, result_id)  # raises: that result is gone, call it again
    for function in functions:
        try:
            return store.get(function, result_id)
        except FixArguments:
            continue
    known = ", ".join(f"{r.result_id} ({r.function})" for r in latest)
    raise FixArguments(
        f"There is no stored result {result_id}; the latest ones are {known}.",
        "Call again with the result_id a preview gave, or leave result_id out for the latest.",
    )
