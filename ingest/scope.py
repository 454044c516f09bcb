"""Which files an incremental ingest re-resolves: those whose references can bind
differently after the change (read from the stored CodeRef rows, nothing re-parsed)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import polars as pl

from graphdb import Store
from ingest.changes import Changes
from ingest.extract.rows import FileExtract
from ingest.frames import SYMBOL_COLUMNS, build_extract, extracts_from_rows, module_short_name
from ingest.resolve.python_stubs import parameters
from ingest.resolve.tests import tested_stem
from ingest.stored import Extracts
from ingest.warm import cached
from schema import CODE_REF, INHERITS, SYMBOL, ParseStatus, file_id

__all__ = ["current_symbols", "mentioning_closure", "rebound", "resolution_scope",
           "stored_refs"]

#: Re-resolve everything when more than this share of the files is affected anyway.
_FULL_RESOLVE_SHARE = 0.5


def resolution_scope(store: Store, repo: str,
                      plan: Changes) -> tuple[Mapping[str, FileExtract], set[str] | None]:
    """Extracts of every file (new ones parsed, the rest built from the graph when the
    resolver reaches them) and the set of files whose references must be re-resolved (None:
    all of them).

    A reference can resolve differently only if a name it mentions is bound differently now:
    so the files to re-resolve are the changed ones, those mentioning a name whose binding
    changed (closed over subclasses), and the tests named after a changed module. A change
    to the package structure or to a ``*`` import re-resolves everything.
    """
    extracts = {p: r.extract for p, r in plan.parsed.items() if r.extract is not None}
    parseable = set(plan.stored.filter(
        pl.col("parse_status").is_in([ParseStatus.OK, ParseStatus.PARTIAL]))["path"])
    kept = sorted(p for p in plan.same if p not in extracts and p in parseable)
    if not kept:
        return extracts, None
    stored = plan.stored.filter(pl.col("path").is_in(kept))
    symbols = current_symbols(store, repo)
    decls = stored_refs(store, repo, calls=False)
    old_ids = [file_id(repo, p) for p in plan.modified | plan.removed]
    old = extracts_from_rows(plan.stored.filter(pl.col("id").is_in(old_ids)),
                             symbols.filter(pl.col("file").is_in(old_ids)),
                             decls.filter(pl.col("file").is_in(old_ids)))
    structural = any(Path(p).name == "__init__.py" for p in plan.added | plan.removed) or \
        _stars_changed(old, extracts)
    packed = dict(zip(decls["file"], decls["decls"], strict=True))
    affected: set[str] = set()
    if not structural:
        ids = dict(zip(stored["path"], stored["id"], strict=True))
        names, guessed = _changed_names(old, extracts, plan.added | plan.removed)
        guessed = _guess_may_change(guessed - names, old, extracts, symbols, plan.stored)
        mentioned = mentioning_closure(store, repo, names, extracts, packed,
                                       set(ids.values()))
        if mentioned is None:  # a star import of a module whose binding changed
            structural = True
        else:
            mentioned |= _subclass_files(store, mentioned) & set(ids.values())
            mentioned |= _calling(store, repo, guessed) & set(ids.values())
            stems = {module_short_name(p) for p in plan.changed | plan.removed}
            affected = {p for p, fid in ids.items()
                        if fid in mentioned or _tests_one_of(p, stems)}
    full = structural or len(affected) + len(extracts) > _FULL_RESOLVE_SHARE * (
        len(kept) + len(extracts))
    call_paths = kept if full else sorted(affected)
    calls = stored_refs(store, repo, calls=True, files=[file_id(repo, p) for p in call_paths])
    files = Extracts(extracts, stored,
                     symbols.filter(pl.col("file").is_in(stored["id"].implode())),
                     packed, dict(zip(calls["file"], calls["calls"], strict=True)))
    if full:
        return files, None
    return files, set(plan.parsed) | affected


def current_symbols(store: Store, repo: str) -> pl.DataFrame:
    """The current Symbol rows of ``repo`` (file and :data:`SYMBOL_COLUMNS`); kept warm
    across a server's updates (:mod:`ingest.warm`)."""
    return cached(store, repo, "symbols", lambda: store.cypher(
        f"MATCH (s:{SYMBOL.name}) WHERE s.repo = $repo AND s.valid_to IS NULL "
        "RETURN s.file AS file, " + ", ".join(f"s.{c} AS {c}" for c in SYMBOL_COLUMNS),
        {"repo": repo}))


