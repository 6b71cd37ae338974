"""`toolspecs serve --http`: streamable HTTP on 127.0.0.1 only, on a port the system picks.

The server runs as a subprocess (the real command line); mcp's own client connects to
the URL it announces. Every wait is bounded and the process is always stopped.
"""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import httpx
from mcp import Client

TOOLSPECS = Path(sys.executable).with_name("toolspecs")


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


def announced_url(lines: queue.Queue[str], seconds: float) -> str:
    """The URL of the ``serving ... at URL`` line (each wait bounded)."""
    while True:
        line = lines.get(timeout=seconds)
        if line.startswith("toolspecs: serving "):
            return line.rsplit(" at ", 1)[1].strip()


def test_streamable_http_on_loopback():
    process = subprocess.Popen(
        [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", "arxiv", "wolfram_alpha"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines, reader = read_lines(process)
    try:
        url = announced_url(lines, seconds=120)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")

        async def session() -> tuple[list[str], object, object]:
            with anyio.fail_after(60):
                async with Client(url) as client:
                    names = [t.name for t in (await client.list_tools()).tools]
                    done = await client.call_tool(
                        "arxiv_query", {"query": "language models", "max_results": "2"}
                    )
                    wrong = await client.call_tool("wolfram_alpha_query", {"query": ""})
                    return names, done, wrong

        names, done, wrong = anyio.run(session)
        assert names == [
            "arxiv_query",
            "arxiv_paper_text",
            "read_stored_papers",
            "wolfram_alpha_query",
            "wolfram_alpha_pods",
        ]
        assert done.is_error is False and done.content[0].text.count("arXiv id:") == 2
        assert wrong.is_error is True and "query" in wrong.content[0].text

        # mcp's protection against DNS rebinding is on for a loopback host.
        forged = httpx.post(url, headers={"Host": "evil.example"}, json={}, timeout=30)
        assert forged.status_code == 421
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
