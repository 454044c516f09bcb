"""Incremental ingest equals a full rebuild, and re-parses only what changed (hypothesis).

A small package is generated from an abstract model (modules with functions and classes that
call each other across files, through ``from .m import f``, ``import pkg.m as alias``,
package re-exports and inheritance; functions whose parameter may hide an outer name and
that may return an instance, called as ``f().run()``), then random edit sequences are
applied: add, change, rename and delete files; add, remove and rename symbols; toggle
re-exports. After every step the tree is ingested incrementally; the parsed files must be
exactly the changed ones, and at the end the current graph must equal a full ingest of the
same tree into a fresh database.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from api.steps import communities_after_ingest
from graphdb import Store
from graphdb.communities import SCOPES
from ingest import IngestOptions, ingest_repository
from ingest.frames import edge_frames
from ingest.resolve import EdgeRow
from queries.communities import community_graph, detect_communities
from schema import CALLS, NODE_TABLES, REL_TABLES, SYMBOL
from tests.helpers import write_tree

NAMES = ["alpha", "beta", "gamma", "delta", "run", "step"]
CLASSES = ["Base", "Engine", "Part"]
MODULES = ["core", "util", "io", "api", "model"]
#: properties that legitimately differ between an incremental and a full ingest
_VOLATILE = {"recorded_at", "expired_at", "valid_from", "valid_to", "mtime_ns", "ingested_at"}


@dataclass
class Def:
    name: str
    is_class: bool = False
    base: tuple[str, str] | None = None  # (module, class)
    calls: list[tuple[str, str]] = field(default_factory=list)  # (module or '', name)
    #: a function's parameter (may hide a module name: ``def run(alpha): alpha()``)
    param: str = ""
    #: a function's ``return C()`` (module, class): callers' ``f().run()`` follow it
    returns: tuple[str, str] | None = None


@dataclass
class Model:
    modules: dict[str, list[Def]]
    reexports: set[tuple[str, str]] = field(default_factory=set)
    #: (module, starred module): ``from .starred import *`` at the top of ``module``
    stars: set[tuple[str, str]] = field(default_factory=set)

    def render(self, root: Path) -> None:
        pkg = root / "pkg"
        if root.exists():
            shutil.rmtree(root)
        pkg.mkdir(parents=True)
        init = [f"from .{m} import {n}" for m, n in sorted(self.reexports)
                if any(d.name == n for d in self.modules.get(m, []))]
        (pkg / "__init__.py").write_text("\n".join(init) + "\n")
        for module, defs in self.modules.items():
            stars = sorted(f"from .{other} import *" for m, other in self.stars
                           if m == module and other != module)
            (pkg / f"{module}.py").write_text(_render_module(module, defs, stars))


def _render_module(module: str, defs: list[Def], stars: list[str] = ()) -> str:
    imports: list[str] = list(stars)
    body: list[str] = []
    for i, d in enumerate(defs):
        lines: list[str] = []
        for j, (target, name) in enumerate(d.calls):
            if not target:
                lines.append(f"{name}()")
            elif target == "pkg":
                imports.append(f"from pkg import {name}")
                lines.append(f"{name}()")
            elif (i + j) % 3 == 0:
                imports.append(f"from .{target} import {name}")
                lines.append(f"{name}().run()")
            elif (i + j) % 3 == 1:
                imports.append(f"import pkg.{target} as m_{target}")
                lines.append(f"m_{target}.{name}()")
            else:
                imports.append(f"from . import {target}")
                lines.append(f"{target}.{name}().run()")
        calls = "\n".join(f"        {c}" for c in lines) or "        pass"
        if d.is_class:
            base = ""
            if d.base:
                imports.append(f"from .{d.base[0]} import {d.base[1]}")
                base = f"({d.base[1]})"
            body.append(f"class {d.name}{base}:\n    def run(self):\n{calls}\n"
                        f"        self.step()\n\n    def step(self):\n        pass\n")
        else:
            returns = ""
            if d.returns:
                imports.append(f"from .{d.returns[0]} import {d.returns[1]}")
                returns = f"    return {d.returns[1]}()\n"
            body.append(f"def {d.name}({d.param}):\n{calls.replace('        ', '    ')}\n"
                        + returns)
    return "\n".join(sorted(set(imports))) + "\n\n" + "\n\n".join(body)


# ------------------------------------------------------------------------------ strategies
call_targets = st.tuples(st.sampled_from(["", "pkg", *MODULES]), st.sampled_from(NAMES))


@st.composite
def defs(draw: st.DrawFn) -> list[Def]:
    out: list[Def] = []
    for name in draw(st.lists(st.sampled_from(NAMES + CLASSES), max_size=4, unique=True)):
        is_class = name in CLASSES
        base = draw(st.one_of(st.none(), st.tuples(st.sampled_from(MODULES),
                                                    st.sampled_from(CLASSES)))) \
            if is_class else None
        param, returns = "", None
        if not is_class:
            param = draw(st.sampled_from(["", "x", *NAMES, *CLASSES]))
            returns = draw(st.one_of(st.none(), st.tuples(st.sampled_from(MODULES),
                                                          st.sampled_from(CLASSES))))
        out.append(Def(name, is_class, base, draw(st.lists(call_targets, max_size=3)),
                       param, returns))
    return out


@st.composite
def models(draw: st.DrawFn) -> Model:
    names = draw(st.lists(st.sampled_from(MODULES), min_size=2, max_size=4, unique=True))
    reexports = draw(st.sets(st.tuples(st.sampled_from(MODULES), st.sampled_from(NAMES)),
                             max_size=3))
    stars = draw(st.sets(st.tuples(st.sampled_from(MODULES), st.sampled_from(MODULES)),
                         max_size=2))
    return Model({m: draw(defs()) for m in names}, set(reexports), set(stars))


@st.composite
def edits(draw: st.DrawFn) -> tuple:
    kind = draw(st.sampled_from(["add_file", "change_file", "rename_file", "delete_file",
                                 "add_def", "remove_def", "rename_def", "toggle_reexport",
                                 "toggle_star", "touch"]))
    return (kind, draw(st.sampled_from(MODULES)), draw(st.sampled_from(MODULES)),
            draw(defs()), draw(st.sampled_from(NAMES + CLASSES)), draw(st.integers(0, 9)))


def apply(model: Model, edit: tuple) -> None:
    kind, module, other, new_defs, name, n = edit
    mods = model.modules
    if (kind == "add_file" and module not in mods) or (kind == "change_file" and module in mods):
        mods[module] = new_defs
    elif kind == "rename_file" and module in mods and other not in mods:
        mods[other] = mods.pop(module)
    elif kind == "delete_file" and module in mods and len(mods) > 1:
        del mods[module]
    elif kind == "add_def" and module in mods and all(d.name != name for d in mods[module]):
        mods[module].append(Def(name, name in CLASSES, calls=[(other, NAMES[n % 6])]))
    elif kind == "remove_def" and mods.get(module):
        mods[module].pop(n % len(mods[module]))
    elif kind == "rename_def" and mods.get(module):
        d = mods[module][n % len(mods[module])]
        if all(x.name != name for x in mods[module]) and (name in CLASSES) == d.is_class:
            d.name = name
    elif kind == "toggle_reexport":
        model.reexports ^= {(module, name)}
    elif kind == "toggle_star":
        model.stars ^= {(module, other)}


# ------------------------------------------------------------------------------ snapshots
def snapshot(store: Store) -> dict[str, list[tuple]]:
    """The current graph as sorted rows per table: nodes and edges whose valid_to is null,
    every property but the timestamps."""
    out: dict[str, list[tuple]] = {}
    for table in NODE_TABLES:
        if table.internal and table.name != "CodeRef":
            continue
        cols = [p.name for p in table.columns if p.name not in _VOLATILE]
        frame = store.cypher(f"MATCH (n:{table.name}) WHERE n.valid_to IS NULL RETURN "
                             + ", ".join(f"n.{c} AS {c}" for c in cols))
        out[table.name] = sorted(frame.rows())
    for rel in REL_TABLES:
        cols = [p.name for p in rel.columns if p.name not in _VOLATILE]
        frame = store.cypher(
            f"MATCH (a)-[e:{rel.name}]->(b) WHERE a.valid_to IS NULL AND b.valid_to IS NULL "
            "RETURN a.id AS src, b.id AS dst" + "".join(f", e.{c} AS {c}" for c in cols))
        out[rel.name] = sorted(frame.rows())
    return out


def _ingest(db: Path, root: Path) -> dict:
    with Store.open(db) as store:
        return ingest_repository(store, root, options=IngestOptions(name="r")).to_dict()


def _ingest_and_follow(db: Path, root: Path) -> dict:
    """An ingest, then its communities step as ``vgdb ingest`` runs it (detected the first
    time, followed in place after, detected again past the drift limit). An in-place update
    moves exactly the members it reports; a kept one moves none."""
    with Store.open(db) as store:
        data = ingest_repository(store, root, options=IngestOptions(name="r")).to_dict()
        before = _memberships(store)
        step = communities_after_ingest(store, data)
        after = _memberships(store)
        changed = {m for m in before.keys() & after.keys() if before[m] != after[m]}
        if step["status"] == "updated":
            assert len(changed) == sum(step[s]["moved"] for s in SCOPES), (step, changed)
        elif step["status"] == "kept":
            assert before == after
        return data


def _memberships(store: Store) -> dict[tuple[str, str], dict[int, str]]:
    """(scope, member id) -> {level: community id}."""
    rows = store.cypher("MATCH (m)-[:IN_COMMUNITY]->(c:Community) RETURN c.scope AS s, "
                        "m.id AS m, c.level AS l, c.id AS c")
    out: dict[tuple[str, str], dict[int, str]] = {}
    for scope, member, level, community in rows.iter_rows():
        out.setdefault((scope, member), {})[level] = community
    return out


def community_partitions(store: Store) -> dict[tuple[str, int], set[frozenset[str]]]:
    """(scope, level) -> the stored communities as sets of member ids."""
    rows = store.cypher("MATCH (m)-[:IN_COMMUNITY]->(c:Community) RETURN c.scope AS s, "
                        "c.level AS l, c.id AS c, m.id AS m")
    groups: dict[tuple[str, int, str], set[str]] = {}
    for scope, level, community, member in rows.iter_rows():
        groups.setdefault((scope, level, community), set()).add(member)
    out: dict[tuple[str, int], set[frozenset[str]]] = {}
    for (scope, level, _), members in groups.items():
        out.setdefault((scope, level), set()).add(frozenset(members))
    return out


def check_communities(store: Store) -> None:
    """Stored communities cover exactly the current nodes of each scope, once per level;
    each community's size is its member count and its members sit in its parent."""
    graphs = {"file": community_graph(store, "r", scope="file"),
              "symbol": community_graph(store, "r", scope="symbol")}
    for (scope, level), groups in community_partitions(store).items():
        members = [m for g in groups for m in g]
        assert sorted(members) == sorted(graphs[scope].ids), (scope, level)
    sizes = store.cypher("MATCH (m)-[:IN_COMMUNITY]->(c:Community) WITH c, count(m) AS n "
                         "WHERE n <> c.size RETURN c.id")
    assert sizes.is_empty()
    split = store.cypher(
        "MATCH (m)-[:IN_COMMUNITY]->(c:Community)-[:SUBCOMMUNITY_OF]->(p:Community) "
        "WHERE NOT EXISTS { MATCH (m)-[:IN_COMMUNITY]->(p) } RETURN m.id, c.id")
    assert split.is_empty()


