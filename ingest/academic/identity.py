"""Paper identity: DOI > arXiv id > normalized title + year (DESIGN §2).

Identifiers arrive in many spellings (``https://doi.org/10.1000/XYZ.``, ``doi:10.1000/xyz``,
``arXiv:1603.09320v4``, ``RFC 9110``); each is normalized to one form here so that the same
work met in a BibTeX file, a docstring and an OpenAlex record gets the same node id.
Hand-written: the rules are a few regular expressions and no maintained library covers DOI,
arXiv and RFC spellings together.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from urllib.parse import unquote

__all__ = [
    "ARXIV_DOI_PREFIX", "RFC_DOI_PREFIX", "normalize_arxiv", "normalize_doi", "normalize_rfc",
    "normalize_title", "obsoleted_rfcs", "paper_id", "parse_identifier", "rfc_doi",
    "strip_trailing", "title_key",
]

RFC_DOI_PREFIX = "10.17487/rfc"
ARXIV_DOI_PREFIX = "10.48550/arxiv."

_DOI_PREFIX = re.compile(
    r"^(?:doi\s*:\s*|(?:https?://)?(?:dx\.|www\.)?doi\.org/|https?://[^/]+/doi/(?:abs/|full/|pdf/)?)",
    re.IGNORECASE)
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_ARXIV_PREFIX = re.compile(
    r"^(?:arxiv\s*:\s*|(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/)", re.IGNORECASE)
_ARXIV_NEW = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?$")
_ARXIV_OLD = re.compile(r"^([a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?$", re.IGNORECASE)
_RFC = re.compile(
    r"^(?:rfc[\s\-_]*|(?:https?://)?(?:www\.)?(?:rfc-editor\.org/(?:rfc|info)/rfc|"
    r"datatracker\.ietf\.org/doc/(?:html/)?rfc|tools\.ietf\.org/html/rfc|ietf\.org/rfc/rfc))"
    r"0*(\d{1,5})(?:\.(?:txt|html|pdf))?/?$", re.IGNORECASE)
_TRAILING = ".,;:'\"!?>"
_PAIRS = {")": "(", "]": "[", "}": "{"}


def strip_trailing(text: str, trailing: str = _TRAILING) -> str:
    """Drop sentence punctuation (``trailing``) after an identifier, and closing brackets
    that do not close anything inside it (``(see 10.1000/x(1))`` keeps its own bracket)."""
    while text:
        last = text[-1]
        if last in trailing or (last in _PAIRS and text.count(last) > text.count(_PAIRS[last])):
            text = text[:-1]
        else:
            break
    return text


def normalize_doi(text: str) -> str:
    """``10.xxxx/suffix`` in lower case (DOIs are case-insensitive), or '' if not a DOI."""
    doi = unquote(text.strip())
    doi = _DOI_PREFIX.sub("", doi).strip()
    doi = strip_trailing(doi.split("#", 1)[0].split("?", 1)[0] if doi.startswith("10.")
                          else doi)
    return doi.lower() if _DOI.match(doi) else ""


def normalize_arxiv(text: str) -> str:
    """An arXiv id without version (``1603.09320``, ``hep-th/9901001``), or ''."""
    raw = strip_trailing(_ARXIV_PREFIX.sub("", text.strip()).strip())
    raw = raw.removesuffix(".pdf")
    if m := _ARXIV_NEW.match(raw):
        return m.group(1)
    if m := _ARXIV_OLD.match(raw):
        archive, number = m.group(1).split("/")
        return f"{archive.split('.')[0].lower()}/{number}"  # math.GT/0309136: math/...
    doi = normalize_doi(text)
    if doi.startswith(ARXIV_DOI_PREFIX):
        return normalize_arxiv(doi.removeprefix(ARXIV_DOI_PREFIX))
    return ""


def normalize_rfc(text: str) -> int | None:
    """The number of an RFC written as ``RFC 9110``, ``rfc9110`` or an RFC Editor/IETF URL."""
    if isinstance(text, int):
        return text
    raw = strip_trailing(text.strip())
    if raw.isascii() and raw.isdigit():  # not "³": str.isdigit() is true of superscripts
        return int(raw)
    m = _RFC.match(raw)
    return int(m.group(1)) if m else None


def rfc_doi(number: int) -> str:
    """RFCs carry DOIs (``10.17487/rfc9110``): an RFC is keyed like any other paper."""
    return f"{RFC_DOI_PREFIX}{number}"


def parse_identifier(text: str) -> tuple[str, str] | None:
    """``("doi", doi)`` or ``("arxiv", id)`` for any spelling of a DOI, arXiv id or RFC
    (RFCs become their DOI); None if ``text`` is none of these."""
    bare = text.strip()
    if number := normalize_rfc(text) if not (bare.isascii() and bare.isdigit()) else None:
        return "doi", rfc_doi(number)
    if arxiv := normalize_arxiv(text):
        return "arxiv", arxiv
    if doi := normalize_doi(text):
        return "doi", doi
    return None


_OBSOLETES = re.compile(r"\bobsoletes\s+(RFCs?\s+[\d,\s]+(?:and\s+\d+)?)", re.IGNORECASE)


def obsoleted_rfcs(abstract: str) -> list[str]:
    """``["RFC 2818", ...]`` from an RFC abstract's "This document obsoletes RFCs 2818, ..."."""
    m = _OBSOLETES.search(abstract)
    return [f"RFC {n}" for n in re.findall(r"\d+", m.group(1))] if m else []


_WORD = re.compile(r"[^\W_]+")


def normalize_title(title: str) -> str:
    """Lower case, accents and LaTeX braces dropped, punctuation and spacing collapsed."""
    if title.isascii():  # the common case, 10x faster than decomposing
        text = title.lower()
    else:
        text = unicodedata.normalize("NFKD", title)
        text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    return " ".join(_WORD.findall(text))


def title_key(title: str, year: int | None) -> str:
    """Hash of the normalized title and the year ('' when there is no title)."""
    norm = normalize_title(title)
    if not norm:
        return ""
    return hashlib.blake2b(f"{norm}|{year or ''}".encode(), digest_size=10).hexdigest()


def paper_id(*, doi: str = "", arxiv: str = "", title: str = "",
             year: int | None = None) -> str:
    """``paper:doi:<doi>`` | ``paper:arxiv:<id>`` | ``paper:title:<hash>`` from normalized
    identifiers, most specific first; '' when there is nothing to key on."""
    if doi:
        return f"paper:doi:{doi}"
    if arxiv:
        return f"paper:arxiv:{arxiv}"
    key = title_key(title, year)
    return f"paper:title:{key}" if key else ""
