"""Reference extraction quality: ``find_references`` against a hand-verified sample.

The sample (``benchmarks/data/references_sample.jsonl``) lists every reference in a fixed set
of files, written down by reading the files (docstrings, comments, string literals), before the
extractor was run over them. It has two sets. ``dev`` (94 rows) was read first and the
extractor was then written and tuned with those files in view, so its figures are optimistic.
``heldout`` (55 rows) was read and written down after the extractor was finished and graded
with one run before any change: its first-run figures are the honest estimate (both are in
benchmarks/RESULTS.md, "Reference extraction quality"). ``dev`` files (the rule): every
non-test module of
``networkx/algorithms/community/`` and ``networkx/algorithms/link_analysis/`` (networkx 3.6.1),
``leidenalg/{VertexPartition,functions,Optimiser}.py`` (leidenalg 0.12.0),
``igraph/community.py`` (python-igraph 1.0.0, epydoc-style ``B{Reference}:`` docstrings), and
from the standard library (CPython 3.11) ``base64.py``, ``uuid.py`` and ``hmac.py`` for RFC
mentions. ``heldout`` files: the non-test modules of ``networkx/algorithms/centrality/`` in
alphabetical order from ``__init__.py`` to ``katz.py`` (14 files). A row is ``{"root":
"site-packages"|"stdlib", "file", "line", "scheme", "value", "note", "set"}``; files
without any reference (``community/__init__.py``, ``centrality.py``,
``community_utils.py``, ``link_analysis/__init__.py``) have no rows but are still scanned, so
anything found there is a false positive.

What the sample counts as a reference is what ``ingest/academic/references.py`` documents: each
entry of a References section once (line = where the entry starts; scheme = its best
identifier, DOI > arXiv > RFC > URL, else ``citation``), every RFC mention in prose (not the
identifier ``RFC_4122``), identifiers in prose, links to papers/standards, and explicit inline
citations (author + title/year: "as described in M. E. J. Newman: ... (2004)"). Name-only
mentions ("the method of Raghavan et al.") and links to project docs or Wikipedia outside a
References section are not references.

Matching: a found reference is correct when a sample row has the same (file, line, scheme) and,
for every scheme but ``citation``, the same value (citation texts are free text: the line and
scheme identify them). Precision = correct / found; recall = correct / sample rows, overall and
per scheme (per scheme of the *found* reference for precision, of the *sample* row for recall).
Kind, title and year are not graded.

    .venv/bin/python benchmarks/references_quality.py [--set dev|heldout] [--out results.json]
    .venv/bin/python benchmarks/references_quality.py --speed   # throughput on the stdlib

Libraries (issue 22): ``benchmarks/data/references_libraries.jsonl`` is a hand-read sample of
the References sections and prose of scipy 1.17.1 (``scipy/stats/``: ``_survival``,
``_resampling``, ``_entropy``, ``contingency``, ``_sensitivity_analysis``, ``_fit``) and
scikit-learn 1.9.1 (``metrics/cluster/_supervised``, ``cluster/_spectral``,
``covariance/_robust_covariance``, ``feature_selection/_mutual_info``, ``manifold/_mds``) —
the parser was written with those in view —, and two held-out sets of statsmodels 0.15.0 read
after it (``heldout-1``: ``stats/rates``, ``stats/proportion``, ``stats/contingency_tables``;
``heldout-2``: ``stats/diagnostic``, ``robust/covariance``), each graded once before fixes
(first runs in benchmarks/RESULTS.md). Each row also holds the title, year and type of work
(paper, book, web, ...) as read by a person. The files are read straight from the libraries'
wheels (scipy and scikit-learn at the versions pinned in ``constraints.txt``; none of the
three is installed by ``make install``)::

    .venv/bin/pip download --no-deps scipy==1.17.1 scikit-learn==1.9.1 statsmodels==0.15.0 \
        -d /tmp/wheels
    .venv/bin/python benchmarks/references_quality.py --wheels /tmp/wheels

Two figures per library (per set for statsmodels): *located* (the same matching as above)
and *full* (located, and the title — compared case-, space- and punctuation-insensitively —,
the year and the type all right). Precision and recall of *full* are the ones the
acceptance (>= 0.95 / >= 0.9) is on.

Held-out docstrings (issue 22, third round on): ``--docstrings WHEELS`` grades samples of
docstrings drawn at random (seeded) from numpy, sympy and astropy (rounds heldout-3 to -9),
scikit-image (heldout-10), biopython (heldout-11), matplotlib and networkx (heldout-12),
scikit-rf and pandas (-13), pingouin and librosa (-14), lifelines and POT (-15), arch and
nltk (-16), mpmath and tslearn (-17), each read by hand before the extractor ran on it; see
``benchmarks/references_docstrings.py`` (``--round heldout-N`` grades one round).

``--speed`` runs ``find_references`` over every ``.py`` file of the standard library (as text
already in memory, best of 3) next to a baseline measured in the same run: splitting the same
texts into lines (``str.splitlines``), the least any line-oriented scanner does.
"""