def _file_texts(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): p.read_text() for p in sorted(root.rglob("*.py"))}


@given(models(), st.lists(edits(), min_size=1, max_size=5))
def test_incremental_equals_full_rebuild(tmp_path_factory, model: Model, steps: list) -> None:
    work = tmp_path_factory.mktemp("inc")
    root, db = work / "tree", work / "db"
    model.render(root)
    first = _ingest_and_follow(db, root)
    assert first["files"]["parsed"] == len(_file_texts(root))
    for step in steps:
        before = _file_texts(root)
        apply(model, step)
        model.render(root)
        after = _file_texts(root)
        changed = sorted(p for p, text in after.items() if before.get(p) != text)
        summary = _ingest_and_follow(db, root)
        assert summary["reparsed_paths"] == changed, step
        assert summary["files"]["removed"] == len(before.keys() - after.keys())
    with Store.open(db, read_only=True) as store:
        incremental = snapshot(store)
        check_communities(store)
    _ingest_and_follow(work / "full", root)
    with Store.open(work / "full", read_only=True) as store:
        full = snapshot(store)
    communities = {t for t in full if "COMMUNIT" in t.upper() or t == "DEPENDS_ON"}
    for table in full.keys() - communities:
        assert incremental[table] == full[table], table
    # communities: kept in place or warm-started, so their numbers and names depend on the
    # history; detected from scratch on both graphs they are the same partitions
    partitions = []
    for path in (db, work / "full"):
        with Store.open(path) as store:
            for scope in ("file", "symbol"):
                detect_communities(store, "r", scope=scope, fresh=True)  # type: ignore[arg-type]
            partitions.append(community_partitions(store))
    assert partitions[0] == partitions[1]


