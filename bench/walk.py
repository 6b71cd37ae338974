"""Walk one served call as data: hops, thread hand-offs, ContextVars, result shapes, token reads.

Run from anywhere:

    uv run --frozen python bench/walk.py [--mode auto|legacy] [--verbose] [--json]

The call: ``toolspecs serve --sandbox --http gmail`` (the console script's own entry point,
run in a thread of this process) behind an OAuth authorization server of this process
(JWT access tokens, its key set served on 127.0.0.1: ``--auth-issuer``, ``--auth-jwks``),
and the official mcp Python client, sending one such token, calling ``search_messages``
over streamable HTTP. One call warms the server up (keys fetched, tools built); the next is
walked: every Python function call, return and ``ContextVar.set`` of every thread is seen
(``sys.setprofile``, ``threading.setprofile``) from the moment the client sends it until
its result is back.

What is ours is found by path, never by module name: code in a ``src/toolspecs/`` tree of
this repository, shipped fakes (``testing``) aside; its distribution is the folder before
``src/`` (``core``, ``specs/gmail``, ``loaders/google``...). So the counts survive packages
moving. Printed for the walked call:

- hops: the functions of ours on the call chain at the moment the Gmail API request is
  made (the ``request`` of httplib2, under googleapiclient), from the outermost one the
  request started (the server's request handler) down; the deepest of the call's
  requests. The chain crosses threads: a function that starts a thread's work (or an
  event loop task) is linked to the function of ours that handed it over (the callable
  was an argument of one of its calls), else it is a root. Also the modules and
  distributions on the chain;
- thread hand-offs: how often the chain changes thread, handler to request;
- ContextVars: those defined in the library's ``src`` trees (``ContextVar(`` in the source,
  fakes aside), and those of them set during the call (``ContextVar.set`` traced);
- shapes: the types the result takes on its way back up the chain: what the Gmail client
  (the first googleapiclient/httplib2 frame under the chain) returned, then what each
  function of ours on the chain returned, in order, ``None`` aside; repeats collapsed;
- token reads: the functions of ours given the bearer token as an argument (a string
  holding it), counting one per outermost such function (its callees given it too are the
  same read).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import dis
import inspect
import itertools
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUERY = {"query": "from:ada@example.com", "max_results": 5}
SCOPE = "toolspecs:gmail.read"
# The Gmail client: the libraries a Gmail API request goes through (their top packages).
CLIENT_PACKAGES = ("googleapiclient", "httplib2", "google_auth_httplib2")
GENERATOR_FLAGS = (
    inspect.CO_GENERATOR
    | inspect.CO_COROUTINE
    | inspect.CO_ASYNC_GENERATOR
    | inspect.CO_ITERABLE_COROUTINE
)
RESUME = dis.opmap.get("RESUME")
CONTEXT_VAR_SOURCE = re.compile(r"\bContextVar(\[[^\]=]*\])?\(")


# -- where code is ---------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a function of ours is: its module and its distribution's folder."""

    module: str
    distribution: str


def place_in(root: Path) -> Callable[[str], Place | None]:
    """The place of a code file under ``root``'s ``src/toolspecs`` trees, else ``None``.

    Shipped fakes (a ``testing`` package or module) are not ours: they stand for Google.
    """
    prefix = str(root) + os.sep
    known: dict[str, Place | None] = {}

    def place(filename: str) -> Place | None:
        found = known.get(filename, False)
        if found is not False:
            return found  # type: ignore[return-value]
        found = None
        if filename.startswith(prefix):
            parts = Path(filename[len(prefix) :]).with_suffix("").parts
            if "src" in parts:
                at = parts.index("src")
                dotted = [p for p in parts[at + 1 :] if p != "__init__"]
                if dotted[:1] == ["toolspecs"] and "testing" not in dotted:
                    found = Place(".".join(dotted), "/".join(parts[:at]))
        known[filename] = found
        return found

    return place


