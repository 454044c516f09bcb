"""Everyday answers: how long an agent or a CI job waits for each small question, on a graph
of the standard library, side by side with code-review-graph in the same run.

The tree is the running interpreter's standard library without ``test/``, ``tests/``,
``idle_test/`` and ``site-packages`` (as ``make demo`` ingests it), copied into a git
repository (code-review-graph reads git); both tools build their graph of that copy. Then,
interleaved (each repetition runs every contender once, so load shifts hit all alike):

- ``vgdb --version`` / ``--help`` against ``python -c pass`` and code-review-graph's
  ``--version`` / ``--help`` (and ``--before``'s, an older vgdb, e.g. main's);
- ``Store.open`` read-only, in one process: total and the engine's own open
  (``graphdb.engine.open_engine``); the rest is ours (lock, checksum record, schema check);
- impact at depth 3 of ``--targets`` sampled functions and methods with a caller (seeded),
  and of the ``--targets`` most-called ones (hubs: the worst case), in one process
  (``queries.impact``), against a plain 1-hop callers query as the baseline, and with
  ``--before``'s code on the same database and targets;
- ``vgdb impact TARGET`` from a shell: opening the database (``VGDB_NO_SERVER=1``) and
  through a running ``vgdb serve`` (the resident path), against code-review-graph's
  ``impact --files FILE`` (file level: its smallest unit) and ``query callers_of NAME``;
- impact over ``vgdb serve``'s GraphQL (``POST /graphql``, a read token, one kept
  connection, as an agent's session);
- ``vgdb search QUERY`` from a shell, direct and through the server, against
  code-review-graph's ``search QUERY``.

Figures are p50 / p95 over all runs, in milliseconds, with the load average.

    .venv/bin/python benchmarks/everyday.py --crg /work/peers/crg-venv/bin/code-review-graph \
        [--before /work/main/.venv/bin/vgdb] [--work DIR] [--reps 5] [--targets 20]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

VGDB = str(Path(sys.executable).with_name("vgdb"))
DROP = ("test", "tests", "idle_test", "site-packages", "__pycache__")
SEARCHES = ("parse json", "http request headers", "thread pool executor", "decode base64",
            "temporary directory")


def copy_stdlib(dst: Path) -> Path:
    """The standard library without its tests, as a git repository."""
    if (dst / ".git").exists():
        return dst
    src = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(*DROP), symlinks=True)
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.name=bench", "-c", "user.email=bench@example.org", "commit",
                  "-qm", "stdlib"]):
        subprocess.run(["git", *args], cwd=dst, check=True, capture_output=True)
    return dst


def build(tree: Path, db: Path, crg: str) -> None:
    if not (db / "graph.lbug").exists():
        t = time.perf_counter()
        subprocess.run([VGDB, "ingest", str(tree), "--db", str(db), "--name", "stdlib", "--json"],
                       check=True, capture_output=True)
        print(f"vgdb ingest: {time.perf_counter() - t:.1f} s")
    if crg and not (tree / ".code-review-graph").exists():
        t = time.perf_counter()
        subprocess.run([crg, "build", "--repo", str(tree), "-q"], check=True,
                       capture_output=True)
        print(f"code-review-graph build: {time.perf_counter() - t:.1f} s")


def wall(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
         ok: tuple[int, ...] = (0,)) -> float:
    t = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True)
    took = time.perf_counter() - t
    if done.returncode not in ok:
        raise RuntimeError(f"{cmd} exited {done.returncode}: {done.stderr[-1500:]}")
    return took


def summary(times: list[float]) -> str:
    ms = sorted(1000 * t for t in times)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {statistics.median(ms):7.1f}  p95 {p95:7.1f}  (n={len(ms)})"


def interleaved(contenders: dict[str, Callable[[], float]], reps: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in contenders}
    for rep in range(reps):
        order = list(contenders)
        if rep % 2:
            order.reverse()
        for name in order:
            out[name].append(contenders[name]())
    return out


def report(title: str, results: dict[str, list[float]]) -> None:
    print(f"\n{title}  (load {', '.join(f'{x:.2f}' for x in os.getloadavg())})")
    for name, times in results.items():
        print(f"  {name:52} {summary(times)}")


def sample_targets(db: Path, n: int, seed: int) -> list[tuple[str, str, str]]:
    """(id, file path, name) of ``n`` functions and methods with at least one caller."""
    from graphdb import Store

    with Store.open(db, read_only=True) as store:
        rows = store.cypher(
            "MATCH (c:Symbol)-[:CALLS]->(s:Symbol) WHERE s.kind IN ['function', 'method'] "
            "AND s.is_test = false AND s.valid_to IS NULL RETURN DISTINCT s.id AS id, "
            "s.qualname AS q ORDER BY id").rows()
    picked = random.Random(seed).sample(rows, n)
    return [(i, i.split("/", 1)[1].split("#")[0], q.rsplit(".", 1)[-1]) for i, q in picked]


def most_called(db: Path, n: int) -> list[tuple[str, str, str]]:
    """The ``n`` functions and methods with the most distinct callers (hubs: the worst
    case for impact)."""
    from graphdb import Store

    with Store.open(db, read_only=True) as store:
        rows = store.cypher(
            "MATCH (c:Symbol)-[:CALLS]->(s:Symbol) WHERE s.kind IN ['function', 'method'] "
            "AND s.is_test = false AND s.valid_to IS NULL RETURN s.id AS id, s.qualname AS "
            "q, count(DISTINCT c) AS n ORDER BY n DESC, id LIMIT $n", {"n": n}).rows()
    return [(i, i.split("/", 1)[1].split("#")[0], q.rsplit(".", 1)[-1]) for i, q, _ in rows]


def in_process(db: Path, targets: list[tuple[str, str, str]], reps: int, *,
               label: str) -> None:
    from graphdb import Store
    from graphdb.engine import open_engine
    from queries.impact import impact

    def store_open() -> float:
        t = time.perf_counter()
        Store.open(db, read_only=True).close()
        return time.perf_counter() - t

    def engine_open() -> float:
        t = time.perf_counter()
        open_engine(db / "graph.lbug", read_only=True).close()
        return time.perf_counter() - t

    if label == "sampled":
        store_open()
        report("open the database, read-only, in one process (ms)", interleaved(
            {"Store.open (lock, checksum, engine, schema check)": store_open,
             "the engine's own open (baseline)": engine_open}, reps * 4))

    with Store.open(db, read_only=True) as store:
        def one(f: Callable[[str], object]) -> Callable[[], float]:
            def run() -> float:
                total = 0.0
                for target, _, _ in targets:
                    t = time.perf_counter()
                    f(target)
                    took = time.perf_counter() - t
                    times.append(took)
                    total += took
                return total
            times: list[float] = []
            run.times = times  # type: ignore[attr-defined]
            return run

        deep = one(lambda t: impact(store, [t], depth=3))
        hop = one(lambda t: store.cypher(
            "MATCH (c:Symbol)-[:CALLS]->(s:Symbol {id: $id}) RETURN c.id", {"id": t}))
        deep()
        hop()  # warm-up
        deep.times.clear()  # type: ignore[attr-defined]
        hop.times.clear()  # type: ignore[attr-defined]
        interleaved({"impact": deep, "hop": hop}, reps)
        report(f"impact depth 3 of {len(targets)} {label} functions, in one process (ms, per "
               "call)", {
            "queries.impact(store, [t], depth=3)": deep.times,  # type: ignore[attr-defined]
            "1-hop callers query (baseline)": hop.times})  # type: ignore[attr-defined]


_BEFORE = """
import json, sys, time
from graphdb import Store
from queries.impact import impact
db, reps, targets = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
times = []
with Store.open(db, read_only=True) as store:
    for t in targets:
        impact(store, [t], depth=3)
    for _ in range(reps):
        for t in targets:
            a = time.perf_counter()
            impact(store, [t], depth=3)
            times.append(time.perf_counter() - a)
