"""A seeded, code-shaped synthetic corpus in our shard format, in proportions measured on a
real one (issue 28, item 3).

``measure`` extracts a real tree (default: this repository) into a shard with the real
extractor and derives, per file: how many functions, classes, methods, imports, call sites
and bases it has (the empirical distributions, resampled as they are, not fitted), and over
call sites: the share whose callee is a name defined in the same file, a name imported from
another module of the tree, or something else (attributes, builtins, other packages), and
how concentrated call targets are (top-1% share of resolved calls).

``generate`` writes ``repos`` shard directories (``files.parquet``, ``symbols.parquet``, ...,
``shard.json``, through :func:`ingest.shards.write_shards`) whose files are drawn from those
distributions: each repository is a package of modules grouped into sub-packages
(communities: imports go to the same sub-package with the measured in-package share), and
callees of imported names are picked with preferential weights (a Zipf law whose exponent
matches the measured concentration), so in-degrees are heavy-tailed as in real code.
The shards are loaded by the REAL loader (``ingest_repository(store, root, shards=...)``,
the path of ``vgdb load-shards``/``ingest-batch``): the resolver turns the names into
CALLS/IMPORTS/INHERITS edges exactly as for parsed code.

Not generated (said in docs/scaling.md): git history and recorded entries — the loader of
those is a different path (ingest/history, ingest/sessions) and was not part of this run.

    .venv/bin/python benchmarks/synthetic_graph.py measure [--tree DIR]
    .venv/bin/python benchmarks/synthetic_graph.py generate OUT --repos 10 --files 200 [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ingest.extract.python import IMPLICIT_DUNDERS, VALUE_PREFIX  # noqa: E402
from ingest.extract.rows import (  # noqa: E402
    CallRow,
    FileExtract,
    ImportRow,
    InheritRow,
    SymbolRow,
)
from ingest.shards import ExtractRequest, extract_shards, write_shards  # noqa: E402
from ingest.walk import Candidate  # noqa: E402
from ingest.worker import FileResult  # noqa: E402


@dataclass
class Profile:
    """Proportions measured on a real shard (per-file tuples are resampled as a whole)."""

    source: str
    files: int
    #: per file: (functions, classes, methods, imports, calls, bases)
    per_file: list[tuple[int, int, int, int, int, int]]
    local_call_share: float  # callee is a top-level name defined in the same file
    imported_call_share: float  # callee is a name the file imports from the tree
    top1_share: float  # share of in-tree calls that go to the top 1% of targets

    def summary(self) -> dict[str, float]:
        n = max(len(self.per_file), 1)
        cols = list(zip(*self.per_file, strict=True)) if self.per_file else [()] * 6
        names = ("functions", "classes", "methods", "imports", "calls", "bases")
        out = {f"{k}_per_file": round(sum(c) / n, 2) for k, c in zip(names, cols, strict=True)}
        out.update(files=self.files, local_call_share=round(self.local_call_share, 3),
                   imported_call_share=round(self.imported_call_share, 3),
                   top1_share=round(self.top1_share, 3))
        return out


def measure(tree: Path) -> Profile:
    """Extract ``tree`` with the real extractor and measure its Python files' proportions."""
    with tempfile.TemporaryDirectory(prefix="scale-measure-") as tmp:
        info = extract_shards(ExtractRequest(str(tree), tmp, repo="measured"))
        tables = {n: pl.read_parquet(Path(tmp) / f"{n}.parquet")
                  for n in ("files", "symbols", "imports", "calls", "inherits")}
    files = tables["files"].filter((pl.col("language") == "python") & pl.col("extracted"))
    paths = files["path"].to_list()
    sym = tables["symbols"].filter(pl.col("path").is_in(paths))
    by = {name: t.filter(pl.col("path").is_in(paths)) for name, t in tables.items()}
    # call sites as written: not the rows for functions passed as values, nor the implicit
    # dunder calls (``with``, ``for``, operators) the extractor adds for the resolver
    by["calls"] = by["calls"].filter(
        ~pl.col("callee").str.starts_with(VALUE_PREFIX)
        & ~pl.col("callee").str.split(".").list.last().is_in(list(IMPLICIT_DUNDERS)))

    def count(frame: pl.DataFrame, cond: pl.Expr | None = None) -> dict[str, int]:
        frame = frame if cond is None else frame.filter(cond)
        return dict(frame.group_by("path").len().iter_rows())

    fun = count(sym, (pl.col("kind") == "function") & (pl.col("parent") == ""))
    cls = count(sym, pl.col("kind") == "class")
    meth = count(sym, pl.col("kind") == "method")
    imp, cal, inh = count(by["imports"]), count(by["calls"]), count(by["inherits"])
    per_file = [(fun.get(p, 0), cls.get(p, 0), meth.get(p, 0), imp.get(p, 0), cal.get(p, 0),
                 inh.get(p, 0)) for p in paths]
    # call-site classes: a bare name defined at top level of the file, a bare name imported
    top = sym.filter(pl.col("parent") == "").select("path", "name").unique()
    imported = by["imports"].filter(pl.col("name") != "").select(
        "path", pl.coalesce(pl.when(pl.col("alias") != "").then(pl.col("alias")),
                            pl.col("name")).alias("name")).unique()
    calls = by["calls"].select("path", pl.col("callee").alias("name"))
    n_calls = max(calls.height, 1)
    local = calls.join(top, on=["path", "name"], how="semi")
    from_import = calls.join(imported, on=["path", "name"], how="semi")
    targets = pl.concat([local.with_columns(pl.col("path")), from_import])
    degrees = sorted(targets.group_by("path", "name").len()["len"].to_list(), reverse=True)
    top_n = max(1, len(degrees) // 100)
    top1 = sum(degrees[:top_n]) / max(sum(degrees), 1)
    return Profile(source=str(tree), files=info.counts["files"], per_file=per_file,
                   local_call_share=local.height / n_calls,
                   imported_call_share=from_import.height / n_calls, top1_share=top1)


def zipf_weights(n: int, exponent: float) -> list[float]:
    return [1.0 / (rank ** exponent) for rank in range(1, n + 1)]


def fit_exponent(profile: Profile, n: int = 2000) -> float:
    """The Zipf exponent whose top-1% share over ``n`` targets matches the measured one."""
    best, best_err = 1.0, 1e9
    for step in range(0, 31):
        s = step / 10
        w = zipf_weights(n, s)
        share = sum(w[: max(1, n // 100)]) / sum(w)
        if abs(share - profile.top1_share) < best_err:
            best, best_err = s, abs(share - profile.top1_share)
    return best


def generate_repo(out: Path, repo: str, profile: Profile, *, files: int, seed: int,
                  community: int = 12, in_community: float = 0.8) -> dict[str, int]:
    """One synthetic repository as a shard in ``out``; returns its row counts."""
    rng = random.Random(seed)
    exponent = fit_exponent(profile)
    modules = [f"{repo}/sub{i // community}/m{i}" for i in range(files)]
    plans = [rng.choice(profile.per_file) for _ in modules]
    exported: list[list[str]] = [[f"f{j}" for j in range(max(p[0], 1))] for p in plans]
    weights = [zipf_weights(len(e), exponent) for e in exported]
    popularity = zipf_weights(files, exponent)  # some modules are imported far more
    order = list(range(files))
    rng.shuffle(order)  # popularity is not tied to the module's position
    candidates, results = [], []
    for i, (n_fun, n_cls, n_meth, n_imp, n_call, n_base) in enumerate(plans):
        path = modules[i] + ".py"
        n_fun = max(n_fun, 1)
        symbols, line = [], 1
        for j in range(n_fun):
            symbols.append(SymbolRow(f"f{j}", f"f{j}", "function", line, line + 9,
                                     signature=f"def f{j}(x)", docstring=f"Step {j} of {repo}."))
            line += 10
        classes = [f"C{k}" for k in range(n_cls)]
        for k, c in enumerate(classes):
            symbols.append(SymbolRow(c, c, "class", line, line + 30, docstring=f"Class {k}."))
            line += 1
        for m in range(n_meth if classes else 0):
            c = classes[m % len(classes)]
            symbols.append(SymbolRow(f"{c}.m{m}", f"m{m}", "method", line, line + 5,
                                     parent=c, signature=f"def m{m}(self)"))
            line += 6
        base = (i // community) * community
        peers = range(base, min(base + community, files))
        imports, names = [], []
        for _ in range(n_imp):
            if rng.random() < in_community:
                j = rng.choice(peers)
            else:
                j = order[rng.choices(range(files), weights=popularity)[0]]
            if j == i:
                continue
            name = rng.choices(exported[j], weights=weights[j])[0]
            alias = f"{name}_{j}"
            imports.append(ImportRow(modules[j].replace("/", "."), name, alias, 0, 1))
            names.append(alias)
        scopes = [s.qualname for s in symbols if s.kind != "class"]
        calls = []
        for k in range(n_call):
            r = rng.random()
            if r < profile.local_call_share:
                callee = f"f{rng.randrange(n_fun)}"
            elif r < profile.local_call_share + profile.imported_call_share and names:
                callee = rng.choice(names)
            else:
                callee = f"self.helper{k % 7}"  # attribute calls the resolver cannot follow
            calls.append(CallRow(rng.choice(scopes), callee, 2 + k))
        inherits = [InheritRow(classes[b % len(classes)], "Exception", 1)
                    for b in range(n_base if classes else 0)]
        fx = FileExtract("python", symbols, imports, calls, inherits, [], loc=line)
        sha = f"{seed:08x}{i:024x}"
        candidates.append(Candidate(path, "python", line * 30, 1_700_000_000_000_000_000))
        results.append(FileResult(path, "python", line * 30, sha, "ok", "", fx))
    for package in sorted({m.rsplit("/", 1)[0] for m in modules} | {repo}):
        path = f"{package}/__init__.py"  # regular packages: the resolver maps module names
        candidates.append(Candidate(path, "python", 0, 1_700_000_000_000_000_000))
        results.append(FileResult(path, "python", 0, f"{seed:08x}{package}", "ok", "",
                                  FileExtract("python")))
    info = write_shards(out, repo=repo, root=str(out), candidates=candidates, skipped=[],
                        results=results, walk_options={"synthetic": True, "seed": seed})
    return info.counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--tree", type=Path, default=ROOT)
    g = sub.add_parser("generate")
    g.add_argument("out", type=Path)
    g.add_argument("--tree", type=Path, default=ROOT)
    g.add_argument("--repos", type=int, default=1)
    g.add_argument("--files", type=int, default=200)
    g.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    profile = measure(args.tree)
    print(json.dumps({"measured": profile.summary(), "zipf_exponent": fit_exponent(profile)}))
    if args.cmd == "generate":
        for r in range(args.repos):
            counts = generate_repo(args.out / f"syn{r:05d}", f"syn{r:05d}", profile,
                                   files=args.files, seed=args.seed * 100_003 + r)
            print(json.dumps({"repo": f"syn{r:05d}", **counts}))


__all__ = ["Profile", "asdict", "generate_repo", "measure"]

if __name__ == "__main__":
    main()
