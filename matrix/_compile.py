"""The compiled fast path: one generated Python function per matrix and version.

The function reads every config value the gates in force need, once, checks it against the
schema, evaluates all gates with plain Python operators and returns ``(mask, values)``: bit
*i* of ``mask`` is set when gate *i* is active. Runner choice is then a few integer operations
on precomputed per-runner masks (`Plan`), following the decision list of `matrix._choice`.

Reading has two tiers, the first falling back to the second on any exception:

1. a reader specialised for configs made of attribute objects (dataclasses, attrs, pydantic,
   vLLM's own config classes), or one specialised for plain nested dicts, chosen by the type of
   the top-level config; each accepts only values whose exact type the schema allows, so
   anything unusual (an enum member, a missing attribute, a mix of dicts and objects, a
   property that raises) falls through;
2. the general reader of `matrix._access`, which handles every kind of config and raises the
   `ConfigError` that names the path and the feature.

Nothing from the file reaches the generated source unescaped: locals are generated names,
literals of the five scalar types are embedded with ``repr``, and everything else (versions,
sets of choices, defaults) is bound as a default argument of the generated function.

The plain interpreter (`matrix.predicates.truth`) stays the reference; tests check that the
two agree on random configs and random matrices.
"""

from __future__ import annotations

import keyword
import marshal
from collections.abc import Mapping
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Set, Tuple

from attr.exceptions import FrozenInstanceError
from packaging.version import Version

from . import _access, _choice, _derived, _stages
from ._choice import Rule
from ._given import PREFIX as GIVEN, base
from ._nodes import (LITERAL_TYPES, And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Node, Not,
                     Or, Path, walk)
from ._operators import (AND, ARITHMETIC, BY_SPELLING, EQUALS, FUNCTIONS, IS_NONE, IS_NOT_NONE, MOD, NOT, OR, PLAIN_TYPES,
                         integers, remainder, truthy)
from ._record import _set
from ._versions import parsed
from .errors import ConfigError
from .predicates import OPERATORS, Predicate
from .schema import Adjustment, Alias, Feature, Field, Matrix, Order, Redirect, Requirement, Runner, Schema, refusing

_SIMPLE = tuple(LITERAL_TYPES)


#: Config paths by the section that holds them ("" for the top level).
Tree = Dict[str, List[str]]


class _Slow(Exception):
    """Raised inside a fast reader: this config needs the general reader."""


