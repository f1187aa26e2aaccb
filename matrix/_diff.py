"""The exact search behind `matrix.diff`: where two matrices (or one at two versions) answer a
config differently.

Both sides are compiled plans over one config space: a `Space` built over the nodes of every
gate of both sides and the union of their ``[config]`` fields. Every answer of a side is decided
by one rule of a decision list: automatic choice reads `matrix._choice.steps`; a request for a
runner reads the list `requested_rules` writes (the same rules as `matrix._choice.requested`,
as data). ``check``'s `_Choice` turns "rule r decides" (it holds and no earlier rule does) into
goals of the search, so "the answer changes from X to Y" is exactly "some rule of the old side
deciding X and some rule of the new side deciding Y hold together": one search per pair of
rules whose answers differ. Warnings of one gate (a deprecation, a blocker, a removal) are one
search per gate: active and warned on one side, not on the other.

Every search goes through `matrix._split` (the question cut into parts that share no path),
and a region found for a pair of rules is narrowed to as few gates whose entry differs as can be
(`Search._fewest_causes`), so that its causes are the entries that make it; the pair is asked again
where not all of those are active, for the regions of other causes (`Search._regions`). A
region's text is its question, exactly, less what the rest implies (`Search.fewest_conjuncts`). Each region found is
re-resolved with the real `resolve` on both sides before it is reported.
"""

from __future__ import annotations

from typing import Any, Callable, Container, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import attrs
from packaging.version import Version

from . import _choice, _messages
from ._check_adjust import Contexts
from ._choice import Rule, Term
from ._compile import Plan
from ._diff_types import ROLE_REFUSAL
from ._given import ROLE
from ._nodes import And, IsNone, Literal, Node, Not, Or, Path
from ._space import Inconclusive, Space
from ._split import Split
from ._substitute import conjoin, constant, disjoin, negate
from .check import _Choice, _Places
from .schema import BLOCKING, NOTHING, Adjustment, Feature, Field, Matrix, Order, Requirement, Runner, Schema

#: The way a request went before it was refused (docs/how-to/review-a-change.md says it):
#: ``("redirected", runner)`` where a redirect made it a request for *runner*, then
#: ``("overridden", runner)`` where an override gave it to *runner*; empty where it was refused as
#: asked (and in automatic choice).
Way = Tuple[Tuple[str, str], ...]
#: What one rule answers: ``("served", runner, warning, path)`` or ``("refused", None, why,
#: path)``; *warning* is ``"fallback"``, ``"preference NAME"`` (`preferred_by`: the preferring
#: feature's name, so that one runner chosen by another feature's preference is another answer) or
#: ``""``, *why* ``"no-runner"`` or
#: ``"forced"`` / ``"blocked"`` for a request; *path* the way a refusal there went (of a served
#: answer: where its runner is refused on its effective config).
Outcome = Tuple[str, Optional[str], str, Way]
#: The most regions of other causes named for one pair of rules (the rest said in ``undecided``).
MAX_REGIONS = 8
_NO_VALUE = object()
Assignment = Dict[str, object]


@attrs.frozen
class Region:
    """One region found: the rules deciding on each side (for one-gate questions, the gate), the
    search's assignment, the answers, and the ids of the gates that bound it."""

    kind: str
    runner: Optional[str]  # the runner asked for (None: automatic choice)
    old: Outcome
    new: Outcome
    assignment: Assignment
    gates: Tuple[Tuple[str, str], ...]  # (side, gate id) whose conditions hold there
    feature: Optional[str] = None  # the gate of a one-gate question
    blocked: Optional[str] = None  # the runner a blocker question is about
    #: (side, gate id) of the gates a deciding rule needs inactive (a runner's blockers), and
    #: that are inactive there: they bound the region too.
    excluded: Tuple[Tuple[str, str], ...] = ()
    #: The question the region answers, exactly (on the config as given): conditions that hold,
    #: conditions that do not, and groups one of whose conditions holds (`Search.conjuncts`).
    true: Tuple[Node, ...] = ()
    false: Tuple[Node, ...] = ()
    groups: Tuple[Tuple[Node, ...], ...] = ()


def union_schema(old: Schema, new: Schema, unset: Container[str] = (), required: Container[str] = ()) -> Schema:
    """Every field of either side; a field on both keeps the new side's, with the choices of both
    (the search must try a value either side accepts). With *unset* (fields whose default
    differs between the sides: `unset_defaults`), a bool field `unset_path` of each, true where a
    config leaves that field out. A field of *required* (one side has no default for it:
    `required_fields`) has none here either, so a witness gives it a value both sides accept
    (`matrix._space.Space.witness`): leaving it out is a config error on that side, said by the
    ``config-*`` finding of the field."""
    fields: Dict[str, Field] = dict(old.fields)
    for path, field in new.fields.items():
        before = fields.get(path)
        if before is not None and before.choices is not None and field.choices is not None:
            field = attrs.evolve(field, choices=tuple(dict.fromkeys((*field.choices, *before.choices))))
        fields[path] = field
    for path in list(fields):
        if path in required and fields[path].has_default:
            fields[path] = attrs.evolve(fields[path], default=NOTHING, defaults=())
    for path in list(fields):
        if path in unset:
            fields[unset_path(path)] = Field(unset_path(path), "bool", default=False)
    return Schema(fields, {**old.derivations, **new.derivations})


# --- configs that leave a field out -------------------------------------------------------------
#
# A config that leaves a field out reads, on each side, that side's default (at its version).
# Where the two defaults differ, "left out" is a value of its own: the search reads it as a bool
# path of its own (`unset_path`: true where the config leaves the field out), and each side's
# conditions are read through it (`Side.given`): the field reads the side's default where it is
# left out, the config's value elsewhere. A region says it ``PATH is unset`` (`region_text`,
# read back by `matrix.diff.region_predicate`); a witness that leaves the field out has no value
# for it (`Search.witness`).

#: The prefix of the bool path that says a field is left out (its dots doubled underscores).
UNSET = "unset__"


def unset_path(path: str) -> str:
    """The bool path of the search that holds where a config leaves *path* out."""
    return UNSET + path.replace(".", "__")


def unset_text(name: str, schema: Any) -> Optional[str]:
    """The field whose `unset_path` is *name* (None: *name* is no such path)."""
    if not name.startswith(UNSET):
        return None
    return next((p for p in schema.fields if unset_path(p) == name and not p.startswith(UNSET)), None)


def left_out(config: object, path: str, schema: Any = None) -> bool:
    """Whether *config* leaves *path* out: a key missing on the way to it, no section above it
    set to None (a section set to None reads None below it, not a default), nor, with *schema*,
    a nullable section above it left out (it reads None too)."""
    current = config
    parts = path.split(".")
    for at, part in enumerate(parts):
        if current is None:
            return False
        if isinstance(current, dict):
            if part not in current:
                above = [schema.get(".".join(parts[:end])) for end in range(at + 1, len(parts))] if schema else []
                return not any(field is not None and field.nullable for field in above)
            current = current[part]
        else:
            if not hasattr(current, part):
                return True
            current = getattr(current, part)
    return False


def with_unset(config: Any, names: Any, schema: Any) -> Any:
    """*config* with the value of each `unset_path` of *names* (true where it leaves the field
    out), for reading a condition of the diff's on it."""
    extra = {}
    for name in names:
        path = unset_text(name, schema)
        if path is not None:
            extra[name] = left_out(config, path, schema)
    return {**config, **extra} if extra and isinstance(config, dict) else config


def unset_guard(path: str, schema: Any) -> Node:
    """Where *path* reads its default: its `unset_path`, and no nullable section above it None
    (a config without the section reads None there, not the default)."""

    parts = path.split(".")
    above: List[Node] = []
    for end in range(1, len(parts)):
        field = schema.get(".".join(parts[:end]))
        if field is None or field.nullable:
            above.append(IsNone(Path(".".join(parts[:end])), True))
    return conjoin([Path(unset_path(path)), *above])


def required_fields(*plans: Plan) -> Set[str]:
    """The fields (not sections, not derived) some side declares without a default at its version."""
    from .schema import NOTHING

    return {path for plan in plans for path, field in plan.matrix.schema.at(plan.version).fields.items()
            if field.type != "section" and field.derive is None and field.default_at(plan.version) is NOTHING}


def unset_defaults(old: Plan, new: Plan) -> Dict[str, Tuple[object, object]]:
    """The fields both sides declare at their versions, each with a default, that differ in it:
    path → (old default, new default)."""
    from .schema import NOTHING

    out: Dict[str, Tuple[object, object]] = {}
    a, b = (plan.matrix.schema.at(plan.version) for plan in (old, new))
    for path, field in b.fields.items():
        before = a.fields.get(path)
        if before is None or field.type == "section" or field.derive is not None:
            continue
        x, y = before.default_at(old.version), field.default_at(new.version)
        if x is NOTHING or y is NOTHING or type(x) is type(y) and x == y:
            continue
        out[path] = (x, y)
    return out


def listed_items(nodes: Sequence[Node]) -> List[Node]:
    """``x in [items]`` for each ``x in DEFAULT`` of *nodes* whose DEFAULT is a list field's
    default read in place of the field (`_Defaults`): the search takes the values it tries from
    the constants a field is compared with (`matrix._space.compared_constants`), the items of a
    list literal, but a default is one literal (a tuple), and no item of it was tried (a list
    field's default changed was said by its config-default-changed finding alone)."""
    from ._nodes import Compare, ListLiteral, walk

    out: List[Node] = []
    for node in nodes:
        for part in walk(node):
            if isinstance(part, Compare) and part.op in ("in", "not in") and isinstance(part.left, Path) \
                    and isinstance(part.right, Literal) and isinstance(part.right.value, (tuple, list)):
                out.append(Compare(part.left, "in", ListLiteral(tuple(Literal(v) for v in part.right.value))))
    return list(dict.fromkeys(out))


class _Defaults:
    """Conditions read on a config after the defaults fill what it leaves out, as conditions
    over the config as given (the `unset_path` of each field of *defaults*)."""

    def __init__(self, defaults: Dict[str, object], schema: Schema) -> None:
        self.defaults, self.schema = defaults, schema
        self._memo: Dict[Node, Node] = {}

    def guard(self, path: str) -> Node:
        """Where *path* reads its default: left out, no nullable section above it None."""
        return unset_guard(path, self.schema)

    def terms(self, path: str) -> List[Tuple[Node, Node]]:
        """What *path* reads: its default where left out, else the config's value."""
        if path not in self.defaults:
            return [(conjoin([]), Path(path))]
        guard = self.guard(path)
        return [(guard, Literal(self.defaults[path])), (negate(guard), Path(path))]

    def __call__(self, node: Node) -> Node:
        done = self._memo.get(node)
        if done is None:
            done = self._memo[node] = self._rewrite(node)
        return done

    def _rewrite(self, node: Node) -> Node:
        from ._substitute import _folded, _paths, _replaced

        if isinstance(node, And):
            return conjoin([self(n) for n in node.operands])
        if isinstance(node, Or):
            return disjoin([self(n) for n in node.operands])
        if isinstance(node, Not):
            return negate(self(node.operand))
        affected = [p for p in dict.fromkeys(_paths(node)) if p in self.defaults]
        if not affected:
            return node
        if len(affected) == 1:  # said as briefly as it can be: ``t is unset or t == 'a'``
            guard = self.guard(affected[0])
            when = _folded(_replaced(node, {affected[0]: Literal(self.defaults[affected[0]])}))
            if when == Literal(True):
                return disjoin([guard, node])
            if when == Literal(False):
                return conjoin([negate(guard), node])
        combos: List[Tuple[List[Node], Dict[str, Node]]] = [([], {})]
        for path in affected:
            combos = [(conds + [c], {**terms, path: t}) for conds, terms in combos for c, t in self.terms(path)]
        return disjoin([conjoin([*conds, _folded(_replaced(node, terms))]) for conds, terms in combos])


