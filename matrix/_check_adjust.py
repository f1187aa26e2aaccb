"""``matrix check`` on a matrix with adjustments: the configs each rule reads, and the findings
about the adjustments themselves.

Resolution reads two configs besides the one given (`matrix._adjust`): the choice reads the
config of choice C, and the runner that serves is validated on its effective config F. With
`matrix._substitute`, every gate's condition on C (and on a runner's F) is a predicate over the
config given, so check's questions about choice are put, exactly, on the configs resolution
reads. The questions about a condition alone (``never-active``, ``always-active``,
``equivalent-gates``, ``implied-contradiction``, the requirement findings) stay about the
condition over every config: C and F are configs too, so what they say holds of them as well.

The findings of this module:

- ``adjustment-refuses``: a config that automatic choice gives to a runner (free on C) and that
  the runner's own adjustments leave blocked on F: resolve raises `AdjustmentError` there.
- ``adjustment-never``: an adjustment in force that changes no value of any config: its
  condition never holds where it is read (the adjustments before it leave no such config, or,
  for a runner's, no config is served by it), or every path it sets has that value already. A
  runner's adjustment is *reached* where automatic choice takes one of its runners, or a request
  for one of them is served by that runner (not redirected or overridden elsewhere), or the
  no-runner error of automatic choice ends on one of them because a feature forces it.
- ``adjustment-undone``: an adjustment that changes values, and that the adjustments after it
  always undo: the config they leave is the same with it as without it, wherever it applies.
- ``forced-freed``: a config where automatic choice finds no runner free on C and a feature
  forces the runner the no-runner error ends on (`matrix._choice.forced`), R, whose own
  adjustments remove every gate that blocks it: resolve says R's adjustments and raises
  `NoRunnerError` with R's refusal read on C, where a host that validates the forced runner
  after adjusting (on F) would serve it. The mirror of ``adjustment-refuses`` (free on C,
  blocked on F): blocked on C, free on F, where the forced step decides.

Where a rewritten condition grows past `matrix._substitute.MAX_NODES`, check falls back to
reading the config as given, and says ``adjustment-unchecked`` of each adjustment that sets a
value some gate reads: there, and only there, its answers do not weigh adjustments (and each
``forced-freed`` question is said ``inconclusive``).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from . import _access, _choice, _messages, _roles
from ._roles import reads_role
from ._compile import Plan
from ._nodes import Compare, IsNone, Literal, Node, Not, Path
from ._space import Inconclusive, Space
from ._staged import binds, by_chain, filling, refusing
from ._staged import place as stage_of
from ._stages import CHOICE
from ._substitute import Rewriter, TooLarge, conjoin, constant, disjoin
from .errors import AdjustmentError, MatrixError, ResolutionError
from .predicates import truth
from .schema import WIDE, Adjustment, Feature, From, Matrix, Redirect, Requirement

Finding = Any  # check.Finding (check imports this module)


class Contexts:
    """The adjustments in force at a version, as rewriters: `choice` reads a node on C, `served`
    on a runner's F."""

    def __init__(self, matrix: Matrix, compiled: Plan) -> None:
        self.matrix, self.plan = matrix, compiled
        schema = matrix.schema if len(matrix.schema) else None
        self.schema = schema
        self.pre_adjustments = compiled.pre_adjustments
        self.own_adjustments = compiled.adjustments
        self.pre = Rewriter(self.pre_adjustments, schema)
        # Once a runner serves, a condition may read a role: the fields it stands for (`matrix._roles`).
        self.roles = {r: _roles.filling(matrix, r) for r in self.own_adjustments}
        self.own = {r: Rewriter(a, schema, self.roles[r]) for r, a in self.own_adjustments.items()}
        #: The adjustment whose rewriting grew too large (then every rewrite is the identity).
        self.too_large: Optional[str] = None
        #: The rewritten conditions the space must represent.
        self.nodes: List[Node] = []
        #: Staged requirements (issue 30, F6: `matrix._staged`), each chain's refusal on the config
        #: given: before the choice (stage index, node), and per runner it binds after it.
        self.first: List[Tuple[int, Node]] = []
        #: Each chain's refusal before the choice, by (runner, kind): `_staged_findings` reads it.
        self.first_of: Dict[Tuple[str, str], Node] = {}
        #: The chains before the choice whose refusal is read exactly even where the rest grows too
        #: large (`too_large`): each rewritten within the limit, and so is every chain at an earlier
        #: stage (the refusals that stop resolution before it), by (runner, kind).
        self.first_read: Set[Tuple[str, str]] = set()
        #: Redirects at a stage after the choice (issue 30, F6), as said, by each runner they
        #: change the steps of: the runner that serves before the stage, and the one after it.
        self.rerouted = _rerouting(compiled)
        self.later: Dict[str, List[Tuple[int, Node, Tuple[Requirement, ...]]]] = {}
        #: Where a requirement of roles is checked once a runner serves (its runner fills one of
        #: its roles at its stage), by (runner serving, the requirement's runner, kind).
        self.filled: Dict[Tuple[str, str, str], Node] = {}
        #: Redirects at a stage after the choice (issue 30, F6), by (runner, index): the condition
        #: read where the runner's steps before the stage leave the config, over the config given
        #: (None: one that reads a role), and each gate the runner it names says no to, read there
        #: (its validation's config where that runner has no adjustment from the stage on).
        self.at_stage: Dict[Tuple[str, int], Optional[Node]] = {}
        self.refused_at: Dict[Tuple[str, int], List[Tuple[Feature, Node]]] = {}
        #: Those whose runner is validated on the config at the stage (no adjustment of it from there).
        self.validated_at: Set[Tuple[str, int]] = set()
        self._witnessed: Optional[Set[Tuple[str, str]]] = None  # `witnessed`, once
        try:
            self._staged()
        except TooLarge as error:
            self.too_large = error.adjustment
        if not self.any:
            self._redirects_at()  # no adjustment: each condition as written
            return
        try:
            for feature in compiled.features:
                self.nodes.append(self.choice(feature.when.node))
            for runner in matrix.runners:
                if runner.candidate is not None:
                    self.nodes.append(self.choice(Not(runner.candidate.node)))
                if self.own.get(runner.id):
                    for feature in compiled.active(compiled.blocking[runner.id] | compiled.no[runner.id]):
                        self.nodes.append(self.served(runner.id, feature.when.node))
            for index in range(len(self.pre_adjustments)):
                self.nodes.extend(n for n in (self.pre.changes(index),) if n is not None)
            for own in self.own.values():
                for index in range(len(own.steps)):
                    found = own.changes(index)
                    if found is not None:
                        self.nodes.append(self.choice(found))
                    if own.steps[index].when is not own.steps[index].adjustment.when.node:  # it read a role
                        self.nodes.append(self.choice(own(own.steps[index].when, index)))
            self._redirects_at()  # last: where the rest grows too large, these are not read (`_redirected_at`)
        except TooLarge as error:
            self.too_large = error.adjustment
            self.pre = Rewriter((), schema)
            self.own = {r: Rewriter((), schema) for r in self.own}
            self.nodes = [self.first_of[key] for key in self.first_read]  # still exact (`first_read`)

    def _staged(self) -> None:
        matrix = self.matrix
        if not matrix.staged:
            return
        stages = matrix.stages
        at = stages.index(CHOICE)
        chains = by_chain(matrix.staged)
        # Those before the choice first, each on its own: one too large to rewrite leaves the others
        # exact (only the adjustments before its stage rewrite it, and no later one reads it).
        first = [(key, chain) for key, chain in chains.items() if stage_of(stages, chain[0]) < at]
        large: Optional[TooLarge] = None
        unread: List[int] = []  # the stages of those too large
        for key, chain in first:
            k = stage_of(stages, chain[0])
            fails = refusing(chain)
            n = sum(1 for a in self.pre_adjustments if stage_of(stages, a) <= k)
            try:
                node = self.pre(fails, n) if n else fails
            except TooLarge as error:
                large = large or error
                unread.append(k)
                continue
            self.first.append((k, node))
            self.first_of[key] = node
            self.nodes.append(node)
        self.first_read = {key for key, chain in first if key in self.first_of
                           and all(k >= stage_of(stages, chain[0]) for k in unread)}
        if large is not None:
            raise large
        for chain in chains.values():
            k = stage_of(stages, chain[0])
            if k < at:
                continue
            fails = refusing(chain)
            bound = filling(chain[0])
            for runner in matrix.runners:
                if binds(chain[0], runner.id):
                    own = self.own_adjustments.get(runner.id, ())
                    n = sum(1 for a in own if stage_of(stages, a) <= k)
                    roles = self.roles[runner.id]  # the roles as they stand at its stage (`matrix._roles.Filling`)
                    node = fails if roles is None else roles(fails)
                    node = self.choice(self.own[runner.id](node, n) if n else node)
                    self.later.setdefault(runner.id, []).append((k, node, tuple(chain)))
                    self.nodes.append(node)
                    if chain[0].roles:
                        assert roles is not None
                        filled = roles(bound)
                        filled = self.choice(self.own[runner.id](filled, n) if n else filled)
                        self.filled[(runner.id, chain[0].runner, chain[0].kind)] = filled
                        self.nodes.append(filled)

    def _redirects_at(self) -> None:
        stages = self.matrix.stages
        for runner, redirects in self.plan.staged_redirects.items():
            own = self.own_adjustments.get(runner, ())
            rewriter, roles = self.own.get(runner), self.roles.get(runner)
            for redirect in redirects:
                key = (runner, redirect.index)
                if reads_role(redirect.when):
                    self.at_stage[key] = None
                    continue
                k = stages.index(redirect.stage or CHOICE)
                n = sum(1 for a in own if stage_of(stages, a) < k)
                at = partial(self._at, rewriter, roles, n)
                self.at_stage[key] = node = at(redirect.when.node)
                self.nodes.append(node)
                self.refused_at[key] = [(f, at(f.when.node)) for f in self.plan.active(self.plan.no[redirect.to])]
                self.nodes.extend(node for _, node in self.refused_at[key])
                if roles is None and not any(stage_of(stages, a) >= k for a in self.own_adjustments.get(redirect.to, ())):
                    self.validated_at.add(key)

    def _at(self, rewriter: Optional[Rewriter], roles: Optional[Callable[[Node], Node]], n: int, node: Node) -> Node:
        """*node* read on the config after a runner's first *n* adjustments (*rewriter*), over
        the config given; the roles as *roles* fills them."""
        node = roles(node) if roles is not None else node
        return self.choice(rewriter(node, n) if n and rewriter is not None else node)

    def refused_before(self, runner: Optional[str], stage: int) -> List[Node]:
        """The staged refusals that stop resolution before the adjustments at *stage* (of
        *runner*'s, after the choice; those before the choice, None)."""
        return [n for k, n in self.first if k < stage] + [n for k, n, _ in self.later.get(runner or "", ()) if k < stage]

    @property
    def any(self) -> bool:
        return bool(self.pre_adjustments) or any(self.own_adjustments.values())

    def choice(self, node: Node) -> Node:
        """*node* read on the config of choice C."""
        return self.pre(node) if self.pre else node

    def served(self, runner: str, node: Node) -> Node:
        """*node* read on *runner*'s effective config F."""
        own = self.own.get(runner)
        return self.choice(own(node) if own else node)


