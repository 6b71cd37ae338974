"""Tool prompts and argument models: one source for what the agent sees and what is checked.

:func:`build_model` makes a real pydantic model from a spec function's signature, hints
and docstring: its JSON schema is the tool's ``parameters`` and its validation reads every
call. Names the agent got slightly wrong (aliases, ``camelCase``, ``input``) are mapped,
``null`` means "not given", and a ``Timezone`` argument sets the zone of the call's times.
"""

from __future__ import annotations

import datetime as dt
import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    ValidationError,
    ValidationInfo,
    create_model,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaMode, SkipJsonSchema

from toolspecs.core import clock, inputs
from toolspecs.core.bounds import shown
from toolspecs.core.errors import FixArguments

OPENAI_DESCRIPTION_LIMIT = 1024

ZoneOf = Callable[[Mapping[str, Any]], dt.tzinfo]
KnownZoneOf = Callable[[Mapping[str, Any]], dt.tzinfo | None]


@dataclass(slots=True)
class _ZonePass:
    # ``first``: the zone only when known without a request, else a stand-in (UTC) with
    # ``needed`` set and the call's arguments kept; otherwise ``zone``, asked before.
    first: bool
    zone: dt.tzinfo | None = None
    needed: bool = False
    arguments: Mapping[str, Any] = field(default_factory=dict)


_ZONE_PASS = "toolspecs_zone_pass"


