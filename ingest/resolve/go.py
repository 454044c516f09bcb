"""Go resolver: packages are directories, so unqualified names and a type's methods are looked
up across the files of the caller's directory, and an import path is matched to the repository
directory it ends with (the module path in go.mod is not among the extracts)."""

from __future__ import annotations

import posixpath
import re

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.family import Binding, FamilyResolver, Target
from ingest.resolve.rows import ResolveResult

__all__ = ["resolve"]

_BUILTINS = frozenset({
    "append", "cap", "clear", "close", "complex", "copy", "delete", "imag", "len", "make", "max",
    "min", "new", "panic", "print", "println", "real", "recover",
    # conversions to predeclared types look like calls
    "any", "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int",
    "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16", "uint32",
    "uint64", "uintptr",
})
_RECEIVER = re.compile(r"^func\s*\(\s*(\w+)\s")
_MAJOR_VERSION = re.compile(r"^v\d+$")


class GoResolver(FamilyResolver):
    language = "go"
    self_words = frozenset()
    super_word = ""

    def __init__(self, repo: str, files: dict[str, FileExtract]) -> None:
        super().__init__(repo, files)
        self.dirs: dict[str, list[str]] = {}
        for path in sorted(files):
            self.dirs.setdefault(posixpath.dirname(path), []).append(path)
        self._packages: dict[str, tuple[str, ...]] = {}

    def package_files(self, import_path: str) -> tuple[str, ...]:
        """Non-test files of the repository directory ``import_path`` ends with (longest)."""
        if import_path not in self._packages:
            matches = [d for d in self.dirs
                       if d and (import_path == d or import_path.endswith(f"/{d}"))]
            best = max(matches, key=len, default=None)
            self._packages[import_path] = tuple(
                p for p in self.dirs.get(best, []) if not p.endswith("_test.go")
            ) if best is not None else ()
        return self._packages[import_path]

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        files = self.package_files(imp.module)
        if not files:
            return [self.external(imp.module, "module")]
        return [self.file(p) for p in files]

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        named: dict[str, Binding] = {}
        stars: list[Binding] = []
        for imp in self.files[path].imports:
            files = self.package_files(imp.module)
            binding = Binding(files=files) if files else Binding(external=imp.module)
            if imp.alias == ".":
                stars.append(binding)
            elif imp.alias != "_":
                named[imp.alias or self._package_name(imp.module, files)] = binding
        return named, stars

    def _package_name(self, import_path: str, files: tuple[str, ...]) -> str:
        """The declared package of the imported files, else the path's last element."""
        declared = next((self.files[p].package for p in files if self.files[p].package), "")
        if declared:
            return declared
        segments = import_path.split("/")
        if len(segments) > 1 and _MAJOR_VERSION.match(segments[-1]):
            return segments[-2]
        return segments[-1]

    def shares_scope(self, path: str, other: str) -> bool:
        return posixpath.dirname(path) == posixpath.dirname(other)

    shares_members = shares_scope

    def self_names(self, path: str, scope: str) -> frozenset[str]:
        """The receiver of the enclosing method (``s`` in ``func (s *S) M()``)."""
        sym = self.symbols[path].get(scope)
        match = _RECEIVER.match(sym.signature) if sym is not None else None
        return frozenset({match.group(1)}) if match else frozenset()

    def builtin(self, parts: list[str]) -> str | None:
        return parts[0] if len(parts) == 1 and parts[0] in _BUILTINS else None


def resolve(repo: str, files: dict[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """CALLS, IMPORTS and INHERITS (embedding) edges of the Go ``files``."""
    return GoResolver(repo, files).run(only)
