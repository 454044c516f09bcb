"""Where a reference stands in a docstring (issue 22): the docstring's bounds, doctest
output, and the words that cite a footnote.

Pure functions over lines, called by :func:`ingest.academic.references.find_references`.
"""

from __future__ import annotations

import re

from ingest.academic.ref_sections import Entry

__all__ = ["KEYED", "cited_as", "doctest_output_lines", "same_docstring"]

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
