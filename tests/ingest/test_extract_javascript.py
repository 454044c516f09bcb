"""Golden test of the JavaScript/TypeScript extractor: a renamed grammar node type would
silently drop rows, so the exact rows of realistic snippets are pinned here."""

from __future__ import annotations

from ingest.extract.javascript import extract
from ingest.extract.rows import CallRow, ImportRow, InheritRow

TS_SOURCE = b"""\
import React, { useState as useS } from 'react';
import * as path from 'path';
import { helper } from './util';
export { format } from './format';
export * from './types';
const fs = require('fs');
const { join, resolve: res } = require('path');

export const MAX_SIZE = 10;
let counter = 0;

/**
 * A widget that can render itself.
 */
export class Widget extends Base<Props> implements Renderable, Sized {
  #secret = 1;
  private _cache: Map<string, number> = new Map();
  onClick = () => { this.render(); };

  constructor(name: string) {
    super(name);
    this.name = name;
  }

  render(): string {
    helper(this.name);
    path.join('a', 'b');
    return new Builder().build()();
  }
}

interface Renderable extends Base { render(): string }

export function createWidget(name: string): Widget {
  const w = new Widget(name);
  return w;
}

enum Color { Red, Green }
type Props = { name: string };
"""


def test_typescript_symbols() -> None:
    fx = extract(TS_SOURCE, "src/widget.ts", language="typescript")
    got = [(s.qualname, str(s.kind), s.start_line, s.end_line, s.parent, s.visibility)
           for s in fx.symbols]
    assert got == [
        ("fs", "variable", 6, 6, "", "public"),
        ("MAX_SIZE", "constant", 9, 9, "", "public"),
        ("counter", "variable", 10, 10, "", "public"),
        ("Widget", "class", 15, 30, "", "public"),
        ("Widget.onClick", "method", 18, 18, "Widget", "public"),
        ("Widget.constructor", "method", 20, 23, "Widget", "public"),
        ("Widget.render", "method", 25, 29, "Widget", "public"),
        ("Renderable", "interface", 32, 32, "", "public"),
        ("Renderable.render", "method", 32, 32, "Renderable", "public"),
        ("createWidget", "function", 34, 37, "", "public"),
        ("Color", "enum", 39, 39, "", "public"),
        ("Props", "interface", 40, 40, "", "public"),
    ]
    widget = fx.symbols[3]
    assert widget.docstring == "A widget that can render itself."
    assert widget.signature == (
        "export class Widget extends Base<Props> implements Renderable, Sized {")
    assert not any(s.is_test for s in fx.symbols)
    assert fx.error_lines == []
    assert fx.loc == 40


def test_typescript_imports() -> None:
    fx = extract(TS_SOURCE, "src/widget.ts", language="typescript")
    assert fx.imports == [
        ImportRow("react", "default", "React", line=1),
        ImportRow("react", "useState", "useS", line=1),
        ImportRow("path", "*", "path", line=2),
        ImportRow("./util", "helper", "", line=3),
        ImportRow("./format", "format", "", line=4),
        ImportRow("./types", "*", "", line=5),
        ImportRow("fs", "", "fs", line=6),
        ImportRow("path", "join", "", line=7),
        ImportRow("path", "resolve", "res", line=7),
    ]


def test_typescript_calls_and_heritage() -> None:
    fx = extract(TS_SOURCE, "src/widget.ts", language="typescript")
    assert fx.calls == [
        CallRow("Widget", "Map", 17),
        CallRow("Widget.onClick", "this.render", 18),
        CallRow("Widget.constructor", "super", 21),
        CallRow("Widget.render", "helper", 26),
        CallRow("Widget.render", "path.join", 27),
        CallRow("Widget.render", "", 28),
        CallRow("Widget.render", "", 28),
        CallRow("Widget.render", "Builder", 28),
        CallRow("createWidget", "Widget", 35),
    ]
    assert fx.inherits == [
        InheritRow("Widget", "Base", 15, "extends"),
        InheritRow("Widget", "Renderable", 15, "implements"),
        InheritRow("Widget", "Sized", 15, "implements"),
        InheritRow("Renderable", "Base", 32, "extends"),
    ]


def test_javascript_private_members_duplicates_and_tests() -> None:
    src = b"""\
class Cache {
  #evict() {}
  _internal() {}
  get size() { return 0; }
  set size(v) {}
}
function helper() { return 1; }
describe('cache', () => {
  it('works', () => { expect(helper()).toBe(1); });
});
"""
    fx = extract(src, "src/cache.test.js", language="javascript")
    got = [(s.qualname, s.visibility, s.is_test) for s in fx.symbols]
    assert got == [
        ("Cache", "public", False),
        ("Cache.#evict", "private", True),
        ("Cache._internal", "private", True),
        ("Cache.size", "public", True),
        ("Cache.size~2", "public", True),
        ("helper", "public", True),
    ]
    # test blocks are no symbols: their calls stay at module level; `expect(..).toBe` is ''
    assert [(c.scope, c.callee, c.line) for c in fx.calls] == [
        ("", "describe", 8), ("", "it", 9), ("", "", 9), ("", "expect", 9), ("", "helper", 9),
    ]


def test_syntax_error_keeps_partial_symbols() -> None:
    src = b"function ok() { return 1; }\nfunction broken( {\n"
    fx = extract(src, "src/broken.js", language="javascript")
    assert [s.qualname for s in fx.symbols] == ["ok"]
    assert fx.error_lines == [2]


def test_tsx_parses_jsx() -> None:
    src = b"export function App() { return <div onClick={() => go()}>hi</div>; }\n"
    fx = extract(src, "src/App.tsx", language="tsx")
    assert [s.qualname for s in fx.symbols] == ["App"]
    assert fx.calls == [CallRow("App", "go", 1)]
