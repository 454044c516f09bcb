"""Python resolution's vocabulary: what a name can stand for (a module, a symbol, an
instance of a class, something outside the repository), how a name got bound, and the dotted
module name of each file."""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from schema import Resolution

__all__ = [
    "BUILTINS", "BUILTIN_METHODS", "CALLABLE_KINDS", "NO_BINDING", "VALUE_KINDS", "Binding",
    "External", "Instance", "Module", "Sym", "Target", "method_of", "module_name",
    "module_names",
]

BUILTINS = frozenset(dir(builtins))
#: Method names of builtin types: ``x.strip()`` on an unknown ``x`` is far more often a str
#: method than the one repository method of that name, so no name-only guess for these.
BUILTIN_METHODS = frozenset(
    name for t in (str, bytes, bytearray, list, tuple, dict, set, frozenset, int, float,
                   complex, object, type, memoryview, range, slice)
    for name in dir(t)
)
CALLABLE_KINDS = frozenset({"function", "method", "class"})
VALUE_KINDS = frozenset({"variable", "constant"})

# ---------------------------------------------------------------------------------- targets
# Not ``frozen``: a frozen dataclass's ``__init__`` sets each field through
# ``object.__setattr__``, and resolution makes hundreds of thousands of these; never mutated,
# hashable and compared by value all the same (``unsafe_hash``).
@dataclass(slots=True, unsafe_hash=True)
class Module:
    path: str


@dataclass(slots=True, unsafe_hash=True)
class Sym:
    path: str
    qualname: str
    kind: str


@dataclass(slots=True, unsafe_hash=True)
class Instance:
    path: str
    cls: str


@dataclass(slots=True, unsafe_hash=True)
class External:
    name: str
    builtin: bool = False
    #: an instance of the class ``name`` names, known from a stub (its members are checked)
    instance: bool = False


Target = Module | Sym | Instance | External


@dataclass(slots=True, unsafe_hash=True)
class Binding:
    """How a name got into a namespace."""

    kind: str  # def | import | from | assign | fixture (a parameter naming a fixture)
    value: str  # qualname, module name, or dotted expression
    member: str = ""  # for 'from'
    scope: str = ""  # for 'assign': where the value is evaluated
    instance: bool = False  # for 'assign'
    alias: bool = False  # for 'import': bound to the full module (import a.b as c)
    item: bool = False  # for 'assign': an item of what the value returns (a for loop)


NO_BINDING = Binding("none", "")


def module_names(paths: Iterable[str], *, root_package: str = "") -> dict[str, str]:
    """Dotted module name of every Python file among ``paths`` (see :func:`module_name`).

    A tree whose root is itself a package (an installed package's directory) imports itself
    by that package's name, ``root_package``: ``email/`` holds ``from email import errors``.
    """
    python = [p for p in paths if p.endswith((".py", ".pyi"))]
    package_dirs = {str(PurePosixPath(p).parent) for p in python
                    if PurePosixPath(p).name == "__init__.py"}
    prefix = root_package if "." in package_dirs and root_package.isidentifier() else ""
    out: dict[str, str] = {}
    for path in python:
        name = module_name(path, package_dirs)
        out[path] = (f"{prefix}.{name}" if name else prefix) if prefix else name
    return out


def module_name(path: str, package_dirs: set[str]) -> str:
    """Dotted module name of ``path``: the path below the highest ancestor that is not a
    package (a directory without ``__init__.py``), so ``src/pkg/mod.py`` is ``pkg.mod``."""
    p = PurePosixPath(path)
    parts = [p.stem] if p.stem != "__init__" else []
    parent = p.parent
    while str(parent) != "." and str(parent) in package_dirs:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(parts)


def method_of(binding: Binding, scope: str) -> str:
    if binding.kind in ("import", "from"):
        return Resolution.IMPORT
    if binding.kind == "fixture":
        return Resolution.CONSTRUCTOR  # an instance: the fixture returned ``C()``
    if binding.kind == "assign":
        return Resolution.CONSTRUCTOR if binding.instance else (
            Resolution.LOCAL if scope else Resolution.SAME_MODULE)
    return Resolution.LOCAL if scope else Resolution.SAME_MODULE

