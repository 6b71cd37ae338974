"""A real redis-server for the tests of the Redis store (toolspecs.core.redis_store).

Started once per test session on 127.0.0.1 at a free port, without persistence, in a
temporary folder; each test gets an empty database. Where the binary is missing the tests
are skipped with a message, except under CI (``CI`` set), where that is a failure:
.ci/run installs it from Debian (``apt-get install redis-server``).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a redis-server this session started (and stops at its end)."""
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run the Redis tests", pytrace=False)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("redis")
    for _ in range(5):  # the port may be taken between choosing and binding it
        port = _free_port()
        # No persistence (no RDB snapshot, no append-only file), files in a temp folder.
        options = ["--save", "", "--appendonly", "no", "--dir", str(folder)]
        log = ["--logfile", str(folder / "redis.log")]
        process = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), *options, *log],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                time.sleep(0.05)
        if process.poll() is None:
            break
    else:
        pytest.fail(f"redis-server did not start: {(folder / 'redis.log').read_text()}")
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The URL of an empty database of the session's redis-server."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(redis_server)
    client.flushdb()
    yield redis_server
    client.flushdb()
    client.close()
