import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from toolspecs.core import (
    ConfigurationError,
    FixArguments,
    clock,
    format_datetime,
    parse_datetime,
    resolve_timezone,
)
from toolspecs.core.clock import describe_now

NY = ZoneInfo("America/New_York")


@pytest.mark.dates
def test_now_is_the_pinned_instant_in_the_zone_asked(monkeypatch):
    # The night New York springs forward: 01:30 EST, and at 02:00 the clocks jump to 03:00.
    monkeypatch.setenv("TOOLSPECS_NOW", "2027-03-14T01:30:00-05:00")
    assert clock.now(NY) == dt.datetime(2027, 3, 14, 1, 30, tzinfo=NY)
    assert clock.now(ZoneInfo("Pacific/Auckland")).isoformat() == "2027-03-14T19:30:00+13:00"
    assert describe_now(NY) == (
        "Today is Sunday, 2027-03-14. The time is 01:30 in America/New_York (UTC-05:00). "
        "Tomorrow is Monday 2027-03-15."
    )
    # Relative words are read from the pinned instant, with the offset of their own day.
    assert parse_datetime("tomorrow 4pm", NY).isoformat() == "2027-03-15T16:00:00-04:00"


@pytest.mark.dates
def test_without_a_pin_now_is_the_real_clock(monkeypatch):
    # Reads the real clock on purpose: what a user gets when nothing is pinned.
    monkeypatch.delenv("TOOLSPECS_NOW")
    before = dt.datetime.now(dt.timezone.utc)
    read = clock.now(dt.timezone.utc)
    assert before <= read <= dt.datetime.now(dt.timezone.utc)


@pytest.mark.dates
@pytest.mark.parametrize("pin", ["tomorrow", "2026-11-23T10:00", "1732370400"])
def test_a_pin_that_is_not_an_instant_says_how_to_set_it(monkeypatch, pin):
    monkeypatch.setenv("TOOLSPECS_NOW", pin)
    with pytest.raises(ConfigurationError, match=r"TOOLSPECS_NOW=.* is not an instant; set it"):
        clock.now(NY)


@pytest.mark.dates
def test_the_machine_zone_is_its_iana_zone_with_each_day_s_own_offset(monkeypatch):
    monkeypatch.delenv("TOOLSPECS_TIMEZONE", raising=False)
    monkeypatch.setenv("TZ", "America/New_York")
    zone = resolve_timezone()
    assert zone == NY
    # Not today's fixed offset: a July date is shown in daylight time, a January one not.
    july = parse_datetime("2027-07-01 09:00")
    assert format_datetime(july) == "Thursday 2027-07-01 09:00 -04:00 (America/New_York)"
    assert parse_datetime("2027-01-04 09:00").utcoffset() == dt.timedelta(hours=-5)
    monkeypatch.setenv("TZ", ":Europe/Paris")
    assert resolve_timezone() == ZoneInfo("Europe/Paris")


def test_format_shows_weekday_offset_and_zone():
    moment = dt.datetime(2026, 11, 21, 16, 0, tzinfo=ZoneInfo("America/New_York"))
    assert format_datetime(moment) == "Saturday 2026-11-21 16:00 -05:00 (America/New_York)"
    assert (
        format_datetime(moment, ZoneInfo("Asia/Kolkata"))
        == "Sunday 2026-11-22 02:30 +05:30 (Asia/Kolkata)"
    )


def test_unknown_timezone_is_guidance():
    with pytest.raises(FixArguments) as err:
        resolve_timezone("Mars/Olympus")
    assert "'Mars/Olympus'" in err.value.text
    assert "America/New_York" in err.value.text


def test_timezone_from_environment(monkeypatch):
    monkeypatch.setenv("TOOLSPECS_TIMEZONE", "Europe/Paris")
    assert resolve_timezone() == ZoneInfo("Europe/Paris")
    assert resolve_timezone("utc") == ZoneInfo("UTC")


@pytest.mark.dates
def test_describe_now_names_date_weekday_time_and_offset(now):
    text = describe_now(ZoneInfo("Asia/Kolkata"))
    today = now.astimezone(ZoneInfo("Asia/Kolkata"))
    assert f"Today is {today:%A}, {today:%Y-%m-%d}" in text
    assert "Asia/Kolkata (UTC+05:30)" in text
    assert "Tomorrow is" in text


