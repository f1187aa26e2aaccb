"""The config space of a matrix, cut into the finitely many pieces its predicates can tell apart.

Every gate compares config values with constants written in the file. Two values that compare
the same way with every constant are interchangeable for every gate, so each field's domain
splits into finitely many classes, and one representative per class is enough to decide any
question about the gates exactly:

- ``bool``: False, True;
- ``str`` with ``choices``: each choice; a free ``str``: each constant, and one string that is
  none of them;
- ``int`` / ``float``: each constant the field can hold (with ``min`` and ``max`` as constants
  too), and a value inside every open gap between neighbouring constants, below the smallest and
  above the largest, where the gap holds one: an ``int`` field compared with ``2.5`` gets 2 and 3;
  a ``float`` field's gap values come from ``math.nextafter`` and from integers, compared exactly
  (Python compares ints and floats exactly, so constants beyond 2**53 stay exact), and include
  the infinities when a gap holds nothing else; NaN is not a config value (`ConfigError`);
- ``version``: each constant, and a version inside every gap: above a version ``v``, ``v+0``
  (or ``v+…​.0`` when ``v`` has a local part) comes before every later version that is not a
  local version of ``v``; below everything, ``0.dev0``;
- lists: every subset of the items they are tested for, and a list holding an item that is
  none of them;
- ``None`` where the field or one of its sections is nullable; a nullable section is either
  None (and everything below it reads None) or present.

Fields compared with each other (``x < y``, ``s != t``, ``s in l``) are *related*: the
partition must represent their relation, not just each field alone, so related fields share
their constants, and every gap gets as many distinct values as there are related fields (all
orders of those fields within one gap). Where a gap's values cannot be constructed (a version
gap between a version and its own local variant, too many related fields, a list with too many
items) the path is marked inexact: a search that finds nothing there raises `Inconclusive`
rather than claim that nothing exists.

A query ("can these gates be true and those false together?") is answered by a depth-first
search over those representatives, sections before their fields, pruning as soon as a
three-valued evaluation of the gates (true / false / not yet known) says a branch cannot
succeed. A part of the question that is itself one of its goals is read as the value that goal
must have (`_settled`): the same answers, found sooner. It is sound and complete over the
partition, so over all configs; a search that exceeds its budget says so (`Inconclusive`) and
never guesses.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import random
from operator import itemgetter
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union

from packaging.version import Version

from ._given import RESERVED as GIVEN_ROOT, plain
from ._nodes import (And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Node, Not,
                     Or, Path, walk)
from ._operators import ARITHMETIC, BY_SPELLING, FUNCTIONS, integers, nearest_float, remainder, truthy
from ._substitute import conjoin, disjoin, negate
from ._versions import parsed
from .predicates import OPERATORS
from .schema import Field, Schema

UNKNOWN = object()
_BOOLEAN = (And, Or, Not)  # the nodes with Boolean parts

#: A search's partial answer: path → representative value.
Assignment = Dict[str, object]
#: What a search must make true (True) or false (False).
Goals = List[Tuple[Node, bool]]
#: A node's three-valued evaluation, made once (`Space._truther`).
Truth = Callable[[Dict[str, object]], object]
#: Groups of nodes of which at least one must hold.
Groups = List[List[Node]]
Number = Union[int, float]


class _Present:
    """The value of a section that is there (its fields are read one by one)."""

    def __repr__(self) -> str:
        return "PRESENT"


PRESENT = _Present()


class Inconclusive(Exception):
    """A search could not answer: it used up its budget, or (``paths``) it found nothing where
    the partition of those paths is not exact, for the ``causes`` given (keys of `CAUSES`)."""

    def __init__(self, paths: Sequence[str] = (), causes: Sequence[str] = ()) -> None:
        super().__init__(paths)
        self.paths = tuple(paths)
        self.causes = tuple(causes)


#: Why a path's partition may not be exact: each is a cause of an ``inconclusive`` finding, and
#: docs/explanation/exact-check.md lists them all.
CAUSES = {
    "related": "more than four fields are compared with each other",
    "local": "a version is compared near its own local variant (between 1.0 and 1.0+a nothing can be constructed)",
    "items": "a list field is tested for more than ten items",
    "modulus": "the divisors of % on one field have a least common multiple above 5040",
    "remainder-related": "a field tested with % is also compared with another field that takes values between the "
                         "constants",
    "sparse": "a float field is compared with another field near a constant of magnitude 2**52 or more",
    "remainder-field": "a field is compared with a remainder by more than 64 (y == x % 100)",
    "no-schema": "the matrix declares no [config] schema",
    "given": "a condition read alone names given.PATH, the value as given, of a path an adjustment sets: on the "
             "configs resolution reads it may differ from PATH, which a condition alone cannot tell",
    "stages": "a staged requirement reading them stands between an adjustment and the adjustments after it, and "
              "where it refuses those do not run",
    "arithmetic": "a field that arithmetic across fields reads (a + b, a % b, a derived field), or that is compared "
                  "with it, has no min and max or is not an int, or the fields read together take more than 20000 "
                  "combinations of values",
}


def _reader(path: str) -> Callable[[Dict[str, object]], object]:
    """`Space.lookup` of one path: None below a section that is None, else its value or UNKNOWN."""
    parts = path.split(".")
    sections = tuple(".".join(parts[:end]) for end in range(1, len(parts)))
    get = dict.get

    def read(assignment: Dict[str, object]) -> object:
        for section in sections:
            if get(assignment, section, UNKNOWN) is None:
                return None
        return get(assignment, path, UNKNOWN)

    return read


class Space:
    """The representatives of every path the given gates read, and searches over them."""

    def __init__(self, schema: Schema, nodes: Sequence[Node], budget: int = 200_000) -> None:
        #: node id → (node, the node with each ``given.PATH`` read as PATH: `plain`).
        self._plains: Dict[int, Tuple[Node, Node]] = {}
        nodes = [self._plain(node) for node in nodes]
        self.schema = schema
        self.budget = budget
        self.spent = 0
        self.branched = False
        self.rng: Optional[random.Random] = None
        self._truths: Dict[int, Tuple[Node, Callable[[Dict[str, object]], object]]] = {}
        self._values: Dict[int, Tuple[Node, Callable[[Dict[str, object]], object]]] = {}
        self._paths_of: Dict[int, Tuple[Node, FrozenSet[str]]] = {}
        self._shapes: Dict[int, Tuple[Node, FrozenSet[int]]] = {}
        self._required: Optional[List[Field]] = None
        #: path → the cause (a key of `CAUSES`) its partition is not exact for.
        self.inexact: Dict[str, str] = {}
        constants = compared_constants(nodes, self.inexact)
        self.remainders = compared_remainders(nodes)
        groups = self._groups = related(nodes)
        self.paths: List[str] = []
        for path in constants:
            parts = path.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix not in self.paths:
                    self.paths.append(prefix)
        prefixes = {p.rsplit(".", 1)[0] for p in self.paths if "." in p}
        #: path → every value it can take, for the fields arithmetic reads (`enumerated`).
        tried: Dict[str, List[object]] = {}
        self.enumerated = enumerated(nodes, schema, self.inexact, tried)
        self.domains: Dict[str, List[object]] = {}
        #: path → the numbers that cut an int field read modulo a number (`members`).
        self._cut_by: Dict[str, List[Any]] = {}
        # Scalars first: a list field related to a scalar one takes the scalar's values as items.
        for path in sorted(self.paths, key=lambda p: self._is_list(p)):
            if self.field(path) is None and path in prefixes:
                self.domains[path] = [PRESENT, None]
                continue
            if path in self.enumerated:
                self.domains[path] = self.enumerated[path]
                continue
            peers = groups.get(path, {path})
            shared = [c for peer in sorted(peers) for c in constants.get(peer, [])]
            # A related field with choices can hold only those: the others must be able to match them.
            # A related field's bounds matter too: `i < j` with j in [0, 3] needs i near 0 to 3.
            for peer in sorted(peers):
                other = self.field(peer)
                if peer == path or other is None:
                    continue
                shared += list(other.choices or ())
                shared += [b for b in (other.min, other.max) if b is not None]
            if self._is_list(path):
                shared += [v for peer in sorted(peers) if peer != path and not self._is_list(peer)
                           for v in self.domains.get(peer, []) if v is not None]
            self.domains[path] = self._domain(path, shared, len(peers))
            if self.remainders.get(path):
                self._cut_by[path] = [c for c in shared if isinstance(c, (int, float)) and not isinstance(c, bool)]
            if path in tried:
                self.domains[path] = _unique([*tried[path], *self.domains[path]])
        self.domains = {path: self.domains[path] for path in self.paths}

    def _free_peers(self, path: str) -> int:
        """How many fields related to *path* (itself included) can take values between the
        constants (a field with choices takes its choices only)."""
        count = 0
        for peer in self._groups.get(path, {path}):
            field = self.field(peer)
            count += peer == path or field is None or field.choices is None
        return count

    def _is_list(self, path: str) -> bool:
        field = self.field(path)
        return field is not None and field.item_type is not None

    # --- domains --------------------------------------------------------------------------

    def field(self, path: str) -> Optional[Field]:
        return self.schema.get(path) if self.schema else None

    def _domain(self, path: str, constants: List[object], related: int = 1) -> List[object]:
        field = self.field(path)
        values, cause = _representatives(field, constants, related, self.remainders.get(path),
                                         free=self._free_peers(path))
        if cause is not None:
            self.inexact.setdefault(path, cause)
        if field is None or field.nullable:
            values.append(None)
        return values

    def members(self, path: str, values: Iterable[int], limit: int) -> Optional[List[int]]:
        """Every int of the classes of *values* (representatives of *path*, an int field read
        modulo a number), in order: the ints no gate tells from one of them. None where the
        partition of *path* is not exact, or its field has no bounds or more than *limit* ints."""
        field = self.field(path)
        if path not in self._cut_by or path in self.inexact or path in self.enumerated or field is None:
            return None
        lo, hi, cuts = _cuts(self._cut_by[path], field.min, field.max)
        if lo is None or hi is None or hi - lo >= limit:
            return None
        signature = _signature(self.remainders[path])
        at = set(cuts)

        def kind(n: int) -> Tuple[object, ...]:
            # A cut is a class of its own; between cuts, the gap and the remainders' signature.
            return ("at", n) if n in at else ("in", bisect.bisect(cuts, n), signature(n))

        wanted = {kind(v) for v in values if isinstance(v, int) and not isinstance(v, bool)}
        return [n for n in range(lo, hi + 1) if kind(n) in wanted]

    # --- three-valued evaluation ------------------------------------------------------------

    def lookup(self, assignment: Dict[str, object], path: str) -> object:
        parts = path.split(".")
        for end in range(1, len(parts)):
            value = assignment.get(".".join(parts[:end]), UNKNOWN)
            if value is None:
                return None
        return assignment.get(path, UNKNOWN)

    def value(self, node: Node, assignment: Dict[str, object]) -> object:
        return self._valuer(self._plain(node))(assignment)

    def truth(self, node: Node, assignment: Dict[str, object]) -> object:
        """True, False, or UNKNOWN when the assignment does not decide it yet."""
        try:
            return self._truths[id(node)][1](assignment)
        except KeyError:
            return self._truther(self._plain(node))(assignment)

    # Each node's three-valued evaluation is made once into closures (`_truther`, `_valuer`),
    # kept by the node's identity with the node itself (so the identity is never reused): the
    # searches of `matrix check` evaluate the same few thousand nodes millions of times, and a
    # walk of the tree per evaluation (a chain of isinstance tests, a method call per node,
    # the path split per read) was most of its time (issue 29).

    def _plain(self, node: Node) -> Node:
        """*node* with each ``given.PATH`` read as PATH (issue 30, F8): the same value over the
        config given, which is what every question here is about (a condition on the config of
        choice is rewritten over it first: `matrix._substitute`). Kept by the node's identity."""
        kept = self._plains.get(id(node))
        if kept is None:
            kept = self._plains[id(node)] = (node, plain(node))
        return kept[1]

    def _truther(self, node: Node) -> Callable[[Dict[str, object]], object]:
        kept = self._truths.get(id(node))
        if kept is not None:
            return kept[1]
        fn = self._make_truth(node)
        self._truths[id(node)] = (node, fn)
        return fn

    def _valuer(self, node: Node) -> Callable[[Dict[str, object]], object]:
        kept = self._values.get(id(node))
        if kept is not None:
            return kept[1]
        fn = self._make_value(node)
        self._values[id(node)] = (node, fn)
        return fn

    def _make_value(self, node: Node) -> Callable[[Dict[str, object]], object]:
        if isinstance(node, Path):
            return _reader(node.name)
        if isinstance(node, Literal):
            constant = node.value
            return lambda assignment: constant
        if isinstance(node, ListLiteral):
            constant = node.values
            return lambda assignment: constant
        if isinstance(node, Mod):
            read, divisor = _reader(node.path.name), node.divisor

            def mod(assignment: Dict[str, object]) -> object:
                value = read(assignment)
                return value if value is UNKNOWN else remainder(value, divisor)

            return mod
        if isinstance(node, Arith):
            left, right, apply = self._valuer(node.left), self._valuer(node.right), ARITHMETIC[node.op]

            def arith(assignment: Dict[str, object]) -> object:
                a = left(assignment)
                if a is UNKNOWN:
                    return UNKNOWN
                b = right(assignment)
                return UNKNOWN if b is UNKNOWN else apply(a, b)

            return arith
        if isinstance(node, Call):
            args, function = tuple(self._valuer(arg) for arg in node.args), FUNCTIONS[node.name]

            def call(assignment: Dict[str, object]) -> object:
                values = tuple(arg(assignment) for arg in args)
                return UNKNOWN if any(v is UNKNOWN for v in values) else integers(function, values)

            return call
        if isinstance(node, DerivedField):
            return self._valuer(node.expression)
        return self._truther(node)

    def _make_truth(self, node: Node) -> Callable[[Dict[str, object]], object]:  # noqa: C901 — one closure per kind of node
        if isinstance(node, (And, Or)):
            operands = tuple(self._truther(operand) for operand in node.operands)
            # And: False decides, True is the neutral; Or the other way round.
            decides, neutral = (False, True) if isinstance(node, And) else (True, False)

            def junction(assignment: Dict[str, object]) -> object:
                result: object = neutral
                for operand in operands:
                    value = operand(assignment)
                    if value is decides:
                        return decides
                    if value is UNKNOWN:
                        result = UNKNOWN
                return result

            return junction
        if isinstance(node, Not):
            inner = self._truther(node.operand)

            def negation(assignment: Dict[str, object]) -> object:
                value = inner(assignment)
                return value if value is UNKNOWN else not value

            return negation
        if isinstance(node, Compare):
            left, right, op = self._valuer(node.left), self._valuer(node.right), OPERATORS[node.op]
            if isinstance(node.right, (Literal, ListLiteral)):  # the usual shape: a path and a constant
                constant = node.right.value if isinstance(node.right, Literal) else node.right.values

                def against_constant(assignment: Dict[str, object]) -> object:
                    a = left(assignment)
                    return UNKNOWN if a is UNKNOWN else op(a, constant)

                return against_constant

            def comparison(assignment: Dict[str, object]) -> object:
                a = left(assignment)
                b = right(assignment)
                if a is UNKNOWN or b is UNKNOWN:
                    return UNKNOWN
                return op(a, b)

            return comparison
        if isinstance(node, IsNone):
            operand, negated = self._valuer(node.operand), node.negated

            def is_none(assignment: Dict[str, object]) -> object:
                value = operand(assignment)
                if value is UNKNOWN:
                    return UNKNOWN
                return (value is None) is not negated

            return is_none
        read = self._valuer(node)

        def test(assignment: Dict[str, object]) -> object:
            value = read(assignment)
            if value is UNKNOWN:
                return UNKNOWN
            return value is PRESENT or truthy(value)

        return test

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
        self.branched = False  # whether the search tried values of an inexact path
        true, false = tuple(true), tuple(false)
        needed: Set[str] = set()
        for node in (*true, *false, *(node for _, nodes in extra for node in nodes)):
            needed |= self._needed(node)
        if GIVEN_ROOT in needed:  # a condition reads a value as given: as its path (`_plain`)
            plain = self._plain
            true, false = tuple(map(plain, true)), tuple(map(plain, false))
            extra = [(kind, [plain(node) for node in nodes]) for kind, nodes in extra]
            needed = set()
            for node in (*true, *false, *(node for _, nodes in extra for node in nodes)):
                needed |= self._needed(node)
        order = [p for p in self.paths if p in needed]  # the paths of the question as asked
        truther = self._truther
        made: List[Node] = []
        # (A random search draws per node visited: it must visit the same ones.)
        if rng is None and self._settles(true, false, extra):
            wanted, anyof = _settled([(node, True) for node in true] + [(node, False) for node in false],
                                     [list(nodes) for _, nodes in extra], made)
            goals = [(truther(node), value) for node, value in wanted]
            groups = [[truther(node) for node in nodes] for nodes in anyof]
        else:
            goals = [(truther(node), True) for node in true] + [(truther(node), False) for node in false]
            groups = [[truther(node) for node in nodes] for _, nodes in extra]
        try:
            found = self._search(order, 0, {}, goals, groups)
        finally:
            for node in made:  # made for this question only: not kept by identity
                self._truths.pop(id(node), None)
        inexact = sorted(p for p in order if p in self.inexact)
        if found is None and inexact and self.branched:
            # Values of an inexact path were left out: "none" is not proved. (A question ruled
            # out before any of them is read is proved: no value of theirs could change it.)
            raise Inconclusive(inexact, list(dict.fromkeys(self.inexact[p] for p in inexact)))
        return found

    def _settles(self, true: Sequence[Node], false: Sequence[Node], extra: Sequence[Tuple[str, Sequence[Node]]]) -> bool:
        """Whether `_settled` may change the question: a goal asked twice, or a goal among the
        Boolean parts of a goal or of a group's node, told by identity (the questions of check
        share their nodes; most have neither, and hashing their trees each time would cost a
        tenth of a 1,000-gate check). A part equal to a goal but not the same node is left to
        the search: the answer is the same, found later."""
        if len(true) + len(false) + len(extra) < 2:
            return False
        kept = self._shapes
        goals = set(map(id, true))
        goals.update(map(id, false))
        if len(goals) < len(true) + len(false):
            return True
        # (Iterated in C: `tests/test_guards.py` counts the Python calls of one question.)
        for node in itertools.chain(true, false, itertools.chain.from_iterable(map(itemgetter(1), extra))):
            if isinstance(node, _BOOLEAN):  # an atom has no Boolean part
                parts = kept.get(id(node))
                if not (parts[1] if parts is not None else self._parts(node)).isdisjoint(goals):
                    return True
        return False

    def _parts(self, node: Node) -> FrozenSet[int]:
        """The identities of *node*'s Boolean parts (under and, or, not), kept by its identity."""
        found: Set[int] = set()
        operands = node.operands if isinstance(node, (And, Or)) else (node.operand,) if isinstance(node, Not) else ()
        for operand in operands:
            found.add(id(operand))
            if not isinstance(operand, _BOOLEAN):
                continue
            kept = self._shapes.get(id(operand))
            found |= kept[1] if kept is not None else self._parts(operand)
        parts = frozenset(found)
        self._shapes[id(node)] = (node, parts)
        return parts

    def _needed(self, node: Node) -> FrozenSet[str]:
        """Each path *node* reads, and the sections above it (kept by the node's identity)."""
        kept = self._paths_of.get(id(node))
        if kept is not None:
            return kept[1]
        needed: Set[str] = set()
        for name in {n.name for n in walk(node) if isinstance(n, Path)}:
            parts = name.split(".")
            needed.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        found = frozenset(needed)
        self._paths_of[id(node)] = (node, found)
        return found

    def _status(self, assignment: Assignment, goals: List[Tuple[Truth, bool]], groups: List[List[Truth]]) -> object:
        result: object = True
        for truth, wanted in goals:
            value = truth(assignment)
            if value is UNKNOWN:
                result = UNKNOWN
            elif value is not wanted:
                return False
        for truths in groups:
            values = [truth(assignment) for truth in truths]
            if True in values:
                continue
            if UNKNOWN in values:
                result = UNKNOWN
            else:
                return False
        return result

    def _search(self, order: List[str], index: int, assignment: Assignment, goals: List[Tuple[Truth, bool]],
                groups: List[List[Truth]]) -> Optional[Assignment]:
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
        if path in self.inexact:
            self.branched = True
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

    def witness(self, assignment: Dict[str, object], avoid: Sequence[Node] = ()) -> Dict[str, Any]:
        """A JSON-ready config for *assignment*: the values chosen, sections as tables, and
        every required field of a present section filled in with the value that makes the
        fewest of the *avoid* gates true (so the witness shows what it is a witness of)."""
        full = dict(assignment)
        if self.schema:
            if self._required is None:  # once per space: a schema has hundreds of fields
                self._required = [f for f in self.schema if not f.has_default and f.type != "section"]
            for field in self._required:
                if field.path in full:
                    continue
                parents = field.path.split(".")[:-1]
                if any(self._absent(full, ".".join(parents[:i + 1])) for i in range(len(parents))):
                    continue  # its section is None, or not part of the witness
                choices = self.domains.get(field.path) or _representatives(field, [])[0]
                full[field.path] = min(
                    (value for value in choices if value is not None),
                    key=lambda value: sum(self.truth(node, {**full, field.path: value}) is True for node in avoid),
                )
        config: Dict[str, Any] = {}
        ordered = sorted(full, key=lambda p: p.count("."))
        for path in ordered:
            _set(config, path, json_value(full[path]))
        return config


    def _absent(self, full: Dict[str, object], section: str) -> bool:
        """Whether *section* is None or left out of a witness: a section that cannot be None
        (declared so, or implied by its fields) is always there."""
        value = full.get(section, UNKNOWN)
        if value is UNKNOWN:
            field = self.schema.get(section)
            return field is not None and field.nullable
        return value is None


