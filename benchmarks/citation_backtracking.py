"""Seconds the free-text citation parser spends on long hostile runs (a References entry
that is really a table of digits, a line of separators, a run of backticks), and the
references scan of a file on one long line of links (each link reads its line up to it).

For each shape, ``parse_citation`` of a 2 KB and a 16 KB text of that shape: the 2 KB time
is the baseline measured in the same run (a linear parser takes ~8x it at 16 KB, at most
1x once the text is read only up to ``MAX_CITATION_CHARS``); ``scan_text`` of a single line
of 16, 32 and 64 KB (linear: 2x per step). ``--baseline DIR`` also times
the parser of another checkout (e.g. ``/work/main`` before a fix) on the same texts, in a
child process; ``--timeout`` bounds each of its shapes.

    .venv/bin/python benchmarks/citation_backtracking.py [--baseline DIR] [--timeout 60]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ["1999", "3", ": ", "- ", "::", "``", "''", "(", "A ", "http://x.org/a ",
          "doi:10.1000/xyz ", "Smith, J. ", "p. 1-2 "]
SIZES = (2_000, 16_000)
LINKS = ["`a <http://b>`_ ", "http://x.org/a ", "RFC 1234 "]
LINE_SIZES = (16_000, 32_000, 64_000)


def time_shapes(code_root: Path) -> dict[str, list[float]]:
    """Seconds of ``parse_citation`` (as a citation and as a link's text) per shape and size,
    with the parser of ``code_root``."""
    sys.path.insert(0, str(code_root))
    from ingest.academic.citation_text import parse_citation

    out: dict[str, list[float]] = {}
    for shape in SHAPES:
        out[shape] = []
        for size in SIZES:
            text = shape * (size // len(shape))
            t0 = time.perf_counter()
            parse_citation(text)
            parse_citation('"' + text, url="https://example.org/a", scheme="url")
            out[shape].append(time.perf_counter() - t0)
    from ingest.academic.scan import scan_text

    for link in LINKS:
        out["line of " + link] = []
        for size in LINE_SIZES:
            t0 = time.perf_counter()
            scan_text(link * (size // len(link)), "links.txt")
            out["line of " + link].append(time.perf_counter() - t0)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, help="another checkout to time on the same texts")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds the baseline's child may take in all")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(time_shapes(args.child)))
        return 0
    print(f"load average: {os.getloadavg()}")
    this = time_shapes(ROOT)
    base: dict[str, list[float]] | None = None
    if args.baseline:
        try:
            run = subprocess.run([sys.executable, __file__, "--child", str(args.baseline)],
                                 capture_output=True, text=True, timeout=args.timeout,
                                 check=True)
            base = json.loads(run.stdout)
        except subprocess.TimeoutExpired:
            print(f"baseline: did not finish the shapes in {args.timeout:.0f} s")
    print(f"{'parse_citation of':>26} {'2 KB':>8} {'16 KB':>8}" +
          (f" {'baseline 16 KB':>15}" if base else ""))
    for shape in SHAPES:
        small, large = this[shape]
        print(f"{shape!r:>26} {small:8.3f} {large:8.3f}" +
              (f" {base[shape][1]:15.3f}" if base else ""))
    print(f"{'scan_text of one':>26} {'16 KB':>8} {'32 KB':>8} {'64 KB':>8}" +
          (f" {'baseline 16/32/64 KB':>22}" if base else ""))
    for link in LINKS:
        key = "line of " + link
        print(f"{key!r:>26} " + " ".join(f"{t:8.3f}" for t in this[key]) +
              (" " + " / ".join(f"{t:.3f}" for t in base[key]) if base else ""))
    print(f"load average: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
