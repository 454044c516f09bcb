"""Communities benchmark, part 1: Leiden on a planted graph of 1M edges, igraph against leidenalg.

Standalone: it does not import ``queries.communities``. One run:

1. generates, deterministically from ``--seed``, an LFR-like graph with planted communities
   (power-law degrees and community sizes, mixing ``--mixing``: that fraction of each node's
   edges leaves its community), held as a polars edge frame (from, to, weight) as Kuzu exports;
2. builds the igraph ``Graph`` from that frame; baseline: the polars -> Python lists alone;
3. runs, each twice with the same seed: igraph ``community_leiden`` (modularity, seeded through
   ``igraph.set_random_number_generator``), the same with igraph's unseedable C RNG (PCG32),
   igraph without an iteration cap (once), leidenalg ``ModularityVertexPartition``, and CPM at
   one resolution in both libraries; for each the seconds, modularity, community count, NMI and
   ARI against the planted partition, and whether both runs gave identical memberships.
   Baselines: the planted partition itself, and the seeded igraph run of the same objective.

    .venv/bin/python benchmarks/communities.py [--edges 1000000] [--mixing 0.3] [--seed 7]

Exit status 0 when some implementation meets every target (time, NMI, determinism), else 1.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata

import igraph
import leidenalg
import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

TARGET_SECONDS = 5.0  # the communities issue: one resolution on 1M edges
TARGET_NMI = 0.9  # ... recovering the planted partition of a graph with mixing 0.3
# LFR-like parameters (Lancichinetti, Fortunato & Radicchi 2008): degree exponent tau1 and
# bounds, community-size exponent tau2 and bounds. Sizes 50-5,000 give a few hundred communities
# per million edges, the spread of modules (directories, packages) of a large codebase.
TAU1, DMIN, DMAX = 2.5, 4, 200
TAU2, SMIN, SMAX = 1.5, 50, 5_000
WEIGHTS = ((1.0, 50), (2.0, 20), (3.0, 12), (4.0, 8), (6.0, 6), (10.0, 4))  # value, share %
console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


# ------------------------------------------------------------------------------ the graph
@dataclass
class Planted:
    n: int
    edges: pl.DataFrame  # from < to, weight (Float64); simple graph
    membership: list[int]
    sizes: list[int]
    seconds: float
    stats: dict[str, float] = field(default_factory=dict)


def _power_law(rng: random.Random, tau: float, lo: float, hi: float) -> float:
    """One draw of a power law p(x) ~ x^-tau truncated to [lo, hi] (inverse CDF)."""
    a = 1.0 - tau
    return (lo ** a + rng.random() * (hi ** a - lo ** a)) ** (1.0 / a)


def _pair(stubs: pl.DataFrame) -> pl.DataFrame:
    """Consecutive rows (0,1), (2,3), ... of a stub frame (node, comm) as edges a-b."""
    a, b = stubs[::2], stubs[1::2]
    return pl.DataFrame({"a": a["node"], "ca": a["comm"], "b": b["node"], "cb": b["comm"]})


def _attempt(stub_edges: int, mu: float, seed: int) -> tuple[pl.DataFrame, list[int], list[int],
                                                              dict[str, float]]:
    rng = random.Random(seed)
    # node degrees (continuous power law, floored) until the stubs make stub_edges edges
    degrees: list[int] = []
    total = 0
    while total < 2 * stub_edges:
        d = min(DMAX, int(_power_law(rng, TAU1, DMIN, DMAX + 1)))
        degrees.append(d)
        total += d
    n = len(degrees)
    # community sizes until they cover n; a too-small remainder joins the last community
    sizes: list[int] = []
    while sum(sizes) < n:
        sizes.append(int(_power_law(rng, TAU2, SMIN, SMAX + 1)))
    sizes[-1] -= sum(sizes) - n
    if sizes[-1] < SMIN and len(sizes) > 1:
        rest = sizes.pop()
        sizes[-1] += rest
    membership = [c for c, s in enumerate(sizes) for _ in range(s)]
    rng.shuffle(membership)  # planted communities are not contiguous id ranges
    # internal stubs: (1 - mu) of each degree (randomised rounding), at most size - 1
    k_in, k_out = [0] * n, [0] * n
    capped = 0
    for v, d in enumerate(degrees):
        limit = sizes[membership[v]] - 1
        x = (1.0 - mu) * d
        k = int(x) + (rng.random() < x - int(x))
        if k > limit:  # a hub in a small community: shrink its degree, keep its mixing
            capped += 1
            k, d = limit, int(limit / (1.0 - mu))
        k_in[v], k_out[v] = k, d - k
    # internal stubs must pair up inside each community: an odd one out becomes external
    parity, last = [0] * len(sizes), [-1] * len(sizes)
    for v in range(n):
        if k_in[v]:
            parity[membership[v]] ^= k_in[v] & 1
            last[membership[v]] = v
    for c, v in enumerate(last):
        if parity[c]:
            k_in[v] -= 1
            k_out[v] += 1
    if sum(k_out) % 2:
        v = next(v for v in range(n) if k_out[v])
        k_out[v] -= 1
    nodes = pl.DataFrame({"node": range(n), "comm": membership, "k_in": k_in, "k_out": k_out},
                         schema={"node": pl.Int64, "comm": pl.Int64, "k_in": pl.Int64,
                                 "k_out": pl.Int64})

    def stubs(col: str) -> pl.DataFrame:
        return (nodes.filter(pl.col(col) > 0).with_columns(r=pl.int_ranges(col))
                .explode("r").select("node", "comm"))

    # configuration model inside each community: a random order, then grouped by community
    # (every community has an even stub count, so consecutive pairs never straddle two)
    inner = _pair(stubs("k_in").sample(fraction=1.0, shuffle=True, seed=rng.randrange(2**32))
                  .sort("comm", maintain_order=True))
    assert (inner["ca"] == inner["cb"]).all()
    # configuration model across communities; a pair that lands inside one community is
    # broken up with four times as many good pairs and re-paired (a few rounds, then dropped)
    outer = _pair(stubs("k_out").sample(fraction=1.0, shuffle=True, seed=rng.randrange(2**32)))
    for _ in range(4):
        outer = outer.with_row_index("i")
        bad = outer.filter(pl.col("ca") == pl.col("cb"))
        if bad.is_empty():
            outer = outer.drop("i")
            break
        good = outer.filter(pl.col("ca") != pl.col("cb"))
        mixed = good.sample(n=min(good.height, 4 * bad.height), seed=rng.randrange(2**32))
        pool = pl.concat([bad, mixed])
        redo = pl.concat([pool.select(node="a", comm="ca"), pool.select(node="b", comm="cb")])
        outer = pl.concat([good.filter(~pl.col("i").is_in(mixed["i"].implode())).drop("i"),
                           _pair(redo.sample(fraction=1.0, shuffle=True,
                                             seed=rng.randrange(2**32)))])
    crossing_dropped = int((outer["ca"] == outer["cb"]).sum())
    outer = outer.filter(pl.col("ca") != pl.col("cb"))
    raw = pl.concat([inner, outer]).select(
        pl.min_horizontal("a", "b").alias("from"), pl.max_horizontal("a", "b").alias("to"))
    loops = int((raw["from"] == raw["to"]).sum())
    edges = raw.filter(pl.col("from") != pl.col("to")).unique(maintain_order=True)
    stats = {"stub_edges": raw.height + crossing_dropped, "self_loops": loops,
             "multi_edges": raw.height - loops - edges.height,
             "same_community_external_dropped": crossing_dropped, "degree_capped": capped}
    return edges, membership, sizes, stats


def planted_graph(m: int, mu: float, seed: int, weights: str = "unit") -> Planted:
    """A simple graph of exactly m edges with planted communities (deterministic). Weights are
    1.0 ("unit"), or drawn from WEIGHTS independently of the communities ("random"): noise that
    makes the weighted mixing of many low-degree nodes far higher than mu."""
    start = time.perf_counter()
    request = int(m * 1.03)  # multi-edges and self-loops are dropped; a few percent
    for _ in range(6):
        edges, membership, sizes, stats = _attempt(request, mu, seed)
        if edges.height >= m:
            break
        request = int(request * m / edges.height * 1.01)
    else:
        raise SystemExit(f"could not generate {m} edges")
    rng = random.Random(seed + 1)
    edges = edges.sample(n=m, seed=rng.randrange(2**32)).sort("from", "to")
    values, shares = zip(*WEIGHTS, strict=True)
    drawn = rng.choices(values, shares, k=m) if weights == "random" else [1.0] * m
    edges = edges.with_columns(weight=pl.Series(drawn, dtype=pl.Float64))
    comm = pl.Series(membership)
    crossing = int((comm.gather(edges["from"]) != comm.gather(edges["to"])).sum())
    fingerprint = int(edges.select((((pl.col("from") * 1_000_003 + pl.col("to")) % 2_147_483_647)
                                    * pl.col("weight")).sum()).item())
    stats |= {"mixing": crossing / m, "fingerprint": fingerprint}
    return Planted(len(membership), edges, membership, sizes, time.perf_counter() - start, stats)


# ------------------------------------------------------------------------------ measuring
@dataclass
class Run:
    label: str
    objective: str
    seconds: list[float]
    membership: list[int]
    deterministic: bool | None  # None: one run only
    note: str = ""


def _twice(label: str, objective: str, fn: Callable[[], list[int]], note: str = "",
           times: int = 2) -> Run:
    seconds, memberships = [], []
    for _ in range(times):
        start = time.perf_counter()
        memberships.append(fn())
        seconds.append(time.perf_counter() - start)
    same = memberships[0] == memberships[1] if times > 1 else None
    return Run(label, objective, seconds, memberships[0], same, note)


def igraph_leiden(g: igraph.Graph, objective: str, resolution: float, seed: int | None,
                  iterations: int) -> list[int]:
    """community_leiden takes no seed: it draws from igraph's process-wide generator. With a seed,
    that generator is a fresh random.Random(seed); with None, igraph's C PCG32 (no seed API)."""
    igraph.set_random_number_generator(None if seed is None else random.Random(seed))
    try:
        return g.community_leiden(objective_function=objective, weights="weight",
                                  resolution=resolution, n_iterations=iterations).membership
    finally:
        igraph.set_random_number_generator(random)  # igraph's own default


