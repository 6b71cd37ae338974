"""The Wolfram|Alpha parameters a tool call sends besides its query and assumption.

Units and the user's location (the spec's, replaced by a call's own), the LLM API's
``maxchars`` within the output budget, and what the Full Results API is asked to send.
They are request parameters, and so the client's business by DESIGN.md; they stay here
until the client takes them by name (issue 23).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolspecs.loaders.wolfram_alpha import PLACE_KEYS, location_params, units_param
from toolspecs.specs.wolfram_alpha import render

# About 3 characters per token for Wolfram's mix of numbers, symbols and words.
CHARS_PER_TOKEN = 3
# The podstate that asks for a pod's step-by-step solution, as Wolfram documents it: by its
# name (the first pod offering it) and for the pod most math queries offer it on.
STEP_PODSTATES = ("Step-by-step solution", "Result__Step-by-step solution")
_PLACE_PARAMS = PLACE_KEYS | {"units"}


def spec_place(
    api_params: Mapping[str, Any], units: str | None, location: str | None
) -> dict[str, Any]:
    """Units and location for every request of a spec.

    LlamaHub's ``api_params`` may hold them (sent as they are, as LlamaHub sends them);
    the constructor's ``units`` and ``location`` replace them.

    Raises:
        ValueError: ``units`` or ``location`` is not one of the forms Wolfram takes.
    """
    place = {k: v for k, v in api_params.items() if k in _PLACE_PARAMS}
    if units is not None:
        place["units"] = units_param(units)
    if location is not None and location.strip():
        place = {k: v for k, v in place.items() if k not in PLACE_KEYS}
        place.update(location_params(location))
    return place


def call_place(place: Mapping[str, Any], units: str | None, location: str | None) -> dict[str, Any]:
    """The spec's ``place``, replaced by a call's own (checked) units and location.

    Raises:
        FixArguments: When a call's ``units`` or ``location`` cannot be sent.
    """
    chosen = dict(place)
    if units and units.strip():
        try:
            chosen["units"] = units_param(units)
        except ValueError as exc:
            raise render.bad_units(exc) from None
    if location and location.strip():
        try:
            where = location_params(location)
        except ValueError as exc:
            raise render.bad_location(location, exc) from None
        chosen = {k: v for k, v in chosen.items() if k not in PLACE_KEYS} | where
    return chosen


def llm_params(
    api_params: Mapping[str, Any], place: Mapping[str, Any], max_tokens: int
) -> dict[str, Any]:
    """The LLM API's parameters: ``api_params`` but their place, ``place``, ``maxchars``.

    ``maxchars`` is a request, not a promise: the framework cuts what is over budget.
    """
    rest = {k: v for k, v in api_params.items() if k not in _PLACE_PARAMS}
    return {**rest, **place, "maxchars": _maxchars(api_params, max_tokens)}


def _maxchars(api_params: Mapping[str, Any], max_tokens: int) -> int:
    budget_chars = (max_tokens - 100) * CHARS_PER_TOKEN
    asked = api_params.get("maxchars")
    try:
        return min(int(asked), budget_chars) if asked is not None else budget_chars
    except (TypeError, ValueError):
        return budget_chars


def pods_params(place: Mapping[str, Any], steps: bool) -> dict[str, Any]:
    """The Full Results API's parameters: ``place``, text and images, and steps if asked."""
    sent: dict[str, Any] = {**place, "format": "plaintext,image"}
    if steps:
        sent["podstate"] = list(STEP_PODSTATES)
    return sent


def cache_key(*parts: str | None, params: Mapping[str, Any]) -> tuple[Any, ...]:
    """The key of an answer in the spec's cache: what was asked, and every parameter."""
    return (*parts, tuple(sorted((k, str(v)) for k, v in params.items())))