class Plan:
    """The compiled form of one matrix at one version: read-only (assignment raises attrs'
    `FrozenInstanceError`), equal only to itself. A plain slotted class, not an attrs one:
    attrs building it was 0.8 ms of every ``import matrix`` (issue 29)."""

    __slots__ = ("matrix", "version", "features", "paths", "evaluate", "no", "opt_in", "partial", "blocking",
                 "deprecated", "removed", "order", "source", "reading", "forcing", "preferring", "feature_bits",
                 "automatic", "asked", "candidate", "orders", "aliases", "redirects", "redirecting",
                 "pre_adjustments", "adjustments", "pre_adjusting", "adjusting", "any_adjusting", "required", "templated",
                 "before_steps", "after_steps", "staged_redirects", "watching", "tests", "spans", "steps", "top", "quiet_top", "fast", "decisions", "__weakref__")

    matrix: Matrix
    version: Version
    features: Tuple[Feature, ...]
    #: The config paths read, in the order of the values the evaluator returns.
    paths: Tuple[str, ...]
    #: ``evaluate(config, facts=None) -> (mask, values)``.
    evaluate: Callable[..., Tuple[int, Tuple[object, ...]]]
    #: runner id → mask of gates whose status there is no / opt-in / partial / blocking.
    no: Dict[str, int]
    opt_in: Dict[str, int]
    partial: Dict[str, int]
    blocking: Dict[str, int]
    deprecated: int
    removed: int
    #: (runner id, blocking mask), highest priority first.
    order: Tuple[Tuple[str, int], ...]
    source: str
    #: The schema configs are read with at this version (`Schema.reading_at`; None: the
    #: matrix declares no fields).
    reading: Optional[Schema]
    #: Gates that force a runner (`Forces`): a request for another runner is refused or overridden.
    forcing: int
    #: Gates that change the order of automatic choice (`Prefers`).
    preferring: int
    #: The gates that are features (not derived from the runners: see `Matrix.gates_at`).
    feature_bits: int
    #: The gates in force in automatic choice, and when a runner is asked for (`Feature.applies`):
    #: the resolver keeps only these bits of an evaluated mask.
    automatic: int
    asked: int
    #: runner id → the gate active when it is a candidate (0: it always is).
    candidate: Dict[str, int]
    #: (gate, order, (runner id, blocking mask) in that order), for each `Order`, first first.
    orders: Tuple[Tuple[int, Order, Tuple[Tuple[str, int], ...]], ...]
    #: Former runner ids (`Alias`), by id.
    aliases: Dict[str, Alias]
    #: runner id → its redirects in force, each with its gate, in declaration order; and every
    #: redirect's gate (`matrix._choice.requested` reads them).
    redirects: Dict[str, Tuple[Tuple[int, Redirect], ...]]
    redirecting: int
    #: The adjustments in force (`matrix._adjust`): those applied before the choice, and by
    #: runner id those of the runner that serves, in declaration order; each one's ``when`` is a
    #: gate of the plan (origin: the `Adjustment`), so that one evaluation tells whether any
    #: may apply: ``pre_adjusting`` and ``adjusting`` (runner id → bits) hold those gates.
    pre_adjustments: Tuple[Adjustment, ...]
    adjustments: Dict[str, Tuple[Adjustment, ...]]
    pre_adjusting: int
    adjusting: Dict[str, int]
    #: Every adjustment's gate: a mask with none of them resolves as if there were none.
    any_adjusting: int
    #: The order of resolution (`matrix._stages.steps`): before the choice, and by runner id once
    #: that runner serves; one step each for a matrix without staged requirements.
    before_steps: Tuple[_stages.Step, ...]
    after_steps: Dict[str, Tuple[_stages.Step, ...]]
    #: runner id → its redirects at a stage after ``choice`` in force (`matrix._stages.redirects`).
    staged_redirects: Dict[str, Tuple[Redirect, ...]]
    #: Adjustment id → its gate's bit and the paths whose change could change what its ``when``
    #: says (every section above them too); None where the gate cannot say (one that reads a
    #: role: `matrix._roles.gate`). `holds` reads them.
    watching: Dict[str, Tuple[int, Optional[FrozenSet[str]]]]
    #: The conditions the resolution reads on a view (`test`), compiled as they are first read.
    tests: Dict[int, Tuple[Predicate, Callable[[Callable[[str], object]], bool]]]
    #: (runner id, start, stop) → the runner's steps of those stages (`span`), as first asked for.
    spans: Dict[Tuple[str, int, int], Tuple[_stages.Step, ...]]
    #: The gates of matrix-wide requirements that exempt no runner: one active refuses the config
    #: whatever the runner, with its reason alone (`matrix._choice.choose`).
    required: int
    #: The requirement gates whose reason names config values (issue 30, F7): what a resolution
    #: says where one is active depends on the config, so it is not remembered by mask.
    templated: int
    #: The decision list of automatic choice (`matrix._choice.steps`).
    steps: Tuple[Rule, ...]
    #: The top runner (the first of the order of priority that is always a candidate), and the
    #: gates that keep a resolution from being simply "top runner, no warnings"
    #: (`matrix._choice.quiet_top`).
    top: str
    quiet_top: int
    #: False when every runner is a candidate only sometimes (then no runner is "the top runner"
    #: of every quiet config), or the top runner is deprecated at the version (its warning is
    #: said wherever it serves): every resolution takes the slow path.
    fast: bool
    #: (mask, runner asked for) → what the resolver decided: a resolution depends on nothing
    #: else, so each distinct case is worked out (and its messages written) once. Automatic
    #: choice where nothing is adjusted is keyed by the mask alone (`matrix.resolver.resolve`).
    decisions: Dict[Any, Any]

    def __init__(self, *, matrix: Matrix, version: Version, features: Tuple[Feature, ...], paths: Tuple[str, ...],
                 evaluate: Callable[..., Tuple[int, Tuple[object, ...]]], no: Dict[str, int], opt_in: Dict[str, int],
                 partial: Dict[str, int], blocking: Dict[str, int], deprecated: int, removed: int,
                 order: Tuple[Tuple[str, int], ...], source: str, reading: Optional[Schema] = None, forcing: int = 0,
                 preferring: int = 0, feature_bits: int = -1, automatic: int = -1, asked: int = -1,
                 candidate: Optional[Dict[str, int]] = None,
                 orders: Tuple[Tuple[int, Order, Tuple[Tuple[str, int], ...]], ...] = (),
                 aliases: Optional[Dict[str, Alias]] = None,
                 redirects: Optional[Dict[str, Tuple[Tuple[int, Redirect], ...]]] = None, redirecting: int = 0,
                 pre_adjustments: Tuple[Adjustment, ...] = (),
                 adjustments: Optional[Dict[str, Tuple[Adjustment, ...]]] = None, pre_adjusting: int = 0,
                 adjusting: Optional[Dict[str, int]] = None, any_adjusting: int = 0, required: int = 0,
                 templated: int = 0) -> None:
        for name, value in (
                ("matrix", matrix), ("version", version), ("features", features), ("paths", paths),
                ("evaluate", evaluate), ("no", no), ("opt_in", opt_in), ("partial", partial), ("blocking", blocking),
                ("deprecated", deprecated), ("removed", removed), ("order", order), ("source", source),
                ("reading", reading), ("forcing", forcing), ("preferring", preferring),
                ("feature_bits", feature_bits), ("automatic", automatic), ("asked", asked),
                ("candidate", {} if candidate is None else candidate), ("orders", orders),
                ("aliases", {} if aliases is None else aliases), ("redirects", {} if redirects is None else redirects),
                ("redirecting", redirecting), ("pre_adjustments", pre_adjustments),
                ("adjustments", {} if adjustments is None else adjustments), ("pre_adjusting", pre_adjusting),
                ("adjusting", {} if adjusting is None else adjusting), ("any_adjusting", any_adjusting),
                ("required", required), ("templated", templated), ("decisions", {})):
            _set(self, name, value)
        staged = matrix.staged
        _set(self, "before_steps", _stages.steps(matrix.stages, self.pre_adjustments, staged, after=False))
        _set(self, "after_steps", {r: _stages.steps(matrix.stages, a, staged, after=True)
                                   for r, a in self.adjustments.items()})
        _set(self, "staged_redirects", _stages.redirects(matrix.stages, matrix.runners, version))
        _set(self, "watching", _watching(self.features))
        _set(self, "tests", {})
        _set(self, "spans", {})
        _set(self, "steps", _choice.steps(self))
        unconditional = [r for r, _ in self.order if not self.candidate.get(r)]
        top = unconditional[0] if unconditional else self.order[0][0]
        # A top runner deprecated at the version warns wherever it serves: never "nothing to say".
        _set(self, "fast", bool(unconditional) and _choice.runner_deprecation(matrix, top, version) is None)
        _set(self, "top", top)
        # A config where an adjustment may apply is never answered by the fast path.
        _set(self, "quiet_top", _choice.quiet_top(self, top) | self.pre_adjusting | self.adjusting.get(top, 0))

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError()

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError()

    def __repr__(self) -> str:
        return f"<Plan of {self.matrix.name!r} at {self.version}>"

    def choice(self, mask: int) -> Tuple[Optional[Order], Tuple[Tuple[str, int], ...]]:
        """The order that applies to *mask* (None: by priority), and every runner in it, each
        with its blocking mask."""
        for bit, order, runners in self.orders:
            if mask & bit:
                return order, runners
        return None, self.order

    def is_candidate(self, runner: str, mask: int) -> bool:
        """Whether automatic choice considers *runner* for *mask*."""
        bit = self.candidate.get(runner)
        return not bit or bool(mask & bit)

    def holds(self, mask: int, base: Mapping[str, object], sets: Mapping[str, object],
              adjustment: Adjustment, read: Callable[[str], object]) -> bool:
        """Whether *adjustment*'s ``when`` holds on a view with *sets* that *read* reads, where
        the plan evaluated the view with *base* for sets to *mask*: its gate's bit there (the
        same condition, compiled), wherever the two leave every path it reads alike (a path
        reads what its own entry or a section's above it sets, else the config:
        `matrix._access.Effective`); else its condition read on the view (`test`)."""
        bit, watched = self.watching[adjustment.id]
        if watched is None or (not sets.keys().isdisjoint(watched) if not base else any(
                sets.get(p, _access.MISSING) is not base.get(p, _access.MISSING) for p in watched)):
            return self.test(adjustment.when)(read)
        return bool(mask & bit)

    def span(self, runner: str, start: int, stop: int) -> Tuple[_stages.Step, ...]:
        """The steps of *runner* serving at ``stages[start:stop]`` (`matrix._stages.span`)."""
        key = (runner, start, stop)
        found = self.spans.get(key)
        if found is None:
            matrix = self.matrix
            found = self.spans[key] = _stages.span(matrix.stages, self.adjustments.get(runner, ()), matrix.staged,
                                                   start, stop)
        return found

    def test(self, when: Predicate) -> Callable[[Callable[[str], object]], bool]:
        """*when* as a function of a reader (path → value): the plan's generator's source for it
        (the interpreter's rules, `matrix.predicates.truth`), each path read through the reader
        where the interpreter reads it, in the same order; compiled once, as first asked for."""
        found = self.tests.get(id(when))
        if found is None or found[0] is not when:
            found = self.tests[id(when)] = (when, _test(self.reading, when))
        return found[1]

    def active(self, mask: int) -> Tuple[Feature, ...]:
        features = self.features
        out = []
        while mask:
            low = mask & -mask
            out.append(features[low.bit_length() - 1])
            mask ^= low
        return tuple(out)


