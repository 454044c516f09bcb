"""Ingest of a huge coverage file: 100,000+ per-test contexts onto a real repository's graph.

The coverage file is generated with coverage.py's own ``CoverageData`` API (the format
``pytest --cov --cov-context=test`` writes): each context is a parametrized case of a real
test of the repository (``tests/test_x.py::test_y[k]|run``), executing ``--lines`` random
lines of ``--files`` random source files of the graph, seeded. Two fresh processes are then
timed, each reporting its wall time and peak RSS:

- **baseline**: only reading the file with coverage's API (``measured_contexts`` and
  ``contexts_by_lineno`` of every file), what any consumer must do;
- **ingest**: ``ingest.coverage.ingest_coverage`` into a copy of the database (read, map
  contexts to tests and lines to symbols, bulk load the EXECUTES edges).

    .venv/bin/python benchmarks/coverage_ingest.py --db /tmp/vgdb_mut_cache/click/vgdb-cov-*.db
        --repo click --contexts 100000 [--root DIR] [--seed 7] [--repeat 2]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ingest import machine  # noqa: E402
from graphdb import Store  # noqa: E402

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
mode, data, db, repo, root = sys.argv[2:7]
started = time.perf_counter()
if mode == "read":
    from coverage import CoverageData
    d = CoverageData(basename=data)
    d.read()
    n = len(d.measured_contexts())
    pairs = sum(len(c) for f in d.measured_files() for c in d.contexts_by_lineno(f).values())
    out = {"contexts": n, "line_context_pairs": pairs}
else:
    from graphdb import Store
    from ingest.coverage import ingest_coverage
    with Store.open(db) as store:
        s = ingest_coverage(store, data, repo=repo, root=root or None)
    out = {"contexts": s.contexts, "tests": s.tests, "edges": s.edges, "ended": s.ended}
out["seconds"] = time.perf_counter() - started
out["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def generate(store: Store, repo: str, root: str, path: Path, *, contexts: int, files: int,
             lines: int, seed: int) -> dict[str, float]:
    """Write the synthetic coverage file with ``CoverageData``; returns what it holds."""
    from coverage import CoverageData

    rng = random.Random(seed)
    tests = store.cypher("MATCH (s:Symbol) WHERE s.repo = $r AND s.is_test AND s.valid_to IS "
                         "NULL AND s.kind = 'function' RETURN s.file AS f, s.qualname AS q "
                         "ORDER BY s.id", {"r": repo}).rows()
    source = store.cypher("MATCH (f:File) WHERE f.repo = $r AND f.valid_to IS NULL AND NOT "
                          "f.is_test AND f.language = 'python' AND f.loc > 20 RETURN f.path, "
                          "f.loc ORDER BY f.path", {"r": repo}).rows()
    prefix = f"file:{repo}/"
    started = time.perf_counter()
    data = CoverageData(basename=str(path))
    for k in range(contexts):
        fid, qualname = tests[k % len(tests)]
        data.set_context(f"{fid[len(prefix):]}::{qualname.replace('.', '::')}[{k}]|run")
        data.add_lines({f"{root}/{p}": sorted(rng.sample(range(1, loc + 1), min(lines, loc)))
                        for p, loc in rng.sample(source, files)})
    data.write()
    return {"seconds": time.perf_counter() - started, "tests": len(tests),
            "files": len(source), "bytes": path.stat().st_size}


def child(mode: str, data: Path, db: Path, repo: str, root: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(ROOT), mode, str(data), str(db),
                          repo, root], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="an ingested database (it is copied)")
    ap.add_argument("--repo", required=True)
    ap.add_argument("--root", default=None, help="paths in the file (default: ingested root)")
    ap.add_argument("--contexts", type=int, default=100_000)
    ap.add_argument("--files", type=int, default=3, help="source files per context")
    ap.add_argument("--lines", type=int, default=20, help="lines per file per context")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args(argv)
    info = machine()
    print(f"{info['date']}  {info['cpu']}  nproc {info['nproc']}  load {info['loadavg']}")
    with tempfile.TemporaryDirectory(prefix="vgdb-cov-") as tmp:
        work = Path(tmp)
        with Store.open(args.db, read_only=True) as store:
            row = store.cypher("MATCH (r:Repository) WHERE r.name = $r RETURN r.root",
                               {"r": args.repo}).rows()
            root = args.root or row[0][0]
            gen = generate(store, args.repo, root, work / "huge.data", contexts=args.contexts,
                           files=args.files, lines=args.lines, seed=args.seed)
        print(f"generated {args.contexts} contexts ({gen['tests']} real tests x parameters, "
              f"{args.files} of {gen['files']} files x {args.lines} lines each): "
              f"{gen['bytes'] / 1e6:.1f} MB in {gen['seconds']:.1f} s")
        reads, ingests = [], []
        for k in range(args.repeat):
            reads.append(child("read", work / "huge.data", Path(args.db), args.repo, root))
            db = work / f"db{k}"
            shutil.copytree(args.db, db)
            ingests.append(child("ingest", work / "huge.data", db, args.repo, root))
            shutil.rmtree(db)
            print(f"run {k + 1}: read {reads[-1]['seconds']:.2f} s ({reads[-1]['max_rss_mb']:.0f}"
                  f" MB), ingest {ingests[-1]['seconds']:.2f} s "
                  f"({ingests[-1]['max_rss_mb']:.0f} MB), {ingests[-1]['edges']} edges, "
                  f"{ingests[-1]['tests']} tests")
        r = min(x["seconds"] for x in reads)
        i = min(x["seconds"] for x in ingests)
        print(f"best of {args.repeat}: coverage's own read {r:.2f} s, vgdb ingest-coverage "
              f"{i:.2f} s = {i / r:.1f}x the read; {args.contexts / i:,.0f} contexts/s; peak "
              f"RSS read {min(x['max_rss_mb'] for x in reads):.0f} MB, ingest "
              f"{min(x['max_rss_mb'] for x in ingests):.0f} MB; spread ingest "
              f"{i:.2f}-{max(x['seconds'] for x in ingests):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
