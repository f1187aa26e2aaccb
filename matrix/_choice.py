"""The rules of runner choice, stated once.

A config is resolved in this order (docs/explanation/choice.md shows this text, up to the list's end):

1. **Removed features.** A config that uses a feature removed at the version is refused
   (`RemovedFeatureError`) before any runner is considered; deprecated ones only warn. A
   matrix-wide requirement (``[requires]`` of features.toml) is a requirement of every runner
   it does not exempt; one that exempts no runner refuses a config that fails it whatever the
   runner, with the requirements' reasons alone: in automatic choice (`NoRunnerError`) before
   the steps below, which could only refuse it too; for a runner asked for where that runner
   is validated (`UnsupportedFeatureError`, step 2).
2. **A runner asked for** (`requested`): a former id (an ``aliases`` entry of a runner file)
   asks for the runner it names, with a warning of kind ``deprecated-alias`` from the alias's
   ``since`` on (from its ``remove_in`` on it is refused before the config is read:
   `UsageError`, naming the new id). Then the first of that runner's ``redirects`` in force
   whose condition holds, in declaration order, makes the request one for the redirect's
   runner, with a warning of kind ``redirected``; that runner's own redirects do not apply
   (one hop). Then a feature that forces another runner refuses the request, or, with
   ``override``, replaces it by the forced runner (a refusal wins over an override, whatever
   the order of declaration); the runner then serves unless a gate it says ``no`` to is
   active or it fails a requirement. Candidacy, orders and preferences are not consulted.
3. **Automatic choice** (`automatic`), a decision list read top down (redirects play no part
   in it, except those with ``applies = "always"``, below), the first step that holds deciding:

   - each feature that prefers a runner, in declaration order, while no feature that forces a
     runner is active: its runner is chosen when it is free (not blocked, and a candidate);
     when it is not, an ``outright`` preference leaves no runner (`NoRunnerError`), and one
     that is not outright is passed over with a notice;
   - the first ``[orders]`` entry whose condition holds, else the order of priority: the first
     runner of that order that is a candidate and free is chosen; when none is, no runner. An
     order with ``fallback = false`` is a validated default: its first candidate is chosen, and
     when that runner is not free the config has no runner (`NoRunnerError`, saying what
     blocks it), never the next runner of the order. An order without ``when`` (the last one)
     applies wherever no order before it does: with ``fallback = false``, "else this runner,
     validated" (the order of priority is then never reached).

   A runner is *blocked* by an active gate it says ``no`` or ``opt-in`` to, and by a
   requirement it fails (requirements are gates derived from the runner files, see
   `matrix.schema.Matrix.gates_at`).

   A redirect with ``applies = "always"`` acts where the list *reaches* its runner X (a
   preference's runner, while no feature that forces a runner is active, or a runner of the
   order that applies, each where it is a candidate, before its blockers are read): the first
   of X's redirects that apply always in force whose condition holds decides its runner Y
   instead (``redirect``: a warning of kind ``redirected``, "Chose 'fa3' automatically,
   redirected to 'triton': …", or the redirect's ``message``). Y is validated as a runner asked
   for is (a gate in force in automatic choice that it says ``no`` to refuses it, its ``opt-in``
   features are said), on its effective config, and a refusal is final: `NoRunnerError` ("No
   runner can serve this config: chose 'fa3' automatically, redirected to 'triton'; …"), no
   other runner tried, no forced runner's adjustments said. Forces and overrides act on Y only
   through the gates Y says ``no`` to; Y's own redirects do not apply (one hop); redirects
   without ``applies`` (``asked``) play no part here, so they do not come before it.
4. **Adjustments** (``[adjustments]``, `matrix._adjust`): the steps above read the config of
   choice, C (the config after the adjustments that name no runner, applied first in
   declaration order). The adjustments of the runner that serves then apply to C, giving the
   effective config F, and that runner's blockers, requirements and ``partial`` / ``opt-in``
   warnings are evaluated on F: a runner asked for is validated on F only; a runner automatic
   choice found free on C but blocked on F is an `AdjustmentError`. Where automatic choice
   finds no runner free on C (under an order with fallback: an order without it ends on its
   first candidate) and an active feature forces a candidate R (the runner the
   no-runner error ends on: `forced`), R's adjustments apply to C and are said (their
   ``adjusted`` warnings, after the choice's), as a host that uses the forced runner changes
   the config before it validates it (vLLM); the answer stays `NoRunnerError`, R's refusal
   read on C: no config's answer depends on F there. What is said of the other runners reads C.
   With ``[matrix] stages`` (`matrix._stages`) the adjustments apply stage by stage: those that
   name no runner at ``choice`` or before give C; after the choice, the runner's own and those
   that name no runner at a later stage give F. A redirect at a stage after ``choice`` sends the
   runner that serves on there, where its condition holds on the config the stages before it
   left: that runner's steps up to the stage, then the redirect's runner's from it, validated as
   a runner asked for (a refusal is an `AdjustmentError` in automatic choice: the choice is made).
5. **A runner deprecated** (``deprecated`` in its file): once it serves (validated), from the
   deprecation's ``since`` on, a warning of kind ``deprecated-runner`` says so, after the warnings
   of serving it (`runner_deprecation`); past its ``remove_in`` it still serves, and the warning
   says the removal was due. Its deprecation plays no part in the steps above: it is chosen, asked
   for, redirected to and validated as any other runner; where it is refused, nothing of it is
   said (a role's refusal after the base's runner served keeps the base's warnings, its own too).

The decision list (`steps`) is data: `automatic` reads it on a mask of active gates; the
compiled plan's fast path (`quiet_top`) and ``matrix check``'s questions about choice (which
runner is ever chosen, which configs no runner serves) read the same steps, so that a rule of
choice is written here and nowhere else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Literal, Mapping, Optional, Tuple, Type, cast, get_args

import attrs

from . import _messages
from ._record import Model, Record, _set
from .errors import (AdjustmentError, NoRunnerError, RemovedFeatureError, ResolutionError, UnsupportedFeatureError,
                     UsageError)

if TYPE_CHECKING:  # pragma: no cover
    from ._compile import Plan
    from ._templates import Template
    from packaging.version import Version

    from .schema import AdjustmentLevel, Deprecation, Feature, Matrix, Redirect

#: The kinds of `ResolutionWarning`.
WarningKind = Literal["deprecated", "fallback", "opt-in", "partial", "override", "preference", "deprecated-alias",
                      "redirected", "adjusted", "deprecated-runner"]
WARNING_KINDS: Tuple[str, ...] = get_args(WarningKind)


@attrs.frozen(eq=False, repr=False)
class ResolutionWarning(Model):
    """Something the user should be told: ``kind`` is one of `WARNING_KINDS`. A warning of
    kind ``adjusted`` names the adjustment in ``feature`` and carries its ``level``
    (``info`` or ``warning``); the other kinds have none."""

    kind: WarningKind = attrs.field(validator=attrs.validators.in_(WARNING_KINDS))
    feature: Optional[str]
    runner: Optional[str]
    message: str
    level: Optional[AdjustmentLevel] = None

    def __str__(self) -> str:
        return self.message


#: What a decision is: the runner chosen (or None), the warnings, and the error to raise (its
#: class and message) when there is one.
Decision = Tuple[Optional[str], Tuple[ResolutionWarning, ...], Optional[Type[ResolutionError]], Optional[str]]

#: One condition on a mask of active gates: ``(gates, wanted)`` holds when some gate of
#: *gates* is active (``wanted`` True) or none is (``wanted`` False).
Term = Tuple[int, bool]


class Rule(Record):
    """One step of the decision list of automatic choice: it holds when every literal does, and
    then decides *runner* (None: no runner; for ``removed``: refused)."""

    __slots__ = ("kind", "runner", "literals", "gate", "blocked")
    #: ``removed``, ``prefer`` (the preference's runner is free), ``prefer-blocked`` and
    #: ``prefer-not-candidate`` (an outright preference whose runner is not free), ``order``
    #: (a runner of the order that applies is free), ``order-refused`` (the first candidate of
    #: an order without fallback is blocked: ``blocked`` names it, no runner serves),
    #: ``redirect`` (the choice reaches ``blocked``, a candidate, and its redirect with
    #: ``applies = "always"`` whose gate is ``gate`` holds: ``runner``, its target, is validated
    #: as a runner asked for), ``none`` (no runner of it is).
    kind: str
    runner: Optional[str]
    literals: Tuple[Term, ...]
    #: The bit of the preferring gate (preference steps) or of the order (order steps, 0 for
    #: the order of priority).
    gate: int
    #: The runner an ``order-refused`` step finds blocked, or a ``redirect`` step redirects.
    blocked: Optional[str]

    def __init__(self, kind: str, runner: Optional[str], literals: Tuple[Term, ...], gate: int = 0,
                 blocked: Optional[str] = None) -> None:
        _set(self, "kind", kind)
        _set(self, "runner", runner)
        _set(self, "literals", literals)
        _set(self, "gate", gate)
        _set(self, "blocked", blocked)

    def holds(self, mask: int) -> bool:
        return all(bool(mask & gates) is wanted for gates, wanted in self.literals)

    def gate_of(self, plan: Plan) -> Feature:
        """The preferring gate of a preference step."""
        return plan.features[self.gate.bit_length() - 1]

    @property
    def trigger(self) -> int:
        """Gates one of which must be active for the step to hold (-1: it may hold without)."""
        return next((gates for gates, wanted in self.literals if wanted), -1)


def _free(plan: Plan, runner: str) -> Tuple[Term, ...]:
    """A runner is free: no gate blocks it, and it is a candidate."""
    out: List[Term] = []
    if plan.blocking[runner]:
        out.append((plan.blocking[runner], False))
    if plan.candidate.get(runner):
        out.append((plan.candidate[runner], True))
    return tuple(out)


def _redirected(plan: Plan, runner: str, case: Tuple[Term, ...]) -> List[Rule]:
    """The ``redirect`` steps of *runner* where *case* reaches it: one per redirect of it with
    ``applies = "always"`` in force, where its gate is active and no earlier one's is (the first
    that holds applies), *runner* a candidate."""
    out: List[Rule] = []
    earlier = 0
    candidate: Tuple[Term, ...] = ((plan.candidate[runner], True),) if plan.candidate.get(runner) else ()
    # A matrix-wide requirement exempting no runner refuses before the choice (`choose`).
    candidate += ((plan.required, False),) if plan.required else ()
    for bit, redirect in plan.redirects.get(runner, ()):
        if redirect.applies != "always":
            continue
        out.append(Rule("redirect", redirect.to, case + candidate + ((bit, True),) + (((earlier, False),) if earlier
                                                                                      else ()), bit, runner))
        earlier |= bit
    return out


def steps(plan: Plan) -> Tuple[Rule, ...]:
    """The decision list of automatic choice for *plan* (see the module docstring)."""
    out: List[Rule] = []
    if plan.removed:
        out.append(Rule("removed", None, ((plan.removed, True),)))
    aside: Tuple[Term, ...] = ((plan.forcing, False),) if plan.forcing else ()
    for bit in _bits(plan.preferring):
        prefers = plan.features[bit.bit_length() - 1].prefers
        assert prefers is not None
        runner, base = prefers.runner, ((bit, True), *aside)
        out += _redirected(plan, runner, base)
        out.append(Rule("prefer", runner, base + _free(plan, runner), bit))
        if prefers.outright:
            if plan.blocking[runner]:
                out.append(Rule("prefer-blocked", None, (*base, (plan.blocking[runner], True)), bit))
            if plan.candidate.get(runner):
                out.append(Rule("prefer-not-candidate", None, (*base, (plan.candidate[runner], False)), bit))
    earlier = 0
    for bit, order, runners in (*plan.orders, (0, None, plan.order)):
        case: Tuple[Term, ...] = (((bit, True),) if bit else ()) + (((earlier, False),) if earlier else ())
        for runner, _ in runners:
            out += _redirected(plan, runner, case)
            out.append(Rule("order", runner, case + _free(plan, runner), bit))
            if order is not None and not order.fallback:
                # A validated default: its first candidate blocked, no later runner is tried.
                if plan.blocking[runner]:
                    candidate = ((plan.candidate[runner], True),) if plan.candidate.get(runner) else ()
                    out.append(Rule("order-refused", None, case + candidate + ((plan.blocking[runner], True),), bit,
                                    runner))
                if not plan.candidate.get(runner):
                    break  # always a candidate: the runners after it are never tried
        out.append(Rule("none", None, case, bit))
        earlier |= bit
    return tuple(out)


def quiet_top(plan: Plan, top: str) -> int:
    """The gates that keep a resolution from being "*top*, no warnings": any step before the
    one that chooses *top* in the order of priority could hold, *top* is blocked or partly
    supports the config, or a deprecated feature is active. A mask with none of them active
    resolves to *top* with nothing to say."""
    quiet = plan.blocking[top] | plan.partial[top] | plan.deprecated
    for step in plan.steps:
        if step.kind == "order" and step.runner == top and step.gate == 0:
            return quiet
        quiet |= step.trigger
    raise AssertionError(f"{top!r} is in the order of priority")  # pragma: no cover


def _bits(mask: int) -> List[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low)
        mask ^= low
    return out


def _own(plan: Plan, sentence: str, runner: Optional[str]) -> Optional[Template]:
    """The matrix's own template of *sentence* about *runner* (``[messages]``), or None: the
    engine's words. The templates are imported for a matrix that has some, not by ``import matrix``."""
    if not plan.matrix.messages:
        return None
    from ._templates import lookup

    return lookup(plan.matrix.messages, sentence, runner)


