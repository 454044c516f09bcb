"""Golden test of the Rust extractor (exact rows, so grammar renames cannot pass silently)."""

from __future__ import annotations

from ingest.extract.rows import CallRow, ImportRow, InheritRow
from ingest.extract.rust import extract

RUST_SOURCE = b"""\
use std::collections::HashMap;
use crate::shapes::{Circle, area as circle_area, util::{self, scale}};
use super::*;
mod geometry;

/// Largest supported radius.
pub const MAX_RADIUS: f64 = 1e6;
static mut COUNTER: u32 = 0;

/// A named registry of shapes.
/// Keys are unique.
#[derive(Debug, Default)]
pub struct Registry<T> {
    items: HashMap<String, T>,
}

pub(crate) enum Kind { Round, Square }

pub trait Named: Clone + std::fmt::Debug {
    fn name(&self) -> String;
    fn label(&self) -> String { self.name() }
}

impl<T> Registry<T> {
    pub fn new() -> Self {
        Registry { items: HashMap::new() }
    }
    fn insert(&mut self, key: &str, value: T) {
        self.items.insert(key.to_string(), value);
        println!("{}", key);
        Self::log(circle_area(1.0));
    }
    fn log(_v: f64) {}
}

impl<T: Clone> Named for Registry<T> {
    fn name(&self) -> String { util::describe::<T>() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates() { let r = Registry::<u8>::new(); assert!(r.items.is_empty()); }
}
"""


def test_rust_symbols() -> None:
    fx = extract(RUST_SOURCE, "src/registry.rs", language="rust")
    got = [(s.qualname, str(s.kind), s.start_line, s.end_line, s.parent, s.visibility)
           for s in fx.symbols]
    assert got == [
        ("MAX_RADIUS", "constant", 7, 7, "", "public"),
        ("COUNTER", "variable", 8, 8, "", "private"),
        ("Registry", "struct", 13, 15, "", "public"),
        ("Kind", "enum", 17, 17, "", "internal"),
        ("Named", "trait", 19, 22, "", "public"),
        ("Named.name", "method", 20, 20, "Named", "public"),
        ("Named.label", "method", 21, 21, "Named", "public"),
        ("Registry.new", "method", 25, 27, "Registry", "public"),
        ("Registry.insert", "method", 28, 32, "Registry", "private"),
        ("Registry.log", "method", 33, 33, "Registry", "private"),
        ("Registry.name", "method", 37, 37, "Registry", "public"),
        ("tests.creates", "function", 45, 45, "", "private"),
    ]
    by_name = {s.qualname: s for s in fx.symbols}
    assert by_name["Registry"].docstring == "A named registry of shapes.\nKeys are unique."
    assert by_name["MAX_RADIUS"].docstring == "Largest supported radius."
    assert by_name["tests.creates"].is_test
    assert [s.qualname for s in fx.symbols if s.is_test] == ["tests.creates"]
    assert fx.error_lines == []


def test_rust_imports() -> None:
    fx = extract(RUST_SOURCE, "src/registry.rs", language="rust")
    assert fx.imports == [
        ImportRow("std::collections", "HashMap", line=1),
        ImportRow("crate::shapes", "Circle", line=2),
        ImportRow("crate::shapes", "area", "circle_area", line=2),
        ImportRow("crate::shapes::util", "", line=2),
        ImportRow("crate::shapes::util", "scale", line=2),
        ImportRow("super", "*", line=3),
        ImportRow("self::geometry", line=4),
        ImportRow("self", "*", line=42),  # `use super::*` in `mod tests {}`: this file
    ]


def test_rust_calls_skip_macros() -> None:
    fx = extract(RUST_SOURCE, "src/registry.rs", language="rust")
    assert fx.calls == [
        CallRow("Named.label", "self.name", 21),
        CallRow("Registry.new", "HashMap::new", 26),
        CallRow("Registry.insert", "self.items.insert", 29),
        CallRow("Registry.insert", "key.to_string", 29),
        CallRow("Registry.insert", "Self::log", 31),
        CallRow("Registry.insert", "circle_area", 31),
        CallRow("Registry.name", "util::describe", 37),
        CallRow("tests.creates", "Registry::new", 45),
    ]
    assert fx.inherits == [
        InheritRow("Named", "Clone", 19, "extends"),
        InheritRow("Named", "std::fmt::Debug", 19, "extends"),
        InheritRow("Registry", "Named", 36, "implements"),
    ]


def test_rust_syntax_error_keeps_partial_symbols() -> None:
    src = b"fn ok() {}\n\nfn broken( {\n"
    fx = extract(src, "src/lib.rs", language="rust")
    assert [s.qualname for s in fx.symbols][:1] == ["ok"]
    assert fx.error_lines
