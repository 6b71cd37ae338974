"""toolspecs-base: the bottom layer, shared by core and the loaders; the standard library only."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import toolspecs.base as base
from toolspecs.base import cache, files, times
from toolspecs.core import clock
from toolspecs.loaders.google import calendar, gmail

ROOT = Path(__file__).parents[2]
BASE = ROOT / "base"


def test_all_names_what_is_public():
    for module in (base, cache, files, times):
        public = {n for n, v in vars(module).items() if not n.startswith("_")}
        imported = {"annotations", "dt", "os", "Path", "Callable", "ZoneInfo"}
        imported |= {"ZoneInfoNotFoundError", "Clock"}
        imported |= {"threading", "time", "OrderedDict", "Protocol", "runtime_checkable"}
        imported |= {"net"}  # the loaders' subpackage, imported on its own (tests/base/test_net.py)
        assert set(module.__all__) == public - imported, module.__name__


def test_it_depends_on_nothing_and_imports_no_other_toolspecs_package():
    # Only the extras the network package's bounded GET sends with (tests/base/test_net.py).
    requires = importlib.metadata.requires("toolspecs-base") or []
    assert all("; extra == " in r for r in requires), requires
    for source in (BASE / "src").rglob("*.py"):
        text = source.read_text(encoding="utf-8")
        assert not re.search(r"toolspecs\.(core|loaders|specs)", text), source
    code = (
        "import sys, toolspecs.base\n"
        "ours = sorted(m for m in sys.modules if m.startswith('toolspecs.'))\n"
        "assert ours == ['toolspecs.base', 'toolspecs.base.cache', 'toolspecs.base.files', "
        "'toolspecs.base.times'], ours\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.dates
def test_core_and_the_google_loader_write_times_with_it():
    # The modules that write a time (core's clock; the loader's calendar and gmail) use base's.
    assert clock.format_date is times.format_date is calendar.format_date
    assert clock.format_offset is times.format_offset
    assert calendar.format_datetime is gmail.format_datetime is times.format_datetime
    new_york = ZoneInfo("America/New_York")
    moments = [
        dt.datetime(2026, 11, 21, 16, 0, tzinfo=new_york),
        dt.datetime(2026, 7, 1, 9, 30, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=45))),
        dt.datetime(1, 1, 2, tzinfo=dt.timezone.utc),  # the year 1, written "0001"
    ]
    for moment in moments:
        assert clock.format_datetime(moment) == times.format_datetime(moment)
        assert clock.format_datetime(moment, new_york) == times.format_datetime(moment, new_york)
    assert times.format_datetime(moments[0]) == (
        "Saturday 2026-11-21 16:00 -05:00 (America/New_York)"
    )
    assert times.format_datetime(moments[1]) == "Wednesday 2026-07-01 09:30 +05:45"


def test_the_caller_says_what_now_and_the_local_zone_are():
    paris = ZoneInfo("Europe/Paris")
    naive = dt.datetime(2026, 11, 21, 16, 0)
    assert times.format_datetime(naive, local=lambda: paris).endswith("+01:00 (Europe/Paris)")
    fixed = dt.timezone(dt.timedelta(hours=2))  # no IANA name: its name now, by the clock
    assert times.timezone_name(fixed, lambda tz: dt.datetime(2026, 1, 1, tzinfo=tz)) == "UTC+02:00"


@pytest.mark.parametrize("name", ["Mars/Olympus", "America", "x" * 65, ""])
def test_an_unknown_zone_is_a_value_error(name):
    with pytest.raises(ValueError, match="is not an IANA timezone name"):
        times.timezone_named(name)


def test_a_zone_by_name():
    assert times.timezone_named(" z ") == ZoneInfo("UTC")
    assert times.timezone_named("Europe/Paris") == ZoneInfo("Europe/Paris")


@pytest.mark.skipif(os.open not in os.supports_dir_fd, reason="POSIX dir_fd walk")
def test_open_in_follows_no_link_on_the_way(tmp_path):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a" / "f.txt").write_text("inside")
    fd = files.open_in(root, Path("a/f.txt"))
    with os.fdopen(fd, "rb") as handle:
        assert handle.read() == b"inside"
    (tmp_path / "secret.txt").write_text("outside")
    (root / "a" / "link.txt").symlink_to(tmp_path / "secret.txt")
    (root / "b").symlink_to(root / "a")
    for relative in ("a/link.txt", "b/f.txt", "a/missing.txt"):
        with pytest.raises(OSError):
            files.open_in(root, Path(relative))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_opens_at_once_and_a_new_file_is_never_a_link(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    os.close(os.open(fifo, files.READ_FLAGS))  # O_NONBLOCK: no writer awaited
    (tmp_path / "link").symlink_to(tmp_path / "target")
    with pytest.raises(FileExistsError):
        os.open(tmp_path / "link", files.CREATE_FLAGS, 0o600)
    assert not (tmp_path / "target").exists()


def test_the_package_page_example_runs():
    page = BASE / "README.md"
    (code,) = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    exec(compile(code, str(page), "exec"), {"__name__": "readme"})