def _settled(goals: List[Tuple[Node, bool]], groups: Groups, made: List[Node]) -> Tuple[List[Tuple[Node, bool]], Groups]:
    """The goals and groups of a question with each part that is itself a goal (its own
    condition, in a Boolean place: under and, or, not) read as the value that goal must have;
    *made* gets the nodes built for it.

    A question whose groups are the disjunction of gates the goals already rule out (the
    forced-freed search: every blocker on C is one on F too) fails at its root this way; the
    three-valued evaluation alone found it only once every path was chosen (10,236 steps on the
    default matrix). Every answer stays the same: a partial assignment satisfies the settled
    question exactly where it satisfies the question (a goal's part equal to another goal has
    that goal's value wherever every goal has its value; a goal repeated is kept once), so the
    search finds the same first assignment, in the same order, and only stops sooner under a
    branch without one."""
    known: Dict[Node, bool] = {}
    for node, value in goals:
        known.setdefault(node, value)
    kept: Set[Node] = set()
    out: List[Tuple[Node, bool]] = []
    for node, value in goals:
        if node in kept:  # a goal asked again: its first asking decides it
            out.append((_made(Literal(known[node]), made), value))
            continue
        kept.add(node)
        out.append((_settle(node, known, made, top=True), value))
    return out, [[_settle(node, known, made) for node in nodes] for nodes in groups]


