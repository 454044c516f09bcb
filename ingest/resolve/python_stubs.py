"""Types the source does not say, read from stubs (``.pyi``) installed on this machine.

What calling ``asyncio.get_running_loop()`` gives, what a stdlib class's method returns, the
types of a stub-annotated parameter: the standard library's stubs come from a typeshed copy an
installed package ships (typeshed_client's, a run-time dependency of vgdb; else mypy's or
jedi's), third-party ones from ``.pyi`` files of installed packages (PEP 561: ``pkg-stubs/`` or
stubs inside ``pkg/``). Nothing is downloaded; without a typeshed copy these types are simply
absent. Each stub is parsed by the same extractor as source files, once per process, on first
use. A stub's annotation is read as a dotted name in the stub's own namespace (its classes and
imports), so ``-> AbstractEventLoop`` in ``_asyncio.pyi`` is ``asyncio.events.AbstractEventLoop``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import re
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ingest.extract import extract
from ingest.resolve.python_names import BUILTINS

__all__ = ["StubModule", "Stubs", "stubs"]

_SUFFIX = re.compile(r"~\d+$")
_PARAM = re.compile(r"[(,]\s*\**([A-Za-z_]\w*)")
#: packages that ship a copy of typeshed, and where its standard library lies in each
_TYPESHEDS = (("typeshed_client", "typeshed"), ("mypy", "typeshed/stdlib"),
              ("jedi", "third_party/typeshed/stdlib"))
_MAX_HOPS = 8
#: bump when :class:`StubModule`'s facts change: the on-disk cache keys on it
_FORMAT = 3


@dataclass(slots=True)
class StubModule:
    """The facts of one stub file a resolver asks about."""

    name: str  # dotted module name
    package: str  # the package relative imports start from
    kinds: dict[str, str] = field(default_factory=dict)  # qualname -> kind (first definition)
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)  # function -> names
    imports: dict[str, str] = field(default_factory=dict)  # local name -> full dotted name
    stars: list[str] = field(default_factory=list)
    returns: dict[str, str] = field(default_factory=dict)  # function -> annotation
    typed: dict[tuple[str, str], str] = field(default_factory=dict)  # (scope, name) -> type
    bases: dict[str, tuple[str, ...]] = field(default_factory=dict)  # class -> as written


class Stubs:
    """Stub files under ``roots`` (each a directory of importable names), parsed lazily."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self.roots = roots
        self._root_strings = [str(r) for r in roots]
        self._modules: dict[str, StubModule | None] = {}
        self._listings: dict[str, frozenset[str]] = {}

    def module(self, name: str) -> StubModule | None:
        """The stub of module ``name``, if one is installed."""
        if name not in self._modules:
            self._modules[name] = self._load(name)
        return self._modules[name]

    def _load(self, name: str) -> StubModule | None:
        # plain strings, not pathlib, and each directory listed once (a name not listed is
        # not stat-ed): resolving the standard library asks for ~800 modules, ~6000 stats
        parts = name.split(".")
        rest = os.sep.join(parts[1:])
        for root in self._root_strings:
            for base in (os.path.join(root, f"{parts[0]}-stubs"), os.path.join(root, parts[0])):
                if not self._may_exist(base, base + ".pyi"):
                    continue
                if not os.path.isdir(base) and not os.path.isfile(base + ".pyi"):
                    continue
                inner = os.path.join(base, rest) if rest else base
                for file, package in ((os.path.join(inner, "__init__.pyi"), True),
                                      (inner + ".pyi", False)):
                    if self._may_exist(file) and os.path.isfile(file):
                        return _cached(name, file, package)
        return None

    def _may_exist(self, *paths: str) -> bool:
        """Whether a listing of their directory (read once) names any of ``paths``."""
        for path in paths:
            directory, base = os.path.split(path)
            listing = self._listings.get(directory)
            if listing is None:
                try:
                    listing = frozenset(os.listdir(directory))
                except OSError:
                    listing = frozenset()
                self._listings[directory] = listing
            if base in listing:
                return True
        return False

    def lookup(self, full: str, hops: int = 0,
               seen: set[tuple[str, str]] | None = None) -> tuple[StubModule, str] | None:
        """(stub module, qualname) defining the dotted name ``full``, through re-exports."""
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = self.module(".".join(parts[:cut]))
            if mod is not None:
                return self._within(mod, ".".join(parts[cut:]), hops,
                                    set() if seen is None else seen)
        return None

    def _within(self, mod: StubModule, qualname: str, hops: int,
                seen: set[tuple[str, str]]) -> tuple[StubModule, str] | None:
        """``qualname`` in stub ``mod``: defined there, imported, or from a star import.

        A star import is looked into as the module it names and nothing else, and each
        (module, name) once per lookup: pyzmq's stubs star-import each other in a cycle,
        and a star module without a stub of its own used to send the lookup back to its
        parent package with the name grown by one part (``zmq.constants.constants...``),
        ~750K lookups for one name."""
        if (mod.name, qualname) in seen:
            return None
        seen.add((mod.name, qualname))
        head, _, rest = qualname.partition(".")
        if head in mod.kinds:
            return mod, qualname
        if hops < _MAX_HOPS and head in mod.imports:
            return self.lookup(mod.imports[head] + (f".{rest}" if rest else ""), hops + 1, seen)
        for star in mod.stars if hops < _MAX_HOPS else ():
            module = self.module(star)
            found = self._within(module, qualname, hops + 1, seen) if module else None
            if found is not None:
                return found
        return None

    def returns(self, full: str) -> str | None:
        """The full dotted name of the class whose instance calling ``full`` gives: a class
        gives itself, a function or method its return annotation (``Self``: its class)."""
        found = self.lookup(full)
        if found is None:
            return None
        mod, qualname = found
        kind = mod.kinds.get(qualname)
        if kind == "class":
            return f"{mod.name}.{qualname}"
        annotation = mod.returns.get(qualname)
        if annotation is None:
            return None
        if annotation == "Self" and "." in qualname:
            return f"{mod.name}.{qualname.rsplit('.', 1)[0]}"
        return self.qualify(mod, annotation)

    def has_member(self, full_class: str, name: str, hops: int = 0) -> bool:
        """Whether the stub class ``full_class`` (or a base it names) defines ``name``."""
        found = self.lookup(full_class)
        if found is None or hops > _MAX_HOPS:
            return False
        mod, qualname = found
        if f"{qualname}.{name}" in mod.kinds:
            return True
        for base in mod.bases.get(qualname, ()):
            full = self.qualify(mod, base) or (f"builtins.{base}" if base in BUILTINS else None)
            if full is not None and full != full_class and \
                    self.has_member(full, name, hops + 1):
                return True
        return False

    def qualify(self, mod: StubModule, text: str) -> str | None:
        """``text`` as the stub ``mod`` names it, as a full dotted name (None for type
        variables, aliases and builtins: nothing the resolver follows)."""
        head, _, rest = text.partition(".")
        if mod.kinds.get(head) == "class":
            return f"{mod.name}.{text}"
        if head in mod.imports:
            return mod.imports[head] + (f".{rest}" if rest else "")
        if head in BUILTINS or head in mod.kinds:
            return None
        for star in mod.stars:
            found = self.lookup(f"{star}.{text}")
            if found is not None and found[0].kinds.get(found[1]) == "class":
                return f"{found[0].name}.{found[1]}"
        return None

    def parameter(self, module: str, qualname: str, param: str,
                  source_params: tuple[str, ...]) -> str | None:
        """The full name of the class a parameter of ``module``'s ``qualname`` is annotated
        with in the module's own stub, when that stub's function has the same parameters
        as the source's (a stub of another module of the same name says nothing)."""
        mod = self.module(module)
        if mod is None or mod.params.get(qualname) != source_params:
            return None
        annotation = mod.typed.get((qualname, param))
        return self.qualify(mod, annotation) if annotation else None

    def own_return(self, module: str, qualname: str,
                   source_params: tuple[str, ...]) -> str | None:
        """What ``module``'s own stub says calling ``qualname`` gives (same parameters)."""
        mod = self.module(module)
        if mod is None or mod.params.get(qualname) != source_params:
            return None
        return self.returns(f"{module}.{qualname}")


