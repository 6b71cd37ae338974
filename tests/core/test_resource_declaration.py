"""``@tool(resource=...)``: a read-only tool names the resource it reads, checked when declared."""

from __future__ import annotations

import pytest

from toolspecs.core import ConfigurationError, tool
from toolspecs.core.declare import options_of, resource_fields
from toolspecs.specs.arxiv import ArxivToolSpec
from toolspecs.specs.gmail import GmailToolSpec


def test_the_specs_declare_what_their_readers_read():
    assert options_of(ArxivToolSpec.arxiv_paper_text).resource == "papers/{paper_id}"
    assert options_of(GmailToolSpec.read_attachment).resource == (
        "messages/{message_id}/attachments/{attachment_id}"
    )
    assert options_of(ArxivToolSpec.arxiv_query).resource is None


def test_a_path_names_its_arguments_in_order():
    path = "messages/{message_id}/attachments/{attachment_id}"
    assert resource_fields(path) == ("message_id", "attachment_id")
    assert resource_fields("papers/{paper_id}") == ("paper_id",)


@pytest.mark.parametrize(
    "path",
    ["papers", "papers/{paper_id}x", "papers/{a}/{a}", "papers//{a}", "a b/{a}", "{0}", ""],
)
def test_a_malformed_path_is_refused(path):
    with pytest.raises(ConfigurationError, match="resource="):
        tool(read_only=True, resource=path)


def test_only_a_read_only_tool_reads_a_resource():
    for marks in ({}, {"read_only": False, "destructive": False}):
        with pytest.raises(ConfigurationError, match="only a read_only=True tool"):
            tool(resource="papers/{paper_id}", **marks)


def test_every_placeholder_is_an_argument():
    declare = tool(read_only=True, resource="papers/{paper}/pages/{page}")
    with pytest.raises(ConfigurationError, match="names page, not an argument"):

        def text(self, paper: str) -> str:  # pragma: no cover - refused when declared
            """Read a paper.

            Args:
                paper: An id.
            """
            return paper

        declare(text)