def holds(node: Node, config: object, schema: Any) -> bool:
    """Whether a (rewritten) node holds for a witness config."""
    return truth(node, lambda path: _access.read(config, path, schema))


class _Reach:
    """Searches for configs where a runner serves: given it by automatic choice, or kept by a
    request for it, on the config of choice."""

    def __init__(self, ctx: Contexts, space: Space, choice: Any, gone: Sequence[Node],
                 chooses: Callable[[str, Any], bool]) -> None:
        self.ctx, self.space, self.choice, self.gone, self.chooses = ctx, space, choice, gone, chooses
        self.asked = [f for f in ctx.plan.features if f.applies != "automatic"]
        #: Refused before the choice by a staged requirement (issue 30, F6), whatever is asked.
        self.first = [n for _, n in ctx.first]

    def automatic(self, runner: str, true: Sequence[Node], redirected: bool = True) -> Optional[Dict[str, object]]:
        """A config automatic choice gives to *runner* (on C), with *true* holding too; without
        *redirected*, not by a redirect that applies always (issue 30, F6), whose runner is
        validated as asked for (a refusal there is no runner, never an `AdjustmentError`)."""
        for step in self.choice.steps:
            if step.runner != runner or not redirected and step.kind == "redirect":
                continue
            question = self.choice.fires(step, passed=lambda s: self.chooses(runner, s), true=true)
            if question is None:
                continue
            question["false"] = [*question["false"], *self.gone]
            found = self.space.solve(**question)
            if found is not None:
                return found
        return None

    def requested(self, runner: str, true: Sequence[Node]) -> Optional[Dict[str, object]]:
        """A config a request leaves with *runner* (on C), with *true* holding: a request for
        *runner* itself (no removed feature, no feature that forces another runner, no redirect
        of it), for another runner that a redirect sends to *runner* (its first redirect that
        holds), or for any runner while a feature forces *runner* over the one asked for (the
        runner is then adjusted even where it is refused after)."""
        compiled = self.ctx.plan
        choice = self.ctx.choice
        refusing = [choice(f.when.node) for f in self.asked if f.removed_at(compiled.version)
                    or (f.forces is not None and f.forces.runner != runner)] + self.first

        def redirects(of: str) -> List[Tuple[Node, str]]:
            return [(choice(compiled.features[bit.bit_length() - 1].when.node), r.to)
                    for bit, r in compiled.redirects.get(of, ())]

        found = self.space.solve(true=true, false=[*refusing, *(n for n, _ in redirects(runner))])
        if found is not None:
            return found
        for other in compiled.redirects:
            earlier: List[Node] = []
            for node, to in redirects(other):
                if to == runner:
                    found = self.space.solve(true=[*true, node], false=[*refusing, *earlier])
                    if found is not None:
                        return found
                earlier.append(node)
        # An overriding feature takes a request for another runner Q (asked for, or a redirect's)
        # to its runner, unless a removed feature, a feature that forces another runner than Q
        # without overriding (a refusal wins over an override: `matrix._choice`), or an
        # overriding one that forces a third runner is active (one that forces Q does not act
        # against the request).
        removed = [choice(f.when.node) for f in self.asked if f.removed_at(compiled.version)] + self.first
        for asked in (r.id for r in self.ctx.matrix.runners if r.id != runner):
            taken = removed + [choice(f.when.node) for f in self.asked if f.forces is not None and (
                f.forces.override and f.forces.runner not in (runner, asked)
                or not f.forces.override and f.forces.runner != asked)]
            # The request is for Q: asked for, no redirect of Q holding; or another's first
            # redirect that holds goes to Q.
            ways: List[Tuple[List[Node], List[Node]]] = [([], [n for n, _ in redirects(asked)])]
            for other in compiled.redirects:
                earlier = []
                for node, to in redirects(other):
                    if to == asked:
                        ways.append(([node], list(earlier)))
                    earlier.append(node)
            for f in self.asked:
                if f.forces is not None and f.forces.runner == runner and f.forces.override:
                    for holding, failing in ways:
                        found = self.space.solve(true=[*true, choice(f.when.node), *holding], false=[*taken, *failing])
                        if found is not None:
                            return found
        return None


