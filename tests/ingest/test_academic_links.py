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


def _papers_tree(tmp_path):
    from tests.helpers import write_tree

    root = tmp_path / "src"
    root.mkdir()
    write_tree(root, {
        "a.py": 'def leiden():\n    """Implements doi:10.1038/s41598-019-41695-z."""\n',
        "plain.py": "def add(x):\n    return x + 1\n",
        "other.py": "def sub(x):\n    return x - 1\n",
        "README.md": "Docs: RFC 8259.\n",
    })
    return root


_EDGES = ("MATCH (n)-[e:REFERENCES]->(p:Paper) RETURN n.id AS node, p.id AS paper, "
          "e.location AS location ORDER BY node, paper")


def test_an_edit_without_references_reads_only_its_own_file(tmp_path) -> None:
    """When documents, bibliographies, commits and entries are as the last run left them,
    an edit of a file that references no paper, before or after, reads that file alone and
    leaves every edge as it was; a later run without changes still stops at once."""
    from graphdb import Store
    from ingest.pipeline import IngestOptions, ingest_repository

    root = _papers_tree(tmp_path)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
        before = store.cypher(_EDGES).rows()
        (root / "plain.py").write_text("def add(x):\n    y = x\n    return y + 1\n")
        edit = ingest_repository(store, root, options=IngestOptions(name="r")).papers
        assert (edit["scanned_files"], edit["references"], edit["written"]) == (1, 0, {})
        assert edit["unchanged"] is False
        assert store.cypher(_EDGES).rows() == before
        again = ingest_repository(store, root, options=IngestOptions(name="r")).papers
        assert again["unchanged"] is True
    assert [row[2] for row in before] == ["README.md:1", "a.py:2"]


def test_a_reference_gained_lost_or_a_changed_document_reads_everything(tmp_path) -> None:
    """The short cut is not taken when the changed file references a paper now, or did
    before (its edge must go), or when a document changed: then the step reads what it
    always reads (the changed code files, every document) and the edges follow."""
    from graphdb import Store
    from ingest.pipeline import IngestOptions, ingest_repository

    root = _papers_tree(tmp_path)
    with Store.open(tmp_path / "db") as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
        (root / "plain.py").write_text('def add(x):\n    """See arXiv:1603.09320."""\n')
        gained = ingest_repository(store, root, options=IngestOptions(name="r")).papers
        assert gained["scanned_files"] == 2  # plain.py and README.md
        assert ("sym:r/plain.py#add", "paper:arxiv:1603.09320", "plain.py:2") in \
            store.cypher(_EDGES).rows()
        (root / "plain.py").write_text("def add(x):\n    return x + 1\n")
        lost = ingest_repository(store, root, options=IngestOptions(name="r")).papers
        assert lost["scanned_files"] == 2
        assert [row[0] for row in store.cypher(_EDGES).rows()] == [
            "file:r/README.md", "sym:r/a.py#leiden"]
        (root / "README.md").write_text("Docs: RFC 7159.\n")
        (root / "other.py").write_text("def sub(x):\n    return x - 2\n")
        doc = ingest_repository(store, root, options=IngestOptions(name="r")).papers
        assert doc["scanned_files"] == 2  # other.py and README.md
        assert [row[1] for row in store.cypher(_EDGES).rows()] == [
            "paper:doi:10.17487/rfc7159", "paper:doi:10.1038/s41598-019-41695-z"]


def test_the_code_walk_lists_what_the_papers_step_would_find_walking_itself(tmp_path) -> None:
    """One walk of the tree serves both steps (ingest.walk.TextListing): the papers step
    given the code walk's listing finds the same bibliographies, reads the same files and
    reports the same problems as when it walks the tree itself."""
    import os

    from graphdb import Store
    from ingest.academic.links import link_repository
    from ingest.pipeline import IngestOptions, ingest_repository
    from tests.helpers import write_tree

    root = tmp_path / "src"
    write_tree(root, {
        "refs.bib": "@article{k, title={Fast unfolding}, doi={10.1088/1742-5468/2008/10/P10008}}\n",
        "docs/guide.md": "See RFC 8259.\n",
        "docs/notes.txt": "arXiv:1603.09320\n",
        "docs/image.png": b"\x89PNG",
        "pkg/a.py": 'def f():\n    """doi:10.1038/s41598-019-41695-z"""\n',
        "pkg/big.py": "x = 1\n" * 400,
        "ignored/x.md": "RFC 1\n",
        ".gitignore": "ignored/\n",
        "build/out.md": "RFC 2\n",
    })
    (root / "pkg" / "link.md").symlink_to(root / "docs" / "guide.md")
    os.mkdir(os.fsencode(root / "docs") + b"/caf\xe9")
    options = dict(name="r", max_file_size=1000)
    with Store.open(tmp_path / "one") as store:
        shared = ingest_repository(store, root, options=IngestOptions(**options)).papers
    with Store.open(tmp_path / "two") as store:
        ingest_repository(store, root, options=IngestOptions(papers=False, **options))
        alone = link_repository(store, root, "r", max_file_size=1000).to_dict()
    keys = ("bibliographies", "scanned_files", "references", "issues")
    assert {k: shared[k] for k in keys} == {k: alone[k] for k in keys}
    assert shared["bibliographies"] == ["refs.bib"]
    assert shared["scanned_files"] == 3  # guide.md, notes.txt, a.py (big.py is too large)
    assert shared["issues"] == [{"file": "docs/caf\\xe9", "line": 0, "severity": "error",
                                 "message": "name is not valid UTF-8 (shown with \\x "
                                            "escapes): not read"}]
