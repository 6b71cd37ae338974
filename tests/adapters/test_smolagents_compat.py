"""The smolagents internals compat_smolagents leans on, checked against the pinned smolagents.

Each test names the internal (its number in the compat module's banner). When an upgrade of
smolagents fails one, read the banner and its changes before touching anything else: every
tool we give smolagents is made through these.
"""

from __future__ import annotations

import inspect

import pytest
from smolagents import Tool

from toolspecs.adapters.compat_smolagents import AnyArguments

INPUTS = {"query": {"type": "string", "description": "What to look for."}}


def test_1_validate_arguments_skips_the_forward_check_for_tools_that_say_so():
    assert "skip_forward_signature_validation" in inspect.getsource(Tool.validate_arguments)

    class Strict(Tool):
        name = "strict"
        description = "Looks."
        inputs = INPUTS
        output_type = "string"

        def forward(self, *args, **kwargs):
            return "found"

    with pytest.raises(Exception, match="'forward' method parameters were"):
        Strict()

    class Tolerant(AnyArguments, Tool):
        name = "tolerant"
        description = "Looks."
        inputs = INPUTS
        output_type = "string"

        def forward(self, *args, **kwargs):
            return "found"

    assert Tolerant()(query="x") == "found"
