"""JavaScript / TypeScript resolver: relative specifiers name repository files (extensions and
index files tried, ``export ... from`` re-exports followed); bare specifiers are packages outside
the repository. The lookup order itself is :class:`~ingest.resolve.family.FamilyResolver`'s.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from ingest.extract.rows import FileExtract, ImportRow
from ingest.resolve.family import Binding, FamilyResolver, Target
from ingest.resolve.rows import ResolveResult

__all__ = ["resolve"]

_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_GLOBALS = frozenset({
    "console", "Array", "Object", "JSON", "Math", "Promise", "Number", "String", "Boolean",
    "Symbol", "Date", "RegExp", "Error", "TypeError", "RangeError", "SyntaxError", "Map", "Set",
    "WeakMap", "WeakSet", "Reflect", "Proxy", "BigInt", "Intl", "globalThis", "window",
    "document", "process", "Buffer", "require", "parseInt", "parseFloat", "isNaN", "isFinite",
    "setTimeout", "setInterval", "clearTimeout", "clearInterval", "setImmediate", "fetch",
    "structuredClone", "queueMicrotask", "encodeURIComponent", "decodeURIComponent",
    "encodeURI", "decodeURI", "URL", "URLSearchParams", "TextEncoder", "TextDecoder",
    "AbortController", "ArrayBuffer", "DataView", "Uint8Array", "Int32Array", "Float64Array",
    "alert", "Function", "Atomics", "WebAssembly", "Event", "EventTarget", "Headers", "Request",
    "Response", "FormData", "Blob", "crypto", "performance", "navigator", "location",
})
_WHOLE_MODULE = frozenset({"", "*", "default"})


class JavaScriptResolver(FamilyResolver):
    language = "javascript"

    def resolve_spec(self, importer: str, spec: str) -> str | None:
        """Repository file a relative specifier names (extensions and index files tried)."""
        if not spec.startswith((".", "/")):
            return None
        base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), spec)).lstrip("/")
        stem = re.sub(r"\.[cm]?jsx?$", "", base)  # TS code imports './a.js' meaning a.ts
        candidates = [base, *(stem + e for e in _EXTENSIONS),
                      *(f"{base}/index{e}" for e in _EXTENSIONS)]
        return next((c for c in candidates if c in self.files), None)

    def module_member(self, files: Iterable[str], name: str, depth: int = 0) -> Target | None:
        """Top-level ``name`` of a module, following ``export ... from`` re-exports."""
        for p in files:
            if name in self.symbols.get(p, {}):
                return self.symbol(p, name)
            if depth >= 5:
                continue
            for imp in self.files[p].imports:
                if imp.scope or imp.name == "":
                    continue
                star = imp.name == "*" and not imp.alias
                if not star and (imp.alias or imp.name) != name:
                    continue
                source = self.resolve_spec(p, imp.module)
                wanted = name if star else imp.name
                found = self.module_member([source], wanted, depth + 1) if source else None
                if found is not None:
                    return found
        return None

    def _default_export(self, path: str, local: str) -> Target | None:
        """The symbol a default import most likely binds: one named like the local name."""
        return self.symbol(path, local) if local in self.symbols[path] else None

    def import_targets(self, path: str, imp: ImportRow) -> list[Target]:
        source = self.resolve_spec(path, imp.module)
        if source is None:
            whole = imp.name in _WHOLE_MODULE
            name = imp.module if whole else f"{imp.module}.{imp.name}"
            return [self.external(name, "module" if whole else "symbol")]
        member = self._member_target(source, imp)
        return [member if member is not None else self.file(source)]

    def _member_target(self, source: str, imp: ImportRow) -> Target | None:
        if imp.name == "default":
            return self._default_export(source, imp.alias)
        if imp.name in _WHOLE_MODULE:
            return None
        return self.module_member([source], imp.name)

    def import_bindings(self, path: str) -> tuple[dict[str, Binding], list[Binding]]:
        named: dict[str, Binding] = {}
        for imp in self.files[path].imports:
            local = imp.alias or ("" if imp.name in _WHOLE_MODULE else imp.name)
            if not local:
                continue
            source = self.resolve_spec(path, imp.module)
            if source is None:
                whole = imp.name in _WHOLE_MODULE
                named[local] = Binding(external=imp.module if whole
                                       else f"{imp.module}.{imp.name}")
                continue
            member = self._member_target(source, imp)
            if member is not None:
                named[local] = Binding(symbol=member)
            elif imp.name in _WHOLE_MODULE:
                named[local] = Binding(files=(source,))
        return named, []

    def builtin(self, parts: list[str]) -> str | None:
        return ".".join(parts) if parts[0] in _GLOBALS else None


def resolve(repo: str, files: dict[str, FileExtract], *,
            only: set[str] | None = None) -> ResolveResult:
    """CALLS, IMPORTS and INHERITS edges of the JavaScript/TypeScript ``files``."""
    return JavaScriptResolver(repo, files).run(only)
