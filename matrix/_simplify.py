"""A condition said shorter, for reading: the same configs, fewer words (``matrix diff``'s regions).

The rules are those of two-valued logic, each condition that is not ``and``, ``or`` or ``not``
an atom: ``x and not (x and not y)`` is ``x and y`` whatever ``x`` and ``y`` are. A negated test
is said as the operator that negates it (``not a == 'b'`` as ``a != 'b'``, ``not x is None`` as
``x is not None``, ``not s in [...]`` as ``s not in [...]``): `matrix._operators` defines each of
those as the other's negation, None included (``not x < 1`` is not ``x >= 1``: a comparison
with None is False both ways, so it stays).

- A conjunct (a disjunct) said outright decides the others: ``x and (x or y)`` is ``x``,
  ``x or (not x and y)`` is ``x or y``; ``x and not x`` holds for no config.
- Absorption: ``(a and b) or (a and b and c)`` is ``a and b``; a condition and its negation
  decide: ``(a and b) or not (a and b)`` holds for every config.
- Common conjuncts of every disjunct are said once: ``(a and b) or (a and not b)`` is ``a``; and
  common disjuncts of every conjunct: ``(a or b) and (a or not b)`` is ``a``.
- A list of ``x in [...]`` in an ``and`` keeps the values the other tests of ``x`` let through:
  ``x in [1, 2] and x != 1`` is ``x == 2``.
- Tests of one path decide each other where one implies the other (a user trial read
  ``dtype == 'bf16' or dtype != 'fp8'``, which is ``dtype != 'fp8'``): ``x > 3 or x > 5`` is
  ``x > 3``, ``x == 2 and x != 3`` is ``x == 2``, ``x == 2 and x > 5`` holds for no config. What
  a test of ``x`` says of another is found by evaluating both on one value of each class of
  values the two cannot tell apart (`_samples`: None, each literal, a number between and beyond
  them, another string, the version each string spells), so it holds for every value a config
  can have, None included (``x > 3 or x <= 3`` stays: None is in neither).

Held by the brute force of ``matrix diff`` (every config of a region goes from its finding's old
answer to its new one, and every config whose answer differs is in a region).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Dict, FrozenSet, List, Optional, Tuple, Type, Union

from packaging.version import Version

from ._nodes import And, Compare, IsNone, ListLiteral, Literal, Node, Not, Or, Path
from ._operators import BY_SPELLING
from ._versions import to_version

TRUE, FALSE = Literal(True), Literal(False)

#: A test and the one that is its negation (`matrix._operators`: ``negates``).
_NEGATED = {"==": "!=", "!=": "==", "in": "not in", "not in": "in"}

#: Rounds of the whole tree: each round can only shorten it, so it stops soon.
_ROUNDS = 8


def simplified(node: Node) -> Node:
    """*node* said with fewer conditions, holding for exactly the same configs."""
    for _ in range(_ROUNDS):
        shorter = _simplify(node, {})
        if shorter == node:
            break
        node = shorter
    return node


def _atom(node: Node) -> Tuple[Node, bool]:
    """*node* as (atom, whether it holds where the atom does): ``x != 1`` is (``x == 1``, False)."""
    if isinstance(node, Not):
        atom, holds = _atom(node.operand)
        return atom, not holds
    if isinstance(node, Compare) and node.op in ("!=", "not in"):
        return Compare(node.left, _NEGATED[node.op], node.right), False
    if isinstance(node, IsNone) and node.negated:
        return IsNone(node.operand, False), False
    return node, True


def _negation(node: Node) -> Node:
    if node == TRUE:
        return FALSE
    if node == FALSE:
        return TRUE
    if isinstance(node, Not):
        return node.operand
    if isinstance(node, Compare) and node.op in _NEGATED:
        return Compare(node.left, _NEGATED[node.op], node.right)
    if isinstance(node, IsNone):
        return IsNone(node.operand, not node.negated)
    return Not(node)


def _simplify(node: Node, known: Dict[Node, bool]) -> Node:
    """*node* where each atom of *known* has its value."""
    if isinstance(node, And):
        return _junction(And, node.operands, known)
    if isinstance(node, Or):
        return _junction(Or, node.operands, known)
    if isinstance(node, Not):
        inner = _simplify(node.operand, known)
        if isinstance(inner, (And, Or)):
            # ``not (a or not b)`` said ``not a and b`` where that says fewer ``not``s.
            flipped = _simplify((Or if isinstance(inner, And) else And)(tuple(_negation(o) for o in inner.operands)),
                                known)
            if _nots(flipped) < _nots(inner) + 1:
                return flipped
        return _negation(inner)
    if node == TRUE or node == FALSE:
        return node
    atom, holds = _atom(node)
    value = _decided(atom, known)
    if value is not None:
        return TRUE if value == holds else FALSE
    return node


def _path(atom: Node) -> Optional[str]:
    """The path *atom* tests against literals (``x > 3``, ``x in [1, 2]``, ``x is None``), else None."""
    if isinstance(atom, Compare) and isinstance(atom.left, Path) and isinstance(atom.right, (Literal, ListLiteral)):
        return atom.left.name
    if isinstance(atom, IsNone) and isinstance(atom.operand, Path):
        return atom.operand.name
    return None


def _decided(atom: Node, known: Dict[Node, bool]) -> Optional[bool]:
    """Whether *atom* holds wherever *known* does (None: it may hold or not)."""
    if atom in known:
        return known[atom]
    path = _path(atom)
    if path is None:
        return None
    facts = frozenset((a, v) for a, v in known.items() if _path(a) == path)
    return _implied(atom, facts) if facts else None


@lru_cache(maxsize=4096)
def _implied(atom: Node, facts: FrozenSet[Tuple[Node, bool]]) -> Optional[bool]:
    """Whether *atom* holds for every value of its path that gives each of *facts* (tests of the
    same path) its value; None where it holds for some and not others, or for none."""
    samples = _samples((atom, *(a for a, _ in facts)))
    if samples is None:
        return None
    try:
        found = {_holds(atom, s) for s in samples if all(_holds(a, s) == v for a, v in facts)}
    except Exception:  # a value the operators cannot read: say nothing of it
        return None
    return found.pop() if len(found) == 1 else None


def _holds(atom: Node, value: object) -> bool:
    if isinstance(atom, IsNone):
        return (value is None) is not atom.negated
    assert isinstance(atom, Compare) and isinstance(atom.right, (Literal, ListLiteral))
    right = atom.right.values if isinstance(atom.right, ListLiteral) else atom.right.value
    evaluate = BY_SPELLING[atom.op].evaluate
    assert evaluate is not None
    return bool(evaluate(value, right))


def _samples(atoms: Tuple[Node, ...]) -> Optional[Tuple[object, ...]]:
    """One value of each class of values that *atoms* (tests of one path) cannot tell apart: None;
    each literal; a number below, between and above the numbers (bools among them: ``True == 1``);
    a string that is no literal; the version each string literal spells (a version field compares
    with strings as versions); True and False. None where an atom orders by a literal that is not
    a number (versions are not ordered here: between any two there are others)."""
    constants: List[object] = []
    for atom in atoms:
        if isinstance(atom, IsNone):
            continue
        assert isinstance(atom, Compare) and isinstance(atom.right, (Literal, ListLiteral))
        membership = BY_SPELLING[atom.op].kind == "membership"
        if membership is not isinstance(atom.right, ListLiteral):
            return None  # ``x == [1]``: a list's value is no sample's
        values = atom.right.values if isinstance(atom.right, ListLiteral) else (atom.right.value,)
        if not membership and atom.op not in ("==", "!=") and not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return None
        constants += values
    numbers = {Fraction(0), Fraction(1)}
    texts = set()
    for value in constants:
        if isinstance(value, (int, float)):
            try:
                numbers.add(Fraction(value))
            except (OverflowError, ValueError):  # inf, nan
                return None
        elif isinstance(value, (str, Version)):
            texts.add(str(value))
        elif value is not None:
            return None
    line = sorted(numbers)
    between = [(a + b) / 2 for a, b in zip(line, line[1:])]
    other = "?" + "".join(sorted(texts))  # longer than any: no literal
    versions = [v for v in (to_version(t) for t in sorted(texts)) if v is not None]
    return (None, True, False, other, line[0] - 1, *line, *between, line[-1] + 1, *sorted(texts), *versions)


def _nots(node: Node) -> int:
    """How many ``not``s *node* says (``!=``, ``not in`` and ``is not None`` each one)."""
    if isinstance(node, Not):
        return 1 + _nots(node.operand)
    if isinstance(node, (And, Or)):
        return sum(_nots(o) for o in node.operands)
    return 0 if _atom(node)[1] else 1


def _literal(node: Node) -> bool:
    """Whether *node* is a test, or a test negated (``not (a and b)`` is not)."""
    return not isinstance(_atom(node)[0], (And, Or))


def _operands(node: Node, kind: Type[Union[And, Or]]) -> Tuple[Node, ...]:
    """*node*'s operands where it is a *kind*, else *node* alone."""
    return node.operands if isinstance(node, (And, Or)) and type(node) is kind else (node,)


