"""Stages: the host's order of steps (issue 30, F6).

``[matrix] stages = ["aliases", "device", "choice", "graphs", "pages"]`` names the steps of a
host's resolution in order; ``choice`` (a reserved name, which the list must hold) is the step
at which the runner is chosen. Each adjustment may name its ``stage``; one that names none is at
``choice``, where it stood without stages. The order of resolution is then:

1. The adjustments that name no runner, at the stages up to ``choice`` (those at ``choice``
   included), apply first, stage by stage and, within a stage, in declaration order: the config
   of choice, C.
2. The choice is made on C, as without stages.
3. Then, stage by stage from ``choice`` on, within a stage in declaration order: the adjustments
   of the runner that serves, R (a runner's adjustment is at ``choice`` or later: before the
   choice there is no runner), and those that name no runner at a stage after ``choice`` (they
   apply to every config a runner serves, whatever the runner): R's effective config, F.
4. R is validated on F, as without stages.

So a matrix with ``stages = ["choice"]`` resolves as one without stages, and so does one whose
adjustments name no stage. What is not staged yet (requirements, redirects, the roles'
validation) keeps its place: requirements and blockers are read on C for the choice and on F
for the runner that serves, redirects act on a request, on C.
"""

from __future__ import annotations

from typing import Sequence, Tuple

from .schema import Adjustment

__all__ = ["CHOICE", "before_choice", "after_choice"]

#: The stage at which the runner is chosen: a reserved name that ``stages`` must hold.
CHOICE = "choice"


def _place(stages: Sequence[str], adjustment: Adjustment) -> int:
    return stages.index(adjustment.stage or CHOICE) if stages else 0


def before_choice(stages: Sequence[str], adjustments: Sequence[Adjustment]) -> Tuple[Adjustment, ...]:
    """The adjustments applied before the choice, in the order they apply: those that name no
    runner, at ``choice`` or a stage before it (a stable sort: declaration order within a stage)."""
    if not stages:
        return tuple(a for a in adjustments if not a.runners)
    choice = stages.index(CHOICE)
    return tuple(sorted((a for a in adjustments if not a.runners and _place(stages, a) <= choice),
                        key=lambda a: _place(stages, a)))


def after_choice(stages: Sequence[str], adjustments: Sequence[Adjustment], runner: str) -> Tuple[Adjustment, ...]:
    """The adjustments applied once *runner* serves, in the order they apply: its own, and those
    that name no runner at a stage after ``choice``, stage by stage."""
    if not stages:
        return tuple(a for a in adjustments if runner in a.runners)
    choice = stages.index(CHOICE)
    return tuple(sorted((a for a in adjustments if runner in a.runners
                         or (not a.runners and _place(stages, a) > choice)), key=lambda a: _place(stages, a)))