def top_package(frame: FrameType) -> str:
    """The top package of the module a frame's code belongs to."""
    return str(frame.f_globals.get("__name__", "")).partition(".")[0]


def is_httplib2_request(code: CodeType) -> bool:
    """Whether ``code`` is httplib2's ``Http.request``: a request going out."""
    return code.co_name == "request" and code.co_filename.endswith(
        os.path.join("httplib2", "__init__.py")
    )


def shape(value: Any) -> str:
    """A value's type as a short name; a list or tuple also names its first item's."""
    kind = type(value)
    name = kind.__qualname__
    if kind in (list, tuple, set, frozenset) and value:
        return f"{name}[{type(next(iter(value))).__qualname__}]"
    return name


# -- the walk --------------------------------------------------------------------------


@dataclass(eq=False)
class Node:
    """One call of a function of ours that started while the walk recorded."""

    seq: int
    code: CodeType
    place: Place
    thread: int
    thread_name: str
    parent: Node | None
    link: str  # "call", "hand-off" (its caller gave it to another thread or task), "root"
    reads_token: bool = False
    returned: str | None = None  # the shape of what it returned, once it has
    returned_id: int = 0  # the identity of what it returned
    carried: frozenset[int] = frozenset()  # the items of a tuple it returned

    @property
    def name(self) -> str:
        """``module.function``."""
        return f"{self.place.module}.{getattr(self.code, 'co_qualname', self.code.co_name)}"

    def chain(self) -> list[Node]:
        """This node and its callers, outermost first."""
        found: list[Node] = []
        node: Node | None = self
        while node is not None:
            found.append(node)
            node = node.parent
        return found[::-1]


@dataclass(eq=False)
class Request:
    """An API request seen: the chain of ours above it, and what the client returned."""

    chain: list[Node]
    client_caller: Node | None  # the function of ours that called the client
    client_returned: str | None = None
    client_returned_id: int = 0


