"""Tolerant inputs: the pydantic types that read what an LLM actually sends.

:func:`tolerant` makes a hint's type tolerant (``BeforeValidator``) and constrained
(``Field``), so one declaration gives both the validation and the JSON schema:

- ``int`` / ``float``: ``5``, ``"5"``, ``" 5 "``, ``5.0``, ``"1,000"``
- ``bool``: ``true``, ``"true"``, ``"yes"``, ``"1"``, ``"on"`` (and their opposites)
- ``list[X]``: a list, a JSON array string, ``"a@x.com, b@y.com"``, or one bare value
- ``datetime``/``date``: ISO 8601, or words (``"tomorrow 4pm"``); a string in the schema
- ``Literal[...]``: any case, ``-``/space for ``_``, and declared :class:`Synonyms`
- ``Annotated[int, Range(1, 50)]``: ``minimum``/``maximum`` in the schema, checked
- :data:`Timezone`: an IANA zone name; the call's naive and relative times are read in it
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import operator
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import (
    BeforeValidator,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    WrapSerializer,
)
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, SkipJsonSchema
from pydantic_core import PydanticCustomError, core_schema

from toolspecs.core import clock
from toolspecs.core.bounds import shown
from toolspecs.core.errors import FixArguments, ToolspecsError


class ToolJsonSchema(GenerateJsonSchema):
    """The JSON schema an agent reads: no titles, keys in the order pydantic writes them."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        """No per-field titles: the property name says it."""
        return False

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        """The object schema only: no title, no ``additionalProperties``."""
        json_schema = super().model_schema(schema)
        json_schema.pop("title", None)
        json_schema.pop("additionalProperties", None)
        return json_schema

    def sort(self, value: JsonSchemaValue, parent_key: str | None = None) -> JsonSchemaValue:
        """Keep pydantic's order (type first), which reads better than sorted keys."""
        return value


# Reading a call asks no service, so a calendar's zone not known yet is stood in for by
# UTC (STAND_IN); each value keeps the agent's text, so that a host that validates
# outside the call (LangChain) hands back what the tool reads again in the call's zone.
class StandInZone(dt.tzinfo):
    """UTC, standing in for a zone not known yet (a calendar's own, which takes a request)."""

    def utcoffset(self, moment: dt.datetime | None) -> dt.timedelta:
        """No offset: UTC."""
        return dt.timedelta(0)

    def dst(self, moment: dt.datetime | None) -> dt.timedelta:
        """No daylight saving time."""
        return dt.timedelta(0)

    def tzname(self, moment: dt.datetime | None) -> str:
        """``UTC``."""
        return "UTC"


STAND_IN = StandInZone()
"""The zone of a reading that only checks a call: see :class:`StandInZone`."""


class WrittenTime(dt.datetime):
    """A time read in :data:`STAND_IN`, with the text the agent wrote as ``written``."""

    written: str

    @classmethod
    def of(cls, moment: dt.datetime, written: str) -> WrittenTime:
        """``moment`` (in UTC) carrying ``written``."""
        utc = moment.astimezone(dt.timezone.utc)
        made = cls.combine(utc.date(), utc.timetz())
        made.written = written
        return made


class WrittenDate(dt.date):
    """A date read in :data:`STAND_IN` ("tomorrow"), with the text the agent wrote."""

    written: str

    @classmethod
    def of(cls, day: dt.date, written: str) -> WrittenDate:
        """``day`` carrying ``written``."""
        made = cls(day.year, day.month, day.day)
        made.written = written
        return made


def _as_written(value: Any, serialize: Callable[[Any], Any]) -> Any:
    """A time's JSON (a pydantic wrap serializer): one read in the stand-in goes as written."""
    if isinstance(value, (WrittenTime, WrittenDate)):
        return value.written
    return serialize(value)


class CoercionError(ValueError):
    """A value that cannot be read as its parameter's type; the message shows it."""


class TimezoneUnavailable(ToolspecsError):
    """The zone to read a call's times in could not be had: a setting only the person fixes.

    Not a ``ValueError``, so that pydantic does not report it as a bad argument.
    """


