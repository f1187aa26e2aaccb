"""DerivedField int fields (``derive = "…"`` in ``[config]``, issue 30 F3): their expressions
parsed and typed at load, put in place of their paths in every predicate checked against the
schema (`inlined`), and computed where a config value is read by path (`value`).

A derived field is never read from a config: its value is its expression's over the config's
values, None where one of them is None or a divisor is zero (README, "Arithmetic").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from ._nodes import And, Arith, Call, Compare, DerivedField, IsNone, Literal, Mod, Node, Not, Or, Path
from ._operators import ARITHMETIC, FUNCTIONS, integers, remainder

if TYPE_CHECKING:  # pragma: no cover
    from .schema import Field, Schema


def inlined(node: Node, schema: Schema) -> Node:
    """*node* with every path of a derived field replaced by a `DerivedField` node (its expression)."""
    if isinstance(node, Path):
        field = schema.derived_field(node.name)
        if field is not None:
            assert field.derive is not None
            return DerivedField(node, field.derive, span=node.span)
        return node
    if isinstance(node, Mod):
        inner = inlined(node.path, schema)
        if isinstance(inner, DerivedField):
            # A remainder of a derived value is arithmetic on it (it prints as before).
            return Arith(inner, "%", Literal(node.divisor), span=node.span)
        return node
    if isinstance(node, Arith):
        return node.replace(left=inlined(node.left, schema), right=inlined(node.right, schema))
    if isinstance(node, Call):
        return node.replace(args=tuple(inlined(arg, schema) for arg in node.args))
    if isinstance(node, Compare):
        return node.replace(left=inlined(node.left, schema), right=inlined(node.right, schema))
    if isinstance(node, IsNone):
        return node.replace(operand=inlined(node.operand, schema))
    if isinstance(node, Not):
        return node.replace(operand=inlined(node.operand, schema))
    if isinstance(node, (And, Or)):
        return node.replace(operands=tuple(inlined(o, schema) for o in node.operands))
    return node


def value(field: Field, read: Callable[[str], object]) -> object:
    """The value of derived *field*, reading the values its expression needs through *read*."""
    assert field.derive is not None
    return evaluate(field.derive, read)


def evaluate(node: Node, read: Callable[[str], object]) -> object:
    """The value of an int expression (``+ - * // %``, ``min``, ``max``, int paths and literals):
    the interpreter's rule for arithmetic, which `matrix.predicates.value` reads too."""
    if isinstance(node, Path):
        return read(node.name)
    if isinstance(node, Literal):
        return node.value
    if isinstance(node, Mod):
        return remainder(read(node.path.name), node.divisor)
    if isinstance(node, Arith):
        return ARITHMETIC[node.op](evaluate(node.left, read), evaluate(node.right, read))
    if isinstance(node, Call):
        return integers(FUNCTIONS[node.name], tuple(evaluate(arg, read) for arg in node.args))
    if isinstance(node, DerivedField):
        return evaluate(node.expression, read)
    return None  # not an int expression (a condition inside arithmetic: the schema refuses it)
