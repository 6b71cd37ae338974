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
from installed import missing

# Our own bugs must surface in tests, not turn into "the tool failed" text.
os.environ["TOOLSPECS_STRICT"] = "1"

# "Now", for every test and every process a test starts: toolspecs reads the wall clock
# only through toolspecs.core.clock.now(), which $TOOLSPECS_NOW pins. By default a fixed
# Monday morning in New York; TOOLSPECS_TEST_NOW=<ISO instant> pins another, and
# TOOLSPECS_TEST_NOW=system pins the system clock as the session starts (.ci/clocks does
# that under libfaketime). Fixtures build their dates from the ``now`` fixture, so the
# suite passes whatever instant it is given.
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

# The other clocks a date-sensitive test (marked ``dates``) runs under, in the same run:
# toolspecs' "now" and the machine's zone ($TZ) moved to a moment calendars get wrong. Each
# is a wall time in its zone; of two equal wall times, the first is meant.
CLOCKS = {
    # At 02:00 the clocks jump to 03:00: this "tomorrow" is a 23-hour day.
    "ny-spring-forward": ("2027-03-14T01:30:00", "America/New_York"),
    # At 02:00 the clocks fall back to 01:00: 01:30 comes twice (this is the first).
    "ny-fall-back": ("2027-11-07T01:30:00", "America/New_York"),
    # A leap day, half an hour before March.
    "ny-leap-day": ("2028-02-29T23:30:00", "America/New_York"),
    # Ten minutes before the new year at UTC+13: in UTC it is still the old year's morning.
    "auckland-new-year": ("2026-12-31T23:50:00", "Pacific/Auckland"),
}
DEFAULT_CLOCK = "default"  # TEST_NOW, the machine's own zone


def clock_instant(name: str) -> dt.datetime:
    """The instant the clock ``name`` pins "now" to."""
    if name == DEFAULT_CLOCK:
        return TEST_NOW
    from zoneinfo import ZoneInfo

    wall, zone = CLOCKS[name]
    return dt.datetime.fromisoformat(wall).replace(tzinfo=ZoneInfo(zone), fold=0)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--clocks",
        default="all",
        help=f"the clocks the tests marked `dates` run under: all (the default), or some of "
        f"{DEFAULT_CLOCK}, {', '.join(CLOCKS)}, separated by commas",
    )