from __future__ import annotations

import argparse
import json
import re
import site
import sys
import sysconfig
import time
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ingest.academic.references import SCHEMES, find_references

__all__ = ["FILES", "HELDOUT_FILES", "SETS", "evaluate", "key_of", "load_sample", "main", "roots",
           "same_work"]

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "data" / "references_sample.jsonl"
LIBRARY_DATA = HERE / "data" / "references_libraries.jsonl"
#: library -> the wheel's file name prefix (distribution name as wheels spell it)
WHEELS = {"scipy": "scipy-1.17.1-", "scikit-learn": "scikit_learn-1.9.1-",
          "statsmodels": "statsmodels-0.15.0-"}

_NC = "networkx/algorithms/community/"
_LA = "networkx/algorithms/link_analysis/"
_CE = "networkx/algorithms/centrality/"
#: The fixed file lists (root, path) each set of the sample covers.
HELDOUT_FILES: list[tuple[str, str]] = [("site-packages", _CE + name) for name in (
    "__init__.py", "betweenness.py", "betweenness_subset.py", "closeness.py",
    "current_flow_betweenness.py", "current_flow_betweenness_subset.py",
    "current_flow_closeness.py", "degree_alg.py", "dispersion.py", "eigenvector.py",
    "flow_matrix.py", "group.py", "harmonic.py", "katz.py")]
FILES: list[tuple[str, str]] = [
    *[("site-packages", _NC + name) for name in (
        "__init__.py", "asyn_fluid.py", "bipartitions.py", "centrality.py",
        "community_utils.py", "divisive.py", "kclique.py", "label_propagation.py", "leiden.py",
        "local.py", "louvain.py", "lukes.py", "modularity_max.py", "quality.py")],
    *[("site-packages", _LA + name) for name in ("__init__.py", "hits_alg.py",
                                                  "pagerank_alg.py")],
    *[("site-packages", "leidenalg/" + name) for name in (
        "VertexPartition.py", "functions.py", "Optimiser.py")],
    ("site-packages", "igraph/community.py"),
    *[("stdlib", name) for name in ("base64.py", "uuid.py", "hmac.py")],
]


SETS = {"dev": FILES, "heldout": HELDOUT_FILES}


def roots() -> dict[str, Path]:
    """Where ``site-packages`` and ``stdlib`` are in this environment."""
    return {"site-packages": Path(site.getsitepackages()[0]),
            "stdlib": Path(sysconfig.get_paths()["stdlib"])}


