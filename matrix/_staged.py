"""Staged requirements (issue 30, F6): a requirement checked at a stage of the host's order of steps.

A requirement clause (a runner file's, or a matrix-wide one of features.toml's ``[requires]``)
may name a ``stage`` of ``[matrix] stages`` (a chain: on its first clause). Where it names none,
or ``choice``, it is what it was without stages: a gate of the choice, read on the config of
choice C (and on F for the runner that serves). At any other stage it is **no gate**: the
choice does not see it (`Matrix.staged` holds it, not `Runner.requires`), and it is checked on
the config as the stages before it and its own adjustments leave it (`matrix._stages`: within a
stage, the adjustments first, then the requirements, in the order of the kinds, matrix-wide ones
first):

- **Before** ``choice`` (matrix-wide, exempting no runner: no runner is known yet): checked on
  the config at its stage, before the choice. One that fails refuses the config whatever the
  runner: `NoRunnerError` in automatic choice, `UnsupportedFeatureError` for a runner asked
  for, its reasons alone (as a matrix-wide requirement that exempts no runner).
- **After** ``choice``: checked for the runner that serves, R (a runner's own, or a matrix-wide
  one that does not exempt R), on R's config at its stage, its condition and reason reading
  the roles as they stand there (``role.<id>``: `matrix._roles.At`). One that fails stops resolution:
  `UnsupportedFeatureError` when R was asked for (or a request was redirected or overridden to
  it), `AdjustmentError` in automatic choice (a refused validated default is final: no other
  runner is tried). The message is R's refusal (``R does not support: reason``), or the reasons
  alone for a matrix-wide requirement that exempts no runner.

- **A requirement of roles** (a runner's clause with ``roles``) staged after ``choice``: checked
  at its stage wherever its runner fills one of its roles there (`fills`: ``role.<id>`` as it
  stands), whatever runner serves; after the matrix-wide requirements and the serving runner's
  own, which refuse first, then the first role, in declaration order, whose runner fails one
  (`failing`). The error is as above (by the base's request), its message and
  ``staged_refusal["runner"]`` the runner refused, in the role its message and
  ``staged_refusal["role"]`` name (`refused_in`).

The first failure stops resolution, so neither the adjustments after it nor R's validation on
F are made; the error's `Resolution` carries the adjustments and warnings made before it, and
`Resolution.staged_refusal` says the stage, the runner and the requirements that refused (its
`to_dict`, `explanation` and `explain` too; `matrix.resolver._resolve_slowly` resolves, walking the plan's
steps, `matrix._stages.steps`). Such a refusal says the remedies of any refusal (the search
varies the paths a staged requirement reads too, `matrix._remedy.rule_atoms`): for the runner
asked for, or, in automatic choice, for the runner chosen (in a role other than the base, for the
base role's runner); before the choice, in automatic choice, none (no runner is known yet, and
the refusal is every runner's). A runner that a feature forces where no runner is
free does not serve: its staged requirements are not checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

import attrs

from . import _messages, _stages
from ._given import ROLE
from .schema import WIDE, Requirement, Runner

if TYPE_CHECKING:  # pragma: no cover
    from ._compile import Plan
    from ._nodes import Node
    from .predicates import Predicate

__all__ = ["split", "place", "by_chain", "binds", "fills", "failing", "refusal", "refused_in"]


place = _stages.place


def split(stages: Sequence[str], runners: List[Runner], wide: Tuple[Requirement, ...]
          ) -> Tuple[List[Runner], Tuple[Requirement, ...], Tuple[Requirement, ...]]:
    """The runners and matrix-wide requirements without their staged clauses, and those clauses
    in the order they are checked (stage by stage; matrix-wide ones first)."""
    if not stages:
        return runners, wide, ()
    staged = [c for c in wide if c.stage is not None]
    out = []
    for runner in runners:
        mine = [c for c in runner.requires + runner.role_requires if c.stage is not None]
        if mine:
            runner = attrs.evolve(runner, requires=tuple(c for c in runner.requires if c.stage is None),
                                  role_requires=tuple(c for c in runner.role_requires if c.stage is None))
            staged += mine
        out.append(runner)
    return out, tuple(c for c in wide if c.stage is None), tuple(sorted(staged, key=lambda c: place(stages, c)))


def by_chain(clauses: Sequence[Requirement]) -> Dict[Tuple[str, str], List[Requirement]]:
    """*clauses* (staged) by chain, each keyed by (runner, kind): one runner's (or the matrix-wide)
    clauses of one kind, in order, the chains in the order of their first clauses. A chain's stage,
    roles and exemptions are its first clause's (`matrix._load_choice`): its clauses stand together."""
    chains: Dict[Tuple[str, str], List[Requirement]] = {}
    for clause in clauses:
        chains.setdefault((clause.runner, clause.kind), []).append(clause)
    return chains


