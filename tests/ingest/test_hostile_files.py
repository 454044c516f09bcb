"""Files a careless user (or a hostile one) leaves in a tree, each through the real ``vgdb``
command on a real git repository (issue 23): every one is reported with its file (and line)
and why, the rest is ingested, and the exit code is the documented one — never 70.

Reads are denied for real even when the tests run as root (CI): the command runs with
CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped from its capability bounding set, so the
kernel checks a ``chmod 000`` directory's mode against root as against anyone.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
from pathlib import Path

from coverage import CoverageData

from graphdb import Store
from tests.gitrepo import GitRepo
from tests.helpers import ROOT, VGDB, run_vgdb

GOOD = "def good():\n    return 1\n"
FAST = ("--no-communities", "--no-embed")


def _repo(tmp_path: Path, files: dict[str, str | bytes] | None = None) -> GitRepo:
    repo = GitRepo(tmp_path / "proj")
    repo.commit("first", {"good.py": GOOD, **(files or {})})
    return repo


def _json(proc: subprocess.CompletedProcess[str], code: int = 0) -> dict:
    assert proc.returncode == code, proc.stderr
    return json.loads(proc.stdout)


def _current_paths(db: Path) -> set[str]:
    with Store.open(db, read_only=True) as store:
        rows = store.cypher("MATCH (f:File) WHERE f.valid_to IS NULL AND f.sha <> '' "
                            "RETURN f.path").rows()
    return {path for (path,) in rows}


# ----------------------------------------------------------------------- names, FIFOs, dirs
def test_file_name_not_utf8_is_reported_escaped_and_the_rest_ingested(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "proj")
    repo.write({"good.py": GOOD})
    root = os.fsencode(repo.root)
    Path(os.fsdecode(root + b"/bad\xff.py")).write_text("x = 1\n")
    os.mkdir(root + b"/pkg\xfe")
    Path(os.fsdecode(root + b"/pkg\xfe/m.py")).write_text("y = 2\n")
    Path(os.fsdecode(root + b"/notes\xe9.md")).write_text("see doi:10.1000/xyz\n")
    repo.commit("names git stores as bytes")
    data = _json(run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), "--json",
                          *FAST))
    reason = "name is not valid UTF-8 (shown with \\x escapes): not read; rename it"
    # documents are File nodes too (docs/languages.md), so the .md is skipped as a file
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {
        "bad\\xff.py": reason, "pkg\\xfe": reason, "notes\\xe9.md": reason}
    assert {(i["file"], i["message"]) for i in data["papers"]["issues"]} >= {
        ("notes\\xe9.md", "name is not valid UTF-8 (shown with \\x escapes): not read")}
    assert data["history"]["status"] == "ingested", data["history"]
    assert "good.py" in _current_paths(tmp_path / "db")
    text = run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db2"), *FAST)
    assert text.returncode == 0, text.stderr
    assert "skipped bad\\xff.py: name is not valid UTF-8" in text.stdout


def test_fifo_with_a_code_name_is_reported(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.mkfifo(repo.root / "x.py")
    data = _json(run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), "--json",
                          *FAST, timeout=60))
    assert {s["path"]: s["reason"] for s in data["skipped"]} == {
        "x.py": "a FIFO, not a regular file: not read"}
    assert "good.py" in _current_paths(tmp_path / "db")


def _drop_read_override() -> None:
    """In the child, before exec: give up root's licence to ignore file modes, so that a
    ``chmod 000`` directory denies it too (as it denies every other user)."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for cap in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_unreadable_directory_is_reported_by_code_and_papers_steps(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"secret/a.py": "x = 1\n", "docs/readme.md": "RFC 9110\n"})
    (repo.root / "secret").chmod(0)
    try:
        proc = subprocess.run(
            [*VGDB, "ingest", str(repo.root), "--db", str(tmp_path / "db"), "--json", *FAST],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
            text=True, timeout=120, check=False, preexec_fn=_drop_read_override)
    finally:
        (repo.root / "secret").chmod(0o755)
    data = _json(proc)
    assert [(s["path"], s["reason"]) for s in data["skipped"]] == [
        ("secret", f"unreadable directory: [Errno 13] Permission denied: "
                   f"'{repo.root / 'secret'}'")]
    assert ({"file": "secret", "line": 0, "severity": "error",
             "message": "unreadable directory: Permission denied"}
            in data["papers"]["issues"])
    assert data["papers"]["references"] == 1  # docs/readme.md was still read
    assert "good.py" in _current_paths(tmp_path / "db")


