"""References to papers, RFCs and standards found in free text (issue 4).

``find_references(text, path=..., first_line=...)`` reads any text that people write about
code — docstrings, comments, commit messages, decision entries, README and docs in Markdown or
reST — and returns each reference once, as a :class:`FoundReference`. It is a pure function
(text in, rows out) so ingest can run it in worker processes.

What counts as a reference
--------------------------
- **DOI** in any spelling: bare ``10.1038/nature03607``, ``doi:``/``DOI:`` (with or without a
  space), ``https://doi.org/...``, ``dx.doi.org``, a publisher URL that carries one
  (``epubs.siam.org/doi/epdf/10.1137/...``, ``link.springer.com/article/10.1007/...``), inside
  Markdown links or reST ```text <url>`_``. Value: lower case, URL-decoded, without prefix or
  trailing punctuation and unbalanced closing brackets. A bare DOI whose suffix is only digits
  and dots (``10.1234/5.0``, which also reads as arithmetic) needs a ``doi`` cue before it.
  DataCite DOIs of arXiv (``10.48550/arXiv.X``) become scheme ``arxiv`` and the RFC Editor's
  (``10.17487/rfcN``) scheme ``rfc``, so one work has one identifier.
- **arXiv**: ``arXiv:2404.16130v2``, ``arxiv.org/abs|pdf|html/...`` (``.pdf`` and version
  dropped), old-style ids (``hep-th/9901001``, ``arXiv:physics/0605087``; bare old-style ids
  only for the known archives and a valid YYMM). A bare ``2404.16130`` is *not* an arXiv id
  without an ``arXiv`` cue or URL (it is indistinguishable from a number).
- **RFC**: ``RFC 8259``, ``RFC8259``, ``RFC-8259`` (upper case ``RFC`` as a word: not
  ``RFCOMM``, not the identifier ``RFC_4122``, not ``RFC 1.1``) and RFC Editor / IETF
  datatracker / tools.ietf.org links. Value: the number as a string (``"8259"``).
- **URL**: outside a References section, only links to papers and standards count: known
  scholarly and standards hosts (:data:`PAPER_HOSTS`: publishers, repositories such as HAL and
  CiteSeer, W3C ``/TR/`` specifications, ISO/Unicode/ECMA, PEPs) and links to ``.pdf``
  files; never format templates (``%s``, ``{}``) or ``.dtd``/``.xsd`` schema files. PEP links
  are normalized to ``https://peps.python.org/pep-NNNN/``; a bare "PEP 8" mention is not a
  reference (Python's own process documents are mentioned in passing far more often than
  cited). Other links (project docs, Wikipedia, mailing lists, issue trackers) are not
  references — except as the only identifier of a References-section entry, or when a
  sentence points to them as a work (``See: <url>``, ``documented at <url>``) or their reST
  text names a standard or is a citation (:mod:`ingest.academic.prose_citations`).
  Identifier scanning lives in :mod:`ingest.academic.ref_identifiers`.
- **Prose citations** (:mod:`ingest.academic.prose_citations`): author-year mentions
  (``See eq. 21 in Scargle (2013)``) that key into no reference listed or linked nearby,
  and numbered ``[1] ...`` lists without a heading whose labels the text cites.
- **Citation sections**: a heading ``References``/``Reference``/``Bibliography``/``Citations``
  (numpy/sphinx underlined, ``References:``, Markdown ``## References``, ``.. rubric::``,
  epydoc ``B{Reference}: ...``/``B{References}``) followed by entries: sphinx
  ``.. [1] ...`` (numbered or named labels), ``[1]``, bullets, ``1.``, or plain paragraphs;
  entries may span lines. Each entry is **one** reference: its best identifier
  (DOI > arXiv > RFC > URL) or, if it has none, scheme ``citation`` with the entry text as
  value; title, year and type of work (paper, book, rfc, standard, manual, software, web)
  come from :func:`ingest.academic.citation_text.parse_citation` (author-year, quoted,
  comma- or sentence-separated and title-first styles). Sections are found by
  :mod:`ingest.academic.ref_sections`; an entry list without markers is split one entry a
  line where lines are complete, and a link without a scheme (``www.x.org/a.pdf``) counts
  there. A DOI or arXiv id that ends a citation paragraph without a heading gets the
  paragraph's title and year. A sphinx citation target ``.. [1] ...`` outside a section
  is an entry when the text cites its label (``[1]_``); an entry made only of reST links
  (``**References:** `1.1 <url>`__, `1.2 <url>`__``) is one reference per link, at the line
  where each link starts. A scholarly link in prose takes the year of an author-year
  citation right before it (``(see Lahav et al. 2000, <url>``).
- **Inline citations** outside sections: "described/explained/detailed/introduced/proposed/
  presented in: <Author ... year ...>" or "... in <Title> by <Author> et al." — scheme
  ``citation`` when the cited text starts with a capital or a quote and holds a year or a
  "by <Author> et al./and <Author>".

Line: the absolute 1-based line (``first_line`` + offset) where the identifier is — for a
section entry, the line where the entry starts; for an inline citation, where the cited text
starts. One reference per (line, scheme, value).

Kind
----
- ``documents``: the text is documentation (``path`` ends in ``.md``, ``.markdown``, ``.rst``,
  ``.txt``, ``.adoc`` or the file name starts with ``README``): the page is about the work.
- ``implements``: the text says the code realizes the work, in the sentence that carries the
  reference or, for a labelled section entry, in a sentence that cites its label (``based on
  [1]_``): "implements", "implementation of", "based on", "as described in/by", "follows",
  "adapted from", "port of", "as specified in/by", "conforms to", "complies
  with", "algorithm/method of/from".
- ``cites`` otherwise.

Hand-written: no maintained library extracts DOIs, arXiv ids, RFCs and docstring citation
sections together (``refextract`` needs PDFs and network services); the rules are regular
expressions tuned on real docstrings and measured by ``benchmarks/references_quality.py``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import accumulate
from pathlib import PurePosixPath

from ingest.academic.citation_text import classify_work, parse_citation
from ingest.academic.prose_citations import (
    NEARBY,
    author_year_mentions,
    before_link,
    cited_link_text,
    labelled_link,
    link_text,
    names_standard,
    pointer_link,
    pointer_work,
    title_of_link_text,
    without_link_text,
)
from ingest.academic.ref_context import (
    KEYED,
    cited_as,
    doctest_output_lines,
    paragraph_citation,
    same_docstring,
)
from ingest.academic.ref_identifiers import (
    PAPER_HOSTS,
    URL,
    WWW,
    identifier_work,
    identifiers,
    normalize_url,
    strip_identifier,
)
from ingest.academic.ref_sections import (
    AUTHOR_YEAR,
    CITATION_START,
    END,
    MARKER,
    SECTION_CUE,
    Entry,
    bracket_entries,
    citation_paragraphs,
    content,
    footnote_entries,
    section_entries,
)
from ingest.academic.scan_cues import CITE_CUE, LINK_CUE, YEAR_CUE, cue, cue_starts

__all__ = ["PAPER_HOSTS", "SCHEMES", "FoundReference", "find_references"]

SCHEMES = ("doi", "arxiv", "rfc", "url", "citation")
_RANK = {scheme: i for i, scheme in enumerate(SCHEMES)}


@dataclass(frozen=True)
class FoundReference:
    """One reference found in a text: what it points at, where, and how it is used."""

    scheme: str  # doi | arxiv | rfc | url | citation
    value: str  # normalized identifier, URL, or the citation text
    line: int  # absolute, 1-based
    kind: str  # cites | implements | documents
    title: str | None
    year: int | None
    raw: str  # the matched text (the whole entry for a section entry)
    work: str = "paper"  # paper | book | rfc | standard | manual | software | web


_DOC_SUFFIXES = {".md", ".markdown", ".rst", ".txt", ".adoc"}

# one cheap search per line first: most lines of code hold no identifier at all
# (matched on the lower-cased text: an IGNORECASE alternation is several times slower)
_CUE = cue(LINK_CUE)
_CITE_CUE = cue(CITE_CUE, re.MULTILINE)

# --- sections, kinds, citations ----------------------------------------------------------

_IMPLEMENTS = re.compile(
    r"\b(?:implements?|implemented|implementing|implementation\s+of|based\s+(?:up)?on|"
    r"as\s+(?:described|specified|defined|proposed)\s+(?:in|by)|follows|"
    r"adapted\s+from|port\s+of|conforms?\s+to|complies\s+with|"
    r"(?:algorithm|method|approach|procedure)\s+(?:of|from))\b",
    re.IGNORECASE)
_INLINE_CITE = re.compile(
    r"\b(?:described|explained|detailed|introduced|proposed|presented|published|discussed)"
    r"\s+in\s*:?(?:\s+(?=[\"'\u201c\u2018(A-Z])|\s*$)"
    r"|\b[Ss]ee\s*:?(?:\s*(?=[\"\u201c][A-Z])|\s*$)")  # 'See\n"Title", Journal ..., 1989'

#: a clause saying results were checked against another implementation: the link it ends
#: with names software compared with, not a work cited
_VALIDATION = re.compile(r"\b(?:tested|validated|checked|compared|benchmarked|verified)\s+"
                         r"(?:against|with)\b(?!.*[.;:]\s)", re.IGNORECASE)
_BY_AUTHOR = re.compile(r"\bby\s+[A-Z][\w'-]+(?:\s+et\.?\s+al\b\.?|\s+and\s+[A-Z][\w'-]+)")
_YEAR = re.compile(r"(?<![\w./-])(?:19|20)\d{2}(?![\w/-]|\.\d)")
_EPYDOC = re.compile(r"\b[IBCUML]\{([^{}]*)\}")
#: a reST link (not a role's ``:doi:`Title <id>```); its closing ``_`` may be missing or
#: mistyped (```Bodo documentation <url>`/``)
_REST_LINK = re.compile(r"(?<!:)`([^`<]*?)\s*<([^>]+)>`(?:_{1,2}|[^\s\w`,.;:)\]]?(?![`\w]))")


#: Lines longer than this are read as segments of about :data:`_SEGMENT` characters.
LONG_LINE = 4000
_SEGMENT = 2000


def find_references(text: str, *, path: str | None = None,
                    first_line: int = 1) -> list[FoundReference]:
    """Every reference in ``text`` (see the module docstring for what counts), in line
    order, one per (line, scheme, value).

    A line longer than :data:`LONG_LINE` (minified code, a generated list of links) is read
    as segments cut at spaces, each like a line of its own: every link reads the text
    before it on its line, so a line of many links would cost its length squared (a 64 KB
    line of links took 6 s). A space becomes a line break, offsets stay the same, and the
    references found are reported on their real line."""
    lines = text.splitlines()
    if max(map(len, lines), default=0) <= LONG_LINE:
        return _find_references(text, lines, path=path, first_line=first_line)
    segmented, real = _segmented(text)
    result: list[FoundReference] = []
    seen: set[tuple[int, str, str]] = set()
    for ref in _find_references(segmented, segmented.splitlines(), path=path,
                                first_line=first_line):
        ref = replace(ref, line=first_line + real[ref.line - first_line])
        if (key := (ref.line, ref.scheme, ref.value)) not in seen:
            seen.add(key)
            result.append(ref)
    return result


def _segmented(text: str) -> tuple[str, list[int]]:
    """``text`` with its long lines cut at a space every ~:data:`_SEGMENT` characters, and
    the real line (0-based) of each of its lines."""
    out: list[str] = []
    real: list[int] = []
    for number, line in enumerate(text.splitlines(keepends=True)):
        while len(line) > LONG_LINE:
            cut = line.find(" ", _SEGMENT)
            if cut < 0 or len(line) - cut <= _SEGMENT // 2:
                break  # no space left, or only a short tail: the rest stays one line
            out.append(line[:cut] + "\n")
            real.append(number)
            line = line[cut + 1:]
        out.append(line)
        real.append(number)
    return "".join(out), real


def _find_references(text: str, lines: list[str], *, path: str | None,
                     first_line: int) -> list[FoundReference]:
    low = text.lower()
    if len(low) != len(text):  # a few characters lower-case to two: keep offsets exact
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    starts: list[int] = []  # line offsets, computed once by the first cue that matches
    cues = _lines_matching(low, _CUE, starts)
    documents = _is_doc(path)
    found: list[tuple[int, int, FoundReference]] = []
    consumed: set[int] = set()
    entries = section_entries(lines, _lines_matching(low, SECTION_CUE, starts))
    for entry in entries:
        consumed.update(range(entry.first, entry.last + 1))
    entries += footnote_entries(lines, consumed) if ".. [" in text else []
    for entry in entries:
        consumed.update(range(entry.first, entry.last + 1))
    if "[1]" in text and _BRACKET_ITEM.search(text):  # a numbered list starts at [1]
        entries += bracket_entries(lines, consumed)
    for entry in entries:
        consumed.update(range(entry.first, entry.last + 1))
    years = _lines_matching(low, _YEAR_PAREN, starts)
    if years:
        entries += citation_paragraphs(lines, consumed, years)
    for entry in entries:
        consumed.update(range(entry.first, entry.last + 1))
        for ref in _link_list(entry, lines, documents, first_line) or [
                _entry_reference(entry, lines, documents, first_line)]:
            if ref is not None:
                found.append((ref.line - first_line, 0, ref))
    previous: set[tuple[str, str]] = set()
    doctest = doctest_output_lines(lines, cues) if ">>>" in text else set()
    for i, line in enumerate(lines):
        if i in consumed or i not in cues or i in doctest:
            previous = set()
            continue
        pointed = _pointed(lines, i)
        here = identifiers(line, cited=False, pointed=pointed)
        start = len(line) - len(line.lstrip())
        for col, scheme, value, raw in here:
            if (scheme, value) in previous and col <= start + 1:
                continue  # a link wrapped onto this line (reST `text\n<url>`_)
            if scheme == "url" and _VALIDATION.search(_last_clause(_before(lines, i, col))):
                continue  # "Results have been tested against the `pwr <url>`_ R package"
            kind = "documents" if documents else _kind_before(lines, i, col)
            work = identifier_work(scheme, value)
            title, year = paragraph_citation(lines, i, col, consumed) if scheme in (
                "doi", "arxiv") or work == "paper" else (None, None)
            year = year or _prose_year(line[:col]) or _bibcode_year(value)
            if scheme == "url":
                named = link_text(lines, i, col)
                title = title_of_link_text(named) or title
                if cited_link_text(named):
                    cite = parse_citation(named or "", url=value, scheme="url")
                    title, year, work = cite.title, cite.year or year, cite.work
                else:
                    work = pointer_work(f"{_before(lines, i, col)} {named or ''}", value, work)
            found.append((i, col, FoundReference(scheme, value, first_line + i, kind,
                                                 title, year, raw, work)))
        previous = {(scheme, value) for _col, scheme, value, _raw in here}
    found.extend(_inline_citations(lines, consumed, documents, first_line,
                                   _lines_matching(low, _CITE_CUE, starts)))
    if years:
        found.extend(_mentions(lines, consumed, found, documents, first_line, years))
    found.sort(key=lambda item: (item[0], item[1]))
    seen: set[tuple[int, str, str]] = set()
    result: list[FoundReference] = []
    for _i, _col, ref in found:
        key = (ref.line, ref.scheme, ref.value)
        if key not in seen:
            seen.add(key)
            result.append(ref)
    return result


def _before(lines: list[str], i: int, col: int) -> str:
    """The prose leading up to column ``col`` of line ``i``: the line so far and the (at
    most three) non-blank lines above it in its paragraph, comment markers removed; a link
    standing alone (``See: <url>``, ``- <url>`` items) reads the paragraph above too."""
    parts = [content(lines[i][:col], comment=True)[1]]
    j = i - 1
    while j >= 0 and len(parts) < 4 and i - j <= 5:
        body = content(lines[j], comment=True)[1].strip()
        opened = re.split(r"\"\"\"|'''", body)
        if len(opened) > 1:  # the docstring opens (or closes) here: its text after that
            parts.insert(0, opened[-1].strip())
            break
        if body:
            parts.insert(0, body)
        elif len(URL.sub("", " ".join(parts)).split()) > 3:
            break  # a paragraph with words of its own is the link's context
        j -= 1
    return " ".join(parts)


def _url_only(lines: list[str], i: int) -> bool:
    """Whether line ``i`` holds one link and nothing else."""
    body = content(lines[i], comment=True)[1].strip() if 0 <= i < len(lines) else ""
    return bool(re.fullmatch(r"(?:[-*]\s+)?(?:https?|ftp)://\S+", body))


def _pointed(lines: list[str], i: int) -> Callable[[int, str], bool]:
    """Whether the link at a column of line ``i`` is pointed to as a work (``See: <url>``,
    ``See\n<url> for more details``) or named a standard by its reST text."""
    def pointed(col: int, url: str) -> bool:
        if _HOME_AFTER.match(lines[i], col + len(url)):
            return False  # "See <url> for the homepage of the algorithm": a site, no work
        alone = _url_only(lines, i)
        if alone and i > 0 and _TITLE_COLON.search(lines[i - 1]):
            return True  # 'David Bailey, "The PSLQ Integer Relation Algorithm":\n<url>'
        before = without_link_text(content(lines[i][:col], comment=True)[1])
        named = link_text(lines, i, col)
        opening = before_link(lines, i, col)  # "... can be found in the `Docs\n<url>`_"
        if opening is not None and pointer_link(opening, url):
            return True
        if alone and _url_only(lines, i - 1) and (
                above := URL.search(lines[i - 1])) and _pointed(lines, i - 1)(
                above.start(), strip_identifier(above.group(0))):
            return True  # "documented at\n<url1>\n<url2>": the list goes on
        if pointer_link(before, url) or (named is not None and (
                names_standard(named) or cited_link_text(named))) or (
                labelled_link(lines, i, col) and pointer_link("See", url)):
            return True
        # "See\n<url>", "(documented\nat <url>": the cue ends the line above
        above = content(lines[i - 1], comment=True)[1].strip() if i > 0 else ""
        return len(before.split()) < 3 and bool(above) and pointer_link(
            f"{above} {before.strip()}", url)
    return pointed


#: a quoted title ending a line with a colon: the link on the next line is its
_TITLE_COLON = re.compile(r"[\"\u201c][A-Z][^\"\u201d]*\s[^\"\u201d]+[\"\u201d]\s*:\s*$")
#: after a link: what the sentence calls it, a home page
_HOME_AFTER = re.compile(r"\W{0,3}\s*(?:for|is)\s+(?:the|its|his|her|their)\s+(?:official\s+)?"
                         r"(?:home\s*page|web\s*site|site)\b", re.IGNORECASE)


_BIBCODE = re.compile(r"adsabs\.harvard\.edu/(?:abs|full|pdf|link_gateway)/"
                      r"(?P<y>(?:1[89]|20)\d{2})[A-Za-z&]", re.IGNORECASE)


def _bibcode_year(value: str) -> int | None:
    """The year an ADS bibcode starts with (``/abs/2004PASP..116..133L``)."""
    m = _BIBCODE.search(value)
    return int(m.group("y")) if m else None


#: a cheap pass first: author-year mentions need a year before ")" or ","
_YEAR_PAREN = cue(YEAR_CUE)
_BRACKET_ITEM = re.compile(r"^[ \t#]*\[\d{1,3}\][ \t]+\S", re.MULTILINE)


def _mentions(lines: list[str], consumed: set[int], found: list, documents: bool,
              first_line: int, years: set[int]) -> list[tuple[int, int, FoundReference]]:
    """Author-year mentions in prose (``See eq. 21 in Scargle (2013)``) that key into no
    reference found within :data:`NEARBY` lines (see :mod:`prose_citations`). A mention
    next to an identifier without a year (``doi:10.1145/... (Cormack et al. 2009)``) is
    that identifier's citation: it gives it its year (``found`` is updated in place)."""
    out: list[tuple[int, int, FoundReference]] = []
    candidates = years | {i - 1 for i in years}  # a mention may wrap before its year
    mentions = [m for m in author_year_mentions(lines, consumed, candidates)
                if MARKER.match(lines[m[0]].lstrip()) or _in_docstring_prose(lines[m[0]])]
    rest = []
    for i, col, year, text in mentions:  # first the identifiers' own citations
        beside = [n for n, (j, _c, ref) in enumerate(found)
                  if abs(j - i) <= 1 and ref.scheme != "citation" and ref.year is None]
        if beside:
            j, c, ref = found[beside[0]]
            found[beside[0]] = (j, c, replace(ref, year=year))
        else:
            rest.append((i, col, year, text))
    for i, col, year, text in rest:
        if any(abs(j - i) <= NEARBY and ref.year == year for j, _c, ref in found + out):
            continue
        surname = re.match(r"[\w'\u2019-]+", text)
        named = re.compile(rf"\b{re.escape(surname.group(0))}\b") if surname else None
        if named and any(ref.year == year and abs(j - i) <= KEYED and named.search(ref.raw)
                         and same_docstring(lines, i, j) for j, _c, ref in found):
            continue  # "(Cressie and Read, 1984)" 50 lines above its References entry
        kind = "documents" if documents else _kind_before(lines, i, col)
        out.append((i, col, FoundReference("citation", text, first_line + i, kind, None,
                                           year, text, "paper")))
    return out