#: The config values of the config a mask was read from, by path (None: a decision shared by
#: every config of the mask, which says no value).
Values = Optional[Mapping[str, object]]


def reason(plan: Plan, gate: Feature, values: Values) -> str:
    """A failed requirement's reason (its gate's name), a template of config paths (issue 30,
    F7), as said of the config whose *values* the gate was read on (a derived field computed
    from them); without *values* (the docs, ``matrix check``), as written."""
    text = gate.name
    if values is None or ("{" not in text and "}" not in text):
        return text
    from ._templates import filled

    return filled(text, lambda path: read(plan, values, path))


def read(plan: Plan, values: Mapping[str, object], path: str) -> object:
    """The value at *path* of a config whose plan *values* are these (a derived field computed
    from them: the plan reads the paths of each template's derived fields)."""
    if path in values:
        return values[path]
    from ._derive import value

    derived = plan.matrix.schema.derived_field(path)
    assert derived is not None, path
    return value(derived, lambda p: values[p])


def _blocked_by(plan: Plan, mask: int, runner: str, gates: int = 0,
                values: Values = None) -> Tuple[List[str], List[str]]:
    """The features of *gates* (the runner's blocking gates by default) that *runner* does not
    support, an opt-in marked so, and the reasons of the requirements it fails."""
    opt_in = plan.opt_in[runner]
    found = plan.active(mask & (gates or plan.blocking[runner]))
    names = [f.name + (" (opt-in)" if opt_in >> plan.features.index(f) & 1 else "") for f in found if f.origin is None]
    return names, [reason(plan, f, values) for f in found if f.origin is not None]