def _members(node: Node, kind: Type[Union[And, Or]]) -> FrozenSet[Node]:
    return frozenset(_operands(node, kind))


def _junction(kind: Type[Union[And, Or]], operands: Tuple[Node, ...], known: Dict[Node, bool]) -> Node:
    # And: TRUE is said by nothing, FALSE decides; Or: the other way round.
    unit, decides = (TRUE, FALSE) if kind is And else (FALSE, TRUE)
    other = Or if kind is And else And
    read = _read(kind, operands, known)
    if read is None:
        return decides  # ``x and not x``, ``x or not x``, ``x == 2 and x > 5``
    said, rest = read
    if any(_negation(n) in rest for n in rest):
        return decides  # ``(a and b) or not (a and b)`` (a user trial: a whole region's rest said so)
    compound = sorted(((p, n) for n, p in rest.items()), key=lambda d: d[0])
    nodes = [n for _, n in compound]
    sets = [_members(n, other) for n in nodes]
    # Resolution: ``(a and b) or (a and not b)`` is ``a``, ``(x or y) and (not x or y)`` is ``y``:
    # two operands alike but for one test, once as it is and once negated (found by what is left
    # of each without one of its tests).
    seen: Dict[Tuple[FrozenSet[Node], Node], Tuple[int, bool]] = {}
    for j, members in enumerate(sets):
        for member in members:
            atom, holds = _atom(member)
            key = (members - {member}, atom)
            found = seen.setdefault(key, (j, holds))
            if found[1] == holds:
                continue
            i = found[0]
            common = [m for m in _operands(nodes[i], other) if m in key[0]]
            merged = (FALSE if other is Or else TRUE) if not common else common[0] if len(common) == 1 \
                else other(tuple(common))
            ordered = sorted([*said, *(d for k, d in enumerate(compound) if k not in (i, j)), (compound[i][0], merged)],
                             key=lambda d: d[0])
            return _simplify(kind(tuple(n for _, n in ordered)), known)
    # Absorption: an operand whose members hold another's whole (``a or (a and b)``; one said
    # outright decided the others already).
    kept = [d for i, d in enumerate(compound) if not any(sets[k] < sets[i] for k in range(len(nodes)))]
    kept = sorted([*said, *kept], key=lambda d: d[0])
    # Said once: ``(a and b) or (a and c)`` is ``a and (b or c)``, and ``(a or b) and (a or c)``
    # is ``a or (b and c)`` (a user trial: ``(s or j) and (s or not (j or k))`` is ``s``): the
    # operands that share a member, the others left as they are.
    groups = [(d, _members(d[1], other)) for d in kept if isinstance(d[1], other)]
    for _, node in sorted(((p, m) for (p, n), members in groups for m in _operands(n, other)), key=lambda d: d[0]):
        sharing = [(d, members) for d, members in groups if node in members]
        if len(sharing) < 2:
            continue
        shared = frozenset.intersection(*(members for _, members in sharing))
        first = [m for m in _operands(sharing[0][0][1], other) if m in shared]
        rests = [_joined(other, [m for m in _operands(d[1], other) if m not in shared]) for d, _ in sharing]
        factored = (sharing[0][0][0], other((*first, kind(tuple(rests)))))
        taken = {id(d) for d, _ in sharing}
        ordered = sorted([*(d for d in kept if id(d) not in taken), factored], key=lambda d: d[0])
        return _simplify(kind(tuple(n for _, n in ordered)) if len(ordered) > 1 else ordered[0][1], known)
    if not kept:
        return unit
    return kept[0][1] if len(kept) == 1 else kind(tuple(n for _, n in kept))


