"""The shared part of the fake Google services: an ``httplib2.Http`` stand-in.

googleapiclient sends every request through ``http.request(uri, method, body, headers)``;
a fake service answers it from memory, records it in ``requests``, and checks request
bodies against the schemas of the discovery document bundled in google-api-python-client,
so a body Google would reject fails the test that sent it.

It understands Google's batch endpoint (``POST /batch``, the discovery document's
``batchPath`` that googleapiclient's ``BatchHttpRequest`` sends to, or
``/batch/<api>/<version>``): a ``multipart/mixed`` body of at most
:data:`MAX_BATCH` ``application/http`` requests, each answered as if sent alone (its own
status, the ``fail`` answers below included) in a ``multipart/mixed`` reply. The batch is
one entry of ``requests``, its calls are in its ``parts``; ``calls()`` lists every API
call, batched or not.

It can act for a token granted only some scopes: with ``granted`` set (a list of scope
URLs), a call whose method accepts none of them, as the discovery document lists the
scopes each method accepts, gets Google's 403 ``insufficientPermissions``.

It can be told to answer otherwise first: ``fail[(METHOD, path suffix)]`` is a list of
answers, used one per matching request, each one of

- ``(status, reason, message)``: an error shaped as Google's (``reason`` such as
  ``"rateLimitExceeded"``), or ``(status, reason, message, {"retry-after": "30"})``
  with response headers;
- ``(status, body_bytes)`` or ``(status, body_bytes, headers)``: that raw body, for
  what is not Google's shape: ``(200, HTML_PAGE)`` (a proxy's or portal's page, served
  as ``text/html``), ``(200, b"{}")`` (JSON without the fields the request returns),
  ``(200, b"")``, ``(502, HTML_PAGE)``; a body starting with ``<`` is sent as
  ``text/html``, any other as ``application/json``, unless ``headers`` say otherwise.

It answers from several threads at once, one request at a time (a lock around its
memory), after waiting ``latency`` seconds outside that lock, as a real service's round
trip would: ``FakeGmail(latency=0.15)`` shows what a deployment sees.

It can check each call's credentials: ``gate(method, path, headers)``, when set (by
:class:`~toolspecs.loaders.google.testing.server.FakeGoogleServer`, which serves the fake
over HTTP and checks bearer tokens as Google does), answers first, before anything else,
for every call, each call of a batch included; ``None`` lets the call through. A call of
a batch carries its own headers (its ``Authorization``) and inherits the batch request's
where it has none, as Google reads a batch. As a ``transport=`` no gate is set: the
credentials are not the fake's to check there. The wait is
``fake.sleep(seconds)`` (a real wait, ``threading.Event().wait``, so that a patched
``time.sleep`` does not skip it); a test may replace it to record the waits.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from email.parser import Parser
from email.policy import compat32
from http.client import responses
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlparse

import googleapiclient
import httplib2

MAX_BATCH = 100
"""Calls Google takes in one batch request."""
DISCOVERY = Path(googleapiclient.__file__).parent / "discovery_cache" / "documents"
Reply = tuple[httplib2.Response, bytes]
# What a proxy, a captive portal or a load balancer sends instead of Google's JSON.
HTML_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in to the network</title></head>"
    b"<body><h1>Please sign in</h1><p>This network requires a login.</p></body></html>"
)


def wait(seconds: float) -> None:
    """Really wait ``seconds`` (not ``time.sleep``, which tests patch away)."""
    threading.Event().wait(seconds)


def discovery(name: str) -> dict[str, Any]:
    """The bundled discovery document ``name`` (e.g. ``"gmail.v1"``) as a dict."""
    doc: dict[str, Any] = json.loads((DISCOVERY / f"{name}.json").read_text(encoding="utf-8"))
    return doc


class SchemaError(AssertionError):
    """A request body that does not match its discovery-document schema."""


def check_schema(value: Any, schema: dict[str, Any], doc: dict[str, Any], path: str = "$") -> None:
    """Check ``value`` against a discovery-document schema: known fields and their types."""
    if "$ref" in schema:
        schema = doc["schemas"][schema["$ref"]]
    kind = schema.get("type")
    if kind == "object":
        if not isinstance(value, dict):
            raise SchemaError(f"{path}: expected an object, got {value!r}")
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in props:
                check_schema(item, props[key], doc, f"{path}.{key}")
            elif extra is not None:
                check_schema(item, extra, doc, f"{path}.{key}")
            else:
                raise SchemaError(f"{path}: unknown field {key!r}")
    elif kind == "array":
        if not isinstance(value, list):
            raise SchemaError(f"{path}: expected an array, got {value!r}")
        for index, item in enumerate(value):
            check_schema(item, schema["items"], doc, f"{path}[{index}]")
    elif kind == "string":
        _check_string(value, schema, path)
    elif kind == "boolean" and not isinstance(value, bool):
        raise SchemaError(f"{path}: expected a boolean, got {value!r}")
    elif kind == "integer" and not isinstance(value, int):
        raise SchemaError(f"{path}: expected an integer, got {value!r}")


def _check_string(value: Any, schema: dict[str, Any], path: str) -> None:
    if not isinstance(value, str):
        raise SchemaError(f"{path}: expected a string, got {value!r}")
    fmt = schema.get("format")
    if fmt == "date" and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise SchemaError(f"{path}: not an RFC 3339 date: {value!r}")
    if fmt == "date-time" and not re.fullmatch(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})", value
    ):
        raise SchemaError(f"{path}: not an RFC 3339 date-time with offset: {value!r}")
    if fmt == "byte" and not re.fullmatch(r"[A-Za-z0-9_\-+/]*=*", value):
        raise SchemaError(f"{path}: not base64: {value[:40]!r}")


@dataclass
class Request:
    """One request the fake received; ``body`` is the decoded JSON (or None)."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    parts: list[Request] = field(default_factory=list)
    """The calls of a batch request, in order (empty for any other request)."""