def test_lock_file_that_is_a_directory_is_a_clear_error(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "db" / "vgdb.lock").mkdir(parents=True)
    proc = run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), *FAST)
    assert proc.returncode == 1, proc.stderr
    assert "cannot use" in proc.stderr and "lock file: is a directory" in proc.stderr
    assert "nothing was changed" in " ".join(proc.stderr.split())
    assert [p.name for p in (tmp_path / "db").iterdir()] == ["vgdb.lock"]


# ----------------------------------------------------------------------------- sessions
def test_session_line_nested_100000_deep_is_a_bad_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"a": ' * 100_000 + "1" + "}" * 100_000 + "\n")
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"type": "decision", "ts": "2026-01-01T00:00:00Z",
                                "session": "s1", "title": "Use one writer"}) + "\n")
    data = _json(run_vgdb("ingest-session", str(deep), str(good), "--db",
                          str(tmp_path / "db"), "--json"))
    assert data["errors"] == [{"file": str(deep), "line": 1, "severity": "error", "code": "invalid",
                               "message": "nested too deeply (arrays or objects inside "
                                          "each other)"}]
    assert data["counts"]["entries"] == 1
    with Store.open(tmp_path / "db", read_only=True) as store:
        assert store.cypher("MATCH (e:Entry) RETURN e.title").rows() == [("Use one writer",)]


