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


def _lines_of(text: str, offsets: list[int]) -> set[int]:
    return {text.count("\n", 0, offset) for offset in offsets}


def test_the_split_cues_hold_a_match_on_the_same_lines_as_the_cues() -> None:
    """Each cue is found one alternative at a time (``scan_cues``): the lines holding a
    match are the lines the whole alternation finds, on text made to trip the split
    (alternatives inside each other's matches, matches across lines, each alternative)."""
    import re

    from ingest.academic.scan_cues import SPLIT_CUES, cue_starts

    text = ("see https://doi.org/10.1234/x and ftp://a/1234567 rfc arxiv http://b\n"
            "the works\n  cited here; references: a bibliography, be\n found in:\n"
            "literature citation 1999a), 2020; 19999) 2001, 1900, 20201)\n"
            "see: \"Title\" discussed, see\nsee \u201cT\u201d, described explained detailed "
            "introduced proposed presented published seen see x\n"
            "nothing here /123456 10.123 works  be found\n")
    low = text.lower()
    lines = []
    for pattern in SPLIT_CUES:  # the cues of ingest.academic.references, as written there
        cue = re.compile(pattern, re.MULTILINE)
        whole = [m.start() for m in cue.finditer(low)]
        assert whole  # the text exercises every cue
        lines.append(_lines_of(low, cue_starts(low, cue)))
        assert lines[-1] == _lines_of(low, whole), pattern
    assert lines == [{0}, {1, 2, 4}, {4}, {5, 6}]


def test_an_unlisted_cue_is_scanned_as_written() -> None:
    import re

    from ingest.academic.scan_cues import SPLIT_CUES, cue_starts

    cue = re.compile(r"a\s+b|c")
    assert cue.pattern not in SPLIT_CUES
    assert cue_starts("a \n b c", cue) == [0, 6]