print(json.dumps(times))
"""


def before_in_process(before: str, db: Path, targets: list[tuple[str, str, str]],
                      reps: int, *, label: str) -> None:
    """The same impact calls with an older vgdb's code (its interpreter, in its checkout)."""
    python = str(Path(before).with_name("python"))
    checkout = Path(before).resolve().parent.parent.parent
    done = subprocess.run([python, "-c", _BEFORE, str(db), str(reps),
                           json.dumps([t[0] for t in targets])], cwd=checkout,
                          capture_output=True, text=True, check=True)
    report(f"before ({checkout}): impact depth 3 of {len(targets)} {label} functions, in one "
           "process (ms, per call)",
           {"queries.impact(store, [t], depth=3)": json.loads(done.stdout)})


def start_server(db: Path) -> subprocess.Popen[bytes]:
    record = db / "server.json"
    record.unlink(missing_ok=True)
    server = subprocess.Popen([VGDB, "serve", "--db", str(db), "--port", "0"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not record.exists():
        if time.monotonic() > deadline or server.poll() is not None:
            raise RuntimeError("vgdb serve did not start")
        time.sleep(0.1)
    return server


IMPACT = ("query($t: String!) { impact(targets: [$t], depth: 3, limit: 20) "
          "{ symbols { id score } tests { nodeId } } }")


def graphql_impact(db: Path, targets: list[tuple[str, str, str]], reps: int) -> None:
    """Impact over HTTP from a client that keeps its connection (an agent's MCP/GraphQL
    session): ``vgdb serve``'s GraphQL, with a read token."""
    import httpx

    from graphdb.tokens import TokenStore

    _, secret = TokenStore(db).create("everyday-bench", scope="read")
    server = start_server(db)
    url = json.loads((db / "server.json").read_text())["url"] + "/graphql"
    times: list[float] = []
    try:
        with httpx.Client(headers={"Authorization": f"Bearer {secret}"}) as client:
            def run() -> float:
                total = 0.0
                for target, _, _ in targets:
                    t = time.perf_counter()
                    answer = client.post(url, json={"query": IMPACT,
                                                    "variables": {"t": target}})
                    took = time.perf_counter() - t
                    if answer.status_code != 200 or "errors" in answer.json():
                        raise RuntimeError(answer.text[:500])
                    times.append(took)
                    total += took
                return total
            run()
            times.clear()
            for _ in range(reps):
                run()
    finally:
        server.terminate()
        server.wait(timeout=30)
    report(f"impact depth 3 of {len(targets)} sampled functions over GraphQL (vgdb serve, "
           "one kept connection; ms per request)", {"POST /graphql impact": times})


def shell(db: Path, tree: Path, targets: list[tuple[str, str, str]], crg: str,
          before: str | None, reps: int) -> None:
    py = [sys.executable, "-c", "pass"]
    start = {"python -c pass (baseline)": lambda: wall(py),
             "vgdb --version": lambda: wall([VGDB, "--version"]),
             "vgdb --help": lambda: wall([VGDB, "--help"])}
    if crg:
        start["code-review-graph --version"] = lambda: wall([crg, "--version"])
        start["code-review-graph --help"] = lambda: wall([crg, "--help"])
    if before:
        start["before: vgdb --version"] = lambda: wall([before, "--version"])
        start["before: vgdb --help"] = lambda: wall([before, "--help"])
    report("cold start (ms)", interleaved(start, reps * 4))

    server = start_server(db)
    try:
        few = targets[: max(1, len(targets) // 2)]
        runs: dict[str, Callable[[], float]] = {}

        def each(make: Callable[[tuple[str, str, str]], list[str]], **kw: object
                 ) -> Callable[[], float]:
            return _over(few, make, **kw)

        direct = {"VGDB_NO_SERVER": "1"}
        runs["vgdb impact (through vgdb serve)"] = each(
            lambda t: [VGDB, "impact", t[0], "--db", str(db)])
        runs["vgdb impact (opens the database)"] = each(
            lambda t: [VGDB, "impact", t[0], "--db", str(db)], env=direct)
        if before:
            runs["before: vgdb impact (opens the database)"] = each(
                lambda t: [before, "impact", t[0], "--db", str(db)])
        if crg:
            runs["code-review-graph impact --files FILE --depth 3"] = each(
                lambda t: [crg, "impact", "--files", t[1], "--depth", "3", "--repo",
                           str(tree)], cwd=tree)
            runs["code-review-graph query callers_of NAME"] = each(
                lambda t: [crg, "query", "callers_of", t[2], "--repo", str(tree)], cwd=tree)
        for run in runs.values():
            run()
            run.times.clear()  # type: ignore[attr-defined]
        interleaved(runs, reps)
        report(f"impact of {len(few)} functions from a shell (ms, per command)",
               {k: v.times for k, v in runs.items()})  # type: ignore[attr-defined]

        searches: dict[str, Callable[[], float]] = {}

        def each_query(make: Callable[[str], list[str]], **kw: object) -> Callable[[], float]:
            return _over(SEARCHES, make, **kw)

        searches["vgdb search (through vgdb serve)"] = each_query(
            lambda q: [VGDB, "search", q, "--db", str(db)])
        searches["vgdb search (opens the database)"] = each_query(
            lambda q: [VGDB, "search", q, "--db", str(db)], env=direct)
        if crg:
            searches["code-review-graph search QUERY"] = each_query(
                lambda q: [crg, "search", q, "--repo", str(tree)], cwd=tree)
        for run in searches.values():
            run()
            run.times.clear()  # type: ignore[attr-defined]
        interleaved(searches, reps)
        report(f"search, {len(SEARCHES)} queries from a shell (ms, per command)",
               {k: v.times for k, v in searches.items()})  # type: ignore[attr-defined]
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--work", type=Path, default=Path(f"/tmp/everyday-{os.getpid()}"))
    ap.add_argument("--crg", default="", help="code-review-graph executable (its own venv)")
    ap.add_argument("--before", default=None, help="an older vgdb to compare with")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--targets", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=["graphql"], default=None,
                    help="run only this part (the graph must be built)")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    tree = copy_stdlib(args.work / "stdlib")
    db = args.work / "db"
    build(tree, db, args.crg)
    print(f"machine: {os.cpu_count()} cores; load {os.getloadavg()}; vgdb {VGDB}")
    targets = sample_targets(db, args.targets, args.seed)
    if args.only == "graphql":
        graphql_impact(db, targets, args.reps)
        return
    hubs = most_called(db, args.targets)
    for label, chosen in (("sampled", targets), ("most-called", hubs)):
        in_process(db, chosen, args.reps, label=label)
        if args.before:
            before_in_process(args.before, db, chosen, args.reps, label=label)
    graphql_impact(db, targets, args.reps)
    shell(db, tree, targets, args.crg, args.before, args.reps)
    print(json.dumps({"targets": [t[0] for t in targets]}))


def _over(items: Sequence[Any], make: Callable[[Any], list[str]], **kw: object
          ) -> Callable[[], float]:
    """One round: the command ``make(item)`` for each item, timed; each time is kept in the
    returned function's ``times``."""
    def run() -> float:
        total = 0.0
        for item in items:
            took = wall(make(item), **kw)  # type: ignore[arg-type]
            run.times.append(took)  # type: ignore[attr-defined]
            total += took
        return total
    run.times = []  # type: ignore[attr-defined]
    return run


if __name__ == "__main__":
    main()
