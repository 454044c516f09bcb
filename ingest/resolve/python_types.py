"""What a call gives and what an untyped name holds, when the plain lookup says nothing:
every ``return`` of an unannotated function (``return C(...)``, ``return email.base64mime``),
the function a conditional import binds beside a def (``from _asyncio import
get_running_loop``), the other assignments of a local or of ``self.x`` (``h = Header(v)`` in
one branch, ``h = v`` in another), and installed stubs (:mod:`ingest.resolve.python_stubs`):
an External's return annotation, and the module's own stub for a parameter or a return the
source leaves unannotated. A part of :class:`ingest.resolve.python_index.Index`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingest.resolve.python_names import Binding, External, Instance, Module, Sym, Target
from ingest.resolve.python_stubs import Stubs, parameters

__all__ = ["Types"]

#: full names a stub may annotate with that say nothing to follow
_UNTYPED = ("builtins.", "typing.Any", "typing_extensions.Any", "_typeshed.", "typing.Self")


class Types:
    """Return and parameter types (declared here for the reader; Index defines them)."""

    kinds: dict[tuple[str, str], str]
    parents: dict[tuple[str, str], str]
    module_of: dict[str, str]
    path_of: dict[str, str]
    returns: dict[tuple[str, str], list[tuple[str, str]]]
    assigned: dict[tuple[str, str, str], Binding | list[Binding]]
    signatures: dict[tuple[str, str], str]
    _params: dict[tuple[str, str], frozenset[str]]
    stubs: Stubs | None
    _view: tuple[str, str] | None
    #: Index's lookups
    ensure: Callable[[str], None]
    expression: Callable[..., tuple[Target | None, str]]
    bound: Callable[[str, Binding], Target | None]
    module_member: Callable[[str, str], Target | None]
    class_member: Callable[..., tuple[Target | None, bool]]
    member: Callable[[Target | None, str], tuple[Target | None, bool]]
    shadowing: Callable[[Sym], Target | None]
    _guarded: Callable[..., Any]

    def returned(self, target: Target | None) -> Target | None:
        """What calling ``target`` gives, when the repository or a stub says: an instance of
        the class called, of the class a return annotation names (``-> C``), the first of an
        unannotated function's returns that resolves, a module it returns."""
        if isinstance(target, Sym) and target.kind == "class":
            return Instance(target.path, target.qualname)
        if isinstance(target, External):  # an instance called: its ``__call__``, unknown
            return None if target.instance else self._stub_instance(target)
        if not (isinstance(target, Sym) and target.kind in ("function", "method")):
            return None
        return self._guarded(("r", target.path, target.qualname, self._view),
                             lambda: self._returned(target), None)

    def _returned(self, target: Sym) -> Target | None:
        self.ensure(target.path)
        for kind, made in self.returns.get((target.path, target.qualname), ()):
            found, _ = self.expression(target.path, target.qualname, made)
            if kind == "returns-value":
                if isinstance(found, (Module, Instance)) or (
                        isinstance(found, Sym) and found.kind == "class"):
                    return found
                continue
            if isinstance(found, Sym) and found.kind == "class":
                return Instance(found.path, found.qualname)
            if isinstance(found, Sym) and found.kind in ("function", "method"):
                made_by = self.returned(found)  # ``return make(...)``: what ``make`` gives
                if made_by is not None:
                    return made_by
            if isinstance(found, External):
                made_by = self._stub_instance(found)
                if made_by is not None:
                    return made_by
        other = self.shadowing(target)  # ``from _asyncio import f`` beside ``def f``
        if other is not None:
            made_by = self.returned(other)
            if made_by is not None:
                return made_by
        module = self.module_of.get(target.path, "")
        if self.stubs is not None and module and (target.path, target.qualname) in \
                self.signatures and not self.returns.get((target.path, target.qualname)):
            full = self.stubs.own_return(module, target.qualname,
                                         parameters(self.signatures[(target.path,
                                                                     target.qualname)]))
            return self.typed(full) if full else None
        return None

    def _stub_instance(self, target: External) -> Target | None:
        """What calling an External gives, by its stub (None for builtins and the unknown)."""
        if target.builtin or self.stubs is None:
            return None
        full = self.stubs.returns(target.name)
        return self.typed(full) if full else None

    def typed(self, full: str) -> Target | None:
        """An instance of the class a full dotted name names: the repository's class when
        the name leads into the repository (a stub of another module annotating with it),
        else an External standing for the instance."""
        parts = full.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            path = self.path_of.get(".".join(parts[:cut]))
            if path is None:
                continue
            found: Target | None = Module(path)
            for part in parts[cut:]:
                found, _ = self.member(found, part)
                if found is None:
                    return None
            return Instance(found.path, found.qualname) \
                if isinstance(found, Sym) and found.kind == "class" else None
        if full.startswith(_UNTYPED):
            return None  # builtins (no methods followed), ``Any``, typeshed's helper aliases
        return External(full, instance=True)

    def stub_member(self, target: External, name: str) -> bool:
        """Whether the stub of the class an External instance has defines ``name`` (on the
        class or a base the stub names)."""
        return self.stubs is not None and self.stubs.has_member(target.name, name)

    def parameter_names(self, path: str, scope: str) -> frozenset[str]:
        """The parameter names of function ``scope`` (none for other scopes)."""
        key = (path, scope)
        found = self._params.get(key)
        if found is None:
            signature = self.signatures.get(key)
            found = frozenset(parameters(signature)) if signature is not None else frozenset()
            self._params[key] = found
        return found

    def parameter_type(self, path: str, scope: str, name: str) -> Target | None:
        """An unannotated parameter ``name`` of function ``scope``, as the module's own stub
        annotates it (the standard library's own modules, with typeshed installed)."""
        if self.stubs is None or name in ("self", "cls") or \
                name not in self.parameter_names(path, scope):
            return None
        module = self.module_of.get(path, "")
        if not module:
            return None
        full = self.stubs.parameter(module, scope, name,
                                    parameters(self.signatures[(path, scope)]))
        return self.typed(full) if full else None

    def alternative(self, path: str, binding: Binding,
                    others: Binding | list[Binding] | None) -> Target | None:
        """The first of the other assignments of a name (latest first) that resolves, when
        ``binding`` (the one the namespace keeps) does not."""
        if not isinstance(others, list):
            return None  # assigned once
        return self._guarded(("alt", path, id(others), self._view),
                             lambda: self._alternative(path, binding, others), None)

    def _alternative(self, path: str, binding: Binding, others: list[Binding]) -> Target | None:
        for other in reversed(others):
            if other is not binding:
                found = self.bound(path, other)
                if found is not None:
                    return found
        return None
