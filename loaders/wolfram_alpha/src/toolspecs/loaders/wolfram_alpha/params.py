"""The request parameters the client's named arguments become, on top of ``params``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolspecs.loaders.wolfram_alpha.place import PLACE_KEYS, location_params, units_param

STEP_PODSTATES = ("Step-by-step solution", "Result__Step-by-step solution")
"""The podstates that ask for a step-by-step solution, as Wolfram documents them."""


def with_place(
    params: Mapping[str, Any], units: str | None = None, location: str | None = None
) -> dict[str, Any]:
    """``params`` with ``units`` and ``location`` in place of their own (when not blank)."""
    sent = dict(params)
    if units is not None and str(units).strip():
        sent["units"] = units_param(units)
    if location is not None and str(location).strip():
        sent = {k: v for k, v in sent.items() if k not in PLACE_KEYS} | location_params(location)
    return sent


def capped_maxchars(params: Mapping[str, Any], max_chars: int | None) -> dict[str, Any]:
    """``params`` with ``maxchars`` at most ``max_chars`` (an unreadable one replaced)."""
    sent = dict(params)
    if max_chars is None:
        return sent
    asked = sent.get("maxchars")
    try:
        sent["maxchars"] = min(int(asked), int(max_chars)) if asked is not None else int(max_chars)
    except (TypeError, ValueError):
        sent["maxchars"] = int(max_chars)
    return sent


def full_results_params(
    params: Mapping[str, Any], steps: bool = False, formats: str | Sequence[str] | None = None
) -> dict[str, Any]:
    """``params`` with the ``format`` of ``formats`` and, with ``steps``, the step podstates."""
    sent = dict(params)
    if formats:
        sent["format"] = formats if isinstance(formats, str) else ",".join(formats)
    if steps:
        sent["podstate"] = list(STEP_PODSTATES)
    return sent
