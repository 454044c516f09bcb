"""Ground truth for Python call resolution, independent of our resolver: jedi's goto-definition.

Enumerates every ``ast.Call`` of a source tree, samples N of them with a fixed seed and asks
jedi where each callee is defined. Each answer becomes one JSONL row whose ``truth`` is
``sym:<repo>/<path>#<qualname>`` (in-tree), ``builtin:<name>``, ``external:<full_name>`` or
``unknown``. See benchmarks/data/README.md for the mapping rules.

Stratified mode (``--stratify-per-method N``) picks the call sites differently, and only that:
our own resolver (``ingest.extract`` + ``ingest.resolve``, the package dir as the repository
root, as ``calls_quality.py`` does by default) labels every call site with its resolution
method or ``unresolved:<reason>``; for each method with fewer than N sites in the samples given
by ``--exclude-sample``, more sites with that label (and not in those samples) are drawn at
random until N, or all there are. ``--unresolved M`` draws M sites we leave unresolved on top.
The truth of each drawn site is jedi's, exactly as for the random sample; each row also gets
``sample: "stratified"`` and ``stratum`` (our label when it was drawn).

Usage::

    python -m benchmarks.calls_groundtruth ROOT REPO --n 250 --seed 0 --out FILE.jsonl
    python -m benchmarks.calls_groundtruth ROOT REPO --stratify-per-method 30 --unresolved 30 \
        --exclude-sample SAMPLE.jsonl --seed 0 --out STRATA.jsonl
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import random
import signal
import sys
import sysconfig
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import jedi
from jedi.inference.gradual import conversion, typeshed

__all__ = [
    "METHODS", "CallSite", "ModuleIndex", "enumerate_calls", "ground_truth", "index_module",
    "label_calls", "main", "make_project", "sample_calls", "site_key", "stratified_ground_truth",
    "stratified_sample", "truth_for",
]

MODULE_QUALNAME = "<module>"  # same as schema.ids.MODULE_QUALNAME (kept standalone on purpose)
#: Our resolution methods (schema.Resolution), the strata of the stratified mode.
METHODS = ("import", "self", "inheritance", "same_module", "local", "constructor", "builtin",
           "external", "name_only")
UNRESOLVED = "unresolved"  # labels 'unresolved:<reason>'
_SKIP_DIRS = {"__pycache__", "node_modules"}


@dataclass(slots=True)
class CallSite:
    """One ``ast.Call``. ``line``/``col`` locate the callee's last name token (1-based line,
    0-based character column, what jedi expects); ``has_name`` is False when there is none."""

    path: str
    line: int
    col: int
    call_line: int
    scope: str
    callee: str
    has_name: bool = True


@dataclass(slots=True)
class ModuleIndex:
    """Qualnames of one file: ``defs`` maps (line of the def/class, name) to the qualname with
    repeat ordinals (``f~2``); ``spans`` lists (first line, last line, qualname, is a class)
    of each def; ``calls`` the call sites in source order."""

    defs: dict[tuple[int, str], str] = field(default_factory=dict)
    spans: list[tuple[int, int, str, bool]] = field(default_factory=list)
    calls: list[CallSite] = field(default_factory=list)


# ---------------------------------------------------------------- enumeration (ast only)


def iter_python_files(root: Path) -> list[str]:
    """Root-relative '/'-separated paths of the tree's ``.py`` files, sorted."""
    found = []
    for p in root.rglob("*.py"):
        rel = p.relative_to(root)
        if any(part in _SKIP_DIRS or part.startswith(".") for part in rel.parts[:-1]):
            continue
        found.append(rel.as_posix())
    return sorted(found)


def dotted_callee(func: ast.expr) -> str:
    """``a.b.c`` for a Name/Attribute chain of Names, else '' (a dynamic callee)."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        base = dotted_callee(func.value)
        return f"{base}.{func.attr}" if base else ""
    return ""


def _char_col(lines: list[str], line: int, byte_col: int) -> int:
    """ast columns are UTF-8 byte offsets; jedi wants character offsets."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _name_token(func: ast.expr, lines: list[str]) -> tuple[int, int] | None:
    """(line, char col) of the callee's last name token, or None when it has no name."""
    if isinstance(func, ast.Name):
        return func.lineno, _char_col(lines, func.lineno, func.col_offset)
    if isinstance(func, ast.Attribute) and func.end_lineno is not None:
        end = _char_col(lines, func.end_lineno, func.end_col_offset or 0)
        return func.end_lineno, end - len(func.attr)
    return None