def binds(clause: Requirement, runner: Optional[str]) -> bool:
    """Whether *clause* may be checked once *runner* serves (None: before the choice, a
    matrix-wide one): a requirement of roles whatever the runner, where its runner fills one of
    its roles (`fills`)."""
    if clause.runner == WIDE:
        return runner is None or runner not in clause.exempt
    return runner is not None and (bool(clause.roles) or clause.runner == runner)


def fills(clause: Requirement, read: Callable[[str], object]) -> bool:
    """Whether the runner of *clause*, a requirement of roles, fills one of its roles, as *read*
    reads them (``role.<id>``: `matrix._roles.At`)."""
    return any(read(ROLE + role) == clause.runner for role in clause.roles)


def filling(clause: Requirement) -> Node:
    """`fills` as a condition: where the runner of *clause*, a requirement of roles, fills one of
    its roles (``role.<id> == runner``, as `matrix._roles.Filling` reads it)."""
    from ._nodes import Compare, Literal, Path
    from ._substitute import disjoin

    return disjoin([Compare(Path(ROLE + r), "==", Literal(clause.runner)) for r in clause.roles])


def refusing(chain: Sequence[Requirement]) -> Node:
    """Where a chain of staged requirements (one runner's, or the matrix-wide, clauses of one
    kind) refuses, as a condition on the config at its stage: a clause fails, and, for a
    requirement of roles, its runner fills one of them (`fills`)."""
    from ._nodes import Not
    from ._substitute import conjoin

    fails: Node = Not(conjoin([c.condition.node for c in chain]))
    return conjoin([filling(chain[0]), fails]) if chain[0].roles else fails


def failing(clauses: Sequence[Requirement], runner: Optional[str], read: Callable[[str], object],
            roles: Sequence[str] = (), test: Optional[Callable[[Predicate], Callable[[Callable[[str], object]], bool]]]
            = None) -> Tuple[Optional[str], List[Requirement]]:
    """Of *clauses* (one stage's), those checked once *runner* serves that fail on the config
    *read* reads (of each chain, the first clause that fails), and the runner they refuse: the
    matrix-wide ones and *runner*'s own first (*runner*); else the failed requirements of roles
    of the runner that fills the first of *roles* (the matrix's, in declaration order) whose
    runner fails one. *test* gives a condition compiled (`Plan.test`); without it, the
    interpreter reads it."""
    from .predicates import truth

    failed: List[Requirement] = []
    seen = set()
    for clause in clauses:
        key = (clause.runner, clause.kind)
        if key in seen or not binds(clause, runner) or clause.roles and not fills(clause, read):
            continue
        if not (truth(clause.condition.node, read) if test is None else test(clause.condition)(read)):
            seen.add(key)
            failed.append(clause)
    first = [c for c in failed if c.runner in (WIDE, runner)]
    if first or not failed:
        return runner, first
    others = {c.runner for c in failed}
    refused = next((r for r in (read(ROLE + role) for role in roles) if r in others), failed[0].runner)
    return str(refused), [c for c in failed if c.runner == refused]


def refusal(plan: Plan, runner: Optional[str], failed: Sequence[Requirement], read: Callable[[str], object]
            ) -> Tuple[str, List[str], Optional[str]]:
    """What a staged refusal says: the message, each failed clause's reason as said, and the role
    other than the base *runner* was refused in (`refused_in`), which the message names."""
    from . import _choice
    from ._templates import filled

    reasons = [filled(c.reason, read) for c in failed]
    alone = [r for c, r in zip(failed, reasons) if c.wide and not c.exempt]
    role = refused_in(plan, runner, failed, read)
    if runner is None or alone:
        return _messages.required_refused(alone or reasons), reasons, role
    said = [r for c, r in zip(failed, reasons) if c.alone]
    name = _messages.in_role(plan.matrix.runner(runner).name, role)
    return _messages.does_not_support(name, [], [r for r in reasons if r not in said],
                                      _choice._own(plan, "does_not_support", runner), said), reasons, role


def refused_in(plan: Plan, runner: Optional[str], failed: Sequence[Requirement], read: Callable[[str], object]
               ) -> Optional[str]:
    """The role other than the base in which *runner* failed *failed*, as *read* reads the roles:
    the first, in declaration order, that it fills and a failed clause names; None where a failed
    clause applies in the base (it names no role, or names the base, which *runner* fills)."""
    roles = plan.matrix.roles
    if runner is None or not roles:
        return None
    base = roles[0].id
    if any(not c.roles or base in c.roles and read(ROLE + base) == runner for c in failed):
        return None
    return next((r.id for r in roles[1:] if any(r.id in c.roles for c in failed) and read(ROLE + r.id) == runner),
                None)
