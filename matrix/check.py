"""``matrix check``: lint a matrix and prove properties over its whole config space.

Each finding has a stable code (`CODES` lists every one, with its severity and meaning; the
README's table says the same), a severity, the place in ``features.toml`` it is about and,
where a config shows it, a witness config that ``matrix resolve`` can be run on.

Method: every question is a search over the finite partition of the config space that the
predicates induce (see `matrix._space`): exact there, so exact over all configs, or
``inconclusive`` with its cause (`matrix._space.CAUSES`). Pairwise questions are first
narrowed by evaluating every gate on a fixed sample of configs (two gates that differ on a
sample are not equivalent), then settled by the exact search. Questions about runner choice
(``never-chosen``, ``no-runner``) are put to the decision list of `matrix._choice`, the one
statement of the rules that `resolve` reads too; with adjustments, each gate as the choice reads
it, on the config of choice (`matrix._check_adjust`, `matrix._substitute`).

The sentences of the findings are written here, beside the question each one answers; every
other user-facing sentence lives in `matrix._messages`.
"""

from __future__ import annotations

import os
import re
from functools import partial
from typing import (TYPE_CHECKING, Any, Callable, Dict, FrozenSet, Generator, Iterator, List, Literal, Mapping,
                    Optional, Sequence, Set, Tuple, Union, get_args)

import attrs
from packaging.version import Version

from ._given import PREFIX as GIVEN, adjusted
from ._space import CAUSES, PRESENT, Inconclusive, Space
from .binding import DRIFT_CODES
from ._versions import VersionLike, to_version
from ._nodes import Literal as Constant, Node, Not
from ._choice import Rule, Term
from ._compile import Plan, plan
from ._nodes import Or
from . import _check_adjust, _check_overlay, _messages, _templates
from .errors import NoRunnerError, ResolutionError
from ._substitute import Rewrite, identity
from .schema import (BLOCKING, NOTHING, Adjustment, Feature, Matrix, Order, Redirect, Refusal, Requirement, Runner, Statement,
                     asked_only, refusing)

if TYPE_CHECKING:  # pragma: no cover
    from ._locate import Locations

#: A search's answer: config path → the representative value chosen.
Assignment = Dict[str, object]
#: `Space.solve`.
Solve = Callable[..., Optional[Assignment]]

__all__ = ["CODES", "SEVERITIES", "Finding", "Report", "Severity", "check", "iter_findings"]


def __dir__() -> List[str]:
    return __all__


#: code → (severity, what it means).
CODES: Dict[str, Tuple[Severity, str]] = {
    "removal-overdue": ("error", "a deprecated gate is past its remove_in, and the removal is not recorded"),
    "no-removal-version": ("warning", "deprecated without remove_in"),
    "message-version": ("warning", "a deprecation message names a version other than remove_in"),
    "deprecated-by-default": ("warning", "a deprecated gate that the default config makes active"),
    "history-unused": ("warning", "a support statement that is never in force"),
    "never-active": ("error", "no config satisfies the condition"),
    "always-active": ("warning", "every config satisfies the condition"),
    "equivalent-gates": ("warning", "two gates with equivalent conditions and the same support"),
    "implied-contradiction": ("warning", "a condition implies another's, with contradictory support"),
    "never-chosen": ("warning", "a runner that automatic choice never picks"),
    "no-yes": ("warning", "a runner that no cell says yes to"),
    "no-runner": ("note", "gates that, active together, leave no runner free"),
    "schema-stale": ("warning", "a JSON Schema for editors, next to the file, that differs from what it generates"),
    "no-runner-cut": ("note", "the search for configs no runner serves was cut at a number of failed requirements"),
    "requirement-unmet": ("error", "a runner requirement that no config meets"),
    "requirement-idle": ("warning", "a runner requirement that never fails"),
    "runner-unusable": ("error", "a runner whose requirements, together, exclude every config"),
    "never-candidate": ("warning", "a runner whose candidate condition never holds"),
    "refusal-unused": ("warning", "a declared refusal that no combination of gates matches"),
    "refusal-shadowed": ("warning", "a declared refusal whose combinations an earlier one acknowledges already"),
    "ignore-unused": ("warning", "a [check] ignore entry that matches no finding"),
    "redirect-never": ("warning", "a redirect of a request that no config makes apply"),
    "redirect-refused": ("warning", "a redirect to a runner that refuses some config where the redirect applies"),
    "alias-overdue": ("error", "a former runner id past its remove_in, and the removal is not recorded"),
    "alias-no-removal-version": ("warning", "a former runner id deprecated without remove_in"),
    "runner-overdue": ("error", "a deprecated runner past its remove_in, and its file not removed"),
    "runner-no-removal-version": ("warning", "a runner deprecated without remove_in"),
    "inconclusive": ("warning", "a search ran out of its budget"),
    "adjustment-unchecked": ("note", "an adjustment changes a value gates read, and the conditions read through the "
                                     "adjustments are too large to search: the answers about choice do not weigh it"),
    "requirement-unchecked": ("note", "a staged requirement whose refusals are not searched: the conditions read "
                                      "through the adjustments before its stage are too large to search"),
    "adjustment-refuses": ("warning", "a runner's own adjustment leaves a config automatic choice gave it that it "
                                    "cannot serve"),
    "adjustment-never": ("warning", "an adjustment that changes no value of any config"),
    "adjustment-undone": ("warning", "an adjustment that the adjustments after it always undo (or repeat): it has "
                                   "no effect"),
    "forced-freed": ("warning", "a runner a feature forces is refused where no runner is free, for gates that its "
                              "own adjustments remove: a host that validates it after adjusting would serve it"),
    **DRIFT_CODES,
    **_check_overlay.CODES,
}

#: Findings about the reach of check itself, not about the matrix: they never fail it, even with
#: ``strict`` (there is nothing in the file to change; they say where its answers are not exact).
ABOUT_CHECK = frozenset({"adjustment-unchecked", "requirement-unchecked"})

Severity = Literal["error", "warning", "note"]
SEVERITIES: Tuple[Severity, ...] = get_args(Severity)
_VERSION_IN_TEXT = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")


@attrs.frozen
class Finding:
    """One finding: ``code`` (see `CODES`), ``severity``, ``message``, where it stands, and a
    ``witness`` config (JSON-ready) when a config shows it."""

    code: str
    severity: Severity
    message: str
    feature: Optional[str] = None
    runner: Optional[str] = None
    place: str = "$"  # where in the file: ``$.features.fp8.support.v2``
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    witness: Optional[Dict[str, Any]] = None
    features: Tuple[str, ...] = ()
    #: For ``no-runner``: every set of gates the finding stands for (a product of two lists of
    #: gates is one finding; this keeps every pair).
    combinations: Tuple[Tuple[str, ...], ...] = ()
    #: For ``no-runner``: the id of the ``[refusals]`` entry that declares these combinations
    #: deliberate (such a finding never fails the check, even with ``strict``).
    refusal: Optional[str] = None
    #: For the ``class-*`` findings: the ``[config]`` path and the class member (``Owner.name``).
    path: Optional[str] = None
    member: Optional[str] = None

    def __str__(self) -> str:
        place = self.file or "<matrix>"
        if self.line is not None:
            place += f":{self.line}:{self.column}"
        return f"{place}: {self.severity}[{self.code}]: {self.message}"

    def to_dict(self) -> Dict[str, Any]:
        return attrs.asdict(self, recurse=False) | {
            "features": list(self.features), "combinations": [list(c) for c in self.combinations]}


@attrs.frozen
class Report:
    """All findings of one check, in file order."""

    findings: Tuple[Finding, ...]
    strict: bool = False

    @property
    def failed(self) -> bool:
        """Whether the check fails: any error, or with ``strict`` any finding but an
        acknowledged refusal and a note on what check does not weigh (`ABOUT_CHECK`)."""
        return any(f.severity == "error" or (self.strict and f.refusal is None and f.code not in ABOUT_CHECK)
                   for f in self.findings)

    def counts(self) -> Dict[str, int]:
        return {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}

    def summary(self) -> str:
        counts = self.counts()
        parts = [f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items()]
        verdict = "failed" if self.failed else "passed"
        if not self.strict:
            return f"{verdict}: {', '.join(parts)}"
        about = " and notes on what check did not search" if any(f.code in ABOUT_CHECK for f in self.findings) else ""
        return f"{verdict}: {', '.join(parts)} (strict: every finding fails but acknowledged refusals{about})"


def check(matrix: Matrix, *, version: Optional[VersionLike] = None, strict: bool = False,
          budget: int = 200_000, against: Optional[Union[str, type]] = None) -> Report:
    """Lint *matrix* as of *version* (its own by default).

    :param strict: make every finding fail the check (notes included).
    :param against: the host's config class (or ``"MODULE:CLASS"``) to compare the ``[config]``
        schema with; ``[matrix] config_class`` by default. A class that cannot be imported is a
        ``class-unavailable`` finding, and the rest of the check goes on.
    :param budget: the most search steps any one question may take before it is reported
        ``inconclusive``.
    """
    findings = list(iter_findings(matrix, version=version, strict=strict, budget=budget,
                                  against=against))
    # features.toml first, in line order; then the runner files.
    findings.sort(key=lambda f: (f.file != matrix.file, f.file or "", f.line is None, f.line or 0,
                                 f.column or 0, f.code, f.message))
    return Report(tuple(findings), strict)


