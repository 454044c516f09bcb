"""Incremental resolution equals a full one for what the resolver reads of unchanged files.

An update re-parses only the changed files; the others are rebuilt from their stored rows
(:mod:`ingest.stored`). Whatever the resolver reads of a parsed file must be in those rows,
or a changed file's calls into an unchanged one resolve differently than after a full ingest.
The shape that found it (the standard library's ``turtledemo/bytedesign.py``): ``self.
getscreen().update()`` in a subclass of ``turtle.RawTurtle``, whose unannotated ``getscreen``
the module's own stub (typeshed) annotates ``-> TurtleScreen``; the stub is used only when
its parameters are the source's, and an unchanged file's parameters come from the ``def``
header (``Symbol.signature``).
"""

from __future__ import annotations

from pathlib import Path

from graphdb import Store
from ingest import IngestOptions, ingest_repository
from tests.gitrepo import GitRepo
from tests.ingest.test_incremental import snapshot

#: a repository module named ``turtle``: typeshed's ``turtle.pyi`` is its own stub
TURTLE = """
class TurtleScreen:
    def update(self):
        pass

    def tracer(self, n=None, delay=None):
        pass


class RawTurtle:
    def __init__(self, canvas=None):
        self.screen = canvas

    def getscreen(self):
        return self.screen
"""

DESIGN = """
from turtle import RawTurtle


class Designer(RawTurtle):
    def design(self):
        self.getscreen().tracer(True)
        self.getscreen().update()
"""

#: ``make``'s parameter ``Engine`` hides the module's class: calling it gives what the
#: caller passed, unknown here (two ``start`` methods: no name-only guess either)
FACTORY = """
class Engine:
    def start(self):
        pass


class Motor:
    def start(self):
        pass


def make(Engine):
    return Engine()
"""

USER = """
from factory import Motor, make


def go():
    made = make(Motor)
    made.start()
"""


def _ingest(db: Path, root: Path) -> dict:
    with Store.open(db) as store:
        return ingest_repository(store, root, options=IngestOptions(name="r")).to_dict()


def _update_equals_full(tmp_path: Path, files: dict[str, str], changed: str,
                        ) -> set[tuple[str, str, str]]:
    """Commit and ingest ``files``; commit an edit of ``changed`` (a function appended) and
    ingest again; the graph must equal a full ingest of the second commit into a fresh
    database, and only ``changed`` was parsed. Returns the CALLS (from, to, resolution)."""
    repo = GitRepo(tmp_path / "repo")
    repo.commit("base", files)
    _ingest(tmp_path / "db", repo.root)
    text = (repo.root / changed).read_text()
    repo.commit("edit", {changed: text + "\n\ndef probe():\n    return 1\n"})
    summary = _ingest(tmp_path / "db", repo.root)
    assert summary["reparsed_paths"] == [changed]
    with Store.open(tmp_path / "db", read_only=True) as store:
        incremental = snapshot(store)
    _ingest(tmp_path / "full", repo.root)
    with Store.open(tmp_path / "full", read_only=True) as store:
        full = snapshot(store)
    assert incremental["CALLS"] == full["CALLS"]
    for table in full:
        assert incremental[table] == full[table], table
    return {(row[0], row[1], row[3]) for row in full["CALLS"]}


def test_stub_return_of_an_unchanged_method(tmp_path: Path) -> None:
    """The bytedesign shape: the changed subclass's ``self.getscreen().update()`` reaches
    ``TurtleScreen.update`` through the stub's return type of the unchanged ``getscreen``."""
    calls = _update_equals_full(tmp_path, {"turtle.py": TURTLE, "design.py": DESIGN},
                                "design.py")
    assert ("sym:r/design.py#Designer.design", "sym:r/turtle.py#TurtleScreen.update",
            "inheritance") in calls
    assert ("sym:r/design.py#Designer.design", "sym:r/turtle.py#TurtleScreen.tracer",
            "inheritance") in calls


