"""CALLS quality: our Python call resolution against the jedi ground truth.

For each codebase of the ``--data`` files (default: the committed asyncio and email samples,
random and stratified, see benchmarks/data/README.md), every ``.py`` file of the package
directory is extracted and resolved exactly as ingest does (``ingest.extract.extract`` then
``ingest.resolve.resolve``). Each sampled call site is then paired with our answer for the same
call, and graded:

- ``correct``: we emitted a CALLS edge whose target matches the truth (any entry of
  ``truth_all`` when jedi gave several answers);
- ``wrong``: we emitted an edge and the truth is known but different;
- ``unverifiable``: we emitted an edge but jedi found nothing (``truth_kind`` unknown);
- ``no_edge``: we left the call unresolved (reason kept: dynamic, builtin-method, ambiguous...);
- ``unmatched``: no call of ours pairs with the site (an extraction difference).

Matching a target against one truth entry:

- ``sym:<repo>/<path>#<qualname>`` (repo): our ``dst`` must be that id exactly.
- ``builtin:<name>``: our ``dst`` must be ``ext:python:builtins.<name>``. Methods of builtin
  types (``builtin:str.join``) need a type we do not infer: no edge there is a recall miss,
  never a wrong answer.
- ``external:<name>``: any External of ours that is not a builtin counts. jedi names externals
  after where they are *defined* (``_heapq.heappush``, ``_weakrefset.WeakSet``), we after how
  they are *imported* (``heapq.heappush``), so only the kind is compared. How many of those
  also agree on the last name component is reported as ``external_same_name``.

Precision (per method and overall) = correct / (correct + wrong); unverifiable edges are
counted apart. Recall = correct / sites whose truth is known (not ``unknown``), overall, per
truth kind, and for ``repo`` alone (the edges impact analysis walks). Dynamic calls (callee
``''``) and unknown-truth sites stay in the counts.

Two kinds of rows: the random sample (no ``sample`` field, or ``sample: "random"``) and the
stratified one (``sample: "stratified"``), whose sites were picked by *our own* resolution
method to give every method enough edges (``calls_groundtruth --stratify-per-method``). The
truth of both comes from jedi alone. Precision per method and the outcome counts are over the
union of both (a site in both counts once). Recall is over the random sample only: a sample
chosen by our labels over-represents what we resolve, so recall over it would be biased.

Pairing: a site is (path, call_line, callee) plus its rank among the calls with that key
(several calls on one line may share a callee). ``call_line`` is the line of the call
expression, which is our CallRow.line (the callee's first line). ``super().m()`` is ``''`` in
the truth files and ``super().m`` in ours (a method of what any call returns likewise:
``a.make().sign``); the pairing translates. The enclosing scope is
compared but not part of the key: a call in a decorator or a default value is in the
*enclosing* scope for jedi (Python evaluates it there) and in the definition's for us; such
sites are counted as ``scope_mismatch`` and graded on their target.

    .venv/bin/python benchmarks/calls_quality.py [--data FILE.jsonl ...] [--out results.json]
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import sysconfig
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.calls_groundtruth import _name_token, index_module, read_source
from ingest.extract import extract
from ingest.extract.python import IMPLICIT_DUNDERS, VALUE_PREFIX
from ingest.extract.rows import FileExtract
from ingest.resolve import resolve
from ingest.resolve.python_calls import OVERRIDE_CONFIDENCE, PROPERTY_READ
from schema import CALLS, MODULE_QUALNAME, symbol_id

__all__ = ["Answer", "Site", "evaluate", "main", "our_answers", "pair_answers", "summarize",
           "union_rows"]

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = [HERE / "data" / f"calls_{kind}_{repo}.jsonl"
                for repo in ("asyncio", "email") for kind in ("sample", "strata")]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
BUILTIN_PREFIX = "ext:python:builtins."
EXTERNAL_PREFIX = "ext:python:"
TRUTH_KINDS = ("repo", "builtin", "external")
_SKIP_DIRS = {"__pycache__"}
_SUFFIX = re.compile(r"~\d+$")  # the ordinal of a repeated qualname (``f~2``)


@dataclass(slots=True)
class Answer:
    """Our result for one call site: an edge (``method``, ``dst``) or unresolved (``reason``)."""

    path: str
    scope: str  # '<module>' at module level, like the truth files
    callee: str
    line: int
    method: str = ""
    dst: str = ""
    reason: str = ""


@dataclass(slots=True)
class Site:
    """One graded call site."""

    repo: str
    path: str
    call_line: int
    callee: str
    scope: str
    truth_kind: str
    truth: str
    truth_all: list[str]
    outcome: str  # correct | wrong | unverifiable | no_edge | unmatched
    method: str = ""  # ours, '' without an edge
    dst: str = ""
    reason: str = ""  # why we left it unresolved
    our_scope: str = ""
    external_same_name: bool = False
    sample: str = "random"  # or 'stratified' (picked by our own label, see the docstring)
    stratum: str = ""  # our label when a stratified site was drawn
    extra: dict[str, Any] = field(default_factory=dict)


# ------------------------------------------------------------------------ our side


def python_files(root: Path) -> list[str]:
    """Root-relative '/'-separated paths of every ``.py`` file, without ``__pycache__``."""
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.py")
                  if p.is_file() and not _SKIP_DIRS & set(p.relative_to(root).parts[:-1]))


def our_answers(root: Path, repo: str, *,
                nested: bool = False) -> dict[tuple[str, int, str], list[Answer]]:
    """Extract and resolve every ``.py`` file under ``root`` as repository ``repo``; answers
    keyed by (path, line, callee), each list in source order.

    ``nested`` resolves the files as ``<root name>/<path>`` (a repository holding the package
    directory, the usual layout, where ``from email import errors`` is in-tree) and maps the
    ids back to root-relative paths, so they compare with the truth files either way.

    The resolver appends, file by file and call by call, either one CALLS edge or one
    unresolved entry per call row, so both lists are walked in step with the call rows; the
    walk checks that every edge and every unresolved entry is used exactly once. A call to a
    name defined several times in one scope is followed by edges to the other definitions
    (``f~2``, same line), and by the targets a subclass may put there instead (an override,
    a class attribute it rebinds: ``inheritance`` edges of confidence
    ``OVERRIDE_CONFIDENCE``): they are skipped, the first one is graded. pytest fixture edges
    (resolution ``fixture``) and getters called by reading a property (``name``
    ``property``: no ``(...)`` shows them) belong to no call site and are left out, and so
    are the ``candidate`` edges of test code (the call stays unresolved).
    """
    prefix = f"{root.name}/" if nested else ""
    files = {prefix + rel: _explicit(extract("python", (root / rel).read_bytes(), prefix + rel))
             for rel in python_files(root)}
    result = resolve(repo, files)
    in_tree = f"sym:{repo}/{prefix}"
    edges = [e for e in result.edges if e.rel == CALLS.name and e.resolution != "fixture"
             and e.name != PROPERTY_READ and e.resolution != "candidate"]
    unresolved = result.unresolved
    ei = ui = 0
    answers: dict[tuple[str, int, str], list[Answer]] = defaultdict(list)
    for path in sorted(files):
        for call in files[path].calls:
            scope = call.scope or MODULE_QUALNAME
            answer = Answer(path.removeprefix(prefix), scope, call.callee, call.line)
            if ui < len(unresolved) and unresolved[ui] == (path, call.scope, call.callee,
                                                          call.line, unresolved[ui][4]):
                answer.reason = unresolved[ui][4]
                ui += 1
            elif (ei < len(edges) and edges[ei].src == symbol_id(repo, path, scope)
                  and edges[ei].line == call.line):
                answer.method, answer.dst = edges[ei].resolution, edges[ei].dst
                first = edges[ei]
                ei += 1
                while (ei < len(edges) and edges[ei].src == first.src
                       and edges[ei].line == first.line and edges[ei].dst != first.dst
                       and (_SUFFIX.sub("", edges[ei].dst) == _SUFFIX.sub("", first.dst)
                            or (_last(edges[ei].dst) == _last(first.dst)
                                and (call.callee.startswith("super(") or "." not in call.callee
                                     or edges[ei].resolution == "inheritance")
                                and edges[ei].dst.startswith("sym:"))
                            or (edges[ei].resolution == "inheritance"  # another subclass's
                                and edges[ei].confidence == OVERRIDE_CONFIDENCE))):
                    ei += 1  # another definition of the same name (see above)
                if prefix and answer.dst.startswith(in_tree):
                    answer.dst = f"sym:{repo}/" + answer.dst.removeprefix(in_tree)
            else:
                answer.reason = "no-output"
            answers[(answer.path, call.line, call.callee)].append(answer)
    if ei != len(edges) or ui != len(unresolved):
        raise RuntimeError(f"pairing calls with resolver output failed: {ei}/{len(edges)} "
                           f"edges, {ui}/{len(unresolved)} unresolved used")
    return answers


def _last(dst: str) -> str:
    """The name a target is defined under: ``sym:r/p.py#C.m~2`` -> ``m`` (the other
    definitions of a name, ``super().m`` on every base, a conditional import beside a def,
    the overrides of a method called through an instance)."""
    return _SUFFIX.sub("", dst.rsplit("#", 1)[-1].rsplit(".", 1)[-1])


def _explicit(fx: FileExtract) -> FileExtract:
    """The extract without the calls the syntax makes implicitly (``with``, ``for``,
    ``x[k]``, operators) and the functions used as values: jedi's sites are explicit calls,
    and those rows may produce no output at all, which the pairing walk cannot tell."""
    calls = [c for c in fx.calls if not c.callee.startswith(VALUE_PREFIX)
             and c.callee.rsplit(".", 1)[-1] not in IMPLICIT_DUNDERS]
    return replace(fx, calls=calls)


# ------------------------------------------------------------------------ truth side


def _super_callee(func: ast.expr) -> str:
    """Our extractor's text for a method of what a call returns: ``super().m``,
    ``a.make().sign`` (``a.make(x).sign(y)``), else ''."""
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call)):
        return ""
    inner = _dotted(func.value.func) or _super_callee(func.value.func)
    return f"{inner}().{func.attr}" if inner else ""


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else ""
    return ""


def _site_keys(code: str, path: str) -> dict[tuple[int, int, str], tuple[int, str, int]]:
    """For every ast call of a file, (line, col, callee) of the truth row -> (call_line,
    our-style callee, rank among the calls of the file with that call_line and callee).

    The callee is part of the key because a call of a call (``type(self)(...)``) has no name
    token and sits at the position of its inner callee's."""
    sites = index_module(path, code).calls
    supers: dict[tuple[int, int], str] = {}
    lines = code.splitlines()
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        tree = None
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and (text := _super_callee(node.func)):
            token = _name_token(node.func, lines)
            if token is not None:
                supers[token] = text
    groups: dict[tuple[int, str], list[tuple[int, int, str]]] = defaultdict(list)
    for s in sites:
        callee = s.callee or (supers.get((s.line, s.col), "") if s.has_name else "")
        groups[(s.call_line, callee)].append((s.line, s.col, s.callee))
    keys: dict[tuple[int, int, str], tuple[int, str, int]] = {}
    for (call_line, callee), positions in groups.items():
        for rank, pos in enumerate(sorted(positions)):
            keys.setdefault(pos, (call_line, callee, rank))
    return keys