class _Indexer(ast.NodeVisitor):
    """Walks one module in source order, naming definitions and collecting call sites."""

    def __init__(self, path: str, lines: list[str]) -> None:
        self.path, self.lines = path, lines
        self.index = ModuleIndex()
        self.stack: list[str] = []
        self.seen: dict[str, int] = {}

    def _qualname(self, name: str) -> str:
        base = f"{self.stack[-1]}.{name}" if self.stack else name
        n = self.seen[base] = self.seen.get(base, 0) + 1
        return base if n == 1 else f"{base}~{n}"

    def _visit_def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        outer = [c for c in ast.iter_child_nodes(node)
                 if c not in node.body and c not in node.decorator_list]
        for child in [*node.decorator_list, *outer]:  # decorators, defaults, bases: outer scope
            self.visit(child)
        qual = self._qualname(node.name)
        self.index.defs[(node.lineno, node.name)] = qual
        end = node.end_lineno or node.lineno
        self.index.spans.append((node.lineno, end, qual, isinstance(node, ast.ClassDef)))
        self.stack.append(qual)
        for stmt in node.body:
            self.visit(stmt)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _visit_def

    def visit_Call(self, node: ast.Call) -> None:
        token = _name_token(node.func, self.lines)
        line, col = token or (node.lineno, _char_col(self.lines, node.lineno, node.col_offset))
        self.index.calls.append(CallSite(
            path=self.path, line=line, col=col, call_line=node.lineno,
            scope=self.stack[-1] if self.stack else MODULE_QUALNAME,
            callee=dotted_callee(node.func), has_name=token is not None,
        ))
        self.generic_visit(node)


def index_module(path: str, code: str) -> ModuleIndex:
    """Definitions and call sites of one module (empty index on a syntax error)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return ModuleIndex()
    indexer = _Indexer(path, code.splitlines())
    indexer.visit(tree)
    return indexer.index


def read_source(file: Path) -> str:
    return file.read_text(encoding="utf-8", errors="replace")


def enumerate_calls(root: Path) -> list[CallSite]:
    """Every call site of the tree, in (path, source) order."""
    calls: list[CallSite] = []
    for rel in iter_python_files(root):
        calls.extend(index_module(rel, read_source(root / rel)).calls)
    return calls


def sample_calls(calls: list[CallSite], n: int, seed: int) -> list[CallSite]:
    """``n`` call sites drawn with ``random.Random(seed)``, returned in enumeration order."""
    picked = random.Random(seed).sample(range(len(calls)), min(n, len(calls)))
    return [calls[i] for i in sorted(picked)]


# ---------------------------------------------------------------- stratified selection


SiteKey = tuple[str, int, int, str]


def site_key(site: CallSite | dict[str, Any]) -> SiteKey:
    """(path, line, col, callee): one call site, in a CallSite or a JSONL row. The callee is
    needed because a call of a call (``f()()``) sits at the position of its inner callee."""
    if isinstance(site, CallSite):
        return site.path, site.line, site.col, site.callee
    return site["path"], site["line"], site["col"], site["callee"]


def label_calls(root: Path, repo: str, calls: list[CallSite]) -> list[str]:
    """Our resolver's label of each call site: the method of its CALLS edge, else
    ``unresolved:<reason>`` (``unmatched`` when no call of ours pairs with the site).

    Resolves the tree as ``calls_quality.py`` does in its default layout (``root`` is the
    repository root), and pairs calls the same way. Used for selection only, never as truth.
    """
    from benchmarks.calls_quality import our_answers, pair_answers  # needs ingest: lazy

    answers = our_answers(root, repo)
    rows = [{"path": c.path, "line": c.line, "col": c.col, "callee": c.callee} for c in calls]
    return ["unmatched" if a is None else a.method if a.dst else f"{UNRESOLVED}:{a.reason}"
            for a in pair_answers(rows, root, answers)]


def stratified_sample(calls: list[CallSite], labels: list[str], per_method: int, seed: int,
                      exclude: Iterable[SiteKey] = (), unresolved: int = 0,
                      methods: Iterable[str] = METHODS) -> list[tuple[CallSite, str]]:
    """(site, stratum) pairs to add to the samples whose sites are ``exclude``.

    For each method, ``per_method`` minus the excluded sites labelled with it are drawn among
    the other sites with that label; then ``unresolved`` sites labelled ``unresolved:*`` (on
    top of any already sampled). Each stratum has its own generator, seeded with
    ``f"{seed}:{stratum}"``, so one stratum's pool does not shift another's draw. The pairs come
    back in enumeration order; the stratum is the site's label.
    """
    excluded = set(exclude)
    have = Counter(label for site, label in zip(calls, labels, strict=True)
                   if site_key(site) in excluded)
    free = [i for i, site in enumerate(calls) if site_key(site) not in excluded]
    picked: set[int] = set()
    quotas = [(m, per_method - have[m], lambda label, m=m: label == m) for m in methods]
    quotas.append((UNRESOLVED, unresolved, lambda label: label.startswith(f"{UNRESOLVED}:")))
    for stratum, need, fits in quotas:
        pool = [i for i in free if fits(labels[i]) and i not in picked]
        if need > 0 and pool:
            picked.update(random.Random(f"{seed}:{stratum}").sample(pool, min(need, len(pool))))
    return [(calls[i], labels[i]) for i in sorted(picked)]


# ---------------------------------------------------------------- jedi side


def base_sys_path() -> list[str]:
    """The interpreter's stdlib and site-packages only: no cwd, no PYTHONPATH (determinism)."""
    paths = sysconfig.get_paths()
    keys = ("stdlib", "platstdlib", "purelib", "platlib")
    found = [paths[k] for k in keys if k in paths]
    found += [p for p in sys.path if p.endswith("lib-dynload")]
    return list(dict.fromkeys(found))