def _read(kind: Type[Union[And, Or]], operands: Tuple[Node, ...],
          known: Dict[Node, bool]) -> Optional[Tuple[List[Tuple[float, Node]], Dict[Node, float]]]:
    """The operands of a *kind* read knowing *known*, each with its place, so that the text keeps
    the order it was written in: those said outright (tests), and the others, each once. None
    where they decide the *kind* whole."""
    unit, decides = (TRUE, FALSE) if kind is And else (FALSE, TRUE)
    facts = dict(known)
    said: List[Tuple[float, Node]] = []
    rest: Dict[Node, float] = {}
    pending: List[Tuple[float, Node]] = [(float(i), n) for i, n in enumerate(operands)]
    while pending:
        learnt = False
        while pending:
            place, node = pending.pop()
            node = _simplify(node, facts)
            if node == decides:
                return None
            if node == unit:
                continue  # said already, or decided by the context
            if isinstance(node, kind):
                pending += [(place + (i + 1) / (len(node.operands) + 1) / 1e3, n) for i, n in enumerate(node.operands)]
            elif _literal(node):
                # Said outright, it decides the others: in ``and`` it holds there, in ``or`` not.
                atom, holds = _atom(node)
                facts[atom] = holds if kind is And else not holds
                said.append((place, node))
                learnt = True
            elif node not in rest:
                rest[node] = place
        if learnt:  # the others read again, knowing it (one pass per round: rounds are few)
            pending, rest = [(p, n) for n, p in rest.items()], {}
    unsaid = _unsaid(kind, said, known)
    return None if unsaid is None else (unsaid, rest)


