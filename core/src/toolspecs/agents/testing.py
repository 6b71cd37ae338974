"""A fake OpenAI chat-completions server, to run agents offline in tests and demos.

``FakeOpenAI`` answers the HTTP requests of the real ``llama_index.llms.openai.OpenAI``
class from a script, one turn per request, and records every request body, so a test
can check what the model was sent (the tools' JSON schemas, the tool results)::

    from toolspecs.agents import OpenAIAgent
    from toolspecs.agents.testing import FakeOpenAI, last_tool_output
    from toolspecs.specs.arxiv import ArxivToolSpec

    fake = FakeOpenAI([
        [("arxiv_query", {"query": "electron", "max_results": 1})],  # the model calls a tool
        lambda request: "Found: " + last_tool_output(request),  # then it answers
    ])
    agent = OpenAIAgent.from_tools(ArxivToolSpec().to_tool_list(), llm=fake.llm())
    print(agent.chat("Find a paper about electrons"))
    fake.requests[0]["tools"]  # what OpenAI would have received

A turn is the final answer (text), a list of tool calls ``(name, arguments)`` (a dict,
or a string sent as is, e.g. broken JSON), or a function of the request body that
returns either. Streaming (``"stream": true``, what ``FunctionAgent`` asks for by
default) is served as server-sent events. Like the real API, the fake answers 400 to
a tool message that does not follow a tool call of the same id, or to a tool name
OpenAI would refuse; it also answers 400 when the script has no turn left.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import httpx

if TYPE_CHECKING:
    from llama_index.llms.openai import OpenAI

ToolCalls: TypeAlias = Sequence[tuple[str, Mapping[str, Any] | str]]
Reply: TypeAlias = str | ToolCalls
Turn: TypeAlias = Reply | Callable[[dict[str, Any]], Reply]

__all__ = ["FakeOpenAI", "Reply", "ToolCalls", "Turn", "last_tool_output", "message_text"]

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_MAX_BODY = 16 * 1024 * 1024  # a request body read by serve(): far past any real chat


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a request message, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def last_tool_output(request: Mapping[str, Any]) -> str:
    """The text of the last tool message in a request body (``""`` when there is none)."""
    tool_messages = [m for m in request.get("messages", []) if m.get("role") == "tool"]
    return message_text(tool_messages[-1]) if tool_messages else ""


class FakeOpenAI:
    """Scripted OpenAI chat completions: an ``httpx.MockTransport``, or a server (:meth:`serve`).

    Args:
        turns: What the model says, one turn per request (see the module docstring).

    Attributes:
        requests: The JSON body of every request received, in order.
    """

    def __init__(self, turns: Iterable[Turn] = ()) -> None:
        self.turns: list[Turn] = list(turns)
        self.requests: list[dict[str, Any]] = []
        self.transport = httpx.MockTransport(self.handle)

    def llm(self, model: str = "gpt-4.1-mini", **kwargs: Any) -> OpenAI:
        """The real llama-index ``OpenAI`` LLM, its HTTP served by this fake.

        Args:
            model: The model name sent in requests.
            **kwargs: More ``OpenAI(...)`` arguments, e.g. ``temperature=0``.

        Returns:
            An LLM with a test key and no retries.
        """
        from llama_index.llms.openai import OpenAI

        kwargs.setdefault("api_key", "sk-test")
        kwargs.setdefault("max_retries", 0)
        return OpenAI(
            model=model,
            http_client=httpx.Client(transport=self.transport),
            async_http_client=httpx.AsyncClient(transport=self.transport),
            **kwargs,
        )

    @contextlib.contextmanager
    def serve(self) -> Iterator[str]:
        """This fake as an HTTP server on 127.0.0.1 while the block runs; yields its base URL.

        For clients that take a base URL rather than an HTTP client: any OpenAI-compatible
        SDK or LLM class (``OpenAI(api_base=url)``, ``OpenAILike``, a subprocess given
        ``OPENAI_BASE_URL``) speaks to it over a real socket. Requests are answered one at
        a time, in order, by the same script as :meth:`handle`.
        """
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(min(size, _MAX_BODY))
                with lock:
                    answer = fake.handle(
                        httpx.Request(
                            "POST",
                            f"http://127.0.0.1{self.path}",
                            content=body,
                            headers=dict(self.headers.items()),
                        )
                    )
                content = answer.read()
                self.send_response(answer.status_code)
                self.send_header("Content-Type", answer.headers.get("content-type", "text/plain"))
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, format: str, *args: Any) -> None:
                return  # quiet: a test reads fake.requests instead

        lock = threading.Lock()
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, name="fake-openai", daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)

    def tools(self, index: int = 0) -> list[dict[str, Any]]:
        """The ``tools`` of request ``index`` (an empty list when it sent none)."""
        found: list[dict[str, Any]] = self.requests[index].get("tools") or []
        return found

    def tool_names(self, index: int = 0) -> list[str]:
        """The names of the tools of request ``index``, in the order sent."""
        return [t["function"]["name"] for t in self.tools(index)]

    def handle(self, request: httpx.Request) -> httpx.Response:
        """Answer one HTTP request (the ``MockTransport`` handler)."""
        if request.method != "POST" or not request.url.path.endswith("/chat/completions"):
            return _error(404, f"FakeOpenAI serves POST /chat/completions, not {request.url}")
        body: dict[str, Any] = json.loads(request.content)
        self.requests.append(body)
        number = len(self.requests)
        problem = _invalid(body)
        if problem:
            return _error(400, problem)
        if not self.turns_left(body, number, request.headers):
            return _error(
                400, f"FakeOpenAI: request {number} has no turn; the script has {len(self.turns)}."
            )
        reply = self.reply_to(body, number, request.headers)
        text, calls = (reply, []) if isinstance(reply, str) else (None, _calls(reply, number))
        model = str(body.get("model", "gpt-4.1-mini"))
        if body.get("stream"):
            return _stream(f"chatcmpl-fake-{number}", model, text, calls)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            message["tool_calls"] = calls
        completion = {
            **_envelope(f"chatcmpl-fake-{number}", model, "chat.completion"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                    "logprobs": None,
                }
            ],
            # The real API always reports usage; some clients (smolagents) read it.
            "usage": self.usage(body, reply),
        }
        return httpx.Response(200, json=completion)

    def turns_left(self, body: dict[str, Any], number: int, headers: httpx.Headers) -> bool:
        """Whether the script has a turn for request ``number`` (counted from 1)."""
        return number <= len(self.turns)

    def reply_to(self, body: dict[str, Any], number: int, headers: httpx.Headers) -> Reply:
        """The model's reply to request ``number``: the script's turn of that number.

        A subclass may choose otherwise, e.g. by the conversation in ``body`` or a header
        its client sends, so that concurrent conversations each follow a script of their
        own.
        """
        turn = self.turns[number - 1]
        return turn(body) if callable(turn) else turn

    def usage(self, body: dict[str, Any], reply: Reply) -> dict[str, int]:
        """The ``usage`` reported with a non-streamed reply: none counted here (zeros)."""
        return {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def _calls(reply: ToolCalls, number: int) -> list[dict[str, Any]]:
    return [
        {
            "id": f"call_{number}_{index}",
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args),
            },
        }
        for index, (name, args) in enumerate(reply)
    ]


def _invalid(body: Mapping[str, Any]) -> str | None:
    """What the real API would refuse in a request body, or ``None``."""
    for entry in body.get("tools") or []:
        name = entry.get("function", {}).get("name", "")
        if not TOOL_NAME.match(name):
            return (
                f"Invalid 'tools': function name {name!r} does not match '^[a-zA-Z0-9_-]{{1,64}}$'."
            )
    called: set[str] = set()
    for message in body.get("messages", []):
        for call in message.get("tool_calls") or []:
            called.add(call.get("id"))
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            return (
                "Invalid 'messages': a message with role 'tool' must be a response to a "
                f"preceding message with 'tool_calls' (id {message.get('tool_call_id')!r})."
            )
    return None


def _envelope(completion_id: str, model: str, kind: str) -> dict[str, Any]:
    return {"id": completion_id, "object": kind, "created": 0, "model": model}


def _stream(
    completion_id: str, model: str, text: str | None, calls: list[dict[str, Any]]
) -> httpx.Response:
    """The reply as OpenAI streams it: role first, then text or one call per chunk."""
    deltas: list[dict[str, Any]] = []
    if text is not None:
        deltas.append({"role": "assistant", "content": ""})
        middle = len(text) // 2
        deltas += [{"content": part} for part in (text[:middle], text[middle:]) if part]
    for index, call in enumerate(calls):
        function = call["function"]
        opening = {"index": index, "id": call["id"], "type": "function"}
        deltas.append(
            {
                **({"role": "assistant", "content": None} if index == 0 else {}),
                "tool_calls": [
                    {**opening, "function": {"name": function["name"], "arguments": ""}}
                ],
            }
        )
        deltas.append(
            {"tool_calls": [{"index": index, "function": {"arguments": function["arguments"]}}]}
        )
    finish = "tool_calls" if calls else "stop"
    chunks: list[dict[str, Any]] = [{"index": 0, "delta": d, "finish_reason": None} for d in deltas]
    chunks.append({"index": 0, "delta": {}, "finish_reason": finish})
    events = [
        json.dumps({**_envelope(completion_id, model, "chat.completion.chunk"), "choices": [c]})
        for c in chunks
    ]
    sse = "".join(f"data: {event}\n\n" for event in [*events, "[DONE]"])
    return httpx.Response(200, content=sse.encode(), headers={"content-type": "text/event-stream"})


def _error(status: int, message: str) -> httpx.Response:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return httpx.Response(status, json={"error": error})
