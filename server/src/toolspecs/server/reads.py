"""``resources/read``'s links to what a read-only tool reads: ``toolspecs://{tool}/{path}``.

A read of such a link is a call of that tool by this caller (the same scope check, own
tool and deadline). A call's result links what its data names: the fields that fill the
placeholders of a served tool of the same spec that the caller may call.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, NamedTuple
from urllib.parse import quote, unquote

import mcp.shared.exceptions as errors
import mcp_types
from pydantic import ValidationError

from toolspecs.core.declare import resource_fields
from toolspecs.core.errors import FixArguments
from toolspecs.core.passages import utf8_size
from toolspecs.core.store import StoredResult
from toolspecs.core.tool import GuardedTool
from toolspecs.server import resources
from toolspecs.server.callers import Caller

__all__ = [
    "MAX_GUIDANCE_CHARS",
    "MAX_LINKS",
    "MAX_VALUE_CHARS",
    "Readable",
    "cut",
    "error",
    "links",
    "parse",
    "readable_tools",
    "stored",
    "templates",
    "tool_uri",
]

# The longest placeholder value a link carries, decoded (an id, a file name, a URL).
MAX_VALUE_CHARS = 512
# The most links one result carries.
MAX_LINKS = 50
# The longest guidance text a failed read returns.
MAX_GUIDANCE_CHARS = 2000
_SCHEME = "toolspecs://"
# One placeholder's segment: unreserved, sub-delims, ':', '@' and percent-escapes only.
_VALUE = r"([A-Za-z0-9_.~%!$&'()*+,;=:@-]{1," + str(MAX_VALUE_CHARS * 3) + "})"


class Readable(NamedTuple):
    """A served tool that reads a resource: its served name, path and placeholders."""

    name: str
    path: str
    fields: tuple[str, ...]
    pattern: re.Pattern[str]
    # Each placeholder and the data fields that fill it: its name first, then its aliases.
    sources: tuple[tuple[str, ...], ...]


def _pattern(path: str) -> re.Pattern[str]:
    parts = [
        _VALUE if segment.startswith("{") else re.escape(segment) for segment in path.split("/")
    ]
    return re.compile("/".join(parts))


def readable_tools(tools: Mapping[str, GuardedTool]) -> dict[str, Readable]:
    """The served tools (by served name) that declare a resource."""
    found = {}
    for name, tool in tools.items():
        path = tool.guard.options.resource
        if path:
            fields = resource_fields(path)
            aliases = tool.guard.options.aliases
            sources = tuple(
                (field, *(alias for alias, target in aliases.items() if target == field))
                for field in fields
            )
            found[name] = Readable(name, path, fields, _pattern(path), sources)
    return found


def tool_uri(readable: Readable, values: Mapping[str, str]) -> str:
    """The link of what ``readable`` reads with these argument values."""
    path = readable.path
    for field in readable.fields:
        path = path.replace("{" + field + "}", quote(values[field], safe=""))
    return f"{_SCHEME}{readable.name}/{path}"


def parse(uri: str, readables: Mapping[str, Readable]) -> tuple[Readable, dict[str, str]] | None:
    """The served tool a link names and its arguments, or ``None`` when it names none."""
    if not uri.startswith(_SCHEME) or len(uri) > 4096:
        return None
    name, _, path = uri[len(_SCHEME) :].partition("/")
    readable = readables.get(name)
    found = readable.pattern.fullmatch(path) if readable is not None else None
    if readable is None or found is None:
        return None
    values = {}
    for field, raw in zip(readable.fields, found.groups(), strict=True):
        try:
            value = unquote(raw, errors="strict")
        except UnicodeDecodeError:
            return None
        if not _usable(value):
            return None
        values[field] = value
    return readable, values


def _usable(value: str) -> bool:
    return bool(value.strip()) and len(value) <= MAX_VALUE_CHARS and value.isprintable()


def error(message: str) -> Exception:
    """The protocol error ``-32602`` of a read, with ``message`` (bounded)."""
    shown = message if len(message) <= MAX_GUIDANCE_CHARS else message[:MAX_GUIDANCE_CHARS] + "..."
    return errors.MCPError(mcp_types.INVALID_PARAMS, shown)


def cut(text: str, max_bytes: int) -> str:
    """``text``, at most ``max_bytes`` of it, with a note when cut."""
    size = utf8_size(text)
    if size <= max_bytes:
        return text
    head = resources.utf8_head(text, max_bytes)
    kept = utf8_size(head)
    return f"{head}\n[... cut: this read returns the first {kept:,} bytes of the {size:,}.]"


def stored(caller: Caller, tool: GuardedTool, result_id: int) -> StoredResult | None:
    """Result ``result_id`` of ``tool`` as ``caller``'s reader tool reads it; ``None``: none."""
    owner = caller.context().owner
    try:
        results = tool.guard.policy.results(tool.guard.owner if owner is None else owner)
        return results.get(tool.guard.name, result_id)
    except FixArguments:  # none of this caller's, or gone
        return None


