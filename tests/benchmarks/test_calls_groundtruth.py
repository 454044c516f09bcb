"""The jedi ground truth for call resolution, on a tiny real package."""

from __future__ import annotations

import textwrap
from pathlib import Path

from benchmarks.calls_groundtruth import (
    CallSite,
    enumerate_calls,
    ground_truth,
    index_module,
    label_calls,
    site_key,
    stratified_ground_truth,
    stratified_sample,
)

FILES = {
    "__init__.py": "from .util import helper\n",
    "util.py": """\
        def helper(x):
            return len(x)
        """,
    "core.py": """\
        import json

        from .util import helper

        DEFAULT = json.dumps({})


        class Box:
            def __init__(self, items):
                self.items = list(items)

            def size(self):
                return helper(self.items)

            def report(self):
                return self.size()


        def make():
            return Box([1])


        def factory():
            return make


        def run():
            return factory()()
        """,
}

KEYS = ("path", "line", "col", "scope", "callee", "truth_kind", "truth")

EXPECTED = [
    ("core.py", 5, 15, "<module>", "json.dumps", "external", "external:json.dumps"),
    ("core.py", 10, 21, "Box.__init__", "list", "builtin", "builtin:list"),
    ("core.py", 13, 15, "Box.size", "helper", "repo", "sym:pkg/util.py#helper"),
    ("core.py", 16, 20, "Box.report", "self.size", "repo", "sym:pkg/core.py#Box.size"),
    ("core.py", 20, 11, "make", "Box", "repo", "sym:pkg/core.py#Box"),
    ("core.py", 28, 11, "run", "", "unknown", "unknown"),
    ("core.py", 28, 11, "run", "factory", "repo", "sym:pkg/core.py#factory"),
    ("util.py", 2, 11, "helper", "len", "builtin", "builtin:len"),
]


def write_package(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    for name, text in FILES.items():
        (root / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def test_truth_rows(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    rows = list(ground_truth(root, "pkg", n=100, seed=0))
    assert [tuple(r[k] for k in KEYS) for r in rows] == EXPECTED
    assert all("jedi_error" not in r for r in rows)
    dynamic = next(r for r in rows if r["callee"] == "")
    assert dynamic["note"].startswith("no name token")


def test_sampling_is_seeded(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    first = [(r["path"], r["line"]) for r in ground_truth(root, "pkg", n=3, seed=7)]
    again = [(r["path"], r["line"]) for r in ground_truth(root, "pkg", n=3, seed=7)]
    assert first == again and len(first) == 3
    assert len(enumerate_calls(root)) == len(EXPECTED)


def test_qualnames_repeat_ordinals_and_outer_scope() -> None:
    code = textwrap.dedent("""\
        if X:
            def f(): pass
        else:
            def f():
                g()

        @deco(h())
        def k(a=d()):
            obj.attr.m(
            )
        """)
    idx = index_module("m.py", code)
    assert idx.defs == {(2, "f"): "f", (4, "f"): "f~2", (8, "k"): "k"}
    calls = [(c.scope, c.callee, c.line, c.col) for c in idx.calls]
    assert calls == [
        ("f~2", "g", 5, 8), ("<module>", "deco", 7, 1), ("<module>", "h", 7, 6),
        ("<module>", "d", 8, 8), ("k", "obj.attr.m", 9, 13),
    ]


def test_labels_come_from_our_resolver(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    calls = enumerate_calls(root)
    labels = label_calls(root, "pkg", calls)
    # the call of a call and its inner callee share a position: each keeps its own label
    assert labels == ["external", "builtin", "import", "self", "same_module",
                      "unresolved:dynamic", "same_module", "builtin"]


def test_stratified_sample_takes_only_the_label_and_skips_sampled_sites() -> None:
    calls = [CallSite("m.py", i, 0, 1 + i, "<module>", f"f{i}") for i in range(1, 41)]
    labels = ["import", "self", "unresolved:dynamic", "unresolved:ambiguous"] * 10
    already = [site_key(c) for c, lab in zip(calls, labels, strict=True) if lab == "import"][:2]
    picked = stratified_sample(calls, labels, per_method=5, seed=3, exclude=already,
                               unresolved=4, methods=("import", "self", "local"))
    by_label: dict[str, list[CallSite]] = {}
    for site, stratum in picked:
        assert stratum == labels[calls.index(site)]
        by_label.setdefault(stratum.split(":")[0], []).append(site)
    # import: 5 minus the 2 already sampled; local: none exist; unresolved: on top
    assert {k: len(v) for k, v in by_label.items()} == {"import": 3, "self": 5, "unresolved": 4}
    assert not {site_key(s) for s, _ in picked} & set(already)
    assert [s.line for s, _ in picked] == sorted(s.line for s, _ in picked)
    again = stratified_sample(calls, labels, per_method=5, seed=3, exclude=already,
                              unresolved=4, methods=("import", "self", "local"))
    assert again == picked
    # a stratum already full in the sample draws nothing; a small pool is taken whole
    assert stratified_sample(calls, labels, per_method=2, seed=3, exclude=already,
                             methods=("import",)) == []
    assert len(stratified_sample(calls, labels, per_method=50, seed=3,
                                 methods=("self",))) == 10


def test_stratified_rows_have_jedi_truth(tmp_path: Path) -> None:
    root = write_package(tmp_path)
    random_rows = list(ground_truth(root, "pkg", n=100, seed=0))
    sampled = [site_key(r) for r in random_rows if r["callee"] in {"helper", "self.size"}]
    rows = list(stratified_ground_truth(root, "pkg", per_method=1, seed=0, exclude=sampled,
                                        unresolved=1))
    assert {r["sample"] for r in rows} == {"stratified"}
    strata = sorted(r["stratum"] for r in rows)
    # import and self are covered by the sampled sites; one per other label present
    assert strata == ["builtin", "external", "same_module", "unresolved:dynamic"]
    assert not {site_key(r) for r in rows} & set(sampled)
    truth = {site_key(r): r for r in random_rows}
    for row in rows:  # the truth is jedi's, the same as in the random mode
        plain = {k: v for k, v in row.items() if k not in {"sample", "stratum"}}
        assert plain == truth[site_key(row)]
