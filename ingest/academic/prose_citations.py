"""Citations written in running prose, outside any References section (issue 22).

Three shapes a reader takes for references although no bibliography lists them:

- **pointer links**: a link that a sentence starts by pointing the reader to — ``See:
  <url>``, ``Ref: <url>``, ``See <url> for more details``, ``For details, see : <url>``,
  ``(documented at <url>)`` — is a reference to what it links (a format's definition, a
  standard, a manual). ``See also: <url>`` is a cross-reference to related pages, and a
  ``see`` inside a clause (``For all possible values, see <url>``) a pointer to a list,
  not to a work. A site's or a project's home page (``host/``, ``host/name/``) is no
  work. Links to licences, issue trackers, pull requests, commits, source files, gists,
  mailing lists, Q&A threads, code hosts, installation, download, FAQ and changelog pages
  and Wikipedia or its sister wikis (Wikibooks, Wiktionary, ...) are not references however
  they are introduced (a discussion, code, or an encyclopedia page in prose: as for any
  prose link).
  Links listed under a label naming documentation (``Feature Table Documentation:`` then
  ``- <url>`` items, or ``- User guide: <url>``) are pointed to the same way. A pointer's
  work is a standard when its sentence names one, a manual when it names documentation.
- **named links**: a reST link whose text names a standard or specification
  (```FITS Standard <url>`_``, ```Standards for Astronomical Catalogues 2.0 <url>`_``),
  or whose text is a citation (a quoted title and a year). The text of a reST or Textile
  (``"text":url``) link is the title of the work it links when it is a title (two words or
  more, no author-year).
- **author-year mentions**: ``See eq. 21 in Scargle (2013)``, ``the Dehnen & Binney (1998)
  measurements``, ``(Bertin & Arnouts 1996, A&A Supp. 317, 393.)``. A mention is *not* a
  reference of its own when it only keys into one the same docstring lists or links: it is
  followed by a citation label (``Baluev (2008) [1]_``, ``Wang et al. (2014) [#w]_``), or
  another reference of the same year is found within :data:`NEARBY` lines (``Rocke and
  Woodroff (1996)`` above its References entry, ``Lupton et al. (2004)`` above its ADS
  link), or one of the same year whose text names the mention's first author farther away
  in the docstring (``(Cressie and Read, 1984)`` in the summary). Inside parentheses a
  mention may follow a semicolon (``(MCD; Rousseeuw, 1984; ...; Hubert et al., 2008)``).
  A possessive names a
  method after its authors (``Davidson and MacKinnon (1993)'s test``), as "the method of X"
  does: no reference; nor is a year after a title-case phrase (``Signal Processing (1995)``,
  a venue or a title) or a publisher. Copyright lines and code (string literals of code,
  assignments) are no citations.

Pure functions over lines, called by :func:`ingest.academic.references.find_references`.
"""

from __future__ import annotations

import re

__all__ = ["NEARBY", "author_year_mentions", "before_link", "cited_link_text", "labelled_link",
           "link_text", "names_standard", "pointer_link", "pointer_work", "title_of_link_text",
           "without_link_text"]

#: how far (lines) a reference of the same year may be for a mention to be its in-text cite
NEARBY = 15

#: the cue right before a pointer link, starting a sentence (a capital ``See``/``Ref``, ``See
#: Author,``, ``See the "Tab files" section at``, ``For documentation about X, see``) or a
#: parenthesis (``(see <url>)``); ``see`` inside a sentence only after "for (more) details,"
#: or "for documentation ...," (not "For all possible values, see": a list);
#: "documented/defined/specified/described at|in|by|here" and "can/may be found at|in"
#: anywhere
_POINTER = re.compile(
    r"(?:(?:^|[.;:]\s+|\(\s*)(?:(?i:for\s+(?:more\s+)?details|more\s+(?:details|information))"
    r"\s*,?\s*(?i:see)|(?i:see)(?<=\(see)|(?i:for\s+(?:the\s+)?documentation)\b[^.;:,]{0,60},?"
    r"\s+(?i:see)|See\s+(?:the\s+)?[^.;:]{0,50}?\s+(?:section|chapter|page|specification)\s+"
    r"(?:at|in|on)|See(?:\s+(?:[A-Z][\w.'-]*\s+){0,3}[A-Z][\w'-]*,|(?!\s+[Aa]lso\b)(?:\s+[\w'-]+){1,3}\s*:)?|"
    r"Refs?|References?|"
    r"Cf\.|cf\.)|"
    r"\b(?:defined|documented|specified|described)\s+(?:at|in|by|here|there)|"
    r"\b(?:can|may)\s+be\s+found\s+(?:at|in|here)(?:\s+the)?)"
    r"\s*:?\s*[(<]?$")
