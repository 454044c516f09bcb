"""Golden tests of the reference shapes the third held-out round (numpy, sympy, astropy
docstrings, issue 22) found missed; one test per general category fixed."""

from __future__ import annotations

import pytest

from ingest.academic.citation_text import parse_citation
from ingest.academic.references import find_references


@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # a comma segment naming the publisher ends the title
    ("Blackman, R.B. and Tukey, J.W., (1958) The measurement of power spectra, Dover "
     "Publications, New York.", "The measurement of power spectra", 1958, "book"),
    # title first, then ", <First I. Last>": the author is not part of the title
    ("The algorithmic resolution of Diophantine equations, Nigel P. Smart, London Mathematical "
     "Society Student Texts 41, Cambridge University Press, Cambridge, 1998.",
     "The algorithmic resolution of Diophantine equations", 1998, "book"),
    # authors written without spaces, then a colon
    ("G.M.Diaz-Toca,L.Gonzalez-Vega: Various New Expressions for Subresultants and Their "
     "Applications. Appl. Algebra in Engin., Communic. and Comp., Vol. 15, 233-266, 2004.",
     "Various New Expressions for Subresultants and Their Applications", 2004, "paper"),
    # astronomy: authors year, journal, volume, page: there is no title
    ("Bahcall, John N. and Peebles, P.J.E. 1969, ApJ, 156L, 7B", None, 1969, "paper"),
    # a university press makes a book even with a chapter/page range
    ("Press, W., Teukolsky, S., Vetterline, W.T., and Flannery, B.P., 2007, *Numerical "
     "Recipes: The Art of Scientific Computing*, ch. 12-13. Cambridge Univ. Press, Cambridge, "
     "UK.", "Numerical Recipes: The Art of Scientific Computing", 2007, "book"),
    ('E.R. Kanasewich, "Time Sequence Analysis in Geophysics", The University of Alberta '
     "Press, 1975, pp. 109-110.", "Time Sequence Analysis in Geophysics", 1975, "book"),
    # a reader's pointer "(See Prop. 5.1.3)" is no venue: a title alone is a book
    ("Cohen, H. *A Course in Computational Algebraic Number Theory.* (See Prop. 5.1.3)",
     "A Course in Computational Algebraic Number Theory", None, "book"),
])
def test_title_boundaries_and_types(text: str, title: str | None, year: int | None,
                                    work: str) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, work)


@pytest.mark.parametrize(("url", "title", "work"), [
    ("https://en.wikipedia.org/wiki/1_%28number%29", "1 (number)", "web"),
    ("https://en.wikipedia.org/wiki/Rand_index#Adjusted_Rand_index", "Rand index", "web"),
    ("https://oeis.org/wiki/Gaussian_primes", "Gaussian primes", "web"),
    ("https://www.researchgate.net/publication/234137346_On_a_multivariate_log-gamma_"
     "distribution", "On a multivariate log-gamma distribution", "paper"),
    ("https://mathworld.wolfram.com/HermitianOperator.html", None, "web"),
    ("https://numpy.org/doc/stable/reference/ufuncs.html", None, "manual"),
    ("https://pyarrow.readthedocs.io/en/latest/csv.html", None, "manual"),
    ("http://www.ivoa.net/documents/VOTable/20091130/REC-VOTable-1.2.html#sec:data", None,
     "standard"),
])
def test_bare_link_entry_title_and_type(url: str, title: str | None, work: str) -> None:
    cite = parse_citation(url, url=url, scheme="url")
    assert (cite.title, cite.work) == (title, work)