def _in_docstring_prose(line: str) -> bool:
    """A line of text, not of code: no assignment, call or definition shape."""
    body = line.strip()
    return not re.match(r"(?:def|class|return|if|elif|for|while|import|from)\b|[\w.]+\s*=|"
                        r"[rbuf]*[\"']", body)  # a string literal of code


#: an author-year citation that a link right after it points at: ``(see Lahav et al. 2000,
#: <url>``, ```Greisen & Calabretta 2002, A&A, 395, 1061 <url>`_``
_AUTHOR_YEAR_BEFORE = re.compile(
    r"(?:^|[(`\s])[A-Z][\w'-]+(?:\s+et\s+al\.?|\s+(?:&|and)\s+[A-Z][\w'-]+)?,?\s+"
    r"(?P<y>(?:19|20)\d{2})[a-z]?(?:,[^()<>`]{0,40})?,?\s*[<(]?$")


def _prose_year(before: str) -> int | None:
    """The year of an author-year citation that the link after ``before`` belongs to."""
    m = _AUTHOR_YEAR_BEFORE.search(before[-80:])
    return int(m.group("y")) if m else None


def _lines_matching(text: str, pattern: re.Pattern[str],
                    starts: list[int] | None = None) -> set[int]:
    """Indexes of the lines where ``pattern`` matches: one regex pass over the whole text is
    far cheaper than one search per line, and most lines of code match none of the cues.
    ``starts`` (empty, or the offsets of :func:`_line_starts`) is filled on first use and
    saves recomputing them for the next pattern. (The cues are found one alternative at a
    time: :mod:`ingest.academic.scan_cues`.)"""
    hits = cue_starts(text, pattern)
    if not hits:
        return set()
    if starts is None:
        starts = _line_starts(text)
    elif not starts:
        starts.extend(_line_starts(text))
    return {bisect.bisect_right(starts, hit) - 1 for hit in hits}


