"""Incremental == rebuild on a real tree, edge by edge: after a one-file change and an update,
every current CALLS, IMPORTS and INHERITS row (endpoints, line, resolution, count) must be
those of a full ingest of the changed tree into a fresh database.

``benchmarks/ingest.py``'s leaf and hub checks compare counts per table; a change that loses
one edge and gains another passes them. This compares the rows. Cases on the standard library
(as ``make demo`` ingests it, without test/, tests/ and idle_test/):

- ``leaf``: a function appended to ``turtledemo/bytedesign.py`` (the file that found the
  stored-signature gap: its calls reach ``turtle.py`` through the stub's return types);
- ``hub``: a function appended to ``os.py`` (189 importers);
- ``body``: one statement added to a function body of ``json/encoder.py`` (the everyday edit);
- ``signature``: ``turtle.RawTurtle.getscreen`` gains a parameter (the stub no longer
  applies: the unchanged ``bytedesign.py`` must be re-resolved and lose those edges).

    .venv/bin/python benchmarks/calls_incremental.py [--case leaf --case hub ...]

Each case: full ingest of the pristine copy, the change, an update, a full ingest of the
changed copy into a fresh database; prints the rows each side has that the other lacks and
exits 1 if any case differs. Timed phases are printed for orientation only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from ingest.history.pipeline import HistoryOptions

EXCLUDES = ("test/", "tests/", "idle_test/")
PROBE = "\n\ndef _vgdb_probe():\n    return 1\n"
RELS = ("CALLS", "IMPORTS", "INHERITS")


def _append(rel: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / rel
        path.write_text(path.read_text() + PROBE)
    return change


def _replace(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        path = root / rel
        text = path.read_text()
        if old not in text:
            raise SystemExit(f"{rel}: {old!r} not found (another Python version?)")
        path.write_text(text.replace(old, new, 1))
    return change


CASES: dict[str, Callable[[Path], None]] = {
    "leaf": _append("turtledemo/bytedesign.py"),
    "hub": _append("os.py"),
    "body": _replace("json/encoder.py", "        if isinstance(o, str):",
                     "        _vgdb_probe = 1\n        if isinstance(o, str):"),
    "signature": _replace("turtle.py", "    def getscreen(self):",
                          "    def getscreen(self, which=None):"),
}


def _options() -> IngestOptions:
    return IngestOptions(name="std", excludes=EXCLUDES, embed=False, papers=False,
                         history=HistoryOptions(enabled=False))


def _ingest(db: Path, root: Path) -> tuple[float, dict]:
    start = time.perf_counter()
    with Store.open(db) as store:
        summary = ingest_repository(store, root, options=_options()).to_dict()
    return time.perf_counter() - start, summary


def _rows(db: Path) -> dict[str, set[tuple]]:
    out: dict[str, set[tuple]] = {}
    with Store.open(db, read_only=True) as store:
        for rel in RELS:
            extra = {"CALLS": ", e.line, e.resolution, e.count",
                     "IMPORTS": ", e.line, e.name, e.resolution",
                     "INHERITS": ", e.kind, e.resolution"}[rel]
            frame = store.cypher(
                f"MATCH (a)-[e:{rel}]->(b) WHERE a.valid_to IS NULL AND b.valid_to IS NULL "
                f"RETURN a.id, b.id{extra}")
            out[rel] = set(frame.rows())
    return out


def run_case(name: str, source: Path, work: Path) -> bool:
    root = work / name / "lib"
    shutil.copytree(source, root, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "site-packages"))
    base_s, _ = _ingest(work / name / "inc", root)
    CASES[name](root)
    update_s, summary = _ingest(work / name / "inc", root)
    full_s, _ = _ingest(work / name / "full", root)
    inc, full = _rows(work / name / "inc"), _rows(work / name / "full")
    same = all(inc[rel] == full[rel] for rel in RELS)
    counts = ", ".join(f"{rel} {len(full[rel]):,}" for rel in RELS)
    print(f"{name:10s} {'same' if same else 'DIFFERENT'}: {counts}; parsed "
          f"{summary['reparsed_paths']}, re-resolved {summary['files'].get('re_resolved')}, update "
          f"{update_s:.1f} s (full {full_s:.1f} s, base {base_s:.1f} s)", flush=True)
    print(f"    update phases {summary.get('seconds')}", flush=True)
    for rel in RELS:
        for row in sorted(inc[rel] - full[rel])[:10]:
            print(f"    only after the update {rel}: {row}")
        for row in sorted(full[rel] - inc[rel])[:10]:
            print(f"    only in the full ingest {rel}: {row}")
    return same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    ap.add_argument("--case", action="append", choices=sorted(CASES),
                    help="repeatable (default: every case)")
    ap.add_argument("--keep", action="store_true", help="keep the working directory")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="vgdb-calls-incremental-"))
    print(f"source {args.stdlib}; work {work}; load {os.getloadavg()}", flush=True)
    try:
        results = [run_case(name, args.stdlib, work) for name in args.case or CASES]
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load {os.getloadavg()}")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
