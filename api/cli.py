"""``vgdb``: the command line, a thin layer over ``ingest`` and ``queries``.

Each command parses its options, calls one Python function and formats the result; ``main``
is the one place where errors become messages and exit codes:

0 success · 1 error · 2 bad input or query · 3 database locked · 4 conflict · 5 disk full ·
70 internal error
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.briefing_cli import briefing
from api.options import db_option, json_option
from api.output import console, err_console, print_frame, print_json
from api.steps import communities_after_ingest
from api.storage_cli import check, migrate, repair
from graphdb import Store, is_disk_full
from queries import repositories, repository_overview, run_cypher
from schema import DiskFullError, VgdbError

__all__ = ["cli", "main", "run"]

class _Process:
    """Whether this process is the ``vgdb`` command itself (see :func:`run`), which may end
    the process early, or a caller of :func:`main` (tests, other programs), which must not."""

    owned = False


_PROCESS = _Process()



def _walk_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """What `ingest` and `extract-shards` share: the repository's name and which files to read."""
    for option in reversed((
            click.option("--name", help="Repository name (default: the directory name)."),
            click.option("--exclude", multiple=True, metavar="GLOB",
                         help=".gitignore-style pattern to skip (repeatable)."),
            click.option("--no-default-excludes", is_flag=True,
                         help="Also read vendored, build and virtual-environment directories."),
            click.option("--no-gitignore", is_flag=True, help="Ignore .gitignore files."),
            click.option("--max-file-size", default=2_000_000, show_default=True, type=int,
                         help="Skip files larger than this many bytes."))):
        command = option(command)
    return command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="vectorgraphdb", prog_name="vgdb")
def cli() -> None:
    """VectorGraphDB: code, history and papers in one embedded graph."""


@contextmanager
def _progress(enabled: bool):
    """A rich progress bar on a terminal; nothing when output is piped or in CI."""
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=err_console, transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total or 1)
            bar.update(tasks[phase], completed=done, total=total or 1)

        yield update


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@db_option
@_walk_options
@click.option("--workers", type=int, default=None, help="Parse processes (default: cores).")
@click.option("--no-history", is_flag=True, help="Skip the git history.")
@click.option("--no-papers", is_flag=True,
              help="Skip bibliographies and references to papers found in the tree.")
@click.option("--since", type=click.DateTime(), default=None,
              help="Only commits from this date on (e.g. 2024-01-31).")
@click.option("--max-commits", type=click.IntRange(min=1), default=None,
              help="Only the newest N commits (of those not yet ingested).")
@click.option("--no-communities", is_flag=True,
              help="Do not detect communities after the ingest.")
@click.option("--no-embed", is_flag=True,
              help="Do not embed new or changed texts (the keyword index is still synced).")
@json_option
def ingest(path: Path, db: str, name: str | None, exclude: tuple[str, ...],
           no_default_excludes: bool, no_gitignore: bool, max_file_size: int,
           workers: int | None, no_history: bool, since: datetime | None,
           max_commits: int | None, no_communities: bool, no_papers: bool,
           no_embed: bool, as_json: bool) -> None:
    """Ingest the code of the tree at PATH and the git history of its repository
    (again: only what changed, and only new commits); it ends searchable by keyword and
    vector (only new or changed texts are indexed and embedded)."""
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import IngestOptions, check_root, ingest_repository

    check_root(path)  # before opening (and maybe creating) the database
    history = HistoryOptions(enabled=not no_history, since=since, max_commits=max_commits,
                             max_file_size=max_file_size)
    options = IngestOptions(name=name, excludes=exclude,
                            default_excludes=not no_default_excludes,
                            gitignore=not no_gitignore, max_file_size=max_file_size,
                            workers=workers, history=history, papers=not no_papers,
                            embed=not no_embed)
    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = ingest_repository(store, path, options=options, progress=progress)
    except BaseException:
        store.close()
        raise
    data = summary.to_dict()
    if not no_communities:
        data["communities"] = communities_after_ingest(store, data)
    if as_json:
        print_json(data)
    else:
        _print_ingest(data)
    if _PROCESS.owned:
        store.exit_process(0)  # skips Kuzu's close-time checkpoint when the WAL is small
    store.close()