def _unsaid(kind: Type[Union[And, Or]], said: List[Tuple[float, Node]],
            known: Dict[Node, bool]) -> Optional[List[Tuple[float, Node]]]:
    """The tests *said* outright in a *kind*, each one the others decide left out (None: the others
    decide the *kind* whole, as ``x == 2 and x > 5`` does). A test read before another of its
    path was said is read again knowing the others: in ``x == 'b' or x != 'f'``, ``x == 'b'`` is
    said by ``x != 'f'`` (rounds read operands in the same order, so they would not find it)."""
    if kind is And:
        narrowed = _narrowed(said)
        if narrowed is None:
            return None
        said = narrowed
    for entry in list(said):
        atom, holds = _atom(entry[1])
        others = dict(known)
        for fact, fact_holds in (_atom(d[1]) for d in said if d is not entry):
            others[fact] = fact_holds if kind is And else not fact_holds
        value = _decided(atom, others)
        if value is None:
            continue
        if (value == holds) is not (kind is And):
            return None
        said = [d for d in said if d is not entry]
    return said


def _narrowed(said: List[Tuple[float, Node]]) -> Optional[List[Tuple[float, Node]]]:
    """Tests said outright in an ``and``, each ``x in [...]`` keeping only the values the other
    tests of ``x`` let through (a user trial: ``vendor in ['intel', 'amd'] and vendor != 'intel'``
    is ``vendor == 'amd'``; the ``!=`` is then said by it). None where no value is left. Not where
    a literal is a string that spells a version (a version field compares those as versions,
    which this does not know)."""
    out = list(said)
    for index, (place, node) in enumerate(said):
        if not (isinstance(node, Compare) and node.op == "in" and isinstance(node.left, Path)
                and isinstance(node.right, ListLiteral)):
            continue
        others = [_atom(n) for p, n in said if p != place and _path(_atom(n)[0]) == node.left.name]
        literals = [*node.right.values, *(v for a, _ in others if isinstance(a, Compare) for v in (
            a.right.values if isinstance(a.right, ListLiteral) else (a.right.value,) if isinstance(a.right, Literal) else ()))]
        if not others or any(isinstance(v, str) and to_version(v) is not None for v in literals):
            continue
        try:
            kept = [i for i in node.right.items if all(_holds(a, i.value) == h for a, h in others)]
        except Exception:  # a value the operators cannot read: leave it as it is
            continue
        if not kept:
            return None
        if len(kept) < len(node.right.items):
            out[index] = (place, (IsNone(node.left, False) if kept[0].value is None else Compare(node.left, "==", kept[0]))
                          if len(kept) == 1 else Compare(node.left, "in", ListLiteral(tuple(kept))))
    return out


def _joined(kind: Type[Union[And, Or]], nodes: List[Node]) -> Node:
    """*nodes* joined by *kind* (none: what *kind* of nothing holds for)."""
    if not nodes:
        return TRUE if kind is And else FALSE
    return nodes[0] if len(nodes) == 1 else kind(tuple(nodes))
