"""The marks that say what a test does are checked (tests/conftest.py), not trusted.

A test that reads "now" or the machine's zone must be marked ``dates`` (then it runs under
every clock); one that starts a server, or uses a fixture that started one, must be marked
``serving`` (the other Pythons leave those out). A pytest of its own runs a few tests with
this suite's conftest, and each kind of forgetting fails with the mark to add.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest_plugins = ("pytester",)

TESTS = Path(__file__).parent

FORGETFUL = """
import subprocess
import sys
from pathlib import Path

import pytest

from toolspecs.core import clock as seam

TOOLSPECS = str(Path(sys.executable).with_name("toolspecs"))


def test_reads_the_date_unmarked():
    seam.now()


def test_takes_now_unmarked(now):
    assert now.tzinfo is not None


@pytest.mark.dates
def test_reads_the_date_marked(clock, now):
    assert seam.now() == now  # the pinned instant of each clock


def test_starts_a_server_unmarked():
    subprocess.run([TOOLSPECS, "--version"], capture_output=True, check=True)


@pytest.mark.serving
def test_starts_a_server_marked():
    subprocess.run([TOOLSPECS, "--version"], capture_output=True, check=True)


@pytest.fixture(scope="module")
def server():
    subprocess.run([TOOLSPECS, "--version"], capture_output=True, check=True)
    return "started"


@pytest.mark.serving
def test_starts_it_through_a_fixture(server):
    assert server


def test_uses_the_started_fixture_unmarked(server):
    assert server


def test_starts_python_unmarked():
    subprocess.run([sys.executable, "-c", "pass"], check=True)
"""


def test_a_test_that_forgets_its_mark_fails_saying_which(pytester: pytest.Pytester):
    for helper in ("conftest.py", "installed.py"):
        shutil.copy(TESTS / helper, pytester.path / helper)
    pytester.makepyfile(test_forgetful=FORGETFUL)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-v", "-ra")
    # Each test passes; the check adds an error at teardown to those that forgot a mark.
    result.assert_outcomes(passed=12, errors=4)
    errors = "\n".join(line for line in result.outlines if line.startswith("ERROR"))
    for name, mark in [
        ("test_reads_the_date_unmarked", "dates"),
        ("test_takes_now_unmarked", "dates"),
        ("test_starts_a_server_unmarked", "serving"),
        ("test_uses_the_started_fixture_unmarked", "serving"),
    ]:
        assert f"test_forgetful.py::{name} " in errors, errors
        line = next(line for line in result.outlines if f"::{name} " in line and "mark it" in line)
        assert f"`{mark}`" in line, line
    assert "test_starts_python_unmarked" not in errors  # a Python subprocess is no server
    result.stdout.fnmatch_lines(["*test_reads_the_date_marked?auckland-new-year? PASSED*"])