def stored_refs(store: Store, repo: str, *, calls: bool,
                 files: list[str] | None = None) -> pl.DataFrame:
    """CodeRef rows of the repository: (file, decls), plus the call sites of ``files``
    (the declarations are kept warm across a server's updates: :mod:`ingest.warm`)."""
    if not calls:
        return cached(store, repo, "decls", lambda: store.cypher(
            f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix "
            "RETURN r.file AS file, r.decls AS decls", {"prefix": file_id(repo, "")}))
    if not files:
        return pl.DataFrame(schema={"file": pl.Utf8, "decls": pl.Utf8, "calls": pl.Utf8})
    return store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file IN $files "
        "RETURN r.file AS file, '[]' AS decls, r.calls AS calls", {"files": files})


def _tests_one_of(path: str, stems: set[str]) -> bool:
    """A test file named for one of these modules (``test_parser.py`` for ``parser``)."""
    stem = Path(path).name.split(".", 1)[0]
    tested = tested_stem(path)
    return tested != stem and tested in stems


def _stars(fx: FileExtract) -> set[tuple]:
    return {(i.scope, i.module, i.level) for i in fx.imports if i.name == "*"}


def _stars_changed(old: Mapping[str, FileExtract], new: Mapping[str, FileExtract]) -> bool:
    """Whether the change touches what a ``*`` import brings in, so that any name may bind
    differently: a Python file whose star imports differ before and after (one that kept
    its star imports exports the same names through them; a module that appeared or went
    is reached through its name, see :func:`mentioning_closure`), or any changed file of
    another language with a wildcard import (their packages see each other's names)."""
    for path in old.keys() | new.keys():
        before, after = old.get(path), new.get(path)
        if not _plain_python_module(path) and not Path(path).name.startswith("__init__."):
            if any(_stars(fx) for fx in (before, after) if fx is not None):
                return True
        elif before is not None and after is not None and _stars(before) != _stars(after):
            return True
    return False


def _guess_may_change(names: set[str], old: Mapping[str, FileExtract],
                      new: Mapping[str, FileExtract], symbols: pl.DataFrame,
                      stored: pl.DataFrame) -> set[str]:
    """The ``names`` whose name-only guess may bind differently after the change.

    The guess (``ingest.resolve.python_calls``) binds a call to the one repository callable
    of its short name (library callers count the non-test ones; a bare ``f()`` counts no
    method), so a name that had two or more candidates before and still has two or more
    after, in each of these views, stays ambiguous: ``run`` in a new file does not
    re-resolve the standard library's 57 files calling some ``run``. A method counts in
    any case: a subclass's method joins the targets of calls to the method it overrides
    (class hierarchy analysis), and test code's ambiguous method calls may point at each.
    """
    from ingest.extract.python import is_test_path

    if not names:
        return set()
    paths = dict(zip(stored["id"], stored["path"], strict=True))
    changed = {fid for fid, path in paths.items() if path in old}
    rows = symbols.filter(pl.col("name").is_in(sorted(names))
                          & pl.col("kind").is_in(sorted(_GUESSABLE_KINDS))
                          & ~pl.col("file").is_in(sorted(changed)))
    # per name: [all, library, all but methods, library but methods]
    counts: dict[str, list[int]] = {n: [0, 0, 0, 0] for n in names}

    def add(into: list[int], path: str, kind: str) -> None:
        library = not is_test_path(path)
        into[0] += 1
        into[1] += library
        into[2] += kind != "method"
        into[3] += library and kind != "method"

    for fid, name, kind in rows.select("file", "name", "kind").iter_rows():
        add(counts[name], paths.get(fid, ""), kind)
    out = set()
    for name in names:
        lowest = []
        for side in (old, new):
            views = list(counts[name])
            for path, fx in side.items():
                for sym in fx.symbols:
                    if sym.name != name or sym.kind not in _GUESSABLE_KINDS:
                        continue
                    if sym.kind == "method":
                        out.add(name)
                    add(views, path, sym.kind)
            lowest.append(min(views))
        if min(lowest) <= 1:
            out.add(name)
    return out


