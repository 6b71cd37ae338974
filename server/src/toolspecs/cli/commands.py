"""The commands of ``toolspecs`` (list, schema, describe, call, authorize, serve)."""

from __future__ import annotations

import argparse
import functools
import gc
import json
import os
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from llama_index.core.tools import FunctionTool
from pydantic import BaseModel

from toolspecs.cli.assemble import ServeSettings, build_specs, served_tools_by_spec
from toolspecs.cli.hosting import host_users
from toolspecs.cli.oauth import oauth_settings
from toolspecs.cli.parser import UsageError
from toolspecs.core import structured
from toolspecs.core.bounds import count_tokens
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.policy import WHY, Marks
from toolspecs.core.registry import list_specs, load_spec
from toolspecs.core.spec import ToolSpec

if TYPE_CHECKING:
    from toolspecs.core.redis_store import RedisStore
    from toolspecs.server.running import SharedSlots
    from toolspecs.server.sse_events import RedisEvents

__all__ = [
    "build_spec",
    "cmd_authorize",
    "cmd_call",
    "cmd_describe",
    "cmd_list",
    "cmd_schema",
    "cmd_serve",
    "describe_output",
    "describe_parameter",
    "output_cost",
    "output_schema_of",
    "parse_pairs",
    "shared_calls",
    "shared_events",
    "shared_store",
    "tool_cost",
    "withheld_text",
]


def tool_cost(tool: FunctionTool) -> int:
    """Tokens the tool's OpenAI schema costs on every call to the model."""
    return count_tokens(json.dumps(tool.metadata.to_openai_tool(skip_length_check=True)))


def _output_model(tool: FunctionTool) -> type[BaseModel] | None:
    model = getattr(getattr(getattr(tool, "guard", None), "options", None), "output", None)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def output_schema_of(tool: FunctionTool) -> dict[str, Any] | None:
    """The JSON schema of the tool's structured result (MCP's ``outputSchema``), if it has one."""
    model = _output_model(tool)
    return None if model is None else structured.output_schema(model)


def output_cost(tool: FunctionTool) -> int:
    """Tokens the tool's output schema costs where a client sends it (0: it has none)."""
    schema = output_schema_of(tool)
    return 0 if schema is None else count_tokens(json.dumps(schema))


def build_spec(args: argparse.Namespace, name: str) -> ToolSpec:
    """Spec ``name`` built as ``toolspecs serve`` builds it, from the spec options given."""
    settings = ServeSettings(
        names=[name],
        sandbox=args.sandbox,
        sandbox_latency=args.sandbox_latency,
        allow_send=args.allow_send,
        allow_destructive=args.allow_destructive,
        timezone=args.timezone,
        options=args.option,
        tools=args.tools,
        interactive=True,  # a person at a terminal: the spec's own sign-in applies
    )
    (spec,) = build_specs(settings).values()
    return spec


def cmd_list(_: argparse.Namespace) -> str:
    """Each spec, its tools, and what their schemas cost in tokens."""
    lines: list[str] = []
    for name in list_specs():
        try:
            tools = load_spec(name).to_tool_list()
        except ConfigurationError as exc:
            lines.append(f"{name}: cannot load ({exc})")
            continue
        total = sum(tool_cost(t) for t in tools)
        lines.append(f"{name}  ({len(tools)} tools, {total} schema tokens)")
        for t in tools:
            output = output_cost(t)
            more = f", output schema {output}" if output else ""
            lines.append(f"  {t.metadata.name:<28} {tool_cost(t):>5} tokens{more}")
    return "\n".join(lines) if lines else "No specs installed."


def cmd_schema(args: argparse.Namespace) -> str:
    """The tools of one spec, as text or as OpenAI tool JSON."""
    tools = build_spec(args, args.name).to_tool_list()
    if args.format == "openai":
        return json.dumps([t.metadata.to_openai_tool() for t in tools], indent=2)
    blocks = []
    for t in tools:
        params = json.dumps(t.metadata.get_parameters_dict(), indent=2)
        block = f"## {t.metadata.name}\n{t.metadata.description}\nparameters: {params}"
        output = output_schema_of(t)
        if output is not None:
            block += f"\noutput: {json.dumps(output, indent=2)}"
        blocks.append(block)
    return "\n\n".join(blocks)


