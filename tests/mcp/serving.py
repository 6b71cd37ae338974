"""`toolspecs serve` as a subprocess for the tests: started, its URL read, always stopped.

:func:`toolspecs_serve` runs the real command line (``toolspecs serve --sandbox --http
--port 0 ARGS``) with the environment it is given, reads its stderr on a thread and
yields the URL of its ``toolspecs: serving ... at URL`` line with what it printed up
to the line after (where the token is). Every wait is bounded; the process is stopped
(killed if it will not stop) and its pipe closed. :func:`over_http` is a client of it
sending a token: calls, then resource reads. bench/serve_load.py keeps its own
copy: bench/ does not import tests/.
"""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

TOOLSPECS = Path(sys.executable).with_name("toolspecs")


def refused_in_one_line(*args: str, env: Mapping[str, str]) -> str:
    """``toolspecs serve --sandbox --port 0 gmail ARGS`` refused: its one line of stderr.

    Fails the test when the command succeeds or says more (or less) than one line.
    """
    done = subprocess.run(
        [str(TOOLSPECS), "serve", "--sandbox", "--port", "0", "gmail", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(env),
        check=False,
    )
    assert done.returncode != 0, args
    (line,) = done.stderr.strip().splitlines()
    return line


def read_lines(process: subprocess.Popen[str]) -> tuple[queue.Queue[str], threading.Thread]:
    """Each line of the process's stderr, put on a queue by a thread until the pipe closes."""
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    return lines, reader


def announced_url(lines: queue.Queue[str], seconds: float, said: list[str]) -> str:
    """The URL of the ``serving ... at URL`` line (each wait bounded).

    What the server printed up to the line after it (where the token is) goes to ``said``.
    """
    while True:
        line = lines.get(timeout=seconds)
        said.append(line)
        if line.startswith("toolspecs: serving "):
            said.append(lines.get(timeout=seconds))  # where the token is
            return line.rsplit(" at ", 1)[1].strip()


@contextlib.contextmanager
def toolspecs_serve(*args: str, env: Mapping[str, str]) -> Iterator[tuple[str, list[str]]]:
    """``toolspecs serve --sandbox --http --port 0 ARGS`` in ``env``: its URL and what it printed."""
    process = subprocess.Popen(
        [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env),
    )
    lines, reader = read_lines(process)
    said: list[str] = []
    try:
        yield announced_url(lines, seconds=120, said=said), said
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        reader.join(timeout=30)  # the pipe ends with the process
        if process.stderr is not None:
            process.stderr.close()


async def over_http(url: str, token: str, mode: str, calls: list, reads: list[str]) -> tuple:
    """As a client sending ``token``: make ``calls``, then read ``reads``.

    Returns the call results and the reads, a read that failed as its ``MCPError``.
    """
    import anyio
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError

    headers = {"Authorization": f"Bearer {token}"}
    with anyio.fail_after(60):
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30)) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode) as client:
                called = [await client.call_tool(name, args) for name, args in calls]
                read = []
                for uri in reads:
                    try:
                        read.append(await client.read_resource(uri))
                    except MCPError as error:
                        read.append(error)
                return called, read
