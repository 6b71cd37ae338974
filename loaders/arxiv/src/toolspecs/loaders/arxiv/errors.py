"""What can go wrong when reading arXiv: one base exception, the hierarchy below.

Hierarchy::

    ArxivLoaderError           base: status, reason, retry_after
    ├── ArxivUnavailable       429, 5xx, timeouts, malformed feeds, after the retries
    │   └── ArxivUnreachable   no connection to ``host`` (``resolved``: did its name?)
    ├── ArxivQueryError        arXiv rejected the query or id (400; its message is kept)
    ├── PaperNotFound          no paper has that id (404)
    ├── PaperUnreadable        the PDF could not be fetched as a PDF or read
    └── UnsafeCacheFolder      the paper cache's folder is not safely the user's own

arXiv's API signals two failures inside a feed: an unknown id is an empty feed, a
malformed one an error entry (sent with 400, by older API versions with 200). They carry
the ``status`` they mean: 404 and 400.
"""

from __future__ import annotations

from toolspecs.base.net import LoaderError, unreachable_reason


class ArxivLoaderError(LoaderError):
    """Base of the arXiv loader's exceptions (a ``toolspecs.base.net.LoaderError``)."""


class ArxivUnavailable(ArxivLoaderError):
    """arXiv did not give a usable answer, even after retries; the same call may work later."""

    retryable = True

    def __init__(
        self, reason: str, retry_after: float | None = None, *, status: int | None = None
    ) -> None:
        super().__init__(
            f"arXiv is unavailable: {reason}", status=status, reason=reason, retry_after=retry_after
        )


class ArxivUnreachable(ArxivUnavailable):
    """No connection to ``host`` (a proxy's, behind one); not ``retryable`` unless ``resolved``."""

    def __init__(self, host: str, *, resolved: bool, reason: str = "") -> None:
        self.host = host
        self.resolved = resolved
        self.retryable = resolved
        super().__init__(reason or unreachable_reason(host, resolved=resolved))


class ArxivQueryError(ArxivLoaderError):
    """arXiv rejected the request; ``message`` (and ``reason``) is what it said, or ``HTTP 400``."""

    def __init__(self, message: str, *, status: int | None = 400) -> None:
        self.message = message
        super().__init__(f"arXiv rejected the query: {message}", status=status, reason=message)


class PaperNotFound(ArxivLoaderError):
    """No arXiv paper has the id ``paper_id`` (or several joined by ", "): 404."""

    def __init__(self, paper_id: str) -> None:
        self.paper_id = paper_id
        super().__init__(
            f"no arXiv paper has the id {paper_id!r}",
            status=404,
            reason=f"arXiv returned no entry for {paper_id}",
        )


class PaperUnreadable(ArxivLoaderError):
    """The paper's PDF could not be downloaded as a PDF, or its text could not be read."""

    def __init__(self, paper_id: str, reason: str, *, status: int | None = None) -> None:
        self.paper_id = paper_id
        super().__init__(
            f"could not read the PDF of {paper_id}: {reason}", status=status, reason=reason
        )


class UnsafeCacheFolder(ArxivLoaderError):
    """The paper cache's folder cannot be trusted, so it is neither read nor written.

    Another local user who made the folder, or may write in it, could plant a file
    served as a paper or a link that turns the cache's writes onto the user's files.
    """

    def __init__(self, folder: str, why: str) -> None:
        self.folder = folder
        super().__init__(f"the paper cache folder {folder} {why}", reason=why)
