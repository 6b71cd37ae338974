"""Tolerant inputs: turn what an LLM actually sends into what a spec function's hints ask for.

One place for every coercion, driven by the type hints, so specs never repeat it:

- ``int`` / ``float``: ``5``, ``"5"``, ``" 5 "``, ``5.0``, ``"1,000"``
- ``bool``: ``true``, ``"true"``, ``"yes"``, ``"1"``, ``"on"`` (and their opposites)
- ``list[X]``: a list, a JSON array string, ``"a@x.com, b@y.com"``, or one bare value
- ``datetime``/``date``: ISO 8601 with or without offset or ``Z``, or natural
  language (``"tomorrow 4pm"``, ``"next Friday"``) read in the spec's timezone
- ``Literal[...]``: any case, ``-``/space for ``_``, and the synonyms declared with
  ``Annotated[Literal[...], Synonyms({...})]``
- ``Annotated[int, Range(1, 50)]``: bounds, reported with the value that broke them

:func:`coerce` raises :class:`CoercionError` with a message that shows the bad value;
:func:`json_schema` gives the schema fragment the agent sees for the same hint.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from toolspecs.core import clock
from toolspecs.core.errors import FixArguments


class CoercionError(ValueError):
    """A value that cannot be read as its parameter's type; the message shows it."""


@dataclass(frozen=True)
class Synonyms:
    """Extra spellings for the choices of a ``Literal`` parameter.

    Args:
        mapping: Synonym to choice, e.g. ``{"newest": "recent"}``; matched like choices.
    """

    mapping: Mapping[str, str]


@dataclass(frozen=True)
class Range:
    """Inclusive bounds for a number parameter; either may be ``None``."""

    low: float | None = None
    high: float | None = None


@dataclass
class Context:
    """What coercion needs to know beyond the value: the spec's timezone and its "now".

    Args:
        zone: The timezone, or a function that gives it; it is asked only when a
            date or time needs it (a calendar's zone may cost an API call).
        now: What "now" is for relative times; default the real now.
    """

    zone: dt.tzinfo | Callable[[], dt.tzinfo] = field(default_factory=clock.resolve_timezone)
    now: dt.datetime | None = None

    @property
    def tz(self) -> dt.tzinfo:
        """The timezone naive and relative times are read in."""
        if callable(self.zone) and not isinstance(self.zone, dt.tzinfo):
            self.zone = self.zone()
        return self.zone


_TRUE = {"true", "yes", "y", "1", "on", "t"}
_FALSE = {"false", "no", "n", "0", "off", "f", "none", "null"}
_SPLIT = re.compile(r"[,;\n]")


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


def _norm(text: str) -> str:
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def coerce(value: Any, hint: Any, ctx: Context | None = None) -> Any:
    """Read ``value`` as the type ``hint`` asks for.

    Args:
        value: What the agent sent.
        hint: The parameter's type hint.
        ctx: Timezone and "now" for dates and times.

    Returns:
        The value as the function expects it.

    Raises:
        CoercionError: When the value cannot be read; the message shows it.
    """
    ctx = ctx or Context()
    core, optional, extras = unwrap(hint)
    if value is None:
        if optional or core is Any:
            return None
        raise CoercionError("null is not allowed here; send a value")
    result = _coerce_core(value, core, extras, ctx)
    bounds = _extra(extras, Range)
    if bounds is not None and isinstance(result, (int, float)):
        if bounds.low is not None and result < bounds.low:
            raise CoercionError(f"{result!r} is below the minimum of {bounds.low:g}")
        if bounds.high is not None and result > bounds.high:
            raise CoercionError(f"{result!r} is above the maximum of {bounds.high:g}")
    return result