def _made(node: Node, made: List[Node]) -> Node:
    made.append(node)
    return node


def _settle(node: Node, known: Dict[Node, bool], made: List[Node], top: bool = False) -> Node:
    """*node* with each Boolean part that is a goal of *known* read as its value (the node
    itself kept where *top*: a goal is not read as itself)."""
    if not top:
        value = known.get(node)
        if value is not None:
            return _made(Literal(value), made)
    if isinstance(node, (And, Or)):
        operands = [_settle(operand, known, made) for operand in node.operands]
        if all(a is b for a, b in zip(operands, node.operands)):
            return node
        return _made((conjoin if isinstance(node, And) else disjoin)(operands), made)
    if isinstance(node, Not):
        operand = _settle(node.operand, known, made)
        if operand is node.operand:
            return node
        return _made(negate(operand), made)
    return node


def compared_constants(nodes: Iterable[Node], inexact: Optional[Dict[str, str]] = None) -> Dict[str, List[object]]:
    """Every path the nodes read, with the literals it is compared with (None left out); paths
    whose constants cannot all be listed go to *inexact*, with their cause."""
    constants: Dict[str, List[object]] = {}
    for node in nodes:
        for part in walk(node):
            if isinstance(part, Path):
                constants.setdefault(part.name, [])
            if isinstance(part, Compare):
                _collect(part, constants, {} if inexact is None else inexact)
    return constants