def _objects(
    data: Any, context: Mapping[str, Any]
) -> Iterator[tuple[dict[str, Any], Mapping[str, Any]]]:
    if isinstance(data, list):
        for item in data:
            yield from _objects(item, context)
    elif isinstance(data, dict):
        own = {k: v for k, v in data.items() if type(v) in (str, int)}
        here = {**context, **own}
        yield data, here
        for value in data.values():
            yield from _objects(value, here)


def templates(
    readables: Mapping[str, Readable], tools: Mapping[str, GuardedTool]
) -> list[mcp_types.ResourceTemplate]:
    """The stored results' template, and one per served tool that reads a resource."""
    shown = [resources.template()]
    for readable in readables.values():
        tool = tools[readable.name]
        shown.append(
            mcp_types.ResourceTemplate(
                uri_template=f"{_SCHEME}{readable.name}/{readable.path}",
                name=readable.name,
                title=f"What {readable.name} reads",
                description=(tool.metadata.description or "").split("\n", 1)[0][:300],
                mime_type=resources.MIME_TYPE,
            )
        )
    return shown


def links(
    readables: Sequence[Readable], called: GuardedTool, data: dict[str, Any] | None
) -> tuple[list[mcp_types.ResourceLink], dict[str, Any] | None]:
    """The links to what a call's structured ``data`` names, and ``data`` with their ``uri``."""
    if data is None or not readables:
        return [], data
    linked = copy.deepcopy(data)
    links: list[mcp_types.ResourceLink] = []
    seen: set[str] = set()
    added = False
    for item, context in _objects(linked, {}):
        for readable in readables:
            values = _fill(readable, item, context)
            if values is None:
                continue
            uri = tool_uri(readable, values)
            if "uri" not in item:
                item["uri"] = uri
                added = True
            if uri in seen or len(links) >= MAX_LINKS:
                continue
            seen.add(uri)
            shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
            links.append(
                mcp_types.ResourceLink(
                    uri=uri,
                    name=f"{readable.name}-{'-'.join(values.values())}"[:200],
                    title=f"{readable.name}({shown})"[:200],
                    description=(
                        f"What {readable.name}({shown}) returns, read as that call "
                        "(by this session or user only)."
                    )[:400],
                    mime_type=resources.MIME_TYPE,
                )
            )
    if not added:  # nothing to check again: the data as the call gave it
        return links, data
    model = called.guard.options.output
    if model is not None:
        try:  # only where the model declares a uri: the client checks the data by it
            model.model_validate(linked)
        except ValidationError:
            linked = data
    return links, linked


def _fill(
    readable: Readable, item: Mapping[str, Any], context: Mapping[str, Any]
) -> dict[str, str] | None:
    values: dict[str, str] = {}
    own = False
    for field, sources in zip(readable.fields, readable.sources, strict=True):
        source = next((s for s in sources if s in context), None)
        if source is None:
            return None
        value = str(context[source])
        if not _usable(value):
            return None
        own = own or (source in item and item[source] == context[source])
        values[field] = value
    return values if own else None