def test_snapshot_sees_cross_file_edges(tmp_path: Path) -> None:
    """The property above is only as good as its snapshot: check it sees what matters."""
    model = Model({"core": [Def("alpha", calls=[("util", "beta")])], "util": [Def("beta")]})
    model.render(tmp_path / "tree")
    _ingest(tmp_path / "db", tmp_path / "tree")
    with Store.open(tmp_path / "db", read_only=True) as store:
        snap = snapshot(store)
    calls = {(row[0], row[1], row[3]) for row in snap["CALLS"]}
    assert ("sym:r/pkg/core.py#alpha", "sym:r/pkg/util.py#beta", "import") in calls
    assert len(snap["File"]) == 3


# ------------------------------------------------------------------------------ regressions
def _incremental_equals_full(tmp_path: Path, files: dict[str, str],
                             edit: Callable[[Path], None]) -> dict[str, list[tuple]]:
    """Ingest ``files``, apply ``edit`` to the tree, ingest again; assert the graph equals a
    full ingest of the edited tree and that only changed files were parsed. Returns the
    incremental snapshot."""
    root = write_tree(tmp_path / "tree", files)
    _ingest(tmp_path / "db", root)
    before = _file_texts(root)
    edit(root)
    after = _file_texts(root)
    summary = _ingest(tmp_path / "db", root)
    assert summary["reparsed_paths"] == sorted(p for p, text in after.items()
                                               if before.get(p) != text)
    with Store.open(tmp_path / "db", read_only=True) as store:
        incremental = snapshot(store)
    with Store.open(tmp_path / "full") as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
        full = snapshot(store)
    for table in full:
        assert incremental[table] == full[table], table
    return incremental


