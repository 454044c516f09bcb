"""Resolvers for JavaScript/TypeScript, Go, Java and Rust on small in-memory repositories:
each resolution method is pinned by the exact edges it yields."""

from __future__ import annotations

import dataclasses

from ingest.extract.go import extract as extract_go
from ingest.extract.java import extract as extract_java
from ingest.extract.javascript import extract as extract_js
from ingest.extract.rows import FileExtract
from ingest.extract.rust import extract as extract_rust
from ingest.resolve import go, java, javascript, rust
from ingest.resolve.rows import ResolveResult

Edge = tuple[str, str, str, str]


def _edges(result: ResolveResult, rel: str) -> list[Edge]:
    """(src, dst, resolution, name) of the ``rel`` edges, ids shortened to path#qualname."""
    def short(node_id: str) -> str:
        return node_id.split(":", 1)[1].removeprefix("r/")
    return [(short(e.src), short(e.dst), e.resolution, e.name)
            for e in result.edges if e.rel == rel]


# --- JavaScript / TypeScript ---------------------------------------------------------------

JS_REPO = {
    "src/base.ts": b"export class Base {\n  greet() { return 1; }\n}\n"
                   b"export function helper() {}\n",
    "src/index.ts": b"export * from './base';\nexport { util as u2 } from './util';\n",
    "src/util.js": b"export function util() { console.log('x'); }\n"
                   b"export default function main() {}\n",
    "src/app.ts": b"""\
import { Base, helper } from './index';
import main from './util';
import * as U from './util';
import React, { useState } from 'react';
class App extends Base {
  run() {
    this.greet(); this.own(); helper(); main(); U.util();
    React.render(); useState(); JSON.parse('1'); lonely(); x.nothing(); foo()();
  }
  own() {}
}
""",
    "src/lonely.js": b"function lonely() {}\n",
}


def _js_files() -> dict[str, FileExtract]:
    lang = {"ts": "typescript", "js": "javascript"}
    return {p: extract_js(d, p, language=lang[p.rsplit(".", 1)[1]]) for p, d in JS_REPO.items()}


def test_javascript_imports_follow_reexports_and_bare_specifiers() -> None:
    result = javascript.resolve("r", _js_files(), only={"src/app.ts"})
    assert _edges(result, "IMPORTS") == [
        ("src/app.ts", "src/base.ts#Base", "import", "Base"),
        ("src/app.ts", "src/base.ts#helper", "import", "helper"),
        ("src/app.ts", "src/util.js#main", "import", "default"),
        ("src/app.ts", "src/util.js", "import", "*"),
        ("src/app.ts", "javascript:react", "external", "default"),
        ("src/app.ts", "javascript:react.useState", "external", "useState"),
    ]
    assert _edges(result, "INHERITS") == [
        ("src/app.ts#App", "src/base.ts#Base", "import", "extends")]


def test_javascript_calls() -> None:
    result = javascript.resolve("r", _js_files(), only={"src/app.ts"})
    assert _edges(result, "CALLS") == [
        ("src/app.ts#App.run", "src/base.ts#Base.greet", "inheritance", ""),
        ("src/app.ts#App.run", "src/app.ts#App.own", "self", ""),
        ("src/app.ts#App.run", "src/base.ts#helper", "import", ""),
        ("src/app.ts#App.run", "src/util.js#main", "import", ""),
        ("src/app.ts#App.run", "src/util.js#util", "import", ""),
        ("src/app.ts#App.run", "javascript:react.render", "external", ""),
        ("src/app.ts#App.run", "javascript:react.useState", "external", ""),
        ("src/app.ts#App.run", "javascript:JSON.parse", "builtin", ""),
        ("src/app.ts#App.run", "src/lonely.js#lonely", "name_only", ""),
    ]
    assert result.externals["ext:javascript:JSON.parse"].kind == "builtin"
    assert result.unresolved == [
        ("src/app.ts", "App.run", "x.nothing", 8, "not_found"),
        ("src/app.ts", "App.run", "", 8, "dynamic"),
        ("src/app.ts", "App.run", "foo", 8, "not_found"),
    ]
    call = next(e for e in result.edges if e.rel == "CALLS")
    assert (call.src_table, call.dst_table, call.line, call.confidence) == (
        "Symbol", "Symbol", 7, 0.85)


