"""Title, year and type of work of one free-text citation (a References entry, issue 22).

``parse_citation(text, url=...)`` reads the common styles people write in docstrings and docs:

- author-year (APA/Harvard): ``Vasicek, O. (1976). A test for normality. J. ...``,
  ``Brockwell, P.J. and Davis, R.A. 2016. Introduction to Time Series. Springer.``;
- quoted titles (Chicago/IEEE/MLA): ``Kaplan, E. L. "Nonparametric estimation ..." JASA``,
  also with typographic quotes, ````...''``, ``*...*`` and backticks; an opening quote never
  closed still starts the title;
- comma-separated (``L. Hubert and P. Arabie, Comparing Partitions, J. Classif. 1985``) and
  sentence-separated (``P. J. Rousseeuw. Least median of squares regression. J. ...``);
- title first (``Normalized cuts and image segmentation, 2000 Jianbo Shi ...``,
  ``A Fast Algorithm for ..., 1999, TECHNOMETRICS``, ``Logrank test, Wikipedia, <url>``).

The author block is recognised by its shape (initials, capitalised names, ``and``/``&``/
``et al.``); a quoted phrase counts as the title only where the title is expected (at the
start, or right after the authors and year), so a phrase quoted inside a title is not taken
for it. An edition (``6th Ed``), a year in parentheses at the end, a trailing acronym venue
(``, JMLR``) and notes such as ``(Preliminary version at arXiv.)`` are not part of the title.

A bare link's title is the one its URL carries (a wiki's ``/wiki/Page_title``, a ResearchGate
``/publication/N_Title_words``); a label before it (``Wikipedia page: <url>``) is no title.
A comma segment naming a publisher ends a title; astronomy's ``Authors 1969, ApJ, 156L, 7B``
has none.

A standard's designation (``IEEE Std 754-2008, IEEE Standard for ...``) is no part of its
title, and gives the year when the text writes none other (``IEEE 370-2020``); a closing quote
whose opening was lost (``Title", IEEE 370-2020``) ends a title-first title. A vendor's
application note (``Agilent <Title> Application Note 1287-12``) is a manual whose title is
written between the vendor and the note's number.

Type of work (:data:`WORKS`): ``rfc``, ``standard`` (ISO/IEC, IEEE Std, ANSI, FIPS, NIST SP,
ECMA), ``manual`` (manual, user's guide, documentation, "PASS Chapter N", application
notes), ``software``
(package, software, toolbox, version N), ``web`` (Wikipedia, a non-scholarly HTML page),
``book`` (a publisher, an edition, a series, or a title with nothing after it but the year),
else ``paper`` (a journal, pages, a volume, a DOI, a PDF).

Hand-written: the maintained parsers are services or other languages (GROBID: Java,
AnyStyle: Ruby) or target another domain (``refextract`` reads high-energy-physics reference
strings against journal knowledge bases and returns no title for free-form entries, and needs
PDF and libmagic dependencies). Measured by ``benchmarks/references_quality.py --wheels``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

__all__ = ["WORKS", "Citation", "classify_work", "parse_citation"]

WORKS = ("paper", "book", "rfc", "standard", "manual", "software", "web")

#: A citation's title, year and venue are in its first lines: longer text (a References
#: section read as one entry, a table of digits) is read up to here, because several of
#: the hand-written patterns below backtrack quadratically on long runs (seconds at 16 KB).
MAX_CITATION_CHARS = 2000


@dataclass(frozen=True)
class Citation:
    """What a citation's text says about the work."""

    title: str | None
    year: int | None
    work: str


_YEAR = re.compile(r"(?<![\w./-])(?:19|20)\d{2}(?![\w/-]|\.\d)")
_PAREN_YEAR = re.compile(r"\((?P<y>(?:19|20)\d{2})[a-z]?(?:[,;][^)]{0,30})?\)")
_URLISH = re.compile(r"(?:https?://|www\.)\S+|\b(?:doi:\s*)?10\.\d{4,9}/\S+|"
                     r"\bRFC[ -]?\d+\b|\barxiv:\s*\S+", re.IGNORECASE)
_WIKI = re.compile(r"\bWikipedia\s+(?:entry|article|page)\s+(?:for|on)\s+(?:the\s+)?|"
                   r"\bWikipedia\s*:\s*|,?\s*\bon\s+Wikipedia\b|,\s*Wikipedia\b|^\s*Wikipedia\s*,",
                   re.IGNORECASE)  # "Wikipedia, <url>": the site, not the title
_QUOTES = (("\u201c", "\u201d"), ('"', '"'), ("``", "''"), ("''", "''"), ("*", "*"), ("`", "`"))
_INITIAL = re.compile(r"^(?:[A-Z]\.(?:-?[A-Z]\.)*|[A-Z]{1,2})[,.;]?$")
_NAME = re.compile(r"^[A-Z\u00c0-\u00de][\w'\u2019\u00e0-\u00ff-]*[,.;]?$")
_CONNECT = {"and", "&", "et", "et.", "al", "al.", "al.,", "al,", "von", "van", "der", "de", "la",
            "di", "du", "jr.", "jr", "jr.,"}
