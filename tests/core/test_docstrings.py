from toolspecs.core.schema import parse_docstring


def sample(query, sort_by, to):
    """Search things.

    Extra detail that the agent
    should read.

    - a list item
    - another one

    Args:
        query (str): What to search for, e.g. 'black holes'. A long description
            that goes on to a second line
            and a third.
        sort_by: 'relevance' or 'recent'.
        to (List[str]): Recipients, eg ['adam@example.com']

    Returns:
        The papers, one per
        entry.

    Examples:
        sample("x", "recent")
    """


def test_parts_of_a_google_docstring():
    doc = parse_docstring(sample.__doc__)
    assert doc.summary == "Search things."
    assert doc.body == "Extra detail that the agent should read.\n- a list item\n- another one"
    assert doc.args == {
        "query": "What to search for, e.g. 'black holes'. A long description that goes on to "
        "a second line and a third.",
        "sort_by": "'relevance' or 'recent'.",
        "to": "Recipients, eg ['adam@example.com']",
    }
    assert doc.returns == "The papers, one per entry."
    assert doc.examples == 'sample("x", "recent")'


def test_missing_and_one_line_docstrings():
    assert parse_docstring(None).summary == ""
    doc = parse_docstring("Just a summary.")
    assert doc.summary == "Just a summary."
    assert doc.args == {}
