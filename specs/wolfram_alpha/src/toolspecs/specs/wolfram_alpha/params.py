"""Units, location and answer length of a Wolfram|Alpha call, checked before anything is sent."""

from __future__ import annotations

from typing import NamedTuple

from toolspecs.loaders.wolfram_alpha import location_params, units_param
from toolspecs.specs.wolfram_alpha import guidance

# About 3 characters per token for Wolfram's mix of numbers, symbols and words.
CHARS_PER_TOKEN = 3


class Place(NamedTuple):
    """The ``units`` and ``location`` a request is for (``None``: not given)."""

    units: str | None = None
    location: str | None = None


def spec_place(units: str | None, location: str | None) -> Place:
    """The constructor's units and location, checked (``ValueError``); a blank location is none."""
    if location is not None and location.strip():
        location_params(location)  # checked now: the constructor fails, not each call
    else:
        location = None
    return Place(None if units is None else units_param(units), location)


def call_place(place: Place, units: str | None, location: str | None) -> Place:
    """The spec's ``place``, replaced by a call's own (checked: ``FixArguments``)."""
    if units and units.strip():
        try:
            place = place._replace(units=units_param(units))
        except ValueError as exc:
            raise guidance.bad_units(exc) from None
    if location and location.strip():
        try:
            location_params(location)
        except ValueError as exc:
            raise guidance.bad_location(location, exc) from None
        place = place._replace(location=location.strip())
    return place


def max_chars(max_tokens: int) -> int:
    """The longest LLM API answer to ask for within ``max_tokens`` (a request, not a promise)."""
    return (max_tokens - 100) * CHARS_PER_TOKEN
