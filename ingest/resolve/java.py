"""Java resolver: a package is the set of files declaring it; ``a.b.C`` is found as the class
``C`` of a file of package ``a.b`` (or nested class ``C.D`` of package ``a``); a bare ``m()``
inside a class is a method of that class or its bases before anything else."""

from __future__ import annotations

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.family import Binding, FamilyResolver, Target
from ingest.resolve.rows import ResolveResult

__all__ = ["resolve"]

#: java.lang, visible without an import.
_JAVA_LANG = frozenset({
    "Object", "String", "StringBuilder", "StringBuffer", "System", "Math", "StrictMath",
    "Integer", "Long", "Double", "Float", "Short", "Byte", "Boolean", "Character", "Number",
    "Thread", "Runnable", "Class", "Enum", "Record", "Iterable", "Comparable", "CharSequence",
    "Exception", "RuntimeException", "Error", "Throwable", "IllegalArgumentException",
    "IllegalStateException", "NullPointerException", "UnsupportedOperationException",
    "IndexOutOfBoundsException", "ArrayIndexOutOfBoundsException", "ArithmeticException",
    "ClassCastException", "InterruptedException", "CloneNotSupportedException",
    "NumberFormatException", "AssertionError", "Void", "Process", "ProcessBuilder", "Runtime",
    "ThreadLocal", "AutoCloseable", "Cloneable", "SecurityException", "StackOverflowError",
    "OutOfMemoryError", "ReflectiveOperationException", "ClassNotFoundException",
})


class JavaResolver(FamilyResolver):
    language = "java"
    implicit_self = True

    def __init__(self, repo: str, files: dict[str, FileExtract]) -> None:
        super().__init__(repo, files)
        self.packages: dict[str, list[str]] = {}
        for path in sorted(files):
            self.packages.setdefault(files[path].package, []).append(path)

    def find_class(self, dotted: str) -> Target | None:
        """The class ``a.b.C`` (package a.b) or nested ``a.C.D`` (package a, class C.D)."""
        return self.packaged_symbol(self.packages, dotted)

    def _static_member(self, imp: ImportRow) -> Target | None:
        cls = self.find_class(imp.module)
        qualname = f"{cls.qualname}.{imp.name}" if cls is not None else ""
        return self.symbol(cls.path, qualname) \
            if cls is not None and qualname in self.symbols[cls.path] else None

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        if imp.name == "*":
            files = self.packages.get(imp.module, [])
            if files:
                return [self.file(p) for p in files]
            cls = self.find_class(imp.module)  # import static a.b.C.*
            return [self.file(cls.path) if cls else self.external(imp.module, "module")]
        if imp.name:
            member = self._static_member(imp)
            if member is not None:
                return [member]
            cls = self.find_class(imp.module)
            return [self.file(cls.path) if cls else self.external(f"{imp.module}.{imp.name}")]
        cls = self.find_class(imp.module)
        return [self.file(cls.path) if cls is not None else self.external(imp.module)]

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        named: dict[str, Binding] = {}
        stars: list[Binding] = []
        for imp in self.files[path].imports:
            if imp.name == "*":
                files = tuple(self.packages.get(imp.module, ()))
                cls = None if files else self.find_class(imp.module)
                if files or cls is not None:
                    stars.append(Binding(symbol=cls, files=files))
            elif imp.name:
                member = self._static_member(imp)
                named[imp.name] = Binding(symbol=member) if member is not None \
                    else Binding(external=f"{imp.module}.{imp.name}")
            else:
                cls = self.find_class(imp.module)
                named[imp.module.rsplit(".", 1)[-1]] = Binding(symbol=cls) if cls is not None \
                    else Binding(external=imp.module)
        return named, stars

    def shares_scope(self, path: str, other: str) -> bool:
        return self.files[path].package == self.files[other].package

    def builtin(self, parts: list[str]) -> str | None:
        return ".".join(parts) if parts[0] in _JAVA_LANG else None


def resolve(repo: str, files: dict[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """CALLS, IMPORTS and INHERITS edges of the Java ``files``."""
    return JavaResolver(repo, files).run(only)