def _bindings(fx: FileExtract) -> dict[str, set[tuple]]:
    """What each name is bound to in a file: definitions, imports, bases and assignments.
    Bodies and line numbers are left out: they never change how another file resolves; nor
    do names bound inside a function body (``x = 1``, a local import), which no other file
    can reach, unless they are ``self.`` attributes. What calling a function gives is read
    by its callers elsewhere (``made = make(); made.start()``), so it counts under the
    function's name: its parameter names (they hide outer names, pick its stub), its
    ``return`` and ``-> C`` rows, and the local bindings of a function that has those."""
    functions = {s.qualname: s.name for s in fx.symbols if s.kind in ("function", "method")}
    returning = {a.scope for a in fx.assigns if a.kind in _RETURN_KINDS}
    out: dict[str, set[tuple]] = {}
    for sym in fx.symbols:
        out.setdefault(sym.name, set()).add(("def", sym.qualname, sym.kind, sym.is_test))
        if sym.qualname in functions:
            out[sym.name].add(("parameters", sym.qualname, _parameters(fx, sym.signature)))
    for i in fx.imports:
        bound = i.alias or i.name or i.module.split(".", 1)[0]
        if i.scope in functions:
            if i.scope in returning:
                out.setdefault(functions[i.scope], set()).add(
                    ("local import", i.scope, bound, i.module, i.name, i.level))
            continue
        out.setdefault(bound, set()).add(("import", i.scope, i.module, i.name, i.level))
    for h in fx.inherits:
        out.setdefault(h.cls.rsplit(".", 1)[-1], set()).add(("base", h.cls, h.base, h.kind))
    for a in fx.assigns:
        if a.scope in functions and not a.target.startswith("self."):
            if a.scope in returning:
                out.setdefault(functions[a.scope], set()).add(
                    ("local", a.scope, a.target, a.value, a.kind))
            continue
        out.setdefault(a.target.rsplit(".", 1)[-1], set()).add(
            ("assign", a.scope, a.target, a.value, a.kind))
    return out


#: assignment rows that say what calling their scope's function gives
_RETURN_KINDS = frozenset({"returns", "returns-value", "returns-item"})


def _parameters(fx: FileExtract, signature: str) -> tuple[str, ...] | str:
    """A Python function's parameter names (annotations and defaults bind nothing another
    file reads); another language's whole header (a Go method's receiver)."""
    return parameters(signature) if fx.language == "python" else signature


def _changed_names(old: dict[str, FileExtract], new: dict[str, FileExtract],
                   appeared_or_gone: set[str]) -> tuple[set[str], set[str]]:
    """Names bound differently after the change, plus the module names of files that
    appeared or vanished; and the short names whose name-only guess may now differ.

    A Python module that appeared or vanished (not a package ``__init__`` nor a
    ``conftest.py``: those are structural) changes how another file binds only through its
    module name (nothing could import from it before, or can now) and through the
    name-only guess, which counts the repository's functions, methods and classes of a short
    name. The guess is taken for call sites only (never for an import, base or binding), so
    those names re-resolve the files *calling* them, without the re-export closure. Its
    imports, variables and bases bind nothing elsewhere, so ``import json`` in a new file
    does not re-resolve every file that mentions ``json``. Other languages see their
    package's names without an import (Go, Java), so every binding counts there.
    """
    names: set[str] = set()
    guessed: set[str] = set()
    for path in old.keys() | new.keys():
        if path in appeared_or_gone and _plain_python_module(path):
            fx = new.get(path) or old[path]
            guessed.update(s.name for s in fx.symbols if s.kind in _GUESSABLE_KINDS)
            continue
        before = _bindings(old[path]) if path in old else {}
        after = _bindings(new[path]) if path in new else {}
        names.update(n for n in before.keys() | after.keys() if before.get(n) != after.get(n))
    for path in appeared_or_gone:
        names.update(Path(part).name.split(".", 1)[0] for part in Path(path).parts)
    return names, guessed


#: symbol kinds the name-only guess of the Python resolver chooses among
_GUESSABLE_KINDS = frozenset({"function", "method", "class"})


def _plain_python_module(path: str) -> bool:
    name = Path(path).name
    return name.endswith((".py", ".pyi")) and name not in (
        "__init__.py", "__init__.pyi", "conftest.py")