def iter_findings(matrix: Matrix, *, version: Optional[VersionLike] = None, strict: bool = False,
                  budget: int = 200_000, against: Optional[Union[str, type]] = None) -> Iterator[Finding]:
    """Every finding, as it is found (see `check`)."""

    v = matrix.release(version)  # past the newest release the file knows of: a UsageError
    place = _Places(matrix)
    if matrix.overlay is not None:
        yield from _check_overlay.findings(matrix.overlay, Finding)
    yield from _lifecycle(matrix, v, place)
    yield from _history(matrix, place)
    from .editor import schema_paths, stale

    for path in stale(matrix):
        assert matrix.file is not None  # stale() says nothing of a matrix not read from its file
        described = "the runner files" if path == schema_paths(matrix)["runner"] else os.path.basename(matrix.file)
        yield place.config("schema-stale", ("matrix",), _messages.schema_stale(path, described))
    bound = against if against is not None else matrix.config_class
    if bound is not None:
        yield from _drift(matrix, v, bound, place)
    compiled = plan(matrix, v)
    # The choice reads the config of choice C, and the runner that serves its effective config
    # F (`matrix._adjust`): each condition on them, as a predicate over the config given.
    ctx = _check_adjust.Contexts(matrix, compiled)
    if ctx.too_large is not None:
        yield from _adjustments(matrix, v, place)
        yield from _check_adjust.unchecked(ctx, place, budget)
    on_c = ctx.choice
    gates = matrix.features_at(v)
    # Runner requirements, candidacies and orders are gates too (`Matrix.gates_at`): the space
    # tells apart every value they compare, and the runner analyses count them.
    derived = [g for g in matrix.gates_at(v) if g.origin is not None]
    # Over the configs resolve reads at the version: a choice the host has not got then is none.
    space = Space(compiled.reading or matrix.schema, [g.when.node for g in (*gates, *derived)] + ctx.nodes, budget=budget)
    yield from _by_default(matrix, v, gates, space, place, on_c)

    # A question about a condition alone cannot tell given.PATH from PATH where an adjustment
    # sets PATH (issue 30, F8): undecided there (questions on C are rewritten over the config given,
    # where the two are one value, and stay exact).
    solve = space.solve
    alone = _alone(solve, matrix.adjustments_at(v))

    live: List[Feature] = []
    always: List[Feature] = []
    seen: List[Assignment] = []  # configs (as assignments) the searches found: they sharpen the samples
    for gate in gates:
        try:
            found = alone(true=[gate.when.node])
            if found is None:
                yield place.feature("never-active", gate, f"{gate.name} can never be active: no config satisfies {gate.when}")
                continue
            seen.append(found)
        except Inconclusive as error:
            yield place.feature("inconclusive", gate, f"Could not decide {_undecided(error, budget)} whether {gate.name} can be active")
            live.append(gate)
            continue
        live.append(gate)
        try:
            if alone(false=[gate.when.node]) is None:
                always.append(gate)
                yield place.feature("always-active", gate, f"{gate.name} is active for every config: {gate.when} always holds")
        except Inconclusive as error:
            yield place.feature("inconclusive", gate, f"Could not decide {_undecided(error, budget)} whether {gate.name} can be inactive")
    # Two gates that are always active are trivially equivalent: said once each, above.
    yield from _pairs(matrix, v, [g for g in live if g not in always], space, alone, place, budget, seen)
    # A removed feature is refused before any runner is chosen: no runner analysis counts it,
    # and every config they find or rule out uses none.
    # Automatic choice leaves out a gate in force only when a runner is asked for.
    choosing = [g for g in live if not g.removed_at(v) and g.applies != "asked"]
    gone = [g for g in live if g.removed_at(v) and g.applies != "asked"]  # automatic choice sees these
    schema = matrix.schema if len(matrix.schema) else None

    def kept(true: Sequence[Node] = (), false: Sequence[Node] = (), **extra: Any) -> Optional[Assignment]:
        # Most answers use no removed feature as they are; constraining them all the same would
        # write every removed setting's field into the witnesses.
        found = solve(true=true, false=false, **extra)
        if found is None or not gone:
            return found
        witness = space.witness(found)
        if not any(_check_adjust.holds(on_c(g.when.node), witness, schema) for g in gone):
            return found
        return solve(true=true, false=[*false, *(on_c(g.when.node) for g in gone)], **extra)

    # A requirement's reason that says config values is read by the findings of many configs:
    # said with its paths named (`matrix._templates.described`).
    requirements = [attrs.evolve(g, name=_templates.described(g.name)) if "{" in g.name else g
                    for g in derived if isinstance(g.origin, Requirement)]
    unusable = yield from _requirements(matrix, requirements, alone, place, budget)
    yield from _aliases(matrix, v, place)
    yield from _deprecated_runners(matrix, v, place)
    yield from _redirects(matrix, v, compiled, space, place, budget, ctx)
    # Questions about automatic choice read its decision list (`matrix._choice`); gates that
    # can never be active (and removed ones: `kept` rules them out where it matters) read False.
    # A gate that applies only when a runner is asked for is never active in automatic choice.
    alive = {g.id for g in live}  # by id: `g not in live` compared whole gates, n² of them
    dead = {g.id for g in gates if g.id not in alive or g.applies == "asked"} | {g.id for g in gone}
    choice = _Choice(compiled, dead, on_c)
    sent = _always_redirects(compiled, ctx)
    if sent:  # issue 30, F6: a target validated on an F its own adjustments change (`_always_redirects`)
        yield place.config("inconclusive", ("matrix",), _messages.always_redirect_adjusted(
            "which runners automatic choice never picks, which configs no runner serves, nor which [refusals] "
            "entries acknowledge them", sent))
        yield from _runners(matrix, v, choosing + requirements, choice, kept, place, budget, unusable, on_c,
                            chosen=False)
        yield from _check_adjust.findings(ctx, space, choice, [on_c(g.when.node) for g in gone], place, budget,
                                          _undecided, _chooses)
        return
    yield from _runners(matrix, v, choosing + requirements, choice, kept, place, budget, unusable, on_c)
    # A runner that is a candidate only sometimes is out of automatic choice where it is not:
    # for the no-runner analysis, "not a candidate" blocks it.
    outside = [_not_candidate(matrix, r) for r in matrix.runners if r.candidate is not None]
    blocking = _merged(matrix, requirements) + outside
    # An order without fallback refuses where its first candidate is blocked: its gate is one
    # of a no-runner set, as an outright preference is.
    final = [g for g in derived if isinstance(g.origin, Order) and not g.origin.fallback]
    # A redirect that applies always sends the choice to a runner validated as asked for (issue
    # 30, F6): its gate and one that runner says no to leave no runner.
    final += [g for g in derived if isinstance(g.origin, Redirect) and g.origin.applies == "always"]
    yield from _totality(matrix, v, choosing + blocking + final, space, choice, kept, place, strict, budget,
                         limit=_MAX_COMBINATION if requirements else None, gone=gone, on_c=on_c)
    yield from _check_adjust.findings(ctx, space, choice, [on_c(g.when.node) for g in gone], place, budget,
                                      _undecided, _chooses)


#: With runner requirements, configs no runner serves are searched among combinations of
#: features with at most this many failed requirements: every way of failing each of seven
#: attention backends is a combination, and there are thousands (287 with three). A single
#: condition that leaves no runner (PCP on every attention backend) and pairs are what a
#: maintainer acts on; a cut search says so in a finding.
_MAX_COMBINATION = 2


def _merged(matrix: Matrix, gates: List[Feature]) -> List[Feature]:
    """Requirement gates with the same condition (``not selector.use_pcp`` in seven runner
    files) as one gate that blocks all their runners: one condition, one finding. (Only failed
    requirements are merged: a runner that is no candidate is said as such.)"""
    by_condition: Dict[str, List[Feature]] = {}
    for gate in gates:
        by_condition.setdefault(str(gate.when), []).append(gate)
    out = []
    for same in by_condition.values():
        if len(same) == 1:
            out.append(same[0])
            continue
        runners = {r for g in same for r in g.support if g.status(r, matrix.version) == "no"}
        reasons = list(dict.fromkeys(g.name for g in same))
        out.append(Feature(same[0].id, "; ".join(reasons), same[0].when, refusing(matrix, runners),
                           origin=same[0].origin))
    return out


def _not_candidate(matrix: Matrix, runner: Runner) -> Feature:
    """A gate, for the no-runner analysis only, that holds where *runner* is not a candidate."""
    from ._overlay_origin import removed

    assert runner.candidate is not None
    out = removed(matrix, runner.id)  # an overlay's choice = false: said as the overlay's, not "not False"
    name = f"{runner.name} {out}" if out is not None else f"{runner.name} not being a candidate"
    return Feature(f"{runner.id}:not-candidate", name, ~runner.candidate,
                   refusing(matrix, {runner.id}), origin=runner)


