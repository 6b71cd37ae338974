"""Load on ``toolspecs serve --sandbox --http gmail``, next to a floor server, in one run.

Run from anywhere:

    uv run --frozen python bench/serve_load.py [--clients 1,8,32,64] [--calls 30]
        [--latency 0,150ms] [--llamahub] [--json]

For each sandbox latency (``--sandbox-latency``: the fake Gmail waits that long before
answering each request, as Google's round trip would), these servers run as processes of
their own on 127.0.0.1:

- ours: ``toolspecs serve --sandbox --http --port 0 gmail --sandbox-latency L``;
- the floor: the same mcp SDK's low-level ``Server`` with one tool, ``search_messages``,
  that answers a fixed text after waiting what ours waits for Google in one call
  (``L`` times the requests one ``search_messages`` call makes to the fake, counted
  first), served by the same ``serve_http`` (uvicorn, bearer token, the same limits):
  everything but the tool;
- bare: the same work without our serving layer: our spec's own ``search_messages``
  method (no guard, no deadline, no structured result) on its own copy of the same
  sandbox mailbox and latency, a tool of the SDK's ``MCPServer`` (which runs a sync
  function in a worker thread, as ours does), answering its documents' text; served by
  the same ``serve_http``. Ours against it is what our layer costs;
- with ``--llamahub``, the same work the obvious way: LlamaHub's ``GmailToolSpec`` (from
  bench/.venv-llamahub, made by ``bench/schema_tokens.py``) served as bare is.

Every server freezes its startup heap before serving, as ``toolspecs serve`` does
(``settle_heap``).

Then, for each K in ``--clients``, K official mcp Python clients at once (each its own
HTTP client and MCP session) make ``--calls`` ``search_messages`` calls each, one after
another, against each server in turn: the steady state, each session having listed the
tools and made one call before the clock (a client checks a tool's output schema on its
first result, once a session). Printed per (latency, K): calls per second and the p99 of
one call's time for each side, ours as a ratio of the floor's and of bare's, ours at K as
a multiple of ours at K=1, and (on Linux) each server's CPU milliseconds per call: the
clients share the machine's cores with the servers, so what a server spends per call is
what bounds its rate. Every wait is bounded; the servers are always stopped. Loopback only.
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


def the_work() -> tuple[int, float]:
    """One sandbox ``search_messages`` call's requests to the fake, and its CPU alone.

    The CPU milliseconds of our spec's own method (what bare serves), in this process:
    building Google's requests, sending them over HTTP to the sandbox's fake Google on
    127.0.0.1 (in this process), the fake answering them, reading and rendering.
    """
    from toolspecs.core import load_spec
    from toolspecs.specs.gmail import sandbox

    with sandbox.start() as google:  # the sandbox's server, whose requests we count
        spec = load_spec("gmail", **sandbox.connect(google))
        out = spec.call_tool("search_messages", **QUERY)
        assert not out.is_error, out.content
        trips = len(google.gmail.requests)
        for _ in range(50):  # warm
            spec.search_messages(**QUERY)
        rounds = 500
        start = time.process_time()
        for _ in range(rounds):
            spec.search_messages(**QUERY)
        return trips, (time.process_time() - start) * 1000 / rounds


# -- the comparison servers (run as ``serve_load.py --floor SECONDS`` or ``--same-work``) --


def serve_alone(server: Any, name: str) -> None:
    """Serve ``server`` as ``toolspecs serve --http`` does: same collector, same transport."""
    import anyio

    from toolspecs.cli.commands import settle_heap
    from toolspecs.server.transports import serve_http

    def ready(url: str) -> None:
        print(f"toolspecs: serving {name} at {url}", file=sys.stderr, flush=True)

    settle_heap()
    anyio.run(lambda: serve_http(server, port=0, ready=ready, token=TOKEN))


def floor_main(wait: float) -> None:
    """Serve the floor: one tool answering a fixed text after ``wait`` seconds."""
    import anyio
    import mcp_types
    from mcp.server import Server

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

    serve_alone(Server("floor", on_list_tools=list_tools, on_call_tool=call_tool), "floor")


def same_work_main(whose: str, latency: float) -> None:
    """Serve a plain ``search_messages`` on a sandbox mailbox through the SDK's ``MCPServer``.

    ``whose``: ``bare`` is our spec's own method (no guard, no MCP layer of ours), ``llamahub``
    LlamaHub's ``GmailToolSpec``. Either answers its documents' text.
    """
    from mcp.server.mcpserver import MCPServer

    from toolspecs.core import load_spec
    from toolspecs.core.registry import sandbox_arguments
    from toolspecs.loaders.google.service import build_service

    arguments = sandbox_arguments("gmail", latency)
    if whose == "bare":
        spec = load_spec("gmail", **arguments)
    else:
        from gmail import llamahub_spec_class  # bench/gmail.py: checks the venv's versions

        spec = llamahub_spec_class()()
        # The sandbox's fake Google, reached as ours reaches it (``arguments`` keeps it up).
        spec.service = build_service(
            "gmail",
            "v1",
            credentials=arguments["creds"],
            client_options=arguments["client_options"],
        )
    app = MCPServer(whose)

    @app.tool()
    def search_messages(query: str, max_results: int | None = None) -> str:
        """Search mail."""
        found = spec.search_messages(query=query, max_results=max_results)
        return "\n\n".join(document.text for document in found)

    # MCPServer's low-level server, so the same serve_http serves it (a private name).
    serve_alone(app._lowlevel_server, whose)


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


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user and system) process ``pid`` has used, where Linux says."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, clients: int, calls: int, pid: int | None = None) -> dict[str, Any]:
    """``clients`` official mcp clients at once, ``calls`` calls each: rate and p99.

    With the server's ``pid`` (Linux), also its CPU milliseconds per call.
    """
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
            # One call before the clock: the client compiles a tool's output schema on its
            # first result, once a session (jsonschema's check against the 2020-12
            # metaschema: ~12 ms for ours, none for the floor's, which declares none).
            await client.call_tool("search_messages", QUERY)
            await opened.wait()  # every session open and warm before the clock starts
            first = time.perf_counter()
            for _ in range(calls):
                start = time.perf_counter()
                result = await client.call_tool("search_messages", QUERY)
                times.append(time.perf_counter() - start)
                failures += bool(result.is_error)
            spans.append((first, time.perf_counter()))
            await done.wait()  # sessions close after every client is done

    cpu: list[float | None] = []

    async def run() -> None:
        tasks = [asyncio.create_task(one()) for _ in range(clients)]
        await opened.wait()
        cpu.append(cpu_seconds(pid))
        while len(spans) < clients and not any(t.done() for t in tasks):
            await asyncio.sleep(0.01)
        cpu.append(cpu_seconds(pid))
        done.set()
        await asyncio.gather(*tasks)

    await asyncio.wait_for(run(), 600)
    wall = max(end for _, end in spans) - min(start for start, _ in spans)
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
    before, after = cpu
    used = None if before is None or after is None else after - before
    return {
        "calls_per_s": len(times) / wall,
        "p99_ms": p99 * 1000,
        "errors": failures,
        "cpu_ms_per_call": None if used is None else used * 1000 / len(times),
    }


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
    parser.add_argument("--llamahub", action="store_true", help="LlamaHub's spec too")
    parser.add_argument("--json", action="store_true", help="print JSON rows")
    parser.add_argument("--floor", type=float, help=argparse.SUPPRESS)  # internal
    parser.add_argument("--same-work", nargs=2, help=argparse.SUPPRESS)  # internal
    args = parser.parse_args()
    if args.floor is not None:
        floor_main(args.floor)
        return
    if args.same_work is not None:
        same_work_main(args.same_work[0], float(args.same_work[1]))
        return
    ks = [int(k) for k in args.clients.split(",")]
    trips, work = the_work()
    rows: list[dict[str, Any]] = []
    for latency in [seconds(x) for x in args.latency.split(",")]:
        ours_cmd = [str(TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0", "gmail"]
        ours_cmd += ["--sandbox-latency", f"{latency}", "--max-sessions", str(max(ks) + 8)]
        commands = {"ours": ours_cmd}
        commands["floor"] = [sys.executable, __file__, "--floor", str(latency * trips)]
        for whose in ["bare", "llamahub"] if args.llamahub else ["bare"]:
            commands[whose] = [sys.executable, __file__, "--same-work", whose, f"{latency}"]
        with contextlib.ExitStack() as stack:
            served = {
                side: stack.enter_context(server(cmd, pid=True)) for side, cmd in commands.items()
            }
            for url, _ in served.values():
                asyncio.run(load(url, 1, 3))  # warm up each
            for k in ks:
                row: dict[str, Any] = {"latency_ms": latency * 1000, "clients": k}
                for side, (url, pid) in served.items():
                    row[side] = asyncio.run(load(url, k, args.calls, pid))
                rows.append(row)
    if args.json:
        found = {"round_trips_per_call": trips, "work_cpu_ms_per_call": work, "rows": rows}
        print(json.dumps(found, indent=2))
        return
    print(f"our spec's search_messages alone: {work:.2f} ms of CPU a call, in this process")
    print_table(rows, trips, args.calls)


def print_table(rows: list[dict[str, Any]], trips: int, calls: int) -> None:
    """The rows as a table: ours against the floor, bare and LlamaHub's (when measured)."""
    print(f"search_messages: {trips} requests to the fake Gmail per call; {calls} calls per client")
    sides = [side for side in ("ours", "floor", "bare", "llamahub") if side in rows[0]]
    head = f"{'latency':>8} {'K':>3} |" + "".join(f" {side + '/s':>10}" for side in sides)
    head += f" {'ours/floor':>10} |" + "".join(f" {side + ' p99':>13}" for side in sides)
    head += " | " + " ".join(f"{side + ' cpu':>12}" for side in sides)
    head += f" | {'ours xK=1':>9} {'errors':>6} | {'ours/bare':>9}"
    if "llamahub" in sides:
        head += f" {'ours/llamahub':>13}"
    print(head)
    base: dict[float, float] = {}
    for row in rows:
        rate = {side: row[side]["calls_per_s"] for side in sides}
        base.setdefault(row["latency_ms"], rate["ours"])
        line = f"{row['latency_ms']:>6.0f}ms {row['clients']:>3} |"
        line += "".join(f" {rate[side]:>10.1f}" for side in sides)
        line += f" {rate['ours'] / rate['floor']:>9.2f}x |"
        line += "".join(f" {row[side]['p99_ms']:>11.0f}ms" for side in sides)
        cpu = [row[side]["cpu_ms_per_call"] for side in sides]
        line += " | " + " ".join("           ?" if c is None else f"{c:>7.2f}ms/c" for c in cpu)
        line += f" | {rate['ours'] / base[row['latency_ms']]:>8.1f}x"
        line += f" {sum(row[side]['errors'] for side in sides):>6}"
        line += f" | {rate['ours'] / rate['bare']:>8.2f}x"
        if "llamahub" in sides:
            line += f" {rate['ours'] / rate['llamahub']:>12.2f}x"
        print(line)


if __name__ == "__main__":
    main()