_EDITION = re.compile(r",?\s*(?<!\d)\d+(?:st|nd|rd|th)\s+(?:Ed|ed|Edition|edition)\.?.*$")
_NOTE = re.compile(r"\s*\((?:[^()]*\b(?:version|preprint|arxiv|draft|in press)\b[^()]*)\)",
                   re.IGNORECASE)

_STANDARD = re.compile(r"\bISO(?:/IEC)?\s*\d|\bIEEE\s+Std\b|\bANSI\b|\bFIPS\b|\bNIST\s+SP\b|"
                       r"\bECMA-\d|(?-i:\bStandard\b)", re.IGNORECASE)
_MANUAL = re.compile(r"\bmanual\b|\buser'?s\s+guide\b|\breference\s+guide\b|"
                     r"\bdocumentation\b|\bPASS\s+Chapter\b|:(?:doc|ref):`|"
                     r"\bapp(?:lication|\.)?\s+note\b", re.IGNORECASE)
_SOFTWARE = re.compile(r"\bsoftware\b|\bR\s+package\b|\bPython\s+package\b|\btoolbox\b|"
                       r"\bversion\s+\d|\bCRAN\b|github\.com|gitlab\.com|sourceforge\.net",
                       re.IGNORECASE)
_WEB = re.compile(r"wikipedia", re.IGNORECASE)
_JOURNAL = re.compile(
    r"\bjournal\b|\bJ\.(?!-?[A-Z]\.|,|\s+[A-Z][\w'-]+,)|\bproc(?:eedings|\.)|\bconference\b|\btrans(?:actions|\.)|\brev\.|"
    r"\breview\b|\bletters\b|\bannals\b|\bann\.|\bbulletin\b|\bmetrika\b|\bbiometrika\b|"
    r"\btechnometrics\b|\bpsychometrika\b|\bcommunications\b|\bPLoS\b|\bBMJ\b|"
    r"(?<!\d)\d+\s*\(\d+(?:-\d+)?\)|\b\d+:\d+|\bpp\.|\bpages\b|(?<!\d)\d+\s*[-\u2013]\s*\d+|"
    r"\bworkshop\b|\bsymposium\b|(?-i:\b(?:ICML|NeurIPS|NIPS|ICLR|ECML|PKDD|KDD|CVPR|ICCV|ECCV|"
    r"AAAI|IJCAI|AISTATS|UAI|COLT|SIGGRAPH|EMNLP|NAACL|ISMIR|ICASSP|WHISPERS)\b)",
    re.IGNORECASE)
_PUBLISHER = re.compile(
    r"\bSpringer\b|\bWiley\b|\bPress\b|\bChapman\b|\bCRC\b|\bAddison|\bPrentice|\bMcGraw|"
    r"\bHodge\b|\bO'Reilly\b|\bSons\b|\bDover\b|\bPublish(?:ing|ers)\b|\bVerlag\b|\bedition\b|"
    r"(?<!\d)\d+(?:st|nd|rd|th)\s+ed\b|\bseries\s+in\b|\bbook\b", re.IGNORECASE)
_SCHOLARLY_URL = re.compile(r"\.pdf\b|doi|arxiv|jstatsoft|aclweb|jmlr|acm\.org|ieee\.org|"
                            r"springer|sciencedirect|jstor|tandfonline|wiley|nature\.com|"
                            r"researchgate\.net/publication|adsabs\.harvard\.edu|projecteuclid|"
                            r"repec\.org|ssrn\.com|nber\.org/papers",
                            re.IGNORECASE)


def parse_citation(text: str, *, url: str | None = None, scheme: str = "citation") -> Citation:
    """Title, year and type of work of one citation's text (markup already removed)."""
    text = text[:MAX_CITATION_CHARS]
    bare = re.sub(r"<(?:https?://|www\.)[^<>]*>", " ", _ONLINE.sub(" ", text))  # <url>
    bare = _POINTER_INTO.sub("", _EDITOR_NOTE.sub("", bare))
    numbered = _DOC_NUMBER.match(bare)  # a committee's document: a standard (or its draft)
    bare = _DOC_NUMBER.sub("", bare)
    bare = _WIKI.sub(" ", _URLISH.sub(" ", bare))
    bare = re.sub(r"\s+", " ", bare).strip(" ,;")
    bare = _LEAD_IN.sub("", re.sub(r"(?<=[A-Z]\.)\s+,(?=\s)", ",", bare))  # "Logan, B. , H"
    if scheme == "url" and (re.fullmatch(r"(?:[A-Z]\w*\s+)?(?:page|image|link|web\s*site|site|"
                                         r"source|figure|illustration|entry|article)s?:",
                                         bare, re.IGNORECASE) or re.fullmatch(
            r"(?:from|see|source|via|at|available\s+at)\s*:?", bare, re.IGNORECASE)):
        bare = ""  # "Wikipedia page: <url>", "Illustration image: <url>", "From <url>": a label
    year = _year(bare)
    if _APP_NOTE.search(bare):  # "Agilent <Title> Application Note 1287-12": vendor, number
        bare = _VENDOR.sub("", _APP_NOTE.sub("", bare)).strip(" ,:;-")
    if (designated := _DESIGNATION.match(bare)) and len(bare[designated.end():].split()) >= 2:
        bare = bare[designated.end():]  # "IEEE Std 754-2008, IEEE Standard for ...": no title
    title, rest = _title(bare)
    if title is not None and (m := _VENUE.search(title) or re.search(
            r",\s*[A-Z]{2,}\.?\s*$", title)):  # ", ICML": a venue's acronym ends the title
        title, rest = title[:m.start()], title[m.start():] + " " + rest
    if title is not None and (_ASTRO_VENUE.fullmatch(title.strip(" .")) or (
            re.fullmatch(r"(?:[A-Z][a-z]{0,8}\.?){2,}", title.strip())
            and re.match(r"\s*\d", rest))):  # "Celest.Mech.Dyn.Astron. 94, 351"
        title, rest = None, ""
    if title is not None:
        title = _clean_title(title)
    if title is not None and _MANUAL.search(text):
        title = _manual_title(title)
    if not title and scheme == "url":
        title = _url_title(url)
    if numbered and scheme != "rfc":
        return Citation(title or None, year, "standard")
    return Citation(title or None, year, classify_work(
        text, url=url, scheme=scheme, after_title=rest if title else None, title=title))


