"""Bad inputs never abort a batch (DESIGN §3): each one is reported (which file, why) in the
ingest summary and on its File node, and the rest of the tree is ingested.

Every case writes a real tree to disk (or copies real broken files from CPython's own test
suite) and goes through ``ingest_repository`` or the real ``vgdb`` CLI in a subprocess.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import ingest.pipeline
from graphdb import Store
from ingest import IngestOptions, IngestSummary, ingest_repository
from ingest.walk import Candidate, Skipped
from schema import IngestError, file_id
from tests.helpers import ROOT, STDLIB, run_vgdb, write_tree

Tree = Callable[[dict[str, str | bytes]], Path]

REPO = "src"  # the ``tree`` fixture writes to tmp_path/src, so the repository is named "src"


# ------------------------------------------------------------------------------ helpers
def _files(store: Store) -> dict[str, tuple[str, str]]:
    """Current File rows: path -> (parse_status, parse_error)."""
    rows = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL "
                        "RETURN f.path, f.parse_status, f.parse_error")
    return {path: (status, error) for path, status, error in rows.rows()}


def _symbols(store: Store, path: str) -> dict[str, str]:
    """Current symbols of one file: qualname -> docstring."""
    rows = store.cypher("MATCH (s:Symbol) WHERE s.file = $f AND s.valid_to IS NULL "
                        "RETURN s.qualname, s.docstring", {"f": file_id(REPO, path)})
    return dict(rows.rows())


def _symbol_count(store: Store, path: str) -> int:
    return int(store.cypher("MATCH (s:Symbol) WHERE s.file = $f AND s.valid_to IS NULL "
                            "RETURN count(*)", {"f": file_id(REPO, path)}).item())


def _reasons(entries: list[dict[str, str]]) -> dict[str, str]:
    return {e["path"]: e["reason"] for e in entries}


def _ingest_json(root: Path, db: Path, *args: str,
                 timeout: float = 120) -> dict[str, object]:
    proc = run_vgdb("ingest", str(root), "--db", str(db), "--json", *args, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ------------------------------------------------------------------------------ syntax errors
BROKEN = """\
import os


def before(x):
    return os.path.join(x, "a")


