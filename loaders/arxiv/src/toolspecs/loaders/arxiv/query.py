"""arXiv's search syntax built from fields (``au:``, ``ti:``, ``abs:``, ``cat:``, dates), and ids.

Identifiers are read as people and agents write them: bare, prefixed, versioned, or as URLs.
:data:`CATEGORIES` is arXiv's taxonomy (https://arxiv.org/category_taxonomy), for checking
a category before asking arXiv, which answers an unknown one with no papers, not an error.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Sequence

_GROUPS = {
    "cs": "AI Artificial Intelligence|AR Hardware Architecture|CC Computational Complexity|"
    "CE Computational Engineering, Finance, and Science|CG Computational Geometry|"
    "CL Computation and Language|CR Cryptography and Security|"
    "CV Computer Vision and Pattern Recognition|CY Computers and Society|DB Databases|"
    "DC Distributed, Parallel, and Cluster Computing|DL Digital Libraries|"
    "DM Discrete Mathematics|DS Data Structures and Algorithms|ET Emerging Technologies|"
    "FL Formal Languages and Automata Theory|GL General Literature|GR Graphics|"
    "GT Computer Science and Game Theory|HC Human-Computer Interaction|"
    "IR Information Retrieval|IT Information Theory|LG Machine Learning|"
    "LO Logic in Computer Science|MA Multiagent Systems|MM Multimedia|"
    "MS Mathematical Software|NA Numerical Analysis|NE Neural and Evolutionary Computing|"
    "NI Networking and Internet Architecture|OH Other Computer Science|OS Operating Systems|"
    "PF Performance|PL Programming Languages|RO Robotics|SC Symbolic Computation|SD Sound|"
    "SE Software Engineering|SI Social and Information Networks|SY Systems and Control",
    "econ": "EM Econometrics|GN General Economics|TH Theoretical Economics",
    "eess": "AS Audio and Speech Processing|IV Image and Video Processing|"
    "SP Signal Processing|SY Systems and Control",
    "math": "AC Commutative Algebra|AG Algebraic Geometry|AP Analysis of PDEs|"
    "AT Algebraic Topology|CA Classical Analysis and ODEs|CO Combinatorics|"
    "CT Category Theory|CV Complex Variables|DG Differential Geometry|"
    "DS Dynamical Systems|FA Functional Analysis|GM General Mathematics|"
    "GN General Topology|GR Group Theory|GT Geometric Topology|HO History and Overview|"
    "IT Information Theory|KT K-Theory and Homology|LO Logic|MG Metric Geometry|"
    "MP Mathematical Physics|NA Numerical Analysis|NT Number Theory|"
    "OA Operator Algebras|OC Optimization and Control|PR Probability|"
    "QA Quantum Algebra|RA Rings and Algebras|RT Representation Theory|"
    "SG Symplectic Geometry|SP Spectral Theory|ST Statistics Theory",
    "astro-ph": "CO Cosmology and Nongalactic Astrophysics|EP Earth and Planetary Astrophysics|"
    "GA Astrophysics of Galaxies|HE High Energy Astrophysical Phenomena|"
    "IM Instrumentation and Methods for Astrophysics|SR Solar and Stellar Astrophysics",
    "cond-mat": "dis-nn Disordered Systems and Neural Networks|"
    "mes-hall Mesoscale and Nanoscale Physics|mtrl-sci Materials Science|"
    "other Other Condensed Matter|quant-gas Quantum Gases|soft Soft Condensed Matter|"
    "stat-mech Statistical Mechanics|str-el Strongly Correlated Electrons|"
    "supr-con Superconductivity",
    "nlin": "AO Adaptation and Self-Organizing Systems|CD Chaotic Dynamics|"
    "CG Cellular Automata and Lattice Gases|PS Pattern Formation and Solitons|"
    "SI Exactly Solvable and Integrable Systems",
    "physics": "acc-ph Accelerator Physics|ao-ph Atmospheric and Oceanic Physics|"
    "app-ph Applied Physics|atm-clus Atomic and Molecular Clusters|atom-ph Atomic Physics|"
    "bio-ph Biological Physics|chem-ph Chemical Physics|class-ph Classical Physics|"
    "comp-ph Computational Physics|data-an Data Analysis, Statistics and Probability|"
    "ed-ph Physics Education|flu-dyn Fluid Dynamics|gen-ph General Physics|"
    "geo-ph Geophysics|hist-ph History and Philosophy of Physics|"
    "ins-det Instrumentation and Detectors|med-ph Medical Physics|optics Optics|"
    "plasm-ph Plasma Physics|pop-ph Popular Physics|soc-ph Physics and Society|"
    "space-ph Space Physics",
    "q-bio": "BM Biomolecules|CB Cell Behavior|GN Genomics|MN Molecular Networks|"
    "NC Neurons and Cognition|OT Other Quantitative Biology|PE Populations and Evolution|"
    "QM Quantitative Methods|SC Subcellular Processes|TO Tissues and Organs",
    "q-fin": "CP Computational Finance|EC Economics|GN General Finance|"
    "MF Mathematical Finance|PM Portfolio Management|PR Pricing of Securities|"
    "RM Risk Management|ST Statistical Finance|TR Trading and Market Microstructure",
    "stat": "AP Applications|CO Computation|ME Methodology|ML Machine Learning|"
    "OT Other Statistics|TH Statistics Theory",
}
_ALONE = {
    "astro-ph": "Astrophysics",
    "gr-qc": "General Relativity and Quantum Cosmology",
    "hep-ex": "High Energy Physics - Experiment",
    "hep-lat": "High Energy Physics - Lattice",
    "hep-ph": "High Energy Physics - Phenomenology",
    "hep-th": "High Energy Physics - Theory",
    "math-ph": "Mathematical Physics",
    "nucl-ex": "Nuclear Experiment",
    "nucl-th": "Nuclear Theory",
    "quant-ph": "Quantum Physics",
}


def _taxonomy() -> dict[str, str]:
    found = dict(_ALONE)
    for archive, listed in _GROUPS.items():
        for item in listed.split("|"):
            code, name = item.split(" ", 1)
            found[f"{archive}.{code}"] = name
    return found


CATEGORIES: dict[str, str] = _taxonomy()
"""arXiv's categories, code (``cs.CL``) to name (``Computation and Language``)."""
ARCHIVES: frozenset[str] = frozenset(_GROUPS)
"""The archives that are only groups of categories (``cs``, ``math``...)."""
_BY_KEY = {code.lower(): code for code in CATEGORIES}


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def find_category(text: str) -> list[str]:
    """The categories ``text`` names by code in any case (``cs.cl``) or by name (maybe several)."""
    key = _key(text)
    if key in _BY_KEY:
        return [_BY_KEY[key]]
    return [code for code, name in CATEGORIES.items() if name.lower() == key]