def _print_ingest(data: dict) -> None:
    f = data["files"]
    console.print(f"[bold]{data['repo']}[/bold] ({data['root']})")
    console.print(f"  files: {f['seen']} seen, {f['parsed']} parsed ({f['added']} added, "
                  f"{f['modified']} modified), {f['removed']} removed, {f['unchanged']} "
                  f"unchanged, {f['skipped']} skipped, {f['partial']} with syntax errors")
    console.print("  nodes: " + ", ".join(f"{k} {v}" for k, v in data["nodes"].items())
                  + f"; references {data['references']}")
    console.print("  edges: " + ", ".join(f"{k} {v}" for k, v in data["edges"].items()))
    console.print("  seconds: " + ", ".join(f"{k} {v}" for k, v in data["seconds"].items()))
    for item in data["skipped"][:20]:
        console.print(f"  [yellow]skipped[/yellow] {escape(item['path'])}: "
                      f"{escape(item['reason'])}")
    if len(data["skipped"]) > 20:
        console.print(f"  ... {len(data['skipped']) - 20} more skipped (see --json)")
    for item in data["partial"][:10]:
        console.print(f"  [yellow]flagged[/yellow] {escape(item['path'])}: "
                      f"{escape(item['reason'])}")
    if len(data["partial"]) > 10:
        console.print(f"  ... {len(data['partial']) - 10} more flagged (see --json)")
    _print_history(data.get("history"))
    p = data.get("papers")
    if p:
        c = p["papers"]
        console.print(f"  papers: {len(p['bibliographies'])} bibliographies, "
                      f"{p['references']} references in {p['scanned_files']} files, commits "
                      f"and entries; papers {c.get('new', 0)} new, {c.get('updated', 0)} "
                      f"updated, {c.get('unchanged', 0)} unchanged")
        for item in p["issues"][:10]:
            console.print(f"  [yellow]paper issue[/yellow] {escape(item['file'])}:"
                          f"{item['line']}: {escape(item['message'])}")
    _print_ingest_communities(data.get("communities"))


def _print_ingest_communities(c: dict | None) -> None:
    if c is None:
        return
    if c["status"] == "kept":
        console.print(f"  communities: kept ({c['reason']}; `vgdb communities "
                      f"{escape(c['repo'])} --detect` to run again)")
        return
    for scope in ("file", "symbol"):
        d = c[scope]
        levels = ", ".join(str(lv["communities"]) for lv in d["levels"]) or "none"
        moved = f"; {d['moved']} moved" if d["had_previous"] else ""
        top = d["levels"][0]["modularity"] if d["levels"] else 0.0
        console.print(f"  communities ({scope}s): {levels} per level, modularity {top:.3f}"
                      f"{moved}; {d['seconds']} s")


def _print_history(h: dict | None) -> None:
    if h is None:
        return
    if h["status"] in ("skipped", "failed"):
        color = "yellow" if h["status"] == "skipped" else "red"
        console.print(f"  history: [{color}]{h['status']}[/{color}]: {escape(h['reason'])}")
        return
    if h["status"] == "up to date":
        console.print(f"  history: up to date at {h['head'][:12]}")
    else:
        console.print(f"  history: {h['commits']} new commits to {h['head'][:12]}, "
                      f"{h['changes']} file changes, {h['touched']} symbol touches, "
                      f"{h['lineage']} renames/moves, {h['people']} people; seconds "
                      + ", ".join(f"{k} {v}" for k, v in h["seconds"].items()))
    for note in h["notes"]:
        console.print(f"  [yellow]history note[/yellow]: {escape(note)}")


@cli.command("ingest-batch")
@click.argument("manifest", type=click.Path(path_type=Path))
@db_option
@click.option("--executor", default="local", show_default=True,
              help="Where extraction runs: local, dask://local, dask://HOST:PORT, ray://...")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Extraction (and parse) processes (default: cores).")
@click.option("--retry-failed", is_flag=True,
              help="Run only the repositories that failed in the last run.")
@click.option("--force", is_flag=True, help="Ingest again even what is done and unchanged.")
@click.option("--keep-shards", is_flag=True,
              help="Keep the Parquet shards (DB/batch/shards/NAME) after loading.")
@click.option("--no-communities", is_flag=True,
              help="Do not detect communities after each repository.")
@json_option
def ingest_batch(manifest: Path, db: str, executor: str, workers: int | None,
                 retry_failed: bool, force: bool, keep_shards: bool, no_communities: bool,
                 as_json: bool) -> None:
    """Ingest every repository of MANIFEST (TOML or YAML) into one graph; a rerun skips
    what is done and unchanged and retries what failed (docs/cli.md#ingest-batch)."""
    from ingest.batch import load_manifest, run_batch

    spec = load_manifest(manifest)  # checked before the database is opened
    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = run_batch(store, spec, executor=executor, workers=workers,
                                retry_failed=retry_failed, force=force,
                                keep_shards=keep_shards, progress=progress,
                                after_ingest=None if no_communities
                                else communities_after_ingest)
    except BaseException:
        store.close()
        raise
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_batch(summary.to_dict())
    code = 1 if summary.failed else 0
    if summary.disk_full:
        err_console.print("[bold red]error:[/bold red] no space left on device; the graph "
                          "holds every repository marked done")
        err_console.print("[dim]hint:[/dim] free some space, then run the same command again")
        sys.stdout.flush()
        sys.stderr.flush()
        # no close: Kuzu would checkpoint onto the full disk (and abort the process); the
        # committed WAL is replayed at the next open, as after a kill -9
        os._exit(1)
    if _PROCESS.owned:
        store.exit_process(code)
    store.close()
    if code:
        sys.exit(code)