def broken(:
    pass


class After:
    def method(self):
        return before(1) +


def last():
    return After().method()
"""


def test_syntax_errors_keep_symbols_around_the_error_and_the_good_files(
        tree: Tree, store: Store) -> None:
    root = tree({
        "app/__init__.py": "",
        "app/broken.py": BROKEN,
        "app/good.py": """
            from app.broken import before


            def use():
                return before(2)
            """,
        "app/also_good.py": "class Fine:\n    def ok(self):\n        return 1\n",
    })
    summary = ingest_repository(store, root)

    assert _reasons(summary.to_dict()["partial"]) == {
        "app/broken.py": "syntax errors at lines 8, 14"}
    assert summary.skipped == []
    files = _files(store)
    assert files == {
        "app/__init__.py": ("ok", ""),
        "app/broken.py": ("partial", "syntax errors at lines 8, 14"),
        "app/good.py": ("ok", ""),
        "app/also_good.py": ("ok", ""),
    }
    # symbols before, at and after both errors survive
    assert set(_symbols(store, "app/broken.py")) == {
        "<module>", "before", "broken", "After", "After.method", "last"}
    assert set(_symbols(store, "app/good.py")) == {"<module>", "use"}
    assert set(_symbols(store, "app/also_good.py")) == {"<module>", "Fine", "Fine.ok"}
    # and they take part in resolution: calls into and out of the broken file
    calls = store.cypher(
        "MATCH (a:Symbol)-[:CALLS]->(b:Symbol) RETURN a.qualname AS a, b.qualname AS b")
    pairs = set(calls.rows())
    assert ("use", "before") in pairs
    assert ("After.method", "before") in pairs


# CPython ships deliberately broken source files for its tokenizer/compiler tests. In 3.11.7
# they live in test/tokenizedata/ (older releases kept them directly in test/).
_CPYTHON_TEST = STDLIB / "test"
_CPYTHON_BAD = sorted(
    p for d in (_CPYTHON_TEST, _CPYTHON_TEST / "tokenizedata")
    for pattern in ("badsyntax_*.py", "bad_coding*.py") for p in d.glob(pattern))


def test_cpython_broken_test_files_are_reported_and_never_abort_the_run(
        tree: Tree, store: Store) -> None:
    assert len(_CPYTHON_BAD) >= 3, f"expected CPython's bad*.py fixtures in {_CPYTHON_TEST}"
    root = tree({"good.py": "def fine():\n    return 1\n"})
    (root / "cpython").mkdir()
    for path in _CPYTHON_BAD:
        shutil.copyfile(path, root / "cpython" / path.name)

    summary = ingest_repository(store, root)
    data = summary.to_dict()

    files = _files(store)
    assert files["good.py"] == ("ok", "")
    assert set(_symbols(store, "good.py")) == {"<module>", "fine"}
    partial = _reasons(data["partial"])
    for path in _CPYTHON_BAD:
        rel = f"cpython/{path.name}"
        status, error = files[rel]
        assert status in ("ok", "partial"), (rel, status, error)
        assert "<module>" in _symbols(store, rel)
        if path.name.startswith("badsyntax_"):
            # CPython refuses to compile these; vgdb must say why (syntax or encoding)
            assert error, f"{rel} was ingested without a note"
        if status == "partial":
            assert partial[rel] == error and error.startswith("syntax errors at lines ")
    by_name = {p.name: f"cpython/{p.name}" for p in _CPYTHON_BAD}
    if "badsyntax_3131.py" in by_name:  # `€ = 2`: not an identifier
        assert files[by_name["badsyntax_3131.py"]] == ("partial", "syntax errors at lines 2")
    if "badsyntax_pep3120.py" in by_name:  # latin-1 bytes, no coding cookie
        assert files[by_name["badsyntax_pep3120.py"]] == (
            "ok", "not UTF-8; decoded as latin-1")


# ------------------------------------------------------------------------------ encodings
def _docstring_module(cookie: str | None, docstring: str, encoding: str) -> bytes:
    head = f"# -*- coding: {cookie} -*-\n" if cookie else ""
    return (head + f'def f():\n    """{docstring}"""\n    return 1\n').encode(encoding)


def test_latin1_file_with_coding_cookie_is_decoded_with_that_encoding(
        tree: Tree, store: Store) -> None:
    root = tree({"latin.py": _docstring_module("latin-1", "café crème", "latin-1")})
    ingest_repository(store, root)
    assert _symbols(store, "latin.py")["f"] == "café crème"
    # the file says what it is, as PEP 263 allows: nothing to flag
    assert _files(store)["latin.py"] == ("ok", "")


def test_cp1252_cookie_is_honoured_not_guessed_as_latin1(tree: Tree, store: Store) -> None:
    """0x80 is '€' in cp1252 but a C1 control in latin-1: only the cookie gets it right."""
    root = tree({"win.py": _docstring_module("cp1252", "5 € café", "cp1252")})
    ingest_repository(store, root)
    assert _symbols(store, "win.py")["f"] == "5 € café"
    assert _files(store)["win.py"] == ("ok", "")


def test_latin1_cookie_wins_even_when_the_bytes_happen_to_be_valid_utf8(
        tree: Tree, store: Store) -> None:
    """PEP 263: the declared encoding decodes the file. The latin-1 text 'Ã©tÃ©' is the bytes
    C3 A9 74 C3 A9, which are also valid UTF-8 (for 'été'); Python reads 'Ã©tÃ©', so must
    vgdb."""
    source = _docstring_module("latin-1", "Ã©tÃ©", "latin-1")
    assert source.decode("utf-8")  # the trap: these latin-1 bytes are valid UTF-8
    root = tree({"mojibake.py": source})
    ingest_repository(store, root)
    function = ast.parse(source).body[0]  # what Python itself reads (it honours the cookie)
    assert isinstance(function, ast.FunctionDef) and ast.get_docstring(function) == "Ã©tÃ©"
    assert _symbols(store, "mojibake.py")["f"] == "Ã©tÃ©"


def test_latin1_file_without_cookie_is_decoded_as_latin1_with_a_note(
        tree: Tree, store: Store) -> None:
    root = tree({"nocookie.py": _docstring_module(None, "naïve", "latin-1"),
                 "ok.py": "def g():\n    return 2\n"})
    summary = ingest_repository(store, root)
    assert _symbols(store, "nocookie.py")["f"] == "naïve"
    assert _files(store) == {"nocookie.py": ("ok", "not UTF-8; decoded as latin-1"),
                             "ok.py": ("ok", "")}
    assert summary.skipped == [] and summary.partial == []


def test_python_file_with_nul_bytes_is_skipped_as_binary(tree: Tree, store: Store) -> None:
    root = tree({"blob.py": b"x = 1\n\x00\x00\x01\x02binary\n",
                 "real.py": "def real():\n    return 1\n"})
    summary = ingest_repository(store, root)
    assert _reasons(summary.to_dict()["skipped"]) == {"blob.py": "binary (NUL bytes)"}
    assert _files(store) == {"blob.py": ("skipped", "binary (NUL bytes)"),
                             "real.py": ("ok", "")}
    assert _symbol_count(store, "blob.py") == 0
    assert set(_symbols(store, "real.py")) == {"<module>", "real"}


# ------------------------------------------------------------------------------ sizes
def _ten_megabyte_module(path: Path) -> int:
    """Write ~10 MB of Python: assignments padded by long comment lines (parsing 10 MB of
    bare ``x_N = N`` lines makes half a million symbols and takes ~25 s; this keeps the
    size and the parse, with a few thousand symbols). Returns the number of assignments."""
    pad = "# " + "-" * 2000 + "\n"
    chunks: list[str] = []
    size = n = 0
    while size < 10_000_000:
        chunk = f"x_{n} = {n}\n{pad}"
        chunks.append(chunk)
        size += len(chunk)
        n += 1
    path.write_text("".join(chunks), encoding="ascii")
    return n


@pytest.mark.slow
def test_ten_megabyte_file_is_skipped_by_default_and_ingested_with_a_higher_limit(
        tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {"small.py": "def small():\n    return 1\n"})
    n = _ten_megabyte_module(root / "huge.py")
    assert (root / "huge.py").stat().st_size >= 10_000_000
    db = tmp_path / "db"

    data = _ingest_json(root, db)
    reason = _reasons(data["skipped"])["huge.py"]  # type: ignore[arg-type]
    assert reason.startswith("too large (10.0 MB > 2.0 MB limit") and "--max-file-size" in reason
    with Store.open(db) as store:
        assert _files(store)["huge.py"] == ("skipped", reason)
        assert _symbol_count(store, "huge.py") == 0
        assert set(_symbols(store, "small.py")) == {"<module>", "small"}

    data = _ingest_json(root, db, "--max-file-size", "20000000")
    assert data["skipped"] == []
    assert data["files"]["parsed"] == 1  # type: ignore[index]
    with Store.open(db) as store:
        assert _files(store)["huge.py"] == ("ok", "")
        assert _symbol_count(store, "huge.py") == n + 1  # every assignment + the module
        last = store.cypher("MATCH (s:Symbol) WHERE s.id = $id RETURN s.kind, s.start_line",
                            {"id": f"sym:{REPO}/huge.py#x_{n - 1}"})
        assert last.rows() == [("variable", 2 * n - 1)]


def test_empty_python_file_is_ok_with_exactly_its_module_symbol(
        tree: Tree, store: Store) -> None:
    root = tree({"empty.py": "", "pkg/__init__.py": b""})
    summary = ingest_repository(store, root)
    assert summary.skipped == [] and summary.partial == []
    assert _files(store) == {"empty.py": ("ok", ""), "pkg/__init__.py": ("ok", "")}
    rows = store.cypher("MATCH (s:Symbol) WHERE s.file = $f RETURN s.qualname, s.kind",
                        {"f": file_id(REPO, "empty.py")})
    assert rows.rows() == [("<module>", "module")]
    assert _symbol_count(store, "pkg/__init__.py") == 1


# ------------------------------------------------------------------------------ odd entries
@pytest.mark.slow
def test_symlink_loops_fifos_and_dangling_links_neither_hang_nor_abort(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", {"pkg/mod.py": "def mod():\n    return 1\n",
                                         "top.py": "def top():\n    return 2\n"})
    os.symlink("..", root / "pkg" / "loop")  # directory symlink to its own parent
    os.symlink("self.py", root / "self.py")  # file symlink to itself (ELOOP when opened)
    os.symlink("nowhere.py", root / "dangling.py")  # dangling
    # A FIFO named like a source file: opening it for reading would block forever. It is not
    # a regular file, so the walk reports it without opening it.
    os.mkfifo(root / "pkg" / "fifo.py")
    db = tmp_path / "db"

    started = time.monotonic()
    data = _ingest_json(root, db, timeout=60)  # a hang fails here with TimeoutExpired
    assert time.monotonic() - started < 60
    assert _reasons(data["skipped"]) == {  # type: ignore[arg-type]
        "dangling.py": "symlink (not followed)",
        "self.py": "symlink (not followed)",
        "pkg/fifo.py": "a FIFO, not a regular file: not read",
    }
    with Store.open(db) as store:
        files = _files(store)
    assert files == {
        "pkg/mod.py": ("ok", ""), "top.py": ("ok", ""),
        "dangling.py": ("skipped", "symlink (not followed)"),
        "self.py": ("skipped", "symlink (not followed)"),
        "pkg/fifo.py": ("skipped", "a FIFO, not a regular file: not read"),
    }
    assert not any(p.startswith("pkg/loop") for p in files)  # never followed


def test_file_that_cannot_be_read_is_reported_and_the_rest_ingested(
        tree: Tree, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run as root in CI, where chmod 000 does not stop reading. What was verified as
    root: a mode-000 file and a file in a mode-000 directory are both read fine, so neither
    exercises the unreadable path. Honest root-proof way: the file disappears between the
    walk and the read (a real race with editors and `git checkout`): its open() then fails
    with a real ENOENT. When not root, a mode-000 file is added as well."""
    root = tree({"a.py": "def a():\n    return 1\n", "vanishing.py": "def v():\n    pass\n",
                 "z.py": "def z():\n    return 3\n", "locked.py": "def locked():\n    pass\n"})
    expected = {"vanishing.py": "unreadable: No such file or directory"}
    if os.geteuid() != 0:
        (root / "locked.py").chmod(0)
        expected["locked.py"] = "unreadable: Permission denied"
    real_walk = ingest.pipeline.walk

    def walk_then_delete(*args: object, **kwargs: object) -> tuple[list[Candidate],
                                                                    list[Skipped]]:
        found = real_walk(*args, **kwargs)  # type: ignore[arg-type]
        (root / "vanishing.py").unlink()
        return found

    monkeypatch.setattr(ingest.pipeline, "walk", walk_then_delete)
    try:
        summary = ingest_repository(store, root)
    finally:
        if (root / "locked.py").exists():
            (root / "locked.py").chmod(0o644)
    assert _reasons(summary.to_dict()["skipped"]) == expected
    files = _files(store)
    for path, reason in expected.items():
        assert files[path] == ("skipped", reason)
    assert files["a.py"] == files["z.py"] == ("ok", "")
    assert set(_symbols(store, "z.py")) == {"<module>", "z"}
    if "locked.py" not in expected:
        assert files["locked.py"] == ("ok", "")


# ------------------------------------------------------------------------------ bad arguments
def test_path_that_does_not_exist_is_an_ingest_error(tmp_path: Path, store: Store) -> None:
    with pytest.raises(IngestError, match="path does not exist") as info:
        ingest_repository(store, tmp_path / "missing")
    assert info.value.suggestion
    proc = run_vgdb("ingest", str(tmp_path / "missing"), "--db", str(tmp_path / "db2"))
    assert proc.returncode == 2
    assert "path does not exist" in proc.stderr


def test_file_instead_of_directory_is_an_ingest_error(tree: Tree, store: Store) -> None:
    root = tree({"one.py": "x = 1\n"})
    with pytest.raises(IngestError, match="not a directory"):
        ingest_repository(store, root / "one.py")
    assert _files(store) == {}


# ------------------------------------------------------------------------------ bad databases
@pytest.fixture
def small_tree(tmp_path: Path) -> Path:
    return write_tree(tmp_path / "src", {"a.py": "def a():\n    return 1\n"})


_HOLD = """\
import sys, time
from graphdb import Store
store = Store.open(sys.argv[1])
print("ready", flush=True)
sys.stdin.read()  # hold the database until the test closes our stdin
store.close()
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that holds ``tmp_path/db`` open read-write."""
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path / "db")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield proc
    finally:
        proc.communicate(timeout=30)  # closes stdin: the holder lets go and exits