@dataclass(frozen=True)
class Synonyms:
    """Extra spellings for the choices of a ``Literal`` parameter: ``{"newest": "recent"}``."""

    mapping: Mapping[str, str]


@dataclass(frozen=True)
class Range:
    """Inclusive bounds for a number parameter; either may be ``None``."""

    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class ZoneName:
    """Marks a ``str`` parameter as the timezone the call's naive and relative times are in."""


# A parameter typed ``Timezone`` takes an IANA name and sets the zone of the call's times.
Timezone = Annotated[str, ZoneName()]


@dataclass
class Context:
    """What reading times needs beyond the value: the timezone and "now".

    ``zone`` may be a function, asked only when a time needs it (it may cost an API call).
    """

    zone: dt.tzinfo | Callable[[], dt.tzinfo] = field(default_factory=clock.resolve_timezone)
    now: dt.datetime | None = None

    @property
    def tz(self) -> dt.tzinfo:
        """The timezone naive and relative times are read in."""
        if callable(self.zone) and not isinstance(self.zone, dt.tzinfo):
            try:
                self.zone = self.zone()
            except ValueError as exc:  # ConfigurationError: a wrong timezone setting
                raise TimezoneUnavailable(str(exc)) from exc
        return self.zone


# The key of the call's Context in pydantic's validation context.
TIMES = "toolspecs_times"


def reading_context(info: ValidationInfo | None) -> Context:
    """The zone and "now" to read a value in: the validation's, else the default setting."""
    given = None if info is None or info.context is None else info.context.get(TIMES)
    return given if given is not None else Context(zone=lambda: clock.timezone_setting(None))


MAX_TIME_TEXT = clock.MAX_TIME_TEXT
_TRUE = {"true", "yes", "y", "1", "on", "t"}
_FALSE = {"false", "no", "n", "0", "off", "f", "none", "null"}
_SPLIT = re.compile(r"[,;\n]")


def _fail(kind: str, template: str, value: Any, **more: Any) -> PydanticCustomError:
    if value is None:
        return PydanticCustomError("null", "null is not allowed here; send a value", {"shown": ""})
    return PydanticCustomError(kind, template, {"shown": shown(value), **more})


def unwrap(hint: Any) -> tuple[Any, bool, list[Any]]:
    """Split a hint into its core type, whether it is optional, and its ``Annotated`` extras."""
    extras: list[Any] = []
    optional = False
    while True:
        origin = get_origin(hint)
        if origin is Annotated:
            args = get_args(hint)
            hint, extras = args[0], [*extras, *args[1:]]
        elif origin in (Union, types.UnionType):
            members = [a for a in get_args(hint) if a is not type(None)]
            optional = optional or len(members) < len(get_args(hint))
            if len(members) != 1:
                return hint, optional, extras
            hint = members[0]
        else:
            return hint, optional, extras


def _extra(extras: list[Any], kind: type) -> Any:
    return next((e for e in extras if isinstance(e, kind)), None)


def is_zone_name(hint: Any) -> bool:
    """Whether ``hint`` is :data:`Timezone` (optional or not)."""
    return _extra(unwrap(hint)[2], ZoneName) is not None


def tolerant(hint: Any) -> Any:
    """The pydantic type of an argument whose function hint is ``hint``."""
    core, optional, extras = unwrap(hint)
    made = _tolerant_core(core, extras)
    # null is accepted (it means the default) but not shown: every host's schema generator,
    # not only ours, then shows the plain type.
    return (made | SkipJsonSchema[None]) if optional else made  # type: ignore[misc]


