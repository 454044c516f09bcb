"""The parse workers' scan for references equals the papers step's own reading of a file."""

from __future__ import annotations

from ingest.academic.scan import decode_text, is_scanned, scan_bytes, scan_text
from ingest.worker import ParseTask, parse_file

_TEXT = ('def leiden():\n    """Implements doi:10.1038/s41598-019-41695-z."""\r\n'
         'def hnsw():\r    """See arXiv:1603.09320 \xe9."""\n\n'
         'hnsw.__doc__ = """RFC 8259."""\n').encode() + b"# bad byte \xff\r\n"


def test_decoding_matches_read_text(tmp_path) -> None:
    path = tmp_path / "a.py"
    path.write_bytes(_TEXT)
    assert decode_text(_TEXT) == path.read_text(encoding="utf-8", errors="replace")


def test_a_worker_scans_what_it_reads(tmp_path) -> None:
    (tmp_path / "a.py").write_bytes(_TEXT)
    (tmp_path / "notes.toml").write_bytes(b"x = 'RFC 8259'\n")
    result = parse_file(ParseTask(str(tmp_path / "a.py"), "a.py", "python", scan=True))
    own = scan_text((tmp_path / "a.py").read_text(encoding="utf-8", errors="replace"), "a.py")
    assert result.scan == own
    assert [(r.scheme, r.value, r.line) for r in own.found] == [
        ("doi", "10.1038/s41598-019-41695-z", 2), ("arxiv", "1603.09320", 4),
        ("rfc", "8259", 6)]
    assert own.assigned == [(6, 6, "hnsw")]
    # not asked, or not a file the papers step reads: no scan
    assert parse_file(ParseTask(str(tmp_path / "a.py"), "a.py", "python")).scan is None
    assert not is_scanned("notes.toml") and scan_bytes(b"RFC 8259", "notes.toml") is None


def test_an_ingest_links_the_same_papers_with_and_without_worker_scans(tmp_path) -> None:
    """The pipeline hands the workers' scans to the papers step; reading the files itself
    (as with --no-papers off in a shard load) gives the same edges."""
    from graphdb import Store
    from ingest.academic.links import link_repository
    from ingest.pipeline import IngestOptions, ingest_repository
    from tests.helpers import write_tree

    root = tmp_path / "src"
    root.mkdir()
    files = {f"m{i}.py": f'def f{i}():\n    """See RFC {8000 + i} and arXiv:1603.0932{i % 10}."""\n'
             for i in range(30)}
    write_tree(root, {**files, "README.md": "Docs: RFC 8259.\n"})
    (root / "crlf.py").write_bytes(_TEXT)
    edges = ("MATCH (n)-[e:REFERENCES]->(p:Paper) RETURN n.id, p.id, e.kind, e.location, "
             "e.evidence ORDER BY n.id, p.id, e.location")
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, root, options=IngestOptions(name="r", workers=2))
        by_workers = store.cypher(edges).rows()
        again = link_repository(store, root, "r")  # reads every file itself
        by_itself = store.cypher(edges).rows()
    assert summary.papers["scanned_files"] == again.scanned == 32
    assert summary.papers["references"] == again.references == 64
    assert by_workers == by_itself and len(by_workers) == 64
