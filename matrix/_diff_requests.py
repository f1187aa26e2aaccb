"""The blockers a request reads, where they are not automatic choice's: a gate in force in one mode
of choice only (``applies``) blocks a runner when it is asked for and not in automatic choice, or
the other way (issue 28: a release's new gate with ``applies = "asked"`` was said not compared).

A request reads every runner's blockers on the config of choice C, in the gates in force for
requests, whichever runner it asks for, where a runner's own adjustments change none of its
blockers (the runner a resolution ends on reads its effective config F) and there are no roles
(the base role's field makes a config a request): there the diff compares them (`exact`), a
``blocker-*`` finding of a request for the runner blocked; elsewhere it says it does not
(`matrix._diff_unread`)."""

from __future__ import annotations

from typing import Any, Callable, FrozenSet, Iterator, List, Optional, Sequence

from . import _diff
from ._diff_types import Difference


def exact(search: _diff.Search) -> bool:
    """Whether a request reads each runner's blockers on C, whichever runner it asks for, as the
    diff's blocker questions of a request read them: every condition read on C exactly, no roles,
    and each gate that blocks a runner with adjustments of its own (a removal but) holding on its
    F exactly where it holds on C (vLLM 0.32: a gate that reads what Model Runner V2's own
    adjustment sets, and bounds it the same)."""
    from ._space import Inconclusive

    sides = (search.old, search.new)
    if not all(side.exact for side in sides) or any(side.matrix.roles for side in sides):
        return False
    for side in sides:
        for runner, own in side.plan.adjustments.items():
            if not own:
                continue
            for gate in side.plan.features:
                if not _diff.blocking(runner)(side, gate) or _diff.removed(side, gate):
                    continue
                on_c, on_f = side.on_c(gate.when.node), side.on_f(runner, gate.when.node)
                try:
                    if on_c != on_f and (search.split.solve(true=[on_c], false=[on_f]) is not None
                                         or search.split.solve(true=[on_f], false=[on_c]) is not None):
                        return False
                except Inconclusive:
                    return False
    return True


def apart(old: _diff.Side, new: _diff.Side) -> FrozenSet[str]:
    """The ids of the gates whose blocker a request may read otherwise than automatic choice: a
    gate in force in one mode only on either side, and each of the same name (a blocker is said
    by its name)."""
    names = {g.name for side in (old, new) for g in side.plan.features if g.applies != "always"}
    return frozenset(g.id for side in (old, new) for g in side.plan.features if g.name in names)


def regions(search: _diff.Search, runners: Sequence[str],
            bounds: Callable[[str, Any], List[Any]]) -> Iterator[_diff.Region]:
    """For each runner both sides have, the configs where a request for it reads a blocker of it
    that the other side's does not, of a gate `apart` (the others are automatic choice's: its
    findings say them), where `exact` (the caller asks it once)."""
    only = apart(search.old, search.new)
    for runner in runners:
        yield from search.one_gate("blocker", _diff.blocking(runner), asked=runner, blocked=runner, only=only,
                                   bounds=bounds)


def asked(change: Difference) -> Optional[str]:
    """The runner a ``blocker-*`` finding asks for (`matrix._diff_entries._message`: "Asking for
    NAME: ..."), its blocked runner; None for automatic choice's, and for any other finding."""
    if change.id.startswith("blocker-") and change.message.startswith("Asking for "):
        return change.runner
    return None
