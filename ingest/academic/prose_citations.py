"""Citations written in running prose, outside any References section (issue 22).

Three shapes a reader takes for references although no bibliography lists them:

- **pointer links**: a link that a sentence starts by pointing the reader to — ``See:
  <url>``, ``Ref: <url>``, ``See <url> for more details``, ``For details, see : <url>``,
  ``(documented at <url>)`` — is a reference to what it links (a format's definition, a
  standard, a manual). ``See also: <url>`` is a cross-reference to related pages, and a
  ``see`` inside a clause (``For all possible values, see <url>``) a pointer to a list,
  not to a work. A site's home page is no work. Links to licences, issue trackers, pull
  requests, commits, source files, gists, mailing lists, Q&A threads, code hosts,
  installation, download, FAQ and changelog pages and Wikipedia are not references however
  they are introduced (a discussion, code, or an encyclopedia page in prose: as for any
  prose link).
- **named links**: a reST link whose text names a standard or specification
  (```FITS Standard <url>`_``, ```Standards for Astronomical Catalogues 2.0 <url>`_``).
  The text of a reST link is the title of the work it links when it is a title (two words
  or more, no author-year).
- **author-year mentions**: ``See eq. 21 in Scargle (2013)``, ``the Dehnen & Binney (1998)
  measurements``, ``(Bertin & Arnouts 1996, A&A Supp. 317, 393.)``. A mention is *not* a
  reference of its own when it only keys into one the same docstring lists or links: it is
  followed by a citation label (``Baluev (2008) [1]_``), or another reference of the same
  year is found within :data:`NEARBY` lines (``Rocke and Woodroff (1996)`` above its
  References entry, ``Lupton et al. (2004)`` above its ADS link). A possessive names a
  method after its authors (``Davidson and MacKinnon (1993)'s test``), as "the method of X"
  does: no reference; nor is a year after a title-case phrase (``Signal Processing (1995)``,
  a venue or a title) or a publisher. Copyright lines and code (string literals of code,
  assignments) are no citations.

Pure functions over lines, called by :func:`ingest.academic.references.find_references`.
"""

from __future__ import annotations

import re

__all__ = ["NEARBY", "author_year_mentions", "link_text", "names_standard", "pointer_link",
           "pointer_work", "title_of_link_text"]

#: how far (lines) a reference of the same year may be for a mention to be its in-text cite
NEARBY = 15

#: the cue right before a pointer link, starting a sentence (a capital ``See``/``Ref``) or a
#: parenthesis; ``see`` inside a sentence only after "for (more) details,"
_POINTER = re.compile(
    r"(?:^|[.;:]\s+|\(\s*)(?:(?i:for\s+(?:more\s+)?details|more\s+(?:details|information))"
    r"\s*,?\s*(?i:see)|See|Refs?|References?|Cf\.|cf\.|"
    r"(?:defined|documented|specified|described)\s+(?:at|in|by|here))\s*:?\s*[(<]?$")
#: links to discussions and code, never works: issues, pulls, commits, sources, gists, lists
_NOT_WORK = re.compile(
    r"/(?:issues?|pulls?|commits?|compare|blob|tree|raw|tickets?|bugs?|show_bug\.cgi|"
    r"pipermail|archives?/html|mailman|discussions?)(?:/|\b)|//(?:gist|bugs|mail|lists|"
    r"discuss|forum|groups)\.|stackoverflow\.com|stackexchange\.com|/questions/|"
    r"wikipedia\.org|github\.com|gitlab\.com|bitbucket\.org|sourceforge\.net|/licen[cs]es?\b|"
    r"/(?:install(?:ation|ing)?|downloads?|faq|contributing|changelog|release-?notes|news)"
    r"(?:[/.#?]|$)",
    re.IGNORECASE)
#: a standard named with a capital (a name), or "the X standard." ending a phrase
_STANDARD_WORDS = re.compile(r"(?-i:\bStandards?\b|\bSpecification\b|\bRecommendation\b)|"
                             r"\bstandard\b(?=\s*(?:[.,;:)]|$))")
_STANDARD_PATH = re.compile(r"standard|specification|/spec/|/specs/", re.IGNORECASE)


def pointer_link(before: str, url: str) -> bool:
    """Whether a link whose line reads ``before`` up to it is pointed to as a work."""
    path = url.split("//", 1)[-1].partition("/")[2]
    if not path.strip("/") or _NOT_WORK.search(url):
        return False  # a site's home page is no work
    return bool(_POINTER.search(before.rstrip()))


