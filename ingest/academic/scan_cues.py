"""Where the reference finder's cues start in a file, by one regular expression per
alternative: the papers scan's hot loop (it runs in the parse workers, over every file).

The finder (:mod:`ingest.academic.references`) first asks which lines hold a cue: a link
scheme, a section word, a year, a citing verb, each cue a pattern of alternatives
(``referenc|bibliograph|citation|...``). Python's ``re`` scans for an alternation position by
position, trying each branch; a pattern that starts with one literal is found by a fast
search for that literal instead. On the standard library the four cue passes took 0.24 s of
the scan's 0.56 s CPU; one pass per alternative takes a fraction of it (measured with
``benchmarks/extract_ab.py``).

The split is exact for the cues listed in :data:`SPLIT_CUES` only: their alternatives match
within one line or cannot start inside each other's matches, so the lines holding a match
of the alternation are the lines holding a match of any alternative (the golden test
``tests/ingest/test_academic_scan.py`` checks both ways on files made to trip it). A cue
whose pattern is not listed (edited since) is scanned as written.
"""

from __future__ import annotations

import re
from functools import cache

__all__ = ["CITE_CUE", "LINK_CUE", "SECTION_CUE", "SPLIT_CUES", "YEAR_CUE", "cue",
           "cue_starts"]

#: the cues of :mod:`ingest.academic.references` and :mod:`ingest.academic.ref_sections`,
#: each by its alternatives: those modules compile the alternation from these (``cue``),
#: so a cue edited there stays split here
LINK_CUE = (r"10\.\d{4}", "arxiv", "rfc", "https?://", "ftp://", r"/\d{7}")
SECTION_CUE = ("referenc", "bibliograph", "citation", "literature", r"works\s+cited",
               r"be\s+found\s+in\s*:")
YEAR_CUE = (r"19\d{2}[a-z]?[),;]", r"20\d{2}[a-z]?[),;]")
CITE_CUE = ("described", "explained", "detailed", "introduced", "proposed", "presented",
            "published", "discussed", "see(?=[ \\t]*:?[ \\t]*(?:[\\\"\\u201c]|$))")

#: a cue's pattern (the alternation) -> its alternatives, each one pattern (the same flags)
SPLIT_CUES: dict[str, tuple[str, ...]] = {
    "|".join(parts): parts for parts in (LINK_CUE, SECTION_CUE, YEAR_CUE, CITE_CUE)}


def cue(parts: tuple[str, ...], flags: int = 0) -> re.Pattern[str]:
    """The alternation of a cue's ``parts``, as :func:`cue_starts` finds it part by part."""
    return re.compile("|".join(parts), flags)


def cue_starts(text: str, cue: re.Pattern[str]) -> list[int]:
    """Offsets in ``text`` where a match of ``cue`` starts, for the lines they fall on: a
    split cue may give more offsets than ``finditer`` (an alternative inside another's
    match), never on another line."""
    parts = _parts(cue.pattern, cue.flags)
    if parts is None:
        return [m.start() for m in cue.finditer(text)]
    return [m.start() for part in parts for m in part.finditer(text)]


@cache
def _parts(pattern: str, flags: int) -> tuple[re.Pattern[str], ...] | None:
    split = SPLIT_CUES.get(pattern)
    return None if split is None else tuple(re.compile(p, flags) for p in split)