class Side:
    """One side's plan, and its decision lists as questions for the search."""

    def __init__(self, name: str, compiled: Plan, defaults: Optional[Dict[str, object]] = None) -> None:
        self.name, self.plan = name, compiled
        self.matrix: Matrix = compiled.matrix
        self.version: Version = compiled.version
        features = compiled.features
        asked_only = {f.id for f in features if f.applies == "asked"}
        automatic_only = {f.id for f in features if f.applies == "automatic"}
        #: The adjustments in force, as rewriters (`matrix._check_adjust`). The choice reads the
        #: config of choice C, and every question of the diff is put on C exactly (``exact``); the
        #: runner chosen is validated on its effective config F (its own adjustments applied to
        #: C: `on_f`). A rewrite too large leaves the configs as given, and the diff says it did
        #: not compare them.
        self.ctx = Contexts(self.matrix, compiled)
        self.exact = self.ctx.too_large is None
        #: Gate conditions that hold on C exactly where they hold on the config as given (the
        #: adjustments leave what they read alone, as the search finds): read as written, the
        #: questions stay small (`Search.same_on_c`).
        self.same_on_c: Set[Node] = set()
        #: The fields whose default differs from the other side's, with this side's (`unset_defaults`):
        #: every condition is read on the config as given, a field left out reading this default.
        self.defaults: Dict[str, object] = dict(defaults or {})
        self.given: Callable[[Node], Node] = _Defaults(self.defaults, self.matrix.schema) if self.defaults \
            else (lambda node: node)
        self.on_c: Callable[[Node], Node] = self._on_c if self.exact or self.defaults else (lambda node: node)
        self.automatic = _Choice(compiled, asked_only, self.on_c)
        self.asked = _Choice(compiled, automatic_only, self.on_c)
        #: Where the choice is automatic, beside its rules: with roles, the base role's field on C
        #: is None (a value there is a request for that runner: `matrix._roles`, asked as one).
        self.unasked: List[Node] = [] if not self.matrix.roles else \
            [self.on_c(IsNone(Path(self.matrix.roles[0].field), False))]
        #: `role_parts`, by runner, once asked.
        self._role_refusing: Dict[str, List[Tuple[Tuple[str, str], Node]]] = {}
        #: Each gate's bit (by identity: a plan's gates are compared often, and attrs equality
        #: reads every field), and the first gate of each id.
        self._bits = {id(f): i for i, f in enumerate(features)}
        self._gates: Dict[str, Feature] = {}
        for f in features:
            self._gates.setdefault(f.id, f)
        #: Where entries stand in the side's file (its text parsed once, when first asked).
        self.places = _Places(self.matrix)
        #: The id each runner has on the other side where it differs (a runner renamed with an
        #: alias: `renamed_runners`), set by the search.
        self.ids: Dict[str, str] = {}
        #: The other way: the id this side has for a runner the new side has renamed (new id →
        #: this side's), set by the search on the old side.
        self.local_ids: Dict[str, str] = {}

    def local(self, runner: Optional[str]) -> Optional[str]:
        """The id this side knows *runner* (a runner of the new side) by: a request for a runner
        renamed with an alias asks the old side for its former id."""
        return None if runner is None else self.local_ids.get(runner, runner)

    def _on_c(self, node: Node) -> Node:
        if not self.exact:
            return self.given(node)
        return self.given(node if node in self.same_on_c else self.ctx.choice(node))

    def cause(self, gate: Feature) -> Node:
        """Where *gate*, its entry differing between the sides, is a cause on this side (read on
        the config of choice): where it is active, or, for a runner's candidacy, where it does
        not hold (the runner is passed over). The search asks for regions of causes
        (`Search._changed`) and a finding names them (`matrix._diff_changes._Changes.causes`) by this."""
        return self.on_c(Not(gate.when.node) if _candidacy(gate) else gate.when.node)

    def own(self, runner: Optional[str]) -> bool:
        """Whether *runner* has adjustments of its own in force (it is validated on its F)."""
        return runner is not None and self.exact and bool(self.plan.adjustments.get(runner))

    def on_f(self, runner: str, node: Node) -> Node:
        """*node* read on *runner*'s effective config F."""
        return self.given(self.ctx.served(runner, node) if self.exact else node)

    def validated(self, runner: str, asked: bool, redirected: bool = False) -> List[Node]:
        """The conditions of the gates that refuse *runner* once it is chosen, read on its F: those
        it says no to for a request (and in automatic choice, *redirected* to it by a redirect that
        applies always: those in force there), those that block it in automatic choice
        (`matrix._choice.serve`)."""
        plan = self.plan
        choice = self.asked if asked else self.automatic
        mask = plan.no[runner] if asked or redirected else plan.blocking[runner]
        return list(dict.fromkeys(self.on_f(runner, f.when.node) for f in plan.active(mask)
                                  if f.id not in choice.dead))

    def removed(self, asked: bool) -> List[Node]:
        """The conditions of the removed gates in force in one mode of choice."""
        choice = self.asked if asked else self.automatic
        return choice._nodes(self.plan.removed)

    def automatic_rules(self) -> Iterator[Tuple[Rule, Tuple[Term, ...], Outcome]]:
        """Each rule of automatic choice (removal left out: asked separately), with the literals
        that split it by the warning it gives, and what it answers."""
        plan = self.plan
        for step in self.automatic.steps:
            if step.kind == "prefer":
                yield step, (), ("served", step.runner, preferred_by(step.gate_of(plan).name), ())
            elif step.kind == "order":
                assert step.runner is not None
                tried = [r for r, _ in next((rs for bit, _, rs in plan.orders if bit == step.gate), plan.order)]
                earlier = tried[: tried.index(step.runner)]
                if not earlier:
                    yield step, (), ("served", step.runner, "", ())
                elif any(not plan.candidate.get(r) for r in earlier):
                    yield step, (), ("served", step.runner, "fallback", ())
                else:  # a fallback when a runner before it is a candidate (and not free)
                    bits = sum(plan.candidate[r] for r in earlier)
                    yield step, ((bits, True),), ("served", step.runner, "fallback", ())
                    yield step, ((bits, False),), ("served", step.runner, "", ())
            elif step.kind == "redirect":
                # A redirect that applies always sends the choice to its runner, validated as a
                # runner asked for (`matrix._choice`): served where no gate it says no to is
                # active (on its F where it has adjustments of its own: `on_its_f`), else refused.
                assert step.runner is not None
                no = plan.no[step.runner]
                if no and not self.own(step.runner):
                    yield step, ((no, False),), ("served", step.runner, "redirected", ())
                    yield step, ((no, True),), ("refused", None, "no-runner", ())
                else:
                    yield step, (), ("served", step.runner, "redirected", ())
            else:
                yield step, (), ("refused", None, "no-runner", ())

    def requested_rules(self, runner: str) -> Iterator[Tuple[Rule, Tuple[Term, ...], Outcome]]:
        """The decision list of a request for *runner* (`matrix._choice.requested`): the first
        redirect of *runner* whose gate is active makes it a request for the redirect's runner;
        then a forcing gate that does not override refuses it; else the last overriding gate
        active chooses its runner; the runner chosen serves unless a gate it says no to is
        active."""
        runner = self.local(runner) or runner
        rules: List[Tuple[Rule, Outcome]] = []
        earlier = 0
        for bit, redirect in self.plan.redirects.get(runner, ()):
            case: Tuple[Term, ...] = ((bit, True),) + (((earlier, False),) if earlier else ())
            rules += self._target_rules(redirect.to, case, "redirected", (("redirected", redirect.to),))
            earlier |= bit
        rules += self._target_rules(runner, ((earlier, False),) if earlier else (), "")
        self.asked.steps = [rule for rule, _ in rules]
        for rule, outcome in rules:
            yield rule, (), outcome

    def _target_rules(self, runner: str, case: Tuple[Term, ...], note: str, path: Way = ()
                      ) -> List[Tuple[Rule, Outcome]]:
        """The rules of a request made one for *runner* where *case* holds (*note*: how it was
        made so, said by the answers it serves; *path*: the way it went, said by its refusals)."""
        plan = self.plan
        forcing = [(1 << self.bit(f), f) for f in plan.active(plan.forcing)
                   if f.forces is not None and f.forces.runner != runner]
        rules: List[Tuple[Rule, Outcome]] = []
        refusing = sum(bit for bit, f in forcing if f.forces is not None and not f.forces.override)
        if refusing:
            rules.append((Rule("forced", None, (*case, (refusing, True))), ("refused", None, "forced", path)))
        overriding = [(bit, f) for bit, f in forcing if f.forces is not None and f.forces.override]
        later = 0
        served = note
        for bit, feature in reversed(overriding):
            assert feature.forces is not None
            chosen = feature.forces.runner
            when: Tuple[Term, ...] = (*case, (bit, True)) + (((later, False),) if later else ())
            no = ((plan.no[chosen], False),) if plan.no[chosen] and not self.own(chosen) else ()
            said = ", ".join(n for n in ("override", note) if n)
            overridden = (*path, ("overridden", chosen))
            rules.append((Rule("override", chosen, when + no, bit), ("served", chosen, said, overridden)))
            rules.append((Rule("override-blocked", None, when, bit), ("refused", None, "blocked", overridden)))
            later |= bit
        # A runner validated on its F is refused there (`Search.pairs` splits its rule), not on C.
        no = ((plan.no[runner], False),) if plan.no[runner] and not self.own(runner) else ()
        rules.append((Rule("asked", runner, case + no), ("served", runner, served, path)))
        rules.append((Rule("asked-blocked", None, case), ("refused", None, "blocked", path)))
        return rules

    def on_its_f(self, question: Dict[str, Any], outcome: Outcome, asked: bool
                 ) -> List[Tuple[Dict[str, Any], Outcome]]:
        """A rule's question as the runner it chooses is validated (`matrix._choice.serve`): for a
        runner with adjustments of its own, served where no gate that refuses it holds on its F,
        refused where one does; then, with roles, refused where a role other than the base
        refuses the config (`role_refusing`: ``why`` is ``"role"``); else the question as it is."""
        runner = outcome[1]
        if outcome[0] != "served":
            return [(question, outcome)]
        assert runner is not None
        refusing = self.validated(runner, asked, redirected=outcome[2] == "redirected") if self.own(runner) else []
        in_role = self.role_refusing(runner)
        if not refusing and not in_role:
            return [(question, outcome)]
        out: List[Tuple[Dict[str, Any], Outcome]] = [
            ({**question, "false": [*question["false"], *refusing, *in_role]}, outcome)]
        if refusing:
            out.append(({**question, "extra": [*question["extra"], ("any", refusing)]},
                        ("refused", None, "blocked" if asked else "adjusted", outcome[3])))
        if in_role:
            out.append(({**question, "false": [*question["false"], *refusing],
                         "extra": [*question["extra"], ("any", in_role)]}, ("refused", None, ROLE_REFUSAL, outcome[3])))
        return out

    def role_refusing(self, runner: str) -> List[Node]:
        """Where a role other than the base refuses the config once *runner* serves the base
        (`matrix._roles.others`), each over the config as given (read on *runner*'s F): its field
        names a runner (an id or a former id) that a gate in force for a request refuses (but a
        requirement of other roles only), or that fails a requirement naming the role; or its
        field is None and the runner it follows into it fails a requirement naming the role.
        Empty without roles."""
        return [node for _, node in self.role_parts(runner)]

    def role_parts(self, runner: str) -> List[Tuple[Tuple[str, str], Node]]:
        """`role_refusing`, each part with the role it refuses in and the runner that fills it
        there (this side's id): where that runner, named in the role or followed into it, refuses
        the config (a cause where the rules of that role and runner differ between the sides:
        `matrix._diff_role_rules`)."""
        found = self._role_refusing.get(runner)
        if found is None:
            found = self._role_refusing[runner] = self._roles_refuse(runner)
        return found

    def _roles_refuse(self, runner: str) -> List[Tuple[Tuple[str, str], Node]]:
        from . import _roles
        from ._nodes import Compare

        matrix, plan = self.matrix, self.plan
        if len(matrix.roles) < 2:
            return []
        filling = _roles.Filling(matrix, runner)
        out: List[Tuple[Tuple[str, str], Node]] = []
        for role in matrix.roles[1:]:
            field = Path(role.field)
            for choice in matrix.schema.fields[role.field].choices or ():
                named = _choice.named(matrix, choice)
                if named in plan.no:
                    out.append(((role.id, named), conjoin([Compare(field, "==", Literal(choice)),
                                                           disjoin(self._refused_in(named, role.id, True, filling))])))
            if role.follows is None:
                continue
            for case, followed in filling.cases(ROLE + role.follows):
                into = followed.value if isinstance(followed, Literal) else None
                if isinstance(into, str) and into in plan.no:
                    out.append(((role.id, into), conjoin([IsNone(field, False), case,
                                                          disjoin(self._refused_in(into, role.id, False, filling))])))
        return [(key, self.on_f(runner, node)) for key, node in out if constant(node) is not False]

    def _refused_in(self, runner: str, role: str, named: bool, filling: Any) -> List[Node]:
        """The conditions, on F, under which *runner* filling *role* refuses the config: named
        there, every gate it says no to in a request (`matrix._roles._validated`); named or
        followed, every requirement of it that names *role* (a gate, or a clause of
        `Runner.role_requires` that fails)."""
        plan, dead = self.plan, self.asked.dead
        gates = [f for f in plan.features if f.id not in dead and isinstance(f.origin, Requirement)
                 and f.origin.runner == runner and role in f.origin.roles]
        if named:
            gates += [f for f in plan.active(plan.no[runner] | plan.required) if f.id not in dead and not (
                isinstance(f.origin, Requirement) and f.origin.runner == runner and f.origin.roles
                and role not in f.origin.roles)]
        out = [f.when.node for f in dict.fromkeys(gates)]
        out += [negate(filling(clause.condition.node)) for clause in self.matrix.runner(runner).role_requires
                if role in clause.roles]
        return out

    def gate(self, feature_id: str) -> Optional[Feature]:
        """The first gate of *feature_id* (a runner's requirement, ``RUNNER:KIND…``, by the new
        side's id of its runner: a runner renamed with an alias keeps its requirements, a user
        trial found them said added and lifted where their reason was reworded beside it)."""
        found = self._gates.get(feature_id)
        if found is None and ":" in feature_id:
            runner, rest = feature_id.split(":", 1)
            if runner in self.local_ids:
                found = self._gates.get(f"{self.local_ids[runner]}:{rest}")
        return found

    def new_id(self, feature_id: str) -> str:
        """*feature_id* as the new side knows it (a requirement of a runner renamed: `gate`)."""
        runner, _, rest = feature_id.partition(":")
        return f"{self.ids[runner]}:{rest}" if rest and runner in self.ids else feature_id

    def bit(self, gate: Feature) -> int:
        """The index of *gate* in the plan's gates."""
        found = self._bits.get(id(gate))
        return self.plan.features.index(gate) if found is None else found


