"""Docs are tested: every notebook in notebooks/ runs offline (TOOLSPECS_OFFLINE=1) in a
kernel on this environment's Python, and is committed small."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient

ROOT = Path(__file__).parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT = 120  # seconds
MAX_NOTEBOOK_BYTES = 30_000
MAX_OUTPUT_CHARS = 2_000
KEYS = ("OPENAI_API_KEY", "WOLFRAM_ALPHA_APP_ID", "WOLFRAMALPHA_API_KEY")
# Anything that tries the network (requests, httpx) without a fake fails fast.
NO_NETWORK = "http://127.0.0.1:9"


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/*.ipynb is empty: the parametrized tests below test nothing"


@pytest.fixture(scope="module")
def kernel_specs(tmp_path_factory) -> KernelSpecManager:
    """One kernel spec: ipykernel on the Python running the tests (the project's venv)."""
    root = tmp_path_factory.mktemp("kernels")
    spec_dir = root / "toolspecs-venv"
    spec_dir.mkdir()
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "toolspecs (venv)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec))
    return KernelSpecManager(kernel_dirs=[str(root)], ensure_native_kernel=False)


def offline_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEYS and k.lower() != "no_proxy"}
    env.update(
        TOOLSPECS_OFFLINE="1",
        TOOLSPECS_STRICT="1",  # our bugs raise in the notebook instead of becoming guidance
        HTTP_PROXY=NO_NETWORK,
        HTTPS_PROXY=NO_NETWORK,
        http_proxy=NO_NETWORK,
        https_proxy=NO_NETWORK,
    )
    return env


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_offline(path, kernel_specs, tmp_path):
    notebook = nbformat.read(path, as_version=4)
    manager = KernelManager(kernel_name="toolspecs-venv", kernel_spec_manager=kernel_specs)
    client = NotebookClient(
        notebook,
        km=manager,
        timeout=CELL_TIMEOUT,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(tmp_path)}},  # files it writes land here
    )
    # Raises CellExecutionError on any error; cleanup_kc: stop the kernel we gave it, too.
    client.execute(cleanup_kc=True, env=offline_env())
    printed = [
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
    ]
    assert any(printed), f"{path.name} printed nothing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_small(path):
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES, f"{path.name}: clear its outputs"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    outputs = json.dumps([c.get("outputs", []) for c in notebook.cells if c.cell_type == "code"])
    assert len(outputs) <= MAX_OUTPUT_CHARS, f"{path.name}: outputs of {len(outputs)} characters"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_has_the_offline_switch(path):
    notebook = nbformat.read(path, as_version=4)
    setup = next(c.source for c in notebook.cells if c.cell_type == "code")
    assert 'os.environ.get("TOOLSPECS_OFFLINE") == "1"' in setup
    intro = notebook.cells[0].source
    assert "TOOLSPECS_OFFLINE=1" in intro
