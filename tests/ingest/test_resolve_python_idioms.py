"""Python idioms the resolver follows (issue 22), each on the shape real libraries use: calls
the syntax makes without parentheses, receiver types from ``except``/``with``/``cast``,
inheritance through subscripted generics, decorators run by the enclosing scope, and no
name-only guess from library code into test helpers. Every edge keeps its resolution and
confidence."""

from __future__ import annotations

import textwrap

import pytest

from ingest.extract import extract
from ingest.resolve import resolve
from ingest.resolve.python_calls import OVERRIDE_CONFIDENCE
from ingest.resolve.rows import ResolveResult
from schema import RESOLUTION_CONFIDENCE, Resolution

FILES = {
    "src/lib/__init__.py": "",
    "src/lib/base.py": """
        import typing as t

        T = t.TypeVar("T")


        class Base(t.Generic[T]):
            def convert(self, value):
                return value


        class Lock:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def held(self):
                return True


        class Bag:
            def __iter__(self):
                return iter(())

            def __getitem__(self, key):
                return key

            def __add__(self, other):
                return self


        class LibError(Exception):
            def describe(self):
                return "x"
        """,
    "src/lib/types.py": """
        import typing as t

        from .base import Bag, Base, LibError, Lock, T


        class Path(Base[t.Union[str, bytes]]):
            def run(self, value):
                return self.convert(value)


        class Choice(Base[T], t.Generic[T]):
            def run(self, value):
                return super().convert(value)


        def register(func):
            return func


        @register
        def decorated():
            return 1


        def use(bag: Bag, lock: Lock, items: list):
            with lock:
                for item in bag:
                    bag[item]
                total = bag + bag
            with Lock() as held:
                held.held()
            items[0]
            return [x for x in bag], total


        def narrow(obj):
            b = t.cast(Bag, obj)
            try:
                return b[0]
            except LibError as e:
                return e.describe()


        def poll(c):
            c.wait()
        """,
    "src/lib/mixins.py": """
        class Saving:
            def save(self):
                return 1


        class Logging:
            def save(self):
                return 2


        class Record(Saving, Logging):
            def save(self):
                return super().save()
        """,
    "src/lib/layers.py": """
        class Base:
            def run(self):
                return 0


        class Middle(Base):
            def run(self):
                return super().run() + 1


        class Top(Middle):
            def run(self):
                return super().run() + 2


        class Both(Top, Base):
            def run(self):
                return super().run() + 3


        def build():
            top = Top()
            return top.run() + Middle().run()


        def through(layer: Middle):
            return layer.run()
        """,
    "src/lib/params.py": """
        import typing as t


        class Parameter:
            def process(self):
                return 1


        class Command:
            def get_params(self) -> list[Parameter]:
                return []

            def first(self) -> t.Optional[Parameter]:
                return None

            def run(self):
                for p in self.get_params():
                    p.process()
                one = self.first()
                one.process()
        """,
    "src/lib/_win.py": """
        def getchar():
            return 1
        """,
    "src/lib/term.py": """
        import sys

        if sys.platform == "win32":
            from ._win import getchar
        else:
            def getchar():
                return 2


        def pause():
            return getchar()
        """,
    "src/lib/hooks.py": """
        import functools

        from . import base


        def on_done(value):
            return value


        def on_fail(value):
            return value


        def cleanup():
            pass


        HANDLERS = {"done": on_done, "fail": base.Lock}


        class Runner:
            def __init__(self, callback=None):
                self.callback = cleanup
                self.steps = [on_fail]

            def go(self, pool):
                pool.submit(functools.partial(on_done, 1), fallback=on_fail)
                return sorted([], key=lambda v: on_done(v))


        def factory():
            def inner():
                return cleanup()
            return inner
        """,
    "src/lib/signing.py": """
        import typing as t


        class Signer:
            def __init__(self, key):
                self.key = key

            def sign(self, value):
                return value


        class TimestampSigner(Signer):
            def sign(self, value):
                return f"{value}.1"


        class Serializer:
            #: class attributes: the class itself (``type[C]``) and an annotated instance
            default_signer: type[Signer] = Signer
            fallback: Signer

            def __init__(self, signer: type[Signer] | None = None):
                if signer is None:
                    signer = self.default_signer
                self.signer: type[Signer] = signer

            def make_signer(self, salt=None) -> Signer:
                return self.signer(salt)

            def dumps(self, obj):
                return self.make_signer("salt").sign(obj)

            def backup(self, obj):
                return self.fallback.sign(obj)

            def with_default(self):
                return self.default_signer("k")


        def build(factory: t.Type[Signer]):
            return factory("k")
        """,
    "tests/helpers.py": """
        class Waiter:
            def wait(self):
                pass
        """,
    "tests/test_types.py": """
        from helpers import Waiter
        from lib.signing import Signer


        class FakeSigner(Signer):
            def sign(self, value):
                return value


        def test_sign():
            Signer("k").sign(1)


        def test_poll():
            w = Waiter()
            w.wait()
            c = make()
            c.wait()
        """,
}


