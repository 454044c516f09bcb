"""``vgdb briefing``: what to know before touching some code (a thin wrapper over
:func:`queries.briefing.briefing`)."""

from __future__ import annotations

from datetime import datetime

import click
from rich.markup import escape

from api.options import db_option, json_option
from api.output import console, err_console, print_json
from api.resident import opened

__all__ = ["briefing", "split_targets"]


def split_targets(targets: tuple[str, ...]) -> dict[str, list[str]]:
    """TARGETs as the Python API takes them: globs (``*``, ``?``, ``[``), symbols (``#`` or
    ``sym:``), files (the rest)."""
    out: dict[str, list[str]] = {"files": [], "symbols": [], "globs": []}
    for t in targets:
        if any(c in t for c in "*?[") and not t.startswith(("sym:", "file:")):
            out["globs"].append(t)
        elif "#" in t or t.startswith("sym:"):
            out["symbols"].append(t)
        else:
            out["files"].append(t)
    return out


@click.command()
@click.argument("targets", nargs=-1)
@db_option
@click.option("--task", default=None, help="What you are about to do (without TARGETs, "
                                           "search finds the code it names).")
@click.option("--tier", type=click.Choice(["micro", "standard", "full"]), default="standard",
              show_default=True, help="About 60, 500 or 2,000 tokens.")
@click.option("--max-tokens", type=int, default=None,
              help="The budget (cl100k_base tokens), instead of the tier's.")
@click.option("--as-of", type=click.DateTime(), default=None,
              help="Brief from the graph as it was valid at this time.")
@click.option("--session", default=None, help="Your session: its own intents are not "
                                              "reported as others'.")
@json_option
def briefing(targets: tuple[str, ...], db: str, task: str | None, tier: str,
             max_tokens: int | None, as_of: datetime | None, session: str | None,
             as_json: bool) -> None:
    """What to know before changing TARGETs (paths, path#qualname symbols, globs): decisions
    and patterns in force, stale ones, failures and their fixes, others' intents, tests,
    dependents, commits, papers, dependencies, community — packed to a token budget by
    priority, each item with its id."""
    from queries.briefing import briefing as brief

    with opened(db) as store:
        result = brief(store, **split_targets(targets), task=task, tier=tier,
                       max_tokens=max_tokens, as_of=as_of, session=session)
    if as_json:
        print_json(result.to_dict())
        return
    console.print(escape(result.text), soft_wrap=True, highlight=False)
    err_console.print(f"[dim]{result.tokens}/{result.max_tokens} tokens ({result.tokenizer}), "
                      f"graph version {result.graph_version}[/dim]")
    for note in result.notes:
        err_console.print(f"[yellow]note:[/yellow] {escape(note)}")
