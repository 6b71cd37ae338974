"""Replicas behind a load balancer: nginx, three `toolspecs serve --stateless`, one Redis.

Real parts only: Debian's nginx (tests/mcp/load_balancer.py) on 127.0.0.1, round robin
over three ``toolspecs serve --sandbox --http --stateless --store REDIS arxiv`` processes
(the real command line, one shared token in ``$TOOLSPECS_SERVE_TOKEN``, each told the
load balancer's address with ``--allowed-host``), the session's redis-server
(tests/conftest.py), and the official MCP clients: the Python SDK's, in both eras (the
2025-11-25 handshake, each request standing alone; and the sessionless 2026-07-28
protocol), and the TypeScript SDK's (tests/mcp_client). Which replica ran a call is read
from its own log (``--log-format json``: one record per tool call).
"""

from __future__ import annotations

import contextlib
import json
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx2
import pytest
from load_balancer import LoadBalancer, free_port, load_balancer, nginx_binary
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from oauth_server import real_clock_env

from toolspecs.loaders.arxiv.testing import NEEDLE

pytestmark = pytest.mark.serving

TOOLSPECS = Path(sys.executable).with_name("toolspecs")
TOKEN = "replica-token-" + "r" * 32  # every replica the same: one person's server
STORE = ("arxiv_paper_text", {"paper_id": "1706.03762"})
READ = ("read_stored_papers", {"query": "quokka ablation"})


@dataclass
class Replica:
    """One ``toolspecs serve`` process: its address and everything it logged."""

    process: subprocess.Popen[str]
    address: str = ""
    lines: list[str] = field(default_factory=list)
    reader: threading.Thread | None = None

    def stop(self) -> None:
        """Terminate (bounded; killed if need be), then close its pipe."""
        with contextlib.suppress(ProcessLookupError):
            self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        if self.reader is not None:
            self.reader.join(timeout=30)  # the pipe ends with the process
        if self.process.stderr is not None:
            self.process.stderr.close()

    def ran(self) -> list[str]:
        """The tools this replica ran, in order (its tool-call log records)."""
        records = [json.loads(line) for line in list(self.lines) if line.startswith("{")]
        return [r["tool"] for r in records if r.get("logger") == "toolspecs.calls"]


@dataclass
class Deployment:
    """nginx in front of the replicas."""

    balancer: LoadBalancer
    replicas: list[Replica]

    @property
    def url(self) -> str:
        return f"{self.balancer.url}/mcp"

    def who_ran(self, tool: str) -> list[int]:
        """The indexes of the replicas that ran ``tool``, once per call."""
        return [i for i, r in enumerate(self.replicas) for name in r.ran() if name == tool]


