"""Memory of ``toolspecs serve``: per idle MCP session, and per signed-in user's own specs.

Run from anywhere:

    uv run --frozen python bench/serve_memory.py [--sessions 64] [--users 64] [--json]

1. **Idle sessions.** ``toolspecs serve --sandbox --http gmail google_calendar`` and the
   floor server of ``bench/serve_load.py`` (the same mcp SDK and ``serve_http``, one tool)
   run as processes of their own. Each gets one session opened and closed (warm-up), then
   ``--sessions`` official mcp Python clients open a session each, list the tools and
   stay idle. Printed: each server's resident memory (``VmRSS``) before and with the
   sessions open, and the growth per session, ours beside the floor's.
2. **Signed-in users.** In this process, :class:`toolspecs.server.user_tools.UserTools`
   builds ``--users`` users' own Gmail and Calendar specs, as ``serve --google-sign-in``
   and ``--google-delegate`` do (new spec instances with the user's credentials), and
   each user makes one Gmail and one Calendar call, so their Google API clients are built
   too. The Google fakes stand in for Google (one fake, shared, so only the users' own
   objects are counted). Printed: the Python heap per user (``tracemalloc``, after a
   collection) and the resident memory per user.

The bounds these figures multiply: ``--max-sessions`` (64 by default) and
``toolspecs.server.user_tools.MAX_USERS`` (256); idle users' specs are dropped after
``IDLE_SECONDS``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import sys
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import serve_load

MIB = 1024 * 1024


def rss(pid: int | str = "self") -> int:
    """Resident bytes of a process (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


async def hold_sessions(url: str, count: int, measure: Any) -> Any:
    """Open ``count`` sessions (each lists the tools), call ``measure()`` while they idle."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {serve_load.TOKEN}"}
    async with contextlib.AsyncExitStack() as stack:
        for _ in range(count):
            http = await stack.enter_async_context(
                httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60))
            )
            client = await stack.enter_async_context(
                Client(streamable_http_client(url, http_client=http), mode="legacy")
            )
            await client.list_tools()
        await asyncio.sleep(1)  # the server settles (nothing is pending)
        return measure()


def sessions(count: int) -> dict[str, Any]:
    """Resident memory of ours and the floor, before and with ``count`` idle sessions."""
    ours_cmd = [str(serve_load.TOOLSPECS), "serve", "--sandbox", "--http", "--port", "0"]
    ours_cmd += ["--max-sessions", str(count + 8), "gmail", "google_calendar"]
    floor_cmd = [sys.executable, serve_load.__file__, "--floor", "0"]
    row: dict[str, Any] = {"sessions": count}
    for name, command in (("ours", ours_cmd), ("floor", floor_cmd)):
        with serve_load.server(command, pid=True) as (url, pid):
            asyncio.run(hold_sessions(url, 1, lambda: None))  # warm up
            before = rss(pid)
            during = asyncio.run(hold_sessions(url, count, lambda pid=pid: rss(pid)))
            row[name] = {
                "rss_before_mib": before / MIB,
                "rss_with_sessions_mib": during / MIB,
                "per_session_kib": (during - before) / count / 1024,
            }
    return row


def users(count: int) -> dict[str, Any]:
    """Heap and resident memory per signed-in user's own specs, each used once."""
    from toolspecs.cli.assemble import served_tools
    from toolspecs.core import load_spec
    from toolspecs.core.registry import sandbox_arguments
    from toolspecs.server.user_tools import User, UserTools

    shared = {name: sandbox_arguments(name) for name in ("gmail", "google_calendar")}
    calls = {
        "gmail_search_messages": {"query": "lunch"},
        "google_calendar_load_data": {"number_of_results": 5},
    }

    def build(user: User) -> list[Any]:
        # New instances per user, as serve builds them; the fakes (Google) are shared.
        own = {name: load_spec(name, **arguments) for name, arguments in shared.items()}
        return served_tools(own, [])  # the names serve gives them: gmail_load_data, ...

    names = [tool.metadata.name for tool in build(User.named("names"))]
    kept = UserTools(build, names, max_users=count + 1)

    def use(subject: str) -> None:
        _, tools = kept.get(User.named(subject, "https://id.example.com"))
        for function, arguments in calls.items():
            out = tools[function].call(**arguments)
            assert not out.is_error, out.content

    use("warm-up")  # imports, discovery documents, the fakes' first answers
    gc.collect()
    tracemalloc.start()
    heap_before, rss_before = tracemalloc.get_traced_memory()[0], rss()
    for number in range(count):
        use(f"user-{number}")
    gc.collect()
    heap_after, rss_after = tracemalloc.get_traced_memory()[0], rss()
    tracemalloc.stop()
    assert len(kept) == count + 1
    return {
        "users": count,
        "heap_per_user_kib": (heap_after - heap_before) / count / 1024,
        "rss_per_user_kib": (rss_after - rss_before) / count / 1024,
    }


def main() -> None:
    """Measure and print (or print JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=64, help="idle sessions to open")
    parser.add_argument("--users", type=int, default=64, help="signed-in users to build")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    result = {"sessions": sessions(args.sessions), "users": users(args.users)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    row = result["sessions"]
    print(f"idle sessions: {row['sessions']} (gmail and google_calendar served)")
    for name in ("ours", "floor"):
        side = row[name]
        print(
            f"  {name:5}: {side['rss_before_mib']:6.1f} MiB -> "
            f"{side['rss_with_sessions_mib']:6.1f} MiB, {side['per_session_kib']:6.0f} KiB "
            "per session"
        )
    ratio = row["ours"]["per_session_kib"] / max(row["floor"]["per_session_kib"], 1e-9)
    print(f"  per session, ours / floor: x{ratio:.2f}")
    who = result["users"]
    print(
        f"signed-in users: {who['users']}, each with own Gmail and Calendar specs used once: "
        f"{who['heap_per_user_kib']:.0f} KiB heap, {who['rss_per_user_kib']:.0f} KiB "
        "resident per user"
    )


if __name__ == "__main__":
    main()
