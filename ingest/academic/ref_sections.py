"""References sections in docstrings, comments and documents (issue 4, issue 22).

``section_entries(lines, candidates)`` finds each heading ``References``/``Bibliography``/...
(numpy/sphinx underlined, ``References:``, Markdown ``## References``, ``.. rubric::``,
epydoc ``B{References}``), inside comment blocks too, and returns its entries: sphinx
``.. [1]``, ``[1]``, bullets, ``1.``, or plain paragraphs and one-entry-a-line lists without
markers; entries may span lines. Split from :mod:`ingest.academic.references`, which turns
each entry into one reference.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.academic.scan_cues import SECTION_CUE as SECTION_CUE_PARTS
from ingest.academic.scan_cues import cue

__all__ = [
    "AUTHOR_YEAR",
    "CITATION_START",
    "END",
    "MARKER",
    "SECTION_CUE",
    "Entry",
    "bracket_entries",
    "citation_paragraphs",
    "content",
    "footnote_entries",
    "section_entries",
]

SECTION_CUE = cue(SECTION_CUE_PARTS)

#: an entry that is only an author and a year in parentheses: ``Greene (2003)``
AUTHOR_YEAR = re.compile(r"^[A-Z][\w'-]+(?:,?\s+(?:and|&|et al\.?)\s*(?:[A-Z][\w'-]+)?)*"
                          r"\s*\((?:19|20)\d{2}[a-z]?\)\.?$")

_SECTION_WORDS = r"(?:references?|bibliography|citations?|literature|works\s+cited)"
_HEADING = re.compile(
    rf"^(?:#{{1,6}}\s*|\*\*|\.\.\s+rubric::\s*|B\{{)?(?P<word>{_SECTION_WORDS})"
    r"(?P<inner>:)?(?:\*\*|\})?\s*(?P<colon>:)?\s*(?P<rest>.*)$", re.IGNORECASE)
#: a sentence introducing a bulleted list of works, read as a References heading
_LIST_INTRO = re.compile(r"^.{0,100}?\b(?:can|may)\s+be\s+found\s+in\s*(?P<colon>:)\s*$"
                         r"(?P<word>)(?P<inner>)(?P<rest>)", re.IGNORECASE)
_UNDERLINE = re.compile(r"^\s*(?:-{3,}|={3,}|~{3,}|\^{3,})\s*$")
_ENTRY = re.compile(r"^(?P<mark>\.\.\s+\[[^\]]+\]|\[[\w.-]{1,20}\]|[-*\u2022+]\s|\d{1,3}[.)]\s)")
_LABEL = re.compile(r"^\.\.\s+\[(?P<l>[^\]]+)\]|^\[(?P<m>[\w.-]{1,20})\]")
END = re.compile(r"^(?:@\w+|:(?:param|returns?|raises?|type|rtype)\b|>>>|#{1,6}\s)")
_NUMPY_SECTIONS = re.compile(
    r"^(?:parameters|returns|yields|raises|examples?|notes|see also|attributes|methods|"
    r"warns|warnings|other parameters|args|arguments|keyword arguments|todo)\s*:?\s*$",
    re.IGNORECASE)


@dataclass
class Entry:
    first: int  # 0-based line index of the entry start
    last: int
    text: str  # marker stripped, joined with single spaces
    label: str | None
    section_start: int
    marked: bool = True  # started by a marker (``.. [1]``, ``-``, ``1.``)
    indent: int = 0
    tail: str = ""  # its last line
    spaced: bool = False  # set apart from the entry before it by a blank line


#: the first line of a citation: ``Surname, Given`` or ``Surname, I.``
CITATION_START = re.compile(r"[A-Z][\w'\u2019-]+,\s+[A-Z]")


def _next_plain_entry(current: Entry, body: str, ind: int) -> bool:
    """Whether ``body`` starts a new entry of a References section written one entry a line
    without markers (``https://...`` then ``SAS Manual for NPAR TESTS``): the previous line
    is complete (a link, or a sentence end that is no abbreviation) or this one starts like
    an entry (an acronym, an ``Author (1998)`` line, a link), and it is not a continuation."""
    if current.marked or ind != current.indent:
        return False
    if current.spaced and not re.match(r"(?:https?://|www\.)", body):
        return False  # entries set apart by blank lines: a paragraph is one entry
    tail = current.tail.rstrip()
    if re.search(r"(?:,|\band|&|-|:)$", tail) or (not body[:1].isupper() and not re.match(
            r"(?:https?://|www\.)", body)):
        return False
    if len(tail) < 50 and len(current.text) == len(tail):
        return True  # a short one-line note ("Greene section 7.5.2"), far from the wrap width
    if re.fullmatch(r"(?:https?://|www\.)\S+", tail) or re.match(r"(?:https?://|www\.)", body):
        return True
    if AUTHOR_YEAR.match(body) or re.match(r"[A-Z]{2,}\b(?!\.)", body):
        return True
    if re.search(r"\b(?:19|20)\d{2}\.?$", tail) and re.match(
            r"[A-Z][\w'-]+,\s+(?:[A-Z]\.\s*){1,3}", body):
        return True  # "..., 2008" then "Ng, H. K. T., ...": the next author list
    return tail.endswith(".") and not re.search(r"(?:^|\s)(?:[A-Z]|[A-Za-z]{1,4})\.$", tail)


MARKER = re.compile(r"^(?:#+|//+)\s?")


def content(line: str, *, comment: bool = False) -> tuple[int, str]:
    """Indent and text of a line; in a comment block the ``#``/``//`` marker goes too."""
    body = line.lstrip()
    if comment:
        body = MARKER.sub("", body).lstrip()
    return len(line) - len(body), body


def _heading_at(lines: list[str], i: int) -> tuple[re.Match[str], bool] | None:
    """The heading match at line ``i`` and whether the section is a comment block."""
    stripped = lines[i].lstrip()
    comment = bool(MARKER.match(stripped)) and _next_body(lines, i).startswith(
        stripped[:2] if stripped.startswith("//") else "#")
    body = content(lines[i], comment=comment)[1]
    body = re.sub(r'^[rbu]*("""|\'\'\')', "", body)
    m = _HEADING.match(body)
    if not m:
        m = _LIST_INTRO.match(body)
        if m is None or not re.match(r"[-*\u2022]\s", content(_next_body(lines, i),
                                                               comment=comment)[1]):
            return None
        return m, comment  # "Details ... can be found in:" then a bulleted list of works
    rest = m.group("rest").strip()
    underlined = _underlined(lines, i + 1, comment)
    epydoc = body.startswith("B{")
    colon = m.group("colon") or m.group("inner")  # "References:" or "**References:**"
    if rest and not (epydoc or colon):
        return None  # "References to X are ..." is prose, not a heading
    if not rest and not (underlined or colon or epydoc or body.startswith(
            ("#", "**", ".."))):
        nxt = content(_next_body(lines, i), comment=comment)[1]
        if not _ENTRY.match(nxt):
            return None
    return m, comment


def _underlined(lines: list[str], i: int, comment: bool) -> bool:
    """Whether line ``i`` is a heading underline (``-----``), inside a comment block too."""
    return i < len(lines) and _UNDERLINE.match(content(lines[i], comment=comment)[1]) is not None


def _next_body(lines: list[str], i: int) -> str:
    for j in range(i + 1, min(i + 3, len(lines))):
        if lines[j].strip():
            return lines[j].lstrip()
    return ""


def section_entries(lines: list[str], candidates: set[int]) -> list[Entry]:
    entries: list[Entry] = []
    i = 0
    while i < len(lines):
        found = _heading_at(lines, i) if i in candidates else None
        if found is None:
            i += 1
            continue
        m, comment = found
        start = i
        indent = content(lines[i], comment=comment)[0]
        rest = m.group("rest").strip()
        single = bool(rest) and m.group("word").lower() == "reference"
        i += 1
        if _underlined(lines, i, comment):
            i += 1
        current: Entry | None = None
        if rest:
            current = Entry(start, start, rest, None, start)
        blank = False
        while i < len(lines):
            stripped = lines[i].lstrip()
            if stripped and comment != bool(MARKER.match(stripped)):
                break  # the comment block ended, or a Markdown heading began
            ind, body = content(lines[i], comment=comment)
            closing = re.search(r"(\"\"\"|\'\'\')", body)
            if closing:
                body = body[:closing.start()].rstrip()
            if not body:
                if closing:
                    break
                blank = True
                if single and current is not None:
                    break
                i += 1
                continue
            if (re.fullmatch(r"\*\*[^*]{3,80}\*\*:?", body) and current is not None
                    and _ENTRY.match(content(_next_body(lines, i), comment=comment)[1])):
                i += 1  # "**Numerical Inverse Laplace Transform Reviews**": a sub-list
                blank = False
                continue
            if (END.match(body) or _NUMPY_SECTIONS.match(body) or ind < indent
                    or _underlined(lines, i + 1, comment)
                    or (SECTION_CUE.search(lines[i]) and _heading_at(lines, i) is not None)):
                break
            mark = _ENTRY.match(body)
            if (blank and not mark and current is not None and not current.marked
                    and current.tail.rstrip().endswith(":")
                    and re.match(r"(?:https?://|www\.)", body)):
                blank = False  # "SAS documentation for weighted quantiles:", blank, "<url>"
            if mark or current is None or blank or _next_plain_entry(current, body, ind):
                if blank and not mark and current is not None and ind <= indent and not (
                        not current.marked and (CITATION_START.match(body)
                                                or re.match(r"(?:https?://|www\.)", body))):
                    break  # an unmarked entry set apart by a blank line: a citation or link
                if current is not None:
                    entries.append(current)
                label_m = _LABEL.match(body)
                label = (label_m.group("l") or label_m.group("m")) if label_m else None
                text = body[mark.end():].strip() if mark else body
                current = Entry(i, i, text, label, start, bool(mark), ind, body,
                                spaced=blank and current is not None)
            else:
                current.text += " " + body
                current.last = i
                current.tail = body
            blank = False
            i += 1
            if closing:
                break
        if current is not None:
            entries.append(current)
    return entries


def citation_paragraphs(lines: list[str], consumed: set[int], years: set[int]) -> list[Entry]:
    """Paragraphs that are a citation by themselves, under no heading: they start with
    ``Surname, I.`` and hold a quoted title and a year within four lines (``Porter, M. "An
    algorithm for suffix stripping."\n Program 14.3 (1980): 130-137.``). ``years``: the
    lines holding a year."""
    out: list[Entry] = []
    starts: set[int] = set()
    for y in sorted(years - consumed):
        i = y
        while i > 0 and y - i < 3 and lines[i - 1].strip() and i - 1 not in consumed:
            i -= 1
        if i in starts or i in consumed:
            continue
        ind, body = content(lines[i], comment=lines[i].lstrip().startswith("#"))
        if not re.match(r"[A-Z][\w'\u2019-]+,\s+(?:[A-Z]\.\s*)+[\"\u201c]", body):
            continue
        j, text = i, body
        while j + 1 < len(lines) and j + 1 - i < 4 and lines[j + 1].strip() and (
                j + 1 not in consumed) and '"""' not in lines[j + 1]:
            j += 1
            text += " " + content(lines[j], comment=lines[j].lstrip().startswith("#"))[1]
        if j < y or not re.search(r"[\"\u201c][^\"\u201d]{10,}[\"\u201d]", text):
            continue
        starts.add(i)
        out.append(Entry(i, j, text, None, i, True, ind, content(lines[j])[1]))
    return out


_FOOTNOTE = re.compile(r"^\.\.\s+\[(?P<l>[^\]]+)\]\s+(?P<t>\S.*)$")


def footnote_entries(lines: list[str], consumed: set[int]) -> list[Entry]:
    """Sphinx citation targets outside a References section (``.. [1] https://...`` under
    *Notes*) whose label the text cites (``[1]_``): each is an entry, with the lines indented
    under it. A target nobody cites is left to the prose rules."""
    out: list[Entry] = []
    cited: set[str] | None = None
    for i, line in enumerate(lines):
        if i in consumed or ".. [" not in line:
            continue
        ind, body = content(line)
        m = _FOOTNOTE.match(body)
        if m is None:
            continue
        if cited is None:
            cited = set(re.findall(r"\[([^\]\s]+)\]_", "\n".join(lines)))
        if m.group("l") not in cited:
            continue
        entry = Entry(i, i, m.group("t").strip(), m.group("l"), i, True, ind, body)
        j = i + 1
        while j < len(lines) and j not in consumed:
            more_ind, more = content(lines[j])
            more = re.split(r"\"\"\"|\'\'\'", more)[0].rstrip()
            if not more or more_ind <= ind:
                break
            entry.text += " " + more
            entry.last, entry.tail = j, more
            j += 1
        out.append(entry)
    return out


_BRACKET = re.compile(r"^\[(?P<l>\d{1,3})\]\s+(?P<t>(?:[A-Z\"\u201c]|https?://).*)$")


def bracket_entries(lines: list[str], consumed: set[int]) -> list[Entry]:
    """A numbered list ``[1] Kahn, A. B. (1962), ...`` / ``[2] https://...`` without a
    References heading (IEEE-like, often at the end of a docstring) whose labels the text
    cites (``by Kahn [1]``): each item is an entry, with the lines under it up to a blank
    line or the next item. Uncited lists (outputs, enumerations) and items with no year or
    link on their first two lines (``[1] Explicit form where ...``: a numbered list of
    cases) are left alone."""
    out: list[Entry] = []
    cited: set[str] | None = None
    for i, line in enumerate(lines):
        if i in consumed or not line.lstrip().startswith("["):
            continue
        ind, body = content(line, comment=line.lstrip().startswith("#"))
        m = _BRACKET.match(body)
        if m is None:
            continue
        if cited is None:
            cited = set(re.findall(r"(?<=[\w,.)] )\[(\d{1,3})\](?!_)",
                                   "\n".join(ln for ln in lines if not _BRACKET.match(
                                       content(ln, comment=True)[1]))))
        if m.group("l") not in cited or (not re.search(
                r"(?:19|20)\d{2}|https?://|\bdoi\b|arxiv|10\.\d{4}", body, re.IGNORECASE) and not (
                _year_below(lines, i))):
            continue
        text = re.split(r"\"\"\"|\'\'\'", m.group("t"))[0].strip()
        entry = Entry(i, i, text, m.group("l"), i, True, ind, body)
        j = i + 1
        while j < len(lines) and j not in consumed and '"""' not in body:
            more_ind, more = content(lines[j], comment=line.lstrip().startswith("#"))
            stop = re.search(r"\"\"\"|\'\'\'", more)
            more = more[:stop.start()].rstrip() if stop else more
            if not more or more_ind < ind or _BRACKET.match(more) or END.match(more):
                break
            entry.text += " " + more
            entry.last, entry.tail = j, more
            j += 1
            if stop:
                break
        out.append(entry)
    return out


def _year_below(lines: list[str], i: int) -> bool:
    """Whether the two lines after an item's first line hold a year or a link (a wrapped
    citation: ``[1] R. Portugal "Title",`` / ``J. Phys. A 32 (1999) 7779-7789``)."""
    nxt = " ".join(line for line in lines[i + 1:i + 3] if line.strip())
    return bool(re.search(r"(?:19|20)\d{2}|https?://|\bdoi\b|arxiv|10\.\d{4}", nxt,
                          re.IGNORECASE))
