"""The commands that read the academic domain: ``referenced-papers``, ``paper-code``,
``decisions-based-on``, ``citations`` (thin wrappers over :mod:`queries.academic`)."""

from __future__ import annotations

import click

from api.options import db_option, json_option
from api.output import print_frame, print_json
from api.resident import opened

__all__ = ["citations", "decisions_based_on", "paper_code", "referenced_papers"]


def _print_links(rows: list, columns: tuple[str, ...], as_json: bool, title: str) -> None:
    import polars as pl

    if as_json:
        print_json([r.to_dict() for r in rows])
        return
    frame = pl.DataFrame([{c: getattr(r, c) for c in columns} for r in rows],
                         schema=list(columns), orient="row") if rows else pl.DataFrame(
        schema=list(columns))
    print_frame(frame, title=title)


@click.command("referenced-papers")
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

    with opened(db) as store:
        rows = find(store, node, relation=relation, limit=limit)
    _print_links(rows, ("paper", "title", "year", "relation", "via", "location", "source",
                        "confidence"), as_json, "papers")


@click.command("paper-code")
@click.argument("paper")
@db_option
@click.option("--relation", type=click.Choice(["cites", "implements", "documents"]),
              default=None, help="Only links of this kind (implements: the implementing code).")
@click.option("--limit", default=500, show_default=True, help="Links to print at most.")
@json_option
def paper_code(paper: str, db: str, relation: str | None, limit: int, as_json: bool) -> None:
    """Code, commits and entries referencing PAPER (an id, a DOI, an arXiv id, RFC <n>)."""
    from queries.academic import paper_code as find

    with opened(db) as store:
        rows = find(store, paper, relation=relation, limit=limit)
    _print_links(rows, ("node", "table", "name", "relation", "location", "source",
                        "confidence"), as_json, "code")


@click.command("decisions-based-on")
@click.argument("paper")
@db_option
@json_option
def decisions_based_on(paper: str, db: str, as_json: bool) -> None:
    """Decisions based on PAPER."""
    from queries.academic import decisions_based_on as find

    with opened(db) as store:
        rows = find(store, paper)
    _print_links(rows, ("node", "name", "location", "source", "confidence"), as_json,
                 "decisions")


@click.command()
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

    with opened(db) as store:
        rows = find(store, paper, depth=depth, direction=direction, limit=limit)
    _print_links(rows, ("paper", "title", "year", "direction", "depth", "resolved",
                        "evidence"), as_json, "citations")
