"""``vgdb review --base REF``: a change's impact as a short Markdown report for a pull-request
comment (or JSON), over :func:`queries.review.review`.

The Markdown starts with :data:`MARKER`, a hidden HTML comment by which the GitHub Action
(``.github/actions/vgdb-review``) finds its own comment to update. It is capped at
``--max-chars`` (default :data:`MAX_CHARS`, under GitHub's 65,536-character comment limit):
sections are shortened, longest lists first, until it fits, and a line says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from api.options import db_option, json_option
from api.output import print_json, shorten_id
from graphdb import Store

__all__ = ["MARKER", "MAX_CHARS", "review_command", "review_markdown"]

MARKER = "<!-- vgdb-review -->"
#: a pull-request comment holds 65,536 characters; leave room for the marker and edits
MAX_CHARS = 60_000
#: rows per section before the size cap shortens them further
ROWS = {"changed": 15, "tests": 40, "decisions": 15, "at_odds": 15, "stale": 15,
        "failures": 15, "papers": 10}


@click.command("review")
@click.option("--base", required=True, metavar="REF",
              help="Compare with this revision (the merge base with --head is used).")
@click.option("--head", metavar="REF", help="The change's revision (default: the working tree).")
@click.option("--root", type=click.Path(file_okay=False, path_type=Path),
              help="The git working tree (default: the ingested root).")
@click.option("--repo", help="Repository of the change, when the graph holds several.")
@db_option
@click.option("--depth", default=3, show_default=True, type=click.IntRange(min=0),
              help="Hops followed from the change (config: impact.depth).")
@click.option("--limit", default=500, show_default=True, type=click.IntRange(min=1),
              help="Impacted symbols considered at most (config: impact.limit).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown",
              show_default=True, help="Markdown for a PR comment, or JSON.")
@click.option("--max-chars", default=MAX_CHARS, show_default=True,
              type=click.IntRange(min=500), help="Cap on the Markdown's length.")
@json_option
def review_command(base: str, head: str | None, root: Path | None, repo: str | None, db: str,
                   depth: int, limit: int, fmt: str, max_chars: int, as_json: bool) -> None:
    """Review the change from --base to --head (or the working tree): changed symbols ranked
    by risk, tests to run with their evidence, decisions and patterns it touches or goes
    against, stale decisions, failures and papers (docs/ci.md for the GitHub Action)."""
    from ingest.history.diff import diff_changes
    from queries.review import review

    with Store.open(db, read_only=True) as store:
        if root is None:
            root = _ingested_root(store, repo)
        result = review(store, diff_changes(root, base=base, head=head), depth=depth,
                        limit=limit, repo=repo)
    if as_json or fmt == "json":
        print_json(result.to_dict())
    else:
        click.echo(review_markdown(result, max_chars=max_chars), nl=False)


def _ingested_root(store: Store, repo: str | None) -> Path:
    from queries import repositories

    repos = repositories(store)
    if repo is not None:
        repos = repos.filter(repos["name"] == repo)
    if repos.height != 1:
        raise click.UsageError("pass --root DIR (the tree to diff) or --repo NAME: the graph "
                               f"holds {repos.height} matching repositories")
    return Path(repos["root"][0])


# --------------------------------------------------------------------------- markdown
def review_markdown(result: Any, *, max_chars: int = MAX_CHARS) -> str:
    """The report (a :class:`queries.review.Review`) as GitHub-flavoured Markdown, at most
    ``max_chars`` long."""
    rows = dict(ROWS)
    text = _render(result, rows, trimmed=False)
    while len(text) > max_chars and any(rows.values()):
        longest = max(rows, key=lambda k: (rows[k], k))
        rows[longest] //= 2
        text = _render(result, rows, trimmed=True)
    if len(text) > max_chars:  # even empty sections do not fit: cut, keeping the marker
        text = text[:max_chars - 2].rstrip() + "\n…\n"
    return text


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def _cell(text: str) -> str:
    return " ".join(str(text).replace("|", "\\|").split())


def _more(shown: int, total: int, what: str) -> list[str]:
    return [f"_… and {total - shown} more {what} (`--format json` lists all)_"] \
        if total > shown else []


def _render(r: Any, rows: dict[str, int], *, trimmed: bool) -> str:
    head = r.head[:10] if r.head else "working tree"
    counts: dict[str, int] = {}
    for t in r.tests:
        counts[t.evidence] = counts.get(t.evidence, 0) + 1
    out = [MARKER, f"## vgdb review: `{r.base[:10]}..{head}` ({r.repo})", "",
           f"**{_n(len(r.changed), 'changed symbol')}** in {_n(len(r.files), 'file')} · "
           f"**{_n(len(r.tests), 'test')} to run** · {r.impacted_symbols} impacted symbols, "
           f"{r.impacted_files} files (depth {r.depth})", ""]
    out += ["### Changed symbols by risk", ""]
    if r.changed:
        out += ["| risk | symbol | change | fan-in | tests | why |",
                "|---:|---|---|---:|---|---|"]
        out += [f"| {c.risk:.2f} | `{_cell(shorten_id(c.id))}` | {c.change} | {c.fan_in} | "
                f"{c.evidence} ({c.tests}) | {_cell('; '.join(c.reasons) or '-')} |"
                for c in r.changed[:rows["changed"]]]
        out += _more(rows["changed"], len(r.changed), "changed symbols")
    else:
        out.append("_No changed symbol in the graph._")
    out += ["", "### Tests to run", ""]
    if r.tests:
        out += ["<details><summary>" + f"{_n(len(r.tests), 'test')} ("
                + ", ".join(f"{n} by {e}" for e, n in sorted(counts.items()))
                + ")</summary>", "", "| test | evidence | why |", "|---|---|---|"]
        out += [f"| `{_cell(t.node_id)}` | {t.evidence} | {_cell(t.why or t.reason)} |"
                for t in r.tests[:rows["tests"]]]
        out += _more(rows["tests"], len(r.tests), "tests")
        out += ["", "</details>"]
    else:
        out.append("_No test reaches the change._")
    out += _list("Decisions and patterns it touches", [
        f"**{e.display_id or e.id}** ({e.kind}, {e.relation}): {_cell(e.title)}"
        for e in r.decisions], rows["decisions"], "_None._")
    out += _list("At odds with", [
        f"⚠ {_cell(a.title)} — {a.reason}" if a.kind == "intent" else
        f"⚠ **{a.display_id or shorten_id(a.id)}** ({a.kind}): {_cell(a.title)} — {a.reason}"
        for a in r.at_odds], rows["at_odds"], "_Nothing found._")
    out += _list("Stale decisions (code changed since they were decided)", [
        f"{_cell(s.text)}" for s in r.stale], rows["stale"], "_None._")
    out += _list("Failures recorded here", [
        f"**{e.display_id or e.id}** ({'open' if e.current else 'closed'}): {_cell(e.title)}"
        for e in r.failures], rows["failures"], "_None._")
    out += _list("Papers", [f"{_cell(p.title or p.id)} ({p.relation})" for p in r.papers],
                 rows["papers"], "_None._")
    notes = list(r.notes)
    if trimmed:
        notes.append("trimmed to fit a comment; `vgdb review --format json` has everything")
    if notes:
        out += ["", "### Notes", ""] + [f"> {_cell(n)}" for n in notes]
    return "\n".join(out).rstrip() + "\n"


def _list(title: str, items: list[str], rows: int, empty: str) -> list[Any]:
    out = ["", f"### {title}", ""]
    if not items:
        return [*out, empty]
    return out + [f"- {i}" for i in items[:rows]] + _more(rows, len(items), "items")
