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

import functools
import json
import math
import random
import re
import types
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from packaging.version import Version

from ._messages import did_you_mean, needs_hypothesis

try:
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
except ImportError as error:  # an extra (`testing`): said, with the command that installs it
    raise ImportError(needs_hypothesis("matrix.strategies"), name=error.name) from error

from ._given import PREFIX as GIVEN
from ._nodes import And, Node, Not, Or, Path, walk
from ._operators import COMPARISONS, comparisons_for, exact_float
from ._space import Inconclusive, Space, compared_constants
from ._steer_staged import staged_targets
from ._versions import VersionLike, parsed, to_version
from .schema import APPLIES, BLOCKING, Adjustment, Feature, Field, From, Matrix, Order, Redirect, Schema

__all__ = ["configs", "as_object", "values", "predicates", "predicate_sources", "matrices"]


def __dir__() -> List[str]:
    return __all__


def _constants(matrix: Matrix) -> Dict[str, List[object]]:
    """The literals each path is compared with in the matrix's predicates (its runner
    requirements, candidacies, orders, redirects and adjustments included)."""
    derived = [g for g in matrix.gates_at() if g.origin is not None]
    return compared_constants([f.when.node for f in (*matrix.features, *derived)] + [a.when.node for a in matrix.adjustments])


# Strings are drawn from this alphabet, not with `st.text()`: hypothesis builds its Unicode
# tables on the first `st.text()` of a process whose storage folder is new (seconds, on a fresh
# machine or CI runner), which failed the health check of a user's first run. The alphabet
# keeps what breaks string handling: quotes, backslash, whitespace and line breaks, NUL,
# accented and combining letters, CJK, an emoji, a right-to-left letter.
_ALPHABET = ("ab" "AZ" "09" "_-. " "'\"\\" "\n\t\r\x00" "é" "e\u0301" "ß" "Ω" "中" "\U0001f642" "\u05d0")
_TEXT = st.lists(st.sampled_from(_ALPHABET), max_size=8).map("".join)


def _is_version(text: str) -> bool:
    return to_version(text) is not None


# Hypothesis draws an integer, float or string, with some probability, from the literals in the
# source of every local module imported so far (not the standard library's, site-packages' or
# tests'; integers between -99 and 99 and the floats 0.0 and infinity left out), and the pool
# grows as the process imports more (`resolve` imports some modules lazily, mid-run): what such
# a draw gives for a seed would depend on what the process imported before. `configs` draws
# only what that pool cannot hold: booleans, integers between -99 and 99 (sampled indices among
# at most 100 items included), and wider numbers built from those.
_DIGIT = 100


def _seed(draw: st.DrawFn) -> int:
    """A 32-bit seed, drawn bit by bit."""
    return sum(draw(st.booleans()) << bit for bit in range(32))


_MAGNITUDE = st.lists(st.integers(0, _DIGIT - 1), min_size=1, max_size=5).map(
    lambda digits: sum(d * _DIGIT ** i for i, d in enumerate(digits)))


# Sizes where integer handling breaks (hypothesis's own constants include them too).
_EDGES = (2 ** 31 - 1, 2 ** 31, 2 ** 32, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64)


def _integers(low: Optional[int] = None, high: Optional[int] = None) -> st.SearchStrategy:
    """Integers from *low* to *high* (either unbounded when None), shrinking toward 0 or the
    bound nearest it, never from the pool of local literals."""
    if low is not None and high is not None and -_DIGIT < low and high < _DIGIT:
        return st.integers(low, high)
    edges = [v for e in _EDGES for v in (e, -e) if (low is None or v >= low) and (high is None or v <= high)]
    spread = _spread(low, high)
    return spread | st.sampled_from(edges) if edges else spread


def _spread(low: Optional[int], high: Optional[int]) -> st.SearchStrategy:
    """`_integers` of a range wider than the digits: a magnitude of base-100 digits, signed
    (toward 0) or counted from the bound nearest 0, folded into the range."""
    if (low is None or low <= 0) and (high is None or high >= 0):
        def signed(pair: Tuple[bool, int]) -> int:
            negative, m = pair
            if negative:
                return -m if low is None else -(m % (1 - low))
            return m if high is None else m % (high + 1)

        return st.tuples(st.booleans(), _MAGNITUDE).map(signed)
    if low is None:
        assert high is not None
        top = high
        return _MAGNITUDE.map(lambda m: top - m)
    if high is None:
        bottom = low
        return _MAGNITUDE.map(lambda m: bottom + m)
    start, span = (low, high - low + 1) if low > 0 else (high, low - high - 1)
    return _MAGNITUDE.map(lambda m: start + m % span if span > 0 else start - m % -span)


def _sampled(items: Sequence[Any]) -> st.SearchStrategy:
    """One of *items*, shrinking toward the first."""
    if len(items) <= _DIGIT:
        return st.sampled_from(items)
    chosen = list(items)
    return _integers(0, len(chosen) - 1).map(chosen.__getitem__)