def test_cited_footnote_outside_references_is_an_entry() -> None:
    text = '''def seterr():
    """Set how floating-point errors are handled.

    Notes
    -----
    The floating-point exceptions are defined in the IEEE 754 standard [1]_:

    .. [1] https://en.wikipedia.org/wiki/IEEE_754

    .. [2] https://example.org/never-cited-so-not-an-entry

    Examples
    --------
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.value, r.title, r.work) for r in refs] == [
        (8, "url", "https://en.wikipedia.org/wiki/IEEE_754", "IEEE 754", "web")]


def test_bold_references_list_of_links_is_one_reference_per_link() -> None:
    text = '''class W08(VOWarning):
    """
    Since NaN's can not be represented in integer fields directly, a null
    value must be specified in the FIELD descriptor.

    **References:** `1.1
    <http://www.ivoa.net/documents/VOTable/20040811/REC-VOTable-1.1-20040811.html#sec:data>`__,
    `1.2
    <http://www.ivoa.net/documents/VOTable/20091130/REC-VOTable-1.2.html#sec:data>`__
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.value, r.work) for r in refs] == [
        (6, "url", "http://www.ivoa.net/documents/VOTable/20040811/REC-VOTable-1.1-20040811.html"
                   "#sec:data", "standard"),
        (8, "url", "http://www.ivoa.net/documents/VOTable/20091130/REC-VOTable-1.2.html#sec:data",
         "standard")]


def test_ads_link_in_prose_with_author_year() -> None:
    text = '''class Supergalactic(BaseCoordinateFrame):
    """
    Supergalactic Coordinates
    (see Lahav et al. 2000, <https://ui.adsabs.harvard.edu/abs/2000MNRAS.312..166L>,
    and references therein). Tables need `BeautifulSoup
    <http://www.crummy.com/software/BeautifulSoup/>`_ to be installed.

    as defined in
    `Greisen & Calabretta 2002, A&A, 395, 1061 <https://ui.adsabs.harvard.edu/abs/2002A%26A...395.1061G>`_.
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.value, r.title, r.year, r.work) for r in refs] == [
        (4, "url", "https://ui.adsabs.harvard.edu/abs/2000MNRAS.312..166L", None, 2000, "paper"),
        (9, "url", "https://ui.adsabs.harvard.edu/abs/2002A%26A...395.1061G", None, 2002,
         "paper")]


# --- categories from the second fresh round (heldout-5), fixed after it was graded ---------

@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # Chicago's "City, ST: Publisher" is a book even with a page range
    ("Oppenheim, A.V., and R.W. Schafer. Discrete-Time Signal Processing. Upper Saddle "
     "River, NJ: Prentice-Hall, 1999, pp. 468-471.", "Discrete-Time Signal Processing", 1999,
     "book"),
    # a publisher's name after a comma ends the title; Verlag is a book publisher
    ("Cressie, N.A.C. (1991). Statistics for Spatial Data, Wiley, New York.",
     "Statistics for Spatial Data", 1991, "book"),
    ("Stoyan, D., Stoyan, H. (1992). Fractals, Random Shapes and Point Fields, Akademie "
     "Verlag GmbH, Chichester.", "Fractals, Random Shapes and Point Fields", 1992, "book"),
    # a short astronomy entry: no title
    ("Baluev, R.V. MNRAS 385, 1279 (2008)", None, 2008, "paper"),
])
def test_round5_titles_and_types(text: str, title: str | None, year: int | None,
                                 work: str) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, work)


@pytest.mark.parametrize(("text", "url", "title", "work"), [
    ("Wikipedia page: https://en.wikipedia.org/wiki/Trapezoidal_rule",
     "https://en.wikipedia.org/wiki/Trapezoidal_rule", "Trapezoidal rule", "web"),
    ("Illustration image: https://en.wikipedia.org/wiki/File:Composite_rule.png",
     "https://en.wikipedia.org/wiki/File:Composite_rule.png", "File:Composite rule.png", "web"),
    # a title followed by a colon is still the title
    ("Definitions of residuals: https://example.org/residuals.html",
     "https://example.org/residuals.html", "Definitions of residuals", "web"),
    ("https://reference.wolfram.com/language/ref/DifferenceDelta.html",
     "https://reference.wolfram.com/language/ref/DifferenceDelta.html", None, "manual"),
    ("Peebles, P.J.E. *The large scale structure of the universe*. "
     "https://ui.adsabs.harvard.edu/abs/1980lssu.book.....P",
     "https://ui.adsabs.harvard.edu/abs/1980lssu.book.....P",
     "The large scale structure of the universe", "book"),
])
def test_round5_link_entries(text: str, url: str, title: str | None, work: str) -> None:
    cite = parse_citation(text, url=url, scheme="url")
    assert (cite.title, cite.work) == (title, work)


