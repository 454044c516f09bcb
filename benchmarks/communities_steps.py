"""Communities after N real updates: in place against a full detection (issue 26).

A repository (default: pallets/click) is copied and ingested; then N random steps change its
tree -- add a module that imports and calls two functions of one existing module, edit a
module so that one of its functions calls a function of another module, remove a module
added before -- each followed by an ingest and the communities step as ``vgdb ingest`` runs
it (``api.steps.communities_after_ingest``: in place, or a detection past the drift limit).
After every step: the step's status and seconds (in one process: igraph is imported once,
by the first detection), and the modularity (level 0, on the
current file and symbol graphs) of the stored partition against what a full detection
warm-started from it finds, and against a detection from scratch.

    .venv/bin/python benchmarks/communities_steps.py /tmp/comm-click --steps 30
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

# benchmarks/api.py would shadow the package: the checkout (or PYTHONPATH's) comes first
sys.path[0:1] = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p] or \
    [str(Path(__file__).resolve().parent.parent)]

from api.steps import communities_after_ingest  # noqa: E402
from graphdb import Store  # noqa: E402
from graphdb.communities import SCOPES, stored_numbers  # noqa: E402
from ingest import IngestOptions, ingest_repository  # noqa: E402
from ingest.history.pipeline import HistoryOptions  # noqa: E402
from queries.communities import community_graph, leiden  # noqa: E402

REPO = "bench"


def functions(root: Path) -> dict[str, list[str]]:
    """module path (dotted) -> its top-level function names, for the modules of src/."""
    out: dict[str, list[str]] = {}
    for path in sorted((root / "src").rglob("*.py")):
        names = [line[4:].split("(", 1)[0] for line in path.read_text().splitlines()
                 if line.startswith("def ") and not line.startswith("def _")]
        if names:
            module = ".".join(path.relative_to(root / "src").with_suffix("").parts)
            out[module] = names
    return out


def step(root: Path, rng: random.Random, n: int, mods: dict[str, list[str]],
         added: list[Path]) -> str:
    kind = rng.choice(["add", "add", "edit", "edit", "remove"] if added else ["add", "edit"])
    if kind == "add":
        module = rng.choice(sorted(mods))
        a, b = (rng.sample(mods[module], 2) if len(mods[module]) > 1
                else mods[module] * 2)
        path = root / "src" / f"bench_added_{n}.py"
        path.write_text(f"from {module} import {a}, {b}\n\n\ndef bench_{n}(x):\n"
                        f"    return {a}(x), {b}(x)\n")
        added.append(path)
        return f"add (calls {module})"
    if kind == "remove":
        added.pop(rng.randrange(len(added))).unlink()
        return "remove"
    src, dst = rng.sample(sorted(mods), 2)
    target = rng.choice(mods[dst])
    path = root / "src" / Path(*src.split(".")).with_suffix(".py")
    path.write_text(path.read_text() + f"\n\ndef bench_edit_{n}():\n    from {dst} import "
                    f"{target}\n\n    return {target}\n")
    return f"edit ({src} -> {dst})"


def quality(store: Store, seed: int) -> dict[str, tuple[float, float, float]]:
    """scope -> (stored partition, detection warm-started from it, detection from scratch):
    modularity at level 0 on the current graph."""
    out = {}
    for scope in SCOPES:
        cg = community_graph(store, REPO, scope=scope)  # type: ignore[arg-type]
        numbers = stored_numbers(store, REPO, scope).get(0, {})
        top = max(numbers.values(), default=-1) + 1
        stored = []
        for node in cg.ids:
            if node in numbers:
                stored.append(numbers[node])
            else:  # not in a community: alone (the property test says this never happens)
                stored.append(top)
                top += 1
        w = "weight" if cg.edges else None
        warm = leiden(cg.graph, seed=seed, initial=stored)
        fresh = leiden(cg.graph, seed=seed)
        out[scope] = tuple(cg.graph.modularity(m, weights=w) if cg.edges else 0.0
                           for m in (stored, warm, fresh))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("source", type=Path, help="a repository with a src/ directory (click)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="comm-steps-"))
    root = work / "tree"
    shutil.copytree(args.source, root, ignore=shutil.ignore_patterns(".git", "__pycache__"))
    rng = random.Random(args.seed)
    mods = functions(root)
    options = IngestOptions(name=REPO, embed=False, history=HistoryOptions(enabled=False))
    print(f"load {os.getloadavg()}")
    print("step  change                                   communities  seconds  "
          "file: stored / warm / fresh     symbol: stored / warm / fresh")
    added: list[Path] = []
    times: dict[str, list[float]] = {}
    with Store.open(work / "db") as store:
        for n in range(args.steps + 1):
            change = step(root, rng, n, mods, added) if n else "first ingest"
            data = ingest_repository(store, root, options=options).to_dict()
            started = time.perf_counter()
            done = communities_after_ingest(store, data)
            took = time.perf_counter() - started
            if n:
                times.setdefault(done["status"], []).append(took)
            q = quality(store, args.seed)
            print(f"{n:4}  {change[:40]:40} {done['status']:11}  {took:7.3f}  "
                  + "   ".join(f"{s:.4f} / {w:.4f} / {f:.4f}" for s, w, f in q.values()),
                  flush=True)
    for status, seconds in times.items():
        print(f"{status}: {len(seconds)} steps, median {statistics.median(seconds):.3f} s, "
              f"max {max(seconds):.3f} s")
    print(f"load {os.getloadavg()}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