def _floats(low: Optional[float], high: Optional[float], allow_infinity: bool) -> st.SearchStrategy:
    """Floats from *low* to *high* (never NaN), shrinking toward 0 or the bound nearest it:
    an integer mantissa times a power of two, and infinities when allowed."""
    def build(pair: Tuple[int, int]) -> float:
        value = pair[0] * 2.0 ** pair[1]
        if low is not None and high is not None:
            if not low <= value <= high:
                value = low + abs(value) % (high - low) if high > low else low
        elif low is not None and value < low:
            value = low + (low - value)  # reflected into the range
        elif high is not None and value > high:
            value = high - (value - high)
        return exact_float(value)  # a bound 2**53 + 1 (an int) stays itself: float() rounds it out of range

    finite = st.tuples(_integers(), st.integers(-60, 20)).map(build)
    if not allow_infinity:
        return finite
    ends = [v for v in (float("inf"), float("-inf"))
            if (low is None or v >= low) and (high is None or v <= high)]
    return finite | st.sampled_from(ends)


def values(field: Field, constants: Sequence[object] = ()) -> st.SearchStrategy:
    """Values *field* allows (never None), shrinking toward its default and the constants the
    predicates compare it with."""
    kind = field.type
    if kind == "bool":
        base: st.SearchStrategy = st.booleans()
    elif field.choices is not None:
        base = _sampled(field.choices)
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
        wide: st.SearchStrategy[Any]
        if kind == "int":
            wide = _integers(None if low is None else int(-(-low // 1)), None if high is None else int(high // 1))
        else:  # inf is a config value; NaN is not
            wide = _floats(low, high, allow_infinity=low is None or high is None)
        base = _sampled(sorted(set(near))) | wide if near else wide
    elif kind == "str":
        strings = [c for c in constants if isinstance(c, str)]
        base = _sampled(strings) | _TEXT if strings else _TEXT
    elif kind == "version":
        known = [c for c in constants if isinstance(c, str) and _is_version(c)]
        drawn = st.builds(lambda a, b, c: f"{a}.{b}.{c}", st.integers(0, 3), st.integers(0, 40), st.integers(0, 5))
        base = _sampled(known) | drawn if known else drawn
    else:  # list[str], list[int]
        item_constants = [c for c in constants if isinstance(c, (str if kind == "list[str]" else int))]
        items: st.SearchStrategy[Any] = _TEXT if kind == "list[str]" else _integers()
        if item_constants:
            items = _sampled(item_constants) | items
        base = st.lists(items, max_size=3)
    if field.has_default and field.default is not None:
        default = list(field.default) if isinstance(field.default, tuple) else field.default
        return st.just(default) | base
    return base




def configs(matrix: Matrix, *, version: Optional[VersionLike] = None, active: Optional[Sequence[str]] = None,  # noqa: C901 — the branches check each argument at the call (hypothesis's InvalidArgument rule), then one strategy is built
            inactive: Optional[Sequence[str]] = None, as_objects: bool = False,
            constants: Sequence[object] = ()) -> st.SearchStrategy:
    """Configs valid under *matrix*'s schema, as nested dicts (or attribute objects).

    Fields with a default are sometimes left out, so defaults are exercised; nullable fields
    and sections are sometimes None. Random values rarely reach rare gates, so most examples
    are steered: a few gates in force at *version* are picked, and the values that make them
    active together are solved for (exactly, over the values the predicates can tell apart),
    the rest drawn at random; each steered example also aims toward or away from one
    adjustment or redirect applying. Shrinks toward an unsteered config with every field at its
    default.

    :param active: ids of gates every example must make active: features, or gates derived
        from the runner files (``<runner>:<kind>`` a failed requirement, ``<runner>:candidate``,
        ``order:<id>``, ``<runner>:redirect:<n>`` the *n*-th redirect's condition holding).
    :param inactive: ids of gates every example must leave inactive.
    :param as_objects: attribute objects (``SimpleNamespace``) instead of dicts, complete as a
        host's config classes are: every declared field with a default is an attribute (an
        object lacking one is a `ConfigError`); facts are left out, as a host's objects would.
    :param constants: more literals to draw, with their neighbours, for every field of their
        type that has no choices (a number for ``int`` and ``float`` fields, a string for
        ``str`` and ``list[str]``, a version string for ``version``), beside those the
        predicates compare each field with: the constants of code a test compares the matrix
        with (`matrix.testing.assert_matches` passes the legacy function's).
    :raises InvalidArgument: an unknown gate id, a gate not in force at *version*, or
        *active* and *inactive* gates that no config satisfies together.
    """
    from .errors import MatrixError

    if not isinstance(matrix, Matrix):
        raise InvalidArgument(f"configs() takes a Matrix, not {type(matrix).__name__}")
    if not isinstance(as_objects, bool):
        raise InvalidArgument(f"as_objects must be a bool, not {as_objects!r}")
    if isinstance(constants, (str, bytes)) or not isinstance(constants, Sequence):
        raise InvalidArgument(f"constants must be a list of values, not {constants!r}")
    try:
        v = matrix.release(version)
    except MatrixError as error:
        raise InvalidArgument(str(error)) from None
    # Only what the host's config has at the version is drawn: fields and choices that come
    # later or have gone are left out, and so are the gates that read a field gone by then
    # (records of a removal, which a drawn config never uses).
    schema = matrix.schema.at(v)
    # Steered toward features, and toward passing and failing each runner requirement and each
    # redirect's condition (the gates derived from the runners: see `Matrix.gates_at`), and
    # toward each adjustment in force applying and not.
    gates = {f.id: f for f in matrix.gates_at(v)}
    drawable = {i: f for i, f in gates.items() if all(p in schema for p in f.when.paths)}
    adjustments = [_applies(a) for a in matrix.adjustments_at(v) if all(p in schema for p in a.when.paths)]
    adjustments += _filled(matrix, v, schema)
    adjustments += _refused_defaults(matrix, v, list(drawable.values()))
    # Where a redirect at a stage and a requirement of roles staged after the choice act and are
    # passed (issue 30, F6 with F1): each node one way, steered toward only.
    staged = [n for n in staged_targets(matrix, v) if all(p.name in schema for p in walk(n) if isinstance(p, Path))]
    wanted = {}
    for name, ids in (("active", active), ("inactive", inactive)):
        if ids is None:
            ids = ()
        if isinstance(ids, str) or not all(isinstance(i, str) for i in ids):
            raise InvalidArgument(f"{name} must be a list of gate ids, not {ids!r}")
        for gate in ids:
            if gate not in gates:
                known = [f.id for f in matrix.features]
                if gate in known:
                    raise InvalidArgument(f"{name}: {gate!r} is not in force at {v}")
                raise InvalidArgument(f"{name}: {gate!r} is not a gate of this matrix{did_you_mean(gate, gates)}")
            if gate not in drawable:
                path = next(p for p in sorted(gates[gate].when.paths) if p not in schema)
                raise InvalidArgument(f"{name}: {gate!r} reads {path!r}, which the config does not have at {v}")
        wanted[name] = [gates[i] for i in ids]
    space = Space(schema, [f.when.node for f in drawable.values()] + adjustments + staged)
    must = [f.when.node for f in wanted["active"]]
    must_not = [f.when.node for f in wanted["inactive"]]
    base: Dict[str, object] = {}
    if must or must_not:
        both = (f"{', '.join(repr(f.id) for f in wanted['active']) or 'nothing'} active and "
                f"{', '.join(repr(f.id) for f in wanted['inactive']) or 'nothing'} inactive")
        try:
            solved = space.solve(true=must, false=must_not)
        except Inconclusive:
            raise InvalidArgument(f"Could not find a config that makes {both} together: "
                                  f"the search gave up after {space.budget:,} steps") from None
        if solved is None:
            raise InvalidArgument(f"No config makes {both} together")
        base = solved
    plan = _Plan(matrix, schema, space, must, must_not, base, order=_targets(list(drawable.values()), adjustments, staged),
                 extra=tuple(constants))
    strategy = _steered(plan)
    if as_objects:
        return strategy.map(functools.partial(as_object, schema=schema))
    return strategy


class _Target:
    """What one steering pick aims at: *node* holding with every node of *unless* failing (a
    gate active, the n-th redirect of a runner applying: none before it does, an adjustment's
    condition holding); one that goes *both_ways* is as often aimed away from (*node* failing),
    where drawing at random would seldom miss it, unless it is aimed at *toward* only (a node
    that says one way of its rule: `matrix._steer_staged`), which is among the same few targets
    every steered example aims at."""

    __slots__ = ("node", "unless", "both_ways", "toward")

    def __init__(self, node: Node, unless: Tuple[Node, ...] = (), both_ways: bool = False, toward: bool = False) -> None:
        self.node, self.unless, self.both_ways, self.toward = node, unless, both_ways or toward, toward


def _applies(adjustment: Adjustment) -> Node:
    """Where *adjustment* applies to a config as given: its condition holds and some path it
    sets would change (a value the user or a default set is left alone otherwise); only its
    condition where that change cannot be said as a predicate (a list, an infinity)."""
    from .errors import PredicateError
    from .predicates import Predicate

    tests = []
    for path, value in adjustment.set.items():
        if not adjustment.override:
            tests.append(f"{path} is None")
        elif isinstance(value, From) and value.times is None:
            tests.append(f"{path} != {value.path}")
        elif value is None:
            tests.append(f"{path} is not None")
        elif isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
            tests.append(f"{path} != {value!r}")
        else:
            return adjustment.when.node
    try:
        return (adjustment.when & Predicate(" or ".join(f"({t})" for t in tests))).node
    except PredicateError:  # a string no predicate literal spells
        return adjustment.when.node


def _filled(matrix: Matrix, v: Version, schema: Schema) -> List[Node]:
    """Where each adjustment that reads a role (issue 30, F1) applies, with one of the runners
    it applies for serving: its roles read as the role fields that fill them (`matrix._roles.Filling`),
    so that the fields are steered toward each case."""
    from ._roles import Filling, reads_role
    from ._stages import after_choice
    from ._substitute import disjoin

    out: List[Node] = []
    for a in matrix.adjustments_at(v):
        if not reads_role(a.when):
            continue
        node = _applies(a)
        serving = [r.id for r in matrix.runners if a in after_choice(matrix.stages, (a,), r.id)]
        found = disjoin([Filling(matrix, r)(node) for r in serving])
        if all(n.name in schema for n in walk(found) if isinstance(n, Path)):
            out.append(found)
    return out


def _refused_defaults(matrix: Matrix, v: Version, gates: List[Feature]) -> List[Node]:
    """Where an order without fallback applies and a gate blocks the first runner it tries (its
    default refused, `NoRunnerError`), and where it applies and none does (its default served):
    each steered toward and away from like an adjustment."""
    out: List[Node] = []
    for gate in gates:
        order = gate.origin
        if not isinstance(order, Order) or order.fallback:
            continue
        first = order.runners[0]
        blocking = [g.when.node for g in gates if g.status(first, v) in BLOCKING and g.applies != "asked"]
        if blocking:
            blocked = blocking[0] if len(blocking) == 1 else Or(tuple(blocking))
            out += [And((gate.when.node, blocked)), And((gate.when.node, Not(blocked)))]
    return out


def _targets(gates: List[Feature], adjustments: List[Node], staged: Sequence[Node] = ()) -> List[_Target]:
    """The steering targets: each gate (a redirect's applies only where no earlier redirect of
    its runner does, and is steered both ways), then each adjustment, both ways, then each node
    of the rules after the choice that no gate says, toward it only."""
    out = []
    earlier: Dict[str, List[Node]] = {}  # runner id → the conditions of its redirects so far
    for gate in gates:
        origin = gate.origin
        if isinstance(origin, Redirect):
            before = earlier.setdefault(origin.runner, [])
            out.append(_Target(gate.when.node, tuple(before), both_ways=True))
            before.append(gate.when.node)
        else:
            out.append(_Target(gate.when.node))
    out += [_Target(node, both_ways=True) for node in adjustments]
    out += [_Target(node, toward=True) for node in staged]
    return out


# A steering question's search is cut short after this many steps and the gate is skipped
# (deterministically: the same draws give the same config). A full budget on a question with
# no answer cost up to a second on the default matrix; this keeps every draw to milliseconds.
_STEER_BUDGET = 2_000


class _Plan:
    """What `configs` draws with, built once per call: the space of the gates in force, the
    value strategy of every field (built once, not per example), and a memo of the steering
    questions already answered (whether some gates can be active together: the same questions
    recur from example to example)."""

    def __init__(self, matrix: Matrix, schema: Schema, space: Space, must: List[Node], must_not: List[Node],
                 base: Dict[str, object], order: List[_Target], extra: Tuple[object, ...] = ()) -> None:
        self.space = space
        self.space.budget = _STEER_BUDGET  # the plan's questions only, from here on
        self.must = must
        self.must_not = must_not
        self.base = base  # a config that meets *must* and *must_not*: the fallback of every draw
        self.order = order
        self.both_ways = [t for t in order if t.both_ways]
        self.children: Dict[str, List[Field]] = {}
        # Sections that hold a field a config must have (no default, never None): never left out.
        self.needed: Set[str] = set()
        for field in schema:
            self.children.setdefault(field.path.rpartition(".")[0], []).append(field)
            if not field.has_default and not field.nullable:
                parts = field.path.split(".")
                self.needed.update(".".join(parts[:end]) for end in range(1, len(parts)))
        constants = _constants(matrix)
        self.strategies: Dict[str, st.SearchStrategy] = {}
        for field in schema:
            if field.type == "section":
                continue
            strategy = values(field, [*constants.get(field.path, ()), *extra])
            self.strategies[field.path] = st.none() | strategy if field.nullable else strategy
        #: Each question asked, with the solver's answer in its own order (None: none, or cut short).
        self.memo: Dict[Tuple[FrozenSet[Node], FrozenSet[Node]], Optional[Dict[str, object]]] = {}

    def possible(self, true: List[Node], false: List[Node]) -> bool:
        """Whether some config makes every *true* node hold and no *false* one (False when the
        search is cut short)."""
        # Keyed by the nodes themselves (frozen values): ids of nodes built for one draw are
        # reused by others once those are gone, and an id-keyed memo then answered for the wrong
        # question (what a draw reached depended on what the process had allocated before).
        return self._answer(true, false) is not None

    def _answer(self, true: List[Node], false: List[Node]) -> Optional[Dict[str, object]]:
        """The solver's answer in its own order, remembered (None: none, or cut short)."""
        key = (frozenset(true), frozenset(false))
        if key not in self.memo:
            try:
                self.memo[key] = self.space.solve(true=true, false=false)
            except Inconclusive:
                self.memo[key] = None
        return self.memo[key]

    def solve(self, true: List[Node], false: List[Node], rng: random.Random) -> Dict[str, object]:
        """Values that make *true* hold and *false* not, tried in *rng*'s order; when that
        search is cut short, in the solver's own order (remembered: the same questions recur),
        whose first values are the likeliest to meet the conditions (SGLang's E38 and E39
        refusals at a stage were met by 1 seed in 20 within the budget, and always so: 200
        examples never reached them); when that is cut short too, values that meet at least
        the gates the caller pinned."""
        try:
            found = self.space.solve(true=true, false=false, rng=rng)
        except Inconclusive:
            found = self._answer(true, false)
        return self.base if found is None else found

    def section(self, draw: st.DrawFn, prefix: str, fixed: Dict[str, object]) -> Dict[str, object]:
        """The fields under *prefix*, drawn one by one: a field with a default (or a section
        that cannot be None) is left out when a coin says so, so defaults are exercised and
        everything shrinks toward the empty config; pinned fields take their solved value."""
        out: Dict[str, object] = {}
        for field in self.children.get(prefix, []):
            pinned = fixed.get(field.path, _FREE)
            free = pinned is _FREE and not _pins_below(field.path, fixed)
            if free and (field.has_default or (field.type == "section" and not field.nullable
                                                and field.path not in self.needed)):
                if not draw(st.booleans()):
                    continue
            name = field.path.rpartition(".")[2]
            if field.type == "section":
                if pinned is None or (pinned is _FREE and field.nullable and not draw(st.booleans())):
                    out[name] = None
                else:
                    out[name] = self.section(draw, field.path, fixed)
            elif pinned is not _FREE:
                out[name] = _plain(pinned)
            else:
                out[name] = draw(self.strategies[field.path])
        return out


@st.composite
def _steered(draw: st.DrawFn, plan: _Plan) -> Dict[str, object]:
    order = plan.order
    steered = draw(st.integers(0, 7)) > 0  # 0: random values only; shrinks toward it
    # The gates to steer toward, and the order values are tried in, come from one seed:
    # hypothesis's own draws favour the first of many choices, a seeded RNG does not.
    rng = random.Random(_seed(draw))
    picks = rng.sample(order, min(len(order), rng.randint(2, 8))) if steered else []
    away: Dict[_Target, bool] = {}  # a target that goes both ways → whether it is aimed away from
    if picks:
        # The first pick, which is always made active, comes straight from hypothesis:
        # seeds repeat more often than small integers do.
        first = draw(_sampled(order))
        picks = [first] + [p for p in picks if p is not first]
        if plan.both_ways:
            # Adjustments and redirects are few among many gates: each steered example aims at
            # one of them too, right after the first pick, toward it or away from it (drawn
            # from hypothesis, which tries each of a few choices, as a seed does not).
            other = draw(_sampled(plan.both_ways))
            away[other] = False if other.toward else draw(st.booleans())
            if other is not first:
                picks = [first, other] + [p for p in picks[1:] if p is not other]
    true, false = list(plan.must), list(plan.must_not)
    if picks and draw(st.integers(0, 3)) == 3:
        # A near miss: every condition of the first gate but one holds, so a check that
        # ignores that one condition (a forgotten fact, a missing `and`) is caught.
        node = picks[0].node
        if isinstance(node, And):
            index = rng.randrange(len(node.operands))
            near = [o for i, o in enumerate(node.operands) if i != index]
            if plan.possible(true + near, false + [node.operands[index]]):
                true.extend(near)
                false.append(node.operands[index])
                picks = picks[1:]
    fixed: Dict[str, object] = {}
    if true or false or picks:
        for index, target in enumerate(picks):
            if target.both_ways and not target.toward and index > 0 and away.get(target, rng.random() < 0.5):  # the first pick holds
                if plan.possible(true, false + [target.node]):
                    false.append(target.node)
            elif plan.possible(true + [target.node], false + list(target.unless)):
                true.append(target.node)
                false.extend(target.unless)
        fixed = plan.solve(true, false, rng)
    return plan.section(draw, "", fixed)


_FREE = object()


def _pins_below(path: str, fixed: Dict[str, object]) -> bool:
    prefix = path + "."
    return any(p.startswith(prefix) for p in fixed)


def _plain(value: object) -> object:
    """A solver's representative as a config value."""
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def as_object(config: object, schema: Schema, prefix: str = "") -> object:
    """*config* (nested dicts) as the ``SimpleNamespace`` objects a host's classes would give:
    absent fields with a default filled in, absent non-nullable sections built, facts the dict
    does not hold left out."""
    if not isinstance(config, dict):
        return config
    start = prefix + "." if prefix else ""
    values = {k: as_object(v, schema, start + k) for k, v in config.items()}
    for field in schema:
        name = field.path[len(start):]
        if not field.path.startswith(start) or "." in name or name in values or field.fact:
            continue
        if field.type == "section" and not field.nullable:
            values[name] = as_object({}, schema, field.path)
        elif field.has_default:
            default = field.default
            values[name] = list(default) if isinstance(default, tuple) else default
    return types.SimpleNamespace(**values)


# --- predicates -----------------------------------------------------------------------------

# The operators drawn for a field of each type, from the table (`matrix._operators`).
_MEMBERSHIP = tuple(op.spelling for op in COMPARISONS if op.kind == "membership")


def _atoms(field: Field) -> st.SearchStrategy:
    """Source text of well-typed tests on one field."""
    path = field.path
    kind = field.type
    atoms: List[st.SearchStrategy] = []
    if field.nullable:
        atoms.append(st.sampled_from([f"{path} is None", f"{path} is not None"]))
    if kind == "section":
        if field.nullable:
            atoms.append(st.just(path))
        return st.one_of(atoms) if atoms else st.nothing()
    if kind == "bool":
        atoms.append(st.sampled_from([path, f"not {path}", f"{path} == True", f"{path} != False"]))
    elif kind in ("int", "float"):
        if field.choices is not None:
            constants = st.sampled_from(field.choices)
        else:
            low = -5 if field.min is None else field.min
            high = low + 10 if field.max is None else field.max
            constants = st.integers(int(low) - 1, int(high) + 1)
        atoms.append(st.builds(lambda op, k: f"{path} {op} {k!r}", st.sampled_from(comparisons_for(kind)), constants))
        atoms.append(st.builds(lambda ks: f"{path} {_MEMBERSHIP[0]} {sorted(set(ks))!r}",
                               st.lists(constants, min_size=1, max_size=3)))
        if kind == "int":
            # Divisors whose least common multiple stays small (48): matrix check enumerates the
            # residues modulo it, exactly up to 5,040.
            atoms.append(st.builds(lambda d, op, r: f"{path} % {d} {op} {r}", st.sampled_from([1, 2, 3, 4, 6, 8, 16]),
                                   st.sampled_from(comparisons_for("int")), st.integers(-1, 16)))
    elif kind == "str":
        if field.choices is not None:
            constants = st.sampled_from(field.choices)
        else:
            constants = st.sampled_from(["", "a", "b", "it's", "x\ny"])
        atoms.append(st.builds(lambda op, k: f"{path} {op} {k!r}", st.sampled_from(comparisons_for("str")), constants))
        atoms.append(st.builds(lambda op, ks: f"{path} {op} {sorted(set(ks))!r}", st.sampled_from(_MEMBERSHIP),
                               st.lists(constants, min_size=1, max_size=3)))
    elif kind == "version":
        constants = st.sampled_from(["0.9", "1.0", "1.0.1", "1.2", "2.0"])
        atoms.append(st.builds(lambda op, k: f"{path} {op} {k!r}", st.sampled_from(comparisons_for("version")),
                               constants))
    else:
        item = st.sampled_from(["a", "b"]) if kind == "list[str]" else st.integers(0, 3)
        atoms.append(st.just(path))
        atoms.append(st.builds(lambda op, k: f"{k!r} {op} {path}", st.sampled_from(_MEMBERSHIP), item))
    return st.one_of(atoms)


def _given_atom(path: str, text: str) -> str:
    """A test on *path* read as given (``given.PATH``, issue 30 F8): the same test."""
    return text.replace(path, GIVEN + path, 1)


def predicate_sources(schema: Schema, *, max_leaves: int = 6, noise: bool = True,
                      valid: bool = True) -> st.SearchStrategy:
    """Text of predicates over *schema*, joined with ``and``, ``or``, ``not`` and parentheses.

    :param noise: vary the spelling without changing the meaning: extra spaces, tabs and line
        breaks between tokens, double quotes for single, redundant parentheses.
    :param valid: when False, one random edit (a character dropped or doubled, ``==`` written
        ``=``, a dangling ``and``…) may make the text invalid: for testing error paths.

    With ``valid=True`` every text parses and type-checks against *schema*. A test may read a
    field as given (``given.PATH``). Shrinks toward a single test on the first field, spelt plainly.
    """
    if not isinstance(schema, Schema):
        raise InvalidArgument(f"schema must be a Schema, not {type(schema).__name__}")
    if not isinstance(max_leaves, int) or isinstance(max_leaves, bool) or max_leaves < 1:
        raise InvalidArgument(f"max_leaves must be a positive int, not {max_leaves!r}")
    for name, flag in (("noise", noise), ("valid", valid)):
        if not isinstance(flag, bool):
            raise InvalidArgument(f"{name} must be a bool, not {flag!r}")
    leaves = [_atoms(field) for field in schema]
    # A test may read a field as given (issue 30, F8: ``given.PATH``), typed as the field.
    leaves += [_atoms(field).map(functools.partial(_given_atom, field.path)) for field in schema]
    leaves = [leaf for leaf in leaves if not leaf.is_empty]
    if not leaves:
        raise InvalidArgument("The schema has no field a predicate could test")
    atom = st.one_of(leaves)
    plain = st.recursive(
        atom,
        lambda inner: st.one_of(
            st.builds(lambda a, b: f"{a} and {b}", inner, inner),
            st.builds(lambda a, b: f"({a}) or ({b})", inner, inner),
            st.builds(lambda a: f"not ({a})", inner),
        ),
        max_leaves=max_leaves,
    )
    if not noise and valid:
        return plain
    return st.builds(_respell, plain, st.randoms(use_true_random=False), st.just(noise), st.just(valid))


_SPACES = [" ", "  ", "\t", "\n ", " \n\t"]
_SIMPLE_STRING = re.compile(r"'([^'\"\\]*)'")
_TOKENS = re.compile(r"(?P<WS>[ ]+)|(?P<STRING>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")|(?P<OTHER>[^ '\"]+)")
_EDITS = ("drop", "double", "single-equals", "dangling-and", "unclosed", "swap")


def _respell(text: str, rng: random.Random, noise: bool, valid: bool) -> str:
    if noise:
        pieces = []
        position = 0
        for match in _TOKENS.finditer(text):  # whole tokens, so strings are never split
            token = match.group()
            if match.lastgroup == "WS":
                token = rng.choice(_SPACES)
            elif match.lastgroup == "STRING" and _SIMPLE_STRING.fullmatch(token) and rng.random() < 0.5:
                token = f'"{token[1:-1]}"'
            pieces.append(token)
            position = match.end()
        text = "".join(pieces) + text[position:]
        if rng.random() < 0.3:
            text = f"({text})"
    if not valid and text:
        edit = rng.choice(_EDITS)
        at = rng.randrange(len(text))
        if edit == "drop":
            text = text[:at] + text[at + 1:]
        elif edit == "double":
            text = text[:at] + text[at] + text[at:]
        elif edit == "single-equals" and "==" in text:
            text = text.replace("==", "=", 1)
        elif edit == "dangling-and":
            text += " and"
        elif edit == "unclosed":
            text = "(" + text
        else:
            text = text[at:] + " " + text[:at]
    return text


def predicates(schema: Schema, *, max_leaves: int = 6) -> st.SearchStrategy:
    """Typed, valid `Predicate` objects over *schema* (see `predicate_sources`)."""
    from .predicates import Predicate

    return predicate_sources(schema, max_leaves=max_leaves, noise=False).map(
        lambda text: Predicate(text, schema=schema))


# --- matrices -------------------------------------------------------------------------------

_VERSIONS = ["0.9", "1.0", "1.1", "1.2", "2.0"]


@st.composite
def _field_specs(draw: st.DrawFn) -> Dict[str, Dict[str, Any]]:
    specs: Dict[str, Dict[str, Any]] = {}
    count = draw(st.integers(1, 6))
    for index in range(count):
        kind = draw(st.sampled_from(["bool", "int", "str", "choice", "float", "version", "list[str]", "section"]))
        name = f"f{index}"
        if kind == "section":
            specs[name] = {"type": "section", "nullable": True}
            specs[f"{name}.x"] = {"type": "bool", "default": False}
            specs[f"{name}.mode"] = {"type": "str", "choices": ["a", "b"], "default": "a"}
            continue
        spec: Dict[str, Any] = {"type": "str" if kind == "choice" else kind}
        if kind == "choice":
            spec["choices"] = ["a", "b", "c"]
            window = draw(st.integers(0, 3))  # a choice of some releases only, now and then
            if window < 2:
                spec["choices"].append({"value": "d", ("since" if window == 0 else "until"): draw(st.sampled_from(_VERSIONS[1:]))})
        if kind == "int":
            spec["min"] = 0
        nullable = draw(st.booleans()) and kind != "list[str]"
        if nullable:
            spec["nullable"] = True
        elif draw(st.booleans()) or kind == "list[str]":
            spec["default"] = {"bool": False, "int": 1, "str": "", "choice": "a", "float": 0.5,
                               "version": "1.0", "list[str]": []}[kind]
        specs[name] = spec
    return specs


def _lasting(spec: Dict[str, Any]) -> Dict[str, Any]:
    """*spec* with only the choices of every release."""
    if "choices" not in spec:
        return spec
    return {**spec, "choices": [c for c in spec["choices"] if isinstance(c, str)]}


def _unwindowed(spec: Dict[str, Any]) -> Dict[str, Any]:
    """*spec* with every choice, as if each were of every release."""
    if "choices" not in spec:
        return spec
    return {**spec, "choices": [c if isinstance(c, str) else c["value"] for c in spec["choices"]]}


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    assert isinstance(value, dict), value
    return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"


@st.composite
def _cells(draw: st.DrawFn, runners: List[str]) -> Dict[str, Any]:
    support: Dict[str, Any] = {}
    statuses = st.sampled_from(["yes", "no", "partial", "opt-in"])
    for runner in runners:
        shape = draw(st.sampled_from(["plain", "table", "history", "default"]))
        if shape == "default" and "default" not in support:
            status = draw(statuses)
            support["default"] = {"status": status, "note": "caveat"} if status == "partial" else status
            continue
        status = draw(statuses)
        cell: object = {"status": status, "note": "caveat"} if status == "partial" or shape == "table" else status
        if shape == "history":
            later = draw(statuses)
            since = draw(st.sampled_from(_VERSIONS[1:]))
            second = {"status": later, "since": since}
            if later == "partial":
                second["note"] = "later caveat"
            cell = [cell if isinstance(cell, dict) else {"status": cell}, second]
        support[runner] = cell
    return support


@functools.lru_cache(maxsize=512)
def _schema_strategies(config: str) -> Tuple[Schema, st.SearchStrategy, st.SearchStrategy]:
    """The schema of the ``[config]`` table *config*, and the predicate strategies of a gate and
    of a condition over it: built once per schema, not once per matrix drawn (hypothesis checks
    each new strategy on its first draw, which took half the time of drawing a matrix)."""
    from .loader import loads

    schema = loads("[matrix]\nname = 's'\nversion = '1.0'\n[config]\n" + config, runners={"r0": {"name": "R0", "priority": 1}}).schema
    return schema, predicate_sources(schema, max_leaves=4), predicate_sources(schema, max_leaves=3)


@st.composite
def _matrix_texts(draw: st.DrawFn, max_features: int) -> Tuple[str, Dict[str, Dict[str, Any]]]:  # noqa: C901 — draws one random matrix file section by section; each branch is one optional construct
    runner_count = draw(st.integers(1, 3))
    runners = [f"r{i}" for i in range(runner_count)]
    specs = draw(_field_specs())
    # A gate never compares with a choice of some releases only (the loader refuses one that
    # may read it where it does not exist); a runner's requirement, candidacy or order may (it
    # opens no choice: `matrix._compile`), and so their conditions are drawn with every choice.
    schema, gate, _ = _schema_strategies("".join(f"{json.dumps(k)} = {_toml(_lasting(v))}\n" for k, v in specs.items()))
    _, _, condition = _schema_strategies("".join(f"{json.dumps(k)} = {_toml(_unwindowed(v))}\n" for k, v in specs.items()))
    version = draw(st.sampled_from(_VERSIONS))
    lines = ["[matrix]", 'name = "random"', f'version = "{version}"', "", "[config]"]
    lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in specs.items()]
    count = draw(st.integers(1, max_features))
    for index in range(count):
        when = draw(gate)
        lines += ["", f"[features.g{index}]", f'name = "gate {index}"', f"when = {json.dumps(when)}",
                  f"support = {_toml(draw(_cells(runners)))}"]
        if draw(st.integers(0, 4)) == 0:
            since = draw(st.sampled_from(_VERSIONS))
            remove_in = draw(st.sampled_from([v for v in _VERSIONS if parsed(v) >= parsed(since)]))
            # A removal without a deprecation period (remove_in == since) is always recorded as done,
            # and a removal is recorded only once the file's version has reached it.
            due = parsed(remove_in) <= parsed(version)
            if due or remove_in != since:
                removed = due and (remove_in == since or draw(st.booleans()))
                lines.append(f"deprecated = {_toml({'since': since, 'remove_in': remove_in, 'replacement': 'something else', 'removed': removed})}")
        window = draw(st.integers(0, 5))
        if window == 0:
            lines.append(f'since = "{draw(st.sampled_from(_VERSIONS[1:]))}"')
        elif window == 1:
            lines.append(f'until = "{draw(st.sampled_from(_VERSIONS[1:]))}"')
        applies = draw(st.integers(0, 6))  # mostly left out (always); each value written sometimes
        if applies < len(APPLIES):
            lines.append(f'applies = "{APPLIES[applies]}"')
    runner_tables: Dict[str, Dict[str, Any]] = {
        r: {"name": f"Runner {r.upper()}", "priority": 10 - i} for i, r in enumerate(runners)}
    # Runner requirements (a kind's reason, a runner's own, a chain of two to four), candidacies, an order.
    if draw(st.booleans()):
        kinds = ["k0", "k1"][: draw(st.integers(1, 2))]
        # A kind's reason may be a template saying a field's value (issue 30, F7): a field that
        # exists at every version, as requirements read, as it is or through !r.
        said = [p for p, f in schema.fields.items() if f.type != "section" and f.since is None and f.until is None]
        reasons = st.just("{k} not supported") | (st.sampled_from(said).flatmap(
            lambda p: st.sampled_from([f"{{k}} not supported at {{{{{p}}}}}", f"{{k}} refuses {{{{{p}!r}}}} {{{{{{{{x}}}}}}}}"]))
            if said else st.nothing())
        lines += ["", "[requirements]"] + [f'{k} = {{ name = "Kind {k}", reason = {json.dumps(draw(reasons).format(k=k))} }}'
                                           for k in kinds]
        for r in runners:
            requires: Dict[str, object] = {}
            for k in kinds:
                shape = draw(st.integers(0, 3))
                if shape == 1:
                    requires[k] = draw(condition)
                elif shape == 2:
                    requires[k] = {"condition": draw(condition), "reason": f"{r} refuses {k}"}
                elif shape == 3:  # a chain: each clause's gate holds the clauses before it
                    requires[k] = [{"condition": draw(condition), "reason": f"{r} {k} {place}"}
                                   for place in ("first", "second", "third", "fourth")[:draw(st.integers(2, 4))]]
            if requires:
                runner_tables[r]["requires"] = requires
        # A matrix-wide requirement (features.toml's [requires]): of every runner, or but one.
        if draw(st.booleans()):
            wide = {"condition": draw(condition), "reason": "every runner refuses it"}
            if draw(st.booleans()):
                wide["exempt"] = [draw(st.sampled_from(runners))]
            lines += ["", "[requires]", f"{kinds[-1]} = {{ " + ", ".join(
                f"{k} = {json.dumps(v)}" for k, v in wide.items()) + " }"]
    for r in runners:
        if draw(st.integers(0, 3)) == 0:
            runner_tables[r]["candidate"] = draw(condition)
    if len(runners) > 1 and draw(st.integers(0, 3)) == 0:
        order = list(draw(st.permutations(runners)))[: draw(st.integers(1, len(runners)))]
        lines += ["", "[orders.o0]", 'name = "order zero"', f"when = {json.dumps(draw(condition))}",
                  f"runners = {json.dumps(order)}"]
        # Without fallback (a validated default): valid when no runner but the last it lists is
        # always a candidate (one after such a runner would never be tried).
        if all("candidate" in runner_tables[r] for r in order[:-1]) and draw(st.booleans()):
            lines.append("fallback = false")
    return "\n".join(lines) + "\n", runner_tables


def matrices(*, max_features: int = 6) -> st.SearchStrategy:
    """Small valid matrices: one to three runners, a schema of every field type (a choice of
    some releases only, now and then), gates with
    random typed predicates, support cells of every shape (plain, table, history, default),
    deprecations, ``since`` and ``until``; runner requirements (plain, with their own reason,
    chains; a kind's reason perhaps a template saying a field's value), a matrix-wide requirement (of every runner, or but one), candidacies and an order of
    automatic choice. Shrinks toward one runner, one field and one gate."""
    if not isinstance(max_features, int) or isinstance(max_features, bool) or max_features < 1:
        raise InvalidArgument(f"max_features must be a positive int, not {max_features!r}")
    from .loader import loads

    return _matrix_texts(max_features).map(lambda pair: loads(pair[0], runners=pair[1], path="random.toml"))
