"""Golden tests of the reference shapes the held-out round 16 (arch and nltk docstrings,
issue 22) read wrong on its first run; one test per general category fixed after that run
(so round 16 is no longer held out for these)."""

from __future__ import annotations

import pytest

from ingest.academic.citation_text import parse_citation
from ingest.academic.references import find_references


def _refs(text: str, path: str = "pkg/mod.py") -> list[tuple[int, str, str | None,
                                                             int | None, str]]:
    return [(r.line, r.scheme, r.title, r.year, r.work) for r in find_references(text, path=path)]


def test_mention_after_a_sentence_leading_word_and_working_paper_hosts() -> None:
    text = '''def crit_values(N, case):
    """
    Parameters
    ----------
    case : str
        Following MacKinnon (1996), these stand for the type of regression run.

    References
    ----------
    MacKinnon, J.G. 2010.  "Critical Values for Cointegration Tests."
        Queen's University, Dept of Economics Working Papers 1227.
        https://ideas.repec.org/p/qed/wpaper/1227.html
    """
'''
    assert _refs(text) == [(6, "citation", None, 1996, "paper"),
                           (10, "url", "Critical Values for Cointegration Tests", 2010, "paper")]


def test_pointer_shapes_see_paren_section_and_documentation_links() -> None:
    text = '''"""
Many of the ideas are based on the CURT family of programs of Blackburn and Bos
(see http://homepages.inf.ed.ac.uk/jbos/comsem/book1.html).

See the "Tab files" section at https://omwn.org/omw1.html for documentation.

For documentation about the Twitter APIs, see `The Streaming APIs Overview
<https://dev.twitter.com/streaming/overview>`_ and `The REST APIs Overview
<https://dev.twitter.com/rest/public>`_.

For all possible values, see
http://ds9.si.edu/doc/ref/region.html#RegionFileFormat

See https://www.tartarus.org/~martin/PorterStemmer/ for the homepage
of the algorithm.
"""
'''
    assert _refs(text) == [
        (3, "url", None, None, "web"), (5, "url", None, None, "web"),
        (8, "url", "The Streaming APIs Overview", None, "manual"),
        (9, "url", "The REST APIs Overview", None, "manual")]


def test_identifier_ending_a_citation_paragraph_takes_its_title() -> None:
    text = '''def gleu():
    """
    Calculates the sentence level GLEU (Google-BLEU) score described in

        Yonghui Wu, Mike Schuster, Zhifeng Chen, Quoc V. Le, Mohammad Norouzi,
        Jeffrey Dean. (2016) Google's Neural Machine Translation System:
        Bridging the Gap between Human and Machine Translation.
        eprint arXiv:1609.08144. https://arxiv.org/pdf/1609.08144v2.pdf

    From Wu et al. (2016):
        "The BLEU score has some undesirable properties."
    """


def vocabulary_introduction(self):
    """Compute gap scores.

    From Marti A. Hearst (1997) "TextTiling: Segmenting Text into
    Multi-Paragraph Subtopic Passages", Computational Linguistics,
    23(1), pp. 33-64. https://aclanthology.org/J97-1003.pdf
    """


def meteor_score():
    """
    Calculates METEOR score for hypothesis with multiple references as
    described in "Meteor: An Automatic Metric for MT Evaluation with
    HighLevels of Correlation with Human Judgments" by Alon Lavie and
    Abhaya Agarwal, in Proceedings of ACL.
    https://www.cs.cmu.edu/~alavie/METEOR/pdf/Lavie-Agarwal-2007-METEOR.pdf
    """
'''
    assert _refs(text) == [
        (8, "arxiv", "Google's Neural Machine Translation System: Bridging the Gap between "
         "Human and Machine Translation", 2016, "paper"),
        (20, "url", "TextTiling: Segmenting Text into Multi-Paragraph Subtopic Passages", 1997,
         "paper"),
        (30, "url", "Meteor: An Automatic Metric for MT Evaluation with HighLevels of "
         "Correlation with Human Judgments", None, "paper")]


def test_bulleted_list_after_can_be_found_in_is_a_references_list() -> None:
    text = '''class SimpleGoodTuringProbDist:
    """
    Details of Simple Good-Turing algorithm can be found in:

    - Good Turing smoothing without tears" (Gale & Sampson 1995),
      Journal of Quantitative Linguistics, vol. 2 pp. 217-237.
    - "Speech and Language Processing (Jurafsky & Martin),
      2nd Edition, Chapter 4.5 p103 (log(Nc) =  a + b*log(c))
    - https://www.grsampson.net/RGoodTur.html

    Given a set of pair (xi, yi), we want to minimize their square variation.
    """
'''
    assert _refs(text) == [
        (5, "citation", "Good Turing smoothing without tears", 1995, "paper"),
        (7, "citation", "Speech and Language Processing", None, "book"),
        (9, "url", None, None, "web")]


def test_citation_paragraph_without_heading() -> None:
    text = '''class PorterStemmer:
    """
    A word stemmer based on the Porter stemming algorithm.

        Porter, M. "An algorithm for suffix stripping."
        Program 14.3 (1980): 130-137.

    Martin Porter has endorsed several modifications (1990).
    """
'''
    assert _refs(text)[0] == (5, "citation", "An algorithm for suffix stripping", 1980, "paper")


@pytest.mark.parametrize(("url", "work"), [
    ("https://pubs.opengroup.org/onlinepubs/9699919799/basedefs/V1_chap04.html", "standard"),
    ("https://ideas.repec.org/p/qed/wpaper/1227.html", "paper"),
])
def test_standard_and_working_paper_hosts(url: str, work: str) -> None:
    assert parse_citation(url, url=url, scheme="url").work == work
