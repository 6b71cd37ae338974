"""What can go wrong when reading arXiv, as exceptions a spec can turn into guidance.

Hierarchy::

    ArxivLoaderError           base
    ├── ArxivUnavailable       429, 5xx, timeouts, connection errors, malformed feeds,
    │                          after the client's retries (``retryable`` is True)
    ├── ArxivQueryError        arXiv rejected the query or id (its message is kept)
    ├── PaperNotFound          no paper has that id
    └── PaperUnreadable        the PDF could not be fetched as a PDF or read
"""

from __future__ import annotations


class ArxivLoaderError(Exception):
    """Base of the arXiv loader's exceptions."""


class ArxivUnavailable(ArxivLoaderError):
    """arXiv did not give a usable answer, even after retries; the same call may work later.

    Args:
        reason: What happened, e.g. ``"HTTP 503"`` or ``"timed out after 30 s"``.
        retry_after: Seconds arXiv asked us to wait, when it said.
    """

    retryable = True

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        self.reason = reason
        self.retry_after = retry_after
        super().__init__(f"arXiv is unavailable: {reason}")


class ArxivQueryError(ArxivLoaderError):
    """arXiv rejected the request; ``message`` is what it said."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(f"arXiv rejected the query: {message}")


class PaperNotFound(ArxivLoaderError):
    """No arXiv paper has the id ``paper_id``."""

    def __init__(self, paper_id: str) -> None:
        self.paper_id = paper_id
        super().__init__(f"no arXiv paper has the id {paper_id!r}")


class PaperUnreadable(ArxivLoaderError):
    """The paper's PDF could not be downloaded as a PDF, or its text could not be read."""

    def __init__(self, paper_id: str, reason: str) -> None:
        self.paper_id = paper_id
        self.reason = reason
        super().__init__(f"could not read the PDF of {paper_id}: {reason}")