def names_standard(text: str) -> bool:
    """Whether ``text`` (a link's text, the sentence before a link) names a standard."""
    return bool(_STANDARD_WORDS.search(text))


def pointer_work(context: str, url: str, default: str) -> str:
    """Type of work of a pointer link: a standard when its context or path says so, else
    what its URL says (``default``)."""
    path = url.split("//", 1)[-1].partition("/")[2]
    if names_standard(context) or _STANDARD_PATH.search(path):
        return "standard"
    return default


_LINK_OPEN = re.compile(r"`([^`<>]*?)\s*<?$")


def link_text(lines: list[str], i: int, col: int) -> str | None:
    """The text of the reST link ```text <url>`_`` whose URL starts at column ``col`` of line
    ``i`` (the text may start on the line before); None if the URL is not such a link."""
    before = lines[i][:col]
    if not before.rstrip().endswith("<"):
        return None
    head = before.rstrip()[:-1]
    if "`" not in head and i > 0:
        head = lines[i - 1].strip() + " " + head.strip()
    m = _LINK_OPEN.search(head)
    if m is None:
        return None
    return re.sub(r"\s+", " ", m.group(1)).strip() or None


def title_of_link_text(text: str | None) -> str | None:
    """A link's text as the title of the work: two words or more, not an author-year
    (``Greisen & Calabretta 2002, A&A, 395, 1061``) nor a bare host or label."""
    if not text or len(re.findall(r"[A-Za-z]{2,}", text)) < 2:
        return None
    if re.search(r"\b(?:19|20)\d{2}\b", text) or re.search(r"\.\w{2,4}(?:/|$)", text):
        return None
    return text


#: ``Surname (2013)``, ``Surname & Other (1998)``, ``Surname et al. (2004)``, and the
#: parenthesised ``(Surname & Other 1996, ...)``
_NAME = r"[A-Z][a-z][\w'\u2019-]*"
_AUTHORS = rf"{_NAME}(?:\s+(?:&|and)\s+{_NAME}|\s+et\s+al\.?)?"
_MENTION = re.compile(
    rf"(?<![\w.])(?P<a>{_AUTHORS})\s+\((?P<y>(?:19|20)\d{{2}})[a-z]?\)"
    rf"|\((?P<b>{_AUTHORS}),?\s+(?P<z>(?:19|20)\d{{2}})[a-z]?(?=[,;)])")
#: capitalised words that precede a year in parentheses without being authors
_NOT_AUTHOR = re.compile(
    r"(?:The|In|See|Since|Version|Release|Python|Copyright|Updated|Revised|Added|Changed|"
    r"January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Spring|Summer|Autumn|Fall|Winter|Note|Notes|Edition|Draft|Standard|Dover|"
    r"Springer|Wiley|Verlag|Press|Elsevier|Society|Journal|Proceedings)\b")
#: after a mention: a label into a bibliography (``[1]_``), or a possessive naming a method
#: after its authors (``Davidson and MacKinnon (1993)'s test``, as "the method of X")
_LABEL_AFTER = re.compile(r"\s*(?:\[[\w.-]{1,20}\]_?|\[\d+(?:,\s*\d+)*\])|['\u2019]s\b")


def author_year_mentions(lines: list[str], skip: set[int],
                         candidates: set[int]) -> list[tuple[int, int, int, str]]:
    """(line index, column, year, text) of each author-year mention in prose (the mention
    may wrap onto the next line) on the ``candidates`` lines; lines in ``skip`` (section
    entries) are not read."""
    out: list[tuple[int, int, int, str]] = []
    for i in sorted(candidates - skip):
        line = lines[i] if 0 <= i < len(lines) else ""
        if "(" not in line:
            continue
        if re.search(r"copyright|\(c\)|>>>|\blicen[cs]e", line, re.IGNORECASE):
            continue
        nxt = lines[i + 1].strip() if i + 1 < len(lines) and i + 1 not in skip else ""
        joined = line + " " + nxt
        for m in _MENTION.finditer(joined):
            if m.start() >= len(line):
                break
            authors = m.group("a") or m.group("b")
            if _NOT_AUTHOR.match(authors) or _LABEL_AFTER.match(joined[m.end():]):
                continue
            if m.group("a") and re.search(r"[A-Z][\w'-]*[,:]?\s+$", joined[:m.start()]):
                continue  # "Signal Processing (1995)": the end of a title-case name or venue
            year = int(m.group("y") or m.group("z"))
            out.append((i, m.start(), year, m.group(0).strip("( ")))
    return out
