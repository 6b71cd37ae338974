import datetime as dt
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

import pytest

from toolspecs.core import Range, Synonyms
from toolspecs.core.inputs import CoercionError, Context, coerce, json_schema

NY = ZoneInfo("America/New_York")
# Saturday 2026-11-21 10:00 in New York.
CTX = Context(zone=NY, now=dt.datetime(2026, 11, 21, 10, 0, tzinfo=NY))


@pytest.mark.parametrize(
    ("value", "expected"), [(5, 5), ("5", 5), (" 7 ", 7), (5.0, 5), ("1,000", 1000), ("3.0", 3)]
)
def test_int_accepts_what_llms_send(value, expected):
    assert coerce(value, int) == expected


@pytest.mark.parametrize("value", ["five", 2.5, "2.5", True, "", [1]])
def test_int_rejects_with_the_bad_value_shown(value):
    with pytest.raises(CoercionError) as err:
        coerce(value, int)
    assert repr(value) in str(err.value)
    assert "whole number" in str(err.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        ("true", True),
        ("Yes", True),
        ("1", True),
        (1, True),
        ("off", False),
        ("false", False),
        (0, False),
        ("no", False),
    ],
)
def test_bool(value, expected):
    assert coerce(value, bool) is expected


def test_bool_rejects_other_words():
    with pytest.raises(CoercionError, match="true or false"):
        coerce("maybe", bool)


def test_float():
    assert coerce("2.5", float) == 2.5
    assert coerce(3, float) == 3.0
    with pytest.raises(CoercionError):
        coerce("abc", float)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a@x.com, b@y.com", ["a@x.com", "b@y.com"]),
        ('["a@x.com", "b@y.com"]', ["a@x.com", "b@y.com"]),
        (["a@x.com"], ["a@x.com"]),
        ("a@x.com", ["a@x.com"]),
        ("a@x.com; b@y.com\nc@z.com", ["a@x.com", "b@y.com", "c@z.com"]),
        ("", []),
    ],
)
def test_list_of_str(value, expected):
    assert coerce(value, list[str]) == expected


@pytest.mark.parametrize(
    "value", ["[" + "9" * 5000 + "]", "[" * 100_000 + "]" * 100_000]
)  # JSON that Python will not read: a number past its digit limit, nesting past recursion
def test_a_list_as_json_python_will_not_read_is_taken_as_text(value):
    assert coerce(value, list[str]) == [value]


def test_list_items_are_coerced_too():
    assert coerce("1, 2, 3", list[int]) == [1, 2, 3]
    with pytest.raises(CoercionError, match="'x'"):
        coerce("1, x", list[int])


def test_str_accepts_numbers_and_one_item_lists_but_not_objects():
    assert coerce(42, str) == "42"
    assert coerce(["only"], str) == "only"
    assert coerce("  padded ", str) == "padded"
    with pytest.raises(CoercionError, match="not text"):
        coerce({"a": 1}, str)


SortBy = Annotated[
    Literal["relevance", "recent", "last_updated"], Synonyms({"newest": "recent", "date": "recent"})
]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("recent", "recent"),
        ("RECENT", "recent"),
        ("Newest", "recent"),
        ("date", "recent"),
        ("last updated", "last_updated"),
        ("last-updated", "last_updated"),
    ],
)
def test_choices_forgive_case_spacing_and_synonyms(value, expected):
    assert coerce(value, SortBy) == expected


def test_choices_list_the_valid_ones():
    with pytest.raises(CoercionError) as err:
        coerce("popular", SortBy)
    assert "'popular'" in str(err.value)
    assert "'relevance', 'recent', 'last_updated'" in str(err.value)


def test_range_reports_the_bound():
    bounded = Annotated[int, Range(1, 50)]
    assert coerce("50", bounded) == 50
    with pytest.raises(CoercionError, match="above the maximum of 50"):
        coerce(51, bounded)
    with pytest.raises(CoercionError, match="below the minimum of 1"):
        coerce("0", bounded)