def _json_type(prop: dict[str, Any]) -> str:
    """A parameter's JSON type in words (``array of string``; a definition by its name)."""
    ref = prop.get("$ref")
    if isinstance(ref, str):
        return ref.rsplit("/", 1)[-1]
    if "anyOf" in prop:
        kinds = [_json_type(p) for p in prop["anyOf"] if p.get("type") != "null"]
        return " or ".join(kinds) or "any"
    kind = prop.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind if k != "null") or "any"
    if kind == "array":
        items = prop.get("items")
        return f"array of {_json_type(items)}" if isinstance(items, dict) and items else "array"
    return str(kind) if kind else "any"


def describe_parameter(name: str, prop: dict[str, Any], required: bool) -> str:
    """One line for a parameter: name, type, range or choices, required or default, text."""
    facts = [_json_type(prop)]
    if "enum" in prop:
        facts.append("one of " + ", ".join(json.dumps(c) for c in prop["enum"]))
    low, high = prop.get("minimum"), prop.get("maximum")
    if low is not None and high is not None:
        facts.append(f"{low} to {high}")
    elif low is not None or high is not None:
        facts.append(f">= {low}" if low is not None else f"<= {high}")
    if required:
        facts.append("required")
    elif "default" in prop:
        facts.append(f"default {json.dumps(prop['default'])}")
    else:
        facts.append("optional")
    line = f"{name} ({', '.join(facts)})"
    return f"{line}: {prop['description']}" if prop.get("description") else line


def describe_output(name: str, schema: dict[str, Any], cost: int) -> list[str]:
    """The lines for a tool's output schema: its model's name, its cost, each top-level field."""
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    lines = [f"Output: {name} ({cost} tokens of outputSchema, where the client sends it)"]
    for name, prop in properties.items():
        if prop.get("default", "") is None:  # left out of the data when None: optional
            prop = {key: value for key, value in prop.items() if key != "default"}
        lines.append(f"  {describe_parameter(name, prop, name in required)}")
    return lines


def _describe_tool(tool: FunctionTool, cost: int, note: str = "") -> str:
    lines = [f"{tool.metadata.name}  ({cost} tokens){note}"]
    lines += [f"  {line}" for line in tool.metadata.description.splitlines()]
    marks = getattr(tool, "marks", None)
    if isinstance(marks, Marks):
        lines.append(f"  Marks: {marks.describe()}")
    schema = tool.metadata.get_parameters_dict()
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    lines.append("  Parameters:" if properties else "  Parameters: none")
    for name, prop in properties.items():
        lines.append(f"    {describe_parameter(name, prop, name in required)}")
    model, output = _output_model(tool), output_schema_of(tool)
    if model is not None and output is not None:
        described = describe_output(model.__name__, output, output_cost(tool))
        lines += [f"  {line}" for line in described]
    return "\n".join(lines)


def cmd_describe(args: argparse.Namespace) -> str:
    """Each tool of a spec as the agent reads it, its marks and cost; the opt-in tools after."""
    spec = build_spec(args, args.name)
    tools = spec.to_tool_list()
    offered = {t.metadata.get_name() for t in tools}
    more = [
        t
        for t in spec.to_tool_list(list(spec.all_functions))
        if t.metadata.get_name() not in offered
    ]
    costs, more_costs = [tool_cost(t) for t in tools], [tool_cost(t) for t in more]
    total, extra = sum(costs), sum(more_costs)
    blocks = [_describe_tool(t, cost) for t, cost in zip(tools, costs, strict=True)] + [
        _describe_tool(t, cost, f"  opt-in: --tools default,{t.metadata.name}")
        for t, cost in zip(more, more_costs, strict=True)
    ]
    outputs = sum(output_cost(t) for t in tools)
    blocks.append(
        f"Total: {len(tools)} tools, {total} tokens of tool schemas sent with every request "
        "(cl100k_base over each tool's OpenAI JSON)."
        + (f" The {len(more)} opt-in tools would add {extra} tokens (--tools all)." if more else "")
        + (
            f" Their output schemas add {outputs} tokens where a client sends them (MCP)."
            if outputs
            else ""
        )
    )
    return "\n\n".join(blocks)