def test_reexport_chain_follows_deleted_module(tmp_path: Path) -> None:
    """``core`` imports ``delta`` from ``model``, which imports it from ``api``: deleting
    ``api`` changes where ``core``'s import leads although ``core`` mentions neither the
    module nor a name whose own binding changed (the hypothesis example that found it)."""
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/api.py": "",
        "pkg/model.py": "from .api import delta\n",
        "pkg/core.py": "from .model import delta\n\ndef alpha():\n    delta()\n",
    }, lambda root: (root / "pkg/api.py").unlink())
    assert ("file:r/pkg/core.py", "ext:python:pkg.api.delta") in {
        row[:2] for row in snap["IMPORTS"]}


def test_reexport_chain_through_changed_file(tmp_path: Path) -> None:
    """The same chain when the file in the middle changes too (its import reads the same)."""
    def edit(root: Path) -> None:
        (root / "pkg/api.py").unlink()
        (root / "pkg/model.py").write_text("from .api import delta\n\n\ndef beta():\n    pass\n")

    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/api.py": "",
        "pkg/model.py": "from .api import delta\n",
        "pkg/core.py": "from .model import delta\n\ndef alpha():\n    delta()\n",
    }, edit)
    assert ("file:r/pkg/core.py", "ext:python:pkg.api.delta") in {
        row[:2] for row in snap["IMPORTS"]}


