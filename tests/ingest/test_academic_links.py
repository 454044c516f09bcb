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


def test_an_update_rereads_only_the_changed_code_files(tmp_path) -> None:
    """Unchanged code files are neither read again nor lose their edges; a changed file's
    old reference is replaced by its new one."""
    from graphdb import Store
    from ingest.pipeline import IngestOptions, ingest_repository
    from tests.helpers import write_tree

    root = tmp_path / "src"
    root.mkdir()
    write_tree(root, {
        "a.py": 'def leiden():\n    """Implements doi:10.1038/s41598-019-41695-z."""\n',
        "b.py": 'def hnsw():\n    """See arXiv:1603.09320."""\n',
        "README.md": "Docs: RFC 8259.\n",
    })
    edges = ("MATCH (n)-[e:REFERENCES]->(p:Paper) RETURN n.id AS node, p.id AS paper, "
             "e.location AS location ORDER BY node, paper")
    with Store.open(tmp_path / "db") as store:
        first = ingest_repository(store, root, options=IngestOptions(name="r"))
        assert first.papers["scanned_files"] == 3
        before = store.cypher(edges).rows()
        (root / "a.py").write_text('def leiden():\n    """Implements arXiv:1810.08473."""\n')
        second = ingest_repository(store, root, options=IngestOptions(name="r"))
        after = store.cypher(edges).rows()
    assert second.papers["scanned_files"] == 2  # a.py and README.md, not b.py
    assert ("sym:r/b.py#hnsw", "paper:arxiv:1603.09320", "b.py:2") in before
    assert [row for row in after if row[0].startswith("sym:r/b.py")] == [
        ("sym:r/b.py#hnsw", "paper:arxiv:1603.09320", "b.py:2")]
    assert [row[1] for row in after if row[0].startswith("sym:r/a.py")] == [
        "paper:arxiv:1810.08473"]
