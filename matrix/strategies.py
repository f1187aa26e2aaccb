"""Hypothesis strategies for property-testing a matrix, and tools built on ``matrix``.

This module needs hypothesis; ``import matrix`` does not import it.

>>> from hypothesis import given
>>> import matrix
>>> from matrix.strategies import configs
>>> @given(configs(matrix.default()))
... def test_resolution_is_deterministic(config):
...     ...
"""

from __future__ import annotations

import types
from typing import Dict, List, Optional, Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from packaging.version import Version

from ._nodes import Compare, ListLiteral, Literal, Path, walk
from .schema import Field, Matrix, Schema

__all__ = ["configs", "values"]


def __dir__() -> List[str]:
    return __all__


def _constants(matrix: Matrix) -> Dict[str, List[object]]:
    """The literals each path is compared with in the matrix's predicates."""
    found: Dict[str, List[object]] = {}
    for feature in matrix.features:
        for node in walk(feature.when._node):
            if not isinstance(node, Compare):
                continue
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if not isinstance(one, Path):
                    continue
                if isinstance(other, Literal):
                    items = [other.value]
                elif isinstance(other, ListLiteral):
                    items = list(other.values)
                else:
                    continue
                bucket = found.setdefault(one.name, [])
                for item in items:
                    if not any(type(b) is type(item) and b == item for b in bucket):
                        bucket.append(item)
    return found


def values(field: Field, constants: Sequence[object] = ()) -> st.SearchStrategy:
    """Values *field* allows (never None), shrinking toward its default and the constants the
    predicates compare it with."""
    kind = field.type
    if kind == "bool":
        base: st.SearchStrategy = st.booleans()
    elif field.choices is not None:
        base = st.sampled_from(field.choices)
    elif kind in ("int", "float"):
        low = field.min
        high = field.max
        near = []
        for c in constants:
            if isinstance(c, (int, float)) and not isinstance(c, bool):
                for v in (c - 1, c, c + 1):
                    if kind == "int":
                        v = int(v)
                    if (low is None or v >= low) and (high is None or v <= high):
                        near.append(v)
        if kind == "int":
            wide = st.integers(min_value=None if low is None else int(-(-low // 1)),
                               max_value=None if high is None else int(high // 1))
        else:
            wide = st.floats(min_value=low, max_value=high, allow_nan=False, allow_infinity=False)
        base = st.sampled_from(sorted(set(near))) | wide if near else wide
    elif kind == "str":
        strings = [c for c in constants if isinstance(c, str)]
        base = st.sampled_from(strings) | st.text(max_size=8) if strings else st.text(max_size=8)
    elif kind == "version":
        known = [c for c in constants if isinstance(c, str)]
        drawn = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(0, 3), st.integers(0, 40), st.integers(0, 5))
        base = st.sampled_from(known) | drawn if known else drawn
    else:  # list[str], list[int]
        item_constants = [c for c in constants if isinstance(c, (str if kind == "list[str]" else int))]
        items = st.text(max_size=8) if kind == "list[str]" else st.integers()
        if item_constants:
            items = st.sampled_from(item_constants) | items
        base = st.lists(items, max_size=3)
    if field.has_default and field.default is not None:
        default = list(field.default) if isinstance(field.default, tuple) else field.default
        return st.just(default) | base
    return base




def configs(matrix: Matrix, *, as_objects: bool = False) -> st.SearchStrategy:
    """Configs valid under *matrix*'s schema, as nested dicts (or attribute objects).

    Fields with a default are sometimes left out, so defaults are exercised; nullable fields
    and sections are sometimes None; values shrink toward the defaults.
    """
    if not isinstance(matrix, Matrix):
        raise InvalidArgument(f"configs() takes a Matrix, not {type(matrix).__name__}")
    if not isinstance(as_objects, bool):
        raise InvalidArgument(f"as_objects must be a bool, not {as_objects!r}")
    schema = matrix.schema
    constants = _constants(matrix)
    children: Dict[str, List[Field]] = {}
    for field in schema:
        parent = field.path.rpartition(".")[0]
        children.setdefault(parent, []).append(field)

    def section(prefix: str) -> st.SearchStrategy:
        required = {}
        optional = {}
        for field in children.get(prefix, []):
            name = field.path.rpartition(".")[2]
            if field.type == "section":
                inner = section(field.path)
                strategy = st.none() | inner if field.nullable else inner
            else:
                strategy = values(field, constants.get(field.path, ()))
                if field.nullable:
                    strategy = st.none() | strategy
            if field.has_default or (field.type == "section" and not field.nullable):
                optional[name] = strategy
            else:
                required[name] = strategy
        return st.fixed_dictionaries(required, optional=optional)

    strategy = section("")
    return strategy.map(_as_objects) if as_objects else strategy


def _as_objects(value: object) -> object:
    if isinstance(value, dict):
        return types.SimpleNamespace(**{k: _as_objects(v) for k, v in value.items()})
    return value