def _requirements(matrix: Matrix, gates: List[Feature], solve: Solve, place: _Places,
                  budget: int) -> Generator[Finding, None, Set[str]]:
    """Requirement clauses no config meets, or that never fail; runners whose requirements
    together exclude every config, and runners that are never a candidate. Returns the ids of
    the runners that serve no config or are never a candidate (the never-chosen analysis leaves
    them out: said once, here).

    A clause whose own condition no config meets is ``requirement-unmet`` wherever it stands in
    its chain (reached or not): no config meets every clause, so the runner serves none. A
    clause that never fails among the configs that meet the clauses before it is
    ``requirement-idle`` (not said of a runner that serves no config)."""
    unusable: Set[str] = set()
    for runner in matrix.runners:
        mine = [g for g in gates if g.origin is not None and g.origin.runner == runner.id]  # type: ignore[union-attr]
        unmet = False
        idle: List[Finding] = []
        for gate in mine:
            clause = gate.origin
            assert isinstance(clause, Requirement)
            number = gate.id.rpartition(":")[2]  # a clause of a chain: its number
            what = f"{runner.name}'s requirement {clause.kind!r}" + (
                f", clause {number} ({clause.reason})," if number.isdigit() else f" ({clause.reason})")
            try:
                if solve(true=[clause.condition.node]) is None:
                    unmet = True
                    yield place.runner("requirement-unmet", runner.id,
                                       f"{what} is met by no config: {clause.condition} never holds, so "
                                       f"{runner.name} can serve no config")
                elif solve(true=[gate.when.node]) is None:
                    after = " that meets the clauses before it" if number.isdigit() else ""
                    idle.append(place.runner("requirement-idle", runner.id,
                                             f"{what} never fails: {clause.condition} holds for every config{after}; "
                                             "delete it, or check its condition"))
            except Inconclusive as error:
                yield place.runner("inconclusive", runner.id,
                                   f"Could not decide {_undecided(error, budget)} whether {what} can fail and hold")
        try:
            if not unmet and mine and solve(false=[g.when.node for g in mine]) is None:
                unmet = True
                yield place.runner("runner-unusable", runner.id,
                                   f"No config meets all of {runner.name}'s requirements at once: it can serve no config")
            if not unmet:
                yield from idle
            outright = asked_only(runner.candidate)
            if runner.candidate is not None and (outright or solve(true=[runner.candidate.node]) is None):
                unmet = True  # never chosen automatically: said once, here
                yield from _never_candidate(matrix, runner, outright, place)
        except Inconclusive as error:
            yield place.runner("inconclusive", runner.id,
                               f"Could not decide {_undecided(error, budget)} whether any config meets all of "
                               f"{runner.name}'s requirements")
            if asked_only(runner.candidate):  # asked for only, as its file says: no search needed (a random
                unmet = True                  # matrix: an undecided requirement left it said never chosen)
                yield from _never_candidate(matrix, runner, True, place)
        if unmet:
            unusable.add(runner.id)
    yield from _wide_requirements(matrix, [g for g in gates if g.origin is not None and g.origin.wide],  # type: ignore[union-attr]
                                  solve, place, budget)
    return unusable


def _never_candidate(matrix: Matrix, runner: Runner, outright: bool, place: _Places) -> Iterator[Finding]:
    """What is said of *runner*, never a candidate: ``never-candidate``, or an overlay's deliberate
    ``choice = false`` as a note (``overlay-out-of-choice``); nothing of ``candidate = "False"``
    in its file (*outright*): asked for only, as it says."""
    from ._overlay_origin import removed

    out = removed(matrix, runner.id)
    if out is not None or not outright:
        yield place.runner("never-candidate" if out is None else "overlay-out-of-choice", runner.id,
                           f"{runner.name} is never a candidate: " + (out or f"no config satisfies {runner.candidate}"))


def _wide_requirements(matrix: Matrix, gates: List[Feature], solve: Solve, place: _Places,
                       budget: int) -> Iterator[Finding]:
    """A matrix-wide requirement's clause no config meets (``requirement-unmet``: no runner it is
    required of serves any config), or that never fails (``requirement-idle``), as a runner's."""
    for gate in gates:
        clause = gate.origin
        assert isinstance(clause, Requirement)
        number = gate.id.rpartition(":")[2]
        what = _messages.wide_requirement(clause.kind, clause.reason, number)
        key: Tuple[object, ...] = ("requires", clause.kind) + ((int(number) - 1,) if number.isdigit() else ())
        try:
            if solve(true=[clause.condition.node]) is None:
                yield place.config("requirement-unmet", key, _messages.wide_unmet(
                    what, str(clause.condition), [matrix.runner(r).name for r in clause.exempt]), feature=gate.id)
            elif solve(true=[gate.when.node]) is None:
                yield place.config("requirement-idle", key, _messages.wide_idle(what, str(clause.condition),
                                                                                number.isdigit()), feature=gate.id)
        except Inconclusive as error:
            yield place.config("inconclusive", key, f"Could not decide {_undecided(error, budget)} whether {what} "
                               "can fail and hold", feature=gate.id)


class _Choice:
    """The decision list of automatic choice (`matrix._choice.steps`) as questions for the
    search: each gate bit of a step reads as that gate's condition."""

    def __init__(self, compiled: Plan, dead: Set[str], rewrite: Rewrite = identity) -> None:
        # A config that uses a removed feature is refused before anything is chosen: the
        # analyses leave such configs out themselves (`kept`), so the step is dropped here.
        self.steps = [s for s in compiled.steps if s.kind != "removed"]
        self.plan, self.dead = compiled, dead
        #: Each gate's condition as the choice reads it: on the config of choice C, a predicate
        #: over the config given (`matrix._substitute`).
        self.rewrite = rewrite

    def _nodes(self, mask: int) -> List[Node]:
        return [self.rewrite(f.when.node) for f in self.plan.active(mask) if f.id not in self.dead]

    def refusing(self, runner: str) -> List[Node]:
        """The conditions of the gates that refuse *runner* asked for (it says ``no`` to them): a
        ``redirect`` step's runner is validated so (issue 30, F6), a refusal final."""
        return self._nodes(self.plan.no[runner])

    @staticmethod
    def _any(nodes: List[Node]) -> Node:
        return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))

    def goals(self, literals: Sequence[Term]) -> Optional[Tuple[List[Node], List[Node]]]:
        """What must hold and what must not for every literal to hold (None: one never does)."""
        true: List[Node] = []
        false: List[Node] = []
        for mask, wanted in literals:
            nodes = self._nodes(mask)
            if wanted:
                if not nodes:
                    return None
                true.append(self._any(nodes))
            else:
                false.extend(nodes)
        return true, false

    def negation(self, literals: Sequence[Term]) -> Optional[Tuple[str, List[Node]]]:
        """The group "some literal fails" (None: one never holds, so the step never does)."""
        options: List[Node] = []
        for mask, wanted in literals:
            nodes = self._nodes(mask)
            if wanted:
                if not nodes:
                    return None
                options.append(Not(self._any(nodes)))
            elif nodes:
                options.append(self._any(nodes))
        return "any", options

    def fires(self, step: Rule, passed: Callable[[Rule], bool] = lambda s: True,
              true: Sequence[Node] = ()) -> Optional[Dict[str, Any]]:
        """The arguments of a search for a config where *step* decides (it holds, and no step
        before it does; steps *passed* says may hold are not asked about), with *true* holding
        too; None when the step can never hold."""
        goals = self.goals(step.literals)
        if goals is None:
            return None
        extra = []
        for before in self.steps[: self.steps.index(step)]:
            if passed(before):
                continue
            group = self.negation(before.literals)
            if group is not None:
                extra.append(group)
        return {"true": [*true, *goals[0]], "false": goals[1], "extra": extra}