def classify_work(text: str, *, url: str | None = None, scheme: str = "citation",
                  after_title: str | None = None, title: str | None = None) -> str:
    """One of :data:`WORKS` for a citation's text (and its URL or identifier scheme)."""
    text = text[:MAX_CITATION_CHARS]
    if scheme == "rfc":
        return "rfc"
    bare = _URLISH.sub(" ", text)
    venue = _POINTER.sub(" ", bare if after_title is None else after_title)
    if _STANDARD.search(bare) or ("specification" in bare and re.fullmatch(
            r"\W*+(?:\S+\s+){0,2}specification\W*", bare)):  # possessive: linear on "((((..."
        return "standard"  # also "Graph6 specification <url>": a format's specification
    if _MANUAL.search(bare):
        return "manual"
    published = title is not None and after_title is not None and _JOURNAL.search(after_title)
    software_text = bare.replace(title, " ") if published and title else bare
    if _SOFTWARE.search(re.sub(r"Journal of Statistical Software", "", software_text)) or re.search(
            r"github\.com|gitlab\.com|cran\.r-project\.org|pypi\.org|sourceforge\.net", text,
            re.IGNORECASE) or (url and _SOFTWARE_URL.search(url) and not _DOCS_URL.search(url)):
        return "software"
    if _WEB.search(text) or (url and "wikipedia.org" in url):
        return "web"
    if scheme in ("doi", "arxiv"):
        book = re.search(r"10\.\d{4,9}/97[89]|10\.1017/cbo|\b\d+(?:st|nd|rd|th)\s+ed\b", text,
                         re.IGNORECASE)
        return "book" if book else "paper"
    if url is not None and scheme == "url":
        if _ADS_BOOK.search(url):
            return "book"
        if _MANUAL_URL.search(url):
            return "manual"  # also a manual's PDF (".../documentation/.../lifetest.pdf")
        if _SCHOLARLY_URL.search(url):
            return "paper"
        if _STANDARD_URL.search(url):
            return "standard"
        if _CODE_URL.search(url):
            return "software"  # ".../resources/matlab/pvoc/": a researcher's code
        if _DOCS_URL.search(url) or after_title is None or not (
                _BOOK_PUBLISHER.search(venue) or _PUBLISHER.search(venue)
                or _JOURNAL.search(venue)):
            return "manual" if _DOCS_URL.search(url) else "web"
        # a title with a publisher or journal: the link is where the work is read online
    if _BOOK_PUBLISHER.search(venue) or _COLLECTED.search(venue):
        return "book"  # also a chapter in a handbook or a Festschrift
    if (_PUBLISHER.search(venue) or _CHAPTER.search(venue) or (
            title and _BOOK_TITLE.match(title))) and not _JOURNAL.search(_PAGES.sub(" ", venue)):
        return "book"  # "Prentice-Hall, 1999, pp. 468-471", "Chapter 15.2, p. 370-378"
    if after_title is not None and _PAGES.search(venue) and not re.search(
            r"[A-Za-z]{2,}", _PAGES.sub(" ", venue)):
        return "book"  # '"Title", p.p 176 - 184': pages of a book (a paper names its venue)
    if _JOURNAL.search(venue):
        return "paper"
    if _PUBLISHER.search(venue):
        return "book"
    if re.search(r"\b(?:section|chapter)\s+\d", venue, re.IGNORECASE):
        return "book"  # "Greene section 7.5.1": a part of a book
    if after_title is None:
        return "paper"  # "Chen and Wiesel 2011": most cited works are papers
    rest = re.sub(r"\b(?:pg|pp?|pages?)\b\.?\s*[\d.]+|[\W\d_]+", " ", venue).strip()
    return "paper" if rest else "book"