# ------------------------------------------------------------------------ grading


def matches(dst: str, truth: str) -> bool:
    """Does our edge target ``dst`` agree with one truth entry (see the module docstring)?"""
    if truth.startswith("sym:"):
        return dst == truth
    if truth.startswith("builtin:"):
        return dst == BUILTIN_PREFIX + truth.removeprefix("builtin:")
    if truth.startswith("external:"):
        return dst.startswith(EXTERNAL_PREFIX) and not dst.startswith(BUILTIN_PREFIX)
    return False


def _last(name: str) -> str:
    return name.rsplit(".", 1)[-1].rsplit("#", 1)[-1].rsplit(":", 1)[-1]


def grade(row: dict[str, Any], answer: Answer | None) -> Site:
    truth_all = list(row.get("truth_all") or [row["truth"]])
    site = Site(repo=row["repo"], path=row["path"], call_line=row["call_line"],
                callee=row["callee"], scope=row["scope"], truth_kind=row["truth_kind"],
                truth=row["truth"], truth_all=truth_all, outcome="unmatched",
                sample=row.get("sample", "random"), stratum=row.get("stratum", ""))
    if answer is None:
        return site
    site.our_scope, site.method, site.dst, site.reason = (answer.scope, answer.method,
                                                          answer.dst, answer.reason)
    if not answer.dst:
        site.outcome = "no_edge"
    elif row["truth_kind"] == "unknown":
        site.outcome = "unverifiable"
    elif any(matches(answer.dst, t) for t in truth_all):
        site.outcome = "correct"
        site.external_same_name = matches(answer.dst, "external:") and any(
            t.startswith("external:") and _last(t) == _last(answer.dst) for t in truth_all)
    else:
        site.outcome = "wrong"
    return site


