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

from typing import Any, Callable, Container, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import attrs
from packaging.version import Version

from . import _messages
from ._check_adjust import Contexts
from ._choice import Rule, Term
from ._compile import Plan
from ._nodes import And, Node, Not, Or
from ._space import Inconclusive, Space
from ._split import Split
from .check import _Choice, _Places
from .schema import BLOCKING, Feature, Field, Matrix, Order, Runner, Schema

#: What one rule answers: ``("served", runner, warning)`` or ``("refused", None, why)``;
#: *warning* is ``"fallback"``, ``"preference"`` or ``""``, *why* ``"no-runner"`` or ``"forced"``
#: / ``"blocked"`` for a request.
Outcome = Tuple[str, Optional[str], str]
#: The most regions of other causes named for one pair of rules (the rest said in ``undecided``).
MAX_REGIONS = 8
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


def union_schema(old: Schema, new: Schema) -> Schema:
    """Every field of either side; a field on both keeps the new side's, with the choices of both
    (the search must try a value either side accepts)."""
    fields: Dict[str, Field] = dict(old.fields)
    for path, field in new.fields.items():
        before = fields.get(path)
        if before is not None and before.choices is not None and field.choices is not None:
            field = attrs.evolve(field, choices=tuple(dict.fromkeys((*field.choices, *before.choices))))
        fields[path] = field
    return Schema(fields, {**old.derivations, **new.derivations})


class Side:
    """One side's plan, and its decision lists as questions for the search."""

    def __init__(self, name: str, compiled: Plan) -> None:
        self.name, self.plan = name, compiled
        self.matrix: Matrix = compiled.matrix
        self.version: Version = compiled.version
        features = compiled.features
        asked_only = {f.id for f in features if f.applies == "asked"}
        automatic_only = {f.id for f in features if f.applies == "automatic"}
        #: The adjustments in force, as rewriters (`matrix._check_adjust`). The choice reads the
        #: config of choice C; with no runner's own adjustments in force the runner that serves
        #: is validated on C too, and every question of the diff is put on C exactly (``exact``).
        #: A runner's own adjustments (or a rewrite too large) leave the configs as given, and the
        #: diff says it did not compare them.
        self.ctx = Contexts(self.matrix, compiled)
        self.exact = self.ctx.too_large is None and not any(compiled.adjustments.values())
        self.on_c: Callable[[Node], Node] = self.ctx.choice if self.exact else (lambda node: node)
        self.automatic = _Choice(compiled, asked_only, self.on_c)
        self.asked = _Choice(compiled, automatic_only, self.on_c)
        #: Each gate's bit (by identity: a plan's gates are compared often, and attrs equality
        #: reads every field), and the first gate of each id.
        self._bits = {id(f): i for i, f in enumerate(features)}
        self._gates: Dict[str, Feature] = {}
        for f in features:
            self._gates.setdefault(f.id, f)
        #: Where entries stand in the side's file (its text parsed once, when first asked).
        self.places = _Places(self.matrix)

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
                yield step, (), ("served", step.runner, "preference")
            elif step.kind == "order":
                assert step.runner is not None
                tried = [r for r, _ in next((rs for bit, _, rs in plan.orders if bit == step.gate), plan.order)]
                earlier = tried[: tried.index(step.runner)]
                if not earlier:
                    yield step, (), ("served", step.runner, "")
                elif any(not plan.candidate.get(r) for r in earlier):
                    yield step, (), ("served", step.runner, "fallback")
                else:  # a fallback when a runner before it is a candidate (and not free)
                    bits = sum(plan.candidate[r] for r in earlier)
                    yield step, ((bits, True),), ("served", step.runner, "fallback")
                    yield step, ((bits, False),), ("served", step.runner, "")
            else:
                yield step, (), ("refused", None, "no-runner")

    def requested_rules(self, runner: str) -> Iterator[Tuple[Rule, Tuple[Term, ...], Outcome]]:
        """The decision list of a request for *runner* (`matrix._choice.requested`): the first
        redirect of *runner* whose gate is active makes it a request for the redirect's runner;
        then a forcing gate that does not override refuses it; else the last overriding gate
        active chooses its runner; the runner chosen serves unless a gate it says no to is
        active."""
        rules: List[Tuple[Rule, Outcome]] = []
        earlier = 0
        for bit, redirect in self.plan.redirects.get(runner, ()):
            case: Tuple[Term, ...] = ((bit, True),) + (((earlier, False),) if earlier else ())
            rules += self._target_rules(redirect.to, case, "redirected")
            earlier |= bit
        rules += self._target_rules(runner, ((earlier, False),) if earlier else (), "")
        self.asked.steps = [rule for rule, _ in rules]
        for rule, outcome in rules:
            yield rule, (), outcome

    def _target_rules(self, runner: str, case: Tuple[Term, ...], note: str) -> List[Tuple[Rule, Outcome]]:
        """The rules of a request made one for *runner* where *case* holds (*note*: how it was
        made so, said by the answers it serves)."""
        plan = self.plan
        forcing = [(1 << self.bit(f), f) for f in plan.active(plan.forcing)
                   if f.forces is not None and f.forces.runner != runner]
        rules: List[Tuple[Rule, Outcome]] = []
        refusing = sum(bit for bit, f in forcing if f.forces is not None and not f.forces.override)
        if refusing:
            rules.append((Rule("forced", None, (*case, (refusing, True))), ("refused", None, "forced")))
        overriding = [(bit, f) for bit, f in forcing if f.forces is not None and f.forces.override]
        later = 0
        served = note
        for bit, feature in reversed(overriding):
            assert feature.forces is not None
            chosen = feature.forces.runner
            when: Tuple[Term, ...] = (*case, (bit, True)) + (((later, False),) if later else ())
            no = ((plan.no[chosen], False),) if plan.no[chosen] else ()
            said = ", ".join(n for n in ("override", note) if n)
            rules.append((Rule("override", chosen, when + no, bit), ("served", chosen, said)))
            rules.append((Rule("override-blocked", None, when, bit), ("refused", None, "blocked")))
            later |= bit
        no = ((plan.no[runner], False),) if plan.no[runner] else ()
        rules.append((Rule("asked", runner, case + no), ("served", runner, served)))
        rules.append((Rule("asked-blocked", None, case), ("refused", None, "blocked")))
        return rules

    def gate(self, feature_id: str) -> Optional[Feature]:
        return self._gates.get(feature_id)

    def bit(self, gate: Feature) -> int:
        """The index of *gate* in the plan's gates."""
        found = self._bits.get(id(gate))
        return self.plan.features.index(gate) if found is None else found


