"""Receiver types the Python resolver infers without annotations it can read (issue 22,
round 3), each on the shape a real library writes: properties read as attributes (click's
``Result.stdout``), an instance called (``self.type(value)`` runs ``ParamType.__call__``,
``self.type: types.ParamType[t.Any]`` typed by a subscripted generic), ``isinstance``
narrowing, a class attribute a subclass overrides (itsdangerous's ``default_serializer =
_CompactJSON``), and what an unannotated function returns (``return C(...)``, through a
chain of such functions). Every edge keeps its resolution and confidence."""

from __future__ import annotations

import textwrap

import pytest

from ingest.extract import extract
from ingest.resolve import resolve
from ingest.resolve.python_calls import OVERRIDE_CONFIDENCE, PROPERTY_READ
from ingest.resolve.rows import EdgeRow, ResolveResult
from schema import RESOLUTION_CONFIDENCE, Resolution

FILES = {
    "src/kit/__init__.py": "",
    "src/kit/types.py": """
        import typing as t

        T = t.TypeVar("T")


        class ParamType(t.Generic[T]):
            name: str = "param"

            def __call__(self, value, param=None, ctx=None):
                if value is not None:
                    return self.convert(value, param, ctx)
                return None

            def convert(self, value, param, ctx):
                return value


        class IntType(ParamType[int]):
            def convert(self, value, param, ctx):
                return int(value)


        def convert_type(ty):
            return IntType()
        """,
    "src/kit/core.py": """
        import typing as t

        from . import types


        class Parameter:
            def __init__(self, type=None):
                self.type: types.ParamType[t.Any] = types.convert_type(type)

            def type_cast_value(self, ctx, value):
                return self.type(value, param=self, ctx=ctx)
        """,
    "src/kit/testing.py": """
        class Bytes:
            def decode(self, encoding):
                return ""

            def splitlines(self):
                return []


        class Result:
            def __init__(self, stdout_bytes):
                self.stdout_bytes = stdout_bytes

            @property
            def output(self) -> Bytes:
                return self.stdout

            @property
            def stdout(self) -> Bytes:
                return Bytes()


        class Runner:
            def invoke(self) -> Result:
                return Result(b"")


        def lines(result: Result):
            for line in result.stdout.splitlines():
                print(line)
            return result.output.decode("utf-8")
        """,
    "src/kit/nodes.py": """
        class Leaf:
            def render(self):
                return "leaf"


        class Branch:
            def walk(self):
                return []


        def show(node):
            if isinstance(node, Leaf):
                return node.render()
            elif isinstance(node, (Branch, Leaf)):
                return node.walk()
            return node.unknown()
        """,
    "src/kit/serializer.py": """
        import json


        class _CompactJSON:
            @staticmethod
            def dumps(obj, **kwargs):
                return json.dumps(obj, separators=(",", ":"))


        class Serializer:
            default_serializer = json

            def __init__(self, serializer=None):
                if serializer is None:
                    serializer = self.default_serializer
                self.serializer = serializer

            def dump_payload(self, obj):
                return self.serializer.dumps(obj)


        class URLSafeSerializer(Serializer):
            default_serializer = _CompactJSON
        """,
    "src/kit/factory.py": """
        class Signer:
            def sign(self, value):
                return value


        def make_signer():
            return Signer()


        def default_signer():
            return make_signer()


        def sign(value):
            signer = default_signer()
            return signer.sign(value)
        """,
}


@pytest.fixture(scope="module")
def result() -> ResolveResult:
    extracts = {p: extract("python", textwrap.dedent(src).lstrip().encode(), p)
                for p, src in FILES.items()}
    return resolve("r", extracts)


def _calls(result: ResolveResult, src: str) -> list[EdgeRow]:
    return [e for e in result.edges if e.rel == "CALLS" and e.src == f"sym:r/src/kit/{src}"]


def _edges(result: ResolveResult, src: str) -> set[tuple[str, str]]:
    return {(e.dst.removeprefix("sym:r/src/kit/"), e.resolution) for e in _calls(result, src)}