def blockers(plan: Plan, mask: int, runner: str, gates: int = 0, values: Values = None, refusal: bool = False,
             role: Optional[str] = None) -> str:
    """What keeps *runner* from the config: the features of *gates* (its blocking gates by
    default) that it does not support, an opt-in marked so, then the requirements it fails. As
    the *refusal* of the runner that serves or was asked for (in *role*, a role other than the
    base), the reasons of kinds with ``alone = true`` are said alone, first (in a list of
    runners, each is said by name)."""
    names, reasons = _blocked_by(plan, mask, runner, gates, values)
    alone: List[str] = []
    if refusal:
        found = plan.active(mask & (gates or plan.blocking[runner]))
        alone = [reason(plan, f, values) for f in found if getattr(f.origin, "alone", False)]
        reasons = [r for r in reasons if r not in alone]
    return _messages.does_not_support(_messages.in_role(plan.matrix.runner(runner).name, role), names, reasons,
                                      _own(plan, "does_not_support", runner), alone)


def required(plan: Plan, mask: int, values: Values = None) -> str:
    """The refusal of a config that fails a matrix-wide requirement exempting no runner (a gate
    of *mask* in ``plan.required``): the reasons alone, whatever the runner."""
    return _messages.required_refused([reason(plan, g, values) for g in plan.active(mask & plan.required)])