def findings(ctx: Contexts, space: Space, choice: Any, gone: Sequence[Node],
             place: Any, budget: int, undecided: Callable[[Inconclusive, int], str],
             chooses: Callable[[str, Any], bool]) -> Iterator[Finding]:
    """``adjustment-refuses``, ``adjustment-never``, ``adjustment-undone`` and ``forced-freed``
    (module docstring). *choice* is check's `_Choice` of automatic choice on C; *gone* the
    removed gates' conditions on C (a config that uses one is refused first)."""
    gone = [*gone, *(n for _, n in ctx.first)]  # refused before the choice by a staged requirement
    yield from _forced_freed(ctx, space, choice, gone, place, budget, undecided)
    reach = _Reach(ctx, space, choice, gone, chooses)
    yield from _redirected_at(ctx, space, reach, place, budget, undecided)
    if ctx.too_large is not None:  # only the staged requirements before the choice read within the limit
        yield from _staged_findings(ctx, space, reach, place, budget, undecided, ctx.first_read)
        return
    yield from _staged_findings(ctx, space, reach, place, budget, undecided)
    if not ctx.any:
        return
    yield from _refuses(ctx, space, reach, place, budget, undecided)
    for adjustment in ctx.matrix.adjustments_at(ctx.plan.version):
        key = ("adjustments", adjustment.id)
        sent = _rerouted(ctx, adjustment)
        ways = _ways(ctx, adjustment) if sent else None
        if sent and ways is None:
            yield place.config("inconclusive", key, _messages.staged_redirect_undecided(
                f"whether {adjustment.name} ever changes a value, or is always undone", sent))
            continue
        try:
            if ways is not None:
                yield from _never_or_undone_ways(ctx, space, reach, adjustment, place, key, ways, sent)
                continue
            yield from _never_or_undone(ctx, space, reach, adjustment, place, key)
        except Inconclusive as error:
            yield place.config("inconclusive", key, _messages.adjustment_inconclusive(
                undecided(error, budget), adjustment.name, not adjustment.set))
        except TooLarge:
            yield place.config("inconclusive", key, _messages.adjustment_inconclusive(
                _messages.adjustment_too_large_to_decide(), adjustment.name, not adjustment.set))


def _redirected_at(ctx: Contexts, space: Space, reach: _Reach, place: Any, budget: int,
                   undecided: Callable[[Inconclusive, int], str]) -> Iterator[Finding]:
    """``redirect-never`` and ``redirect-refused`` of the redirects at a stage after the choice
    (issue 30, F6). X's redirect D at stage k reads its condition on the config X's steps before
    k leave (`Contexts.at_stage`), where X serves (`_Reach`: given it by automatic choice or kept by
    a request, on C) and no staged requirement before k refused: no such config, and D never
    applies (exact: each of these is a necessary condition). A config found is resolved to
    confirm that D applies there (its earlier redirects at a stage, and X's staged refusals, are
    not searched: a config they change does not confirm, and the question is ``inconclusive``).
    Refused: a confirmed config where D's runner Y, validated as asked for, refuses it; none where
    Y has no adjustment from k on (its validation reads the config at k, `Contexts.refused_at`)
    and no config holds a gate Y says no to there (exact); else ``inconclusive``."""
    matrix, compiled = ctx.matrix, ctx.plan
    everyones = {g.id for g in compiled.features if all(g.status(r.id, compiled.version) == "no" for r in matrix.runners)}
    for runner, redirects in compiled.staged_redirects.items():
        name = matrix.runner(runner).name
        for redirect in redirects:
            to = matrix.runner(redirect.to)
            what = _messages.redirect_what(name, redirect.index + 1, to.name, str(redirect.when))
            key = ("redirects", redirect.index)
            node = ctx.at_stage.get((runner, redirect.index))
            if node is None or ctx.too_large is not None:
                yield place.runner("inconclusive", runner, _messages.staged_redirect_unread(
                    f"whether {what} ever applies, or leaves a config {to.name} refuses", rerouting(redirect),
                    ctx.too_large is None), key=key)
                continue
            k = matrix.stages.index(redirect.stage or CHOICE)
            true = [node, *(Not(n) for n in ctx.refused_before(runner, k))]
            try:
                found = reach.automatic(runner, true) or reach.requested(runner, true)
                if found is None:
                    yield place.runner("redirect-never", runner, _messages.redirect_never(what, "stage"), key=key)
                    continue
                if not _applied(matrix, space.witness(found), redirect)[0]:
                    yield place.runner("inconclusive", runner, _messages.staged_redirect_unconfirmed(
                        f"whether {what} ever applies", rerouting(redirect)), key=key)
                    continue
                decided = (runner, redirect.index) in ctx.validated_at  # else its configs are candidates only
                witness = None
                for gate, there in ctx.refused_at[(runner, redirect.index)]:
                    if gate.id in everyones:
                        continue
                    hit = reach.automatic(runner, [*true, there]) or reach.requested(runner, [*true, there])
                    if hit is None:
                        continue
                    config = space.witness(hit)
                    if _applied(matrix, config, redirect)[1]:
                        witness = (gate, config)
                        break
                    decided = False  # a config that did not confirm
                if witness is not None:
                    gate, config = witness
                    reason = gate.origin.reason if isinstance(gate.origin, Requirement) else None
                    yield place.runner("redirect-refused", runner, _messages.redirect_refused(what, to.name, gate.name,
                                                                                              reason),
                                       key=key, witness=config)
                elif not decided:
                    yield place.runner("inconclusive", runner, _messages.staged_redirect_unconfirmed(
                        f"whether {what} leaves a config {to.name} refuses", rerouting(redirect)), key=key)
            except Inconclusive as error:
                yield place.runner("inconclusive", runner, f"Could not decide {undecided(error, budget)} whether "
                                   f"{what} applies and is served", key=key)


def _applied(matrix: Matrix, config: Dict[str, object], redirect: Redirect) -> Tuple[bool, bool]:
    """Whether *redirect* (at a stage) applies where *config* is resolved automatically or its
    runner asked for, and whether its runner then refuses it (validated as asked for, by a gate
    some runner does not say no to): resolved, not searched."""
    applied = False
    for asked in (None, redirect.runner):
        try:
            resolution, error = matrix.resolve(config, runner=asked, version=matrix.version), None
        except ResolutionError as caught:
            resolution, error = caught.resolution, caught
        found = resolution.redirect if resolution is not None else None
        if found is None or (found.runner, found.index) != (redirect.runner, redirect.index):
            continue
        applied = True
        if error is not None and resolution is not None and resolution.staged_refusal is None and any(
                not all(g.status(r.id, matrix.version) == "no" for r in matrix.runners)
                for g in resolution.unsupported.get(redirect.to, ())):
            return True, True
    return applied, False


