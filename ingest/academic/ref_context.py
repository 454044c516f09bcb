"""Where a reference stands in a docstring (issue 22): the docstring's bounds, doctest
output, the words that cite a footnote, and the citation paragraph an identifier ends.

Pure functions over lines, called by :func:`ingest.academic.references.find_references`.
"""

from __future__ import annotations

import re

from ingest.academic.citation_text import parse_citation
from ingest.academic.ref_sections import CITATION_START, Entry, content

__all__ = ["KEYED", "QUOTED_TITLE", "cited_as", "doctest_output_lines", "paragraph_citation",
           "same_docstring"]

#: how far (lines) a listed work whose text names a mention's first author and year may be
#: for the mention to key into it (a long docstring's Notes to its References)
KEYED = 150


def same_docstring(lines: list[str], i: int, j: int) -> bool:
    """Whether no docstring delimiter lies strictly between lines ``i`` and ``j``."""
    return not any('"""' in lines[k] or "'''" in lines[k]
                   for k in range(min(i, j) + 1, max(i, j)))


def doctest_output_lines(lines: list[str], cues: set[int]) -> set[int]:
    """The cue lines that are a doctest's printed output: after a ``>>>`` line, up to a
    blank line or a docstring's end, and neither ``>>>``/``...`` code nor a comment. What a
    program printed is no citation; code stays read (``state["references"] = "<url>"``
    sets a reference)."""
    out: set[int] = set()
    for i in sorted(cues):
        if lines[i].lstrip().startswith((">>>", "...", "#")):
            continue
        j = i
        while j >= 0 and lines[j].strip() and not lines[j].lstrip().startswith(">>>"):
            if j < i and ('"""' in lines[j] or "'''" in lines[j]):
                break  # the docstring ended (or began) above: no output runs across it
            j -= 1
        if j >= 0 and lines[j].lstrip().startswith(">>>"):
            out.add(i)
    return out



#: the last words before a citation label that name what a bare link entry is
_CITED_SOFTWARE = re.compile(r"\b(?:library|libraries|toolkit|toolbox|package|implementation|"
                             r"software|program)\b", re.IGNORECASE)
_CITED_DATA = re.compile(r"\b(?:data\s?sets?|corpus|corpora|database)\b", re.IGNORECASE)


def cited_as(lines: list[str], entry: Entry) -> str | None:
    """What the text citing a bare-link footnote calls it, from the four words before the
    citation label: ``software`` (``the RubberBand library [#]_``, ``the HTK implementation
    of MFCCs [#]_``), ``web`` for data (``the dataset provided by [#]_``), else None. An
    auto-numbered ``[#]_`` is the k-th such citation for the k-th ``.. [#]`` entry of the
    docstring (sphinx's order)."""
    if not entry.label:
        return None
    start = entry.first
    while start > 0 and entry.first - start < 300 and not (
            '"""' in lines[start] or "'''" in lines[start]):
        start -= 1
    before = [ln for ln in lines[start:entry.first] if not re.match(r"\s*\.\.\s+\[", ln)]
    joined = " ".join(ln.strip() for ln in before)
    cites = [m.start() for m in re.finditer(re.escape(f"[{entry.label}]_"), joined)]
    if entry.label == "#":
        k = sum(1 for ln in lines[start:entry.first] if re.match(r"\s*\.\.\s+\[#\]", ln))
        at = cites[k] if k < len(cites) else None
    else:
        at = cites[-1] if cites else None
    if at is None:
        return None
    words = " ".join(joined[:at].split()[-4:])
    if _CITED_DATA.search(words):
        return "web"
    return "software" if _CITED_SOFTWARE.search(words) else None


def paragraph_citation(lines: list[str], i: int, col: int,
                        consumed: set[int]) -> tuple[str | None, int | None]:
    """Title and year of an identifier (a DOI, an arXiv id, a paper's link) that ends a
    citation paragraph without a References heading (``Chen, Yilun, A. Wiesel, and A.O.
    Hero. 2011. Title. Journal. doi:...``, ``Yonghui Wu, Mike Schuster, ... (2016) Title.
    eprint arXiv:...``): the paragraph must start like a citation (``Surname, I.`` or a
    list of full names), or its last sentence before the identifier hold a quoted title
    (``From Marti A. Hearst (1997) "Title", Journal, 23(1), pp. 33-64. <url>``); a year is
    needed, except with a quoted title, and then the identifier must end its line; else
    none. The paragraph does not reach into a References section above (``consumed``)."""
    j = i
    while j > 0 and i - j < 12 and content(lines[j - 1], comment=True)[1].strip() and (
            j - 1 not in consumed):
        j -= 1
    text = " ".join(content(line, comment=True)[1] for line in lines[j:i + 1])
    text = re.split(r"\"\"\"|\'\'\'", text)[-1].strip()  # from the docstring's opening on
    first = text
    quoted_title = False
    if not (CITATION_START.match(first) or _NAME_LIST.match(first)):
        # "... arcball. See: Ken Shoemake, "Title." in Proceedings ..., 1992,\n<doi>": the
        # last sentence (or "See:" clause) before the identifier that holds a quoted title
        if re.search(r"\S\s+\w", lines[i][col:]):
            return None, None  # prose goes on after the identifier: no citation's end
        parts = re.split(r"(?<=[.!?])\s+(?=[A-Z])|\bSee:?\s+", text)
        quoted = [p for p in parts if QUOTED_TITLE.search(p)]
        if not quoted:
            return None, None
        text, quoted_title = quoted[-1], True
        q = QUOTED_TITLE.search(text)
        if q and re.search(r"\b(?!(?:and|et|al|van|von|de|der|la)\b)[a-z]{2,}\b", text[:q.start()]):
            text = text[q.start():]  # 'Calculates X as described in "Title" by A and B, ...'

    cite = parse_citation(text)
    return (cite.title, cite.year) if cite.year or (quoted_title and cite.title) else (None,
                                                                                     None)


#: a quoted title: a capital, two words or more
QUOTED_TITLE = re.compile(r"[\"\u201c][A-Z][^\"\u201d\s]*\s[^\"\u201d]{6,}[\"\u201d]")
#: a paragraph that starts with a list of full names (``Yonghui Wu, Mike Schuster, Zhifeng``)
_NAME_LIST = re.compile(r"(?:[A-Z][\w'\u2019-]+\s+){1,2}[A-Z][\w'\u2019-]+,\s+"
                        r"(?:[A-Z][\w'\u2019-]+\s+){1,2}[A-Z][\w'\u2019-]+,")
