"""A/B of two checkouts' ``vgdb ingest`` on the same source, interleaved, with a raw parse.

Each round runs ``vgdb ingest SRC --db <fresh> --json --no-history [EXTRA...]`` with the
``vgdb`` of checkout A, then of B (the order alternates per round, so a load change hits both
alike), and prints wall time and the ``seconds`` of each phase from ``--json``; a 1-thread raw
tree-sitter parse of SRC's Python files is measured before and after. SRC must be a git
repository (a copy of the standard library without tests: see RESULTS.md).

    .venv/bin/python benchmarks/ingest_ab.py SRC --a /work/main --b . [--rounds 3]
        [-- --no-papers --no-communities --no-embed]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tree_sitter as ts
import tree_sitter_python

CODE_PHASES = ("walk", "parse", "resolve", "load")


def raw_parse(root: Path) -> float:
    parser = ts.Parser(ts.Language(tree_sitter_python.language()))
    datas = [f.read_bytes() for f in sorted(root.rglob("*.py")) if ".git" not in f.parts]
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        for data in datas:
            parser.parse(data)
        best = min(best, time.perf_counter() - start)
    return best


def ingest(vgdb: Path, src: Path, db: Path, extra: list[str]) -> tuple[float, dict[str, float]]:
    shutil.rmtree(db, ignore_errors=True)
    start = time.perf_counter()
    out = subprocess.run([str(vgdb), "ingest", str(src), "--db", str(db), "--json",
                          "--no-history", *extra], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if out.returncode != 0:
        raise SystemExit(f"{vgdb} failed ({out.returncode}): {out.stderr[-2000:]}")
    seconds: dict[str, float] = json.loads(out.stdout).get("seconds", {})
    return wall, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("src", type=Path)
    parser.add_argument("--a", type=Path, default=Path("/work/main"))
    parser.add_argument("--b", type=Path, default=Path("."))
    parser.add_argument("--rounds", type=int, default=3)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    args.extra = argv[cut + 1:]  # more ``vgdb ingest`` options
    bins = {"A": args.a.resolve() / ".venv/bin/vgdb", "B": args.b.resolve() / ".venv/bin/vgdb"}
    print(f"load average {os.getloadavg()}; A = {args.a}, B = {args.b}")
    print(f"raw 1-thread parse of {args.src}: {raw_parse(args.src):.2f} s")
    with tempfile.TemporaryDirectory(prefix="vgdb-ingest-ab-") as tmp:
        for r in range(args.rounds):
            for name in ("A", "B") if r % 2 == 0 else ("B", "A"):
                wall, sec = ingest(bins[name], args.src, Path(tmp) / name, args.extra)
                code = sum(sec.get(k, 0.0) for k in CODE_PHASES)
                print(f"round {r} {name} wall {wall:.2f} s, code phases {code:.2f} s: "
                      + ", ".join(f"{k} {v:.2f}" for k, v in sec.items()), flush=True)
    print(f"raw parse again {raw_parse(args.src):.2f} s; load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
