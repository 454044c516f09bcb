"""``vgdb redact PATTERN|ID``: take text out of the graph, the keyword index and the vectors,
keeping the facts' structure (:mod:`queries.redact`)."""

from __future__ import annotations

import click

from api.options import db_option, json_option
from api.output import Column, console, print_json, print_table
from graphdb import Store

__all__ = ["redact_command"]


@click.command("redact")
@click.argument("target")
@click.option("--reason", required=True,
              help="Why (written into the tombstone; keep the secret out of it).")
@click.option("--pattern", "as_pattern", is_flag=True,
              help="TARGET is a regular expression even if it looks like an id.")
@click.option("--dry-run", is_flag=True, help="List what would be redacted; change nothing.")
@db_option
@json_option
def redact_command(target: str, reason: str, as_pattern: bool, dry_run: bool, db: str,
                   as_json: bool) -> None:
    """Redact TARGET: a node (entry:..., DEC-3, commit:<sha>, session:..., paper:...), whose
    every free-text field becomes a tombstone, or a PATTERN (a Python regular expression),
    each match of which in any entry, commit message, session or paper text becomes one.
    Structure stays (ids, times, edges); the text leaves the keyword index and the vectors."""
    from queries.redact import redact  # numpy, tantivy, hnswlib: only when it runs

    with Store.open(db, read_only=dry_run) as store:
        result = redact(store, target, reason=reason, pattern=True if as_pattern else None,
                        dry_run=dry_run)
    if as_json:
        print_json({**result.to_dict(), "dry_run": dry_run})
        return
    verb = "would redact" if dry_run else "redacted"
    console.print(f"{verb} {result.matches} match{'es' if result.matches != 1 else ''} in "
                  f"{len(result.nodes)} node{'s' if len(result.nodes) != 1 else ''}; "
                  f"tombstone {result.tombstone}")
    if result.nodes:
        print_table([Column("node", kind="id"), Column("table", priority=1),
                     Column("fields", priority=2)],
                    [(n.id, n.table, ", ".join(n.fields)) for n in result.nodes])
    if result.keyword:
        console.print("keyword index rebuilt: " + ", ".join(
            f"{t} ({n} docs)" for t, n in result.keyword.items()))
    if result.vectors:
        console.print("vectors dropped and re-embedded: " + ", ".join(
            f"{t} ({n} rows)" for t, n in result.vectors.items()))