def _fallback(plan: Plan, mask: int, skipped: List[str], chosen: str, values: Values) -> str:
    """The notice that automatic choice passed over *skipped* for *chosen*."""
    said: List[str] = []
    for runner in skipped:
        names, reasons = _blocked_by(plan, mask, runner, values=values)
        said += names + reasons
    return _messages.fallback([blockers(plan, mask, r, values=values) for r in skipped], plan.matrix.runner(chosen).name,
                              _own(plan, "fallback", chosen),
                              _messages.listing([plan.matrix.runner(r).name for r in skipped]),
                              list(dict.fromkeys(said)))


def _no_runner(plan: Plan, mask: int, candidates: List[str], warnings: List[ResolutionWarning],
               values: Values) -> str:
    """The error of automatic choice when no candidate is free. A matrix's own sentence may say
    only the refusal of the runner the choice ends on (the runner an active feature forces, else
    the last candidate): the candidates before it are then said as a fallback to it, as a host
    that falls back and then refuses says them (vLLM); those forced away are not said at all."""
    forced = _forced(plan, mask, candidates)
    last = forced or candidates[-1]
    template = _own(plan, "no_runner", last)
    said = [blockers(plan, mask, r, values=values) for r in candidates]
    if template is None:
        return _messages.no_runner(said)
    if "blocked" not in template.names and forced is None and len(candidates) > 1:
        warnings.append(ResolutionWarning("fallback", None, last, _fallback(plan, mask, candidates[:-1], last,
                                                                             values)))
    names, reasons = _blocked_by(plan, mask, last, values=values)
    return _messages.no_runner(said, template, blockers(plan, mask, last, values=values), plan.matrix.runner(last).name,
                               names + reasons)


def _forced(plan: Plan, mask: int, candidates: List[str]) -> Optional[str]:
    """The first runner an active feature forces (in declaration order) that is a candidate."""
    forcing = [f.forces.runner for f in plan.active(mask & plan.forcing) if f.forces is not None]
    return next((r for r in forcing if r in candidates), None)


def forced(plan: Plan, mask: int) -> Optional[str]:
    """The runner the no-runner error of automatic choice on *mask* (the config of choice, where
    no runner is free) ends on because an active feature forces it, or None (no such feature, or
    its runner is no candidate). Its adjustments apply and are said; its refusal reads *mask*
    (step 4 of the module docstring). Only where the step that decides is ``none``: no runner of
    the order that applies is free (an order without fallback that refuses its first candidate
    ends on that runner, not on a forced one)."""
    if next(s for s in plan.steps if s.holds(mask)).kind != "none":
        return None
    _, tried = plan.choice(mask)
    return _forced(plan, mask, [r for r, _ in tried if plan.is_candidate(r, mask)])


def _deprecation(feature: Feature) -> Deprecation:
    """The deprecation of a feature the plan counts as deprecated or removed (it has one)."""
    assert feature.deprecated is not None
    return feature.deprecated


def decide(plan: Plan, mask: int, runner: Optional[str], values: Values = None) -> Decision:
    """What resolving a config with active gates *mask* answers, *runner* asked for or not
    (no adjustment of the runner that serves applying: `choose`, then `serve` on the same mask);
    *values*: the config's, where what is said depends on them (`reason`)."""
    choice = choose(plan, mask, runner, values)
    if choice.error is not None:
        return None, choice.warnings, choice.error, choice.message
    assert choice.runner is not None
    more, error, message = serve(plan, mask, runner, choice.runner, choice.overriding, choice.redirected, values)
    if error is not None:
        return None, choice.warnings + more, error, message
    return choice.runner, choice.warnings + more, None, None