#: a lead-in sentence before the citation in the same entry: ``If you are interested in
#: learning more, we recommend the following open-access paper; Edwards JK, ...``
_LEAD_IN = re.compile(r"^[^.;:]{0,120}\b(?:following|recommend(?:ed)?)\b[^.;:]{0,60}[;:]\s+"
                      r"(?=[A-Z])", re.IGNORECASE)
#: a pointer into the work before it: ``Section 4.4.4 of the following book: <entry>``
_POINTER_INTO = re.compile(r"^(?:section|chapter|ch\.|sec\.)\s*[\d.]+\s+(?:of|in)\s+(?:the\s+)?"
                           r"(?:following\s+)?(?:book|paper|article)?\s*:?\s*", re.IGNORECASE)
#: an editor's or translator's note inside the author block: ``Hirsch (Eng. trans. Ed.),``,
#: APA's ``(Ed.)``/``(Eds.)``
_EDITOR_NOTE = re.compile(r"\s*\((?=[^()]*\b(?:Eds?|ed|trans|transl|editors?|translators?)\b)"
                          r"[^()]{1,40}\)")
#: a standards committee's document number before the title (``J3/21-007: Draft Fortran
#: 202x``, ``WG14/N1570: ...``): a committee, a slash, a number with a dash or an N
_DOC_NUMBER = re.compile(r"^[A-Z][A-Z\d]*/(?:\d+-\d+|N\d+)[\w.-]*:\s+")
#: IEEE's markers of an online source: ``[online], Available:``
_ONLINE = re.compile(r"\[online\]|\bAvailable(?:\s+(?:at|from|online))?\s*:", re.IGNORECASE)
#: a chapter or section of a book (``Ch 7 in``, ``Chapter 15.2``)
_CHAPTER = re.compile(r"\b(?:ch(?:apter)?\.?|section)\s*\d+(?:\.\d+)*\b", re.IGNORECASE)
#: a collected volume a chapter appears in: a handbook, an encyclopedia, a companion, a
#: Festschrift (``The handbook of research synthesis 621 (1994): 231-244``, ``Studi in onore
#: del professore ...``)
_COLLECTED = re.compile(r"\b(?:handbook|encyclopa?edia|companion\s+to|festschrift)\b|"
                        r"\b(?:in\s+hono(?:u?r|ur)\s+of|in\s+onore|zu\s+Ehren|en\s+l'honneur)\b",
                        re.IGNORECASE)
#: titles that name a book
_BOOK_TITLE = re.compile(r"(?:An?\s+|The\s+)?(?:Introduction\s+to|Handbook|Textbook|"
                         r"Encyclopedia)\b|.*\bHandbook\b", re.IGNORECASE)
#: page ranges and counts, which books have as much as papers
_PAGES = re.compile(r"\b(?:pp?|pages?|pg)\.?\s*\d+(?:\s*[-\u2013]\s*\d+)?|"
                    r"(?<!\d)\d+\s*[-\u2013]\s*\d+")
_VENUE = re.compile(r"(?<=[a-z0-9)])\s+(?=(?:Proceedings\s+of|(?:International|Annual|"
                    r"European)\s+Conference|International\s+Journal|Conference\s+on|"
                    r"Advances\s+in\s+Neural|"
                    r"(?:IEEE|ACM)\s+Transactions|Journal\s+of\s+[A-Z])).*$|"
                    r",\s+[^,]*\b(?:Journal|Proceedings|Transactions|Review|Letters|Annals|"
                    r"Conference|Workshop|Symposium|Advances\s+in|"
                    r"Press|Publications|Publishers|Publishing|Verlag|Wiley|Springer|"
                    r"Elsevier|Dover|Birkh\u00e4user|Addison)\b.*$|,\s+Vol\.?(?:\s*(?:\d+|[IVX]+)\b.*)?$|"
                    r",\s+(?:from|in)\s+(?:the\s+)?[A-Z].*$")  # ", from Lecture notes in ..."
#: what follows the year in astronomy's style is the venue, not a title (``ApJ, 156L, 7B``)
_ASTRO_VENUE = re.compile(r"[A-Z][A-Za-z&.]{0,30},?\s*\d+[A-Z]?(?:,\s*|:)\d+[A-Z]?"
                          r"(?:[-\u2013]\d+)?(?:\s*\([^()]{1,30}\))?")
#: a publisher that only books have (checked before the journal cues: "ch. 12-13. Cambridge
#: Univ. Press" is a book although it has a page range)
_BOOK_PUBLISHER = re.compile(r"\b(?:Univ\.?|University)\s+(?:of\s+[A-Z][\w-]+\s+)?Press\b|"
                             r"\bPublications\b|\bPublishers\b|\bVerlag\b|"
                             r"\b[A-Z][\w ]+,\s+[A-Z]{2}:\s+[A-Z]|"  # Chicago "City, NJ: Publisher"
                             r"[,.]\s+(?:[A-Z][a-z]+\s+){0,2}[A-Z][a-z]+:\s+[A-Z][\w'\u2019-]+")
