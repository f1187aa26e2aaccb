"""The nodes of a parsed predicate: frozen values that print canonically.

Spans (offsets into the source text) ride along for error messages but take no part in
equality or hashing, so two predicates are equal when they mean the same tree. Each node is a
`matrix._record.Record` (equality, hashing, repr, pickling, immutability), not an attrs class:
attrs building the twelve classes was 3 to 5 ms of every ``import matrix`` (issue 29).
"""

from __future__ import annotations

from typing import Iterator, Tuple, Union

from packaging.version import Version

from ._operators import AND, ATOM_LEVEL, BY_SPELLING, IS_NONE, IS_NOT_NONE, MOD, NOT, OR, SUM_LEVEL, TEST_LEVEL
from ._record import Record, _set

#: Where a node's text is in the source: (start, end) offsets; (0, 0) for a node built, not parsed.
Span = Tuple[int, int]
_NO_SPAN: Span = (0, 0)

#: The types of a literal's value, and their names in type errors.
LITERAL_TYPES = {bool: "bool", int: "int", float: "float", str: "str", type(None): "none"}


def _literal_key(node: Literal) -> Tuple[type, object]:
    # True == 1 and 1 == 1.0 in Python; as predicate text they differ.
    value = node.value
    return (type(value), value)


class Path(Record, hidden=("span",)):
    """A config path read by the predicate (``speculative_config.method``)."""

    __slots__ = ("name", "span")
    name: str
    span: Span

    def __init__(self, name: str, span: Span = _NO_SPAN) -> None:
        _set(self, "name", name)
        _set(self, "span", span)

    @property
    def parts(self) -> Tuple[str, ...]:
        return tuple(self.name.split("."))

    def __str__(self) -> str:
        return self.name


class Literal(Record, hidden=("span",), key=_literal_key):
    """A literal value: a string, an int, a float, a bool or None."""

    __slots__ = ("value", "span")
    value: object
    span: Span

    def __init__(self, value: object, span: Span = _NO_SPAN) -> None:
        _set(self, "value", value)
        _set(self, "span", span)

    def __str__(self) -> str:
        # A version an adjustment sets stands in a condition read through it (`matrix._substitute`)
        # as the packaging Version of its field: said as the string the matrix writes.
        return repr(str(self.value)) if isinstance(self.value, Version) else repr(self.value)


class ListLiteral(Record, hidden=("span",)):
    """A list of literals (the right side of ``in``)."""

    __slots__ = ("items", "span")
    items: Tuple[Literal, ...]
    span: Span

    def __init__(self, items: Tuple[Literal, ...], span: Span = _NO_SPAN) -> None:
        _set(self, "items", items)
        _set(self, "span", span)

    @property
    def values(self) -> Tuple[object, ...]:
        return tuple(item.value for item in self.items)

    def __str__(self) -> str:
        return "[" + ", ".join(str(item) for item in self.items) + "]"


class Mod(Record, hidden=("span",)):
    """``path % divisor``: the remainder of an int field by a positive int literal (None when
    the field is None)."""

    __slots__ = ("path", "divisor", "span")
    path: Path
    divisor: int
    span: Span

    def __init__(self, path: Path, divisor: int, span: Span = _NO_SPAN) -> None:
        _set(self, "path", path)
        _set(self, "divisor", divisor)
        _set(self, "span", span)

    def __str__(self) -> str:
        return MOD.python.format(a=self.path, b=self.divisor)


class _Binary(Record, hidden=("span",)):
    """``left op right``: the fields of `Arith` and `Compare`."""

    __slots__ = ("left", "op", "right", "span")
    left: Node
    op: str
    right: Node
    span: Span

    def __init__(self, left: Node, op: str, right: Node, span: Span = _NO_SPAN) -> None:
        _set(self, "left", left)
        _set(self, "op", op)
        _set(self, "right", right)
        _set(self, "span", span)


class Arith(_Binary):
    """``left op right`` over ints, ``op`` one of ``+ - * // %`` (Python's integer operators);
    None where a side is None or the divisor is zero. ``path % INT`` (a positive literal) is a
    `Mod`, not an `Arith`."""

    __slots__ = ()

    def __str__(self) -> str:
        level = BY_SPELLING[self.op].strength
        # Left-associative: a right operand as loose as the operator needs parentheses.
        return f"{_child(self.left, level)} {self.op} {_child(self.right, level + 1)}"


class Call(Record, hidden=("span",)):
    """``min(a, b, …)`` or ``max(a, b, …)`` of ints (None where one of them is None)."""

    __slots__ = ("name", "args", "span")
    name: str
    args: Tuple[Node, ...]
    span: Span

    def __init__(self, name: str, args: Tuple[Node, ...], span: Span = _NO_SPAN) -> None:
        _set(self, "name", name)
        _set(self, "args", args)
        _set(self, "span", span)

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(str(arg) for arg in self.args) + ")"


class DerivedField(Record, hidden=("span",)):
    """A derived field (``derive = "…"`` in ``[config]``) where a predicate reads it: prints as
    its path, evaluates as its expression (put in place of the `Path` when the predicate is
    checked against the schema)."""

    __slots__ = ("path", "expression", "span")
    path: Path
    expression: Node
    span: Span

    def __init__(self, path: Path, expression: Node, span: Span = _NO_SPAN) -> None:
        _set(self, "path", path)
        _set(self, "expression", expression)
        _set(self, "span", span)

    def __str__(self) -> str:
        return str(self.path)


class Compare(_Binary):
    """``left op right``, ``op`` one of the comparison operators, ``in`` or ``not in``."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{_child(self.left, SUM_LEVEL)} {self.op} {_child(self.right, SUM_LEVEL)}"


class IsNone(Record, hidden=("span",)):
    """``operand is None`` (``is not None`` when ``negated``)."""

    __slots__ = ("operand", "negated", "span")
    operand: Node
    negated: bool
    span: Span

    def __init__(self, operand: Node, negated: bool, span: Span = _NO_SPAN) -> None:
        _set(self, "operand", operand)
        _set(self, "negated", negated)
        _set(self, "span", span)

    def __str__(self) -> str:
        test = IS_NOT_NONE if self.negated else IS_NONE
        return f"{_child(self.operand, SUM_LEVEL)} {test.spelling}"


class Not(Record, hidden=("span",)):
    """``not operand``."""

    __slots__ = ("operand", "span")
    operand: Node
    span: Span

    def __init__(self, operand: Node, span: Span = _NO_SPAN) -> None:
        _set(self, "operand", operand)
        _set(self, "span", span)

    def __str__(self) -> str:
        return f"{NOT.spelling} {_child(self.operand, NOT.strength)}"


class _Junction(Record, hidden=("span",)):
    """``a op b op …``: the fields of `And` and `Or`."""

    __slots__ = ("operands", "span")
    operands: Tuple[Node, ...]
    span: Span

    def __init__(self, operands: Tuple[Node, ...], span: Span = _NO_SPAN) -> None:
        _set(self, "operands", operands)
        _set(self, "span", span)


class And(_Junction):
    """``a and b and …``."""

    __slots__ = ()

    def __str__(self) -> str:
        return f" {AND.spelling} ".join(_child(op, NOT.strength) for op in self.operands)


class Or(_Junction):
    """``a or b or …``."""

    __slots__ = ()

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