class Search:
    """The questions of one diff, over one space; regions found, and what was not decided."""

    def __init__(self, old: Side, new: Side, budget: int) -> None:
        self.old, self.new = old, new
        #: The runners of the old side renamed on the new one (old id → new id).
        self.renamed = old.ids = renamed_runners(old.matrix, new.matrix)
        old.local_ids = {after: before for before, after in self.renamed.items()}
        nodes = [g.when.node for side in (old, new) for g in side.plan.features]
        nodes += [n for side in (old, new) if side.exact for n in side.ctx.nodes]
        # With roles: where no role's field names a runner (automatic choice: the base's; a
        # witness: every other's, `unnamed_roles`), read whether or not a gate reads the field.
        nodes += [n for side in (old, new) for n in side.unasked]
        #: Where the choice is automatic on both sides (`Side.unasked`): a question of automatic
        #: choice holds there.
        self.unasked: List[Node] = list(dict.fromkeys(n for side in (old, new) for n in side.unasked))
        nodes += [IsNone(Path(f), False) for f in _role_fields(old, new)]
        # Where a role other than the base refuses the config, once each runner serves the base.
        nodes += [n for side in (old, new) for r in side.plan.no for n in side.role_refusing(r)]
        #: The fields whose default differs between the sides (`unset_defaults`).
        self.unset: Tuple[str, ...] = tuple(dict.fromkeys([*old.defaults, *new.defaults]))
        if self.unset:  # each side's conditions read through its defaults, and where a field is left out
            nodes += [side.given(n) for n in list(nodes) for side in (old, new)]
            nodes += listed_items(nodes)
            nodes += [Path(unset_path(p)) for p in self.unset]
        self.effective = effective_questions(old, new)
        nodes += [n for _, _, by_runner, _ in self.effective for options in by_runner.values() for n in options]
        self.undecided: List[str] = []
        self.said = said_questions(old, new, self.undecided)
        nodes += [n for _, _, by_runner in self.said for options in by_runner.values() for n in options]
        self.space = Space(union_schema(old.matrix.schema, new.matrix.schema, self.unset,
                                        required_fields(old.plan, new.plan)), nodes, budget=budget)
        self._nodes = nodes  # the constants each path is compared with, when asked (`read_alike`)
        self.split = Split(self.space)
        for side in (old, new):
            self._same_on_c(side)
        self.shared = shared_runners(old, new)
        self._apart: Dict[bool, List[Node]] = {}  # `_causes_apart`, by whether a request is asked
        self.changed = self._changed()

    def _changed(self) -> Optional[Tuple[str, List[Node]]]:
        """"Some gate whose entry differs is active on its side": where none is, both sides
        read the same mask of the same gates, so they answer alike when they order the runners
        alike (None when they do not: every config is asked about)."""
        old, new = self.old, self.new
        if [self.renamed.get(r, r) for r, _ in old.plan.order] != [r for r, _ in new.plan.order]:
            return None
        before, after = _rules_in_order(old.plan), _rules_in_order(new.plan)
        if [r for r in before if r in after] != [r for r in after if r in before]:
            return None  # preferences, forces and orders are read in declaration order
        nodes = self._causes()
        return None if nodes is None else ("any", nodes)

    def _causes(self) -> Optional[List[Node]]:
        """Where each entry that differs between the sides is a cause, as conditions (`_changed`);
        None where that cannot be said (`adjusted`)."""
        old, new = self.old, self.new
        nodes: List[Node] = []
        if old.exact and new.exact and adjusting(old) != adjusting(new):
            # The config of choice (or a runner's F) differs where an adjustment that differs
            # changes a value on its side: those configs are asked about too.
            found = self.adjusted()
            if found is None:
                return None
            nodes += [node for _, _, node in found]
        # A config that leaves out a field whose default differs reads another value on each side.
        nodes += [Path(unset_path(p)) for p in self.unset]
        # Where a role other than the base refuses by rules that differ (no gate: a requirement
        # limited to such roles, a role's declaration).
        nodes += [cause.node for cause in self.role_causes()]
        for this, other in ((old, new), (new, old)):
            for gate in this.plan.features:
                if signature(this, gate, self.shared) != signature(other, other.gate(gate.id), self.shared):
                    # A candidacy decides where it does not hold (the runner is passed over), the
                    # other side having none or another: a runner's candidacy is always one of them.
                    nodes.append(this.cause(gate))
                    # A gate that refuses a runner validated on its F holds there, not on C.
                    nodes += [this.on_f(r.id, gate.when.node) for r in this.matrix.runners
                              if this.own(r.id) and not _candidacy(gate)]
        return nodes

    def role_causes(self) -> List[Any]:
        """The causes of a role's refusal that are no gate (`matrix._diff_role_rules.causes`), asked once."""
        if not hasattr(self, "_role_causes"):
            from . import _diff_role_rules

            self._role_causes: List[Any] = _diff_role_rules.causes(self)
        return self._role_causes

    def _causes_apart(self, asked: bool) -> List[Node]:
        """Where the sides order the runners differently (`_changed` None: every config asked
        about), the conditions a finding names as its causes: each entry that differs
        (`_causes`), and, for automatic choice, each gate that blocks a runner only one side has
        (passed over there: `matrix._diff_changes._Changes.blocking_one_sided`). A region is asked per set
        of those that hold (`_regions`), so that none names a cause that holds for only part of
        its configs, nor loses the configs where another holds."""
        cached = self._apart.get(asked)
        if cached is not None:
            return cached
        nodes = list(self._causes() or [])
        if not asked:
            for side in (self.old, self.new):
                for runner in side.matrix.runners:
                    if side.ids.get(runner.id, runner.id) in self.shared:
                        continue
                    blocks = blocking(side.ids.get(runner.id, runner.id))
                    nodes += [side.on_c(g.when.node) for g in side.plan.features if blocks(side, g)]
        self._apart[asked] = list(dict.fromkeys(nodes))  # asked once for automatic choice, once for requests
        return self._apart[asked]

    def _same_on_c(self, side: Side) -> None:
        """Each gate condition of *side* whose reading on C holds for exactly the same configs
        (neither holds without the other, within the budget) is read as written."""
        if not side.exact or not side.plan.pre_adjustments:
            return
        for gate in side.plan.features:
            node = gate.when.node
            rewritten = side.ctx.choice(node)
            if rewritten == node or node in side.same_on_c:
                continue
            try:
                if all(self.split.solve(true=[a], false=[b]) is None for a, b in ((node, rewritten), (rewritten, node))):
                    side.same_on_c.add(node)
            except Inconclusive:
                continue

    def adjusted(self) -> Optional[List[Tuple[Side, Any, Node]]]:
        """Each adjustment that differs between the sides (added, removed or changed, before the
        choice or a runner's own), with where it changes a value on its side, read on the config
        as given; None where that cannot be said (a list value, or the adjustments both sides have
        applied in another order)."""
        if hasattr(self, "_adjusted"):
            return self._adjusted
        old, new = self.old, self.new
        runners = list(dict.fromkeys(r for side in (old, new) for r, own in side.plan.adjustments.items() if own))
        found = [self._adjusted_in(runner) for runner in [None, *runners]]
        out = None if any(f is None for f in found) else [one for f in found if f is not None for one in f]
        self._adjusted: Optional[List[Tuple[Side, Any, Node]]] = out
        return out

    def changing(self) -> List[Tuple[Side, Any, Node]]:
        """`adjusted`, one entry per adjustment id: where it changes a value on either side, with
        the side it stands on now (the new one where it has it)."""
        if not hasattr(self, "_changing"):
            by_id: Dict[str, Tuple[Side, Any, List[Node]]] = {}
            for side, a, node in self.adjusted() or []:
                known = by_id.get(a.id)
                if known is None:
                    by_id[a.id] = (side, a, [node])
                else:
                    standing = (side, a) if side is self.new else known[:2]
                    by_id[a.id] = (*standing, [*known[2], node])
            self._changing: List[Tuple[Side, Any, Node]] = [(s, a, disjoin(n)) for s, a, n in by_id.values()]
        return self._changing

    def value_cases(self, side: Side, asked: Optional[str] = None) -> List[Tuple[Dict[str, Any], Optional[str], str]]:
        """The configs of each rule of automatic choice (with *asked*, of a request for that
        runner), with the runner whose effective config the resolution ends on (None: the config
        of choice C) and how it answers (``""`` served, ``"refused"``, or ``"removed"``: refused
        for a removed feature): the runner it chooses (served, or refused where its F fails it),
        the runner forced where no runner is free (`matrix._choice.forced`: automatic choice
        only), none for a removal or where no runner is free and none is forced (a request
        refused before a runner is chosen: one that a feature forced elsewhere refuses, or whose
        runner a gate blocks on C)."""
        if asked is not None:
            return self._asked_cases(side, asked)
        plan = side.plan

        def forcing(step: Rule) -> List[Tuple[List[Node], Optional[str]]]:
            """Where no runner of the order that applies is free (a ``none`` step: an order
            without fallback that refuses its first candidate ends on that runner, and applies no
            adjustment), the first runner an active feature forces that the order tries and is a
            candidate (`matrix._choice.forced`): its adjustments apply."""
            if step.kind != "none":
                return []
            tried = {r for r, _ in next((rs for bit, _, rs in plan.orders if bit == step.gate), plan.order)}
            out: List[Tuple[List[Node], Optional[str]]] = []
            for f in plan.active(plan.forcing):
                if f.forces is None or f.id in side.automatic.dead or f.forces.runner not in tried:
                    continue
                runner = f.forces.runner
                bit = plan.candidate.get(runner)
                holds = [side.on_c(f.when.node)] + [side.on_c(g.when.node) for g in plan.active(bit or 0)]
                out.append((holds, runner if side.own(runner) else None))
            return out

        cases: List[Tuple[Dict[str, Any], Optional[str], str]] = []
        removed = side.removed(False)
        if removed:
            cases.append(({"true": list(side.unasked), "false": [], "extra": [("any", removed)]}, None, "removed"))
        for step, split, outcome in side.automatic_rules():
            question = self._decides(side.automatic, step, split)
            if question is None:
                continue
            question["false"] += removed
            if outcome[0] == "served":  # validated on its F: served, or refused there
                cases += [(q, outcome[1], "refused" if said[0] == "refused" else "")
                          for q, said in side.on_its_f(question, outcome, False)]
                continue
            earlier: List[Tuple[str, List[Node]]] = []
            for holds, forced in forcing(step):
                cases.append(({**question, "true": [*question["true"], *holds],
                               "extra": [*question["extra"], *earlier]}, forced, "refused"))
                earlier.append(("any", [Not(node) for node in holds]))
            cases.append(({**question, "extra": [*question["extra"], *earlier]}, None, "refused"))
        return cases

    def _asked_cases(self, side: Side, asked: str) -> List[Tuple[Dict[str, Any], Optional[str], str]]:
        """`value_cases` of a request for *asked* (`Side.requested_rules`, each runner chosen
        validated on its F: served there, or refused with its adjustments applied)."""
        cases: List[Tuple[Dict[str, Any], Optional[str], str]] = []
        removed = side.removed(True)
        if removed:
            cases.append(({"true": [], "false": [], "extra": [("any", removed)]}, None, "removed"))
        for step, split, outcome in list(side.requested_rules(asked)):
            question = self._decides(side.asked, step, split)
            if question is None:
                continue
            question["false"] += removed
            if outcome[0] == "served":
                cases += [(q, outcome[1], "refused" if said[0] == "refused" else "")
                          for q, said in side.on_its_f(question, outcome, True)]
            else:
                cases.append((question, None, "refused"))
        return cases

    def cases(self, side: Side, asked: Optional[str] = None) -> List[Tuple[Dict[str, Any], Optional[str], str]]:
        """`value_cases` of *side* (of a request for *asked*), asked once."""
        if not hasattr(self, "_cases"):
            self._cases: Dict[Tuple[str, Optional[str]], List[Tuple[Dict[str, Any], Optional[str], str]]] = {}
        if (side.name, asked) not in self._cases:
            self._cases[side.name, asked] = self.value_cases(side, asked)
        return self._cases[side.name, asked]

    def ending(self, side: Side, apart: Container[str], asked: Optional[str] = None
               ) -> List[Tuple[Optional[str], List[Goal]]]:
        """Where *side*'s resolution ends on each effective config that matters, as conditions over
        the config as given (``(node, holds)`` pairs, the configs of one case): on the F of a
        runner of *apart* (one case per rule that ends there), or elsewhere (None: on C, or on
        a runner's F that reads alike), which is every config but those."""
        own: List[Tuple[Optional[str], List[Goal]]] = []
        for question, runner, _ in self.cases(side, asked):
            if runner is not None and side.own(runner) and runner in apart:
                own.append((runner, _goals(question)))
        elsewhere = [(disjoin([conjoin([n if w else negate(n) for n, w in goals]) for _, goals in own]), False)] \
            if own else []
        return [(None, elsewhere), *own]

    def exact_regions(self, by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]],
                      asked: Optional[str] = None, more: Sequence[Goal] = ()) -> List[List[Goal]]:
        """The configs (as given) where what *by_runner*'s options say differs does differ: for each
        pair of effective configs the two resolutions end on (`ending`), those cases with each
        option of that pair; those that no config meets left out. The options of a pair of
        runners hold where the resolutions end on those runners' F: read elsewhere, they may hold
        where nothing differs. *more*: conditions every config of them meets too."""
        out: List[List[Goal]] = []
        for goals, _ in self._cases_of(by_runner, asked, more=more):
            if self._solve(_question_of(goals), "where the configs of a change of effective values lie") is not None:
                out.append(goals)
        return out

    def read_alike(self, goals: List[List[Goal]], path: str, value: object) -> bool:
        """Whether every config of the region *goals* (`exact_regions`) reads *value* at *path* as
        given, known exactly: *value* is a constant the search splits *path* at (a bool, a choice,
        None, or a literal the conditions compare it with)."""
        from ._nodes import Compare, IsNone

        if not hasattr(self, "_constants"):
            from ._space import compared_constants

            self._constants = compared_constants(self._nodes)
        field = self.space.schema.get(path)
        exact = value is None or field is not None and (field.type == "bool" or field.choices is not None) \
            or any(type(c) is type(value) and c == value for c in self._constants.get(path, ()))
        if not exact or not goals:
            return False
        node = IsNone(Path(path), False) if value is None else Compare(Path(path), "==", Literal(value))
        whole = [conjoin([n if w else negate(n) for n, w in g]) for g in goals]
        try:
            return self.split.solve(true=[], false=[node], extra=[("any", whole)]) is None
        except Inconclusive:
            return False

    def reading(self, by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]],
                read_as: Dict[Tuple[Optional[str], Optional[str]], List[Tuple[Node, Node]]],
                asked: Optional[str], config: Dict[str, Any]) -> Optional[Tuple[Node, Node]]:
        """The terms (old side's, new side's) *config* reads its effective value as, where the
        resolutions end (`exact_regions`'s cases, read at *config*); None where no option holds."""
        for goals, terms in self._cases_of(by_runner, asked, read_as):
            if all(self.holds(n, config) == w for n, w in goals):
                return terms
        return None

    def _cases_of(self, by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]], asked: Optional[str],
                  read_as: Optional[Dict[Tuple[Optional[str], Optional[str]], List[Tuple[Node, Node]]]] = None,
                  more: Sequence[Goal] = ()) -> Iterator[Tuple[List[Goal], Optional[Tuple[Node, Node]]]]:
        """For each pair of effective configs the two resolutions end on (`ending`), those cases with
        each option of that pair (and its terms, from *read_as*), unsolved."""
        own = [[r.id for r in side.matrix.runners if side.own(r.id)] for side in (self.old, self.new)]
        if asked is None:  # automatic choice: where no base role's field names a runner (a request)
            more = [*more, *((n, True) for n in self.unasked)]

        def options(a: Optional[str], b: Optional[str]) -> List[Node]:
            return by_runner.get((a, b)) or []

        # A runner whose pairs have the options of C's (its own adjustments leave what they read
        # alone) is read as C: only the others need the configs that end on their F.
        apart = [{a for a in own[0] if any(options(a, b) != options(None, b) for b in [None, *own[1]])},
                 {b for b in own[1] if any(options(a, b) != options(a, None) for a in [None, *own[0]])}]
        for a_runner, a_goals in self.ending(self.old, apart[0], asked):
            for b_runner, b_goals in self.ending(self.new, apart[1], asked):
                terms = (read_as or {}).get((a_runner, b_runner))
                seen: Set[Node] = set()
                for index, option in enumerate(options(a_runner, b_runner)):
                    if option in seen:  # each said apart, as the search has it
                        continue
                    seen.add(option)
                    # What *more* says first: dropped where the rest implies it (`fewest_conjuncts`).
                    yield [*more, *a_goals, *b_goals, (option, True)], None if terms is None else terms[index]

    def effective_region(self, path: str, by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]],
                         what: Optional[str] = None, asked: Optional[str] = None,
                         extra: Sequence[Tuple[str, List[Node]]] = ()) -> Optional[Assignment]:
        """A config whose effective value of *path* differs (*what*: whatever *by_runner*'s
        options say differs), the same runner (or none) chosen on both sides, or refused on both
        (where the answer changes, that change says it)."""
        def served_first(cases: List[Tuple[Dict[str, Any], Optional[str], str]]) -> List[Any]:
            return sorted(cases, key=lambda case: case[2] != "")  # a witness served on both sides, where there is one

        for a_question, a_runner, a_answer in served_first(self.cases(self.old, asked)):
            for b_question, b_runner, b_answer in served_first(self.cases(self.new, asked)):
                # Refused for a removal on one side only: that removal's finding says the change.
                same = (a_answer == "removed") == (b_answer == "removed") and \
                    (self.renamed.get(a_runner, a_runner) == b_runner or bool(a_answer) and bool(b_answer))
                options = by_runner.get((a_runner, b_runner)) if same else None
                if not options:
                    continue
                question = {key: a_question[key] + b_question[key] for key in ("true", "false", "extra")}
                question["extra"] = [*question["extra"], ("any", options), *extra]
                found = self._solve(question, what or f"where the effective value of {path} changes")
                if found is not None:
                    return found
        return None

    def _adjusted_in(self, runner: Optional[str]) -> Optional[List[Tuple[Side, Any, Node]]]:
        """`adjusted` for one list of adjustments: those before the choice (*runner* None) or a
        runner's own."""
        def listed(side: Side) -> Sequence[Any]:
            return side.plan.pre_adjustments if runner is None else side.plan.adjustments.get(runner, ())

        mine, theirs = list(listed(self.old)), list(listed(self.new))
        shared = [a.id for a in mine if a.id in {b.id for b in theirs}]
        if shared != [b.id for b in theirs if b.id in {a.id for a in mine}]:
            return None
        out: List[Tuple[Side, Any, Node]] = []
        for this, these, those in ((self.old, mine, theirs), (self.new, theirs, mine)):
            by_id = {a.id: a for a in those}
            for index, a in enumerate(these):
                there = by_id.get(a.id)
                if there is not None and adjusting_one(there) == adjusting_one(a):
                    continue
                node = this.ctx.pre.changes(index) if runner is None else this.ctx.own[runner].changes(index)
                if node is None:
                    return None
                out.append((this, a, this.given(node if runner is None else this.ctx.choice(node))))
        return out

    def unnamed_roles(self, region: Region) -> Assignment:
        """An assignment of *region*'s question where no role but the base names a runner (its
        field None: it follows), where one exists, else the region's own: the diff does not
        compare the runners of other roles, and a witness that names one may be refused there
        for that runner alone (a user trial: ``"inter_backend": "nccl"`` on a CPU)."""
        fields = _role_fields(self.old, self.new)
        if not fields:
            return region.assignment
        try:
            found = self.split.solve(true=[*region.true, *(IsNone(Path(f), False) for f in fields)],
                                     false=list(region.false), extra=[("any", list(g)) for g in region.groups])
        except Inconclusive:
            return region.assignment
        return region.assignment if found is None else found

    def witness(self, assignment: Assignment, avoid: Sequence[Node] = ()) -> Dict[str, Any]:
        """The config of *assignment* (`Space.witness`) as a user writes it: each field it leaves
        out (its `unset_path` true) without a value, and no `unset_path` of its own."""
        config = self.space.witness(assignment, avoid)
        for path in self.unset:
            name = unset_path(path)
            out = config.pop(name, None)
            parts = path.split(".")
            table: Any = config
            for part in parts[:-1]:
                table = table.get(part) if isinstance(table, dict) else None
            if not isinstance(table, dict):
                continue
            if out is True:
                table.pop(parts[-1], None)
            elif out is False and parts[-1] not in table:
                # Set (the search read it so), whatever its value: the first the space has for it.
                values = [v for v in self.space.domains.get(path, ()) if v is not None] or \
                    [v for v in self.space.domains.get(path, ())]
                if values:
                    from ._space import json_value

                    table[parts[-1]] = json_value(values[0])
        return config

    def words_as_at(self, witness: Dict[str, Any], speaking: Sequence[Tuple[Side, Any]]
                    ) -> Optional[Tuple[Node, List[Tuple[str, Node]]]]:
        """Where each adjustment of *speaking* (one per side that speaks at *witness*) reads each
        path that fills its words (`word_paths`) as the term it reads at *witness* (a value an
        adjustment before it sets, the same value; the config's own value or a field it copies,
        the same field: `pinned`'s rule), and each word path read so with its term (its words
        vary with that field: `words_vary`). None where no term holds at *witness*."""
        held: List[Node] = []
        read: List[Tuple[str, Node]] = []
        for side, adjustment in speaking:
            own = next((r for r, own in side.plan.adjustments.items() if adjustment in own), None)
            for path in word_paths(adjustment):
                terms = value_terms(side, own, path, adjustment)
                term = next((t for c, t in terms if self.holds(c, witness)), None)
                if term is None:
                    return None
                if any(not _same_term(t, term) for _, t in terms):  # read otherwise elsewhere
                    held.append(disjoin([c for c, t in terms if _same_term(t, term)]))
                if not isinstance(term, Literal):
                    read.append((path, term))
        return conjoin(held), read

    def _value_at(self, term: Node, witness: Dict[str, Any]) -> object:
        """The value of the field *term* reads at *witness*, among those the search tries."""
        from ._check_adjust import _differ

        if not isinstance(term, Path):
            return _NO_VALUE
        return next((v for v in self.space.domains.get(term.name, ())
                     if self.holds(negate(_differ(term, Literal(v))), witness)), _NO_VALUE)

    def words_vary(self, goals: List[List[Goal]], witness: Dict[str, Any], read: Sequence[Tuple[str, Node]]
                   ) -> List[str]:
        """The word paths of *read* (`words_as_at`) whose field does not hold the witness's value
        at every config of the region *goals*, as far as the search knows (`read_alike`)."""
        out = []
        for path, term in read:
            if not isinstance(term, Path):
                out.append(path)  # a product of a field (`times`): not weighed
                continue
            value = self._value_at(term, witness)
            if value is _NO_VALUE or not self.read_alike(goals, term.name, value):
                out.append(path)
        return out

    def holds(self, node: Node, config: Any) -> bool:
        """Whether *node* (a condition of the search) holds for *config* as given."""
        from ._check_adjust import holds

        return holds(node, with_unset(config, [unset_path(p) for p in self.unset], self.space.schema), self.space.schema)

    def unset_at(self, assignment: Assignment) -> List[str]:
        """The fields whose default differs that *assignment* leaves out."""
        return [p for p in self.unset if self.space.truth(unset_guard(p, self.space.schema), assignment) is True]

    def _solve(self, question: Dict[str, Any], what: str) -> Optional[Assignment]:
        try:
            return self.split.solve(**question)
        except Inconclusive as error:
            self.undecided.append(_undecided(error, self.space.budget, what))
            return None

    def _goals(self, choice: _Choice, literals: Sequence[Term]) -> Optional[Tuple[List[Node], List[Node]]]:
        return choice.goals(literals) if literals else ([], [])

    def _decides(self, choice: _Choice, step: Rule, split: Tuple[Term, ...]) -> Optional[Dict[str, Any]]:
        side = next(s for s in (self.old, self.new) if choice in (s.automatic, s.asked))
        question = choice.fires(step, passed=lambda before: False,
                                true=side.unasked if choice is side.automatic else ())
        extra = self._goals(choice, split)
        if question is None or extra is None:
            return None
        question["true"] += extra[0]
        question["false"] += extra[1]
        return question

    def pairs(self, runner: Optional[str]) -> Iterator[Region]:
        """Regions where the rules deciding on the two sides answer differently (automatic
        choice, or a request for *runner*); configs refused for a removal on either side are left
        to `removals`."""
        asked = runner is not None
        sides = []
        for side in (self.old, self.new):
            if asked and side.local(runner) not in side.plan.no:
                return  # a runner one side lacks: said by the runner changes
            choice = side.asked if asked else side.automatic
            rules = list(side.requested_rules(runner) if runner is not None else side.automatic_rules())
            live = self._live(side, choice, rules, asked, runner)
            if not asked:
                live += self._named_by_base(side)
            sides.append(live)
        old_live, new_live = sides
        apart = self._causes_apart(asked) if self.changed is None else ()
        for a_step, a_choice, a_out, a_q in old_live:
            for b_step, b_choice, b_out, b_q in new_live:
                if _same(self._by_new_ids(a_out), b_out):
                    continue
                question = {key: a_q[key] + b_q[key] for key in ("true", "false", "extra")}
                # "Some gate whose entry differs is active" is asked below, cause by cause.
                question["extra"] = [group for group in question["extra"] if group is not self.changed]
                sides_steps = (("old", a_choice, a_step), ("new", b_choice, b_step))
                gates = tuple((s, f.id) for s, choice, step in sides_steps for f in _bound(choice, step))
                for found, exact in self._regions(question, f"whether {_what(runner)} goes from {_said(a_out)} to "
                                                            f"{_said(b_out)} for any config", apart):
                    excluded = tuple((s, f.id) for s, choice, step in sides_steps for f in _bound(choice, step, False)
                                     if self.space.truth(f.when.node, found) is False)
                    yield Region("asked" if asked else "automatic", runner, a_out, b_out, found, gates,
                                 excluded=excluded, **_question(exact))

    def _live(self, side: Side, choice: _Choice, rules: Sequence[Tuple[Rule, Tuple[Term, ...], Outcome]], asked: bool,
              runner: Optional[str], true: Sequence[Node] = ()) -> List[Tuple[Rule, _Choice, Outcome, Dict[str, Any]]]:
        """The questions of *rules* (of *choice*, automatic or a request for *runner*) that some
        config meets, each rule's runner validated on its F (`Side.on_its_f`), no removal refusing
        first, where some cause holds (`_changed`); *true*: conditions each holds where besides."""
        live = []
        for step, split, outcome in rules:
            question = self._decides(choice, step, split)
            if question is None:
                continue
            question["true"] += list(true)
            question["false"] += side.removed(asked)
            if self.changed is not None:
                question["extra"].append(self.changed)
            for variant, answer in side.on_its_f(question, outcome, asked):
                if self._solve(variant, "where " + _what(runner)) is not None:
                    live.append((step, choice, answer, variant))
        return live

    def _named_by_base(self, side: Side) -> List[Tuple[Rule, _Choice, Outcome, Dict[str, Any]]]:
        """Where the base role's field is None as given but *side*'s adjustments before the choice
        name a runner in it (`matrix._roles.of_choice`), a config is a request for that runner
        there: automatic choice (``resolve(config)``) answers as that request's rules do, each
        held where the field on the config of choice names it (a known wrong answer: such a
        config going A → B was said by no finding)."""
        from ._nodes import Compare

        roles = side.matrix.roles
        if not roles or not any(roles[0].field in a.set for a in side.plan.pre_adjustments):
            return []
        field = Path(roles[0].field)
        live = []
        for value in side.matrix.schema.fields[roles[0].field].choices or ():
            named = _choice.named(side.matrix, value)
            if named not in side.plan.no:
                continue
            rules = list(side.requested_rules(side.ids.get(named, named)))
            live += self._live(side, side.asked, rules, True, None,
                               [side.given(IsNone(field, False)), side.on_c(Compare(field, "==", Literal(value)))])
        return live

    def one_sided(self, side: Side, runner: str) -> Iterator[Region]:
        """The configs a request for *runner*, a runner only *side* has, is served there (each rule
        of its request that serves, validated on its F; no removal refusing it first): on the
        other side a request for it is a usage error (``runner-removed``, ``runner-added``)."""
        removed = side.removed(True)
        on_old = side is self.old
        for step, split, outcome in list(side.requested_rules(runner)):
            if outcome[0] != "served":
                continue
            question = self._decides(side.asked, step, split)
            if question is None:
                continue
            question["false"] += removed
            for variant, answer in side.on_its_f(question, outcome, True):
                if answer[0] != "served":
                    continue
                found = self._solve(variant, f"where a request for {runner!r} is served")
                if found is not None:
                    gone: Outcome = ("refused", None, "no-runner", ())
                    yield Region("runner", runner, answer if on_old else gone, gone if on_old else answer, found,
                                 (), **_question(variant))

    def _by_new_ids(self, outcome: Outcome) -> Outcome:
        """An old side's answer with its runners named by the new side's ids (a runner renamed)."""
        status, runner, note, path = outcome
        new = self.renamed.get
        return status, new(runner or "", runner), note, tuple((how, new(to, to)) for how, to in path)

    def _regions(self, question: Dict[str, Any], what: str, causes: Sequence[Node] = ()
                 ) -> Iterator[Tuple[Assignment, Dict[str, Any]]]:
        """Where *question* holds and some gate whose entry differs is active (any config when
        the sides order the runners differently: then *causes*, `_causes_apart`, are those a
        region is asked by): a region with as few such gates active as can be
        (`_fewest_causes`), then again where not all of those are active, until no config is
        left (each region of its own causes: a finding per cause), or `MAX_REGIONS` are found.
        Each comes with its question, exactly: *question*, every cause active at the region
        found active (both sides' reading of a gate, a field left out), and not all the causes of
        an earlier region active, so no config lies in two regions (one finding per cause)."""
        if self.changed is not None:
            asked, causes = {**question, "extra": [*question["extra"], self.changed]}, self.changed[1]
        else:
            asked = question
        causes = list(dict.fromkeys(causes))
        found = self._solve(asked, what)
        earlier: List[Tuple[str, List[Node]]] = []
        for _ in range(MAX_REGIONS):
            if found is None:
                return
            found = self._fewest_causes(asked, found, causes)
            active = [node for node in causes if self.space.truth(node, found) is True]
            yield found, {**question, "true": [*question["true"], *active], "extra": [*question["extra"], *earlier]}
            if not active:
                return  # every config of the question left is said by that one region
            earlier.append(("any", [Not(node) for node in active]))
            asked = {**asked, "extra": [*asked["extra"], earlier[-1]]}
            found = self._solve(asked, what)
        if found is not None:
            self.undecided.append(_messages.diff_regions_left(MAX_REGIONS, what))

    def _fewest_causes(self, question: Dict[str, Any], found: Assignment, causes: Sequence[Node]) -> Assignment:
        """A region of the same question where as few of *causes* (gates whose entry differs) as
        can be are active: each one active in *found* is asked inactive in turn, and stays so
        where the question still holds (so a finding names the entries that make it, not those
        its first witness happened to use)."""
        for node in causes:
            if self.space.truth(node, found) is not True:
                continue
            narrower = {**question, "false": [*question["false"], node]}
            try:
                again = self.split.solve(**narrower)
            except Inconclusive:
                continue  # kept as found: no question left undecided for a shorter text
            if again is not None:
                question, found = narrower, again
        return found

    def one_gate(self, kind: str, warned: Callable[[Side, Feature], bool], *, asked: Optional[str] = None,
                 blocked: Optional[str] = None, only: Optional[Container[str]] = None,
                 bounds: Optional[Callable[[str, Assignment], List[Node]]] = None) -> Iterator[Region]:
        """For each gate id on either side: configs where it is active and *warned* on one side
        and not on the other (not active there, or not *warned*), no removal refusing the other
        side for a removal question (`removal_refused`); with
        *asked*, as a request for that runner reads the gates. With *bounds* (the gate's id, a
        region found → the conditions of the causes beside it there: where the adjustments named
        change a value), a region holds where those hold, and is asked again where not all do (a
        region per cause, up to `MAX_REGIONS`). With *only*, the gate ids asked about."""
        ids = [i for i in dict.fromkeys(side.new_id(f.id) for side in (self.old, self.new) for f in side.plan.features)
               if only is None or i in only]
        for feature_id in ids:
            for this, other, sign in ((self.new, self.old, "added"), (self.old, self.new, "lifted")):
                gate = this.gate(feature_id)
                choice = this.asked if asked else this.automatic
                if gate is None or gate.id in choice.dead or not warned(this, gate):
                    continue
                there = other.gate(feature_id)
                other_choice = other.asked if asked else other.automatic
                false = self.removal_refused(kind, other, asked is not None, feature_id)
                theirs = [there] if there is not None and there.id not in other_choice.dead \
                    and warned(other, there) else []
                namesakes: List[Feature] = []
                if blocked is not None:
                    # A blocker is said by its name: where another entry of the same name blocks
                    # the runner on the other side (an entry rewritten under a new id), the
                    # config sees no change.
                    namesakes = [g for g in other.plan.features if g.name == gate.name and g.id != feature_id
                                 and g.id not in other_choice.dead and warned(other, g)]
                    # Read where each side's resolution reads the runner's blockers: on F or on C.
                    # A request's, on C (`matrix._diff_requests.exact`: its F reads them alike).
                    questions = self.blocker_questions(this, other, blocked, gate, theirs + namesakes, false,
                                                       on_c=asked is not None)
                else:
                    questions = [{"true": [this.on_c(gate.when.node)],
                                  "false": false + [other.on_c(g.when.node) for g in theirs], "extra": []}]
                if asked is None:  # automatic choice: where no base role's field names a runner (a request)
                    questions = [{**q, "true": [*q["true"], *self.unasked]} for q in questions]
                for question in questions:
                    what = f"where {gate.name} changes"
                    found = self._solve(question, what)
                    for _ in range(MAX_REGIONS):
                        if found is None:
                            break
                        nodes = bounds(feature_id, found) if bounds is not None else []
                        yield Region(kind, asked, ("", None, "", ()), ("", None, sign, ()), found, ((this.name, feature_id),),
                                     feature=feature_id, blocked=blocked,
                                     excluded=tuple((other.name, g.id) for g in namesakes),
                                     **_question({**question, "true": [*question["true"], *nodes]}))
                        if not nodes:
                            break
                        question = {**question, "extra": [*question["extra"], ("any", [negate(n) for n in nodes])]}
                        found = self._solve(question, what)
                    else:
                        if found is not None:
                            self.undecided.append(_messages.diff_regions_left(MAX_REGIONS, what))

    def removal_refused(self, kind: str, other: Side, asked: bool, feature_id: str) -> List[Node]:
        """The configs a `one_gate` question of *kind* about the gate *feature_id* leaves out, for
        a removal's refusal: for a removal question, those the *other* side refuses for a
        removal; for any other, those the gate's own removal refuses on either side (its removal
        finding says them: a deprecation that ends with the removal, the gate's blocker). Any
        other config refused for a removal is compared: it is warned of the deprecated features
        it uses and reads every runner's blockers on its config of choice C (`matrix._choice.
        choose`: no runner is chosen; `blocker_cases`)."""
        if kind == "removal":
            return list(other.removed(asked))
        out = []
        for side in (self.old, self.new):
            gate = side.gate(feature_id)
            choice = side.asked if asked else side.automatic
            if gate is not None and gate.id not in choice.dead and side.plan.removed >> side.bit(gate) & 1:
                out.append(choice.rewrite(gate.when.node))
        return out

    def blocker_questions(self, this: Side, other: Side, runner: str, gate: Feature, theirs: Sequence[Feature],
                          false: List[Node], on_c: bool = False) -> List[Dict[str, Any]]:
        """Configs where *gate* blocks *runner* on *this* side and none of *theirs* (the same
        gate, or one of its name) blocks it on *other*, configs in *false* left out. A runner's
        blockers are read on its effective config F where the side's automatic choice takes it
        (served, or refused on F: `Resolution.unsupported`), on C elsewhere (`blocker_cases`):
        one question per pair of cases; with *on_c*, on C everywhere."""
        out = []
        for mine, (condition,) in self.blocker_cases(this, runner, [gate], on_c):
            for other_case, conditions in self.blocker_cases(other, runner, theirs, on_c):
                out.append({"true": [*mine["true"], *other_case["true"], condition],
                            "false": [*false, *mine["false"], *other_case["false"], *conditions],
                            "extra": [*mine["extra"], *other_case["extra"]]})
        return out

    def blocker_cases(self, side: Side, runner: str, gates: Sequence[Feature], on_c_only: bool = False
                      ) -> List[Tuple[Dict[str, Any], List[Node]]]:
        """The cases of *side*'s automatic choice for *runner*'s blockers, each with the conditions
        of *gates* as they are read there: where a rule that takes *runner* decides (one case per
        rule: a preference, an order, a redirect that applies always to it), on its F; where none
        does, on C. One case (no condition) where *runner* has no
        adjustments of its own or they leave the gates' conditions as they are."""
        runner = side.local(runner) or runner
        on_c = [side.on_c(g.when.node) for g in gates]
        on_f = [side.on_f(runner, g.when.node) for g in gates] if side.own(runner) and not on_c_only else on_c
        nothing: Dict[str, Any] = {"true": [], "false": [], "extra": []}
        if on_f == on_c:
            return [(nothing, on_c)]
        taking = []
        for step in side.automatic.steps:
            # A redirect that applies always takes its runner too: validated, and its blockers
            # read, on its F (it was read on C: witnesses that did not reproduce).
            if step.kind in ("prefer", "order", "redirect") and step.runner == runner:
                question = self._decides(side.automatic, step, ())
                if question is not None:  # (a config a removal refuses chooses no runner: read on C)
                    question["false"] += side.removed(False)
                    taking.append(question)
        if not taking:
            return [(nothing, on_c)]
        elsewhere = {"true": [], "false": [disjoin([_conjunction(q) for q in taking])], "extra": []}
        return [*((q, on_f) for q in taking), (elsewhere, on_c)]


    def fewest_conjuncts(self, conjuncts: Sequence[Tuple[Node, bool]],
                         whole: Container[Node] = ()) -> List[Tuple[Node, bool]]:
        """The same set of configs, said with as few conditions as can be: *conjuncts*
        (condition, wanted) are split where they are conjunctions (but those in *whole*, a gate's
        condition as its matrix writes it); an option of a disjunction that the others contradict
        is dropped; a conjunct the others imply (they and its negation cannot hold together) is
        dropped, earlier ones first. A search that gives up keeps what it asked about (exact,
        only longer). The conjuncts hold together (the region has a witness)."""
        return _Conjuncts(self.split, whole).fewest(conjuncts)


