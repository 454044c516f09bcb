"""What a parse worker imports before its first file, and how long the first result takes.

multiprocessing prepares each worker it starts by running the parent's main module again;
``ingest.fork_main`` makes the workers skip that. This script is such a main module: it
imports what a benchmark or notebook typically holds (polars, rich) before it starts a
pool of 2 workers, then asks one worker for its ``sys.modules``. With ``--against
CHECKOUT`` it runs itself again with that checkout first on ``PYTHONPATH`` (say main's),
the two interleaved, so both see the same load.

    .venv/bin/python benchmarks/worker_start.py [--against /work/main] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import polars  # noqa: F401  (what a main script typically imports: workers re-ran this)
import rich.console  # noqa: F401

HEAVY = ("polars", "rich", "click", "api", "graphdb", "pyarrow", "numpy", "ladybug")


#: what a worker evaluates (a builtin, ``eval``, so that asking does not itself need this
#: script in the worker): the modules it holds
WORKER_MODULES = "sorted(__import__('sys').modules)"


def probe() -> dict:
    """One pool of 2 workers from a fresh fork server: seconds to the first result, and
    what that worker holds."""
    # the checkout on PYTHONPATH, not this directory's ingest.py, is the `ingest` package
    if Path(sys.path[0]).resolve() == Path(__file__).resolve().parent:
        del sys.path[0]
    from ingest.pool import process_pool

    start = time.perf_counter()
    with process_pool(2) as pool:
        modules = pool.submit(eval, WORKER_MODULES).result()
        first = time.perf_counter() - start
    return {"first_result_s": first, "modules": len(modules),
            "heavy": sorted({m.split(".")[0] for m in modules} & set(HEAVY)),
            "main_rerun": "polars" in modules}


def run(checkout: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, __file__, "--probe"], env=env, capture_output=True,
                          text=True, check=True, timeout=300)
    return json.loads(done.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--against", type=Path, help="another checkout, first on PYTHONPATH")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.probe:
        print(json.dumps(probe()))
        return 0
    here = Path(__file__).resolve().parent.parent
    checkouts = {"this": here, **({"other": args.against.resolve()} if args.against else {})}
    print(f"load average at start: {os.getloadavg()}")
    got: dict[str, list[dict]] = {label: [] for label in checkouts}
    for r in range(args.rounds):
        order = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
        for label in order:
            got[label].append(run(checkouts[label]))
    print(f"load average at end: {os.getloadavg()}")
    for label, runs in got.items():
        last = runs[-1]
        print(f"{label} ({checkouts[label]}): first result median "
              f"{statistics.median(g['first_result_s'] for g in runs):.3f} s over "
              f"{len(runs)} rounds; a worker holds {last['modules']} modules, of them "
              f"{last['heavy'] or 'none'} (main script re-run: {last['main_rerun']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
