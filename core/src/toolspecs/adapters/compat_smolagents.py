"""Brittle: everything toolspecs relies on in smolagents beyond its public API, in one place.

:class:`~toolspecs.adapters.smolagents.ToolspecsSmolagentsTool` is a smolagents ``Tool``
(public API: ``name``, ``description``, ``inputs``, ``output_type``, ``forward``) whose
``forward`` takes what the model sent, however it was named, so that our argument model
reads it. For that it leans on one internal, checked against the pinned smolagents by
``tests/adapters/test_smolagents_compat.py``:

1. ``skip_forward_signature_validation = True`` (:class:`AnyArguments`): ``Tool``'s
   ``validate_arguments`` checks that ``forward``'s parameters are the keys of ``inputs``
   unless the tool has this attribute, as smolagents' own wrappers of LangChain, Gradio
   and Space tools do. If it is renamed, making one of our tools raises smolagents'
   "'forward' method parameters were ..." error.
"""

from __future__ import annotations


class AnyArguments:
    """Mixed into a smolagents ``Tool`` whose ``forward`` takes any arguments (internal 1)."""

    skip_forward_signature_validation = True
