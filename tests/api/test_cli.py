"""The ``vgdb`` CLI, run in-process through ``api.cli.main`` (and end to end in a subprocess
where the entry point itself is under test): output, exit codes and the error presenter."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from api.cli import COMMANDS, cli, main
from graphdb import Store
from ingest import ingest_repository
from tests.graphdb.test_store import holding
from tests.helpers import run_vgdb, write_tree

#: Two files; by hand: symbols a:<module>, f, Child and b:<module>, Base, Base.m, g.
TREE = {
    "a.py": """
        import b


        def f():
            return b.g()


        class Child(b.Base):
            pass
        """,
    "b.py": """
        class Base:
            def m(self):
                pass


        def g():
            return 1
        """,
}
NODES = {"File": 2, "Symbol": 7, "External": 0}
# CONTAINS: repo->2 files, a.py->3 symbols, b.py->3 symbols, Base->Base.m.
EDGES = {"CONTAINS": 9, "IMPORTS": 1, "CALLS": 1, "INHERITS": 1, "TESTS": 0}


def vgdb(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    """Run ``vgdb ARGS`` in-process: (exit code, stdout, stderr)."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def one_line(text: str) -> str:
    """Rich wraps long messages at the console width; compare them as one line."""
    return " ".join(text.split())


def assert_error_shape(err: str) -> None:
    lines = err.splitlines()
    assert lines[0].startswith("error: ")
    assert any(line.startswith("hint: ") for line in lines[1:]), err


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tree(tmp_path_factory.mktemp("tree") / "proj", TREE).resolve()