def cpm_quality(edges: pl.DataFrame, membership: list[int], gamma: float) -> float:
    """H = sum over communities of (internal edge weight - gamma * n_c (n_c - 1) / 2): the CPM
    objective both libraries optimise (up to a constant and a scale)."""
    comm = pl.Series(membership)
    internal = edges.filter(comm.gather(edges["from"]) == comm.gather(edges["to"]))
    sizes = comm.value_counts()["count"]
    return float(internal["weight"].sum()) - gamma * float((sizes * (sizes - 1)).sum()) / 2


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def machine() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            cpu = next((line.split(":", 1)[1].strip() for line in info
                        if line.startswith("model name")), cpu)
    except OSError:
        pass
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"machine: {len(os.sched_getaffinity(0))} cores usable, {ram:.0f} GiB RAM, {cpu}, "
            f"load {os.getloadavg()[0]:.2f}\npython {platform.python_version()} "
            f"({platform.platform()}); " + ", ".join(
                f"{d} {metadata.version(d)}" for d in ("igraph", "leidenalg", "polars")))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--mixing", type=float, default=0.3,
                    help="fraction of each node's edges that leave its community")
    ap.add_argument("--seed", type=int, default=7, help="graph generator and Leiden seed")
    ap.add_argument("--iterations", type=int, default=2,
                    help="Leiden n_iterations for every run (both libraries' default: 2)")
    ap.add_argument("--resolution", type=float, default=None,
                    help="CPM resolution (default: 3x the graph's weighted edge density)")
    ap.add_argument("--weights", choices=("unit", "random"), default="unit",
                    help="edge weights: all 1.0, or 1-10 drawn independently of the communities")
    args = ap.parse_args(argv)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    console.print(f"[bold]VectorGraphDB communities benchmark (part 1)[/bold]  {now}")
    console.print(machine())

    p = planted_graph(args.edges, args.mixing, args.seed, args.weights)
    m, n, s = p.edges.height, p.n, p.stats
    ordered = sorted(p.sizes)
    total_w = float(p.edges["weight"].sum())
    gamma = args.resolution or 3 * 2 * total_w / (n * (n - 1))
    console.print(
        f"graph: LFR-like planted partition (configuration model inside and across communities, "
        f"then simplified), seed {args.seed}: mixing mu = {args.mixing} per node "
        f"(realised: {s['mixing']:.3f} of edges cross communities); degrees ~ k^-{TAU1} in "
        f"[{DMIN}, {DMAX}], community sizes ~ s^-{TAU2} in [{SMIN}, {SMAX}]; edge weights: " + (
            f"{'/'.join(f'{v:g}' for v, _ in WEIGHTS)} drawn independently of the communities"
            if args.weights == "random" else "1.0 (passed as weights all the same)"))
    console.print(
        f"  {n:,} nodes, {m:,} edges (mean degree {2 * m / n:.1f}), {len(p.sizes)} communities "
        f"(sizes min {ordered[0]}, median {ordered[len(ordered) // 2]}, max {ordered[-1]}); "
        f"dropped while simplifying: {s['multi_edges']:,} multi-edges, {s['self_loops']:,} self-"
        f"loops, {s['same_community_external_dropped']:,} external pairs inside one community; "
        f"{s['degree_capped']} hub degrees capped to their community; generated in "
        f"{p.seconds:.1f} s; fingerprint {s['fingerprint']}")
    rss_graph = rss_mib()

    # --- build the igraph Graph from the polars frame
    start = time.perf_counter()
    pairs = p.edges.select("from", "to").rows()
    weights = p.edges["weight"].to_list()
    convert = time.perf_counter() - start
    start = time.perf_counter()
    g = igraph.Graph(n=n, edges=pairs, edge_attrs={"weight": weights})
    construct = time.perf_counter() - start
    del pairs, weights
    start = time.perf_counter()
    g2 = igraph.Graph(n=n)
    g2.add_edges(zip(p.edges["from"].to_list(), p.edges["to"].to_list(), strict=True))
    g2.es["weight"] = p.edges["weight"].to_list()
    zipped = time.perf_counter() - start
    assert g2.get_edgelist()[:1000] == g.get_edgelist()[:1000] and g2.ecount() == m
    del g2
    try:
        import pandas  # noqa: F401  (Graph.DataFrame needs pandas; the project does not ship it)
        start = time.perf_counter()
        frame = p.edges.rename({"from": "source", "to": "target"}).to_pandas()
        igraph.Graph.DataFrame(frame, directed=False)
        via_pandas = f"{time.perf_counter() - start:.2f} s"
    except ImportError:
        via_pandas = "not run: pandas is not installed"
    rss_build = rss_mib()

    # --- Leiden, each twice with the same seed
    planted_q = g.modularity(p.membership, weights="weight")
    it, seed = args.iterations, args.seed
    runs = [
        _twice("igraph, seeded", "modularity",
               lambda: igraph_leiden(g, "modularity", 1.0, seed, it)),
        _twice("igraph, C RNG", "modularity",
               lambda: igraph_leiden(g, "modularity", 1.0, None, it), "unseedable PCG32"),
        _twice("igraph, seeded", "modularity",
               lambda: igraph_leiden(g, "modularity", 1.0, seed, -1),
               "n_iterations=-1, 1 run", times=1),
        _twice("leidenalg Modularity", "modularity",
               lambda: leidenalg.find_partition(g, leidenalg.ModularityVertexPartition,
                                                weights="weight", n_iterations=it,
                                                seed=seed).membership),
        _twice("igraph, seeded", "CPM",
               lambda: igraph_leiden(g, "CPM", gamma, seed, it)),
        _twice("leidenalg CPM", "CPM",
               lambda: leidenalg.find_partition(g, leidenalg.CPMVertexPartition,
                                                weights="weight", resolution_parameter=gamma,
                                                n_iterations=it, seed=seed).membership),
    ]
    rss_end = rss_mib()

    scale = m / 1_000_000
    table = Table("implementation", "objective", "seconds (run 1 / 2)", "vs igraph",
                  "modularity", "CPM H", "communities (singletons)", "NMI", "ARI",
                  "deterministic", title=f"Leiden, n_iterations={it}, CPM resolution "
                  f"{gamma:.3g}, {m:,} edges")

    def count(ms: list[int]) -> str:
        sizes = pl.Series(ms).value_counts()["count"]
        return f"{sizes.len():,} ({int((sizes == 1).sum()):,})"

    table.add_row("planted partition (reference)", "", "", "", f"{planted_q:.4f}",
                  f"{cpm_quality(p.edges, p.membership, gamma):,.0f}", count(p.membership),
                  "1", "1", "")
    base = {r.objective: min(r.seconds) for r in reversed(runs) if r.label == "igraph, seeded"}
    verdicts = []
    for r in runs:
        nmi = igraph.compare_communities(p.membership, r.membership, method="nmi")
        ari = igraph.compare_communities(p.membership, r.membership, method="ari")
        best = min(r.seconds)
        det = {True: "yes", False: "[red]NO[/red]", None: "-"}[r.deterministic]
        table.add_row(r.label + (f" ({r.note})" if r.note else ""), r.objective,
                      " / ".join(f"{x:.2f}" for x in r.seconds), f"{best / base[r.objective]:.1f}x",
                      f"{g.modularity(r.membership, weights='weight'):.4f}",
                      f"{cpm_quality(p.edges, r.membership, gamma):,.0f}", count(r.membership),
                      f"{nmi:.3f}", f"{ari:.3f}", det)
        ok_t, ok_q = best < TARGET_SECONDS * scale, nmi >= TARGET_NMI
        verdicts.append((r, best, nmi, ok_t, ok_q))
    table.columns[0].no_wrap = True
    console.print(table)

    console.print(
        f"graph build from the polars frame: {convert + construct:.2f} s = polars -> Python "
        f"lists {convert:.2f} s (baseline) + Graph(n, edges=rows, edge_attrs) {construct:.2f} s; "
        f"Graph(n).add_edges(zip(...)) + es['weight'] {zipped:.2f} s; Graph.DataFrame "
        f"{via_pandas}")
    console.print(f"peak RSS: {rss_graph:,.0f} MiB after generation, {rss_build:,.0f} MiB after "
                  f"the build, {rss_end:,.0f} MiB at the end")
    console.print(f"targets (issue): < {TARGET_SECONDS:.0f} s per 1M edges at one resolution "
                  f"(scaled to {m:,}: {TARGET_SECONDS * scale:.1f} s, best of 2 runs), NMI >= "
                  f"{TARGET_NMI} against the planted partition, deterministic for a seed")
    for r, best, nmi, ok_t, ok_q in verdicts:
        mark = {True: "met", False: "[bold red]MISSED[/bold red]"}
        what = escape(f"{r.label} ({r.objective}{', ' + r.note if r.note else ''})")
        det = "n/a (one run)" if r.deterministic is None else mark[r.deterministic]
        console.print(f"  {what}: time {best:.2f} s {mark[ok_t]}, NMI {nmi:.3f} {mark[ok_q]}, "
                      f"deterministic {det}")
    return 0 if any(t and q and r.deterministic for r, _, _, t, q in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