@pytest.fixture(scope="module")
def result() -> ResolveResult:
    extracts = {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                for p, src in FILES.items()}
    return resolve("r", extracts)


def _edges(result: ResolveResult, rel: str, src: str) -> set[tuple[str, str]]:
    return {(e.dst, e.resolution) for e in result.edges
            if e.rel == rel and e.src == f"sym:r/{src}"}


B = "sym:r/src/lib/base.py#"


def test_subscripted_generic_bases_inherit(result: ResolveResult) -> None:
    assert _edges(result, "INHERITS", "src/lib/types.py#Path") == {(f"{B}Base", "import")}
    assert _edges(result, "INHERITS", "src/lib/types.py#Choice") == {
        (f"{B}Base", "import"), ("ext:python:typing.Generic", "external")}
    assert _edges(result, "CALLS", "src/lib/types.py#Path.run") == {
        (f"{B}Base.convert", "inheritance")}
    assert (f"{B}Base.convert", "inheritance") in _edges(
        result, "CALLS", "src/lib/types.py#Choice.run")


def test_with_for_subscript_and_operators_call_dunders(result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/types.py#use") == {
        (f"{B}Lock.__enter__", "constructor"), (f"{B}Lock.__exit__", "constructor"),
        (f"{B}Bag.__iter__", "constructor"), (f"{B}Bag.__getitem__", "constructor"),
        (f"{B}Bag.__add__", "constructor"),
        (f"{B}Lock", "import"),  # Lock() ...
        # ``with Lock() as held``: the class's own methods, found through the import
        (f"{B}Lock.__enter__", "import"), (f"{B}Lock.__exit__", "import"),
        (f"{B}Lock.held", "constructor"),  # ... as held: held.held()
        # ``items[0]`` on a list: no edge, and no unresolved entry either
    }
    assert not [u for u in result.unresolved if u[1] == "use" and "__" in u[2]]


def test_cast_and_except_as_type_their_names(result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/types.py#narrow") == {
        ("ext:python:typing.cast", "external"),
        (f"{B}Bag", "value"),  # the class handed to cast: a value
        (f"{B}Bag.__getitem__", "constructor"),
        (f"{B}LibError.describe", "constructor"),
    }