#: links to discussions and code, never works: issues, pulls, commits, sources, gists, lists
_NOT_WORK = re.compile(
    r"/(?:issues?|pulls?|commits?|compare|blob|tree|raw|tickets?|bugs?|show_bug\.cgi|"
    r"pipermail|archives?/html|mailman|discuss(?:ions?)?|forums?)(?:/|\b)|//(?:gist|bugs|mail|lists|"
    r"discuss|forum|groups)\.|stackoverflow\.com|stackexchange\.com|/questions/|"
    r"wiki(?:pedia|books|versity|source|voyage|news|quote|data)\.org|wiktionary\.org|"
    r"github\.com|gitlab\.com|bitbucket\.org|sourceforge\.net|/licen[cs]es?\b|"
    r"[/#](?:install(?:ation|ing)?|downloads?(?!/pdf)|faq|contributing|changelog|"
    r"release-?notes|news)"
    r"\d*(?:[/.#?]|$)",
    re.IGNORECASE)
#: a standard named with a capital (a name), or "the X standard." ending a phrase
_STANDARD_WORDS = re.compile(r"(?-i:\bStandards?\b|\bSpecification\b|\bRecommendation\b)|"
                             r"\bstandard\b(?=\s*(?:[.,;:)]|$))")
_STANDARD_PATH = re.compile(r"standard|specification|/spec/|/specs/", re.IGNORECASE)


def pointer_link(before: str, url: str) -> bool:
    """Whether a link whose line reads ``before`` up to it is pointed to as a work."""
    path = url.split("//", 1)[-1].partition("/")[2]
    if (re.fullmatch(r"(?:[^/?#]+/)?", path) and not _STANDARD_PATH.search(path)) or (
            _NOT_WORK.search(url)):
        return False  # a site's or a project's home page (``host/``, ``host/genepop/``)
    before = _LINK_CHAIN.sub("", before.rstrip())  # "see `A <url>`_ and" + `B <url>`_
    return len(before) < 200 and bool(_POINTER.search(before.rstrip()))  # prose is wrapped


#: links listed one after another after one pointer: ```A <url>`_ and``, ```A <url>`_,``
_LINK_CHAIN = re.compile(r"(?:`[^`]*`_{0,2}\s*(?:,|\band\b|\bor\b)\s*)+$")


def names_standard(text: str) -> bool:
    """Whether ``text`` (a link's text, the sentence before a link) names a standard."""
    return bool(_STANDARD_WORDS.search(text))


def pointer_work(context: str, url: str, default: str) -> str:
    """Type of work of a pointer link: a standard when its context or path says so, a
    manual when its context names documentation (``See the online documentation ...:``,
    ``User guide: <url>``), else what its URL says (``default``)."""
    path = url.split("//", 1)[-1].partition("/")[2]
    if names_standard(context) or _STANDARD_PATH.search(path):
        return "standard"
    if default != "standard" and _MANUAL_WORDS.search(context):
        return "manual"  # a standards body's document stays a standard
    return default


_MANUAL_WORDS = re.compile(r"\b(?:documentation|documented|manual|user'?s?\s+guide|"
                           r"reference\s+guide)\b", re.IGNORECASE)


_LINK_OPEN = re.compile(r"`([^`<>]*?)\s*<?$")


_TEXTILE = re.compile(r"\"([^\"]{3,120})\":$")


def link_text(lines: list[str], i: int, col: int) -> str | None:
    """The text of the link whose URL starts at column ``col`` of line ``i``: a reST link
    ```text <url>`_`` (its text may start up to four lines above) or a Textile link
    ``"text":url``; None if the URL is not such a link."""
    before = lines[i][:col]
    if m := _TEXTILE.search(before):
        return m.group(1).strip() or None
    if not before.rstrip().endswith("<") or not re.match(r"[^\s<>`]*>`(?:_|[\s.,;:)]|$)",
                                                          lines[i][col:]):
        return None  # "<url>" alone is no reST link
    head = before.rstrip()[:-1]
    j = i
    while "`" not in head and j > 0 and i - j < 4:
        j -= 1
        head = lines[j].strip() + " " + head.strip()
    m = _LINK_OPEN.search(head)
    if m is None:
        return None
    return re.sub(r"\s+", " ", m.group(1)).strip() or None


def before_link(lines: list[str], i: int, col: int) -> str | None:
    """The prose before the opening backtick of the reST link whose URL starts at ``col`` of
    line ``i`` (the link text may span up to four lines); None if it is no such link."""
    if link_text(lines, i, col) is None or not lines[i][:col].rstrip().endswith("<"):
        return None
    head = lines[i][:col]
    j = i
    while "`" not in head and j > 0 and i - j < 4:
        j -= 1
        head = lines[j].strip() + " " + head.strip()
    before = head[:head.rfind("`")].strip()
    if len(before.split()) < 4 and j > 0:  # "... can be found\n in the `Docs"
        before = f"{lines[j - 1].strip()} {before}"
    return before


def without_link_text(before: str) -> str:
    """``before`` without the opening of a link whose URL follows (```text <``, ``"text":``),
    so that what points to the link can be read: ``See "ASTRAL RAF Sequence Maps":``."""
    before = _TEXTILE.sub("", before.rstrip())
    return re.sub(r"`[^`]*<?$", "", before)