def test_alias_assignment_follows_moved_definition(tmp_path: Path) -> None:
    """``helper = api.delta`` in ``model``: when ``api`` re-exports ``delta`` from ``util``
    instead of defining it, ``core``'s call of ``helper`` leads to ``util.delta``."""
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/api.py": "def delta():\n    pass\n",
        "pkg/util.py": "def delta():\n    pass\n",
        "pkg/model.py": "from . import api\n\nhelper = api.delta\n",
        "pkg/core.py": "from .model import helper\n\n\ndef alpha():\n    helper()\n",
    }, lambda root: (root / "pkg/api.py").write_text("from .util import delta\n"))
    assert ("sym:r/pkg/core.py#alpha", "sym:r/pkg/util.py#delta") in {
        row[:2] for row in snap["CALLS"]}


def test_inherited_method_follows_changed_base(tmp_path: Path) -> None:
    """``Engine(Base)`` reads the same when ``mid`` imports ``Base`` from elsewhere, but a
    caller of an inherited method of ``Engine`` (which names neither ``Base`` nor a changed
    method) now reaches the other base."""
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": "class Base:\n    def run(self):\n        pass\n",
        "pkg/other.py": "class Base:\n    def run(self):\n        pass\n",
        "pkg/mid.py": "from .base import Base\n\n\nclass Engine(Base):\n    pass\n",
        "pkg/user.py": "from .mid import Engine\n\n\ndef go():\n    e = Engine()\n    e.run()\n",
    }, lambda root: (root / "pkg/mid.py").write_text(
        "from .other import Base\n\n\nclass Engine(Base):\n    pass\n"))
    assert ("sym:r/pkg/user.py#go", "sym:r/pkg/other.py#Base.run") in {
        row[:2] for row in snap["CALLS"]}


def test_one_edge_per_pair_whatever_the_order_of_sites() -> None:
    """``self._key() < other._key()``: two sites of one pair on one line, found by different
    methods. The edge kept must not depend on the order the resolver produced them in (a
    full ingest and an incremental one resolve in different orders), so the best evidence
    wins."""
    src, dst = "sym:r/m.py#C.__lt__", "sym:r/m.py#C._key"
    sites = [EdgeRow(CALLS.name, src, SYMBOL.name, dst, SYMBOL.name, 3, "name_only", 0.4),
             EdgeRow(CALLS.name, src, SYMBOL.name, dst, SYMBOL.name, 3, "self", 0.9),
             EdgeRow(CALLS.name, src, SYMBOL.name, dst, SYMBOL.name, 5, "local", 1.0)]
    frames = [edge_frames("r", order, {}, set())[(CALLS.name, SYMBOL.name, SYMBOL.name)]
              for order in (sites, sites[::-1], sites[1:] + sites[:1])]
    assert frames[0].to_dicts() == frames[1].to_dicts() == frames[2].to_dicts()
    assert frames[0].select("line", "resolution", "count", "source").rows() == [
        (3, "self", 3, "ast")]


def _padding(n: int) -> dict[str, str]:
    """Unrelated modules, so that an edit re-resolves a few files, not the whole tree."""
    return {f"pkg/pad{i}.py": f"def pad{i}():\n    pass\n" for i in range(n)}


def test_fixture_added_and_changed_in_conftest_relinks_the_tests(tmp_path: Path) -> None:
    """A test requests ``runner`` before conftest.py defines it; then the fixture appears and
    returns a ``Runner``: the unchanged test file is re-resolved (it names the fixture) and
    its ``runner.invoke()`` reaches ``Runner.invoke``."""
    def edit(root: Path) -> None:
        (root / "tests/conftest.py").write_text(
            "import pytest\nfrom pkg.run import Runner\n\n\n@pytest.fixture\n"
            "def runner():\n    return Runner()\n")

    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/run.py": "class Runner:\n    def invoke(self):\n        pass\n",
        "tests/conftest.py": "import pytest\n",
        "tests/test_run.py": "def test_run(runner):\n    runner.invoke()\n",
        **_padding(8),
    }, edit)
    calls = {row[:2] for row in snap["CALLS"]}
    assert ("sym:r/tests/test_run.py#test_run", "sym:r/tests/conftest.py#runner") in calls
    assert ("sym:r/tests/test_run.py#test_run", "sym:r/pkg/run.py#Runner.invoke") in calls


