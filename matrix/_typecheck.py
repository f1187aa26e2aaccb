"""Typing predicates against the `[config]` schema, at load time.

Every mistake that would make a gate silently False at run time is an error here instead:
an unknown path, a value outside ``choices``, a comparison across types, ordering a bool or a
string, ``is None`` on a field that is never None, a bare non-bool path as a condition.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import attrs

from . import _messages
from ._nodes import LITERAL_TYPES as _LITERAL_TYPES
from ._nodes import ARITHMETIC_NODES, And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Node, Not, Or, Path
from ._given import ROLE
from ._operators import BY_SPELLING, MOD, Operator
from ._versions import to_version
from .errors import PredicateError
from .schema import Field, Schema

_NUMBERS = frozenset({"int", "float"})


@attrs.frozen
class _Type:
    """What an operand is: its type name, and the field or literal it came from."""

    name: str
    field: Optional[Field] = None
    literal: Optional[Literal] = None
    describe: str = ""


def check(node: Node, schema: Schema, source: str) -> List[PredicateError]:
    """Every type error in *node*, in source order; empty when it is well typed."""
    checker = _Checker(schema, source)
    checker.condition(node)
    return sorted(checker.errors, key=lambda e: e.span)


def check_expression(node: Node, schema: Schema, source: str) -> List[PredicateError]:
    """Every type error in *node* as an int expression (a derived field's ``derive``)."""
    checker = _Checker(schema, source)
    found = checker.operand(node)
    if found is not None and found.name != "int":
        checker.error(_messages.derive_not_int(found.describe), node.span)
    return sorted(checker.errors, key=lambda e: e.span)


def unknown_paths(source: str, schema: Schema, error: PredicateError) -> List[PredicateError]:
    """The unknown config paths of *source*, which does not parse (*error*): each name the
    tokenizer reads as a path (not a keyword, not a function called) outside the error's span,
    up to a string left open (what follows it is that string's text). Whether a path is known
    does not depend on the syntax around it: the loader says both (a user trial: a misspelt
    operator hid a misspelt path)."""
    from ._tokenizer import every_token

    checker = _Checker(schema, source)
    start, end = error.span if error.span is not None else (len(source), len(source))
    tokens = list(every_token(source))
    for index, token in enumerate(tokens):
        if token.name == "OPEN_STRING":
            break
        called = index + 1 < len(tokens) and tokens[index + 1].name == "LPAREN"
        if token.name != "NAME" or called or any(part.startswith("_") for part in token.text.split(".")):
            continue
        if token.span[1] <= start or token.span[0] >= end:
            checker.field(Path(token.text, span=token.span))
    return checker.errors


class _Checker:
    def __init__(self, schema: Schema, source: str) -> None:
        self.schema = schema
        self.source = source
        self.errors: List[PredicateError] = []

    def error(self, message: str, span: Tuple[int, int], unknown_path: Optional[str] = None) -> None:
        self.errors.append(PredicateError(message, source=self.source, span=span, unknown_path=unknown_path))

    def condition(self, node: Node) -> None:  # noqa: C901 — one branch per kind of node, each its rule
        """Check *node* where a truth value is expected."""
        if isinstance(node, (And, Or)):
            for operand in node.operands:
                self.condition(operand)
        elif isinstance(node, Not):
            self.condition(node.operand)
        elif isinstance(node, Compare):
            self.compare(node)
        elif isinstance(node, IsNone):
            self.is_none(node)
        elif isinstance(node, Path):
            field = self.field(node)
            if field is None:
                return
            if field.type == "bool" or field.item_type is not None:
                return
            if field.type == "section":
                if not field.nullable:
                    self.error(_messages.bare_operand(f"Section {node.name!r}, which is never None,"), node.span)
                return
            self.error(_messages.bare_operand(f"{field.type} {node.name!r}"), node.span)
        elif isinstance(node, Mod):
            if self.remainder(node) is not None:
                self.error(_messages.bare_operand(f"The remainder {node}"), node.span)
        elif isinstance(node, (Arith, Call, DerivedField)):
            if self.arithmetic(node) is not None:
                self.error(_messages.bare_operand(f"The expression {node}"), node.span)
        elif isinstance(node, Literal):
            if type(node.value) is not bool:
                self.error(_messages.bare_operand(f"The value {node.value!r}"), node.span)
        else:
            self.error(_messages.bare_operand(f"The list {node}"), node.span)

    def field(self, node: Path) -> Optional[Field]:
        field = self.schema.get(node.name)
        if field is None and self.schema.derivations:
            field = self.schema.derived_field(node.name)
        if field is None and node.name.startswith(ROLE):  # the runner that fills a role (`matrix._roles`)
            self.error(_messages.role_unknown(node.name, [p[len(ROLE):] for p in self.schema.roles]), node.span)
        elif field is None:
            self.error(_messages.unknown_path(node.name, self.schema.fields), node.span, node.name)
        return field

    def operand(self, node: Node) -> Optional[_Type]:
        """The type of an operand of a comparison; None when it is already in error."""
        if isinstance(node, Path):
            field = self.field(node)
            if field is None:
                return None
            return _Type(field.type, field=field, describe=f"{field.type} {node.name!r}")
        if isinstance(node, Literal):
            name = _LITERAL_TYPES[type(node.value)]
            return _Type(name, literal=node, describe=f"{name} {node.value!r}")
        if isinstance(node, ListLiteral):
            return _Type("list", describe=f"the list {node}")
        if isinstance(node, Mod):
            return self.remainder(node)
        if isinstance(node, (Arith, Call, DerivedField)):
            return self.arithmetic(node)
        self.condition(node)
        return _Type("bool", describe="a condition")

    def remainder(self, node: Mod) -> Optional[_Type]:
        """``path % n``: an int, of an int field only."""
        field = self.field(node.path)
        if field is None:
            return None
        if MOD.operands is not None and field.type not in MOD.operands:
            assert MOD.refused is not None
            self.error(MOD.refused(f"{field.type} {field.path!r}", MOD.spelling), node.path.span)
            return None
        return _Type("int", describe=f"the remainder {node}")

    def arithmetic(self, node: Node) -> Optional[_Type]:
        """``a op b``, ``min(…)``, ``max(…)``: ints of ints (int fields, int literals, arithmetic)."""
        if isinstance(node, DerivedField):
            return _Type("int", describe=f"int {node.path.name!r}")
        if isinstance(node, Arith):
            operands: Tuple[Node, ...] = (node.left, node.right)
            spelling = node.op
        else:
            assert isinstance(node, Call)
            operands, spelling = node.args, f"{node.name}(...)"
        ok = True
        for operand in operands:
            found = self.operand(operand)
            if found is None:
                ok = False
            elif found.name != "int" or (found.literal is not None and type(found.literal.value) is not int):
                self.error(_messages.arith_needs_int(found.describe, spelling), operand.span)
                ok = False
        return _Type("int", describe=f"the expression {node}") if ok else None

    def is_none(self, node: IsNone) -> None:
        if not isinstance(node.operand, Path):
            found = self.operand(node.operand)
            if found is not None:
                self.error(_messages.is_none_operand(found.describe), node.operand.span)
            return
        field = self.field(node.operand)
        if field is not None and not self.may_be_none(field):
            message = (_messages.derived_never_none if field.derive is not None else _messages.role_never_none
                       if field.path.startswith(ROLE) else _messages.not_nullable)
            self.error(message(node.operand.name), node.span)

    def may_be_none(self, field: Field) -> bool:
        """Whether reading *field* can give None: it is nullable, or a section above it is
        (``spec.method is None`` holds when ``spec`` is None)."""
        if field.nullable:
            return True
        parts = field.path.split(".")
        for end in range(1, len(parts)):
            above = self.schema.get(".".join(parts[:end])) if self.schema else None
            if above is not None and above.nullable:
                return True
        return False

    def compare(self, node: Compare) -> None:
        left = self.operand(node.left)
        right = self.operand(node.right)
        if left is None or right is None:
            return
        op = BY_SPELLING[node.op]
        if op.kind == "membership":
            self.membership(node, left, right)
        elif op.operands is not None:
            self.restricted(node, op, left, right)
        else:
            self.equality(node, left, right, node.span)

    def equality(self, node: Compare, left: _Type, right: _Type, span: Tuple[int, int]) -> None:
        for one, other in ((left, right), (right, left)):
            if one.field is not None and other.literal is not None:
                if not self.fits(one.field, other.literal, node.op):
                    return
                if other.name != "none" or self.may_be_none(one.field):
                    return
        if not _comparable(left, right):
            self.error(_messages.type_mismatch(left.describe, node.op, right.describe), span)

    def fits(self, field: Field, literal: Literal, op: str = "==") -> bool:
        """Check that *literal* is a value *field* can hold (compared with *op*); report it if not."""
        value = literal.value
        if value is None:
            if not self.may_be_none(field):
                self.error(_messages.not_nullable(field.path), literal.span)
                return False
            return True
        kind = _LITERAL_TYPES[type(value)]
        if field.type == "version" and isinstance(value, str):
            if to_version(value) is None:
                self.error(_messages.invalid_version_literal(value, field.path), literal.span)
                return False
            return True
        if not _same_kind(field.type, kind):
            if field.type == "version" and kind in ("int", "float"):
                written = self.source[literal.span[0]:literal.span[1]]
                message = _messages.version_needs_quotes(field.path, op, kind, value, written)
            else:
                message = _messages.type_mismatch(f"{field.type} {field.path!r}", op, f"{kind} {value!r}")
            self.error(message, literal.span)
            return False
        if field.choices is not None and value not in field.choices:
            self.error(_messages.not_a_choice(value, field.path, field.choices), literal.span)
            return False
        return True

    def restricted(self, node: Compare, op: Operator, left: _Type, right: _Type) -> None:
        """A comparison whose sides must be of the operator's operand types (a str literal
        beside a version counts as a version)."""
        assert op.operands is not None and op.refused is not None
        for side in (left, right):
            if side.name not in op.operands and not (
                side.literal is not None and side.name == "str"
                and "version" in (left.name, right.name) and "version" in op.operands
            ):
                self.error(op.refused(side.describe, node.op), node.span)
                return
        self.equality(node, left, right, node.span)

    def membership(self, node: Compare, left: _Type, right: _Type) -> None:
        if isinstance(node.right, ListLiteral):
            if left.field is not None:
                for item in node.right.items:
                    self.fits(left.field, item, node.op)
            elif left.literal is not None or isinstance(node.left, ARITHMETIC_NODES):
                kinds = {_LITERAL_TYPES[type(i.value)] for i in node.right.items}
                if kinds and not any(_same_kind(left.name, k) for k in kinds):
                    self.error(_messages.type_mismatch(left.describe, node.op, right.describe), node.span)
            else:
                self.error(_messages.type_mismatch(left.describe, node.op, right.describe), node.span)
            return
        field = right.field
        if field is None or field.item_type is None:
            self.error(_messages.in_needs_list(right.describe), node.right.span)
            return
        if left.literal is not None:
            kind = _LITERAL_TYPES[type(left.literal.value)]
            if not _same_kind(field.item_type, kind):
                self.error(_messages.type_mismatch(left.describe, node.op, right.describe), node.span)
        elif left.field is None or not _same_kind(field.item_type, left.name):
            self.error(_messages.type_mismatch(left.describe, node.op, right.describe), node.span)


def _same_kind(a: str, b: str) -> bool:
    if a == b:
        return True
    return a in _NUMBERS and b in _NUMBERS


def _comparable(left: _Type, right: _Type) -> bool:
    if _same_kind(left.name, right.name):
        return True
    return {left.name, right.name} == {"version", "str"} and (
        left.literal is not None or right.literal is not None
    )