Goal = Tuple[Node, bool]


class _Conjuncts:
    """`Search.fewest_conjuncts`, step by step."""

    def __init__(self, split: Split, whole: Container[Node]) -> None:
        self.split, self.whole = split, whole
        self.reads: Dict[int, Tuple[Node, FrozenSet[str]]] = {}

    def fewest(self, conjuncts: Sequence[Goal]) -> List[Goal]:
        kept = self.flat(list(conjuncts))
        narrowed = True
        while narrowed:
            narrowed = False
            for index, (node, wanted) in enumerate(kept):
                if node in self.whole or not (isinstance(node, Or) and wanted or isinstance(node, And) and not wanted):
                    continue
                others = kept[:index] + kept[index + 1:]
                options = [(operand, wanted) for operand in node.operands]
                live = [option for option in options if self.holds([*self.tied(option, others), option]) is not False]
                if len(live) == len(options):
                    continue
                if not live:
                    return [(node, wanted)]  # no config: said by the condition that cannot hold
                rest = (live[0] if len(live) == 1 else
                        (Or(tuple(o for o, _ in live)), True) if wanted else (And(tuple(o for o, _ in live)), False))
                kept = self.flat(others[:index] + [rest] + others[index:])
                narrowed = True
                break
        for conjunct in list(kept):
            others = [c for c in kept if c != conjunct]
            if self.holds([*self.tied(conjunct, others), (conjunct[0], not conjunct[1])]) is False:
                kept = others
        return kept

    def flat(self, pending: List[Goal]) -> List[Goal]:
        out: List[Goal] = []
        while pending:
            node, wanted = pending.pop(0)
            while isinstance(node, Not) and node not in self.whole:
                node, wanted = node.operand, not wanted
            if node not in self.whole and (isinstance(node, And) and wanted or isinstance(node, Or) and not wanted):
                pending[:0] = [(operand, wanted) for operand in node.operands]
            else:
                out.append((node, wanted))
        return list(dict.fromkeys(out))

    def holds(self, goals: Sequence[Goal]) -> Optional[bool]:
        try:
            return self.split.solve(true=[n for n, w in goals if w], false=[n for n, w in goals if not w]) is not None
        except Inconclusive:
            return None

    def paths(self, node: Node) -> FrozenSet[str]:
        # Known by its id (the node kept beside it, so the id stays its own): a node's hash walks
        # the whole of it, and `tied` reads every conjunct's paths at each question.
        known = self.reads.get(id(node))
        if known is None:
            known = self.reads[id(node)] = (node, self.split._read(node))
        return known[1]

    def tied(self, goal: Goal, others: Sequence[Goal]) -> List[Goal]:
        """The others that share a path with *goal*, through one another: the others hold
        together, so only those can imply it or contradict it."""
        reach, left, out = set(self.paths(goal[0])), [(o, self.paths(o[0])) for o in others], []
        grown = True
        while grown:
            grown = False
            rest = []
            for other, read in left:
                if reach.isdisjoint(read):
                    rest.append((other, read))
                else:
                    reach |= read
                    out.append(other)
                    grown = True
            left = rest
        return out


