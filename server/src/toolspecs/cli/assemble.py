"""The specs and tools a command line asks for: ``toolspecs serve`` (and ``call``, ...).

Options apply in this order, later winning: the spec's defaults and environment, its
``served_options`` (a server only), the shared flags, then ``--option``. When two served
specs share a tool name, every tool of each carries its spec's name as prefix, whatever
the order of the names; ``--prefix`` sets one instead.
"""

from __future__ import annotations

import inspect
import json
import operator
import re
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolspecs.core import inputs
from toolspecs.core.clock import timezone_setting
from toolspecs.core.declare import function_name
from toolspecs.core.errors import ConfigurationError
from toolspecs.core.registry import sandbox_arguments, spec_class
from toolspecs.core.spec import ToolSpec
from toolspecs.core.tool import GuardedTool

# Constructor parameters that take Python objects: not settable from the command line.
_OBJECTS = frozenset({"self", "transport", "client", "creds", "cache"})


@dataclass
class ServeSettings:
    """What ``toolspecs serve`` was asked for: the flags of the same names.

    ``interactive``: a person at a terminal, who may sign in; else a server (no browser
    login unless ``auth_flow`` asks, and each spec's ``served_options``).
    """

    names: Sequence[str]
    sandbox: bool = False
    sandbox_latency: float = 0.0
    allow_send: bool | None = None
    allow_destructive: bool | None = None
    timezone: str | None = None
    options: Sequence[str] = field(default_factory=list)
    prefixes: Sequence[str] = field(default_factory=list)
    tools: Sequence[str] = field(default_factory=list)
    interactive: bool = False
    store: str | None = None

    @classmethod
    def from_args(cls, args: Any) -> ServeSettings:
        """The settings of a parsed ``toolspecs serve`` command line."""
        return cls(
            names=args.names,
            sandbox=args.sandbox,
            sandbox_latency=args.sandbox_latency,
            allow_send=args.allow_send,
            allow_destructive=args.allow_destructive,
            timezone=args.timezone,
            options=args.option,
            prefixes=args.prefix,
            tools=args.tools,
            store=args.store,
        )


# Tool names must match [a-zA-Z0-9_-]{1,64} for MCP clients and OpenAI alike.
_PREFIX = re.compile(r"[A-Za-z0-9_-]{0,24}")


def _spec_name(name: str) -> str:
    return name.strip().lower().replace("-", "_")


# NAME@ACCOUNT: the account is a short name of letters, digits and '_'.
_ACCOUNT = re.compile(r"[a-z0-9][a-z0-9_]{0,23}")


def split_account(name: str) -> tuple[str, str | None]:
    """``gmail@work`` as ``("gmail", "work")``; a name without ``@`` has no account."""
    base, at, account = _spec_name(name).partition("@")
    if not at:
        return base, None
    if not _ACCOUNT.fullmatch(account):
        raise ConfigurationError(
            f"{name!r}: the account after '@' must be a short name of letters, digits or "
            "'_', e.g. gmail@work"
        )
    return base, account


def served_names(names: Sequence[str]) -> list[str]:
    """The specs to serve, each once, under its registered name (ConfigurationError if not)."""
    found: list[str] = []
    for name in names:
        base, account = split_account(name)
        spec_class(base)  # an unknown name fails here, listing the installed specs
        key = f"{base}@{account}" if account else base
        if key in found:
            raise ConfigurationError(f"spec {key!r} is named twice; name each spec once")
        found.append(key)
    return found


def _pairs(
    pairs: Sequence[str], flag: str, form: str, example: str, only: str | None = None
) -> list[tuple[str, str, str]]:
    """``NAME.key=value`` (dotted ``form``) or ``NAME=value`` pairs; ``only`` may drop ``NAME.``."""
    dotted = "." in form.split("=")[0]
    split: list[tuple[str, str, str]] = []
    for pair in pairs:
        target, sep, value = pair.partition("=")
        name, _, key = target.partition(".") if dotted else (target, "", "")
        if dotted and only is not None and sep and not key and name.strip():
            name, key = only, name
        if not sep or not name.strip() or (dotted and not key.strip()):
            raise ConfigurationError(f"{flag} {pair!r} is not {form}; write e.g. {flag} {example}")
        split.append((_spec_name(name), key.strip(), value))
    return split


def _hint(fn: Any, annotation: Any) -> Any:
    if not isinstance(annotation, str):
        return Any if annotation is inspect.Parameter.empty else annotation
    try:
        return eval(annotation, getattr(fn, "__globals__", {}), {"Any": Any})
    except Exception:  # a name imported only for type checkers (httpx.BaseTransport)
        return Any