@dataclass
class Walk:
    """Records the calls of every thread while :meth:`recording`; :meth:`result` reads them.

    Args:
        place: Where a code file is, when it is ours (:func:`place_in`).
        is_request: Whether a code object is the API request being walked to.
        client_packages: The top packages of the API client (its first frame under our
            chain returns the first shape).
        token: The bearer token, to see which functions of ours are given it.
    """

    place: Callable[[str], Place | None]
    is_request: Callable[[CodeType], bool] = is_httplib2_request
    client_packages: tuple[str, ...] = CLIENT_PACKAGES
    token: str | None = None
    active: bool = False
    nodes: list[Node] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    sets: list[tuple[contextvars.ContextVar[Any], Node | None]] = field(default_factory=list)
    _live: dict[int, Node] = field(default_factory=dict)  # id(frame) -> its node, while it runs
    # A generator's or coroutine's frame that returned: done, unless it is resumed. Its
    # frame is held (until recording stops), so that no new frame takes its id meanwhile.
    _paused: dict[int, tuple[Node, FrameType]] = field(default_factory=dict)
    _passed: dict[CodeType, list[Node]] = field(default_factory=dict)
    _watched: dict[int, Request] = field(default_factory=dict)  # id(client frame) -> request
    _bytes: dict[CodeType, bytes] = field(default_factory=dict)
    _requests: dict[CodeType, bool] = field(default_factory=dict)
    _seq: Iterator[int] = field(default_factory=itertools.count)

    @contextlib.contextmanager
    def installed(self, this_thread: bool = True) -> Iterator[Walk]:
        """The profiler set for threads started from now on (and this one): idle until
        :meth:`recording`."""
        threading.setprofile(self.profile)
        if this_thread:
            sys.setprofile(self.profile)
        try:
            yield self
        finally:
            if this_thread:
                sys.setprofile(None)
            threading.setprofile(None)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def recording(self) -> Iterator[Walk]:
        """Record what every profiled thread calls until the block ends."""
        self.active = True
        try:
            yield self
        finally:
            self.active = False
            self._paused.clear()

    def profile(self, frame: FrameType, event: str, arg: Any) -> None:
        """The profile function (``sys.setprofile``)."""
        if not self.active:
            return
        if event == "call":
            self._call(frame)
        elif event == "return":
            self._return(frame, arg)
        elif event == "c_call" and getattr(arg, "__name__", "") == "set":
            var = getattr(arg, "__self__", None)
            if isinstance(var, contextvars.ContextVar):
                self.sets.append((var, self._running(frame)))

    def _code_bytes(self, code: CodeType) -> bytes:
        found = self._bytes.get(code)
        if found is None:
            found = self._bytes[code] = code.co_code
        return found

    def _starts(self, frame: FrameType) -> bool:
        """Whether a call event starts the frame (not a generator or coroutine resumed)."""
        if not frame.f_code.co_flags & GENERATOR_FLAGS or frame.f_lasti < 0:
            return True
        code = self._code_bytes(frame.f_code)
        return code[frame.f_lasti] == RESUME and code[frame.f_lasti + 1] == 0

    def _running(self, frame: FrameType | None) -> Node | None:
        """The node of a frame that runs now (on a stack), if it is one of the recorded."""
        if frame is None:
            return None
        node = self._live.get(id(frame))
        if node is None:
            paused = self._paused.get(id(frame))
            if paused is not None and paused[1] is frame:  # resumed unseen (a throw into it)
                node = paused[0]
                node.returned = None
                del self._paused[id(frame)]
                self._live[id(frame)] = node
        return node

    def _caller(self, frame: FrameType) -> Node | None:
        """The innermost recorded function of ours that ``frame`` runs under, in its thread."""
        back = frame.f_back
        while back is not None:
            node = self._running(back)
            if node is not None:
                return node
            back = back.f_back
        return None

    def _arguments(self, frame: FrameType) -> list[Any]:
        """A call's argument values; those in a list or tuple, and ``**kwargs``, one by one."""
        code = frame.f_code
        count = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)
        keywords = code.co_varnames[count] if code.co_flags & inspect.CO_VARKEYWORDS else None
        values: list[Any] = []
        for name in code.co_varnames[:count]:
            value = frame.f_locals.get(name)
            if isinstance(value, (tuple, list)):
                values.extend(value)
            else:
                values.append(value)
        if keywords is not None:
            values.extend(frame.f_locals.get(keywords, {}).values())
        return values

    def _holds_token(self, value: Any) -> bool:
        """Whether ``value`` is the token (a string holding it) or an object whose fields
        hold it (a verified access token); fields are read from ``__dict__``, no property."""
        assert self.token is not None
        if isinstance(value, str):
            return self.token in value
        fields = getattr(value, "__dict__", None)
        if isinstance(fields, dict):
            return any(isinstance(v, str) and self.token in v for v in list(fields.values()))
        return False

    def _note_passed(self, frame: FrameType, values: list[Any]) -> None:
        """Callables (or coroutines) a function of ours passes: who handed them over."""
        giver = self._running(frame.f_back)
        if giver is None:
            return
        for value in values:
            inner = getattr(value, "func", value)  # functools.partial
            inner = getattr(inner, "__func__", inner)  # a bound method
            code = getattr(inner, "__code__", None) or getattr(inner, "cr_code", None)
            if isinstance(code, CodeType):
                self._passed.setdefault(code, []).append(giver)

    def _handed_over(self, code: CodeType) -> Node | None:
        """The last function of ours that passed ``code``'s function (or coroutine) on."""
        givers = self._passed.get(code)
        return givers[-1] if givers else None

    def _call(self, frame: FrameType) -> None:
        code = frame.f_code
        place = self.place(code.co_filename)
        if place is None:
            if self._running(frame.f_back) is not None:
                self._note_passed(frame, self._arguments(frame))
            is_request = self._requests.get(code)
            if is_request is None:
                is_request = self._requests[code] = self.is_request(code)
            if is_request:
                self._request(frame)
            return
        if not self._starts(frame):
            self._running(frame)  # resumed: it had not returned, it was waiting
            return
        parent, link = self._caller(frame), "call"
        if parent is None:
            parent = self._handed_over(code)
            link = "root" if parent is None else "hand-off"
        thread = threading.current_thread()
        node = Node(next(self._seq), code, place, thread.ident or 0, thread.name, parent, link)
        values = self._arguments(frame)
        if self.token is not None:
            node.reads_token = any(self._holds_token(value) for value in values)
        self.nodes.append(node)
        self._live[id(frame)] = node
        self._note_passed(frame, values)

    def _return(self, frame: FrameType, value: Any) -> None:
        request = self._watched.pop(id(frame), None) if self._watched else None
        if request is not None:
            request.client_returned, request.client_returned_id = shape(value), id(value)
            return
        node = self._live.pop(id(frame), None)
        if node is None:
            paused = self._paused.get(id(frame))
            if paused is None or paused[1] is not frame:
                return
            node = paused[0]  # resumed unseen (a throw into it): what it gives now stands
        # What it returned, or (a generator or coroutine) what it gave while it waits: the
        # last one stands once it is not resumed again.
        node.returned, node.returned_id = shape(value), id(value)
        node.carried = (
            frozenset(id(item) for item in value) if type(value) is tuple else frozenset()
        )
        if frame.f_code.co_flags & GENERATOR_FLAGS:
            self._paused[id(frame)] = (node, frame)

    def _request(self, frame: FrameType) -> None:
        """An API request goes out: note the chain of ours above it and the client's frame."""
        stack: list[FrameType] = []
        back: FrameType | None = frame
        while back is not None:
            stack.append(back)
            back = back.f_back
        leaf = next((node for node in map(self._running, stack) if node is not None), None)
        if leaf is None:
            return
        request = Request(leaf.chain(), None)
        for at, outer in enumerate(reversed(stack)):  # from the thread's top down
            if top_package(outer) in self.client_packages:
                above = list(reversed(stack))[:at]
                callers = [node for node in map(self._running, above) if node is not None]
                request.client_caller = callers[-1] if callers else None
                self._watched[id(outer)] = request
                break
        self.requests.append(request)

    def result(self) -> dict[str, Any]:
        """What the walk saw: the deepest request's chain, its threads and shapes; the
        ContextVars set; the token's reads."""
        if not self.requests:
            raise RuntimeError("no API request was seen during the walk")
        deepest = max(self.requests, key=lambda r: len(r.chain))
        chain = deepest.chain
        handoffs = sum(a.thread != b.thread for a, b in itertools.pairwise(chain))
        threads = list(dict.fromkeys(n.thread_name for n in chain))
        collapsed = [s for s, _ in itertools.groupby(self._shapes(deepest))]
        readers = [
            n
            for n in self.nodes
            if n.reads_token and not any(p.reads_token for p in n.chain()[:-1])
        ]
        return {
            "api_requests": len(self.requests),
            "hops": len({n.code for n in chain}),
            "frames": len(chain),
            "modules": sorted({n.place.module for n in chain}),
            "distributions": list(dict.fromkeys(n.place.distribution for n in chain)),
            "thread_handoffs": handoffs,
            "threads": threads,
            "shapes": list(dict.fromkeys(collapsed)),
            "shape_sequence": collapsed,
            "context_vars_set": self._vars_set(),
            "token_reads": [n.name for n in readers] if self.token is not None else None,
            "chain": [
                {
                    "function": n.name,
                    "distribution": n.place.distribution,
                    "thread": n.thread_name,
                    "link": n.link,
                    "returned": n.returned,
                }
                for n in chain
            ],
        }

    def _shapes(self, request: Request) -> list[str]:
        """The shapes of the result on its way up from the client: ``None`` aside, a
        plain tuple carrying what the function below returned (``(arguments, result)``)
        being that value still, not a new shape, and what the function that handed the
        work to another thread returned left out (a handle, not the result)."""
        shapes = [request.client_returned]
        below = request.client_returned_id
        if request.client_caller in request.chain:
            up = request.chain[: request.chain.index(request.client_caller) + 1]
            for index in reversed(range(len(up))):
                node = up[index]
                # What a function that handed the work to another thread returns (a
                # handle, a future) is not the result, which comes back by the hand-off's
                # own channel to the function above it.
                if index + 1 < len(up) and up[index + 1].link == "hand-off":
                    continue
                if below not in node.carried:
                    shapes.append(node.returned)
                below = node.returned_id
        return [s for s in shapes if s is not None and s != "NoneType"]

    def _vars_set(self) -> list[str]:
        """The ContextVars of our modules set during the walk, named ``module.NAME``."""
        ours: dict[int, str] = {}
        for module in list(sys.modules.values()):
            place = self.place(str(getattr(module, "__file__", None) or ""))
            if place is None:
                continue
            for name, value in list(vars(module).items()):
                if isinstance(value, contextvars.ContextVar):
                    ours[id(value)] = f"{place.module}.{name}"
        found = [ours.get(id(var)) for var, _ in self.sets]
        return list(dict.fromkeys(name for name in found if name is not None))