def _print_batch(data: dict) -> None:
    from rich.table import Table

    table = Table(title=f"ingest-batch {escape(data['manifest'])}")
    for column in ("repository", "status", "commit", "files", "nodes", "edges", "seconds",
                   "note"):
        table.add_column(column, justify="right" if column in (
            "files", "nodes", "edges", "seconds") else "left")
    colors = {"done": "green", "unchanged": "dim", "failed": "red", "not run": "yellow"}
    for r in data["repositories"]:
        color = colors.get(r["status"], "white")
        note = r["reason"]
        linked = (r.get("cross_repo") or {}).get("files") or {}
        if linked:
            note = "re-linked " + ", ".join(f"{k} ({v})" for k, v in linked.items())
        table.add_row(escape(r["name"]), f"[{color}]{r['status']}[/{color}]",
                      (r["commit"] or "")[:10], str(r["files"]), str(r["nodes"]),
                      str(r["edges"]), f"{r['seconds']:.1f}", escape(note))
    console.print(table)
    counts = ", ".join(f"{v} {k}" for k, v in sorted(data["counts"].items()))
    console.print(f"{counts}; {data['seconds']:.1f} s with executor {data['executor']}")


@cli.command("extract-shards")
@click.argument("path", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@_walk_options
@json_option
def extract_shards(path: Path, out: Path, name: str | None, exclude: tuple[str, ...],
                   no_default_excludes: bool, no_gitignore: bool, max_file_size: int,
                   as_json: bool) -> None:
    """Walk and parse the tree at PATH into a Parquet shard in OUT, without a database
    (docs/shards.md); `vgdb load-shards OUT` loads it."""
    from ingest.shards import ExtractRequest
    from ingest.shards import extract_shards as extract

    info = extract(ExtractRequest(str(path), str(out), repo=name or "", excludes=exclude,
                                  default_excludes=not no_default_excludes,
                                  gitignore=not no_gitignore, max_file_size=max_file_size))
    _print_shard(info, as_json)


@cli.command("load-shards")
@click.argument("shard", type=click.Path(path_type=Path))
@db_option
@click.option("--name", help="Repository name (default: the shard's).")
@click.option("--path", "tree", type=click.Path(path_type=Path), default=None,
              help="The tree the shard was extracted from (default: the shard's root).")
@click.option("--no-history", is_flag=True, help="Skip the git history.")
@click.option("--no-papers", is_flag=True,
              help="Skip bibliographies and references to papers found in the tree.")
@json_option
def load_shards(shard: Path, db: str, name: str | None, tree: Path | None, no_history: bool,
                no_papers: bool, as_json: bool) -> None:
    """Load the shard in SHARD into the graph as `vgdb ingest` would load its tree (only
    what changed); the tree must still be readable for its history and papers."""
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import IngestOptions, check_root, ingest_repository
    from ingest.shards import shard_info

    info = shard_info(shard)  # format checked before the database is opened
    root = check_root(tree or info.root)
    options = IngestOptions(name=name, history=HistoryOptions(enabled=not no_history),
                            papers=not no_papers)
    with Store.open(db) as store:
        summary = ingest_repository(store, root, options=options, shards=shard)
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_ingest(summary.to_dict())


def _print_shard(info: Any, as_json: bool) -> None:
    from dataclasses import asdict

    if as_json:
        print_json(asdict(info))
        return
    counts = ", ".join(f"{n} {table}" for table, n in info.counts.items())
    console.print(f"shard of [bold]{escape(info.repo)}[/bold] in {escape(info.path)} "
                  f"(format {info.format_version}, {info.seconds:.1f} s): {counts}")


@cli.command()
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
    with Store.open(db, read_only=not detect) as store:
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


@cli.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="Port (0: any free port).")
@click.option("--timeout", default=10.0, show_default=True, type=float,
              help="Seconds a request may run.")
@click.option("--anonymous", is_flag=True,
              help="Let requests without a token read (never write).")
@click.option("--writable", is_flag=True,
              help="Open the database read-write, for mutations (tokens with the write "
                   "scope); ingests must then go through this server.")
@click.option("--introspection/--no-introspection", default=None,
              help="Answer GraphQL introspection (default: only with --anonymous).")
def serve(db: str, host: str, port: int, timeout: float, anonymous: bool,
          writable: bool, introspection: bool | None) -> None:
    """Serve the graph over GraphQL at http://HOST:PORT/graphql, MCP at /mcp (and /healthz).

    Requests need an API token (`vgdb token create`) unless --anonymous lets them read.
    Read-only by default: other readers may share the database, an ingest waits until the
    server stops (see docs/api.md)."""
    from api.graphql import Settings
    from api.graphql import serve as run_server

    with Store.open(db, read_only=not writable, serving=True) as store:
        mode = "read-write" if writable else "read-only"
        access = "anonymous reads allowed" if anonymous else "API token required"
        err_console.print(f"serving {escape(str(store.path))} ({mode}, {access}) at "
                          f"http://{host}:{port}/graphql and /mcp  (Ctrl-C stops)")
        run_server(store, host=host, port=port,
                   settings=Settings(timeout=timeout, allow_anonymous=anonymous,
                                     introspection=introspection))