def _root(parent: Dict[str, str], path: str) -> str:
    """The root of *path* in the union-find forest *parent* (added as its own root if new)."""
    while parent.setdefault(path, path) != path:
        path = parent[path]
    return path


#: The most combinations of values the fields of one arithmetic group may take for `Space` to
#: enumerate them all (issue 30, F3).
MAX_COMBINATIONS = 20_000


def enumerated(nodes: Iterable[Node], schema: Optional[Schema], inexact: Dict[str, str],  # noqa: C901 — the groups and their enumeration, one rule read as one
               tried: Dict[str, List[object]]) -> Dict[str, List[object]]:
    """path → every value it can take, for each field read by arithmetic (``a + b``, ``a % b``
    by a field, ``min``/``max``, a derived field) or compared with it, where the fields of its
    group (those read by one expression, or compared with each other or with one) are bounded
    ints that together take at most `MAX_COMBINATIONS` values: arithmetic mixes values, so no
    partition by constants is exact, but every value is. The paths of a group that cannot be
    enumerated go to *inexact* (cause ``arithmetic``), keeping their representatives."""
    parent: Dict[str, str] = {}

    find = functools.partial(_root, parent)
    def join(paths: Iterable[str]) -> None:
        paths = list(paths)
        for other in paths[1:]:
            parent[find(other)] = find(paths[0])
        if paths:
            find(paths[0])

    plain: List[Tuple[str, str]] = []
    arithmetic = (Arith, Call, DerivedField)
    for node in nodes:
        parts = list(walk(node))
        plain += [(p.left.name, p.right.name) for p in parts
                  if isinstance(p, Compare) and isinstance(p.left, Path) and isinstance(p.right, Path)]
        if not any(isinstance(p, arithmetic) for p in parts):
            continue  # most gates: one walk, nothing to enumerate
        for part in parts:
            if isinstance(part, arithmetic) or (isinstance(part, Compare) and any(
                    isinstance(n, arithmetic) for n in walk(part))):
                join(n.name for n in walk(part) if isinstance(n, Path))
    if not parent:
        return {}
    # Fields compared with a field of a group are in it (their order with it must be kept).
    changed = True
    while changed:
        changed = False
        for a, b in plain:
            if (a in parent or b in parent) and find(a) != find(b):
                join((a, b))
                changed = True
    groups: Dict[str, List[str]] = {}
    for path in parent:
        groups.setdefault(find(path), []).append(path)
    out: Dict[str, List[object]] = {}
    for members in groups.values():
        values: Dict[str, List[object]] = {}
        combinations = 1
        for path in sorted(members):
            field = schema.get(path) if schema else None
            found = _every_value(field)
            if found is None:
                combinations = MAX_COMBINATIONS + 1
                break
            values[path] = found
            combinations *= len(found)
        if combinations > MAX_COMBINATIONS:
            for path in members:
                inexact.setdefault(path, "arithmetic")
                if path not in tried:
                    tried[path] = _some_values(schema.get(path) if schema else None)
            continue
        out.update(values)
    return out