def test_parse_datetime_around_dst_in_the_spec_timezone():
    ny = ZoneInfo("America/New_York")
    # Saturday before the fall-back change on 2026-11-01.
    base = dt.datetime(2026, 10, 31, 12, 0, tzinfo=ny)
    before = parse_datetime("2026-10-31 09:00", ny, base)
    after = parse_datetime("tomorrow 9am", ny, base)
    assert before.utcoffset() == dt.timedelta(hours=-4)
    assert after.date() == dt.date(2026, 11, 1)
    assert after.utcoffset() == dt.timedelta(hours=-5)


@pytest.mark.dates
def test_unreadable_time_is_guidance():
    with pytest.raises(FixArguments, match="tomorrow 4pm"):
        parse_datetime("whenever you like", ZoneInfo("UTC"))


@pytest.mark.dates
def test_a_bare_offset_is_shown_once():
    moment = dt.datetime(2026, 11, 21, 9, 14, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert format_datetime(moment) == "Saturday 2026-11-21 09:14 -05:00"
    utc = moment.astimezone(dt.timezone.utc)
    assert format_datetime(utc) == "Saturday 2026-11-21 14:14 +00:00 (UTC)"


def test_a_timezone_setting_is_checked_for_the_person():
    from toolspecs.core import ConfigurationError
    from toolspecs.core.clock import timezone_setting

    assert timezone_setting("Europe/Paris") == ZoneInfo("Europe/Paris")
    assert timezone_setting("utc") == ZoneInfo("UTC")
    with pytest.raises(ConfigurationError) as caught:
        timezone_setting("Mars/Olympus")
    assert isinstance(caught.value, ValueError)
    assert str(caught.value) == (
        "timezone='Mars/Olympus' is not an IANA timezone name; "
        "set it to one such as 'America/New_York', 'Europe/Paris' or 'UTC'"
    )


# -- hostile or odd text: bounded, and guidance rather than a made-up date -------------


UTC = ZoneInfo("UTC")


@pytest.mark.parametrize(
    "text",
    ["9999-12-31", "0001-01-01T00:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00+14:00"],
)
def test_years_far_from_now_are_guidance_not_overflow(text):
    # Before: the year 9999 or 1 with a ±14:00 offset overflowed wherever it was converted.
    with pytest.raises(FixArguments, match="outside the years 1900 to 2200"):
        parse_datetime(text, ZoneInfo("America/New_York"))


@pytest.mark.parametrize("text", ["a", "e", "ok", "1", "2026", "1" * 100, "??"])
def test_a_letter_or_a_run_of_digits_is_not_a_date(text):
    # Before: 'a' read as a day in the coming year, "1"*100 as the year 1111.
    with pytest.raises(FixArguments, match="is not a date or time"):
        parse_datetime(text, UTC)


def test_iso_basic_dates_and_words_still_read():
    base = dt.datetime(2026, 11, 21, 10, 0, tzinfo=UTC)
    assert parse_datetime("20261121", UTC, base).date() == dt.date(2026, 11, 21)
    assert parse_datetime("明天", UTC, base).date() == dt.date(2026, 11, 22)
    assert parse_datetime("2026-01-01T10:00+14:00", UTC).utcoffset() == dt.timedelta(hours=14)


def test_invisible_marks_are_dropped_and_long_text_is_not_parsed():
    import time

    assert parse_datetime("\u200f2026-11-21\u200b 16:00", UTC).hour == 16
    began = time.monotonic()
    # Before: 100,000 right-to-left marks kept dateparser busy for over 10 s (the
    # recurrence's "until" had no length cap).
    with pytest.raises(FixArguments, match="longer than 120 characters"):
        parse_datetime("\u200f" * 100_000, UTC)
    assert time.monotonic() - began < 2


@pytest.mark.dates
def test_natural_language_has_a_time_bound(monkeypatch):
    import threading
    import time

    from toolspecs.core import clock

    def slow(text, settings=None):  # dateparser on a pathological text
        threading.Event().wait(3)
        return dt.datetime(2026, 11, 21)

    monkeypatch.setattr("dateparser.parse", slow)
    monkeypatch.setattr(clock, "PARSE_SECONDS", 0.2)
    began = time.monotonic()
    with pytest.raises(FixArguments, match=r"could not be read as a date within 0\.2 s"):
        parse_datetime("next blue moon", UTC)
    assert time.monotonic() - began < 2


@pytest.mark.parametrize("name", ["a" * 300, "America", "\x00", "../etc"])
def test_timezone_names_that_are_paths_or_too_long_are_guidance(name):
    # Before: "a"*300 raised OSError (file name too long), "America" IsADirectoryError.
    with pytest.raises(FixArguments, match="is not a timezone name"):
        resolve_timezone(name)
