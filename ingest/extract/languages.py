"""The languages the query engine extracts, declared as data.

Each entry names the grammar wheel (its module and the function returning the language), the
comment node types that carry doc comments, and the test rules the query file cannot express
(a test function's name pattern, and the file paths where that pattern applies). The patterns
themselves are in ``queries/<language>.scm``. Adding a language: docs/languages.md.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import tree_sitter as ts

from ingest.extract import ecmascript_hooks as es
from ingest.extract import rust_paths
from ingest.extract.engine import dotted, run
from ingest.extract.rows import FileExtract, ImportRow
from schema import SymbolKind

__all__ = ["SPECS", "LanguageSpec", "extract"]


def _same(callee: str) -> str:
    return callee


def _public(name: str, node: ts.Node) -> str:
    return "public"


def _itself(node: ts.Node) -> ts.Node:
    return node


def _start(node: ts.Node) -> int:
    return node.start_byte


def _all(comments: list[str]) -> list[str]:
    return comments


def _no_rows(data: bytes, node: ts.Node) -> list[ImportRow]:
    return []


def _go_visibility(name: str, node: ts.Node) -> str:
    """Go exports the names that start with an upper-case letter."""
    return "public" if name[:1].isupper() else "private"


def _go_doc_node(node: ts.Node) -> ts.Node:
    """A doc comment and signature start at a spec's declaration when it declares only that
    spec (``type T struct``), at the spec itself inside ``( ... )``."""
    parent = node.parent
    is_spec = node.type.endswith("_spec") or node.type == "type_alias"
    if is_spec and parent is not None and parent.type.endswith("_declaration") \
            and parent.named_child_count == 1 and not any(c.type == "(" for c in parent.children):
        return parent
    return node


_JAVA_ANNOTATIONS = frozenset({"annotation", "marker_annotation"})
_JAVA_INTERFACE_BODIES = frozenset({"interface_body", "annotation_type_body"})


def _java_modifiers(node: ts.Node) -> ts.Node | None:
    return next((c for c in node.children if c.type == "modifiers"), None)


def _java_visibility(name: str, node: ts.Node) -> str:
    """The access modifier; interface members are public, the rest package-private."""
    if node.type == "enum_constant":
        return "public"
    mods = _java_modifiers(node)
    words = {c.type for c in mods.children} if mods is not None else set()
    for word in ("public", "private", "protected"):
        if word in words:
            return word
    in_interface = node.parent is not None and node.parent.type in _JAVA_INTERFACE_BODIES
    return "public" if in_interface else "internal"


def _java_doc(comments: list[str]) -> list[str]:
    """Only a Javadoc comment (``/** ... */``) right above documents a declaration."""
    return comments[-1:] if comments and comments[-1].startswith("/**") else []


def _java_signature_start(node: ts.Node) -> int:
    """The declaration's start after its annotations."""
    mods = _java_modifiers(node)
    if mods is None:
        return node.start_byte
    words = [c for c in mods.children if c.type not in _JAVA_ANNOTATIONS]
    after = words[0] if words else mods.next_sibling
    return after.start_byte if after is not None else node.start_byte


def _ruby_callee(callee: str) -> str:
    """``Foo.new`` constructs a ``Foo``."""
    return callee[:-4] if callee.endswith(".new") and len(callee) > 4 else callee


@dataclass(frozen=True)
class LanguageSpec:
    name: str  # schema.Language value and the query file's stem
    module: str  # the grammar wheel's module
    function: str = "language"
    extensions: tuple[str, ...] = ()
    comment_types: frozenset[str] = frozenset({"comment"})
    #: name of a function/method that is a test (only in files matching ``test_file``)
    test_name: re.Pattern[str] | None = None
    test_file: re.Pattern[str] | None = None  # None: any file
    callee: Callable[[str], str] = field(default=_same)
    #: the kinds the ``test_name`` rule marks (Go marks functions only)
    test_kinds: frozenset[str] = frozenset({SymbolKind.FUNCTION, SymbolKind.METHOD})
    #: (name, declaring node) -> visibility
    visibility: Callable[[str, ts.Node], str] = field(default=_public)
    #: the node a definition's doc comment precedes and its signature starts in
    doc_node: Callable[[ts.Node], ts.Node] = field(default=_itself)
    #: the comments above a definition -> those that document it
    doc_comments: Callable[[list[str]], list[str]] = field(default=_all)
    #: where the signature starts in the doc node (after annotations, say)
    signature_start: Callable[[ts.Node], int] = field(default=_start)
    #: node types allowed between a definition and its doc comment (Rust's attributes)
    doc_skip: frozenset[str] = frozenset()
    #: a callee's or base's text -> its name ('' when it is not a name)
    name_of: Callable[[str], str] = field(default=dotted)
    #: the rows of an ``@import.hook`` statement
    import_rows: Callable[[bytes, ts.Node], list[ImportRow]] = field(default=_no_rows)
    #: an import inside a function belongs to it (``ImportRow.scope``)
    scoped_imports: bool = False
    #: the query files, concatenated in order (default: the language's own)
    query_files: tuple[str, ...] = ()

    def grammar(self) -> Callable[[], object]:
        fn: Callable[[], object] = getattr(importlib.import_module(self.module), self.function)
        return fn


_TESTS_DIR = r"(^|/)(tests?|spec|specs|__tests__)/"