#: A request that a redirect sent elsewhere: (the id asked for, the runner it was sent to).
Redirected = Optional[Tuple[str, str]]


class Chosen(Record):
    """What `choose` answers for a mask: the runner that serves (None: an error), the warnings
    so far, the error to raise (its class and message) when there is one, the feature that
    overrode the request, if one did, and the redirect of the request, if one applied."""

    # Slots rather than a NamedTuple: it is read field by field on every resolve an adjustment
    # may apply to (the choice is remembered per mask), and a slot reads about 3x faster than
    # a NamedTuple's field on CPython 3.11 (issue 23).
    __slots__ = ("runner", "warnings", "error", "message", "overriding", "redirected")
    runner: Optional[str]
    warnings: Tuple[ResolutionWarning, ...]
    error: Optional[Type[ResolutionError]]
    message: Optional[str]
    overriding: Optional[Feature]
    redirected: Redirected

    def __init__(self, runner: Optional[str], warnings: Tuple[ResolutionWarning, ...],
                 error: Optional[Type[ResolutionError]] = None, message: Optional[str] = None,
                 overriding: Optional[Feature] = None, redirected: Redirected = None) -> None:
        _set(self, "runner", runner)
        _set(self, "warnings", warnings)
        _set(self, "error", error)
        _set(self, "message", message)
        _set(self, "overriding", overriding)
        _set(self, "redirected", redirected)


def choose(plan: Plan, mask: int, runner: Optional[str], values: Values = None) -> Chosen:
    """The runner that serves a config with active gates *mask* (the config of choice, whose
    *values* these are: `reason`), before it is validated (`serve`): removal, deprecations, and
    automatic choice or the request."""
    warnings: List[ResolutionWarning] = []
    for feature in plan.active(mask & plan.deprecated):
        warnings.append(ResolutionWarning("deprecated", feature.id, None, deprecation_words(feature)))
    if mask & plan.removed:
        message = "; ".join(removal_words(f) for f in plan.active(mask & plan.removed))
        return Chosen(None, tuple(warnings), RemovedFeatureError, message)
    if runner is None and mask & plan.required:  # a matrix-wide requirement that exempts no runner
        return Chosen(None, tuple(warnings), NoRunnerError, required(plan, mask, values))
    overriding: Optional[Feature] = None
    redirected: Redirected = None
    if runner is None:
        decided = automatic(plan, mask, warnings, values)
        found = chosen_redirect(plan, mask) if decided[1] is None else None
        if found is not None:  # validated as a runner asked for (`serve`)
            redirected = (found[0], found[1].to)
    else:
        decided, overriding, redirected = requested(plan, mask, runner, warnings)
    chosen, error = decided
    if error is not None:
        return Chosen(None, tuple(warnings), error[0], error[1])
    return Chosen(chosen, tuple(warnings), overriding=overriding, redirected=redirected)


def serve(plan: Plan, mask: int, runner: Optional[str], chosen: str, overriding: Optional[Feature],
          redirected: Redirected = None, values: Values = None, staged: Optional[Tuple[str, str]] = None,
          role: Optional[str] = None) -> Tuple[Tuple[ResolutionWarning, ...], Optional[Type[ResolutionError]],
                                              Optional[str]]:
    """*chosen* validated on the effective config, whose active gates are *mask*: for a request
    (*runner* asked for), the gates it says no to refuse it and its opt-ins are said; in
    automatic choice a blocking gate is an `AdjustmentError` (the message is what blocks it:
    the resolver names the adjustments before it), except for a runner a redirect with
    ``applies = "always"`` sent the choice to (*redirected*), validated as a request is, a
    refusal final (`NoRunnerError`), or by a redirect at a stage after the choice (*staged*: the
    stage, and how the runner it redirected came to serve, `matrix._messages.redirected_at`;
    issue 30, F6): the choice made, a refusal is an `AdjustmentError` in automatic choice, as a
    staged requirement's is. *role*: the role other than the base *chosen* was asked for in
    (its refusal names it).
    Then its partial support is said."""
    warnings: List[ResolutionWarning] = []
    name = plan.matrix.runner(chosen).name
    if mask & plan.required:  # a matrix-wide requirement exempting no runner: its reasons alone
        error = UnsupportedFeatureError if runner is not None else AdjustmentError if redirected is None or staged \
            else NoRunnerError
        return (), error, required(plan, mask, values)
    if runner is not None or redirected is not None:
        if mask & plan.no[chosen]:
            refusal = blockers(plan, mask, chosen, plan.no[chosen], values, refusal=True, role=role)
            if staged is not None:  # sent on after the choice: the runner that served, then its refusal
                assert redirected is not None
                return (), AdjustmentError if runner is None else UnsupportedFeatureError, \
                    _messages.redirected_at_refused(*redirected, staged[0], refusal, staged[1])
            if runner is None:  # chosen automatically, then redirected
                assert redirected is not None
                return (), NoRunnerError, _messages.redirected_refused(*redirected, refusal, chosen=True)
            return (), UnsupportedFeatureError, refusal if redirected is None else _said(*redirected, refusal)
        for feature in plan.active(mask & plan.opt_in[chosen]):
            note = feature.statement(chosen, plan.version).note
            # An opt-in used because a forced runner overrode the request says so, not that it was asked for.
            by = None if overriding is None else overriding.name
            warnings.append(ResolutionWarning("opt-in", feature.id, chosen, _messages.opt_in(feature.name, name, note,
                                                                                              by)))
    elif mask & plan.blocking[chosen]:
        return (), AdjustmentError, blockers(plan, mask, chosen, values=values, refusal=True)
    for feature in plan.active(mask & plan.partial[chosen]):
        note = feature.statement(chosen, plan.version).note
        warnings.append(ResolutionWarning("partial", feature.id, chosen, _messages.partial(feature.name, name, note)))
    said = runner_deprecation(plan.matrix, chosen, plan.version)
    if said is not None:
        warnings.append(ResolutionWarning("deprecated-runner", None, chosen, said))
    return tuple(warnings), None, None


