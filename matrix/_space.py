"""The config space of a matrix, cut into the finitely many pieces its predicates can tell apart.

Every gate compares config values with constants written in the file. Two values that compare
the same way with every constant are interchangeable for every gate, so each field's domain
splits into finitely many classes, and one representative per class is enough to decide any
question about the gates exactly:

- ``bool``: False, True;
- ``str`` with ``choices``: each choice; a free ``str``: each constant, and one string that is
  none of them;
- ``int`` / ``float``: each constant, one value on either side of it, and the midpoints between
  neighbouring constants (within ``min`` / ``max``); the minimum itself;
- ``version``: each constant, one version just below it (``.dev0``) and one just above
  (``.post1``);
- lists: every subset of the item constants, and a list holding an item that is none of them;
- ``None`` where the field or one of its sections is nullable; a nullable section is either
  None (and everything below it reads None) or present.

A query ("can these gates be true and those false together?") is answered by a depth-first
search over those representatives, sections before their fields, pruning as soon as a
three-valued evaluation of the gates (true / false / not yet known) says a branch cannot
succeed. It is sound and complete over the partition, so over all configs; a search that
exceeds its budget says so (`Inconclusive`) and never guesses.
"""

from __future__ import annotations

import itertools
import random
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from packaging.version import Version

from ._nodes import And, Compare, IsNone, ListLiteral, Literal, Node, Not, Or, Path, walk
from .predicates import OPERATORS, _truthy
from .schema import Field, Schema

UNKNOWN = object()


class _Present:
    """The value of a section that is there (its fields are read one by one)."""

    def __repr__(self) -> str:
        return "PRESENT"


PRESENT = _Present()


class Inconclusive(Exception):
    """A search used up its budget before it could answer."""