def test_optional_accepts_null_required_does_not():
    assert coerce(None, int | None) is None
    with pytest.raises(CoercionError, match="null"):
        coerce(None, int)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-21T16:00:00", dt.datetime(2026, 11, 21, 16, 0, tzinfo=NY)),
        ("2026-11-21 16:00", dt.datetime(2026, 11, 21, 16, 0, tzinfo=NY)),
        ("tomorrow 4pm", dt.datetime(2026, 11, 22, 16, 0, tzinfo=NY)),
        ("next Friday 9am", dt.datetime(2026, 11, 27, 9, 0, tzinfo=NY)),
        ("in 2 hours", dt.datetime(2026, 11, 21, 12, 0, tzinfo=NY)),
    ],
)
def test_naive_and_relative_times_are_read_in_the_spec_timezone(text, expected):
    got = coerce(text, dt.datetime, CTX)
    assert got == expected
    assert got.utcoffset() == dt.timedelta(hours=-5)


def test_z_and_offsets_are_honoured():
    z = coerce("2026-11-21T16:00:00Z", dt.datetime, CTX)
    assert z.utcoffset() == dt.timedelta(0)
    assert z.hour == 16
    paris = coerce("2026-11-21T16:00:00+01:00", dt.datetime, CTX)
    assert paris.utcoffset() == dt.timedelta(hours=1)


def test_naive_datetime_objects_get_the_spec_timezone():
    got = coerce(dt.datetime(2026, 3, 8, 12, 0), dt.datetime, CTX)
    assert got.tzinfo is NY
    # A day after the spring-forward change, the offset is -04:00.
    assert got.utcoffset() == dt.timedelta(hours=-4)


def test_dates():
    assert coerce("2026-11-21", dt.date, CTX) == dt.date(2026, 11, 21)
    assert coerce("next Friday", dt.date, CTX) == dt.date(2026, 11, 27)
    assert coerce("tomorrow", dt.date, CTX) == dt.date(2026, 11, 22)


def test_relative_dates_use_the_spec_timezone_not_utc():
    # 23:30 on the 21st in New York is already the 22nd in UTC.
    late = Context(zone=NY, now=dt.datetime(2026, 11, 21, 23, 30, tzinfo=NY))
    assert coerce("tomorrow", dt.date, late) == dt.date(2026, 11, 22)


@pytest.mark.parametrize("value", ["not a time at all", "", 12])
def test_unreadable_times_say_what_to_send(value):
    with pytest.raises(CoercionError, match="ISO 8601"):
        coerce(value, dt.datetime, CTX)


def test_json_schema_fragments():
    assert json_schema(int) == {"type": "integer"}
    assert json_schema(int | None) == {"type": "integer"}
    assert json_schema(list[str]) == {"type": "array", "items": {"type": "string"}}
    assert json_schema(SortBy) == {
        "type": "string",
        "enum": ["relevance", "recent", "last_updated"],
    }
    assert json_schema(Annotated[int, Range(1, 50)]) == {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
    }
    assert json_schema(dt.datetime) == {"type": "string"}
    assert json_schema(bool) == {"type": "boolean"}


@pytest.mark.parametrize(
    ("value", "hint", "phrase"),
    [
        ("9999-12-31", dt.date, "outside the years 1900 to 2200"),
        ("9999-12-31T23:59:59", dt.datetime, "outside the years 1900 to 2200"),
        (dt.datetime(9999, 12, 31, 23), dt.datetime, "outside the years 1900 to 2200"),
        (dt.date(1, 1, 1), dt.date, "outside the years 1900 to 2200"),
        ("a", dt.datetime, "is not a date or time"),
        ("1" * 100, dt.datetime, "is not a date or time"),
        ("1" * 100, dt.date, "is not a date"),
        ("\u200f" * 100_000, dt.date, "longer than 120 characters"),
    ],
)
def test_odd_times_are_guidance_that_says_why(value, hint, phrase):
    with pytest.raises(CoercionError, match=phrase) as err:
        coerce(value, hint, CTX)
    assert len(str(err.value)) < 300


def test_a_timezone_argument_that_is_a_directory_of_the_database_is_guidance():
    from toolspecs.core import Timezone

    # Before: IsADirectoryError out of zoneinfo.
    with pytest.raises(CoercionError, match="is not a timezone name"):
        coerce("America", Timezone, CTX)
