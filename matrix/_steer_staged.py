"""Where the rules after the choice that no gate says act, for `matrix.strategies.configs` to steer
toward (issue 30, F6 with F1): a redirect at a stage, and a requirement of roles staged after
``choice``.

Neither is a gate of the compiled plan: each acts once a runner serves, on the config as the
stages before it leave it (`matrix._stages`). Each is said here as predicates over the config,
two nodes a rule, each steered toward (`staged_targets`):

- a redirect of runner X at stage S: X serves up to S and its condition holds there; and X serves
  up to S and its condition fails;
- a requirement of roles of runner R at stage S: R serves up to S and fills one of its roles
  there (it follows the base, or its role's field names R), and the clause (its chain) fails; and
  the same with it holding.

"X serves up to S" (`_Reading.before`): no removed feature in use, no gate that blocks X or forces
another runner active, no redirect of a request for X at the choice, no staged requirement that
binds X refusing before S (at S too, for a requirement: the matrix-wide ones and X's own are
checked first), no earlier redirect of X at a stage applying. A rule is read on X's config at
its stage as ``matrix check`` reads it: X's adjustments up to the stage rewritten away
(`matrix._substitute`), a role read as the fields it stands for (`matrix._roles.Filling`).

What is not weighed, to keep each draw to milliseconds on SGLang's example (steering is a
heuristic: a miss costs examples, never a wrong answer): what the adjustments before the choice
do (each node reads the config of choice as the config given: rewriting through SGLang's 39 cost
up to a second a node; a requirement's nodes weigh them cheaply instead, as not applying where
they would change what the node reads, `_unadjusted`), and, for a requirement of roles, any
runner but its own serving (one node per runner that may serve, each with its refusals before
the stage, grew to 22,000 nodes there).
Where a rewrite grows too large (`matrix._substitute.TooLarge`) the rule is read as written.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from packaging.version import Version

from ._nodes import Node, Not, Path, walk
from ._staged import binds, by_chain, filling, refusing
from .schema import Matrix, Requirement

__all__ = ["staged_targets"]


class _Reading:
    """Nodes read where a runner's steps stand at a stage, as predicates over the config given."""

    def __init__(self, matrix: Matrix, version: Version) -> None:
        from . import _roles
        from ._compile import plan
        from ._substitute import Rewriter

        compiled = plan(matrix, version)
        schema = matrix.schema if len(matrix.schema) else None
        self.matrix, self.compiled = matrix, compiled
        self.stages = matrix.stages
        self.roles = {r.id: _roles.filling(matrix, r.id) for r in matrix.runners}
        self.own = {r: Rewriter(a, schema, self.roles.get(r)) for r, a in compiled.adjustments.items()}

    def at(self, runner: str, node: Node, stage: int, inclusive: bool) -> Node:
        """*node* read once *runner* serves, at *stage* (after that stage's adjustments where
        *inclusive*, before them otherwise), over the config given."""
        from ._stages import place
        from ._substitute import TooLarge

        try:
            roles = self.roles.get(runner)
            if roles is not None:
                node = roles(node)
            own = self.compiled.adjustments.get(runner, ())
            count = sum(1 for a in own if place(self.stages, a) < stage + inclusive)
            if count:
                node = self.own[runner](node, count)
            return node
        except TooLarge:
            return node

    def before(self, runner: str, stage: int, inclusive: bool, skip: Optional[List[Requirement]] = None) -> List[Node]:
        """Where *runner*'s steps stop before *stage* (at it, where *inclusive*: its redirects at
        that stage, and the matrix-wide and its own requirements there, which are checked first;
        *skip* left out): a request for it redirected at the choice, a staged requirement refusing,
        or one of its redirects at a stage applying (where not *inclusive*, those of *stage* are
        the caller's: declaration order)."""
        from ._stages import place
        from ._substitute import disjoin
        from .schema import WIDE

        # A removed feature in use is refused before the choice; a request redirected at the choice
        # leaves the runner asked for.
        out = [f.when.node for f in self.matrix.features_at(self.compiled.version)
               if f.deprecated is not None and f.deprecated.is_removed(self.compiled.version)]
        out += [d.when.node for _, d in self.compiled.redirects.get(runner, ())]
        # A gate that blocks it refuses the request at the choice (no step after it is walked), and
        # one that forces another runner may replace it.
        compiled = self.compiled
        out += [g.when.node for g in compiled.active(compiled.blocking.get(runner, 0) | compiled.forcing)
                if g.forces is None or g.forces.runner != runner]
        choice = self.stages.index("choice")
        for chain in by_chain(self.matrix.staged).values():
            if skip is not None and chain[0] is skip[0]:
                continue
            k = place(self.stages, chain[0])
            here = k == stage and inclusive and chain[0].runner in (WIDE, runner)
            if not (k < stage or here) or (k > choice and not binds(chain[0], runner)):
                continue
            fails = refusing(chain)
            roles = self.roles.get(runner)
            out.append(roles(fails) if roles is not None and k > choice else fails)
        for redirect in self.compiled.staged_redirects.get(runner, ()):
            k = self.stages.index(redirect.stage)
            if k < stage or (k == stage and inclusive):
                out.append(self.at(runner, redirect.when.node, k, False))
        return [disjoin(out)] if out else []