def runner_deprecation(matrix: Matrix, runner: str, version: Version,
                       name: Optional[Callable[[str], Optional[str]]] = None) -> Optional[str]:
    """The words of the ``deprecated-runner`` warning of a resolution that ends on *runner* at
    *version*, or None: it is not deprecated there (no ``deprecated`` table, or before its
    ``since``). Past its ``remove_in`` it still serves (its removal is its file's), and the
    words say the removal was due. The runners (it, its replacement) are said by their names,
    or by *name* of their ids where it gives one (`matrix.diff` reads a side's words by the
    other side's names)."""
    d = matrix.runner(runner).deprecated
    if d is None or version < d.since:
        return None

    def said(runner_id: str, default: str) -> str:
        return (name(runner_id) if name is not None else None) or default

    replacement = said(d.replacement, next((r.name for r in matrix.runners if r.id == d.replacement), d.replacement)) \
        if d.replacement is not None else None
    return _messages.deprecated(said(runner, matrix.runner(runner).name), str(d.since), _str(d.remove_in), replacement,
                                d.message, overdue=d.is_removed(version))


_Outcome = Tuple[Optional[str], Optional[Tuple[Type[ResolutionError], str]]]


def automatic(plan: Plan, mask: int, warnings: List[ResolutionWarning], values: Values = None) -> _Outcome:
    """The runner automatic choice takes for *mask*, or the error; notices go to *warnings*."""
    for step in plan.steps:
        if not step.holds(mask):
            if step.kind == "prefer" and mask & step.gate and not mask & plan.forcing:
                feature = step.gate_of(plan)
                assert feature.prefers is not None and step.runner is not None
                if not feature.prefers.outright:  # passed over: said, and the list goes on
                    warnings.append(ResolutionWarning("preference", feature.id, step.runner,
                                                      _preference_said(plan, mask, feature, values)))
            continue
        if step.kind == "prefer":
            feature = step.gate_of(plan)
            assert feature.prefers is not None and step.runner is not None
            warnings.append(ResolutionWarning("preference", feature.id, step.runner,
                                              _preference_said(plan, mask, feature, values)))
            return step.runner, None
        if step.kind in ("prefer-blocked", "prefer-not-candidate"):
            feature = step.gate_of(plan)
            assert feature.prefers is not None
            return None, (NoRunnerError, _preferred_blocked(plan, mask, feature, warnings, values))
        if step.kind == "order-refused":
            return None, (NoRunnerError, _order_refused(plan, mask, step, values))
        if step.kind == "redirect":  # said of the condition here: the resolver says the config's values
            redirect = cast("Redirect", step.gate_of(plan).origin)
            assert step.blocked is not None and step.runner is not None
            warnings.append(ResolutionWarning("redirected", None, step.runner, redirect.message or _messages.redirected(
                step.blocked, step.runner, str(redirect.when), chosen=True)))
            return step.runner, None
        _, tried = plan.choice(mask)
        candidates = [r for r, _ in tried if plan.is_candidate(r, mask)]
        if step.kind == "order":
            assert step.runner is not None
            skipped = candidates[: candidates.index(step.runner)]
            if skipped:
                warnings.append(ResolutionWarning("fallback", None, step.runner,
                                                  _fallback(plan, mask, skipped, step.runner, values)))
            return step.runner, None
        if not candidates:
            return None, (NoRunnerError, _messages.no_candidate())
        return None, (NoRunnerError, _no_runner(plan, mask, candidates, warnings, values))
    raise AssertionError("the decision list ends with a step that always holds")  # pragma: no cover


def chosen_redirect(plan: Plan, mask: int) -> Optional[Tuple[str, Redirect]]:
    """Where automatic choice on *mask* reaches a runner whose redirect with ``applies =
    "always"`` holds (a ``redirect`` step decides): that runner and the redirect; else None."""
    if not mask & plan.redirecting:
        return None
    step = next(s for s in plan.steps if s.holds(mask))
    if step.kind != "redirect":
        return None
    assert step.blocked is not None
    return step.blocked, cast("Redirect", step.gate_of(plan).origin)


