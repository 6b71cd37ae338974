"""The arXiv loader is a plain llama-index reader: it imports and works without toolspecs-core."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import requires
from pathlib import Path

LOADER = Path(__file__).parents[2] / "loaders" / "arxiv"

# Runs in a fresh interpreter where toolspecs.core cannot be imported at all.
ALONE = """
import sys

class NoCore:
    def find_spec(self, name, path=None, target=None):
        if name == "toolspecs.core" or name.startswith(("toolspecs.core.", "toolspecs.specs")):
            raise ImportError(f"{name} is not installed")
        return None

sys.meta_path.insert(0, NoCore())

import toolspecs.loaders.arxiv
import toolspecs.loaders.arxiv.testing
from toolspecs.loaders.arxiv import ArxivReader, ArxivUnavailable
from toolspecs.loaders.arxiv.testing import FakeArxiv

arxiv = FakeArxiv()
papers = ArxivReader(transport=arxiv.transport()).load_data("bert", max_results=1)
assert "arXiv id: 1810.04805v2" in papers[0].text, papers[0].text
arxiv.fail.append((429, {"Retry-After": "120"}))  # too long to wait: raised
try:
    ArxivReader(transport=arxiv.transport()).load_data("bert")
except ArxivUnavailable as exc:
    assert (exc.status, exc.retry_after) == (429, 120.0), exc
else:
    raise AssertionError("a 429 did not raise ArxivUnavailable")
loaded = sorted(m for m in sys.modules if m.startswith(("toolspecs.core", "toolspecs.specs")))
assert not loaded, loaded
print("alone")
"""


def test_the_loader_imports_and_reads_without_toolspecs_core():
    done = subprocess.run(
        [sys.executable, "-c", ALONE], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "alone"


def test_no_loader_module_names_toolspecs_core():
    sources = sorted((LOADER / "src").rglob("*.py"))
    assert sources
    for source in sources:
        assert "toolspecs.core" not in source.read_text(encoding="utf-8"), source


def test_the_loader_does_not_depend_on_toolspecs_core():
    needs = requires("toolspecs-loader-arxiv") or []
    assert any(n.startswith("llama-index-core") for n in needs), needs
    # Of ours, only the PDF reader and the bottom layer (with the shared network package),
    # neither of which depends on toolspecs-core.
    ours = [n for n in needs if n.startswith("toolspecs")]
    assert sorted(n.split("<")[0].split(">")[0].split("[")[0] for n in ours) == [
        "toolspecs-base",
        "toolspecs-loader-pdf",
    ], needs