def _some_values(field: Optional[Field]) -> List[object]:
    """Values worth trying for an int field of a group that cannot be enumerated: -8 … 16 and
    its bounds' neighbourhoods, within its bounds."""
    if field is None or field.type != "int" or field.choices is not None:
        return []
    low = math.ceil(field.min) if field.min is not None else None
    high = math.floor(field.max) if field.max is not None else None
    near = set(range(-8, 17))
    if low is not None:
        near.update(range(low, low + 9))
    if high is not None:
        near.update(range(high - 8, high + 1))
    return [v for v in sorted(near) if (low is None or v >= low) and (high is None or v <= high)]


def _every_value(field: Optional[Field]) -> Optional[List[object]]:
    """Every value *field* can hold (None included where the field is nullable), or None when
    it is not an int with both bounds or with choices."""
    if field is None or field.type != "int":
        return None
    if field.choices is not None:
        found: List[object] = [c for c in field.choices]
    elif field.min is None or field.max is None or field.max - field.min >= MAX_COMBINATIONS:
        return None
    else:
        found = list(range(math.ceil(field.min), math.floor(field.max) + 1))
    return found + [None] if field.nullable else found


def compared_remainders(nodes: Iterable[Node]) -> Dict[str, Dict[int, List[object]]]:
    """path → divisor → the literals ``path % divisor`` is compared with."""
    found: Dict[str, Dict[int, List[object]]] = {}
    for node in nodes:
        for part in walk(node):
            if isinstance(part, Mod):
                found.setdefault(part.path.name, {}).setdefault(part.divisor, [])
            if isinstance(part, Compare):
                for one, other in ((part.left, part.right), (part.right, part.left)):
                    if isinstance(one, Mod):
                        bucket = found.setdefault(one.path.name, {}).setdefault(one.divisor, [])
                        items = [other.value] if isinstance(other, Literal) else list(other.values) \
                            if isinstance(other, ListLiteral) else [None]
                        bucket.extend(i for i in items if i not in bucket)
    return found