@cli.command()
@db_option
@click.option("--writable", is_flag=True,
              help="Open the database read-write and offer the record tools.")
@click.option("--print-config", is_flag=True,
              help="Print the `mcpServers` JSON a harness needs, and exit.")
@click.option("--url", default=None, metavar="URL",
              help="With --print-config: a `vgdb serve` /mcp endpoint to use instead.")
def mcp(db: str, writable: bool, print_config: bool, url: str | None) -> None:
    """Serve the graph to an agent harness over MCP (stdio): search, impact,
    affected-tests, provenance, supersession, node, cypher, and with --writable the record
    tools (docs/mcp.md). Where `vgdb serve` holds the database, use its /mcp endpoint."""
    if print_config:
        import shutil

        from api.mcp.server import dumps_config, harness_config

        command = shutil.which("vgdb") or str(Path(sys.executable).with_name("vgdb"))
        sys.stdout.write(dumps_config(harness_config(
            db=str(Path(db).resolve()), command=command, writable=writable, url=url)) + "\n")
        return
    from api.mcp.stdio import run_stdio

    run_stdio(db, writable=writable)


@cli.group()
def token() -> None:
    """API tokens of a database (for `vgdb serve`): create, list, revoke."""


@token.command("create")
@click.argument("name")
@db_option
@click.option("--scope", type=click.Choice(["read", "write", "admin"]), default="read",
              show_default=True, help="write includes read; admin includes write.")
@click.option("--expires-days", type=click.IntRange(min=1), default=None,
              help="Expire after N days (default: never).")
@click.option("--max-cost", type=click.IntRange(min=1), default=None,
              help="This token's cost limit (default: the server's; the lower one applies).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Seconds this token's requests may run (default: the server's; the "
                   "lower one applies).")
@json_option
def token_create(name: str, db: str, scope: str, expires_days: int | None,
                 max_cost: int | None, timeout: float | None, as_json: bool) -> None:
    """Create a token NAME; its secret is printed once and stored only as a hash."""
    from datetime import timedelta

    from graphdb.tokens import TokenStore

    made, secret = TokenStore(db).create(
        name, scope=scope, expires_in=timedelta(days=expires_days) if expires_days else None,
        max_cost=max_cost, timeout=timeout)
    if as_json:
        print_json({**made.__dict__, "token": secret})
        return
    console.print(secret)
    err_console.print(f"token {made.id} ({made.name}, scope {made.scope}"
                      f"{', expires ' + made.expires_at if made.expires_at else ''}); "
                      "keep it: it is not shown again")


@token.command("list")
@db_option
@json_option
def token_list(db: str, as_json: bool) -> None:
    """The tokens of the database (never their secrets)."""
    import polars as pl

    from graphdb.tokens import TokenStore

    rows = [{**t.__dict__, "state": t.state()} for t in TokenStore(db).list()]
    print_frame(pl.DataFrame(rows, schema={
        "id": pl.Utf8, "name": pl.Utf8, "scope": pl.Utf8, "created_at": pl.Utf8,
        "expires_at": pl.Utf8, "revoked_at": pl.Utf8, "max_cost": pl.Int64,
        "timeout": pl.Float64, "state": pl.Utf8}), as_json=as_json,
        title="API tokens")


@token.command("revoke")
@click.argument("token_id")
@db_option
def token_revoke(token_id: str, db: str) -> None:
    """Revoke token TOKEN_ID (it stays listed, as revoked)."""
    from graphdb.tokens import TokenStore

    revoked = TokenStore(db).revoke(token_id)
    console.print(f"revoked {revoked.id} ({revoked.name})")


@cli.command()
@click.argument("query")
@db_option
@click.option("--param", "params", multiple=True, metavar="NAME=JSON",
              help="Query parameter $NAME, value as JSON (or a plain string).")
@json_option
def cypher(query: str, db: str, params: tuple[str, ...], as_json: bool) -> None:
    """Run a read-only Cypher QUERY and print the rows."""
    values = dict(_param(p) for p in params)
    with Store.open(db, read_only=True) as store:
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


@cli.command()
@click.argument("repo", required=False)
@db_option
@click.option("--limit", default=5, show_default=True, help="Rows per ranking.")
@json_option
def overview(repo: str | None, db: str, limit: int, as_json: bool) -> None:
    """Summarize REPO (or list the ingested repositories)."""
    with Store.open(db, read_only=True) as store:
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


