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

from ingest.extract.engine import run
from ingest.extract.rows import FileExtract

__all__ = ["SPECS", "LanguageSpec", "extract"]


def _same(callee: str) -> str:
    return callee


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