@lru_cache(maxsize=1 << 16)
def parameters(signature: str) -> tuple[str, ...]:
    """Parameter names of a ``def`` header as the extractor keeps it (``SymbolRow.signature``)."""
    inside = signature.partition("(")[2].rpartition(")")[0]
    depth, kept = 0, []
    for ch in inside:  # drop what annotations and defaults hold in brackets
        depth += ch in "([{"
        depth -= ch in ")]}"
        kept.append(ch if depth == 0 else "")
    return tuple(_PARAM.findall("(" + "".join(kept).replace("=", ",=").replace(":", ",:")))


def _cached(name: str, file: str, package: bool) -> StubModule | None:
    """The facts of one stub, from the on-disk cache when its file has not changed: the
    standard library's stubs are ~740 files (~3 s to parse, ~0.1 s to load), and resolving
    the standard library itself reads most of them. A cache that cannot be written or read
    is only slower."""
    stat = os.stat(file)
    key = hashlib.sha1(f"{_FORMAT}|{name}|{file}|{stat.st_mtime_ns}|{stat.st_size}".encode())
    cache = os.path.join(_cache_dir(), f"{key.hexdigest()}.pickle")
    try:
        with open(cache, "rb") as fh:
            found = pickle.load(fh)
        if isinstance(found, StubModule):
            return found
    except (OSError, pickle.PickleError, EOFError, AttributeError, TypeError):
        pass
    mod = _read(name, Path(file), package)
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache[:-len('.pickle')]}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            pickle.dump(mod, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, cache)
    except OSError:
        pass
    return mod


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vectorgraphdb", "stubs")


