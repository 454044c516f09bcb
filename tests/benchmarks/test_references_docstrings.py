"""The held-out docstring samples of the reference benchmark (issue 22): the drawn list and
the hand-read gold are consistent, the draw is reproducible and excludes earlier rounds, and
grading counts only what falls inside a drawn docstring."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from benchmarks.references_docstrings import (
    DRAWN,
    GOLD,
    VERSIONS,
    WHEEL_NAMES,
    draw,
    evaluate,
    population,
)
from ingest.academic.citation_text import WORKS
from ingest.academic.references import SCHEMES


def test_drawn_and_gold_are_consistent() -> None:
    drawn = json.loads(DRAWN.read_text(encoding="utf-8"))
    gold = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines()]
    rounds = {d["round"] for d in drawn}
    assert {"heldout-3", "heldout-5", "heldout-6"} <= rounds
    for rnd in rounds:
        libraries = {d["library"] for d in drawn if d["round"] == rnd}
        # rounds up to heldout-9 drew numpy, sympy and astropy; then new libraries a round
        single = {"heldout-10": {"scikit-image"}, "heldout-11": {"biopython"},
                  "heldout-12": {"matplotlib", "networkx"}, "heldout-13": {"scikit-rf", "pandas"},
                  "heldout-14": {"pingouin", "librosa"}, "heldout-15": {"lifelines", "pot"},
                  "heldout-16": {"arch", "nltk"}, "heldout-17": {"mpmath", "tslearn"}}
        assert libraries == single.get(rnd, {"numpy", "sympy", "astropy"})
        for library in libraries:
            spans = [d for d in drawn if (d["round"], d["library"]) == (rnd, library)]
            assert 1 <= len(spans) <= (16 if rnd in single else 12)
            assert {d["version"] for d in spans} == {VERSIONS[library]}
    spans = {(d["library"], d["file"], d["start"]) for d in drawn}
    assert len(spans) == len(drawn)  # no docstring drawn twice across rounds
    keys = set()
    for row in gold:
        assert row["scheme"] in SCHEMES and row["type"] in WORKS
        assert (row["value"] == "") == (row["scheme"] == "citation")
        assert any(d["round"] == row["round"] and d["library"] == row["library"]
                   and d["file"] == row["file"] and d["start"] <= row["line"] <= d["end"]
                   for d in drawn), row
        key = (row["round"], row["file"], row["line"], row["scheme"], row["value"])
        assert key not in keys
        keys.add(key)
    assert "heldout-4" not in {r["round"] for r in gold}  # drawn, seen unread: never graded


def _wheels(tmp_path: Path) -> Path:
    module = '''"""Module without any cue."""


def cited():
    """Cited.

    References
    ----------
    .. [1] https://en.wikipedia.org/wiki/Power_set
    """


def prose():
    """See https://example.org/docs/page for details."""


def plain():
    """Nothing here."""
'''
    for library, version in VERSIONS.items():
        name = WHEEL_NAMES.get(library, library)
        with zipfile.ZipFile(tmp_path / f"{name}-{version}-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"{name}/m.py", module)
            wheel.writestr(f"{name}/tests/test_m.py", module)
    return tmp_path


def test_population_and_draw_are_reproducible_and_exclude_earlier_rounds(
        tmp_path: Path) -> None:
    wheels = _wheels(tmp_path)
    pop = population(wheels / f"numpy-{VERSIONS['numpy']}-py3-none-any.whl")
    assert pop == [("numpy/m.py", 5, 10), ("numpy/m.py", 14, 14)]  # cued, tests/ left out
    first = draw(wheels, 7, 1, "r1")
    assert first == draw(wheels, 7, 1, "r1")
    second = draw(wheels, 7, 1, "r2", first)
    assert {(d["library"], d["start"]) for d in first}.isdisjoint(
        (d["library"], d["start"]) for d in second)
    assert {d["population"] for d in second} == {1}
    assert {d["library"] for d in first} == {"numpy", "sympy", "astropy"}  # the default
    only = draw(wheels, 7, 2, "r3", libraries=("scikit-image",))
    assert [(d["library"], d["file"]) for d in only] == [("scikit-image", "scikit_image/m.py")] * 2


def test_grading_counts_only_inside_drawn_docstrings(tmp_path: Path) -> None:
    wheels = _wheels(tmp_path)
    drawn = [{"round": "r", "library": "sympy", "version": VERSIONS["sympy"], "seed": 0,
              "file": "sympy/m.py", "start": 5, "end": 10, "population": 2}]
    gold = [{"round": "r", "library": "sympy", "file": "sympy/m.py", "line": 9,
             "scheme": "url", "value": "https://en.wikipedia.org/wiki/Power_set",
             "title": "Power set", "year": None, "type": "paper"}]  # wrong type on purpose
    (tmp_path / "drawn.json").write_text(json.dumps(drawn), encoding="utf-8")
    (tmp_path / "gold.jsonl").write_text(json.dumps(gold[0]) + "\n", encoding="utf-8")
    fig = evaluate(wheels, drawn_path=tmp_path / "drawn.json",
                   gold_path=tmp_path / "gold.jsonl")["sympy r"]
    assert (fig["files"], fig["sample"], fig["found"]) == (1, 1, 1)
    assert fig["located"] == {"correct": 1, "precision": 1.0, "recall": 1.0}
    assert fig["full"] == {"correct": 0, "precision": 0.0, "recall": 0.0}
    assert fig["wrong_details"] == [[
        "sympy/m.py", 9, "title 'Power set' year None type web", "want 'Power set' None paper"]]