def rerouting(redirect: Redirect) -> str:
    """A redirect at a stage after the choice, as check says it: ``intel_amx → torch_native at
    stage 'fallbacks'``."""
    return f"{redirect.runner} → {redirect.to} at stage {redirect.stage!r}"


def _rerouting(compiled: Plan) -> Dict[str, List[str]]:
    """Runner id → the redirects at a stage after the choice that change its steps (issue 30, F6):
    its own, and those that send another runner to it, as said (`rerouting`)."""
    out: Dict[str, List[str]] = {}
    for redirects in compiled.staged_redirects.values():
        for redirect in redirects:
            for runner in (redirect.runner, redirect.to):
                out.setdefault(runner, []).append(rerouting(redirect))
    return out


def _rerouted(ctx: Contexts, adjustment: Adjustment) -> List[str]:
    """The redirects at a stage after the choice that change where *adjustment* applies (issue 30,
    F6): for one after the choice, those of a runner it is among (every runner, for one that
    names none), which check does not read yet; an adjustment before the choice, none."""
    if not ctx.rerouted or not adjustment.runners and (
            not ctx.matrix.stages or stage_of(ctx.matrix.stages, adjustment) <= ctx.matrix.stages.index(CHOICE)):
        return []
    runners = adjustment.runners or tuple(ctx.rerouted)
    return list(dict.fromkeys(d for r in runners for d in ctx.rerouted.get(r, ())))


def _refuses(ctx: Contexts, space: Space, reach: _Reach, place: Any, budget: int,
             undecided: Callable[[Inconclusive, int], str]) -> Iterator[Finding]:
    """``adjustment-refuses``: free on C, blocked on F. A runner X with redirects at a stage after
    the choice (issue 30, F6) is validated on its F only where none of them applies (each read
    where X's steps before its stage leave the config, `Contexts.at_stage`): the search asks that
    too, and one that reads a role is ``inconclusive``. Where one applies, its runner Y is
    validated instead, and a refusal there is the redirect's (``redirect-refused``). A runner that
    is only sent to is validated as before where automatic choice gives it a config: a redirect
    at a stage does not change those configs."""
    compiled, matrix = ctx.plan, ctx.matrix
    for runner in matrix.runners:
        if not ctx.own_adjustments.get(runner.id):
            continue
        at_stage = [ctx.at_stage.get((runner.id, r.index)) for r in compiled.staged_redirects.get(runner.id, ())]
        if any(node is None for node in at_stage):  # one reads a role: not rewritten (`Contexts._redirects_at`)
            yield place.runner("inconclusive", runner.id, _messages.staged_redirect_undecided(
                f"whether {runner.name}'s own adjustments leave a config it cannot serve", ctx.rerouted[runner.id]))
            continue
        staying = [Not(node) for node in at_stage if node is not None]  # none of them applies
        # Every gate of automatic choice (one removed is refused on C first, yet blocks on F)
        # that the runner's adjustments rewrite: one they leave alone holds on F where it holds
        # on C, and there the runner was not free.
        own = ctx.own[runner.id]
        blockers = [f for f in compiled.active(compiled.blocking[runner.id] & compiled.automatic)
                    if own(f.when.node) != f.when.node]
        if not blockers:
            continue
        blocked = disjoin([ctx.served(runner.id, f.when.node) for f in blockers])
        late = [n for _, n, _ in ctx.later.get(runner.id, ())]  # a staged refusal comes first
        try:
            found = reach.automatic(runner.id, [blocked, *([Not(disjoin(late))] if late else []), *staying],
                                    redirected=False)
        except Inconclusive as error:
            yield place.runner("inconclusive", runner.id, _messages.adjustment_undecided(
                undecided(error, budget), runner.name))
            continue
        if found is None:
            continue
        witness = space.witness(found)
        said, first = "", ctx.own_adjustments[runner.id][0].id
        try:
            matrix.resolve(witness)
        except AdjustmentError as error:
            said = error.reason  # what resolve says, without the remedies its message ends with
            mine = [a.id for a in error.resolution.adjustments if a.runner == runner.id]
            first = mine[0] if mine else first
        except ResolutionError as error:
            # Refused otherwise: automatic choice came to the runner by a redirect that applies
            # always (validated as asked for, its refusal a NoRunnerError), which the search of
            # the runners it reaches unredirected does not read: said, not guessed.
            redirected = error.resolution.redirect
            if redirected is None:
                raise
            if redirected.stage is not None:  # not searched so: said, not guessed
                yield place.runner("inconclusive", runner.id, _messages.staged_redirect_undecided(
                    f"whether {runner.name}'s own adjustments leave a config it cannot serve", [rerouting(redirected)]))
                continue
            yield place.runner("inconclusive", runner.id, _messages.always_redirect_undecided(
                f"whether {runner.name}'s own adjustments leave a config it cannot serve",
                [f"{redirected.runner} → {redirected.to}"]))
            continue
        yield place.config("adjustment-refuses", ("adjustments", first),
                           _messages.adjustment_refuses(runner.name, said), runner=runner.id, witness=witness)


def _forced_freed(ctx: Contexts, space: Space, choice: Any, gone: Sequence[Node], place: Any, budget: int,
                  undecided: Callable[[Inconclusive, int], str]) -> Iterator[Finding]:
    """``forced-freed``: blocked on C, free on F, where the forced step decides: for each feature
    of automatic choice that forces a runner R with adjustments, a config where the step "no
    runner" decides (`matrix._choice.steps`), the feature is active, R is a candidate and the
    first forced runner that is one (no feature declared before it forces another candidate),
    and no gate that blocks R in automatic choice holds on R's F."""
    compiled, matrix = ctx.plan, ctx.matrix
    forcing = _forcing(ctx, choice)
    for feature in forcing:
        assert feature.forces is not None
        runner = matrix.runner(feature.forces.runner)
        if not ctx.own_adjustments.get(runner.id):
            continue
        key = ("features", feature.id, "forces")
        why = _messages.adjustment_too_large_to_decide() if ctx.too_large is not None else None
        found = None
        if why is None:
            try:
                found = _forced_free(ctx, space, choice, gone, feature, runner.id, forcing)
            except Inconclusive as error:
                why = undecided(error, budget)
            except TooLarge:
                why = _messages.adjustment_too_large_to_decide()
        if why is not None:
            yield place.config("inconclusive", key, _messages.forced_freed_undecided(why, runner.name, feature.name),
                               runner=runner.id)
            continue
        if found is None:
            continue
        witness = space.witness(found)
        try:
            resolution = matrix.resolve(witness, version=compiled.version)
        except ResolutionError as error:  # NoRunnerError: the search is exact (the tests re-resolve it)
            resolution = error.resolution
        adjusting = resolution._adjusting
        names, reasons = _choice._blocked_by(compiled, resolution._mask if adjusting is None else adjusting[1],
                                             runner.id)
        ids = list(dict.fromkeys(a.id for a in resolution.adjustments if a.runner == runner.id))
        yield place.feature("forced-freed", feature, _messages.forced_freed(runner.name, feature.name,
                                                                            names + reasons, ids),
                            key=("forces",), runner=runner.id, witness=witness)


