"""The warnings a config is served with that name a feature and a runner, as conditions of the
diff's search (`matrix.diff`: ``partial-*``, ``opt-in-*``, ``preference-notice-*``).

Each is said where a side serves a config, by one rule of its decision list (`served`):

- ``partial``: the runner that serves supports an active feature only partly (read where it is
  validated: on its effective config F where it has adjustments of its own), in automatic choice
  and in a request;
- ``opt-in``: a request is served by a runner that supports an active feature opt-in (automatic
  choice never takes a runner an opt-in blocks);
- ``preference`` (a notice): automatic choice passed over a feature's preference that is not
  outright (the feature active, no feature that forces a runner active, its runner not free),
  which it does for each preference before the rule that decides.

A warning is compared wherever both sides serve, by the same runner or not (a user trial: a
priority swap that moved configs to a runner supporting one of their features partly said only
the change of runner, its region holding configs warned and configs not); its words (which
runners and blockers a notice says, the runner a partial warning names) are not compared.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ._nodes import Node
from ._substitute import FALSE, conjoin, disjoin, negate

#: One served case of a side: its search question, the runner that serves (this side's id), and
#: the index of the rule that decides in the side's decision list.
Case = Tuple[Dict[str, Any], str, int]

#: One warning compared: its kind (``partial``, ``opt-in``, ``preference``) and the gate's id
#: (the runner it names is the one that serves, or the preference's: its words).
Key = Tuple[str, str]


def served(search: Any, side: Any, asked: Optional[str]) -> List[Case]:
    """Each case of *side* (automatic choice, or a request for *asked*) in which it serves."""
    request = asked is not None
    choice = side.asked if request else side.automatic
    removed = side.removed(request)
    rules = list(side.requested_rules(asked) if asked is not None else side.automatic_rules())
    out: List[Case] = []
    for index, (step, split, outcome) in enumerate(rules):
        if outcome[0] != "served":
            continue
        question = search._decides(choice, step, split)
        if question is None:
            continue
        question["false"] += removed
        for variant, said in side.on_its_f(question, outcome, request):
            if said[0] == "served":
                out.append((variant, outcome[1], index if request else choice.steps.index(step)))
    return out


def keys(old: Any, new: Any, asked: Optional[str]) -> List[Key]:
    """The warnings a side may say in automatic choice (a request for *asked*), each once: the
    gates either side supports partly for one of its runners (opt-in too, in a request), and the
    preferences (not outright) of automatic choice."""
    out: List[Key] = []
    for side in (old, new):
        plan = side.plan
        choice = side.asked if asked is not None else side.automatic
        for local in plan.no:
            masks = [("partial", plan.partial[local])] + ([("opt-in", plan.opt_in[local])] if asked is not None else [])
            out += [(kind, g.id) for kind, mask in masks for g in plan.active(mask) if g.id not in choice.dead]
        if asked is None:
            out += [("preference", g.id) for g in plan.features
                    if g.prefers is not None and not g.prefers.outright and g.id not in choice.dead]
    return list(dict.fromkeys(out))


def warned(side: Any, case: Case, key: Key, asked: Optional[str]) -> Node:
    """Where *side* says the warning *key* in *case* (over the config as given)."""
    _, runner, index = case
    kind, gate_id = key
    plan = side.plan
    gate = side.gate(gate_id)
    choice = side.asked if asked is not None else side.automatic
    if gate is None or gate.id in choice.dead:
        return FALSE
    if kind == "preference":
        if gate.prefers is None or gate.prefers.outright:
            return FALSE
        step = next((i for i, s in enumerate(choice.steps) if s.kind == "prefer" and s.gate_of(plan) is gate), None)
        if step is None or step >= index:
            return FALSE  # the rule that decides comes first: the preference is not read
        return conjoin([side.on_c(gate.when.node), *(negate(node) for node in choice._nodes(plan.forcing))])
    mask = plan.partial[runner] if kind == "partial" else plan.opt_in[runner]
    if not mask >> side.bit(gate) & 1:
        return FALSE
    read: Node = side.on_f(runner, gate.when.node) if side.own(runner) else side.on_c(gate.when.node)
    return read


def questions(search: Any, asked: Optional[str], key: Key, cases: Tuple[List[Case], List[Case]]
              ) -> Dict[str, List[List[Tuple[Node, bool]]]]:
    """Where both sides serve (*cases*: `served` of each side), by the same runner or not, and
    one of them says the warning *key*: for ``added`` and ``lifted``, the goals of each pair of
    cases where it holds (none: no config). Each pair of runners is asked whole first."""
    from ._diff import _conjunction, _goals

    sides = (search.old, search.new)
    old_by: Dict[str, List[Tuple[Case, Node]]] = {}
    new_by: Dict[str, List[Tuple[Case, Node]]] = {}
    for side, mine, by in ((sides[0], cases[0], old_by), (sides[1], cases[1], new_by)):
        for case in mine:
            by.setdefault(side.ids.get(case[1], case[1]), []).append((case, warned(side, case, key, asked)))
    what = f"where a {key[0]} warning changes"
    out: Dict[str, List[List[Tuple[Node, bool]]]] = {}
    for before, after in ((x, y) for x in old_by for y in new_by):
        for direction, (said_old, said_new) in (("added", (False, True)), ("lifted", (True, False))):
            warned_old = disjoin([conjoin([_conjunction(c[0]), w]) for c, w in old_by[before]])
            warned_new = disjoin([conjoin([_conjunction(c[0]), w]) for c, w in new_by[after]])
            served_old = disjoin([_conjunction(c[0]) for c, _ in old_by[before]])
            served_new = disjoin([_conjunction(c[0]) for c, _ in new_by[after]])
            whole = {"true": [served_old, served_new, warned_old if said_old else warned_new],
                     "false": [warned_new if said_old else warned_old], "extra": []}
            if search._solve(whole, what) is None:
                continue
            for a, a_warned in old_by[before]:
                for b, b_warned in new_by[after]:
                    goals = [*_goals(a[0]), *_goals(b[0]), (a_warned, said_old), (b_warned, said_new)]
                    if search._solve({"true": [n for n, w in goals if w], "false": [n for n, w in goals if not w],
                                      "extra": []}, what) is not None:
                        out.setdefault(direction, []).append(goals)
    return out
