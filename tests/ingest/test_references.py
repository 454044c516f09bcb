"""Reference extraction from text: every supported form, exact outputs, and the traps."""

from __future__ import annotations

import dataclasses

import pytest

from ingest.academic.references import FoundReference, find_references


def refs(text: str, **kw: object) -> list[tuple[str, str, int, str]]:
    return [(r.scheme, r.value, r.line, r.kind) for r in find_references(text, **kw)]


NUMPY_DOCSTRING = '''\
def leiden(G, resolution=1):
    """Find communities with the Leiden algorithm.

    This is an implementation of the refinement step of [1]_; the quality
    function is modularity [2]_.

    Parameters
    ----------
    G : graph

    References
    ----------
    .. [1] Traag, V.A., Waltman, L. & van Eck, N.J. From Louvain to Leiden: guaranteeing
       well-connected communities. Sci Rep 9, 5233 (2019).
       https://doi.org/10.1038/s41598-019-41695-z
    .. [2] M. E. J. Newman and M. Girvan, "Finding and evaluating community
       structure in networks", Phys. Rev. E 69, 026113, 2004.
    .. [3] Blondel, V. D., Guillaume, J.-L., Lambiotte, R., & Lefebvre, E.
       (2008). Fast unfolding of communities in large networks. J. Stat. Mech.
       `10.1088/1742-5468/2008/10/P10008 <https://doi.org/10.1088/1742-5468/2008/10/P10008>`_

    Examples
    --------
    >>> leiden(G)  # doi 10.1000/not-in-the-section-but-cited
    """
'''


def test_numpy_references_section() -> None:
    found = find_references(NUMPY_DOCSTRING, path="pkg/leiden.py", first_line=100)
    assert [(r.scheme, r.value, r.line, r.kind, r.title, r.year) for r in found] == [
        ("doi", "10.1038/s41598-019-41695-z", 112, "implements", None, 2019),
        ("citation",
         'M. E. J. Newman and M. Girvan, "Finding and evaluating community structure in '
         'networks", Phys. Rev. E 69, 026113, 2004.',
         115, "cites", "Finding and evaluating community structure in networks", 2004),
        ("doi", "10.1088/1742-5468/2008/10/p10008", 117, "cites",
         "Fast unfolding of communities in large networks", 2008),
        ("doi", "10.1000/not-in-the-section-but-cited", 123, "cites", None, None),
    ]
    # one reference per entry: the DOI link text and its URL are the same work
    assert found[0].raw.startswith("Traag, V.A., Waltman, L.")
    assert isinstance(found[0], FoundReference)
    with pytest.raises(dataclasses.FrozenInstanceError):
        found[0].value = "x"  # type: ignore[misc]


def test_unnumbered_and_other_section_styles() -> None:
    text = '''\
"""Spinglass communities.

References:
    Reichardt J and Bornholdt S: Statistical mechanics of community
    detection. Phys Rev E 74:016110 (2006).

    Traag VA and Bruggeman J: Community detection in networks with
    positive and negative links. arXiv:0811.2329v3.
"""

def fastgreedy(graph):
    """Greedy modularity.

    B{Reference}: A Clauset, MEJ Newman and C Moore: Finding community structure
    in very large networks. I{Phys Rev E} 70, 066111 (2004).

    @param graph: the graph
    """

def infomap(graph):
    """Infomap.

    B{References}

      - M. Rosvall and C. T. Bergstrom: Maps of information flow reveal
        community structure in complex networks, I{PNAS} 105, 1118 (2008).
        U{https://doi.org/10.1073/pnas.0706851105},
        U{https://arxiv.org/abs/0707.0609}.
    """
'''
    found = find_references(text)
    assert [(r.scheme, r.value, r.line, r.title, r.year) for r in found] == [
        ("citation", "Reichardt J and Bornholdt S: Statistical mechanics of community "
         "detection. Phys Rev E 74:016110 (2006).", 4,
         "Statistical mechanics of community detection", 2006),
        ("arxiv", "0811.2329", 7,
         "Community detection in networks with positive and negative links", None),
        ("citation", "A Clauset, MEJ Newman and C Moore: Finding community structure in very "
         "large networks. Phys Rev E 70, 066111 (2004).", 14,
         "Finding community structure in very large networks", 2004),
        ("doi", "10.1073/pnas.0706851105", 25,
         "Maps of information flow reveal community structure in complex networks", 2008),
    ]


