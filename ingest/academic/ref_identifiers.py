"""Identifiers of works in free text: DOIs, arXiv ids, RFCs and links (issue 4, issue 22).

``identifiers(line, cited=...)`` returns each identifier on a line once (column, scheme,
normalized value, raw text); ``url_reference`` says what a link points at and whether it
counts (outside a References section only scholarly and standards hosts and PDFs, unless the
caller says the link is cited or pointed to); ``identifier_work`` types what an identifier
met in prose names. Split from :mod:`ingest.academic.references` (which documents what counts
as a reference); hand-written regular expressions for the same reason as there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

from ingest.academic.citation_text import classify_work
from ingest.academic.identity import strip_trailing

__all__ = ["PAPER_HOSTS", "URL", "WWW", "identifier_work", "identifiers", "normalize_url",
           "strip_identifier", "url_reference"]


#: Hosts whose links are papers or standards (a suffix match on the host name; an entry with
#: a path also needs that path prefix: W3C namespace URIs are not references, its specs are).
PAPER_HOSTS = (
    "acm.org", "ieee.org", "springer.com", "sciencedirect.com", "elsevier.com", "nature.com",
    "science.org", "sciencemag.org", "pnas.org", "aps.org", "iop.org", "jstor.org",
    "wiley.com", "tandfonline.com", "oup.com", "cambridge.org", "plos.org", "biorxiv.org",
    "medrxiv.org", "ssrn.com", "semanticscholar.org", "openalex.org", "psu.edu",
    "researchgate.net", "hal.science", "archives-ouvertes.fr", "openreview.net",
    "aclanthology.org", "aclweb.org", "neurips.cc", "nips.cc", "mlr.press", "jmlr.org",
    "usenix.org", "vldb.org", "siam.org", "ams.org", "scholar.archive.org", "dblp.org",
    "ncbi.nlm.nih.gov", "zenodo.org", "mdpi.com", "frontiersin.org", "sagepub.com",
    "w3.org/TR/", "iso.org", "ecma-international.org", "unicode.org", "whatwg.org", "tc39.es",
    "nist.gov", "itu.int", "peps.python.org", "jstatsoft.org", "adsabs.harvard.edu",
    "ivoa.net/documents/",
)


# --- identifiers -------------------------------------------------------------------------

URL = re.compile(r"(?:https?|ftp)://(?:[^\s<>\"'`\[\]{}|\\^]|'(?=\w)|<[^\s<>\"'`]+>(?=[^\s<>\"'`]))+",
                  re.IGNORECASE)
#: a link written without its scheme (``www.example.org/paper.pdf``): in References only
WWW = re.compile(r"(?<![\w/.@])www\.[\w-]+(?:\.[\w-]+)+(?:/[^\s<>\"'`\[\]{}|\\^]*)?",
                  re.IGNORECASE)
_DOI = re.compile(
    r"(?<![\w./-])(?P<cue>(?:doi\s*:\s*|doi\s+))?"
    r"(?P<doi>10\.\d{4,9}/(?:[^\s\"'<>`]|<[^\s<>\"'`]+>(?=[^\s\"'<>`]))+)",
    re.IGNORECASE)
_ARXIV_NEW = r"\d{4}\.\d{4,5}"
_ARCHIVES = (r"(?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|"
             r"nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat|chao-dyn|solv-int|patt-sol|"
             r"adap-org|comp-gas|chem-ph|alg-geom|dg-ga|funct-an|q-alg)(?:\.[A-Z]{2})?")
_ARXIV_OLD = rf"{_ARCHIVES}/\d{{2}}(?:0[1-9]|1[0-2])\d{{3}}"
_ARXIV_CUED = re.compile(
    rf"(?<![\w.])arxiv\s*:\s*(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?(?![\w/])",
    re.IGNORECASE)
_ARXIV_BARE_OLD = re.compile(rf"(?<![\w./:-])(?P<id>{_ARXIV_OLD})(?:v\d+)?(?![\w/])")
_ARXIV_URL = re.compile(
    rf"arxiv\.org/(?:abs|pdf|html|format)/(?P<id>{_ARXIV_NEW}|{_ARXIV_OLD})(?:v\d+)?",
    re.IGNORECASE)
_RFC = re.compile(r"(?<![\w-])RFC[ \u00a0-]?0*(?P<n>[1-9]\d{0,4})(?![\w]|\.\d)")
_RFC_URL = re.compile(
    r"(?:rfc-editor\.org/(?:rfc|info)/rfc|datatracker\.ietf\.org/doc/(?:html/)?rfc|"
    r"tools\.ietf\.org/html/rfc|ietf\.org/rfc/rfc)0*(?P<n>[1-9]\d{0,4})(?!\d)",
    re.IGNORECASE)
_PEP_URL = re.compile(r"(?:peps\.python\.org|python\.org/dev/peps)/pep-0*(?P<n>\d{1,4})",
                      re.IGNORECASE)
_TRAILING = ".,;:'\"!?>_*`"


# --- identifier scanning -----------------------------------------------------------------


def strip_identifier(text: str) -> str:
    """Sentence punctuation and markup after an identifier go; a closing bracket stays only
    if it closes one inside the identifier (``10.1016/S0140-6736(97)11096-0``)."""
    return strip_trailing(text, _TRAILING)


def _clean_doi(doi: str) -> str:
    doi = unquote(doi)
    doi = re.split(r"[?#]", doi, maxsplit=1)[0]
    return strip_identifier(doi).lower()


def _special_doi(doi: str) -> tuple[str, str]:
    """arXiv's and the RFC Editor's DOIs name a work that has its own identifier."""
    if doi.startswith("10.48550/arxiv."):
        return "arxiv", doi.removeprefix("10.48550/arxiv.")
    if m := re.fullmatch(r"10\.17487/rfc0*(\d{1,5})", doi):
        return "rfc", m.group(1)
    return "doi", doi


def normalize_url(url: str) -> str:
    url = strip_identifier(url)
    parts = urlsplit(url)
    rest = url[len(parts.scheme) + 3 + len(parts.netloc):]
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{rest}"


def url_reference(url: str, *, cited: bool) -> tuple[str, str] | None:
    """What a URL points at: (scheme, value), or None if it is not a reference here."""
    if m := _ARXIV_URL.search(url):
        return "arxiv", _arxiv_value(m.group("id"))
    if m := _RFC_URL.search(url):
        return "rfc", m.group("n")
    if m := re.search(r"/(10\.\d{4,9}/.+)$", unquote(url)):
        # a publisher's PDF link: the DOI is the path without the file suffix
        doi = _clean_doi(m.group(1)).removesuffix(".pdf")
        if re.fullmatch(r"10\.\d{4,9}/\S+", doi):
            return _special_doi(doi)
    if m := _PEP_URL.search(url):
        return "url", f"https://peps.python.org/pep-{int(m.group('n')):04d}/"
    clean = normalize_url(url)
    parts = urlsplit(clean)
    host, path = (parts.hostname or "").lower(), parts.path
    if re.search(r"%[0-9]*[sdr](?![A-Za-z0-9_])|\{", clean) or path.lower().endswith(
            (".dtd", ".xsd", ".rng")):
        return None  # a template or a schema file named in code, not a work
    scholarly = any(
        (host == h or host.endswith("." + h)) and path.startswith("/" + p)
        for h, _slash, p in (entry.partition("/") for entry in PAPER_HOSTS))
    pdf = path.lower().endswith(".pdf") or "format=pdf" in clean.lower()
    if cited or scholarly or pdf:
        return "url", clean
    return None


_STANDARD_HOSTS = ("w3.org", "iso.org", "ecma-international.org", "unicode.org", "whatwg.org",
                   "tc39.es", "itu.int", "peps.python.org")


def identifier_work(scheme: str, value: str) -> str:
    """The type of work an identifier met in prose names."""
    if scheme != "url":
        return "rfc" if scheme == "rfc" else "paper"
    host = (urlsplit(value).hostname or "").lower()
    if any(host == h or host.endswith("." + h) for h in _STANDARD_HOSTS):
        return "standard"
    return classify_work("", url=value, scheme="url")


def _arxiv_value(ident: str) -> str:
    if "/" in ident:
        archive, number = ident.split("/", 1)
        return f"{archive.lower()}/{number}"
    return ident


def identifiers(line: str, *, cited: bool,
                 pointed: Callable[[int, str], bool] | None = None,
                 ) -> list[tuple[int, str, str, str]]:
    """(column, scheme, value, raw) of each identifier on a line, each span used once."""
    out: list[tuple[int, str, str, str]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    for m in URL.finditer(line):
        raw = strip_identifier(m.group(0))
        taken.append((m.start(), m.start() + len(raw)))
        if ref := url_reference(raw, cited=cited or (
                pointed is not None and pointed(m.start(), raw))):
            out.append((m.start(), *ref, raw))
    for m in _ARXIV_CUED.finditer(line):
        if free(m.start(), m.end()):
            taken.append(m.span())
            out.append((m.start(), "arxiv", _arxiv_value(m.group("id")), m.group(0)))
    for m in _DOI.finditer(line):
        if not free(m.start("doi"), m.end("doi")):
            continue
        doi = _clean_doi(m.group("doi"))
        suffix = doi.split("/", 1)[1] if "/" in doi else ""
        bracketed = cited and line[m.start() - 1:m.start()] == "<"  # "<10.5220/0005209>"
        if not suffix or (not m.group("cue") and not bracketed
                          and re.fullmatch(r"[\d.]+", suffix)):
            continue  # 10.1234/5.0 reads as arithmetic unless cued by "doi"
        taken.append(m.span())
        out.append((m.start(), *_special_doi(doi), m.group(0).strip()))
    for m in _ARXIV_BARE_OLD.finditer(line):
        if free(m.start(), m.end()):
            taken.append(m.span())
            out.append((m.start(), "arxiv", _arxiv_value(m.group("id")), m.group(0)))
    for m in _RFC.finditer(line):
        if free(m.start(), m.end()):
            taken.append(m.span())
            out.append((m.start(), "rfc", m.group("n"), m.group(0)))
    out.sort()
    return out
