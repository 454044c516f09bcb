"""Python CALLS rows: explicit calls, the implicit ones the syntax makes (``with``, ``for``,
``x[k]``, operators: the dunder methods of what the repository defines), functions handed on
as values, the fixtures a test requests, and the name-only guess of last resort."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingest.extract.python import IMPLICIT_DUNDERS, VALUE_PREFIX
from ingest.extract.rows import CallRow, FileExtract
from ingest.resolve.python_index import Index, is_test_file
from ingest.resolve.python_names import (
    BUILTIN_METHODS,
    CALLABLE_KINDS,
    VALUE_KINDS,
    External,
    Instance,
    Module,
    Sym,
    Target,
)
from ingest.resolve.rows import EdgeRow, ResolveResult
from schema import (
    CALLS,
    EXTERNAL,
    FILE,
    MODULE_QUALNAME,
    RESOLUTION_CONFIDENCE,
    SYMBOL,
    Resolution,
    file_id,
    symbol_id,
)

if TYPE_CHECKING:
    from ingest.resolve.python_providers import Providers

__all__ = ["OVERRIDE_CONFIDENCE", "call_edges", "destination", "fixture_edges"]

#: a subclass's override reached through an instance typed as the base: one of several
#: possible targets, so impact weighs it like a guess and the score floor stops it sooner
OVERRIDE_CONFIDENCE = 0.5


def destination(repo: str, target: Target, result: ResolveResult, kind: str = "symbol", *,
         providers: Providers | None = None, symbol_only: bool = False,
         ) -> tuple[str, str] | None:
    if isinstance(target, Sym):
        return symbol_id(repo, target.path, target.qualname), SYMBOL.name
    if isinstance(target, Module):
        return file_id(repo, target.path), FILE.name
    if isinstance(target, External):
        if providers is not None and not target.builtin:
            found = providers.target(target.name, symbol_only=symbol_only)
            if found is not None:
                return found
        ext_kind = "builtin" if target.builtin else kind
        return result.external("python", target.name, ext_kind), EXTERNAL.name
    return None



def call_edges(repo: str, path: str, fx: FileExtract, index: Index, result: ResolveResult) -> None:
    for call in fx.calls:
        scope = call.scope or MODULE_QUALNAME
        src = symbol_id(repo, path, scope)
        if not call.callee:
            result.unresolved.append((path, call.scope, "", call.line, "dynamic"))
            continue
        if call.callee.startswith(VALUE_PREFIX):
            _function_value(repo, path, call, index, result)
            continue
        target, method = index.expression(path, call.scope, call.callee)
        if isinstance(target, Sym) and target.kind in VALUE_KINDS:
            target = None  # calling a variable: what it holds is not known here
        if call.callee.rsplit(".", 1)[-1] in IMPLICIT_DUNDERS and not isinstance(target, Sym):
            continue  # ``with``/``for``/``x[k]``/operators on what the repository does not define
        if target is None or isinstance(target, (Module, Instance)):
            target, method = _guess(index, path, call.scope, call.callee)
            if target is None:
                result.unresolved.append((path, call.scope, call.callee, call.line, method))
                continue
        dst = destination(repo, target, result, providers=index.providers, symbol_only=True)
        if dst is None:
            continue
        if isinstance(target, External) and dst[1] != EXTERNAL.name:
            method = Resolution.IMPORT  # into another repository of the graph
        confidence = RESOLUTION_CONFIDENCE[Resolution(method)]
        result.edges.append(EdgeRow(CALLS.name, src, SYMBOL.name, dst[0], dst[1], call.line,
                                    method, confidence))
        if isinstance(target, Sym):  # the other same-scope definitions of the name follow
            for qualname in index.siblings(target):
                result.edges.append(EdgeRow(CALLS.name, src, SYMBOL.name,
                                            symbol_id(repo, target.path, qualname),
                                            SYMBOL.name, call.line, method, confidence))
            if "." in call.callee and not call.callee.startswith("super("):
                # through an instance: any override in a subclass may be what runs
                for sub in index.overrides(target, tests=is_test_file(path)):
                    result.edges.append(EdgeRow(
                        CALLS.name, src, SYMBOL.name, symbol_id(repo, sub.path, sub.qualname),
                        SYMBOL.name, call.line, Resolution.INHERITANCE, OVERRIDE_CONFIDENCE))
            if call.callee.startswith("super(") and call.callee.count(".") == 1:
                for base in index.super_candidates(path, call.scope, call.callee)[1:]:
                    result.edges.append(EdgeRow(
                        CALLS.name, src, SYMBOL.name, symbol_id(repo, base.path, base.qualname),
                        SYMBOL.name, call.line, Resolution.INHERITANCE,
                        RESOLUTION_CONFIDENCE[Resolution.INHERITANCE]))
            other = index.shadowed_import(target)
            if other is not None:
                result.edges.append(EdgeRow(
                    CALLS.name, src, SYMBOL.name, symbol_id(repo, other.path, other.qualname),
                    SYMBOL.name, call.line, Resolution.IMPORT,
                    RESOLUTION_CONFIDENCE[Resolution.IMPORT]))


def _function_value(repo: str, path: str, call: CallRow, index: Index,
                    result: ResolveResult) -> None:
    """A function used as a value (an argument, as in ``functools.partial(f)`` or a callback
    registered, or stored in a dict, list or attribute) is called later by whoever holds it:
    a CALLS edge from the scope that hands it on, when the name is a repository function
    (never a guess, and nothing recorded as unresolved: most such names are data)."""
    target, method = index.expression(path, call.scope, call.callee[len(VALUE_PREFIX):])
    if not isinstance(target, Sym) or target.kind not in CALLABLE_KINDS:
        return  # a class handed on is instantiated later (``partial(Signer, key)``)
    result.edges.append(EdgeRow(
        CALLS.name, symbol_id(repo, path, call.scope or MODULE_QUALNAME), SYMBOL.name,
        symbol_id(repo, target.path, target.qualname), SYMBOL.name, call.line, method,
        RESOLUTION_CONFIDENCE[Resolution(method)]))


def fixture_edges(repo: str, path: str, fx: FileExtract, index: Index,
              result: ResolveResult) -> None:
    """CALLS (resolution ``fixture``) from each test or fixture to the fixtures it requests;
    names no repository fixture defines (pytest's own ``tmp_path``, plugins') get none."""
    for asg in fx.assigns:
        if asg.kind != "fixture-use":
            continue
        target = index.fixture(path, asg.scope, asg.target)
        if target is None:
            continue
        result.edges.append(EdgeRow(
            CALLS.name, symbol_id(repo, path, asg.scope), SYMBOL.name,
            symbol_id(repo, target.path, target.qualname), SYMBOL.name, asg.line,
            Resolution.FIXTURE, RESOLUTION_CONFIDENCE[Resolution.FIXTURE]))


def _guess(index: Index, path: str, scope: str, callee: str) -> tuple[Target | None, str]:
    """Name-only fallback: the last name, when exactly one repository callable has it.

    Not taken when the head is known (``self`` of a class whose bases leave the repository,
    an External module): the callee then lies outside what the repository defines.
    """
    head, _, _ = callee.partition(".")
    name = callee.rsplit(".", 1)[-1]
    if "." in callee and name in BUILTIN_METHODS:
        return None, "builtin-method"
    if head in ("self", "cls") or head.startswith("super("):
        return None, "external-base"
    if "." in callee:
        target, _ = index.lookup_name(path, scope, head)
        if isinstance(target, External):
            return None, "external"
    elif index.is_bound(path, scope, head):
        return None, "bound-unresolved"  # ``append = out.append; append(x)``: not a guess
    candidates = index.by_name.get(name, [])
    if not is_test_file(path):  # library code never calls into a test helper
        candidates = [c for c in candidates if not is_test_file(c.path)]
    if len(candidates) == 1 and candidates[0].kind in CALLABLE_KINDS:
        return candidates[0], Resolution.NAME_ONLY
    return None, "ambiguous" if candidates else "unknown"