@pytest.mark.slow
def test_locked_database_exits_3_naming_the_holder(
        tmp_path: Path, small_tree: Path, holder: subprocess.Popen[str]) -> None:
    proc = run_vgdb("ingest", str(small_tree), "--db", str(tmp_path / "db"))
    assert proc.returncode == 3, proc.stderr
    assert "locked" in proc.stderr
    assert f"process {holder.pid}" in proc.stderr
    assert "hint:" in proc.stderr


@pytest.mark.parametrize("damage", ["garbage-file", "garbage-header"])
def test_corrupt_database_exits_1_with_a_hint(tmp_path: Path, small_tree: Path,
                                              damage: str) -> None:
    db = tmp_path / "db"
    with Store.open(db) as store:
        ingest_repository(store, small_tree)
    graph = db / "graph.lbug"
    if damage == "garbage-file":
        graph.write_bytes(os.urandom(64 * 1024))
    else:  # keep the magic, garble the rest of the header
        with graph.open("r+b") as handle:
            handle.seek(8)
            handle.write(b"\xde\xad\xbe\xef" * 64)
    damaged = graph.read_bytes()
    proc = run_vgdb("ingest", str(small_tree), "--db", str(db))
    assert proc.returncode == 1, proc.stderr
    assert "does not match the checksum" in proc.stderr
    assert "hint:" in proc.stderr and "nothing was changed" in proc.stderr.lower()
    assert "internal error" not in proc.stderr
    assert graph.read_bytes() == damaged