def _forcing(ctx: Contexts, choice: Any) -> List[Feature]:
    """The features of automatic choice that force a runner (some config makes them active)."""
    compiled = ctx.plan
    return [f for f in compiled.active(compiled.forcing & compiled.automatic) if f.id not in choice.dead]


def _forced_free(ctx: Contexts, space: Space, choice: Any, gone: Sequence[Node], feature: Feature, runner: str,
                 forcing: Sequence[Feature], more: Sequence[Node] = (), free: bool = True
                 ) -> Optional[Dict[str, object]]:
    """A config where the no-runner error of automatic choice ends on *runner* because *feature*
    (one of *forcing*) forces it, with *more* holding too, and (*free*) no gate that blocks it
    holding on its F: `_forced_freed`'s question, or None."""
    compiled, on_c = ctx.plan, ctx.choice
    true = [on_c(feature.when.node), *more]
    candidacy = ctx.matrix.runner(runner).candidate
    if candidacy is not None:
        true.append(on_c(candidacy.node))
    false = list(gone)
    if free:
        false += [ctx.served(runner, g.when.node) for g in compiled.active(compiled.blocking[runner] & compiled.automatic)]
    extra: List[Tuple[str, List[Node]]] = []
    for other in forcing[: forcing.index(feature)]:
        assert other.forces is not None
        if other.forces.runner == runner:
            continue
        theirs = ctx.matrix.runner(other.forces.runner).candidate
        if theirs is None:
            false.append(on_c(other.when.node))
        else:  # it forces a runner that is no candidate there
            extra.append(("any", [Not(on_c(other.when.node)), Not(on_c(theirs.node))]))
    orders = {bit: [r for r, _ in runners] for bit, _, runners in compiled.orders}
    for step in choice.steps:
        if step.kind != "none" or runner not in orders.get(step.gate, [r for r, _ in compiled.order]):
            continue  # the error ends on a runner of the order that applies
        question = choice.fires(step, passed=lambda s: False, true=true)
        if question is None:
            continue
        found = space.solve(true=question["true"], false=[*question["false"], *false],
                            extra=[*question["extra"], *extra])
        if found is not None:
            return found
    return None


def _never_or_undone(ctx: Contexts, space: Space, reach: _Reach, adjustment: Adjustment, place: Any,
                     key: Tuple[str, str]) -> Iterator[Finding]:
    """``adjustment-never`` or ``adjustment-undone`` for one adjustment, if either. One that says
    its message always (``says = "always"``, a notice) speaks wherever its ``when`` holds on the
    config it finds: it is never said where that holds for no config it can find, and its
    message is its effect, so it is never undone."""
    always = adjustment.says == "always"
    never = _messages.adjustment_never_says if always else _messages.adjustment_never
    if adjustment in ctx.pre_adjustments:
        pre = list(ctx.pre_adjustments)
        index = pre.index(adjustment)
        changes = ctx.pre(adjustment.when.node, index) if always else ctx.pre.changes(index)
        if changes is None:
            return
        stage = stage_of(ctx.matrix.stages, adjustment) if ctx.matrix.stages else 0
        cut = ctx.refused_before(None, stage)
        if space.solve(true=[changes, *([Not(disjoin(cut))] if cut else [])]) is None:
            yield place.config("adjustment-never", key, never(adjustment.name, _why(ctx, space, adjustment, index, None)))
        elif not always and _across(ctx, pre, index, None) and _undone(ctx, space, pre, index, None):
            yield place.config("adjustment-undone", key, _messages.adjustment_undone(adjustment.name))
        return
    reached = False
    # The runners it applies for: its own, or, for one that names none at a stage after the
    # choice, every runner (`matrix._stages`).
    runners = [r.id for r in ctx.matrix.runners if adjustment in ctx.own_adjustments[r.id]]
    for runner in runners:
        index = list(ctx.own_adjustments[runner]).index(adjustment)
        own = ctx.own[runner]
        mine = own(own.steps[index].when, index) if always else own.changes(index)
        if mine is None:
            return
        mine = ctx.choice(mine)
        cut = ctx.refused_before(runner, stage_of(ctx.matrix.stages, adjustment) if ctx.matrix.stages else 0)
        kept = [mine, *([Not(disjoin(cut))] if cut else [])]  # no staged refusal before its stage
        reached = reached or reach.automatic(runner, kept) is not None or reach.requested(runner, kept) is not None
        forcing = _forcing(ctx, reach.choice)
        reached = reached or any(_forced_free(ctx, space, reach.choice, reach.gone, f, runner, forcing, [mine], False)
                                 is not None for f in forcing if f.forces is not None and f.forces.runner == runner)
    if not reached:
        names = [ctx.matrix.runner(r).name for r in runners]
        yield place.config("adjustment-never", key, never(adjustment.name, _why(ctx, space, adjustment, None, names, runners)))
    elif not always and all(_across(ctx, list(ctx.own_adjustments[r]), list(ctx.own_adjustments[r]).index(adjustment), r)
                            and _undone(ctx, space, list(ctx.own_adjustments[r]),
                                        list(ctx.own_adjustments[r]).index(adjustment), r) for r in runners):
        yield place.config("adjustment-undone", key, _messages.adjustment_undone(adjustment.name))


#: A way an adjustment after the choice runs where redirects at a stage act (`_ways`): the runner
#: that serves at the choice, the adjustments it runs through in order, the runners whose steps
#: they are, and where the way is taken (over the config given: which of those redirects hold).
_Way = Tuple[str, List[Adjustment], Tuple[str, ...], List[Node]]


def _ways(ctx: Contexts, adjustment: Adjustment) -> Optional[List[_Way]]:
    """Each way *adjustment* (after the choice) runs where redirects at a stage after the choice
    act (issue 30, F6; docs/reference/file-format.md, "A redirect at a stage"): for each of its
    runners R, R serving with none of its redirects at a stage holding (its own adjustments), or
    with its redirect D at a stage after the adjustment's holding first (R's adjustments before
    D's stage, then D's runner's from it); and X serving, X's redirect to R at a stage at or before
    the adjustment's holding first (X's before that stage, then R's from it). None where a runner
    on a way reads roles or a redirect's condition is not read at its stage (`Contexts.at_stage`)."""
    stages, own = ctx.matrix.stages, ctx.own_adjustments
    at = stage_of(stages, adjustment)
    ways: List[_Way] = []

    def holding(x: str, redirect: Redirect) -> Optional[List[Node]]:
        """Where *redirect* of *x* is the first of x's redirects at a stage that holds."""
        out: List[Node] = []
        for d in ctx.plan.staged_redirects[x]:
            node = ctx.at_stage.get((x, d.index))
            if node is None:
                return None
            if d is redirect:
                return [*out, node]
            out.append(Not(node))
        raise AssertionError("a redirect of its own runner")

    for runner in (r.id for r in ctx.matrix.runners if adjustment in own[r.id]):
        mine = list(own[runner])
        redirects = ctx.plan.staged_redirects.get(runner, ())
        none: List[Node] = [Not(n) for n in (ctx.at_stage.get((runner, d.index)) for d in redirects) if n is not None]
        if len(none) < len(redirects):
            return None
        ways.append((runner, mine, (runner,), none))
        for d in redirects:
            k = stages.index(d.stage or CHOICE)
            entry = holding(runner, d)
            if entry is None:
                return None
            if k > at:
                ways.append((runner, [a for a in mine if stage_of(stages, a) < k]
                             + [a for a in own.get(d.to, ()) if stage_of(stages, a) >= k], (runner, d.to), entry))
        for x, sending in ctx.plan.staged_redirects.items():
            for d in sending:
                k = stages.index(d.stage or CHOICE)
                if d.to != runner or k > at:
                    continue
                entry = holding(x, d)
                if entry is None:
                    return None
                ways.append((x, [a for a in own.get(x, ()) if stage_of(stages, a) < k]
                             + [a for a in mine if stage_of(stages, a) >= k], (x, runner), entry))
    if any(ctx.roles.get(r) is not None for _, _, runners, _ in ways for r in runners):
        return None
    return ways