#: A field compared with ``x % d`` takes the remainders 0 … d - 1 as constants, up to this many.
_MAX_REMAINDER_CONSTANTS = 64


def _collect(node: Compare, constants: Dict[str, List[object]], inexact: Dict[str, str]) -> None:
    for one, other in ((node.left, node.right), (node.right, node.left)):
        if not isinstance(one, Path):
            continue
        bucket = constants.setdefault(one.name, [])
        # What a literal adds to the partition is the operator's to say (the literal itself,
        # for every operator so far).
        added = BY_SPELLING[node.op].constants
        if isinstance(other, Literal):
            items = list(added(other.value))
        elif isinstance(other, ListLiteral):
            items = [c for value in other.values for c in added(value)]
        elif isinstance(other, Mod):
            # A field compared with a remainder (y == x % 5): every remainder is a constant.
            items = list(range(min(other.divisor, _MAX_REMAINDER_CONSTANTS)))
            if other.divisor > _MAX_REMAINDER_CONSTANTS:
                inexact[one.name] = "remainder-field"
        else:
            continue
        for item in items:
            if item is not None and not any(type(b) is type(item) and b == item for b in bucket):
                bucket.append(item)


def related(nodes: Iterable[Node]) -> Dict[str, Set[str]]:
    """path → the set of paths it is compared with, directly or through others (itself included)."""
    parent: Dict[str, str] = {}

    find = functools.partial(_root, parent)
    for node in nodes:
        for part in walk(node):
            if isinstance(part, Compare) and isinstance(part.left, Path) and isinstance(part.right, Path):
                parent[find(part.left.name)] = find(part.right.name)
    groups: Dict[str, Set[str]] = {}
    for path in parent:
        groups.setdefault(find(path), set()).add(path)
    return {path: groups[find(path)] for path in parent}


_MAX_RELATED = 4
_MAX_ITEMS = 10


