"""What a short ``vgdb`` command pays before its work (issue 26): modules it does not use are
not imported, and the process does not collect garbage while it imports."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from api.process import YOUNG_THRESHOLD
from graphdb import Store
from tests.helpers import ROOT, run_vgdb, vgdb_in_process, write_tree


def _python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (this checkout first on its path); its stdout."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_ingest_update_imports_only_the_queries_it_runs() -> None:
    """The communities step of an update imports ``queries.communities`` alone: not impact,
    briefing, sessions, papers (``queries`` loads its names on first use)."""
    out = _python("""
        import sys
        import queries.communities.incremental
        print(sorted(m for m in sys.modules if m.startswith('queries')))
    """)
    assert out.split("\n")[0] == ("['queries', 'queries.communities', "
                                  "'queries.communities.incremental', "
                                  "'queries.communities.placement']")


def test_queries_names_are_the_functions_even_after_their_submodule_is_imported() -> None:
    """``queries.impact`` is the function, as when the package imported it eagerly, even
    once ``queries.impact.affected`` is imported (which sets the submodule on the package)."""
    out = _python("""
        import inspect
        import queries.impact.affected
        import queries.briefing.gather
        import queries
        from queries import impact, provenance
        print(inspect.isfunction(queries.impact), impact is queries.impact)
        print(inspect.isfunction(queries.briefing), inspect.isfunction(provenance))
        print(queries.impact.__module__, queries.ImpactResult.__name__)
        namespace = {}
        exec('from queries import *', namespace)
        print(sorted(set(queries.__all__) - set(namespace)), len(queries.__all__))
        print(set(queries.__all__) <= set(dir(queries)))
        try:
            queries.no_such_name
        except AttributeError as exc:
            print(exc)
    """)
    assert out.splitlines() == [
        "True True", "True True", "queries.impact.analysis ImpactResult", "[] 50", "True",
        "module 'queries' has no attribute 'no_such_name'"]


def test_bibliography_parsers_load_with_their_first_file(tmp_path: Path) -> None:
    """The papers step of an update imports no bibliography parser (yaml, bibtexparser)
    until a file of that format is met; then each parses as before."""
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{k1, title={Graph Things}, year={2020}, doi={10.1000/xyz}}\n")
    cff = tmp_path / "CITATION.cff"
    cff.write_text("cff-version: 1.2.0\ntitle: My Tool\nmessage: cite it\ndoi: 10.5281/zenodo.1\n"
                   "authors:\n  - family-names: Doe\n    given-names: Jane\n")
    out = _python(f"""
        import sys
        from ingest.academic.links import link_repository
        from ingest.academic.sources import parse_bibliography
        print('yaml' in sys.modules, 'bibtexparser' in sys.modules)
        bib = parse_bibliography(open({str(bib)!r}, 'rb').read(), path='refs.bib')
        print([r.title for r in bib.records], 'bibtexparser' in sys.modules,
              'yaml' in sys.modules)
        cff = parse_bibliography(open({str(cff)!r}, 'rb').read(), path='CITATION.cff')
        print([r.title for r in cff.records], 'yaml' in sys.modules)
    """)
    assert out.splitlines() == ["False False", "['Graph Things'] True False",
                                "['My Tool'] True"]


def test_the_vgdb_process_collects_garbage_again_once_its_command_is_imported() -> None:
    """``vgdb`` (``api.cli.run``) collects no garbage while it imports; once the command's
    module is imported, what exists is frozen and collection resumes (less often)."""
    out = _python("""
        import gc, sys
        from api.cli import run
        sys.argv = ['vgdb', 'config', '--help']
        code = 0
        try:
            run()
        except SystemExit as exc:
            code = exc.code
        print('exit', code)
        print(gc.isenabled(), gc.get_freeze_count() > 1000, gc.get_threshold()[0])
    """)
    assert out.splitlines()[-2:] == ["exit 0", f"True True {YOUNG_THRESHOLD}"]


def test_a_caller_of_main_keeps_its_garbage_collection(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """``api.cli.main`` from another program (tests, a served run) leaves the collector as
    it was: nothing frozen, the same threshold."""
    threshold, frozen = gc.get_threshold(), gc.get_freeze_count()
    code, out, _ = vgdb_in_process(capsys, "config", "--help")
    assert code == 0 and "Usage: vgdb config" in out
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()) == \
        (True, threshold, frozen)


def test_an_edit_through_the_cli_is_all_in_the_graph(tmp_path: Path) -> None:
    """A one-file update by the real ``vgdb`` process (no collection while it imports, its
    early exit after the commit) keeps everything it committed."""
    tree = write_tree(tmp_path / "repo", {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    return 1\n",
        "pkg/b.py": "from pkg.a import f\n\n\ndef g():\n    return f()\n",
    })
    db = tmp_path / "db"
    first = run_vgdb("ingest", str(tree), "--db", str(db), "--no-history", "--json")
    assert first.returncode == 0, first.stderr
    (tree / "pkg/a.py").write_text("def f():\n    return 2\n\n\ndef h():\n    return f()\n")
    done = run_vgdb("ingest", str(tree), "--db", str(db), "--no-history", "--json")
    assert done.returncode == 0, done.stderr
    files = json.loads(done.stdout)["files"]
    assert (files["parsed"], files["modified"], files["added"], files["removed"]) == (1, 1, 0, 0)
    with Store.open(db, read_only=True) as store:
        rows = store.cypher("MATCH (a:Symbol)-[:CALLS]->(b:Symbol) "
                            "RETURN a.qualname AS caller, b.qualname AS callee ORDER BY caller")
    assert rows.rows() == [("g", "f"), ("h", "f")]


def test_a_one_file_update_imports_nothing_it_does_not_run(tmp_path: Path) -> None:
    """``vgdb ingest`` after a one-file edit (history up to date, no bibliography, nothing
    to embed) does not import the bibliography parsers, the history's attribution, the
    embedding model's tokenizer, nor the queries it does not run."""
    tree = write_tree(tmp_path / "repo", {"a.py": "def f():\n    return 1\n"})
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "a"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *git], cwd=tree,
                       check=True)
    db = tmp_path / "db"
    assert run_vgdb("ingest", str(tree), "--db", str(db)).returncode == 0
    (tree / "a.py").write_text("def f():\n    return 2\n")
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "api.cli", "ingest",
                           str(tree), "--db", str(db), "--json"], capture_output=True,
                          text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["files"]["modified"] == 1
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "ingest.pipeline" in imported and "polars" in imported
    unused = {"yaml", "bibtexparser", "rapidfuzz", "ingest.history.attribution", "tokenizers",
              "queries.impact", "queries.briefing", "queries.sessions", "queries.academic"}
    assert imported & unused == set()