class _Places:
    """Where findings stand in features.toml."""

    def __init__(self, matrix: Matrix) -> None:
        self.matrix = matrix
        self.file = matrix.file
        self._locations: Optional[Locations] = None
        self._overlay: Optional[_check_overlay.Where] = None

    def where(self, key: Tuple[object, ...]) -> Tuple[Optional[int], Optional[int]]:
        if self.matrix.text is None:
            return None, None
        if self._locations is None:
            from ._locate import Locations

            self._locations = Locations(self.matrix.text)
        found = self._locations.key(key)
        return found if found else (None, None)

    def feature(self, code: str, feature: Feature, message: str, *, key: Sequence[object] = (),
                severity: Optional[Severity] = None, **extra: Any) -> Finding:
        from . import _messages

        if isinstance(feature.origin, Requirement):
            place, file, line, column = self.requirement(feature.origin)
        else:
            path: Tuple[object, ...] = ("features", feature.id, *key)
            place, (file, line, column) = _messages.place(path), self.located(path)
        return Finding(code, severity or CODES[code][0], message, feature=feature.id,
                       place=place, file=file, line=line, column=column, **extra)

    def requirement(self, requirement: Requirement) -> Tuple[str, Optional[str], Optional[int], Optional[int]]:
        """Where *requirement* stands: its kind's key in features.toml's ``[requires]`` (a
        matrix-wide one), else in its runner's ``[requires]`` (the runner's file where it has one)."""
        from . import _messages

        key: Tuple[object, ...] = ("requires", requirement.kind)
        if requirement.wide:
            return (_messages.place(key), *self.located(key))
        found = self.matrix.runner(requirement.runner)
        if found.file is not None:
            from ._locate import Locations

            at = Locations(found.text).key(key) if found.text is not None else None
            return _messages.place(key), found.file, at[0] if at else 1, at[1] if at else 1
        path = ("runners", requirement.runner, *key)  # a runner given as a table ([runners.ID] of an overlay)
        return (_messages.place(path), *self.located(path))

    def config(self, code: str, key: Tuple[object, ...], message: str, **extra: Any) -> Finding:
        from . import _messages

        file, line, column = self.located(key)
        return Finding(code, CODES[code][0], message, place=_messages.place(key), file=file,
                       line=line, column=column, **extra)

    def located(self, path: Tuple[object, ...]) -> Tuple[Optional[str], Optional[int], Optional[int]]:
        if self.matrix.overlay is None:
            return (self.file, *self.where(path))
        return self.composed()(path)

    def composed(self) -> _check_overlay.Where:
        """Where an overlay's matrix says a key: the overlay file, or upstream's (matrix._check_overlay)."""
        assert self.matrix.overlay is not None
        if self._overlay is None:
            self._overlay = _check_overlay.Where(self.matrix.overlay, self.matrix.text)
        return self._overlay

    def runner(self, code: str, runner: str, message: str, *, key: Sequence[object] = (), **extra: Any) -> Finding:
        from . import _messages

        where = _messages.place(("runners", runner, *key))
        found = self.matrix.runner(runner)
        if found.file is not None:  # the runner's own file: the line of *key* in it, where it is known
            from ._locate import Locations

            at = Locations(found.text).key(tuple(key)) if found.text is not None else None
            return Finding(code, CODES[code][0], message, runner=runner, place=where,
                           file=found.file, line=at[0] if at else 1, column=at[1] if at else 1, **extra)
        file, line, column = (self.file, *self.where(("matrix", "runners")))
        if self.matrix.overlay is not None:  # an overlay's matrix: its runner tables are upstream's or the overlay's
            file, line, column = self.composed().runner(runner, tuple(key))
        return Finding(code, CODES[code][0], message, runner=runner, place=where,
                       file=file, line=line, column=column, **extra)


def _adjustments(matrix: Matrix, v: Version, place: _Places) -> Iterator[Finding]:
    """Where the conditions read through the adjustments grow too large to search
    (`matrix._substitute.MAX_NODES`), the searches read configs as given: an adjustment that
    sets a value some gate reads may change what a config resolves to, which they do not weigh
    then. Said of each such adjustment, so that no answer claims an exactness it has not got."""
    from . import _messages

    read = {p for g in matrix.gates_at(v) for p in g.when.paths}
    for adjustment in matrix.adjustments_at(v):
        touched = sorted(p for p in read if any(p == s or p.startswith(s + ".") for s in adjustment.set))
        if touched:
            yield place.config("adjustment-unchecked", ("adjustments", adjustment.id),
                               _messages.adjustment_too_large(adjustment.name, touched))


def _drift(matrix: Matrix, v: Version, bound: Union[str, type], place: _Places) -> Iterator[Finding]:
    from . import _messages
    from .binding import compare
    from .errors import UsageError

    try:
        # The class is the host's at the version checked: fields and choices that exist only
        # later, or no longer, are not compared.
        drifts = compare(matrix.schema.at(v), bound)
    except UsageError as error:
        key: Tuple[object, ...] = ("matrix", "config_class") if matrix.config_class is not None else ("config",)
        yield place.config("class-unavailable", key, _messages.class_unavailable(str(error)))
        return
    for drift in drifts:
        key = ("config", drift.path)
        if place.where(key) == (None, None):  # an implied section: no key of its own
            key = ("config",)
        yield place.config(drift.code, key, drift.message, member=drift.member, path=drift.path)


def _lifecycle(matrix: Matrix, v: Version, place: _Places) -> Iterator[Finding]:
    for feature in matrix.features:
        d = feature.deprecated
        if d is not None:
            if d.remove_in is None:
                yield place.feature("no-removal-version", feature,
                                    f"{feature.name} is deprecated since {d.since} without remove_in: "
                                    "users cannot plan for its removal", key=("deprecated",))
            elif v >= d.remove_in and feature.in_force(v) and not d.removed:
                # A removal that happened stays as the record (removed = true): configs that use
                # it are refused with the replacement. One that did not is a plan gone stale.
                yield place.feature("removal-overdue", feature,
                                    f"{feature.name} was due for removal in {d.remove_in}, and the matrix is "
                                    f"checked as of {v}: record the removal with removed = true (configs "
                                    "that use it are then refused with the replacement), or move remove_in",
                                    key=("deprecated", "remove_in"))
            if d.message and d.remove_in is not None:
                named = [m for m in _VERSION_IN_TEXT.findall(d.message) if _differs(m, d.remove_in)]
                if named:
                    yield place.feature("message-version", feature,
                                        f"The deprecation message of {feature.name} names {named[0]!r}, but "
                                        f"remove_in is {d.remove_in}: leave versions to remove_in, which "
                                        "every warning prints", key=("deprecated", "message"))


def _aliases(matrix: Matrix, v: Version, place: _Places) -> Iterator[Finding]:
    """Former runner ids whose deprecation says no removal, or whose removal is due and not
    recorded (what the loader cannot say: it depends on the version checked)."""
    from . import _messages

    for runner in matrix.runners:
        for index, alias in enumerate(runner.aliases):
            d = alias.deprecation
            if d.remove_in is None:
                yield place.runner("alias-no-removal-version", runner.id,
                                   _messages.alias_no_removal_version(alias.id, runner.id, str(d.since)),
                                   key=("aliases", index))
            elif v >= d.remove_in and not d.removed:
                yield place.runner("alias-overdue", runner.id,
                                   _messages.alias_overdue(alias.id, str(d.remove_in), str(v)),
                                   key=("aliases", index, "remove_in"))


def _deprecated_runners(matrix: Matrix, v: Version, place: _Places) -> Iterator[Finding]:
    """Runners whose own deprecation says no removal, or whose removal is due while the file is
    still there (a runner's removal is its file's: the loader cannot say it, it depends on the
    version checked)."""
    from . import _messages

    for runner in matrix.runners:
        d = runner.deprecated
        if d is None:
            continue
        if d.remove_in is None:
            yield place.runner("runner-no-removal-version", runner.id,
                               _messages.runner_no_removal_version(runner.id, str(d.since)), key=("deprecated",))
        elif v >= d.remove_in:
            yield place.runner("runner-overdue", runner.id, _messages.runner_overdue(runner.id, str(d.remove_in), str(v)),
                               key=("deprecated", "remove_in"))


def _redirects(matrix: Matrix, v: Version, compiled: Plan, space: Space, place: _Places,
               budget: int, ctx: Optional[_check_adjust.Contexts] = None) -> Iterator[Finding]:
    """Redirects no config makes apply (their condition never holds where no earlier redirect
    of the runner does), and redirects whose runner refuses some config where they apply: a
    gate it says no to is active (or it fails a requirement), one some runner does not say no
    to, with no removed feature active (refused first) and no feature that forces another runner
    with ``override`` (which takes the request elsewhere). The request is decided on the config of choice, and the runner it
    is sent to validated on its effective config (*ctx*)."""
    from . import _messages

    on_c: Rewrite = ctx.choice if ctx is not None else identity

    asked = [g for g in compiled.features if g.applies != "automatic"]
    removed = [on_c(g.when.node) for g in asked if g.origin is None and g.removed_at(v)]
    # A redirect with applies = "always" acts in automatic choice too (issue 30, F6), where only
    # the runner's other such redirects come before it: what the request's questions leave open
    # there is answered by resolving the config a search finds (`_automatic_redirect`).
    automatic = [on_c(g.when.node) for g in compiled.features if g.applies != "asked" and g.origin is None
                 and g.removed_at(v)]
    # A gate every runner says no to (a matrix-wide requirement that exempts none) refuses the
    # request wherever it goes: not the redirect's doing (no-runner says it of the config).
    everyones = {g.id for g in compiled.features if all(g.status(r.id, v) == "no" for r in matrix.runners)}
    for runner in matrix.runners:
        earlier: List[Node] = []
        before: List[Node] = []  # the earlier redirects that apply always
        for _, redirect in compiled.redirects.get(runner.id, ()):
            to = matrix.runner(redirect.to)
            key = ("redirects", redirect.index)
            what = _messages.redirect_what(runner.name, redirect.index + 1, to.name, str(redirect.when))
            always = redirect.applies == "always"
            try:
                if space.solve(true=[on_c(redirect.when.node)], false=[*earlier, *removed]) is None:
                    why = ("unsatisfiable" if space.solve(true=[on_c(redirect.when.node)]) is None
                           else "removed" if space.solve(true=[on_c(redirect.when.node)], false=removed) is None
                           else "shadowed")
                    found = None if not always or why == "unsatisfiable" else space.solve(
                        true=[on_c(redirect.when.node)], false=[*before, *automatic])
                    reached = found is not None and _automatic_redirect(matrix, v, space.witness(found), redirect,
                                                                        False)
                    if found is None:
                        yield place.runner("redirect-never", runner.id, _messages.redirect_never(what, why), key=key)
                    elif not reached:
                        yield place.runner("inconclusive", runner.id, _messages.always_redirect_undecided(
                            f"whether {what} ever applies", [f"{runner.id} → {to.id}"]), key=key)
                    if not reached:
                        earlier.append(on_c(redirect.when.node))
                        if always:
                            before.append(on_c(redirect.when.node))
                        continue
                away = [on_c(g.when.node) for g in asked if g.forces is not None and g.forces.override
                        and g.forces.runner != to.id and not g.removed_at(v)]
                unconfirmed = False  # an automatic config found that resolving did not confirm
                for gate in compiled.active(compiled.no[to.id]):
                    # A removed gate, or one that forces another runner with override, refuses the
                    # runner only where it holds on F and not on C (on C it refuses the request
                    # first, or takes it elsewhere): the search rules out the rest.
                    if gate.id in everyones:
                        continue
                    refusal = ctx.served(to.id, gate.when.node) if ctx is not None else gate.when.node
                    found, missed = _redirect_refuses(matrix, v, space, redirect, gate, on_c(redirect.when.node), refusal,
                                                      [*earlier, *removed, *away], [*before, *automatic])
                    unconfirmed |= missed
                    if found is not None:
                        reason = gate.origin.reason if isinstance(gate.origin, Requirement) else None
                        yield place.runner("redirect-refused", runner.id,
                                           _messages.redirect_refused(what, to.name, gate.name, reason),
                                           key=key, witness=space.witness(found))
                        break
                else:
                    if unconfirmed:
                        yield place.runner("inconclusive", runner.id, _messages.always_redirect_undecided(
                            f"whether {what} can leave a config {to.name} refuses", [f"{runner.id} → {to.id}"]),
                            key=key)
            except Inconclusive as error:
                yield place.runner("inconclusive", runner.id,
                                   f"Could not decide {_undecided(error, budget)} whether {what} applies and is served")
            earlier.append(on_c(redirect.when.node))
            if always:
                before.append(on_c(redirect.when.node))
        # Those at a stage after the choice: `matrix._check_adjust`, where the stages are read.