class Space:
    """The representatives of every path the given gates read, and searches over them."""

    def __init__(self, schema: Schema, nodes: Sequence[Node], budget: int = 200_000) -> None:
        self.schema = schema
        self.budget = budget
        self.spent = 0
        self.rng: Optional[random.Random] = None
        constants = compared_constants(nodes)
        self.paths: List[str] = []
        for path in constants:
            parts = path.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix not in self.paths:
                    self.paths.append(prefix)
        prefixes = {p.rsplit(".", 1)[0] for p in self.paths if "." in p}
        self.domains: Dict[str, List[object]] = {
            path: ([PRESENT, None] if self.field(path) is None and path in prefixes
                   else self._domain(path, constants.get(path, [])))
            for path in self.paths
        }

    # --- domains --------------------------------------------------------------------------

    def field(self, path: str) -> Optional[Field]:
        return self.schema.get(path) if self.schema else None

    def _domain(self, path: str, constants: List[object]) -> List[object]:
        field = self.field(path)
        values = _representatives(field, constants)
        if field is None or field.nullable:
            values.append(None)
        return values

    # --- three-valued evaluation ------------------------------------------------------------

    def lookup(self, assignment: Dict[str, object], path: str) -> object:
        parts = path.split(".")
        for end in range(1, len(parts)):
            value = assignment.get(".".join(parts[:end]), UNKNOWN)
            if value is None:
                return None
        return assignment.get(path, UNKNOWN)

    def value(self, node: Node, assignment: Dict[str, object]) -> object:
        if isinstance(node, Path):
            value = self.lookup(assignment, node.name)
            return value
        if isinstance(node, Literal):
            return node.value
        if isinstance(node, ListLiteral):
            return node.values
        return self.truth(node, assignment)

    def truth(self, node: Node, assignment: Dict[str, object]) -> object:
        """True, False, or UNKNOWN when the assignment does not decide it yet."""
        kind = type(node)
        if kind is And:
            result: object = True
            for operand in node.operands:
                value = self.truth(operand, assignment)
                if value is False:
                    return False
                if value is UNKNOWN:
                    result = UNKNOWN
            return result
        if kind is Or:
            result = False
            for operand in node.operands:
                value = self.truth(operand, assignment)
                if value is True:
                    return True
                if value is UNKNOWN:
                    result = UNKNOWN
            return result
        if kind is Not:
            value = self.truth(node.operand, assignment)
            return value if value is UNKNOWN else not value
        if kind is Compare:
            left = self.value(node.left, assignment)
            right = self.value(node.right, assignment)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            return OPERATORS[node.op](left, right)
        if kind is IsNone:
            value = self.value(node.operand, assignment)
            if value is UNKNOWN:
                return UNKNOWN
            return (value is None) is not node.negated
        value = self.value(node, assignment)
        if value is UNKNOWN:
            return UNKNOWN
        return value is PRESENT or _truthy(value)

    # --- search ------------------------------------------------------------------------------

    def solve(self, true: Iterable[Node] = (), false: Iterable[Node] = (),
              extra: Sequence[Tuple[str, Sequence[Node]]] = (),
              rng: Optional[random.Random] = None) -> Optional[Dict[str, object]]:
        """An assignment under which every *true* node holds and every *false* node does not,
        and, for each ``("any", nodes)`` in *extra*, at least one of *nodes* holds; None when
        there is none. Raises `Inconclusive` when the budget runs out.

        :param rng: tries values in a random order, for varied answers (the default order
            gives the same answer every time).
        """
        self.rng = rng
        self.spent = 0  # the budget is per question
        goals = [(node, True) for node in true] + [(node, False) for node in false]
        groups = [list(nodes) for _, nodes in extra]
        used = set()
        for node, _ in goals:
            used.update(n.name for n in walk(node) if isinstance(n, Path))
        for nodes in groups:
            for node in nodes:
                used.update(n.name for n in walk(node) if isinstance(n, Path))
        order = [p for p in self.paths if any(u == p or u.startswith(p + ".") for u in used)]
        return self._search(order, 0, {}, goals, groups)

    def _status(self, assignment, goals, groups) -> object:
        result: object = True
        for node, wanted in goals:
            value = self.truth(node, assignment)
            if value is UNKNOWN:
                result = UNKNOWN
            elif value is not wanted:
                return False
        for nodes in groups:
            values = [self.truth(node, assignment) for node in nodes]
            if True in values:
                continue
            if UNKNOWN in values:
                result = UNKNOWN
            else:
                return False
        return result

    def _search(self, order, index, assignment, goals, groups) -> Optional[Dict[str, object]]:
        self.spent += 1
        if self.spent > self.budget:
            raise Inconclusive()
        status = self._status(assignment, goals, groups)
        if status is False:
            return None
        if status is True:
            return dict(assignment)
        while index < len(order) and self.lookup(assignment, order[index]) is None:
            index += 1  # below a section that is None: read as None, nothing to choose
        if index == len(order):
            return None
        path = order[index]
        values = self.domains[path]
        if self.rng is not None:
            values = values[:]
            self.rng.shuffle(values)
        for value in values:
            assignment[path] = value
            found = self._search(order, index + 1, assignment, goals, groups)
            if found is not None:
                return found
        del assignment[path]
        return None

    def samples(self, count: int, seed: int = 0) -> List[Dict[str, object]]:
        """Full assignments drawn at random (with a fixed seed), to tell gates apart cheaply
        before exact searches."""
        rng = random.Random(seed)
        out = []
        for _ in range(count):
            assignment: Dict[str, object] = {}
            for path in self.paths:
                if self.lookup(assignment, path) is None:
                    continue
                assignment[path] = rng.choice(self.domains[path])
            out.append(assignment)
        return out

    # --- witnesses ---------------------------------------------------------------------------

    def witness(self, assignment: Dict[str, object], avoid: Sequence[Node] = ()) -> dict:
        """A JSON-ready config for *assignment*: the values chosen, sections as tables, and
        every required field of a present section filled in with the value that makes the
        fewest of the *avoid* gates true (so the witness shows what it is a witness of)."""
        full = dict(assignment)
        if self.schema:
            for field in self.schema:
                if field.has_default or field.type == "section" or field.path in full:
                    continue
                parents = field.path.split(".")[:-1]
                if any(full.get(".".join(parents[:i + 1]), UNKNOWN) in (None, UNKNOWN) for i in range(len(parents))):
                    continue  # its section is None, or not part of the witness
                choices = self.domains.get(field.path) or _representatives(field, [])
                full[field.path] = min(
                    (value for value in choices if value is not None),
                    key=lambda value: sum(self.truth(node, {**full, field.path: value}) is True for node in avoid),
                )
        config: dict = {}
        ordered = sorted(full, key=lambda p: p.count("."))
        for path in ordered:
            _set(config, path, _json_value(full[path]))
        return config


