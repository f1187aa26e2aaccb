"""From the regions of ``matrix diff``'s search to its findings: one `Difference` per cause
(`_Changes`), with its region's text, its witness and the entries that cause it."""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import attrs

from . import _diff, _messages

from . import resolver as _resolver
from ._diff_entries import _classify, _cosmetic_value, _entry, _located, _message, _order_entry, _runner_entry
from ._diff_observe import (_CONFIG_ERROR, _NOT_DECLARED, _NOT_WARNED, _REMOVED, _copied, _fewest_paths, _literal,
                            _Pinned, _probes, _pruned, _same_value, _term_text, _with, adjustment_named,
                            effective_value, observe, rejection, said_by)
from ._diff_regions import _config_region, _grouped, _holding, _inside, _negated, _union, _unset_region
from ._diff_types import CHANGES, Difference, Entry
from ._nodes import Literal as _Literal, Path, walk
from .errors import ConfigError, ResolutionError
from .schema import Adjustment, Feature

class _Changes:
    """Regions classified, merged by cause and re-resolved."""

    def __init__(self, search: _diff.Search) -> None:
        self.search = search
        self.old, self.new = search.old, search.new
        self.out: List[Difference] = []
        self.unreproduced: List[str] = []
        self._merged: Dict[Tuple[Any, ...], int] = {}
        #: The configs of each finding of a region search (by its index in ``out``), as the
        #: conditions of the regions merged into it: a change folds into another only where its
        #: configs are all the other's (`_folded`).
        self.nodes: Dict[int, List[Any]] = {}

    def side(self, name: str) -> _diff.Side:
        return self.old if name == "old" else self.new

    def add_regions(self, regions: Iterable[_diff.Region]) -> None:
        for region in regions:
            self.add(region)

    def causes(self, region: _diff.Region) -> List[Tuple[str, Feature]]:
        """The gates whose entry differs between the sides (or exists on one side only) that are
        causes in the region (`matrix._diff.Side.cause`: active, or a candidacy that does not
        hold), each on the side where it stands (the old side for a gate gone)."""
        if region.feature is not None:
            side = self.side(region.gates[0][0])
            gate = side.gate(region.feature)
            assert gate is not None
            return [(side.name, gate)]
        causes = self.causes_at(region.assignment, asked=region.kind == "asked")
        # An adjustment's gate decides no answer of choice (its adjustment does, where it changes
        # a value: `matrix._diff.Search.adjusted`): named only there (a region that holds its
        # condition for another cause, a role's refusal, named one that changes nothing).
        changing = self.search.adjusted()
        if changing is None:
            return causes
        holding = {a.id for _, a, node in changing if self.search.space.truth(node, region.assignment) is True}
        return [(side, gate) for side, gate in causes if not isinstance(gate.origin, Adjustment)
                or gate.origin.id in holding]

    def causes_at(self, assignment: _diff.Assignment, asked: bool = False) -> List[Tuple[str, Feature]]:
        """The gates whose entry differs between the sides that are causes at *assignment*
        (`causes`); with *asked*, of a request, which never reads a gate's ``prefers`` (issue 28:
        a preference made outright was named beside a change of a request's refusal)."""
        out: List[Tuple[str, Feature]] = []
        seen = set()

        def read(side: _diff.Side, gate: Optional[Feature]) -> object:
            said = _diff.signature(side, gate, self.search.shared)
            # The sixth part of a signature is the gate's prefers (`matrix._diff.signature`).
            return said[:5] + said[6:] if asked and isinstance(said, tuple) else said

        def on_its_f(side: _diff.Side, gate: Feature) -> bool:
            return bool(self.on_its_f(side, gate, assignment))

        # On the config of choice first; where no gate that differs is a cause there, on the F of a
        # runner it refuses (the resolution ends there: refused, or passed over after its F failed).
        for reading in ("c", "f"):
            for side in (self.new, self.old):
                for gate in side.plan.features:
                    if gate.id in seen:
                        continue
                    if reading == "c" and self.search.space.truth(side.cause(gate), assignment) is not True \
                            or reading == "f" and not on_its_f(side, gate):
                        continue
                    other = (self.old if side is self.new else self.new)
                    if read(side, gate) != read(other, other.gate(gate.id)):
                        seen.add(gate.id)
                        out.append((side.name, gate))
            if out:
                break
        return out

    def on_its_f(self, side: _diff.Side, gate: Feature, assignment: _diff.Assignment) -> List[Any]:
        """*gate*'s condition read on the effective config F of each runner with adjustments of its
        own that it refuses, where that holds at *assignment* (a user trial: a requirement
        tightened that ISA-L fails after its own adjustment sets what it reads was said at
        ``[matrix] runners``, with no feature)."""
        if _diff._candidacy(gate):
            return []
        bit = side.bit(gate)
        return [node for r in side.plan.no
                if side.own(r) and (side.plan.no.get(r, 0) | side.plan.blocking.get(r, 0)) >> bit & 1
                for node in (side.on_f(r, gate.when.node),) if self.search.space.truth(node, assignment) is True]

    def cause_node(self, side: _diff.Side, gate: Feature, assignment: _diff.Assignment) -> Any:
        """Where *gate* is a cause, as it holds at *assignment* (`causes_at`): on the config of
        choice (`matrix._diff.Side.cause`), else on the F of a runner it refuses."""
        node = side.cause(gate)
        if self.search.space.truth(node, assignment) is True:
            return node
        return next(iter(self.on_its_f(side, gate, assignment)), node)

    def reprioritised(self) -> Tuple[Entry, ...]:
        """The runners of both sides whose priority differs, each where it stands on the new side
        (its runner file, or the overlay's line that set it): what decides a change no gate causes."""
        old = {self.old.ids.get(r.id, r.id): r.priority for r in self.old.matrix.runners}
        return tuple(_runner_entry(self.new, r.id, ("priority",)) for r in self.new.matrix.runners
                     if r.id in old and old[r.id] != r.priority)

    def standing(self, region: _diff.Region, side: str, gate: Feature) -> Tuple[_diff.Side, Feature]:
        """Where the entry of a one-gate question's gate stands: on the new side where it has the
        gate (on a composed matrix, the overlay's line that changed it), the old side only for a
        gate gone (a blocker an overlay lifted was said at upstream's line, where it was active)."""
        now = self.new.gate(gate.id) if region.feature == gate.id else None
        return (self.new, now) if now is not None else (self.side(side), gate)

    def standing_at(self, side: str, gate: Feature) -> Tuple[_diff.Side, Feature]:
        """Where a gate that differs stands: on the new side where it has it, else the old."""
        now = self.new.gate(gate.id)
        return (self.new, now) if now is not None else (self.side(side), gate)

    def one_sided(self, region: _diff.Region) -> List[Tuple[str, str]]:
        """The runners only one side has that the region's answers involve, as (side, runner id):
        one that answers on its side, or one passed over there (automatic choice: it is not the
        answer); none for a one-gate question. A runner added or removed is a cause of its own."""
        if region.feature is not None:
            return []
        out = []
        for side, outcome in ((self.old, region.old), (self.new, region.new)):
            for runner in side.matrix.runners:
                if side.ids.get(runner.id, runner.id) in self.search.shared:
                    continue
                if outcome[1] == runner.id or region.kind == "automatic":
                    out.append((side.name, runner.id))
        return out

    def blocking_one_sided(self, region: _diff.Region, runners: Sequence[Tuple[str, str]],
                           causes: Sequence[Tuple[str, Feature]]) -> List[Tuple[str, Feature]]:
        """The gates active in the region that block a one-sided runner passed over there (they
        decide its answer: the choice moves past it), beside *causes*."""
        out: List[Tuple[str, Feature]] = []
        known = {g.id for _, g in causes}
        for name, runner in runners:
            side = self.side(name)
            answer = region.old if side is self.old else region.new
            if answer[1] == runner:
                continue
            blocks = _diff.blocking(runner)
            for gate in side.plan.features:
                if gate.id not in known and blocks(side, gate) and \
                        self.search.space.truth(side.on_c(gate.when.node), region.assignment) is True:
                    known.add(gate.id)
                    out.append((side.name, gate))
        return out

    def add(self, region: _diff.Region) -> None:
        change_id = _classify(region, self.old, self.new)
        causes = self.causes(region)
        runners = self.one_sided(region)
        causes += self.blocking_one_sided(region, runners, causes)
        if causes and not any(r in (region.old[1], region.new[1]) for _, r in runners) \
                and not any(_diff.blocking(r)(self.side(n), g) for n, r in runners for s, g in causes if s == n):
            runners = []  # passed over where nothing blocks it, and other causes: not what decides
        # The configs of a question are those where the adjustments named change a value: a
        # question of choice asks again where they do not (`_diff.Search._regions`), a one-gate
        # question too, its adjustments one entry each, changing a value on either side
        # (`_diff.Search.one_gate`, `bounds`).
        adjusted = [(side, a, node) for side, a, node in (self.search.adjusted() or [])
                    if self.search.space.truth(node, region.assignment) is True] if region.feature is None else \
            self.gate_adjusting(region.feature, region.assignment)
        bounding = [node for _, _, node in adjusted]
        # A role's refusal by rules that differ and are no gate (`matrix._diff_role_rules`).
        roles = self.role_causes(region)
        bounding += [cause.node for cause in roles]
        # A field left out whose default differs is a cause like an entry (`matrix._diff.unset_defaults`):
        # where the choice's question found it one (`matrix._diff.Search._regions`), or a one-gate
        # question held its region to it (`bounds`).
        unset = self.unset_causes(region)
        if region.feature is None:
            bounding += [_diff.unset_guard(p, self.search.space.schema) for p in unset]
        avoid = [g.when.node for side in (self.old, self.new) for g in side.plan.features
                 if g.id not in {c.id for _, c in causes}]
        witness = self.search.witness(self.search.unnamed_roles(region), avoid=avoid)
        seen = self.observe(region, witness)
        if seen is None:
            return
        if any(text.startswith(_CONFIG_ERROR) for text in seen):
            return  # a value one side's [config] refuses: said by the config-* finding of its field (`config`)
        # One finding per cause and per pair of answers: configs merged into one finding all go
        # from the same answer to the same answer (review finding W5).
        key = (change_id, region.runner, region.blocked, seen, tuple(g.id for _, g in causes) + tuple(unset),
               tuple(runners) + tuple((side.name, a.id) for side, a, _ in adjusted)
               + tuple((cause.side, cause.role, cause.runner) for cause in roles))
        region_text = self.region_text(region, causes, bounding)
        if region.kind in ("removal", "deprecation") and region.runner is not None:
            # What a request reads of a removal (or a deprecation) is said by automatic choice's
            # finding of the same gate where both describe the same configs (a gate that applies
            # in both modes).
            automatic = self._merged.get((change_id, None, None, seen, key[-2], key[-1]))
            if automatic is not None and self.out[automatic].region == region_text:
                return
        if key in self._merged:
            index = self._merged[key]
            before = self.out[index]
            self.nodes[index].append(self.region_node(region, causes, bounding))
            if region_text not in before.region.split(" or "):
                self.out[index] = attrs.evolve(before, region=f"{before.region} or {_grouped(region_text)}")
            return
        inside = _inside(region_text, self.search.space.schema)

        def same(config: Dict[str, Any]) -> bool:  # the same answers, and still in the region
            return self.answers(region, config) == seen and inside(config)

        witness = self.shortened(witness, same)  # the same answers on both sides, said with only the paths that matter
        old_text, new_text = seen
        entries = tuple(_runner_entry(self.side(side), runner) for side, runner in runners) + \
            tuple(_entry(*self.standing(region, side, gate)) for side, gate in causes) + \
            tuple(dict.fromkeys(_located(self.adjustment_standing(side, a.id), ("adjustments", a.id))
                                for side, a, _ in adjusted)) + \
            self.default_entries(unset) + \
            tuple(entry for cause in roles for entry in self.role_entries(cause))
        entries = tuple(dict.fromkeys(entries)) or self.reprioritised() or (_order_entry(self.new),)
        message = _message(change_id, region, old_text, new_text, self.new, self.old)
        self._merged[key] = len(self.out)
        self.nodes[len(self.out)] = [self.region_node(region, causes, bounding)]
        self.out.append(Difference(change_id, CHANGES[change_id][0], message, _grouped(region_text, alone=True),
                                   witness, old_text, new_text, runner=region.runner or region.blocked,
                                   features=tuple(g.id for _, g in causes) +
                                   tuple(dict.fromkeys(a.id for _, a, _ in adjusted)), entries=entries))

    def shortened(self, witness: Dict[str, Any], same: Callable[[Dict[str, Any]], bool]) -> Dict[str, Any]:
        """*witness* with the paths neither side reads left out where it still answers as *same*
        asks (`_pruned`), then with as few paths as keep it so (`_fewest_paths`)."""
        shorter = _pruned(witness, self.old, self.new)
        if shorter != witness and same(shorter):
            witness = shorter
        return _fewest_paths(witness, same)

    def adjustment_standing(self, side: _diff.Side, adjustment_id: str) -> _diff.Side:
        """Where an adjustment that differs stands: the new side where it has it, else the old
        (a user trial: one changed was named twice, once on each side)."""
        return self.new if adjustment_named(self.new, adjustment_id) is not None else side

    def role_causes(self, region: _diff.Region) -> List[Any]:
        """The causes of a role's refusal that are no gate (`matrix._diff_role_rules`) that hold
        in a region of choice (a one-gate question has its gate)."""
        if region.feature is not None:
            return []
        return [c for c in self.search.role_causes() if self.search.space.truth(c.node, region.assignment) is True]

    def role_entries(self, cause: Any) -> List[Entry]:
        """The entries that differ between the sides for *cause*'s role and runner, each where it
        stands (the new side where it has it): the role's ``[roles]`` entry, each kind of the
        runner's requirements that name the role, each requirement gate of it whose roles differ."""
        from ._diff_role_rules import clauses, declared, gates

        old, new = self.old, self.new
        role, runner = cause.role, cause.runner
        out: List[Entry] = []
        if declared(old, role) != declared(new, role):
            out.append(_located(new if declared(new, role) is not None else old, ("roles", role)))
        kinds = dict.fromkeys(k for side in (new, old) for k, _ in clauses(side, role, runner))
        for kind in kinds:
            said = [[c for c in clauses(side, role, runner) if c[0] == kind] for side in (old, new)]
            if said[0] != said[1]:
                side = new if said[1] else old
                out.append(_runner_entry(side, side.local(runner) or runner, ("requires", kind)))
        read = [{g[0]: g for g in gates(side, role, runner)} for side in (old, new)]
        for gate_id in dict.fromkeys([*read[1], *read[0]]):
            if read[0].get(gate_id) != read[1].get(gate_id):
                side = new if gate_id in read[1] else old
                gate = side.gate(gate_id)
                if gate is not None:
                    out.append(_entry(side, gate))
        return out

    def unset_causes(self, region: _diff.Region) -> List[str]:
        """The fields whose default differs that are causes of *region*: left out there, where
        the choice's search asks for regions of causes (`matrix._diff.Search._changed`), or held
        to be by a one-gate question (`bounds`)."""
        search = self.search
        if not search.unset:
            return []
        if region.feature is not None:
            return [p for p in search.unset if _diff.unset_guard(p, search.space.schema) in region.true]
        return search.unset_at(region.assignment) if search.changed is not None else []

    def default_entries(self, paths: Iterable[str]) -> Tuple[Entry, ...]:
        """The ``[config]`` line of each field of *paths* (its default differs), on the new side."""
        return tuple(_located(self.new, ("config", p)) for p in paths)

    def writes_what_it_reads(self, side: _diff.Side, adjustment: Any, feature: str) -> bool:
        """Whether *adjustment* (of *side*) writes a path the gate *feature* reads on either side,
        or one that an adjustment of *side* reads (its ``when`` or a ``from``) that writes such a
        path, and so on (`feeds`): where it changes a value, it may make the gate apply or stop
        applying."""
        reads = {p for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None for p in g.when.paths}
        return self.feeds(side, adjustment, reads)

    def feeds_either(self, adjustment_id: str, reads: Set[str]) -> bool:
        """`feeds` of the adjustment *adjustment_id* as either side has it (one that sets a path on
        one side only, a notice on the other, changes a value where it does)."""
        return any(self.feeds(side, mine, reads) for side in (self.old, self.new)
                   for mine in (adjustment_named(side, adjustment_id),) if mine is not None)

    def gate_adjusting(self, feature: str, found: _diff.Assignment) -> List[Any]:
        """The adjustments named beside the gate *feature* in the region *found*, as (side,
        adjustment, where it changes a value): those that differ, change a value there and write
        what the gate reads; where none does and the gate stands alike on both sides, those that
        differ and change a value there (they move the resolution to where its blockers are read
        otherwise: the brute force found one that set b, which a requirement reads, lift a
        blocker of g0 read on the runner's effective config, said caused by g0 alone)."""
        reads = {p for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None for p in g.when.paths}
        here = self.adjusting_here(found=found)
        out = [(side, a, node) for side, a, node in here if self.feeds_either(a.id, reads)]
        if out or len({_diff.signature(side, side.gate(feature), self.search.shared)
                       for side in (self.old, self.new)}) > 1:
            return out
        return here

    def adjusting_here(self, *, found: Optional[_diff.Assignment] = None, witness: Optional[Dict[str, Any]] = None,
                       asked: Optional[str] = None, exclude: Optional[str] = None) -> List[Tuple[_diff.Side, Any, Any]]:
        """The adjustments that differ and change a value here, as (side, adjustment, where it
        changes a value): the one rule of the causes named where nothing else that differs is read
        there (they move the resolution, whatever they write). Here is a region's assignment
        *found* (where it holds whole), or a witness (where it holds, and the adjustment runs:
        `runs`, in automatic choice or a request for *asked*); *exclude* is the adjustment a
        finding is about."""
        search = self.search
        return [(side, a, node) for side, a, node in search.changing() if a.id != exclude and (
            search.space.truth(node, found) is True if found is not None
            else witness is not None and search.holds(node, witness) and self.runs(a.id, witness, asked))]

    def bounds(self, feature: str, found: _diff.Assignment) -> List[Any]:
        """Where the adjustments named beside the gate *feature* in the region *found* change a
        value (`gate_adjusting`, as `add` names them): a one-gate region holds where they do
        (`matrix._diff.Search.one_gate`)."""
        out = [node for _, _, node in self.gate_adjusting(feature, found)]
        # A field left out there whose default differs, read by the gate (on the config of choice).
        read = {n.name for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None
                for n in walk(s.on_c(g.when.node)) if isinstance(n, Path)}
        return out + [_diff.unset_guard(p, self.search.space.schema) for p in self.search.unset_at(found)
                      if _diff.unset_path(p) in read]

    def conjuncts(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                  adjusting: Sequence[Any] = ()) -> List[Tuple[Any, bool]]:
        """The question a region answers, with its causes active, as (condition, holds) pairs."""
        from ._nodes import Or

        conjuncts: List[Tuple[Any, bool]] = [(node, False) for node in region.false]
        conjuncts += [(group[0] if len(group) == 1 else Or(group), True) for group in region.groups]
        conjuncts += [(node, True) for node in region.true]
        if region.feature is None:  # a one-gate question holds its gate as read (a blocker: on C or on F)
            conjuncts += [(self.cause_node(self.side(side), gate, region.assignment), True) for side, gate in causes]
        conjuncts += [(node, True) for node in adjusting]  # where an adjustment that differs changes a value
        return conjuncts

    def region_node(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                    adjusting: Sequence[Any] = ()) -> Any:
        """The configs of a region as one condition (its text's, before the text drops what the
        rest implies)."""
        from ._nodes import And, Not

        return And(tuple(node if holds else Not(node) for node, holds in self.conjuncts(region, causes, adjusting)))

    def region_text(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                    adjusting: Sequence[Any] = ()) -> str:
        """The configs of a region, exactly, as the conditions that bound it: the question the
        region answers (its deciding rules, the earlier rules that do not hold, the removals
        that do not refuse) with its causes active, less every condition the others imply
        (`matrix._diff.Search.fewest_conjuncts`). Conditions read the config as given: a gate
        that reads the config of choice is said rewritten (`matrix._substitute`)."""
        from ._nodes import Or

        conjuncts = self.conjuncts(region, causes, adjusting)
        self._text(Or(()))  # the gates' own texts, known
        kept = self.search.fewest_conjuncts(conjuncts, whole=self._texts)
        first = [self.cause_node(self.side(side), gate, region.assignment) for side, gate in causes]  # said first
        positive = sorted((node for node, wanted in kept if wanted),
                          key=lambda node: first.index(node) if node in first else len(first))
        return self._conjunction(positive, [n for n, w in kept if not w])

    def _conjunction(self, positive: Sequence[Any], negative: Sequence[Any]) -> str:
        """Conditions that hold (*positive*) and that do not (*negative*) as one text, in that
        order, each said once ("every config" for none)."""
        from ._nodes import Not

        texts = [self._text(node) for node in positive]
        texts = [f"({t})" if " or " in t else t for t in texts]
        for node in negative:
            if isinstance(node, Not):  # ``not (not x)`` said as ``x``
                inner = self._text(node.operand)
                texts.append(f"({inner})" if " or " in inner else inner)
            else:
                texts.append(self._negative(node))
        return " and ".join(dict.fromkeys(texts)) or "every config"

    def _negative(self, node: Any) -> str:
        """The text of ``not node``: ``x != v`` for ``x == v`` (the same configs: a comparison
        with None is False but for ``!=``), the path first."""
        from ._nodes import Compare, Literal

        if isinstance(node, Compare) and node.op == "==" and self._plain_bool(node) is None:
            left, right = (node.right, node.left) if isinstance(node.left, Literal) else (node.left, node.right)
            return self._text(Compare(left, "!=", right))
        return _negated(self._text(node))

    def _text(self, node: Any) -> str:
        from ._nodes import Or

        if not hasattr(self, "_texts"):
            # A gate whose condition reads the config as given is said as the matrix writes it.
            self._texts: Dict[Any, str] = {}
            for side in (self.old, self.new):
                for gate in side.plan.features:
                    on_c = side.on_c(gate.when.node)
                    if on_c == gate.when.node or self._equivalent(on_c, gate.when.node):
                        # Read on C, it holds exactly where it holds on the config as given (the
                        # adjustments leave what it reads alone): said as the matrix writes it.
                        self._texts.setdefault(on_c, str(gate.when))
        if isinstance(node, Or):
            return " or ".join(f"({t})" if " and " in t or " or " in t else t
                               for t in (self._text(o) for o in node.operands))
        from ._nodes import And, Not

        if isinstance(node, Path) and node.name.startswith(_diff.UNSET):
            return f"{_diff.unset_text(node.name, self.search.space.schema)} is unset"

        known = self._texts.get(node)
        if known is not None:
            return known
        plain = self._plain_bool(node)
        if plain is not None:
            return plain
        if isinstance(node, And):
            return " and ".join(f"({t})" if " or " in t else t for t in (self._text(o) for o in node.operands))
        if isinstance(node, Not):
            if isinstance(node.operand, Not):  # ``not (not x)`` said as ``x``
                return self._text(node.operand.operand)
            return self._negative(node.operand)
        from ._nodes import Compare, Literal

        if isinstance(node, Compare) and isinstance(node.right, Literal) and isinstance(node.right.value, tuple):
            # A list field's default read in its place: said as the list a matrix writes.
            return f"{node.left} {node.op} {list(node.right.value)!r}"
        return str(node)

    def _plain_bool(self, node: Any) -> Optional[str]:
        """``x == True`` said ``x`` (``x == False``: ``not x``) for a bool field that is never None
        (a rewritten condition compares a path with the value an adjustment sets)."""
        from ._nodes import Compare, Literal, Path

        if not (isinstance(node, Compare) and node.op == "=="):
            return None
        path, value = (node.left, node.right) if isinstance(node.left, Path) else (node.right, node.left)
        if not (isinstance(path, Path) and isinstance(value, Literal) and isinstance(value.value, bool)):
            return None  # ``True == x`` alike: the rewriting puts the value an adjustment sets first
        field = self.search.space.schema.get(path.name)
        if field is None or field.type != "bool" or field.nullable:
            return None
        return path.name if value.value else f"not {path.name}"

    def _equivalent(self, a: Any, b: Any) -> bool:
        """Whether two conditions hold for the same configs (False where a search gives up)."""
        from ._space import Inconclusive

        try:
            return all(self.search.split.solve(true=[x], false=[y]) is None for x, y in ((a, b), (b, a)))
        except Inconclusive:
            return False

    def config(self) -> None:
        """``[config]`` as each side has it at its version: a value one side accepts and the
        other refuses (a field, a choice, a bound or None gone or added), and a default that
        changed; each value re-resolved on both sides before it is said."""
        from .schema import NOTHING

        old, new = (side.matrix.schema.at(side.version) for side in (self.old, self.new))
        required = _diff.required_fields(self.old.plan, self.new.plan)
        for path in dict.fromkeys([*old.fields, *new.fields]):
            a, b = old.fields.get(path), new.fields.get(path)
            if a == b:
                continue
            # Every other field either side requires, set to a value both accept: a probe is
            # refused for its own value only (review of issue 28, D2: a value of threads was said
            # accepted now, where the old side refused the probe for leaving req out).
            base = self.settled(required, path, old, new)
            flips: Dict[str, List[Tuple[object, str]]] = {"config-rejected": [], "config-accepted": []}
            for value in _probes(a, b):
                config = _with(base, path, value)
                seen = [rejection(side.matrix, config, side.version) for side in (self.old, self.new)]
                if (seen[0] is None) != (seen[1] is None):
                    flips["config-rejected" if seen[0] is None else "config-accepted"].append(
                        (value, seen[0] or seen[1] or ""))
            for change_id, values in flips.items():
                if not values:
                    continue
                narrow = (b if change_id == "config-rejected" else a)
                if narrow is not None and narrow.type in ("int", "float"):  # the witness next to the bound that moved
                    bounds = [x for x in (narrow.min, narrow.max) if x is not None]
                    values.sort(key=lambda found: min((abs(found[0] - x) for x in bounds), default=0)
                                if isinstance(found[0], (int, float)) else float("inf"))
                side = self.new if b is not None else self.old  # a field gone: its old line
                value, error = values[0]
                region = _config_region(path, a, b, [v for v, _ in values], change_id == "config-rejected")
                old_text, new_text = ("accepted", _CONFIG_ERROR) if change_id == "config-rejected" else \
                    (_CONFIG_ERROR, "accepted")
                message = _messages.diff_config_value(path, change_id == "config-rejected", error)
                if (b if change_id == "config-rejected" else a) is None:
                    # Refused where the field is not declared: `resolve()` ignores a key [config]
                    # does not declare (strict=False, its default), `resolve(strict=True)` and
                    # `matrix resolve` refuse it (a user trial: "now a config error" was untrue of
                    # the first). A value the declaring side refuses (None, not nullable) is one.
                    change_id = "config-field-removed" if b is None else "config-field-added"
                    old_text, new_text = ("declared", _NOT_DECLARED) if b is None else (_NOT_DECLARED, "declared")
                    message = _messages.diff_config_field(path, removed=b is None)
                self.out.append(Difference(change_id, CHANGES[change_id][0], message, region,
                                           _with(base, path, value), old_text, new_text,
                                           entries=(_located(side, ("config", path)),)))
            if a is not None and b is not None and (a.default is NOTHING) != (b.default is NOTHING):
                # A default gone (the field now required) or given: a config that leaves it out is
                # refused on one side only.
                seen = [rejection(side.matrix, base, side.version) for side in (self.old, self.new)]
                if (seen[0] is None) != (seen[1] is None):
                    change_id = "config-rejected" if seen[0] is None else "config-accepted"
                    self.out.append(Difference(
                        change_id, CHANGES[change_id][0],
                        _messages.diff_config_value(path, change_id == "config-rejected", seen[0] or seen[1] or ""),
                        f"{path} is unset", base, *(("accepted", _CONFIG_ERROR) if change_id == "config-rejected"
                                                  else (_CONFIG_ERROR, "accepted")),
                        entries=(_located(self.new, ("config", path)),)))
            if a is not None and b is not None and a.default is not NOTHING and b.default is not NOTHING \
                    and not _same_value(a.default, b.default):
                # The field's own finding; what a config that leaves it unset resolves to is compared
                # with every other config (`matrix._diff.unset_defaults`): the findings whose
                # regions say ``PATH is unset``.
                # Its witness leaves it out of the sections above it, there (a nullable section left
                # out reads None, not the field's default).
                # Every field either side requires set (`settled`): both sides accept it.
                witness = _with(base, path.rsplit(".", 1)[0], {}) if "." in path else base
                self.out.append(Difference(
                    "config-default-changed", "behaviour", _messages.diff_config_default(path, a.default, b.default),
                    _unset_region(path, new), witness, repr(a.default), repr(b.default),
                    entries=(_located(self.new, ("config", path)),)))

    def settled(self, required: Set[str], path: str, old: Any, new: Any) -> Dict[str, Any]:
        """A config that sets each field of *required* but *path* (and those above or below
        it, and those below a nullable section), each to the first value of its probes that
        neither side refuses it for (`rejection` does not name it)."""
        from ._space import _representatives, json_value

        config: Dict[str, Any] = {}
        for other in sorted(required):
            if other == path or other.startswith(path + ".") or path.startswith(other + "."):
                continue
            parts = other.split(".")
            if any(f is None or f.nullable for i in range(1, len(parts))
                   for f in (new.fields.get(".".join(parts[:i])) or old.fields.get(".".join(parts[:i])),)):
                continue
            named = f"Config '{other}'"
            fields = (old.fields.get(other), new.fields.get(other))
            # Its probes, then a value of each class of its domain (a field without bound,
            # choice or default has no probe but None).
            for value in [*_probes(*fields), *(json_value(v) for f in fields if f is not None
                                               for v in _representatives(f, [])[0])]:
                if value is None:
                    continue
                tried = _with(config, other, value)
                if not any(named in (rejection(side.matrix, tried, side.version) or "")
                           for side in (self.old, self.new)):
                    config = tried
                    break
        return config

    def cosmetic(self) -> None:
        """Names, notes, links and groups that changed (no config answers differently)."""
        old, new = self.old.matrix, self.new.matrix
        for after in new.features:
            before = next((f for f in old.features if f.id == after.id), None)
            if before is None:
                continue
            for change_id, what, a, b in (("renamed", "name", before.name, after.name),
                                          ("note-changed", "note", before.note, after.note),
                                          ("links-changed", "links", before.links, after.links),
                                          ("group-changed", "group", before.group, after.group)):
                if a != b:
                    a, b = _cosmetic_value(a), _cosmetic_value(b)
                    self.out.append(Difference(change_id, CHANGES[change_id][0], f"{after.name}: {what} {a} → {b}",
                                           "no config", {}, a, b, features=(after.id,),
                                           entries=(_entry(self.new, after),)))
        # A runner's name, compared by its id on the new side (its former id where it was renamed
        # with an alias: a user trial found the name of a runner renamed both ways lost), said at
        # its runner file (it was said at [matrix] runners).
        formers = {now: was for was, now in self.search.renamed.items()}
        for runner in new.runners:
            was = formers.get(runner.id, runner.id)
            if was in {r.id for r in old.runners} and old.runner(was).name != runner.name:
                self.out.append(Difference("renamed", "cosmetic", f"Runner {runner.id!r}: name "
                                       f"{old.runner(was).name!r} → {runner.name!r}", "no config", {},
                                       repr(old.runner(was).name), repr(runner.name), runner=runner.id,
                                       entries=(_runner_entry(self.new, runner.id),)))
        for was, now in self.search.renamed.items():  # an id renamed, the former one kept as an alias
            self.out.append(Difference("renamed", "cosmetic",
                                       _messages.diff_runner_renamed(was, now, _diff.alias_removed(self.new, was)),
                                       "no config", {}, repr(was), repr(now), runner=now,
                                       entries=(_runner_entry(self.new, now),)))

    def effective(self, runners: Sequence[str] = ()) -> None:
        """Paths whose value after the adjustments differs (`matrix._diff.effective_questions`):
        a finding per path and per cause (`rounds`), caused by the adjustments that differ and
        change a value where it differs (or, where none does, the gates that differ there: the
        resolutions end on another runner's effective config), for automatic choice and for a
        request for each of *runners* (where a request's configs are automatic choice's, that
        finding says it)."""
        search = self.search
        for path, causes, by_runner, read_as in search.effective:
            field = search.space.schema.get(path)
            if field is not None and field.item_type is not None:
                search.undecided.append(_messages.diff_not_compared(
                    f"the effective value of {path}", "a config an adjustment changes (a list)"))
                continue

            def where(asked: Optional[str], extra: List[Any], path: str = path,
                      by_runner: Any = by_runner) -> Optional[_diff.Assignment]:
                return search.effective_region(path, by_runner, asked=asked, extra=extra)

            def value(asked: Optional[str], path: str = path) -> Callable[[_diff.Side, Dict[str, Any]], str]:
                return lambda at, config: effective_value(at, config, path, asked)

            def pin(asked: Optional[str], witness: Dict[str, Any], seen: Tuple[str, ...], named: List[Any],
                    path: str = path, by_runner: Any = by_runner, read_as: Any = read_as) -> Optional[_Pinned]:
                # The terms the witness reads on each side: a literal is said as it is, any other
                # term (the config's own value, a field it copies) as that term, or as the
                # witness's value where every config of the region reads it.
                terms = search.reading(by_runner, read_as, asked, witness)
                if terms is None:
                    return None

                def settle(goals: List[Any], terms: Tuple[Any, Any] = terms) -> Tuple[str, ...]:
                    return tuple(text if isinstance(term, _Literal) or isinstance(term, Path) and (
                        value := _literal(text)) is not None and search.read_alike(goals, term.name, value)
                        else _term_text(term, path, text) for term, text in zip(terms, seen))

                return _diff.pinned(by_runner, read_as, terms), settle

            for asked, witness, seen, named, found, region, stated in self.rounds(
                    by_runner, runners, where, value, "effective", {path}, pin=pin):
                entries = [_located(side, ("adjustments", a.id)) for side, a, _ in named]
                ids = tuple(a.id for _, a, _ in named)
                if not ids:  # no adjustment that differs changes a value there: what else differs
                    # (an adjustment's own gate only where it runs: `runs`)
                    gates = [(standing, gate) for standing, gate in self.causes_at(found)
                             if not isinstance(gate.origin, Adjustment) or self.runs(gate.origin.id, witness, asked)]
                    entries = [_entry(*self.standing_at(standing, gate)) for standing, gate in gates]
                    entries += self.default_entries(search.unset_at(found))  # a default read that differs
                    ids = tuple(gate.id for _, gate in gates)
                    if not entries:  # the adjustments that differ and change a value here (another F)
                        named_here = self.adjusting_here(witness=witness, asked=asked)
                        entries = [_located(side, ("adjustments", a.id)) for side, a, _ in named_here]
                        ids = tuple(a.id for _, a, _ in named_here)
                    if not entries:  # not known what else: the adjustments that set it
                        entries = [_located(next(side for side in (self.new, self.old)
                                                 if adjustment_named(side, c) is not None), ("adjustments", c))
                                   for c in causes]
                        ids = causes
                sides = {side.name for side, _, _ in named}
                change_id = ("adjustment-changed" if any(adjustment_named(self.old, a.id) is not None
                                                         and adjustment_named(self.new, a.id) is not None
                                                         for _, a, _ in named)
                             else "adjustment-added" if sides == {"new"} else "adjustment-removed"
                             if sides == {"old"} else "adjustment-changed")
                said = stated or _copied(path, seen, named, (self.old, self.new))
                message = self._asking(asked, _messages.diff_effective(path, said[0], said[1]))
                self.out.append(Difference(change_id, CHANGES[change_id][0], message, region, witness, said[0],
                                           said[1], runner=asked, features=ids, entries=tuple(dict.fromkeys(entries))))

    def rounds(self, by_runner: Dict[Any, List[Any]], runners: Sequence[str],
               search: Callable[[Optional[str], List[Any]], Optional[_diff.Assignment]],
               read: Callable[[Optional[str]], Callable[[_diff.Side, Dict[str, Any]], str]], what: str,
               reads: Set[str], subject: Optional[str] = None,
               pin: Optional[Callable[[Optional[str], Dict[str, Any], Tuple[str, ...], List[Any]],
                                      Optional[_Pinned]]] = None
               ) -> Iterator[Tuple[Optional[str], Dict[str, Any], Tuple[str, ...], List[Any], _diff.Assignment, str,
                                   Optional[Tuple[str, ...]]]]:
        """The regions where what *by_runner*'s options say differs (an effective value, or what an
        adjustment says: *read* of a request for a runner, None for automatic choice, gives it), one
        per cause: for automatic choice and a request for each of *runners*, a witness *search*
        finds (the same runner or none chosen on both sides, the groups it is given each holding),
        the adjustments that differ and change a value there and write a path of *reads* (or one an
        adjustment writing such a path reads: `feeds`; *subject*, the adjustment a warning is
        about, left out), and the region, exactly (`options_text`), where those change a value;
        then again where not all of them do, until no config is left or none is named (at most
        `matrix._diff.MAX_REGIONS`, the rest said in ``undecided``). Each as (runner asked for,
        witness, what each side reads there, the adjustments named as (side, adjustment, where it
        changes a value), the search's assignment, the region). A request whose regions are
        automatic choice's (the same configs change, by the same causes) is said by its findings.
        With *pin* (the request, the witness, what each side reads there, the adjustments named →
        *by_runner*'s options held to the configs that read so, `matrix._diff.pinned`, and what
        each side reads said for the region's cases, yielded last), a region holds only the configs
        that change as its witness does, and the rest are asked again."""
        from ._nodes import Not
        from ._substitute import disjoin, negate

        if not by_runner:
            return
        options = [n for nodes in by_runner.values() for n in nodes]
        automatic: Optional[List[Any]] = None
        covered = False  # whether automatic choice's findings say every config of its regions
        said: Set[Tuple[str, Tuple[str, ...]]] = set()
        for asked in [None, *runners]:
            base = self.search.exact_regions(by_runner, asked)
            if asked is not None and base == automatic and covered:
                continue  # the same cases (no runner's own adjustments read apart), said by automatic choice's
            if asked is None:
                automatic = base
            groups: List[List[Any]] = []
            found = search(asked, [])
            whole = False  # the regions said hold every config where it differs
            for _ in range(_diff.MAX_REGIONS):
                if found is None:
                    break
                settled = self._witness(found, read(asked), what, asked, _holding(groups, self.search.holds))
                if settled is None:
                    break
                witness, seen = settled
                named = [(side, a, node) for side, a, node in self.search.changing()
                         if a.id != subject and self.feeds_either(a.id, reads) and self.search.holds(node, witness)
                         and self.runs(a.id, witness, asked)]
                more = [(node, True) for _, _, node in named] + [(disjoin(group), True) for group in groups]
                pinned = None if pin is None else pin(asked, witness, seen, named)
                goals, here, stated = self._region_of(by_runner, asked, more, pinned, witness)
                region = self.options_text(goals) or "every config"
                key = (region, tuple(a.id for _, a, _ in named))
                if asked is None:
                    said.add(key)
                if asked is None or key not in said:
                    yield asked, witness, seen, named, found, region, stated
                if here is not None:  # the configs said, whatever changes a value there
                    groups.append([negate(here)])
                elif not named:
                    whole = True
                    break
                else:
                    groups.append([Not(node) for _, _, node in named])
                # Asked whole only where an option can hold beside the groups at all (a cheap
                # question: one option beside where the causes named do not all change a value).
                if self.search._solve({"true": [], "false": [], "extra": [
                        ("any", options), *(("any", g) for g in groups)]}, what) is None:
                    whole = True
                    break
                found = search(asked, [("any", g) for g in groups])
            else:
                if found is not None:
                    self.search.undecided.append(_messages.diff_regions_left(_diff.MAX_REGIONS, what))
            if asked is None:
                # Where no witness was found (the runner changes there, or a request alone reads
                # alike), a request may have one: its regions are asked too.
                covered = whole or found is None and not self.search.exact_regions(
                    by_runner, None, [(disjoin(group), True) for group in groups])

    def _region_of(self, by_runner: Dict[Any, List[Any]], asked: Optional[str], more: List[Any],
                   pinned: Optional[_Pinned], witness: Dict[str, Any]
                   ) -> Tuple[List[Any], Optional[Any], Optional[Tuple[str, ...]]]:
        """The cases of a region of `rounds` (`matrix._diff.Search.exact_regions`, *more* holding),
        held to its witness's terms where *pinned* gives them; with, where it does, the region as
        one condition and what each side reads there."""
        from ._substitute import conjoin, disjoin, negate

        if pinned is not None:
            goals = self.search.exact_regions(pinned[0], asked, more)
            here = disjoin([conjoin([n if w else negate(n) for n, w in g]) for g in goals])
            if self.search.holds(here, witness):
                return goals, here, pinned[1](goals)
            # Not held to its own witness (a value the terms spell otherwise): said whole.
        return self.search.exact_regions(by_runner, asked, more), None, None

    def runs(self, adjustment_id: str, witness: Dict[str, Any], asked: Optional[str]) -> bool:
        """Whether the adjustment *adjustment_id* changes a value where *witness* is resolved
        (automatic choice, or a request for *asked*) on a side that has it: one before the choice,
        or the own adjustment of the runner whose effective config the resolution ends on (issue
        28: a runner's own adjustment never runs where another runner is asked for, and is never
        named there)."""
        for side in (self.old, self.new):
            if adjustment_named(side, adjustment_id) is None:
                continue
            try:
                try:
                    resolution = _resolver.resolve(side.matrix, witness, runner=side.local(asked),
                                                   version=side.version)
                except ResolutionError as raised:
                    resolution = raised.resolution
            except ConfigError:
                return True  # not read here: named as the search found it
            if any(changed.id == adjustment_id for changed in resolution.adjustments):
                return True
        return False

    def feeds(self, side: _diff.Side, adjustment: Any, reads: Set[str]) -> bool:
        """Whether *adjustment* (of *side*) writes a path of *reads*, or one that an adjustment of
        *side* reads (its ``when`` or a ``from``) that writes such a path, and so on: where it
        changes a value, it may change what is read there."""
        from .schema import From

        reads = set(reads)
        everyone = _diff.every_adjustment(side.plan)
        grown = True
        while grown:
            grown = False
            for a in everyone:
                if set(a.set) & reads:
                    more = set(a.when.paths) | {v.path for v in a.set.values() if isinstance(v, From)}
                    if not more <= reads:
                        reads |= more
                        grown = True
        return bool(set(adjustment.set) & reads)

    def _asking(self, asked: Optional[str], message: str) -> str:
        """*message* of a request for *asked* (as it is for automatic choice)."""
        return message if asked is None else f"Asking for {self.new.matrix.runner(asked).name}: {message}"

    def _witness(self, found: Any, read: Callable[[_diff.Side, Dict[str, Any]], str], what: str,
                 asked: Optional[str] = None, keep: Optional[Callable[[Dict[str, Any]], bool]] = None
                 ) -> Optional[Tuple[Dict[str, Any], Tuple[str, ...]]]:
        """The witness of the search's region *found* where *read* (a side, a config → what it
        says there) differs between the sides, shortened, and what each side says; None (and a
        line in `unreproduced`, ``(what)``) where it does not differ. A shorter witness answers
        alike: the same reads, *keep* holding, and the resolutions ending as the search asks (the
        same runner on both sides, or both refused, in automatic choice or a request for *asked*;
        or, where the witness found ends otherwise, as it does)."""
        sides = (self.old, self.new)
        witness = self.search.witness(found)
        seen = tuple(read(side, witness) for side in sides)
        if seen[0] == seen[1]:
            self.unreproduced.append(_messages.diff_unreproduced(what, witness))
            return None
        kind = "automatic" if asked is None else "asked"

        def ending(config: Dict[str, Any]) -> Tuple[bool, Tuple[str, ...]]:
            """Where the resolutions end, as far as the search asks: alike (the same runner, or
            both refused, both for a removal or neither), or what each side answers."""
            answers = tuple(observe(s, config, kind, asked) for s in sides)
            ends = [a if a.startswith("refused") else a.split(" (")[0] for a in answers]
            refused = [e.startswith("refused") for e in ends]
            alike = ends[0] == ends[1] or all(refused) and (ends[0] == _REMOVED) == (ends[1] == _REMOVED)
            return alike, answers

        ended = ending(witness)

        def same(config: Dict[str, Any]) -> bool:
            try:
                if tuple(read(s, config) for s in sides) != seen or keep is not None and not keep(config):
                    return False
            except ConfigError:
                return False  # it leaves out a value a side requires: no shorter witness (found by the brute force)
            now = ending(config)
            return now[0] if ended[0] else now == ended

        return self.shortened(witness, same), seen

    def options_text(self, regions: List[Any]) -> str:
        """The configs as given where an effective value (or what an adjustment says) differs,
        exactly: for each pair of effective configs the resolutions end on, where they end there
        and an option of that pair holds (*regions*: `matrix._diff.Search.exact_regions`; the
        adjustments' conditions read the config after the earlier ones, not as given), each said
        with as few conditions as can be."""
        from ._nodes import Or
        from ._space import Inconclusive

        search = self.search
        texts: List[str] = []
        self._text(Or(()))  # the gates' own texts, known
        for goals in regions:
            try:
                kept = search.fewest_conjuncts(goals, whole=self._texts)
            except Inconclusive:  # said as it stands
                kept = list(goals)
            text = self._conjunction([n for n, w in kept if w], [n for n, w in kept if not w])
            if text not in texts:
                texts.append(text)
        return _union(texts)

    def said(self, runners: Sequence[str] = ()) -> None:
        """What each adjustment says (its ``adjusted`` warning: `matrix._diff.said_questions`):
        a finding per adjustment, change and cause (`rounds`), its region exactly where it speaks
        so, its witness where both sides choose the same runner, or both refuse, re-resolved on
        both sides; caused by the adjustment where it differs, and by the adjustments that differ
        and change a value there and write what it reads (one that stands alike says otherwise
        where one before it differs), else by the gates that differ there (the resolutions end on
        another runner's effective config). For automatic choice and a request for each of
        *runners*, as `effective`."""
        from .schema import From

        search = self.search
        for adjustment_id, change_id, by_runner in search.said:
            old_one, new_one = (adjustment_named(side, adjustment_id) for side in (self.old, self.new))
            either = new_one or old_one
            assert either is not None  # an id of one side at least
            name = either.name
            # What it reads: its condition, what it sets (from what), and what fills its words.
            reads = {p for a in (old_one, new_one) if a is not None
                     for p in (*a.when.paths, *a.set, *(v.path for v in a.set.values() if isinstance(v, From)),
                               *_diff.word_paths(a))}

            def where(asked: Optional[str], extra: List[Any], adjustment_id: str = adjustment_id,
                      by_runner: Any = by_runner, name: str = name) -> Optional[_diff.Assignment]:
                return search.effective_region(adjustment_id, by_runner, f"where what {name} says changes", asked,
                                               extra)

            def saying(asked: Optional[str], adjustment_id: str = adjustment_id
                       ) -> Callable[[_diff.Side, Dict[str, Any]], str]:
                return lambda at, config: said_by(at, config, adjustment_id, asked)

            varying: List[str] = []  # the word paths whose values vary over the last region (`pin`)

            def pin(asked: Optional[str], witness: Dict[str, Any], seen: Tuple[str, ...], named: List[Any],
                    by_runner: Any = by_runner, old_one: Any = old_one, new_one: Any = new_one,
                    varying: List[str] = varying) -> Optional[_Pinned]:
                # Its words are filled with the values of its word paths as it finds them: the
                # region holds the configs where each side that speaks reads them as the witness
                # does (`matrix._diff.pinned`'s rule); where that is the config's own value, the
                # words vary with it and the witness's are said (`_said`).
                held = search.words_as_at(witness, [(side, one) for side, one, text in
                                                    zip((self.old, self.new), (old_one, new_one), seen)
                                                    if one is not None and text != _NOT_WARNED])
                if held is None:
                    return None
                held_node, read = held
                varying[:] = [p for p, _ in read]  # where the region is not held to them: every one
                from ._substitute import conjoin

                def settle(goals: List[Any], seen: Tuple[str, ...] = seen, witness: Dict[str, Any] = witness,
                           read: Any = read) -> Tuple[str, ...]:
                    varying[:] = search.words_vary(goals, witness, read)
                    return seen

                return {pair: [conjoin([option, held_node]) for option in options]
                        for pair, options in by_runner.items()}, settle

            for asked, witness, seen, named, found, region, _ in self.rounds(by_runner, runners, where, saying,
                                                                             "said", reads, adjustment_id, pin=pin):
                if varying:
                    line = _messages.diff_not_compared(_messages.diff_words_varying(name, list(dict.fromkeys(varying))),
                                                       "a config it warns")
                    if line not in search.undecided:
                        search.undecided.append(line)
                self._said(adjustment_id, change_id, name, asked, witness, seen, named, found, region, old_one,
                           new_one)

    def _said(self, adjustment_id: str, change_id: str, name: str, asked: Optional[str], witness: Dict[str, Any],
              seen: Tuple[str, ...], named: List[Any], found: _diff.Assignment, region: str, old_one: Any,
              new_one: Any) -> None:
        """One finding of `said`: what adjustment *adjustment_id* (*old_one*, *new_one*: as each
        side has it) says, in automatic choice or a request for *asked*, at *witness*, caused by the
        adjustments *named* (`rounds`)."""
        differs = old_one is None or new_one is None or _diff.saying(old_one) != _diff.saying(new_one) \
            or _diff.adjusting_one(old_one) != _diff.adjusting_one(new_one) or old_one.says != new_one.says
        entries: List[Entry] = []
        ids: List[str] = []
        if differs:
            side = self.new if new_one is not None else self.old
            entries.append(_located(side, ("adjustments", adjustment_id)))
            ids.append(adjustment_id)
        for side, a, _ in named:
            entries.append(_located(side, ("adjustments", a.id)))
            ids.append(a.id)
        if not ids:  # the adjustment stands alike: the gates that differ where the resolutions end
            for standing, gate in self.causes_at(found):
                entries.append(_entry(*self.standing_at(standing, gate)))
                ids.append(gate.id)
            entries += self.default_entries(self.search.unset_at(found))  # a default read that differs
        if not entries:
            # No gate or default differs: an adjustment that differs and changes a value here moved
            # the resolution to where it speaks or not, whatever it writes (the brute force: one
            # that set b, which a requirement reads, lifted a0's warning, and a0 was named).
            for side, a, _ in self.adjusting_here(witness=witness, asked=asked, exclude=adjustment_id):
                entries.append(_located(side, ("adjustments", a.id)))
                ids.append(a.id)
        if not entries:  # not known what else: the adjustment itself
            side = self.new if new_one is not None else self.old
            entries, ids = [_located(side, ("adjustments", adjustment_id))], [adjustment_id]
        if not ids or ids[0] != adjustment_id:
            ids.insert(0, adjustment_id)  # the adjustment said first: `reproduces` reads it
        self.out.append(Difference(change_id, CHANGES[change_id][0],
                                   self._asking(asked, _messages.diff_said(name, seen[0], seen[1])),
                                   region, witness, seen[0], seen[1], runner=asked, features=tuple(ids),
                                   entries=tuple(entries)))

    def kinds(self, runners: Sequence[str] = ()) -> None:
        """The exception kind a refusal raises (`ResolutionError.kind`, the kind of the requirement
        that decides it: `matrix._diff_kinds`), for automatic choice and a request for each of
        *runners*: where both sides refuse, one finding per pair of kinds, its region exactly
        the configs whose refusals raise those kinds, its witness re-resolved on both sides."""
        from . import _diff_kinds
        from ._substitute import conjoin, constant

        search, sides = self.search, (self.old, self.new)
        if not any(_diff_kinds.kinded(side) for side in sides) or any(_diff_kinds.unmodelled(side) for side in sides):
            return  # no requirement has a kind, or not compared (`_unread` says so)
        what = "where the exception kind of a refusal changes"
        for asked in [None, *runners]:
            cases = [_diff_kinds.cases(search, side, asked) for side in sides]
            found: Dict[Tuple[Optional[str], Optional[str]], List[List[Any]]] = {}
            for a_question, a_kinds in cases[0]:
                for b_question, b_kinds in cases[1]:
                    options = [(conjoin([a, b]), x, y) for a, x in a_kinds for b, y in b_kinds if x != y]
                    options = [o for o in options if constant(o[0]) is not False]
                    if options:
                        _diff.option_regions(search, a_question, b_question, options, what, found)
            for (x, y), regions in found.items():
                self._by_cause(regions, what, functools.partial(self._kind, asked, x, y), asked)

    def roles(self, runners: Sequence[str] = ()) -> None:
        """Which runner fills each role other than the base both sides declare (`matrix._diff_roles`),
        for automatic choice and a request for each of *runners*: where both sides serve with the
        same runner, one finding per role, pair of runners and cause, its region exactly the
        configs where that role goes from the one to the other, its witness re-resolved."""
        from . import _diff_roles

        for role in _diff_roles.shared(self.old, self.new):
            what = _diff_roles.question(role)
            fields = {r.field for side in (self.old, self.new) for r in side.matrix.roles if r.id == role}
            for asked in [None, *runners]:
                for (x, y), regions in _diff_roles.regions(self.search, asked, role).items():
                    self._by_cause(regions, what, functools.partial(self._role, asked, role, x, y), asked, fields)

    def _role(self, asked: Optional[str], role: str, old_runner: Optional[str], new_runner: Optional[str],
              regions: List[List[Any]], named: List[Any], found: _diff.Assignment) -> None:
        """One finding of `roles` (`_by_cause`): its witness from *found*, shortened, caused by the
        adjustments *named*, else the role's entry where it differs, else the entries that differ
        there."""
        from . import _diff_roles

        search = self.search
        region = self.options_text(regions) or "every config"
        said = (_diff_roles.said(self.old, self.old.local(old_runner)), _diff_roles.said(self.new, new_runner))
        inside = _inside(region, search.space.schema)

        def runners(config: Dict[str, Any]) -> Tuple[str, ...]:
            return tuple(observe(side, config, "role", asked, role) for side in (self.old, self.new))

        witness = search.witness(found)
        if runners(witness) != said:
            self.unreproduced.append(_messages.diff_unreproduced("role", witness))
            return

        def same(config: Dict[str, Any]) -> bool:
            return runners(config) == said and inside(config)

        witness = self.shortened(witness, same)
        entries = [_located(side, ("adjustments", a.id)) for side, a, _ in named]
        ids = [a.id for _, a, _ in named]
        tables = [next((repr(r) for r in side.matrix.roles if r.id == role), None) for side in (self.old, self.new)]
        if not entries and tables[0] != tables[1]:
            entries.append(_located(self.new, ("roles", role)))
        if not entries:
            for standing, gate in self.causes_at(found, asked is not None):
                entries.append(_entry(*self.standing_at(standing, gate)))
                ids.append(gate.id)
        entries = list(dict.fromkeys(entries)) or [_order_entry(self.new)]
        name = next(r.name for r in self.new.matrix.roles if r.id == role)
        change = _messages.diff_role_runner(role, name, *said)
        message = f"Automatic choice: {change}" if asked is None else self._asking(asked, change)
        self.out.append(Difference("role-runner-changed", CHANGES["role-runner-changed"][0], message, region, witness,
                                   said[0], said[1], runner=asked, features=tuple(dict.fromkeys(ids)),
                                   entries=tuple(entries)))

    def warnings(self, runners: Sequence[str] = ()) -> None:
        """The warnings a config is served with that name a feature (`matrix._diff_warnings`: a
        runner's partial support, a request's opt-in, a preference passed over), for automatic
        choice and a request for each of *runners*: where both sides serve, by the same runner
        or not, one finding per warning, change and cause, its region exact, its witness
        re-resolved."""
        from . import _diff_warnings

        search = self.search
        for asked in [None, *runners]:
            keys = _diff_warnings.keys(self.old, self.new, asked)
            if not keys:
                continue
            cases = (_diff_warnings.served(search, self.old, asked), _diff_warnings.served(search, self.new, asked))
            for key in keys:
                for direction, regions in _diff_warnings.questions(search, asked, key, cases).items():
                    self._by_cause(regions, f"where a {key[0]} warning changes",
                                   functools.partial(self._warning, asked, key, direction), asked)

    def one_sided_runners(self) -> None:
        """A request for a runner only one side has (not renamed with its former id an alias): on
        the side that lacks it a usage error. Where the side that has it serves it, a finding:
        ``runner-removed`` (breaking: the runner that served it now refuses it) or
        ``runner-added``, its region exactly the configs served there (each rule that serves a
        request for it, no removal refusing the config first), its witness re-resolved on both
        sides, its cause the runner's file where it stands. Where that side refuses it, the
        report says it does not compare it (`matrix._diff_unread`)."""
        shared = self.search.shared
        # A runner renamed whose former id's alias is removed at the new side's version: a request
        # by that id, served on the old side, is a usage error on the new (a user trial: said
        # "renamed", cosmetic, a request for it "served by" the new id).
        gone = {was for was in self.search.renamed if _diff.alias_removed(self.new, was)}
        for side in (self.old, self.new):
            for runner in side.matrix.runners:
                if side.ids.get(runner.id, runner.id) in shared and not (side is self.old and runner.id in gone):
                    continue
                regions = list(self.search.one_sided(side, runner.id))
                if not regions:
                    continue
                change_id = "runner-removed" if side is self.old else "runner-added"
                texts = list(dict.fromkeys(self.region_text(region, []) for region in regions))
                text = " or ".join(_grouped(t) for t in texts) if len(texts) > 1 else texts[0]
                inside = _inside(text, self.search.space.schema)

                def read(config: Dict[str, Any], runner: str = runner.id) -> Tuple[str, ...]:
                    return tuple(observe(s, config, "runner", runner) for s in (self.old, self.new))

                witness = self.search.witness(regions[0].assignment)
                seen = read(witness)
                if seen[0] == seen[1] or any(t.startswith(_CONFIG_ERROR) for t in seen):
                    self.unreproduced.append(_messages.diff_unreproduced("runner", witness))
                    continue

                def same(config: Dict[str, Any], seen: Tuple[str, ...] = seen, read: Any = read,
                         inside: Any = inside) -> bool:
                    return bool(read(config) == seen and inside(config))

                witness = self.shortened(witness, same)
                name = _messages.diff_by_former_id(runner.name, runner.id) if runner.id in gone else runner.name
                self.out.append(Difference(change_id, CHANGES[change_id][0],
                                           _messages.diff_runner_asked(name, seen[0], seen[1]), text, witness,
                                           seen[0], seen[1], runner=runner.id,
                                           entries=(_runner_entry(side, runner.id),)))

    def aliases(self) -> None:
        """A request by a runner's former id (`matrix._diff_aliases`): where both sides accept it
        for the same runner and one warns that the id is deprecated, a finding for every config
        that side does not refuse for a removed feature first (the side's version alone decides
        the rest), its witness re-resolved on both sides, its cause the runner's ``aliases`` where
        the alias stands."""
        from . import _diff_aliases

        for former in _diff_aliases.formers(self.old, self.new):
            change_id = _diff_aliases.compared(self.old, self.new, former)
            if change_id is None:
                continue
            warning = self.new if change_id == "alias-warning-added" else self.old
            removed = warning.removed(True)  # a removal refuses a request before the id is said
            found = self.search._solve({"true": [], "false": list(removed), "extra": []},
                                       f"where a request by {former!r} is warned")
            if found is None:
                continue

            def same(config: Dict[str, Any], seen: Tuple[str, ...] = (), former: str = former) -> bool:
                return tuple(observe(side, config, "alias", former) for side in (self.old, self.new)) == seen

            witness = self.search.witness(found)
            seen = tuple(observe(side, witness, "alias", former) for side in (self.old, self.new))
            if seen[0] == seen[1]:
                self.unreproduced.append(_messages.diff_unreproduced("alias", witness))
                continue
            witness = _fewest_paths(witness, functools.partial(same, seen=seen))
            side = _diff_aliases.entry_side(self.old, self.new, former)
            runner = side.plan.aliases[former].runner
            self.out.append(Difference(change_id, CHANGES[change_id][0],
                                       _messages.diff_alias(former, side.matrix.runner(runner).name, *seen),
                                       self._conjunction([], removed), witness, seen[0], seen[1], runner=former,
                                       entries=(_runner_entry(side, runner, ("aliases",)),)))

    def _warning(self, asked: Optional[str], key: Tuple[str, str], direction: str, regions: List[List[Any]],
                 named: List[Any], found: _diff.Assignment) -> None:
        """One finding of `warnings` (`_by_cause`): the warning *key* said on the new side only
        (*direction* ``added``) or the old only, caused by its gate where it stands and the
        adjustments *named*."""
        search = self.search
        kind, gate_id = key
        change_id = f"{'preference-notice' if kind == 'preference' else kind}-{direction}"
        region = self.options_text(regions) or "every config"
        said = ("not warned", "warned") if direction == "added" else ("warned", "not warned")
        inside = _inside(region, search.space.schema)
        sides = (self.old, self.new)

        question = "preference-notice" if kind == "preference" else kind

        def same(config: Dict[str, Any]) -> bool:  # served on both sides, by any runners
            return tuple(observe(side, config, question, asked, gate_id) for side in sides) == said and inside(config)

        witness = search.witness(found)
        if any(observe(side, witness, question, asked, gate_id).startswith(_CONFIG_ERROR) for side in sides):
            return  # a value one side's [config] refuses: said by the config-* finding of its field, as `add` does
        if not same(witness):
            self.unreproduced.append(_messages.diff_unreproduced(kind, witness))
            return
        witness = self.shortened(witness, same)
        gate = self.new.gate(gate_id) or self.old.gate(gate_id)
        assert gate is not None
        entries = [_entry(*self.standing_at("new" if self.new.gate(gate_id) is not None else "old", gate))]
        ids = [gate_id]
        ends = [observe(side, witness, "automatic" if asked is None else "asked", asked) for side in sides]
        if ends[0].split(" (")[0] != ends[1].split(" (")[0]:
            # Served by another runner at the witness: what moved it is the cause (the review: a
            # cell of another feature flipped, a priority swapped or a redirect added named the
            # warned feature, which stood alike), the feature itself only where it differs too.
            moved = [(standing, g) for standing, g in self.causes_at(found, asked is not None) if g.id != gate_id]
            alike = len({_diff.signature(side, side.gate(gate_id), self.search.shared) for side in sides}) == 1
            if alike and (moved or self.reprioritised()):
                entries = []
            entries += [_entry(*self.standing_at(standing, g)) for standing, g in moved]
            ids += [g.id for _, g in moved]
            if not moved:
                entries += self.reprioritised()
        entries += [_located(side, ("adjustments", a.id)) for side, a, _ in named]
        ids += [a.id for _, a, _ in named]
        message = _messages.diff_warned(kind, gate.name, *said)
        message = f"Automatic choice: {message}" if asked is None else self._asking(asked, message)
        self.out.append(Difference(change_id, CHANGES[change_id][0], message, region, witness, said[0], said[1],
                                   runner=asked, features=tuple(dict.fromkeys(ids)),
                                   entries=tuple(dict.fromkeys(entries))))

    def _by_cause(self, regions: List[List[Any]], what: str,
                  emit: Callable[[List[List[Any]], List[Any], _diff.Assignment], None],
                  asked: Optional[str], fields: Iterable[str] = ()) -> None:
        """The findings of one change in *regions* (each a list of goals), one per cause: at a
        witness, the adjustments that differ, change a value there and write what a gate reads
        (`_diff.Search.changing`), the region where those change a value (*emit* of its goals, the
        adjustments and the search's assignment), then again where not all of them do (at most
        `matrix._diff.MAX_REGIONS`, the rest said in ``undecided``). Only the adjustments that run for
        the witness on a side are named (`runs`: a request for *asked*, None for automatic choice)."""
        from ._nodes import Not
        from ._substitute import conjoin, disjoin, negate

        search = self.search
        anywhere = disjoin([conjoin([n if w else negate(n) for n, w in goals]) for goals in regions])
        reads = {p for side in (self.old, self.new) for g in side.plan.features for p in g.when.paths} | set(fields)
        groups: List[List[Any]] = []
        for _ in range(_diff.MAX_REGIONS):
            found = search._solve({"true": [anywhere], "false": [], "extra": [("any", g) for g in groups]}, what)
            if found is None:
                return
            witness = search.witness(found)
            named = [(side, a, node) for side, a, node in search.changing()
                     if self.feeds_either(a.id, reads) and search.holds(node, witness)
                     and self.runs(a.id, witness, asked)]
            more = [(node, True) for _, _, node in named] + [(disjoin(g), True) for g in groups]
            held = [[*more, *goals] for goals in regions]
            held = [goals for goals in held if search._solve(_diff._question_of(goals), what) is not None]
            if not held:
                return
            emit(held, named, found)
            if not named:
                return
            groups.append([Not(node) for _, _, node in named])
        if search._solve({"true": [anywhere], "false": [], "extra": [("any", g) for g in groups]}, what) is not None:
            search.undecided.append(_messages.diff_regions_left(_diff.MAX_REGIONS, what))

    def _kind(self, asked: Optional[str], old_kind: Optional[str], new_kind: Optional[str],
              regions: List[List[Any]], named: List[Any], found: _diff.Assignment) -> None:
        """One finding of `kinds` (`_by_cause`): its witness from *found*, shortened, caused by the
        requirement that decides each side's kind there (its kind's table too, where the kind it
        gives differs), the adjustments *named*, and, where neither, the entries that differ there
        (what makes the refusal say another requirement first)."""
        from . import _diff_kinds

        search = self.search
        region = self.options_text(regions) or "every config"
        said = (_messages.diff_kind_said(old_kind), _messages.diff_kind_said(new_kind))
        inside = _inside(region, search.space.schema)

        def kinds(config: Dict[str, Any]) -> Tuple[str, ...]:
            return tuple(observe(side, config, "refusal-kind", asked) for side in (self.old, self.new))

        witness = search.witness(found)
        if kinds(witness) != said:
            self.unreproduced.append(_messages.diff_unreproduced("refusal-kind", witness))
            return

        def same(config: Dict[str, Any]) -> bool:
            return kinds(config) == said and inside(config)

        witness = self.shortened(witness, same)
        entries: List[Entry] = []
        ids: List[str] = []
        gates = [_diff_kinds.deciding(side, witness, asked) for side in (self.old, self.new)]
        moved = False  # whether a requirement that decides gives another kind on the other side
        for name, gate in zip(("old", "new"), gates):
            if gate is None:
                continue
            other = (self.new if name == "old" else self.old).gate(gate.id)
            moved = moved or other is None or _diff_kinds.kind_of(other) != _diff_kinds.kind_of(gate)
            entries.append(_entry(*self.standing_at(name, gate)))
            ids.append(gate.id)
            kind_id = str(getattr(gate.origin, "kind", ""))
            tables = [next((k for k in side.matrix.requirement_kinds if k.id == kind_id), None)
                      for side in (self.old, self.new)]
            if None not in tables and tables[0].error_kind != tables[1].error_kind:  # type: ignore[union-attr]
                entries.append(_located(self.new, ("requirements", kind_id)))
        for side, a, _ in named:
            entries.append(_located(side, ("adjustments", a.id)))
            ids.append(a.id)
        if not moved and not named:
            for standing, gate in self.causes_at(found):
                entries.append(_entry(*self.standing_at(standing, gate)))
                ids.append(gate.id)
        entries = list(dict.fromkeys(entries)) or [_order_entry(self.new)]
        change = _messages.diff_refusal_kind(*said)
        message = f"Automatic choice: {change}" if asked is None else self._asking(asked, change)
        self.out.append(Difference("refusal-kind-changed", CHANGES["refusal-kind-changed"][0], message, region, witness,
                                   said[0], said[1], runner=asked, features=tuple(dict.fromkeys(ids)),
                                   entries=tuple(entries)))

    def _excluded(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]]) -> List[Feature]:
        out: List[Feature] = []
        for side, gate_id in region.excluded:
            gate = self.side(side).gate(gate_id)
            if gate is not None and gate.origin is None and all(gate.when != g.when for g in out) \
                    and all(gate.when != c.when for _, c in causes):
                out.append(gate)
        return out

    def _bound(self, region: _diff.Region) -> List[Feature]:
        out = []
        for side, gate_id in region.gates:
            gate = self.side(side).gate(gate_id)
            if gate is not None and gate not in out:
                out.append(gate)
        return out

    def observe(self, region: _diff.Region, witness: Dict[str, Any]) -> Optional[Tuple[str, str]]:
        """What the witness resolves to on each side, in the terms of the region's question;
        None (and a line in `unreproduced`) when both say the same."""
        answers = self.answers(region, witness)
        if answers[0] == answers[1]:
            self.unreproduced.append(_messages.diff_unreproduced(region.kind, witness))
            return None
        return answers

    def answers(self, region: _diff.Region, witness: Dict[str, Any]) -> Tuple[str, str]:
        name = None
        if region.kind == "blocker" and region.feature is not None:
            gate = self.new.gate(region.feature) or self.old.gate(region.feature)
            name = gate.name if gate is not None else None
        old, new = (observe(side, witness, region.kind, region.runner, region.feature, region.blocked, name)
                    for side in (self.old, self.new))
        return old, new
