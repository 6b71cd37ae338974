"""Tasks of arXiv: papers found by fields, facts read in a paper's text, BibTeX entries.

The arXiv sandbox's catalogue is small and real (the Transformer, BERT, GPT-3, RAG, DPR,
Self-RAG, a RAG survey...); its PDF of 1706.03762 is 30 pages, with one sentence about
a "quokka ablation" on page 17 that no model knows by heart. A model that answers from
memory names other papers, other ids or the published versions' years: the checks want
arXiv's facts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from toolspecs.evals.task import Check, Conversation, Ending, Task, matches, mentions_number

__all__ = ["TASKS", "bibtex_names", "names_id", "says", "shows_only_ids"]

ID = r"arXiv id: (\d{4}\.\d{4,5})"
"""Where arxiv_query's answer gives a paper's id (without its version)."""
ENTRY = r"(@\w+\{.*?\n\})"
"""A BibTeX entry in arxiv_bibtex's answer."""
_ANY_ID = r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d.])"


def _words(text: str) -> str:
    """Lowercase words only: 'Retrieval-Augmented' and 'retrieval augmented' alike."""
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def says(*phrases: str) -> Callable[[Ending], bool]:
    """A check's test: the answer says every one of ``phrases`` (case, punctuation aside)."""
    return lambda ending: all(_words(p) in _words(ending.answer) for p in phrases)


def _has_id(text: str, arxiv_id: str) -> bool:
    return re.search(rf"(?<![\d.]){re.escape(arxiv_id)}(?:v\d+)?(?![\d.])", text) is not None


def names_id(arxiv_id: str) -> Callable[[Ending], bool]:
    """A check's test: the answer names ``arxiv_id`` (any version), not a longer number."""
    return lambda ending: _has_id(ending.answer, arxiv_id)


def shows_only_ids(*arxiv_ids: str) -> Callable[[Ending], bool]:
    """A check's test: every arXiv id in the answer is one of ``arxiv_ids``."""
    return lambda ending: set(re.findall(_ANY_ID, ending.answer)) <= set(arxiv_ids)


def _entries(text: str) -> list[str]:
    """The BibTeX entries of ``text``: each from its ``@type{`` to the next one."""
    starts = [m.start() for m in re.finditer(r"@\w+\s*\{\s*[^,\s{}]+\s*,", text)]
    ends = [*starts[1:], len(text)]
    return [text[start:end] for start, end in zip(starts, ends, strict=False)]


def bibtex_names(arxiv_id: str, year: str | None = None) -> Callable[[Ending], bool]:
    """A check's test: the answer has a BibTeX entry of ``arxiv_id`` (of ``year`` if given)."""

    def holds(ending: Ending) -> bool:
        for entry in _entries(ending.answer):
            dated = year is None or re.search(rf"year\s*=\s*[{{\"]?\s*{year}\b", entry)
            if _has_id(entry, arxiv_id) and dated:
                return True
        return False

    return holds


def _title(talk: Conversation, index: int = 0) -> str:
    return talk.find(r"Title: ([^\n]+)", talk.outputs[index]).strip()


def _newest_answer(talk: Conversation) -> str:
    entry = talk.find(ENTRY)
    arxiv_id = talk.find(ID, talk.outputs[0])
    return f"The newest is \u201c{_title(talk)}\u201d (arXiv {arxiv_id}). BibTeX:\n\n{entry}"


def _oldest_answer(talk: Conversation) -> str:
    ids = re.findall(ID, talk.outputs[0])
    titles = re.findall(r"Title: ([^\n]+)", talk.outputs[0])
    return f"The newest is \u201c{titles[-1]}\u201d (arXiv {ids[-1]})."


LEWIS = {"author": "Patrick Lewis", "category": "cs.CL", "sort_by": "recent", "max_results": 5}
"""The search for Patrick Lewis's papers in cs.CL, newest first."""

