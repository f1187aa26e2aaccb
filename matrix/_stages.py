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
adjustments name no stage. Requirements staged at a stage other than ``choice`` are checked after
its adjustments (`matrix._staged`); `steps` says the whole order as the plan keeps it
(`Plan.before_steps`, `Plan.after_steps`), and `matrix.resolver._resolve_slowly` and
`is_supported` walk it: one statement of the order, an unstaged matrix being the single step
``choice``. Redirects act on a request, on C; one at a stage after ``choice`` (`redirects`) on
the runner that serves, on the config its stage finds: that runner's steps up to the stage, then
the redirect's runner's from it (`span`).
"""

from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

from packaging.version import Version

from .schema import Adjustment, Redirect, Requirement, Runner, in_window

__all__ = ["CHOICE", "Step", "place", "before_choice", "after_choice", "steps", "span", "redirects"]

#: The stage at which the runner is chosen: a reserved name that ``stages`` must hold.
CHOICE = "choice"


#: One step of a resolution: the stage it ends at, the adjustments applied there in order, then
#: the staged requirements checked (`matrix._staged`).
Step = Tuple[str, Tuple[Adjustment, ...], Tuple[Requirement, ...]]


def place(stages: Sequence[str], item: Any) -> int:
    """Where an adjustment or a requirement stands in *stages* (at ``choice`` where it names none)."""
    return stages.index(item.stage or CHOICE) if stages else 0


def before_choice(stages: Sequence[str], adjustments: Sequence[Adjustment]) -> Tuple[Adjustment, ...]:
    """The adjustments applied before the choice, in the order they apply: those that name no
    runner, at ``choice`` or a stage before it (a stable sort: declaration order within a stage)."""
    if not stages:
        return tuple(a for a in adjustments if not a.runners)
    choice = stages.index(CHOICE)
    return tuple(sorted((a for a in adjustments if not a.runners and place(stages, a) <= choice),
                        key=lambda a: place(stages, a)))


def after_choice(stages: Sequence[str], adjustments: Sequence[Adjustment], runner: str) -> Tuple[Adjustment, ...]:
    """The adjustments applied once *runner* serves, in the order they apply: its own, and those
    that name no runner at a stage after ``choice``, stage by stage."""
    if not stages:
        return tuple(a for a in adjustments if runner in a.runners)
    choice = stages.index(CHOICE)
    return tuple(sorted((a for a in adjustments if runner in a.runners
                         or (not a.runners and place(stages, a) > choice)), key=lambda a: place(stages, a)))


def steps(stages: Sequence[str], adjustments: Sequence[Adjustment], staged: Sequence[Requirement], *,
          after: bool) -> Tuple[Step, ...]:
    """The order of a resolution before the choice (*after* false: the stages up to ``choice``)
    or once a runner serves (*after*: from ``choice`` on), as steps: *adjustments* (in the order
    they apply: `before_choice`, `after_choice`) stage by stage, a step ending at each stage
    where *staged* requirements are checked. Stages are the general case: a matrix without
    staged requirements (an unstaged one: the single stage ``choice``) is one step."""
    if not stages or not staged:
        return ((CHOICE, tuple(adjustments), ()),)
    choice = stages.index(CHOICE)
    return span(stages, adjustments, staged, choice if after else 0, len(stages) if after else choice + 1)


def span(stages: Sequence[str], adjustments: Sequence[Adjustment], staged: Sequence[Requirement], start: int,
         stop: int) -> Tuple[Step, ...]:
    """The steps of ``stages[start:stop]`` (`steps`): of *adjustments* those at these stages, a
    step ending at each stage where *staged* requirements are checked. A redirect at a stage
    after ``choice`` (`redirects`) ends the steps of the runner it redirects before its stage,
    and the runner it names walks its own from there."""
    out = []
    pending: Tuple[Adjustment, ...] = ()
    for k in range(start, stop):
        pending += tuple(a for a in adjustments if place(stages, a) == k)
        here = tuple(c for c in staged if place(stages, c) == k)
        if here:
            out.append((stages[k], pending, here))
            pending = ()
    if pending or not out:
        out.append((stages[stop - 1], pending, ()))
    return tuple(out)


def redirects(stages: Sequence[str], runners: Sequence[Runner], version: Version) -> Dict[str, Tuple[Redirect, ...]]:
    """Runner id → its redirects at a stage after ``choice`` in force at *version*, in the order
    they are read: stage by stage, declaration order within a stage. Where the runner that serves
    reaches such a redirect's stage (the stages before it walked) and its condition holds there,
    the redirect's runner serves from that stage on (`matrix.resolver`)."""
    out = {}
    for runner in runners:
        found = sorted((d for d in runner.redirects if d.stage is not None and in_window(d.window, version)),
                       key=lambda d: stages.index(d.stage))
        if found:
            out[runner.id] = tuple(found)
    return out