def compared_constants(nodes: Iterable[Node]) -> Dict[str, List[object]]:
    """Every path the nodes read, with the literals it is compared with (None left out)."""
    constants: Dict[str, List[object]] = {}
    for node in nodes:
        for part in walk(node):
            if isinstance(part, Path):
                constants.setdefault(part.name, [])
            if isinstance(part, Compare):
                _collect(part, constants)
    return constants


def _collect(node: Compare, constants: Dict[str, List[object]]) -> None:
    for one, other in ((node.left, node.right), (node.right, node.left)):
        if not isinstance(one, Path):
            continue
        bucket = constants.setdefault(one.name, [])
        if isinstance(other, Literal):
            items = [other.value]
        elif isinstance(other, ListLiteral):
            items = list(other.values)
        else:
            continue
        for item in items:
            if item is not None and not any(type(b) is type(item) and b == item for b in bucket):
                bucket.append(item)


def _representatives(field: Optional[Field], constants: List[object]) -> List[object]:
    if field is None:  # no schema: the constants, and something that is none of them
        values = list(constants)
        values += [_other(constants), True, False, 0]
        return _unique(values)
    kind = field.type
    if kind == "section":
        return [PRESENT]
    if kind == "bool":
        return [False, True]
    if field.choices is not None:
        return list(field.choices)
    if kind == "str":
        strings = [c for c in constants if isinstance(c, str)]
        return strings + [_other(strings)]
    if kind in ("int", "float"):
        numbers = sorted({c for c in constants if isinstance(c, (int, float)) and not isinstance(c, bool)})
        step = 1 if kind == "int" else 0.5
        values = set()
        for c in numbers:
            values.update((c - step, c, c + step))
        for a, b in zip(numbers, numbers[1:]):
            middle = (a + b) / 2
            values.add(int(middle) if kind == "int" else middle)
        values.add(field.min if field.min is not None else (numbers[0] - step if numbers else 0))
        if kind == "int":
            values = {int(v) for v in values if float(v).is_integer()}
        values = {v for v in values if (field.min is None or v >= field.min) and (field.max is None or v <= field.max)}
        if not values:
            values = {field.min if field.min is not None else field.max}
        return sorted(values)
    if kind == "version":
        found = sorted({Version(c) for c in constants if isinstance(c, str)})
        values = []
        for v in found:
            values += [Version(f"{v}.dev0") if not v.is_devrelease else v, v, Version(f"{v.base_version}.post1")]
        return _unique(values) or [Version("0")]
    items = [c for c in constants if isinstance(c, str if kind == "list[str]" else int)
             and not isinstance(c, bool)]
    other = _other(items) if kind == "list[str]" else max([0, *items]) + 1
    subsets = [tuple(s) for r in range(len(items) + 1) for s in itertools.combinations(items, r)]
    return subsets + [(other,)]


def _other(strings: Sequence[object]) -> str:
    candidate = "other"
    while candidate in strings:
        candidate += "_"
    return candidate


def _unique(values: List[object]) -> List[object]:
    out: List[object] = []
    for v in values:
        if not any(type(o) is type(v) and o == v for o in out):
            out.append(v)
    return out


def _json_value(value: object) -> object:
    if value is PRESENT:
        return {}
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _set(config: dict, path: str, value: object) -> None:
    parts = path.split(".")
    holder = config
    for part in parts[:-1]:
        inner = holder.get(part)
        if not isinstance(inner, dict):
            return  # under a section that is None
        holder = inner
    if isinstance(value, dict) and isinstance(holder.get(parts[-1]), dict):
        return
    holder[parts[-1]] = value
