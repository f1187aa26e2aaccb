"""Which candidates of a remedy search (`matrix._remedy`) are worth resolving.

A candidate changes some paths of the user's config. It cannot serve runner R while a gate
that refuses R is active in it, as resolve reads the gates (the plan's masks, adjustments
applied as it applies them):

- R asked for: a removed feature (on the config of choice); a feature R says no to (on the
  effective config); unless some feature in force overrides a request into R, a feature that
  forces another runner and a redirect of R (on the config of choice);
- automatic choice: a removed feature; a gate that blocks R (on the config of choice and on the
  effective one); R's candidacy, when it is not active; an outright preference for another
  runner, active while no feature that forces a runner is, nor a preference for R before it
  (it then depends on its own paths, the forcing features' and those preferences'); where a
  redirect with ``applies = "always"`` may send the choice to R, only a removed feature and a
  feature R says no to (on the effective config), as for a request.

Whether a gate is active depends only on the paths it *depends on*: those it reads and the
sections above them, closed under the adjustments that may apply (one that sets such a path
adds its ``when`` paths, its ``from`` paths and every path it sets; a ``role.ID`` it reads after
the choice, the field of that role and of each role it follows but the base). Changing a path changes
no value but its own, those of the sections above it and, where it makes a section present
that the config does not hold as a table, that section's fields (a remedy never changes a
section and a path below it, so a section present stays so). Hence a candidate that extends
one where such a gate is active can only serve if it also changes a path the gate depends on.
The search takes the path sets of the size searched that meet every gate refusing R on the
user's config, fewest combinations of values first, and grows each one's candidates one path at
a time: from the paths of the active refusing gate that depends on the fewest, dropping one
when more active refusing gates that share no path remain than it has paths left to change (or
one depends on none of them); it resolves only the candidates where no refusing gate is active.
A candidate is weighed once a search, whichever path sets hold it. Every candidate that can serve is among them, so the search
stays exact; what it says of each is the resolver's.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, Union

from . import _access, _adjust, _roles
from .errors import MatrixError
from ._given import ROLE, base
from .schema import From

if TYPE_CHECKING:  # pragma: no cover
    from ._compile import Plan

#: A unit of the search: a path and the values a remedy may give it.
Unit = Tuple[str, Sequence[object]]
#: A candidate: (unit index, option index) pairs, by unit index.
State = Tuple[Tuple[int, int], ...]


def _above(path: str) -> List[str]:
    """The sections above *path*, outermost first."""
    parts = path.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts))]


class OverBudget(Exception):
    """The search read as many candidate configs as its budget allows."""


class Budget:
    """The configs a search may read (*limit*), shared by its `Pruning` values (a search for a
    runner chosen automatically may also ask for it: `matrix._remedy`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.read = 0

    def spend(self) -> None:
        """Count one config read; `OverBudget` once the budget is spent."""
        self.read += 1
        if self.read > self.limit:
            raise OverBudget


class Pruning:
    """The candidates of one search worth resolving (see the module docstring), and the count
    of the configs it reads (`spend`), each candidate weighed and each resolved, against the
    search's *budget* (a `Budget` may be shared with another search's)."""

    def __init__(self, plan: Plan, config: Dict[str, Any], runner: str, asked: bool, units: Sequence[Unit],
                 apply: Callable[[Dict[str, Any], Sequence[str], Sequence[object]], Dict[str, Any]],
                 budget: Union[int, Budget]) -> None:
        self.plan, self.config, self.runner, self.asked, self.units = plan, config, runner, asked, units
        self.apply = apply
        self.budget = budget if isinstance(budget, Budget) else Budget(budget)
        self.kept = plan.asked if asked else plan.automatic
        self.adjustments = plan.pre_adjustments + plan.adjustments.get(runner, ())
        features = plan.features
        # A redirect that applies always may send automatic choice to R, validated as asked for
        # (issue 30, F6): then only what refuses a request for R rules a candidate out.
        sent = not asked and any(r.applies == "always" and r.to == runner for found in plan.redirects.values()
                                 for _, r in found)
        if asked:
            overridden = any(f.forces is not None and f.forces.runner == runner and f.forces.override
                             for f in plan.active(plan.forcing & plan.asked))
            elsewhere = 0
            if not overridden:  # else a request sent elsewhere may still be overridden into R
                elsewhere = sum(1 << i for i, f in enumerate(features) if plan.forcing >> i & 1
                                and f.forces is not None and f.forces.runner != runner)
                redirects = plan.redirects.get(runner, ())
                if all(r.to != runner for _, r in redirects):  # the first that holds applies
                    elsewhere |= sum(bit for bit, _ in redirects)
            self.choice_refusing, self.served_refusing, self.wanted = plan.removed | elsewhere, plan.no[runner], 0
        elif sent:
            self.choice_refusing, self.served_refusing, self.wanted = plan.removed, plan.no[runner], 0
        else:
            blocking = plan.blocking[runner]
            self.choice_refusing, self.served_refusing = plan.removed | blocking, blocking
            self.wanted = plan.candidate.get(runner, 0)
        # Automatic choice: an outright preference for another runner, active with no forcing
        # feature active and no preference for this runner before it, chooses that runner or
        # fails (matrix._choice.steps): changing it means changing one of those gates.
        self.outright: List[Tuple[int, int]] = []
        if not asked and not sent:
            forcing = plan.forcing & plan.automatic
            for bit in _bits(plan.preferring & plan.automatic):
                prefers = features[bit.bit_length() - 1].prefers
                if prefers is None:
                    continue
                if prefers.outright and prefers.runner != runner:
                    before = sum(b for b in _bits(plan.preferring & plan.automatic & (bit - 1))
                                 if (p := features[b.bit_length() - 1].prefers) is not None and p.runner == runner)
                    self.outright.append((bit, forcing | before))
        self.depends: Dict[int, FrozenSet[int]] = {}
        #: candidate → the units of each gate refusing the runner on it (`_refusing`), read once.
        self.weighed: Dict[State, List[FrozenSet[int]]] = {}
        self.above = [_above(p) for p, _ in units]

    def spend(self) -> None:
        """Count one config read; `OverBudget` once the budget is spent."""
        self.budget.spend()

    @property
    def reading(self) -> Optional[Any]:
        """The schema resolve reads configs with (`matrix._compile.Plan.reading`)."""
        return self.plan.reading

    def candidates(self, size: int) -> Iterator[Tuple[Tuple[int, ...], List[Tuple[int, ...]]]]:
        """The candidates of *size* paths where no refusing gate is active, grouped by path set:
        (unit indices, option indices of each candidate), the path sets cheapest first (the
        fewest combinations of their options; then in the order of `itertools.combinations`
        over the units), candidates in the order of their product. A search whose budget runs
        out within a size has then read the path sets of few combinations, where a remedy is
        cheap to find, before one field of a thousand values spent it (the user trial's
        ``exec.memory_limit_mb``)."""
        for combo in self._path_sets(size):
            found = self._within(combo)
            if found:
                yield combo, found

    def _path_sets(self, size: int) -> List[Tuple[int, ...]]:
        """The sets of *size* units that meet every gate refusing the runner on the user's
        config (each changes a unit the gate depends on), never a section and a path below it,
        cheapest first."""
        root = self._weighed(())
        count = len(self.units)
        if root:
            needs = sorted(root, key=lambda s: (len(s), sorted(s)))
            if _disjoint(needs) > size:
                return []
            # Every set holds a unit of the smallest: each set once, by the first it holds.
            first = sorted(needs[0])
            sets = [tuple(sorted((unit, *rest))) for k, unit in enumerate(first)
                    for rest in itertools.combinations([u for u in range(count) if u != unit and u not in first[:k]],
                                                       size - 1)]
            sets = [s for s in sets if all(not d.isdisjoint(s) for d in root)]
        else:
            sets = list(itertools.combinations(range(count), size))
        paths = [p for p, _ in self.units]
        sets = [s for s in sets if not any(paths[b].startswith(paths[a] + ".") or paths[a].startswith(paths[b] + ".")
                                           for a, b in itertools.combinations(s, 2))]
        return sorted(sets, key=lambda s: (math.prod(len(self.units[u][1]) for u in s), s))

    def _within(self, combo: Tuple[int, ...]) -> List[Tuple[int, ...]]:
        """The candidates changing exactly the units of *combo* where no refusing gate is
        active (option indices, in the order of their product): a unit at a time, one a gate
        still refusing depends on first, dropping a partial candidate once the gates refusing
        it need more units than remain (or one that remains none of them)."""
        options = [len(self.units[u][1]) for u in range(len(self.units))]
        found: List[State] = []
        stack: List[State] = [()]
        while stack:
            state = stack.pop()
            refusing = self._weighed(state)
            if len(state) == len(combo):
                if not refusing:
                    found.append(state)
                continue
            used = {u for u, _ in state}
            remaining = frozenset(combo) - used
            if refusing:
                # The next unit is one of the gate that depends on the fewest units: a partial
                # candidate is then one that a search over every path set at once weighs too.
                needs = sorted((d - used for d in refusing), key=lambda s: (len(s), sorted(s)))
                within = sorted((d & remaining for d in needs), key=lambda s: (len(s), sorted(s)))
                pool = needs[0] & remaining
                if not pool or not within[0] or _disjoint(within) > len(remaining):
                    continue
            else:
                pool = remaining
            # The unit of fewest options first: fewer partial candidates to weigh.
            unit = min(pool, key=lambda u: (options[u], u))
            for option in reversed(range(options[unit])):
                stack.append(tuple(sorted((*state, (unit, option)))))
        return sorted(tuple(o for _, o in state) for state in found)

    def _weighed(self, state: State) -> List[FrozenSet[int]]:
        """`_refusing` of *state*, read once a search (each read counted by `spend`)."""
        found = self.weighed.get(state)
        if found is None:
            self.spend()
            found = self.weighed[state] = self._refusing(state)
        return found

    def _refusing(self, state: State) -> List[FrozenSet[int]]:
        """For each gate that refuses the runner on the candidate *state*, as resolve reads them
        (its masks, adjustments applied as it applies them), the units it depends on (one of
        which a candidate that serves changes); none when the gates cannot be read."""
        plan = self.plan
        units = self.units
        config = self.apply(self.config, [units[u][0] for u, _ in state], [units[u][1][o] for u, o in state])
        kept = self.kept
        try:
            mask = plan.evaluate(config, None)[0] & kept
            view: Optional[_access.Effective] = None
            if mask & plan.pre_adjusting:
                view = _access.Effective(config)
                _adjust.apply(plan.pre_adjustments, view, self.reading, None, None)
                if view.sets:
                    mask = plan.evaluate(view, None)[0] & kept
            served = mask
            if mask & plan.adjusting.get(self.runner, 0):
                view = view or _access.Effective(config)
                changed = len(view.sets)
                if _adjust.apply(plan.adjustments[self.runner], view, self.reading, None, self.runner,
                                 _roles.reading(plan.matrix, self.runner)) \
                        or len(view.sets) != changed:
                    served = plan.evaluate(view, None)[0] & kept
        except MatrixError:
            return []
        gates = mask & self.choice_refusing | served & self.served_refusing | self.wanted & ~mask
        out = [self._depends(bit.bit_length() - 1) for bit in _bits(gates)]
        for bit, unless in self.outright:
            if mask & bit and not mask & unless:
                out.append(frozenset().union(*(self._depends(b.bit_length() - 1) for b in _bits(bit | unless))))
        return out

    def _depends(self, gate: int) -> FrozenSet[int]:
        """The units whose change can change whether *gate* is active."""
        found = self.depends.get(gate)
        if found is not None:
            return found
        paths: Set[str] = set()
        todo = list(self.plan.features[gate].when.paths)
        while todo:
            path = todo.pop()
            if path in paths:
                continue
            paths.add(path)
            todo += _above(path)
            read = base(path)  # given.PATH changes with PATH in the config given
            if read is not None:
                todo.append(read)
            todo += self._role_fields(path)
            for adjustment in self.adjustments:
                if path in adjustment.set:
                    todo += [*adjustment.when.paths, *adjustment.set,
                             *(v.path for v in adjustment.set.values() if isinstance(v, From))]
        # A path set below a section the config does not hold as a table makes it one: its
        # other fields go from None to their defaults.
        found = self.depends[gate] = frozenset(
            i for i, (p, _) in enumerate(self.units)
            if p in paths or any(a in paths and not self._table(a) for a in self.above[i]))
        return found

    def _role_fields(self, path: str) -> List[str]:
        """The fields ``role.ID`` (*path*, read by an adjustment after the choice) reads as the
        config stands: the role's field, and where that is None the fields of the roles it
        follows (`matrix._roles`); the base's reads the runner, which no candidate changes."""
        if not path.startswith(ROLE):
            return []
        roles = {role.id: role for role in self.plan.matrix.roles}
        out: List[str] = []
        role = roles.get(path[len(ROLE):])
        while role is not None and role.field not in out and role is not self.plan.matrix.roles[0]:
            out.append(role.field)
            role = roles.get(role.follows) if role.follows is not None else None
        return out

    def _table(self, section: str) -> bool:
        """Whether the user's config holds *section* as a table."""
        holder: object = self.config
        for part in section.split("."):
            if not isinstance(holder, dict):
                return False
            holder = holder.get(part)
        return isinstance(holder, dict)


def _disjoint(sets: Sequence[FrozenSet[int]]) -> int:
    """How many of *sets* (smallest first) are picked when each picked has no element of those
    picked before: a lower bound of how many elements it takes to meet them all."""
    taken: Set[int] = set()
    count = 0
    for each in sets:
        if not each & taken:
            taken |= each
            count += 1
    return count


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low
        mask ^= low
