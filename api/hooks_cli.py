"""``vgdb hooks install|uninstall|run``: git hooks that keep the graph current
(:mod:`ingest.hooks` edits the hook files; ``run`` is what the hooks call)."""

from __future__ import annotations

import shutil
import sys
from dataclasses import asdict
from pathlib import Path

import click
from rich.markup import escape

from api.operate import remote
from api.options import db_option, json_option
from api.output import console, err_console, print_json
from api.steps import communities_after_ingest
from graphdb import Store
from ingest.hooks import HOOKS, HookChange, install_hooks, uninstall_hooks
from schema import StoreLockedError

__all__ = ["hooks"]


@click.group()
def hooks() -> None:
    """Git hooks that update the graph after commits, merges, rewrites and checkouts."""


@hooks.command("install")
@click.argument("repo_path", required=False, default=".",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@db_option
@click.option("--name", help="Repository name in the graph (default: the name the tree was "
                             "ingested under, else the directory name).")
@json_option
def install(repo_path: Path, db: str, name: str | None, as_json: bool) -> None:
    """Add the hooks to the git repository at REPO_PATH (default: here). Existing hooks keep
    every byte: a marked block is appended, which `vgdb hooks uninstall` takes out again."""
    root = repo_path.resolve()
    vgdb = shutil.which("vgdb") or str(Path(sys.executable).with_name("vgdb"))
    command = [vgdb, "hooks", "run", "--db", str(Path(db).expanduser().absolute()),
               "--root", str(root), *(["--name", name] if name else [])]
    changes = install_hooks(root, command)
    _show(changes, as_json)


@hooks.command("uninstall")
@click.argument("repo_path", required=False, default=".",
                type=click.Path(exists=True, file_okay=False, path_type=Path))
@json_option
def uninstall(repo_path: Path, as_json: bool) -> None:
    """Take vgdb's blocks out of the hooks of REPO_PATH: each file is as it was before."""
    _show(uninstall_hooks(repo_path.resolve()), as_json)


def _show(changes: list[HookChange], as_json: bool) -> None:
    if as_json:
        print_json([asdict(c) for c in changes])
        return
    for c in changes:
        console.print(f"{c.hook}: {c.action} ({escape(c.path)})")


@hooks.command("run", hidden=True)
@click.argument("hook", type=click.Choice(HOOKS))
@click.argument("args", nargs=-1)
@db_option
@click.option("--root", required=True, type=click.Path(path_type=Path))
@click.option("--name", default=None)
def run(hook: str, args: tuple[str, ...], db: str, root: Path, name: str | None) -> None:
    """What a hook runs: an incremental ingest of the tree; with the history after commits,
    merges and rewrites, without it after a checkout (a branch switch changes the working
    tree, not what happened). Through the server when one holds the database."""
    from ingest.history.pipeline import HistoryOptions
    from ingest.pipeline import IngestOptions, ingest_repository
    from ingest.watch import ingested_name

    history = hook != "post-checkout"
    try:
        store = Store.open(db)
    except StoreLockedError as exc:
        job = remote(exc, db, "mutation($p: String!, $n: String, $h: Boolean!) "
                              "{ ingest(path: $p, name: $n, history: $h) { id } }",
                     {"p": str(root), "n": name, "h": history}, url=None, token=None)
        err_console.print(f"vgdb {hook}: ingest job {job['ingest']['id']} on the server")
        return
    with store:
        summary = ingest_repository(store, root, options=IngestOptions(
            name=name or ingested_name(store, root),
            history=HistoryOptions(enabled=history))).to_dict()
        communities_after_ingest(store, summary)
    f = summary["files"]
    err_console.print(f"vgdb {hook}: {summary['repo']} updated ({f['added']} added, "
                      f"{f['modified']} modified, {f['removed']} removed files"
                      f"{', history read' if history else ''})")
