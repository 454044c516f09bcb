"""``vgdb status``, ``remove``, ``backup``, ``restore``, ``export``, ``import``: living with a
database (docs/operate.md). Thin wrappers over :mod:`queries.status`, :mod:`ingest.remove`,
:mod:`graphdb.backup` and :mod:`graphdb.export`.

Each command opens the database itself when it can; when ``vgdb serve --writable`` holds it,
it goes through that server's GraphQL API instead (:mod:`api.operate`), so a backup or an
export is consistent while the server answers queries.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.operate import remote, tree_files
from api.options import db_option, json_option
from api.output import console, print_json
from graphdb import Store
from schema import StoreLockedError

__all__ = ["backup", "export", "import_", "remove", "restore", "status"]

_url_option = click.option(
    "--url", default=None, metavar="URL",
    help="A `vgdb serve` holding the database (default: $VGDB_URL, or the one it recorded).")
_token_option = click.option("--token", default=None, metavar="TOKEN",
                             help="API token for that server (default: $VGDB_TOKEN).")


def _owned(db: str, *, read_only: bool, local: Callable[[Store], Any],
           query: str, variables: dict[str, Any], url: str | None,
           token: str | None) -> Any:
    """``local(store)`` on the database opened here, or ``query`` on the server holding it
    (then the answer's data)."""
    try:
        store = Store.open(db, read_only=read_only)
    except StoreLockedError as exc:
        return remote(exc, db, query, variables, url=url, token=token)
    with store:
        return local(store)


_STATUS_QUERY = """query($repo: String, $exclude: [String!]) {
 status(repo: $repo, exclude: $exclude) {
  path sizeBytes schemaVersion engine vgdbVersion graphVersion keywordCurrent keywordUnsynced
  embeddingsCurrent embeddingsPending reasons stale
  repositories { name root ingestedAt ingestedCommit head commitsBehind commitsDiverged
    filesChanged filesAdded filesDeleted communitiesCurrent coverageRecordedAt
    coverageAgeSeconds graphVersion reasons stale } } }"""


@click.command()
@click.argument("repo", required=False)
@db_option
@click.option("--check", is_flag=True,
              help="Exit 1 when anything is stale (for CI); print only the reasons.")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Patterns the tree was ingested with (`vgdb ingest --exclude`): files they "
                   "match are not counted as added (repeatable).")
@_url_option
@_token_option
@json_option
def status(repo: str | None, db: str, check: bool, exclude: tuple[str, ...], url: str | None,
           token: str | None, as_json: bool) -> None:
    """How current the graph is: per repository the ingested commit against HEAD (commits
    behind), files changed since the ingest, whether communities, the keyword index and the
    embeddings follow the graph, the coverage's age; the database's size and versions."""
    from queries.status import status as db_status

    data = _owned(db, read_only=True,
                  local=lambda store: db_status(
                      store, repo, walk=lambda root: tree_files(root, exclude)).to_dict(),
                  query=_STATUS_QUERY, variables={"repo": repo, "exclude": list(exclude)},
                  url=url, token=token)
    if "status" in data and isinstance(data["status"], dict):
        data = _snake(data["status"])
    if as_json:
        print_json(data)
    elif check:
        for reason in data["reasons"]:
            console.print(f"stale: {escape(reason)}")
    else:
        _print_status(data)
    if check and data["stale"]:
        sys.exit(1)


