"""``vgdb ingest`` and the other commands that load trees: shards and batches (thin wrappers
over ``ingest``); sessions, papers, coverage and embeddings are loaded by ``api.load_cli``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.config_cli import config_from_tree
from api.options import db_option, json_option
from api.output import Column, err_console, print_json, print_table, print_wrapped, progress_bar
from api.process import PROCESS
from api.resident import in_server, opened
from api.steps import communities_after_ingest
from graphdb import Store
from graphdb.compact import baseline_after_build

__all__ = ["extract_shards", "ingest", "ingest_batch", "load_shards"]


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


@click.command()
@click.argument("path", type=click.Path(path_type=Path), is_eager=True,
                callback=config_from_tree)  # its config file sets the options' defaults
@db_option
@_walk_options
@click.option("--language", multiple=True, metavar="NAME",
              help="Only files of this language (repeatable; default: all).")
@click.option("--workers", type=int, default=None,
              help="Parse (and resolution) processes (default: cores).")
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
           language: tuple[str, ...], workers: int | None, no_history: bool, since: datetime | None,
           max_commits: int | None, no_communities: bool, no_papers: bool,
           no_embed: bool, as_json: bool) -> None:
    """Ingest the code of the tree at PATH and the git history of its repository
    (again: only what changed, and only new commits); it ends searchable by keyword and
    vector (only new or changed texts are indexed and embedded)."""
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import (
        IngestOptions,
        check_root,
        ingest_staged,
        start_cold_parse,
    )

    check_root(path)  # before opening (and maybe creating) the database
    new = not (Path(db).exists() and any(Path(db).iterdir()))
    if new and workers != 1:
        from ingest.pool import start_fork_server

        start_fork_server()  # a new database: every file will be parsed in the pool
    if new and not no_embed:
        from graphdb.embed import preload_default_embedder

        # needed at the end; loads while the files are parsed. Not for an update: one whose
        # texts did not change loads no model at all (graphdb.vectors.embed_graph(ids=...))
        preload_default_embedder()
    history = HistoryOptions(enabled=not no_history, since=since, max_commits=max_commits,
                             max_file_size=max_file_size)
    options = IngestOptions(name=name, excludes=exclude,
                            default_excludes=not no_default_excludes,
                            gitignore=not no_gitignore, max_file_size=max_file_size,
                            workers=workers, history=history, papers=not no_papers,
                            embed=not no_embed, languages=tuple(language))
    # a command from a shell records its result when it wrote nothing (api.ingest_noop):
    # the fingerprint of the tree is taken now, before the walk
    from api.ingest_noop import fingerprint, forget, record

    noop_args = sys.argv[2:] if PROCESS.owned and not in_server() and \
        sys.argv[1:2] == ["ingest"] else None
    # (not for a new database: its first ingest always writes, so it never records, and
    # hashing the state of every file of the tree would cost ~0.2 s on the standard library)
    before = fingerprint(noop_args) if noop_args is not None and not new else None
    # a new database: the workers start parsing now, while this process creates it
    early = start_cold_parse(path, options=options) if new and workers != 1 else None
    try:
        # in a `vgdb serve --writable` (api.resident) the store it holds; else opened here
        with opened(db, read_only=False) as store:
            version = store.graph_version()
            # a served run sends its output at the end: a progress bar would only replay there
            deriver = _deriver(store)
            # the communities step runs while forked children index and embed
            # (graphdb.findable.make_searchable), once the history and papers are done
            communities: dict[str, Any] = {}
            alongside = None if deriver is not None or no_communities else \
                lambda summary: communities.update(communities_after_ingest(
                    store, summary.to_dict()))
            with progress_bar(sys.stderr.isatty() and not in_server()) as progress:
                staged = ingest_staged(store, path, options=options, progress=progress,
                                       early=early, defer=deriver is not None, compact=not new,
                                       alongside=alongside)
            data = staged.summary.to_dict()
            if deriver is not None:  # after the answer (api.serve_derive)
                _defer(deriver, store, staged, options, data, communities=not no_communities)
            elif not no_communities:
                data["communities"] = communities
            if new and deriver is None and data["files"]["added"]:  # once complete
                data["seconds"]["compact"] = round(baseline_after_build(store), 3)
            if as_json:
                print_json(data)
            else:
                _print_ingest(data)
            if before is not None and store.graph_version() == version:
                record(noop_args, before, store.path, data)
            elif noop_args is not None:
                forget(store.path)
            if PROCESS.owned and not in_server():
                store.exit_process(0)  # skips Kuzu's close-time checkpoint when the WAL is small
    finally:
        if early is not None:
            early.close()  # not taken over (an error before the parse): stopped


def _deriver(store: Store) -> Any:
    """The server's deriver when this ingest runs in a ``vgdb serve --writable`` that
    finishes derived data after the answer (:mod:`api.serve_derive`), else None."""
    if not in_server() or store.read_only:
        return None
    from api.serve_derive import active

    return active()


def _defer(deriver: Any, store: Store, staged: Any, options: Any, data: dict[str, Any], *,
           communities: bool) -> None:
    """Leave what follows from the committed code of ``staged`` -- history, papers, the
    search indexes and the communities -- to ``deriver`` (run before any reader or writer
    comes next); ``data`` (the answer) says so."""
    from ingest.pipeline import finish_derived, without_cyclic_gc

    def derive() -> None:
        from ingest.warm import prefill

        with without_cyclic_gc():
            # the communities follow the history (new commits call for a detection), beside
            # the indexes' forked children when there are any
            summary = finish_derived(
                store, staged, options=options,
                alongside=(lambda s: communities_after_ingest(store, s.to_dict()))
                if communities else None)
            prefill(store, summary.repo)  # what the next update reads first, read now

    deriver.defer(f"the ingest of {data['repo']}", derive)
    if communities:
        data["communities"] = {"status": "deferred", "repo": data["repo"]}


def _print_ingest(data: dict) -> None:
    f = data["files"]
    print_wrapped(f"[bold]{data['repo']}[/bold] ({data['root']})")
    print_wrapped(f"  files: {f['seen']} seen, {f['parsed']} parsed ({f['added']} added, "
                  f"{f['modified']} modified), {f['removed']} removed, {f['unchanged']} "
                  f"unchanged, {f['skipped']} skipped, {f['partial']} with syntax errors")
    print_wrapped("  nodes: " + ", ".join(f"{k} {v}" for k, v in data["nodes"].items())
                  + f"; references {data['references']}")
    print_wrapped("  edges: " + ", ".join(f"{k} {v}" for k, v in data["edges"].items()))
    print_wrapped("  seconds: " + ", ".join(f"{k} {v}" for k, v in data["seconds"].items()))
    for item in data["skipped"][:20]:
        print_wrapped(f"  [yellow]skipped[/yellow] {escape(item['path'])}: "
                      f"{escape(item['reason'])}")
    if len(data["skipped"]) > 20:
        print_wrapped(f"  ... {len(data['skipped']) - 20} more skipped (see --json)")
    for item in data["partial"][:10]:
        print_wrapped(f"  [yellow]flagged[/yellow] {escape(item['path'])}: "
                      f"{escape(item['reason'])}")
    if len(data["partial"]) > 10:
        print_wrapped(f"  ... {len(data['partial']) - 10} more flagged (see --json)")
    _print_history(data.get("history"))
    p = data.get("papers")
    if p:
        c = p["papers"]
        print_wrapped(f"  papers: {len(p['bibliographies'])} bibliographies, "
                      f"{p['references']} references in {p['scanned_files']} files, commits "
                      f"and entries; papers {c.get('new', 0)} new, {c.get('updated', 0)} "
                      f"updated, {c.get('unchanged', 0)} unchanged")
        for item in p["issues"][:10]:
            print_wrapped(f"  [yellow]paper issue[/yellow] {escape(item['file'])}:"
                          f"{item['line']}: {escape(item['message'])}")
    _print_ingest_communities(data.get("communities"))


def _print_ingest_communities(c: dict | None) -> None:
    if c is None:
        return
    if c["status"] == "deferred":
        print_wrapped("  history, papers, search indexes and communities: following in the "
                      "server, before its next answer")
        return
    if c["status"] == "kept":
        print_wrapped(f"  communities: kept ({c['reason']}; `vgdb communities "
                      f"{escape(c['repo'])} --detect` to run again)")
        return
    if c["status"] == "updated":
        parts = [f"{c[s]['added']} joined, {c[s]['removed']} left"
                 + (f", {c[s]['moved']} moved" if c[s].get("moved") else "") + f" ({s}s)"
                 for s in ("file", "symbol")]
        print_wrapped(f"  communities: updated in place: {'; '.join(parts)}")
        return
    for scope in ("file", "symbol"):
        d = c[scope]
        levels = ", ".join(str(lv["communities"]) for lv in d["levels"]) or "none"
        moved = f"; {d['moved']} moved" if d["had_previous"] else ""
        top = d["levels"][0]["modularity"] if d["levels"] else 0.0
        print_wrapped(f"  communities ({scope}s): {levels} per level, modularity {top:.3f}"
                      f"{moved}; {d['seconds']} s")


def _print_history(h: dict | None) -> None:
    if h is None:
        return
    if h["status"] in ("skipped", "failed"):
        color = "yellow" if h["status"] == "skipped" else "red"
        print_wrapped(f"  history: [{color}]{h['status']}[/{color}]: {escape(h['reason'])}")
        return
    if h["status"] == "up to date":
        print_wrapped(f"  history: up to date at {h['head'][:12]}")
    else:
        print_wrapped(f"  history: {h['commits']} new commits to {h['head'][:12]}, "
                      f"{h['changes']} file changes, {h['touched']} symbol touches, "
                      f"{h['lineage']} renames/moves, {h['people']} people; seconds "
                      + ", ".join(f"{k} {v}" for k, v in h["seconds"].items()))
    for note in h["notes"]:
        print_wrapped(f"  [yellow]history note[/yellow]: {escape(note)}")


@click.command("ingest-batch")
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
@click.option("--group-rows", type=click.IntRange(min=1), default=None,
              help="Rows per load transaction: repositories new to the graph are committed "
                   "in groups of about this many rows (default: VGDB_BATCH_GROUP_ROWS or "
                   "300000; 1: one repository per transaction).")
@click.option("--group-growth", type=click.FloatRange(0, 1), default=None,
              help="A group holds at least this share of the rows already in the graph, so "
                   "the commit's fixed cost stays a small part of it (default: "
                   "VGDB_BATCH_GROUP_GROWTH or 0.06; 0: always --group-rows).")
@click.option("--group-max-rows", type=click.IntRange(min=1), default=None,
              help="The most rows a grown group holds (default: VGDB_BATCH_GROUP_MAX_ROWS "
                   "or 1500000).")
@json_option
def ingest_batch(manifest: Path, db: str, executor: str, workers: int | None,
                 retry_failed: bool, force: bool, keep_shards: bool, no_communities: bool,
                 group_rows: int | None, group_growth: float | None,
                 group_max_rows: int | None, as_json: bool) -> None:
    """Ingest every repository of MANIFEST (TOML or YAML) into one graph; a rerun skips
    what is done and unchanged and retries what failed (docs/cli.md#ingest-batch)."""
    from ingest.batch import load_manifest, run_batch

    spec = load_manifest(manifest)  # checked before the database is opened
    store = Store.open(db)
    try:
        with progress_bar(sys.stderr.isatty()) as progress:
            summary = run_batch(store, spec, executor=executor, workers=workers,
                                retry_failed=retry_failed, force=force,
                                keep_shards=keep_shards, progress=progress,
                                group_rows=group_rows, growth=group_growth,
                                growth_max_rows=group_max_rows,
                                after_ingest=None if no_communities
                                else communities_after_ingest)
        store = summary.store or store  # reopened between groups in a long batch
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
    if PROCESS.owned:
        store.exit_process(code)
    store.close()
    if code:
        sys.exit(code)


def _print_batch(data: dict) -> None:
    rows = []
    for r in data["repositories"]:
        note = r["reason"]
        linked = (r.get("cross_repo") or {}).get("files") or {}
        if linked:
            note = "re-linked " + ", ".join(f"{k} ({v})" for k, v in linked.items())
        rows.append((r["name"], r["status"], (r["commit"] or "")[:10], r["files"], r["nodes"],
                     r["edges"], f"{r['seconds']:.1f}", note))
    number = {"kind": "num", "justify": "right"}
    print_table([Column("repository", kind="id"), Column("status"), Column("commit", priority=3),
                 Column("files", priority=4, **number), Column("nodes", priority=5, **number),
                 Column("edges", priority=6, **number), Column("seconds", priority=2, **number),
                 Column("note", priority=1)], rows, title=f"ingest-batch {data['manifest']}")
    counts = ", ".join(f"{v} {k}" for k, v in sorted(data["counts"].items()))
    print_wrapped(f"{counts}; {data['seconds']:.1f} s with executor {data['executor']}")


@click.command("extract-shards")
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


@click.command("load-shards")
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
    print_wrapped(f"shard of [bold]{escape(info.repo)}[/bold] in {escape(info.path)} "
                  f"(format {info.format_version}, {info.seconds:.1f} s): {counts}")