def _never_or_undone_ways(ctx: Contexts, space: Space, reach: _Reach, adjustment: Adjustment, place: Any,
                          key: Tuple[str, str], ways: List[_Way], sent: List[str]) -> Iterator[Finding]:
    """``adjustment-never`` or ``adjustment-undone`` of an adjustment whose runners' steps
    redirects at a stage change (`_ways`). Never: on no way does it change a value (read through
    that way's adjustments before it, where the way is taken and its serving runner is reached:
    each a necessary condition, so none found is exact). A config found is resolved to confirm that
    it is said; none that confirms: ``inconclusive``. Undone: on every way, wherever it is taken and
    the adjustment changes a value, the adjustments after it on that way undo it (`_undone`)."""
    always = adjustment.says == "always"
    never = _messages.adjustment_never_says if always else _messages.adjustment_never
    stages = ctx.matrix.stages
    found: List[Dict[str, object]] = []
    taken: List[Tuple[Rewriter, List[Adjustment], int, List[Node], Tuple[str, ...]]] = []
    for serving, adjustments, runners, entry in ways:
        rewriter = ctx.own[serving] if adjustments == list(ctx.own_adjustments[serving]) else Rewriter(adjustments, ctx.schema)
        index = adjustments.index(adjustment)
        mine = rewriter(rewriter.steps[index].when, index) if always else rewriter.changes(index)
        if mine is None:
            return  # a list among its paths (as `_never_or_undone`)
        taken.append((rewriter, adjustments, index, entry, runners))
        # The staged refusals before it: on a way through a redirect, those before the choice alone
        # (fewer refusals, more configs: the search stays a necessary condition).
        cut = ctx.refused_before(None if runners[1:] else serving, stage_of(stages, adjustment))
        kept = [ctx.choice(mine), *entry, *([Not(disjoin(cut))] if cut else [])]
        hit = reach.automatic(serving, kept) or reach.requested(serving, kept)
        if hit is not None:
            found.append(space.witness(hit))
    # The forced way: where the no-runner error of automatic choice ends on one of its runners
    # because a feature forces it, that runner's adjustments all apply to C, stage by stage; it
    # does not serve, so none of its redirects at a stage is read, nor its staged requirements
    # (docs/explanation/effective-config.md, step 4; `matrix.resolver`).
    forcing = _forcing(ctx, reach.choice)
    forced = _forced_ways(ctx, space, reach, adjustment, forcing, found)
    if forced is None:
        return
    if not found:
        serving_ids = [r.id for r in ctx.matrix.runners if adjustment in ctx.own_adjustments[r.id]]
        names = [ctx.matrix.runner(r).name for r in serving_ids]
        yield place.config("adjustment-never", key, never(adjustment.name, _why(ctx, space, adjustment, None, names,
                                                                                 serving_ids)))
        return
    if not any(_speaks(ctx.matrix, config, adjustment) for config in found):
        yield place.config("inconclusive", key, _messages.staged_redirect_unconfirmed(
            f"whether {adjustment.name} ever changes a value", ", ".join(sent)))
        return
    if always:
        return
    for rewriter, adjustments, index, entry, runners in taken:
        changing = rewriter.changes(index)
        if changing is None or space.solve(true=[ctx.choice(changing), *entry]) is None:
            continue  # it changes no value on this way
        for runner in runners:
            _across(ctx, adjustments, index, runner)
        if not _undone(ctx, space, adjustments, index, runners[0], rewriter, entry):
            return
    for runner, index in forced:  # undone where the forced way is taken too (exact: `_forced_free`)
        question = _undone_question(ctx, list(ctx.own_adjustments[runner]), index, runner)
        if question is None or _forced(ctx, space, reach, forcing, runner, [question]) is not None:
            return
    yield place.config("adjustment-undone", key, _messages.adjustment_undone(adjustment.name))


def _forced_ways(ctx: Contexts, space: Space, reach: _Reach, adjustment: Adjustment, forcing: Sequence[Feature],
                 found: List[Dict[str, object]]) -> Optional[List[Tuple[str, int]]]:
    """The forced ways *adjustment* is taken on where it changes a value (where it is said, for one
    that says always): its runners that the no-runner error ends on, forced, with its index among
    their adjustments; a config of each added to *found*. None where a list is among its paths."""
    out: List[Tuple[str, int]] = []
    for runner in (r.id for r in ctx.matrix.runners if adjustment in ctx.own_adjustments[r.id]):
        index = list(ctx.own_adjustments[runner]).index(adjustment)
        own = ctx.own[runner]
        mine = own(own.steps[index].when, index) if adjustment.says == "always" else own.changes(index)
        if mine is None:
            return None
        hit = _forced(ctx, space, reach, forcing, runner, [ctx.choice(mine)])
        if hit is not None:
            found.append(space.witness(hit))
            out.append((runner, index))
    return out


def _forced(ctx: Contexts, space: Space, reach: _Reach, forcing: Sequence[Feature], runner: str,
            more: Sequence[Node]) -> Optional[Dict[str, object]]:
    """A config where the no-runner error of automatic choice ends on *runner*, forced, with
    *more* holding on the config given, or None."""
    return next((h for h in (_forced_free(ctx, space, reach.choice, reach.gone, f, runner, forcing, more, False)
                             for f in forcing if f.forces is not None and f.forces.runner == runner)
                 if h is not None), None)


def _speaks(matrix: Matrix, config: Dict[str, object], adjustment: Adjustment) -> bool:
    """Whether resolving *config* (automatically, or asked for any runner) says *adjustment*."""
    for asked in (None, *(r.id for r in matrix.runners)):
        try:
            resolution = matrix.resolve(config, runner=asked, version=matrix.version)
        except ResolutionError as error:
            resolution = error.resolution
        except MatrixError:  # a config the search built that resolve does not take: it proves nothing
            continue
        if resolution is not None and any(w.kind == "adjusted" and w.feature == adjustment.id
                                          for w in resolution.warnings):
            return True
    return False


def _across(ctx: Contexts, adjustments: List[Adjustment], index: int, runner: Optional[str]) -> bool:
    """True; or raises `Inconclusive` (cause ``stages``) where a staged requirement stands between
    the adjustment at *index* and a later one of *adjustments*: where it refuses, the later ones
    do not run, and whether they undo it is not asked of those configs."""
    stages = ctx.matrix.stages
    if not stages or index + 1 >= len(adjustments):
        return True
    start, end = stage_of(stages, adjustments[index]), stage_of(stages, adjustments[-1])
    between = [c for c in ctx.matrix.staged if start <= stage_of(stages, c) < end and binds(c, runner)
               and (runner is not None or c.runner == WIDE)]
    if between:
        raise Inconclusive(sorted({p for c in between for p in c.condition.paths}), ("stages",))
    return True