def close_categories(text: str, limit: int = 6) -> list[str]:
    """Categories whose code or name is close to ``text``, best first: for guidance."""
    import difflib  # here: the reader imports this module, and a search needs no difflib

    key = _key(text)
    if key in ARCHIVES:
        return [code for code in CATEGORIES if code.startswith(key + ".")][:limit]
    found: list[str] = []
    # The same subject in another archive (cs.ML: stat.ML), then names with its words
    # ("vision": cs.CV), then codes and names spelled alike.
    subject = key.rsplit(".", 1)[-1]
    found += [code for code in CATEGORIES if code.lower().rsplit(".", 1)[-1] == subject]
    words = re.findall(r"[a-z]{4,}", key)
    found += [
        code
        for code, name in CATEGORIES.items()
        if words and all(word in name.lower() for word in words)
    ]
    names = {name.lower(): code for code, name in CATEGORIES.items()}
    for match in difflib.get_close_matches(key, [*_BY_KEY, *names], n=limit, cutoff=0.6):
        found.append(_BY_KEY.get(match) or names[match])
    found = list(dict.fromkeys(code for code in found if code.lower() != key))
    return found[:limit]


def phrase(text: str) -> str:
    """``text`` as one term of arXiv's syntax: a word alone, or a phrase in quotes.

    Quotes, parentheses, brackets and colons cannot be escaped in arXiv's syntax: they
    become spaces, so that no value adds an operator, a group or a field of its own.
    """
    words = re.sub(r'["():\[\]\\]+', " ", text).split()
    if len(words) == 1 and words[0].upper() not in ("AND", "OR", "ANDNOT", "TO"):
        return words[0]
    return '"' + " ".join(words) + '"'