def make_project(root: Path, extra_sys_path: list[str] | None = None) -> jedi.Project:
    """A jedi project for ``root``. The root itself is never put on sys.path (a package dir
    holding ``subprocess.py`` would shadow the stdlib); if it is a package, its parent is."""
    added = [str(root.parent if (root / "__init__.py").is_file() else root)]
    added += extra_sys_path or []
    return jedi.Project(root, sys_path=base_sys_path(), added_sys_path=added,
                        smart_sys_path=False)


def tree_top_names(root: Path) -> set[str]:
    """Top-level import names the tree provides: its own name if it is a package, else its
    top-level modules and packages."""
    if (root / "__init__.py").is_file():
        return {root.name}
    return {p.stem for p in root.iterdir()
            if (p.suffix == ".py" and p.is_file()) or (p / "__init__.py").is_file()}


@contextlib.contextmanager
def no_stubs_for(names: set[str]) -> Iterator[None]:
    """Stop jedi from swapping the tree's own modules for typeshed stubs.

    jedi bundles typeshed, which covers e.g. ``asyncio``; left alone, a stdlib package analysed
    as a repository is seen through its stubs (no private members, stub paths). A real
    repository has no such stubs, so they are disabled for the tree's top-level names.
    """
    original = typeshed.try_to_load_stub_cached

    def patched(inference_state: Any, import_names: Any, *args: Any, **kwargs: Any) -> Any:
        if import_names and import_names[0] in names:
            return None
        return original(inference_state, import_names, *args, **kwargs)

    typeshed.try_to_load_stub_cached = conversion.try_to_load_stub_cached = patched
    try:
        yield
    finally:
        typeshed.try_to_load_stub_cached = conversion.try_to_load_stub_cached = original


class _Timeout(Exception):
    pass


def _on_alarm(signum: int, frame: object) -> None:
    raise _Timeout


