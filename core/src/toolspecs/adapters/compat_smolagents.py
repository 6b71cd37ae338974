"""Brittle: everything toolspecs relies on in smolagents beyond its public API, in one place.

Our ``Tool.forward`` takes what the model sent, however named, for our model to read,
leaning on one internal, checked by ``tests/adapters/test_smolagents_compat.py``:

1. ``skip_forward_signature_validation = True``: without it ``validate_arguments``
   checks ``forward``'s parameters against ``inputs`` (smolagents' own wrappers set it).
   If renamed, making one of our tools raises "'forward' method parameters were ...".
"""

from __future__ import annotations


class AnyArguments:
    """Mixed into a smolagents ``Tool`` whose ``forward`` takes any arguments (internal 1)."""

    skip_forward_signature_validation = True
