"""The CALLS quality metrics, on a tiny real package with a hand-written truth file."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from benchmarks.calls_quality import evaluate, main, our_answers, summarize

FILES = {
    "__init__.py": "",
    "util.py": """\
        def helper(x):
            return len(x)


        class Writer:
            def write(self, text):
                return text
        """,
    "core.py": """\
        from .util import Writer, helper


        def run(items, out, fns, n=helper([])):
            helper(items)
            out.write("x")
            n = len(items)
            fns.write(n)
            fns[0]()
            items.append(1)
            return helper(helper(n))


        class Sub(Writer):
            def save(self, text):
                return super().write(text)
        """,
}


def _row(line: int, col: int, scope: str, callee: str, kind: str, truth: str,
         **extra: object) -> dict[str, object]:
    return {"repo": "pkg", "path": "core.py", "line": line, "col": col, "call_line": line,
            "scope": scope, "callee": callee, "truth_kind": kind, "truth": truth,
            "jedi_full_name": "", "jedi_type": "", **extra}


#: What an independent resolver says (written by hand, as jedi would put it).
TRUTH = [
    # a default value: jedi's scope is the enclosing one, ours the def's
    _row(4, 27, "<module>", "helper", "repo", "sym:pkg/util.py#helper"),
    _row(5, 4, "run", "helper", "repo", "sym:pkg/util.py#helper"),
    # the caller passes a StringIO: our unique-name guess (Writer.write) is wrong
    _row(6, 8, "run", "out.write", "external", "external:io.StringIO.write"),
    _row(7, 8, "run", "len", "builtin", "builtin:len"),
    # jedi cannot tell: our name-only edge is unverifiable
    _row(8, 8, "run", "fns.write", "unknown", "unknown"),
    _row(9, 4, "run", "", "unknown", "unknown", note="no name token"),
    # a method of a builtin type: no edge of ours, a miss in recall but not wrong
    _row(10, 10, "run", "items.append", "builtin", "builtin:list.append"),
    # the inner of two calls of the same name on one line; several answers, any counts
    _row(11, 18, "run", "helper", "repo", "sym:pkg/util.py#helper",
         truth_all=["sym:pkg/util.py#helper", "external:other.helper"]),
    # super().write() has callee '' in the truth files and super().write in ours
    _row(16, 23, "Sub.save", "", "repo", "sym:pkg/util.py#Writer.write"),
]


def write_package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_pairing_keeps_every_call(tmp_path: Path) -> None:
    answers = our_answers(write_package(tmp_path), "pkg")
    same_line = answers[("core.py", 11, "helper")]
    assert len(same_line) == 2
    assert {a.dst for a in same_line} == {"sym:pkg/util.py#helper"}
    (dynamic,) = answers[("core.py", 9, "")]
    assert (dynamic.dst, dynamic.reason) == ("", "dynamic")
    (sup,) = answers[("core.py", 16, "super().write")]
    assert (sup.method, sup.dst) == ("inheritance", "sym:pkg/util.py#Writer.write")


def test_grades_and_counts(tmp_path: Path) -> None:
    sites = evaluate(TRUTH, write_package(tmp_path), "pkg")
    assert [(s.call_line, s.outcome, s.method) for s in sites] == [
        (4, "correct", "import"),
        (5, "correct", "import"),
        (6, "wrong", "name_only"),
        (7, "correct", "builtin"),
        (8, "unverifiable", "name_only"),
        (9, "no_edge", ""),
        (10, "no_edge", ""),
        (11, "correct", "import"),
        (16, "correct", "inheritance"),
    ]
    fig = summarize(sites)
    assert fig["methods"] == {
        "builtin": {"n": 1, "correct": 1, "wrong": 0, "unverifiable": 0, "precision": 1.0},
        "import": {"n": 3, "correct": 3, "wrong": 0, "unverifiable": 0, "precision": 1.0},
        "inheritance": {"n": 1, "correct": 1, "wrong": 0, "unverifiable": 0,
                        "precision": 1.0},
        "name_only": {"n": 2, "correct": 0, "wrong": 1, "unverifiable": 1, "precision": 0.0},
    }
    assert fig["edges"] == {"n": 7, "correct": 5, "wrong": 1, "unverifiable": 1,
                            "precision": round(5 / 6, 4)}
    assert fig["outcomes"] == {"correct": 5, "wrong": 1, "unverifiable": 1, "no_edge": 2,
                               "unmatched": 0}
    assert fig["recall"] == {
        "overall": {"correct": 5, "known": 7, "recall": round(5 / 7, 4)},
        "repo": {"correct": 4, "known": 4, "recall": 1.0},
        "builtin": {"correct": 1, "known": 2, "recall": 0.5},
        "external": {"correct": 0, "known": 1, "recall": 0.0},
    }
    assert (fig["dynamic_sites"], fig["unknown_truth_sites"], fig["scope_mismatch"]) == (2, 2, 1)
    assert fig["no_edge"] == [{"reason": "builtin-method", "truth_kind": "builtin", "n": 1},
                              {"reason": "dynamic", "truth_kind": "unknown", "n": 1}]
    assert [(w["site"], w["ours"], w["truth"]) for w in fig["wrong"]] == [
        ("pkg/core.py:6", "sym:pkg/util.py#Writer.write", "external:io.StringIO.write")]


def test_external_truth_is_compared_by_kind(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    (root / "ext.py").write_text("import heapq\n\nheapq.heappush([], 1)\n", encoding="utf-8")
    row = {**_row(3, 6, "<module>", "heapq.heappush", "external", "external:_heapq.heappush"),
           "path": "ext.py"}
    (site,) = evaluate([row], root, "pkg")
    assert (site.outcome, site.method, site.dst) == (
        "correct", "external", "ext:python:heapq.heappush")
    assert site.external_same_name


def test_cli_writes_json(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    data = tmp_path / "truth.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in TRUTH), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["--data", str(data), "--stdlib", str(root.parent), "--out", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["combined"]["edges"]["precision"] == round(5 / 6, 4)
    assert report["codebases"]["pkg"]["recall"]["repo"]["recall"] == 1.0
    assert len(report["sites"]) == len(TRUTH)
    # the nested layout resolves pkg/core.py and maps ids back: same grades here
    assert main(["--data", str(data), "--stdlib", str(root.parent), "--out", str(out),
                 "--nested"]) == 0
    nested = json.loads(out.read_text(encoding="utf-8"))
    assert nested["combined"]["outcomes"] == report["combined"]["outcomes"]


def test_strata_count_for_precision_not_recall(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    root = write_package(tmp_path)
    data, strata = tmp_path / "truth.jsonl", tmp_path / "strata.jsonl"
    random_rows = [r for r in TRUTH if r["line"] != 5]
    data.write_text("".join(json.dumps(r) + "\n" for r in random_rows), encoding="utf-8")
    # line 5 only in the strata; line 7 in both (counted once, as random)
    extra = [{**r, "sample": "stratified", "stratum": "x"} for r in TRUTH if r["line"] in (5, 7)]
    strata.write_text("".join(json.dumps(r) + "\n" for r in extra), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["--data", str(data), "--data", str(strata), "--stdlib", str(root.parent),
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "the union of the random and stratified samples" in text
    assert "random sites only: the stratified sites were picked by our own labels" in text
    fig = json.loads(out.read_text(encoding="utf-8"))["combined"]
    assert fig["sites"] == len(TRUTH)
    assert fig["samples"] == {"random": len(TRUTH) - 1, "stratified": 1}
    assert fig["methods"]["import"]["n"] == 3  # the stratified line-5 edge is in precision
    assert fig["recall"]["repo"] == {"correct": 3, "known": 3, "recall": 1.0}  # not in recall
    assert fig["recall"]["overall"]["known"] == 6