def test_a_decorator_is_called_by_the_enclosing_scope(result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/types.py#decorated") == set()
    assert ("sym:r/src/lib/types.py#register", "same_module") in _edges(
        result, "CALLS", "src/lib/types.py#<module>")


def test_library_code_never_guesses_into_test_helpers(result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/types.py#poll") == set()
    assert ("src/lib/types.py", "poll", "c.wait", 45, "unknown") in result.unresolved
    # test code may still reach its own helpers by name
    assert ("sym:r/tests/helpers.py#Waiter.wait", "name_only") in _edges(
        result, "CALLS", "tests/test_types.py#test_poll")


def test_edges_keep_resolution_and_confidence(result: ResolveResult) -> None:
    lay = "sym:r/src/lib/layers.py#"
    overrides = {("sym:r/src/lib/signing.py#Serializer.dumps",
                  "sym:r/src/lib/signing.py#TimestampSigner.sign"),
                 (f"{lay}build", f"{lay}Both.run"), (f"{lay}through", f"{lay}Top.run"),
                 (f"{lay}through", f"{lay}Both.run")}
    for e in result.edges:
        if e.rel == "CALLS" and (e.src, e.dst) in overrides:
            # a subclass's override is one of several possible targets: weighed lower
            assert (e.resolution, e.confidence) == ("inheritance", OVERRIDE_CONFIDENCE)
        elif e.rel == "CALLS" and not e.dst.endswith(("FakeSigner.sign",
                                                      "TimestampSigner.sign")):
            assert e.confidence == RESOLUTION_CONFIDENCE[Resolution(e.resolution)]


H = "sym:r/src/lib/hooks.py#"


def test_functions_used_as_values_are_called_by_who_hands_them_on(
        result: ResolveResult) -> None:
    # stored in a dict (a class too: whoever takes it out instantiates it), an attribute,
    # a list
    # (resolution ``value``: called later by whoever holds it, not where it is handed on)
    assert _edges(result, "CALLS", "src/lib/hooks.py#<module>") == {
        (f"{H}on_done", "value"), (f"{B}Lock", "value")}
    assert _edges(result, "CALLS", "src/lib/hooks.py#Runner.__init__") == {
        (f"{H}cleanup", "value"), (f"{H}on_fail", "value")}
    # functools.partial(f), a keyword callback, a lambda's call
    assert _edges(result, "CALLS", "src/lib/hooks.py#Runner.go") == {
        ("ext:python:functools.partial", "external"), ("ext:python:builtins.sorted", "builtin"),
        (f"{H}on_done", "value"), (f"{H}on_fail", "value"),
        (f"{H}on_done", "same_module")}  # the lambda's call
    # a closure returned by its factory
    assert _edges(result, "CALLS", "src/lib/hooks.py#factory") == {
        (f"{H}factory.inner", "value")}
    # a plain name that is data (``callback=None``'s parameter, ``pool``) makes no entry
    assert not [u for u in result.unresolved if u[0] == "src/lib/hooks.py"
                and u[2].startswith("&")]


def test_a_conditional_import_beside_a_def_makes_both_candidates(
        result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/term.py#pause") == {
        ("sym:r/src/lib/term.py#getchar", "same_module"),
        ("sym:r/src/lib/_win.py#getchar", "import")}


def test_super_reaches_the_method_on_every_base(result: ResolveResult) -> None:
    assert _edges(result, "CALLS", "src/lib/mixins.py#Record.save") == {
        ("sym:r/src/lib/mixins.py#Saving.save", "inheritance"),
        ("sym:r/src/lib/mixins.py#Logging.save", "inheritance"),
        ("ext:python:builtins.super", "builtin")}


def test_super_reaches_the_next_definer_not_every_ancestor(result: ResolveResult) -> None:
    """A chain of overrides each calling ``super().run()`` is a chain of edges: an
    ancestor's ``run`` runs only through the definer before it, never directly."""
    lay = "sym:r/src/lib/layers.py#"
    assert _edges(result, "CALLS", "src/lib/layers.py#Top.run") == {
        (f"{lay}Middle.run", "inheritance"), ("ext:python:builtins.super", "builtin")}
    assert _edges(result, "CALLS", "src/lib/layers.py#Middle.run") == {
        (f"{lay}Base.run", "inheritance"), ("ext:python:builtins.super", "builtin")}
    # a second base that is an ancestor of the first: its method comes after the first's
    assert _edges(result, "CALLS", "src/lib/layers.py#Both.run") == {
        (f"{lay}Top.run", "inheritance"), ("ext:python:builtins.super", "builtin")}


def test_an_instance_of_exactly_its_class_runs_no_override(result: ResolveResult) -> None:
    """``C().m()`` runs ``C.m`` itself; a local or a parameter may hold an instance of any
    subclass (class hierarchy analysis: the overrides are candidates)."""
    lay = "sym:r/src/lib/layers.py#"
    assert _edges(result, "CALLS", "src/lib/layers.py#build") == {
        (f"{lay}Top", "same_module"), (f"{lay}Top.run", "constructor"),
        (f"{lay}Both.run", "inheritance"),
        (f"{lay}Middle", "same_module"), (f"{lay}Middle.run", "same_module")}
    assert _edges(result, "CALLS", "src/lib/layers.py#through") == {
        (f"{lay}Middle.run", "constructor"), (f"{lay}Top.run", "inheritance"),
        (f"{lay}Both.run", "inheritance")}


def test_return_annotations_type_results_and_loop_items(result: ResolveResult) -> None:
    p = "sym:r/src/lib/params.py#"
    assert _edges(result, "CALLS", "src/lib/params.py#Command.run") == {
        (f"{p}Command.get_params", "self"), (f"{p}Command.first", "self"),
        (f"{p}Parameter.process", "constructor")}


def test_class_attributes_type_annotations_and_chained_calls(result: ResolveResult) -> None:
    s = "sym:r/src/lib/signing.py#"
    # ``self.signer: type[Signer]`` holds the class: calling it constructs a Signer
    assert _edges(result, "CALLS", "src/lib/signing.py#Serializer.make_signer") == {
        (f"{s}Signer", "self")}
    # ``self.make_signer(salt).sign(obj)``: a method of what ``-> Signer`` returns
    # (and, through an instance, the override of every subclass: class hierarchy analysis;
    # never a test's subclass from library code)
    assert _edges(result, "CALLS", "src/lib/signing.py#Serializer.dumps") == {
        (f"{s}Serializer.make_signer", "self"), (f"{s}Signer.sign", "self"),
        (f"{s}TimestampSigner.sign", "inheritance")}
    # class-level ``fallback: Signer`` and ``default_signer = Signer`` read through self
    assert _edges(result, "CALLS", "src/lib/signing.py#Serializer.backup") == {
        (f"{s}Signer.sign", "self"), (f"{s}TimestampSigner.sign", "inheritance")}
    # ``Signer("k").sign``: an instance of exactly Signer, no override runs
    assert _edges(result, "CALLS", "tests/test_types.py#test_sign") == {
        (f"{s}Signer", "import"), (f"{s}Signer.sign", "import")}
    assert _edges(result, "CALLS", "src/lib/signing.py#Serializer.with_default") == {
        (f"{s}Signer", "self")}
    # a parameter annotated ``t.Type[C]`` is the class
    assert _edges(result, "CALLS", "src/lib/signing.py#build") == {(f"{s}Signer", "local")}
