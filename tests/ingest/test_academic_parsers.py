"""Identity normalization and the bibliographic parsers, on the bad inputs of issue 4."""

from __future__ import annotations

import json

import pytest

from ingest.academic.bibtex import parse_bibtex
from ingest.academic.cff import parse_cff
from ingest.academic.codemeta import parse_codemeta
from ingest.academic.identity import (
    normalize_arxiv,
    normalize_doi,
    obsoleted_rfcs,
    paper_id,
    parse_identifier,
    title_key,
)
from ingest.academic.jsonrecords import abstract_from_inverted_index, parse_json_records
from ingest.academic.sources import parse_bibliography


@pytest.mark.parametrize(("text", "doi"), [
    ("10.1038/s41598-019-41695-z", "10.1038/s41598-019-41695-z"),
    ("https://doi.org/10.1038/S41598-019-41695-Z.", "10.1038/s41598-019-41695-z"),
    ("http://dx.doi.org/10.1038/s41598-019-41695-z", "10.1038/s41598-019-41695-z"),
    ("doi:10.1145/3318464.3380579,", "10.1145/3318464.3380579"),
    ("DOI: 10.1145/3318464.3380579;", "10.1145/3318464.3380579"),
    ("(doi:10.1000/xyz)", ""),
    ("10.1002/(SICI)1097-4571(199009)41:6<391::AID-ASI1>3.0.CO;2-9",
     "10.1002/(sici)1097-4571(199009)41:6<391::aid-asi1>3.0.co;2-9"),
    ("https://doi.org/10.1002%2Fasi.1", "10.1002/asi.1"),
    ("not a doi", ""),
])
def test_dois_in_odd_forms_normalize(text: str, doi: str) -> None:
    assert normalize_doi(text) == doi


@pytest.mark.parametrize(("text", "arxiv"), [
    ("arXiv:1603.09320v4", "1603.09320"), ("1603.09320", "1603.09320"),
    ("https://arxiv.org/abs/2404.16130v2", "2404.16130"),
    ("https://arxiv.org/pdf/1603.09320v2.pdf", "1603.09320"),
    ("hep-th/9901001v2", "hep-th/9901001"), ("math.GT/0309136", "math/0309136"),
    ("10.48550/arXiv.1603.09320", "1603.09320"), ("arXiv:99.1", ""),
])
def test_arxiv_ids_old_and_new_lose_their_version(text: str, arxiv: str) -> None:
    assert normalize_arxiv(text) == arxiv


def test_identifiers_rfcs_and_ids() -> None:
    assert parse_identifier("RFC 9110") == ("doi", "10.17487/rfc9110")
    assert parse_identifier("³.") is None and parse_identifier("RFC ²") is None  # not ASCII
    assert parse_identifier("https://www.rfc-editor.org/rfc/rfc7230.html") == (
        "doi", "10.17487/rfc7230")
    assert parse_identifier("https://datatracker.ietf.org/doc/html/rfc2616") == (
        "doi", "10.17487/rfc2616")
    assert parse_identifier("arXiv:1603.09320") == ("arxiv", "1603.09320")
    assert parse_identifier("hello") is None
    assert obsoleted_rfcs("This document obsoletes RFCs 2818, 7231, and 7232.") == [
        "RFC 2818", "RFC 7231", "RFC 7232"]
    assert paper_id(doi="10.1/x", arxiv="1603.09320") == "paper:doi:10.1/x"
    assert paper_id(arxiv="1603.09320") == "paper:arxiv:1603.09320"
    key = title_key("Fast Unfolding of  Communities in Large Networks!", 2008)
    assert key == title_key("fast unfolding of communities in large networks", 2008)
    assert key != title_key("fast unfolding of communities in large networks", 2009)
    assert paper_id(title="Fast unfolding of communities in large networks",
                    year=2008) == f"paper:title:{key}"
    assert paper_id() == ""


