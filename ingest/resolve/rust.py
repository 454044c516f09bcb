"""Rust resolver: module paths (``crate::a::b``, ``self::``, ``super::``) map to files below the
crate root (the directory holding lib.rs or main.rs) as ``a/b.rs`` or ``a/b/mod.rs``; the rest
of a path names items inside that file (inline ``mod`` blocks included). Methods of a type may
live in any ``impl`` of the crate, so they are looked up crate-wide."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.family import Binding, FamilyResolver, Found, Target
from ingest.resolve.rows import ResolveResult
from schema import Resolution

__all__ = ["resolve"]

_PRELUDE = frozenset({
    "Some", "None", "Ok", "Err", "Box", "Vec", "String", "Option", "Result", "Default",
    "Iterator", "IntoIterator", "From", "Into", "Clone", "ToString", "ToOwned", "drop",
    "std", "core", "alloc", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "VecDeque", "Rc",
    "Arc", "RefCell", "Cell", "Mutex", "RwLock", "Cow", "PhantomData",
})
_ROOT_FILES = ("lib.rs", "main.rs")


class RustResolver(FamilyResolver):
    language = "rust"
    self_words = frozenset({"self", "Self"})
    super_word = ""

    def __init__(self, repo: str, files: dict[str, FileExtract]) -> None:
        super().__init__(repo, files)
        roots = {posixpath.dirname(p) for p in files if posixpath.basename(p) in _ROOT_FILES}
        self.root_of: dict[str, str] = {}
        self.modules: dict[tuple[str, tuple[str, ...]], str] = {}
        for path in sorted(files):
            root = max((r for r in roots if r == "" or path.startswith(f"{r}/")), key=len,
                       default=posixpath.dirname(path))
            self.root_of[path] = root
            self.modules.setdefault((root, self.module_path(path)), path)

    def module_path(self, path: str) -> tuple[str, ...]:
        """``src/a/b.rs`` and ``src/a/b/mod.rs`` -> (a, b); the crate root file -> ()."""
        root = self.root_of[path]
        rel = path[len(root) + 1:] if root else path
        rel = re.sub(r"(/mod)?\.rs$", "", rel)
        return () if rel in ("lib", "main") else tuple(rel.split("/"))

    def locate(self, path: str, segments: list[str]) -> tuple[str, list[str]] | None:
        """(file, item path inside it) for a module path written in ``path``; None = outside
        the crate."""
        root, here = self.root_of[path], self.module_path(path)
        head = segments[0]
        if head == "crate":
            base, rest = (), segments[1:]
        elif head in ("self", "super"):
            base, rest = here, segments
            while rest and rest[0] in ("self", "super"):
                base = base[:-1] if rest[0] == "super" else base
                rest = rest[1:]
        elif (root, (*here, head)) in self.modules:  # a child module of this one
            base, rest = here, segments
        else:
            return None
        while rest and (root, (*base, rest[0])) in self.modules:
            base, rest = (*base, rest[0]), rest[1:]
        file = self.modules.get((root, base))
        return (file, rest) if file is not None else None

    def _target(self, path: str, segments: list[str]) -> Target | None:
        """The file or item a path names, or None when it is outside the crate."""
        found = self.locate(path, segments)
        if found is None:
            return None
        file, items = found
        qualname = ".".join(items)
        if items and qualname in self.symbols[file]:
            return self.symbol(file, qualname)
        return self.file(file)

    @staticmethod
    def _segments(imp: ImportRow) -> list[str]:
        name = [] if imp.name in ("", "*") else [imp.name]
        return [*imp.module.split("::"), *name]

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        segments = self._segments(imp)
        target = self._target(path, segments)
        if target is not None:
            return [target]
        kind = "module" if imp.name in ("", "*") else "symbol"
        return [self.external("::".join(segments), kind)]

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        named: dict[str, Binding] = {}
        stars: list[Binding] = []
        for imp in self.files[path].imports:
            segments = self._segments(imp)
            target = self._target(path, segments)
            if target is None:
                binding = Binding(external="::".join(segments))
            elif target.qualname:
                binding = Binding(symbol=target)
            else:
                binding = Binding(files=(target.path,))
            if imp.name == "*":
                stars.append(binding)
            elif imp.alias != "_":
                named[imp.alias or segments[-1]] = binding
        return named, stars

    def shares_members(self, path: str, other: str) -> bool:
        """Any ``impl`` of the crate may add methods to a type."""
        return self.root_of[path] == self.root_of[other]

    def split(self, dotted: str) -> list[str]:
        return re.split(r"::|\.", dotted)

    def join(self, parts: Iterable[str]) -> str:
        return "::".join(parts)

    def resolve_callee(self, path: str, scope: str, callee: str) -> Found | None:
        """``crate::``/``self::``/``super::`` paths name an item directly."""
        if callee.startswith(("crate::", "self::", "super::")):
            target = self._target(path, callee.split("::"))
            if target is not None and target.qualname:
                how = Resolution.SAME_MODULE if target.path == path else Resolution.IMPORT
                return target, how
        return super().resolve_callee(path, scope, callee)

    def builtin(self, parts: list[str]) -> str | None:
        return "::".join(parts) if parts[0] in _PRELUDE else None


def resolve(repo: str, files: dict[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """CALLS, IMPORTS and INHERITS (impl Trait for Type) edges of the Rust ``files``."""
    return RustResolver(repo, files).run(only)
