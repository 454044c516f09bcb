"""The ingest benchmark's parts on tiny real trees: the raw parse per language with vgdb's
grammars, the per-language graph figures and their check, a corpus fetched at a pinned commit
from a real git repository, and a peer's copy of the tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks import corpora, ingest_langs
from benchmarks.ingest_peers import CRG_BUILT, copy_for_peer
from benchmarks.ingest_raw import load_inputs, raw_parse_inputs
from ingest import IngestOptions
from ingest.walk import walk

FILES = {
    "pkg/__init__.py": "from pkg.util import helper\n",
    "pkg/util.py": "def helper(x):\n    return len(x)\n\n\ndef main():\n    return helper([])\n",
    "src/point.h": "class Point {\n public:\n  int x;\n};\n",
    "src/plain.h": "int add(int a, int b);\n",
    "src/add.c": '#include "plain.h"\n\nint add(int a, int b) { return a + b; }\n\n'
                 "int twice(int a) { return add(a, a); }\n",
    "web/app.js": "import { f } from './lib.js';\nexport function g() { return f(); }\n",
    "web/lib.js": "export function f() { return 1; }\n",
    "nb.ipynb": json.dumps({"cells": [
        {"cell_type": "markdown", "source": ["# title"]},
        {"cell_type": "code", "source": ["def cell():\n", "    return 2\n"]}]}),
    "README.md": "# demo\n\ntext\n",
}


def make_tree(root: Path) -> Path:
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_raw_parse_uses_vgdb_grammars_per_language(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    candidates, _ = walk(root, max_file_size=IngestOptions().max_file_size)
    inputs = load_inputs(root, candidates)
    raw = raw_parse_inputs(inputs, repeats=2)
    langs = raw["languages"]
    assert {k: v["files"] for k, v in langs.items()} == {
        "c": 3, "python": 2, "javascript": 2, "jupyter": 1, "markdown": 1}
    # a header declaring a class is parsed as C++, as vgdb does; the others with C
    assert langs["c"]["grammars"] == ["c", "cpp"]
    assert langs["jupyter"]["grammars"] == ["python"]
    assert langs["markdown"] == {**langs["markdown"], "parsed": False, "best_s": None,
                                 "grammars": []}
    assert len(raw["runs_s"]) == 2 and raw["best_s"] == min(raw["runs_s"])
    parsed = [v["best_s"] for v in langs.values() if v["parsed"]]
    assert all(t > 0 for t in parsed) and sum(parsed) <= max(raw["runs_s"]) + 1e-9
    # the notebook is parsed as its script of code cells, not as JSON
    assert inputs["jupyter"].blobs[0][1].startswith(b"# %% cell 2\ndef cell():")


def test_language_stats_and_checks_on_a_real_ingest(tmp_path: Path) -> None:
    root = make_tree(tmp_path / "tree")
    db = tmp_path / "db"
    vgdb = Path(sys.executable).parent / "vgdb"
    env = {**os.environ, "NO_COLOR": "1"}
    subprocess.run([str(vgdb), "ingest", str(root), "--db", str(db), "--name", "demo",
                    "--json"], check=True, capture_output=True, env=env)

    def query(text: str) -> list[dict]:
        out = subprocess.run([str(vgdb), "cypher", "--db", str(db), "--json", text],
                             check=True, capture_output=True, env=env)
        return json.loads(out.stdout)

    stats = ingest_langs.language_stats(query, "demo")
    one = {"calls": 1, "calls_same": 1, "imports": 1, "imports_same": 1, "imports_any": 1}
    none = dict.fromkeys(one, 0)
    # every file has a <module> symbol; twice -> add, main -> helper, g -> f; the C include,
    # the Python and the JavaScript import each resolve to the file they name
    assert stats == {
        "c": {"files": 3, "symbols": 6, **one},
        "javascript": {"files": 2, "symbols": 4, **one},
        "python": {"files": 2, "symbols": 4, **one},
        "jupyter": {"files": 1, "symbols": 2, **none},
        "markdown": {"files": 1, "symbols": 1, **none},
    }
    # documents are not checked; the notebook calls nothing
    checks = ingest_langs.checks(stats, min_files=1)
    assert [(name.split(":")[0], ok, detail) for name, ok, detail in checks] == [
        ("c", True, "1 calls, 1 of 1 imports"),
        ("javascript", True, "1 calls, 1 of 1 imports"),
        ("python", True, "1 calls, 1 of 1 imports"),
        ("jupyter", False, "no call resolved within python (0 to another language)"),
    ]
    # by default a language needs 5 files to be checked
    assert ingest_langs.checks(stats) == []


def git(*args: str, cwd: Path) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def test_corpus_fetch_takes_the_pinned_commit(tmp_path: Path, monkeypatch) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    git("init", "-q", cwd=origin)
    (origin / "a.py").write_text("x = 1\n")
    git("add", ".", cwd=origin)
    git("commit", "-qm", "one", cwd=origin)
    pinned = git("rev-parse", "HEAD", cwd=origin)
    (origin / "a.py").write_text("x = 2\n")
    (origin / "b.py").write_text("y = 1\n")
    git("commit", "-qam", "two", cwd=origin)
    git("add", ".", cwd=origin)
    git("commit", "-qm", "three", cwd=origin)
    monkeypatch.setenv("VGDB_BENCH_CORPORA", str(tmp_path / "cache"))
    corpus = corpora.Corpus("demo", "example/demo", pinned, "a test repository")

    tree = corpora.fetch(corpus, mirror=origin)
    assert tree == tmp_path / "cache" / f"demo-{pinned[:12]}"
    assert sorted(p.name for p in tree.iterdir()) == ["a.py"]  # no .git, no later files
    assert (tree / "a.py").read_text() == "x = 1\n"
    (tree / "a.py").write_text("kept\n")  # fetched once: a second fetch reuses the tree
    assert corpora.fetch(corpus, mirror=origin) == tree
    assert (tree / "a.py").read_text() == "kept\n"


def test_peer_copy_leaves_out_what_vgdb_skips(tmp_path: Path) -> None:
    src = make_tree(tmp_path / "tree")
    for rel in ("pkg/tests/test_x.py", "build/gen.py", "pkg/__pycache__/util.pyc",
                "web/vendored/x.js"):
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text("x = 1\n")
    (src / "vendored").mkdir()  # only web/vendored/ is dropped, by its path
    (src / "vendored" / "keep.js").write_text("1;\n")
    copy = copy_for_peer(src, tmp_path / "peer" / "tree", ["tests/", "build/", "web/vendored/"])
    left = sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file())
    assert left == sorted([*FILES, "vendored/keep.js"])


def test_crg_build_line() -> None:
    line = "Full build: 1752 files, 26085 nodes, 173826 edges (postprocess=full)"
    assert CRG_BUILT.search(line).groups() == ("1752", "26085", "173826")
