"""arXiv ids as agents write them: bare, prefixed, versioned, old-style, or as URLs."""

from __future__ import annotations

import pytest

from toolspecs.loaders.arxiv import parse_id, parse_ids


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1706.03762", "1706.03762"),
        ("arXiv:1706.03762v7", "1706.03762v7"),
        ("arxiv: 1706.03762", "1706.03762"),
        ("https://arxiv.org/abs/1706.03762v7", "1706.03762v7"),
        ("arxiv.org/pdf/1706.03762.pdf", "1706.03762"),
        ("http://export.arxiv.org/abs/2005.14165", "2005.14165"),
        ("hep-th/9711200", "hep-th/9711200"),
        ("https://arxiv.org/abs/hep-ex/0307015v1", "hep-ex/0307015v1"),
        ("math.GT/0309136", "math.GT/0309136"),
        ("(1706.03762)", "1706.03762"),
        ("  1706.03762  ", "1706.03762"),
    ],
)
def test_one_id_in_any_form(text, expected):
    assert parse_id(text) == expected


def test_several_ids_keep_their_order_without_duplicates():
    assert parse_ids("1706.03762, 1508.04025v5 1706.03762") == ["1706.03762", "1508.04025v5"]
    assert parse_id("1706.03762, 1508.04025") is None  # two ids are not one


@pytest.mark.parametrize(
    "text",
    [
        "attention is all you need",
        "1706.03762 transformers",
        "graph neural networks 2023",
        "ti:attention AND cat:cs.CL",
        "",
    ],
)
def test_a_search_is_not_an_id(text):
    assert parse_ids(text) == []
    assert parse_id(text) is None
