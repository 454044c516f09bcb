"""Recorded coverage into the graph: which test executed which symbols (and lines).

Reads a coverage.py data file (the SQLite ``.coverage``) recorded with per-test contexts::

    pytest --cov=PKG --cov-context=test

through coverage's own :class:`coverage.CoverageData` API, and maps it onto the ingested
graph of one repository:

- a context ``tests/test_x.py::TestA::test_b[param]|run`` (pytest-cov: ``|setup``, ``|run``,
  ``|teardown``) names the test Symbol ``sym:<repo>/tests/test_x.py#TestA.test_b`` and its
  parametrized case ``param``; a test the graph does not hold (generated, inherited from
  another file) falls back to the nearest enclosing definition it does hold (its class, else
  the test module), with the rest of its id as the case (``::test_b[param]``). The
  ``pytest_vgdb`` plugin adds ``tests/test_x.py|collect`` for what a test module ran while
  it was imported, and ``pkg/mod.py|import`` for what importing any other module of the
  project ran (named by that module's symbol ``<module>``);
- an edge's ``cases`` lists the cases (and rests of ids) that executed its target, or is
  empty when every recorded case of the test did (or it has none);
- a measured file (an absolute path) names the File at its path below ``root`` (default: the
  root the repository was ingested from), else the ingested path it ends with;
- an executed line belongs to the innermost symbol whose span holds it; a line outside every
  definition to the file's module symbol (``<module>``), or to the File without one.

Lines run outside every test (the empty context: imports the plugin does not label) are
counted, and the functions they ran are kept in the recording's metadata (they ran, though
no test owns them: selection must not treat them as never executed). The graph's view of a
symbol is only right if the coverage was recorded at the commit the graph holds, so another
commit is refused.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import polars as pl

from graphdb import Store
from graphdb.coverage import CoverageWrite, code_spans, write_coverage
from schema import MODULE_QUALNAME, CoverageDataError, IngestError

__all__ = ["CoverageSummary", "TestContext", "ingest_coverage", "parse_context",
           "read_coverage"]

RECORD_HINT = ("record it with per-test contexts: `pytest --cov=PKG --cov-context=test` "
               "(pytest-cov), or `coverage run --context=...` with dynamic_context = "
               "test_function")
_PHASES = ("collect", "import", "setup", "run", "teardown")
#: phases of code run while a module was imported (the context names a module, not a test)
_MODULE_PHASES = ("collect", "import")


@dataclass(frozen=True, slots=True)
class CoverageSummary:
    """What :func:`ingest_coverage` stored. ``unmapped_files`` are measured files that are
    no file of the repository (reported, the rest is stored); ``unmapped_tests`` contexts
    whose test file is not in the graph; ``approximate_tests`` tests stored against an
    enclosing definition because the graph lacks the test itself."""

    repo: str
    commit: str
    contexts: int
    tests: int
    files: int
    edges: int
    ended: int
    outside_tests_lines: int
    unmapped_files: tuple[str, ...] = ()
    unmapped_tests: tuple[str, ...] = ()
    approximate_tests: int = 0
    seconds: float = 0.0
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CoverageRecording:
    """A coverage file as read: per measured file, ``line -> contexts`` (context names)."""

    path: str
    contexts: frozenset[str]
    lines: dict[str, dict[int, list[str]]]


def read_coverage(path: str | os.PathLike[str]) -> CoverageRecording:
    """Read a coverage.py data file; raise :class:`schema.CoverageDataError` for a missing,
    corrupt or context-less one (saying how to record it)."""
    from coverage import CoverageData
    from coverage.exceptions import CoverageException

    file = Path(path)
    if not file.is_file():
        raise CoverageDataError(f"no coverage data file at {file}", path=str(file),
                                reason="missing", suggestion=RECORD_HINT)
    try:
        with file.open("rb") as handle:
            magic = handle.read(16)
        if magic != b"SQLite format 3\x00":
            raise CoverageDataError(
                f"{file} is not a coverage.py data file (not SQLite)", path=str(file),
                reason="corrupt", suggestion="pass the .coverage file coverage.py wrote "
                "(a JSON or XML report cannot be used); " + RECORD_HINT)
        _check_schema(file)
        data = CoverageData(basename=str(file), no_disk=False)
        data.read()
        contexts = frozenset(data.measured_contexts())
        files = sorted(data.measured_files())
        lines = {f: data.contexts_by_lineno(f) for f in files}
    except (CoverageException, sqlite3.Error, OSError) as exc:
        raise CoverageDataError(f"cannot read coverage data {file}: {exc}", path=str(file),
                                reason="corrupt", suggestion=RECORD_HINT) from exc
    except (UnicodeDecodeError, ValueError, TypeError, OverflowError) as exc:
        # damaged pages coverage.py reads without SQLite noticing: a text column that is
        # not UTF-8, a line-number blob of the wrong type or size
        raise CoverageDataError(f"cannot read coverage data {file}: damaged content "
                                f"({type(exc).__name__}: {exc})", path=str(file),
                                reason="corrupt", suggestion=RECORD_HINT) from exc
    if not files:
        raise CoverageDataError(f"{file} measured no files", path=str(file), reason="no-contexts",
                                suggestion=RECORD_HINT)
    if not contexts - {""}:
        raise CoverageDataError(
            f"{file} has no per-test contexts: it cannot say which test ran which code",
            path=str(file), reason="no-contexts", suggestion=RECORD_HINT)
    if not any("::" in c or c.endswith("|collect") for c in contexts):
        raise CoverageDataError(
            f"{file} has contexts ({', '.join(sorted(contexts - {''})[:3])}, ...) but none "
            "names a pytest test", path=str(file), reason="no-test-contexts",
            suggestion=RECORD_HINT)
    return CoverageRecording(str(file), contexts, lines)


def _check_schema(file: Path) -> None:
    """Refuse an SQLite file that is no coverage.py database before coverage opens it:
    CoverageData would create its tables in it (it writes to a database it does not know)."""
    try:
        with sqlite3.connect(f"{file.resolve().as_uri()}?mode=ro", uri=True) as conn:
            found = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                 "name = 'coverage_schema'").fetchall()
    except sqlite3.Error as exc:
        raise CoverageDataError(f"{file} is not a readable SQLite database: {exc}",
                                path=str(file), reason="corrupt",
                                suggestion=RECORD_HINT) from exc
    if not found:
        raise CoverageDataError(f"{file} is an SQLite database but not a coverage.py data file",
                                path=str(file), reason="corrupt", suggestion=RECORD_HINT)


class TestContext(NamedTuple):
    """A coverage context naming a pytest test (or a module being imported)."""

    path: str
    parts: tuple[str, ...]
    phase: str
    case: str = ""  # the parametrized case: the id inside [...]


def parse_context(context: str) -> TestContext | None:
    """``tests/t.py::A::test_b[x::y]|run`` -> (``tests/t.py``, (``A``, ``test_b``), ``run``,
    ``x::y``); ``tests/t.py|collect`` -> (``tests/t.py``, (), ``collect``, ``""``); None for
    a context that names no test (the empty one, or a static ``--context`` label)."""
    name, sep, phase = context.rpartition("|")
    if not sep or phase not in _PHASES:
        name, phase = context, "run"
    case = ""
    bracket = name.find("[")  # parameters may hold '::'
    if bracket != -1 and name.endswith("]"):
        name, case = name[:bracket], name[bracket + 1:-1]
    elif bracket != -1:
        name = name[:bracket]
    path, _, rest = name.partition("::")
    if not path or (not rest and phase not in _MODULE_PHASES):
        return None
    return TestContext(path, tuple(p for p in rest.split("::") if p), phase, case)


def _ranges(lines: list[int]) -> str:
    """[3, 4, 5, 9] -> '3-5,9' (sorted input)."""
    out: list[str] = []
    start = prev = lines[0]
    for n in lines[1:]:
        if n == prev + 1:
            prev = n
            continue
        out.append(f"{start}-{prev}" if prev != start else str(start))
        start = prev = n
    out.append(f"{start}-{prev}" if prev != start else str(start))
    return ",".join(out)


class _PathMap:
    """Measured absolute paths and test paths -> ingested paths."""

    def __init__(self, paths: list[str], root: str) -> None:
        self.known = set(paths)
        self.root = root.rstrip("/") + "/" if root else ""
        self.by_name: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            self.by_name[p.rpartition("/")[2]].append(p)

    def measured(self, absolute: str) -> str | None:
        norm = absolute.replace(os.sep, "/")
        if self.root and norm.startswith(self.root) and norm[len(self.root):] in self.known:
            return norm[len(self.root):]
        return self.suffix(norm)

    def suffix(self, path: str) -> str | None:
        """The longest ingested path that ``path`` ends with (on a '/' boundary): coverage
        recorded in another checkout (a CI runner) of the same repository."""
        if path in self.known:
            return path
        found = [p for p in self.by_name.get(path.rpartition("/")[2], ())
                 if path.endswith("/" + p) or p.endswith("/" + path)]
        return max(found, key=len) if len(found) >= 1 else None


def ingest_coverage(store: Store, path: str | os.PathLike[str], *, repo: str,
                    commit: str | None = None, root: str | os.PathLike[str] | None = None,
                    now: datetime | None = None) -> CoverageSummary:
    """Store ``path``'s per-test coverage as EXECUTES edges of repository ``repo``.

    Parameters
    ----------
    commit
        The commit the coverage was recorded at (default: HEAD of ``root``). It must be the
        commit the graph of ``repo`` was ingested at: line numbers of another revision map to
        the wrong symbols (:class:`schema.CoverageDataError`, reason ``other-commit``).
    root
        Where the tests ran (measured paths are below it); default: the repository's
        ingested root.

    The previous recording of ``repo`` is ended, not erased. Measured files that are no file
    of ``repo`` are listed in the summary; if none maps, the coverage is from another
    repository (reason ``other-repository``).
    """
    started = time.perf_counter()
    now = now or datetime.now(UTC).replace(tzinfo=None)
    info, files, symbols = code_spans(store, repo)
    if info is None:
        raise IngestError(f"no repository {repo!r} in the graph",
                          suggestion="ingest the tree first (`vgdb ingest PATH --name NAME`)")
    root_dir = str(Path(root).resolve()) if root is not None else (info["root"] or "")
    recording = read_coverage(path)
    commit, valid_from = _commit(root_dir, commit)
    head = info["head"] or ""
    if head and commit and head != commit:
        raise CoverageDataError(
            f"the coverage was recorded at {commit[:12]} but the graph of {repo} holds "
            f"{head[:12]}: its line numbers would name the wrong symbols",
            path=recording.path, reason="other-commit",
            suggestion=f"ingest the tree at {commit[:12]} first (`vgdb ingest`), or pass "
                       "--commit with the commit the tests ran at")
    paths = _PathMap(files["path"].to_list(), root_dir)
    notes: list[str] = []
    by_file = {p: (fid, int(loc or 0)) for fid, p, loc in files.iter_rows()}
    mapped: dict[str, str] = {}
    unmapped: list[str] = []
    for measured in recording.lines:
        rel = paths.measured(measured)
        if rel is None:
            unmapped.append(measured)
        else:
            mapped[measured] = rel
    if not mapped:
        raise CoverageDataError(
            f"none of the {len(unmapped)} measured files is a file of repository {repo} "
            f"(ingested from {info['root']}), e.g. {unmapped[0]}: coverage of another "
            "repository?", path=recording.path, reason="other-repository",
            suggestion="pass --repo with the repository the tests ran in, or --root with the "
                       "directory they ran in")
    tests, approximate, unmapped_tests = _tests(recording.contexts, symbols, paths, repo)
    owners = _owners(symbols)
    # (line, context) pairs are flattened per file and joined in polars: a suite's recording
    # holds millions of them, too many for a Python loop per pair
    frames: list[pl.DataFrame] = []
    past_end: list[str] = []
    unparsed: list[str] = []
    for measured, rel in mapped.items():
        fid, loc = by_file[rel]
        spans = owners.get(fid, [])
        headers = _headers(Path(root_dir, rel) if root_dir else Path(measured), unparsed, rel)
        module = f"sym:{repo}/{rel}#{MODULE_QUALNAME}"
        fallback = module if module in tests.symbols else fid
        by_line = recording.lines[measured]
        if loc and by_line and max(by_line) > loc:
            past_end.append(rel)
        owner = {line: _innermost(spans, line, headers.get(line)) or fallback
                 for line in by_line}
        frames.append(pl.DataFrame({
            "line": [line for line, cs in by_line.items() for _ in cs],
            "context": [c for cs in by_line.values() for c in cs],
            "to": [owner[line] for line, cs in by_line.items() for _ in cs]},
            schema={"line": pl.Int64, "context": pl.Utf8, "to": pl.Utf8}))
    pairs = pl.concat(frames) if frames else pl.DataFrame(
        schema={"line": pl.Int64, "context": pl.Utf8, "to": pl.Utf8})
    outside = pairs.filter(pl.col("context") == "")
    names = pl.DataFrame({"context": list(tests.by_context),
                          "from": [v[0] for v in tests.by_context.values()],
                          "phase": [v[1] for v in tests.by_context.values()],
                          "case": [v[2] for v in tests.by_context.values()]},
                         schema={"context": pl.Utf8, "from": pl.Utf8, "phase": pl.Utf8,
                                 "case": pl.Utf8})
    # a test's number of recorded cases: an edge ran by all of them lists none (a list per
    # edge of every case would hold 100K+ strings per test on a big recording)
    every_case = names.group_by("from").agg(pl.col("case").n_unique().alias("every"))
    grouped = (pairs.join(names, on="context", how="inner")
               .group_by("from", "to")
               .agg(pl.col("line").unique().sort().alias("lines"),
                    pl.col("phase").unique().alias("phases"),
                    pl.col("case").unique().alias("cases"))
               .join(every_case, on="from", how="left")
               .sort("from", "to"))
    if unparsed:
        notes.append(f"{len(unparsed)} measured file(s) could not be parsed again "
                     f"({', '.join(unparsed[:5])}): their def lines (run at import) are "
                     "counted as the function's")
    if past_end:
        notes.append(f"{len(past_end)} file(s) have executed lines past their end in the graph "
                     f"({', '.join(past_end[:5])}): the coverage does not match the ingested "
                     "files; ingest the commit it was recorded at")
    if unmapped:
        notes.append(f"{len(unmapped)} measured file(s) are not files of {repo} and were "
                     f"skipped: {', '.join(unmapped[:5])}{' ...' if len(unmapped) > 5 else ''}")
    if unmapped_tests:
        notes.append(f"{len(unmapped_tests)} test context(s) name test files not in the graph: "
                     f"{', '.join(unmapped_tests[:5])}")
    frame = pl.DataFrame({
        "from": grouped["from"], "to": grouped["to"],
        "lines": [_ranges(v) for v in grouped["lines"].to_list()],
        "count": grouped["lines"].list.len().cast(pl.Int64),
        "phases": [",".join(p for p in _PHASES if p in v) for v in grouped["phases"].to_list()],
        "cases": [_cases(c, e) for c, e in zip(grouped["cases"].to_list(),
                                                grouped["every"].to_list(), strict=True)]},
        schema={"from": pl.Utf8, "to": pl.Utf8, "lines": pl.Utf8, "count": pl.Int64,
                "phases": pl.Utf8, "cases": pl.Utf8})
    is_file = pl.col("to").str.starts_with("file:")
    summary = {"tests": frame.filter(pl.col("phases") != "import")["from"].n_unique(),
               "files": len(mapped),
               "contexts": len(recording.contexts), "source_file": recording.path,
               "import_contexts": sum(p == "import" for _, p, _ in tests.by_context.values())}
    ran_outside = sorted(t for t in outside["to"].unique().to_list()
                         if not t.startswith("file:") and not t.endswith("#" + MODULE_QUALNAME))
    counts = write_coverage(store, CoverageWrite(
        repo=repo, commit=commit, valid_from=valid_from, to_symbols=frame.filter(~is_file),
        to_files=frame.filter(is_file), summary=summary, outside=tuple(ran_outside)),
        now=now)
    return CoverageSummary(
        repo=repo, commit=commit, contexts=len(recording.contexts), tests=summary["tests"],
        files=len(mapped), edges=counts["written"], ended=counts["ended"],
        outside_tests_lines=outside.height, unmapped_files=tuple(unmapped),
        unmapped_tests=tuple(unmapped_tests), approximate_tests=approximate,
        seconds=round(time.perf_counter() - started, 3), notes=tuple(notes))


@dataclass
class _Tests:
    by_context: dict[str, tuple[str, str, str]]  # context -> (test symbol id, phase, case)
    symbols: set[str]


def _cases(ran: list[str], every: int | None) -> str:
    """The cases that ran a target (of the ``every`` recorded cases of its test: parametrized
    ids, or the rest of the id of a test the graph lacks), as a JSON list; '' when all of them
    did (or it is not parametrized: its one context has the case '')."""
    if "" in ran or every is None or len(ran) >= every:
        return ""
    return json.dumps(sorted(ran))


def _tests(contexts: frozenset[str], symbols: pl.DataFrame, paths: _PathMap,
           repo: str) -> tuple[_Tests, int, list[str]]:
    """Each context's test symbol (nearest definition the graph holds) and phase."""
    known = set(symbols["id"].to_list())
    by_context: dict[str, tuple[str, str, str]] = {}
    approximate: set[str] = set()
    unmapped: set[str] = set()
    for ctx in contexts:
        parsed = parse_context(ctx)
        if parsed is None:
            continue
        path, parts, phase, case = parsed
        rel = paths.suffix(path)
        if rel is None:
            unmapped.add(path)
            continue
        prefix = f"sym:{repo}/{rel}#"
        if phase in _MODULE_PHASES:
            parts, case = (), ""
            if prefix + MODULE_QUALNAME not in known:
                continue  # a module without code of its own (an empty __init__.py)
        held = next((k for k in range(len(parts), 0, -1)
                     if prefix + ".".join(parts[:k]) in known), 0)
        sid = prefix + (".".join(parts[:held]) if held else MODULE_QUALNAME)
        if held < len(parts):
            # a test the graph lacks (inherited from a base class in another file, or a
            # class collected again where it is imported): its edges start at the enclosing
            # definition, and the case keeps the rest of its id, so selection names this
            # test and not every test of the class or module
            approximate.add(ctx.rpartition("|")[0] or ctx)
            case = "::" + "::".join(parts[held:]) + (f"[{case}]" if case else "")
        by_context[ctx] = (sid, phase, case)
    return _Tests(by_context, known), len(approximate), sorted(unmapped)