def _test(schema: Optional[Schema], when: Predicate) -> Callable[[Callable[[str], object]], bool]:
    """`Plan.test`: *when* compiled, each path read through the argument ``r``."""
    generator = _Generator(schema, ())
    generator.local = {path: f"r({path!r})" for path in sorted(when.paths)}
    generator.path_of = {local: path for path, local in generator.local.items()}
    source = f"def test(r):\n    return bool({generator.condition(when.node)})\n"
    namespace: Dict[str, Any] = {**_fixed(schema, (), {}), **generator.constants}
    exec(compile(source, f"<matrix condition {when.source!r}>", "exec"), namespace)
    return namespace["test"]  # type: ignore[no-any-return]


def _watching(features: Tuple[Feature, ...]) -> Dict[str, Tuple[int, Optional[FrozenSet[str]]]]:
    """`Plan.watching`: of each adjustment's gate, the bit and the paths (with the sections above
    them) whose value its ``when`` reads through a view, where the gate is its ``when``; a path
    read as given (``given.PATH``) reads the config itself, whatever the view sets."""
    from ._roles import reads_role

    out: Dict[str, Tuple[int, Optional[FrozenSet[str]]]] = {}
    for index, gate in enumerate(features):
        adjustment = gate.origin
        if not isinstance(adjustment, Adjustment):
            continue
        if reads_role(adjustment.when):
            out[adjustment.id] = (1 << index, None)
            continue
        watched: Set[str] = set()
        for path in adjustment.when.paths:
            if path.startswith(GIVEN):
                continue
            parts = path.split(".")
            watched.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        out[adjustment.id] = (1 << index, frozenset(watched))
    return out


def plan(matrix: Matrix, version: Version) -> Plan:
    """The compiled plan of *matrix* at *version*, built once and kept as long as the matrix
    lives (`matrix._derived`)."""
    derived = _derived.of(matrix)
    cached = derived.plans.get(version)
    if cached is None:
        # A loaded cache entry holds what a plan is made of at every release the file names
        # (`matrix._cache`): assembled without generating its source again (issue 29).
        parts = derived.parts.pop(version, None)
        cached = derived.plans[version] = _assemble(matrix, version, parts or _parts(matrix, version))
    return cached


#: What a plan is made of, all of it picklable: the evaluator's source, the constants the
#: generator bound to it (``_k0``, …), the gate that first reads each path, and every field of
#: the `Plan` but its matrix and its evaluator. A cache entry keeps one per release.
Parts = Tuple[str, Dict[str, object], Dict[str, str], Dict[str, Any]]


def parts(matrix: Matrix, version: Version) -> Parts:
    """What the plan of *matrix* at *version* is made of (`Parts`), for a cache entry."""
    return _parts(matrix, version)