def parse_pairs(pairs: Sequence[str], raw_json: str | None) -> dict[str, Any]:
    """Arguments from ``key=value`` pairs and/or a JSON object."""
    arguments: dict[str, Any] = {}
    if raw_json is not None:
        try:
            loaded = json.loads(raw_json)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f'--json is not valid JSON ({exc.msg}); quote it like \'{{"query": "x"}}\''
            ) from None
        if not isinstance(loaded, dict):
            raise UsageError('--json must be a JSON object such as \'{"query": "x"}\'')
        arguments.update(loaded)
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(f'argument {pair!r} is not key=value; write e.g. query="black holes"')
        arguments[key.strip()] = value
    return arguments


def cmd_call(args: argparse.Namespace) -> tuple[str, int]:
    """Call one tool; returns what the agent would read and the exit code."""
    spec_name, dot, function = args.target.partition(".")
    if not dot or not function:
        raise UsageError(f"{args.target!r} is not SPEC.FUNCTION; e.g. arxiv.arxiv_query")
    arguments = parse_pairs(args.pairs, args.json)
    spec = build_spec(args, spec_name)
    # Naming a tool chooses it: any of the spec's tools, unless --tools chose a set.
    offered = spec.to_tool_list() if args.tools else spec.to_tool_list(list(spec.all_functions))
    tools = {t.metadata.get_name(): t for t in offered}
    # A Google spec with an account offers work_list_drafts: its own name works too.
    chosen = tools.get(function) or tools.get(f"{spec.default_prefix}{function}")
    if chosen is None:
        needed = spec.withheld(function)
        if needed:
            raise UsageError(withheld_text(args.target, needed))
        raise UsageError(
            f"spec {spec_name!r} has no tool {function!r}; its tools: {', '.join(tools)}"
        )
    output = chosen.call(**arguments)
    return output.content, 1 if output.is_error else 0


def cmd_authorize(args: argparse.Namespace) -> str:
    """Run a spec's sign-in for the tools it will offer; returns where the token went."""
    if args.sandbox:
        raise UsageError("a sandbox needs no authorization: drop --sandbox")
    spec = build_spec(args, args.name)
    authorize = getattr(spec, "authorize", None)
    if not callable(authorize):
        raise UsageError(f"spec {args.name!r} needs no authorization")
    spec.to_tool_list()  # the tools that will be offered: the spec asks for what they need
    try:
        return str(authorize())
    except Exception as exc:
        guidance = spec.guidance_for(exc)  # the spec's failure table: what to set
        if guidance is None:
            raise
        raise UsageError(guidance.message) from exc


def withheld_text(target: str, needed: Sequence[str]) -> str:
    """One line: a tool the spec's options leave out, why, and the flags that offer it."""
    why = "; ".join(WHY.get(option, option) for option in needed)
    off = " and ".join(f"{option}=False" for option in needed)
    flags = " ".join(f"--{option.replace('_', '-')}" for option in needed)
    return f"{target} is left out by the spec's options ({off}): {why}; add {flags} to call it"


def shared_store(specs: Mapping[str, ToolSpec]) -> RedisStore | None:
    """With ``--store redis://``, the specs' Redis store (one for them all)."""
    from toolspecs.core.redis_store import RedisStore

    stores = [s.result_store for s in specs.values() if isinstance(s.result_store, RedisStore)]
    return stores[0] if stores else None


def shared_calls(specs: Mapping[str, ToolSpec]) -> SharedSlots | None:
    """With ``--store redis://``, the running-call count every replica shares there."""
    store = shared_store(specs)
    if store is None:
        return None
    from toolspecs.server.running import SharedSlots

    return SharedSlots(store.client, prefix=store.prefix)


def shared_events(specs: Mapping[str, ToolSpec]) -> RedisEvents | None:
    """With ``--store redis://``, the SSE events of sessions, resumed through any replica."""
    store = shared_store(specs)
    if store is None:
        return None
    from toolspecs.server.sse_events import RedisEvents

    return RedisEvents(store.client, prefix=store.prefix)


SERVING_YOUNG_THRESHOLD = 10_000  # allocations between two collections of the youngest