def test_a_vgdb_01_database_read_only_says_to_migrate(tmp_path: Path) -> None:
    db = tmp_path / "db"
    db.mkdir()
    (db / "graph.kz").write_bytes(b"a Kuzu 0.11.3 file")
    (db / "manifest.json").write_text(json.dumps({
        "format": "vectorgraphdb", "schema_version": 5, "kuzu_version": "0.11.3"}),
        encoding="utf-8")
    proc = run_vgdb("overview", "--db", str(db))
    assert proc.returncode == 1, proc.stderr
    assert "was written by vgdb 0.1 (Kuzu 0.11.3)" in proc.stderr
    assert "hint: run `vgdb migrate`" in proc.stderr
    assert (db / "graph.kz").read_bytes() == b"a Kuzu 0.11.3 file"


# ------------------------------------------------------------------------------ what is walked
IGNORE_TREE: dict[str, str | bytes] = {
    ".gitignore": "ignored.py\ngenerated/\n",
    "keep.py": "def keep():\n    return 1\n",
    "ignored.py": "def ignored():\n    pass\n",
    "generated/out.py": "def out():\n    pass\n",
    "sub/.gitignore": "local_*.py\n",
    "sub/kept.py": "def kept():\n    pass\n",
    "sub/local_tmp.py": "def tmp():\n    pass\n",
    "other/local_here.py": "def here():\n    pass\n",  # sub/.gitignore does not reach here
    "node_modules/lib/index.js": "export function lib() { return 1; }\n",
    ".venv/lib/site.py": "def site():\n    pass\n",
}
_KEPT = {"keep.py", "sub/kept.py", "other/local_here.py"}