def _role_fields(old: Side, new: Side) -> List[str]:
    """The fields of the roles but the base, of either side."""
    return sorted({r.field for side in (old, new) for r in side.matrix.roles[1:]})


def _candidacy(gate: Feature) -> bool:
    """Whether *gate* is a runner's candidacy (`schema`'s ``RUNNER:candidate`` gate)."""
    return isinstance(gate.origin, Runner) and gate.id == f"{gate.origin.id}:candidate"


def _conjunction(question: Dict[str, Any]) -> Node:
    """A search question as one condition: its ``true`` hold, its ``false`` do not, and one
    option of each of its groups holds."""
    return conjoin([*question["true"], *(negate(n) for n in question["false"]),
                    *(disjoin(list(nodes)) for _, nodes in question["extra"])])


def option_regions(search: Search, a_question: Dict[str, Any], b_question: Dict[str, Any],
                   options: Sequence[Tuple[Node, Any, Any]], what: str, found: Dict[Tuple[Any, Any], List[List[Any]]]) -> None:
    """Where the old side answers as *a_question* and the new as *b_question*, each option
    ``(node, x, y)`` that holds for some config, added to *found* under ``(x, y)`` as a goal list:
    one solve for all of them first (none holds: nothing to add), then one per option. The
    questions of refusal kinds (`matrix._diff_changes`) and of a role's runner (`matrix._diff_roles`)."""
    question = {key: a_question[key] + b_question[key] for key in ("true", "false", "extra")}
    if search._solve({**question, "extra": [*question["extra"], ("any", [o[0] for o in options])]}, what) is None:
        return
    goals = [*_goals(a_question), *_goals(b_question)]
    for node, x, y in options:
        region = [*goals, (node, True)]
        if search._solve(_question_of(region), what) is not None:
            found.setdefault((x, y), []).append(region)