def _clocks(config: pytest.Config) -> list[str]:
    asked = str(config.getoption("--clocks")).strip()
    if asked == "all":
        return [DEFAULT_CLOCK, *CLOCKS]
    names = [name.strip() for name in asked.split(",") if name.strip()]
    if not names or any(name != DEFAULT_CLOCK and name not in CLOCKS for name in names):
        raise pytest.UsageError(
            f"--clocks={asked!r}: use all, or some of {DEFAULT_CLOCK}, {', '.join(CLOCKS)}"
        )
    return names


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked ``dates`` runs once under each clock that ``--clocks`` names."""
    if metafunc.definition.get_closest_marker("dates") is not None:
        names = _clocks(metafunc.config)
        metafunc.parametrize("clock", names, indirect=True, ids=names)


# -- marks that say what a test does, checked ----------------------------------------
# A test that reads "now" or the machine's zone in this process must be marked ``dates``
# (then it meets every clock); one that starts a server or an outside program must be
# marked ``serving`` (the scripts run those once, on one Python). Both are seen, not
# declared: the seams toolspecs reads time through are wrapped, and so is subprocess.Popen
# (which subprocess.run and asyncio's subprocesses use), for the whole session.
SERVING_PROGRAMS = frozenset({"toolspecs", "node", "redis-server", "nginx"})


class _Seen:
    """What the tests of this process did: reads of the clock, programs started."""

    def __init__(self) -> None:
        self.clock_reads = 0
        self.programs: list[str] = []
        self.fixtures: list[str] = []  # each fixture set up, in order
        # Fixtures that start a serving program, or use one that does: every test using one
        # (by argument or by request.getfixturevalue) serves too.
        self.serving_fixtures: set[str] = set()

    def count_calls(self, module: object, name: str) -> None:
        """Count the calls of ``module.name`` as reads of the clock."""
        original = getattr(module, name)

        def counted(*args, **kwargs):
            self.clock_reads += 1
            return original(*args, **kwargs)

        setattr(module, name, counted)

    def watch_processes(self) -> None:
        """Note the program of every process started."""
        original = subprocess.Popen.__init__
        programs = self.programs

        def init(popen, args, *rest, **options):
            first = args if isinstance(args, str | bytes | os.PathLike) else args[0]
            words = os.fsdecode(first).split()
            programs.append(os.path.basename(words[0]) if words else "")
            original(popen, args, *rest, **options)

        subprocess.Popen.__init__ = init  # type: ignore[method-assign]

    def mark(self) -> tuple[int, int, int]:
        return self.clock_reads, len(self.programs), len(self.fixtures)


_SEEN = _Seen()
_SEEN_BEFORE = pytest.StashKey[tuple[int, int, int]]()


class _ServingFixtures:
    """Notes the fixtures whose setup starts a serving program.

    A plugin of the session, not a hook of this conftest: a conftest's hooks do not see the
    setup of session-scoped fixtures (redis_server).
    """

    def __init__(self) -> None:
        # Per fixture being set up (innermost last): the serving programs that fixtures set
        # up inside it started. A program started by a session fixture set up on the way
        # (redis_server, through request.getfixturevalue) is that fixture's, not its user's:
        # else a parametrized fixture would count as serving for its every parameter, and
        # only where the session fixture happened to start under it.
        self._inner: list[int] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: pytest.FixtureDef, request: pytest.FixtureRequest):
        _SEEN.fixtures.append(fixturedef.argname)
        started = len(_SEEN.programs)
        self._inner.append(0)
        try:
            return (yield)
        finally:
            inner = self._inner.pop()
            serving = sum(p in SERVING_PROGRAMS for p in _SEEN.programs[started:])
            if self._inner:
                self._inner[-1] += serving
            if serving > inner or set(fixturedef.argnames) & _SEEN.serving_fixtures:
                _SEEN.serving_fixtures.add(fixturedef.argname)


def pytest_configure(config: pytest.Config) -> None:
    from toolspecs.base import times
    from toolspecs.core import clock

    _SEEN.count_calls(clock, "_pinned")  # every clock.now() goes through it
    _SEEN.count_calls(clock, "system_timezone")
    _SEEN.count_calls(times, "local_timezone")  # the loaders' own, without toolspecs-core
    _SEEN.count_calls(times, "wall_clock")
    _SEEN.watch_processes()
    config.pluginmanager.register(_ServingFixtures(), "toolspecs-serving-fixtures")


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item):
    item.stash[_SEEN_BEFORE] = _SEEN.mark()  # before any fixture, of any scope, is set up
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield
    reads, started, set_up = item.stash.get(_SEEN_BEFORE, _SEEN.mark())
    wrong = []
    read = _SEEN.clock_reads > reads or "now" in getattr(item, "fixturenames", ())
    if read and item.get_closest_marker("dates") is None:
        wrong.append(
            "reads the date or the machine's zone: mark it `dates`, so that it meets every clock"
        )
    servers = sorted(set(_SEEN.programs[started:]) & SERVING_PROGRAMS)
    fixtures = {*getattr(item, "fixturenames", ()), *_SEEN.fixtures[set_up:]}
    used = sorted(fixtures & _SEEN.serving_fixtures)
    if (servers or used) and item.get_closest_marker("serving") is None:
        what = f"starts {', '.join(servers)}" if servers else f"uses {', '.join(used)}"
        wrong.append(f"{what}, a server: mark it `serving`")
    if wrong:
        pytest.fail(f"{item.nodeid} " + "; ".join(wrong), pytrace=False)
    return result


@pytest.fixture(autouse=True)
def clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The name of the clock this test runs under.

    "Now" is pinned, here and in the processes the test starts; under a clock of ``CLOCKS``
    the machine's zone ($TZ) is moved too.
    """
    name = getattr(request, "param", DEFAULT_CLOCK)
    monkeypatch.setenv("TOOLSPECS_STRICT", "1")
    monkeypatch.setenv("TOOLSPECS_NOW", clock_instant(name).isoformat())
    if name != DEFAULT_CLOCK:
        monkeypatch.setenv("TZ", CLOCKS[name][1])
        time.tzset()
    yield name
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def now(clock: str) -> dt.datetime:
    """The instant the tools read as now in this test (aware)."""
    return clock_instant(clock)


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


def _numeric(host: object) -> bool:
    """Whether ``host`` is an IP address, which a resolver reads without asking any DNS."""
    import ipaddress

    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    try:
        ipaddress.ip_address(str(host).strip("[]"))
    except ValueError:
        return False
    return True


def _failing_lookups(monkeypatch: pytest.MonkeyPatch, errno: str, message: str) -> list[str]:
    import socket

    asked: list[str] = []
    code = getattr(socket, errno, -1)  # a platform may lack the constant
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if _numeric(host):  # an address is read, not looked up (the sandbox's 127.0.0.1)
            return real(host, *args, **kwargs)
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
    more. An IP address (a sandbox's 127.0.0.1) is read without a lookup, as glibc
    reads it, and connects as usual. Returns the host names asked for, one per lookup.
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
# are skipped with a message, except under CI, where that is a failure (tests/installed.py):
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
        missing("redis-server is not installed (apt-get install redis-server)")
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