def pair_answers(rows: Iterable[dict[str, Any]], root: Path,
                 answers: dict[tuple[str, int, str], list[Answer]]) -> list[Answer | None]:
    """Our answer for each truth-style row (``path``, ``line``, ``col``, ``callee``), or None
    when no call of ours pairs with it."""
    keys_of: dict[str, dict[tuple[int, int, str], tuple[int, str, int]]] = {}
    paired: list[Answer | None] = []
    for row in rows:
        path = row["path"]
        if path not in keys_of:
            file = root / path
            keys_of[path] = _site_keys(read_source(file), path) if file.is_file() else {}
        key = keys_of[path].get((row["line"], row["col"], row["callee"]))
        answer = None
        if key is not None:
            call_line, callee, rank = key
            group = answers.get((path, call_line, callee), [])
            answer = group[rank] if rank < len(group) else None
        paired.append(answer)
    return paired


def evaluate(rows: Iterable[dict[str, Any]], root: Path, repo: str, *,
             nested: bool = False) -> list[Site]:
    """Grade the truth ``rows`` of one codebase against our resolution of ``root``."""
    rows = list(rows)
    answers = our_answers(root, repo, nested=nested)
    return [grade(row, answer) for row, answer in zip(rows, pair_answers(rows, root, answers),
                                                      strict=True)]