def _mentioning(store: Store, repo: str, names: set[str]) -> set[str]:
    """Ids of files with a reference (call, import, base, binding) mentioning a name.

    Kuzu scans the packed JSON of every file with one regular expression: a name counts
    where it stands between JSON quotes and/or the separators of a dotted expression."""
    if not names:
        return set()
    alternatives = "|".join(sorted(re.escape(n) for n in names))
    pattern = rf'["./:]({alternatives})["./:(]'
    rows = store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix AND "
        "(regexp_matches(r.decls, $re) OR regexp_matches(r.calls, $re)) "
        "RETURN r.file AS file", {"prefix": file_id(repo, ""), "re": pattern})
    return set(rows["file"].to_list())


def _calling(store: Store, repo: str, names: set[str]) -> set[str]:
    """Ids of files with a call site whose callee ends in one of ``names`` (``run()``,
    ``x.run()``): the packed call sites are ``[scope, callee, line]``, so the name stands
    after a quote or a dot and before the quote that precedes the line number."""
    if not names:
        return set()
    alternatives = "|".join(sorted(re.escape(n) for n in names))
    rows = store.cypher(
        f"MATCH (r:{CODE_REF.name}) WHERE r.file STARTS WITH $prefix AND "
        "regexp_matches(r.calls, $re) RETURN r.file AS file",
        {"prefix": file_id(repo, ""), "re": rf'[".]({alternatives})",[0-9]'})
    return set(rows["file"].to_list())


def mentioning_closure(store: Store, repo: str, names: set[str],
                       parsed: Mapping[str, FileExtract], decls: Mapping[str, str],
                       kept: set[str]) -> set[str] | None:
    """Ids of the ``kept`` files mentioning a name whose binding changed, directly or through
    a re-export; None when one of them star-imports a module whose binding changed (any
    name it binds may then lead elsewhere: re-resolve everything).

    A binding that mentions a changed name may now lead elsewhere although it reads the same:
    ``model``'s ``from .api import delta`` once ``api`` is gone. Every file importing ``delta``
    from ``model`` then resolves differently without mentioning ``api``, so the names such
    bindings bind count as changed too, in the changed files and in every file found, until
    no new name turns up.
    """
    names = set(names)
    sources: dict[str, FileExtract] = dict(parsed)
    found: set[str] = set()
    new = set(names)
    while new:
        found |= _mentioning(store, repo, new) & kept
        for fid in found - sources.keys():
            sources[fid] = build_extract("", "", (), decls.get(fid))
        if any(i.name == "*" and _words(i.module) & names
               for fx in sources.values() for i in fx.imports):
            return None
        new = set().union(*(rebound(fx, names) for fx in sources.values())) - names
        names |= new
    return found


def rebound(fx: FileExtract, names: set[str]) -> set[str]:
    """Names that ``fx`` binds for other files (module-level imports and assignments,
    ``self.`` attributes, classes through their bases) by an expression mentioning one of
    ``names``."""
    out: set[str] = set()
    for i in fx.imports:
        if not i.scope and i.name != "*" and _words(i.module, i.name) & names:
            out.add(i.alias or i.name or i.module.split(".", 1)[0])
    for h in fx.inherits:
        if _words(h.base) & names:
            out.add(h.cls.rsplit(".", 1)[-1])
    for a in fx.assigns:
        if (not a.scope or a.target.startswith("self.")) and _words(a.value) & names:
            out.add(a.target.rsplit(".", 1)[-1])
    return out


def _words(*texts: str) -> set[str]:
    return {w for t in texts for w in re.findall(r"\w+", t)}


def _subclass_files(store: Store, files: set[str]) -> set[str]:
    """Files defining subclasses (at any depth) of the classes of ``files``, from the stored
    INHERITS edges (a base that now resolves differently is a name its file mentions)."""
    if not files:
        return set()
    rows = store.cypher(
        f"MATCH (c:{SYMBOL.name})-[:{INHERITS.name}*1..20]->(b:{SYMBOL.name}) "
        "WHERE b.file IN $files AND c.valid_to IS NULL RETURN DISTINCT c.file AS file",
        {"files": sorted(files)})
    return set(rows["file"].to_list())