def context_vars_defined(root: Path) -> list[str]:
    """``ContextVar(`` in the library's src trees, fakes aside: ``path:line`` each."""
    place = place_in(root)
    found = []
    for path in sorted(root.glob("**/src/toolspecs/**/*.py")):
        if ".venv" in path.parts or place(str(path)) is None:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if CONTEXT_VAR_SOURCE.search(line):
                found.append(f"{path.relative_to(root)}:{number}")
    return found


# -- the served call -------------------------------------------------------------------


class Issuer:
    """An OAuth authorization server's key set on 127.0.0.1, and its JWT access tokens."""

    def __init__(self) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        import jwt
        from cryptography.hazmat.primitives.asymmetric import rsa

        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        public = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key()))
        body = json.dumps({"keys": [{**public, "kid": "walk", "use": "sig"}]}).encode()

        class KeySet(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), KeySet)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def token(self, audience: str, scope: str) -> str:
        """A signed access token (RFC 9068) of user ``walker`` for ``audience``."""
        import jwt

        now = int(time.time())
        claims = {"iss": self.url, "aud": audience, "sub": "walker", "scope": scope}
        claims |= {"iat": now, "exp": now + 600, "client_id": "walk"}
        headers = {"kid": "walk", "typ": "at+jwt"}
        return jwt.encode(claims, self._key, algorithm="RS256", headers=headers)