def parameters(cls: type[ToolSpec]) -> dict[str, Any]:
    """The constructor keywords of a spec that the command line can set, with their hints."""
    init = cls.__init__
    return {
        name: _hint(init, param.annotation)
        for name, param in inspect.signature(init).parameters.items()
        if name not in _OBJECTS
        and param.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }


def read_value(name: str, key: str, raw: str, hint: Any) -> Any:
    """One ``--option`` value read as tool arguments are (JSON for an object or array option)."""
    # A value was given, so None is not one of the choices: say only what the type wants.
    core, _, extras = inputs.unwrap(hint)
    wanted = operator.getitem(typing.Annotated, (core, *extras)) if extras else core
    value: Any = raw
    if core is not str and raw.strip()[:1] in ("{", "["):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            # The value is not repeated: options carry keys and tokens, and MCP clients
            # keep a server's stderr in their logs.
            raise ConfigurationError(
                f"--option {name}.{key} is not valid JSON ({exc.msg} at character {exc.pos}); "
                f'quote it like --option \'{name}.{key}={{"key": "value"}}\''
            ) from None
    try:
        return inputs.coerce(value, wanted)
    except inputs.CoercionError:
        raise ConfigurationError(
            f"--option {name}.{key}: the value cannot be read as {_type_words(wanted)}"
        ) from None


def _type_words(hint: Any) -> str:
    kind = inputs.json_schema(hint).get("type")
    words = {
        "integer": "a whole number",
        "number": "a number",
        "boolean": "true or false",
        "array": "a list (a JSON array)",
        "object": "a JSON object",
        "string": "text",
    }
    return words.get(kind, "the type it takes") if isinstance(kind, str) else "the type it takes"


def build_specs(settings: ServeSettings) -> dict[str, ToolSpec]:
    """The specs to serve, by name, built with their options (else ConfigurationError)."""
    names = served_names(settings.names)
    if settings.sandbox_latency and not settings.sandbox:
        raise ConfigurationError(
            "--sandbox-latency is the sandbox fakes' round trip: add --sandbox, or drop it"
        )
    if settings.timezone is not None:
        timezone_setting(settings.timezone)  # a wrong zone fails once, before any spec
    store = None
    if settings.store is not None:
        from toolspecs.core.redis_store import open_store

        store = open_store(settings.store)  # a bad URL, a server that does not answer
    flags = ("allow_send", "allow_destructive", "timezone")
    shared = {key: getattr(settings, key) for key in flags if getattr(settings, key) is not None}
    chosen: dict[str, dict[str, Any]] = {name: {} for name in names}
    only = names[0] if len(names) == 1 else None
    for name, key, raw in _pairs(
        settings.options, "--option", "NAME.key=value", "arxiv.max_results=5", only
    ):
        if name not in chosen:
            raise ConfigurationError(
                f"--option {name}.{key} is for a spec that is not named here; "
                f"named: {', '.join(names)}"
            )
        cls = spec_class(split_account(name)[0])
        known = parameters(cls)
        if key not in known:
            raise ConfigurationError(
                f"spec {name!r} has no option {key!r}; its options: {', '.join(known)}"
            )
        chosen[name][key] = read_value(name, key, raw, known[key])
    specs: dict[str, ToolSpec] = {}
    for name in names:
        base, account = split_account(name)
        cls = spec_class(base)
        known = parameters(cls)
        if account is not None:
            if "account" not in known:
                raise ConfigurationError(
                    f"spec {base!r} has no accounts; serve it as {base}, without @{account}"
                )
            chosen[name]["account"] = account
        # A server's defaults first (the spec's served_options), then the shared flags,
        # which go to constructors that take them; for the others they set the ToolSpec
        # attribute of the same name (read-only specs are not affected).
        served = {} if settings.interactive else getattr(cls, "served_options", {})
        arguments = {k: v for k, v in served.items() if k in known}
        arguments.update((k, v) for k, v in shared.items() if k in known)
        arguments.update(chosen[name])
        if settings.sandbox:
            arguments.update(sandbox_arguments(base, settings.sandbox_latency))
        elif not settings.interactive and "auth_flow" in known and "auth_flow" not in chosen[name]:
            # A server must never wait for a browser login (nor print one on stdio, which
            # carries the protocol): a missing authorization is guidance to authorize once.
            arguments["auth_flow"] = "none"
        try:
            spec = cls(**arguments)
        except (TypeError, ValueError) as exc:  # a wrong option, or a value it refuses
            raise ConfigurationError(f"cannot build spec {name!r}: {exc}") from exc
        for key, value in shared.items():
            if key not in known and key not in chosen[name]:
                setattr(spec, key, value)
        if store is not None:
            # One client, one cache for every spec; the specs' caches of public answers
            # (arXiv papers, Wolfram|Alpha answers) come from it too.
            spec.result_store = store
        specs[name] = spec
    choose_tools(specs, settings.tools)
    return specs


