"""What a suite's results say: the results file, the summary table, the chart.

- The results file holds one JSON object per run (:meth:`RunResult.to_json`), written as
  each run ends, so a run cut short keeps what finished; :func:`read` reads one or more.
- :func:`summary` is the table: per tool set and model, and per group of tasks, the share
  of runs that passed with its 95% confidence interval (Wilson's, which stays inside 0-100%
  for a handful of runs), the mean tool calls and tokens per run, and the errors by kind:
  tool errors (our guidance's kind, or what the host said) and runs stopped (deadline,
  token budget, steps, the endpoint).
- :func:`chart` is a self-contained HTML page (inline SVG, no script, nothing fetched):
  success per group with its interval, one bar per tool set and model.
"""

from __future__ import annotations

import html
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from toolspecs.evals.run import RunResult

__all__ = ["chart", "read", "summary", "wilson"]

STOPPED = ("deadline", "token budget", "steps", "model error", "error")
"""Outcomes of runs that did not reach their checks."""


def wilson(passed: int, runs: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of ``passed`` out of ``runs`` (as shares, 0-1)."""
    if runs == 0:
        return (0.0, 1.0)
    share = passed / runs
    denominator = 1 + z * z / runs
    centre = (share + z * z / (2 * runs)) / denominator
    half = z * math.sqrt(share * (1 - share) / runs + z * z / (4 * runs * runs)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def read(paths: Iterable[Path]) -> list[RunResult]:
    """The results in results files (JSON lines); lines that are not results are skipped."""
    results: list[RunResult] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                results.append(RunResult.from_json(json.loads(line)))
            except (ValueError, TypeError, KeyError):
                continue  # a line cut short by a crash, or not a result
    return results


def _side(result: RunResult) -> str:
    return f"{result.tools} / {result.model}"


class _Tally:
    """The figures of one row of the table."""

    def __init__(self, results: Sequence[RunResult]) -> None:
        self.runs = len(results)
        self.passed = sum(r.passed for r in results)
        self.low, self.high = wilson(self.passed, self.runs)
        self.calls = sum(r.calls for r in results) / max(1, self.runs)
        self.tokens = sum(r.prompt_tokens + r.completion_tokens for r in results) / max(
            1, self.runs
        )
        errors: Counter[str] = Counter()
        for r in results:
            errors.update(r.tool_errors)
            if r.outcome in STOPPED:
                errors[f"run: {r.outcome}"] += 1
        self.errors = errors

    @property
    def share(self) -> float:
        return self.passed / self.runs if self.runs else 0.0

    def cells(self) -> list[str]:
        errors = ", ".join(f"{kind} {count}" for kind, count in self.errors.most_common()) or "-"
        return [
            str(self.runs),
            f"{100 * self.share:.0f}%",
            f"{100 * self.low:.0f}-{100 * self.high:.0f}%",
            f"{self.calls:.1f}",
            f"{self.tokens:,.0f}",
            errors,
        ]


def _groups(results: Sequence[RunResult]) -> list[str]:
    order = ["google_calendar", "gmail", "arxiv", "wolfram_alpha", "across"]
    found = {r.group for r in results}
    return [g for g in order if g in found] + sorted(found - set(order))


def summary(results: Sequence[RunResult]) -> str:
    """The summary table (plain text, one row per tool set and model, then per group)."""
    if not results:
        return "No results."
    header = ["tools / model", "group", "runs", "passed", "95% CI", "calls", "tokens", "errors"]
    rows: list[list[str]] = []
    by_side: dict[str, list[RunResult]] = defaultdict(list)
    for result in results:
        by_side[_side(result)].append(result)
    for side, mine in by_side.items():
        rows.append([side, "all", *_Tally(mine).cells()])
        for group in _groups(mine):
            rows.append(["", group, *_Tally([r for r in mine if r.group == group]).cells()])
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * width for width in widths))
    lines += [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]
    failing = Counter(r.task for r in results if not r.passed)
    if failing:
        lines.append("")
        lines.append(
            "Tasks that failed most: "
            + ", ".join(f"{task} ({count})" for task, count in failing.most_common(8))
        )
    return "\n".join(lines)


_SHORT = {"google_calendar": "calendar", "wolfram_alpha": "wolfram"}  # labels under bars
_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")


def _svg(
    results: Sequence[RunResult],
    value: Callable[[_Tally], tuple[float, float, float]],
    top_value: float,
    unit: Callable[[float], str],
    what: str,
) -> str:
    """Bars per group, one per tool set and model: ``value`` gives (bar, low, high)."""
    sides = list(dict.fromkeys(_side(r) for r in results))
    groups = ["all", *_groups(results)]
    bar, gap, height, top, left = 22, 18, 200, 24, 64
    width = max(380, left + len(groups) * (len(sides) * bar + gap) + 20)
    scale = height / (top_value or 1)
    parts: list[str] = [
        f'<text x="{left}" y="14" font-size="13" font-weight="bold">{html.escape(what)}</text>'
    ]
    for step in range(5):  # the axis
        tick = top_value * step / 4
        y = top + height - tick * scale
        parts.append(
            f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11">'
            f"{html.escape(unit(tick))}</text>"
        )
    for g, group in enumerate(groups):
        x0 = left + gap / 2 + g * (len(sides) * bar + gap)
        for s, side in enumerate(sides):
            mine = [r for r in results if _side(r) == side and (group == "all" or r.group == group)]
            if not mine:
                continue
            shown, low, high = value(_Tally(mine))
            x, y = x0 + s * bar, top + height - shown * scale
            label = html.escape(f"{side}, {group}: {unit(shown)} ({len(mine)} runs)")
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 4}" height="{top + height - y:.1f}" '
                f'fill="{_COLOURS[s % len(_COLOURS)]}"><title>{label}</title></rect>'
            )
            if (low, high) != (shown, shown):  # an interval to draw
                middle = x + (bar - 4) / 2
                y1, y2 = top + height - low * scale, top + height - high * scale
                parts.append(
                    f'<line x1="{middle:.1f}" x2="{middle:.1f}" y1="{y1:.1f}" y2="{y2:.1f}" '
                    'stroke="#333"/>'
                )
        parts.append(
            f'<text x="{x0 + len(sides) * bar / 2:.1f}" y="{top + height + 16}" '
            f'text-anchor="middle" font-size="12">{html.escape(_SHORT.get(group, group))}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top + height + 30}" '
        f'role="img" aria-label="{html.escape(what)}">{"".join(parts)}</svg>'
    )


def chart(
    results: Sequence[RunResult], title: str = "toolspecs eval", table: str | None = None
) -> str:
    """A self-contained HTML page: per group, a bar per tool set and model.

    Three charts: the share of runs that passed (with its 95% interval), the mean tool
    calls and the mean tokens per run; then the summary table (``table``, when the caller
    has made it already).
    """
    sides = list(dict.fromkeys(_side(r) for r in results))
    tallies = [
        _Tally([r for r in results if _side(r) == side and r.group == group])
        for side in sides
        for group in _groups(results)
    ]
    most_calls = max([t.calls for t in tallies if t.runs] or [1.0])
    most_tokens = max([t.tokens for t in tallies if t.runs] or [1.0])
    charts = [
        _svg(
            results,
            lambda t: (t.share, t.low, t.high),
            1.0,
            lambda v: f"{100 * v:.0f}%",
            "Tasks passed (95% interval)",
        ),
        _svg(
            results,
            lambda t: (t.calls, t.calls, t.calls),
            most_calls,
            lambda v: f"{v:.1f}",
            "Tool calls per run",
        ),
        _svg(
            results,
            lambda t: (t.tokens, t.tokens, t.tokens),
            most_tokens,
            lambda v: f"{v:,.0f}",
            "Tokens per run",
        ),
    ]
    legend = "".join(
        f'<span style="margin-right:1.5em"><span style="display:inline-block;width:12px;'
        f'height:12px;background:{_COLOURS[s % len(_COLOURS)]}"></span> {html.escape(side)}</span>'
        for s, side in enumerate(sides)
    )
    shown = html.escape(summary(results) if table is None else table)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head>"
        '<body style="font-family:sans-serif;margin:2em">'
        f'<h1 style="font-size:1.3em">{html.escape(title)}</h1>'
        "<p>Per group of tasks, a bar per tool set and model. Sandboxes only: no real "
        "account was used. Results depend on the model.</p>"
        f"<p>{legend}</p>{''.join(f'<p>{svg}</p>' for svg in charts)}<pre>{shown}</pre>"
        "</body></html>\n"
    )