class ToolArguments(BaseModel):
    """Base of every tool's argument model; the class attributes are set by :func:`build_model`."""

    model_config = ConfigDict(extra="forbid", defer_build=True, arbitrary_types_allowed=True)

    toolspecs_tool: ClassVar[str] = ""
    toolspecs_aliases: ClassVar[Mapping[str, str]] = {}
    toolspecs_zone_argument: ClassVar[str | None] = None
    toolspecs_zone: ClassVar[ZoneOf | None] = None
    toolspecs_known_zone: ClassVar[KnownZoneOf | None] = None
    toolspecs_hidden: ClassVar[frozenset[str]] = frozenset()
    # Only models with a date or time need a zone context (issue 14).
    toolspecs_reads_times: ClassVar[bool] = True

    @classmethod
    def model_json_schema(  # type: ignore[override]
        cls,
        by_alias: bool = True,
        ref_template: str = "#/$defs/{model}",
        schema_generator: type[GenerateJsonSchema] = inputs.ToolJsonSchema,
        mode: JsonSchemaMode = "validation",
        **kwargs: Any,
    ) -> dict[str, Any]:
        """The schema the agent sees (``inputs.ToolJsonSchema`` unless another is asked for)."""
        return super().model_json_schema(by_alias, ref_template, schema_generator, mode, **kwargs)

    @model_validator(mode="wrap")
    @classmethod
    def read_call(
        cls, data: Any, handler: ModelWrapValidatorHandler[ToolArguments], info: ValidationInfo
    ) -> Any:
        """Map the call's argument names, then read each value with the call's timezone."""
        if not isinstance(data, Mapping):
            return handler(data)
        if not cls.toolspecs_reads_times:
            return handler(cls.resolve_names(data))
        context = info.context
        if context is None:
            return cls.model_validate(data, context={})
        arguments = cls.resolve_names(data)
        zone_pass = context.get(_ZONE_PASS)
        context[inputs.TIMES] = inputs.Context(zone=lambda: cls.call_zone(arguments, zone_pass))
        return handler(arguments)

    @classmethod
    def target_of(cls, key: Any) -> str | None:
        """The parameter an argument name sent by the agent stands for, if any."""
        names = cls.model_fields
        if not isinstance(key, str):
            return None
        if key in names:
            return key
        aliases = cls.toolspecs_aliases
        snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key.strip()).lower().replace("-", "_")
        for candidate in (key, snake):
            if candidate in aliases:
                return aliases[candidate]
        if snake in names:
            return snake
        required = [name for name, info in names.items() if info.is_required()]
        if snake == "input" and len(required) == 1:
            return required[0]
        return None

    @classmethod
    def resolve_names(cls, data: Mapping[Any, Any]) -> dict[Any, Any]:
        """``data`` under the parameters' own names; ``null`` values of known ones dropped.

        Names that stand for no parameter, or for one given already, are kept for
        validation to report.
        """
        # ``model_fields`` without its class property's per-access cost (pydantic 2.10+).
        fields = cls.__pydantic_fields__
        if fields.keys() >= data.keys() and all(value is not None for value in data.values()):
            return dict(data)  # the common call: every name exact, nothing to drop
        resolved: dict[Any, Any] = {}
        exact = [key for key in data if key in fields]
        for key in [*exact, *(key for key in data if key not in fields)]:
            value = data[key]
            target = cls.target_of(key)
            if target is None or target in resolved:
                resolved[key] = value
            elif value is not None:
                resolved[target] = value
        return resolved

    @classmethod
    def call_zone(cls, arguments: Mapping[str, Any], reading: _ZonePass | None = None) -> dt.tzinfo:
        """The zone naive and relative times of this call are read in."""
        name = cls.toolspecs_zone_argument
        given = arguments.get(name) if name else None
        if isinstance(given, str) and given.strip():
            try:
                return clock.resolve_timezone(given.strip())
            except FixArguments:
                pass  # the argument's own validation reports it
        if cls.toolspecs_zone is None:
            return clock.timezone_setting(None)
        if cls.toolspecs_known_zone is None:  # the spec's zone never takes a request
            return cls.toolspecs_zone(arguments)
        # Validation alone asks no service; the call reads its times again in the real zone.
        reading = reading or _ZonePass(first=True)
        if not reading.first:
            return reading.zone or cls.toolspecs_zone(arguments)
        known = cls.toolspecs_known_zone(arguments)
        if known is None:  # a stand-in: this reading only checks the call
            reading.needed, reading.arguments = True, arguments
            return inputs.STAND_IN
        return known

    @classmethod
    def problems(cls, error: ValidationError) -> list[str]:
        """Each fault of a call, as the agent reads it."""
        found: list[str] = []
        for item in error.errors():
            loc = item["loc"]
            name = str(loc[0]) if loc else ""
            if item["type"] == "none_required":
                continue  # the null branch of an optional argument: the value's own error says it
            if item["type"] == "missing":
                found.append(f"missing required argument {name!r}")
            elif item["type"] == "extra_forbidden":
                found.append(cls._unexpected(loc[0] if loc else ""))
            else:
                # List positions are shown; the names of union members are not.
                where = name + "".join(f"[{part}]" for part in loc[1:] if isinstance(part, int))
                text = f"{where}: {inputs.error_text(item)}"
                if text not in found:
                    found.append(text)
        return found

    @classmethod
    def _unexpected(cls, key: Any) -> str:
        target = cls.target_of(key)
        if target is not None:
            return f"{target!r} given twice (as {shown(key)})"
        shown_names = [name for name in cls.model_fields if name not in cls.toolspecs_hidden]
        import difflib  # here, for a wrong argument's "did you mean", not at import (0.6 ms)

        close = difflib.get_close_matches(str(key), shown_names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"unknown argument {shown(key)}{hint}"

    @classmethod
    def listing(cls) -> str:
        """The arguments, required ones marked: ``query (required), count``."""
        return ", ".join(
            f"{name} (required)" if info.is_required() else name
            for name, info in cls.model_fields.items()
            if name not in cls.toolspecs_hidden
        )


@dataclass(slots=True)
class Reading:
    """A call's arguments as :func:`read_arguments` read them, asking no service.

    ``zone_from``: the arguments to ask the model's zone with when the times were read
    with a stand-in (that zone takes a request); ``None`` when read in the call's zone.
    """

    model: type[ToolArguments]
    data: dict[Any, Any]
    arguments: dict[str, Any]
    zone_from: Mapping[str, Any] | None

    def in_call_zone(self) -> dict[str, Any]:
        """The arguments with their times in the call's zone, asked here if it takes a request."""
        model = self.model
        if self.zone_from is None or model.toolspecs_zone is None:
            return self.arguments
        try:
            zone = model.toolspecs_zone(self.zone_from)
        except ValueError as exc:  # as inputs.Context.tz: a setting only the person fixes
            raise inputs.TimezoneUnavailable(str(exc)) from exc
        problems: list[str] = []
        validated = _validate(model, self.data, _ZonePass(first=False, zone=zone), problems)
        if problems or validated is None:
            raise _unread(model, problems)
        return _given(validated)


def prepare(
    model: type[ToolArguments], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """:func:`read_arguments`, then :meth:`Reading.in_call_zone`: how a call reads its own."""
    return read_arguments(model, args, kwargs).in_call_zone()


def read_arguments(
    model: type[ToolArguments], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> Reading:
    """Read one call, asking no service; ``FixArguments`` names every fault at once.

    A zone that would take a request is a stand-in here; :meth:`Reading.in_call_zone`
    reads the times again in the call.
    """
    # Hidden arguments (not in the schema the model sees) are never bound by position.
    problems: list[str] = []
    data: dict[Any, Any]
    if args:
        names = [name for name in model.model_fields if name not in model.toolspecs_hidden]
        if len(args) > len(names):
            problems.append(f"{len(args)} positional values given, but it takes {len(names)}")
        data = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key in data:
                problems.append(f"{key!r} given twice")
            else:
                data[key] = value
    else:  # the usual call: named values only
        data = dict(kwargs)
    first = _ZonePass(first=True)
    validated = _validate(model, data, first, problems)
    if problems or validated is None:
        raise _unread(model, problems)
    return Reading(model, data, _given(validated), first.arguments if first.needed else None)


def _unread(model: type[ToolArguments], problems: list[str]) -> FixArguments:
    unread = FixArguments(
        f"{model.toolspecs_tool} was called wrongly: {'; '.join(problems)}. "
        f"Its arguments are: {model.listing() or 'none'}."
    )
    unread.stage = "arguments"
    return unread


def _given(validated: ToolArguments) -> dict[str, Any]:
    return {name: getattr(validated, name) for name in validated.model_fields_set}


def _validate(
    model: type[ToolArguments], data: dict[Any, Any], reading: _ZonePass, problems: list[str]
) -> ToolArguments | None:
    # No times: no zone to read them in, and no context to make per call.
    context = {_ZONE_PASS: reading} if model.toolspecs_reads_times else None
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        problems.extend(model.problems(exc))
        return None


def parameters(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    """The parameters an agent fills in (no ``self``, no ``*args``/``**kwargs``)."""
    return [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]


def describe(doc: Docstring) -> str:
    """The tool description composed from a parsed docstring."""
    parts = [doc.summary]
    if doc.body:
        parts.append(doc.body)
    if doc.returns:
        parts.append(f"Returns {doc.returns[0].lower()}{doc.returns[1:]}")
    if doc.examples:
        parts.append(f"Examples:\n{doc.examples}")
    return "\n".join(p for p in parts if p)


def declaration_errors(fn: Callable[..., Any], aliases: Mapping[str, str]) -> list[str]:
    """What is wrong with a spec function's declaration, one message a fault."""
    errors: list[str] = []
    names = [p.name for p in parameters(fn)]
    for alias, target in aliases.items():
        if target not in names:
            errors.append(f"alias {alias!r} points at {target!r}, which is not a parameter")
        if alias in names:
            errors.append(f"alias {alias!r} is also the name of a parameter")
    doc = parse_docstring(fn.__doc__)
    undocumented = [name for name in names if not doc.args.get(name)]
    if undocumented:
        errors.append(f"no 'Args:' line in the docstring for {', '.join(undocumented)}")
    if not doc.summary:
        errors.append("no docstring summary (the tool's description)")
    length = len(describe(doc))
    if length > OPENAI_DESCRIPTION_LIMIT:
        errors.append(f"description of {length} characters, over {OPENAI_DESCRIPTION_LIMIT}")
    try:
        found = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # any failure to resolve a hint is a declaration fault
        return [*errors, f"type hints cannot be read ({type(exc).__name__}: {exc})"]
    zones = [name for name in names if inputs.is_zone_name(found.get(name, Any))]
    if len(zones) > 1:
        errors.append(f"more than one Timezone argument ({', '.join(zones)})")
    return errors


def _without_null_default(schema: dict[str, Any]) -> None:
    if "default" in schema and schema["default"] is None:
        del schema["default"]


def build_model(
    name: str,
    fn: Callable[..., Any],
    aliases: Mapping[str, str] | None = None,
    zone: ZoneOf | None = None,
    rename: Callable[[str], str] = str,
    docs: Mapping[str, str | None] | None = None,
    known_zone: KnownZoneOf | None = None,
) -> type[ToolArguments]:
    """The argument model of a spec function, as the tool ``name`` shows it.

    ``zone`` gives the call's zone when no Timezone argument does (``known_zone``: when
    known without a request); ``rename`` applies to each description (a prefix); ``docs``
    is an instance's own text for some arguments (``None`` hides an optional one).
    """
    doc = parse_docstring(fn.__doc__)
    found = typing.get_type_hints(fn, include_extras=True)
    docs = docs or {}
    fields: dict[str, Any] = {}
    hidden: set[str] = set()
    zone_argument: str | None = None
    for param in parameters(fn):
        hint = found.get(param.name, Any)
        if inputs.is_zone_name(hint):
            zone_argument = param.name
        default = ... if param.default is inspect.Parameter.empty else param.default
        # A hidden argument keeps its docstring text for whoever reads the model itself.
        text = docs.get(param.name) or doc.args.get(param.name)
        description = rename(text) if text else None
        # A default of None is not shown (the argument is simply optional), by any generator.
        extra = _without_null_default if default is None else None
        field_type = inputs.tolerant(hint)
        if param.name in docs and docs[param.name] is None:
            if default is ...:
                raise ValueError(f"{name}: the required argument {param.name!r} cannot be hidden")
            field_type = typing.Annotated[field_type, SkipJsonSchema()]  # type: ignore[type-arg]
            hidden.add(param.name)
        fields[param.name] = (
            field_type,
            Field(default, description=description, json_schema_extra=extra),
        )
    model: type[ToolArguments] = create_model(name, __base__=ToolArguments, **fields)
    model.toolspecs_tool = name
    model.toolspecs_aliases = dict(aliases or {})
    model.toolspecs_zone_argument = zone_argument
    model.toolspecs_zone = zone
    model.toolspecs_known_zone = known_zone
    model.toolspecs_hidden = frozenset(hidden)
    model.toolspecs_reads_times = any(_reads_times(hint) for hint, _ in fields.values())
    return model


def _reads_times(hint: Any) -> bool:
    if isinstance(hint, type) and issubclass(hint, dt.date):
        return True
    return any(_reads_times(arg) for arg in typing.get_args(hint))


# Google-style docstrings read into the parts a tool prompt is made of.
_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?):\s*$"
)
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


@dataclass
class Docstring:
    """The parts of a Google-style docstring."""

    summary: str = ""
    body: str = ""
    args: dict[str, str] = field(default_factory=dict)
    returns: str = ""
    examples: str = ""


def parse_docstring(doc: str | None) -> Docstring:
    """Read a Google-style docstring (``None``: empty); unknown sections are left out."""
    text = inspect.cleandoc(doc or "")
    parsed = Docstring()
    section = "body"
    body_lines: list[str] = []
    returns: list[str] = []
    examples: list[str] = []
    current_arg: str | None = None
    arg_indent = _arg_indent(text)
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header and not line.startswith(" "):
            section = header.group(1).rstrip("s").lower()
            current_arg = None
            continue
        if section == "body":
            body_lines.append(line)
        elif section in ("arg", "argument", "parameter"):
            stripped = line.strip()
            match = _ARG.match(stripped)
            indent = len(line) - len(line.lstrip())
            if match and (current_arg is None or indent <= arg_indent):
                current_arg = match.group(1).lstrip("*")
                parsed.args[current_arg] = match.group(3).strip()
            elif current_arg is not None and stripped:
                parsed.args[current_arg] = f"{parsed.args[current_arg]} {stripped}".strip()
        elif section == "return":
            returns.append(line.strip())
        elif section == "example":
            examples.append(line[4:] if line.startswith("    ") else line)
    paragraphs = "\n".join(body_lines).strip().split("\n\n")
    parsed.summary = " ".join(paragraphs[0].split()) if paragraphs[0] else ""
    parsed.body = "\n".join(_unwrap(p) for p in paragraphs[1:] if p.strip())
    parsed.returns = " ".join(" ".join(returns).split())
    parsed.examples = "\n".join(examples).strip()
    return parsed


def _unwrap(paragraph: str) -> str:
    lines: list[str] = []
    for line in paragraph.strip().splitlines():
        stripped = line.strip()
        if lines and not stripped.startswith(("- ", "* ")):
            lines[-1] = f"{lines[-1]} {stripped}"
        else:
            lines.append(stripped)
    return "\n".join(lines)


def _arg_indent(text: str) -> int:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if _SECTION.match(line) and line.split(":")[0] in ("Args", "Arguments", "Parameters"):
            for following in lines[index + 1 :]:
                if following.strip():
                    return len(following) - len(following.lstrip())
    return 4