class Search:
    """The questions of one diff, over one space; regions found, and what was not decided."""

    def __init__(self, old: Side, new: Side, budget: int) -> None:
        self.old, self.new = old, new
        nodes = [g.when.node for side in (old, new) for g in side.plan.features]
        nodes += [n for side in (old, new) if side.exact for n in side.ctx.nodes]
        self.effective = effective_questions(old, new)
        nodes += [n for _, _, question in self.effective for n in question]
        self.space = Space(union_schema(old.matrix.schema, new.matrix.schema), nodes, budget=budget)
        self.split = Split(self.space)
        self.undecided: List[str] = []
        self.changed = self._changed()

    def _changed(self) -> Optional[Tuple[str, List[Node]]]:
        """"Some gate whose entry differs is active on its side": where none is, both sides
        read the same mask of the same gates, so they answer alike when they order the runners
        alike (None when they do not: every config is asked about)."""
        old, new = self.old, self.new
        if [r for r, _ in old.plan.order] != [r for r, _ in new.plan.order]:
            return None
        before, after = _rules_in_order(old.plan), _rules_in_order(new.plan)
        if [r for r in before if r in after] != [r for r in after if r in before]:
            return None  # preferences, forces and orders are read in declaration order
        if old.exact and new.exact and adjusting(old) != adjusting(new):
            return None  # the config of choice differs: any gate may read it differently
        nodes: List[Node] = []
        for this, other in ((old, new), (new, old)):
            for gate in this.plan.features:
                if signature(this, gate) != signature(other, other.gate(gate.id)):
                    # A candidacy decides where it does not hold (the runner is passed over), the
                    # other side having none or another: a runner's candidacy is always one of them.
                    candidacy = isinstance(gate.origin, Runner) and gate.id == f"{gate.origin.id}:candidate"
                    nodes.append(this.on_c(Not(gate.when.node) if candidacy else gate.when.node))
        return "any", nodes

    def _solve(self, question: Dict[str, Any], what: str) -> Optional[Assignment]:
        try:
            return self.split.solve(**question)
        except Inconclusive as error:
            self.undecided.append(_undecided(error, self.space.budget, what))
            return None

    def _goals(self, choice: _Choice, literals: Sequence[Term]) -> Optional[Tuple[List[Node], List[Node]]]:
        return choice.goals(literals) if literals else ([], [])

    def _decides(self, choice: _Choice, step: Rule, split: Tuple[Term, ...]) -> Optional[Dict[str, Any]]:
        question = choice.fires(step, passed=lambda before: False)
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
            if asked and runner not in side.plan.no:
                return  # a runner one side lacks: said by the runner changes
            choice = side.asked if asked else side.automatic
            rules = list(side.requested_rules(runner) if runner is not None else side.automatic_rules())
            live = []
            for step, split, outcome in rules:
                question = self._decides(choice, step, split)
                if question is None:
                    continue
                question["false"] += side.removed(asked)
                if self.changed is not None:
                    question["extra"].append(self.changed)
                if self._solve(question, "where " + _what(runner)) is not None:
                    live.append((step, split, outcome, question))
            sides.append((side, choice, live))
        (_, old_choice, old_live), (_, new_choice, new_live) = sides
        for a_step, _, a_out, a_q in old_live:
            for b_step, _, b_out, b_q in new_live:
                if _same(a_out, b_out):
                    continue
                question = {key: a_q[key] + b_q[key] for key in ("true", "false", "extra")}
                # "Some gate whose entry differs is active" is asked below, cause by cause.
                question["extra"] = [group for group in question["extra"] if group is not self.changed]
                sides_steps = (("old", old_choice, a_step), ("new", new_choice, b_step))
                gates = tuple((s, f.id) for s, choice, step in sides_steps for f in _bound(choice, step))
                for found in self._regions(question, f"whether {_what(runner)} goes from {_said(a_out)} to "
                                                     f"{_said(b_out)} for any config"):
                    excluded = tuple((s, f.id) for s, choice, step in sides_steps for f in _bound(choice, step, False)
                                     if self.space.truth(f.when.node, found) is False)
                    yield Region("asked" if asked else "automatic", runner, a_out, b_out, found, gates,
                                 excluded=excluded, **_question(question))

    def _regions(self, question: Dict[str, Any], what: str) -> Iterator[Assignment]:
        """Where *question* holds and some gate whose entry differs is active (any config when
        the sides order the runners differently): a region with as few such gates active as can
        be (`_fewest_causes`), then again where not all of those are active, until no config is
        left (each region of its own causes: a finding per cause), or `MAX_REGIONS` are found."""
        if self.changed is not None:
            question = {**question, "extra": [*question["extra"], self.changed]}
        found = self._solve(question, what)
        for _ in range(MAX_REGIONS):
            if found is None:
                return
            found = self._fewest_causes(question, found)
            yield found
            active = [node for node in dict.fromkeys(self.changed[1]) if self.space.truth(node, found) is True] \
                if self.changed is not None else []
            if not active:
                return  # every config of the question is said by that one region
            question = {**question, "extra": [*question["extra"], ("any", [Not(node) for node in active])]}
            found = self._solve(question, what)
        if found is not None:
            self.undecided.append(_messages.diff_regions_left(MAX_REGIONS, what))

    def _fewest_causes(self, question: Dict[str, Any], found: Assignment) -> Assignment:
        """A region of the same question where as few gates whose entry differs as can be are
        active: each one active in *found* is asked inactive in turn, and stays so where the
        question still holds (so a finding names the entries that make it, not those its first
        witness happened to use)."""
        if self.changed is None:
            return found
        for node in dict.fromkeys(self.changed[1]):
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
                 blocked: Optional[str] = None) -> Iterator[Region]:
        """For each gate id on either side: configs where it is active and *warned* on one side
        and not on the other (not active there, or not *warned*), no removal refusing either; with
        *asked*, as a request for that runner reads the gates."""
        ids = list(dict.fromkeys(f.id for side in (self.old, self.new) for f in side.plan.features))
        for feature_id in ids:
            for this, other, sign in ((self.new, self.old, "added"), (self.old, self.new, "lifted")):
                gate = this.gate(feature_id)
                choice = this.asked if asked else this.automatic
                if gate is None or gate.id in choice.dead or not warned(this, gate):
                    continue
                there = other.gate(feature_id)
                other_choice = other.asked if asked else other.automatic
                # Configs a removal refuses: on the other side for a removal question, else on either.
                refusing = (other,) if kind == "removal" else (self.old, self.new)
                false = [n for side in refusing for n in side.removed(asked is not None)]
                if there is not None and there.id not in other_choice.dead and warned(other, there):
                    false.append(other.on_c(there.when.node))
                namesakes: List[Feature] = []
                if blocked is not None:
                    # A blocker is said by its name: where another entry of the same name blocks
                    # the runner on the other side (an entry rewritten under a new id), the
                    # config sees no change.
                    namesakes = [g for g in other.plan.features if g.name == gate.name and g.id != feature_id
                                 and g.id not in other_choice.dead and warned(other, g)]
                question = {"true": [this.on_c(gate.when.node)],
                            "false": false + [other.on_c(g.when.node) for g in namesakes], "extra": []}
                found = self._solve(question, f"where {gate.name} changes")
                if found is None:
                    continue
                yield Region(kind, asked, ("", None, ""), ("", None, sign), found, ((this.name, feature_id),),
                             feature=feature_id, blocked=blocked,
                             excluded=tuple((other.name, g.id) for g in namesakes), **_question(question))


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
        self.reads: Dict[Node, FrozenSet[str]] = {}

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
        read = self.reads.get(node)
        if read is None:
            read = self.reads[node] = self.split._read(node)
        return read

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
    def blocks(side: Side, gate: Feature) -> bool:
        return runner in gate.support and gate.status(runner, side.version) in BLOCKING \
            and runner in side.plan.no
    return blocks