BIB = r"""@article{blondel2008,
  title={Fast unfolding of communities in large networks},
  author={Blondel, Vincent D. and Lef{\`e}bvre, Etienne and M{\"u}ller, J. and others},
  journal={J. Stat. Mech.}, year={2008},
  doi={https://doi.org/10.1088/1742-5468/2008/10/P10008.}
}
@article{broken, title = {never closed, year=2001
@misc{blondel2008, title={A second entry with the same key}, year=2010}
@inproceedings{hnsw, title={Efficient and robust approximate nearest neighbor search},
  eprint={1603.09320v4}, archivePrefix={arXiv}, year={2016}, author={Yu. A. Malkov}}
@misc{rfc9110, title={{HTTP Semantics}}, series={Request for Comments}, number={9110},
  year=2022, abstract={This document obsoletes RFCs 2818, 7231.}}
@misc{nothing, note={no title}}
@article{badyear, title={T}, year={someday}}
@book{knuth, title={The Art of Computer Programming}, author={Donald E. Knuth}, year=1968,
  publisher={Addison-Wesley}}
"""


def test_bibtex_bad_entries_reported_with_line_rest_ingested() -> None:
    result = parse_bibtex(BIB.encode(), path="refs.bib")
    assert [(r.source, r.kind, r.doi, r.arxiv, r.year) for r in result.records] == [
        ("bibtex:refs.bib:1", "paper", "10.1088/1742-5468/2008/10/p10008", "", 2008),
        ("bibtex:refs.bib:8", "paper", "", "", 2010),
        ("bibtex:refs.bib:9", "paper", "", "1603.09320", 2016),
        ("bibtex:refs.bib:11", "rfc", "10.17487/rfc9110", "", 2022),
        ("bibtex:refs.bib:15", "book", "", "", 1968),
    ]
    assert [(i.line, i.severity, i.message.split(":")[0]) for i in result.issues] == [
        (7, "error", "malformed BibTeX entry skipped"),
        (8, "warning", "duplicate key 'blondel2008'; entry read anyway"),
        (13, "error", "entry 'nothing' has no title, DOI or arXiv id; skipped"),
        (14, "error", "entry 'badyear'"),
    ]


def test_bibtex_latex_escapes_and_non_ascii_names() -> None:
    first = parse_bibtex(BIB, path="refs.bib").records[0]
    assert [a.name for a in first.authors] == ["Vincent D. Blondel", "Etienne Lefèbvre",
                                               "J. Müller"]
    rfc = parse_bibtex(BIB, path="refs.bib").records[3]
    assert rfc.title == "HTTP Semantics"
    assert rfc.supersedes == ("RFC 2818", "RFC 7231")


OPENALEX = {
    "id": "https://openalex.org/W2963", "doi": "https://doi.org/10.1038/S41598-019-41695-Z",
    "display_name": "From Louvain to Leiden: guaranteeing well-connected communities",
    "publication_year": 2019, "type": "article",
    "authorships": [{"author": {"display_name": "V. A. Traag",
                                "orcid": "https://orcid.org/0000-0003-3170-3879"},
                     "institutions": [{"display_name": "Leiden University"}]}],
    "primary_location": {"source": {"display_name": "Scientific Reports"},
                         "landing_page_url": "https://www.nature.com/articles/x"},
    "referenced_works": ["https://openalex.org/W2131"],
    "topics": [{"display_name": "Complex Network Analysis Techniques", "score": 0.99}],
    "abstract_inverted_index": {"Community": [0], "detection": [1], "is": [2, 4], "x": [3]},
}


def test_openalex_jsonl_broken_lines_and_missing_titles() -> None:
    lines = [json.dumps(OPENALEX), "{broken", "",
             json.dumps({"id": "https://openalex.org/W1", "publication_year": 2001}),
             json.dumps({"id": "https://openalex.org/W2", "doi": "10.1000/untitled",
                         "publication_year": 2001}), "[1, 2]"]
    result = parse_json_records("\n".join(lines).encode(), path="works.jsonl")
    first, untitled = result.records
    assert (first.doi, first.year, first.venue, first.ext_ids, first.references) == (
        "10.1038/s41598-019-41695-z", 2019, "Scientific Reports", ("openalex:W2963",),
        ("openalex:W2131",))
    assert first.authors[0].orcid == "0000-0003-3170-3879"
    assert first.authors[0].affiliation == "Leiden University"
    assert first.abstract == "Community detection is x is"
    assert first.topics == (("Complex Network Analysis Techniques", 0.99),)
    assert (untitled.doi, untitled.title) == ("10.1000/untitled", "")
    assert [(i.line, i.severity) for i in result.issues] == [
        (2, "error"), (4, "error"), (5, "warning"), (6, "error")]
    assert "broken JSON line" in result.issues[0].message


