"""What can go wrong when reading arXiv: one base exception, the hierarchy below.

Hierarchy::

    ArxivLoaderError           base: status, reason, retry_after
    ├── ArxivUnavailable       429, 5xx, timeouts, connection errors, malformed feeds,
    │   │                      after the client's retries (``retryable`` is True)
    │   └── ArxivUnreachable   no connection to ``host``: its name did not resolve (no
    │                          network or DNS; a temporary failure is tried once more
    │                          after 0.5 s) or the connection was refused (retried)
    ├── ArxivQueryError        arXiv rejected the query or id (400; its message is kept)
    ├── PaperNotFound          no paper has that id (404)
    ├── PaperUnreadable        the PDF could not be fetched as a PDF or read
    └── UnsafeCacheFolder      the paper cache's folder is not safely the user's own: a
                               link, another user's, or writable by group or others

Every error carries what a caller needs to decide what to do, and nothing more:

- ``status``: the HTTP status of the failure, or ``None`` when there was no answer
  (a timeout, a dropped connection). arXiv's API signals two failures inside a
  feed: an unknown id is an empty feed, a malformed one an error entry (sent with
  400, by older API versions with 200). They carry the status they mean: 404 and 400.
- ``reason``: what arXiv said, or what happened, as text.
- ``retry_after``: the seconds arXiv asked us to wait (``Retry-After``), or ``None``.
"""

from __future__ import annotations

from toolspecs.base.net import LoaderError, unreachable_reason


class ArxivLoaderError(LoaderError):
    """Base of the arXiv loader's exceptions (a ``toolspecs.base.net.LoaderError``).

    Args:
        message: The exception's text.
        status: The HTTP status of the failure, or ``None``.
        reason: What arXiv said, or what happened.
        retry_after: Seconds arXiv asked us to wait, when it said.
    """


class ArxivUnavailable(ArxivLoaderError):
    """arXiv did not give a usable answer, even after retries; the same call may work later.

    Args:
        reason: What happened, e.g. ``"HTTP 503"`` or ``"no answer within 30 s"``.
        retry_after: Seconds arXiv asked us to wait, when it said.
        status: The HTTP status of the last answer (429, 5xx), or ``None`` when there
            was none or it was a 200 that could not be read.
    """

    retryable = True

    def __init__(
        self, reason: str, retry_after: float | None = None, *, status: int | None = None
    ) -> None:
        super().__init__(
            f"arXiv is unavailable: {reason}",
            status=status,
            reason=reason,
            retry_after=retry_after,
        )


class ArxivUnreachable(ArxivUnavailable):
    """No connection could be made to ``host``: no HTTP request reached arXiv.

    Args:
        host: The host name, e.g. ``"export.arxiv.org"``; behind a proxy, the proxy's
            when it is the one that failed (``"export.arxiv.org (or the proxy)"`` when
            that cannot be told).
        resolved: ``False`` when the name did not resolve (``socket.gaierror``): this
            machine has no network or no DNS. A temporary failure (``EAI_AGAIN``) was
            tried once more after 0.5 s, any other failed at once; retrying at once
            meets the same (``retryable`` is ``False``). ``True`` when the name resolved
            but the connection was refused or broke off (retried).
        reason: What happened, e.g. ``"could not resolve export.arxiv.org (no network
            or DNS?)"``; default from ``host`` and ``resolved``.
    """

    def __init__(self, host: str, *, resolved: bool, reason: str = "") -> None:
        self.host = host
        self.resolved = resolved
        self.retryable = resolved
        super().__init__(reason or unreachable_reason(host, resolved=resolved))


class ArxivQueryError(ArxivLoaderError):
    """arXiv rejected the request; ``message`` (and ``reason``) is what it said.

    Args:
        message: arXiv's error message, e.g. ``"incorrect id format for 1234.12345"``,
            or ``"HTTP 400"`` when it sent none.
        status: The HTTP status (400 unless arXiv answered another 4xx).
    """

    def __init__(self, message: str, *, status: int | None = 400) -> None:
        self.message = message
        super().__init__(f"arXiv rejected the query: {message}", status=status, reason=message)


class PaperNotFound(ArxivLoaderError):
    """No arXiv paper has the id ``paper_id`` (arXiv answers with an empty feed: 404).

    Args:
        paper_id: The id looked up, or several joined by ", ".
    """

    def __init__(self, paper_id: str) -> None:
        self.paper_id = paper_id
        super().__init__(
            f"no arXiv paper has the id {paper_id!r}",
            status=404,
            reason=f"arXiv returned no entry for {paper_id}",
        )


class PaperUnreadable(ArxivLoaderError):
    """The paper's PDF could not be downloaded as a PDF, or its text could not be read.

    Args:
        paper_id: The paper's id, with version.
        reason: What went wrong, e.g. ``"the PDF is damaged (PdfReadError)"``.
        status: The HTTP status arXiv answered the PDF request with, when it was not
            a 200 (e.g. 404 or 403); ``None`` when a 200 brought no readable PDF.
    """

    def __init__(self, paper_id: str, reason: str, *, status: int | None = None) -> None:
        self.paper_id = paper_id
        super().__init__(
            f"could not read the PDF of {paper_id}: {reason}", status=status, reason=reason
        )


class UnsafeCacheFolder(ArxivLoaderError):
    """The paper cache's folder cannot be trusted, so it is neither read nor written.

    Another local user who made the folder, or may write in it, could plant a file
    served as a paper or a link that turns the cache's writes onto the user's files.

    Args:
        folder: The folder, e.g. ``"/tmp/papers/toolspecs-arxiv"``.
        why: What is wrong, e.g. ``"is owned by another user (uid 1001)"``.
    """

    def __init__(self, folder: str, why: str) -> None:
        self.folder = folder
        super().__init__(f"the paper cache folder {folder} {why}", reason=why)
