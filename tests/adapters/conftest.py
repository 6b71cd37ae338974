"""The specs every host adapter is tested with: arXiv over its shipped fake."""

from __future__ import annotations

import pytest

from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec


@pytest.fixture
def arxiv() -> FakeArxiv:
    """The shipped offline arXiv (its requests are in ``arxiv.requests``)."""
    return FakeArxiv()


@pytest.fixture
def spec(arxiv: FakeArxiv) -> ArxivToolSpec:
    """The arXiv spec over the fake."""
    return ArxivToolSpec(transport=arxiv.transport())