TASKS: list[Task] = [
    Task(
        id="arxiv.newest_by_author",
        specs=("arxiv",),
        request=(
            "What is the newest paper by Patrick Lewis in cs.CL on arXiv? "
            "Give me its title, its arXiv id and a BibTeX entry for it."
        ),
        checks=(
            Check(
                "the answer names the newest: Retrieval-Augmented Generation for "
                "Knowledge-Intensive NLP Tasks",
                says("Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks"),
            ),
            Check("the answer gives its id, 2005.11401", names_id("2005.11401")),
            Check("the answer has a BibTeX entry of 2005.11401", bibtex_names("2005.11401")),
        ),
        reason="Newest means sorted by date, not by relevance; the id and entry come from arXiv.",
        techniques=("lookup",),
        solution=[
            [("arxiv_query", LEWIS)],
            lambda talk: [("arxiv_bibtex", {"paper_ids": [talk.find(ID, talk.outputs[0])]})],
            _newest_answer,
        ],
        mistakes={
            "wrong-paper": [[("arxiv_query", LEWIS)], _oldest_answer],
            "guessed": [
                "Patrick Lewis's newest cs.CL paper is \u201cImproving Wikipedia Verifiability "
                "with AI\u201d (arXiv 2207.06220):\n\n@misc{petroni2022improving,\n  title = "
                "{Improving Wikipedia Verifiability with AI},\n  eprint = {2207.06220},\n}"
            ],
            "hallucinated-id": [
                [("arxiv_query", LEWIS)],
                lambda talk: (
                    f"The newest is \u201c{_title(talk)}\u201d (arXiv 2005.11410).\n\n"
                    "@misc{lewis2020rag,\n  title = {" + _title(talk) + "},\n"
                    "  eprint = {2005.11410},\n  year = {2020},\n}"
                ),
            ],
        },
    ),
    Task(
        id="arxiv.fielded_search",
        specs=("arxiv",),
        request=(
            "Find the arXiv papers in cs.CL with 'retrieval' in the title that were submitted "
            "between January and June 2020. List each one's title and arXiv id."
        ),
        checks=(
            Check(
                "the answer lists Dense Passage Retrieval (2004.04906)",
                lambda e: names_id("2004.04906")(e) and says("Dense Passage Retrieval")(e),
            ),
            Check(
                "the answer lists Retrieval-Augmented Generation (2005.11401)",
                lambda e: (
                    names_id("2005.11401")(e)
                    and says("Retrieval-Augmented Generation for Knowledge-Intensive")(e)
                ),
            ),
            Check(
                "the answer lists no paper outside the dates (no 2312.10997 survey, no other id)",
                shows_only_ids("2004.04906", "2005.11401"),
            ),
        ),
        reason="Fields and a date range, not keywords: the 2023 survey has the word, not the date.",
        techniques=("lookup",),
        solution=[
            [
                (
                    "arxiv_query",
                    {
                        "title": "retrieval",
                        "category": "cs.CL",
                        "submitted": "2020-01 to 2020-06",
                        "max_results": 10,
                    },
                )
            ],
            lambda talk: "\n".join(
                f"- {title} (arXiv {arxiv_id})"
                for title, arxiv_id in zip(
                    re.findall(r"Title: ([^\n]+)", talk.last),
                    re.findall(ID, talk.last),
                    strict=True,
                )
            ),
        ],
        mistakes={
            "wrong-paper": [
                [("arxiv_query", {"query": "retrieval", "category": "cs.CL", "max_results": 10})],
                lambda talk: "\n".join(
                    f"- {title} (arXiv {arxiv_id})"
                    for title, arxiv_id in zip(
                        re.findall(r"Title: ([^\n]+)", talk.last),
                        re.findall(ID, talk.last),
                        strict=True,
                    )
                ),
            ],
            "guessed": [
                "- REALM: Retrieval-Augmented Language Model Pre-Training (arXiv 2002.08909)\n"
                "- Dense Passage Retrieval for Open-Domain Question Answering (arXiv 2004.04906)\n"
                "- Retrieval-Augmented Generation for Knowledge-Intensive NLP Tasks "
                "(arXiv 2005.11401)"
            ],
        },
    ),
    Task(
        id="arxiv.fact_in_text",
        specs=("arxiv",),
        request=(
            "The full text of arXiv 1706.03762 mentions a 'quokka ablation'. What did it do to "
            "perplexity on the development set? Give both numbers."
        ),
        checks=(
            Check("the answer gives the perplexity before: 4.92", mentions_number(4.92)),
            Check("the answer gives the perplexity after: 4.50", mentions_number(4.5)),
        ),
        reason="The fact is on page 17 of 30: the long text is stored, and searched, not guessed.",
        techniques=("large result", "lookup"),
        solution=[
            [("arxiv_paper_text", {"paper_id": "1706.03762"})],
            [("read_stored_papers", {"query": "quokka ablation perplexity"})],
            lambda talk: (
                "The quokka ablation lowered perplexity from "
                + talk.find(r"quokka ablation lowered perplexity from ([\d.]+ to [\d.]+)")
                + " on the development set."
            ),
        ],
        mistakes={
            "guessed": ["Attention Is All You Need does not report a quokka ablation."],
            "gave-up": [
                [("arxiv_paper_text", {"paper_id": "1706.03762"})],
                "The paper is too long for me to read; I could not find the quokka ablation.",
            ],
        },
    ),
    Task(
        id="arxiv.section_of_paper",
        specs=("arxiv",),
        request=(
            "In the arXiv version of 'Attention Is All You Need' (1706.03762), which numbered "
            "section is about label smoothing, and how many training steps did each variant "
            "in it get?"
        ),
        checks=(
            Check("the answer names section 13", matches(r"(section|§)\s*13\b")),
            Check(
                "the answer gives 100,000 steps",
                matches(r"\b(100000|100\s*k|100 thousand)\s*(training\s*)?steps"),
            ),
        ),
        reason="The arXiv PDF's numbering is not the one a model remembers: read the outline.",
        techniques=("lookup",),
        solution=[
            [("arxiv_paper_outline", {"paper_id": "1706.03762"})],
            lambda talk: [
                (
                    "arxiv_paper_section",
                    {
                        "paper_id": "1706.03762",
                        "section": talk.find(r"- (\d+) Label smoothing"),
                    },
                )
            ],
            lambda talk: (
                "Label smoothing is section "
                + talk.find(r"Section (\d+)\. Label smoothing")
                + "; each variant was trained for "
                + talk.find(r"trained for ([\d,]+) steps")
                + " steps."
            ),
        ],
        mistakes={
            "guessed": [
                "Label smoothing is in section 5.4 (Regularization); the base models were "
                "trained for 100,000 steps."
            ],
        },
    ),
    Task(
        id="arxiv.bibtex",
        specs=("arxiv",),
        request="Give me the BibTeX entry that arXiv's metadata gives for 1810.04805.",
        checks=(
            Check(
                "the answer has a BibTeX entry of 1810.04805 dated 2018 (arXiv's year)",
                bibtex_names("1810.04805", year="2018"),
            ),
            Check("the entry's title is BERT's", says("BERT: Pre-training of Deep Bidirectional")),
        ),
        reason="An entry from arXiv's metadata, not the conference version a model remembers.",
        techniques=("lookup",),
        solution=[
            [("arxiv_bibtex", {"paper_ids": ["1810.04805"]})],
            lambda talk: talk.find(ENTRY),
        ],
        mistakes={
            "guessed": [
                "@inproceedings{devlin2019bert,\n  title = {BERT: Pre-training of Deep "
                "Bidirectional Transformers for Language Understanding},\n  author = {Devlin, "
                "Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina},\n  "
                "booktitle = {NAACL-HLT},\n  eprint = {1810.04805},\n  year = {2019},\n}"
            ],
            "wrong-paper": [
                [("arxiv_bibtex", {"paper_ids": ["2005.14165"]})],
                lambda talk: talk.find(ENTRY),
            ],
        },
    ),
    Task(
        id="arxiv.mistyped_id",
        specs=("arxiv",),
        request=(
            "I need the BibTeX of the Transformer paper, 'Attention Is All You Need'. "
            "I noted its id as 1706.3762."
        ),
        checks=(
            Check(
                "the answer has a BibTeX entry of the real id, 1706.03762",
                bibtex_names("1706.03762"),
            ),
            Check("the answer names its title", says("Attention Is All You Need")),
        ),
        reason="The user's id lacks a digit: the guidance says so, and a search by title finds it.",
        techniques=("recovery", "lookup"),
        solution=[
            [("arxiv_bibtex", {"paper_ids": ["1706.3762"]})],
            [("arxiv_query", {"title": "Attention Is All You Need", "max_results": 3})],
            lambda talk: [("arxiv_bibtex", {"paper_ids": [talk.find(ID)]})],
            lambda talk: (
                "The id is "
                + talk.find(r"eprint = \{([^}]+)\}")
                + " (a digit was missing):\n\n"
                + talk.find(ENTRY)
            ),
        ],
        mistakes={
            "gave-up": [
                [("arxiv_bibtex", {"paper_ids": ["1706.3762"]})],
                "arXiv has no paper 1706.3762, so I cannot give its BibTeX.",
            ],
            "hallucinated-id": [
                "@misc{vaswani2017attention,\n  title = {Attention Is All You Need},\n  "
                "eprint = {1706.3762},\n  year = {2017},\n}"
            ],
        },
    ),
    Task(
        id="arxiv.bad_date",
        specs=("arxiv",),
        request=(
            "Which arXiv papers by Vladimir Karpukhin were submitted between 2020-04-01 and "
            "2020-04-31? Titles and ids, please."
        ),
        checks=(
            Check(
                "the answer names Dense Passage Retrieval (2004.04906)",
                lambda e: names_id("2004.04906")(e) and says("Dense Passage Retrieval")(e),
            ),
            Check(
                "the answer names no paper of another month (no 2005.11401)",
                shows_only_ids("2004.04906"),
            ),
        ),
        reason="April has 30 days: the guidance on the user's bad date leads to April 2020.",
        techniques=("recovery", "lookup"),
        solution=[
            [
                (
                    "arxiv_query",
                    {"author": "Vladimir Karpukhin", "submitted": "2020-04-01 to 2020-04-31"},
                )
            ],
            [("arxiv_query", {"author": "Vladimir Karpukhin", "submitted": "2020-04"})],
            lambda talk: f"One paper: \u201c{_title(talk, -1)}\u201d (arXiv {talk.find(ID)}).",
        ],
        mistakes={
            "gave-up": [
                [
                    (
                        "arxiv_query",
                        {"author": "Vladimir Karpukhin", "submitted": "2020-04-01 to 2020-04-31"},
                    )
                ],
                "arXiv did not accept that date range, so I could not search.",
            ],
            "wrong-paper": [
                [("arxiv_query", {"author": "Vladimir Karpukhin", "max_results": 5})],
                lambda talk: "\n".join(
                    f"- {title} (arXiv {arxiv_id})"
                    for title, arxiv_id in zip(
                        re.findall(r"Title: ([^\n]+)", talk.last),
                        re.findall(ID, talk.last),
                        strict=True,
                    )
                ),
            ],
        },
    ),
]
