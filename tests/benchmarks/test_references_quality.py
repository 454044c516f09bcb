"""The reference-extraction benchmark: its hand-verified sample is well-formed and the
script grades the real files (they are in the project's environment)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.references_quality import (
    DEFAULT_DATA,
    FILES,
    HELDOUT_FILES,
    evaluate,
    load_sample,
    main,
    roots,
)

SAMPLE = load_sample(DEFAULT_DATA)


def test_sample_is_well_formed() -> None:
    assert len(SAMPLE) >= 100
    listed = {f"{root}:{path}" for root, path in FILES + HELDOUT_FILES}
    where = roots()
    seen = set()
    for row in SAMPLE:
        assert set(row) == {"root", "file", "line", "scheme", "value", "note", "set"}
        assert row["set"] in {"dev", "heldout"}
        assert f"{row['root']}:{row['file']}" in listed
        lines = (where[row["root"]] / row["file"]).read_text(encoding="utf-8").splitlines()
        assert 1 <= row["line"] <= len(lines)
        if row["scheme"] == "citation":
            assert row["value"] == ""
        else:
            assert row["value"] and row["value"] == row["value"].strip()
        if row["scheme"] in {"doi", "arxiv"}:
            assert row["value"] == row["value"].lower()
        if row["scheme"] == "rfc":
            assert row["value"].isdigit()
            assert f"RFC {row['value']}" in lines[row["line"] - 1]
        key = (row["root"], row["file"], row["line"], row["scheme"], row["value"])
        assert key not in seen
        seen.add(key)
    assert {r["scheme"] for r in SAMPLE} == {"doi", "arxiv", "rfc", "url", "citation"}


def test_grading_counts_misses_and_false_positives() -> None:
    files = [("site-packages", "networkx/algorithms/community/kclique.py")]
    row = {"root": "site-packages", "file": files[0][1], "scheme": "doi", "note": "",
           "set": "dev"}
    sample = [{**row, "line": 42, "value": "10.1038/nature03607"},
              {**row, "line": 1, "value": "10.1000/not-there"}]
    fig = evaluate(sample, files, roots())
    assert (fig["sample"], fig["found"], fig["correct"]) == (2, 1, 1)
    assert (fig["precision"], fig["recall"]) == (1.0, 0.5)
    assert fig["misses"] == [[f"site-packages:{files[0][1]}", 1, "doi", "10.1000/not-there"]]
    fig = evaluate(sample[1:], files, roots())
    assert fig["false_positives"] == [
        [f"site-packages:{files[0][1]}", 42, "doi", "10.1038/nature03607"]]
    assert fig["precision"] == 0.0


@pytest.mark.parametrize("name", ["dev", "heldout"])
def test_script_runs_and_meets_targets(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    assert main(["--set", name, "--out", str(out)]) == 0
    fig = json.loads(out.read_text(encoding="utf-8"))[name]
    assert fig["sample"] == sum(1 for r in SAMPLE if r["set"] == name)
    assert fig["precision"] >= 0.95
    assert fig["recall"] >= 0.9


def test_library_sample_is_well_formed() -> None:
    from benchmarks.references_quality import LIBRARY_DATA, WHEELS
    from ingest.academic.citation_text import WORKS

    rows = load_sample(LIBRARY_DATA)
    keys = [(r["library"], r["file"], r["line"], r["scheme"]) for r in rows]
    assert len(keys) == len(set(keys))
    for library in ("scipy", "scikit-learn", "statsmodels"):
        assert sum(r["library"] == library for r in rows) >= 40
    for row in rows:
        assert row["library"] in WHEELS and row["type"] in WORKS
        assert (row["value"] == "") == (row["scheme"] == "citation")
        assert row["year"] is None or 1900 <= row["year"] <= 2030


def test_library_grading_reads_a_wheel_and_grades_title_year_and_type(tmp_path: Path) -> None:
    import zipfile

    from benchmarks.references_quality import evaluate_libraries

    text = '''def f():
    """F.

    References
    ----------
    .. [1] Vasicek, O. (1976). A test for normality based on sample entropy.
           Journal of the Royal Statistical Society B, 38(1), 54-59.
    .. [2] B. Efron and R. J. Tibshirani. An Introduction to the Bootstrap (1993).
    .. [3] Conover, W. J. Practical nonparametric statistics. Wiley, 1999.
    """
'''
    with zipfile.ZipFile(tmp_path / "scipy-1.17.1-cp311-none-any.whl", "w") as wheel:
        wheel.writestr("scipy/stats/x.py", text)
    row = {"library": "scipy", "file": "scipy/stats/x.py", "scheme": "citation", "value": ""}
    sample = [
        {**row, "line": 6, "title": "A test for normality based on sample entropy",
         "year": 1976, "type": "paper"},
        {**row, "line": 8, "title": "An Introduction to the Bootstrap", "year": 1993,
         "type": "paper"},  # wrong type on purpose: a book
        {**row, "line": 30, "title": "Nowhere", "year": None, "type": "paper"},
    ]
    fig = evaluate_libraries(sample, tmp_path)["scipy"]
    assert (fig["sample"], fig["found"]) == (3, 3)
    assert fig["located"] == {"correct": 2, "precision": 0.6667, "recall": 0.6667}
    assert fig["full"] == {"correct": 1, "precision": 0.3333, "recall": 0.3333}
    assert fig["false_positives"][0][:3] == ["scipy/stats/x.py", 9, "citation"]
    assert fig["misses"] == [["scipy/stats/x.py", 30, "citation", "Nowhere"]]
    assert fig["wrong_details"][0][1] == 8