def _line_starts(text: str) -> list[int]:
    """The offset where each line of ``text.splitlines()`` starts."""
    # the same lines as text.splitlines(); the running sum in C
    starts = list(accumulate(map(len, text.splitlines(keepends=True)), initial=0))
    starts.pop()  # where the text ends
    return starts


def _is_doc(path: str | None) -> bool:
    if not path:
        return False
    p = PurePosixPath(path.replace("\\", "/"))
    return p.suffix.lower() in _DOC_SUFFIXES or p.name.upper().startswith("README")


def _kind_before(lines: list[str], i: int, col: int) -> str:
    """``implements`` if the clause leading up to the reference says so (the clause may
    start on earlier lines of the same paragraph or comment block)."""
    before = content(lines[i][:col], comment=True)[1]
    j = i - 1
    while j >= 0 and len(before) < 300:
        prev = content(lines[j], comment=True)[1].rstrip()
        if not prev or prev.endswith((".", "!", "?", '"' * 3, "'" * 3)):
            break
        before = prev + " " + before
        j -= 1
    return "implements" if _IMPLEMENTS.search(_last_clause(before)) else "cites"


def _last_clause(text: str) -> str:
    """The text after the last sentence or clause boundary (``.``/``;``/``!``/``?``)."""
    return re.split(r"(?<=[.!?;])\s+", text.strip())[-1] if text.strip() else ""


