"""Predicates read through adjustments: exact substitution, for ``matrix check``.

An adjustment A (`matrix._adjust`) maps the config X it finds to a config A(X). For a
predicate P, `Rewriter` builds the predicate P' with P'(X) = P(A(X)) for every config X: a
pure rewrite of P's tree, so that the searches of `matrix._space` decide questions about the
config of choice C (and a runner's effective config F) as exactly as about the config given.

After A, a path x reads (the order of `matrix._adjust.apply`):

- None, where A sets a section above x to None and A's ``when`` holds (``override = false``:
  only where that section is None already);
- else A's value for x (a constant, or the value ``from`` names, read on X), where A sets x,
  its ``when`` holds, x is not below a section that reads None, and, for a fill only
  (``override = false``), x reads None;
- else what it read on X.

So each atom of P (a comparison, a test, a bare operand) that reads a path A sets becomes
``(c1 and atom[x := v1]) or (c2 and atom[x := v2]) or …`` over those cases, the conditions
``c`` read on X: ``if W then P[x := v] else P``. A field is replaced by a constant of its own
type, by another field of its type (the loader checks both), or by that field times a number
(``times``: an int for an int field), so every comparison keeps its operand types; an atom left with no path is evaluated at once by the interpreter itself
(`matrix.predicates.truth`), None included: a comparison with None is False exactly as
`matrix._operators` says (``None < 4`` and ``None in [...]`` are False, ``!=`` True). The
rewritten trees are for the search only: they are never printed or compiled.

Composing A1 … An (applied in that order) rewrites by An first: P over the config after An
becomes a predicate over the config after An-1, and so on down to the config given.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ._nodes import And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Node, Not, Or, Path, walk
from ._operators import remainder
from .predicates import truth
from .schema import Adjustment, From, Schema

TRUE, FALSE = Literal(True), Literal(False)

Rewrite = Callable[[Node], Node]

#: The most nodes a rewritten predicate may have: past it, `TooLarge` (check says its answers
#: do not weigh the adjustments, rather than search a tree of millions of nodes).
MAX_NODES = 50_000


class TooLarge(Exception):
    """A rewritten predicate would exceed `MAX_NODES`; ``adjustment`` is the one that did it."""

    def __init__(self, adjustment: str) -> None:
        super().__init__(adjustment)
        self.adjustment = adjustment


def constant(node: Node) -> Optional[bool]:
    """True or False for the folded constants, None for anything else."""
    if isinstance(node, Literal) and type(node.value) is bool:
        return node.value
    return None


def conjoin(nodes: Sequence[Node]) -> Node:
    out: List[Node] = []
    for node in nodes:
        value = constant(node)
        if value is False:
            return FALSE
        if value is True:
            continue
        out.extend(node.operands if isinstance(node, And) else (node,))
    return TRUE if not out else out[0] if len(out) == 1 else And(tuple(out))


def disjoin(nodes: Sequence[Node]) -> Node:
    out: List[Node] = []
    for node in nodes:
        value = constant(node)
        if value is True:
            return TRUE
        if value is False:
            continue
        out.extend(node.operands if isinstance(node, Or) else (node,))
    return FALSE if not out else out[0] if len(out) == 1 else Or(tuple(out))


def negate(node: Node) -> Node:
    value = constant(node)
    if value is not None:
        return Literal(not value)
    return node.operand if isinstance(node, Not) else Not(node)


def size(node: Node) -> int:
    return sum(1 for _ in walk(node))


def _paths(node: Node) -> Iterator[str]:
    for part in walk(node):
        if isinstance(part, Path):
            yield part.name


def _replaced(node: Node, terms: Dict[str, Node]) -> Node:
    """*node* (an atom) with each path of *terms* replaced by its term (a `Path` or a `Literal`)."""
    if isinstance(node, Path):
        return terms.get(node.name, node)
    if isinstance(node, Mod):
        term = terms.get(node.path.name, node.path)
        if isinstance(term, Literal):
            return Literal(remainder(term.value, node.divisor))
        if isinstance(term, Arith):  # a scaled copy: its remainder is arithmetic on it
            return Arith(term, "%", Literal(node.divisor))
        assert isinstance(term, Path)
        return Mod(term, node.divisor)
    if isinstance(node, Arith):
        return Arith(_replaced(node.left, terms), node.op, _replaced(node.right, terms))
    if isinstance(node, Call):
        return Call(node.name, tuple(_replaced(arg, terms) for arg in node.args))
    if isinstance(node, DerivedField):
        # Said as its expression once a path it reads is replaced: the name would say otherwise.
        return _replaced(node.expression, terms)
    if isinstance(node, Compare):
        return Compare(_replaced(node.left, terms), node.op, _replaced(node.right, terms))
    if isinstance(node, IsNone):
        return IsNone(_replaced(node.operand, terms), node.negated)
    return node  # a literal, or a list of literals


def _folded(atom: Node) -> Node:
    """*atom* itself, or its truth when it reads no path (the interpreter decides it)."""
    if any(True for _ in _paths(atom)):
        return atom

    def nothing(path: str) -> object:  # pragma: no cover — no path is left to read
        raise AssertionError(path)

    return Literal(bool(truth(atom, nothing)))


class _One:
    """One adjustment: the cases of each path it may change (condition on X, term)."""

    def __init__(self, adjustment: Adjustment, schema: Optional[Schema], roles: Optional[Rewrite] = None) -> None:
        self.adjustment = adjustment
        # A condition read after the choice may read a role: the fields it stands for there.
        self.when = adjustment.when.node if roles is None else roles(adjustment.when.node)
        self.fill = not adjustment.override
        self.schema = schema
        self.targets = dict(adjustment.set)
        self.sections = [p for p, v in self.targets.items() if v is None]
        self._cases: Dict[str, List[Tuple[Node, Node]]] = {}

    def guard(self, path: str) -> Node:
        """Where A sets *path* (before its sibling paths set to None are weighed)."""
        parts = path.split(".")
        above = []
        for end in range(1, len(parts)):
            section = ".".join(parts[:end])
            field = self.schema.get(section) if self.schema else None
            if field is None or field.nullable:
                above.append(IsNone(Path(section), True))
        fill = [IsNone(Path(path), False)] if self.fill else []
        return conjoin([self.when, *fill, *above])

    def term(self, path: str) -> Node:
        value = self.targets[path]
        if not isinstance(value, From):
            return Literal(value)
        if value.times is None:
            return Path(value.path)
        # A scaled copy (``times``): the product, None for None (`matrix._operators`); over a
        # float, `matrix._space` cannot partition it exactly and says so (cause ``arithmetic``).
        return Arith(Path(value.path), "*", Literal(value.times))

    def affects(self, path: str) -> bool:
        return path in self.targets or any(path.startswith(s + ".") for s in self.sections)

    def cases(self, path: str) -> List[Tuple[Node, Node]]:
        """What *path* reads after A: exclusive conditions on X, each with its term."""
        found = self._cases.get(path)
        if found is not None:
            return found
        out: List[Tuple[Node, Node]] = []
        rest: List[Node] = []  # the conditions of the cases before, negated
        gone = disjoin([self.guard(s) for s in self.sections if path.startswith(s + ".")])
        if constant(gone) is not False:
            out.append((gone, Literal(None)))
            rest.append(negate(gone))
        if path in self.targets:
            mine = self.guard(path)
            out.append((conjoin([*rest, mine]), self.term(path)))
            rest.append(negate(mine))
        out.append((conjoin(rest), Path(path)))
        out = [(c, t) for c, t in out if constant(c) is not False]
        self._cases[path] = out
        return out

    def changes(self) -> Optional[Node]:
        """Where A changes some value of X (as `matrix._adjust.apply` reports it), or None when
        that cannot be said exactly (a list value: the search tests no list for equality)."""
        options = []
        for path, value in self.targets.items():
            field = self.schema.get(path) if self.schema else None
            if field is not None and field.item_type is not None:
                return None
            if isinstance(value, From):
                other = self.schema.get(value.path) if self.schema else None
                if other is not None and other.item_type is not None:
                    return None
            if value is None:
                differs: Node = IsNone(Path(path), True)
            else:
                differs = Not(Compare(Path(path), "==", self.term(path)))
            options.append(conjoin([self.guard(path), differs]))
        return disjoin(options)


class Rewriter:
    """Rewrites predicates over the config after *adjustments* (applied in order) into
    predicates over the config before them (see the module docstring).

    :raises TooLarge: from `__call__`, when a rewritten tree grows past `MAX_NODES`.
    """

    def __init__(self, adjustments: Sequence[Adjustment], schema: Optional[Schema],
                 roles: Optional[Rewrite] = None) -> None:
        self.steps = [_One(a, schema, roles) for a in adjustments]
        self._memo: Dict[Tuple[int, Node], Node] = {}

    def __bool__(self) -> bool:
        return bool(self.steps)

    def __call__(self, node: Node, before: Optional[int] = None) -> Node:
        """*node* read on the config after the first *before* adjustments (all by default),
        as a predicate over the config before them."""
        count = len(self.steps) if before is None else before
        for index in reversed(range(count)):
            node = self.through(index, node)
        return node

    def changes(self, index: int) -> Optional[Node]:
        """Where the adjustment at *index* changes a value, over the config before them all."""
        node = self.steps[index].changes()
        return None if node is None else self(node, index)

    def through(self, index: int, node: Node) -> Node:
        """*node* read after the adjustment at *index*, over the config before it."""
        key = (index, node)
        done = self._memo.get(key)
        if done is None:
            done = self._memo[key] = self._rewrite(self.steps[index], node)
            if size(done) > MAX_NODES:
                raise TooLarge(self.steps[index].adjustment.id)
        return done

    def _rewrite(self, step: Any, node: Node) -> Node:
        if isinstance(node, And):
            return conjoin([self._rewrite(step, n) for n in node.operands])
        if isinstance(node, Or):
            return disjoin([self._rewrite(step, n) for n in node.operands])
        if isinstance(node, Not):
            return negate(self._rewrite(step, node.operand))
        if isinstance(node, (Literal, ListLiteral)):
            return node
        affected = [p for p in dict.fromkeys(_paths(node)) if step.affects(p)]
        if not affected:
            return node
        combos: List[Tuple[List[Node], Dict[str, Node]]] = [([], {})]
        for path in affected:
            combos = [(conds + [c], {**terms, path: t}) for conds, terms in combos for c, t in step.cases(path)]
        return disjoin([conjoin([*conds, _folded(_replaced(node, terms))]) for conds, terms in combos])


def identity(node: Node) -> Node:
    return node


def substituted(step: Any, node: Node) -> Node:
    """*node* with each atom that reads a path *step* ``affects`` written as the cases of
    ``step.cases(path)`` (conditions on the same config, each with its term), as an adjustment's
    step rewrites it: `matrix._roles.Filling` writes each ``role.<id>`` so."""
    return Rewriter((), None)._rewrite(step, node)