def _parts(matrix: Matrix, version: Version) -> Parts:
    in_force = matrix.adjustments_at(version)
    everyone = refusing(matrix, ())
    # DerivedField gates like candidacies and orders: every runner says yes, so choice ignores them.
    features = matrix.gates_at(version) + tuple(
        Feature(f"adjustment:{a.id}", a.name, _gate(matrix, a), everyone, origin=a) for a in in_force)
    first = len(features) - len(in_force)
    # The order they apply in: before the choice, and once each runner serves (`matrix._stages`).
    pre = _stages.before_choice(matrix.stages, in_force)
    by_runner = {r.id: _stages.after_choice(matrix.stages, in_force, r.id) for r in matrix.runners}
    pre_bits = sum(1 << (first + i) for i, a in enumerate(in_force) if a in pre)
    runner_bits = {r.id: sum(1 << (first + i) for i, a in enumerate(in_force) if a in by_runner[r.id])
                   for r in matrix.runners}
    readers: Dict[str, str] = {}
    for feature in features:
        for path in sorted(feature.when.paths):
            readers.setdefault(path, feature.id)
    # A failed requirement's reason says config values (issue 30, F7): read as its condition is.
    templated = 0
    for index, feature in enumerate(features):
        said = _said_paths(matrix.schema, feature) if isinstance(feature.origin, Requirement) else ()
        templated |= (1 << index) if said else 0
        for path in said:
            readers.setdefault(path, feature.id)
    paths = tuple(readers)
    # A choice gone then is refused, unless a gate that records its removal compares with it (the
    # loader allows no other feature to; a runner's requirement may name a choice of any release,
    # and opens none: a user trial found one that did).
    reading = matrix.schema.reading_at(version, [g for g in features if g.removed_at(version)])
    generator = _Generator(reading, paths)
    source, constants = generator.module(features, readers)
    masks: Dict[str, Dict[str, int]] = {s: {} for s in ("no", "opt-in", "partial")}
    for runner in matrix.runners:
        for status in masks:
            masks[status][runner.id] = sum(
                1 << i for i, f in enumerate(features) if f.status(runner.id, version) == status)
    blocking = {r.id: masks["no"][r.id] | masks["opt-in"][r.id] for r in matrix.runners}
    deprecated = removed = 0
    for index, feature in enumerate(features):
        d = feature.deprecated
        if d is not None and version >= d.since:
            if d.is_removed(version):
                removed |= 1 << index
            else:
                deprecated |= 1 << index
    candidate = {r.id: 0 for r in matrix.runners}
    redirects: Dict[str, List[Tuple[int, Redirect]]] = {}
    orders = []
    for index, gate in enumerate(features):
        if isinstance(gate.origin, Runner):
            candidate[gate.origin.id] = 1 << index
        elif isinstance(gate.origin, Order):
            ids = gate.origin.tried([r.id for r in matrix.runners])
            orders.append((1 << index, gate.origin, tuple((r, blocking[r]) for r in ids)))
        elif isinstance(gate.origin, Redirect):
            redirects.setdefault(gate.origin.runner, []).append((1 << index, gate.origin))
    fields = dict(
        aliases={a.id: a for r in matrix.runners for a in r.aliases},
        redirects={r: tuple(found) for r, found in redirects.items()},
        redirecting=sum(1 << i for i, f in enumerate(features) if isinstance(f.origin, Redirect)),
        feature_bits=sum(1 << i for i, f in enumerate(features) if f.origin is None),
        automatic=sum(1 << i for i, f in enumerate(features) if f.applies != "asked"),
        asked=sum(1 << i for i, f in enumerate(features) if f.applies != "automatic"),
        candidate=candidate, orders=tuple(orders),
        version=version, features=features, paths=paths,
        no=masks["no"], opt_in=masks["opt-in"],
        partial=masks["partial"], blocking=blocking, deprecated=deprecated, removed=removed,
        order=tuple((r.id, blocking[r.id]) for r in matrix.runners), source=source, reading=reading or None,
        forcing=sum(1 << i for i, f in enumerate(features) if f.forces is not None),
        preferring=sum(1 << i for i, f in enumerate(features) if f.prefers is not None),
        pre_adjustments=pre, adjustments=by_runner, pre_adjusting=pre_bits, adjusting=runner_bits,
        any_adjusting=sum(1 << (first + i) for i in range(len(in_force))),
        required=sum(1 << i for i, f in enumerate(features)
                     if isinstance(f.origin, Requirement) and f.origin.wide and not f.origin.exempt),
        templated=templated,
    )
    return source, constants, readers, fields


def _gate(matrix: Matrix, adjustment: Adjustment) -> Any:
    """An adjustment's gate condition (`matrix._roles.gate`: True where it reads a role)."""
    if not matrix.roles:
        return adjustment.when
    from . import _roles

    return _roles.gate(adjustment.when)


def _said_paths(schema: Schema, gate: Feature) -> Tuple[str, ...]:
    """The config paths a requirement gate's reason says, a derived field's as the paths its
    expression reads (the resolver computes it from them: `matrix._choice.read`), sorted."""
    if "{" not in gate.name:
        return ()
    from ._templates import has_paths, paths_only

    if not has_paths(gate.name):
        return ()
    found = set()
    for path in paths_only(gate.name).paths:
        derived = schema.derived_field(path)
        if derived is None:
            found.add(path)
        else:
            assert derived.derive is not None
            found.update(n.name for n in walk(derived.derive) if isinstance(n, Path))
    return tuple(sorted(found))


def _assemble(matrix: Matrix, version: Version, parts: Parts) -> Plan:
    source, constants, readers, fields = parts
    reading: Optional[Schema] = fields["reading"]
    namespace: Dict[str, Any] = {**_fixed(reading, fields["paths"], readers), **constants}
    # A loaded cache entry holds the code compiled from this very source (matrix._cache), for
    # every release the file names.
    codes = _derived.of(matrix).code
    code = codes.get(source)
    if code is None:
        code = codes[source] = compile(source, f"<matrix plan {matrix.name!r} {version}>", "exec")
    elif isinstance(code, bytes):
        code = codes[source] = marshal.loads(code)
    exec(code, namespace)
    return Plan(matrix=matrix, evaluate=namespace["evaluate"], **fields)


def _fixed(schema: Optional[Schema], paths: Tuple[str, ...], readers: Dict[str, str]) -> Dict[str, object]:
    """The names every evaluator is given that are the engine's own (never pickled: a sentinel
    must stay the very object the engine compares with)."""
    return dict(_general=_general_reader(schema, paths, readers), _Slow=_Slow, _SCALARS=PLAIN_TYPES,
                _MISS=_access.MISSING, _join="".join, _type=type, _issubclass=issubclass, _Mapping=Mapping,
                _NoAttributes=_NO_ATTRIBUTES,
                _check_facts=_access.check_facts, _schema=schema, _ops=OPERATORS, _truthy=truthy,
                _rem=remainder, _parsed=parsed, _arith=ARITHMETIC, _ints=_ints)


def _ints(name: str, values: Tuple[object, ...]) -> object:
    return integers(FUNCTIONS[name], values)


def _general_reader(schema: Optional[Schema], paths: Tuple[str, ...],
                    readers: Dict[str, str]) -> Callable[..., Tuple[object, ...]]:
    # Of each path, what a view's sets must leave alone for it to read what the config holds
    # (the path and the sections above it; nothing for one read as given, which reads the config
    # itself), or None for a derived field, computed from what it reads.
    derived = schema.derivations if schema is not None and schema.derivations else {}
    watched: List[Tuple[str, Optional[FrozenSet[str]]]] = []
    for path in paths:
        parts = path.split(".")
        watched.append((path, frozenset() if path.startswith(GIVEN) else None if path in derived else
                        frozenset(".".join(parts[:end]) for end in range(1, len(parts) + 1))))
    effective = _access.Effective

    def read(config: object, facts: Optional[Mapping[str, object]] = None) -> Tuple[object, ...]:
        if config.__class__ is effective:
            assert isinstance(config, effective)
            known, sets = config.known, config.sets
            if known is not None:
                # A resolution's own view (`matrix._access.Effective`): what it leaves alone is
                # what the config holds, read already.
                return tuple(known[path] if watch is not None and path in known and sets.keys().isdisjoint(watch)
                             else one(config, path, facts) for path, watch in watched)
        return tuple([one(config, path, facts) for path in paths])

    def one(config: object, path: str, facts: Optional[Mapping[str, object]]) -> object:
        try:
            return _access.read(config, path, schema, facts)
        except ConfigError as error:
            read = base(path) or path  # given.PATH is read at PATH
            if error.path == read or read.startswith(error.path + "."):
                error.feature = readers[path]
            _access.with_others(error, config, paths, readers, schema, facts)
            raise

    return read