@pytest.fixture(scope="module")
def db(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database holding ``project``, ingested once for the read-only tests of this module."""
    path = tmp_path_factory.mktemp("ingested") / "db"
    with Store.open(path) as store:
        ingest_repository(store, project)
    return path


# ------------------------------------------------------------------------------------- ingest
def test_ingest_json_reports_counts(capsys: pytest.CaptureFixture[str], project: Path,
                                    tmp_path: Path) -> None:
    code, out, err = vgdb(capsys, "ingest", project, "--db", tmp_path / "db", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert {"repo", "root", "files", "nodes", "edges", "seconds"} <= data.keys()
    assert (data["repo"], data["root"]) == ("proj", str(project))
    files = data["files"]
    assert (files["seen"], files["parsed"], files["added"], files["unchanged"]) == (2, 2, 2, 0)
    assert (files["skipped"], files["partial"]) == (0, 0)
    assert data["nodes"] == NODES
    # a.py's stored references: the import, the base, and what f returns (``return b.g()``:
    # f gives what b.g gives), besides its one call
    assert data["references"] == 4
    assert data["edges"] == EDGES
    assert all(isinstance(v, float | int) and v >= 0 for v in data["seconds"].values())


def test_ingest_again_reports_unchanged_files(capsys: pytest.CaptureFixture[str],
                                              project: Path, tmp_path: Path) -> None:
    vgdb(capsys, "ingest", project, "--db", tmp_path / "db", "--json")
    code, out, _ = vgdb(capsys, "ingest", project, "--db", tmp_path / "db", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["files"]["parsed"], data["files"]["unchanged"]) == (0, 2)
    assert (data["nodes"], data["edges"]) == (NODES, EDGES)


def test_ingest_human_output_end_to_end(project: Path, tmp_path: Path) -> None:
    done = run_vgdb("ingest", str(project), "--db", str(tmp_path / "db"), "--name", "demo")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"demo ({project})"
    assert lines[1].strip().startswith("files: 2 seen, 2 parsed (2 added, 0 modified)")
    assert lines[2].strip() == "nodes: File 2, Symbol 7, External 0; references 4"


def test_ingest_of_missing_path_exits_2(capsys: pytest.CaptureFixture[str],
                                        tmp_path: Path) -> None:
    code, out, err = vgdb(capsys, "ingest", tmp_path / "nope", "--db", tmp_path / "db")
    assert (code, out) == (2, "")
    assert_error_shape(err)
    assert one_line(err).startswith(f"error: path does not exist: {tmp_path / 'nope'}")


def test_ingest_of_locked_database_exits_3(capsys: pytest.CaptureFixture[str], project: Path,
                                           tmp_path: Path) -> None:
    with holding(tmp_path / "db") as holder:
        code, out, err = vgdb(capsys, "ingest", project, "--db", tmp_path / "db")
        read_code, _, read_err = vgdb(capsys, "cypher", "RETURN 1", "--db", tmp_path / "db")
    assert (code, out) == (3, "")
    assert_error_shape(err)
    assert f"is locked for writing by process {holder.pid} " in one_line(err)
    assert read_code == 3
    assert f"process {holder.pid} " in one_line(read_err)


# ------------------------------------------------------------------------------------- cypher
def test_cypher_json_prints_rows(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, err = vgdb(capsys, "cypher", "MATCH (f:File) RETURN f.path AS path ORDER BY path",
                          "--db", db, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == [{"path": "a.py"}, {"path": "b.py"}]


@pytest.mark.parametrize("param", ['p="b.py"', "p=b.py"])
def test_cypher_param_takes_json_or_plain_string(capsys: pytest.CaptureFixture[str], db: Path,
                                                 param: str) -> None:
    code, out, _ = vgdb(capsys, "cypher", "MATCH (f:File) WHERE f.path = $p RETURN f.id AS id",
                        "--db", db, "--param", param, "--json")
    assert code == 0
    assert json.loads(out) == [{"id": "file:proj/b.py"}]


def test_cypher_param_json_number(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = vgdb(capsys, "cypher", "MATCH (s:Symbol) WHERE s.start_line > $n "
                        "RETURN s.qualname AS q ORDER BY q", "--db", db, "--param", "n=4",
                        "--json")
    assert code == 0
    assert json.loads(out) == [{"q": "Child"}, {"q": "g"}]


def test_cypher_param_without_name_exits_2(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, err = vgdb(capsys, "cypher", "RETURN 1", "--db", db, "--param", "novalue")
    assert (code, out) == (2, "")
    assert "expected NAME=VALUE" in err


def test_cypher_table_output(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, _ = vgdb(capsys, "cypher", "MATCH (f:File) RETURN f.path AS path ORDER BY path",
                        "--db", db)
    assert code == 0
    assert "a.py" in out and "b.py" in out
    assert out.splitlines()[-1] == "2 rows"


def test_cypher_write_query_exits_2(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, err = vgdb(capsys, "cypher", "MATCH (f:File) DETACH DELETE f", "--db", db)
    assert (code, out) == (2, "")
    assert_error_shape(err)
    assert one_line(err).startswith("error: read-only query refused: DETACH is not allowed here")


def test_cypher_syntax_error_exits_2_with_kuzu_message(capsys: pytest.CaptureFixture[str],
                                                       db: Path) -> None:
    code, out, err = vgdb(capsys, "cypher", "MATCH (n RETURN n", "--db", db)
    assert (code, out) == (2, "")
    assert one_line(err).startswith("error: Parser exception: Invalid input <MATCH (n RETURN>")


def test_cypher_on_missing_database_exits_1(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    code, out, err = vgdb(capsys, "cypher", "RETURN 1", "--db", tmp_path / "none")
    assert (code, out) == (1, "")
    assert_error_shape(err)
    assert one_line(err).startswith(f"error: no database at {tmp_path / 'none'}")
    assert "hint: run `vgdb ingest PATH` first" in one_line(err)
    assert not (tmp_path / "none").exists()


def test_db_defaults_to_env_variable(capsys: pytest.CaptureFixture[str], db: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VGDB_DB", str(db))
    code, out, _ = vgdb(capsys, "cypher", "MATCH (r:Repository) RETURN r.name AS n", "--json")
    assert code == 0
    assert json.loads(out) == [{"n": "proj"}]


# ----------------------------------------------------------------------------------- overview
def test_overview_lists_repositories(capsys: pytest.CaptureFixture[str], db: Path,
                                     project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # a long tmp path must not fold across lines
    code, out, _ = vgdb(capsys, "overview", "--db", db)
    assert code == 0
    assert "repositories" in out and "proj" in out and str(project) in out
    assert out.splitlines()[-1] == "1 row"


def test_overview_lists_repositories_as_json(capsys: pytest.CaptureFixture[str], db: Path,
                                             project: Path) -> None:
    code, out, _ = vgdb(capsys, "overview", "--db", db, "--json")
    rows = json.loads(out)
    assert code == 0
    assert [(r["name"], r["root"]) for r in rows] == [("proj", str(project))]
    assert rows[0]["ingested_at"]


def test_overview_of_repository_as_json(capsys: pytest.CaptureFixture[str], db: Path,
                                        project: Path) -> None:
    code, out, err = vgdb(capsys, "overview", "proj", "--db", db, "--json")
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "repo": "proj", "root": str(project), "files": 2, "symbols": 7,
        "languages": {"python": 2},
        "kinds": {"class": 2, "function": 2, "module": 2, "method": 1},
        "flagged_files": 0,
        "most_called": [{"id": "sym:proj/b.py#g", "qualname": "g", "path": "b.py",
                         "kind": "function", "count": 1, "via": "CALLS"}],
        "most_subclassed": [{"id": "sym:proj/b.py#Base", "qualname": "Base", "path": "b.py",
                             "kind": "class", "count": 1, "via": "INHERITS"}],
        "most_imported": [{"id": "file:proj/b.py", "qualname": "b", "path": "b.py",
                           "kind": "module", "count": 1, "via": "IMPORTS"}],
    }


def test_overview_of_repository_as_text(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    code, out, err = vgdb(capsys, "overview", "proj", "--db", db)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "proj: 2 files, 7 symbols, 0 flagged files"


def test_overview_of_unknown_repository_exits_1(capsys: pytest.CaptureFixture[str],
                                                db: Path) -> None:
    code, out, err = vgdb(capsys, "overview", "nope", "--db", db)
    assert (code, out) == (1, "")
    assert_error_shape(err)
    assert one_line(err).startswith("error: no repository named 'nope'")
    assert "vgdb overview" in err


# --------------------------------------------------------------------------------------- help
def _command(name: str) -> click.Command:
    """A command of the group, imported as running it would (commands load lazily)."""
    command = cli.get_command(click.Context(cli), name)
    assert command is not None, name
    return command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(name: str) -> None:
    command = _command(name)
    assert command.name == name
    assert (command.help or "").strip()
    for param in command.params:
        if isinstance(param, click.Option):
            assert (param.help or "").strip(), f"{name} {param.opts} has no help"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = vgdb(capsys, "--help")
    assert code == 0
    listed = {line.split()[0] for line in out.split("Commands:", 1)[1].splitlines()
              if line.strip()}
    assert listed == set(COMMANDS)


def test_version_and_help_import_no_command_module() -> None:
    """`vgdb --version` and `--help` import click and api.cli only (docs/cli.md: cold start):
    no command module, no polars, no database engine."""
    import subprocess
    import sys

    code = ("import sys; from api.cli import main\n"
            "try:\n    main([sys.argv[1]])\nexcept SystemExit:\n    pass\n"
            "heavy = sorted(m for m in sys.modules if m.startswith(('polars', 'ladybug', "
            "'queries', 'graphdb', 'rich', 'strawberry', 'numpy')) or m.endswith('_cli'))\n"
            "print('loaded:', heavy, file=sys.stderr)")
    for flag in ("--version", "--help"):
        done = subprocess.run([sys.executable, "-c", code, flag], capture_output=True,
                              text=True, check=True)
        assert done.stderr.strip() == "loaded: []", flag


def test_unknown_command_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = vgdb(capsys, "frobnicate")
    assert (code, out) == (2, "")
    assert "No such command 'frobnicate'" in err


def test_every_command_is_documented_in_docs_cli() -> None:
    """docs/cli.md has a section per command (sqlite-utils keeps its docs true this way)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"## `vgdb {name}" in text, f"docs/cli.md lacks a section for `vgdb {name}`"