# ----------------------------------------------------------------------------- coverage
def test_coverage_file_with_flipped_bytes_is_exit_2(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    db = tmp_path / "db"
    assert run_vgdb("ingest", str(repo.root), "--db", str(db), "--name", "proj",
                    *FAST).returncode == 0
    data = CoverageData(basename=str(tmp_path / "cov.data"))
    data.set_context("test_good.py::test_good|run")
    data.add_lines({str(repo.root / "good.py"): [1, 2]})
    data.write()
    raw = bytearray((tmp_path / "cov.data").read_bytes())
    at = raw.index(b"foreign key (context_id)")
    raw[at] ^= 0x80  # one bit of the schema's SQL text: no longer UTF-8
    (tmp_path / "flipped.data").write_bytes(bytes(raw))
    proc = run_vgdb("ingest-coverage", str(tmp_path / "flipped.data"), "--db", str(db),
                    "--repo", "proj")
    assert proc.returncode == 2, proc.stderr
    assert "cannot read coverage data" in proc.stderr and "damaged content" in proc.stderr


# ---------------------------------------------------------------------------- bibliographies
def test_bibtex_in_legacy_encodings_utf16_and_binary(tmp_path: Path) -> None:
    entry = "@article{k1, title={Caf\u00e9 na\u00efve}, author={M\u00fcller, J}, year={2020}}\n"
    files = {"latin1.bib": entry.encode("latin-1"), "utf16.bib": entry.encode("utf-16"),
             "utf16-no-bom.bib": entry.encode("utf-16-le"),
             "binary.bib": bytes(range(256)) * 4}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    data = _json(run_vgdb("ingest-papers", *(str(tmp_path / n) for n in files), "--db",
                          str(tmp_path / "db"), "--json"))
    per_file = {Path(f["path"]).name: (f["records"], f["errors"], f["warnings"])
                for f in data["files"]}
    assert per_file == {"latin1.bib": (1, 0, 1), "utf16.bib": (1, 0, 1),
                        "utf16-no-bom.bib": (0, 1, 0), "binary.bib": (0, 1, 0)}
    messages = {(Path(i["file"]).name, i["line"], i["message"])
                for i in data["errors"] + data["warnings"]}
    binary = ("binary content (NUL or control bytes), not text (a UTF-16 file needs its "
              "byte-order mark); not read")
    assert messages == {
        ("latin1.bib", 1, "not UTF-8 (first at this line): decoded as Windows-1252; check "
                          "accented characters, or save the file as UTF-8"),
        ("utf16.bib", 1, "decoded as UTF-16 (byte-order mark fffe)"),
        ("utf16-no-bom.bib", 1, binary), ("binary.bib", 1, binary)}
    with Store.open(tmp_path / "db", read_only=True) as store:
        assert store.cypher("MATCH (p:Paper) RETURN p.title").rows() == [
            ("Caf\u00e9 na\u00efve",)]


# ------------------------------------------------------------------- found by the fuzzers
def test_root_whose_path_is_not_utf8_is_refused_before_the_database(tmp_path: Path) -> None:
    root = Path(os.fsdecode(os.fsencode(tmp_path) + b"/proj\xff"))
    GitRepo(root).commit("first", {"good.py": GOOD})
    proc = run_vgdb("ingest", str(root), "--db", str(tmp_path / "db"), *FAST)
    assert proc.returncode == 2, proc.stderr
    assert f"error: the path is not valid UTF-8: {tmp_path}/proj\\xff" in \
        proc.stderr.replace("\n", "")
    assert not (tmp_path / "db").exists()


def test_manifest_not_utf8_is_exit_2_with_its_line(tmp_path: Path) -> None:
    manifest = tmp_path / "batch.toml"
    manifest.write_bytes(b'[[repositories]]\nname = "caf\xe9"\npath = "src"\n')
    proc = run_vgdb("ingest-batch", str(manifest), "--db", str(tmp_path / "db"))
    assert proc.returncode == 2, proc.stderr
    assert "not UTF-8 text at line 2: invalid continuation byte; save the manifest as UTF-8" \
        in " ".join(proc.stderr.split())


def test_deeply_nested_citation_files_are_reported(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"CITATION.cff": "a: " + "[" * 50_000 + "\n",
                            "codemeta.json": "[" * 50_000,
                            "works.bib": "@misc{k, title={" + "{" * 50_000 + "}}\n"})
    data = _json(run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), "--json",
                          *FAST))
    issues = {(i["file"], i["message"]) for i in data["papers"]["issues"]}
    assert ("CITATION.cff", "invalid YAML: nested too deeply") in {
        (Path(f).name, m) for f, m in issues}
    assert ("codemeta.json", "invalid JSON: nested too deeply") in {
        (Path(f).name, m) for f, m in issues}
    assert "good.py" in _current_paths(tmp_path / "db")


# ------------------------------------------------------------------ ignore patterns
def test_a_gitignore_line_git_cannot_read_is_skipped_and_the_rest_applies(tmp_path: Path
                                                                          ) -> None:
    """Found by the GraphQL fuzzer (status's exclude): pathspec refuses a pattern ending in
    a lone backslash, and a .gitignore holding one aborted the whole ingest."""
    repo = _repo(tmp_path, {".gitignore": "gen_*.py\nbroken\\\n", "gen_a.py": GOOD,
                            "broken": "not code\n"})
    data = _json(run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), "--json",
                          *FAST))
    assert data["history"]["status"] == "ingested", data["history"]
    assert _current_paths(tmp_path / "db") == {"good.py"}  # gen_*.py still ignored


def test_an_exclude_pattern_that_is_not_valid_is_bad_input(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    proc = run_vgdb("ingest", str(repo.root), "--db", str(tmp_path / "db"), "--exclude",
                    "x\\", *FAST)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "error: exclude pattern 'x\\\\' is not a valid .gitignore pattern")
    assert _current_paths(tmp_path / "db") == set()  # nothing ingested