def signature(side: Side, gate: Optional[Feature]) -> object:
    """What of a gate decides answers at the side's version (None: the side lacks it)."""
    if gate is None:
        return None
    plan, v = side.plan, side.version
    bit = side.bit(gate)
    origin = gate.origin
    return (str(gate.when), tuple((r.id, gate.status(r.id, v)) for r in side.matrix.runners if r.id in gate.support),
            plan.deprecated >> bit & 1, plan.removed >> bit & 1, gate.forces, gate.prefers, gate.applies,
            None if origin is None else (type(origin).__name__, getattr(origin, "runners", None),
                                         getattr(origin, "to", None)))


def adjusting(side: Side) -> object:
    """What of a side's adjustments decides its answers (every field but names and messages)."""
    def one(a: Any) -> object:
        return (a.id, str(a.when), tuple(sorted((p, repr(v)) for p, v in a.set.items())), a.override, a.runners)

    return (tuple(one(a) for a in side.plan.pre_adjustments),
            tuple(sorted((r, tuple(one(a) for a in own)) for r, own in side.plan.adjustments.items())))


def effective_questions(old: Side, new: Side) -> List[Tuple[str, Tuple[str, ...], List[Node]]]:
    """For each path an adjustment that differs between the sides sets: where its value on the
    config of choice differs (one option per pair of cases, `matrix._check_adjust._terms`), and
    the ids of those adjustments. Only where both sides are ``exact``."""
    from ._check_adjust import _differ, _terms
    from ._substitute import conjoin

    if not (old.exact and new.exact):
        return []
    mine = {a.id: a for a in old.plan.pre_adjustments}
    theirs = {a.id: a for a in new.plan.pre_adjustments}
    differing = [i for i in dict.fromkeys([*mine, *theirs]) if
                 (mine.get(i) is None) != (theirs.get(i) is None) or
                 (i in mine and (adjusting_one(mine[i]) != adjusting_one(theirs[i])))]
    out: List[Tuple[str, Tuple[str, ...], List[Node]]] = []
    for path in dict.fromkeys(p for i in differing for a in (mine.get(i), theirs.get(i)) if a is not None
                              for p in a.set):
        causes = tuple(i for i in differing if any(a is not None and path in a.set
                                                    for a in (mine.get(i), theirs.get(i))))
        fields = [side.matrix.schema.get(path) for side in (old, new)]
        if any(f is not None and f.item_type is not None for f in fields):
            out.append((path, causes, []))  # a list: the search tests no list for equality
            continue
        options = [conjoin([c1, c2, _differ(t1, t2)]) for c1, t1 in _terms(old.ctx.pre, path)
                   for c2, t2 in _terms(new.ctx.pre, path)]
        out.append((path, causes, options))
    return out


def adjusting_one(a: Any) -> object:
    return (str(a.when), tuple(sorted((p, repr(v)) for p, v in a.set.items())), a.override, a.runners)


def _same(a: Outcome, b: Outcome) -> bool:
    return a[0] == b[0] and a[1] == b[1] and (a[0] == "refused" or a[2] == b[2])


def _bound(choice: _Choice, step: Rule, held: bool = True) -> List[Feature]:
    """The gates whose conditions a rule needs to hold (*held*), or not to."""
    out: List[Feature] = []
    for mask, wanted in step.literals:
        if wanted is held:
            out += [f for f in choice.plan.active(mask) if f.id not in choice.dead]
    return out


def _said(outcome: Outcome) -> str:
    status, runner, note = outcome
    if status == "refused":
        return "refused"
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