def _preferred_blocked(plan: Plan, mask: int, feature: Feature, warnings: List[ResolutionWarning],
                       values: Values) -> str:
    """The error of an outright preference whose runner is not free. A matrix's own sentence
    that leaves out ``{feature}`` says only the runner's refusal: the preference is then said
    first, as a warning, as a host that takes its default and then refuses says it (vLLM)."""
    assert feature.prefers is not None
    runner = feature.prefers.runner
    template = _own(plan, "preferred_blocked", runner)
    if template is not None and "feature" not in template.names:
        warnings.append(ResolutionWarning("preference", feature.id, runner, _preference_said(plan, mask, feature,
                                                                                              values)))
    return _messages.preferred_blocked(feature.name, _not_free(plan, mask, runner, values), template,
                                       plan.matrix.runner(runner).name)


def _order_refused(plan: Plan, mask: int, step: Rule, values: Values) -> str:
    """The error of an order without fallback whose first candidate (*step*'s ``blocked``) is
    blocked: the order's name and what blocks the runner, or the matrix's own sentence."""
    order, _ = plan.choice(mask)
    runner = step.blocked
    assert order is not None and runner is not None
    return _messages.order_refused(order.name, blockers(plan, mask, runner, values=values, refusal=True),
                                   _own(plan, "order_refused", runner),
                                   plan.matrix.runner(runner).name)


def _preference_said(plan: Plan, mask: int, feature: Feature, values: Optional[Mapping[str, object]] = None) -> str:
    """The notice of *feature*'s preference: its ``message`` when its runner is taken first
    (free, or the preference is outright), its ``skipped`` when it is passed over, else the
    engine's words. A template that names config paths says them from *values* (by path: a
    list as the entries the condition looks for, `matrix._templates.said`); without *values*
    (a decision shared by every config of the mask) it says the paths as written, and
    `preferences_with_values` says them for one config."""
    prefers = feature.prefers
    assert prefers is not None
    runner = prefers.runner
    name = plan.matrix.runner(runner).name
    passed = not prefers.outright and (bool(mask & plan.blocking[runner]) or not plan.is_candidate(runner, mask))
    text = prefers.skipped if passed else prefers.message
    if text is None:
        return (_messages.preference_skipped(feature.name, name, _not_free(plan, mask, runner, values)) if passed
                else _messages.preferred(feature.name, name))
    from ._templates import looked_for, preference, said

    sentence = "skipped" if passed else "message"
    template = preference(text, sentence)
    parts = {"feature": feature.name, "runner": name}
    if passed:
        names, reasons = _blocked_by(plan, mask, runner, values=values) if mask & plan.blocking[runner] else ([], [])
        parts.update(features=_messages.listing(names + reasons), refusal=_not_free(plan, mask, runner, values))
    shown = {p: "{" + p + "}" if values is None else said(values[p], looked_for(feature.when.node, p))
             for p in template.paths}
    return template.fill(parts, shown)


def preferences_with_values(plan: Plan, mask: int, values: Tuple[object, ...],
                            warnings: Tuple[ResolutionWarning, ...]) -> Tuple[ResolutionWarning, ...]:
    """*warnings* with each ``preference`` notice whose template names config paths saying this
    config's *values* (of the plan's paths, on the config of choice, whose gates are *mask*)."""
    out = []
    read = None
    for w in warnings:
        feature = plan.matrix.feature(w.feature) if w.kind == "preference" and w.feature is not None else None
        prefers = feature.prefers if feature is not None else None
        if prefers is not None and any("{" in t for t in (prefers.message or "", prefers.skipped or "")):
            read = read if read is not None else dict(zip(plan.paths, values))
            w = attrs.evolve(w, message=_preference_said(plan, mask, feature, read))  # type: ignore[arg-type]
        out.append(w)
    return tuple(out)


def _not_free(plan: Plan, mask: int, runner: str, values: Values = None) -> str:
    if mask & plan.blocking[runner]:
        return blockers(plan, mask, runner, values=values)
    return _messages.not_a_candidate(plan.matrix.runner(runner).name)


