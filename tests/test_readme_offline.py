"""Docs are tested: the README's "Testing your own agents offline" example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_the_offline_testing_example_runs():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Testing your own agents offline", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})


def test_every_fake_the_readme_lists_exists():
    import importlib

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Testing your own agents offline", 1)[1].split("\n## ", 1)[0]
    for module, name in re.findall(r"`(toolspecs(?:\.\w+)+)\.(\w+)`", section):
        assert hasattr(importlib.import_module(module), name), f"{module}.{name}"


def readme_subsection(heading):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"### {heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]


def test_the_openai_sdk_example_runs(capsys):
    (code,) = re.findall(
        r"```python\n(.*?)```",
        readme_subsection("Use it from the OpenAI or Anthropic SDK"),
        re.DOTALL,
    )
    exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    assert capsys.readouterr().out.count("Title: ") == 2