def settle_heap() -> None:
    """Set the collector for serving: startup's objects frozen, young ones collected less often.

    A server keeps some 200,000 objects for life; frozen, a full collection takes 18 ms, not
    165. Collecting the youngest every 10,000 allocations, not 700, lets most of a call's
    short-lived objects die uncollected (17% less CPU in ``bench/serve_load.py``).
    """
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(SERVING_YOUNG_THRESHOLD, middle, oldest)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the tools of the named specs to MCP clients until the client or a signal stops it."""
    import anyio

    from toolspecs.server import build_server, serve_http, serve_stdio
    from toolspecs.server.confirm import state_keys_from_env
    from toolspecs.server.operations import log_requests
    from toolspecs.server.scopes import tool_scopes

    settings = ServeSettings.from_args(args)
    specs = build_specs(settings)
    for spec in specs.values():
        spec.confirm_destructive = spec.confirm_destructive and args.confirm
    by_spec = served_tools_by_spec(specs, settings.prefixes)
    tools = [tool for listed in by_spec.values() for tool in listed]
    oauth = oauth_settings(args, by_spec)  # None: the shared token (--auth-issuer not given)
    scopes = None if oauth is None else tool_scopes(by_spec)
    names = [tool.metadata.get_name() for tool in tools]
    # A hosting (--google-sign-in, --google-delegate): each user's own tools, acting as
    # them, and with a sign-in of its own, the provider made once the URL is known.
    hosted = host_users(args, settings, specs, names)
    user_tools = None if hosted is None else hosted.user_tools
    sign_in = None if hosted is None else hosted.sign_in
    server = build_server(
        tools,
        scopes=scopes,
        user_tools=user_tools,
        shared_calls=shared_calls(specs),
        request_state_keys=state_keys_from_env(),
        output_schemas=args.output_schemas,
    )
    log_requests(args.log_format)
    what = f"{len(tools)} tools of {', '.join(specs)}" + (" (sandbox)" if args.sandbox else "")

    if args.http:
        from toolspecs.server.auth import bearer_token

        shared = oauth is None and sign_in is None
        # --public-url: the proxy's address is one clients name in Host (its default port
        # left out: toolspecs.server.auth.transport_security).
        public = None if hosted is None else hosted.public_url
        hosts = list(args.allowed_host)
        if public is not None:
            parts = urlsplit(public)
            port = parts.port or (443 if parts.scheme == "https" else 80)
            hosts.append(f"{parts.hostname}:{port}")
        token, where = bearer_token(args.token_file) if shared else (None, "")  # one line

        def serving(url: str) -> None:
            settle_heap()  # the port is ours: what starting made is kept from now on
            print(f"toolspecs: serving {what} at {url}", file=sys.stderr, flush=True)
            say = f"toolspecs: clients send 'Authorization: Bearer TOKEN', the token in {where}"
            if oauth is not None:
                say = f"toolspecs: clients send access tokens of {oauth.issuer} for " + (
                    oauth.audience or url
                )
            if hosted is not None and hosted.serving_line is not None:
                say = hosted.serving_line(url, say)
            if args.allow_remote:
                say += (
                    f"\ntoolspecs: warning: --allow-remote: other machines that reach "
                    f"{args.host} may connect with the token, over plain HTTP (put TLS in front)"
                )
            print(say, file=sys.stderr, flush=True)

        try:
            anyio.run(
                functools.partial(
                    serve_http,
                    server,
                    args.host,
                    args.port,
                    serving,
                    token=token,
                    oauth=oauth,
                    sign_in=sign_in,
                    allow_remote=args.allow_remote,
                    allowed_hosts=hosts,
                    max_sessions=args.max_sessions,
                    max_sessions_per_user=args.max_sessions_per_user,
                    session_idle=float(args.session_idle),
                    stateless=args.stateless,
                    events=shared_events(specs),
                )
            )
        except OSError as exc:  # port in use, unknown host: for the person, in one line
            raise UsageError(
                f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc}); "
                "choose another --port or --host"
            ) from None
        return 0
    print(f"toolspecs: serving {what} over stdio", file=sys.stderr, flush=True)
    settle_heap()
    anyio.run(serve_stdio, server)
    # The client is gone. A call still running in a worker thread (a slow service) must
    # not keep this process alive: Python would wait for the thread at exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