#   and "..., London: Her Majesty's Stationery Office", "New York: Dover"
#: a reader's pointer into the work (``(See Prop. 5.1.3)``), not part of its venue
_POINTER = re.compile(r"\((?:see|cf\.?)\s[^()]*\)", re.IGNORECASE)
#: pages whose URL names their title: MediaWiki (``/wiki/Page_title``) and ResearchGate
#: publications (``/publication/123_Title_words``)
_URL_TITLE = re.compile(r"/wiki/(?P<w>[^/#?]+)$|researchgate\.net/publication/\d+_(?P<r>[^/#?]+)$")
#: links to documentation (``docs.x.org``, ``x.readthedocs.io``, ``/doc/``, ``/docs/``)
_DOCS_URL = re.compile(r"//(?:docs?\.|reference\.|[^/]*\.readthedocs\.)|/docs?/|/refman|"
                       r"/documentation/|/help/|cran\.r-project\.org/(?:web/)?packages/[^/]+/[^/]+\.pdf|"
                       r"/pod/|/man/|/manual/",
                       re.IGNORECASE)
#: links that are manuals even as PDFs (a ``/doc/`` directory of a personal page is not)
_MANUAL_URL = re.compile(r"//[^/]*\.readthedocs\.|/documentation/|/manuals?/|/refman|"
                         r"/help/|cran\.r-project\.org/(?:web/)?packages/[^/]+/[^/]+\.pdf",
                         re.IGNORECASE)
#: an ADS bibcode of a book (``1980lssu.book.....P``)
_ADS_BOOK = re.compile(r"adsabs\.harvard\.edu/abs/\d{4}[\w&%]+\.book\.", re.IGNORECASE)
#: a package's page or manual in a software archive
#: (``cran.r-project.org/web/packages/pwr/pwr.pdf``)
_SOFTWARE_URL = re.compile(r"//(?:cran\.r-project\.org/(?:web/)?packages/|pypi\.org/project/)",
                           re.IGNORECASE)
#: pages of code: a directory named after a programming language or code
_CODE_URL = re.compile(r"/(?:matlab|octave|code|codes|src)/", re.IGNORECASE)
#: standards bodies' documents
_STANDARD_URL = re.compile(r"//(?:www\.)?(?:w3\.org/TR/|iso\.org|ecma-international\.org|"
                           r"pubs\.opengroup\.org/onlinepubs/|"
                           r"unicode\.org|[\w.]*whatwg\.org|tc39\.es|itu\.int|"
                           r"ivoa\.net/(?:documents|rdf)/)", re.IGNORECASE)


def _url_title(url: str | None) -> str | None:
    """The title a page's URL carries, when its site puts it there."""
    if url and (q := re.search(r"/index\.php\?(?:[^#]*&)?title=([^&#]+)", url)):
        return unquote(q.group(1)).replace("_", " ").strip() or None  # MediaWiki's long form
    m = _URL_TITLE.search(re.split(r"[#?]", url, maxsplit=1)[0]) if url else None
    if m is None:
        return None
    return unquote(m.group("w") or m.group("r")).replace("_", " ").strip() or None


def _manual_title(title: str) -> str | None:
    """``SAS Manual: Chapter 68: The Power Procedure`` names the chapter; ``PASS manual
    chapter 436`` or ``PASS documentation`` names no title at all."""
    title = re.sub(r"^(?:[\w/ ]*\b(?:Manual|Documentation|Guide)\s*:\s*)?"
                   r"(?:[A-Z]+\s+)?Chapter\s+\d+\s*:\s*", "", title, flags=re.IGNORECASE)
    generic = re.fullmatch(r"[\w/]+\s+(?:manual|documentation|user'?s guide)"
                           r"(?:\s+chapter\s+\d+)?", title, re.IGNORECASE)
    return None if generic else title


#: a standard's designation before its title (``IEEE Std 754-2008, IEEE Standard for ...``,
#: ``ISO/IEC 9899:2018 Programming languages``)
_DESIGNATION = re.compile(r"(?:IEEE|ISO|IEC|ANSI|ECMA|FIPS(?:\s+PUB)?)(?:/IEC)?(?:\s+Std\.?)?"
                          r"[\s-]*[A-Z]?\d+(?:[.-]\d+)*(?:[-:](?:19|20)\d{2})?\s*[,:.]?\s+"
                          r"(?=[A-Z])")
#: a vendor's application note: its series and number after the title
_APP_NOTE = re.compile(r"(?<![,:;\s-])[,:;\s-]*\bApp(?:lication|\.)?\s+Note\b\s*(?:No\.?\s*)?"
                       r"(?:[A-Z]*\d[\w.-]*)?", re.IGNORECASE)
