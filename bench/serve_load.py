"""Load on ``toolspecs serve --sandbox --http gmail``, next to a floor server, in one run.

Run from anywhere:

    uv run --frozen python bench/serve_load.py [--clients 1,8,32,64] [--calls 30]
        [--latency 0,150ms] [--json]

For each sandbox latency (``--sandbox-latency``: the fake Gmail waits that long before
answering each request, as Google's round trip would), two servers run as processes of
their own on 127.0.0.1:

- ours: ``toolspecs serve --sandbox --http --port 0 gmail --sandbox-latency L``;
- the floor: the same mcp SDK's low-level ``Server`` with one tool, ``search_messages``,
  that answers a fixed text after waiting what ours waits for Google in one call
  (``L`` times the requests one ``search_messages`` call makes to the fake, counted
  first), served by the same ``serve_http`` (uvicorn, bearer token, the same limits):
  everything but the tool.

Then, for each K in ``--clients``, K official mcp Python clients at once (each its own
HTTP client and MCP session; the sessions are opened before the clock starts) make
``--calls`` ``search_messages`` calls each, one after another, against ours and then the
floor. Printed per (latency, K): calls per second and the p99 of one call's time for each
side, ours as a ratio of the floor's, and ours at K as a multiple of ours at K=1. Every
wait is bounded; the servers are always stopped. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

TOKEN = "bench-token-" + "x" * 32
TOOLSPECS = Path(sys.executable).with_name("toolspecs")
QUERY = {"query": "lunch", "max_results": 5}
FLOOR_TEXT = "Found 5 messages. " + "x" * 900  # about what ours answers


def round_trips() -> int:
    """The requests one sandbox ``search_messages`` call makes to the fake Gmail."""
    from toolspecs.core import load_spec
    from toolspecs.core.registry import sandbox_arguments

    arguments = sandbox_arguments("gmail")
    fake = arguments["transport"]
    spec = load_spec("gmail", **arguments)
    out = spec.call_tool("search_messages", **QUERY)
    assert not out.is_error, out.content
    return len(fake.requests)


# -- the floor server (run as ``serve_load.py --floor SECONDS``) ------------------------


def floor_main(wait: float) -> None:
    """Serve the floor: one tool answering a fixed text after ``wait`` seconds."""
    import anyio
    import mcp_types
    from mcp.server import Server

    from toolspecs.mcp.transports import serve_http

    tool = mcp_types.Tool(
        name="search_messages",
        description="Search mail.",
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}},
    )

    async def list_tools(ctx: Any, params: Any) -> Any:
        return mcp_types.ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: Any) -> Any:
        if wait:
            await anyio.sleep(wait)
        return mcp_types.CallToolResult(content=[mcp_types.TextContent(text=FLOOR_TEXT)])

    server = Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)

    def ready(url: str) -> None:
        print(f"toolspecs: serving floor at {url}", file=sys.stderr, flush=True)

    anyio.run(lambda: serve_http(server, port=0, ready=ready, token=TOKEN))


# -- running the servers -----------------------------------------------------------------


@contextlib.contextmanager
def server(command: list[str], pid: bool = False) -> Iterator[Any]:
    """Run ``command`` (a server that prints ``serving ... at URL``): its URL (bounded).

    With ``pid``, the URL and the server's process id.
    """
    environment = {**os.environ, "TOOLSPECS_SERVE_TOKEN": TOKEN}
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while True:
            line = lines.get(timeout=120)
            if line.startswith("toolspecs: serving "):
                url = line.rsplit(" at ", 1)[1].strip()
                yield (url, process.pid) if pid else url
                break
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)
        reader.join(timeout=30)


# -- the clients -------------------------------------------------------------------------


async def load(url: str, clients: int, calls: int) -> dict[str, float]:
    """``clients`` official mcp clients at once, ``calls`` calls each: rate and p99."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {TOKEN}"}
    times: list[float] = []
    failures = 0
    opened = asyncio.Barrier(clients + 1)
    done = asyncio.Event()
    spans: list[tuple[float, float]] = []

    async def one() -> None:
        nonlocal failures
        async with contextlib.AsyncExitStack() as stack:
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60))
            )
            # legacy: each client its own MCP session, as K people's clients (the default,
            # sessionless, makes all K one token holder, who runs a few calls at once).
            client = await stack.enter_async_context(
                Client(streamable_http_client(url, http_client=http), mode="legacy")
            )
            await client.list_tools()
            await opened.wait()  # every session open before the clock starts
            first = time.perf_counter()
            for _ in range(calls):
                start = time.perf_counter()
                result = await client.call_tool("search_messages", QUERY)
                times.append(time.perf_counter() - start)
                failures += bool(result.is_error)
            spans.append((first, time.perf_counter()))
            await done.wait()  # sessions close after every client is done

    async def run() -> None:
        tasks = [asyncio.create_task(one()) for _ in range(clients)]
        await opened.wait()
        while len(spans) < clients and not any(t.done() for t in tasks):
            await asyncio.sleep(0.01)
        done.set()
        await asyncio.gather(*tasks)

    await asyncio.wait_for(run(), 600)
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    return {"calls_per_s": len(times) / wall, "p99_ms": p99 * 1000, "errors": failures}