def _snake(value: Any) -> Any:
    """A GraphQL answer's camelCase keys as the Python API's snake_case (one --json shape)."""
    import re

    if isinstance(value, dict):
        return {re.sub(r"(?<!^)([A-Z])", r"_\1", k).lower(): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


def _print_status(data: dict[str, Any]) -> None:
    size = data["size_bytes"] / (1 << 20)
    console.print(f"database {escape(data['path'])}: {size:.1f} MB, schema "
                  f"{data['schema_version']}, {escape(data['engine'])}, vgdb "
                  f"{escape(data['vgdb_version'])}, graph version {data['graph_version']}")
    console.print(f"keyword index: {_current(data['keyword_current'], data['keyword_unsynced'])}"
                  f"; embeddings: "
                  f"{_current(data['embeddings_current'], data['embeddings_pending'])}")
    for r in data["repositories"]:
        mark = "[yellow]stale[/yellow]" if r["stale"] else "[green]current[/green]"
        console.print(f"\n[bold]{escape(r['name'])}[/bold] {mark}  {escape(r['root'])}")
        ingested = (r["ingested_commit"] or "-")[:12]
        behind = "?" if r["commits_behind"] is None else r["commits_behind"]
        console.print(f"  ingested {ingested} at {str(r['ingested_at'])[:19]}; HEAD "
                      f"{(r['head'] or '-')[:12]}, {behind} commits behind")
        console.print(f"  files since: {len(r['files_changed'])} changed, "
                      f"{len(r['files_added'])} added, {len(r['files_deleted'])} deleted")
        console.print(f"  communities: {'current' if r['communities_current'] else 'due'}; "
                      f"coverage: {_age(r['coverage_age_seconds'])}")
        for reason in r["reasons"]:
            console.print(f"  - {escape(reason)}")


def _current(ok: bool, tables: list[str]) -> str:
    return "current" if ok else f"behind ({', '.join(tables)})"


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "never recorded"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"recorded {seconds / size:.1f} {unit} ago"
    return f"recorded {seconds:.0f} s ago"


@click.command()
@click.argument("repo")
@db_option
@_url_option
@_token_option
@json_option
def remove(repo: str, db: str, url: str | None, token: str | None, as_json: bool) -> None:
    """Remove repository REPO: its files, symbols, commits, communities, coverage and index
    entries, in one transaction; other repositories' imports of it are re-resolved. Agents'
    and people's entries about it are kept (unlinked from the removed code)."""
    from ingest.remove import remove_repository

    data = _owned(db, read_only=False,
                  local=lambda store: remove_repository(store, repo).to_dict(),
                  query="mutation($n: String!) { removeRepository(name: $n) }",
                  variables={"n": repo}, url=url, token=token)
    data = data.get("removeRepository", data)
    if as_json:
        print_json(data)
        return
    deleted = ", ".join(f"{n} {k}" for k, n in data["deleted"].items() if n)
    console.print(f"removed {escape(repo)}: {escape(deleted)}")
    for consumer, files in data["relinked"].items():
        console.print(f"re-resolved {files} files of {escape(consumer)}")
    if data["kept_entries"]:
        console.print(f"kept {data['kept_entries']} entries about it (unlinked)")


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
@_url_option
@_token_option
@json_option
def backup(directory: str, db: str, url: str | None, token: str | None,
           as_json: bool) -> None:
    """Copy the database into the new DIRECTORY, consistently, also while `vgdb serve`
    runs (through it: the directory is then on the server's machine)."""
    from graphdb.backup import backup_database

    target = str(Path(directory).expanduser().absolute())
    data = _owned(db, read_only=True, local=lambda s: backup_database(s, target).to_dict(),
                  query="mutation($d: String!) { backup(directory: $d) }",
                  variables={"d": target}, url=url, token=token)
    data = data.get("backup", data)
    _print_copy("backed up", data, as_json)


@click.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@db_option
@click.option("--replace", is_flag=True,
              help="Move the database at --db aside (kept, <db>.replaced-<time>) first.")
@json_option
def restore(directory: str, db: str, replace: bool, as_json: bool) -> None:
    """Restore the backup in DIRECTORY into --db (which must hold no database, or
    --replace); the restored graph is checked against the backup's content digest."""
    from graphdb.backup import restore_database

    _print_copy("restored", restore_database(directory, db, replace=replace).to_dict(),
                as_json)


@click.command()
@click.argument("directory", type=click.Path(file_okay=False))
@db_option
@_url_option
@_token_option
@json_option
def export(directory: str, db: str, url: str | None, token: str | None,
           as_json: bool) -> None:
    """Write every table as Parquet into the new DIRECTORY (docs/operate.md: the format),
    to move the graph between machines and versions."""
    from graphdb.export import export_graph

    target = str(Path(directory).expanduser().absolute())
    data = _owned(db, read_only=True, local=lambda s: export_graph(s, target).to_dict(),
                  query="mutation($d: String!) { exportGraph(directory: $d) }",
                  variables={"d": target}, url=url, token=token)
    data = data.get("exportGraph", data)
    _print_copy("exported", data, as_json)


@click.command("import")
@click.argument("directory", type=click.Path(exists=True, file_okay=False))
@db_option
@click.option("--embed/--no-embed", default=None,
              help="Embed the texts (default: when the exported database had vectors).")
@json_option
def import_(directory: str, db: str, embed: bool | None, as_json: bool) -> None:
    """Load an export (DIRECTORY) into an empty --db; the keyword index is rebuilt, the
    vectors embedded again, and the graph checked against the export's content digest."""
    from graphdb.export import import_graph

    with Store.open(db) as store:
        _print_copy("imported", import_graph(store, directory, embed=embed).to_dict(),
                    as_json)


def _print_copy(verb: str, data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print_json(data)
        return
    rows = data.get("rows", sum(data.get("counts", {}).values()))
    console.print(f"{verb} {escape(data['path'])}: {rows} rows, content digest "
                  f"{data['digest']}, {data['seconds']:.1f} s")
