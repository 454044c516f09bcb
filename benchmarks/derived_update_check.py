"""One-file updates, this checkout against another's ``vgdb``, interleaved: a copy of SRC per
checkout, cold-ingested once, then four times a function appended to REL and ``vgdb ingest``
timed as a whole process (``--no-history``, never through a server). Checks that the
derived steps' forking (graphdb/derived_steps.py) leaves updates as they were: an update
forks nothing.

    .venv/bin/python benchmarks/derived_update_check.py SRC REL [--against VGDB] [-- flags]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("rel", help="the file edited, relative to SOURCE")
    ap.add_argument("--against", default="/work/main/.venv/bin/vgdb")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("flags", nargs="*", help="more `vgdb ingest` flags (after --)")
    args = ap.parse_args(argv)
    exes = {"this": str(Path(sys.executable).parent / "vgdb"), "other": args.against}
    env = {**os.environ, "VGDB_NO_SERVER": "1"}
    print(f"load average at start: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="vgdb-derived-upd-") as tmp:
        base = Path(tmp)

        def ingest(label: str) -> float:
            start = time.perf_counter()
            subprocess.run([exes[label], "ingest", str(base / f"src-{label}"), "--db",
                            str(base / f"db-{label}"), "--json", "--no-history", *args.flags],
                           capture_output=True, check=True, env=env)
            return time.perf_counter() - start

        for label in exes:
            shutil.copytree(args.source, base / f"src-{label}", symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__"))
            ingest(label)
        took: dict[str, list[float]] = {label: [] for label in exes}
        for r in range(args.rounds):
            for label in (list(exes) if r % 2 == 0 else list(reversed(exes))):
                path = base / f"src-{label}" / args.rel
                path.write_text(path.read_text() + f"\n\ndef _probe_{r}():\n    return {r}\n")
                took[label].append(ingest(label))
    for label, runs in took.items():
        print(f"{label}: median {statistics.median(runs):.2f} s "
              f"({', '.join(f'{t:.2f}' for t in runs)}) ({exes[label]})")
    print(f"load average at end: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