@cli.command()
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

    with Store.open(db, read_only=True) as store:
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


@cli.command("ingest-session")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@db_option
@click.option("--max-issues", default=50, show_default=True, type=int,
              help="Bad lines and warnings to print (all of them with --json).")
@json_option
def ingest_session(files: tuple[Path, ...], db: str, max_issues: int, as_json: bool) -> None:
    """Load session logs (JSON lines, docs/sessions.md) into the graph.

    Bad lines are reported with their line numbers and skipped; the good ones are loaded.
    Exit code 2 if a FILE cannot be read at all.
    """
    from ingest.sessions import load_sessions

    _load_files(db, load_sessions, files, lambda data: _print_sessions(data, max_issues),
                as_json=as_json)


def _load_files(db: str, load: Any, files: tuple[Path, ...], show: Any, *,
                as_json: bool) -> None:
    """The body of the commands that load files (sessions, papers): one write, a progress
    bar, a summary, exit code 2 when a file could not be read at all (the others load)."""
    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = load(store, list(files), progress=progress)
    except BaseException:
        store.close()
        raise
    data = summary.to_dict()
    if as_json:
        print_json(data)
    else:
        show(data)
    code = 2 if summary.unreadable else 0
    if _PROCESS.owned:
        store.exit_process(code)
    store.close()
    if code:
        sys.exit(code)


def _print_issues(data: dict, max_issues: int) -> None:
    issues = data["errors"] + data["warnings"]
    for item in issues[:max_issues]:
        color = "red" if item["severity"] == "error" else "yellow"
        console.print(f"  [{color}]{item['severity']}[/{color}] {escape(item['file'])}:"
                      f"{item['line']}: {escape(item['message'])}")
    if len(issues) > max_issues:
        console.print(f"  ... {len(issues) - max_issues} more (see --json)")


def _print_sessions(data: dict, max_issues: int) -> None:
    for f in data["files"]:
        if "unreadable" in f:
            err_console.print(f"[bold red]error:[/bold red] cannot read {escape(f['path'])}: "
                              f"{escape(f['unreadable'])}")
            continue
        console.print(f"[bold]{escape(f['path'])}[/bold]: {f['events']} events, "
                      f"{f['errors']} bad lines, {f['warnings']} warnings")
    c = data["counts"]
    console.print(f"  sessions {c.get('sessions', 0)}, entries {c.get('entries', 0)} new, "
                  f"{c.get('merged', 0)} merged, {c.get('already', 0)} already loaded, "
                  f"{c.get('superseded', 0)} superseded, {c.get('outcomes', 0)} outcomes, "
                  f"{c.get('rejected', 0)} rejected")
    console.print("  written: " + (", ".join(f"{k} {v}" for k, v in data["written"].items())
                                   or "nothing new"))
    _print_issues(data, max_issues)


_FORMATS = click.Choice(["text", "json", "markdown"])
_KINDS = click.Choice(["CALLS", "INHERITS", "TESTS", "IMPORTS", "CONTAINS"])


def _impact_targets(store: Store, targets: tuple[str, ...], base: str | None, head: str | None,
                    root: Path | None, repo: str | None) -> Any:
    """The node ids given, or the change set of ``--base``/``--head`` in the ingested tree."""
    if targets and (base or head):
        raise click.UsageError("pass TARGET... or --base/--head, not both")
    if not targets and not base:
        raise click.UsageError("pass TARGET... (ids or names) or --base REF")
    if targets:
        return list(targets)
    from ingest.history.diff import diff_changes

    if root is None:
        repos = repositories(store)
        if repo is not None:
            repos = repos.filter(repos["name"] == repo)
        if repos.height != 1:
            raise click.UsageError("pass --root DIR (the tree to diff) or --repo NAME: the "
                                   f"graph holds {repos.height} matching repositories")
        root = Path(repos["root"][0])
    return diff_changes(root, base=base or "HEAD", head=head)


def _impact_options(f: Any) -> Any:
    for option in reversed([
        db_option,
        click.option("--base", metavar="REF", help="Diff from this revision (branch, tag, "
                     "sha; the merge base with --head is used)."),
        click.option("--head", metavar="REF",
                     help="Diff to this revision (default: the working tree)."),
        click.option("--root", type=click.Path(file_okay=False, path_type=Path),
                     help="The git working tree to diff (default: the ingested root)."),
        click.option("--repo", help="Repository of the diff, when the graph holds several."),
        click.option("--edge-kind", "edge_kinds", multiple=True, type=_KINDS,
                     help="Follow only these edge kinds (repeatable)."),
        click.option("--as-of", type=click.DateTime(), default=None,
                     help="Use the graph as valid at this time."),
        click.option("--no-coverage", "no_coverage", is_flag=True,
                     help="Ignore recorded coverage: tests from the static graph and rules "
                          "only."),
        click.option("--never-executed", type=click.Choice(["unrecorded", "static", "skip"]),
                     default="unrecorded", show_default=True,
                     help="For changed code the coverage recording held but nothing executed: "
                          "the tests the static graph reaches that the recording does not "
                          "hold, every test it reaches, or none."),
    ]):
        f = option(f)
    return f


