"""Communities benchmark, part 2: the standard library's real file and symbol graphs.

Ingests this machine's CPython standard library (without ``test``/``tests``/``idle_test``
and ``site-packages``, history off) into a temporary database, or uses ``--db`` with a
``stdlib`` repository already in it, then for each scope (file, symbol):

1. exports the weighted graph from Kuzu (baseline: one ``count(*)`` query over the same
   edge kinds);
2. runs the hierarchy with igraph's Leiden and with leidenalg (modularity, seed 0) side by
   side, and reports per level: seconds, communities, modularity, NMI/ARI against the
   parent directories (file scope) or the defining files (symbol scope) and against the
   top-level directories;
3. runs :func:`queries.communities.detect_communities` (export + Leiden + names + storing)
   twice with the same seed: identical result and no node moved (determinism, stable ids);
4. perturbs the graph (drops 1% and 5% of its edges, seeded), partitions it again from
   scratch (cold) and from the previous partition (warm, what ``detect_communities`` does
   when a detection is stored) and matches the new communities to the old ones: the share
   of nodes whose stable community changed.

    .venv/bin/python benchmarks/communities_code.py [--db DIR] [--repeat 2]

Part 1 (the 1M-edge planted partition) is ``benchmarks/communities.py``.
"""

from __future__ import annotations

import argparse
import random
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import igraph
from rich.console import Console
from rich.table import Table

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.ingest import machine  # noqa: E402
from graphdb import Store  # noqa: E402
from ingest.history.pipeline import HistoryOptions  # noqa: E402
from ingest.pipeline import IngestOptions, ingest_repository  # noqa: E402
from queries.communities import (  # noqa: E402
    CommunityGraph,
    community_graph,
    detect_communities,
    hierarchy,
    match_communities,
)
from schema import CALLS, CO_CHANGED, CONTAINS, FILE, IMPORTS, INHERITS, SYMBOL  # noqa: E402

REPO = "stdlib"
EXCLUDES = ("test/", "tests/", "idle_test/", "site-packages/")
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 170)


def ingest_stdlib(store: Store) -> float:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    started = time.perf_counter()
    ingest_repository(store, stdlib, options=IngestOptions(
        name=REPO, excludes=EXCLUDES, history=HistoryOptions(enabled=False)))
    return time.perf_counter() - started