def _representatives(field: Optional[Field], constants: List[object], related: int = 1,
                     remainders: Optional[Dict[int, List[object]]] = None,
                     free: int = 1) -> Tuple[List[object], Optional[str]]:
    """One value per class of the field's domain (*related* per gap), and None when that is
    exact, else the cause (a key of `CAUSES`) it is not. *remainders* (divisor → the literals
    ``path % divisor`` is compared with) split each gap of an int field further, into residue
    classes; *free* is how many of the related fields take values between the constants."""
    cause = None if related <= _MAX_RELATED else "related"
    k = min(related, _MAX_RELATED)
    if field is None:  # no schema: the constants, and something that is none of them
        values = list(constants)
        values += [_other(constants), True, False, 0]
        return _unique(values), "no-schema"
    kind = field.type
    if kind == "section":
        return [PRESENT], None
    if kind == "bool":
        return [False, True], None
    if field.choices is not None:
        return list(field.choices), cause
    if kind == "str":
        strings = _unique([c for c in constants if isinstance(c, str)])
        others: List[object] = []
        while len(others) < k:
            others.append(_other(strings + others))
        return strings + others, cause
    if kind in ("int", "float"):
        numbers = [c for c in constants if isinstance(c, (int, float)) and not isinstance(c, bool)]
        values, sparse = _numbers(kind, numbers, field.min, field.max, k)
        cause = cause or sparse
        if remainders and kind == "int":
            more, modulus = _residues(numbers, field.min, field.max, remainders)
            values = sorted(_unique(values + more), key=_exact)
            # Residue classes are cut per gap for this field alone: exact while no related
            # field takes values inside the gaps (one with choices takes constants only).
            cause = cause or modulus or (None if free <= 1 else "remainder-related")
        return values, cause
    if kind == "version":
        found = sorted({parsed(c) if isinstance(c, str) else c for c in constants
                        if isinstance(c, (str, Version))})
        values, local = _versions(found, k)
        return values, cause or local
    item = str if kind == "list[str]" else int
    items = _unique([c for c in constants if isinstance(c, item) and not isinstance(c, bool)])
    other = _other(items) if item is str else max([0, *(i for i in items if isinstance(i, int))]) + 1
    if len(items) > _MAX_ITEMS:
        items, cause = items[:_MAX_ITEMS], cause or "items"
    subsets = [tuple(s) for r in range(len(items) + 1) for s in itertools.combinations(items, r)]
    return [*subsets, (other,)], cause


def _numbers(kind: str, constants: List[Any], low: Optional[Number], high: Optional[Number],
             k: int) -> Tuple[List[object], Optional[str]]:
    """The constants an *kind* field can hold, and *k* values inside every gap, within bounds;
    and None, or ``"sparse"`` where the orders of several related fields are not all kept."""
    cause = None
    bounds = [b for b in (low, high) if isinstance(b, (int, float)) and _finite(b)]
    cuts = sorted({_exact(c) for c in list(constants) + bounds if _finite(c)})
    values: List[Any] = []
    for c in cuts:
        if kind == "float" or c == int(c):
            values.append(c if kind == "float" else int(c))
    edges = [None, *cuts, None]
    for a, b in zip(edges, edges[1:]):
        if kind == "float" and k > 1:
            # Related fields, some of them perhaps ints: all use the same integers of the gap,
            # and the float fields also the floats between them, so every order is there.
            whole = sorted(_inside("int", a, b, k))
            values.extend(whole)
            steps = [a, *whole, b]
            for lo, hi in zip(steps, steps[1:]):
                values.extend(_inside("float", lo, hi, k))
        else:
            values.extend(_inside(kind, a, b, k))
    lo = low if isinstance(low, (int, float)) else None
    hi = high if isinstance(high, (int, float)) else None
    # Ints and floats interleave sparsely past 2**52: the orders of several related fields are
    # not all kept there. Constants beyond the field's bounds make no values: they do not count.
    if kind == "float" and k > 1 and any(abs(c) >= 2 ** 52 and (lo is None or c >= lo) and (hi is None or c <= hi)
                                         for c in cuts):
        cause = "sparse"
    kept = _unique([v for v in values if (lo is None or v >= lo) and (hi is None or v <= hi)])
    return sorted(kept, key=_exact), cause


_MAX_MODULUS = 5040


def _residues(constants: List[Any], low: Optional[Number], high: Optional[Number],
              remainders: Dict[int, List[object]]) -> Tuple[List[int], Optional[str]]:
    """Integers that tell apart every class the tests of ``path % d`` draw, inside each gap
    between the constants and bounds: the residue modulo the lcm of the divisors decides every
    remainder, and residues whose remainders compare alike with every literal are one class. A
    remainder compared with something other than literals (``y == x % 5``) needs every residue.
    Returns them, and None, or ``"modulus"`` when a modulus above `_MAX_MODULUS` is sampled,
    not enumerated."""
    modulus = 1
    for divisor in remainders:
        modulus = modulus * divisor // math.gcd(modulus, divisor)
    cause = None if modulus <= _MAX_MODULUS else "modulus"
    span = min(modulus, _MAX_MODULUS)
    signature = _signature(remainders)
    lo, hi, cuts = _cuts(constants, low, high)
    edges: List[Optional[Number]] = [None, *cuts, None]
    found: List[int] = []
    for a, b in zip(edges, edges[1:]):
        start = math.floor(a) + 1 if a is not None else (math.ceil(b) - span if b is not None else 0)
        seen: Set[Tuple[object, ...]] = set()
        for n in range(start, start + span):
            if b is not None and n >= b:
                break
            if (lo is not None and n < lo) or (hi is not None and n > hi):
                continue
            key = signature(n)
            if key not in seen:
                seen.add(key)
                found.append(n)
    return found, cause


