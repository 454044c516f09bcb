"""Terminal output people can read: every command that prints a table, run at COLUMNS=80 on a
real graph (the standard library's json and email packages, papers, a session log), prints no
line longer than 80 characters and never splits an id across lines; `--wide` prints full ids;
the shortening and column-dropping rules of api/output.py."""

from __future__ import annotations

import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.output import Column, fit_widths, shorten_id, shorten_ids
from tests.helpers import ROOT, STDLIB, vgdb_in_process

PAPER = "paper:doi:10.1038/s41598-019-41695-z"
NOTE = ('"""Community detection as in Traag, Waltman and van Eck (2019),\n'
        'https://doi.org/10.1038/s41598-019-41695-z, which refines Louvain."""\n\n\n'
        "def leiden_partition_with_a_rather_long_descriptive_name(graph, resolution=1.0):\n"
        '    """Partition ``graph`` (see doi:10.1038/s41598-019-41695-z)."""\n'
        "    return graph\n")


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    tmp = tmp_path_factory.mktemp("output")
    tree = tmp / "stdlib"
    for package in ("json", "email"):
        shutil.copytree(STDLIB / package, tree / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "community").mkdir()
    (tree / "community" / "leiden_notes.py").write_text(NOTE)
    (tmp / "session.jsonl").write_text("\n".join(json.dumps(e) for e in (
        {"type": "session_start", "ts": "2026-11-02T09:00:00Z", "session": "s1",
         "title": "Communities", "agent": "claude-code", "repo": "stdlib"},
        {"type": "decision", "ts": "2026-11-02T09:01:00Z", "session": "s1", "id": "d1",
         "title": "Detect communities with Leiden rather than Louvain in the partitioner",
         "content": "Louvain may yield badly connected communities.",
         "files": ["community/leiden_notes.py"], "papers": ["doi:10.1038/s41598-019-41695-z"]},
    )) + "\n")
    yield tree, tmp / "db"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    run = vgdb_in_process(capsys, *args)
    assert run.returncode == 0, (args, run.stderr)
    return run.stdout


@pytest.fixture(scope="module")
def db(graph: tuple[Path, Path]) -> Path:
    from api.cli import main

    tree, db = graph
    for argv in (["ingest", str(tree), "--db", str(db), "--no-communities"],
                 ["ingest-papers", str(ROOT / "datasets/academic/platform.bib"),
                  str(ROOT / "datasets/academic/papers.jsonl"), "--db", str(db)],
                 ["ingest-session", str(ROOT / "datasets/sessions/example-session.jsonl"),
                  str(tree.parent / "session.jsonl"), "--db", str(db)],
                 ["token", "create", "ci-reader-with-a-long-name", "--db", str(db)]):
        try:
            main(argv)
        except SystemExit as exc:
            assert not exc.code, argv
    return db


#: every command that prints a table (docs/cli.md), with arguments that give it rows
TABLES: list[tuple[str, ...]] = [
    ("cypher", "MATCH (s:Symbol) WHERE s.docstring <> '' RETURN s.id, s.kind, s.qualname, "
               "s.signature, s.docstring ORDER BY s.id LIMIT 25"),
    ("cypher", "MATCH (f:File) RETURN f.id, f.path, f.language, f.size ORDER BY f.id LIMIT 40"),
    ("overview",),
    ("token", "list"),
    ("search", "decode a JSON document into Python objects", "--k", "12"),
    ("search", "parse email message headers", "--k", "8", "--table", "Symbol"),
    ("referenced-papers", "community/leiden_notes.py"),
    ("paper-code", PAPER),
    ("decisions-based-on", PAPER),
    ("citations", PAPER, "--depth", "2"),
    ("config", str(ROOT)),
]