# ------------------------------------------------------------------------ figures


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def summarize(sites: list[Site]) -> dict[str, Any]:
    """Every figure of one codebase (or several together) as plain data. Everything is over
    all ``sites`` (random and stratified) except recall, which is over the random ones."""
    by_method: dict[str, Counter[str]] = defaultdict(Counter)
    for s in sites:
        if s.dst:
            by_method[s.method][s.outcome] += 1
    methods = {}
    for m in sorted(by_method):
        c = by_method[m]
        methods[m] = {"n": sum(c.values()), "correct": c["correct"], "wrong": c["wrong"],
                      "unverifiable": c["unverifiable"],
                      "precision": _ratio(c["correct"], c["correct"] + c["wrong"])}
    total = Counter(s.outcome for s in sites)
    random_sites = [s for s in sites if s.sample == "random"]
    known = [s for s in random_sites if s.truth_kind != "unknown"]
    recall = {"overall": {"correct": sum(s.outcome == "correct" for s in known),
                          "known": len(known)}}
    for kind in TRUTH_KINDS:
        of_kind = [s for s in known if s.truth_kind == kind]
        recall[kind] = {"correct": sum(s.outcome == "correct" for s in of_kind),
                        "known": len(of_kind)}
    for figures in recall.values():
        figures["recall"] = _ratio(figures["correct"], figures["known"])
    no_edge = Counter((s.reason, s.truth_kind) for s in sites if s.outcome == "no_edge")
    return {
        "sites": len(sites),
        "samples": {"random": len(random_sites), "stratified": len(sites) - len(random_sites)},
        "truth_kinds": dict(sorted(Counter(s.truth_kind for s in sites).items())),
        "outcomes": {k: total[k] for k in
                     ("correct", "wrong", "unverifiable", "no_edge", "unmatched")},
        "dynamic_sites": sum(s.callee == "" for s in sites),
        "unknown_truth_sites": sum(s.truth_kind == "unknown" for s in sites),
        "scope_mismatch": sum(bool(s.our_scope) and s.our_scope != s.scope for s in sites),
        "external_same_name": sum(s.external_same_name for s in sites),
        "methods": methods,
        "edges": {"n": sum(m["n"] for m in methods.values()),
                  "correct": total["correct"], "wrong": total["wrong"],
                  "unverifiable": total["unverifiable"],
                  "precision": _ratio(total["correct"], total["correct"] + total["wrong"])},
        "recall": recall,
        "no_edge": [{"reason": r, "truth_kind": k, "n": n}
                    for (r, k), n in sorted(no_edge.items())],
        "wrong": [_brief(s) for s in sites if s.outcome == "wrong"],
        "unmatched": [_brief(s) for s in sites if s.outcome == "unmatched"],
        "missed_repo": [_brief(s) for s in sites
                        if s.truth_kind == "repo" and s.outcome != "correct"],
    }


