"""A loopback proxy that adds ``Authorization: Bearer TOKEN`` to every request it forwards.

For clients that cannot send a header of their own (the official conformance suite's
``server`` command takes only a URL). Everything else passes byte for byte, both ways:
the ``Host`` and ``Origin`` the client sent (so the server's DNS-rebinding check sees
them: start the server with ``--allowed-host`` naming the proxy's address), bodies,
responses and their SSE streams as they come. It reads each request's head and its
body by ``Content-Length`` or chunk by chunk, so a kept-alive connection carries many
requests. It runs on an event loop of its own, on a thread; every wait is bounded by
the connections' ends, and :func:`bearer_proxy` closes it all when its block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Iterator

HEAD_LIMIT = 64 * 1024


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Bytes from ``reader`` to ``writer`` as they come, until ``reader`` ends."""
    while chunk := await reader.read(65536):
        writer.write(chunk)
        await writer.drain()


async def _body(head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """The request's body after ``head``: by its ``Content-Length``, or its chunks."""
    fields = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields[name.strip().lower()] = value.strip().lower()
    if b"chunked" in fields.get(b"transfer-encoding", b""):
        while True:
            size_line = await reader.readuntil(b"\r\n")
            writer.write(size_line)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:  # the trailer, up to its empty line
                while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
                    writer.write(line)
                writer.write(line)
                return
            writer.write(await reader.readexactly(size + 2))
    length = int(fields.get(b"content-length", b"0") or b"0")
    if length:
        writer.write(await reader.readexactly(length))


async def _requests(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, header: bytes
) -> None:
    """Each request of the client's connection, ``header`` added after its request line."""
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            return
        line, _, rest = head.partition(b"\r\n")
        kept = [f for f in rest.split(b"\r\n") if not f.lower().startswith(b"authorization:")]
        head = b"\r\n".join([line, header, *kept])
        writer.write(head)
        await _body(head, reader, writer)
        await writer.drain()


def _closer(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(Exception):
        writer.close()


@contextlib.contextmanager
def bearer_proxy(listening: socket.socket, upstream: tuple[str, int], token: str) -> Iterator[None]:
    """A proxy on the bound socket ``listening`` to ``upstream``, adding the token.

    The socket is bound first (port 0) so that the server behind can be told its address.
    """
    header = f"Authorization: Bearer {token}".encode()
    loop = asyncio.new_event_loop()
    connections: set[asyncio.Task[None]] = set()

    async def connection(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        try:
            server_r, server_w = await asyncio.open_connection(*upstream, limit=HEAD_LIMIT)
        except OSError:
            _closer(client_w)
            return
        up = asyncio.ensure_future(_requests(client_r, server_w, header))
        down = asyncio.ensure_future(_pipe(server_r, client_w))
        try:  # either side ending ends the connection
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (up, down):
                task.cancel()
            _closer(server_w)
            _closer(client_w)

    def track(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        task = loop.create_task(connection(client_r, client_w))
        connections.add(task)
        task.add_done_callback(connections.discard)

    started = loop.run_until_complete(asyncio.start_server(track, sock=listening, limit=HEAD_LIMIT))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:

        async def stop() -> None:
            started.close()
            for task in list(connections):
                task.cancel()
            await asyncio.gather(*connections, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
