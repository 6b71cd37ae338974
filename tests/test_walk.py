"""bench/walk.py counts what it says: a tiny served call whose chain is known, walked.

The walk finds what is ours by path (a ``src/toolspecs`` tree), so the known chain is made
of modules written into such trees here: a handler (``core``) that reads the token twice
and hands the call to a thread (returning a handle; the result comes back apart), a tool (``specs/mail``) that sets a
ContextVar and carries its result with its arguments, and a client (``loaders/mail``)
whose API library (``walkdemo_wire``, not ours) makes the request and returns a dict. A
shipped fake (``testing.py``) defines a ContextVar that is not counted.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
import textwrap
from pathlib import Path

BENCH = Path(__file__).parents[1] / "bench" / "walk.py"
TOKEN = "header.claims.signature"

SOURCES = {
    "walkdemo_wire": (
        "wire/walkdemo_wire.py",
        """
        def send(query):
            return {"messages": [{"id": "1"}, {"id": "2"}], "query": query}
        """,
    ),
    "walkdemo_client": (
        "loaders/mail/src/toolspecs/loaders/mail/client.py",
        """
        import walkdemo_wire

        class Message:
            def __init__(self, raw):
                self.raw = raw

        def fetch(query):
            raw = walkdemo_wire.send(query)
            return [Message(m) for m in raw["messages"]]
        """,
    ),
    "walkdemo_fake": (
        "loaders/mail/src/toolspecs/loaders/mail/testing.py",
        """
        import contextvars

        FAKE = contextvars.ContextVar("fake", default=None)
        """,
    ),
    "walkdemo_tool": (
        "specs/mail/src/toolspecs/specs/mail/tool.py",
        """
        import contextvars

        import walkdemo_client

        CALLING: contextvars.ContextVar[bool] = contextvars.ContextVar("calling", default=False)

        class Reply(str):
            pass

        def search(query):
            CALLING.set(True)
            found = walkdemo_client.fetch(query)
            return Reply(f"{len(found)} messages")

        def guarded(query):
            return {"query": query}, search(query)
        """,
    ),
    "walkdemo_handler": (
        "core/src/toolspecs/demo_server/handler.py",
        """
        import threading

        import walkdemo_tool

        class Envelope:
            def __init__(self, text):
                self.text = text

        class Handle:
            pass

        def parse(token):
            return token.split(".")

        def check(token):
            return parse(token)[1]

        def owner(token):
            return "owner " + token[:6]

        def work(query, box):
            box.append(walkdemo_tool.guarded(query))

        def hand_off(query, box):
            thread = threading.Thread(target=work, args=(query, box))
            thread.start()
            thread.join()
            return Handle()  # a handle, not the result: that comes back in box

        async def run(query):
            box = []
            hand_off(query, box)
            _, reply = box[0]
            return reply

        async def handle(request):
            check(request["token"])
            owner(request["token"])
            return Envelope(await run(request["query"]))
        """,
    ),
}


def load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def walk_the_demo(root: Path) -> tuple[dict, list[str]]:
    """Write the demo under ``root``, walk ``handle`` once: the walk's result, the
    ContextVars defined."""
    walk_module = load("walkdemo_bench_walk", BENCH)
    modules = {}
    try:
        for name, (where, text) in SOURCES.items():
            path = root / where
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text), encoding="utf-8")
            modules[name] = load(name, path)
        wire = root / SOURCES["walkdemo_wire"][0]
        walk = walk_module.Walk(
            walk_module.place_in(root),
            is_request=lambda code: code.co_name == "send" and code.co_filename == str(wire),
            client_packages=("walkdemo_wire",),
            token=TOKEN,
        )
        request = {"token": TOKEN, "query": "from:ada"}
        with walk.installed(), walk.recording():
            answer = asyncio.run(modules["walkdemo_handler"].handle(request))
        assert answer.text == "2 messages"
        return walk.result(), walk_module.context_vars_defined(root)
    finally:
        for name in [*SOURCES, "walkdemo_bench_walk"]:
            sys.modules.pop(name, None)


def test_the_walk_counts_a_known_chain(tmp_path):
    found, defined = walk_the_demo(tmp_path)

    assert [step["function"] for step in found["chain"]] == [
        "toolspecs.demo_server.handler.handle",
        "toolspecs.demo_server.handler.run",
        "toolspecs.demo_server.handler.hand_off",
        "toolspecs.demo_server.handler.work",  # not nested: 3.10 has no co_qualname
        "toolspecs.specs.mail.tool.guarded",
        "toolspecs.specs.mail.tool.search",
        "toolspecs.loaders.mail.client.fetch",
    ]
    links = ["root", "call", "call", "hand-off", "call", "call", "call"]
    assert [step["link"] for step in found["chain"]] == links
    assert found["api_requests"] == 1
    assert found["hops"] == found["frames"] == 7
    assert len(found["modules"]) == 3
    assert found["distributions"] == ["core", "specs/mail", "loaders/mail"]
    # handle, run and hand_off on the event loop, then work and the rest in hand_off's thread.
    assert found["thread_handoffs"] == 1 and len(found["threads"]) == 2
    # The (arguments, result) pair guarded returns carries the Reply: not a shape of its own;
    # nor is the Handle hand_off returns (the result comes back through the box).
    assert found["shapes"] == ["dict", "list[Message]", "Reply", "Envelope"]
    assert found["context_vars_set"] == ["toolspecs.specs.mail.tool.CALLING"]
    # check (and parse under it) is one read, owner another; handle got a dict holding it.
    assert found["token_reads"] == [
        "toolspecs.demo_server.handler.check",
        "toolspecs.demo_server.handler.owner",
    ]
    assert defined == ["specs/mail/src/toolspecs/specs/mail/tool.py:6"]
