"""Run the notebooks offline and commit what they print, so a code host shows it.

Usage, from the repository root::

    uv run python notebooks/refresh.py              # every notebook in notebooks/
    uv run python notebooks/refresh.py arxiv gmail  # some of them
    uv run python notebooks/refresh.py --check      # exit 1 when a notebook's outputs are stale

Each notebook runs in a fresh kernel on this environment's Python with
``TOOLSPECS_OFFLINE=1`` (the shipped fakes, served on 127.0.0.1, and a scripted LLM), no
API key and every proxy pointing at a closed port, so nothing reaches the network; this
machine alone is reached directly (``NO_PROXY``), where the fakes listen. Its clock is pinned
(``TOOLSPECS_NOW``, read by ``toolspecs.core.clock.now``, to :data:`NOW`) and its zone set
(``TZ``), so what it prints is the same on any day and any machine. ipywidgets is hidden
from the kernel, as in a plain ``pip install jupyterlab``: the notebooks must read well
without widgets, which a code host cannot show anyway. Then each notebook is tidied so
that two runs on two machines write the same file:

- no execution counts, no timings, and the notebook metadata as the author wrote it
  (no kernel or Python version of the machine that ran it);
- no output on stderr: a warning or a log line is a bug to fix where it starts;
- long outputs cut to :data:`MAX_OUTPUT_CHARS` characters, with a line saying so;
- outputs with a memory address or a path of this machine refused (:func:`volatile`).

The Calendar demo places its events from "tomorrow" on and ``get_date`` tells the time:
with the pinned clock, those are the same text on every run, so outputs are compared
exactly (:func:`comparable`). ``tests/test_notebooks.py`` runs every notebook through
:func:`execute` and :func:`tidy`, and fails when the committed outputs are stale.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbformat import NotebookNode

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CELL_TIMEOUT = 120  # seconds
MAX_OUTPUT_CHARS = 2_500  # one output, once tidied
KERNEL = "toolspecs-venv"
KEYS = ("OPENAI_API_KEY", "WOLFRAM_ALPHA_APP_ID", "WOLFRAMALPHA_API_KEY")
NO_NETWORK = "http://127.0.0.1:9"  # requests and httpx without a fake fail at once
THIS_MACHINE = "127.0.0.1,::1,localhost"  # the fakes' servers: reached without the proxy
HIDDEN = ("ipywidgets",)
# The instant the offline run reads as now (a Monday morning in New York), and its zone.
NOW = "2026-11-23T10:00:00-05:00"
ZONE = "UTC"
PYTHON_EOL_WARNING = "ignore::FutureWarning:google.api_core._python_version_support"
CUT = "\n[... {more} more characters: run the notebook to see them all]\n"

# What differs between two runs or two machines, and must not be committed.
_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")


def notebooks(names: list[str] | None = None) -> list[Path]:
    """The notebooks in ``notebooks/``, or those named (``arxiv`` or ``arxiv.ipynb``)."""
    found = sorted(HERE.glob("*.ipynb"))
    if not names:
        return found
    wanted = {name.removesuffix(".ipynb") for name in names}
    chosen = [path for path in found if path.stem in wanted]
    unknown = wanted - {path.stem for path in chosen}
    if unknown:
        raise SystemExit(f"no notebook named {', '.join(sorted(unknown))} in {HERE.name}/")
    return chosen


def offline_env(hidden: Path | None = None) -> dict[str, str]:
    """This process's environment for the offline run: no keys, the network closed.

    Strict (our bugs raise), the clock pinned to :data:`NOW`, the zone :data:`ZONE`.

    Args:
        hidden: A directory of :func:`hide_modules` stubs, put first on ``PYTHONPATH``.
    """
    env = {k: v for k, v in os.environ.items() if k not in KEYS and k.lower() != "no_proxy"}
    if hidden is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(hidden), env.get("PYTHONPATH")]))
    env.update(
        TOOLSPECS_OFFLINE="1",
        TOOLSPECS_STRICT="1",  # our bugs raise in the notebook instead of becoming guidance
        TOOLSPECS_NOW=NOW,
        TZ=ZONE,
        # google.api_core warns, by the real date, that this machine's Python is near or
        # past its end of life (3.10 now, 3.11 from late 2027): about the machine that
        # runs the notebook, not what the notebook shows.
        PYTHONWARNINGS=",".join(filter(None, [env.get("PYTHONWARNINGS"), PYTHON_EOL_WARNING])),
        HTTP_PROXY=NO_NETWORK,
        HTTPS_PROXY=NO_NETWORK,
        http_proxy=NO_NETWORK,
        https_proxy=NO_NETWORK,
        NO_PROXY=THIS_MACHINE,
        no_proxy=THIS_MACHINE,
    )
    return env


def hide_modules(root: Path, names: tuple[str, ...] = HIDDEN) -> Path:
    """A directory of packages that fail to import, so the kernel runs without them."""
    for name in names:
        package = root / name
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text(
            f"raise ImportError({name + ' is hidden from this run (notebooks/refresh.py)'!r})\n",
            encoding="utf-8",
        )
    return root


def kernel_specs(root: Path) -> KernelSpecManager:
    """One kernel spec under ``root``: ipykernel on the Python running this (the venv)."""
    spec_dir = root / KERNEL
    spec_dir.mkdir(parents=True, exist_ok=True)
    spec = {
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "toolspecs (venv)",
        "language": "python",
    }
    (spec_dir / "kernel.json").write_text(json.dumps(spec), encoding="utf-8")
    return KernelSpecManager(kernel_dirs=[str(root)], ensure_native_kernel=False)


def execute(
    path: Path, specs: KernelSpecManager, workdir: Path, hidden: Path | None = None
) -> NotebookNode:
    """Run the notebook offline in ``workdir`` (files it writes land there), as it runs.

    ``hidden``: a :func:`hide_modules` directory, for a kernel without those modules.

    Raises:
        nbclient.exceptions.CellExecutionError: When a cell raises.
    """
    notebook = nbformat.read(path, as_version=4)
    manager = KernelManager(kernel_name=KERNEL, kernel_spec_manager=specs)
    client = NotebookClient(
        notebook,
        km=manager,
        timeout=CELL_TIMEOUT,
        shutdown_kernel="immediate",
        record_timing=False,
        resources={"metadata": {"path": str(workdir)}},
    )
    client.execute(cleanup_kc=True, env=offline_env(hidden))  # cleanup_kc: stop our kernel too
    return notebook


def stderr_outputs(notebook: NotebookNode) -> list[str]:
    """The text every cell printed on stderr (warnings, logs): none is expected."""
    return [
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream" and output.name == "stderr"
    ]


def volatile(text: str, workdir: Path | None = None) -> list[str]:
    """What in ``text`` would differ on another run or machine: addresses, local paths."""
    found = _ADDRESS.findall(text)
    places = [str(ROOT), str(Path.home()), tempfile.gettempdir(), sys.prefix]
    if workdir is not None:
        places.append(str(workdir))
    found += [place for place in places if place and place != "/" and place in text]
    return found


def _coalesced(outputs: list[Any]) -> list[Any]:
    """Consecutive prints to one stream as one output: the kernel splits them by timing."""
    merged: list[Any] = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (
            last is not None
            and output.output_type == last.output_type == "stream"
            and output.name == last.name
        ):
            last.text += output.text
        else:
            merged.append(copy.deepcopy(output))
    return merged


def _cut(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    keep = text[:MAX_OUTPUT_CHARS].rsplit("\n", 1)[0]
    return keep + CUT.format(more=len(text) - len(keep))


def _tidy_output(output: NotebookNode) -> NotebookNode:
    output = copy.deepcopy(output)
    if "execution_count" in output:
        output.execution_count = None
    if output.output_type == "stream":
        output.text = _cut(output.text)
    elif "data" in output:
        # Text only: rich reprs (HTML tables, images) would grow the file and hide in a diff.
        output.data = {"text/plain": _cut(output.data.get("text/plain", ""))}
        output.metadata = {}
    return output


def tidy(executed: NotebookNode, committed: NotebookNode) -> NotebookNode:
    """The committed notebook with the executed outputs, minus what differs per run.

    Raises:
        ValueError: When a cell printed on stderr, or an output holds a memory
            address or a path of this machine.
    """
    problems = [f"printed on stderr: {text.strip()[:300]}" for text in stderr_outputs(executed)]
    result = copy.deepcopy(committed)
    for cell, ran in zip(result.cells, executed.cells, strict=True):
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.execution_count = None
        outputs = _coalesced([o for o in ran.outputs if o.get("name") != "stderr"])
        cell.outputs = [_tidy_output(o) for o in outputs]
        for text in _texts(cell.outputs):
            problems += [f"{value!r} in an output" for value in volatile(text)]
    if problems:
        raise ValueError("; ".join(problems))
    return result


def _texts(outputs: list[Any]) -> list[str]:
    texts = []
    for output in outputs:
        if output.get("output_type") == "stream":
            texts.append(output.get("text", ""))
        else:
            texts.append(output.get("data", {}).get("text/plain", ""))
            texts += [output.get("ename", ""), output.get("evalue", "")]
    return texts


def comparable(notebook: NotebookNode) -> list[list[str]]:
    """Every code cell's output text, to compare two runs (exactly: the clock is pinned)."""
    return [_texts(cell.outputs) for cell in notebook.cells if cell.cell_type == "code"]