def test_markdown_and_rest_docs_are_documents() -> None:
    md = """\
# vgdb

Communities use [Leiden](https://doi.org/10.1038/S41598-019-41695-Z) (see also
[the arXiv version](https://arxiv.org/abs/1810.08473v2)).

## References

- Malkov & Yashunin (2018). Efficient and robust approximate nearest neighbor search
  using Hierarchical Navigable Small World graphs. https://arxiv.org/pdf/1603.09320.pdf
- Robertson, S. and Zaragoza, H. (2009). "The Probabilistic Relevance Framework: BM25
  and Beyond". doi:10.1561/1500000019.

## Install
See https://example.com/install and RFC 8259.
"""
    assert refs(md, path="README.md") == [
        ("doi", "10.1038/s41598-019-41695-z", 3, "documents"),
        ("arxiv", "1810.08473", 4, "documents"),
        ("arxiv", "1603.09320", 8, "documents"),
        ("doi", "10.1561/1500000019", 10, "documents"),
        ("rfc", "8259", 14, "documents"),
    ]
    bm25 = find_references(md, path="README.md")[3]
    assert (bm25.title, bm25.year) == (
        "The Probabilistic Relevance Framework: BM25 and Beyond", 2009)
    rst = """\
Search
======

Fusion follows Cormack et al. (`doi:10.1145/1571941.1572114
<https://doi.org/10.1145/1571941.1572114>`_).

.. rubric:: References

.. [RRF] G. V. Cormack, C. L. A. Clarke, S. Buettcher, "Reciprocal rank fusion
   outperforms Condorcet and individual rank learning methods", SIGIR 2009.
"""
    assert [(r.scheme, r.value, r.line, r.kind, r.year) for r in
            find_references(rst, path="docs/search.rst")] == [
        ("doi", "10.1145/1571941.1572114", 4, "documents", None),
        ("citation", 'G. V. Cormack, C. L. A. Clarke, S. Buettcher, "Reciprocal rank fusion '
         'outperforms Condorcet and individual rank learning methods", SIGIR 2009.', 9,
         "documents", 2009),
    ]


@pytest.mark.parametrize(("text", "expected"), [
    ("see https://doi.org/10.1000/XYZ123.", "10.1000/xyz123"),
    ("(https://dx.doi.org/10.1103/PhysRevE.69.026113)", "10.1103/physreve.69.026113"),
    ("DOI:10.1038/NATURE03607;", "10.1038/nature03607"),
    ("doi: 10.1038/s41598-019-41695-z,", "10.1038/s41598-019-41695-z"),
    ("Lancet 351 (doi:10.1016/S0140-6736(97)11096-0).", "10.1016/s0140-6736(97)11096-0"),
    ("[paper](http://doi.org/10.1145/324133.324140)", "10.1145/324133.324140"),
    ("https://epubs.siam.org/doi/epdf/10.1137/S0036144503424786", "10.1137/s0036144503424786"),
    ("https://link.springer.com/content/pdf/10.1007/BF02289026.pdf", "10.1007/bf02289026"),
    ("https://doi.org/10.1002%2F%28SICI%291097-4571", "10.1002/(sici)1097-4571"),
    ("the DOI 10.5281/zenodo.1234567 of the release", "10.5281/zenodo.1234567"),
    ("doi 10.1000/182", "10.1000/182"),
])
def test_doi_spellings(text: str, expected: str) -> None:
    assert refs(text) == [("doi", expected, 1, "cites")]


@pytest.mark.parametrize(("text", "expected"), [
    ("arXiv:2404.16130v2", "2404.16130"),
    ("(arXiv: 2501.13956)", "2501.13956"),
    ("https://arxiv.org/abs/1603.09320v4.", "1603.09320"),
    ("http://arxiv.org/pdf/1703.09307.pdf", "1703.09307"),
    ("https://arxiv.org/pdf/physics/0503036", "physics/0503036"),
    ("arXiv:physics/0605087", "physics/0605087"),
    ("the dual model of hep-th/9901001v3 says", "hep-th/9901001"),
    ("cond-mat/0408187", "cond-mat/0408187"),
    ("https://doi.org/10.48550/arXiv.2404.16130", "2404.16130"),
])
def test_arxiv_spellings(text: str, expected: str) -> None:
    assert refs(text) == [("arxiv", expected, 1, "cites")]


