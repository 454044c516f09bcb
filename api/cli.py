"""``vgdb``: the command line, a thin layer over ``ingest`` and ``queries``.

Each command parses its options, calls one Python function and formats the result; ``main``
is the one place where errors become messages and exit codes:

0 success · 1 error · 2 bad input or query · 3 database locked · 4 conflict · 5 disk full ·
70 internal error

A read-only query command (``api.resident.SERVABLE``) run from a shell is answered by the
``vgdb serve`` holding the same database when one runs (:mod:`api.resident`): the same
output, without paying for the imports and the database's open in every process; so is
``vgdb ingest`` by a ``vgdb serve --writable`` (``api.resident.SERVED_WRITES``).

The commands live in their own modules (``api/*_cli.py``) and are imported only when one
runs (:class:`api.group.LazyGroup`, click's documented lazy-loading pattern), so
``vgdb --version`` and ``vgdb --help`` import click and this module only; a command the
running server answers does not even import click. A new command is one line of
``COMMANDS``: its name, ``module:attribute``, and the summary ``vgdb --help`` lists.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from api.process import PROCESS

__all__ = ["COMMANDS", "main", "run"]  # and, lazily, cli and LazyGroup (api.group)

#: name -> (module:attribute, the one line ``vgdb --help`` lists)
COMMANDS: dict[str, tuple[str, str]] = {
    "affected-tests": ("api.impact_cli:affected_tests", "Tests to run for a change set."),
    "backup": ("api.operate_cli:backup", "Copy the database consistently."),
    "briefing": ("api.briefing_cli:briefing", "What to know before changing TARGETs."),
    "check": ("api.storage_cli:check", "Verify the database without changing it."),
    "citations": ("api.papers_cli:citations", "Papers within DEPTH citation hops of PAPER."),
    "communities": ("api.graph_cli:communities", "Module boundaries of REPO (Leiden)."),
    "config": ("api.config_cli:config", "Show the effective settings for a repository."),
    "cypher": ("api.graph_cli:cypher", "Run a read-only Cypher QUERY and print the rows."),
    "decisions-based-on": ("api.papers_cli:decisions_based_on", "Decisions based on PAPER."),
    "embed": ("api.load_cli:embed", "Embed new or changed texts, update the indexes."),
    "export": ("api.operate_cli:export", "Write every table as Parquet into DIRECTORY."),
    "extract-shards": ("api.ingest_cli:extract_shards",
                       "Parse a tree into a Parquet shard, without a database."),
    "hooks": ("api.hooks_cli:hooks", "Git hooks that update the graph after commits."),
    "impact": ("api.impact_cli:impact", "What depends on TARGET... or on a change set."),
    "import": ("api.operate_cli:import_", "Load an export (DIRECTORY) into an empty --db."),
    "ingest": ("api.ingest_cli:ingest", "Ingest the code and git history of a tree."),
    "ingest-batch": ("api.ingest_cli:ingest_batch",
                     "Ingest every repository of a MANIFEST into one graph."),
    "ingest-coverage": ("api.load_cli:ingest_coverage",
                        "Store which test executed which symbols (coverage.py)."),
    "ingest-papers": ("api.load_cli:ingest_papers", "Load bibliographic FILES."),
    "ingest-session": ("api.load_cli:ingest_session", "Load session logs (JSON lines)."),
    "load-shards": ("api.ingest_cli:load_shards", "Load a shard into the graph."),
    "mcp": ("api.serve_cli:mcp", "Serve the graph to an agent harness over MCP (stdio)."),
    "migrate": ("api.storage_cli:migrate", "Move a vgdb 0.1 (Kuzu) database to LadybugDB."),
    "overview": ("api.graph_cli:overview", "Summarize REPO (or list the repositories)."),
    "paper-code": ("api.papers_cli:paper_code", "Code, commits and entries referencing PAPER."),
    "provenance": ("api.graph_cli:provenance", "Where NODE came from."),
    "pytest-plugin": ("api.impact_cli:pytest_plugin", "Print the path of the pytest plugin."),
    "redact": ("api.redact_cli:redact_command", "Redact a node's text (secrets, mistakes)."),
    "referenced-papers": ("api.papers_cli:referenced_papers", "Papers NODE references."),
    "remove": ("api.operate_cli:remove", "Remove repository REPO from the graph."),
    "repair": ("api.storage_cli:repair", "Replay the log, rebuild what disagrees, check."),
    "restore": ("api.operate_cli:restore", "Restore a backup into --db."),
    "review": ("api.review_cli:review_command", "Review a change: ranked symbols, risks, tests."),
    "search": ("api.graph_cli:search", "Hybrid search over code, history and papers."),
    "serve": ("api.serve_cli:serve", "Serve the graph over GraphQL and MCP (HTTP)."),
    "status": ("api.operate_cli:status", "How current the graph is."),
    "supersession": ("api.graph_cli:supersession", "The SUPERSEDES chain of NODE."),
    "token": ("api.serve_cli:token", "API tokens of a database: create, list, revoke."),
    "watch": ("api.watch_cli:watch", "Update the graph as files are saved."),
}


def run() -> None:
    """The ``vgdb`` console script: :func:`main`, owning the process; a read-only query
    command goes to the ``vgdb serve`` holding its database when one runs
    (:mod:`api.resident`: the same output)."""
    PROCESS.start()  # no garbage collection while it imports (PROCESS.imported resumes it)
    if sys.argv[1:2] == ["ingest"]:  # a repeated no-op answered from its record
        from api.ingest_noop import answer_unchanged

        unchanged = answer_unchanged(sys.argv[2:])
        if unchanged is not None:
            sys.exit(unchanged)
    from api.resident import run_served

    served = run_served(sys.argv[1:])  # None: no server answers for the database
    if served is not None:
        sys.exit(served)
    main()


def __getattr__(name: str) -> Any:
    """``cli`` (the click group) and ``LazyGroup``, from :mod:`api.group` when first asked
    for: importing click is left to the commands that run here (PEP 562)."""
    if name in ("cli", "LazyGroup"):
        from api import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> None:
    """Run a command; turn errors into a message and an exit code."""
    import click

    from api.group import cli

    args = sys.argv[1:] if argv is None else list(argv)
    try:
        cli.main(args=args, prog_name="vgdb", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Abort:
        _error_console().print("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        _error_console().print("interrupted")
        sys.exit(130)
    except Exception as exc:
        sys.exit(_present(exc))


def _error_console() -> Any:
    from api.output import err_console

    return err_console


def _present(exc: Exception) -> int:
    """The message and exit code of an error a command raised (imported only on an error:
    the error tree's module imports polars)."""
    from rich.markup import escape

    from graphdb import is_disk_full
    from schema import DiskFullError, VgdbError

    err_console = _error_console()
    if isinstance(exc, VgdbError):
        err_console.print(f"[bold red]error:[/bold red] {escape(exc.message)}")
        if exc.suggestion:
            err_console.print(f"[dim]hint:[/dim] {escape(exc.suggestion)}")
        return exc.exit_code
    if is_disk_full(exc):  # ENOSPC from a file of ours (indexes, manifests, shards)
        full = DiskFullError(getattr(exc, "filename", None) or "the database's device",
                             committed=None)
        err_console.print(f"[bold red]error:[/bold red] {escape(full.message)}")
        err_console.print(f"[dim]hint:[/dim] {escape(full.suggestion)}")
        return full.exit_code
    if os.environ.get("VGDB_DEBUG"):
        raise exc
    err_console.print(f"[bold red]internal error:[/bold red] {type(exc).__name__}: "
                      f"{escape(str(exc))}")
    err_console.print("[dim]hint:[/dim] set VGDB_DEBUG=1 for a traceback, and report it")
    return 70


if __name__ == "__main__":
    run()
