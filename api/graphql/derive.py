"""GraphQL object types derived from the query results' frozen dataclasses.

The queries API defines each result once, as a dataclass; writing a strawberry twin of every
one would define it twice and let them drift. ``object_type`` reads a dataclass's fields and
builds the strawberry type (nested dataclasses, tuples of them, optionals, datetimes), once
per dataclass.
"""

import dataclasses
import types
import typing
from datetime import datetime
from typing import Any, Union, get_args, get_origin

import strawberry
from strawberry.scalars import JSON

__all__ = ["from_result", "object_type"]

_CACHE: dict[type, type] = {}
_SCALARS = (str, int, float, bool, datetime)


def object_type(dc: type, *, name: str | None = None, description: str | None = None) -> type:
    """The strawberry type of dataclass ``dc`` (GraphQL name: ``name`` or the class name)."""
    if dc in _CACHE:
        return _CACHE[dc]
    hints = typing.get_type_hints(dc)
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {}
    for f in dataclasses.fields(dc):
        annotations[f.name] = _gql(hints[f.name])
        namespace[f.name] = strawberry.field(default=None)
    cls = type(name or dc.__name__, (), {"__annotations__": annotations, **namespace})
    doc = description or (dc.__doc__ or "").strip()
    if doc.startswith(f"{dc.__name__}("):  # dataclass default docstring
        doc = ""
    gql = strawberry.type(cls, description=doc or None)
    _CACHE[dc] = gql
    return gql


def _gql(hint: Any) -> Any:
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        inner = _gql(args[0]) if len(args) == 1 else JSON
        return inner | None
    if origin in (tuple, list, frozenset, set):
        args = [a for a in get_args(hint) if a is not Ellipsis]
        return list[_gql(args[0])] if args else list[JSON]
    if origin is dict or hint is dict:
        return JSON
    if dataclasses.is_dataclass(hint):
        return object_type(hint)
    if hint in _SCALARS:
        return hint
    return JSON


def from_result(value: Any) -> Any:
    """A query result (dataclass, tuple, scalar) as instances of the derived types."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        gql = object_type(type(value))
        return gql(**{f.name: from_result(getattr(value, f.name))
                      for f in dataclasses.fields(value)})
    if isinstance(value, (tuple, list, frozenset, set)):
        return [from_result(v) for v in value]
    return value
