"""The nodes of a parsed predicate: frozen values that print canonically.

Spans (offsets into the source text) ride along for error messages but take no part in
equality or hashing, so two predicates are equal when they mean the same tree.
"""

from __future__ import annotations

from typing import Iterator, Tuple, Union

import attrs
from packaging.version import Version

from ._operators import AND, ATOM_LEVEL, BY_SPELLING, IS_NONE, IS_NOT_NONE, MOD, NOT, OR, SUM_LEVEL, TEST_LEVEL

_SPAN = attrs.field(default=(0, 0), eq=False, hash=False, repr=False)

#: The types of a literal's value, and their names in type errors.
LITERAL_TYPES = {bool: "bool", int: "int", float: "float", str: "str", type(None): "none"}


def _literal_key(value: object) -> Tuple[type, object]:
    # True == 1 and 1 == 1.0 in Python; as predicate text they differ.
    return (type(value), value)


@attrs.frozen
class Path:
    """A config path read by the predicate (``speculative_config.method``)."""

    name: str
    span: Tuple[int, int] = _SPAN

    @property
    def parts(self) -> Tuple[str, ...]:
        return tuple(self.name.split("."))

    def __str__(self) -> str:
        return self.name


@attrs.frozen
class Literal:
    """A literal value: a string, an int, a float, a bool or None."""

    value: object = attrs.field(eq=_literal_key)
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        # A version an adjustment sets stands in a condition read through it (`matrix._substitute`)
        # as the packaging Version of its field: said as the string the matrix writes.
        return repr(str(self.value)) if isinstance(self.value, Version) else repr(self.value)


@attrs.frozen
class ListLiteral:
    """A list of literals (the right side of ``in``)."""

    items: Tuple[Literal, ...]
    span: Tuple[int, int] = _SPAN

    @property
    def values(self) -> Tuple[object, ...]:
        return tuple(item.value for item in self.items)

    def __str__(self) -> str:
        return "[" + ", ".join(str(item) for item in self.items) + "]"


@attrs.frozen
class Mod:
    """``path % divisor``: the remainder of an int field by a positive int literal (None when
    the field is None)."""

    path: Path
    divisor: int
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return MOD.python.format(a=self.path, b=self.divisor)


@attrs.frozen
class Arith:
    """``left op right`` over ints, ``op`` one of ``+ - * // %`` (Python's integer operators);
    None where a side is None or the divisor is zero. ``path % INT`` (a positive literal) is a
    `Mod`, not an `Arith`."""

    left: Node
    op: str
    right: Node
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        level = BY_SPELLING[self.op].strength
        # Left-associative: a right operand as loose as the operator needs parentheses.
        return f"{_child(self.left, level)} {self.op} {_child(self.right, level + 1)}"


@attrs.frozen
class Call:
    """``min(a, b, …)`` or ``max(a, b, …)`` of ints (None where one of them is None)."""

    name: str
    args: Tuple[Node, ...]
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(str(arg) for arg in self.args) + ")"


@attrs.frozen
class DerivedField:
    """A derived field (``derive = "…"`` in ``[config]``) where a predicate reads it: prints as
    its path, evaluates as its expression (put in place of the `Path` when the predicate is
    checked against the schema)."""

    path: Path
    expression: Node
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return str(self.path)


@attrs.frozen
class Compare:
    """``left op right``, ``op`` one of the comparison operators, ``in`` or ``not in``."""

    left: Node
    op: str
    right: Node
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return f"{_child(self.left, SUM_LEVEL)} {self.op} {_child(self.right, SUM_LEVEL)}"


@attrs.frozen
class IsNone:
    """``operand is None`` (``is not None`` when ``negated``)."""

    operand: Node
    negated: bool
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        test = IS_NOT_NONE if self.negated else IS_NONE
        return f"{_child(self.operand, SUM_LEVEL)} {test.spelling}"


@attrs.frozen
class Not:
    """``not operand``."""

    operand: Node
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return f"{NOT.spelling} {_child(self.operand, NOT.strength)}"


@attrs.frozen
class And:
    """``a and b and …``."""

    operands: Tuple[Node, ...]
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return f" {AND.spelling} ".join(_child(op, NOT.strength) for op in self.operands)


@attrs.frozen
class Or:
    """``a or b or …``."""

    operands: Tuple[Node, ...]
    span: Tuple[int, int] = _SPAN

    def __str__(self) -> str:
        return f" {OR.spelling} ".join(_child(op, AND.strength) for op in self.operands)


Node = Union[Path, Literal, ListLiteral, Mod, Arith, Call, DerivedField, Compare, IsNone, Not, And, Or]

#: The nodes whose value is an int computed from other values.
ARITHMETIC_NODES = (Mod, Arith, Call, DerivedField)

_STRENGTH = {Or: OR.strength, And: AND.strength, Not: NOT.strength, Compare: TEST_LEVEL,
             IsNone: IS_NONE.strength, Mod: MOD.strength}


def strength(node: Node) -> int:
    if isinstance(node, Arith):
        return BY_SPELLING[node.op].strength
    return _STRENGTH.get(type(node), ATOM_LEVEL)


def _child(node: Node, needed: int) -> str:
    text = str(node)
    return text if strength(node) >= needed else f"({text})"


def walk(node: Node) -> Iterator[Node]:
    """Every node of the tree, parents before children (iteratively: trees may be deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if isinstance(current, (And, Or)):
            stack.extend(reversed(current.operands))
        elif isinstance(current, Compare):
            stack.extend((current.right, current.left))
        elif isinstance(current, (Not, IsNone)):
            stack.append(current.operand)
        elif isinstance(current, ListLiteral):
            stack.extend(reversed(current.items))
        elif isinstance(current, Mod):
            stack.append(current.path)
        elif isinstance(current, Arith):
            stack.extend((current.right, current.left))
        elif isinstance(current, Call):
            stack.extend(reversed(current.args))
        elif isinstance(current, DerivedField):
            # What a derived field reads is what the predicate reads (its own path is no
            # config value).
            stack.append(current.expression)