class _NoAttributes:
    """What an absent fact section reads as on an object: every fact below takes its default."""

    __slots__ = ()


_NO_ATTRIBUTES = _NoAttributes()
#: The names of `_fixed`, which every evaluator takes as default arguments.
_FIXED = ("_general", "_Slow", "_SCALARS", "_MISS", "_join", "_type", "_issubclass", "_Mapping", "_NoAttributes",
          "_check_facts", "_schema", "_ops", "_truthy", "_rem", "_parsed", "_arith", "_ints")


class _Running:
    """The conjunctions a requirement chain's gates share, each kept in a local (``h0``, …) that
    extends the one before it.

    The gate of clause *i* of a chain is ``not c_i and c_1 and … and c_(i-1)`` (`schema`'s
    requirement gates): written out, a chain of n clauses is n²/2 conditions of source (150
    clauses: 394 KB, 0.3 s to compile). Where a gate alone in its group has a remainder whose
    operands start with those of the gate before it (the same nodes), the remainder is
    ``h_prev and <its new operands>``, so the source grows linearly. The value is the same: every
    condition here reads values already read and checked, and raises nothing.
    """

    def __init__(self, groups: Dict[Node, List[Tuple[int, Optional[Node]]]]) -> None:
        # The operands of each lone gate's remainder (by identity), in the order they are written.
        self.operands = [self._operands(members[0][1]) for members in groups.values() if len(members) == 1]
        self.position = 0
        self.before: Optional[Tuple[Tuple[int, ...], str]] = None  # the last local: its operands' ids, its name
        self.count = 0

    @staticmethod
    def _operands(remainder: Optional[Node]) -> Tuple[Node, ...]:
        if remainder is None:
            return ()
        return remainder.operands if isinstance(remainder, And) else (remainder,)

    @staticmethod
    def _extends(longer: Tuple[int, ...], shorter: Tuple[int, ...]) -> bool:
        return 0 < len(shorter) < len(longer) and longer[:len(shorter)] == shorter

    def local(self, head: Node, remainder: Optional[Node], generator: _Generator, lines: List[str]) -> Optional[str]:
        """The local holding *remainder* (set by a line added to *lines*), when this lone gate is
        a link of a chain (it extends the gate before it, or the gate after it extends it); else
        None, and the gate is written as it is."""
        operands = self.operands[self.position]
        self.position += 1
        ids = tuple(map(id, operands))
        after = tuple(map(id, self.operands[self.position])) if self.position < len(self.operands) else ()
        before = self.before
        if before is not None and self._extends(ids, before[0]):
            held = before[1] + "".join(f" and {generator.condition(o)}" for o in operands[len(before[0]):])
        elif self._extends(after, ids):
            held = " and ".join(generator.condition(o) for o in operands)
        else:
            self.before = None
            return None
        name = f"h{self.count}"
        self.count += 1
        lines.append(f"    {name} = {held}")
        self.before = (ids, name)
        return name


def _tuple_source(names: List[str]) -> str:
    """Source for the tuple of *names*. CPython compiles a display of more than 30 items to a
    list appended item by item and then copied (its compiler's stack guideline): two displays
    of at most 30 joined by ``+`` cost a third of that up to 60 items (issue 29: 0.1 µs of every
    resolve of the default matrix, 32 values); past that the list is the cheaper."""
    if 30 < len(names) <= 60:
        return f"({', '.join(names[:30])},) + ({', '.join(names[30:])},)"
    return f"({', '.join(names)}{',' if len(names) == 1 else ''})"