class FakeGoogleHttp:
    """Base of the fakes: subclasses set ``prefix`` and ``api`` and implement ``route``.

    Args:
        latency: Seconds each request waits before it is answered (its round trip).
    """

    prefix = ""
    api = ""

    def __init__(self, latency: float = 0.0) -> None:
        self.doc = discovery(self.api)
        self.requests: list[Request] = []
        self.fail: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
        # The scopes the token was granted (None: all): see the module docstring.
        self.granted: list[str] | None = None
        self._methods = _method_scopes(self.doc, self.prefix)
        self.latency = latency
        self.sleep: Callable[[float], Any] = wait
        # Checks a call's credentials first (see the module docstring); None: not checked.
        self.gate: Callable[[str, str, dict[str, str]], Reply | None] | None = None
        # Answered one at a time: the fake's memory is not shared safely otherwise.
        self._answering = threading.RLock()

    def transport(self) -> FakeGoogleHttp:
        """The object to pass as ``transport=``: the fake itself."""
        return self

    # the httplib2.Http interface googleapiclient uses
    def request(
        self,
        uri: str,
        method: str = "GET",
        body: Any = None,
        headers: Any = None,
        redirections: int = 5,
        connection_type: Any = None,
    ) -> Reply:
        """Answer one request (httplib2's signature), after ``latency`` seconds."""
        if self.latency > 0:
            self.sleep(self.latency)  # outside the lock: requests in flight overlap
        with self._answering:
            return self._request(uri, method, body, headers)

    def _request(self, uri: str, method: str, body: Any, headers: Any) -> Reply:
        parsed = urlparse(uri)
        if parsed.path in ("/batch", f"/batch{self.prefix}"):
            return self._batch(parsed.path, body, headers)
        path = unquote(parsed.path).removeprefix(self.prefix)
        query = parse_qs(parsed.query)
        override = {k.lower(): v for k, v in (headers or {}).items()}.get("x-http-method-override")
        if override:
            # googleapiclient sends a GET whose URI is over 2,000 characters as a POST with
            # the query as a form body (googleapiclient.http.MAX_URI_LENGTH), as Google reads it.
            method = override
            query.update(parse_qs(body.decode() if isinstance(body, bytes) else body or ""))
            body = None
        payload = json.loads(body) if body else None
        self.requests.append(Request(method, path, query, payload))
        return self._answer(method, path, query, payload, _lower(headers))

    def calls(self) -> list[Request]:
        """Every API call received: the requests, with each batch replaced by its calls."""
        return [call for r in self.requests for call in (r.parts or [r])]

    def _answer(
        self,
        method: str,
        path: str,
        query: dict[str, list[str]],
        body: Any,
        headers: dict[str, str] | None = None,
    ) -> Reply:
        return (
            (self.gate(method, path, headers or {}) if self.gate is not None else None)
            or self._told_to_fail(method, path)
            or self._not_granted(method, path)
            or self.route(method, path, query, body)
        )

    def scopes_accepted(self, method: str, path: str) -> list[str] | None:
        """The scopes the discovery document says the method at ``path`` accepts."""
        for lead in (f"/resumable/upload{self.prefix}", f"/upload{self.prefix}"):
            path = path.removeprefix(lead)
        for http_method, pattern, scopes in self._methods:
            if http_method == method and pattern.fullmatch(path.lstrip("/")):
                return scopes
        return None

    def _not_granted(self, method: str, path: str) -> Reply | None:
        """Google's 403 when ``granted`` holds none of the scopes the method accepts."""
        if self.granted is None:
            return None
        accepted = self.scopes_accepted(method, path)
        if accepted is None or set(accepted) & set(self.granted):
            return None
        return self.error(
            403, "insufficientPermissions", "Request had insufficient authentication scopes."
        )

    def _told_to_fail(self, method: str, path: str) -> Reply | None:
        """The next ``fail`` answer for this request, if it is told to fail."""
        for (fail_method, suffix), queue in self.fail.items():
            if fail_method == method and path.endswith(suffix) and queue:
                status, *rest = queue.pop(0)
                if isinstance(rest[0], bytes):
                    return self.raw(status, rest[0], *rest[1:])
                return self.error(status, *rest)
        return None

    def _batch(self, path: str, body: Any, headers: Any) -> Reply:
        """Answer a batch request: each ``application/http`` part as if sent alone."""
        batch = Request("POST", path, {}, None)
        self.requests.append(batch)
        failed = self._told_to_fail("POST", path)
        if failed is not None:
            return failed
        kind = {k.lower(): v for k, v in (headers or {}).items()}.get("content-type", "")
        text = body.decode() if isinstance(body, bytes) else str(body or "")
        message = Parser(policy=compat32).parsestr(f"Content-Type: {kind}\r\n\r\n{text}")
        parts = message.get_payload() if message.is_multipart() else None
        if not isinstance(parts, list) or not parts:
            return self.error(400, "badRequest", "Failed to parse batch request")
        if len(parts) > MAX_BATCH:
            return self.error(400, "badRequest", f"Too many requests in batch (over {MAX_BATCH})")
        boundary = f"batch_{uuid.uuid4().hex}"
        out = []
        for part in parts:
            if not isinstance(part, Message):
                return self.error(400, "badRequest", "Failed to parse batch request")
            if part.get_content_type() != "application/http" or not part["Content-ID"]:
                return self.error(400, "badRequest", "Each batch part must be application/http")
            status, answer = self._batch_part(batch, str(part.get_payload()), _lower(headers))
            # The call's own response headers (Retry-After, ...) travel in its part, as
            # Google's batch answers carry them.
            own = "".join(
                f"{name.title()}: {value}\r\n"
                for name, value in status.items()
                if name not in ("status", "content-type", "content-length")
                and not name.startswith("-")
            )
            out.append(
                f"--{boundary}\r\nContent-Type: application/http\r\n"
                f"Content-ID: <response-{str(part['Content-ID']).strip('<>')}>\r\n\r\n"
                f"HTTP/1.1 {status.status} {responses.get(status.status, 'Unknown')}\r\n"
                f"Content-Type: {status.get('content-type', 'application/json')}\r\n{own}"
                f"Content-Length: {len(answer)}\r\n\r\n{answer.decode()}\r\n"
            )
        content = "".join(out) + f"--{boundary}--\r\n"
        fields = {"status": "200", "content-type": f"multipart/mixed; boundary={boundary}"}
        return httplib2.Response(fields), content.encode()

    def _batch_part(self, batch: Request, payload: str, outer: dict[str, str]) -> Reply:
        """One call of a batch: ``METHOD /path?query HTTP/1.1``, headers, a blank line, a body.

        Its headers are the batch request's (``outer``, but its ``Content-`` ones) and its own.
        """
        request_line, _, rest = payload.partition("\n")
        method, target, _version = request_line.strip().split(" ", 2)
        inner = Parser(policy=compat32).parsestr(rest)
        headers = {k: v for k, v in outer.items() if not k.startswith("content-")}
        headers.update(_lower(dict(inner.items())))
        text = inner.get_payload()
        parsed = urlparse(target)
        path = unquote(parsed.path).removeprefix(self.prefix)
        query = parse_qs(parsed.query)
        body = json.loads(text) if isinstance(text, str) and text.strip() else None
        batch.parts.append(Request(method, path, query, body))
        return self._answer(method, path, query, body, headers)

    def route(self, method: str, path: str, query: dict[str, list[str]], body: Any) -> Reply:
        """Answer a request that is not told to fail."""
        raise NotImplementedError

    def check(self, body: Any, schema: str) -> None:
        """Check a request body against ``schema`` of this service's discovery document."""
        check_schema(body, {"$ref": schema}, self.doc)

    def reply(self, status: int, content: Any, headers: dict[str, str] | None = None) -> Reply:
        """A JSON reply."""
        data = b"" if content is None else json.dumps(content).encode()
        fields = {"status": str(status), "content-type": "application/json", **(headers or {})}
        return httplib2.Response(fields), data

    def raw(self, status: int, content: bytes, headers: dict[str, str] | None = None) -> Reply:
        """A reply with ``content`` as it is (HTML for a body starting with ``<``)."""
        kind = (
            "text/html; charset=UTF-8" if content.lstrip().startswith(b"<") else "application/json"
        )
        fields = {"status": str(status), "content-type": kind, **(headers or {})}
        return httplib2.Response(fields), content

    def error(
        self, status: int, reason: str, message: str, headers: dict[str, str] | None = None
    ) -> Reply:
        """An error reply shaped as Google's."""
        error = {
            "error": {
                "code": status,
                "message": message,
                "errors": [{"domain": "global", "reason": reason, "message": message}],
            }
        }
        return self.reply(status, error, headers)