def _with_timeout(seconds: float, fn: Any, *args: Any) -> Any:
    """Run ``fn(*args)``, raising _Timeout after ``seconds`` (SIGALRM; main thread only)."""
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class _Resolver:
    """Maps jedi names of one tree to truth strings, caching per-file indexes."""

    def __init__(self, root: Path, repo: str) -> None:
        self.root, self.repo = root.resolve(), repo
        self.tops = tree_top_names(self.root)
        self.is_package = (self.root / "__init__.py").is_file()
        self.indexes: dict[str, ModuleIndex] = {}

    def index(self, rel: str) -> ModuleIndex:
        if rel not in self.indexes:
            file = self.root / rel
            self.indexes[rel] = index_module(rel, read_source(file)) if file.is_file() \
                else ModuleIndex()
        return self.indexes[rel]

    def rel_path(self, name: Any) -> str | None:
        """Root-relative path of the name's module when it is a ``.py`` file inside the tree."""
        if name.module_path is None:
            return None
        path = Path(name.module_path).resolve()
        if path.suffix != ".py" or not path.is_relative_to(self.root):
            return None
        return path.relative_to(self.root).as_posix()

    def stub_target(self, name: Any) -> tuple[str, str] | None:
        """(rel path, qualname) in the tree for a typeshed-stub answer about the tree's own
        modules (``asyncio.events.X`` -> ``events.py``, ``X``), when that definition exists."""
        module, full = name.module_name or "", name.full_name or ""
        parts = module.split(".")
        if parts[0] not in self.tops or not str(name.module_path or "").endswith(".pyi"):
            return None
        parts = parts[1:] if self.is_package else parts
        qual = full.removeprefix(f"{module}.") if full != module else MODULE_QUALNAME
        for rel in (("/".join(parts) + ".py") if parts else "", "/".join([*parts, "__init__.py"])):
            if rel and (self.root / rel).is_file() and (
                    qual == MODULE_QUALNAME or qual in self.index(rel).defs.values()):
                return rel, qual
        return None

    def qualname(self, rel: str, name: Any) -> str | None:
        """Qualname of an in-tree target: the def/class at jedi's line, '<module>' for a
        module, a module- or class-level variable's dotted name, else None (a local)."""
        if name.type == "module":
            return MODULE_QUALNAME
        idx = self.index(rel)
        if (name.line, name.name) in idx.defs:
            return idx.defs[(name.line, name.name)]
        inner = [s for s in idx.spans if s[0] <= (name.line or 0) <= s[1]]
        if not inner:
            return name.name
        _, _, scope, is_class = max(inner, key=lambda s: s[0])
        return f"{scope}.{name.name}" if is_class else None

    def truth(self, name: Any) -> tuple[str, str]:
        """(truth_kind, truth) for one jedi name; a local variable or parameter is unknown."""
        rel = self.rel_path(name)
        qual = self.qualname(rel, name) if rel is not None else None
        if rel is None and (target := self.stub_target(name)) is not None:
            rel, qual = target
        if rel is not None:
            return ("repo", f"sym:{self.repo}/{rel}#{qual}") if qual else ("unknown", "unknown")
        full = name.full_name or name.name
        if name.module_name == "builtins" or full.startswith("builtins."):
            return "builtin", f"builtin:{full.removeprefix('builtins.')}"
        return "external", f"external:{full}"


_CALLABLE_TYPES = {"function", "class", "module"}


def _ask(script: jedi.Script, site: CallSite, infer: bool) -> list[Any]:
    if infer:
        return [n for n in script.infer(site.line, site.col) if n.type in _CALLABLE_TYPES]
    return script.goto(site.line, site.col, follow_imports=True)


def _query(site: CallSite, resolver: _Resolver, project: jedi.Project, timeout: float, *,
           stubs: bool, infer: bool = False) -> list[Any]:
    """One jedi question, on a fresh Script (no state shared between call sites)."""
    file = resolver.root / site.path
    script = jedi.Script(read_source(file), path=file, project=project,
                         environment=jedi.InterpreterEnvironment())
    guard = contextlib.nullcontext() if stubs else no_stubs_for(resolver.tops)
    with guard:
        return _with_timeout(timeout, _ask, script, site, infer)


def _resolve(site: CallSite, resolver: _Resolver, project: jedi.Project,
             timeout: float) -> tuple[list[Any], str, list[Any]]:
    """(names, how, goto names): goto on the source; if silent, goto through typeshed stubs;
    an in-tree variable is followed with infer to the function/class it holds."""
    via, stubs = "goto", False
    names = _query(site, resolver, project, timeout, stubs=False)
    if not names:
        via, stubs = "goto+stubs", True
        names = _query(site, resolver, project, timeout, stubs=True)
    gotos = names
    if names and names[0].type == "statement" and resolver.rel_path(names[0]) is not None:
        held = _query(site, resolver, project, timeout, stubs=stubs, infer=True)
        if held:
            names, via = held, f"{via}+infer"
    return names, via, gotos


