"""Closed vocabularies used in node and rel properties."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Language", "ParseStatus", "RefKind", "Resolution", "Source", "SymbolKind"]


class Source(StrEnum):
    """Where a fact came from (the ``source`` property of every node and rel)."""

    AST = "ast"
    WORKTREE = "worktree"
    GIT = "git"
    SESSION = "session"
    IMPORT = "import"
    USER = "user"
    INFERRED = "inferred"
    COVERAGE = "coverage"  # recorded by coverage.py while the tests ran


class SymbolKind(StrEnum):
    MODULE = "module"
    CLASS = "class"
    INTERFACE = "interface"
    STRUCT = "struct"
    ENUM = "enum"
    TRAIT = "trait"
    FUNCTION = "function"
    METHOD = "method"
    VARIABLE = "variable"
    CONSTANT = "constant"


class ParseStatus(StrEnum):
    OK = "ok"
    PARTIAL = "partial"  # syntax errors: the partial tree still yielded symbols
    SKIPPED = "skipped"  # not parsed (binary, too large, unknown language, unreadable)
    ERROR = "error"  # the extractor failed on this file


class RefKind(StrEnum):
    CALL = "call"
    IMPORT = "import"
    INHERIT = "inherit"
    ASSIGN = "assign"


class Resolution(StrEnum):
    """How a CALLS/IMPORTS/INHERITS target was found, most to least certain."""

    IMPORT = "import"  # through an import binding (incl. re-exports, module attributes)
    SELF = "self"  # self.m() / this.m() / cls.m() inside the class that defines m
    INHERITANCE = "inheritance"  # a method found on a base class
    SAME_MODULE = "same_module"  # a name defined in the same file or package scope
    LOCAL = "local"  # a name defined in an enclosing function
    CONSTRUCTOR = "constructor"  # x = C(); x.m() -> C.m
    BUILTIN = "builtin"  # a language builtin (External kind builtin)
    EXTERNAL = "external"  # bound by an import to something outside the repository
    NAME_ONLY = "name_only"  # a guess from a unique name anywhere in the repository
    FIXTURE = "fixture"  # a pytest fixture requested by a test's or fixture's parameter
    #: test code calling a name several repository methods define on a receiver of unknown
    #: type (``signer.sign()``): each is a candidate (the call stays unresolved)
    CANDIDATE = "candidate"
    #: a function or class handed on as a value (an argument, a dict/list item, an attribute):
    #: called later by whoever holds it, not where it is handed on
    VALUE = "value"


#: Confidence attached to each resolution method (used for CALLS edges and impact scores).
RESOLUTION_CONFIDENCE: dict[Resolution, float] = {
    Resolution.IMPORT: 0.95,
    Resolution.SELF: 0.9,
    Resolution.INHERITANCE: 0.85,
    Resolution.SAME_MODULE: 0.95,
    Resolution.LOCAL: 0.95,
    Resolution.CONSTRUCTOR: 0.8,
    Resolution.BUILTIN: 0.9,
    Resolution.EXTERNAL: 0.9,
    Resolution.NAME_ONLY: 0.4,
    Resolution.FIXTURE: 0.9,
    Resolution.CANDIDATE: 0.3,
    Resolution.VALUE: 0.9,
}


class Language(StrEnum):
    PYTHON = "python"
    JAVASCRIPT = "javascript"
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    GO = "go"
    JAVA = "java"
    RUST = "rust"
    C = "c"
    CPP = "cpp"
    CSHARP = "csharp"
    RUBY = "ruby"
    PHP = "php"
    KOTLIN = "kotlin"
    SWIFT = "swift"
    SCALA = "scala"
    BASH = "bash"
    LUA = "lua"
    JUPYTER = "jupyter"  # a notebook's code cells, parsed as Python
    # documents: File nodes without symbols (ingest/extract/document.py)
    MARKDOWN = "markdown"
    RESTRUCTUREDTEXT = "restructuredtext"
    TOML = "toml"
    YAML = "yaml"
