"""Resolvers of the languages the query engine extracts, declared as data: one
:class:`ResolverSpec` per family, run by :class:`SpecResolver` over the shared
:class:`~ingest.resolve.family.FamilyResolver` lookup (self, enclosing definitions, imports,
same scope, star imports, builtins, then a unique-name guess at ``name_only`` confidence).

Two ways an import points at code, as the languages do:

``path``
    the import names a file (C/C++ ``#include``, Ruby ``require``, PHP ``require``, Bash
    ``source``, Lua ``require("a.b")`` -> ``a/b.lua``): relative to the importing file, then to
    the repository root, then any file whose path ends with it. Its top-level names become
    visible (a star import), or, where the import is bound to a local (Lua), members of that
    local. A C/C++ header brings its same-stem implementation files (``util.h`` -> ``util.c``).
``package``
    the import names a package or a type in one (C#, Kotlin, Scala, PHP ``use``, Swift):
    ``a.b.C`` is the top-level ``C`` of a file declaring package ``a.b``; ``a.b`` / ``a.b.*`` is
    every file of that package. Files of one package see each other's names.

Resolution values are the schema's, with their confidences: what is found through an import is
``import``, in the same file or package ``same_module``, a unique name anywhere ``name_only``
(0.4): these languages' dynamic dispatch and global namespaces (C, Ruby, Lua) make the guess
honest only at that confidence.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.family import TYPE_KINDS, Binding, FamilyResolver, Found, Target
from ingest.resolve.rows import ResolveResult

__all__ = ["FAMILIES", "SPECS", "ResolverSpec", "SpecResolver", "resolve"]


@dataclass(frozen=True)
class ResolverSpec:
    family: str
    imports: str  # "path" | "package"
    suffixes: tuple[str, ...] = ()  # tried after a path import's own name
    _: KW_ONLY
    dots_are_dirs: bool = False  # Lua: require("a.b") is a/b.lua
    self_words: frozenset[str] = frozenset({"this"})
    super_word: str = "super"
    implicit_self: bool = False  # a bare m() in a class body may be a method of the class
    builtins: frozenset[str] = frozenset()
    #: Swift: files of one target directory (Sources/<Target>/...) form a module
    module_dirs: bool = False


_C_BUILTINS = frozenset({
    "printf", "fprintf", "sprintf", "snprintf", "puts", "putchar", "getchar", "malloc",
    "calloc", "realloc", "free", "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp",
    "strncmp", "strcpy", "strncpy", "strcat", "strchr", "strstr", "strdup", "fopen", "fclose",
    "fread", "fwrite", "fgets", "fputs", "exit", "abort", "assert", "sizeof", "atoi", "qsort",
})

SPECS: dict[str, ResolverSpec] = {s.family: s for s in (
    ResolverSpec("c", "path", (".h", ".hpp", ".hh", ".c", ".cc", ".cpp"), implicit_self=True,
                 builtins=_C_BUILTINS),
    ResolverSpec("csharp", "package", implicit_self=True, super_word="base",
                 builtins=frozenset({"nameof", "typeof", "Console", "Math", "String"})),
    ResolverSpec("ruby", "path", (".rb",), self_words=frozenset({"self"}), implicit_self=True,
                 builtins=frozenset({"puts", "print", "p", "raise", "require", "format",
                                     "loop", "lambda", "proc", "sleep", "rand"})),
    ResolverSpec("php", "path", (".php",), self_words=frozenset({"this", "self", "static"}),
                 super_word="parent",
                 builtins=frozenset({"count", "strlen", "array_map", "array_filter",
                                     "array_keys", "in_array", "implode", "explode", "sprintf",
                                     "printf", "number_format", "json_encode", "json_decode",
                                     "is_array", "isset", "empty", "str_replace"})),
    ResolverSpec("kotlin", "package", implicit_self=True,
                 builtins=frozenset({"println", "print", "listOf", "mutableListOf", "mapOf",
                                     "mutableMapOf", "setOf", "require", "check", "error",
                                     "lazy", "repeat", "run", "let", "apply", "also"})),
    ResolverSpec("swift", "package", self_words=frozenset({"self"}), implicit_self=True,
                 module_dirs=True,
                 builtins=frozenset({"print", "min", "max", "abs", "precondition", "fatalError",
                                     "String", "Int", "Double", "Array", "Dictionary"})),
    ResolverSpec("scala", "package", implicit_self=True,
                 builtins=frozenset({"println", "print", "require", "assert", "List", "Seq",
                                     "Map", "Set", "Some", "Option", "Vector"})),
    ResolverSpec("bash", "path", (".sh", ".bash"), self_words=frozenset(), super_word="",
                 builtins=frozenset({"echo", "printf", "cd", "set", "export", "local", "read",
                                     "eval", "exec", "exit", "return", "shift", "trap", "unset",
                                     "test", "[", "declare", "readonly", "true", "false",
                                     "command", "type", "wait", "pushd", "popd"})),
    ResolverSpec("lua", "path", (".lua",), self_words=frozenset({"self"}), super_word="",
                 dots_are_dirs=True,
                 builtins=frozenset({"print", "pairs", "ipairs", "type", "tostring",
                                     "tonumber", "setmetatable", "getmetatable", "error",
                                     "assert", "pcall", "select", "rawget", "rawset",
                                     "string", "table", "math", "os", "io"})),
)}

#: language -> resolver family (C and C++ share headers, so they resolve together).
FAMILIES: dict[str, str] = {
    "c": "c", "cpp": "c", "csharp": "csharp", "ruby": "ruby", "php": "php",
    "kotlin": "kotlin", "swift": "swift", "scala": "scala", "bash": "bash", "lua": "lua",
}


class SpecResolver(FamilyResolver):
    """:class:`FamilyResolver` with the hooks filled in from a :class:`ResolverSpec`."""

    def __init__(self, spec: ResolverSpec, repo: str, files: Mapping[str, FileExtract]) -> None:
        super().__init__(repo, files)  # type: ignore[arg-type]  # a lazy mapping stays lazy
        self.spec = spec
        self.language = spec.family
        self.self_words = spec.self_words
        self.super_word = spec.super_word
        self.implicit_self = spec.implicit_self
        self.paths = frozenset(self.files)
        self.by_base: dict[str, list[str]] = {}
        self.packages: dict[str, list[str]] = {}
        for path in sorted(self.files):
            self.by_base.setdefault(posixpath.basename(path), []).append(path)
            package = self._package_of(path)
            if package:
                self.packages.setdefault(package, []).append(path)

    # packages -------------------------------------------------------------------------------

    def _package_of(self, path: str) -> str:
        if self.spec.module_dirs:
            return _module_dir(path)
        return self.files[path].package.replace("\\", ".")

    def _find_type(self, dotted: str) -> Target | None:
        """``a.b.C``: top-level (or nested) ``C`` of a file of package ``a.b``."""
        parts = dotted.split(".")
        for i in range(len(parts) - 1, -1, -1):
            package, qualname = ".".join(parts[:i]), ".".join(parts[i:])
            for p in self.packages.get(package, ()):
                if qualname in self.symbols[p]:
                    return self.symbol(p, qualname)
        return None

    # paths ----------------------------------------------------------------------------------

    def _files_for(self, path: str, module: str, *, implementations: bool = False
                   ) -> tuple[str, ...]:
        """Files a path import names (with ``implementations``, a C/C++ header brings its
        implementation files: their definitions are what the header declares)."""
        written = module.replace(".", "/") if self.spec.dots_are_dirs \
            and not module.startswith(".") else module
        names = [written, *(written + s for s in self.spec.suffixes)]
        if self.spec.dots_are_dirs:
            names.append(f"{written}/init.lua")
        here = posixpath.dirname(path)
        found: list[str] = []
        for name in names:
            for candidate in (posixpath.normpath(posixpath.join(here, name)),
                              posixpath.normpath(name)):
                if candidate in self.paths and candidate not in found:
                    found.append(candidate)
        if not found and not module.startswith("."):
            for name in names:
                base = posixpath.basename(name)
                found.extend(p for p in self.by_base.get(base, ())
                             if p.endswith("/" + name) and p not in found)
        if implementations:
            found.extend(s for f in list(found) for s in self._implementations(f)
                         if s not in found)
        return tuple(found)

    def _implementations(self, header: str) -> list[str]:
        stem, ext = posixpath.splitext(header)
        if ext not in (".h", ".hpp", ".hh"):
            return []
        return [stem + s for s in (".c", ".cc", ".cpp") if stem + s in self.paths]

    # hooks ----------------------------------------------------------------------------------

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        if self._is_path_import(imp):
            files = self._files_for(path, imp.module)
            return [self.file(p) for p in files] if files \
                else [self.external(imp.module, "module")]
        module = imp.module.replace("\\", ".")
        if imp.name and imp.name != "*":
            found = self._find_type(f"{module}.{imp.name}")
            return [found] if found is not None else [self.external(f"{module}.{imp.name}")]
        if module in self.packages:
            return [self.file(p) for p in self.packages[module]]
        found = self._find_type(module)
        return [found] if found is not None else [self.external(module, "module")]

    def _is_path_import(self, imp: ImportRow) -> bool:
        """PHP has both: ``use A\\B`` names a namespace, ``require 'x.php'`` a file."""
        if self.spec.imports == "path":
            return not (self.spec.family == "php" and not imp.module.endswith(".php"))
        return False

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        named: dict[str, Binding] = {}
        stars: list[Binding] = []
        for imp in self.files[path].imports:
            if self._is_path_import(imp):
                files = self._files_for(path, imp.module, implementations=True)
                binding = Binding(files=files) if files else Binding(external=imp.module)
                if imp.alias:
                    named[imp.alias] = binding
                elif files:
                    stars.append(binding)
                continue
            module = imp.module.replace("\\", ".")
            if imp.name == "*" or (not imp.name and module in self.packages):
                if module in self.packages:
                    stars.append(Binding(files=tuple(self.packages[module])))
                continue
            dotted = f"{module}.{imp.name}" if imp.name else module
            found = self._find_type(dotted)
            local = imp.alias or dotted.rsplit(".", 1)[-1]
            named[local] = Binding(symbol=found) if found is not None \
                else Binding(external=dotted)
        return named, stars

    def shares_scope(self, path: str, other: str) -> bool:
        if other == path:
            return True
        package = self._package_of(path)
        return bool(package) and package == self._package_of(other)

    shares_members = shares_scope

    def builtin(self, parts: list[str]) -> str | None:
        return ".".join(parts) if parts[0] in self.spec.builtins else None

    def module_member(self, files: Iterable[str], name: str) -> Target | None:
        """A top-level name, or (Lua) a member of a table the module defines (``M.f``)."""
        files = tuple(files)
        found = super().module_member(files, name)
        if found is not None or not self.spec.dots_are_dirs:
            return found
        for p in files:
            for qualname, sym in self.symbols.get(p, {}).items():
                if sym.name == name and sym.parent and "." not in sym.parent:
                    return self.symbol(p, qualname)
        return None

    def resolve_callee(self, path: str, scope: str, callee: str) -> Found | None:
        """A call of a type's name constructs it (Kotlin ``Cart()``, Ruby ``Cart.new``)."""
        found = super().resolve_callee(path, scope, callee)
        if found is None and callee.rsplit(".", 1)[-1][:1].isupper():
            found = self.resolve_type(path, callee, scope=scope)
            if found is not None and found[0].kind not in TYPE_KINDS:
                return None
        return found


def _module_dir(path: str) -> str:
    """Swift: ``Sources/Shop/Cart.swift`` -> ``Shop`` (a SwiftPM target), else the repository."""
    parts = path.split("/")
    for i, part in enumerate(parts[:-2]):
        if part in ("Sources", "Tests"):
            return parts[i + 1]
    return "."


def resolve(family: str, repo: str, files: Mapping[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """CALLS, IMPORTS and INHERITS edges of the ``files`` of one query-engine family."""
    return SpecResolver(SPECS[family], repo, files).run(only)