def test_reading_a_property_calls_its_getter(result: ResolveResult) -> None:
    # ``result.stdout.splitlines()``: the getter runs, and its ``-> Bytes`` types the rest;
    # ``result.output.decode()`` likewise
    # (``result: Result`` holds an instance: resolution ``constructor``)
    assert _edges(result, "testing.py#lines") == {
        ("testing.py#Result.stdout", "constructor"),
        ("testing.py#Bytes.splitlines", "constructor"),
        ("testing.py#Result.output", "constructor"), ("testing.py#Bytes.decode", "constructor"),
        ("ext:python:builtins.print", "builtin")}
    reads = {e.dst.rpartition("#")[2] for e in _calls(result, "testing.py#lines")
             if e.name == PROPERTY_READ}
    assert reads == {"Result.stdout", "Result.output"}  # no ``(...)`` shows these calls
    # the getter's own ``Bytes()`` is an ordinary call; the decorator is the class's call
    assert _edges(result, "testing.py#Result.stdout") == {("testing.py#Bytes", "same_module")}
    assert ("ext:python:builtins.property", "builtin") in _edges(result, "testing.py#Result")


def test_an_instance_called_runs_dunder_call_typed_by_a_generic(
        result: ResolveResult) -> None:
    # ``self.type: types.ParamType[t.Any]``: an instance of the generic class; calling it runs
    # ``ParamType.__call__`` and, through the instance, the override of every subclass
    # (none here: IntType overrides ``convert``, reached from ``__call__`` itself)
    assert _edges(result, "core.py#Parameter.type_cast_value") == {
        ("types.py#ParamType.__call__", "self")}
    assert _edges(result, "types.py#ParamType.__call__") == {
        ("types.py#ParamType.convert", "self"), ("types.py#IntType.convert", "inheritance")}


def test_isinstance_narrows_a_name_to_the_class_having_the_member(
        result: ResolveResult) -> None:
    assert _edges(result, "nodes.py#show") == {
        ("ext:python:builtins.isinstance", "builtin"),
        ("nodes.py#Leaf", "value"), ("nodes.py#Branch", "value"),  # handed to isinstance
        ("nodes.py#Leaf.render", "constructor"), ("nodes.py#Branch.walk", "constructor")}
    # a member no checked class has: no guess
    assert ("src/kit/nodes.py", "show", "node.unknown", 16, "unknown") in result.unresolved


def test_a_subclass_overriding_a_class_attribute_is_a_candidate(
        result: ResolveResult) -> None:
    # ``self.serializer`` <- ``serializer = self.default_serializer``: ``json`` on Serializer,
    # ``_CompactJSON`` on a URLSafeSerializer
    edges = _calls(result, "serializer.py#Serializer.dump_payload")
    assert {(e.dst.removeprefix("sym:r/src/kit/"), e.resolution, e.confidence)
            for e in edges} == {
        ("ext:python:json.dumps", "external", RESOLUTION_CONFIDENCE[Resolution.EXTERNAL]),
        ("serializer.py#_CompactJSON.dumps", "inheritance", OVERRIDE_CONFIDENCE)}


def test_unannotated_functions_return_what_they_construct(result: ResolveResult) -> None:
    # ``signer = default_signer()`` -> ``return make_signer()`` -> ``return Signer()``
    assert _edges(result, "factory.py#sign") == {
        ("factory.py#default_signer", "same_module"), ("factory.py#Signer.sign", "constructor")}
    assert _edges(result, "types.py#convert_type") == {("types.py#IntType", "same_module")}


def test_confidence_follows_the_resolution(result: ResolveResult) -> None:
    for e in result.edges:
        if e.rel != "CALLS":
            continue
        if e.resolution == "inheritance" and e.confidence == OVERRIDE_CONFIDENCE:
            continue  # a subclass's override or class attribute: one of several targets
        assert e.confidence == RESOLUTION_CONFIDENCE[Resolution(e.resolution)], e
