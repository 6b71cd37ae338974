import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from toolspecs.core import FixArguments, format_datetime, parse_datetime, resolve_timezone
from toolspecs.core.clock import describe_now


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


def test_describe_now_names_date_weekday_time_and_offset():
    text = describe_now(ZoneInfo("Asia/Kolkata"))
    today = dt.datetime.now(ZoneInfo("Asia/Kolkata"))
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


def test_unreadable_time_is_guidance():
    with pytest.raises(FixArguments, match="tomorrow 4pm"):
        parse_datetime("whenever you like", ZoneInfo("UTC"))


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