def test_gitignore_files_nested_too_are_respected(tree: Tree, store: Store) -> None:
    root = tree(IGNORE_TREE)
    summary = ingest_repository(store, root)
    assert set(_files(store)) == _KEPT
    assert summary.files_seen == len(_KEPT) and summary.skipped == []
    ingested = store.cypher("MATCH (s:Symbol) WHERE s.name IN ['ignored', 'out', 'tmp', 'lib', "
                            "'site'] RETURN count(*)").item()
    assert ingested == 0


@pytest.mark.slow
def test_default_excludes_skip_vendored_dirs_unless_disabled(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "src", IGNORE_TREE)
    with Store.open(tmp_path / "db1") as store:
        ingest_repository(store, root, options=IngestOptions(gitignore=False))
        assert set(_files(store)) == _KEPT | {"ignored.py", "generated/out.py",
                                              "sub/local_tmp.py"}

    data = _ingest_json(root, tmp_path / "db2", "--no-default-excludes")
    assert data["files"]["seen"] == len(_KEPT) + 2  # type: ignore[index]
    with Store.open(tmp_path / "db2") as store:
        files = _files(store)
        assert set(files) == _KEPT | {"node_modules/lib/index.js", ".venv/lib/site.py"}
        assert files["node_modules/lib/index.js"] == ("ok", "")
        assert "lib" in {q.rsplit(".", 1)[-1] for q in _symbols(store,
                                                                  "node_modules/lib/index.js")}