def _stamp(moment: dt.datetime | dt.date, last: bool = False) -> str:
    """``YYYYMMDDHHMM`` in GMT (a naive time is GMT; a date its first minute, or last)."""
    if not isinstance(moment, dt.datetime):
        moment = dt.datetime.combine(moment, dt.time(23, 59) if last else dt.time())
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).strftime("%Y%m%d%H%M")


def _names(given: str | Sequence[str]) -> list[str]:
    return [given] if isinstance(given, str) else [str(item) for item in given]


def fielded_query(
    query: str = "",
    *,
    authors: str | Sequence[str] = (),
    title: str = "",
    abstract: str = "",
    categories: str | Sequence[str] = (),
    submitted: tuple[dt.datetime | dt.date, dt.datetime | dt.date] | None = None,
) -> str:
    """A ``search_query`` for arXiv: the free text and each field, joined with ``AND``.

    Every field's value is quoted as one term (:func:`phrase`): whatever it holds, it
    adds no operator, group or field of its own. Only ``query`` is arXiv syntax (after
    the fields, in parentheses). Authors must all match, categories any; one string is
    one name or code. E.g. ``(cat:cs.CL OR cat:cs.LG) AND au:"Ashish Vaswani" AND
    ti:attention``.
    """
    parts: list[str] = []
    # Categories first: a group of ORs read left to right stays one term.
    terms = [f"cat:{phrase(code)}" for code in _names(categories) if code.split()]
    if terms:
        parts.append(terms[0] if len(terms) == 1 else "(" + " OR ".join(terms) + ")")
    parts.extend(f"au:{phrase(name)}" for name in _names(authors) if name.split())
    for field, words in (("ti", title or ""), ("abs", abstract or "")):
        if words.split():
            parts.append(f"{field}:{phrase(words)}")
    if submitted is not None:
        start, end = submitted
        parts.append(f"submittedDate:[{_stamp(start)} TO {_stamp(end, last=True)}]")
    if not parts:
        return query
    if query.strip():
        parts.append(f"({query.strip()})")
    return " AND ".join(parts)


_NEW = r"\d{4}\.\d{4,5}(?:v\d+)?"
_OLD = r"[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?"
_ID = rf"(?:{_NEW}|{_OLD})"


# Compiled on the first query, not at import: the two cost about 1.5 ms to compile
# (case-insensitive classes), more than the rest of the module.
@functools.cache
def _url() -> re.Pattern[str]:
    return re.compile(rf"arxiv\.org/(?:abs|pdf|html)/({_ID})(?:\.pdf)?", re.IGNORECASE)


@functools.cache
def _bare() -> re.Pattern[str]:
    return re.compile(rf"^(?:arxiv:\s*)?({_ID})$", re.IGNORECASE)


def parse_ids(text: str) -> list[str]:
    """The arXiv ids a query consists of (in order, once each), or ``[]`` when it is a search.

    ``"1706.03762"``, ``"arXiv:1706.03762v7"``, ``"https://arxiv.org/abs/1706.03762v7"``,
    ``"arxiv.org/pdf/1706.03762.pdf"`` and ``"hep-th/9711200"`` are ids, alone or in a
    list; any other word makes the text a search.
    """
    # "arXiv: 1706.03762" is one id: join the prefix to it before splitting on spaces.
    joined = re.sub(r"(?i)\barxiv:\s+", "arXiv:", text.strip())
    tokens = [t for t in re.split(r"[\s,;]+", joined) if t]
    found: list[str] = []
    for token in tokens:
        match = _url().search(token) or _bare().match(token.strip("()[]<>\"'."))
        if match is None:
            return []
        if match.group(1) not in found:
            found.append(match.group(1))
    return found


def parse_id(text: str) -> str | None:
    """The single arXiv id in ``text`` (bare, prefixed or a URL), or ``None``."""
    ids = parse_ids(text)
    return ids[0] if len(ids) == 1 else None