def _staged_findings(ctx: Contexts, space: Space, reach: _Reach, place_: Any, budget: int,
                     undecided: Callable[[Inconclusive, int], str],
                     only: Optional[Set[Tuple[str, str]]] = None) -> Iterator[Finding]:
    """``requirement-idle`` of a staged requirement that refuses no config it is checked on, and
    ``requirement-unmet`` of one that refuses every config it is checked on (issue 30, F6):
    before the choice, the configs no earlier stage refuses; after it, for each runner it binds,
    the configs that runner serves up to its stage. With *only*, those chains (runner, kind) alone."""
    stages = ctx.matrix.stages
    for chain_of, (clause, *_) in by_chain(ctx.matrix.staged).items():
        if only is not None and chain_of not in only:
            continue
        k = stage_of(stages, clause)
        owner = None if clause.wide else ctx.matrix.runner(clause.runner)
        what = _staged_what(clause, owner)
        key: Tuple[object, ...] = ("requires", clause.kind)
        sent = [] if k < stages.index(CHOICE) else list(dict.fromkeys(
            d for r, found in ctx.rerouted.items() if binds(clause, r) for d in found))
        if sent and chain_of in witnessed(ctx, budget):
            continue  # resolved configs show it refusing and passing: neither finding
        if sent:  # issue 30, F6: checked for a runner whose steps a redirect at a stage changes
            yield _said(place_, owner, key, "inconclusive", _messages.staged_redirect_undecided(
                f"whether {what} can refuse and pass", sent))
            continue
        try:
            # Per runner it is checked for (None before the choice): its refusal, the refusals before
            # its stage, and, for a requirement of roles, where its runner fills one (`Contexts.filled`).
            ways: List[Tuple[Optional[str], Node, List[Node], List[Node]]] = []
            if k < stages.index(CHOICE):
                node = ctx.first_of[chain_of]
                ways.append((None, node, ctx.refused_before(None, k), []))
            else:
                for runner, later in ctx.later.items():
                    for _, node, chain in later:
                        if chain[0] is clause:
                            filled = ctx.filled.get((runner, clause.runner, clause.kind))
                            ways.append((runner, node, ctx.refused_before(runner, k),
                                         [filled] if filled is not None else []))

            def found(runner: Optional[str], true: Sequence[Node]) -> bool:
                if runner is None:
                    return space.solve(true=true) is not None
                return reach.automatic(runner, true) is not None or reach.requested(runner, true) is not None

            # Reached: no refusal before its stage. Idle: it refuses no config reached; unmet: it
            # refuses every config reached where it is checked (its runner filling one of its roles).
            cuts = [(r, n, [Not(disjoin(cut))] if cut else [], filled) for r, n, cut, filled in ways]
            reached = [r for r, _, cut, _ in cuts if found(r, cut)] if cuts else []
            if not reached:
                continue
            if not any(found(r, [n, *cut]) for r, n, cut, _ in cuts if r in reached):
                yield _said(place_, owner, key, "requirement-idle", _messages.staged_idle(what, stages[k]))
            elif not any(found(r, [Not(n), *cut, *filled]) for r, n, cut, filled in cuts if r in reached):
                yield _said(place_, owner, key, "requirement-unmet", _messages.staged_unmet(
                    what, stages[k], [ctx.matrix.runner(r).name for r in reached if r is not None],
                    (owner.name, clause.roles) if owner is not None and clause.roles else None))
        except Inconclusive as error:
            yield _said(place_, owner, key, "inconclusive",
                        f"Could not decide {undecided(error, budget)} whether {what} can refuse and pass")


def witnessed(ctx: Contexts, budget: int) -> Set[Tuple[str, str]]:
    """The chains of staged requirements after the choice (runner, kind) that resolved configs
    show both refusing and passing where they are checked: neither ``requirement-idle`` nor
    ``requirement-unmet``, exactly, where the search cannot read them (through adjustments too
    large to rewrite, or a redirect at a stage that changes their runner's steps). Refusing: a
    resolution whose staged refusal names it. Passing: one that serves, by a runner it binds that
    served at its stage (not a requirement of roles: whether its runner filled one of them there is
    not read back). The configs tried: every setting at its default, asked for each runner and
    chosen automatically; and, for each chain and runner it binds, one where it fails and one where
    it holds, read through that runner's own adjustments up to its stage, the second with no gate
    that blocks the runner nor a removed one holding as given (the adjustments before the choice
    not weighed: a config tried that neither refuses nor passes proves nothing, and the chain stays
    undecided)."""
    if ctx._witnessed is not None:
        return ctx._witnessed
    matrix = ctx.matrix
    stages = matrix.stages
    at = stages.index(CHOICE) if stages else 0
    chains = {key: chain for key, chain in by_chain(matrix.staged).items() if stage_of(stages, chain[0]) >= at}
    shown = _Shown(ctx, chains)
    runners = [r.id for r in matrix.runners]
    schema = ctx.plan.reading or matrix.schema
    defaults = Space(schema, []).witness({})  # every required field filled in
    for runner in (None, *runners):
        shown.tried(defaults, runner)
    rewriters: Dict[str, Rewriter] = {}  # each runner's own adjustments, built once (their memo shared)
    for key, chain in chains.items():
        for fails, seen in ((True, shown.refused), (False, shown.passed)):
            for runner in runners:
                if key in seen or not fails and key not in shown.refused:  # passing alone decides nothing
                    break
                if runner not in rewriters:
                    rewriters[runner] = Rewriter(ctx.own_adjustments.get(runner, ()), ctx.schema, ctx.roles.get(runner))
                config = _meeting(ctx, chain, runner, rewriters[runner], schema, budget, fails) \
                    if binds(chain[0], runner) else None
                if config is not None:
                    shown.tried(config, runner)
                    shown.tried(config, None)
    ctx._witnessed = shown.refused & shown.passed & set(chains)
    return ctx._witnessed


class _Shown:
    """What resolved configs show of staged chains after the choice (`witnessed`)."""

    def __init__(self, ctx: Contexts, chains: Dict[Tuple[str, str], List[Requirement]]) -> None:
        self.ctx, self.chains = ctx, chains
        self.refused: Set[Tuple[str, str]] = set()
        self.passed: Set[Tuple[str, str]] = set()

    def tried(self, config: Dict[str, object], runner: Optional[str]) -> None:
        matrix, stages = self.ctx.matrix, self.ctx.matrix.stages
        try:
            resolution = matrix.resolve(config, runner=runner, version=self.ctx.plan.version)
            served = True
        except ResolutionError as error:
            resolution, served = error.resolution, False
        except MatrixError:  # a config the search built that resolve does not take: it proves nothing
            return
        if resolution is None:
            return
        if resolution.staged_refusal is not None:
            self.refused.update((r.split(":", 1)[0], r.split(":", 1)[1]) for r in resolution.staged_refusal["requirements"])
        if not served:
            return
        redirect = resolution.redirect
        for key, chain in self.chains.items():
            # The runner serving at its stage: the one a redirect at a later stage sent on.
            serving = redirect.runner if redirect is not None and redirect.stage is not None and \
                stages.index(redirect.stage) > stage_of(stages, chain[0]) else resolution.runner
            if not chain[0].roles and binds(chain[0], serving):
                self.passed.add(key)