def staged_targets(matrix: Matrix, version: Version) -> List[Node]:
    """The nodes to steer toward (the module's docstring): for each redirect at a stage in force
    and each requirement of roles staged after ``choice``, where it acts and where it is reached
    and does not."""
    from ._stages import place
    from ._substitute import conjoin

    if not matrix.stages:
        return []
    reading: Optional[_Reading] = None
    out: List[Node] = []
    choice = matrix.stages.index("choice")
    scoped = [c for c in by_chain(matrix.staged).values() if c[0].roles and place(matrix.stages, c[0]) > choice]
    if not scoped and not any(d.stage for r in matrix.runners for d in r.redirects):
        return []
    reading = _Reading(matrix, version)
    for runner, redirects in reading.compiled.staged_redirects.items():
        for redirect in redirects:
            k = matrix.stages.index(redirect.stage)
            stop = reading.before(runner, k, False) + [reading.at(runner, d.when.node, k, False) for d in redirects[:redirects.index(redirect)] if d.stage == redirect.stage]
            holds = reading.at(runner, redirect.when.node, k, False)
            out += [conjoin([*(Not(n) for n in stop), holds]), conjoin([*(Not(n) for n in stop), Not(holds)])]
    for chain in scoped:
        # Read where its own runner serves (a request for it, or the choice): a node per runner that
        # may serve, each with the refusals before it, grew past what the search answers in a
        # draw's time on SGLang's example; its runner fills a role that follows the base there.
        runner, k = chain[0].runner, place(matrix.stages, chain[0])
        reached = [Not(n) for n in reading.before(runner, k, True, chain)]
        bound = reading.at(runner, filling(chain[0]), k, True)
        held = reading.at(runner, conjoin([c.condition.node for c in chain]), k, True)
        kept = _unadjusted(reading, [*reached, bound, held])
        out += [conjoin([*reached, bound, Not(held), *kept]), conjoin([*reached, bound, held, *kept])]
    return out


def _unadjusted(reading: _Reading, nodes: Sequence[Node]) -> List[Node]:
    """Where no adjustment before the choice changes what *nodes* read: each that sets a path they
    read (or a path read by the condition of one kept so) does not apply, over the config given.
    The cheap way to weigh them (rewriting through them cost up to a second a node): a config
    drawn to meet a node over the config given, its other fields at random, was mostly changed
    by them before the choice (SGLang's E39 at kv4: met 20 times in 200 examples, reached none)."""
    from ._given import PREFIX as GIVEN

    read = {p.name for n in nodes for p in walk(n) if isinstance(p, Path)}
    kept: List[Node] = []
    chosen = set()
    grew = True
    while grew:
        grew = False
        for index, adjustment in enumerate(reading.compiled.pre_adjustments):
            if index in chosen or not read & set(adjustment.set):
                continue
            if any(p.startswith(GIVEN) for p in adjustment.when.paths):
                continue  # the config as given: not a path of the space steered over
            chosen.add(index)
            kept.append(Not(adjustment.when.node))
            read |= set(adjustment.when.paths)
            grew = True
    return kept