def write(notebook: NotebookNode, path: Path) -> None:
    """Write as Jupyter does (one-space indent), ending with a newline."""
    nbformat.validate(notebook)
    path.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")


def refresh(paths: list[Path], check: bool = False) -> int:
    """Run each notebook and write its outputs; the exit code.

    Args:
        paths: The notebooks.
        check: Write nothing; the exit code is 1 when a notebook's outputs are stale.
    """
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        specs = kernel_specs(Path(tmp) / "kernels")
        hidden = hide_modules(Path(tmp) / "hidden")
        for path in paths:
            workdir = Path(tmp) / path.stem
            workdir.mkdir()
            committed = nbformat.read(path, as_version=4)
            fresh = tidy(execute(path, specs, workdir, hidden), committed)
            same = comparable(fresh) == comparable(committed)
            if check:
                if not same:
                    stale.append(path.name)
                print(f"{path.name}: {'up to date' if same else 'stale'}")
            elif same:
                print(f"{path.name}: unchanged")
            else:
                write(fresh, path)
                print(f"{path.name}: written, {path.stat().st_size:,} bytes")
    if stale:
        print(f"refresh them: uv run python notebooks/refresh.py {' '.join(stale)}")
    return 1 if stale else 0


def build_parser() -> argparse.ArgumentParser:
    """The command line's arguments (see the module docstring)."""
    parser = argparse.ArgumentParser(
        prog="notebooks/refresh.py",
        description="Run the notebooks offline and write their outputs into them.",
    )
    parser.add_argument("names", nargs="*", help="notebooks to run (default: all)")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when outputs are stale"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    args = build_parser().parse_args(argv)
    return refresh(notebooks(args.names), check=args.check)


if __name__ == "__main__":
    sys.exit(main())