def _read(name: str, file: Path, package: bool) -> StubModule | None:
    try:
        fx = extract("python", file.read_bytes(), file.name)
    except (OSError, ValueError):
        return None
    mod = StubModule(name, name if package else name.rpartition(".")[0])
    for sym in fx.symbols:
        qualname = _SUFFIX.sub("", sym.qualname)
        mod.kinds.setdefault(qualname, sym.kind)
        if sym.kind in ("function", "method") and qualname not in mod.params:
            mod.params[qualname] = parameters(sym.signature)
    for imp in fx.imports:
        if imp.scope:
            continue
        module = _absolute(mod.package, imp.module, imp.level)
        if imp.name == "*":
            mod.stars.append(module)
        elif imp.name:
            mod.imports.setdefault(imp.alias or imp.name, f"{module}.{imp.name}")
        elif imp.alias:
            mod.imports.setdefault(imp.alias, module)
        else:
            top = module.split(".", 1)[0]
            mod.imports.setdefault(top, top)
    for inh in fx.inherits:
        cls = _SUFFIX.sub("", inh.cls)
        mod.bases[cls] = (*mod.bases.get(cls, ()), inh.base)
    for asg in fx.assigns:
        scope = _SUFFIX.sub("", asg.scope)
        if asg.kind == "returns":
            mod.returns.setdefault(scope, asg.value)
        elif asg.kind == "instance" and "." not in asg.target:
            mod.typed.setdefault((scope, asg.target), asg.value)
    return mod


def _absolute(package: str, module: str, level: int) -> str:
    if level == 0:
        return module
    parts = package.split(".") if package else []
    parts = parts[: max(0, len(parts) - (level - 1))]
    return ".".join([*parts, module] if module else parts)


def _roots() -> tuple[Path, ...]:
    """Installed typeshed copies' standard library, then the site-packages directories."""
    out: list[Path] = []
    for package, inner in _TYPESHEDS:
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            spec = None
        origin = spec.origin if spec is not None else None
        if origin:
            root = Path(origin).parent / inner
            if root.is_dir():
                out.append(root)
                break
    for key in ("purelib", "platlib"):
        path = Path(sysconfig.get_paths()[key])
        if path.is_dir() and path not in out:
            out.append(path)
    return tuple(out)


@lru_cache(maxsize=1)
def stubs() -> Stubs:
    """The process's stub reader (stubs do not change while it runs)."""
    return Stubs(_roots())