def test_javascript_only_never_reads_other_files_calls() -> None:
    files = _js_files()
    stripped = {p: fx if p == "src/util.js" else dataclasses.replace(fx, calls=[])
                for p, fx in files.items()}
    result = javascript.resolve("r", stripped, only={"src/util.js"})
    assert _edges(result, "CALLS") == [
        ("src/util.js#util", "javascript:console.log", "builtin", "")]
    assert {e.src for e in result.edges} == {"sym:r/src/util.js#util"}


def test_module_level_calls_come_from_the_module_symbol() -> None:
    files = {"a.js": extract_js(b"function f() {}\nf();\n", "a.js", language="javascript")}
    result = javascript.resolve("r", files)
    assert _edges(result, "CALLS") == [("a.js#<module>", "a.js#f", "same_module", "")]


# --- Go ------------------------------------------------------------------------------------

GO_REPO = {
    "pkg/store/store.go": b"""\
package store

type Base struct{}

func (b *Base) Close() {}

type Store struct {
\tBase
}

func New() *Store { return &Store{} }
""",
    "pkg/store/get.go": b"""\
package store

func (s *Store) Get(k string) string { s.Close(); s.check(); return helper(k) }
func (s *Store) check() {}
func helper(k string) string { return k }
""",
    "cmd/main.go": b"""\
package main

import (
\t"fmt"
\tst "example.com/m/pkg/store"
)

func main() { s := st.New(); s.Get("k"); fmt.Println(len("x")); run(); s.Nope() }
func run() {}
""",
}


def test_go_resolution() -> None:
    files = {p: extract_go(d, p, language="go") for p, d in GO_REPO.items()}
    result = go.resolve("r", files)
    assert _edges(result, "IMPORTS") == [
        ("cmd/main.go", "go:fmt", "external", ""),
        ("cmd/main.go", "pkg/store/get.go", "import", ""),
        ("cmd/main.go", "pkg/store/store.go", "import", ""),
    ]
    assert _edges(result, "CALLS") == [
        ("cmd/main.go#main", "pkg/store/store.go#New", "import", ""),
        ("cmd/main.go#main", "pkg/store/get.go#Store.Get", "name_only", ""),
        ("cmd/main.go#main", "go:fmt.Println", "external", ""),
        ("cmd/main.go#main", "go:len", "builtin", ""),
        ("cmd/main.go#main", "cmd/main.go#run", "same_module", ""),
        # the receiver is `self`; Close comes from the embedded Base in another file
        ("pkg/store/get.go#Store.Get", "pkg/store/store.go#Base.Close", "inheritance", ""),
        ("pkg/store/get.go#Store.Get", "pkg/store/get.go#Store.check", "self", ""),
        ("pkg/store/get.go#Store.Get", "pkg/store/get.go#helper", "same_module", ""),
    ]
    assert _edges(result, "INHERITS") == [
        ("pkg/store/store.go#Store", "pkg/store/store.go#Base", "same_module", "extends")]
    assert result.unresolved == [("cmd/main.go", "main", "s.Nope", 8, "not_found")]


# --- Java ----------------------------------------------------------------------------------

JAVA_REPO = {
    "src/a/Base.java": b"package a;\npublic class Base { void greet() {} static void util() {} }\n",
    "src/a/Helper.java": b"package a;\nclass Helper { static int twice(int x) { return x; } }\n",
    "src/b/App.java": b"""\
package b;
import a.Base;
import static a.Helper.twice;
import java.util.List;
public class App extends Base implements Runnable {
  public void run() {
    greet(); this.greet(); twice(1); Base.util(); List.of(); System.out.println();
    new App(); other(); x.unknown();
  }
  void other() {}
}
""",
}


def test_java_resolution() -> None:
    files = {p: extract_java(d, p, language="java") for p, d in JAVA_REPO.items()}
    result = java.resolve("r", files, only={"src/b/App.java"})
    assert _edges(result, "IMPORTS") == [
        ("src/b/App.java", "src/a/Base.java", "import", ""),
        ("src/b/App.java", "src/a/Helper.java#Helper.twice", "import", "twice"),
        ("src/b/App.java", "java:java.util.List", "external", ""),
    ]
    assert _edges(result, "INHERITS") == [
        ("src/b/App.java#App", "src/a/Base.java#Base", "import", "extends"),
        ("src/b/App.java#App", "java:Runnable", "builtin", "implements"),
    ]
    assert _edges(result, "CALLS") == [
        ("src/b/App.java#App.run", "src/a/Base.java#Base.greet", "inheritance", ""),
        ("src/b/App.java#App.run", "src/a/Base.java#Base.greet", "inheritance", ""),
        ("src/b/App.java#App.run", "src/a/Helper.java#Helper.twice", "import", ""),
        ("src/b/App.java#App.run", "src/a/Base.java#Base.util", "import", ""),
        ("src/b/App.java#App.run", "java:java.util.List.of", "external", ""),
        ("src/b/App.java#App.run", "java:System.out.println", "builtin", ""),
        ("src/b/App.java#App.run", "src/b/App.java#App", "same_module", ""),
        ("src/b/App.java#App.run", "src/b/App.java#App.other", "self", ""),
    ]
    assert result.unresolved == [("src/b/App.java", "App.run", "x.unknown", 8, "not_found")]


