"""Golden test of the Go extractor (exact rows, so grammar renames cannot pass silently)."""

from __future__ import annotations

from ingest.extract.go import extract
from ingest.extract.rows import CallRow, ImportRow, InheritRow

GO_SOURCE = b"""\
package store

import (
\t"fmt"
\tkv "example.com/kv/client"
)

// MaxKeys bounds a batch.
const MaxKeys = 100

var (
\tdefaultStore = New()
\tlimit, burst = 1, 2
)

// Store keeps values.
// It is safe for concurrent use.
type Store struct {
\tBase
\t*kv.Client
\tname string
}

type Getter interface {
\tfmt.Stringer
\tGet(key string) string
}

type ID string

// New makes a Store.
func New() *Store {
\treturn &Store{}
}

func (s *Store) Get(key string) string {
\ts.check(key)
\tfmt.Println(len(key))
\tfunc() { kv.Ping() }()
\treturn helper(key)
}

func (s Store) check(key string) {}
"""


def test_go_symbols() -> None:
    fx = extract(GO_SOURCE, "store/store.go", language="go")
    got = [(s.qualname, str(s.kind), s.start_line, s.end_line, s.parent, s.visibility)
           for s in fx.symbols]
    assert got == [
        ("MaxKeys", "constant", 9, 9, "", "public"),
        ("defaultStore", "variable", 12, 12, "", "private"),
        ("limit", "variable", 13, 13, "", "private"),
        ("burst", "variable", 13, 13, "", "private"),
        ("Store", "struct", 18, 22, "", "public"),
        ("Getter", "interface", 24, 27, "", "public"),
        ("Getter.Get", "method", 26, 26, "Getter", "public"),
        ("ID", "struct", 29, 29, "", "public"),
        ("New", "function", 32, 34, "", "public"),
        ("Store.Get", "method", 36, 41, "Store", "public"),
        ("Store.check", "method", 43, 43, "Store", "private"),
    ]
    by_name = {s.qualname: s for s in fx.symbols}
    assert by_name["MaxKeys"].docstring == "MaxKeys bounds a batch."
    assert by_name["Store"].docstring == "Store keeps values.\nIt is safe for concurrent use."
    assert by_name["Store"].signature == "type Store struct {"
    assert by_name["Store.Get"].signature == "func (s *Store) Get(key string) string {"
    assert fx.package == "store"
    assert fx.error_lines == []
    assert fx.loc == 43


def test_go_imports_calls_embedding() -> None:
    fx = extract(GO_SOURCE, "store/store.go", language="go")
    assert fx.imports == [
        ImportRow("fmt", "", "", line=4),
        ImportRow("example.com/kv/client", "", "kv", line=5),
    ]
    assert fx.calls == [
        CallRow("", "New", 12),
        CallRow("Store.Get", "s.check", 37),
        CallRow("Store.Get", "fmt.Println", 38),
        CallRow("Store.Get", "len", 38),
        CallRow("Store.Get", "", 39),  # an immediately called closure
        CallRow("Store.Get", "kv.Ping", 39),
        CallRow("Store.Get", "helper", 40),
    ]
    assert fx.inherits == [
        InheritRow("Store", "Base", 19),
        InheritRow("Store", "kv.Client", 20),
        InheritRow("Getter", "fmt.Stringer", 25),
    ]


def test_go_tests_are_marked_in_test_files_only() -> None:
    src = b"""\
package store

import "testing"

func TestGet(t *testing.T) { setup(t) }
func BenchmarkGet(b *testing.B) {}
func setup(t *testing.T) {}
"""
    marked = {s.qualname: s.is_test for s in extract(src, "store/get_test.go", language="go")
              .symbols}
    assert marked == {"TestGet": True, "BenchmarkGet": True, "setup": False}
    unmarked = extract(src, "store/get.go", language="go").symbols
    assert not any(s.is_test for s in unmarked)


def test_go_syntax_error_keeps_partial_symbols() -> None:
    src = b"package x\n\nfunc Ok() {}\n\nfunc Broken( {\n"
    fx = extract(src, "x/x.go", language="go")
    assert [s.qualname for s in fx.symbols][:1] == ["Ok"]
    assert fx.error_lines