def _brief(s: Site) -> dict[str, Any]:
    return {"site": f"{s.repo}/{s.path}:{s.call_line}", "scope": s.scope, "callee": s.callee,
            "method": s.method, "ours": s.dst or f"(unresolved: {s.reason})",
            "truth": s.truth, "truth_all": s.truth_all}


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def render(title: str, fig: dict[str, Any], *, misses: bool = False) -> str:
    n_random, n_strata = fig["samples"]["random"], fig["samples"]["stratified"]
    out = [f"== {title}: {fig['sites']} sampled call sites ({n_random} random + {n_strata} "
           f"stratified)  truth kinds "
           + ", ".join(f"{k} {n}" for k, n in fig["truth_kinds"].items())]
    o = fig["outcomes"]
    out.append(f"   outcomes: correct {o['correct']}, wrong {o['wrong']}, unverifiable "
               f"{o['unverifiable']}, no edge {o['no_edge']}, unmatched {o['unmatched']}; "
               f"dynamic (callee '') {fig['dynamic_sites']}, unknown truth "
               f"{fig['unknown_truth_sites']}, scope mismatch {fig['scope_mismatch']}")
    out.append("   n per method (and the counts above) = the union of the random and stratified "
               "samples, each site once" if n_strata else
               "   n per method = edges in the random sample")
    out.append(f"   {'method':<14}{'n':>5}{'correct':>9}{'wrong':>7}{'unverif.':>10}"
               f"{'precision':>11}")
    for m, f in [*fig["methods"].items(), ("ALL EDGES", fig["edges"])]:
        out.append(f"   {m:<14}{f['n']:>5}{f['correct']:>9}{f['wrong']:>7}"
                   f"{f['unverifiable']:>10}{_pct(f['precision']):>11}")
    out.append(f"   recall (correct / sites with known truth), over the {n_random} random sites "
               "only" + (": the stratified sites were picked by our own labels, so recall "
                         "over them would be biased" if n_strata else "") + ":")
    for kind, f in fig["recall"].items():
        out.append(f"     {kind:<10}{f['correct']:>5} / {f['known']:<5}{_pct(f['recall']):>8}")
    out.append(f"   correct External edges that also end in jedi's last name: "
               f"{fig['external_same_name']}")
    out.append("   no edge (our reason, truth kind: n): " + ", ".join(
        f"{e['reason']}/{e['truth_kind']}: {e['n']}" for e in fig["no_edge"]))
    for label, items in (("wrong", fig["wrong"]), ("unmatched", fig["unmatched"]),
                         *((("missed repo", fig["missed_repo"]),) if misses else ())):
        if items:
            out.append(f"   {label} ({len(items)}):")
            for w in items:
                alts = "" if len(w["truth_all"]) < 2 else f" (all: {', '.join(w['truth_all'])})"
                out.append(f"     {w['site']} {w['callee'] or repr('')} [{w['method'] or '-'}]"
                           f" ours={w['ours']} truth={w['truth']}{alts}")
    return "\n".join(out)


def load_rows(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def row_key(row: dict[str, Any]) -> tuple[str, str, int, int, str]:
    """What identifies a call site across sample files."""
    return row["repo"], row["path"], row["line"], row["col"], row["callee"]


def union_rows(files: Iterable[Path]) -> tuple[dict[str, list[dict[str, Any]]],
                                               dict[str, list[str]]]:
    """Rows of every file grouped by codebase, each site once (a random row wins over a
    stratified one for the same site), and the files each codebase came from."""
    by_repo: dict[str, dict[tuple[str, str, int, int, str], dict[str, Any]]] = defaultdict(dict)
    sources: dict[str, list[str]] = defaultdict(list)
    for data in files:
        for row in load_rows(data):
            seen = by_repo[row["repo"]]
            key = row_key(row)
            if key not in seen or (seen[key].get("sample", "random") != "random"
                                   and row.get("sample", "random") == "random"):
                seen[key] = row
            if str(data) not in sources[row["repo"]]:
                sources[row["repo"]].append(str(data))
    return {repo: list(rows.values()) for repo, rows in by_repo.items()}, dict(sources)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, action="append",
                    help="ground-truth JSONL (repeatable; default: asyncio and email, random "
                         "samples and strata)")
    ap.add_argument("--stdlib", type=Path, default=STDLIB,
                    help="directory holding each codebase as <dir>/<repo> (default: %(default)s)")
    ap.add_argument("--out", type=Path, help="write every figure and site as JSON")
    ap.add_argument("--nested", action="store_true",
                    help="resolve each package as <repo>/<path> inside the repository (the "
                         "usual layout) instead of as the repository root")
    ap.add_argument("--misses", action="store_true", help="also list missed repo-truth sites")
    args = ap.parse_args(argv)
    all_sites: list[Site] = []
    report: dict[str, Any] = {"layout": "nested" if args.nested else "package as root",
                              "codebases": {}}
    print(f"layout: {report['layout']}\n")
    by_repo, sources = union_rows(args.data or DEFAULT_DATA)
    for repo, repo_rows in by_repo.items():
        sites = evaluate(repo_rows, args.stdlib / repo, repo, nested=args.nested)
        all_sites.extend(sites)
        fig = summarize(sites)
        report["codebases"][repo] = {"data": sources[repo], **fig}
        print(render(repo, fig, misses=args.misses), end="\n\n")
    combined = summarize(all_sites)
    report["combined"] = combined
    print(render("combined", {**combined, "wrong": [], "unmatched": [], "missed_repo": []}))
    if args.out:
        report["sites"] = [asdict(s) for s in all_sites]
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