def _tolerant_core(core: Any, extras: list[Any]) -> Any:
    origin = get_origin(core)
    if core is Any or core is object:
        return Any
    if origin is Literal:
        return Annotated[core, BeforeValidator(_choice(get_args(core), _extra(extras, Synonyms)))]
    if origin in (list, tuple, set) or core in (list, tuple, set):
        args = get_args(core)
        item = tolerant(args[0]) if args else Any
        return Annotated[list[item], BeforeValidator(_listed)]  # type: ignore[valid-type]
    if _extra(extras, ZoneName) is not None:
        return Annotated[str, BeforeValidator(_zone_name)]
    bounds = _extra(extras, Range)
    # Constraints must come before the validator for pydantic to show them in the schema.
    limits: list[Any] = [Field(ge=bounds.low, le=bounds.high)] if bounds is not None else []
    limits += [e for e in extras if isinstance(e, (annotated_types.BaseMetadata, FieldInfo))]
    if core is bool:
        return Annotated[bool, BeforeValidator(_truth)]
    if core is int:
        return _annotated(int, *limits, BeforeValidator(_whole))
    if core is float:
        return _annotated(float, *limits, BeforeValidator(_number))
    if core is str:
        return _annotated(str, *limits, BeforeValidator(_text))
    if core is dt.datetime:
        # Sent as text, so that "tomorrow 4pm" is allowed: no "format" to hold the agent to.
        return Annotated[dt.datetime, BeforeValidator(_moment), _AS_WRITTEN, _TEXT]
    if core is dt.date:
        return Annotated[dt.date, BeforeValidator(_day), _AS_WRITTEN, _TEXT]
    return core


_AS_WRITTEN = WrapSerializer(_as_written, when_used="json")
_TEXT = WithJsonSchema({"type": "string"})


def _annotated(core: Any, *metadata: Any) -> Any:
    return operator.getitem(Annotated, (core, *metadata))


def _text(value: Any) -> Any:
    if isinstance(value, str):
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError:
                raise _fail(
                    "not_unicode",
                    "{shown} holds a lone surrogate, which is not text; send valid Unicode",
                    value,
                ) from None
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0].strip()
    raise _fail("not_text", "{shown} is not text; send a string", value)