def test_summary_is_an_ingest_summary_with_paths_and_reasons(tree: Tree, store: Store) -> None:
    """The --json shape the cases above rely on: lists of {path, reason}, counted in files."""
    root = tree({"bad.py": "def f(:\n", "bin.py": b"\x00", "good.py": "x = 1\n"})
    summary = ingest_repository(store, root)
    assert isinstance(summary, IngestSummary)
    data = summary.to_dict()
    assert data["files"]["skipped"] == 1 and data["files"]["partial"] == 1
    assert data["skipped"] == [{"path": "bin.py", "reason": "binary (NUL bytes)"}]
    assert [e["path"] for e in data["partial"]] == ["bad.py"]
    assert data["nodes"]["File"] == 3


def test_a_file_skipped_for_the_same_reason_is_not_a_change(tree: Tree, store: Store) -> None:
    """A permanently skipped file (too large) must not make every re-ingest an update."""
    root = tree({"ok.py": "def f():\n    pass\n", "big.py": "x = 1\n" * 2000})
    options = IngestOptions(max_file_size=5_000)
    first = ingest_repository(store, root, options=options).to_dict()
    assert [s["path"] for s in first["skipped"]] == ["big.py"]
    again = ingest_repository(store, root, options=options).to_dict()
    assert (again["files"]["parsed"], again["files"]["modified"], again["files"]["added"]) == \
        (0, 0, 0)
    assert again["files"]["unchanged"] == 2