def _redirect_refuses(matrix: Matrix, v: Version, space: Space, redirect: Redirect, gate: Feature, when: Node,
                      refusal: Node, asked: List[Node], automatic: List[Node]) -> Tuple[Optional[Assignment], bool]:
    """A config where *redirect* applies and *gate* refuses its runner: a request (*asked*: what
    must not hold there), else, for one that applies always, automatic choice (*automatic*),
    confirmed by resolving it; and whether a config found there was not confirmed."""
    found = None
    if gate.applies != "automatic":
        found = space.solve(true=[when, refusal], false=asked)
    if found is None and redirect.applies == "always" and gate.applies != "asked":
        found = space.solve(true=[when, refusal], false=automatic)
        if found is not None and not _automatic_redirect(matrix, v, space.witness(found), redirect, True):
            return None, True
    return found, False


def _automatic_redirect(matrix: Matrix, v: Version, config: Mapping[str, object], redirect: Redirect,
                        refused: bool) -> bool:
    """Whether automatic choice on *config* is redirected by *redirect* (one with ``applies =
    "always"``), and, with *refused*, its runner then refuses the config: resolved, not searched."""
    try:
        resolution = matrix.resolve(config, version=v)
        if refused:
            return False
    except NoRunnerError as error:
        resolution = error.resolution
    except ResolutionError:
        return False
    found = resolution.redirect
    return found is not None and (found.runner, found.index) == (redirect.runner, redirect.index)


def _history(matrix: Matrix, place: _Places) -> Iterator[Finding]:
    """Statements of a support history that are never in force: a later one takes over before
    the gate exists, or the gate ends before they start."""
    for feature in matrix.features:
        for runner in matrix.runners:
            history = feature.support[runner.id]
            for index, statement in enumerate(history):
                start = statement.since
                if feature.since is not None and (start is None or start < feature.since):
                    start = feature.since
                end = history[index + 1].since if index + 1 < len(history) else None
                if feature.until is not None and (end is None or end > feature.until):
                    end = feature.until
                if start is not None and end is not None and end <= start:
                    key = ("support", runner.id) + ((index,) if len(history) > 1 else ())
                    yield place.feature("history-unused", feature, _unused_reason(
                        feature, runner.name, statement, history, index), key=key, runner=runner.id)


def _unused_reason(feature: Feature, runner: str, statement: Statement, history: Tuple[Statement, ...],
                   index: int) -> str:
    said = f"{feature.name}: what {runner} says {'from ' + str(statement.since) if statement.since else 'first'} " \
           f"({statement.status!r})"
    later = history[index + 1] if index + 1 < len(history) else None
    if feature.until is not None and statement.since is not None and statement.since >= feature.until:
        return f"{said} is never in force: the gate ends in {feature.until}"
    if later is not None and feature.since is not None and later.since is not None and later.since <= feature.since:
        return f"{said} is never in force: the statement from {later.since} takes over before the gate begins in {feature.since}"
    return f"{said} is never in force"


def _by_default(matrix: Matrix, v: Version, gates: Sequence[Feature], space: Space, place: _Places,
                on_c: Rewrite = identity) -> Iterator[Finding]:
    """Deprecated gates that the all-defaults config makes active: every resolve warns."""
    default: Dict[str, object] = {}
    for path in space.paths:
        field = space.field(path)
        if field is None:
            continue
        if field.type == "section":
            default[path] = None if field.nullable else PRESENT
        elif field.default_at(v) is not NOTHING:  # the default of the version checked
            default[path] = field.default_at(v)
    for gate in gates:
        d = gate.deprecated
        if d is None or v < d.since or d.is_removed(v):
            continue
        if space.truth(on_c(gate.when.node), default) is True:
            yield place.feature("deprecated-by-default", gate,
                                f"{gate.name} is deprecated, and active under the default config: every "
                                f"resolve of a config that leaves {', '.join(sorted(gate.when.paths))} at "
                                "its default warns", key=("when",))


def _names(gates: Sequence[Feature], runners: Mapping[str, str]) -> str:
    return ", ".join(_gate_text(g, runners) for g in gates)


def _gate_text(gate: Feature, runners: Mapping[str, str]) -> str:
    """A gate as a no-runner finding names it: a feature by its name, a failed requirement by
    its condition and reason (and a runner's own by its runner: *runners* maps ids to names),
    a runner out of automatic choice by its candidacy."""
    if isinstance(gate.origin, Requirement):
        # A clause of a chain (its id ends in its number) says which: two may read alike.
        clause = gate.origin
        owner = None if clause.wide else runners.get(clause.runner, clause.runner)
        return _messages.failing_clause(gate.name, str(clause.condition), clause.kind,
                                        gate.id.rpartition(":")[2], owner)
    if isinstance(gate.origin, Runner):
        candidate = gate.origin.candidate
        if candidate is None or asked_only(candidate):  # never a candidate: its name says why
            return gate.name
        node = candidate.node  # a candidacy that is a negation is said without "not not"
        return f"{gate.origin.name} not being a candidate ({node.operand if isinstance(node, Not) else Not(node)})"
    if isinstance(gate.origin, Redirect):  # one that applies always (issue 30, F6)
        redirect = gate.origin
        return _messages.redirect_what(runners.get(redirect.runner, redirect.runner), redirect.index + 1,
                                       runners.get(redirect.to, redirect.to), str(redirect.when))
    if isinstance(gate.origin, Order):
        when = _messages.ORDER_ALWAYS if str(gate.origin.when) == "True" else f"({gate.origin.when})"
        return f"the order {gate.name!r} applying {when}, without fallback"
    return gate.name


def _required(gate: Feature) -> bool:
    """Whether *gate* is a matrix-wide requirement that exempts no runner (it refuses every one)."""
    return isinstance(gate.origin, Requirement) and gate.origin.wide and not gate.origin.exempt


def _alone(solve: Solve, adjustments: Sequence[Adjustment]) -> Solve:
    """*solve* for the questions about a condition alone (never-active, always-active, pairs,
    requirements): `Inconclusive` (cause ``given``) where a node names ``given.PATH`` of a path
    one of *adjustments* sets, whose value as given may differ from the value the condition
    reads where resolution reads it (`matrix._given`)."""
    if not adjustments:
        return solve

    def ask(true: Sequence[Node] = (), false: Sequence[Node] = (), **extra: Any) -> Optional[Assignment]:
        read = sorted(set().union(*(adjusted(node, adjustments) for node in (*true, *false))))
        if read:
            raise Inconclusive([GIVEN + p for p in read], ["given"])
        return solve(true=true, false=false, **extra)

    return ask


def _undecided(error: Inconclusive, budget: int) -> str:
    if error.paths:
        shown = ", ".join(repr(p) for p in error.paths)
        why = "; ".join(CAUSES[c] for c in error.causes)
        return f"exactly (not every value of {shown} could be represented: {why})"
    return f"within {budget} step{'s' if budget != 1 else ''}"


def _differs(text: str, version: Version) -> bool:
    return to_version(text) != version


