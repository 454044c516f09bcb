"""Python by queries on a broken file: a definition that tree-sitter's error recovery left
inside an ``ERROR`` node is no symbol and opens no scope (as a reader of statements never
reaches it), while the calls written in it stay, attributed to the enclosing definition.

The snippet is a real file with a slice cut out (``encodings/zlib_codec.py``), reduced to the
lines that keep the shape; ``benchmarks/python_extract_identity.py --broken N`` checks the rule
on thousands of such files against the walker it replaced."""

from __future__ import annotations

from ingest.extract import definitions, extract
from ingest.extract.rows import CallRow, InheritRow

BROKEN = b"""class IncrementalEncoder(codecs.IncrementalEncoder):
    def __init__(self, errors='strict'):
    c + self.compressobj.flush()
        else:
            return self.compressobj.compress(input)
    def reset(self):
    )"""


def test_a_definition_inside_an_error_node_is_no_symbol() -> None:
    fx = extract("python", BROKEN, "encodings/zlib_codec.py")
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.parent) for s in fx.symbols] == [
        ("IncrementalEncoder", "class", 1, 5, ""),
        ("reset", "function", 6, 6, ""),
    ]
    assert fx.error_lines == [1, 7]
    assert [s.qualname for s in definitions("python", BROKEN, "encodings/zlib_codec.py")] \
        == ["IncrementalEncoder", "reset"]


def test_calls_inside_the_error_node_belong_to_the_enclosing_definition() -> None:
    fx = extract("python", BROKEN, "encodings/zlib_codec.py")
    assert fx.calls == [
        CallRow("IncrementalEncoder", "c.__add__", 3),
        CallRow("IncrementalEncoder", "self.compressobj.flush", 3),
        CallRow("IncrementalEncoder", "self.compressobj.compress", 5),
        CallRow("IncrementalEncoder", "&input", 5),
    ]
    assert fx.inherits == [InheritRow("IncrementalEncoder", "codecs.IncrementalEncoder", 1)]
    assert fx.assigns == []