def _goals(question: Dict[str, Any]) -> List[Tuple[Node, bool]]:
    """A search question as (condition, holds) pairs: its ``true`` hold, its ``false`` do not, and
    one option of each of its groups holds."""
    return [*((n, True) for n in question["true"]), *((n, False) for n in question["false"]),
            *((disjoin(list(nodes)), True) for _, nodes in question["extra"])]


def _question_of(goals: Sequence[Tuple[Node, bool]]) -> Dict[str, Any]:
    """(condition, holds) pairs as a search question."""
    return {"true": [n for n, w in goals if w], "false": [n for n, w in goals if not w], "extra": []}


def _question(question: Dict[str, Any]) -> Dict[str, Any]:
    """A search question as the fields of a `Region`."""
    return {"true": tuple(question["true"]), "false": tuple(question["false"]),
            "groups": tuple(tuple(nodes) for _, nodes in question["extra"])}


def deprecated(side: Side, gate: Feature) -> bool:
    """The gate warns that it is deprecated when it is active."""
    return bool(side.plan.deprecated >> side.bit(gate) & 1)


def removed(side: Side, gate: Feature) -> bool:
    """The gate refuses the configs that use it (a removal)."""
    return bool(side.plan.removed >> side.bit(gate) & 1)


def blocking(runner: str) -> Callable[[Side, Feature], bool]:
    """Whether a gate of a side blocks *runner* (a new side's id: on the old side, the id it had
    there where it was renamed with an alias)."""
    def blocks(side: Side, gate: Feature) -> bool:
        mine = side.local(runner) or runner
        return mine in gate.support and gate.status(mine, side.version) in BLOCKING and mine in side.plan.no
    return blocks