def test_blank_separated_unmarked_entries_keep_their_wrapped_lines() -> None:
    text = '''def blackman(M):
    """Return the Blackman window.

    References
    ----------
    Blackman, R.B. and Tukey, J.W., (1958) The measurement of power spectra,
    Dover Publications, New York.

    Oppenheim, A.V., and R.W. Schafer. Discrete-Time Signal Processing.
    Upper Saddle River, NJ: Prentice-Hall, 1999, pp. 468-471.

    Examples
    --------
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.title, r.year, r.work) for r in refs] == [
        (6, "citation", "The measurement of power spectra", 1958, "book"),
        (9, "citation", "Discrete-Time Signal Processing", 1999, "book")]


def test_short_astronomy_entry_is_kept() -> None:
    text = '''def false_alarm_probability(power):
    """False alarm probability.

    References
    ----------
    .. [1] Baluev, R.V. MNRAS 385, 1279 (2008)
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.title, r.year, r.work) for r in refs] == [
        (6, "citation", None, 2008, "paper")]


# --- categories from the third fresh round (heldout-6), fixed after it was graded ---------

@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # astronomy venues with a nickname or a colon page range: no title
    ("Calabretta, M.R., Greisen, E.W., 2002, A&A, 395, 1077 (Paper II)", None, 2002, "paper"),
    ("Scargle, J.D. 1982, ApJ 263:835-853", None, 1982, "paper"),
    ("M. Zechmeister and M. Kurster, A&A 496, 577-584 (2009)", None, 2009, "paper"),
    # "et al," without its period still ends the authors
    ("W. Press et al, Numerical Recipes in C (2002)", "Numerical Recipes in C", 2002, "book"),
    # a publisher outweighs a page range
    ('A.V. Oppenheim and R.W. Schafer, "Discrete-Time Signal Processing", Prentice-Hall, '
     "1999, pp. 468-471.", "Discrete-Time Signal Processing", 1999, "book"),
    ('Richard Crandall & Carl Pomerance (2005), "Prime Numbers: A Computational Perspective", '
     "Springer, 2nd edition, 229-231", "Prime Numbers: A Computational Perspective", 2005,
     "book"),
    # a journal with pages stays a paper even with a publisher-like word elsewhere
    ('M.S. Bartlett, "Periodogram Analysis and Continuous Spectra", Biometrika 37, 1-16, '
     "1950.", "Periodogram Analysis and Continuous Spectra", 1950, "paper"),
])
def test_round6_titles_and_types(text: str, title: str | None, year: int | None,
                                 work: str) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, work)


def test_mediawiki_index_php_title() -> None:
    url = "https://en.wikipedia.org/w/index.php?title=Modular_exponentiation&section=6#Matrices"
    cite = parse_citation(url, url=url, scheme="url")
    assert (cite.title, cite.work) == ("Modular exponentiation", "web")


def test_entry_link_text_is_the_title() -> None:
    text = '''def savetxt(fname, X):
    """Save an array to a text file.

    References
    ----------
    .. [1] `Format Specification Mini-Language
           <https://docs.python.org/library/string.html#format-specification-mini-language>`_,
           Python Documentation.
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.title, r.work) for r in refs] == [
        (6, "url", "Format Specification Mini-Language", "manual")]