def best(fn, repeat: int):
    """(best seconds, last result) of ``repeat`` runs."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return min(times), result


def count_edges(store: Store, scope: str) -> int:
    """Baseline for the export: count the same edges in Kuzu without returning them."""
    total = 0
    kinds = [(IMPORTS, FILE, None), (CALLS, SYMBOL, SYMBOL), (INHERITS, SYMBOL, SYMBOL)]
    kinds.append((CO_CHANGED, FILE, FILE) if scope == "file" else (CONTAINS, SYMBOL, SYMBOL))
    for rel, a, b in kinds:
        target = f"(b:{b.name})" if b else "(b)"
        total += store.cypher(f"MATCH (a:{a.name})-[e:{rel.name}]->{target} WHERE a.repo = $r "
                              "RETURN count(*) AS n", {"r": REPO})["n"][0]
    return total


def structure(cg: CommunityGraph, scope: str) -> tuple[list[int], list[int]]:
    """(containers, top-level directories) as memberships."""
    def index(labels: list[str]) -> list[int]:
        seen: dict[str, int] = {}
        return [seen.setdefault(x, len(seen)) for x in labels]

    containers = [p if scope == "symbol" else (p.rsplit("/", 1)[0] if "/" in p else ".")
                  for p in cg.paths]
    tops = [p.split("/", 1)[0] if "/" in p else "." for p in cg.paths]
    return index(containers), index(tops)


def compare(a: list[int], b: list[int]) -> tuple[float, float]:
    return (igraph.compare_communities(a, b, method="nmi"),
            igraph.compare_communities(a, b, method="adjusted_rand"))


def perturbed(cg: CommunityGraph, share: float, seed: int) -> CommunityGraph:
    graph = cg.graph.copy()
    rng = random.Random(seed)
    graph.delete_edges(rng.sample(range(graph.ecount()), int(share * graph.ecount())))
    return CommunityGraph(cg.ids, graph, cg.paths, cg.words, cg.directed)


def run_scope(store: Store, scope: str, repeat: int) -> None:
    count_s, edges = best(lambda: count_edges(store, scope), repeat)
    export_s, cg = best(lambda: community_graph(store, REPO, scope=scope), repeat)
    console.print(f"\n[bold]{scope} graph[/bold]: {len(cg.ids):,} nodes, {cg.edges:,} weighted "
                  f"edges (from {len(cg.directed):,} directed kind-pairs); export "
                  f"{export_s:.3f} s vs count(*) of the stored edges ({edges:,}) "
                  f"{count_s:.3f} s = {export_s / count_s:.1f}x")
    containers, tops = structure(cg, scope)
    table = Table(title=f"{scope} hierarchy, seed 0, modularity")
    for col in ("implementation", "level", "seconds (cumulative, best)", "vs igraph",
                "communities", "modularity", "NMI containers", "ARI containers", "NMI top dirs",
                "ARI top dirs"):
        table.add_column(col, justify="right" if col not in ("implementation",) else "left")
    reference: dict[int, float] = {}
    for backend in ("igraph", "leidenalg"):
        seconds_by_level: dict[int, float] = {}
        levels = None
        for depth in (1, 2, 3):
            s, levels = best(lambda d=depth, b=backend: hierarchy(cg, seed=0, levels=d,
                                                                  backend=b), repeat)
            seconds_by_level[depth - 1] = s
        for lv in levels or ():
            s = seconds_by_level.get(lv.level, float("nan"))
            if backend == "igraph":
                reference[lv.level] = s
            nc, ac = compare(list(lv.membership), containers)
            nt, at = compare(list(lv.membership), tops)
            table.add_row(backend, str(lv.level), f"{s:.3f}",
                          f"{s / reference[lv.level]:.1f}x", f"{lv.count:,}",
                          f"{lv.modularity:.4f}", f"{nc:.3f}", f"{ac:.3f}", f"{nt:.3f}",
                          f"{at:.3f}")
    console.print(table)

    first_s, first = best(lambda: detect_communities(store, REPO, scope=scope, fresh=True), 1)
    groups = store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community) WHERE c.repo = $r AND c.scope = $s "
        "RETURN m.id AS member, c.id AS community ORDER BY member, community",
        {"r": REPO, "s": scope})
    second_s, second = best(lambda: detect_communities(store, REPO, scope=scope, fresh=True), 1)
    again = store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community) WHERE c.repo = $r AND c.scope = $s "
        "RETURN m.id AS member, c.id AS community ORDER BY member, community",
        {"r": REPO, "s": scope})
    same = groups.equals(again) and second.moved == ()
    kept_s, kept = best(lambda: detect_communities(store, REPO, scope=scope), 1)
    console.print(f"detect_communities (export + Leiden + names + store), from scratch: "
                  f"{first_s:.2f} s, again {second_s:.2f} s; identical ids and membership: "
                  f"{same}; {len(first.communities):,} communities over {len(first.levels)} "
                  f"levels. Unchanged graph (stored fingerprint): {kept_s:.2f} s, "
                  f"{len(kept.moved)} moved")

    top = first.levels[0]
    previous = dict(zip(cg.ids, top.membership, strict=True))
    for share in (0.01, 0.05):
        changed = perturbed(cg, share, seed=1)
        for label, initial in (("cold start", None), ("warm start", top.membership)):
            after = hierarchy(changed, seed=0, levels=1, initial=initial)[0]
            matched = match_communities(cg.ids, after.membership, previous)
            kept = len(set(matched.numbers) & set(previous.values()))
            console.print(
                f"drop {share:.0%} of edges, {label}: {len(matched.moved):,} of {len(cg.ids):,} "
                f"nodes ({len(matched.moved) / len(cg.ids):.1%}) changed community; {kept} of "
                f"{after.count} top-level communities kept an old id; modularity "
                f"{after.modularity:.4f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default=None, help="database holding a 'stdlib' repository")
    ap.add_argument("--repeat", type=int, default=2, help="runs per timing (best is kept)")
    args = ap.parse_args(argv)
    info = machine()
    console.print(f"{info['date']}  {info['cpu']}  nproc {info['nproc']}  load "
                  f"{info['loadavg']}  python {info['python']}  igraph {igraph.__version__}")
    with tempfile.TemporaryDirectory() as tmp, Store.open(args.db or Path(tmp) / "db") as store:
        if args.db is None:
            console.print(f"ingested the standard library in {ingest_stdlib(store):.1f} s")
        for scope in ("file", "symbol"):
            run_scope(store, scope, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