def test_implementation_added_after_overload_stubs_gets_the_callers(tmp_path: Path) -> None:
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/conv.py": "import typing as t\n\n\n@t.overload\ndef conv(x: int) -> int: ...\n",
        "pkg/use.py": "from .conv import conv\n\n\ndef go():\n    conv(1)\n",
        **_padding(8),
    }, lambda root: (root / "pkg/conv.py").write_text(
        "import typing as t\n\n\n@t.overload\ndef conv(x: int) -> int: ...\n"
        "def conv(x):\n    return x\n"))
    assert ("sym:r/pkg/use.py#go", "sym:r/pkg/conv.py#conv~2") in {
        row[:2] for row in snap["CALLS"]}


def test_property_read_of_an_unchanged_file(tmp_path: Path) -> None:
    """A getter is known from the stored rows of its unchanged file (the ``property`` row),
    not from its decorator's call site (call sites are not rebuilt for unchanged files):
    a changed caller reading it gets the same edge as a full ingest."""
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/result.py": ("class Result:\n    @property\n    def output(self):\n"
                          "        return ''\n"),
        "pkg/use.py": ("from .result import Result\n\n\ndef show(r: Result):\n"
                       "    return r.output.strip()\n"),
    }, lambda root: (root / "pkg/use.py").write_text(
        "from .result import Result\n\n\ndef show(r: Result):\n"
        "    return r.output.upper()\n"))
    assert ("sym:r/pkg/use.py#show", "sym:r/pkg/result.py#Result.output") in {
        row[:2] for row in snap["CALLS"]}


def test_class_attribute_override_added_in_a_subclass(tmp_path: Path) -> None:
    """A subclass starts overriding a class attribute the base reads through ``self``: the
    base's unchanged file calls the new candidate, as after a full ingest."""
    base = ("import json\n\n\nclass Serializer:\n    default = json\n\n"
            "    def dump(self, obj):\n        return self.default.dumps(obj)\n")
    snap = _incremental_equals_full(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/base.py": base,
        "pkg/compact.py": "class Compact:\n    @staticmethod\n    def dumps(obj):\n"
                          "        return ''\n",
        "pkg/url.py": "from .base import Serializer\n\n\nclass URLSafe(Serializer):\n    pass\n",
    }, lambda root: (root / "pkg/url.py").write_text(
        "from .base import Serializer\nfrom .compact import Compact\n\n\n"
        "class URLSafe(Serializer):\n    default = Compact\n"))
    assert ("sym:r/pkg/base.py#Serializer.dump", "sym:r/pkg/compact.py#Compact.dumps") in {
        row[:2] for row in snap["CALLS"]}

def _hub_tree() -> dict[str, str]:
    """A hub module that star-imports another (as ``os`` does ``posix``), eight importers
    of it, one of them star-importing the hub itself."""
    files = {
        "pkg/__init__.py": "",
        "pkg/low.py": "def getcwd():\n    pass\n\n\ndef sep():\n    pass\n",
        "pkg/hub.py": "from .low import *\n\n\ndef walk():\n    getcwd()\n",
        "pkg/star_user.py": "from .hub import *\n\n\ndef go():\n    walk()\n    fresh()\n",
        "pkg/named_user.py": "from . import hub\n\n\ndef go():\n    hub.fresh()\n",
    }
    for i in range(8):
        files[f"pkg/use{i}.py"] = f"from .hub import walk\n\n\ndef u{i}():\n    walk()\n"
    return files


