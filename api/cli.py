"""``vgdb``: the command line, a thin layer over ``ingest`` and ``queries``.

Each command parses its options, calls one Python function and formats the result; ``main``
is the one place where errors become messages and exit codes:

0 success · 1 error · 2 bad input or query · 3 database locked · 4 conflict · 70 internal error
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.output import console, err_console, print_frame, print_json
from graphdb import DEFAULT_DB, Store
from queries import repositories, repository_overview, run_cypher
from schema import VgdbError

__all__ = ["cli", "main", "run"]

class _Process:
    """Whether this process is the ``vgdb`` command itself (see :func:`run`), which may end
    the process early, or a caller of :func:`main` (tests, other programs), which must not."""

    owned = False


_PROCESS = _Process()

_db_option = click.option(
    "--db", "db", default=lambda: os.environ.get("VGDB_DB", DEFAULT_DB), show_default=DEFAULT_DB,
    type=click.Path(file_okay=False), help="Database directory (env VGDB_DB).")
_json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


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
@_db_option
@click.option("--name", help="Repository name (default: the directory name).")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help=".gitignore-style pattern to skip (repeatable).")
@click.option("--no-default-excludes", is_flag=True,
              help="Also ingest vendored, build and virtual-environment directories.")
@click.option("--no-gitignore", is_flag=True, help="Ignore .gitignore files.")
@click.option("--max-file-size", default=2_000_000, show_default=True, type=int,
              help="Skip files larger than this many bytes.")
@click.option("--workers", type=int, default=None, help="Parse processes (default: cores).")
@click.option("--no-history", is_flag=True, help="Skip the git history.")
@click.option("--since", type=click.DateTime(), default=None,
              help="Only commits from this date on (e.g. 2024-01-31).")
@click.option("--max-commits", type=click.IntRange(min=1), default=None,
              help="Only the newest N commits (of those not yet ingested).")
@_json_option
def ingest(path: Path, db: str, name: str | None, exclude: tuple[str, ...],
           no_default_excludes: bool, no_gitignore: bool, max_file_size: int,
           workers: int | None, no_history: bool, since: datetime | None,
           max_commits: int | None, as_json: bool) -> None:
    """Ingest the code of the tree at PATH and the git history of its repository
    (again: only what changed, and only new commits)."""
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import IngestOptions, check_root, ingest_repository

    check_root(path)  # before opening (and maybe creating) the database
    history = HistoryOptions(enabled=not no_history, since=since, max_commits=max_commits,
                             max_file_size=max_file_size)
    options = IngestOptions(name=name, excludes=exclude,
                            default_excludes=not no_default_excludes,
                            gitignore=not no_gitignore, max_file_size=max_file_size,
                            workers=workers, history=history)
    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = ingest_repository(store, path, options=options, progress=progress)
    except BaseException:
        store.close()
        raise
    if as_json:
        print_json(summary.to_dict())
    else:
        _print_ingest(summary.to_dict())
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


@cli.command()
@click.argument("query")
@_db_option
@click.option("--param", "params", multiple=True, metavar="NAME=JSON",
              help="Query parameter $NAME, value as JSON (or a plain string).")
@_json_option
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
@_db_option
@click.option("--limit", default=5, show_default=True, help="Rows per ranking.")
@_json_option
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
@_db_option
@click.option("--as-of", type=click.DateTime(), default=None,
              help="Only facts already true at this (valid) time.")
@click.option("--known-at", type=click.DateTime(), default=None,
              help="Only facts the database had recorded by this time.")
@_json_option
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
@_db_option
@click.option("--max-issues", default=50, show_default=True, type=int,
              help="Bad lines and warnings to print (all of them with --json).")
@_json_option
def ingest_session(files: tuple[Path, ...], db: str, max_issues: int, as_json: bool) -> None:
    """Load session logs (JSON lines, docs/sessions.md) into the graph.

    Bad lines are reported with their line numbers and skipped; the good ones are loaded.
    Exit code 2 if a FILE cannot be read at all.
    """
    from ingest.sessions import load_sessions

    store = Store.open(db)
    try:
        with _progress(sys.stderr.isatty()) as progress:
            summary = load_sessions(store, list(files), progress=progress)
    except BaseException:
        store.close()
        raise
    data = summary.to_dict()
    if as_json:
        print_json(data)
    else:
        _print_sessions(data, max_issues)
    code = 2 if summary.unreadable else 0
    if _PROCESS.owned:
        store.exit_process(code)
    store.close()
    if code:
        sys.exit(code)


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
    issues = data["errors"] + data["warnings"]
    for item in issues[:max_issues]:
        color = "red" if item["severity"] == "error" else "yellow"
        console.print(f"  [{color}]{item['severity']}[/{color}] {escape(item['file'])}:"
                      f"{item['line']}: {escape(item['message'])}")
    if len(issues) > max_issues:
        console.print(f"  ... {len(issues) - max_issues} more (see --json)")


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
        if os.environ.get("VGDB_DEBUG"):
            raise
        err_console.print(f"[bold red]internal error:[/bold red] {type(exc).__name__}: "
                          f"{escape(str(exc))}")
        err_console.print("[dim]hint:[/dim] set VGDB_DEBUG=1 for a traceback, and report it")
        sys.exit(70)


if __name__ == "__main__":
    run()