@pytest.mark.parametrize("args", TABLES, ids=lambda a: " ".join(a)[:40])
def test_tables_fit_80_columns_without_splitting_an_id(args: tuple[str, ...], db: Path,
                                                       capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    extra = () if args[0] == "config" else ("--db", str(db))
    text = _run(capsys, *args, *extra)
    lines = text.splitlines()
    assert len(lines) >= 3, text  # a header, a rule and at least one row
    too_long = [line for line in lines if len(line) > 80]
    assert not too_long, "\n".join(too_long)
    data = json.loads(_run(capsys, *args, *extra, "--json"))
    ids = _ids(data)
    if args[0] not in ("config", "overview", "token"):
        assert ids, "the JSON holds node ids"
    for node_id, short in shorten_ids(ids).items():
        whole = any(short in line for line in lines)
        cut = any(f"…{short[-(len(short) // 3):]}" in line or "…" in line for line in lines)
        assert whole or cut, f"{node_id} ({short}) is neither shown whole nor cut with …"
        if not whole:
            for a, b in itertools.pairwise(lines):  # never split across two lines
                assert not (b.lstrip() and short.startswith(a.rstrip()[-8:]) and
                            short.endswith(b.strip()[:8])), (a, b)


def _ids(data: object, key: str = "") -> list[str]:
    """The node ids in the rows of a command's JSON (values of keys ``id``, ``*.id``, ``paper``,
    ``node``: what the table's id column shows)."""
    out: list[str] = []
    if isinstance(data, dict):
        for k, v in data.items():
            out += _ids(v, k)
    elif isinstance(data, list):
        for v in data:
            out += _ids(v, key)
    elif isinstance(data, str) and (key in ("id", "node", "paper") or key.endswith(".id")) and \
            data.split(":", 1)[0] in ("sym", "file", "paper", "entry"):
        out.append(data)
    return out


def test_wide_prints_full_ids(db: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    query = "MATCH (s:Symbol) WHERE s.qualname = 'JSONDecoder.raw_decode' RETURN s.id, s.qualname"
    narrow = _run(capsys, "cypher", query, "--db", str(db))
    wide = _run(capsys, "cypher", query, "--db", str(db), "--wide")
    assert "decoder.py#JSONDecoder.raw_decode" in narrow
    assert "sym:stdlib/json/decoder.py#JSONDecoder.raw_decode" not in narrow
    assert "sym:stdlib/json/decoder.py#JSONDecoder.raw_decode" in wide


def test_shortened_ids_stay_distinct() -> None:
    ids = ["sym:std/json/decoder.py#JSONDecoder.raw_decode", "sym:std/a/util.py#f",
           "sym:std/b/util.py#f", "file:std/email/mime/text.py", "commit:0123456789abcdef00",
           "repo:std", "paper:doi:10.1/x", "sym:r1/x.py#f", "sym:r2/x.py#f"]
    assert shorten_ids(ids) == {
        "sym:std/json/decoder.py#JSONDecoder.raw_decode": "decoder.py#JSONDecoder.raw_decode",
        "sym:std/a/util.py#f": "a/util.py#f", "sym:std/b/util.py#f": "b/util.py#f",
        "file:std/email/mime/text.py": "…/mime/text.py", "commit:0123456789abcdef00":
        "0123456789", "repo:std": "std", "paper:doi:10.1/x": "paper:doi:10.1/x",
        "sym:r1/x.py#f": "sym:r1/x.py#f", "sym:r2/x.py#f": "sym:r2/x.py#f"}  # only repos differ
    assert shorten_id("file:std/json/decoder.py") == "json/decoder.py"


def test_columns_are_dropped_by_priority_then_shrunk() -> None:
    columns = [Column("id", kind="id"), Column("kind", priority=3), Column("score", 1, "num"),
               Column("doc", priority=2)]
    cells = [["decoder.py#JSONDecoder.raw_decode", "method", "0.9132", "x" * 60]]
    assert fit_widths(columns, cells, 200) == ([0, 1, 2, 3], [33, 6, 6, 60])
    kept, widths = fit_widths(columns, cells, 80)  # doc shrinks, nothing dropped
    assert kept == [0, 1, 2, 3] and sum(widths) + 3 * 3 <= 80 and widths[0] == 33
    # kind (priority 3) goes so that the id stays whole; doc shrinks
    assert fit_widths(columns, cells, 56) == ([0, 2, 3], [33, 6, 11])
    assert fit_widths(columns, cells, 44) == ([0, 2], [33, 6])  # then doc (priority 2)
    assert fit_widths(columns, cells, 30) == ([0], [30])  # all but the id, which is cut


def test_ingest_batch_table_fits_80_columns(graph: tuple[Path, Path], tmp_path: Path, capsys,
                                            monkeypatch) -> None:
    tree, _ = graph
    manifest = tmp_path / "batch.toml"
    manifest.write_text(
        f'[[repositories]]\npath = "{tree / "json"}"\nname = "json-with-a-long-repository-name"\n'
        f'[[repositories]]\npath = "{tree / "community"}"\n')
    monkeypatch.setenv("COLUMNS", "80")
    text = _run(capsys, "ingest-batch", str(manifest), "--db", str(tmp_path / "db"),
                "--no-communities")
    lines = text.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert any(line.startswith("json-with-a-long-repository-name") for line in lines), text
    assert any(line.startswith("community ") for line in lines), text
