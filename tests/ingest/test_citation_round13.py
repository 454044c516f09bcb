"""Golden tests of the reference shapes the held-out round 13 (scikit-rf and pandas
docstrings, issue 22) read wrong; one test per general category fixed."""

from __future__ import annotations

import pytest

from ingest.academic.citation_text import parse_citation
from ingest.academic.references import find_references


def _refs(text: str) -> list[tuple[int, str, str, str | None, int | None, str]]:
    return [(r.line, r.scheme, r.value, r.title, r.year, r.work)
            for r in find_references(text, path="pkg/mod.py")]


def test_standard_entry_with_lost_opening_quote_and_designation_year() -> None:
    # continuation lines not indented under the label; the opening quote was lost, the
    # closing one ends the title, and the designation "IEEE 370-2020" carries the year
    text = '''class Deembed:
    def __init__(self):
        """
        Parameters
        ----------
        verbose : bool

        References
        ----------
        .. [IEEE370] IEEE Standard for Electrical Characterization of Printed
        Circuit Board and Related Interconnects at Frequencies up to 50 GHz",
        IEEE 370-2020.
        """
'''
    title = ("IEEE Standard for Electrical Characterization of Printed Circuit Board and "
             "Related Interconnects at Frequencies up to 50 GHz")
    assert [(r[0], r[3], r[4], r[5]) for r in _refs(text)] == [(10, title, 2020, "standard")]


@pytest.mark.parametrize(("text", "title", "year", "work"), [
    # the designation before the title is no part of it
    ("IEEE Std 754-2008, IEEE Standard for Floating-Point Arithmetic",
     "IEEE Standard for Floating-Point Arithmetic", 2008, "standard"),
    ("ISO/IEC 9899:2018 Programming languages -- C", "Programming languages -- C", 2018,
     "standard"),
    # a year written elsewhere wins over the designation's
    ("ISO 8601:2004. Data elements and interchange formats. 2019.",
     "Data elements and interchange formats", 2019, "standard"),
])
def test_standard_designation_gives_the_year(text: str, title: str, year: int,
                                             work: str) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, work)


@pytest.mark.parametrize(("text", "title", "year"), [
    ("Agilent Time Domain Analysis Using a Network Analyzer Application Note 1287-12",
     "Time Domain Analysis Using a Network Analyzer", None),
    ('Keysight, "Signal Integrity Basics", Application Note 5989-5453EN, 2010',
     "Signal Integrity Basics", 2010),
    ("Texas Instruments, Understanding Data Converters, App. Note SLAA013",
     "Understanding Data Converters", None),
])
def test_vendor_application_note_is_a_manual(text: str, title: str, year: int | None) -> None:
    cite = parse_citation(text)
    assert (cite.title, cite.year, cite.work) == (title, year, "manual")


def test_application_note_entry_in_references_section() -> None:
    text = '''def windowed(self):
    """Windowed network.

    References
    ----------
    .. [#] Agilent Time Domain Analysis Using a Network Analyzer Application Note 1287-12

    """
'''
    assert _refs(text) == [(6, "citation", _refs(text)[0][2],
                            "Time Domain Analysis Using a Network Analyzer", None, "manual")]


def test_malformed_rest_link_entry_keeps_its_text_as_title() -> None:
    # the second link closes with "`/" instead of "`_": still a link with a title
    text = '''def map(self):
    """Apply a function.

    References
    ----------
    .. [1] `Numba documentation
            <https://numba.readthedocs.io/en/stable/index.html>`_
    .. [2] `Bodo documentation
            <https://docs.bodo.ai/latest/>`/

    Examples
    --------
    """
'''
    assert _refs(text) == [
        (6, "url", "https://numba.readthedocs.io/en/stable/index.html", "Numba documentation",
         None, "manual"),
        (8, "url", "https://docs.bodo.ai/latest/", "Bodo documentation", None, "manual"),
    ]


def test_doi_role_is_not_read_as_a_malformed_link() -> None:
    text = '''def ari():
    """Rand index.

    References
    ----------
    .. [1] :doi:`Hubert, L., Arabie, P. "Comparing partitions."
           Journal of Classification 2, 193-218 (1985).
           <10.1007/BF01908075>`
    """
'''
    assert _refs(text) == [(6, "doi", "10.1007/bf01908075", "Comparing partitions", 1985,
                            "paper")]


@pytest.mark.parametrize("url", [
    "https://en.wikibooks.org/wiki/LaTeX/Tables",
    "https://en.wiktionary.org/wiki/quantile",
    "https://en.wikiversity.org/wiki/Numerical_analysis",
])
def test_sister_wiki_links_in_a_parameter_description_are_no_reference(url: str) -> None:
    text = f'''def to_latex(self, column_format=None):
    """Render as LaTeX.

    Parameters
    ----------
    column_format : str, optional
        The columns format as specified in `LaTeX table format
        <{url}>`__ e.g. 'rcl' for 3 columns.
    """
'''
    assert _refs(text) == []


def test_specification_link_in_a_parameter_description_stays_a_reference() -> None:
    # the pointer rule itself is unchanged: a specification it points to is a work
    text = '''def write(self, fmt=None):
    """Write.

    Parameters
    ----------
    fmt : str
        The format as specified in `RFC 4180 <https://www.rfc-editor.org/rfc/rfc4180>`__.
    """
'''
    assert [(r[0], r[1]) for r in _refs(text)] == [(7, "rfc")]