def test_prose_arxiv_takes_the_author_year_before_it() -> None:
    text = '''class TimeFITS(TimeString):
    """
    FITS format.

    See Rots et al., 2015, A&A 574:A36 (arXiv:1409.7583).
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.value, r.year) for r in refs] == [
        (5, "arxiv", "1409.7583", 2015)]


# --- categories from the fourth fresh round (heldout-7), fixed after it was graded --------

@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # a chapter of an edited book; "J.F." of an editor is no journal
    ('J. F. Kaiser, "Digital Filters" - Ch 7 in "Systems analysis by digital computer", '
     "Editors: F.F. Kuo and J.F. Kaiser, p 218-285. John Wiley and Sons, New York, (1966).",
     "Digital Filters", 1966, "book"),
    # a chapter and a page range: a book
    ('Cormen, "Introduction to Algorithms", Chapter 15.2, p. 370-378',
     "Introduction to Algorithms", None, "book"),
    # a handbook; "A. J.," of an author is no journal
    ('"Handbook of applied cryptography", Menezes, A. J., Van, O. P. C., & Vanstone, S. A. '
     "(1997).", "Handbook of applied cryptography", 1997, "book"),
    # ", section 11" is a pointer into the work, not its title
    ("Hogg, D. (1999). Distance measures in cosmology, section 11. arXiv e-prints, "
     "astro-ph/9905116.", "Distance measures in cosmology", 1999, "paper"),
    # "standard" as an adjective in a title does not make a standard
    ("Thomas, R., & Kantowski, R. (2000). Age-redshift relation for standard cosmology. PRD, "
     "62(10), 103507.", "Age-redshift relation for standard cosmology", 2000, "paper"),
    ("The Unicode Standard, Version 15.0", None, None, "standard"),
])
def test_round7_titles_and_types(text: str, title: str | None, year: int | None,
                                 work: str) -> None:
    cite = parse_citation(text)
    assert (cite.year, cite.work) == (year, work)
    if work != "standard":
        assert cite.title == title


@pytest.mark.parametrize(("text", "url", "title", "work"), [
    # IEEE's "[online], Available:" markers are not part of the title
    ("Representing an integer as a sum of three squares, [online], Available: "
     "https://proofwiki.org/wiki/Integer_as_Sum_of_Three_Squares",
     "https://proofwiki.org/wiki/Integer_as_Sum_of_Three_Squares",
     "Representing an integer as a sum of three squares", "web"),
    # "/software/" in a manual's URL does not make it software; a reference manual is manual
    ("https://www.itl.nist.gov/div898/software/dataplot/refman2/auxillar/biwloc.htm",
     "https://www.itl.nist.gov/div898/software/dataplot/refman2/auxillar/biwloc.htm", None,
     "manual"),
    # an R package's manual on CRAN is software; a <url> leaves nothing in the title
    ("Package spatstat. <https://cran.r-project.org/web/packages/spatstat/spatstat.pdf>",
     "https://cran.r-project.org/web/packages/spatstat/spatstat.pdf", "Package spatstat",
     "software"),
])
def test_round7_link_entries(text: str, url: str, title: str | None, work: str) -> None:
    cite = parse_citation(text, url=url, scheme="url")
    assert (cite.title, cite.work) == (title, work)


def test_bibliography_key_entry_and_ivoa_link_in_prose() -> None:
    text = '''def gf_edf_shoup(f, n, p, K):
    """Gathen-Shoup: Probabilistic Equal Degree Factorization.

    These should be names from the VO UCD1+ controlled Vocabulary
    (http://www.ivoa.net/documents/latest/UCDlist.html). Or the project's
    (https://example.org/project/page.html) page.

    References
    ==========

    .. [1] [Shoup91]_
    .. [2] [Gathen92]_
    """
'''
    refs = find_references(text)
    assert [(r.line, r.scheme, r.value, r.title, r.work) for r in refs] == [
        (5, "url", "http://www.ivoa.net/documents/latest/UCDlist.html", None, "standard"),
        (11, "citation", "[Shoup91]_", None, "paper"),
        (12, "citation", "[Gathen92]_", None, "paper")]


# --- categories from the fifth fresh round (heldout-8), fixed after it was graded ---------

@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # ", Vol 4, Addison Wesley" ends the title
    ("Knuth, D. (2011). The Art of Computer Programming, Vol 4, Addison Wesley",
     "The Art of Computer Programming", 2011, "book"),
    # Dover is a book publisher even with a page count
    ('M. Tenenbaum & H. Pollard, "Ordinary Differential Equations", Dover 1963, pp. 92',
     "Ordinary Differential Equations", 1963, "book"),
    # a pointer into the work before it, then a title first and its authors with initials
    ("Section 4.4.4 of the following book: Quadratic Diophantine Equations, T. Andreescu and "
     "D. Andrica, Springer, 2015.", "Quadratic Diophantine Equations", 2015, "book"),
    # a dotted journal abbreviation with volume and page: no title
    ("Hilton, J. et al., 2006, Celest.Mech.Dyn.Astron. 94, 351", None, 2006, "paper"),
    # the old shapes these rules must not break
    ("SAS Manual: Chapter 68: The Power Procedure, Computational Resources",
     "The Power Procedure", None, "manual"),
])
def test_round8_titles_and_types(text: str, title: str | None, year: int | None,
                                 work: str) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, work)