def _lower(headers: Any) -> dict[str, str]:
    """Headers by lowercase name."""
    return {str(k).lower(): str(v) for k, v in (headers or {}).items()}


def _method_scopes(
    doc: dict[str, Any], prefix: str
) -> list[tuple[str, re.Pattern[str], list[str]]]:
    """Each method of a discovery document, paths without placeholders first.

    Its HTTP method, its path as a pattern (under ``prefix``), the scopes it accepts.
    """
    found: list[tuple[int, str, re.Pattern[str], list[str]]] = []
    base = f"{doc.get('servicePath', '')}"
    lead = prefix.strip("/") + "/"

    def walk(resource: dict[str, Any]) -> None:
        for method in resource.get("methods", {}).values():
            template = (base + (method.get("flatPath") or method["path"])).removeprefix(lead)
            pattern = re.sub(
                r"\\\{(\+?)[^}]+\\\}",
                lambda m: ".+" if m[1] else "[^/]+",
                re.escape(template),
            )
            holes = template.count("{")
            found.append(
                (holes, method["httpMethod"], re.compile(pattern), method.get("scopes", []))
            )
        for child in resource.get("resources", {}).values():
            walk(child)

    walk(doc)
    found.sort(key=lambda item: item[0])
    return [(method, pattern, scopes) for _, method, pattern, scopes in found]