def _truth(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    raise _fail("not_true_or_false", "{shown} is not true or false; send true or false", value)


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", "").replace("_", ""))
        except ValueError:
            return None
    return None


def _number(value: Any) -> float:
    number = _as_float(value)
    if number is None or number != number or number in (float("inf"), float("-inf")):
        raise _fail("not_a_number", "{shown} is not a number; send a number such as 2.5", value)
    return number


def _whole(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = _as_float(value)
    if number is None or not number.is_integer():
        raise _fail("not_whole", "{shown} is not a whole number; send one such as 5", value)
    return int(number)


def _listed(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, set)):
        return list(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except (ValueError, RecursionError):  # not JSON, or JSON Python will not read
                loaded = None
            if isinstance(loaded, list):
                return loaded
        return [part.strip() for part in _SPLIT.split(text) if part.strip()]
    return [value]


def _norm(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def _choice(choices: tuple[Any, ...], synonyms: Synonyms | None) -> Callable[[Any], Any]:
    listed = ", ".join(repr(c) for c in choices)

    def choose(value: Any) -> Any:
        if value in choices:
            return value
        if isinstance(value, str):
            wanted = _norm(value)
            for choice in choices:
                if isinstance(choice, str) and _norm(choice) == wanted:
                    return choice
            if synonyms is not None:
                for word, choice in synonyms.mapping.items():
                    if _norm(word) == wanted:
                        return choice
        raise _fail(
            "not_a_choice",
            "{shown} is not one of the choices; use one of {choices}",
            value,
            choices=listed,
        )

    return choose


def _moment(value: Any, info: ValidationInfo) -> dt.datetime:
    ctx = reading_context(info)
    moment: dt.datetime | None = None
    problem = "is not a date or time"
    if isinstance(value, (WrittenTime, WrittenDate)):
        value = value.written  # read by a host in a stand-in zone: read it again here
    try:
        if isinstance(value, dt.datetime):
            if value.tzinfo is not None:
                moment = value
            elif ctx.tz is STAND_IN:
                moment = WrittenTime.of(value.replace(tzinfo=STAND_IN), value.isoformat())
            else:
                moment = value.replace(tzinfo=ctx.tz)
            clock.in_range(moment)
        elif isinstance(value, dt.date):
            moment = clock.in_range(dt.datetime.combine(value, dt.time(0), tzinfo=ctx.tz))
            if ctx.tz is STAND_IN:
                moment = WrittenTime.of(moment, value.isoformat())
        elif isinstance(value, str) and value.strip():
            tz = ctx.tz  # a failure to get the zone is not the value's fault
            moment = clock.parse_datetime(value, tz, ctx.now)
            if tz is STAND_IN:
                moment = WrittenTime.of(moment, value)
    except clock.UnreadableTime as exc:
        moment, problem = None, exc.problem
    if moment is None:
        raise _fail(
            "not_a_time",
            "{shown} {problem}; send ISO 8601 such as '2026-11-21T16:00' "
            "or words such as 'tomorrow 4pm'",
            value,
            problem=problem,
        )
    return moment


def _day(value: Any, info: ValidationInfo) -> dt.date:
    day: dt.date | None = None
    problem = "is not a date"
    if isinstance(value, (WrittenTime, WrittenDate)):
        value = value.written  # read by a host in a stand-in zone: read it again here
    try:
        if isinstance(value, dt.datetime):
            day = clock.in_range(value.date())
        elif isinstance(value, dt.date):
            day = clock.in_range(value)
        elif isinstance(value, str) and value.strip():
            ctx = reading_context(info)
            tz = ctx.tz  # a failure to get the zone is not the value's fault
            day = clock.parse_date(value, tz, ctx.now)
            if tz is STAND_IN:
                day = WrittenDate.of(day, value)
    except clock.UnreadableTime as exc:
        day, problem = None, exc.problem.replace("is not a date or time", "is not a date")
    if day is None:
        raise _fail(
            "not_a_date",
            "{shown} {problem}; send ISO 8601 such as '2026-11-21' or words such as 'next Friday'",
            value,
            problem=problem,
        )
    return day


def _zone_name(value: Any) -> str:
    if isinstance(value, str) and value.strip() and len(value) <= MAX_TIME_TEXT:
        with contextlib.suppress(FixArguments):
            return clock.timezone_name(clock.resolve_timezone(value.strip()))
    raise _fail(
        "not_a_timezone",
        "{shown} is not a timezone name; use an IANA name such as 'America/New_York', "
        "'Europe/Paris' or 'UTC'",
        value,
    )


def error_text(error: Mapping[str, Any]) -> str:
    """One pydantic error (from ``ValidationError.errors()``) as the agent reads it."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    value = error.get("input")
    if kind in ("greater_than_equal", "greater_than"):
        return f"{shown(value)} is below the minimum of {_bound(ctx)}"
    if kind in ("less_than_equal", "less_than"):
        return f"{shown(value)} is above the maximum of {_bound(ctx)}"
    if kind == "string_too_long":
        return f"{shown(value)} is too long; send at most {ctx.get('max_length')} characters"
    if kind in ("none_required", "missing"):
        return "a value is needed here"
    if kind.endswith("_type") and value is None:
        return "null is not allowed here; send a value"
    message = str(error["msg"])
    # Our own validators' messages show the value already; pydantic's do not.
    return message if "shown" in ctx else f"{message} (got {shown(value)})"


def _bound(ctx: Mapping[str, Any]) -> str:
    bound = next((ctx[k] for k in ("ge", "le", "gt", "lt") if k in ctx), "")
    return f"{bound:g}" if isinstance(bound, (int, float)) else str(bound)


def coerce(value: Any, hint: Any, ctx: Context | None = None) -> Any:
    """Read one ``value`` as the type ``hint`` asks for; ``CoercionError`` shows a bad one."""
    try:
        return TypeAdapter(tolerant(hint)).validate_python(value, context={TIMES: ctx})
    except ValidationError as exc:
        raise CoercionError("; ".join(error_text(e) for e in exc.errors())) from None


def json_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema fragment an agent sees for a parameter hint (no description)."""
    return TypeAdapter(tolerant(hint)).json_schema(schema_generator=ToolJsonSchema)