def _fingerprints(matrix: Matrix, v: Version, live: List[Feature], space: Space,
                  seen: Sequence[Assignment] = ()) -> Tuple[Dict[str, int], List[int]]:
    """Gate id → bit *i* set when the gate holds on sample *i*: two gates that differ on a sample
    are not equivalent, and one true where another is false does not imply it. The samples are
    random ones and the configs the searches found (one where each gate holds, so that rare
    gates are told apart too). The compiled plan evaluates every gate of a sample at once; a
    sample it cannot read (none should) falls back to the three-valued interpreter. Beside them,
    for each sample, the gates of *live* that hold on it (bit *j*: ``live[j]``)."""
    from ._compile import plan

    compiled = plan(matrix, v)
    index = {f.id: i for i, f in enumerate(compiled.features)}
    ids = [f.id for f in compiled.features]
    prints = dict.fromkeys((g.id for g in live), 0)
    position = {g.id: 1 << j for j, g in enumerate(live)}
    holding = []
    for number, sample in enumerate([*space.samples(256), *seen]):
        try:
            mask, _ = compiled.evaluate(space.witness(sample))
        except Exception:
            mask = sum(1 << index[g.id] for g in live if space.truth(g.when.node, sample) is True)
        bit, held = 1 << number, 0
        while mask:  # only the gates active on this sample: most are not
            low = mask & -mask
            gate = ids[low.bit_length() - 1]
            if gate in prints:
                prints[gate] |= bit
                held |= position[gate]
            mask ^= low
        holding.append(held)
    return prints, holding


def _nested(marked: Sequence[Tuple[Feature, int]], holding: Sequence[int]) -> List[int]:
    """For each gate *i* of *marked* (a gate and its fingerprint), the gates *j* (bit *j*) whose
    samples include all of *i*'s or are all among *i*'s: the pairs no sample tells apart both
    ways. The gates that hold on every sample of *i* are the intersection, over those samples,
    of the gates that hold on each (*holding*, by sample)."""
    wider = []
    for j, (_, fingerprint) in enumerate(marked):
        found, alone = (1 << len(marked)) - 1, 1 << j
        while fingerprint and found != alone:  # alone: no other gate holds on all of its samples
            low = fingerprint & -fingerprint
            fingerprint ^= low
            found &= holding[low.bit_length() - 1]
        wider.append(found)
    near = list(wider)
    for j, found in enumerate(wider):
        gate = 1 << j
        while found:  # j's samples include i's: i's are among j's
            low = found & -found
            found ^= low
            near[low.bit_length() - 1] |= gate
    return near


def _support(feature: Feature, matrix: Matrix, v: Version) -> Tuple[str, ...]:
    return tuple(feature.status(r.id, v) for r in matrix.runners)


def _pairs(matrix: Matrix, v: Version, live: List[Feature], space: Space, solve: Solve, place: _Places,
           budget: int, seen: Sequence[Assignment]) -> Iterator[Finding]:
    prints, holding = _fingerprints(matrix, v, live, space, seen)
    # Statuses once per gate, not once per pair: 1,000 gates make half a million pairs.
    support = {g.id: _support(g, matrix, v) for g in live}
    serving = {g.id: {r.id for r, s in zip(matrix.runners, support[g.id]) if s in ("yes", "partial")} for g in live}
    refusing = {g.id: {r.id for r, s in zip(matrix.runners, support[g.id]) if s in BLOCKING} for g in live}
    all_nodes = [g.when.node for g in live]
    marked = [(g, prints[g.id]) for g in live]
    near = _nested(marked, holding)
    for i, a in enumerate(live):
        fa = prints[a.id]
        # Only the gates no sample tells apart from this one both ways (one's samples are all
        # the other's): of 1,000 gates' half a million pairs, a few thousand (issue 29).
        later = near[i] >> (i + 1)
        while later:
            low = later & -later
            later ^= low
            b, fb = marked[i + low.bit_length()]
            same_support = support[a.id] == support[b.id]
            try:
                if same_support and fa == fb and solve(true=[a.when.node], false=[b.when.node]) is None \
                        and solve(true=[b.when.node], false=[a.when.node]) is None:
                    yield place.feature("equivalent-gates", b,
                                        f"{b.name} has a condition equivalent to that of {a.name} and the "
                                        "same support: merge the two", features=(a.id, b.id))
                    continue
                for narrow, broad, fn, fw in ((a, b, fa, fb), (b, a, fb, fa)):
                    if fn & ~fw:
                        continue
                    both = serving[narrow.id] & refusing[broad.id]
                    runners = [r.name for r in matrix.runners if r.id in both]
                    if not runners or solve(true=[narrow.when.node], false=[broad.when.node]) is not None:
                        continue
                    # Every other gate as few as may be: narrow and broad hold anyway.
                    holds = solve(true=[narrow.when.node])
                    assert holds is not None  # narrow is a live gate: it can hold
                    witness = space.witness(holds, avoid=all_nodes)
                    yield place.feature(
                        "implied-contradiction", narrow,
                        f"{narrow.name} implies {broad.name}, yet {', '.join(runners)} supports {narrow.name} "
                        f"and not {broad.name}: every config that uses {narrow.name} is refused there",
                        witness=witness, features=(narrow.id, broad.id))
            except Inconclusive as error:
                yield place.feature("inconclusive", b, f"Could not compare {a.name} and {b.name} {_undecided(error, budget)}")


def _always_redirects(compiled: Plan, ctx: _check_adjust.Contexts) -> List[str]:
    """The redirects in force with ``applies = "always"`` (issue 30, F6) whose runner has
    adjustments of its own after the choice, staged requirements after it, or redirects at a stage
    (which send it on before it is validated), as said ('fa3 → triton'): where one holds, the runner automatic choice reaches is sent to that runner and
    validated as asked for once the stages are walked, on its effective config F, which
    ``never-chosen`` and ``no-runner`` (questions on the config of choice C) do not read (they say
    ``inconclusive``). Elsewhere F is C and nothing refuses before the validation: they read the
    ``redirect`` step exactly."""
    roles = any(c.roles for c in compiled.matrix.staged)  # checked wherever their runner fills a role
    return [f"{r} → {redirect.to}" for r, found in compiled.redirects.items() for _, redirect in found
            if redirect.applies == "always" and (ctx.own_adjustments.get(redirect.to) or ctx.later.get(redirect.to)
                                                 or compiled.staged_redirects.get(redirect.to)
                                                 or roles or ctx.too_large is not None and compiled.matrix.staged)]


def _runners(matrix: Matrix, v: Version, live: List[Feature], choice: _Choice, solve: Solve, place: _Places,
             budget: int, unusable: Set[str] = frozenset(),  # type: ignore[assignment]
             on_c: Rewrite = identity, chosen: bool = True) -> Iterator[Finding]:
    """``no-yes`` and ``never-chosen`` (without *chosen*: ``no-yes`` only): a runner is chosen by
    some config exactly when some step of the decision list that chooses it can decide (it
    holds, and no earlier step that decides otherwise does)."""
    blockers = {r.id: [g for g in live if g.status(r.id, v) in BLOCKING] for r in matrix.runners}
    simple = not matrix.orders and all(r.candidate is None for r in matrix.runners) and not any(
        s.kind == "redirect" for s in choice.steps)  # a runner that a redirect sends choice to is not reached by priority
    preferring = any(g.prefers is not None for g in live)
    for index, runner in enumerate(matrix.runners):
        if all(f.status(runner.id, v) != "yes" for f in matrix.features_at(v)) and matrix.features_at(v):
            yield place.runner("no-yes", runner.id, f"{runner.name} supports no feature: no cell says yes to it")
        if runner.id in unusable or not chosen:
            continue  # said already: it serves no config at all
        above = matrix.runners[:index]
        if simple and not preferring and any(not blockers[h.id] for h in above):
            free = next(h for h in above if not blockers[h.id])
            yield place.runner("never-chosen", runner.id,
                               f"{runner.name} is never chosen automatically: {free.name} is never blocked")
            continue
        found = None
        try:
            for step in choice.steps:
                if step.runner != runner.id:
                    continue
                # An earlier step that chooses this runner too may decide: it is chosen then too.
                question = choice.fires(step, passed=partial(_chooses, runner.id))
                if question is not None and step.kind == "redirect":  # validated as asked for: not refused
                    question["false"] = [*question["false"], *choice.refusing(runner.id)]
                if question is not None and (found := solve(**question)) is not None:
                    break
        except Inconclusive as error:
            yield place.runner("inconclusive", runner.id,
                               f"Could not decide {_undecided(error, budget)} whether {runner.name} is ever chosen")
            continue
        if found is None:
            try:
                candidate = [on_c(runner.candidate.node)] if runner.candidate is not None else []
                never_free = solve(true=candidate, false=[on_c(g.when.node) for g in blockers[runner.id]]) is None
            except Inconclusive:
                never_free = False
            if never_free:
                yield place.runner("never-chosen", runner.id,
                                   f"{runner.name} is never chosen automatically: it is never free (a gate it does "
                                   f"not support is active for every config{' where it is a candidate' if candidate else ''})")
                continue
            # The first runner of each order: a runner first in all of them has none before it.
            leads = {s.gate: s.runner for s in reversed(choice.steps) if s.kind == "order"}
            first = all(r == runner.id for r in leads.values())
            # Orders without fallback, the last without when, leave the order of priority unread
            # and decide at their first candidate: no runner after it is tried.
            validated = bool(matrix.orders) and all(not o.fallback for o in matrix.orders) and _always(matrix.orders[-1])
            why = [] if first or validated else [
                f"a runner {'before it in the order that applies' if matrix.orders else 'of higher priority'} is free too"]
            if any(not o.fallback and o.runners[0] != runner.id for o in matrix.orders):
                why.append("an order without fallback that applies tries another runner first")
            if preferring:
                outright = any(g.prefers is not None and g.prefers.outright for g in live)
                why.append(f"a preference chooses another runner{', or leaves no runner' if outright else ''}")
            yield place.runner("never-chosen", runner.id,
                               f"{runner.name} is never chosen automatically: whenever it is free"
                               f"{' and a candidate' if runner.candidate is not None else ''}, "
                               f"{', or '.join(why) or 'another runner is chosen'}")