#: makers of electronics and instruments who publish application notes, before the title
_VENDOR = re.compile(
    r"^(?:Agilent|Keysight|Hewlett[- ]Packard|HP|Anritsu|Rohde\s*(?:&|and)\s*Schwarz|"
    r"Tektronix|Keithley|Fluke|Texas\s+Instruments|TI|Analog\s+Devices|Maxim|Microchip|"
    r"NXP|STMicroelectronics|Infineon|Intel|AMD|Xilinx|Altera|Lattice|National\s+Instruments|"
    r"Linear\s+Technology|Copper\s+Mountain|Mini-Circuits|Murata|Renesas|Atmel|Cypress|"
    r"Skyworks|Qorvo|Silicon\s+Labs|ON\s+Semiconductor|Nordic\s+Semiconductor)"
    r"(?:\s+(?:Technologies|Inc\.?|Corporation|Integrated|Semiconductors?))?"
    r"(?:['\u2019]s)?[,:]?\s+(?=[A-Z0-9])")


def _year(text: str) -> int | None:
    if m := _PAREN_YEAR.search(text):
        return int(m.group("y"))
    years = _YEAR.findall(text)
    if not years and (m := _STANDARD_YEAR.search(text)):
        return int(m.group("y"))  # "IEEE 370-2020", "ISO 8601:2004": the edition's year
    if not years and (m := _DATE.search(text)):
        return int(m.group("y"))  # "2007/04/21", "2019-03-02": a dated page
    return int(years[-1]) if years else None


#: a date written year first (``2007/04/21``, ``2019-03-02``)
_DATE = re.compile(r"(?<![\w./-])(?P<y>(?:19|20)\d{2})([/-])(?:0?[1-9]|1[0-2])\2"
                   r"(?:0?[1-9]|[12]\d|3[01])(?![\w/-])")
#: a standard's designation ending in its edition's year: ``IEEE 370-2020``, ``IEEE Std
#: 754-2008``, ``ISO 8601:2004``, ``ISO/IEC 9899:2018``, ``ANSI X3.4-1986``
_STANDARD_YEAR = re.compile(r"\b(?:IEEE|ISO|IEC|ANSI|ECMA|FIPS(?:\s+PUB)?|BS|DIN|EN)"
                            r"(?:/IEC)?(?:\s+Std\.?)?[\s-]*[A-Z]?\d+(?:[.-]\d+)*?[-:]"
                            r"(?P<y>(?:19|20)\d{2})\b")


def _title(text: str) -> tuple[str | None, str]:
    """(title, the text after it) of a citation without its URLs and identifiers."""
    start = _after_authors(text)
    head = text[start:].lstrip(" .,:;")
    head = re.sub(r"^\(?(?:19|20)\d{2}[a-z]?\)?[.,:]?\s*", "", head)  # the year after authors
    if quoted := _quoted_at(head):
        return quoted
    if not head:
        return None, ""
    if start == 0 and (labelled := _labelled_quote(head)):
        return labelled  # 'Hyndman&Fan paper "Title"', 'MATLAB documentation, "Rank"'
    if start == 0 and head.count('"') == 1 and (q := re.search(r'\S"\s*[,(]?\s*', head)):
        return head[:q.start() + 1], head[q.end():]  # 'Title", IEEE 370-2020': quote lost
    if start == 0:  # title first: up to ", <year>", a sentence end or a note
        m = re.search(r",\s*\(?(?:19|20)\d{2}\b|,\s+(?=(?:[A-Z][a-z]+\s+)?(?:[A-Z]\.\s*)+"
                      r"[A-Z][a-z]+)|,\s+(?=[A-Z][a-z]+\s+(?:[A-Z]\.\s+)?[A-Z][a-z]+,)|"
                      r",\s+(?=[A-Z][\w'-]+,\s+(?:[A-Z]\.\s?-?)+(?:,|\s+(?:and|&)\s))|\.\s+(?=[A-Z]|(?:19|20)\d{2}\b)|\.$|;|"
                      r"\s\((?=[^()]*\b(?:version|preprint|arxiv)\b)", head, re.IGNORECASE)
        return (head[:m.start()], head[m.end():]) if m else (head, "")
    # after the authors: up to the next sentence end (APA, MLA) or comma (IEEE-like)
    sep = text[:start].rstrip()[-1:] if text[:start].strip() else ""
    stop = r"[.?!;](?:\s|$)" if sep not in ",:" or re.match(
        r"\(?(?:19|20)\d{2}", text[start:].lstrip(" .,")) else r"[.?!;](?:\s|$)|,\s"
    m = re.search(stop, head)
    return (head[:m.start() + (1 if head[m.start()] in "?!" else 0)], head[m.end():]) \
        if m else (head, "")


#: a label before a quoted title: a few words ending in a comma or a word naming the work
_LABEL_QUOTE = re.compile(
    r"(?P<p>[^\"\u201c.;:?!]{1,60}?(?:,|\b(?:paper|article|book|chapter|documentation|"
    r"manual|page|entry|notes?|report|thesis|talk|slides|post)))\s+[\"\u201c]"
    r"(?P<t>[^\"\u201d]{3,})[\"\u201d]", re.IGNORECASE)


def _labelled_quote(head: str) -> tuple[str, str] | None:
    """The quoted title after a short label (at most four words) that is no title."""
    m = _LABEL_QUOTE.match(head)
    if m is None or len(m.group("p").split()) > 4:
        return None
    return m.group("t"), head[m.end():]