def _coerce_core(value: Any, core: Any, extras: list[Any], ctx: Context) -> Any:
    origin = get_origin(core)
    if core is Any or core is object:
        return value
    if origin is Literal:
        return _coerce_choice(value, get_args(core), _extra(extras, Synonyms))
    if origin in (list, tuple, set) or core in (list, tuple, set):
        args = get_args(core)
        item_hint = args[0] if args else Any
        return [coerce(item, item_hint, ctx) for item in _as_list(value)]
    if core is bool:
        return _coerce_bool(value)
    if core is int:
        return _coerce_int(value)
    if core is float:
        return _coerce_float(value)
    if core is str:
        return _coerce_str(value)
    if core is dt.datetime:
        return _coerce_datetime(value, ctx)
    if core is dt.date:
        return _coerce_date(value, ctx)
    if isinstance(core, type) and isinstance(value, core):
        return value
    raise CoercionError(f"{value!r} is not a {getattr(core, '__name__', core)}")


def _coerce_str(value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0].strip()
    raise CoercionError(f"{value!r} is not text; send a string")


def _coerce_bool(value: Any) -> bool:
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
    raise CoercionError(f"{value!r} is not true or false; send true or false")


def _coerce_float(value: Any) -> float:
    if isinstance(value, bool):
        raise CoercionError(f"{value!r} is not a number; send a number such as 2.5")
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", "").replace("_", ""))
        except ValueError:
            pass
    raise CoercionError(f"{value!r} is not a number; send a number such as 2.5")


def _coerce_int(value: Any) -> int:
    message = f"{value!r} is not a whole number; send one such as 5"
    if isinstance(value, bool):
        raise CoercionError(message)
    if isinstance(value, int):
        return value
    try:
        number = _coerce_float(value)
    except CoercionError:
        raise CoercionError(message) from None
    if not number.is_integer():
        raise CoercionError(message)
    return int(number)


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple, set)):
        return list(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = json.loads(text)
            except json.JSONDecodeError:
                loaded = None
            if isinstance(loaded, list):
                return loaded
        return [part.strip() for part in _SPLIT.split(text) if part.strip()]
    return [value]


def _coerce_choice(value: Any, choices: tuple[Any, ...], synonyms: Synonyms | None) -> Any:
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
    listed = ", ".join(repr(c) for c in choices)
    raise CoercionError(f"{value!r} is not one of the choices; use one of {listed}")


def _coerce_datetime(value: Any, ctx: Context) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=ctx.tz)
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time(0), tzinfo=ctx.tz)
    if isinstance(value, str) and value.strip():
        try:
            return clock.parse_datetime(value, ctx.tz, ctx.now)
        except FixArguments:
            pass
    raise CoercionError(
        f"{value!r} is not a date or time; send ISO 8601 such as '2026-11-21T16:00' "
        "or words such as 'tomorrow 4pm'"
    )


def _coerce_date(value: Any, ctx: Context) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str) and value.strip():
        try:
            return clock.parse_date(value, ctx.tz, ctx.now)
        except FixArguments:
            pass
    raise CoercionError(
        f"{value!r} is not a date; send ISO 8601 such as '2026-11-21' "
        "or words such as 'next Friday'"
    )


def json_schema(hint: Any) -> dict[str, Any]:
    """The JSON schema fragment an agent sees for a parameter hint (no description).

    Args:
        hint: The parameter's type hint.

    Returns:
        A schema such as ``{"type": "integer", "minimum": 1}``.
    """
    core, _optional, extras = unwrap(hint)
    origin = get_origin(core)
    schema: dict[str, Any]
    if origin is Literal:
        choices = list(get_args(core))
        kind = "string" if all(isinstance(c, str) for c in choices) else None
        schema = {"type": kind, "enum": choices} if kind else {"enum": choices}
    elif origin in (list, tuple, set) or core in (list, tuple, set):
        args = get_args(core)
        schema = {"type": "array", "items": json_schema(args[0]) if args else {}}
    elif core is bool:
        schema = {"type": "boolean"}
    elif core is int:
        schema = {"type": "integer"}
    elif core is float:
        schema = {"type": "number"}
    else:
        # str, dates and times (sent as text so that "tomorrow 4pm" is allowed), and the rest.
        schema = {"type": "string"}
    bounds = _extra(extras, Range)
    if bounds is not None:
        if bounds.low is not None:
            schema["minimum"] = bounds.low
        if bounds.high is not None:
            schema["maximum"] = bounds.high
    return schema