def _always(order: Order) -> bool:
    """Whether *order* applies wherever no order before it does (written without ``when``)."""
    node = order.when.node
    return isinstance(node, Constant) and node.value is True


def _chooses(runner: str, step: Rule) -> bool:
    return step.runner == runner


def _totality(matrix: Matrix, v: Version, live: List[Feature], space: Space, choice: _Choice, solve: Solve,  # noqa: C901 — one search for no-runner sets whose memo tables (satisfiable, exact, decider) every step shares
              place: _Places, strict: bool, budget: int, limit: Optional[int] = None,
              gone: Sequence[Feature] = (), on_c: Rewrite = identity) -> Iterator[Finding]:
    """``no-runner``: the minimal sets of gates S such that some config with every gate of S
    active is refused with `NoRunnerError` *because of S*: every runner is refused by a gate of
    S, or a gate of S prefers a runner that S refuses outright, and decides (it is the step of
    the decision list that holds first), or S holds an order without fallback that decides and
    refuses every runner it tries up to its first candidate."""
    runners = matrix.runners
    everyone = frozenset(r.id for r in runners)
    # Out of the way (a "no" or "opt-in", a failed requirement, not a candidate), per gate.
    refused = {g.id: frozenset(r.id for r in runners if g.status(r.id, v) in BLOCKING) for g in live}
    # An outright preference (`Prefers`) that decides for its runner out of the way passes
    # every other runner over: the search may count it for them (`unserved` says when it decides).
    outright = {g.id: g.prefers.runner for g in live if g.prefers is not None and g.prefers.outright}
    # An order without fallback that decides passes over every runner after its first
    # candidate: the search may count it for every runner but the first it tries.
    final = {g.id: g.origin.tried([r.id for r in runners]) for g in live
             if isinstance(g.origin, Order) and not g.origin.fallback}
    outright.update({i: tried[0] for i, tried in final.items()})
    # A redirect that applies always (issue 30, F6) that decides sends the choice to its runner,
    # validated as asked for: it passes every other runner over, and that one must be refused
    # by a gate of the set it says no to (`sending`).
    sending = {g.id: g.origin.to for g in live if isinstance(g.origin, Redirect) and g.origin.applies == "always"}
    outright.update(sending)
    asked_no = {g.id: frozenset(r.id for r in runners if g.status(r.id, v) == "no") for g in live
                if not isinstance(g.origin, (Runner, Order, Redirect))}
    blocks = {g.id: refused[g.id] | (everyone - {outright[g.id]} if g.id in outright else frozenset()) for g in live}
    by_runner = {r.id: [g for g in live if r.id in blocks[g.id]] for r in runners}
    satisfiable: Dict[FrozenSet[str], Optional[Assignment]] = {}
    exact: Dict[FrozenSet[str], Optional[Assignment]] = {}
    #: The outright preference that decides, for the combinations found that way.
    decider: Dict[FrozenSet[str], Feature] = {}
    found: List[Tuple[Feature, ...]] = []
    seen: Set[FrozenSet[str]] = set()
    stopped: List[Tuple[Tuple[Feature, ...], Inconclusive]] = []
    nodes = {g.id: on_c(g.when.node) for g in live}

    def joint(chosen: Tuple[Feature, ...]) -> Optional[Assignment]:
        """A config where every gate of *chosen* holds (the search prunes with it)."""
        key = frozenset(g.id for g in chosen)
        if key not in satisfiable:
            satisfiable[key] = solve(true=[nodes[g.id] for g in chosen])
        return satisfiable[key]

    def unserved(chosen: Tuple[Feature, ...]) -> Optional[Assignment]:
        """A config where every gate of *chosen* holds and no runner is chosen because of them:
        they refuse every runner, or one of them prefers outright a runner they refuse, and
        decides."""
        key = frozenset(g.id for g in chosen)
        if key not in exact:
            away = frozenset().union(*(refused[g.id] for g in chosen))
            true = [nodes[h.id] for h in chosen]
            exact[key] = (joint(chosen) if not sending else _unredirected(choice, solve, true)) \
                if away == everyone else None
            for g in chosen:
                if exact[key] is not None:
                    break
                if outright.get(g.id) not in away:
                    continue
                if g.id in sending and not any(sending[g.id] in asked_no.get(h.id, ()) for h in chosen):
                    continue  # its runner, asked for, serves where only an opt-in or its candidacy kept it away
                for step in _deciding(choice, g, away):
                    question = choice.fires(step, passed=lambda s: False, true=true)
                    if question is not None and (hit := solve(**question)) is not None:
                        exact[key], decider[key] = hit, g
                        break
        return exact[key]

    cut: List[bool] = []

    def extend(chosen: Tuple[Feature, ...], index: int) -> None:
        while index < len(runners) and any(runners[index].id in refused[g.id] for g in chosen):
            index += 1
        if index == len(runners):
            key = frozenset(g.id for g in chosen)
            if key not in seen:
                seen.add(key)
                try:
                    if unserved(chosen) is not None:
                        found.append(chosen)
                except Inconclusive as error:
                    stopped.append((chosen, error))
            return
        if any(runners[index].id != outright.get(g.id, runners[index].id) for g in chosen):
            # An outright preference of *chosen* may pass this runner over; or it does not
            # decide, and the runner must be refused: both are searched.
            extend(chosen, index + 1)
        failed = sum(1 for g in chosen if isinstance(g.origin, Requirement))
        for gate in by_runner[runners[index].id]:
            if gate in chosen or chosen and refused[gate.id] == everyone:
                # A gate that refuses every runner is a set of its own, searched from the top:
                # with others it is never minimal.
                continue
            if not refused[gate.id] and any(not refused[g.id] for g in chosen):
                # A gate that refuses no runner only passes runners over: it must decide, and a
                # minimal set holds one such (without the other, the one that decides does it).
                continue
            if limit is not None and isinstance(gate.origin, Requirement) and failed == limit:
                cut.append(True)
                continue
            candidate = chosen + (gate,)
            try:
                if joint(candidate) is None:
                    continue
            except Inconclusive as error:
                stopped.append((candidate, error))
                continue
            extend(candidate, index + 1)

    extend((), 0)
    keys = [frozenset(g.id for g in c) for c in found]
    order = {g.id: i for i, g in enumerate(live)}
    severity: Severity = "error" if strict else "note"
    # Minimal by the configs they hold, not by name alone: a set whose gates' conditions include
    # another set's (a feature with an order's condition stands for the order) holds only configs
    # that one explains already (a user trial: spilling, streaming and more than 8 workers was
    # said beside the order 'streaming' and more than 8 workers, and not acknowledged with it).
    conditions = {g.id: g.when.node for g in live}  # as written (`nodes` are read on C: rewritten)
    said = [frozenset(conditions[i] for i in key) for key in keys]
    minimal = [tuple(sorted(combo, key=lambda g: order[g.id])) for combo, key, held in zip(found, keys, said)
               if not any(other < key or written < held for other, written in zip(keys, said))]
    avoid = {g.id: on_c(g.when.node) for g in (*live, *gone)}  # removed features above all

    def witness_of(gates: Sequence[Feature]) -> Dict[str, Any]:
        key = frozenset(g.id for g in gates)
        assignment = exact[key]
        assert assignment is not None  # only combinations found satisfiable are witnessed
        return space.witness(assignment, avoid=[n for i, n in avoid.items() if i not in key])

    # Combinations a [refusals] entry declares deliberate are said as notes that never fail.
    by_refusal: Dict[Optional[str], List[Tuple[Feature, ...]]] = {}
    refusal_of: Dict[str, Refusal] = {}
    shadowed: Dict[str, str] = {}  # a refusal whose combinations an earlier one acknowledges → that one
    for combo in minimal:
        ids = {g.id for g in combo}
        covering = [r for r in matrix.refusals if r.covers(ids)]
        refusal = covering[0] if covering else None
        if refusal is None:  # a matrix-wide requirement exempting no runner declares its own refusal
            required = next((g for g in combo if _required(g)), None)
            if required is not None:
                refusal = Refusal(required.id, _messages.wide_acknowledged(required.name), ((required.id,),))
        by_refusal.setdefault(refusal.id if refusal else None, []).append(combo)
        if refusal is not None:
            refusal_of[refusal.id] = refusal
            for other in covering[1:]:
                shadowed.setdefault(other.id, refusal.id)
    for refusal in matrix.refusals:
        if refusal.id in by_refusal:
            continue
        if refusal.id in shadowed:
            yield place.config("refusal-shadowed", ("refusals", refusal.id),
                               f"The refusal {refusal.id!r} matches only combinations that the refusal "
                               f"{shadowed[refusal.id]!r} before it acknowledges already: merge the two, or delete one")
        else:
            yield place.config("refusal-unused", ("refusals", refusal.id),
                               f"The refusal {refusal.id!r} matches no combination of gates that leaves no runner "
                               "free: delete it, or check its gate lists")
    for refusal_id, combos in by_refusal.items():
        refusal = refusal_of.get(refusal_id) if refusal_id is not None else None
        note = f" (acknowledged: {refusal.reason})" if refusal is not None else ""
        level: Severity = "note" if refusal is not None else severity
        yield from _no_runner_findings(combos, order, blocks, refused, runners, witness_of, place, level, note, refusal_id,
                                       lambda gates: decider[frozenset(g.id for g in gates)],
                                       lambda g, r: g.statement(r, v).status == "opt-in")
    yield from _stopped(stopped, place, budget)
    if cut:
        yield place.config("no-runner-cut", ("matrix",),
                           f"Configs no runner serves were searched among combinations of features with at most "
                           f"{limit} failed runner requirements: combinations of more were not searched (they are "
                           "the runners' capability gaps, and there can be thousands); resolve() still names every "
                           "reason a config is refused")


