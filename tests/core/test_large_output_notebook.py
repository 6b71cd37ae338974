"""Searching a stored result in a Jupyter kernel without ipywidgets prints no TqdmWarning.

bm25s (under llama-index's BM25 retriever) imports ``tqdm.auto`` when it is imported, and
in a kernel without ipywidgets tqdm warns "IProgress not found. Please update jupyter and
ipywidgets" (three notebooks printed it). A subprocess plays that kernel: tqdm looks for
``ipykernel.zmqshell`` in ``sys.modules``, and ipywidgets is hidden.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

KERNEL_WITHOUT_WIDGETS = """\
import json, sys, types, warnings
import IPython  # tqdm asks IPython which shell runs
sys.modules["ipykernel.zmqshell"] = types.ModuleType("ipykernel.zmqshell")
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
{code}
print(json.dumps([f"{{w.category.__name__}}: {{w.message}}" for w in caught]))
"""

READ_A_STORED_PAPER = """\
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec

tools = {t.metadata.name: t for t in ArxivToolSpec(transport=FakeArxiv().transport()).to_tool_list()}
assert "stored" in tools["arxiv_paper_text"].call(paper_id="1706.03762").content
found = tools["read_stored_papers"].call(query="label smoothing").content
assert "Passages of result 1" in found, found
"""


def warnings_in_kernel(code: str, tmp_path) -> list[str]:
    """The warnings ``code`` raises in a notebook kernel that has no ipywidgets."""
    hidden = tmp_path / "ipywidgets"
    hidden.mkdir()
    (hidden / "__init__.py").write_text("raise ImportError('hidden from this test')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    script = KERNEL_WITHOUT_WIDGETS.format(code=textwrap.indent(code, "    "))
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_kernel_is_played_faithfully(tmp_path):
    # Without this control the test below would prove nothing: here tqdm.auto warns.
    caught = warnings_in_kernel("import tqdm.auto\n", tmp_path)
    assert any(w.startswith("TqdmWarning: IProgress not found") for w in caught), caught


def test_searching_a_stored_result_prints_no_tqdm_warning(tmp_path):
    caught = warnings_in_kernel(READ_A_STORED_PAPER, tmp_path)
    assert not [w for w in caught if "IProgress" in w or "Tqdm" in w], caught