def _quoted_at(head: str) -> tuple[str, str] | None:
    """A title in quotes (or ``*...*``/backticks) that starts ``head``; an opening quote
    never closed runs to the next comma or sentence end."""
    if m := re.match(r"'([^']{3,}?)'(?!\w)", head):  # single quotes, not an apostrophe
        return m.group(1), head[m.end():]
    for left, right in _QUOTES:
        if not head.startswith(left):
            continue
        end = head.find(right, len(left))
        if end > len(left):
            return head[len(left):end], head[end + len(right):]
        if left in ('"', "\u201c"):
            m = re.search(r"[,;]|\.\s", head[1:])
            return (head[1:1 + m.start()], head[1 + m.end():]) if m else (head[1:], "")
    return None


def _after_authors(text: str) -> int:
    """Where the author block that starts ``text`` ends (0: the text starts with no
    authors). Names are initials, capitalised words and connectors; the block ends before a
    quote, a year, a sentence end after a full name, or a comma followed by words that are
    not names."""
    if m := _SINGLE_AUTHOR.match(text):
        return m.end("a")  # "Greene, W. H. Econometric Analysis." (MLA, one author)
    if m := _COMPACT_AUTHORS.match(text):
        return m.end()  # "G.M.Diaz-Toca,L.Gonzalez-Vega: Title" (no spaces after initials)
    if m := _FULL_NAMES.match(text):
        return m.end()  # "Yonghui Wu, Mike Schuster, ..., Quoc V. Le, ..., Jeffrey Dean. (2016)"
    if m := _VANCOUVER.match(text):
        return m.end()  # "Pernet CR, Wilcox R, Rousselet GA. Title: Subtitle. Journal."
    head, _comma, after = text.partition(",")
    first = head.split()
    if len(first) >= 3 and not any(_INITIAL.match(w) or w.lower() in _CONNECT for w in first) \
            and re.match(r"\s*(?:[A-Z][a-z]+\s+)?(?:[A-Z]\.\s*)+[A-Z][a-z]+", after):
        return 0  # "Quadratic Diophantine Equations, T. Andreescu ...": a title first
    tokens = list(re.finditer(r"\S+", text))
    end = 0
    initials = False
    segment_words = 0
    segment_initial = False
    for n, m in enumerate(tokens):
        word = m.group(0)
        low = word.lower()
        if word[0] in "\"\u201c`*'" or re.match(r"\(?(?:19|20)\d{2}", word):
            return m.start() if n else 0
        if word.endswith(":") and n and (_INITIAL.match(word[:-1]) or _NAME.match(word[:-1])
                                          or low in ("al.:", "al:")):
            if segment_words == 0 and end and not _INITIAL.match(word[:-1]):
                return end  # "Hyndman and G. Athanasopoulos, Forecasting: Principles ..."
            return m.end()  # "Reichardt J and Bornholdt S: Title", "Medya et. al.: Title"
        if _GLUED.match(word):
            word = word.replace(".", ". ", 1).split()[-1]  # "N.Begum": an initial and a name
        is_initial = bool(_INITIAL.match(word))
        if n == 1 and is_initial and word.endswith(".") and n + 2 < len(tokens) \
                and re.fullmatch(r"[A-Z\u00c0-\u00de][\w'\u2019-]+", tokens[0].group(0)) \
                and re.fullmatch(r"[A-Z][a-z]+", tokens[n + 1].group(0)) \
                and tokens[n + 2].group(0)[:1].islower() \
                and tokens[n + 2].group(0).lower() not in _CONNECT:
            return m.end()  # Vancouver "Lovasz L. Random walks on graphs": surname, initials
        if not (is_initial or _NAME.match(word) or low in _CONNECT):
            if (initials and end and n >= 3 and tokens[n - 3].group(0).endswith(".")
                    and _INITIAL.match(tokens[0].group(0))  # "I. Surname" lists only
                    and _INITIAL.match(tokens[n - 3].group(0))
                    and re.fullmatch(r"[A-Z][\w'\u2019-]+", tokens[n - 2].group(0))
                    and re.fullmatch(r"[A-Z][a-z]+", tokens[n - 1].group(0))):
                return tokens[n - 2].end()  # "..., T. Corpetti Dynamic time warping under ..."
            return end if initials or (n > 1 and end) else 0
        if segment_words == 0 and end and initials and not is_initial and n + 1 < len(tokens):
            # a new comma segment after initial-style names: a name only if it is one word
            # or has initials itself
            seg = _segment(tokens, n)
            if len(seg) > 1 and not any(_INITIAL.match(w) for w in seg) and not any(
                    w.lower() in _CONNECT for w in seg):
                return end
        initials = initials or is_initial
        segment_initial = segment_initial or is_initial
        segment_words += 1
        if word.endswith(",") or word.endswith(";"):
            end = m.end()
            segment_words, segment_initial = 0, False
        elif word.endswith(".") and not is_initial and low not in _CONNECT:
            if n + 1 < len(tokens) and _INITIAL.match(tokens[n + 1].group(0)):
                end = m.end()  # "R. W. Butler. P. L. Davies. M. Jhun.": more authors
                segment_words, segment_initial = 0, False
                continue
            return m.end()  # "Conover, William Jay. Title" / "R. A. Fisher. Title"
        elif word.endswith(".") and n + 1 < len(tokens) and _is_title_start(tokens, n + 1):
            end = m.end()
    return 0 if end == 0 or end >= len(text) else end