def seconds(text: str) -> float:
    """``150ms``, ``0.15s`` or ``0.15`` as seconds."""
    text = text.strip().lower()
    if text.endswith("ms"):
        return float(text[:-2]) / 1000
    return float(text.removesuffix("s"))


def main() -> None:
    """Run the benchmark and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="1,8,32,64", help="K values, comma-separated")
    parser.add_argument("--calls", type=int, default=30, help="calls per client")
    parser.add_argument("--latency", default="0,150ms", help="sandbox latencies")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.add_argument("--floor", type=float, help=argparse.SUPPRESS)  # internal
    args = parser.parse_args()
    if args.floor is not None:
        floor_main(args.floor)
        return
    ks = [int(k) for k in args.clients.split(",")]
    trips = round_trips()
    rows: list[dict[str, Any]] = []
    for latency in [seconds(x) for x in args.latency.split(",")]:
        ours_cmd = [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", "gmail"]
        ours_cmd += ["--sandbox-latency", f"{latency}", "--max-sessions", str(max(ks) + 8)]
        floor_cmd = [sys.executable, __file__, "--floor", str(latency * trips)]
        with server(ours_cmd) as ours_url, server(floor_cmd) as floor_url:
            asyncio.run(load(ours_url, 1, 3))  # warm up both
            asyncio.run(load(floor_url, 1, 3))
            for k in ks:
                ours = asyncio.run(load(ours_url, k, args.calls))
                floor = asyncio.run(load(floor_url, k, args.calls))
                rows.append(
                    {"latency_ms": latency * 1000, "clients": k, "ours": ours, "floor": floor}
                )
    if args.json:
        print(json.dumps({"round_trips_per_call": trips, "rows": rows}, indent=2))
        return
    each = f"{args.calls} calls per client"
    print(f"search_messages: {trips} requests to the fake Gmail per call; {each}")
    head = f"{'latency':>8} {'K':>3} | {'ours/s':>7} {'floor/s':>7} {'ratio':>6} | "
    head += f"{'ours p99':>9} {'floor p99':>9} {'ratio':>6} | {'ours xK=1':>9} {'errors':>6}"
    print(head)
    base: dict[float, float] = {}
    for row in rows:
        ours, floor = row["ours"], row["floor"]
        base.setdefault(row["latency_ms"], ours["calls_per_s"])
        print(
            f"{row['latency_ms']:>6.0f}ms {row['clients']:>3} | "
            f"{ours['calls_per_s']:>7.1f} {floor['calls_per_s']:>7.1f} "
            f"{ours['calls_per_s'] / floor['calls_per_s']:>5.2f}x | "
            f"{ours['p99_ms']:>7.0f}ms {floor['p99_ms']:>7.0f}ms "
            f"{ours['p99_ms'] / floor['p99_ms']:>5.2f}x | "
            f"{ours['calls_per_s'] / base[row['latency_ms']]:>8.1f}x {ours['errors']:>6}"
        )


if __name__ == "__main__":
    main()