# --- citation sections -------------------------------------------------------------------


def _plain(text: str) -> str:
    """Entry text without epydoc/reST link markup, spacing collapsed."""
    text = _REST_LINK.sub(lambda m: f"{m.group(1)} {m.group(2)}", text)
    # sphinx's :doi: role, ``:doi:`Title, 2000 <10.1109/34.868688>``` or ``:doi:`10.x/y```
    # (any case: ``:DOI:`...```), and the role-like ``DOI:`10.x/y```
    text = re.sub(r":doi:`([^`<]*?)\s*<([^>`]+)>`", r"\1 doi:\2", text, flags=re.IGNORECASE)
    text = re.sub(r":?doi:`([^`]+)`", r"doi:\1", text, flags=re.IGNORECASE)
    for _ in range(2):
        text = _EPYDOC.sub(r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _entry_reference(entry: Entry, lines: list[str], documents: bool,
                     first_line: int, *, scan: bool = True) -> FoundReference | None:
    text = _plain(entry.text)
    best: tuple[int, str, str, str] | None = None
    for j in range(entry.first, entry.last + 1) if scan else ():
        for _col, scheme, value, raw in identifiers(_plain(lines[j]), cited=True):
            if best is None or _RANK[scheme] < _RANK[best[1]]:
                best = (j, scheme, value, raw)
    # an identifier whose markup spans lines (a :doi: role, a wrapped link, a DOI cut at
    # a hyphen: ``...<873::AID-`` / ``SIM779>3.0.CO;2-I``)
    joined = re.sub(r"(10\.\d{4,9}/\S*-)\s+(?=\S)", r"\1", text)
    for _col, scheme, value, raw in identifiers(joined, cited=True):
        if best is None or _RANK[scheme] < _RANK[best[1]] or (
                scheme == best[1] and value.startswith(best[2]) and len(value) > len(best[2])):
            best = (entry.first, scheme, value, raw)
    if best is None and (www := WWW.search(text)):
        best = (entry.first, "url", normalize_url("https://" + strip_identifier(www.group(0))),
                www.group(0))
    kind = "documents" if documents else _entry_kind(entry, lines)
    if best is not None:
        cite = parse_citation(text, url=best[2] if best[1] == "url" else None, scheme=best[1])
        work = cite.work
        if best[1] == "url" and URL.fullmatch(text) and (
                called := cited_as(lines, entry)) is not None:
            work = called  # ".. [#] https://htk.eng.cam.ac.uk/" cited as "the HTK
            # implementation of MFCCs [#]_": software
        return FoundReference(best[1], best[2], first_line + entry.first, kind,
                              cite.title or _link_text_title(entry.text), cite.year, text,
                              work)
    if re.fullmatch(r"\[[A-Za-z][\w.-]*\]_", text):  # "[Gathen99]_": a key into a shared
        return FoundReference("citation", text, first_line + entry.first, kind, None, None,
                              text, "paper")  # bibliography (sympy's): the work is elsewhere
    if not AUTHOR_YEAR.match(text) and classify_work(text) not in (
            "manual", "software", "standard") and (
            len(text) < 15 or len(re.findall(r"[A-Za-z]{2,}", text)) < 3) and not (
            CITATION_START.match(text) and _YEAR.search(text)):
        return None  # too short for a citation, unless "Baluev, R.V. MNRAS 385, 1279 (2008)"
    cite = parse_citation(text)
    return FoundReference("citation", text, first_line + entry.first, kind, cite.title,
                          cite.year, text, cite.work)


_LINK_ONLY = re.compile(r"`[^`<]+<[^>`]+>`_{1,2}")


def _link_list(entry: Entry, lines: list[str], documents: bool,
               first_line: int) -> list[FoundReference | None]:
    """An entry made only of reST links (``**References**: `1.1 <url>`__, `1.2 <url>`__``,
    one link per version of a standard) is one reference per link, each at the line where its
    link starts; any other entry is not a list ([])."""
    links = _LINK_ONLY.findall(entry.text)
    if len(links) < 2 or _LINK_ONLY.sub("", entry.text).strip(" ,;:.and") != "":
        return []
    out: list[FoundReference | None] = []
    j = entry.first
    for link in links:
        head = link.split("<", 1)[0].strip()
        while j < entry.last and head not in lines[j]:
            j += 1
        out.append(_entry_reference(Entry(j, j, link, None, entry.section_start,
                                          indent=entry.indent), lines, documents, first_line,
                                    scan=False))
    return out


def _link_text_title(text: str) -> str | None:
    """The text of an entry's only reST link, when the entry writes no other title
    (``NumPy User Guide, section `I/O with NumPy <url>`_``): at least two words."""
    links = _REST_LINK.findall(text)
    if len(links) != 1 or len(re.findall(r"[A-Za-z]{2,}", links[0][0])) < 2:
        return None
    return links[0][0].strip() or None


def _entry_kind(entry: Entry, lines: list[str]) -> str:
    if entry.label is None:
        return "cites"
    label = re.escape(entry.label)
    start = max(0, entry.section_start - 150)
    before = " ".join(line.strip() for line in lines[start:entry.section_start])
    for m in re.finditer(rf"\[{label}\]_?", before):
        if _IMPLEMENTS.search(_last_clause(before[max(0, m.start() - 300):m.start()])):
            return "implements"
    return "cites"


def _inline_citations(lines: list[str], consumed: set[int], documents: bool, first_line: int,
                      candidates: set[int]) -> list[tuple[int, int, FoundReference]]:
    out: list[tuple[int, int, FoundReference]] = []
    for i in sorted(candidates - consumed):
        line = lines[i]
        for m in _INLINE_CITE.finditer(line):
            # the cited text: the rest of the paragraph, at most 3 lines
            parts = [line[m.end():]]
            j = i + 1
            while j < len(lines) and j <= i + 2 and j not in consumed:
                body = content(lines[j], comment=lines[i].lstrip().startswith(("#", "//")))[1]
                if not body or END.match(body) or '"""' in body or "'''" in body:
                    if '"""' in body or "'''" in body:
                        parts.append(re.split(r"\"\"\"|'''", body)[0])
                    break
                parts.append(body)
                j += 1
            cited = re.sub(r"\s+", " ", " ".join(parts)).strip()
            if not re.match(r"[\"'\u201c\u2018A-Z]|\((?=[A-Z])", cited) or (
                    m.group(0)[:3].lower() == "see" and not re.match(r"[\"\u201c][A-Z]", cited)
                    and not CITATION_START.match(cited)):
                continue  # after "See": a quoted title or "Surname, I." starts a citation
            if identifiers(cited, cited=False) or re.match(
                    r"(?:RFC|PEP|Section|Chapter|Figure|Table|Appendix)\b", cited):
                continue
            # an author and a year, or "<Title> by <Author> et al."
            anchor = _YEAR.search(cited[:200]) or _BY_AUTHOR.search(cited[:200])
            if anchor is None:
                continue
            end = re.search(r"[.!?](?=\s+[A-Z]|$)", cited[anchor.end():])
            cited = cited[:anchor.end() + end.end()] if end else cited[:300]
            cite = parse_citation(cited.strip("()"))
            line_no = i
            if not line[m.end():].strip() and i + 1 < len(lines):
                line_no = i + 1
            kind = "documents" if documents else (
                "implements" if _IMPLEMENTS.search(line[:m.end()]) else "cites")
            out.append((line_no, m.start(), FoundReference(
                "citation", cited, first_line + line_no, kind, cite.title, cite.year, cited,
                cite.work)))
    return out