@cli.command()
@click.argument("targets", nargs=-1)
@_impact_options
@click.option("--depth", default=3, show_default=True, type=click.IntRange(min=0),
              help="Longest path followed, in edges (capped at 10).")
@click.option("--limit", default=500, show_default=True, type=click.IntRange(min=1),
              help="At most this many symbols and files.")
@click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
              help="text, json (ImpactResult.to_dict()) or markdown (a PR comment).")
def impact(targets: tuple[str, ...], db: str, base: str | None, head: str | None,
           root: Path | None, repo: str | None, edge_kinds: tuple[str, ...],
           as_of: datetime | None, no_coverage: bool, never_executed: str, depth: int,
           limit: int, fmt: str) -> None:
    """What depends on TARGET... (ids or names: pkg/mod.py#Class.method, pkg/mod.py), or on
    the changes of --base [--head]: ranked symbols and files with the path that explains
    each, tests to run, communities, decisions and papers touched."""
    from api.impact_output import impact_markdown, impact_text
    from queries.impact import impact as find

    with Store.open(db, read_only=True) as store:
        what = _impact_targets(store, targets, base, head, root, repo)
        result = find(store, what, depth=depth, edge_kinds=edge_kinds or None, as_of=as_of,
                      limit=limit, repo=repo, coverage=not no_coverage,
                      never_executed=never_executed)
    if fmt == "json":
        print_json(result.to_dict())
    else:
        sys.stdout.write(impact_markdown(result) if fmt == "markdown" else impact_text(result))


@cli.command("affected-tests")
@click.argument("targets", nargs=-1)
@_impact_options
@click.option("--depth", default=5, show_default=True, type=click.IntRange(min=0),
              help="Longest path from a change to a test, in edges (capped at 10).")
@click.option("--language", help="Only tests of this language (python, go, java, ...).")
@click.option("--format", "fmt", type=click.Choice(["lines", "json"]), default="lines",
              show_default=True, help="lines (runner ids) or json (with reasons and paths).")
def affected_tests(targets: tuple[str, ...], db: str, base: str | None, head: str | None,
                   root: Path | None, repo: str | None, edge_kinds: tuple[str, ...],
                   as_of: datetime | None, no_coverage: bool, never_executed: str, depth: int,
                   language: str | None, fmt: str) -> None:
    """Tests to run for the changes of --base [--head] (or for TARGET...): pytest node ids
    (tests/test_x.py::TestC::test_m), or test files for other languages, one per line, for
    `pytest $(vgdb affected-tests --base origin/main)`. Prints nothing when no test is
    affected (exit 0); notes go to stderr."""
    from queries.impact import impact as find

    with Store.open(db, read_only=True) as store:
        what = _impact_targets(store, targets, base, head, root, repo)
        result = find(store, what, depth=depth, edge_kinds=edge_kinds or None, as_of=as_of,
                      repo=repo, coverage=not no_coverage, never_executed=never_executed)
    tests = [t for t in result.tests
             if language is None or t.language in (language, "")]  # '': a rule's selection
    if fmt == "json":
        print_json({"tests": [{"node_id": t.node_id, "id": t.id, "language": t.language,
                               "evidence": t.evidence, "reason": t.reason, "score": t.score,
                               "explanation": t.why,
                               "why": [f"{e.src} -{e.kind}-> {e.dst}" for e in t.via]}
                              for t in tests], "notes": list(result.notes)})
        return
    for node_id in sorted({t.node_id for t in tests}):
        sys.stdout.write(node_id + "\n")
    for note in result.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")


@cli.command("pytest-plugin")
def pytest_plugin() -> None:
    """Print the path of the pytest plugin module (pytest_vgdb.py), to copy into the analysed
    project's environment: `pytest -p pytest_vgdb --vgdb-select origin/main` (docs/ci.md)."""
    from importlib.util import find_spec

    spec = find_spec("pytest_vgdb")  # found, not imported: this environment may lack pytest
    if spec is None or spec.origin is None:
        raise click.ClickException("pytest_vgdb.py is not installed with this vgdb")
    sys.stdout.write(spec.origin + "\n")


