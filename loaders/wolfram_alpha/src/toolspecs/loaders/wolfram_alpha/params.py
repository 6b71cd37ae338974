"""Units, the user's location and steps as Wolfram|Alpha's request parameters.

Read from the forms people and agents write; a bad one raises ``ValueError`` with the
value and the accepted forms.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

STEP_PODSTATES = ("Step-by-step solution", "Result__Step-by-step solution")
"""The podstates that ask for a step-by-step solution, as Wolfram documents them."""

UNITS = ("metric", "nonmetric")
"""Wolfram's two systems of units."""
PLACE_KEYS = frozenset({"location", "latlong", "ip"})
"""The parameters that say where the user is; a request sends at most one of them."""
MAX_LOCATION_CHARS = 100
"""The longest place name sent: a city and its region, not a text."""
_UNIT_SYNONYMS = {
    **dict.fromkeys(["metric", "si"], "metric"),
    **dict.fromkeys(["nonmetric", "non-metric", "imperial", "us", "customary"], "nonmetric"),
}
_NUMBER = r"[+-]?\d{1,3}(?:\.\d+)?"
# "40.42,-3.71", "40.42, -3.71", "40.42° N, 3.71° W" (degrees, then a hemisphere).
_LATLONG = re.compile(
    rf"^\s*({_NUMBER})\s*°?\s*([NSns])?\s*[,;]\s*({_NUMBER})\s*°?\s*([EWew])?\s*$"
)


def units_param(value: str) -> str:
    """``metric`` or ``nonmetric`` for ``value`` (any case; ``imperial``, ``US``, ``SI``...)."""
    key = " ".join(str(value).split()).lower()
    if key not in _UNIT_SYNONYMS:
        raise ValueError(
            f"units must be 'metric' or 'nonmetric' (or 'imperial'), not {str(value)[:40]!r}"
        )
    return _UNIT_SYNONYMS[key]


def location_params(value: str) -> dict[str, str]:
    """Wolfram's parameter for where the user is: ``latlong``, ``ip`` or ``location``.

    Args:
        value: A latitude and longitude (``'40.42,-3.71'``, ``'40.42° N, 3.71° W'``), an
            IP address, or a place name of at most :data:`MAX_LOCATION_CHARS` characters
            on one line (``'Boston, MA'``). Blank gives ``{}``.
    """
    text = str(value).strip()
    if not text:
        return {}
    found = _LATLONG.match(text)
    if found:
        return {"latlong": _latlong(*found.groups())}
    try:
        return {"ip": str(ipaddress.ip_address(text))}
    except ValueError:
        pass
    if len(text) > MAX_LOCATION_CHARS:
        raise ValueError(
            f"the location is {len(text)} characters long; give a place name of at most "
            f"{MAX_LOCATION_CHARS} (e.g. 'Boston, MA') or a latitude,longitude"
        )
    if not text.isprintable():
        raise ValueError(
            "the location holds line breaks or control characters; give one line, "
            "e.g. 'Boston, MA' or '42.36,-71.06'"
        )
    return {"location": text}


def _latlong(lat: str, north: str | None, long: str, east: str | None) -> str:
    latitude, longitude = float(lat), float(long)
    if north and north.upper() == "S":
        latitude = -latitude
    if east and east.upper() == "W":
        longitude = -longitude
    if not -90 <= latitude <= 90:
        raise ValueError(f"the latitude {lat} is outside -90..90 (degrees north)")
    if not -180 <= longitude <= 180:
        raise ValueError(f"the longitude {long} is outside -180..180 (degrees east)")
    return f"{latitude},{longitude}"


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