def start_replica(redis_url: str, public: str, *extra: str) -> Replica:
    """``toolspecs serve --stateless [EXTRA]`` on a port of its own, once it says where."""
    process = subprocess.Popen(
        [
            str(TOOLSPECS),
            "serve",
            "--sandbox",
            "--http",
            "--stateless",
            "--port",
            "0",
            "--store",
            redis_url,
            "--allowed-host",
            public,
            "--log-format",
            "json",
            *extra,
            "arxiv",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=real_clock_env({"TOOLSPECS_SERVE_TOKEN": TOKEN}),
    )
    replica = Replica(process)
    announced: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            replica.lines.append(line)
            if line.startswith("toolspecs: serving "):
                announced.put(line.rsplit(" at ", 1)[1].strip())

    replica.reader = threading.Thread(target=read, daemon=True)
    replica.reader.start()
    try:
        url = announced.get(timeout=120)
    except queue.Empty:
        replica.stop()
        pytest.fail(f"a replica did not start: {''.join(replica.lines)[-2000:]}")
    replica.address = url.removeprefix("http://").removesuffix("/mcp")
    return replica


@contextlib.contextmanager
def deployed(redis_url: str, folder: Path, *extra: str) -> Iterator[Deployment]:
    """nginx in front of three replicas started with ``EXTRA`` flags; all stopped after."""
    binary = nginx_binary()
    port = free_port()
    replicas: list[Replica] = []
    try:
        for _ in range(3):
            replicas.append(start_replica(redis_url, f"127.0.0.1:{port}", *extra))
        upstreams = [r.address for r in replicas]
        with load_balancer(binary, folder, port, upstreams) as balancer:
            yield Deployment(balancer, replicas)
    finally:
        for replica in replicas:
            replica.stop()


@pytest.fixture
def deployment(redis_url, tmp_path) -> Iterator[Deployment]:
    with deployed(redis_url, tmp_path / "nginx") as running:
        yield running


def text_of(result) -> str:
    # A stored result also links its resource (test_mcp_resources.py): the text comes first.
    block, *links = result.content
    assert all(link.type == "resource_link" for link in links)
    return block.text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_results_stored_through_one_replica_are_read_through_another_and_outlive_it(
    deployment, mode
):
    # One client run through nginx: store a long result, read it (round robin: another
    # replica answers), SIGKILL the replica that stored it, then call on: nginx skips the
    # dead one, and the result is still read, from Redis, through the others.
    async def run() -> list:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        got: list = []
        with anyio.fail_after(120):
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http:
                transport = streamable_http_client(deployment.url, http_client=http)
                async with Client(transport, mode=mode) as client:
                    got.append(await client.call_tool(*STORE))
                    got.append(await client.call_tool(*READ))
                    (storer,) = deployment.who_ran(STORE[0])
                    deployment.replicas[storer].process.send_signal(signal.SIGKILL)
                    deployment.replicas[storer].process.wait(timeout=30)
                    for _ in range(4):  # every replica's turn comes, the dead one's too
                        got.append(await client.call_tool(*READ))
        return got

    stored, *reads = anyio.run(run)
    assert stored.is_error is False and "stored as result 1" in text_of(stored)
    for answer in reads:
        assert answer.is_error is False
        assert NEEDLE in text_of(answer)
    (storer,) = deployment.who_ran(STORE[0])
    readers = deployment.who_ran(READ[0])
    assert len(readers) == 5
    assert readers[0] != storer  # read through another replica than the one that stored
    assert storer not in readers[1:]  # killed: its turns went to the others
    assert len(set(readers[1:])) == 2  # both survivors answered
    answered = deployment.balancer.answered()
    assert {r["upstream"].split(", ")[-1] for r in answered} >= {
        deployment.replicas[i].address for i in {storer, *readers}
    }


def test_the_typescript_sdk_reads_through_one_replica_what_it_stored_through_another(
    typescript_client, deployment
):
    calls = [{"name": n, "arguments": a} for n, a in (STORE, READ, READ)]
    headers = json.dumps({"Authorization": f"Bearer {TOKEN}"})
    got = typescript_client.calls(
        calls, deployment.url, env=real_clock_env({"MCP_HTTP_HEADERS": headers})
    )
    assert got["server"]["name"] == "toolspecs"
    stored, *reads = (call["result"] for call in got["calls"])
    assert "stored as result 1" in stored["content"][0]["text"]
    for read in reads:
        assert not read.get("isError") and NEEDLE in read["content"][0]["text"]
    (storer,) = deployment.who_ran(STORE[0])
    readers = deployment.who_ran(READ[0])
    assert len(readers) == 2 and storer not in readers


def test_the_cap_on_running_calls_holds_across_replicas(redis_url, tmp_path):
    # Every call held 3 s by the fake: six at once through nginx, round robin over three
    # replicas (two or so each, under any one replica's cap of four), run four and refuse
    # two, the count being the token holder's in Redis for every replica together.
    async def one(url: str, results: list) -> None:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        with anyio.fail_after(120):
            async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60)) as http:
                transport = streamable_http_client(url, http_client=http)
                async with Client(transport, mode="legacy") as client:
                    query = {"query": "attention", "max_results": 1}
                    results.append(await client.call_tool("arxiv_query", query))

    async def six(url: str) -> list:
        results: list = []
        async with anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(one, url, results)
        return results

    with deployed(redis_url, tmp_path / "nginx", "--sandbox-latency", "3s") as slow:
        texts = [text_of(r) for r in anyio.run(six, slow.url)]
        refused = [t for t in texts if t.startswith("You already have 4 tool calls running.")]
        assert len(refused) == 2, texts
        assert sum("arXiv id:" in t for t in texts) == 4
        assert len(set(slow.who_ran("arxiv_query"))) >= 2  # the four ran on several replicas
