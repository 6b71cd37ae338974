"""A fake service's HTTP server on 127.0.0.1: the loaders' shipped fakes, at the wire.

The loaders' fakes (``FakeArxiv``, ``FakeWolframAlpha``) answer through their client's
transport seam (``transport=``). :class:`LoopbackServer` puts one on a real socket, so
that a client built as its user builds it (no transport, a ``base_url``) reaches it
through the same HTTP library, connection pool and parser as it reaches the service:

- the standard library's ``ThreadingHTTPServer`` on a free port of 127.0.0.1, in a
  daemon thread, one thread per connection;
- each request handed to ``answer`` as a :class:`WireRequest`; the :class:`WireAnswer`
  it returns is written back, its body streamed chunk by chunk as it is made (a body
  that trickles, or one too large to hold, stays so on the wire); ``None`` closes the
  connection without an answer (a dropped connection);
- HTTP/1.0: one request per connection, a body without ``Content-Length`` ends when
  the connection does, as servers send bodies of unknown length;
- with ``gzip=True``, a 200 answer is sent gzip-compressed to a client that accepts it
  (``Accept-Encoding``, which requests and httpx send), as arXiv's and Wolfram's servers
  do: each chunk compressed and flushed as it is made, so a trickle stays a trickle and
  a huge body stays huge once decompressed.

Start and stop it, or use it as a context manager::

    with LoopbackServer(answer) as server:
        requests.get(server.url + "/path")

A proxy the environment names (``HTTPS_PROXY``, ``HTTP_PROXY``) stands between a client
and every host not in ``NO_PROXY``, this machine too: :func:`direct_to_loopback` adds
127.0.0.1, ``::1`` and ``localhost`` there, for a program that serves a fake to itself
(the specs' sandboxes).
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

__all__ = ["LOOPBACK_NAMES", "LoopbackServer", "WireAnswer", "WireRequest", "direct_to_loopback"]

LOOPBACK_NAMES = ("127.0.0.1", "::1", "localhost")
"""This machine's names, as ``NO_PROXY`` lists hosts."""


def direct_to_loopback() -> None:
    """Reach this machine without a proxy, whatever proxy this process's environment names.

    Adds :data:`LOOPBACK_NAMES` to ``NO_PROXY`` and ``no_proxy`` (both: libraries read
    either first), which requests, httpx, httplib2 and urllib read at each request. A
    server on 127.0.0.1 is then asked directly: a proxy of the network could not reach
    it, and would see each request. Idempotent; other hosts keep their proxy. ``*``
    (every host direct) is left as it is.
    """
    current = os.environ.get("no_proxy") or os.environ.get("NO_PROXY") or ""
    if current.strip() == "*":
        return
    names = [name.strip() for name in current.split(",") if name.strip()]
    wanted = ",".join([*names, *(name for name in LOOPBACK_NAMES if name not in names)])
    os.environ["no_proxy"] = os.environ["NO_PROXY"] = wanted


@dataclass
class WireRequest:
    """One request as it arrived: ``path`` without the query, ``query`` as sent."""

    method: str
    path: str
    query: str
    headers: dict[str, str]


@dataclass
class WireAnswer:
    """What to send back: a status, headers, and the body as chunks (made as they are sent)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Iterable[bytes] = ()


Answer = Callable[[WireRequest], "WireAnswer | None"]


class LoopbackServer:
    """An HTTP server on ``127.0.0.1`` (a free port) answering with ``answer``.

    Args:
        answer: Called for each request (in the connection's thread), its ``path``
            without ``prefix``; returns the answer, or ``None`` to drop the connection.
        prefix: A path the service is served under, e.g. ``"/arxiv"`` (as a mirror may
            serve it); a request outside it gets 404 without reaching ``answer``.
        gzip: Compress 200 answers for clients that accept gzip.

    Attributes:
        url: ``http://127.0.0.1:<port><prefix>``, once started: the base URL to configure.
        received: How many requests arrived (outside ``prefix`` too).
    """

    def __init__(self, answer: Answer, *, prefix: str = "", gzip: bool = False) -> None:
        self.answer = answer
        self.gzip = gzip
        self.prefix = "/" + prefix.strip("/") if prefix.strip("/") else ""
        self.received = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._count = threading.Lock()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port><prefix>``: where the service is served."""
        if self._server is None:
            raise RuntimeError("the server is not started: call start() or use it in a with")
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.prefix}"

    def start(self) -> LoopbackServer:
        """Listen on a free port of 127.0.0.1 and serve in a daemon thread."""
        if self._server is not None:
            return self
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        server.block_on_close = False  # a body still trickling does not hold stop()
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening and close the socket."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    def _note(self) -> None:
        with self._count:
            self.received += 1


def _handler(owner: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        timeout = 10  # a connection that sends no request holds its thread no longer

        def do_GET(self) -> None:
            self._serve()

        def do_HEAD(self) -> None:
            self._serve()

        def _serve(self) -> None:
            owner._note()
            parts = urlsplit(self.path)
            path = parts.path
            if owner.prefix and not (path + "/").startswith(owner.prefix + "/"):
                answer: WireAnswer | None = WireAnswer(404, {"Content-Length": "0"})
            else:
                path = path[len(owner.prefix) :] or "/"
                headers = {k: v for k, v in self.headers.items()}
                answer = owner.answer(WireRequest(self.command, path, parts.query, headers))
            if answer is None:  # dropped: no status line, nothing
                self.close_connection = True
                return
            headers = dict(answer.headers)
            packer = None
            if (
                owner.gzip
                and answer.status == 200
                and "gzip" in self.headers.get("Accept-Encoding", "").lower()
                and not any(name.lower() == "content-encoding" for name in headers)
            ):
                packer = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip format
                headers = {k: v for k, v in headers.items() if k.lower() != "content-length"}
                headers["Content-Encoding"] = "gzip"
            try:
                self.send_response(answer.status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if self.command == "HEAD":
                    return
                for chunk in answer.body:
                    if chunk and packer is not None:
                        chunk = packer.compress(chunk) + packer.flush(zlib.Z_SYNC_FLUSH)
                    if chunk:
                        self.wfile.write(chunk)
                        self.wfile.flush()
                if packer is not None:
                    self.wfile.write(packer.flush())
            except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
                pass  # the client stopped reading (a deadline, a size cap): as it should
            finally:
                close = getattr(answer.body, "close", None)
                if callable(close):
                    close()

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: the fakes record what they were asked

    return Handler