def _signature(remainders: Dict[int, List[object]]) -> Callable[[int], Tuple[object, ...]]:
    """How an int's remainders compare with the literals each ``path % d`` is compared with
    (`compared_remainders`): ints of one gap between constants with one signature are one class."""
    literals = {d: sorted({_exact(c) for c in cs if isinstance(c, (int, float)) and not isinstance(c, bool)
                           and _finite(c)}) for d, cs in remainders.items()}
    # A remainder compared with a field (None stands for it): each residue is its own class.
    whole = {d for d, cs in remainders.items() if None in cs}

    def signature(n: int) -> Tuple[object, ...]:
        out: List[object] = []
        for d, cs in literals.items():
            r = n % d
            out.append(r if d in whole else tuple((r > c) - (r < c) for c in cs))
        return tuple(out)

    return signature


def _cuts(constants: List[Any], low: Optional[Number], high: Optional[Number]
          ) -> Tuple[Optional[int], Optional[int], List[Any]]:
    """An int field's bounds as ints, and the points that cut its ints into gaps: every finite
    constant, integral or not (x > 2.5 and x % 2 == 0 needs 4, in the gap above 2.5), and the
    bounds."""
    lo = math.ceil(low) if isinstance(low, (int, float)) and _finite(low) else None
    hi = math.floor(high) if isinstance(high, (int, float)) and _finite(high) else None
    return lo, hi, sorted({_exact(c) for c in constants if _finite(c)} | {b for b in (lo, hi) if b is not None})


def _finite(value: object) -> bool:
    """Not NaN nor an infinity (an int of any size is finite: no float conversion here)."""
    return not isinstance(value, float) or math.isfinite(value)


def _exact(value: Any) -> Any:
    """A number as an exact int when it is integral, so that 2**60 and 2.0**60 sort as equals."""
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    return value


def _inside(kind: str, a: Optional[Number], b: Optional[Number], k: int) -> List[Number]:
    """Up to *k* distinct values strictly between *a* and *b* (None: unbounded), that an *kind*
    field can hold, or none when the gap holds none."""
    out: List[Number] = []
    start = a if a is not None else b
    if start is None:
        return list(range(k))
    current: Number = start
    while len(out) < k:
        found = _step(kind, current, a is not None, b if a is not None else None)
        if found is None:
            break
        out.append(found)
        current = found
    return out


def _step(kind: str, value: Number, up: bool, limit: Optional[Number]) -> Optional[Number]:
    """The nearest value past *value* (upward or downward) that an *kind* field can hold and
    that stays before *limit*: a float where one fits (ints are valid float values too, and are
    the only ones between two huge neighbours), else an int."""
    if isinstance(value, float) and math.isinf(value):
        return None  # nothing lies beyond an infinity
    whole = math.floor(value) + 1 if up else math.ceil(value) - 1
    def fits(v: Number) -> bool:
        return not up or limit is None or v < limit

    if kind == "int":
        return whole if fits(whole) else None
    near = nearest_float(value)  # an int past the largest float: the infinity on its side
    if (near <= value) if up else (near >= value):
        near = math.nextafter(near, math.inf if up else -math.inf)
    for candidate in (near, whole):
        if fits(candidate):
            return candidate
    return None


_BOTTOM = Version("0.dev0")


def _versions(found: List[Version], k: int) -> Tuple[List[object], Optional[str]]:
    """Each constant, and *k* versions inside every gap (fewer, and ``"local"``, where they
    cannot be constructed)."""
    values: List[object] = list(found)
    cause = None
    edges = [None, *found, None]
    for a, b in zip(edges, edges[1:]):
        if a is None:
            start = _BOTTOM if b is None or _BOTTOM < b else None
            chain = [] if start is None else [start]
        else:
            chain = []
            start = a
        current = start
        while current is not None and len(chain) < k:
            current = _version_up(current)
            if b is not None and not current < b:
                break
            chain.append(current)
        chain = chain[:k]
        if len(chain) < k and not (a is None and start is None):
            # Between v and a local variant of v (or below one of 0.dev0): what lies there,
            # if anything, is not constructed. Below 0.dev0 there is nothing: that is exact.
            cause = "local"
        values.extend(chain)
    return _unique(values), cause


def _version_up(v: Version) -> Version:
    """A version just above *v*: before every later version that is not a local variant of *v*."""
    return Version(f"{v}.0") if v.local else Version(f"{v}+0")


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


def json_value(value: object) -> object:
    """A representative as a config (JSON) holds it: a present section as ``{}``, a version as
    text, a tuple as a list."""
    if value is PRESENT:
        return {}
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def _set(config: Dict[str, Any], path: str, value: object) -> None:
    parts = path.split(".")
    holder = config
    for part in parts[:-1]:
        inner = holder.setdefault(part, {})  # a section left out of the assignment is there
        if not isinstance(inner, dict):
            return  # under a section that is None
        holder = inner
    if isinstance(value, dict) and isinstance(holder.get(parts[-1]), dict):
        return
    holder[parts[-1]] = value
