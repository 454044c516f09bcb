"""The jedi ground truth for call resolution, on a tiny real package."""

from __future__ import annotations

import textwrap
from pathlib import Path

from benchmarks.calls_groundtruth import enumerate_calls, ground_truth, index_module

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
