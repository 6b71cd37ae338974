"""Shared fixtures. Every test is offline: HTTP is faked at the transport with ``responses``."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

# Our own bugs must surface in tests, not turn into "the tool failed" text.
os.environ["TOOLSPECS_STRICT"] = "1"

# "Now", for every test and every process a test starts: toolspecs reads the wall clock
# only through toolspecs.core.clock.now(), which $TOOLSPECS_NOW pins. By default a fixed
# Monday morning in New York; TOOLSPECS_TEST_NOW=<ISO instant> pins another, and
# TOOLSPECS_TEST_NOW=system pins the system clock as the session starts (.ci/run does that
# under libfaketime at daylight-saving changes, a leap day and a year's end). Fixtures build
# their dates from the ``now`` fixture, so the suite passes whatever instant it is given.
DEFAULT_TEST_NOW = "2026-11-23T10:00:00-05:00"
_asked = os.environ.get("TOOLSPECS_TEST_NOW", "").strip() or DEFAULT_TEST_NOW
TEST_NOW = (
    dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    if _asked == "system"
    else dt.datetime.fromisoformat(_asked)
)
os.environ["TOOLSPECS_NOW"] = TEST_NOW.isoformat()
# No test writes into the user's own paper cache (tests of the cache set a directory).
os.environ["TOOLSPECS_ARXIV_CACHE"] = "off"


@pytest.fixture(autouse=True)
def _strict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSPECS_STRICT", "1")
    monkeypatch.setenv("TOOLSPECS_NOW", TEST_NOW.isoformat())


@pytest.fixture
def now() -> dt.datetime:
    """The instant the tools read as now in this run (aware, UTC or the pin's offset)."""
    return TEST_NOW


@pytest.fixture(autouse=True)
def no_backoff_sleep(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """googleapiclient's retry backoff records its waits instead of sleeping."""
    slept: list[float] = []
    monkeypatch.setattr("googleapiclient.http.time.sleep", slept.append)
    return slept


@pytest.fixture
def server_in_utc(monkeypatch: pytest.MonkeyPatch):
    """The process runs in UTC, so times that must be the user's cannot pass by accident."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def mocked_responses():
    """A ``responses`` mock that fails on any request it was not told about."""
    import responses

    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


def _failing_lookups(monkeypatch: pytest.MonkeyPatch, errno: str, message: str) -> list[str]:
    import socket

    asked: list[str] = []
    code = getattr(socket, errno, -1)  # a platform may lack the constant

    def getaddrinfo(host, *args, **kwargs):
        asked.append(host)
        raise socket.gaierror(code, message)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


@pytest.fixture
def no_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """This machine without network: every name lookup fails, as glibc fails it then.

    The real HTTP stacks (requests/urllib3, httpx/httpcore, httplib2) run down to
    ``socket.getaddrinfo``, which raises ``socket.gaierror`` before any packet is sent:
    ``EAI_AGAIN`` ("Temporary failure in name resolution"), which a client tries once
    more. Returns the host names asked for, one per lookup.
    """
    return _failing_lookups(monkeypatch, "EAI_AGAIN", "Temporary failure in name resolution")


@pytest.fixture
def no_dns_noname(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """As ``no_dns``, but every name is unknown (``EAI_NONAME``): final at once, no retry."""
    return _failing_lookups(monkeypatch, "EAI_NONAME", "Name or service not known")


@pytest.fixture
def refused(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name resolves (to 192.0.2.1, a documentation address) and every connection is
    refused by ``socket.socket.connect``: nothing leaves the machine. Returns the host
    names looked up, one per lookup (one per connection tried)."""
    import socket

    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.0.2.1", int(port or 443)))]

    def connect(self, address):
        # Closed here: httplib2 drops the socket of a refused connection without closing
        # it (a ResourceWarning later); closing a socket twice is harmless for the others.
        self.close()
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket.socket, "connect", connect)
    return asked


# A real redis-server for the Redis store's tests (tests/core) and the replicas' (tests/mcp):
# started once per test session on 127.0.0.1 at a free port, without persistence, in a
# temporary folder; each test gets an empty database. Where the binary is missing the tests
# are skipped with a message, except under CI (``CI`` set), where that is a failure:
# .ci/run installs it from Debian (``apt-get install redis-server``).


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(process: subprocess.Popen[bytes], port: int) -> bool:
    """Whether the server at ``port`` answers PING, within about ten seconds (200 tries)."""
    for _ in range(200):  # counted, not timed: the tests' clock may be faked
        if process.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    return True
        except OSError:
            threading.Event().wait(0.05)
    return False


def _start_redis(folder: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server of this test session, in ``folder``, and its URL.

    Skipped where the binary is missing (a failure under CI).
    """
    binary = shutil.which("redis-server")
    if binary is None:
        message = "redis-server is not installed (apt-get install redis-server)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}: CI must run the Redis tests", pytrace=False)
        pytest.skip(message)
    # The server keeps the real clock under libfaketime (.ci/clocks moves the tests' clock
    # only): faked, its timers and expiry misbehave and it may not answer at all.
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "LD_PRELOAD" and not k.startswith(("FAKETIME", "DONT_FAKE"))
    }
    for _ in range(5):  # the port may be taken between choosing and binding it
        port = _free_port()
        # No persistence (no RDB snapshot, no append-only file), files in a temp folder.
        options = ["--save", "", "--appendonly", "no", "--dir", str(folder)]
        log = ["--logfile", str(folder / "redis.log")]
        process = subprocess.Popen(
            [binary, "--bind", "127.0.0.1", "--port", str(port), *options, *log],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        if _answers(process, port):
            return process, f"redis://127.0.0.1:{port}/0"
        process.kill()
        process.wait()
    log_text = (folder / "redis.log").read_text() if (folder / "redis.log").exists() else ""
    pytest.fail(f"redis-server did not start: {log_text}")


def _stop_redis(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a redis-server this session started (and stops at its end)."""
    process, url = _start_redis(tmp_path_factory.mktemp("redis"))
    try:
        yield url
    finally:
        _stop_redis(process)


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[str, Callable[[], None]]]:
    """A redis-server of this test's own, to stop in the middle: its URL and its stop."""
    process, url = _start_redis(tmp_path)
    try:
        yield url, lambda: _stop_redis(process)
    finally:
        _stop_redis(process)


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The URL of an empty database of the session's redis-server."""
    redis = pytest.importorskip("redis")
    client = redis.Redis.from_url(redis_server)
    client.flushdb()
    yield redis_server
    client.flushdb()
    client.close()