def _meeting(ctx: Contexts, chain: List[Requirement], runner: str, own: Rewriter, schema: Any,
             budget: int, fails: bool) -> Optional[Dict[str, object]]:
    """A config where *chain* fails (*fails*) or holds once *runner* serves, read through *runner*'s
    own adjustments (*own*) up to its stage (not those before the choice), or None (none, or not
    found within the limits). One where it holds has no gate that blocks *runner*, nor a removed
    one, holding as given: a config *runner* may serve."""
    stages, compiled = ctx.matrix.stages, ctx.plan
    roles = ctx.roles.get(runner)
    n = sum(1 for a in ctx.own_adjustments.get(runner, ()) if stage_of(stages, a) <= stage_of(stages, chain[0]))
    try:
        node = refusing(chain)
        node = node if roles is None else roles(node)
        node = own(node, n) if n else node
        false = [] if fails else [f.when.node for f in compiled.active(compiled.blocking[runner] | compiled.removed)]
        space = Space(schema, [node, *false], budget=min(budget, 20_000))
        found = space.solve(true=[node], false=false) if fails else space.solve(true=[], false=[node, *false])
    except (TooLarge, Inconclusive):
        return None
    return None if found is None else space.witness(found)


def unchecked(ctx: Contexts, place_: Any, budget: int) -> Iterator[Finding]:
    """``requirement-unchecked`` of each staged requirement where the conditions read through the
    adjustments grow too large to search (`Contexts.too_large`): ``requirement-idle`` and
    ``requirement-unmet`` are not said of it then, and this says so (a note about check's reach)."""
    # Before the choice, read within the limit (`_staged_findings`); after it, shown both ways by
    # resolved configs (`witnessed`): decided.
    decided = set(ctx.first_read) | witnessed(ctx, budget)
    for chain_of, (clause, *_) in by_chain(ctx.matrix.staged).items():
        if chain_of in decided:
            continue
        owner = None if clause.wide else ctx.matrix.runner(clause.runner)
        yield _said(place_, owner, ("requires", clause.kind), "requirement-unchecked",
                    _messages.staged_unchecked(_staged_what(clause, owner), clause.stage or CHOICE))


def _staged_what(clause: Requirement, owner: Any) -> str:
    """A staged requirement as check's findings name it."""
    return (_messages.wide_requirement(clause.kind, clause.reason, "") if owner is None
            else f"{owner.name}'s requirement {clause.kind!r} ({clause.reason})")


def _said(place_: Any, owner: Any, key: Tuple[object, ...], code: str, message: str) -> Finding:
    """A finding at a staged requirement's place: its runner's file, or its key of [requires]."""
    if owner is None:
        return place_.config(code, key, message)
    return place_.runner(code, owner.id, message)


def _why(ctx: Contexts, space: Space, adjustment: Adjustment, index: Optional[int],
         runners: Optional[List[str]], ids: Sequence[str] = ()) -> str:
    """Why an adjustment never applies: one of the reasons `matrix._messages.adjustment_never`
    words."""
    if space.solve(true=[_when(ctx, adjustment, ids)]) is None:
        return "unsatisfiable"
    if runners is not None:
        return "unreached:" + ", ".join(runners)
    assert index is not None
    if space.solve(true=[ctx.pre(adjustment.when.node, index)]) is None:
        return "shadowed"
    return "unchanged"


def _when(ctx: Contexts, adjustment: Adjustment, runners: Sequence[str]) -> Node:
    """Where *adjustment*'s condition holds on some config, read as it is, or, where it reads a
    role, with the runner of any of *runners* serving (`matrix._roles.Filling`)."""
    if not runners or not _roles.reads_role(adjustment.when):
        return adjustment.when.node
    return disjoin([ctx.own[r].steps[list(ctx.own_adjustments[r]).index(adjustment)].when for r in runners])


def _undone(ctx: Contexts, space: Space, adjustments: List[Adjustment], index: int,
            runner: Optional[str], prefix: Optional[Rewriter] = None, entry: Sequence[Node] = ()) -> bool:
    """Whether the adjustments after the one at *index* always leave the config they end with
    as it would be without it, wherever it changes a value (and *entry* holds, read through
    *prefix*: a way of `_ways`, whose adjustments are *adjustments*)."""
    node = _undone_question(ctx, adjustments, index, runner, prefix)
    return node is not None and space.solve(true=[node, *entry]) is None


def _undone_question(ctx: Contexts, adjustments: List[Adjustment], index: int, runner: Optional[str],
                     prefix: Optional[Rewriter] = None) -> Optional[Node]:
    """Where, over the config given, the adjustment at *index* changes a value and the ones after
    it do not undo it (`_undone`'s question); None where that is not asked (none after it, or a
    list among their paths: never undone)."""
    schema = ctx.schema
    later = adjustments[index + 1:]
    if not later:
        return None
    read: Set[str] = set()
    for a in adjustments[index:]:
        read.update(a.set)
        read.update(v.path for v in a.set.values() if isinstance(v, From))
    if any(schema is not None and (f := schema.get(p)) is not None and f.item_type is not None for p in read):
        return None  # a list: the search tests no list for equality
    roles = ctx.roles.get(runner) if runner is not None else None
    with_it = Rewriter(adjustments[index:], schema, roles)
    without = Rewriter(later, schema, roles)
    first = with_it.changes(0)
    assert first is not None  # no list among its paths
    differs: List[Node] = []
    for path in sorted({p for a in adjustments[index:] for p in a.set}):
        for c1, t1 in _terms(with_it, path):
            for c2, t2 in _terms(without, path):
                differs.append(conjoin([c1, c2, _differ(t1, t2)]))
    question = conjoin([first, disjoin(differs)])
    if prefix is not None:
        return ctx.choice(prefix(question, index))
    return ctx.pre(question, index) if runner is None else ctx.choice(ctx.own[runner](question, index))


def _terms(rewriter: Rewriter, path: str, before: Optional[int] = None) -> List[Tuple[Node, Node]]:
    """What *path* reads after every adjustment of *rewriter* (the first *before* of them):
    exclusive conditions over the config before them, each with a path or a literal."""
    cases: List[Tuple[Node, Node]] = [(conjoin([]), Path(path))]
    for index in reversed(range(len(rewriter.steps) if before is None else before)):
        out: List[Tuple[Node, Node]] = []
        for condition, term in cases:
            condition = rewriter.through(index, condition)
            if not isinstance(term, Path):
                out.append((condition, term))
                continue
            for c, t in rewriter.steps[index].cases(term.name):
                out.append((conjoin([condition, c]), t))
        cases = [(c, t) for c, t in out if constant(c) is not False]
    return cases


def _differ(a: Node, b: Node) -> Node:
    """Where two terms read differently (as `matrix._adjust` tells a change: None is None only)."""
    if isinstance(a, Literal) and a.value is None:
        return IsNone(b, True) if not isinstance(b, Literal) else Literal(b.value is not None)
    if isinstance(b, Literal) and b.value is None:
        return _differ(b, a)
    if isinstance(a, Literal) and isinstance(b, Literal):
        same = type(a.value) is type(b.value) and a.value == b.value
        return Literal(not same)
    return Not(Compare(a, "==", b))

