"""Docs are tested: every notebook in notebooks/ runs offline (TOOLSPECS_OFFLINE=1) in a
kernel on this environment's Python, prints nothing on stderr, and is committed with
small, up-to-date outputs, so a code host shows what it does. The run's clock is pinned
(refresh.NOW), so the outputs are compared exactly, on any day."""

from __future__ import annotations

import datetime as dt
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from toolspecs.agents.openai_agent import DEFAULT_MODEL

ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
MAX_NOTEBOOK_BYTES = 60_000
# The metadata a notebook is committed with: nothing of the machine that ran it.
METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def _load_refresh():
    """notebooks/refresh.py, the one definition of "the offline run" (not a package)."""
    spec = importlib.util.spec_from_file_location("refresh", ROOT / "notebooks" / "refresh.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


refresh = _load_refresh()


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/*.ipynb is empty: the parametrized tests below test nothing"


@pytest.fixture(scope="module")
def kernel_specs(tmp_path_factory):
    """One kernel spec: ipykernel on the Python running the tests (the project's venv)."""
    return refresh.kernel_specs(tmp_path_factory.mktemp("kernels"))


@pytest.fixture(scope="module")
def hidden(tmp_path_factory) -> Path:
    """ipywidgets hidden from the kernel, as in a plain ``pip install jupyterlab``."""
    return refresh.hide_modules(tmp_path_factory.mktemp("hidden"))


# The calendar's notebook is run again by .ci/clocks with the machine's clock moved: its own
# pinned clock (refresh.NOW) must hold whatever day the machine says it is.
@pytest.mark.notebooks
@pytest.mark.parametrize(
    "path",
    [
        pytest.param(path, marks=pytest.mark.faketime) if path.stem == "google_calendar" else path
        for path in NOTEBOOKS
    ],
    ids=lambda p: p.name,
)
def test_notebook_runs_offline_and_its_outputs_are_committed(path, kernel_specs, hidden, tmp_path):
    # Raises CellExecutionError on any error in a cell.
    executed = refresh.execute(path, kernel_specs, tmp_path, hidden)
    assert refresh.stderr_outputs(executed) == [], f"{path.name} printed on stderr"
    committed = nbformat.read(path, as_version=4)
    fresh = refresh.tidy(executed, committed)  # ValueError: an address or a local path
    assert any(refresh.comparable(fresh)), f"{path.name} printed nothing"
    assert refresh.comparable(fresh) == refresh.comparable(committed), (
        f"{path.name}: the committed outputs are stale; "
        f"refresh them: uv run python notebooks/refresh.py {path.stem}"
    )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_small_and_tidy(path):
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES, f"{path.name}: cut its outputs"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.metadata == METADATA
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert sum(bool(cell.outputs) for cell in code) >= len(code) - 1, "committed without outputs"
    for cell in code:
        assert cell.execution_count is None and "execution" not in cell.metadata
        for output in cell.outputs:
            assert output.get("execution_count") is None
            assert output.output_type != "stream" or output.name == "stdout"
        for text in refresh._texts(cell.outputs):
            assert len(text) <= refresh.MAX_OUTPUT_CHARS + len(refresh.CUT) + 20
            assert refresh.volatile(text) == []


def test_every_notebook_uses_the_default_model():
    for path in NOTEBOOKS:
        source = "".join(c.source for c in nbformat.read(path, as_version=4).cells)
        assert re.findall(r"""model=["']([^"']+)""", source) == [DEFAULT_MODEL], path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_the_offline_switch(path):
    notebook = nbformat.read(path, as_version=4)
    setup = next(c.source for c in notebook.cells if c.cell_type == "code")
    assert 'os.environ.get("TOOLSPECS_OFFLINE") == "1"' in setup
    intro = notebook.cells[0].source
    assert "TOOLSPECS_OFFLINE=1" in intro


def ran(*outputs, execution_count=None) -> nbformat.NotebookNode:
    """A notebook of one code cell, as nbclient leaves it after a run."""
    notebook = nbformat.v4.new_notebook(
        metadata={"language_info": {"name": "python", "version": "3.11.7"}}
    )
    cell = nbformat.v4.new_code_cell("print(1)", execution_count=execution_count)
    cell.metadata["execution"] = {"iopub.status.busy": "2026-11-23T04:00:00Z"}
    cell.outputs = list(outputs)
    notebook.cells = [cell]
    return notebook


def stdout(text: str):
    return nbformat.v4.new_output("stream", name="stdout", text=text)


COMMITTED = nbformat.v4.new_notebook(
    metadata=METADATA, cells=[nbformat.v4.new_code_cell("print(1)")]
)


def test_refresh_keeps_no_counts_timings_machine_metadata_or_rich_reprs():
    result = nbformat.v4.new_output(
        "execute_result", {"text/plain": "1", "text/html": "<b>1</b>"}, execution_count=3
    )
    tidied = refresh.tidy(ran(stdout("a"), stdout("b\n"), result, execution_count=3), COMMITTED)
    (cell,) = tidied.cells
    assert tidied.metadata == METADATA and cell.execution_count is None and not cell.metadata
    assert [o.output_type for o in cell.outputs] == ["stream", "execute_result"]
    assert cell.outputs[0].text == "ab\n"  # one print, however the kernel split it
    assert cell.outputs[1].data == {"text/plain": "1"} and cell.outputs[1].execution_count is None


def test_refresh_cuts_long_outputs_and_says_so():
    (cell,) = refresh.tidy(ran(stdout("line\n" * 2_000)), COMMITTED).cells
    text = cell.outputs[0].text
    assert len(text) < refresh.MAX_OUTPUT_CHARS + 100
    assert text.endswith("more characters: run the notebook to see them all]\n")


@pytest.mark.dates
@pytest.mark.faketime
def test_the_offline_run_pins_the_clock_and_the_zone_so_outputs_compare_exactly():
    env = refresh.offline_env()
    assert env["TOOLSPECS_NOW"] == refresh.NOW and env["TZ"] == refresh.ZONE
    # What the kernel's tools read as now is the pinned instant, whatever the day is.
    from toolspecs.core import clock

    assert clock._pinned(env["TOOLSPECS_NOW"]) == dt.datetime.fromisoformat(refresh.NOW)
    monday = refresh.tidy(ran(stdout("Today is Monday, 2026-11-23 at 10:00 -05:00.\n")), COMMITTED)
    tuesday = refresh.tidy(
        ran(stdout("Today is Tuesday, 2026-11-24 at 10:00 -05:00.\n")), COMMITTED
    )
    assert refresh.comparable(monday) != refresh.comparable(tuesday)  # nothing is hidden


def test_refresh_refuses_stderr_addresses_and_local_paths():
    warning = nbformat.v4.new_output("stream", name="stderr", text="TqdmWarning: IProgress")
    with pytest.raises(ValueError, match="printed on stderr: TqdmWarning"):
        refresh.tidy(ran(warning), COMMITTED)
    with pytest.raises(ValueError, match=r"'0x7f9104506420' in an output; '/.*' in an output"):
        refresh.tidy(ran(stdout(f"<object at 0x7f9104506420> {ROOT}/notebooks\n")), COMMITTED)


def test_the_readme_refresh_commands_are_the_script_s():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Notebooks\n", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\s*uv run python notebooks/refresh\.py(.*)$", section, re.M)
    assert len(commands) == 2
    for command in commands:
        args = command.split("#")[0].split()
        parsed = refresh.build_parser().parse_args(args)
        assert refresh.notebooks(parsed.names)  # every name is a notebook
    assert "--check" in section