def serve_command() -> Callable[[list[str]], Any]:
    """The ``toolspecs`` command's entry point (its console script), wherever it lives."""
    from importlib.metadata import entry_points

    for entry in entry_points(group="console_scripts", name="toolspecs"):
        return entry.load()  # type: ignore[no-any-return]
    raise SystemExit("walk: the toolspecs command is not installed (run `uv sync`)")


def free_port() -> int:
    """A port free on 127.0.0.1 now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_ready(port: int, server: threading.Thread, seconds: float = 120) -> None:
    """Until ``/healthz`` answers (bounded); fails when the server thread ended."""
    import urllib.request

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not server.is_alive():
            raise SystemExit("walk: toolspecs serve stopped (see above)")
        health = f"http://127.0.0.1:{port}/healthz"
        with contextlib.suppress(OSError), urllib.request.urlopen(health, timeout=5):
            return
        time.sleep(0.1)
    raise SystemExit(f"walk: toolspecs serve did not answer in {seconds:.0f} s")


async def call_twice(url: str, token: str, mode: str, walk: Walk) -> Any:
    """As a client sending ``token``: one call to warm up, one walked; the walked result."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with contextlib.AsyncExitStack() as stack:
        http = await stack.enter_async_context(
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60))
        )
        transport = streamable_http_client(url, http_client=http)
        client = await stack.enter_async_context(Client(transport, mode=mode))
        warm = await client.call_tool("search_messages", QUERY)
        assert not warm.is_error, warm.content
        with walk.recording():
            return await client.call_tool("search_messages", QUERY)


