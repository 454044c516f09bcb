"""The commands that read the graph: ``search``, ``cypher``, ``overview``, ``provenance``,
``supersession``, ``communities`` (thin wrappers over ``queries``)."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

import click
from rich.markup import escape

from api.options import db_option, json_option
from api.output import console, err_console, print_frame, print_json
from api.resident import opened
from queries import repositories, repository_overview, run_cypher

__all__ = ["communities", "cypher", "overview", "provenance", "search", "supersession"]


@click.command()
@click.argument("query")
@db_option
@click.option("--k", "k", default=10, show_default=True, type=click.IntRange(min=1),
              help="Number of hits.")
@click.option("--table", "tables", multiple=True,
              type=click.Choice(["Symbol", "Entry", "Paper"]),
              help="Only this node table (repeatable).")
@click.option("--language", default=None, help="Only code in this language.")
@click.option("--path", default=None, metavar="GLOB",
              help="Only code whose file path matches (** for any depth).")
@click.option("--community", default=None, help="Only code in this community (an id).")
@click.option("--near", multiple=True, metavar="NODE",
              help="Graph proximity to this node id is a signal too (repeatable).")
@click.option("--mmr", is_flag=True, help="Re-rank for diversity (MMR).")
@json_option
def search(query: str, db: str, k: int, tables: tuple[str, ...], language: str | None,
           path: str | None, community: str | None, near: tuple[str, ...], mmr: bool,
           as_json: bool) -> None:
    """Hybrid search for QUERY over code, history and papers: BM25 + vectors (+ graph
    proximity to --near), fused by z-scored scores (or RRF) and weighed by trust and
    freshness (docs/search.md)."""
    import polars as pl

    from queries.search import search as find

    with opened(db) as store:
        result = find(store, query, k=k, tables=tables or None, language=language, path=path,
                      community=community, near=near or None, mmr=mmr or None)
    if as_json:
        print_json(result.to_dict())
    else:
        frame = result.to_polars().select(
            "id", "table", pl.col("score").round(4), pl.col("bm25_rank").alias("bm25"),
            pl.col("vector_rank").alias("vector"), pl.col("graph_rank").alias("graph"),
            "trust", "freshness", pl.col("superseded_by").list.join(", ").alias("superseded by"))
        print_frame(frame, title=f"search: {query}")
    for note in result.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")


@click.command()
@click.argument("query")
@db_option
@click.option("--param", "params", multiple=True, metavar="NAME=JSON",
              help="Query parameter $NAME, value as JSON (or a plain string).")
@json_option
def cypher(query: str, db: str, params: tuple[str, ...], as_json: bool) -> None:
    """Run a read-only Cypher QUERY and print the rows."""
    values = dict(_param(p) for p in params)
    with opened(db) as store:
        frame = run_cypher(store, query, values)
    print_frame(frame, as_json=as_json)


def _param(text: str) -> tuple[str, Any]:
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise click.BadParameter(f"expected NAME=VALUE, got {text!r}", param_hint="--param")
    try:
        return name, json.loads(raw)
    except ValueError:
        return name, raw


@click.command()
@click.argument("repo", required=False)
@db_option
@click.option("--limit", default=5, show_default=True, help="Rows per ranking.")
@json_option
def overview(repo: str | None, db: str, limit: int, as_json: bool) -> None:
    """Summarize REPO (or list the ingested repositories)."""
    with opened(db) as store:
        if repo is None:
            print_frame(repositories(store), as_json=as_json, title="repositories")
            return
        result = repository_overview(store, repo, limit=limit)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(f"[bold]{result.repo}[/bold]: {result.files} files, {result.symbols} "
                  f"symbols, {result.flagged_files} flagged files")
    console.print("  languages: " + ", ".join(f"{k} {v}" for k, v in result.languages.items()))
    console.print("  symbols: " + ", ".join(f"{k} {v}" for k, v in result.kinds.items()))
    for title, rows in (("most called (distinct callers)", result.most_called),
                        ("most subclassed (distinct subclasses)", result.most_subclassed),
                        ("most imported (distinct importers)", result.most_imported)):
        console.print(f"  {title}:")
        for r in rows:
            console.print(f"    {r.count:6d}  {r.path} :: {r.qualname}")


@click.command()
@click.argument("node")
@db_option
@click.option("--as-of", type=click.DateTime(), default=None,
              help="Only facts already true at this (valid) time.")
@click.option("--known-at", type=click.DateTime(), default=None,
              help="Only facts the database had recorded by this time.")
@json_option
def provenance(node: str, db: str, as_of: datetime | None, known_at: datetime | None,
               as_json: bool) -> None:
    """Where NODE came from: commits, sessions, decisions, papers, renames.

    NODE is an id (sym:..., file:..., entry:...), a display id (DEC-3) or the end of a
    symbol or file id (pkg/mod.py#Class.method, pkg/mod.py).
    """
    from queries.provenance import provenance as find

    with opened(db) as store:
        result = find(store, node, as_of=as_of, known_at=known_at)
    if as_json:
        print_json(result.to_dict())
    else:
        _print_provenance(result)


def _print_provenance(p: Any) -> None:
    state = "current" if p.current else f"not current since {p.valid_to}"
    console.print(f"[bold]{escape(p.id)}[/bold] ({p.table}, source {p.source}, {state})")
    for label, fact in (("introduced", p.introduced), ("last modified", p.last_modified),
                        ("deleted", p.deleted)):
        if fact is not None:
            console.print(f"  {label}: {fact.sha[:12]} {fact.at:%Y-%m-%d} by "
                          f"{escape(fact.author)}: {escape(fact.summary)}")
    console.print(f"  commits: {len(p.commits)}")
    for c in p.commits[-10:]:
        console.print(f"    {c.at:%Y-%m-%d} {c.sha[:12]} {c.kind:<8} {escape(c.author)}: "
                      f"{escape(c.summary[:70])}")
    for x in p.lineage:
        console.print(f"  {x.direction} {escape(x.other)} ({x.reason}, "
                      f"confidence {x.confidence:.2f})")
    for s in p.sessions:
        console.print(f"  session {escape(s.id)} ({s.relation}): {escape(s.title)}")
    for e in p.entries:
        console.print(f"  {e.display_id or e.id} {e.kind} ({e.relation}, "
                      f"{'current' if e.current else 'superseded'}): {escape(e.title)}")
    for paper in p.papers:
        console.print(f"  paper {escape(paper.id)} ({paper.relation}): {escape(paper.title)}")


@click.command()
@click.argument("node")
@db_option
@click.option("--as-of", type=click.DateTime(), default=None,
              help="Also say which versions were valid at this (valid) time.")
@click.option("--known-at", type=click.DateTime(), default=None,
              help="Read the chain as the database knew it at this time.")
@json_option
def supersession(node: str, db: str, as_of: datetime | None, known_at: datetime | None,
                 as_json: bool) -> None:
    """The SUPERSEDES chain of NODE both ways (an entry such as DEC-3, a symbol renamed or
    moved, a paper; a file means its module symbol), and its current version."""
    from api.impact_output import supersession_text
    from queries.supersession import supersession as find

    with opened(db) as store:
        result = find(store, node, as_of=as_of, known_at=known_at)
    if as_json:
        print_json(result.to_dict())
    else:
        sys.stdout.write(supersession_text(result))


@click.command()
@click.argument("repo")
@db_option
@click.option("--scope", type=click.Choice(["file", "symbol"]), default="file",
              show_default=True, help="Partition files or symbols.")
@click.option("--level", type=click.IntRange(min=0), default=0, show_default=True,
              help="Hierarchy level to show (0 = top).")
@click.option("--detect", is_flag=True,
              help="Detect again now (ingest does it after every change).")
@click.option("--objective", type=click.Choice(["modularity", "rb", "cpm"]),
              default="modularity", show_default=True, help="Leiden quality function.")
@click.option("--resolution", type=float, default=1.0, show_default=True,
              help="Resolution (rb, cpm); higher gives smaller communities.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed.")
@click.option("--levels", type=click.IntRange(min=1, max=6), default=3, show_default=True,
              help="Hierarchy levels to detect.")
@click.option("--fresh", is_flag=True,
              help="With --detect: start from scratch, not from the stored communities.")
@click.option("--boundaries", "with_boundaries", is_flag=True,
              help="Also compare with the directories: NMI/ARI, misplaced members, "
                   "crossing dependencies, cycles.")
@click.option("--limit", default=15, show_default=True, help="Rows per list.")
@json_option
def communities(repo: str, db: str, scope: str, level: int, detect: bool, objective: str,
                resolution: float, seed: int, levels: int, fresh: bool, with_boundaries: bool,
                limit: int, as_json: bool) -> None:
    """Module boundaries of REPO found by Leiden community detection, with their names,
    cohesion and main dependencies."""
    from queries.boundaries import boundaries
    from queries.communities import communities as stored
    from queries.communities import detect_communities

    out: dict[str, Any] = {}
    with opened(db, read_only=not detect) as store:
        if detect:
            out["detection"] = detect_communities(
                store, repo, scope=scope, objective=objective, resolution=resolution,
                seed=seed, levels=levels, fresh=fresh)  # type: ignore[arg-type]
        found = stored(store, repo, scope=scope, level=level)  # type: ignore[arg-type]
        if with_boundaries and found:
            out["boundaries"] = boundaries(store, repo, scope=scope,  # type: ignore[arg-type]
                                           level=level, limit=limit)
    if as_json:
        print_json({"communities": [c.to_dict() for c in found],
                    **{k: v.to_dict() for k, v in out.items()}})
        return
    if "detection" in out:
        _print_detection(out["detection"])
    if not found:
        console.print(f"no communities stored for {escape(repo)} ({scope} level {level}); "
                      f"run [bold]vgdb communities {escape(repo)} --detect[/bold]")
        return
    _print_communities(found, limit)
    if "boundaries" in out:
        _print_boundaries(out["boundaries"])


def _print_detection(d: Any) -> None:
    levels = ", ".join(f"{lv.count} at level {lv.level} (modularity {lv.modularity:.3f})"
                       for lv in d.levels)
    console.print(f"  communities: {d.nodes} {d.scope}s, {d.edges} weighted edges -> "
                  f"{levels or 'none'}; {d.seconds:.2f} s")
    if d.had_previous:
        top = [m for m in d.moved if m.level == 0]
        console.print(f"  communities: {len(top)} {d.scope}s moved at the top level since "
                      "the last detection")
        for m in top[:10]:
            console.print(f"    {escape(m.node)}: {m.old.rsplit('/', 1)[-1]} -> "
                          f"{m.new.rsplit('/', 1)[-1]}")
    for note in d.notes:
        console.print(f"  [yellow]communities note[/yellow]: {escape(note)}")


def _print_communities(found: Any, limit: int) -> None:
    singles = [c for c in found if c.size == 1]
    groups = [c for c in found if c.size > 1]
    console.print(f"[bold]{len(found)} communities[/bold] ({len(singles)} single members)")
    for c in groups[:limit]:
        cohesion = "-" if c.cohesion is None else f"{c.cohesion:.0%}"
        console.print(f"  [bold]#{c.number}[/bold] {escape(c.name)}  [dim]{c.size} members, "
                      f"cohesion {cohesion}[/dim]")
        console.print(f"      top: {escape(', '.join(c.top))}")
        deps = ", ".join(f"#{d.target.rsplit('/', 1)[-1]} ({d.weight:g})"
                         for d in c.dependencies[:3])
        if deps:
            console.print(f"      depends on: {deps}")
    if len(groups) > limit:
        console.print(f"  ... {len(groups) - limit} more (--limit, --json)")


def _print_boundaries(b: Any) -> None:
    unit = "files" if b.scope == "symbol" else "directories"
    console.print(f"[bold]boundaries[/bold]: modularity {b.modularity:.3f}; agreement with "
                  f"{unit} NMI {b.nmi_containers:.3f} ARI {b.ari_containers:.3f}, with "
                  f"top-level directories NMI {b.nmi_top:.3f} ARI {b.ari_top:.3f}")
    for note in b.notes:
        console.print(f"  [yellow]note[/yellow]: {escape(note)}")
    if b.misplaced:
        console.print("  misplaced (community differs from most of its "
                      f"{'file' if b.scope == 'symbol' else 'directory'}):")
    for m in b.misplaced:
        console.print(f"    {escape(m.node)}: in #{m.community.rsplit('/', 1)[-1]} "
                      f"(weight {m.weight_own:g}), its {escape(m.container)} is in "
                      f"#{m.expected.rsplit('/', 1)[-1]} (weight {m.weight_expected:g})")
    if b.crossing:
        console.print("  heaviest dependencies across communities:")
    for c in b.crossing:
        console.print(f"    {c.weight:6g}  {escape(c.source)} -> {escape(c.target)} "
                      f"[dim]({', '.join(c.kinds)})[/dim]")
    for cycle in b.cycles:
        nums = ", ".join("#" + c.rsplit("/", 1)[-1] for c in cycle.communities)
        weakest = ", ".join(f"#{a.rsplit('/', 1)[-1]}->#{t.rsplit('/', 1)[-1]} ({w:g})"
                            for a, t, w in cycle.edges[:3])
        console.print(f"  cycle among {nums}; lightest links: {weakest}")
