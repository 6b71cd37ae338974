"""What .ci/run installs for the tests: redis-server, nginx and chromium (Debian's packages),
node and the npm packages of tests/mcp_client and tests/oauth_server.

A test that needs one that is missing is skipped, with a message saying how to install it,
so that a fresh clone's ``uv run pytest`` goes on; under CI (``CI`` set to 1, true or yes)
it fails instead: CI installs them all and must run every test that needs them.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def under_ci() -> bool:
    """Whether this run is CI's (``CI`` set to 1, true or yes, as CI services set it)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def missing(message: str) -> NoReturn:
    """Skip the test for the missing program ``message`` names; under CI, fail it."""
    if under_ci():
        pytest.fail(f"{message}: CI installs it (.ci/run) and must run this test", pytrace=False)
    pytest.skip(message)