def found_messages(result: Any) -> int:
    """How many messages a ``search_messages`` result holds (its structured content)."""
    data = result.structured_content or {}
    lists = [v for v in data.values() if isinstance(v, list)]
    return max((len(v) for v in lists), default=0)


def walk_served_call(mode: str) -> tuple[Walk, Any]:
    """Serve, call once to warm up, walk the second call: the walk and its result."""
    issuer = Issuer()
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    token = issuer.token(url, SCOPE)
    argv = ["serve", "--sandbox", "--http", "--port", str(port), "gmail"]
    argv += ["--auth-issuer", issuer.url, "--auth-jwks", f"{issuer.url}/jwks"]
    command = serve_command()
    walk = Walk(place_in(ROOT), token=token)
    with walk.installed(this_thread=False):  # the server's threads, not the client's
        server = threading.Thread(target=command, args=(argv,), name="event loop", daemon=True)
        server.start()
        wait_ready(port, server)
        result = asyncio.run(asyncio.wait_for(call_twice(url, token, mode, walk), 300))
    return walk, result


# -- output ----------------------------------------------------------------------------


def print_table(found: dict[str, Any], verbose: bool) -> None:
    """The counts as a short table; with ``verbose``, the chain itself."""
    arrow = " -> "
    rows = [
        ("hops: functions of ours, handler -> API request", found["hops"], ""),
        ("  frames on that chain", found["frames"], ""),
        ("  modules on it", len(found["modules"]), ""),
        ("  distributions on it", len(found["distributions"]), ", ".join(found["distributions"])),
        ("thread hand-offs on it", found["thread_handoffs"], arrow.join(found["threads"])),
        ("ContextVars defined in src", len(found["context_vars_defined"]), ""),
        (
            "  of them set during the call",
            len(found["context_vars_set"]),
            ", ".join(found["context_vars_set"]),
        ),
        ("result shapes, API -> CallToolResult", len(found["shapes"]), arrow.join(found["shapes"])),
    ]
    if found["token_reads"] is not None:
        reads = found["token_reads"]
        rows.append(("bearer token reads", len(reads), ", ".join(reads)))
    print(
        f"walked: tools/call search_messages over streamable HTTP (client mode {found['mode']}), "
        f"JWT bearer token; {found['messages']} messages found, "
        f"{found['api_requests']} Gmail API requests"
    )
    width = max(len(r[0]) for r in rows)
    for label, count, note in rows:
        print(f"{label:<{width}} {count:>4}  {note}".rstrip())
    if verbose:
        print("\nthe chain at the deepest API request (outermost first):")
        for at, node in enumerate(found["chain"], 1):
            link = "" if node["link"] == "call" else f"  [{node['link']}]"
            print(
                f"{at:>3}. {node['function']}  ({node['distribution']}; {node['thread']}; "
                f"returned {node['returned']}){link}"
            )
        print("\nContextVars defined in src:")
        for where in found["context_vars_defined"]:
            print(f"     {where}")


def main() -> None:
    """Walk the call and print the table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mode", default="auto", help="the mcp client's mode: auto (its default) or legacy"
    )
    parser.add_argument("--verbose", action="store_true", help="print the chain itself")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    walk, result = walk_served_call(args.mode)
    assert not result.is_error, result.content
    found = {"mode": args.mode, "messages": found_messages(result), **walk.result()}
    found["context_vars_defined"] = context_vars_defined(ROOT)
    if args.json:
        print(json.dumps(found, indent=2))
    else:
        print_table(found, args.verbose)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # the server's thread is not stopped: it ends with the process


if __name__ == "__main__":
    main()