def test_parameter_of_an_unchanged_function_hides_a_module_name(tmp_path: Path) -> None:
    """``return Engine()`` in ``make(Engine)`` calls the parameter, not the module's class:
    the changed caller's ``made.start()`` resolves to neither ``start`` after an update, as
    after a full ingest."""
    calls = _update_equals_full(tmp_path, {"factory.py": FACTORY, "user.py": USER},
                                "user.py")
    assert ("sym:r/user.py#go", "sym:r/factory.py#make", "import") in calls
    assert not {c for c in calls if c[0] == "sym:r/user.py#go" and c[1].endswith(".start")}


def _callee_edit_equals_full(tmp_path: Path, files: dict[str, str], changed: str,
                             new_text: str) -> set[tuple[str, str, str]]:
    """Like :func:`_update_equals_full`, with ``changed`` rewritten to ``new_text``: the
    unchanged callers must be re-resolved when what they read of it changed."""
    repo = GitRepo(tmp_path / "repo")
    repo.commit("base", files)
    _ingest(tmp_path / "db", repo.root)
    repo.commit("edit", {changed: new_text})
    summary = _ingest(tmp_path / "db", repo.root)
    assert summary["reparsed_paths"] == [changed]
    with Store.open(tmp_path / "db", read_only=True) as store:
        incremental = snapshot(store)
    _ingest(tmp_path / "full", repo.root)
    with Store.open(tmp_path / "full", read_only=True) as store:
        full = snapshot(store)
    for table in full:
        assert incremental[table] == full[table], table
    return {(row[0], row[1], row[3]) for row in full["CALLS"]}


def test_parameter_renamed_in_the_changed_callee(tmp_path: Path) -> None:
    """``make(Engine)`` becomes ``make(kind)``: ``return Engine()`` now calls the module's
    class, and the unchanged caller's ``made.start()`` reaches ``Engine.start``."""
    calls = _callee_edit_equals_full(tmp_path, {"factory.py": FACTORY, "user.py": USER},
                                     "factory.py", FACTORY.replace("make(Engine)", "make(kind)"))
    assert ("sym:r/user.py#go", "sym:r/factory.py#Engine.start", "constructor") in calls


def test_return_changed_in_the_changed_callee(tmp_path: Path) -> None:
    """``make`` returns a ``Motor`` instead of an ``Engine``: the unchanged caller's
    ``made.start()`` follows."""
    factory = FACTORY.replace("make(Engine)", "make(kind)")
    calls = _callee_edit_equals_full(
        tmp_path, {"factory.py": factory, "user.py": USER}, "factory.py",
        factory.replace("return Engine()", "return Motor()"))
    assert ("sym:r/user.py#go", "sym:r/factory.py#Motor.start", "constructor") in calls


def test_return_annotation_changed_in_the_changed_callee(tmp_path: Path) -> None:
    """``def make(kind) -> Engine`` becomes ``-> Motor``."""
    factory = FACTORY.replace("def make(Engine):\n    return Engine()",
                              "def make(kind) -> Engine:\n    return kind()")
    calls = _callee_edit_equals_full(
        tmp_path, {"factory.py": factory, "user.py": USER}, "factory.py",
        factory.replace("-> Engine", "-> Motor"))
    assert ("sym:r/user.py#go", "sym:r/factory.py#Motor.start", "constructor") in calls


def test_module_variable_typed_by_a_changed_callee(tmp_path: Path) -> None:
    """``engine = make()`` at module level of an unchanged file reads the same when ``make``
    starts returning a ``Motor``, but a third file's ``engine.start()`` now leads elsewhere:
    the changed return reaches it through the variable."""
    factory = FACTORY.replace("def make(Engine):\n    return Engine()",
                              "def make():\n    return Engine()")
    calls = _callee_edit_equals_full(tmp_path, {
        "factory.py": factory,
        "shared.py": "from factory import make\n\nengine = make()\n",
        "user.py": "from shared import engine\n\n\ndef go():\n    engine.start()\n",
    }, "factory.py", factory.replace("return Engine()", "return Motor()"))
    assert ("sym:r/user.py#go", "sym:r/factory.py#Motor.start", "import") in calls