#: a label naming documentation: the link it introduces (``User guide: <url>``), or the list
#: of links under it (``Feature Table Documentation:``), points to works
_DOC_LABEL = re.compile(r"\b(?:documentation|documented|manuals?|user'?s?\s+guides?|"
                        r"reference\s+guides?|specifications?|standards?)\b", re.IGNORECASE)


def labelled_link(lines: list[str], i: int, col: int) -> bool:
    """Whether the link at ``col`` of line ``i`` is an item of a list of links labelled as
    documentation (``- User guide: <url>``, or a ``- <url>`` under ``Feature Table
    Documentation:``)."""
    item = re.match(r"\s*(?:#\s*)?[-*\u2022]\s+(?P<label>[^:]{0,40}:)?\s*$", lines[i][:col])
    if item is None:
        return False
    if item.group("label"):
        return bool(_DOC_LABEL.search(item.group("label")))
    j = i - 1
    while j >= 0 and i - j <= 12:
        body = lines[j].strip().lstrip("#").strip()
        if body and not re.match(r"[-*\u2022]\s", body):
            return body.endswith(":") and bool(_DOC_LABEL.search(body))
        j -= 1
    return False


def cited_link_text(text: str | None) -> bool:
    """Whether a link's text is itself a citation: a quoted title and a year
    (````''Title,'' Authors, Book, IOS Press, 1994, pp. 9-30 <url>`_``)."""
    return bool(text and _QUOTED.search(text) and re.search(r"\b(?:19|20)\d{2}\b", text))


_QUOTED = re.compile(r"(?:''|\"|\u201c)[^'\"\u201d]{10,}(?:''|\"|\u201d)")


def title_of_link_text(text: str | None) -> str | None:
    """A link's text as the title of the work: two words or more, not an author-year
    (``Greisen & Calabretta 2002, A&A, 395, 1061``) nor a bare host or label."""
    if not text or len(re.findall(r"[A-Za-z]{2,}", text)) < 2:
        return None
    if re.search(r"\b(?:19|20)\d{2}\b", text) or re.search(r"\.\w{2,4}(?:/|$)", text):
        return None
    return text


#: ``Surname (2013)``, ``Surname & Other (1998)``, ``Surname et al. (2004)``, and the
#: parenthesised ``(Surname & Other 1996, ...)``, also after a semicolon inside the
#: parentheses (``(MCD; Rousseeuw, 1984; ...; Hubert et al., 2008)``)
_NAME = r"[A-Z][a-z][\w'\u2019-]*"
_AUTHORS = rf"{_NAME}(?:\s+(?:&|and)\s+{_NAME}|\s+et\s+al\.?)?"
_MENTION = re.compile(
    rf"(?<![\w.])(?P<a>{_AUTHORS})\s+\((?P<y>(?:19|20)\d{{2}})[a-z]?\)"
    rf"|(?:\(|;\s+)(?P<b>{_AUTHORS}),?\s+(?P<z>(?:19|20)\d{{2}})[a-z]?(?=[,;)])")
#: capitalised words that precede a year in parentheses without being authors
_NOT_AUTHOR = re.compile(
    r"(?:The|In|See|Since|Version|Release|Python|Copyright|Updated|Revised|Added|Changed|"
    r"January|February|March|April|May|June|July|August|September|October|November|"
    r"December|Spring|Summer|Autumn|Fall|Winter|Note|Notes|Edition|Draft|Standard|Dover|"
    r"Springer|Wiley|Verlag|Press|Elsevier|Society|Journal|Proceedings)\b")
#: sentence-leading words before a mention that are not part of a name (``Following
#: MacKinnon (1996)``)
_LEAD_WORD = re.compile(r"Following|Unlike|Like|After|Before|Per|Using|From|As|By|"
                        r"Cf|Then|Also|Both|And|Or|Contrary|According")
#: after a mention: a label into a bibliography (``[1]_``), or a possessive naming a method
#: after its authors (``Davidson and MacKinnon (1993)'s test``, as "the method of X")
_LABEL_AFTER = re.compile(r"\s*(?:\[#?[\w.-]{0,20}\]_?|\[\d+(?:,\s*\d+)*\])|['\u2019]s\b")


def author_year_mentions(lines: list[str], skip: set[int],
                         candidates: set[int]) -> list[tuple[int, int, int, str]]:
    """(line index, column, year, text) of each author-year mention in prose (the mention
    may wrap onto the next line) on the ``candidates`` lines; lines in ``skip`` (section
    entries) are not read."""
    out: list[tuple[int, int, int, str]] = []
    for i in sorted(candidates - skip):
        line = lines[i] if 0 <= i < len(lines) else ""
        if "(" not in line and ";" not in line:
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
            prev = re.search(r"([A-Z][\w'-]*)[,:]?\s+$", joined[:m.start()])
            if m.group("a") and prev and not _LEAD_WORD.fullmatch(prev.group(1)):
                continue  # "Signal Processing (1995)": the end of a title-case name or venue
            year = int(m.group("y") or m.group("z"))
            out.append((i, m.start(), year, m.group(0).strip("( ")))
    return out