def _owners(symbols: pl.DataFrame) -> dict[str, list[tuple[str, int, int]]]:
    """File id -> spans (id, start, end) of its definitions, outer first."""
    out: dict[str, list[tuple[str, int, int]]] = defaultdict(list)
    for sid, fid, qualname, start, end, _ in symbols.iter_rows():
        if qualname != MODULE_QUALNAME and start is not None and end is not None:
            out[fid].append((sid, int(start), int(end)))
    for spans in out.values():
        spans.sort(key=lambda s: (s[1], -s[2], s[0]))
    return out


def _innermost(spans: list[tuple[str, int, int]], line: int,
               header: int | None = None) -> str | None:
    """Innermost span holding ``line`` (spans sorted by start, outer first), skipping the
    definition starting at ``header`` (``line`` is in its header). Linear: a file has tens of
    definitions and each line is looked up once per file."""
    owner = None
    for sid, start, end in spans:
        if start > line:
            break
        if end >= line and start != header:
            owner = sid
    return owner


def _headers(file: Path, unparsed: list[str], rel: str) -> dict[int, int]:
    """Line -> first line of the function whose header (decorators, ``def``, signature and
    defaults) holds it. Those lines run when the enclosing scope runs (at import, for a
    top-level function), not when the function is called, so they belong to the enclosing
    definition. The graph keeps spans, not where bodies start: the file is parsed again
    with ``ast`` (the standard library's parser suffices for line numbers)."""
    import ast

    try:
        tree = ast.parse(file.read_bytes())
    except (OSError, SyntaxError, ValueError):
        unparsed.append(rel)
        return {}
    out: dict[int, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            for line in range(start, node.body[0].lineno):
                out[line] = start
    return out


def _commit(root: str, commit: str | None) -> tuple[str, datetime]:
    """(commit sha, its commit time) — the given one, else HEAD of ``root``; ('', now) when
    ``root`` is no git repository and no commit was given."""
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        import pygit2

        repository = pygit2.Repository(root)
        obj = repository.revparse_single(commit) if commit else repository[repository.head.target]
        found = obj.peel(pygit2.Commit)
        return str(found.id), datetime.fromtimestamp(found.commit_time, UTC).replace(tzinfo=None)
    except (pygit2.GitError, KeyError, ValueError, TypeError):
        if commit:
            return commit, now
        return "", now