@pytest.mark.parametrize(("text", "expected"), [
    ("Parses JSON (RFC 8259).", ["8259"]),
    ("RFC8259 and RFC-7159 both", ["8259", "7159"]),
    ("https://www.rfc-editor.org/rfc/rfc9110.html#section-15", ["9110"]),
    ("https://datatracker.ietf.org/doc/html/rfc3986", ["3986"]),
    ("http://tools.ietf.org/html/rfc4627", ["4627"]),
    ("https://www.ietf.org/rfc/rfc2616.txt", ["2616"]),
    ("https://www.rfc-editor.org/info/rfc7231", ["7231"]),
    ("https://doi.org/10.17487/RFC8259", ["8259"]),
    ("RFC 2104 HMAC class.  Also complies with RFC 4231.", ["2104", "4231"]),
])
def test_rfc_spellings(text: str, expected: list[str]) -> None:
    assert [v for s, v, _line, _kind in refs(text) if s == "rfc"] == expected
    assert all(s == "rfc" for s, *_ in refs(text))


@pytest.mark.parametrize("text", [
    "version = '10.1.2'  # bump to 10.15",
    "ratio = 10.1234/5.0",
    "x = 10.1 * y",
    "mail jane.doe@10.1234.example.org about it",
    "commit 2404.16130 was a hash-like number, not arXiv",
    "see commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
    "RFCOMM sockets, the RFC_4122 constant, RFCs in general, XRFC 12",
    "HTTP/1.1 per RFC 1.1 draft",  # a version, not RFC 1
    "the RFC says so (no number)",
    "import math/0309136 as path",  # a valid old-style arXiv id: asserted below
    "docs at https://docs.python.org/3/library/json.html and https://en.wikipedia.org/wiki/X",
    "xmlns = 'http://www.w3.org/2000/xmlns/'; dtd = 'http://www.w3.org/TR/x/a.dtd'",
    "url = 'https://peps.python.org/pep-%04d/' % n",
    "PEP 8 style, PEP 484 types",
    "Described in [1]_ and explained in Section 3 (2019).",
    "References to nodes are kept in a dict.",
])
def test_false_positive_traps(text: str) -> None:
    found = refs(text)
    if text.startswith("import math/"):
        # an old-style arXiv id of the math archive is indistinguishable: documented
        assert found == [("arxiv", "math/0309136", 1, "cites")]
    else:
        assert found == []


def test_paper_and_standard_links() -> None:
    text = """\
# MMR reranking as described in https://dl.acm.org/doi/abs/10.1145/290941.291025 .
# Spec: https://www.w3.org/TR/sparql11-query/ and https://peps.python.org/pep-0249/
# Old PEP link: http://www.python.org/dev/peps/pep-0008/
# A report: https://hal.archives-ouvertes.fr/hal-01231784
# Slides: https://example.org/talks/bm25.pdf
"""
    assert refs(text, path="search/rank.py") == [
        ("doi", "10.1145/290941.291025", 1, "implements"),
        ("url", "https://www.w3.org/TR/sparql11-query/", 2, "cites"),
        ("url", "https://peps.python.org/pep-0249/", 2, "cites"),
        ("url", "https://peps.python.org/pep-0008/", 3, "cites"),
        ("url", "https://hal.archives-ouvertes.fr/hal-01231784", 4, "cites"),
        ("url", "https://example.org/talks/bm25.pdf", 5, "cites"),
    ]