SPECS: dict[str, LanguageSpec] = {s.name: s for s in (
    LanguageSpec("c", "tree_sitter_c", extensions=(".c", ".h"),
                 test_name=re.compile(r"^test_?"),
                 test_file=re.compile(_TESTS_DIR + r"|(^|/)test_[^/]*$|_test\.c$")),
    LanguageSpec("cpp", "tree_sitter_cpp",
                 extensions=(".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++"),
                 test_name=re.compile(r"^test_?"),
                 test_file=re.compile(_TESTS_DIR + r"|(^|/)test_[^/]*$|_test\.\w+$")),
    LanguageSpec("csharp", "tree_sitter_c_sharp", extensions=(".cs",)),
    LanguageSpec("ruby", "tree_sitter_ruby", extensions=(".rb", ".rake", ".gemspec"),
                 test_name=re.compile(r"^test_"),
                 test_file=re.compile(_TESTS_DIR + r"|_(test|spec)\.rb$|(^|/)test_[^/]*$"),
                 callee=_ruby_callee),
    LanguageSpec("php", "tree_sitter_php", "language_php", extensions=(".php",),
                 test_name=re.compile(r"^test"), test_file=re.compile(r"Test\.php$")),
    LanguageSpec("kotlin", "tree_sitter_kotlin", extensions=(".kt", ".kts"),
                 comment_types=frozenset({"line_comment", "block_comment"})),
    LanguageSpec("swift", "tree_sitter_swift", extensions=(".swift",),
                 comment_types=frozenset({"comment", "multiline_comment"}),
                 test_name=re.compile(r"^test"), test_file=re.compile(r"Tests?\.swift$")),
    LanguageSpec("scala", "tree_sitter_scala", extensions=(".scala", ".sc"),
                 comment_types=frozenset({"comment", "block_comment"})),
    LanguageSpec("bash", "tree_sitter_bash", extensions=(".sh", ".bash"),
                 test_name=re.compile(r"^test_?")),
    LanguageSpec("go", "tree_sitter_go", extensions=(".go",),
                 test_name=re.compile(r"^(Test|Benchmark|Fuzz|Example)([A-Z0-9_]|$)"),
                 test_file=re.compile(r"_test\.go$"),
                 test_kinds=frozenset({SymbolKind.FUNCTION}),
                 visibility=_go_visibility, doc_node=_go_doc_node),
    LanguageSpec("java", "tree_sitter_java", extensions=(".java",),
                 comment_types=frozenset({"block_comment", "line_comment"}),
                 test_name=re.compile(""),  # every class of a test file
                 test_file=re.compile(r"(Test|Tests|IT)\.java$|(^|/)Test[A-Z]\w*\.java$"),
                 test_kinds=frozenset({SymbolKind.CLASS}),
                 visibility=_java_visibility, doc_comments=_java_doc,
                 signature_start=_java_signature_start),
    LanguageSpec("rust", "tree_sitter_rust", extensions=(".rs",),
                 comment_types=frozenset({"line_comment", "block_comment"}),
                 doc_skip=frozenset({"attribute_item"}), doc_comments=rust_paths.doc_comments,
                 visibility=rust_paths.visibility, name_of=rust_paths.path_name,
                 import_rows=rust_paths.import_rows),
    *(LanguageSpec(name, module, function, extensions=exts, query_files=("ecmascript", dialect),
                   test_name=re.compile(""),  # every function and method of a test file
                   test_file=re.compile(r"(^|/)__tests__/|[._-](test|spec)\.[cm]?[jt]sx?$"),
                   visibility=es.visibility, doc_node=es.doc_node, doc_comments=es.doc_comments,
                   signature_start=es.signature_start, name_of=es.name_of,
                   import_rows=es.import_rows, scoped_imports=True)
      for name, module, function, exts, dialect in (
          ("javascript", "tree_sitter_javascript", "language",
           (".js", ".mjs", ".cjs", ".jsx"), "javascript"),
          ("typescript", "tree_sitter_typescript", "language_typescript",
           (".ts", ".mts", ".cts"), "typescript"),
          ("tsx", "tree_sitter_typescript", "language_tsx", (".tsx",), "typescript"))),
    LanguageSpec("lua", "tree_sitter_lua", extensions=(".lua",),
                 test_name=re.compile(r"^[Tt]est_?"),
                 test_file=re.compile(_TESTS_DIR + r"|_(test|spec)\.lua$|(^|/)test_[^/]*$")),
)}


#: C++ in a ``.h`` header (C++ projects name their headers .h too): a class, namespace or
#: template declaration at the start of a line.
_CPP_IN_HEADER = re.compile(rb"^\s*(?:class|namespace|template)\b[^;(]*[{<]", re.MULTILINE)


def extract(data: bytes, path: str, *, language: str) -> FileExtract:
    """Symbols, imports, calls, inheritance and tests of one file, by the query engine.

    A ``.h`` header (language ``c``) that declares a class, namespace or template is parsed
    with the C++ grammar and query; it stays a file of language ``c`` (C and C++ resolve as one
    family)."""
    spec = SPECS[language]
    if language == "c" and path.endswith(".h") and _CPP_IN_HEADER.search(data):
        fx = run(SPECS["cpp"], data, path)
        fx.language = language
        return fx
    return run(spec, data, path)