def truth_for(site: CallSite, resolver: _Resolver, project: jedi.Project,
              timeout: float) -> dict[str, Any]:
    """The JSONL row of one call site."""
    row: dict[str, Any] = {"repo": resolver.repo, **asdict(site)}
    row.pop("has_name")
    row.update(truth_kind="unknown", truth="unknown", jedi_full_name="", jedi_type="")
    if not site.has_name:
        row["note"] = "no name token (call of a call, subscript, lambda...)"
        return row
    try:
        names, via, gotos = _resolve(site, resolver, project, timeout)
    except _Timeout:
        row["jedi_error"] = f"timeout after {timeout}s"
        return row
    except Exception as exc:  # jedi internals: record and move on
        row["jedi_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return row
    if names:
        row["jedi_via"] = via
    if gotos is not names:
        row["jedi_goto"] = min(resolver.truth(n)[1] for n in gotos)
    return _fill(row, names, resolver)


_KIND_RANK = {"repo": 0, "builtin": 1, "external": 2, "unknown": 3}


def _rank(item: tuple[tuple[str, str], Any]) -> tuple[int, str]:
    """jedi returns several answers in set order: rank in-tree first, then by text."""
    (kind, truth), _ = item
    return _KIND_RANK[kind], truth


def _fill(row: dict[str, Any], names: list[Any], resolver: _Resolver) -> dict[str, Any]:
    """Set truth fields from jedi's answers (best-ranked wins; all kept when several)."""
    if not names:
        return row
    ranked = sorted(((resolver.truth(n), n) for n in names), key=_rank)
    (row["truth_kind"], row["truth"]), first = ranked[0]
    row["jedi_full_name"] = first.full_name or ""
    row["jedi_type"] = first.type
    if first.type in {"param", "statement"} and row["truth_kind"] == "unknown":
        row["note"] = f"jedi stops at a local {first.type}"
    distinct = list(dict.fromkeys(t for (_, t), _ in ranked))
    if len(distinct) > 1:
        row["truth_all"] = distinct
    return row


def ground_truth(root: Path, repo: str, n: int, seed: int, timeout: float = 120.0,
                 extra_sys_path: list[str] | None = None) -> Iterator[dict[str, Any]]:
    """Rows for ``n`` sampled call sites of ``root``."""
    root = root.resolve()
    project = make_project(root, extra_sys_path)
    resolver = _Resolver(root, repo)
    for site in sample_calls(enumerate_calls(root), n, seed):
        yield truth_for(site, resolver, project, timeout)


def stratified_ground_truth(root: Path, repo: str, per_method: int, seed: int,
                            exclude: Iterable[SiteKey] = (), unresolved: int = 0,
                            timeout: float = 120.0, extra_sys_path: list[str] | None = None,
                            ) -> Iterator[dict[str, Any]]:
    """Rows for the call sites ``stratified_sample`` draws (labels by our resolver, truth by
    jedi as in ``ground_truth``), each with ``sample`` and ``stratum``."""
    root = root.resolve()
    calls = enumerate_calls(root)
    picked = stratified_sample(calls, label_calls(root, repo, calls), per_method, seed,
                               exclude, unresolved)
    project = make_project(root, extra_sys_path)
    resolver = _Resolver(root, repo)
    for site, stratum in picked:
        yield {**truth_for(site, resolver, project, timeout), "sample": "stratified",
               "stratum": stratum}


def _sampled_keys(files: list[Path], repo: str) -> set[SiteKey]:
    keys = set()
    for file in files:
        with file.open(encoding="utf-8") as fh:
            keys.update(site_key(row) for line in fh if line.strip()
                        if (row := json.loads(line))["repo"] == repo)
    return keys


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="source tree (directory of Python files)")
    ap.add_argument("repo", help="repository name used in symbol ids")
    ap.add_argument("--n", type=int, default=250, help="call sites to sample")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per call site")
    ap.add_argument("--sys-path", action="append", default=[], help="extra import root")
    ap.add_argument("--out", type=Path, help="JSONL output (default: stdout)")
    ap.add_argument("--stratify-per-method", type=int, metavar="N",
                    help="stratified mode: top every resolution method of ours up to N sites "
                         "(counting the --exclude-sample rows); --n is then unused")
    ap.add_argument("--exclude-sample", type=Path, nargs="+", default=[], metavar="FILE",
                    help="stratified mode: JSONL samples whose sites are not drawn again")
    ap.add_argument("--unresolved", type=int, default=0, metavar="M",
                    help="stratified mode: also draw M sites our resolver leaves unresolved")
    args = ap.parse_args(argv)
    if args.stratify_per_method is not None:
        rows = stratified_ground_truth(
            args.root, args.repo, args.stratify_per_method, args.seed,
            _sampled_keys(args.exclude_sample, args.repo), args.unresolved, args.timeout,
            args.sys_path)
    else:
        rows = ground_truth(args.root, args.repo, args.n, args.seed, args.timeout,
                            args.sys_path)
    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        for row in rows:
            out.write(json.dumps(row, sort_keys=True, ensure_ascii=False) + "\n")
    finally:
        if args.out:
            out.close()
    return 0


def _pin_hash_seed() -> None:
    """jedi iterates sets of names, so its answers can depend on str hashing: re-run the
    interpreter with PYTHONHASHSEED=0 unless it already is."""
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        os.execve(sys.executable, [sys.executable, "-m", "benchmarks.calls_groundtruth",
                                   *sys.argv[1:]], env)


if __name__ == "__main__":
    _pin_hash_seed()
    raise SystemExit(main())
