"""arxiv_bibtex (issue 15): BibTeX built from arXiv's metadata, LaTeX-safe, stable keys."""

from __future__ import annotations

import pytest
from arxiv_fakes import assert_guidance, feed

from toolspecs.core import FixArguments
from toolspecs.loaders.arxiv import ArxivReader
from toolspecs.loaders.arxiv.reader import bibtex_entries, escape_latex
from toolspecs.loaders.arxiv.testing import FakeArxiv
from toolspecs.specs.arxiv import ArxivToolSpec

ODD_TITLE = r"Fast & 100% $O(n)$ attention_{x} #1 ~ \cite^2"


@pytest.fixture
def arxiv() -> FakeArxiv:
    odd = (
        feed("id_1706.03762.xml")
        .replace("Attention Is All You Need", ODD_TITLE.replace("&", "&amp;"))
        .replace("1706.03762", "2101.00001")
        .replace("Ashish Vaswani", "Zoë Ünal-Smith")
    )
    return FakeArxiv(feeds=[odd])


@pytest.fixture
def spec(arxiv) -> ArxivToolSpec:
    return ArxivToolSpec(transport=arxiv.transport())


def test_entries_carry_the_metadata_fenced_with_ids_and_a_next_step(spec):
    output = spec.call_tool("arxiv_bibtex", paper_ids=["1706.03762", "arXiv:1508.04025v5"])
    assert output.is_error is False, output.content
    text = output.content
    assert text.startswith("BibTeX for 2 papers (1706.03762v7, 1508.04025v5), built from")
    assert "<<< BibTeX of arXiv metadata: quoted third-party text" in text
    assert (
        "@misc{vaswani2017attention,\n"
        "  title = {{Attention Is All You Need}},\n"
        "  author = {Ashish Vaswani and Noam Shazeer and Niki Parmar and Jakob Uszkoreit and "
        "Llion Jones and Aidan N. Gomez and Lukasz Kaiser and Illia Polosukhin},\n"
        "  year = {2017},\n"
        "  eprint = {1706.03762},\n"
        "  archivePrefix = {arXiv},\n"
        "  primaryClass = {cs.CL},\n"
        "  url = {https://arxiv.org/abs/1706.03762},\n"
        "}"
    ) in text
    assert "@misc{luong2015effective," in text
    assert "  doi = {10.18653/v1/D15-1166}," in text


def test_latex_specials_in_titles_are_escaped_and_keys_are_ascii(spec):
    text = spec.call_tool("arxiv_bibtex", paper_ids="2101.00001").content
    assert (
        r"title = {{Fast \& 100\% \$O(n)\$ attention\_\textbraceleft{}x\textbraceright{} \#1 \textasciitilde{} "
        r"\textbackslash{}cite\textasciicircum{}2}}"
    ) in text
    assert "@misc{unalsmith2017fast," in text
    assert "author = {Zoë Ünal-Smith and" in text


def test_keys_are_stable_and_a_key_met_twice_is_told_apart(arxiv):
    reader = ArxivReader(transport=arxiv.transport())
    one = reader.search(id_list=["1810.04805", "1706.03762"], max_results=2)
    other = reader.search(id_list=["1706.03762"], max_results=1)
    assert bibtex_entries(other)[0].split(",")[0] == "@misc{vaswani2017attention"
    assert [e.split(",")[0] for e in bibtex_entries(one)] == [
        "@misc{devlin2018bert", "@misc{vaswani2017attention"
    ]  # fmt: skip
    twice = bibtex_entries([other[0], other[0]])
    assert [e.split(",")[0] for e in twice] == [
        "@misc{vaswani2017attention", "@misc{vaswani2017attentionb"
    ]  # fmt: skip
    group = bibtex_entries(reader.search(id_list=["hep-ex/0307015"], max_results=1))[0]
    assert "author = {{H1 Collaboration}}" in group and "eprint = {hep-ex/0307015}" in group


def test_unknown_ids_are_named_and_bad_ones_are_guidance(spec, arxiv):
    text = spec.call_tool("arxiv_bibtex", paper_ids="1706.03762, 2401.99999").content
    assert "@misc{vaswani2017attention," in text
    assert text.endswith("No arXiv paper has the id(s) 2401.99999: check them, or find them "
                         "with arxiv_query.")  # fmt: skip
    sent = len(arxiv.requests)
    output = spec.call_tool("arxiv_bibtex", paper_ids=["attention paper"])
    assert_guidance(output, "'attention, paper' is not an arXiv id", "['1706.03762'",
                    kind=FixArguments)  # fmt: skip
    assert len(arxiv.requests) == sent


def _bibtex_entries_as_bibtex_reads_them(text: str) -> list[str]:
    """Split ``text`` into entries the way BibTeX's parser does.

    An ``@`` outside an entry starts one; inside, braces are counted whatever precedes
    them (a backslash does not hide a brace from BibTeX), and depth 0 ends the entry.
    """
    entries, depth, start = [], 0, None
    for at, char in enumerate(text):
        if start is None:
            if char == "@":
                start = at
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                entries.append(text[start : at + 1])
                start = None
    return entries


def test_braces_and_at_signs_in_metadata_cannot_start_an_entry_of_their_own():
    hostile = "a} @misc{evil, title={pwned}} @comment{"
    odd = (
        feed("search_attention.xml")
        .replace("Effective Approaches", hostile + " Effective Approaches")
        .replace("Minh-Thang Luong", "Mallory} @misc{evil2,")
    )
    spec = ArxivToolSpec(transport=FakeArxiv(feeds=[odd]).transport())
    output = spec.call_tool("arxiv_bibtex", paper_ids="1508.04025")
    assert output.is_error is False, output.content
    body = output.content.split("<<<", 1)[1].split("\n", 1)[1]
    entries = _bibtex_entries_as_bibtex_reads_them(body)
    assert len(entries) == 1 and entries[0].count("@") == 1
    assert r"a\textbraceright{} {\char64}misc\textbraceleft{}evil" in entries[0]
    assert "doi = {10.18653/v1/D15-1166}" in entries[0]  # verbatim, not \_-escaped


def test_a_doi_that_could_break_the_entry_is_left_out(arxiv):
    odd = feed("search_attention.xml").replace("10.18653/v1/D15-1166", "10.1/x} @misc{y")
    reader = ArxivReader(transport=FakeArxiv(feeds=[odd]).transport())
    (entry,) = bibtex_entries(reader.search(id_list=["1508.04025"], max_results=1))
    assert "doi" not in entry and "@misc{y" not in entry


def test_escape_latex_keeps_one_line():
    assert escape_latex("a\n  b_c") == r"a b\_c"