def _function_names(entries: Sequence[Any]) -> list[str]:
    return [function_name(entry) for entry in entries]


def choose_tools(specs: Mapping[str, ToolSpec], values: Sequence[str]) -> None:
    """Give each spec named by ``--tools`` the functions chosen for it, in the spec's order."""
    wanted: dict[str, set[str]] = {}
    for value in values:
        for item in (part.strip() for part in value.split(",")):
            if not item:
                continue
            name, dot, tool = item.rpartition(".")
            name = _spec_name(name)
            if dot and name not in specs:
                raise ConfigurationError(
                    f"--tools {item}: {name!r} is not served here; served: {', '.join(specs)}"
                )
            targets = [name] if dot else list(specs)
            if tool in ("all", "default"):
                for target in targets:
                    spec = specs[target]
                    chosen = spec.all_functions if tool == "all" else type(spec).spec_functions
                    wanted.setdefault(target, set()).update(_function_names(chosen))
                continue
            owners = [t for t in targets if tool in _function_names(specs[t].all_functions)]
            if not owners:
                known = sorted(
                    f"{t}.{f}" if len(specs) > 1 else f
                    for t in targets
                    for f in _function_names(specs[t].all_functions)
                )
                raise ConfigurationError(
                    f"--tools {item}: no such tool; choose from all, default, " + ", ".join(known)
                )
            if len(owners) > 1:
                raise ConfigurationError(
                    f"--tools {item}: {', '.join(owners)} all have {tool!r}; "
                    f"write e.g. --tools {owners[0]}.{tool}"
                )
            wanted.setdefault(owners[0], set()).add(tool)
    for name, functions in wanted.items():
        spec = specs[name]
        spec.spec_functions = [
            entry for entry in spec.all_functions if function_name(entry) in functions
        ]


def prefixes(
    tool_names: Mapping[str, Sequence[str]],
    explicit: Mapping[str, str],
    defaults: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Each served spec's tool-name prefix, by the rule in this module's docstring."""
    defaults = defaults or {}
    chosen: dict[str, str] = {}
    for name, names in tool_names.items():
        if name in explicit:
            chosen[name] = explicit[name]
            continue
        own = defaults.get(name, "")
        others = {
            f"{explicit.get(other, defaults.get(other, ''))}{tool}"
            for other, tools in tool_names.items()
            if other != name
            for tool in tools
        }
        clash = others.intersection(f"{own}{tool}" for tool in names)
        chosen[name] = f"{name.replace('@', '_')}_" if clash else own
    owners: dict[str, str] = {}
    for name, names in tool_names.items():
        for tool in names:
            public = f"{chosen[name]}{tool}"
            if public in owners:
                first = owners[public]
                raise ConfigurationError(
                    f"{first} and {name} would both offer a tool named {public!r}; "
                    f"give one a prefix, e.g. --prefix {name}={name.replace('@', '_')}_"
                )
            owners[public] = name
    return chosen


def served_tools(specs: Mapping[str, ToolSpec], prefix_pairs: Sequence[str]) -> list[GuardedTool]:
    """The tools of ``specs``, named by :func:`prefixes` (see :func:`served_tools_by_spec`)."""
    return [tool for tools in served_tools_by_spec(specs, prefix_pairs).values() for tool in tools]


def served_tools_by_spec(
    specs: Mapping[str, ToolSpec], prefix_pairs: Sequence[str]
) -> dict[str, list[GuardedTool]]:
    """The tools of each spec of ``specs``, named by :func:`prefixes`, by the spec's name."""
    explicit: dict[str, str] = {}
    for name, _, value in _pairs(prefix_pairs, "--prefix", "NAME=PREFIX", "gmail=mail_"):
        if not _PREFIX.fullmatch(value):
            raise ConfigurationError(
                f"--prefix {name}={value!r} is not a tool-name prefix: use at most 24 letters, "
                "digits, '_' or '-', e.g. gmail=mail_"
            )
        if name not in specs:
            raise ConfigurationError(
                f"--prefix {name}= is for a spec that is not served; served: {', '.join(specs)}"
            )
        explicit[name] = value.strip()
    names = {
        name: [t.metadata.get_name() for t in spec.to_tool_list(prefix="")]
        for name, spec in specs.items()
    }
    # The Google specs' account prefix (work_); other specs have none.
    defaults = {name: spec.default_prefix for name, spec in specs.items()}
    chosen = prefixes(names, explicit, defaults)
    return {
        name: [t for t in spec.to_tool_list(prefix=chosen[name]) if isinstance(t, GuardedTool)]
        for name, spec in specs.items()
    }