def requested(plan: Plan, mask: int, runner: str,
              warnings: List[ResolutionWarning]) -> Tuple[_Outcome, Optional[Feature], Redirected]:
    """The runner that serves a request for *runner* (validated by `serve`), or the error, the
    feature that overrode the request, if one did, and the redirect that applied, if one did;
    notices go to *warnings*.

    A former id asks for the runner it names; the first redirect of that runner whose gate is
    active makes it a request for the redirect's runner (one hop; the message names the
    condition here: the resolver, which has the config's values, says those instead when the
    file gives no message). A feature that forces another runner refuses the request, or
    (``override``) replaces it by the forced runner, which is then validated as if it had been
    asked for. A refusal wins over an override whatever their order in the file."""
    matrix = plan.matrix
    said = runner  # as asked: an alias stays an alias in what is said
    runner = former(plan, runner, warnings)
    redirect = redirect_of(plan, mask, runner)
    redirected = None
    if redirect is not None:
        warnings.append(ResolutionWarning("redirected", None, redirect.to, redirect.message or _messages.redirected(
            said, redirect.to, str(redirect.when))))
        redirected, runner = said, redirect.to
    forcing = [f for f in plan.active(mask & plan.forcing) if f.forces is not None and f.forces.runner != runner]
    asked = matrix.runner(runner).name
    for feature in forcing:
        forces = feature.forces
        assert forces is not None
        if not forces.override:
            return (None, (UnsupportedFeatureError, _said(redirected, runner, forces.message or _messages.forced(
                feature.name, matrix.runner(forces.runner).name, asked)))), None, None
    chosen, overriding = runner, None
    for feature in forcing:
        forces = feature.forces
        assert forces is not None
        if forces.runner == chosen:
            continue
        warnings.append(ResolutionWarning("override", feature.id, forces.runner, forces.message or _messages.overridden(
            feature.name, matrix.runner(forces.runner).name, matrix.runner(chosen).name)))
        chosen, overriding = forces.runner, feature
    return (chosen, None), overriding, None if redirected is None else (redirected, runner)


def _said(redirected: Optional[str], to: str, refusal: str) -> str:
    """A refusal of a request, saying the redirect that made it a request for *to*."""
    return refusal if redirected is None else _messages.redirected_refused(redirected, to, refusal)


def asked(plan: Plan, runner: str) -> None:
    """Refuse a request for *runner* that names no runner: an unknown id, or a former id removed
    at the plan's version (`UsageError`)."""
    if runner in plan.no:
        return
    alias = plan.aliases.get(runner) if isinstance(runner, str) else None
    if alias is None:
        plan.matrix.runner(runner)  # raises UsageError, naming the known runners
        return
    d = alias.deprecation
    if d.is_removed(plan.version):
        assert d.remove_in is not None
        raise UsageError(_messages.removed_alias(alias.id, alias.runner, str(d.remove_in), d.message))


def redirect_of(plan: Plan, mask: int, runner: str) -> Optional[Redirect]:
    """The redirect that applies to a request for *runner* (by its id): the first in force whose
    gate is active in *mask*."""
    for bit, redirect in plan.redirects.get(runner, ()):
        if mask & bit:
            return redirect
    return None


def deprecation_words(feature: Feature, name: Optional[str] = None) -> str:
    """The words of *feature*'s ``deprecated`` warning (said by *name*, its own by default)."""
    d = _deprecation(feature)
    return _messages.deprecated(name or feature.name, str(d.since), _str(d.remove_in), d.replacement, d.message)


def removal_words(feature: Feature, name: Optional[str] = None) -> str:
    """The words *feature*'s removal refuses a config with (said by *name*, its own by default)."""
    d = _deprecation(feature)
    return _messages.removed(name or feature.name, str(d.remove_in), d.replacement, d.message)


def _str(value: object) -> Optional[str]:
    return None if value is None else str(value)


def named(matrix: Matrix, runner: object) -> Any:
    """The runner a request for *runner* names: itself, or the runner the former id *runner*
    stands for now (`former` says its warning too). The one place that reads a former id: a
    request, a redirect's source, a role's field and the remedies' request all read it so."""
    alias = matrix.alias(runner)  # type: ignore[arg-type]  # None for a value that is no str
    return runner if alias is None else alias.runner


def former(plan: Plan, runner: str, warnings: List[ResolutionWarning]) -> str:
    """The runner a request for *runner* names (`named`), with its ``deprecated-alias`` warning
    added to *warnings* from the alias's ``since`` on where *runner* is a former id (`asked`
    has refused a removed one). Its message, a template of config paths, is said as written
    here (a decision shared by every config): the resolver says this config's values
    (`alias_said`)."""
    to: str = named(plan.matrix, runner)
    if to == runner:
        return runner
    d = plan.aliases[runner].deprecation
    assert not d.is_removed(plan.version), "asked() refuses a removed alias"
    if plan.version >= d.since:
        warnings.append(ResolutionWarning("deprecated-alias", None, to, _messages.deprecated_alias(
            runner, to, str(d.since), _str(d.remove_in), d.message)))
    return to


def alias_said(plan: Plan, runner: str, read: Any, warnings: Tuple[ResolutionWarning, ...]
               ) -> Tuple[ResolutionWarning, ...]:
    """*warnings* with the ``deprecated-alias`` one of a request for former id *runner* whose
    message names config paths saying the values *read* gives (path → value: the config of
    choice's, issue 30 F7)."""
    alias = plan.aliases.get(runner)
    if alias is None or alias.deprecation.message is None:
        return warnings
    text = alias.deprecation.message
    if "{" not in text and "}" not in text:
        return warnings
    from ._templates import filled

    d = alias.deprecation
    sentence = _messages.deprecated_alias(alias.id, alias.runner, str(d.since), _str(d.remove_in), filled(text, read))
    return tuple(attrs.evolve(w, message=sentence) if w.kind == "deprecated-alias" else w for w in warnings)

