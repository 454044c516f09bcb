"""The commands that load files into the graph: session logs, bibliographies, coverage, and
the embeddings of new or changed texts (thin wrappers over ``ingest`` and ``graphdb``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.options import db_option, files_option, json_option
from api.output import err_console, print_json, print_wrapped, progress_bar
from api.process import PROCESS
from graphdb import Store

__all__ = ["embed", "ingest_coverage", "ingest_papers", "ingest_session"]


@click.command("ingest-session")
@files_option("Bad lines and warnings")
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
        with progress_bar(sys.stderr.isatty()) as progress:
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
    if PROCESS.owned:
        store.exit_process(code)
    store.close()
    if code:
        sys.exit(code)


def _print_issues(data: dict, max_issues: int) -> None:
    issues = data["errors"] + data["warnings"]
    for item in issues[:max_issues]:
        color = "red" if item["severity"] == "error" else "yellow"
        print_wrapped(f"  [{color}]{item['severity']}[/{color}] {escape(item['file'])}:"
                      f"{item['line']}: {escape(item['message'])}")
    if len(issues) > max_issues:
        print_wrapped(f"  ... {len(issues) - max_issues} more (see --json)")


def _print_load(data: dict, max_issues: int, describe: Callable[[dict], str],
                counts: str) -> None:
    """What a loader of files did: a line per file (``describe``: its counts) or an error
    per unreadable one, the ``counts`` line, the tables written, the issues."""
    for f in data["files"]:
        if "unreadable" in f:
            err_console.print(f"[bold red]error:[/bold red] cannot read {escape(f['path'])}: "
                              f"{escape(f['unreadable'])}")
            continue
        print_wrapped(f"[bold]{escape(f['path'])}[/bold]: {describe(f)}")
    print_wrapped(counts)
    print_wrapped("  written: " + (", ".join(f"{k} {v}" for k, v in data["written"].items())
                                   or "nothing new"))
    _print_issues(data, max_issues)


def _print_sessions(data: dict, max_issues: int) -> None:
    c = data["counts"]
    _print_load(data, max_issues,
                lambda f: f"{f['events']} events, {f['errors']} bad lines, "
                          f"{f['warnings']} warnings",
                f"  sessions {c.get('sessions', 0)}, entries {c.get('entries', 0)} new, "
                f"{c.get('merged', 0)} merged, {c.get('already', 0)} already loaded, "
                f"{c.get('superseded', 0)} superseded, {c.get('outcomes', 0)} outcomes, "
                f"{c.get('rejected', 0)} rejected")


@click.command("ingest-coverage")
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
    print_wrapped(f"coverage of {escape(repo)} at {summary.commit[:12] or '?'}: "
                  f"{summary.tests} tests, {summary.files} files, {summary.edges} EXECUTES "
                  f"edges ({summary.ended} previous ended) in {summary.seconds:.2f} s")
    for note in summary.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")


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


@click.command()
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
        with progress_bar(sys.stderr.isatty()) as progress:
            summary = embed_graph(store, tables=tables or None, reembed=reembed,
                                  progress=progress)
            sync_keyword(store, tables or None)  # and the keyword index, as an ingest ends
    except BaseException:
        store.close()
        raise
    if as_json:
        print_json(summary.to_dict())
    else:
        print_wrapped(f"model {summary.model_id} (dim {summary.dim}): {summary.embedded} "
                      f"texts embedded in {summary.seconds:.2f} s")
        for t in summary.tables:
            print_wrapped(f"  {t.table}: {t.current} current, {t.unchanged} unchanged, "
                          f"{t.embedded} embedded, {t.reused} reused, {t.removed} removed; "
                          f"index {t.index}")
    if PROCESS.owned:
        store.exit_process(0)
    store.close()


@click.command("ingest-papers")
@files_option("Bad records")
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
    c = data["counts"]
    _print_load(data, max_issues,
                lambda f: f"{f['records']} records, {f['errors']} bad, {f['warnings']} warnings",
                f"  papers {c.get('papers', 0)}: {c.get('new', 0)} new, "
                f"{c.get('updated', 0)} updated ({c.get('upgraded', 0)} stubs upgraded), "
                f"{c.get('unchanged', 0)} unchanged, {c.get('stubs', 0)} new stubs, "
                f"{c.get('merged', 0)} merged; {c.get('unresolved_references', 0)} "
                "references to works with no usable identifier")