def test_kinds_in_comments_commit_messages_and_decisions() -> None:
    code = """\
# Implements the HMAC algorithm as described by RFC 2104.
# Uses RFC 4231 test vectors.
def rrf(ranks, k=60):
    # Reciprocal rank fusion, based on
    # doi:10.1145/1571941.1572114 (Cormack et al. 2009).
    return sum(1 / (k + r) for r in ranks)
"""
    assert refs(code, path="search/fuse.py", first_line=10) == [
        ("rfc", "2104", 10, "implements"),
        ("rfc", "4231", 11, "cites"),
        ("doi", "10.1145/1571941.1572114", 14, "implements"),
    ]
    commit = ("Use HNSW for the vector index\n\nThe index follows arXiv:1603.09320; "
              "unlike RFC 7159 parsers we accept a BOM.\n")
    assert refs(commit) == [("arxiv", "1603.09320", 3, "implements"),
                            ("rfc", "7159", 3, "cites")]
    decision = ("Decision: model time bi-temporally, as in Snodgrass's TSQL2 work. "
                "Graphiti does the same (arXiv:2501.13956).")
    assert refs(decision) == [("arxiv", "2501.13956", 1, "cites")]


def test_inline_citations_without_identifiers() -> None:
    text = '''\
def fluid(G):
    """Fluid communities.

    This function implements the community detection method described in:
    Parés F, Gasulla DG, et. al. (2018) Fluid Communities: A Competitive,
    Scalable and Diverse Community Detection Algorithm.

    The incremental variant is as described in Incremental Algorithms for
    Closeness Centrality by Sariyuce et al.

    The algorithm is explained in: 'Community Detection via Semi-Synchronous
    Label Propagation Algorithms' Cordasco and Gargano, 2011
    """
'''
    found = find_references(text)
    assert [(r.scheme, r.line, r.kind, r.title, r.year) for r in found] == [
        ("citation", 5, "implements",
         "Fluid Communities: A Competitive, Scalable and Diverse Community Detection Algorithm",
         2018),
        ("citation", 8, "implements", "Incremental Algorithms for Closeness Centrality", None),
        ("citation", 11, "cites",
         "Community Detection via Semi-Synchronous Label Propagation Algorithms", 2011),
    ]
    assert found[0].value == ("Parés F, Gasulla DG, et. al. (2018) Fluid Communities: A "
                              "Competitive, Scalable and Diverse Community Detection Algorithm.")
    assert found[1].value == ("Incremental Algorithms for Closeness Centrality by Sariyuce "
                              "et al.")


def test_duplicates_on_a_line_and_comment_sections() -> None:
    text = """\
# See [10.1038/nature03607](https://doi.org/10.1038/nature03607) and doi:10.1038/nature03607.
#
# References
# ----------
# [1] Palla et al., "Uncovering the overlapping community structure of complex
#     networks in nature and society", Nature 435, 2005. doi:10.1038/nature03607
# [2] RFC 3986, "Uniform Resource Identifier (URI): Generic Syntax".
x = 1  # arXiv:1234.5678 is outside the section
"""
    found = find_references(text, path="k.py")
    assert [(r.scheme, r.value, r.line, r.title, r.year) for r in found] == [
        ("doi", "10.1038/nature03607", 1, None, None),
        ("doi", "10.1038/nature03607", 5, "Uncovering the overlapping community structure of "
         "complex networks in nature and society", 2005),
        ("rfc", "3986", 7, "Uniform Resource Identifier (URI): Generic Syntax", None),
        ("arxiv", "1234.5678", 8, None, None),
    ]


def test_empty_and_plain_text() -> None:
    assert find_references("") == []
    assert find_references("Nothing to see here.\nReferences\n") == []


def test_line_numbers_survive_characters_that_lower_case_to_two() -> None:
    # "İ".lower() is two characters: the cue search must not shift lines
    text = "İstanbul İİİ\n" * 3 + "see doi:10.1000/abc\n"
    assert refs(text, first_line=10) == [("doi", "10.1000/abc", 13, "cites")]


def test_a_long_line_of_identifiers_is_read_in_segments_and_reported_on_its_line() -> None:
    # each link reads the text before it on its line: a 64 KB line of links took 6 s, read
    # whole; past LONG_LINE characters the line is read as segments cut at spaces
    line = " ".join(f"Shown in doi:10.1000/x{i} and more." for i in range(400))
    assert len(line) > 4000
    found = refs("Intro.\n" + line + "\nSee https://example.org/after\n")
    assert [(s, v, n) for s, v, n, _ in found] == [
        *(("doi", f"10.1000/x{i}", 2) for i in range(400)),
        ("url", "https://example.org/after", 3)]