def test_hub_with_star_import_gains_a_function_reresolves_only_its_users(
        tmp_path: Path) -> None:
    """A new function in a module that star-imports another re-resolves the module and the
    files mentioning the new name, not every importer (the standard library's ``os``)."""
    def edit(root: Path) -> None:
        hub = root / "pkg/hub.py"
        hub.write_text(hub.read_text() + "\n\ndef fresh():\n    sep()\n")

    snap = _incremental_equals_full(tmp_path, _hub_tree(), edit)
    calls = {row[:2] for row in snap["CALLS"]}
    assert ("sym:r/pkg/star_user.py#go", "sym:r/pkg/hub.py#fresh") in calls
    assert ("sym:r/pkg/named_user.py#go", "sym:r/pkg/hub.py#fresh") in calls
    assert ("sym:r/pkg/hub.py#fresh", "sym:r/pkg/low.py#sep") in calls
    hub = tmp_path / "tree/pkg/hub.py"
    hub.write_text(hub.read_text() + "\n\ndef other():\n    pass\n")
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, tmp_path / "tree", options=IngestOptions(name="r"))
    assert summary.parsed == 1 and summary.reresolved == 1  # nobody mentions ``other``


def test_star_import_changed_in_hub_reresolves_everything(tmp_path: Path) -> None:
    """A star import added to a module changes which names it binds: full re-resolution."""
    def edit(root: Path) -> None:
        (root / "pkg/low2.py").write_text("def fresh():\n    pass\n")
        hub = root / "pkg/hub.py"
        hub.write_text("from .low2 import *\n" + hub.read_text())

    snap = _incremental_equals_full(tmp_path, _hub_tree(), edit)
    assert ("sym:r/pkg/star_user.py#go", "sym:r/pkg/low2.py#fresh") in {
        row[:2] for row in snap["CALLS"]}


def test_star_import_of_a_module_that_appears_follows_it(tmp_path: Path) -> None:
    """``a`` star-imports ``newmod`` before it exists and ``b`` imports ``helper`` from
    ``a``: once ``newmod`` appears, ``b``'s import leads into it although ``b`` mentions
    neither ``newmod`` nor a name whose own binding changed."""
    snap = _incremental_equals_full(tmp_path, {
        "a.py": "from newmod import *\n",
        "b.py": "from a import helper\n\n\ndef go():\n    helper()\n",
        **_padding(8),
    }, lambda root: (root / "newmod.py").write_text("def helper():\n    pass\n"))
    assert ("sym:r/b.py#go", "sym:r/newmod.py#helper") in {
        row[:2] for row in snap["CALLS"]}


def test_new_file_with_an_already_ambiguous_name_reresolves_only_itself(
        tmp_path: Path) -> None:
    """``run`` defined twice already: a third leaves every name-only guess of ``run()``
    ambiguous, so its callers are not re-resolved; a second one where there was one
    changes the guess, so they are."""
    files = {
        "pkg/__init__.py": "",
        "pkg/one.py": "def run():\n    pass\n",
        "pkg/two.py": "def run():\n    pass\n",
        "pkg/call.py": "def go(x):\n    x.run()\n",
        "solo/__init__.py": "",
        "solo/only.py": "def launch():\n    pass\n",
        "solo/call.py": "def go(x):\n    x.launch()\n",
        **_padding(8),
    }
    root = write_tree(tmp_path / "tree", files)
    _ingest(tmp_path / "db", root)
    (root / "pkg/three.py").write_text("import json\n\n\ndef run(x):\n    return json.dumps(x)\n")
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, root, options=IngestOptions(name="r"))
        assert summary.reresolved == 1
    (root / "solo/again.py").write_text("def launch():\n    pass\n")
    with Store.open(tmp_path / "db") as store:
        summary = ingest_repository(store, root, options=IngestOptions(name="r"))
        assert summary.reresolved == 2  # the new file and solo/call.py, whose guess is gone
        incremental = snapshot(store)
    with Store.open(tmp_path / "full") as store:
        ingest_repository(store, root, options=IngestOptions(name="r"))
        assert incremental == snapshot(store)