def _unredirected(choice: _Choice, solve: Solve, true: List[Node]) -> Optional[Assignment]:
    """A config where *true* holds (gates that block every runner) and automatic choice finds no
    runner: no redirect that applies always decides there, or the one that does leaves a runner
    that refuses it (issue 30, F6: validated as asked for, a refusal final)."""
    redirecting = [choice.rewrite(f.when.node) for f in choice.plan.active(choice.plan.redirecting)
                   if f.id not in choice.dead and f.applies == "always"]
    found = solve(true=true, false=redirecting)
    if found is not None or not redirecting:
        return found
    for step in choice.steps:
        if step.kind in ("prefer", "order"):
            continue  # a runner free: not where every runner is blocked
        question = choice.fires(step, passed=lambda s: False, true=true)
        if question is not None and step.kind == "redirect":
            assert step.runner is not None
            refusing = choice.refusing(step.runner)
            if not refusing:
                continue
            question["true"].append(refusing[0] if len(refusing) == 1 else Or(tuple(refusing)))
        if question is not None and (found := solve(**question)) is not None:
            return found
    return None


def _deciding(choice: _Choice, gate: Feature, away: FrozenSet[str]) -> Iterator[Rule]:
    """The steps at which *gate* leaves no runner, the runners *away* refused: its outright
    preference's runner not free, or, for an order without fallback, its first candidate
    blocked where every runner it tries before that one is away too, or, for a redirect that
    applies always (issue 30, F6), its runner validated as asked for (the set refuses it)."""
    plan = choice.plan
    if isinstance(gate.origin, Redirect):
        yield from (s for s in choice.steps if s.kind == "redirect" and s.gate_of(plan).id == gate.id)
        return
    if isinstance(gate.origin, Order):
        bit = next(b for b, order, _ in plan.orders if order is gate.origin)
        for step in choice.steps:
            if step.kind == "order-refused" and step.gate == bit and step.blocked in away:
                yield step
        return
    for step in choice.steps:
        if step.kind in ("prefer-blocked", "prefer-not-candidate") and step.gate_of(plan).id == gate.id:
            yield step


def _passed_over(g: Feature, runner: str, names_of: Mapping[str, str]) -> str:
    """A runner of a no-runner set that no gate of it refuses: *g* decides for another runner (an
    outright preference, an order without fallback, a redirect that applies always)."""
    if isinstance(g.origin, Order):
        return f"{runner} is {_messages.not_tried(g.name)}"
    if isinstance(g.origin, Redirect):
        return _messages.redirect_passes(runner, names_of[g.origin.runner], names_of[g.origin.to])
    assert g.prefers is not None
    return f"{runner} is passed over: {g.name} chooses {names_of[g.prefers.runner]} outright"


def _no_runner_findings(minimal: List[Tuple[Feature, ...]], order: Dict[str, int], blocks: Dict[str, FrozenSet[str]],
                        refused: Dict[str, FrozenSet[str]], runners: Sequence[Runner],
                        witness_of: Callable[[Sequence[Feature]], Dict[str, Any]],
                        place: _Places, severity: Severity, note: str, refusal_id: Optional[str],
                        decided_by: Callable[[Sequence[Feature]], Feature],
                        opt_in: Callable[[Feature, str], bool]) -> Iterator[Finding]:
    names_of = {r.id: r.name for r in runners}

    def reasons(gates: Sequence[Feature]) -> str:
        required = [g.name for g in gates if _required(g)]
        if required:
            return _messages.wide_refuses(required)
        out = []
        for r in runners:
            refusing = [g for g in gates if r.id in refused[g.id]]
            if not refusing:  # passed over: an outright preference for another runner decides
                out.append(_passed_over(decided_by(gates), r.name, names_of))
            elif any(g.origin is None for g in refusing):
                # An opt-in is said so, as resolve says it: asked for, the runner serves it.
                # The features one runner does not support, apart by commas: "; " parts the runners
                # (a user trial read "Columnar does not support X; Y; In-memory …" as three runners).
                out.append(f"{r.name} does not support "
                           + ", ".join(g.name + " (opt-in)" * opt_in(g, r.id) for g in refusing))
            elif isinstance(refusing[0].origin, Runner):
                out.append(f"{r.name} is not a candidate")
            else:
                out.append(f"{r.name} is not valid for it: {', '.join(g.name for g in refusing)}")
        return "; ".join(out)

    # Pairs that form a product (any of these gates with any of those) are one finding.
    partners: Dict[str, Set[str]] = {}
    oriented: Dict[str, Feature] = {}
    singles: List[Tuple[Feature, ...]] = []
    for combo in minimal:
        if len(combo) != 2:
            singles.append(combo)
            continue
        a, b = sorted(combo, key=lambda g: (sorted(blocks[g.id]), order[g.id]))
        partners.setdefault(a.id, set()).add(b.id)
        oriented[a.id], oriented[b.id] = a, b
    groups: Dict[Tuple[str, ...], List[Feature]] = {}
    for left, right in partners.items():
        groups.setdefault(tuple(sorted(right, key=order.__getitem__)), []).append(oriented[left])
    for right_ids, lefts in groups.items():
        rights = [oriented[i] for i in right_ids]
        if len(lefts) * len(rights) == 1:
            singles.append(tuple(sorted((lefts[0], rights[0]), key=lambda g: order[g.id])))
            continue
        lefts.sort(key=lambda g: order[g.id])
        combos = tuple((left.id, right.id) for left in lefts for right in rights)
        sides = []
        by_order = any(isinstance(g.origin, Order) for g in lefts + rights)
        by_redirect = any(isinstance(g.origin, Redirect) for g in lefts + rights)
        by_preference = any(g.prefers is not None for g in lefts + rights) or not by_order and not by_redirect
        passer = " or ".join(["an outright preference"] * by_preference + ["an order without fallback"] * by_order
                             + [_messages.REDIRECT_PASSER] * by_redirect)
        for r in runners:
            first, second = (any(r.id in blocks[g.id] for g in side) for side in (lefts, rights))
            which = "either list" if first and second else "the first list" if first else "the second list"
            passed = any(r.id in blocks[g.id] and r.id not in refused[g.id] for g in lefts + rights)
            sides.append(f"{r.name} does not support {which}" + (f", or is passed over by {passer} there" if passed else ""))
        what = "that uses" if all(g.origin is None for g in lefts + rights) else "with"
        message = (f"No runner can serve a config {what} any of [{_names(lefts, names_of)}] together with any of "
                   f"[{_names(rights, names_of)}] ({len(combos)} combinations): {'; '.join(sides)}{note}")
        yield place.feature("no-runner", lefts[0], message, severity=severity,
                            witness=witness_of((lefts[0], rights[0])),
                            features=tuple(g.id for g in lefts + rights), combinations=combos, refusal=refusal_id)
    for gates in sorted(singles, key=lambda c: [order[g.id] for g in c]):
        names = " and ".join(_gate_text(g, names_of) for g in gates)
        what = "that uses" if all(g.origin is None for g in gates) else "with"
        yield place.feature("no-runner", gates[0],
                            f"No runner can serve a config {what} {names}: {reasons(gates)}{note}",
                            severity=severity, witness=witness_of(gates), features=tuple(g.id for g in gates),
                            combinations=(tuple(g.id for g in gates),), refusal=refusal_id)


def _stopped(stopped: List[Tuple[Tuple[Feature, ...], Inconclusive]], place: _Places, budget: int) -> Iterator[Finding]:
    said: Set[FrozenSet[str]] = set()
    for combo, error in stopped:
        key = frozenset(g.id for g in combo)
        if key in said:  # the search reaches a combination in more than one order
            continue
        said.add(key)
        names = " and ".join(_gate_text(g, {r.id: r.name for r in place.matrix.runners}) for g in combo)
        yield place.feature("inconclusive", combo[0],
                            f"Could not decide {_undecided(error, budget)} whether {names} can be active together; "
                            "combinations that include them were not searched")
