"""The words a config is warned or refused with, as `matrix.diff` compares them: a feature's
deprecation warning and removal refusal where both sides deprecate (or remove) it
(``deprecation-reworded``, ``removal-reworded``), and a runner's own deprecation warning
(``runner-deprecation-started``, ``-ended``, ``-reworded``).

Each set of words is decided by a side's version alone (`matrix._choice.deprecation_words`,
`removal_words`, `runner_deprecation`), never by a config's values: where it differs, it
differs for every config that hears it on both sides, so the region is where the sides say it.

- A feature's deprecation warning is said wherever the feature is active on the config of
  choice C (in force in the mode asked: automatic choice, or a request), served or refused, a
  removal's refusal included (`matrix._choice.choose`); its words are compared where both sides
  say it.
- A feature's removal refusal says the words of each removed feature the config uses; those of
  one feature are compared where both sides refuse the config for it.
- A runner's deprecation warning is said where a resolution is served by the runner (`matrix.
  _choice.serve`; a role's runner says its own, read with the roles: `matrix._diff_unread`).
  Started (ended): the configs the new (old) side serves by it, whatever the other side does
  there (it does not warn of that runner: a config that moves to the runner from another is
  warned too, and so is held to this finding as well as to the change of runner); in other
  words: the configs both sides serve by it.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import _diff, _messages
from ._diff_entries import _located, _runner_entry
from ._diff_observe import observe
from ._diff_regions import _inside
from ._diff_types import CHANGES, Difference, Entry
from ._substitute import conjoin, disjoin, negate

#: A region as goals, (condition, holds) pairs (`matrix._diff._goals`).
Goals = List[Tuple[Any, bool]]


def gate_words(changes: Any, runners: Sequence[str]) -> None:
    """``deprecation-reworded`` and ``removal-reworded``: for automatic choice and for a request
    (for the first of *runners*: which runner it asks for does not change what is said before the
    choice), each gate both sides deprecate (remove) whose words differ, read by the new name on
    both sides (a feature renamed is a cosmetic finding of its own)."""
    from ._choice import deprecation_words, removal_words

    old, new = changes.old, changes.new
    automatic: Dict[Tuple[str, str], Optional[Difference]] = {}
    for asked in [None, *runners[:1]]:
        for kind, holds, words in (("deprecation", _diff.deprecated, deprecation_words),
                                   ("removal", _diff.removed, removal_words)):
            for gate in new.plan.features:
                there = old.gate(gate.id)
                if there is None or not holds(new, gate) or not holds(old, there) \
                        or words(there, gate.name) == words(gate) \
                        or any(g.id in (s.asked if asked else s.automatic).dead for s, g in ((old, there), (new, gate))):
                    continue
                goals: Goals = [(new.on_c(gate.when.node), True), (old.on_c(there.when.node), True)]
                if asked is None:  # automatic choice: where no base role's field names a runner (a request)
                    goals += [(n, True) for n in changes.search.unasked]
                entry = _located(new, ("features", gate.id, "deprecated"))
                found = _emit(changes, f"{kind}-words", f"{kind}-reworded", asked, gate.id, gate.name, [goals],
                              (entry,), kind, automatic.get((kind, gate.id)))
                if asked is None:
                    automatic[kind, gate.id] = found


def runner_deprecations(changes: Any, runners: Sequence[str]) -> None:
    """``runner-deprecation-*``: for automatic choice and a request for each of *runners*, each
    runner both sides have (by the new side's ids) whose deprecation warning differs between the
    sides' versions, read by the new side's names of the runners (a runner renamed is a cosmetic
    finding of its own), where a side that warns serves by it (`served`)."""
    from ._choice import runner_deprecation

    old, new = changes.old, changes.new
    names = {r.id: r.name for r in new.matrix.runners}

    def new_name(old_id: str) -> Optional[str]:  # an old runner by its name on the new side (a rename is cosmetic)
        return names.get(old.ids.get(old_id, old_id))

    differ = []
    for runner in new.matrix.runners:
        local = old.local(runner.id)
        if local not in {r.id for r in old.matrix.runners}:
            continue
        said = (runner_deprecation(old.matrix, local, old.version, new_name),
                runner_deprecation(new.matrix, runner.id, new.version))
        if said[0] != said[1]:
            differ.append((runner, said))
    if not differ:
        return
    for asked in [None, *runners]:
        cases = [_served(changes.search, side, asked) for side in (old, new)]
        for runner, said in differ:
            how = "started" if said[0] is None else "ended" if said[1] is None else "reworded"
            mine = [case for case in cases[0] if case[0] == runner.id], [case for case in cases[1] if case[0] == runner.id]
            if how == "reworded":
                regions = [[*a, *b] for _, a in mine[0] for _, b in mine[1]]
            else:
                regions = [goals for _, goals in mine[how == "started"]]
            side = new if how != "ended" else old
            entry = _runner_entry(side, side.local(runner.id) or runner.id, ("deprecated",))
            _emit(changes, "runner-deprecation", f"runner-deprecation-{how}", asked, runner.id, runner.name, regions,
                  (entry,), "runner-deprecation")


def _served(search: Any, side: Any, asked: Optional[str]) -> List[Tuple[str, Goals]]:
    """Each case in which *side* serves (automatic choice, or a request for *asked*): the runner
    that serves, by the new side's id, and the case's goals."""
    from ._diff_warnings import served

    return [(side.ids.get(runner, runner), _diff._goals(question)) for question, runner, _ in served(search, side, asked)]


def _emit(changes: Any, question: str, change_id: str, asked: Optional[str], subject: str, name: str,
          regions: List[Goals], entries: Tuple[Entry, ...], kind: str, said: Optional[Difference] = None
          ) -> Optional[Difference]:
    """The finding *change_id* where one of *regions* holds (none: no finding), its witness
    found there and re-resolved on both sides (the observe question *question* of *subject*), its
    region said exactly, its cause *entries*; not said again where automatic choice's finding
    *said* says the same words of the same configs (a request reads a gate as automatic choice
    does but where a role's field names a runner)."""
    search = changes.search
    what = f"where the words of {name} change"
    regions = [goals for goals in regions if search._solve(_diff._question_of(goals), what) is not None]
    if not regions:
        return None
    found = search._solve({"true": [disjoin([_conjunction(goals) for goals in regions])], "false": [], "extra": []},
                          what)
    if found is None:
        return None
    region = changes.options_text(regions) or "every config"
    inside = _inside(region, search.space.schema)
    sides = (changes.old, changes.new)

    def read(config: Dict[str, Any]) -> Tuple[str, ...]:
        return tuple(observe(side, config, question, asked, subject) for side in sides)

    witness = search.witness(found)
    seen = read(witness)
    if seen[0] == seen[1] or any(s.startswith(_messages.DIFF_CONFIG_ERROR) for s in seen):
        changes.unreproduced.append(_messages.diff_unreproduced(question, witness))
        return None
    if said is not None and (said.region, said.old, said.new) == (region, *seen):
        return None

    def same(config: Dict[str, Any]) -> bool:
        return read(config) == seen and inside(config)

    witness = changes.shortened(witness, same)
    message = _messages.diff_words(kind, name, *seen)
    message = f"Automatic choice: {message}" if asked is None else changes._asking(asked, message)
    change = Difference(change_id, CHANGES[change_id][0], message, region, witness, seen[0], seen[1], runner=asked,
                        features=(subject,), entries=entries)
    changes.out.append(change)
    return change


def _conjunction(goals: Goals) -> Any:
    return conjoin([n if holds else negate(n) for n, holds in goals])


#: What `matrix.diff` calls, in order (after the one-gate questions).
FINDINGS: Tuple[Callable[[Any, Sequence[str]], None], ...] = (gate_words, runner_deprecations)
