"""References found in text become stub records keyed like bibliographic ones."""

from __future__ import annotations

from ingest.academic.links import text_record
from ingest.academic.references import FoundReference


def _ref(scheme: str, value: str, title: str | None = None) -> FoundReference:
    return FoundReference(scheme, value, 3, "cites", title, 2008 if title else None, value)


def test_text_references_become_keyed_stubs() -> None:
    rfc = text_record(_ref("rfc", "9110"), "text:a.py:3")
    assert (rfc.kind, rfc.doi, rfc.stub, rfc.format) == ("rfc", "10.17487/rfc9110", True, "text")
    doi = text_record(_ref("doi", "10.1038/s41598-019-41695-z"), "text:a.py:3")
    assert (doi.doi, doi.kind) == ("10.1038/s41598-019-41695-z", "paper")
    arxiv = text_record(_ref("arxiv", "1603.09320"), "s")
    assert arxiv.arxiv == "1603.09320"
    url = text_record(_ref("url", "https://arxiv.org/abs/1603.09320v2"), "s")
    assert url.arxiv == "1603.09320"
    page = text_record(_ref("url", "https://www.unicode.org/reports/tr29/"), "s")
    assert (page.kind, page.url, page.title) == (
        "doc", "https://www.unicode.org/reports/tr29/", "https://www.unicode.org/reports/tr29/")
    cited = text_record(_ref("citation", "Blondel et al. 2008", title="Fast unfolding"), "s")
    assert (cited.title, cited.year) == ("Fast unfolding", 2008)
    assert text_record(_ref("citation", "see the paper"), "s") is None
    assert text_record(_ref("doi", "not-a-doi"), "s") is None
