"""Golden tests of the reference shapes the held-out round 17 (mpmath and tslearn
docstrings, issue 22) read wrong on its first run; one test per general category fixed
after that run (so round 17 is no longer held out for these)."""

from __future__ import annotations

import pytest

from ingest.academic.citation_text import parse_citation
from ingest.academic.references import find_references


def _refs(text: str) -> list[tuple[int, str, str | None, int | None, str]]:
    return [(r.line, r.scheme, r.title, r.year, r.work)
            for r in find_references(text, path="pkg/mod.py")]


def test_bold_sub_list_inside_a_references_section() -> None:
    text = '''def invertlaplace(f, t):
    """Inverse Laplace transform.

    **References**

    1. [DLMF]_ section 1.14 (http://dlmf.nist.gov/1.14T4)
    2. [Cohen]_

    **Numerical Inverse Laplace Transform Reviews**

    1. [Bellman]_
    2. [Davies79]_

    """
'''
    assert [(r[0], r[1]) for r in _refs(text)] == [(6, "url"), (7, "citation"),
                                                   (11, "citation"), (12, "citation")]


def test_numbered_item_whose_link_is_two_lines_below() -> None:
    text = '''def log_agm(x, prec):
    """
    -log(x) = pi/agm(theta2(x)^2,theta3(x)^2). [1]

    [1] Richard P. Brent, "Fast Algorithms for High-Precision
        Computation of Elementary Functions (extended abstract)",
        http://wwwmaths.anu.edu.au/~brent/pd/RNC7-Brent.pdf

    """
'''
    assert [(r[0], r[1], r[4]) for r in _refs(text)] == [(5, "url", "paper")]


def test_lone_link_under_a_quoted_title_and_colon() -> None:
    text = '''def pslq(x):
    """
    **Algorithm**

    This is a fairly direct translation to Python of the pseudocode given by
    David Bailey, "The PSLQ Integer Relation Algorithm":
    http://www.cecm.sfu.ca/organics/papers/bailey/paper/html/node3.html
    """
'''
    assert [(r[0], r[1]) for r in _refs(text)] == [(7, "url")]


@pytest.mark.parametrize(("text", "title", "year"), [
    # a title starting lower-case with a capital inside its first word
    ("J. Paparrizos & L. Gravano. k-Shape: Efficient and Accurate Clustering of Time Series. "
     "SIGMOD 2015. pp. 1855-1870.", "k-Shape: Efficient and Accurate Clustering of Time Series",
     2015),
    # a one-word title start ending with a colon after the comma-separated authors
    ("R. J. Hyndman and G. Athanasopoulos, Forecasting: Principles and Practice. OTexts, 2014.",
     "Forecasting: Principles and Practice", 2014),
    # the last author is followed by the title with no punctuation (lines joined)
    ("Z. Zhang, R. Tavenard, A. Bailly, X. Tang, P. Tang, T. Corpetti Dynamic time warping "
     "under limited warping path length. Information Sciences, vol. 393, pp. 91--107, 2017.",
     "Dynamic time warping under limited warping path length", 2017),
    # ... but a title that starts with "A" stays whole
    ("A Fast Algorithm for the Minimum Covariance Determinant Estimator, 1999, American "
     "Statistical Association", "A Fast Algorithm for the Minimum Covariance Determinant "
     "Estimator", 1999),
])
def test_round17_titles(text: str, title: str, year: int) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year) == (title, year)