def test_java_wildcard_import_and_same_package() -> None:
    files = {
        "p/A.java": extract_java(b"package p;\nclass A { static void a() {} }\n", "p/A.java",
                                 language="java"),
        "p/B.java": extract_java(b"package p;\nclass B { void b() { A.a(); } }\n", "p/B.java",
                                 language="java"),
        "q/C.java": extract_java(b"package q;\nimport p.*;\nclass C extends B {}\n", "q/C.java",
                                 language="java"),
    }
    result = java.resolve("r", files)
    assert _edges(result, "CALLS") == [("p/B.java#B.b", "p/A.java#A.a", "same_module", "")]
    assert _edges(result, "IMPORTS") == [
        ("q/C.java", "p/A.java", "import", "*"), ("q/C.java", "p/B.java", "import", "*")]
    assert _edges(result, "INHERITS") == [("q/C.java#C", "p/B.java#B", "import", "extends")]


# --- Rust ----------------------------------------------------------------------------------

RUST_REPO = {
    "src/lib.rs": b"""\
mod shapes;
use crate::shapes::{Circle, area as ar};
pub fn top() {
    let c = Circle::new(); ar(&c); shapes::helper(); Some(1); c.describe(); crate::local();
}
fn local() {}
""",
    "src/shapes.rs": b"""\
pub trait Describe {
    fn name(&self) -> String;
    fn describe(&self) -> String { self.name() }
}
pub struct Circle;
impl Circle {
    pub fn new() -> Self { Circle }
    fn r(&self) -> f64 { self.describe(); 1.0 }
}
impl Describe for Circle {
    fn name(&self) -> String { Self::new(); String::new() }
}
pub fn area(c: &Circle) -> f64 { c.r() }
pub fn helper() { missing(); }
""",
}


def test_rust_resolution() -> None:
    files = {p: extract_rust(d, p, language="rust") for p, d in RUST_REPO.items()}
    result = rust.resolve("r", files)
    assert _edges(result, "IMPORTS") == [
        ("src/lib.rs", "src/shapes.rs", "import", ""),
        ("src/lib.rs", "src/shapes.rs#Circle", "import", "Circle"),
        ("src/lib.rs", "src/shapes.rs#area", "import", "area"),
    ]
    assert _edges(result, "CALLS") == [
        ("src/lib.rs#top", "src/shapes.rs#Circle.new", "import", ""),
        ("src/lib.rs#top", "src/shapes.rs#area", "import", ""),
        ("src/lib.rs#top", "src/shapes.rs#helper", "import", ""),
        ("src/lib.rs#top", "rust:Some", "builtin", ""),
        ("src/lib.rs#top", "src/shapes.rs#Describe.describe", "name_only", ""),
        ("src/lib.rs#top", "src/lib.rs#local", "same_module", ""),
        ("src/shapes.rs#Describe.describe", "src/shapes.rs#Describe.name", "self", ""),
        # a trait's default method reached through `impl Describe for Circle`
        ("src/shapes.rs#Circle.r", "src/shapes.rs#Describe.describe", "inheritance", ""),
        ("src/shapes.rs#Circle.name", "src/shapes.rs#Circle.new", "self", ""),
        ("src/shapes.rs#Circle.name", "rust:String::new", "builtin", ""),
        ("src/shapes.rs#area", "src/shapes.rs#Circle.r", "name_only", ""),
    ]
    assert _edges(result, "INHERITS") == [
        ("src/shapes.rs#Circle", "src/shapes.rs#Describe", "same_module", "implements")]
    assert result.unresolved == [("src/shapes.rs", "helper", "missing", 14, "not_found")]
