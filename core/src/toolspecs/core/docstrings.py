"""Google-style docstrings read into the parts a tool prompt is made of."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?):\s*$"
)
_ARG = re.compile(r"^(\*{0,2}\w+)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


@dataclass
class Docstring:
    """The parts of a Google-style docstring."""

    summary: str = ""
    body: str = ""
    args: dict[str, str] = field(default_factory=dict)
    returns: str = ""
    examples: str = ""


def parse(doc: str | None) -> Docstring:
    """Read a Google-style docstring (``None``: empty); unknown sections are left out."""
    text = inspect.cleandoc(doc or "")
    parsed = Docstring()
    section = "body"
    body_lines: list[str] = []
    returns: list[str] = []
    examples: list[str] = []
    current_arg: str | None = None
    arg_indent = _arg_indent(text)
    for line in text.splitlines():
        header = _SECTION.match(line)
        if header and not line.startswith(" "):
            section = header.group(1).rstrip("s").lower()
            current_arg = None
            continue
        if section == "body":
            body_lines.append(line)
        elif section in ("arg", "argument", "parameter"):
            stripped = line.strip()
            match = _ARG.match(stripped)
            indent = len(line) - len(line.lstrip())
            if match and (current_arg is None or indent <= arg_indent):
                current_arg = match.group(1).lstrip("*")
                parsed.args[current_arg] = match.group(3).strip()
            elif current_arg is not None and stripped:
                parsed.args[current_arg] = f"{parsed.args[current_arg]} {stripped}".strip()
        elif section == "return":
            returns.append(line.strip())
        elif section == "example":
            examples.append(line[4:] if line.startswith("    ") else line)
    paragraphs = "\n".join(body_lines).strip().split("\n\n")
    parsed.summary = " ".join(paragraphs[0].split()) if paragraphs[0] else ""
    parsed.body = "\n".join(_unwrap(p) for p in paragraphs[1:] if p.strip())
    parsed.returns = " ".join(" ".join(returns).split())
    parsed.examples = "\n".join(examples).strip()
    return parsed


def _unwrap(paragraph: str) -> str:
    lines: list[str] = []
    for line in paragraph.strip().splitlines():
        stripped = line.strip()
        if lines and not stripped.startswith(("- ", "* ")):
            lines[-1] = f"{lines[-1]} {stripped}"
        else:
            lines.append(stripped)
    return "\n".join(lines)


def _arg_indent(text: str) -> int:
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if _SECTION.match(line) and line.split(":")[0] in ("Args", "Arguments", "Parameters"):
            for following in lines[index + 1 :]:
                if following.strip():
                    return len(following) - len(following.lstrip())
    return 4