@cli.command("ingest-coverage")
@click.argument("file", type=click.Path(path_type=Path))
@db_option
@click.option("--repo", required=True, help="Repository (as ingested) the tests ran in.")
@click.option("--commit", metavar="SHA",
              help="Commit the coverage was recorded at (default: HEAD of --root).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="Directory the tests ran in (default: the repository's ingested root).")
@json_option
def ingest_coverage(file: Path, db: str, repo: str, commit: str | None, root: Path | None,
                    as_json: bool) -> None:
    """Store which test executed which symbols, from coverage.py data recorded with per-test
    contexts (`pytest --cov=PKG --cov-context=test` writes FILE, usually .coverage). The
    repository's previous recording ends (it is kept for --as-of)."""
    from ingest.coverage import ingest_coverage as load

    with Store.open(db) as store:
        summary = load(store, file, repo=repo, commit=commit, root=root)
    if as_json:
        print_json(summary.to_dict())
        return
    console.print(f"coverage of {escape(repo)} at {summary.commit[:12] or '?'}: "
                  f"{summary.tests} tests, {summary.files} files, {summary.edges} EXECUTES "
                  f"edges ({summary.ended} previous ended) in {summary.seconds:.2f} s")
    for note in summary.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")


@cli.command()
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

    with Store.open(db, read_only=True) as store:
        result = find(store, node, as_of=as_of, known_at=known_at)
    if as_json:
        print_json(result.to_dict())
    else:
        sys.stdout.write(supersession_text(result))


def _embedded_tables(ctx: click.Context, param: click.Parameter,
                     value: tuple[str, ...]) -> tuple[str, ...]:
    """Checked here, not with click.Choice: the list lives in graphdb.vectors, whose import
    (numpy, tokenizers, hnswlib) every other command can do without."""
    from graphdb import EMBEDDED_TABLES

    names = [t.name for t in EMBEDDED_TABLES]
    for name in value:
        if name not in names:
            raise click.BadParameter(f"{name!r} is not one of {', '.join(names)}")
    return value


@cli.command()
@db_option
@click.option("--table", "tables", multiple=True, callback=_embedded_tables,
              help="Only this node table: Symbol, Entry or Paper (repeatable; default: all "
                   "three).")
@click.option("--reembed", is_flag=True,
              help="Vectors from another model are dropped and everything re-embedded.")
@json_option
def embed(db: str, tables: tuple[str, ...], reembed: bool, as_json: bool) -> None:
    """Embed new or changed Symbols, Entries and Papers and update their vector indexes
    (unchanged texts are never embedded again; damaged indexes are rebuilt); the keyword
    index is synced too. An ingest already does both: this is for another model
    (--reembed) or a repair."""
    from graphdb import embed_graph
    from graphdb import sync as sync_keyword

    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = embed_graph(store, tables=tables or None, reembed=reembed,
                                  progress=progress)
            sync_keyword(store, tables or None)  # and the keyword index, as an ingest ends
    except BaseException:
        store.close()
        raise
    if as_json:
        print_json(summary.to_dict())
    else:
        console.print(f"model {summary.model_id} (dim {summary.dim}): {summary.embedded} "
                      f"texts embedded in {summary.seconds:.2f} s")
        for t in summary.tables:
            console.print(f"  {t.table}: {t.current} current, {t.unchanged} unchanged, "
                          f"{t.embedded} embedded, {t.reused} reused, {t.removed} removed; "
                          f"index {t.index}")
    if _PROCESS.owned:
        store.exit_process(0)
    store.close()


@cli.command("ingest-papers")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@db_option
@click.option("--max-issues", default=50, show_default=True, type=int,
              help="Bad records printed (all of them with --json).")
@json_option
def ingest_papers(files: tuple[Path, ...], db: str, max_issues: int, as_json: bool) -> None:
    """Load bibliographic FILES (BibTeX, CITATION.cff, codemeta.json, OpenAlex or Semantic
    Scholar JSON/JSONL) into the graph, merged with the papers it holds (docs/academic.md).

    Bad entries and lines are reported with their line numbers and skipped. Exit code 2 if a
    FILE cannot be read at all (the others are still loaded).
    """
    from ingest.academic import ingest_papers as load

    _load_files(db, load, files, lambda data: _print_papers_summary(data, max_issues),
                as_json=as_json)


def _print_papers_summary(data: dict, max_issues: int) -> None:
    for f in data["files"]:
        if "unreadable" in f:
            err_console.print(f"[bold red]error:[/bold red] cannot read {escape(f['path'])}: "
                              f"{escape(f['unreadable'])}")
            continue
        console.print(f"[bold]{escape(f['path'])}[/bold]: {f['records']} records, "
                      f"{f['errors']} bad, {f['warnings']} warnings")
    c = data["counts"]
    console.print(f"  papers {c.get('papers', 0)}: {c.get('new', 0)} new, "
                  f"{c.get('updated', 0)} updated ({c.get('upgraded', 0)} stubs upgraded), "
                  f"{c.get('unchanged', 0)} unchanged, {c.get('stubs', 0)} new stubs, "
                  f"{c.get('merged', 0)} merged; {c.get('unresolved_references', 0)} "
                  "references to works with no usable identifier")
    console.print("  written: " + (", ".join(f"{k} {v}" for k, v in data["written"].items())
                                   or "nothing new"))
    _print_issues(data, max_issues)


def _print_links(rows: list, columns: tuple[str, ...], as_json: bool, title: str) -> None:
    import polars as pl

    if as_json:
        print_json([r.to_dict() for r in rows])
        return
    frame = pl.DataFrame([{c: getattr(r, c) for c in columns} for r in rows],
                         schema=list(columns), orient="row") if rows else pl.DataFrame(
        schema=list(columns))
    print_frame(frame, title=title)


@cli.command("referenced-papers")
@click.argument("node")
@db_option
@click.option("--relation", type=click.Choice(["cites", "implements", "documents",
                                               "based_on"]), default=None,
              help="Only links of this kind.")
@click.option("--limit", default=500, show_default=True, help="Links to print at most.")
@json_option
def referenced_papers(node: str, db: str, relation: str | None, limit: int,
                      as_json: bool) -> None:
    """Papers NODE references: a symbol, a file (with its symbols), a commit, an entry or a
    community (community:<repo>/<scope>/<level>/<n>), with where and how each was found."""
    from queries.academic import referenced_papers as find

    with Store.open(db, read_only=True) as store:
        rows = find(store, node, relation=relation, limit=limit)
    _print_links(rows, ("paper", "title", "year", "relation", "via", "location", "source",
                        "confidence"), as_json, "papers")


@cli.command("paper-code")
@click.argument("paper")
@db_option
@click.option("--relation", type=click.Choice(["cites", "implements", "documents"]),
              default=None, help="Only links of this kind (implements: the implementing code).")
@click.option("--limit", default=500, show_default=True, help="Links to print at most.")
@json_option
def paper_code(paper: str, db: str, relation: str | None, limit: int, as_json: bool) -> None:
    """Code, commits and entries referencing PAPER (an id, a DOI, an arXiv id, RFC <n>)."""
    from queries.academic import paper_code as find

    with Store.open(db, read_only=True) as store:
        rows = find(store, paper, relation=relation, limit=limit)
    _print_links(rows, ("node", "table", "name", "relation", "location", "source",
                        "confidence"), as_json, "code")


@cli.command("decisions-based-on")
@click.argument("paper")
@db_option
@json_option
def decisions_based_on(paper: str, db: str, as_json: bool) -> None:
    """Decisions based on PAPER."""
    from queries.academic import decisions_based_on as find

    with Store.open(db, read_only=True) as store:
        rows = find(store, paper)
    _print_links(rows, ("node", "name", "location", "source", "confidence"), as_json,
                 "decisions")


@cli.command()
@click.argument("paper")
@db_option
@click.option("--depth", default=1, show_default=True, type=click.IntRange(1, 5),
              help="Citation hops to follow.")
@click.option("--direction", type=click.Choice(["cites", "cited_by", "both"]), default="both",
              show_default=True, help="Cited works, citing works, or both.")
@click.option("--limit", default=200, show_default=True, help="Papers to print at most.")
@json_option
def citations(paper: str, db: str, depth: int, direction: str, limit: int,
              as_json: bool) -> None:
    """Papers within DEPTH citation hops of PAPER (cites / cited-by)."""
    from queries.academic import citations as find

    with Store.open(db, read_only=True) as store:
        rows = find(store, paper, depth=depth, direction=direction, limit=limit)
    _print_links(rows, ("paper", "title", "year", "direction", "depth", "resolved",
                        "evidence"), as_json, "citations")


@cli.command()
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

    with Store.open(db, read_only=True) as store:
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


for _command in (migrate, check, repair, briefing):
    cli.add_command(_command)


def run() -> None:
    """The ``vgdb`` console script: :func:`main`, owning the process."""
    _PROCESS.owned = True
    main()


def main(argv: list[str] | None = None) -> None:
    """Run a command; turn errors into a message and an exit code."""
    try:
        cli.main(args=argv, prog_name="vgdb", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Abort:
        err_console.print("aborted")
        sys.exit(130)
    except VgdbError as exc:
        err_console.print(f"[bold red]error:[/bold red] {escape(exc.message)}")
        if exc.suggestion:
            err_console.print(f"[dim]hint:[/dim] {escape(exc.suggestion)}")
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except Exception as exc:
        if is_disk_full(exc):  # ENOSPC from a file of ours (indexes, manifests, shards)
            full = DiskFullError(getattr(exc, "filename", None) or "the database's device",
                                 committed=None)
            err_console.print(f"[bold red]error:[/bold red] {escape(full.message)}")
            err_console.print(f"[dim]hint:[/dim] {escape(full.suggestion)}")
            sys.exit(full.exit_code)
        if os.environ.get("VGDB_DEBUG"):
            raise
        err_console.print(f"[bold red]internal error:[/bold red] {type(exc).__name__}: "
                          f"{escape(str(exc))}")
        err_console.print("[dim]hint:[/dim] set VGDB_DEBUG=1 for a traceback, and report it")
        sys.exit(70)


if __name__ == "__main__":
    run()