def test_semantic_scholar_records_and_references() -> None:
    paper = {"paperId": "abc", "externalIds": {"DOI": "10.1145/X", "ArXiv": "1603.09320"},
             "title": "HNSW", "year": 2018, "venue": "TPAMI",
             "authors": [{"authorId": "1", "name": "Yu. A. Malkov"}],
             "references": [{"paperId": "r1", "externalIds": {"DOI": "10.1000/ref"}},
                            {"paperId": "r2"}, {"title": "Some book", "year": 1999}, None]}
    (record,) = parse_json_records(json.dumps([paper]), path="s2.json").records
    assert (record.format, record.doi, record.arxiv, record.ext_ids) == (
        "s2", "10.1145/x", "1603.09320", ("s2:abc",))
    assert record.references == ("doi:10.1000/ref", "s2:r2", ("Some book", 1999))


def test_abstract_inverted_index_restores_word_order() -> None:
    assert abstract_from_inverted_index({"b": [1], "a": [0], "c": [2]}) == "a b c"
    assert abstract_from_inverted_index(None) == ""


CFF = """cff-version: 1.2.0
title: vgdb
doi: 10.5281/zenodo.1234
authors:
  - family-names: Müller
    given-names: Jürgen
    orcid: https://orcid.org/0000-0001-0000-0001
    affiliation: Uni
preferred-citation:
  type: article
  title: "VectorGraphDB: one graph"
  doi: https://doi.org/10.9999/VGDB
  year: 2026
  authors:
    - family-names: Müller
      given-names: Jürgen
references:
  - type: article
    title: "Efficient and robust approximate nearest neighbor search"
    url: https://arxiv.org/abs/1603.09320
    year: 2018
  - type: standard
    title: "RFC 9110: HTTP Semantics"
  - type: article
    authors: []
"""


def test_cff_preferred_citation_and_references() -> None:
    result = parse_cff(CFF.encode(), path="CITATION.cff")
    software, preferred, hnsw, rfc = result.records
    assert (software.kind, software.doi, software.references) == (
        "software", "10.5281/zenodo.1234",
        ("doi:10.9999/vgdb", "arxiv:1603.09320", "doi:10.17487/rfc9110"))
    assert software.authors[0].name == "Jürgen Müller"
    assert software.authors[0].orcid == "0000-0001-0000-0001"
    assert (preferred.doi, preferred.year, preferred.source) == (
        "10.9999/vgdb", 2026, "cff:CITATION.cff:preferred-citation")
    assert hnsw.arxiv == "1603.09320"
    assert (rfc.kind, rfc.doi) == ("rfc", "10.17487/rfc9110")
    assert [i.message for i in result.issues] == [
        "references[2]: no title, DOI or arXiv id; skipped"]
    bad = parse_cff(b"title: [unclosed\n  x: y\n", path="CITATION.cff")
    assert bad.records == [] and bad.issues[0].line >= 1


def test_codemeta_reference_publication_and_citations() -> None:
    doc = {"@context": "https://w3id.org/codemeta/3.0", "name": "tool",
           "identifier": "https://doi.org/10.5281/zenodo.99",
           "referencePublication": {"@type": "ScholarlyArticle", "name": "Tool paper",
                                    "identifier": "https://doi.org/10.1000/TOOL",
                                    "datePublished": "2020-05-01"},
           "citation": [{"@id": "https://doi.org/10.1000/other"}, {"@type": "Thing"}],
           "author": [{"givenName": "Ana", "familyName": "Pérez",
                       "@id": "https://orcid.org/0000-0002-0000-0002",
                       "affiliation": {"name": "Lab"}}]}
    result = parse_codemeta(json.dumps(doc), path="codemeta.json")
    software, paper, other = result.records
    assert (software.kind, software.doi, software.references) == (
        "software", "10.5281/zenodo.99", ("doi:10.1000/tool", "doi:10.1000/other"))
    assert software.authors[0].affiliation == "Lab"
    assert (paper.title, paper.year) == ("Tool paper", 2020)
    assert other.doi == "10.1000/other"
    assert len(result.issues) == 1
    assert parse_codemeta(b"{nope", path="codemeta.json").issues[0].message.startswith(
        "invalid JSON")


def test_unknown_format_is_reported() -> None:
    result = parse_bibliography(b"x", path="notes.txt")
    assert result.records == [] and "unknown bibliography format" in result.issues[0].message