def load_sample(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    for row in rows:
        if row["scheme"] not in SCHEMES:
            raise ValueError(f"unknown scheme {row['scheme']!r} in {row}")
    return rows


def key_of(file: str, line: int, scheme: str, value: str) -> tuple[str, int, str, str]:
    return (file, line, scheme, "" if scheme == "citation" else value)


def evaluate(sample: list[dict[str, Any]], files: list[tuple[str, str]],
             where: dict[str, Path]) -> dict[str, Any]:
    """Run the extractor over ``files`` and grade it against the sample rows of those files."""
    names = {f"{root}:{path}" for root, path in files}
    truth = Counter(key_of(f"{r['root']}:{r['file']}", r["line"], r["scheme"], r["value"])
                    for r in sample if f"{r['root']}:{r['file']}" in names)
    found: list[tuple[str, int, str, str]] = []
    for root, path in files:
        text = (where[root] / path).read_text(encoding="utf-8")
        found.extend(key_of(f"{root}:{path}", ref.line, ref.scheme, ref.value)
                     for ref in find_references(text, path=path))
    remaining = Counter(truth)
    correct: list[tuple[str, int, str, str]] = []
    wrong: list[tuple[str, int, str, str]] = []
    for key in found:
        if remaining[key] > 0:
            remaining[key] -= 1
            correct.append(key)
        else:
            wrong.append(key)
    missed = sorted(remaining.elements())

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    per_scheme = {}
    for scheme in SCHEMES:
        n_true = sum(n for k, n in truth.items() if k[2] == scheme)
        n_found = sum(1 for k in found if k[2] == scheme)
        n_ok = sum(1 for k in correct if k[2] == scheme)
        per_scheme[scheme] = {"sample": n_true, "found": n_found, "correct": n_ok,
                              "precision": ratio(n_ok, n_found),
                              "recall": ratio(n_ok, n_true)}
    return {
        "files": len(files), "sample": sum(truth.values()), "found": len(found),
        "correct": len(correct), "precision": ratio(len(correct), len(found)),
        "recall": ratio(len(correct), sum(truth.values())), "schemes": per_scheme,
        "false_positives": [list(k) for k in wrong], "misses": [list(k) for k in missed],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--set", choices=["all", *SETS], default="all",
                        help="which files to grade (default: both sets, and each apart)")
    parser.add_argument("--files", type=int, default=None,
                        help="only the first N files of each set (a quick check)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--wheels", type=Path, default=None,
                        help="grade the library sample, reading the files from the wheels "
                             "in this directory")
    parser.add_argument("--docstrings", type=Path, default=None, metavar="WHEELS",
                        help="grade the held-out docstring samples of numpy, sympy and "
                             "astropy (benchmarks/references_docstrings.py), wheels in WHEELS")
    parser.add_argument("--round", default=None,
                        help="with --docstrings: only this drawn round (heldout-3, ...)")
    parser.add_argument("--speed", action="store_true",
                        help="measure throughput on the standard library instead")
    args = parser.parse_args(argv)
    if args.speed:
        return _speed()
    if args.docstrings:
        from benchmarks.references_docstrings import evaluate as evaluate_docstrings

        report = {}
        for group, figures in evaluate_docstrings(args.docstrings, args.round).items():
            print(f"== {group} (drawn docstrings)")
            report[group] = _print_library(figures)
        if args.out:
            args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return 0
    if args.wheels:
        report = {}
        for library, figures in evaluate_libraries(load_sample(LIBRARY_DATA),
                                                    args.wheels).items():
            print(f"== {library}")
            report[library] = _print_library(figures)
        if args.out:
            args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        return 0
    sample, where = load_sample(args.data), roots()
    chosen = list(SETS) if args.set == "all" else [args.set]
    report = {}
    for name in [*chosen, "all"] if len(chosen) > 1 else chosen:
        files = [f for s in (chosen if name == "all" else [name])
                 for f in SETS[s][:args.files or None]]
        print(f"== {name}")
        report[name] = _print(evaluate(sample, files, where))
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


def wheel_texts(wheels: Path, library: str, files: set[str]) -> dict[str, str]:
    """The text of ``files`` (paths inside the wheel) from ``library``'s wheel in ``wheels``."""
    matches = sorted(wheels.glob(WHEELS[library] + "*.whl"))
    if not matches:
        raise SystemExit(f"no {WHEELS[library]}*.whl in {wheels}: see the module docstring")
    with zipfile.ZipFile(matches[0]) as wheel:
        return {name: wheel.read(name).decode("utf-8") for name in sorted(files)}


def norm_title(title: str | None) -> str:
    """Titles compare without case, spacing or punctuation differences."""
    return re.sub(r"[\W_]+", " ", title or "").strip().casefold()


def grade(truth: dict[tuple, dict[str, Any]], found: list[tuple[tuple, Any]]) -> dict[str, Any]:
    """Found references against the hand-read rows (by key): located (the right reference at
    the right line) and full (title, year and type right too) precision and recall, and what
    went wrong. Shared with benchmarks/references_docstrings.py."""
    located = [(key, ref) for key, ref in found if key in truth]
    full = [(key, ref) for key, ref in located if same_work(truth[key], ref)]
    seen = {key for key, _ref in found}

    def ratio(a: int, b: int) -> float | None:
        return round(a / b, 4) if b else None

    return {
        "sample": len(truth), "found": len(found),
        "located": {"correct": len(located), "precision": ratio(len(located), len(found)),
                    "recall": ratio(len(located), len(truth))},
        "full": {"correct": len(full), "precision": ratio(len(full), len(found)),
                 "recall": ratio(len(full), len(truth))},
        "false_positives": [[*key[:3], ref.value[:80]] for key, ref in found
                            if key not in truth],
        "misses": [[*key[:3], truth[key]["title"]] for key in truth if key not in seen],
        "wrong_details": [
            [*key[:2], f"title {ref.title!r} year {ref.year} type {ref.work}",
             f"want {truth[key]['title']!r} {truth[key]['year']} {truth[key]['type']}"]
            for key, ref in located if not same_work(truth[key], ref)],
    }


def evaluate_libraries(sample: list[dict[str, Any]], wheels: Path) -> dict[str, Any]:
    """Per library: located and full (title, year, type too) precision and recall."""
    out: dict[str, Any] = {}
    for group in dict.fromkeys(_group(row) for row in sample):
        rows = [row for row in sample if _group(row) == group]
        library = rows[0]["library"]
        texts = wheel_texts(wheels, library, {row["file"] for row in rows})
        truth = {key_of(r["file"], r["line"], r["scheme"], r["value"]): r for r in rows}
        if len(truth) != len(rows):
            raise ValueError(f"{library}: two sample rows with the same key")
        found = [ref for file, text in texts.items()
                 for ref in _tagged(file, find_references(text, path=file))]
        out[group] = {"files": len(texts), **grade(truth, found)}
    return out


def _group(row: dict[str, Any]) -> str:
    """A library, or a library's set (``statsmodels heldout-1``) when the rows name one."""
    return f"{row['library']} {row['set']}" if row.get("set") else row["library"]


def _tagged(file: str, refs: list[Any]) -> list[tuple[tuple[str, int, str, str], Any]]:
    return [(key_of(file, ref.line, ref.scheme, ref.value), ref) for ref in refs]


def same_work(row: dict[str, Any], ref: Any) -> bool:
    return (norm_title(row["title"]) == norm_title(ref.title) and row["year"] == ref.year
            and row["type"] == ref.work)


def _print_library(fig: dict[str, Any]) -> dict[str, Any]:
    print(f"files {fig['files']}  sample {fig['sample']}  found {fig['found']}")
    for name in ("located", "full"):
        f = fig[name]
        print(f"{name:<8} correct {f['correct']:>4}  precision {f['precision']}  "
              f"recall {f['recall']}")
    for label in ("false_positives", "misses", "wrong_details"):
        for item in fig[label]:
            print(f"{label.rstrip('s').replace('_', ' ')}: {' | '.join(map(str, item))}")
    return fig


def _speed(repeat: int = 3) -> int:
    root = roots()["stdlib"]
    texts = [(str(p.relative_to(root)), p.read_text(encoding="utf-8", errors="replace"))
             for p in sorted(root.rglob("*.py")) if "site-packages" not in p.parts]
    size = sum(len(t.encode()) for _, t in texts) / 1e6

    def best(fn: Any) -> tuple[float, list[float]]:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            runs.append(time.perf_counter() - start)
        return min(runs), runs

    base, base_runs = best(lambda: [t.splitlines() for _, t in texts])
    found: list[int] = []
    ours, our_runs = best(lambda: found.append(
        sum(len(find_references(t, path=p)) for p, t in texts)))
    print(f"{len(texts)} files, {size:.1f} MB, {found[-1]} references")
    print(f"baseline splitlines: {base:.2f} s (runs {[round(r, 2) for r in base_runs]})")
    print(f"find_references:     {ours:.2f} s (runs {[round(r, 2) for r in our_runs]}), "
          f"{size / ours:.1f} MB/s, {ours / base:.1f}x the baseline")
    return 0


def _print(fig: dict[str, Any]) -> dict[str, Any]:
    print(f"files {fig['files']}  sample {fig['sample']}  found {fig['found']}  "
          f"correct {fig['correct']}  precision {fig['precision']}  recall {fig['recall']}")
    print(f"{'scheme':<10}{'sample':>8}{'found':>8}{'correct':>9}{'precision':>11}{'recall':>8}")
    for scheme, s in fig["schemes"].items():
        print(f"{scheme:<10}{s['sample']:>8}{s['found']:>8}{s['correct']:>9}"
              f"{s['precision']!s:>11}{s['recall']!s:>8}")
    for label, keys in (("false positive", fig["false_positives"]), ("missed", fig["misses"])):
        for file, line, scheme, value in keys:
            print(f"{label}: {file}:{line} {scheme} {value}")
    return fig


if __name__ == "__main__":
    raise SystemExit(main())
