"""Resolution forked over processes gives exactly the single-process result."""

from __future__ import annotations

import os

from ingest.extract import extract
from ingest.resolve import resolve
from ingest.resolve.forked import MIN_FILES, resolve_forked, split_runs
from ingest.resolve.rows import ResolveResult


def _package(n: int) -> dict:
    """``n`` modules of one package calling, importing and subclassing each other."""
    files = {"pkg/__init__.py": extract("python", b"from .m0 import f0\n", "pkg/__init__.py")}
    for i in range(n):
        j, k = (i * 7 + 3) % n, (i * 13 + 5) % n
        source = (
            f"import os\nfrom . import m{j}\nfrom .m{k} import f{k}, C{k}\n\n"
            f"def f{i}(x):\n    os.path.join('a', x)\n    m{j}.f{j}(x)\n    return f{k}(x)\n\n"
            f"class C{i}(C{k}):\n    def run{i}(self):\n        self.step{i}()\n"
            f"        return C{j}().run{j}()\n\n    def step{i}(self):\n"
            f"        print(len([]))\n"
            f"\ndef test_f{i}():\n    assert f{i}(1)\n")
        path = f"pkg/m{i}.py"
        files[path] = extract("python", source.encode(), path)
        if i % 10 == 0:
            test = f"tests/test_m{i}.py"
            files[test] = extract("python", f"from pkg.m{i} import f{i}\n\n"
                                  f"def test_f{i}():\n    assert f{i}(2)\n".encode(), test)
    return files


def _rows(result: ResolveResult) -> tuple:
    return (list(result.edges), sorted(result.externals.items()),
            sorted(result.unresolved))


def test_forked_resolution_equals_one_process() -> None:
    files = _package(MIN_FILES + 10)
    one = resolve("repo", files, workers=1)
    two = resolve("repo", files, workers=2)
    three = resolve("repo", files, workers=3)
    assert len(one.edges) > 5 * MIN_FILES
    assert {e.rel for e in one.edges} == {"IMPORTS", "CALLS", "INHERITS", "TESTS"}
    assert _rows(two) == _rows(one)  # the same edges in the same order
    assert _rows(three) == _rows(one)


def test_only_some_files_forked() -> None:
    files = _package(MIN_FILES + 10)
    only = {p for p in files if p.endswith(("1.py", "4.py", "7.py", "9.py"))} | \
        {f"pkg/m{i}.py" for i in range(MIN_FILES)}
    assert _rows(resolve("repo", files, only=only, workers=2)) == \
        _rows(resolve("repo", files, only=only, workers=1))


def test_a_failing_child_is_resolved_again_in_the_parent() -> None:
    files = _package(60)
    parent = os.getpid()
    paths = sorted(files)

    def resolver(run: set[str]) -> ResolveResult:
        if os.getpid() != parent:  # every child dies: its run is done again here
            os._exit(3)
        return resolve("repo", files, only=run, workers=1)

    forked = resolve_forked(paths, files, resolver, workers=3)
    single = resolve("repo", files, workers=1)
    # each run's result carries its own TESTS edges (``resolve`` per run): the same edges
    assert sorted(forked.edges, key=repr) == sorted(single.edges, key=repr)
    assert sorted(forked.externals.items()) == sorted(single.externals.items())


def test_runs_are_contiguous_and_balanced() -> None:
    files = _package(100)
    paths = sorted(files)
    runs = split_runs(paths, files, 2)
    assert [p for run in runs for p in run] == paths
    work = [sum(len(files[p].calls) + len(files[p].imports) + 1 for p in run) for run in runs]
    assert abs(work[0] - work[1]) <= max(work) * 0.1