#: a list of full names (``First Last`` or ``First I. Last``) ended by a full stop before the
#: year (without it, ``G. Sussman, J. Wisdom, W. Farr, Functional Differential Geometry
#: (2013)`` would take the title for a name)
_FULL_NAMES = re.compile(
    r"(?:(?>(?:[A-Z][\w'\u2019-]*\.?\s+){1,3}[A-Z][\w'\u2019-]+),\s+)+(?:and\s+)?"
    r"(?>(?:[A-Z][\w'\u2019-]*\.?\s+){1,3}[A-Z][\w'\u2019-]+)\.(?=\s*\(?(?:19|20)\d{2}\b)")
#: Vancouver authors: surnames each followed by capital initials without dots, the list
#: ended by a full stop (``Pernet CR, Wilcox R, Rousselet GA.``, ``Lovasz L, et al.``)
_VANCOUVER = re.compile(r"(?:[A-Z][\w'\u2019-]+(?:\s[A-Z][\w'\u2019-]+)?\s[A-Z]{1,3},\s)+"
                        r"(?:[A-Z][\w'\u2019-]+(?:\s[A-Z][\w'\u2019-]+)?\s[A-Z]{1,3}|et\sal)\.\s"
                        r"(?=[A-Z])")
#: an initial glued to its surname (``N.Begum``)
_GLUED = re.compile(r"[A-Z]\.[A-Z][a-z][\w'\u2019-]*[,.;]?$")
_COMPACT_AUTHORS = re.compile(r"(?:(?:[A-Z]\.)+\s?[A-Z][\w'-]+(?:,\s*|\s+(?:and|&)\s+)?)+:\s")
_SINGLE_AUTHOR = re.compile(
    r"(?P<a>[A-Z][\w'\u2019-]+,\s+(?:[A-Z][a-z]+\s+)?(?:[A-Z]\.\s*)+)(?=[A-Z][a-z])")


def _segment(tokens: list[re.Match[str]], n: int) -> list[str]:
    """The words of the comma segment starting at token ``n`` (up to a year or a quote),
    with ``and`` appended when the next segment starts with it (``Stian Lydersen, and``)."""
    seg: list[str] = []
    for k, m in enumerate(tokens[n:], start=n):
        word = m.group(0)
        if re.match(r"\(?(?:19|20)\d{2}|[\"\u201c`*']", word):
            break
        seg.append(word.rstrip(",;."))
        if word.endswith((",", ";", ".")):
            if k + 1 < len(tokens) and tokens[k + 1].group(0) in ("and", "&"):
                seg.append("and")
            break
    return seg


def _is_title_start(tokens: list[re.Match[str]], n: int) -> bool:
    """After ``R.A.``: a year or a quote starts what follows the authors."""
    word = tokens[n].group(0)
    return bool(re.match(r"\(?(?:19|20)\d{2}|[\"\u201c`*]", word))


def _clean_title(title: str) -> str | None:
    if (not title[:1].isupper() and not title[:1].isdigit()
            and not re.match(r"[a-z]{1,3}-?[A-Z]", title)) or re.match(
            r"[A-Z][\w'-]+\s+(?:section|chapter|sec\.|ch\.|pp?\.)\s*\d", title):
        return None  # "jplv to check formulas", "Greene section 7.5.1": notes, not titles
    # ("k-Shape: Efficient ...", "mRNA ...": a lower-case start with a capital inside is one)
    title = _NOTE.sub("", title)
    title = re.sub(r"\s*\((?:19|20)\d{2}[a-z]?\)\s*$", "", title.strip())
    # "Speech and Language Processing (Jurafsky & Martin)": the authors after the title
    title = re.sub(r"\s*\([A-Z][\w'-]+(?:\s*(?:&|and)\s*[A-Z][\w'-]+|\s+et\s+al\.?)\)$", "",
                   title)
    title = _EDITION.sub("", title)
    title = re.sub(r"[.,]?\s+\d+(?:st|nd|rd|th)\.?$", "", title)  # "... sciences. 2nd."
    title = re.sub(r",\s*(?:section|sec\.|chapter|ch\.)\s*[\d.]+$", "", title,
                   flags=re.IGNORECASE)  # "Distance measures in cosmology, section 11"
    # "<Title> by <Author> et al." (an inline citation): the authors are not the title
    title = re.sub(r"\s+by\s+[A-Z][\w'-]+(?:\s+et\.?\s+al\b\.?|\s+and\s+[A-Z][\w'-]+)\s*$",
                   "", title)
    title = re.sub(r",\s*[A-Z]{2,}$", "", title)  # ", JMLR": the venue's acronym
    title = title.strip().strip("*_`\"\u201c\u201d").rstrip(".,;: ").strip()
    return title if len(re.findall(r"[A-Za-z]{2,}", title)) >= 1 and len(title) >= 3 else None
