"""Golden tests of the citation parser (issue 22): each style and each listed miss."""

from __future__ import annotations

import pytest

from ingest.academic.citation_text import Citation, parse_citation
from ingest.academic.references import find_references


@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # unquoted title after "Authors. Year." (Harvard)
    ("Brockwell, P.J. and Davis, R.A. 2016. Introduction to Time Series and Forecasting. "
     "Springer.", "Introduction to Time Series and Forecasting", 2016, "book"),
    # APA
    ("Vasicek, O. (1976). A test for normality based on sample entropy. Journal of the Royal "
     "Statistical Society: Series B, 38(1), 54-59.",
     "A test for normality based on sample entropy", 1976, "paper"),
    # Chicago / MLA: quoted title, year in parentheses at the end
    ('Kaplan, Edward L., and Paul Meier. "Nonparametric estimation from incomplete '
     'observations." Journal of the American statistical association 53.282 (1958): 457-481.',
     "Nonparametric estimation from incomplete observations", 1958, "paper"),
    # IEEE-like: initials, comma-separated title
    ("L. Hubert and P. Arabie, Comparing Partitions, Journal of Classification 1985",
     "Comparing Partitions", 1985, "paper"),
    # sentence-separated, a book
    ("Conover, William Jay. Practical nonparametric statistics. Vol. 350. John Wiley & Sons, "
     "1999.", "Practical nonparametric statistics", 1999, "book"),
    # a year in parentheses at the end of the title, nothing else: a book
    ("B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap (1993).",
     "An Introduction to the Bootstrap", 1993, "book"),
    # the edition is not the title
    ("R. A. Fisher. The Design of Experiments, 6th Ed (1951).", "The Design of Experiments",
     1951, "book"),
    # titles in *...* and in backticks
    ("Hastie, T., Tibshirani, R. (2009). *The Elements of Statistical Learning*. Springer.",
     "The Elements of Statistical Learning", 2009, "book"),
    ("Smith, J. `Fast exact bootstrap intervals`, Biometrika 12(3), 2001.",
     "Fast exact bootstrap intervals", 2001, "paper"),
    # a quoted phrase inside the title is not the title
    ('Efron, B. (1987). Better bootstrap confidence intervals for "small" samples. Journal of '
     "the American Statistical Association, 82(397), 171-185.",
     'Better bootstrap confidence intervals for "small" samples', 1987, "paper"),
    # title first (sklearn's :doi: style, after markup removal)
    ("Normalized cuts and image segmentation, 2000 Jianbo Shi, Jitendra Malik",
     "Normalized cuts and image segmentation", 2000, "paper"),
    # an opening quote never closed
    ('L. F. Kozachenko, N. N. Leonenko, "Sample Estimate of the Entropy of a Random Vector:, '
     "Probl. Peredachi Inf., 23:2 (1987), 9-16",
     "Sample Estimate of the Entropy of a Random Vector", 1987, "paper"),
    # manuals, software, standards, web pages
    ("SAS Manual for NPAR TESTS", "SAS Manual for NPAR TESTS", None, "manual"),
    ("PASS Chapter 110: Equivalence Tests for One Proportion.", None, None, "manual"),
    ("Oksanen, J. et al. (2020). vegan: Community Ecology Package. R package version 2.5-7.",
     None, 2020, "software"),
    ("ISO 8601:2004, Data elements and interchange formats", None, 2004, "standard"),
])
def test_citation_styles(text: str, title: str | None, year: int | None, work: str) -> None:
    cite = parse_citation(text)
    if title is not None or work not in ("manual", "software", "standard"):
        assert cite.title == title
    assert (cite.year, cite.work) == (year, work)


def test_web_page_title_is_the_written_title_not_the_url() -> None:
    text = '''def rand_score():
    """Rand index.

    References
    ----------
    .. [1] `Wikipedia: Rand Index <https://en.wikipedia.org/wiki/Rand_index>`_
    .. [2] "Logrank test", Wikipedia,
           https://en.wikipedia.org/wiki/Logrank_test
    .. [3] "Cramer's V", https://en.wikipedia.org/wiki/Cramer's_V
    """
'''
    found = find_references(text)
    assert [(r.scheme, r.value, r.line, r.title, r.work) for r in found] == [
        ("url", "https://en.wikipedia.org/wiki/Rand_index", 6, "Rand Index", "web"),
        ("url", "https://en.wikipedia.org/wiki/Logrank_test", 7, "Logrank test", "web"),
        ("url", "https://en.wikipedia.org/wiki/Cramer's_V", 9, "Cramer's V", "web"),
    ]


def test_adjacent_unmarked_entries_are_split_and_a_url_without_scheme_is_kept() -> None:
    text = '''def cochrans_q():
    """Cochran's Q test.

    References
    ----------
    https://en.wikipedia.org/wiki/Cochran_test
    SAS Manual for NPAR TESTS
    Greene (2003)
    www.itl.nist.gov/div898/handbook/eda/section3/eda35e.htm
    """
'''
    found = find_references(text)
    assert [(r.scheme, r.value, r.line, r.work) for r in found] == [
        ("url", "https://en.wikipedia.org/wiki/Cochran_test", 6, "web"),
        ("citation", "SAS Manual for NPAR TESTS", 7, "manual"),
        ("citation", "Greene (2003)", 8, "paper"),  # no title: most cited works are papers
        ("url", "https://www.itl.nist.gov/div898/handbook/eda/section3/eda35e.htm", 9, "web"),
    ]
    assert found[2].year == 2003


def test_doi_role_and_prose_urls() -> None:
    text = '''def spectral():
    """Spectral clustering.

    The data can be downloaded from https://example.org/data/iris.csv and the FAQ at
    https://example.org/faq.html answers the rest.

    References
    ----------
    .. [1] :doi:`Normalized cuts and image segmentation, 2000
           Jianbo Shi, Jitendra Malik
           <10.1109/34.868688>`
    """
'''
    found = find_references(text)
    assert [(r.scheme, r.value, r.line, r.title, r.year, r.work) for r in found] == [
        ("doi", "10.1109/34.868688", 9, "Normalized cuts and image segmentation", 2000,
         "paper"),
    ]


def test_identifiers_in_prose_have_a_type_of_work() -> None:
    found = find_references("# see RFC 8259 and https://www.w3.org/TR/xml11/ and "
                            "arXiv:2404.16130 and https://example.org/paper.pdf\n")
    assert [(r.scheme, r.work) for r in found] == [
        ("rfc", "rfc"), ("url", "standard"), ("arxiv", "paper"), ("url", "paper")]


def test_text_past_the_first_2000_characters_of_a_citation_is_not_read() -> None:
    # several hand-written patterns backtrack quadratically on long runs (a 32 KB run of
    # digits took ~2 minutes): a citation is read up to MAX_CITATION_CHARS
    head = "Smith, J. (1999). A study of things. Journal of Stuff, 12, 1-10. "
    cite = parse_citation(head + "x " * 1000 + "Wikipedia")
    assert cite == parse_citation(head) == Citation("A study of things", 1999, "paper")
    assert parse_citation(head + "Wikipedia").work == "web"  # read when within the limit