def renamed_runners(old: Matrix, new: Matrix) -> Dict[str, str]:
    """The runners of *old* that *new* has under another id, their former one an alias (old id →
    new id): automatic choice that takes one takes the other."""
    ids = {r.id for r in new.runners}
    before = {r.id for r in old.runners}
    return {a.id: r.id for r in new.runners if r.id not in before for a in r.aliases if a.id in before and a.id not in ids}


def alias_removed(side: Side, former: str) -> bool:
    """Whether *side* refuses a request by the former id *former* for its alias's removal at the
    side's version (`matrix._choice.asked`: a usage error)."""
    alias = side.matrix.alias(former)
    return alias is not None and alias.deprecation.is_removed(side.version)


def shared_runners(old: Side, new: Side) -> FrozenSet[str]:
    """The ids of the runners both sides have (a runner renamed with an alias: its new id)."""
    return frozenset(old.ids.get(r.id, r.id) for r in old.matrix.runners) & frozenset(r.id for r in new.matrix.runners)


def signature(side: Side, gate: Optional[Feature], runners: Container[str]) -> object:
    """What of a gate decides answers at the side's version (None: the side lacks it), its
    cells read for *runners* only (those both sides have: a runner added or removed is a cause of
    its own, not a change of every gate that gains or loses a cell for it)."""
    if gate is None:
        return None
    plan, v = side.plan, side.version
    bit = side.bit(gate)
    origin = gate.origin
    ids = side.ids  # a runner renamed with an alias: read by its new id

    def runner(one: Any) -> Any:
        """A forces or prefers, or a runner id, with the runner read by the id both sides know it by."""
        if isinstance(one, str):
            return ids.get(one, one)
        return one if one is None or not ids else attrs.evolve(one, runner=ids.get(one.runner, one.runner))

    listed = getattr(origin, "runners", None)
    # The cells by runner id: the runners' order (by priority) is no part of the gate (a priority
    # swapped named every gate with a cell as a cause, and narrowed regions to their conditions).
    return (str(gate.when), tuple(sorted((ids.get(r.id, r.id), gate.status(r.id, v)) for r in side.matrix.runners
                                         if r.id in gate.support and ids.get(r.id, r.id) in runners)),
            plan.deprecated >> bit & 1, plan.removed >> bit & 1, runner(gate.forces), runner(gate.prefers),
            gate.applies,
            None if origin is None else (type(origin).__name__,
                                         None if listed is None else tuple(runner(r) for r in listed),
                                         runner(getattr(origin, "to", None)), getattr(origin, "fallback", None)))


def every_adjustment(plan: Plan) -> List[Adjustment]:
    """A plan's adjustments in order: those before the choice, then each runner's own (one that
    several runners share, once per runner)."""
    return [*plan.pre_adjustments, *(a for own in plan.adjustments.values() for a in own)]


def adjusting(side: Side) -> object:
    """What of a side's adjustments decides its answers (every field but names and messages)."""
    def one(a: Any) -> object:
        return (a.id, str(a.when), tuple(sorted((p, repr(v)) for p, v in a.set.items())), a.override, a.runners, a.stage)

    return (tuple(one(a) for a in side.plan.pre_adjustments),
            tuple(sorted((r, tuple(one(a) for a in own)) for r, own in side.plan.adjustments.items())))


#: One path's effective-value question: the path, the ids of the adjustments that differ and set
#: it, for each pair of runners (the one whose F the resolution ends on, on each side; None: C)
#: where the value differs (options over the config as given), and the two terms (old side's, new
#: side's) each of those options compares (`pinned`).
Effective = Tuple[str, Tuple[str, ...], Dict[Tuple[Optional[str], Optional[str]], List[Node]],
                  Dict[Tuple[Optional[str], Optional[str]], List[Tuple[Node, Node]]]]


def value_terms(side: Side, runner: Optional[str], path: str, adjustment: Any = None) -> List[Tuple[Node, Node]]:
    """What *path* reads on *side*'s effective config when *runner* is chosen (None: on C): exclusive
    conditions over the config as given, each with a path or a literal (the runner's own
    adjustments read through those before the choice). With *adjustment* (of *side*, before the
    choice or *runner*'s own), what it reads where it applies: after the adjustments before it."""
    from ._check_adjust import _terms
    from ._substitute import conjoin

    if adjustment is not None and adjustment in side.plan.pre_adjustments:
        return _given_terms(side, _terms(side.ctx.pre, path, list(side.plan.pre_adjustments).index(adjustment)))
    before = _terms(side.ctx.pre, path)
    if not side.own(runner):
        return _given_terms(side, before)
    assert runner is not None
    end = None if adjustment is None else list(side.plan.adjustments[runner]).index(adjustment)
    out: List[Tuple[Node, Node]] = []
    for condition, term in _terms(side.ctx.own[runner], path, end):
        on_config = side.ctx.choice(condition)
        if isinstance(term, Path):
            out += [(conjoin([on_config, c]), t) for c, t in _terms(side.ctx.pre, term.name)]
        else:
            out.append((on_config, term))
    return _given_terms(side, out)


def _given_terms(side: Side, terms: List[Tuple[Node, Node]]) -> List[Tuple[Node, Node]]:
    """*terms* (conditions and terms over the config after the defaults) over the config as
    given: a field left out whose default differs reads *side*'s default (`Side.given`)."""
    if not side.defaults:
        return terms
    reader = side.given
    assert isinstance(reader, _Defaults)
    out: List[Tuple[Node, Node]] = []
    for condition, term in terms:
        condition = reader(condition)
        if isinstance(term, Path):
            out += [(conjoin([condition, c]), t) for c, t in reader.terms(term.name)]
        else:
            out.append((condition, term))
    return [(c, t) for c, t in out if constant(c) is not False]


def effective_questions(old: Side, new: Side) -> List[Effective]:
    """For each path an adjustment sets (before the choice, or a runner's own) where one differs
    between the sides (one alike on both sides sets otherwise where one before it that differs
    changes what it reads): for each pair of runners (one of each side, or None: no runner chosen), where
    its value on the effective config differs (one option per pair of cases, `matrix._check_adjust._terms`).
    Only where both sides are ``exact``."""
    from ._check_adjust import _differ
    from ._substitute import conjoin, constant

    if not (old.exact and new.exact):
        return []
    differing: Dict[str, Any] = {}  # id → an adjustment of that id (either side)
    lists = [(old.plan.pre_adjustments, new.plan.pre_adjustments)]
    runners = dict.fromkeys(r for side in (old, new) for r in side.plan.adjustments)
    lists += [(old.plan.adjustments.get(r, ()), new.plan.adjustments.get(r, ())) for r in runners]
    for mine_list, theirs_list in lists:
        mine, theirs = {a.id: a for a in mine_list}, {a.id: a for a in theirs_list}
        for i in dict.fromkeys([*mine, *theirs]):
            a, b = mine.get(i), theirs.get(i)
            if a is None or b is None or adjusting_one(a) != adjusting_one(b):
                differing.setdefault(i, a if a is not None else b)
    # With the same adjustments on both sides, a value still differs where the resolution ends on
    # another runner's F (both refusing: one chose a runner and refused it there, the other none).
    alike = not differing and not old.defaults  # a default that differs: every path an adjustment sets
    if not differing:
        differing = {a.id: a for side in (old, new) for own in side.plan.adjustments.values() for a in own}
    out: List[Effective] = []
    paths = [p for a in differing.values() for p in a.set]
    if not alike:  # one alike on both sides sets otherwise where one before it that differs changes what it reads
        paths += [p for side in (old, new) for a in every_adjustment(side.plan) for p in a.set]
    for path in dict.fromkeys(paths):
        causes = tuple(i for i, a in differing.items() if path in a.set)
        fields = [side.matrix.schema.get(path) for side in (old, new)]
        if any(f is not None and f.item_type is not None for f in fields):
            out.append((path, causes, {}, {}))  # a list: the search tests no list for equality
            continue
        by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]] = {}
        # The two terms each option compares (old side's, new side's), beside it: a finding's
        # region holds the options read as the finding's values only (`pinned`).
        read_as: Dict[Tuple[Optional[str], Optional[str]], List[Tuple[Node, Node]]] = {}
        terms = [{r: value_terms(side, r, path) for r in [None, *(r.id for r in side.matrix.runners)]}
                 for side in (old, new)]
        for on_old, before in terms[0].items():
            for on_new, after in terms[1].items():
                if alike and on_old == on_new:
                    continue
                if before == after:
                    continue  # read alike: the same value on both sides
                options = [(conjoin([c1, c2, _differ(t1, t2)]), (t1, t2))
                           for c1, t1 in before for c2, t2 in after if t1 != t2]
                options = [(o, t) for o, t in options if constant(o) is not False]
                if options:
                    by_runner[on_old, on_new] = [o for o, _ in options]
                    read_as[on_old, on_new] = [t for _, t in options]
        out.append((path, causes, by_runner, read_as))
    return out