class _Generator:
    def __init__(self, schema: Optional[Schema], paths: Tuple[str, ...]) -> None:
        self.schema = schema if schema else None
        self.paths = paths
        self.local = {path: f"v{i}" for i, path in enumerate(paths)}
        self.path_of = {local: path for path, local in self.local.items()}
        self.constants: Dict[str, object] = {}

    def constant(self, value: object) -> str:
        """A name bound to *value* (as a default argument: read as fast as a local)."""
        for name, known in self.constants.items():
            if type(known) is type(value) and known == value:
                return name
        name = f"_k{len(self.constants)}"
        self.constants[name] = value
        return name

    def literal(self, value: object) -> str:
        if type(value) in _SIMPLE:
            return repr(value)
        return self.constant(value)

    # --- the module ------------------------------------------------------------------------

    def module(self, features: Tuple[Feature, ...], readers: Dict[str, str]) -> Tuple[str, Dict[str, object]]:
        """The evaluator's source and the constants it binds (`_fixed` gives it the rest)."""
        gates = self.gates(features)
        values = ", ".join(self.local[p] for p in self.paths)
        unpack = f"        {values}, = _general(config, facts)" if self.paths else "        pass"
        facts = [f.path for f in (self.schema or ()) if f.fact and f.type != "section"]
        check_facts = [
            "    if facts is not None and (facts.__class__ is not dict"
            f" or not facts.keys() <= {self.constant(frozenset(facts))}):",
            "        _check_facts(facts, _schema)",
        ]
        if self.schema is not None and self.paths:
            attribute_reader = self.reader("attribute")
            dict_reader = self.reader("dict")
            read = [
                "    try:",
                "        if config.__class__ is dict:",
                *("    " + line for line in dict_reader),
                "        else:",
                *("    " + line for line in attribute_reader),
                "    except Exception:",
                unpack,
            ]
        else:
            read = ["    if True:", unpack]
        arguments = ", ".join(f"{name}={name}" for name in (*_FIXED, *self.constants))
        lines = [
            f"def evaluate(config, facts=None, {arguments}):",
            *check_facts,
            *read,
            "    m = 0",
            *gates,
            f"    return m, {_tuple_source([self.local[p] for p in self.paths])}",
        ]
        return "\n".join(lines) + "\n", dict(self.constants)

    def gates(self, features: Tuple[Feature, ...]) -> List[str]:
        """Statements that set bit *i* of ``m`` when gate *i* holds.

        Two shapes share work: gates that test one path for equality with a literal become a
        single table look-up per path (``m |= table.get(value, 0)``), and gates that start
        with the same test are nested under one ``if`` on it.
        """
        lines: List[str] = []
        tables: Dict[str, Dict[object, int]] = {}
        groups: Dict[Node, List[Tuple[int, Optional[Node]]]] = {}
        for index, feature in enumerate(features):
            node = feature.when.node
            equality = self.equality(node)
            if equality is not None:
                local, value = equality
                table = tables.setdefault(local, {})
                table[value] = table.get(value, 0) | (1 << index)
                continue
            if isinstance(node, And):
                head, rest = node.operands[0], node.operands[1:]
                groups.setdefault(head, []).append(
                    (index, rest[0] if len(rest) == 1 else And(tuple(rest))))
            else:
                groups.setdefault(node, []).append((index, None))
        for local, table in tables.items():
            if len(table) == 1:
                (value, bits), = table.items()
                equal = f"{local} == {self.literal(value)}"
                if isinstance(value, str) and self.may_be_none(self.path_of[local]):
                    equal = self.none_first(local, equal)
                lines.append(f"    if {equal}:\n        m |= {bits}")
            else:
                lines.append(f"    m |= {self.table(local, table)}")
        running = _Running(groups)
        for head, members in groups.items():
            if len(members) == 1:
                index, remainder = members[0]
                held = running.local(head, remainder, self, lines)
                if held is not None:  # a gate of a requirement chain: the clauses before it in a local
                    lines.append(f"    if {held} and {self.condition(head)}:\n        m |= {1 << index}")
                    continue
                test = head if remainder is None else And((head, remainder))
                lines.append(f"    if {self.condition(test)}:\n        m |= {1 << index}")
                continue
            lines.append(f"    if {self.condition(head)}:")
            always = sum(1 << index for index, remainder in members if remainder is None)
            if always:
                lines.append(f"        m |= {always}")
            for index, remainder in members:
                if remainder is not None:
                    lines.append(f"        if {self.condition(remainder)}:\n            m |= {1 << index}")
        return lines

    def table(self, local: str, table: Dict[object, int]) -> str:
        """Source for the bits of *table* (value → bits) that the value of *local* selects.
        Where the reader's checks leave *local* only a few values (a bool, the choices, None
        where it may be None), every one of them is a key: a subscript instead of a method call
        (issue 29)."""
        field = self.schema.get(self.path_of[local]) if self.schema is not None else None
        domain: Optional[Tuple[object, ...]] = None
        if field is not None and field.type in ("bool", "int", "str"):
            domain = (True, False) if field.type == "bool" else field.choices
        if domain is None:
            return f"{self.constant(table)}.get({local}, 0)"
        if self.may_be_none(self.path_of[local]):
            domain += (None,)
        return f"{self.constant({value: table.get(value, 0) for value in domain})}[{local}]"

    def equality(self, node: Node) -> Optional[Tuple[str, object]]:
        """``(local, value)`` when *node* is ``path == literal`` on a scalar field."""
        if not isinstance(node, Compare) or node.op != EQUALS.spelling:
            return None
        if isinstance(node.left, Path) and isinstance(node.right, Literal):
            path, literal = node.left, node.right
        elif isinstance(node.right, Path) and isinstance(node.left, Literal):
            path, literal = node.right, node.left
        else:
            return None
        field = self.field(path)
        value = literal.value
        if field is None or field.type not in ("bool", "int", "float", "str") or value is None:
            return None
        return self.local[path.name], value

    # --- readers ---------------------------------------------------------------------------

    def reader(self, flavour: str) -> List[str]:
        """Statements that set every value local, for configs of one flavour. A fast reader
        never reads an effective config (it falls through to the general reader), so a path
        read as given (``given.PATH``, issue 30 F8) is PATH there, read once."""
        needed = set()
        for path in self.paths:
            parts = (base(path) or path).split(".")
            for end in range(1, len(parts) + 1):
                needed.add(".".join(parts[:end]))
        tree: Dict[str, List[str]] = {}
        for path in sorted(needed, key=lambda p: (p.count("."), p)):
            tree.setdefault(path.rpartition(".")[0], []).append(path)
        self.section_names: Dict[str, str] = {"": "config"}
        lines: List[str] = []
        self.emit_section("", tree, flavour, lines, indent="        ")
        for path in self.paths:  # given.PATH beside PATH: the same value here
            read = base(path)
            if read is not None and read in self.local:
                lines.append(f"        {self.local[path]} = {self.local[read]}")
        return lines

    def target(self, path: str) -> Optional[str]:
        """The local a fast reader sets for *path*: its own, else that of ``given.PATH``."""
        return self.local.get(path) or self.local.get(GIVEN + path)

    def emit_section(self, prefix: str, tree: Tree, flavour: str, lines: List[str], indent: str) -> None:
        holder = self.section_names[prefix]
        if flavour == "dict" and tree.get(prefix):
            lines.append(f"{indent}d_{holder} = None")  # whether the mapping has a dotted key, once asked
        for path in tree.get(prefix, []):
            field = self._declared(path)
            name = path.rpartition(".")[2]
            target = self.target(path) or f"s{len(self.section_names)}"
            if field.fact or field.gone:
                self.fact_access(target, holder, name, field, flavour, lines, indent)
            else:
                self.plain_access(target, holder, name, field, flavour, lines, indent)
            if field.type == "version":
                # Text that spells a version ('9.0', as hosts pass it) is parsed once per text;
                # text that does not raises InvalidVersion, and the general reader says so.
                lines.append(f"{indent}if {target}.__class__ is str: {target} = _parsed({target})")
            if field.type != "section":
                check = self.check(target, field)
                if check:
                    lines.append(f"{indent}if {check}: raise _Slow")
                continue
            self.section_names[path] = target
            below = self.descendants(path, tree)
            if field.nullable:
                lines.append(f"{indent}if {target} is None:")
                given = frozenset(p for p in self.below(path, tree) if self._declared(p).fact)
                if given:  # a fact given wins over the section's None: the general reader reads it
                    lines.append(f"{indent}    if facts is not None and not facts.keys().isdisjoint("
                                 f"{self.constant(given)}): raise _Slow")
                lines.append(f"{indent}    {' = '.join(below + ['None'])}" if below else f"{indent}    pass")
                lines.append(f"{indent}else:")
                inner = indent + "    "
            else:
                inner = indent
            before = len(lines)
            if self.section_check_needed(path, tree):
                # isinstance against the 9 types looks the value's __class__ up for each (0.2 µs
                # for an object, a section's usual value): a class that is its own __class__
                # and derives from none of them is not one, the rest are asked (issue 29).
                lines.append(f"{inner}if ({target}.__class__ is not _type({target}) or _issubclass({target}.__class__, "
                             f"_SCALARS)) and isinstance({target}, _SCALARS): raise _Slow")
            self.emit_section(path, tree, flavour, lines, inner)
            if len(lines) == before:
                lines.append(f"{inner}pass")

    def descendants(self, prefix: str, tree: Tree) -> List[str]:
        out = []
        for path in tree.get(prefix, []):
            local = self.target(path)
            if local is not None:
                out.append(local)
            out.extend(self.descendants(path, tree))
        return out

    def below(self, prefix: str, tree: Tree) -> List[str]:
        """The paths read below *prefix* that are not sections."""
        out = []
        for path in tree.get(prefix, []):
            if self._declared(path).type != "section":
                out.append(path)
            out.extend(self.below(path, tree))
        return out

    def section_check_needed(self, path: str, tree: Tree) -> bool:
        # A scalar where a section belongs fails on its own when the child names are not
        # attributes of any scalar type (`x.real` would read an int's attribute: checked).
        # A section read for itself (`lora_config is not None`) is always checked.
        children = tree.get(path, [])
        return not children or any(
            any(hasattr(t, child.rpartition(".")[2]) for t in PLAIN_TYPES + (dict,))
            for child in children
        )

    def fact_access(self, target: str, holder: str, name: str, field: Field, flavour: str,
                    lines: List[str], indent: str) -> None:
        """A fact: from ``facts`` when given there, else from the config, else its default (an
        object need not have it). Sections are never in ``facts``. A field gone at the plan's
        version is read the same way, without ``facts``."""
        inner = indent
        if field.type != "section" and field.fact:
            lines.append(f"{indent}if facts is not None and {field.path!r} in facts:")
            lines.append(f"{indent}    {target} = facts[{field.path!r}]")
            lines.append(f"{indent}else:")
            inner = indent + "    "
        if flavour == "dict":
            self.plain_access(target, holder, name, field, flavour, lines, inner)
            return
        default = self.default(field)
        if default is not None and field.type == "section":
            default = "_NoAttributes"  # an object has no keys: its facts take their defaults
        read = f"{inner}{target} = {self.access(holder, name, field, flavour)}"
        if default is None:  # the general reader says what is missing (an AttributeError sends it there)
            lines.append(read)
            return
        # What getattr(holder, name, default) does, without its call: a try costs nothing
        # until it catches (issue 29: 25 ns a fact read).
        lines.append(f"{inner}try:")
        lines.append(f"    {read}")
        lines.append(f"{inner}except AttributeError:")
        # A mapping inside an object config is read by the general reader, not by getattr.
        lines.append(f"{inner}    if isinstance({holder}, _Mapping): raise _Slow")
        lines.append(f"{inner}    {target} = {default}")

    def plain_access(self, target: str, holder: str, name: str, field: Field, flavour: str,
                     lines: List[str], indent: str) -> None:
        default = self.default(field)
        if flavour == "dict" and default is not None:
            # A key left out takes the default, unless the mapping has a key with a dot in it
            # (a flat {"a.b": …} meant for this path): the general reader refuses that. The keys
            # are looked at once per mapping, without a Python call (a key that is not text
            # makes the join raise: the general reader then reads the mapping).
            flag = f"d_{holder}"
            lines.append(f"{indent}{target} = {holder}.get({name!r}, _MISS)")
            lines.append(f"{indent}if {target} is _MISS:")
            lines.append(f"{indent}    if {flag} is None: {flag} = '.' in _join({holder})")
            lines.append(f"{indent}    if {flag}: raise _Slow")
            lines.append(f"{indent}    {target} = {default}")
        else:
            lines.append(f"{indent}{target} = {self.access(holder, name, field, flavour)}")

    def default(self, field: Field) -> Optional[str]:
        """Source for what an absent key reads as, or None when absent is an error."""
        if field.has_default:
            return self.literal(field.default)
        if field.type == "section" and not field.nullable:
            return self.constant({})
        return None

    def access(self, holder: str, name: str, field: Field, flavour: str) -> str:
        if flavour == "dict":
            default = self.default(field)
            if default is None:
                return f"{holder}[{name!r}]"
            return f"{holder}.get({name!r}, {default})"
        if keyword.iskeyword(name) or not name.isidentifier():
            return f"getattr({holder}, {name!r})"
        return f"{holder}.{name}"

    def check(self, local: str, field: Field) -> Optional[str]:
        """A condition that is true when *local* is not a value the fast path may accept."""
        kind = field.type
        none = f"{local} is not None and " if field.nullable else ""
        if kind == "bool":
            return f"{none}{local}.__class__ is not bool"
        if kind == "str":
            if field.choices is not None:
                return f"{none}{local} not in {self.constant(frozenset(field.choices))}"
            return f"{none}{local}.__class__ is not str"
        if kind in ("int", "float"):
            classes = f"{local}.__class__ is not int"
            if kind == "float":
                classes = f"({classes} and {local}.__class__ is not float) or {local} != {local}"
            tests = [classes]
            if field.choices is not None:
                tests.append(f"{local} not in {self.constant(frozenset(field.choices))}")
            if field.min is not None:
                tests.append(f"{local} < {self.literal(field.min)}")
            if field.max is not None:
                tests.append(f"{local} > {self.literal(field.max)}")
            test = " or ".join(tests)
            return f"{none}({test})" if none else test
        if kind == "version":
            return f"{none}{local}.__class__ is not {self.constant(Version)}"
        item = "str" if kind == "list[str]" else "int"
        # The first item on its own, then the others without a Python frame (a generator per
        # list read cost more than every other check of a config together).
        items = self.constant(frozenset({str if item == "str" else int}))
        test = (f"({local}.__class__ is not list and {local}.__class__ is not tuple"
                f" or {local} and ({local}[0].__class__ is not {item}"
                f" or len({local}) > 1 and not {items}.issuperset(map(_type, {local}))))")
        return f"{none}{test}"

    # --- gates -----------------------------------------------------------------------------

    def field(self, node: Node) -> Optional[Field]:
        if self.schema is None or not isinstance(node, Path):
            return None
        return self.schema.get(node.name)

    def _declared(self, path: str) -> Field:
        """The field of a path the fast readers read: they are generated only with a schema,
        which declares every path read and every section above it (implied ones included)."""
        assert self.schema is not None
        field = self.schema.get(path)
        assert field is not None, path
        return field

    def may_be_none(self, path: str) -> bool:
        parts = (base(path) or path).split(".")
        for end in range(1, len(parts) + 1):
            field = self.schema.get(".".join(parts[:end])) if self.schema is not None else None
            if field is None or field.nullable:
                return True
        return False

    def condition(self, node: Node) -> str:
        """Python source that is truthy exactly when *node* holds (the interpreter's rules)."""
        # The language's and, or, not and is None are Python's, spelt the same.
        if isinstance(node, And):
            return "(" + f" {AND.spelling} ".join(self.condition(o) for o in node.operands) + ")"
        if isinstance(node, Or):
            return "(" + f" {OR.spelling} ".join(self.condition(o) for o in node.operands) + ")"
        if isinstance(node, Not):
            return f"({NOT.spelling} {self.condition(node.operand)})"
        if isinstance(node, IsNone):
            test = IS_NOT_NONE if node.negated else IS_NONE
            return "(" + test.python.format(a=self.value(node.operand)) + ")"
        if isinstance(node, Compare):
            return self.compare(node)
        if isinstance(node, Path):
            field = self.field(node)
            local = self.local[node.name]
            if field is not None and field.type == "section":
                return f"({local} is not None)"
            if field is not None and field.type in ("bool", "list[str]", "list[int]"):
                return local
            return f"_truthy({local})"
        if isinstance(node, Literal):
            return repr(truthy(node.value))
        return f"_truthy({self.value(node)})"

    def value(self, node: Node) -> str:
        if isinstance(node, Path):
            return self.local[node.name]
        if isinstance(node, Literal):
            return self.literal(node.value)
        if isinstance(node, ListLiteral):
            return self.constant(node.values)
        if isinstance(node, Mod):
            local, field = self.local[node.path.name], self.field(node.path)
            if field is None or field.type != "int":
                return f"_rem({local}, {node.divisor})"
            native = MOD.python.format(a=local, b=node.divisor)
            if self.may_be_none(node.path.name):
                return f"(None if {local} is None else {native})"
            return f"({native})"
        # Arithmetic (issue 30, F3) by the interpreter's own functions: None for None and for a
        # zero divisor, where Python would raise.
        if isinstance(node, Arith):
            return f"_arith[{node.op!r}]({self.value(node.left)}, {self.value(node.right)})"
        if isinstance(node, Call):
            return f"_ints({node.name!r}, (" + "".join(f"{self.value(a)}, " for a in node.args) + "))"
        if isinstance(node, DerivedField):
            return self.value(node.expression)
        return f"bool({self.condition(node)})"

    def compare(self, node: Compare) -> str:
        op = BY_SPELLING[node.op]
        left, right = node.left, node.right
        left_field, right_field = self.field(left), self.field(right)
        generic = f"_ops[{node.op!r}]({self.value(left)}, {self.value(right)})"
        remainder = self.remainder(node)
        if remainder is not None:
            return remainder
        if left_field is None and right_field is None:
            return generic
        if op.kind == "membership":
            return self.membership(node, left_field, right_field) or generic
        # A path and a literal of a type the schema checked: Python's own operator is exact.
        if left_field is not None and isinstance(left, Path) and isinstance(right, Literal):
            path, field, literal, flipped = left, left_field, right, False
        elif right_field is not None and isinstance(right, Path) and isinstance(left, Literal):
            path, field, literal, flipped = right, right_field, left, True
        else:
            return generic
        if field.type == "section" or field.item_type is not None:
            return generic
        value = literal.value
        if field.type == "version":
            if not isinstance(value, str):
                return generic
            value = parsed(value)
        elif value is not None and not isinstance(value, _SIMPLE):
            return generic
        local = self.local[path.name]
        constant = self.literal(value)
        text = op.python.format(a=constant, b=local) if flipped else op.python.format(a=local, b=constant)
        if op.none_is_false:
            if value is None:
                return "False"
            if self.may_be_none(path.name):
                return f"({local} is not None and {text})"
        elif op is EQUALS and isinstance(value, str) and self.may_be_none(path.name):
            return self.none_first(local, text)
        return f"({text})"

    @staticmethod
    def none_first(local: str, text: str) -> str:
        """*text*, ``local == 'literal'``, where *local* may be None: None tested first, since
        Python's ``None == 'x'`` is a slow comparison (and it keeps the ``==`` on two strings,
        which CPython specialises; issue 29). The same value: None equals no text."""
        return f"({local} is not None and {text})"

    def remainder(self, node: Compare) -> Optional[str]:
        """``path % n <op> INT`` on an int field that is never None: Python's own operators."""
        left, right = node.left, node.right
        op = BY_SPELLING[node.op]
        if not (isinstance(left, Mod) and isinstance(right, Literal)) or op.kind == "membership":
            return None
        field = self.field(left.path)
        if field is None or field.type != "int" or type(right.value) is not int or self.may_be_none(left.path.name):
            return None
        native = MOD.python.format(a=self.local[left.path.name], b=left.divisor)
        return "(" + op.python.format(a=native, b=repr(right.value)) + ")"

    def membership(self, node: Compare, left_field: Optional[Field], right_field: Optional[Field]) -> Optional[str]:
        op = BY_SPELLING[node.op]
        # `not in` is the negation of `in`: the list-field form tests None before `in`.
        positive = BY_SPELLING[op.negates] if op.negates is not None else op
        if isinstance(node.right, ListLiteral) and left_field is not None and isinstance(node.left, Path):
            items = node.right.values
            if left_field.type == "version":
                items = tuple(parsed(v) if isinstance(v, str) else v for v in items)
            if left_field.type == "section" or not all(isinstance(v, (Version,) + _SIMPLE) for v in items):
                return None
            local = self.local[node.left.name]
            return "(" + op.python.format(a=local, b=self.constant(frozenset(items))) + ")"
        if right_field is not None and right_field.item_type is not None and isinstance(node.left, Literal) \
                and isinstance(node.right, Path):
            local = self.local[node.right.name]
            test = "(" + f"{local} is not None and " + positive.python.format(a=self.literal(node.left.value), b=local) + ")"
            return f"(not {test})" if op.negates is not None else test
        return None
