"""``vgdb impact``, ``affected-tests`` and ``pytest-plugin`` (thin wrappers over
:func:`queries.impact.impact`)."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from api.options import db_option, ingested_root
from api.output import err_console, print_json, print_wrapped, wide_option
from api.resident import opened
from graphdb import Store

__all__ = ["affected_tests", "impact", "pytest_plugin"]


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
        root = ingested_root(store, repo)
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


def _json_shorthand(command: Any) -> Any:
    """``--json`` (the same as ``--format json``) and ``--wide`` (text lines unwrapped)."""
    command = click.option("--json", "as_json", is_flag=True,
                           help="Print JSON: the same as --format json.")(command)
    return wide_option(command)


@click.command()
@click.argument("targets", nargs=-1)
@_impact_options
@click.option("--depth", default=3, show_default=True, type=click.IntRange(min=0),
              help="Longest path followed, in edges (capped at 10).")
@click.option("--limit", default=500, show_default=True, type=click.IntRange(min=1),
              help="At most this many symbols and files.")
@click.option("--format", "fmt", type=_FORMATS, default="text", show_default=True,
              help="text, json (ImpactResult.to_dict()) or markdown (a PR comment).")
@_json_shorthand
def impact(targets: tuple[str, ...], db: str, base: str | None, head: str | None,
           root: Path | None, repo: str | None, edge_kinds: tuple[str, ...],
           as_of: datetime | None, no_coverage: bool, never_executed: str, depth: int,
           limit: int, fmt: str, as_json: bool) -> None:
    """What depends on TARGET... (ids or names: pkg/mod.py#Class.method, pkg/mod.py), or on
    the changes of --base [--head]: ranked symbols and files with the path that explains
    each, tests to run, communities, decisions and papers touched."""
    from api.impact_output import impact_markdown, impact_text
    from queries.impact import impact as find

    fmt = "json" if as_json else fmt
    with opened(db) as store:
        what = _impact_targets(store, targets, base, head, root, repo)
        result = find(store, what, depth=depth, edge_kinds=edge_kinds or None, as_of=as_of,
                      limit=limit, repo=repo, coverage=not no_coverage,
                      never_executed=never_executed)
    if fmt == "json":
        print_json(result.to_dict())
    elif fmt == "markdown":
        sys.stdout.write(impact_markdown(result))
    else:
        for line in impact_text(result).splitlines():
            print_wrapped(line, markup=False)


@click.command("affected-tests")
@click.argument("targets", nargs=-1)
@_impact_options
@click.option("--depth", type=click.IntRange(min=0),
              help="Longest path from a change to a test, in edges (capped at 10); default: "
                   "spread by --budget and --min-score instead.")
@click.option("--budget", type=click.FloatRange(0, 1, min_open=True),
              help="Without --depth: stop spreading once more than this share of the "
                   "repository's tests is reached (default 0.25, as GraphQL and MCP).")
@click.option("--min-score", type=click.FloatRange(0, 1),
              help="Without --depth: do not follow a path scoring below this (edge "
                   "confidences x 0.8 per hop; default 0.01).")
@click.option("--language", help="Only tests of this language (python, go, java, ...).")
@click.option("--format", "fmt", type=click.Choice(["lines", "json"]), default="lines",
              show_default=True, help="lines (runner ids) or json (with reasons and paths).")
@_json_shorthand
def affected_tests(targets: tuple[str, ...], db: str, base: str | None, head: str | None,
                   root: Path | None, repo: str | None, edge_kinds: tuple[str, ...],
                   as_of: datetime | None, no_coverage: bool, never_executed: str,
                   depth: int | None, budget: float | None, min_score: float | None,
                   language: str | None, fmt: str, as_json: bool) -> None:
    """Tests to run for the changes of --base [--head] (or for TARGET...): pytest node ids
    (tests/test_x.py::TestC::test_m), or test files for other languages, one per line, for
    `pytest $(vgdb affected-tests --base origin/main)`. Prints nothing when no test is
    affected (exit 0); notes go to stderr."""
    from queries.impact.affected import affected_tests as find

    fmt = "json" if as_json else fmt
    with opened(db) as store:
        what = _impact_targets(store, targets, base, head, root, repo)
        spread = {k: v for k, v in (("budget", budget), ("min_score", min_score))
                  if v is not None}  # unset: the defaults every interface shares
        result = find(store, what, depth=depth, **spread,
                      edge_kinds=edge_kinds or None, as_of=as_of, repo=repo,
                      coverage=not no_coverage, never_executed=never_executed)
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


@click.command("pytest-plugin")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: path, module.")
def pytest_plugin(as_json: bool) -> None:
    """Print the path of the pytest plugin module (pytest_vgdb.py), to copy into the analysed
    project's environment: `pytest -p pytest_vgdb --vgdb-select origin/main` (docs/ci.md)."""
    from importlib.util import find_spec

    spec = find_spec("pytest_vgdb")  # found, not imported: this environment may lack pytest
    if spec is None or spec.origin is None:
        raise click.ClickException("pytest_vgdb.py is not installed with this vgdb")
    if as_json:
        print_json({"path": spec.origin, "module": "pytest_vgdb"})
        return
    sys.stdout.write(spec.origin + "\n")