def pinned(by_runner: Dict[Tuple[Optional[str], Optional[str]], List[Node]],
           read_as: Dict[Tuple[Optional[str], Optional[str]], List[Tuple[Node, Node]]],
           terms: Tuple[Node, Node]) -> Dict[Tuple[Optional[str], Optional[str]], List[Node]]:
    """*by_runner*'s options (an `Effective`'s, *read_as* their terms) that read the value of each
    side as *terms* (a literal, the same value; a field's value or a product of it, the same
    term): a user trial found a finding "64 → 4" whose region held configs going 64 → 8."""
    out: Dict[Tuple[Optional[str], Optional[str]], List[Node]] = {}
    for pair, options in by_runner.items():
        kept = [option for option, read in zip(options, read_as[pair])
                if all(_same_term(a, b) for a, b in zip(read, terms))]
        if kept:
            out[pair] = kept
    return out


def _same_term(a: Node, b: Node) -> bool:
    if isinstance(a, Literal) and isinstance(b, Literal):
        return type(a.value) is type(b.value) and a.value == b.value
    return not isinstance(a, Literal) and not isinstance(b, Literal) and a == b


def adjusting_one(a: Any) -> object:
    return (str(a.when), tuple(sorted((p, repr(v)) for p, v in a.set.items())), a.override, a.runners, a.stage)


def preferred_by(name: str) -> str:
    """The warning of an answer of automatic choice that the preference of the feature *name*
    decides: the sides may choose one runner by the preferences of two features, whose warnings
    name each (``g3: using A`` before, ``g1: using A`` after: ``preference-changed``). By its name,
    as the warning says it: two entries of one name (the default matrix's ROCm default, outright
    until 0.31.0, then not) warn alike."""
    return f"preference {name}"


def warning_kind(warning: str) -> str:
    """The kind of an answer's *warning* (``preference``, not the gate whose preference it is)."""
    return warning.split(" ", 1)[0]


def _same(a: Outcome, b: Outcome) -> bool:
    """Whether two answers are one: the same runner with the same warning, or refused the same way
    (a refusal says the redirect and the override it went through)."""
    return a[0] == b[0] and a[1] == b[1] and (a[3] == b[3] if a[0] == "refused" else a[2] == b[2])


def _bound(choice: _Choice, step: Rule, held: bool = True) -> List[Feature]:
    """The gates whose conditions a rule needs to hold (*held*), or not to."""
    out: List[Feature] = []
    for mask, wanted in step.literals:
        if wanted is held:
            out += [f for f in choice.plan.active(mask) if f.id not in choice.dead]
    return out


def _said(outcome: Outcome) -> str:
    status, runner, note, path = outcome
    if status == "refused":
        return "refused" + (f" ({', '.join(f'{how} to {to!r}' for how, to in path)})" if path else "")
    if warning_kind(note) == "preference":
        note = f"preference of {note.split(' ', 1)[1]!r}"
    return repr(runner) + (f" ({note})" if note else "")


def _what(runner: Optional[str]) -> str:
    return "the automatic runner" if runner is None else f"the answer to a request for {runner!r}"


def _undecided(error: Inconclusive, budget: int, what: str) -> str:
    from .check import _undecided as words

    return f"Could not decide {words(error, budget)} {what}"


def _rules_in_order(plan: Plan) -> List[str]:
    """The gates that are rules of choice read in declaration order (preferences, forces,
    orders), in that order: two sides that order the ones they share differently may choose
    differently on the same mask (one side's own rules are gates whose entry differs)."""
    return [g.id for g in plan.features if g.prefers is not None or g.forces is not None
            or isinstance(g.origin, Order)]


def speaks(side: Side, adjustment: Any, runner: Optional[str]) -> Node:
    """Where *adjustment* of *side* says its message (an ``adjusted`` warning), over the config as
    given, the resolution ending on *runner*'s effective config (None: C): where its ``when``
    holds on the config it finds (``says = "always"``, a notice), else where it changes a value;
    a runner's own only where the resolution ends on that runner's F."""
    from ._substitute import FALSE

    if adjustment in side.plan.pre_adjustments:  # with stages, one naming no runner may come after the choice
        pre = list(side.plan.pre_adjustments)
        index = pre.index(adjustment)
        node = side.ctx.pre(adjustment.when.node, index) if adjustment.says == "always" else side.ctx.pre.changes(index)
        return FALSE if node is None else side.given(node)
    if runner is None or adjustment not in side.plan.adjustments.get(runner, ()) or not side.own(runner):
        return FALSE
    own = list(side.plan.adjustments[runner])
    index = own.index(adjustment)
    rewriter = side.ctx.own[runner]
    node = rewriter(adjustment.when.node, index) if adjustment.says == "always" else rewriter.changes(index)
    return FALSE if node is None else side.given(side.ctx.choice(node))


def saying(a: Any) -> object:
    """What of an adjustment decides the text and level of its warning where it speaks (its
    message; without one, its name and what it sets: the sentence says the changes)."""
    return (a.level, a.message) if a.message is not None else \
        (a.level, None, a.name, tuple(sorted((p, repr(v)) for p, v in a.set.items())))


def word_paths(a: Any) -> Tuple[str, ...]:
    """The paths whose values (as the adjustment finds them) fill the words of its warning: its
    message's ``{path}`` s; without a message, the generated sentence's (each path it sets,
    from and to, and each path it copies from)."""
    from ._templates import paths_only
    from .schema import From

    if a.message is not None:
        return tuple(dict.fromkeys(paths_only(a.message).paths))
    return tuple(dict.fromkeys([*a.set, *(v.path for v in a.set.values() if isinstance(v, From))]))


def words_differ(old: Side, a: Any, on_old: Optional[str], new: Side, b: Any, on_new: Optional[str]) -> Optional[Node]:
    """Where the words of one adjustment's warning (*a* on the old side, *b* on the new, their
    templates alike) are filled with other values on the two sides, the resolutions ending on
    *on_old*'s and *on_new*'s F: where a value it reads, as it finds it, differs (an adjustment
    before it that differs). None where a value read is a list (the search tests no list for
    equality)."""
    from ._check_adjust import _differ
    from ._substitute import FALSE, conjoin

    options: List[Node] = []
    for path in word_paths(b):
        fields = [side.matrix.schema.get(path) for side in (old, new)]
        if any(f is not None and f.item_type is not None for f in fields):
            return None
        if (a not in old.plan.pre_adjustments and (on_old is None or not old.own(on_old)
                                                    or a not in old.plan.adjustments.get(on_old, ()))) or \
                (b not in new.plan.pre_adjustments and (on_new is None or not new.own(on_new)
                                                        or b not in new.plan.adjustments.get(on_new, ()))):
            return FALSE  # a runner's own adjustment says nothing where the resolution ends elsewhere
        mine, theirs = value_terms(old, on_old, path, a), value_terms(new, on_new, path, b)
        if mine == theirs:
            continue  # read alike: the same value on both sides
        options += [conjoin([c1, c2, _differ(t1, t2)]) for c1, t1 in mine for c2, t2 in theirs if t1 != t2]
    return disjoin(options) if options else FALSE


#: One adjustment's warning question: its id, the change (warned on the new side only, the old
#: only, or on both in other words), and for each pair of runners (the one whose F the
#: resolution ends on, on each side; None: C) where what it says differs (options over the
#: config as given).
Said = Tuple[str, str, Dict[Tuple[Optional[str], Optional[str]], List[Node]]]


def _reads_roles(adjustment: Any) -> bool:
    """Whether *adjustment*'s condition or words read the runner that fills a role (``role.ID``)."""
    from ._diff_kinds import _message_paths
    from ._given import ROLE

    paths = [*(adjustment.when.paths if adjustment.when is not None else ()), *_message_paths(adjustment)]
    return any(p.startswith(ROLE) for p in paths)


def said_questions(old: Side, new: Side, undecided: List[str]) -> List[Said]:
    """For each adjustment id of either side: where it speaks on one side and not on the other,
    or on both in other words (another text or level, `saying`, or its words filled with other
    values, `words_differ`), for each pair of runners whose F the resolutions end on (as
    `effective_questions`). Every id is asked, not only those that differ: one that stands alike
    speaks elsewhere, or in other words, where an adjustment before it differs. Only where both
    sides are ``exact``; what cannot be compared (a list filling its words) is said in
    *undecided*."""
    from ._substitute import FALSE, conjoin, constant

    if not (old.exact and new.exact):
        return []

    def everyone(side: Side) -> Dict[str, Any]:
        return {a.id: a for a in every_adjustment(side.plan)}

    mine, theirs = everyone(old), everyone(new)
    if not mine and not theirs:
        return []
    keys = [[None, *(r.id for r in side.matrix.runners)] for side in (old, new)]
    # With every adjustment alike, what one says differs only where the resolutions end on
    # another runner's F (both refusing: one chose a runner and refused it there, the other none).
    alike = adjusting(old) == adjusting(new) and all((a.says, saying(a)) == (theirs[i].says, saying(theirs[i]))
                                                     for i, a in mine.items() if i in theirs) and not old.defaults
    out: List[Said] = []
    for i in dict.fromkeys([*mine, *theirs]):
        a, b = mine.get(i), theirs.get(i)
        either = b if b is not None else a
        if any(_reads_roles(x) for x in (a, b) if x is not None) and either is not None:
            # F1: no config holds a role's runner, which the search would read as a config path
            undecided.append(_messages.diff_not_compared(
                f"what {either.name} says (it reads a role's runner)", "a config whose roles it reads"))
            continue
        alike_text = a is not None and b is not None and saying(a) == saying(b)
        by_kind: Dict[str, Dict[Tuple[Optional[str], Optional[str]], List[Node]]] = {}
        for on_old in keys[0]:
            for on_new in keys[1]:
                if alike and on_old == on_new:
                    continue
                x = speaks(old, a, on_old) if a is not None else FALSE
                y = speaks(new, b, on_new) if b is not None else FALSE
                # Where it speaks alike on both sides (the same condition), only its words may differ.
                options = [] if x == y else [("adjustment-warning-lifted", conjoin([x, negate(y)])),
                                             ("adjustment-warning-added", conjoin([negate(x), y]))]
                if not alike_text:
                    options.append(("adjustment-warning-changed", conjoin([x, y])))
                elif a is not None and b is not None:
                    other = words_differ(old, a, on_old, new, b, on_new)
                    if other is None:
                        undecided.append(_messages.diff_not_compared(
                            f"the words of {b.name}'s warning", "a config it warns (a list fills them)"))
                    else:
                        options.append(("adjustment-warning-changed", conjoin([x, y, other])))
                for kind, option in options:
                    if constant(option) is not False:
                        by_kind.setdefault(kind, {})[on_old, on_new] = [option]
        out += [(i, kind, by_runner) for kind, by_runner in by_kind.items()]
    return out
