"""Resolution: which features a config uses, what each runner cannot do, which runner to use.

All answers are read off the compiled plan of the matrix (`matrix._compile`): one evaluation
of every gate in force (never stopping at the first) gives a mask of active gates, and
:func:`resolve`, :func:`is_supported` and :func:`iter_observations` (the same facts, one by one,
for tools built on ``matrix``) each read that mask.
"""

from __future__ import annotations

import functools
import threading
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional, Sequence, Set, Tuple, Union, get_args

import attrs
from packaging.version import Version

from . import _messages
from . import _access, _choice, _derived, _stages
from ._choice import WARNING_KINDS, ResolutionWarning, WarningKind
from ._compile import Plan, plan
from ._record import Model
from ._versions import VersionLike, as_version
from .errors import AdjustmentError, ConfigError, NoRunnerError, ResolutionError, UnsupportedFeatureError, UsageError
from .predicates import Predicate
from .schema import Feature, Matrix, Order, Redirect, Requirement, Runner, Statement, Status, asked_only

if TYPE_CHECKING:  # pragma: no cover
    import logging

    from ._adjust import Adjusted, Said
    from ._remedy import Remedies

__all__ = [
    "Observation",
    "ObservationKind",
    "OBSERVATION_KINDS",
    "Adjusted",
    "Resolution",
    "ResolutionWarning",
    "WarningKind",
    "WARNING_KINDS",
    "iter_observations",
    "resolve",
    "is_supported",
    "as_version",
]


def __dir__() -> List[str]:
    return __all__


def __getattr__(name: str) -> Any:
    # matrix._adjust, imported where an adjustment may apply: a resolve where none can, and
    # `import matrix`, do without it and its class (issue 29, cold start).
    if name == "Adjusted":
        from ._adjust import Adjusted

        return Adjusted
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The level `Resolution.emit` logs a kind at when not told otherwise (WARNING for the others).
_DEFAULT_LEVELS = {"override": 20, "preference": 20}  # logging.INFO, without importing logging here


#: What an `Observation` says of its feature.
ObservationKind = Literal["active", "deprecated", "removed", "status"]
OBSERVATION_KINDS: Tuple[ObservationKind, ...] = get_args(ObservationKind)


@attrs.frozen(eq=False, repr=False)
class Observation(Model):
    """One thing observed about a config: a feature is ``active``, ``deprecated`` or
    ``removed``, or a runner's ``status`` for an active feature is not ``yes``. (A finding of
    ``matrix check`` is about the matrix; an observation is about one config.)"""

    kind: ObservationKind
    feature: Feature
    runner: Optional[str] = None
    status: Optional[Status] = None
    # A runner requirement the config fails is a ``status`` observation of ``no`` on the gate
    # derived from it (`Feature.origin` is the `Requirement`; its name is the reason).


def _plan(matrix: Matrix, version: Optional[VersionLike]) -> Plan:
    """The plan for the version argument as given (None, a string or a `Version`), kept
    under that argument too (`matrix._derived`) so that a repeated call costs one look-up."""
    plans = _derived.of(matrix).plans
    try:
        found: Plan = plans[version]
        return found
    except (KeyError, TypeError):
        pass
    compiled = plan(matrix, matrix.release(version))  # past the file's newest release: an error
    if isinstance(version, (str, Version, type(None))):
        plans[version] = compiled
    return compiled


def iter_observations(matrix: Matrix, config: object, *, version: Optional[VersionLike] = None,
                      facts: Optional[Mapping[str, object]] = None) -> Iterator[Observation]:
    """Evaluate every gate in force at *version* against *config*, yielding what holds. The
    config is read as given: adjustments are not applied (`resolve` says the effective config).

    :raises ConfigError: naming the path and the feature whose gate read it.
    """
    compiled = _plan(matrix, version)
    mask, _ = compiled.evaluate(config, facts)
    v = compiled.version
    for gate in compiled.active(mask & ~compiled.feature_bits):
        if isinstance(gate.origin, Requirement):  # a requirement the config fails
            yield Observation("status", gate, gate.origin.runner, "no")
    for feature in compiled.active(mask & compiled.feature_bits):
        yield Observation("active", feature)
        deprecation = feature.deprecated
        if deprecation is not None and v >= deprecation.since:
            yield Observation("removed" if deprecation.is_removed(v) else "deprecated", feature)
        for runner in matrix.runners:
            status = feature.status(runner.id, v)
            if status != "yes":
                yield Observation("status", feature, runner.id, status)


_NO_ROLES: Mapping[str, Optional[str]] = MappingProxyType({})

_EMITTED: Set[Tuple[str, Optional[str], Optional[str], str]] = set()
_EMIT_LOCK = threading.Lock()


class Resolution:
    """The answer for one config: a frozen value (its errors carry it too).

    ``runner`` is the chosen runner id (None on the `Resolution` an error carries),
    ``requested`` the runner asked for, ``version`` the version resolved at, ``warnings`` the
    `ResolutionWarning` values; ``active`` (features, in declaration order) and
    ``unsupported`` (runner id → features whose status there is ``no`` or ``opt-in``) are
    worked out from the gate mask when read. Equal when everything said is equal; copies,
    deep copies and pickles are equal values (a pickle carries the matrix, not the compiled
    plan, which is compiled again where it is read).
    """

    # One slot holding a tuple: building a Resolution is then one object and one tuple, the
    # cheapest frozen value in CPython (resolve() runs at the speed of an if chain; see
    # benchmarks/). Fields of the tuple: runner, requested, warnings, plan, mask, values (of the
    # effective config F), the config and facts as given, then the adjusting: None when no
    # adjustment changed anything (C = F = the config), else ``(served runner, mask and values of
    # C, Adjusted records, paths set → values on F)``; the served runner is None on an error's,
    # where F is C after the forced runner's adjustments when no runner is free (`_choice.forced`).
    __slots__ = ("_fields",)

    _fields: Tuple[Any, ...]

    def __init__(self, plan: Plan, mask: int, values: Tuple[object, ...], runner: Optional[str],
                 requested: Optional[str], warnings: Tuple[ResolutionWarning, ...], config: object = None,
                 facts: Optional[Mapping[str, object]] = None, adjusting: Optional[Tuple[Any, ...]] = None) -> None:
        _set_fields(self, (runner, requested, warnings, plan, mask, values, config, facts, adjusting))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("A Resolution is read-only")

    __delattr__ = __setattr__  # type: ignore[assignment]

    runner = property(lambda self: self._fields[0], doc="The chosen runner id (the base role's), or None")
    roles = property(lambda self: _NO_ROLES, doc="Role id → its runner id (or None), in declaration order: empty "
                                                  "for a matrix without [roles] (`matrix._roles`)")
    role_refusal = property(lambda self: None, doc="Where the runner filling a role other than the base "
                                                   "refused the config (an error's resolution: role, runner, "
                                                   "reason; `matrix._roles`), or None")
    staged_refusal = property(lambda self: None, doc="Where a staged requirement refused (an error's resolution: "
                                                     "stage, runner, requirements, reasons, kind; `matrix._staged`), "
                                                     "or None")
    requested = property(lambda self: self._fields[1], doc="The runner asked for, or None")
    warnings = property(lambda self: self._fields[2], doc="The warnings to show, in order")
    _plan = property(lambda self: self._fields[3])
    _mask = property(lambda self: self._fields[4])
    _values = property(lambda self: self._fields[5])
    _adjusting = property(lambda self: self._fields[8])

    @property
    def adjustments(self) -> Tuple[Adjusted, ...]:
        """The paths adjustments changed, one `Adjusted` per path, in the order applied (those
        applied before the choice first: see `matrix._adjust`)."""
        adjusting = self._adjusting
        return () if adjusting is None else adjusting[3]

    @property
    def effective(self) -> Mapping[str, object]:
        """The effective config F (a read-only mapping): every ``[config]`` path at the version
        (sections left out) with the value the runner sees, the paths adjustments set with
        their value, the others read through to the config as given."""
        found = self._fields[6] if isinstance(self._fields[6], FrozenEffective) else None
        if found is not None:
            return found
        plan: Plan = self._plan
        adjusting = self._adjusting
        view = _access.Effective(self._fields[6], {} if adjusting is None else dict(adjusting[4]))
        schema, facts = plan.reading, self._fields[7]
        values: Dict[str, object] = {}
        for f in plan.matrix.schema.at(plan.version):
            if f.type != "section":
                try:
                    values[f.path] = _access.read(view, f.path, schema, facts)
                except ConfigError as error:
                    # A path of an object that lacks it, and that no rule in force read (resolve
                    # would have refused it): left out, neither a made-up default nor an error.
                    if f.path in view.sets or not _access.lacks(view, error.path):
                        raise
        return FrozenEffective(values)

    def _mask_of(self, runner: str) -> int:
        """The mask a runner's statuses read: F for the runner that serves, C for the others."""
        adjusting = self._adjusting
        if adjusting is None or adjusting[0] == runner:
            return self._mask  # type: ignore[no-any-return]
        return adjusting[1]  # type: ignore[no-any-return]

    def _values_of(self, runner: str) -> Mapping[str, object]:
        adjusting = self._adjusting
        values = self._values if adjusting is None or adjusting[0] == runner else adjusting[2]
        return dict(zip(self._plan.paths, values))

    def _given(self) -> Mapping[str, object]:
        """The values the gates read on the config as given, before any adjustment: what a
        remedy changes (on a resolution restored from a pickle, F with each adjusted path as the
        first adjustment found it)."""
        adjusting = self._adjusting
        if adjusting is None:
            return self.values
        config = self._fields[6]
        if isinstance(config, FrozenEffective):
            values = dict(self.values)
            for adjusted in reversed(adjusting[3]):
                if adjusted.path in values:
                    values[adjusted.path] = adjusted.before
            return values
        return dict(zip(self._plan.paths, self._plan.evaluate(config, self._fields[7])[1]))

    def _given_config(self) -> Dict[str, Any]:
        """The config as given, as a plain table of every ``[config]`` field at the version
        (facts too): what a remedy search starts from. It changes only the paths the gates read;
        every other value (a role's field, a path only an adjustment or a role's requirement
        reads) stays as given, so that each candidate resolved is the user's config changed."""
        from ._space import json_value

        plan: Plan = self._plan
        config = self._fields[6]
        schema, facts = plan.reading, self._fields[7]
        fields = [f for f in plan.matrix.schema.at(plan.version) if f.type != "section"]
        if isinstance(config, FrozenEffective):  # restored from a pickle: F, adjusted paths put back
            values = dict(config)
            for adjusted in reversed(self.adjustments):
                values[adjusted.path] = adjusted.before
            read = [(f.path, values[f.path]) for f in fields if f.path in values and values[f.path] is not None]
        else:
            read = []
            for f in fields:
                try:
                    read.append((f.path, _access.read(config, f.path, schema, facts)))
                except ConfigError:
                    continue  # a path the host's object lacks, that no rule in force read
        out: Dict[str, Any] = {}
        for path, value in read:
            holder: Optional[Dict[str, Any]] = out
            prefix = ""
            for part in path.split(".")[:-1]:
                prefix = f"{prefix}.{part}" if prefix else part
                inner = holder.get(part) if holder is not None else None
                if inner is None and holder is not None and part not in holder:
                    section = None if isinstance(config, FrozenEffective) else _section_of(config, prefix, schema, facts)
                    inner = holder[part] = {} if section is not False else None
                holder = inner if isinstance(inner, dict) else None
            if holder is not None:
                # As the config holds it, not as JSON does: an infinite float stays a float
                # (JSON's text of it, '-inf', is a str, which the float field refuses).
                holder[path.rpartition(".")[2]] = json_value(value)
        return out

    def _given_value(self, path: str) -> object:
        """The value of *path* in the config as given (on a resolution restored from a pickle, F's,
        which is the config's where no adjustment set it)."""
        config = self._fields[6]
        if isinstance(config, FrozenEffective):
            return config.get(path)
        return _access.read(config, path, self._plan.reading, self._fields[7])

    def _in_role_refused(self, data: Dict[str, Any], roles: Tuple[Any, ...]) -> Resolution:
        """This resolution, saying that the runner filling a role refused the config (`role_refusal`)
        and the *roles* as they stood (`matrix._roles` calls it: it cannot import this module)."""
        return _refused_as(_RoleRefusedResolution, self, data, roles)

    def __copy__(self) -> Resolution:
        return self

    def __deepcopy__(self, memo: Dict[int, object]) -> Resolution:
        return self

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        runner, requested, warnings, plan, mask, values, _, _, adjusting = self._fields
        # Sections read as a whole are the host's objects: a pickle keeps what is said of them,
        # and the effective config as plain values.
        plain = tuple(_plain(v) for v in values)
        if adjusting is not None:
            served, cmask, cvalues, adjusted, sets, rerouted = adjusting
            if rerouted is not None:
                rerouted = (rerouted[0], {p: _plain(v) for p, v in rerouted[1].items()})
            adjusting = (served, cmask, tuple(_plain(v) for v in cvalues), adjusted,
                         {p: _plain(v) for p, v in sets.items()}, rerouted)
        effective = FrozenEffective({p: _plain(v) for p, v in self.effective.items()})
        return (_restored, (plan.matrix, str(plan.version), mask, plain, runner, requested, warnings, effective,
                            adjusting))

    @property
    def version(self) -> Version:
        plan: Plan = self._plan
        return plan.version

    @property
    def matrix(self) -> Matrix:
        plan: Plan = self._plan
        return plan.matrix

    @property
    def active(self) -> Tuple[Feature, ...]:
        """The active features, in declaration order (worked out from the mask on access)."""
        plan: Plan = self._plan
        return plan.active(self._mask & plan.feature_bits)

    @property
    def unsupported(self) -> Mapping[str, Tuple[Feature, ...]]:
        """Runner id → the active features whose status there is ``no`` or ``opt-in``, then the
        runner's requirements the config fails (gates whose name is the reason: `Feature.origin`
        is the `Requirement`)."""
        plan = self._plan
        return {r: plan.active(self._mask_of(r) & block) for r, block in plan.order}

    @property
    def failed(self) -> Mapping[str, Tuple[Requirement, ...]]:
        """Runner id → the requirement clauses of the runner the config fails, in the order of
        the kinds (the same as the tail of `unsupported`, as what they are)."""
        plan = self._plan
        return {r: tuple(g.origin for g in plan.active(self._mask_of(r) & block) if isinstance(g.origin, Requirement))
                for r, block in plan.order}

    @property
    def values(self) -> Mapping[str, object]:
        """The config values the gates read, by path (on the effective config)."""
        return dict(zip(self._plan.paths, self._values))

    def __repr__(self) -> str:
        return (f"Resolution(runner={self.runner!r}, version={str(self.version)!r}, "
                f"active={[f.id for f in self.active]!r}, requested={self.requested!r}, "
                f"warnings={len(self.warnings)})")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Resolution):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:  # of what equality compares (`to_dict`)
        return hash((self.matrix.name, str(self.version), self.runner, self.requested,
                     tuple(f.id for f in self.active), self.warnings, self.adjustments))



    def to_dict(self) -> Dict[str, Any]:
        """A JSON-ready dict with stable keys. ``requested`` is the runner id as asked (a former
        id stays one); ``redirected`` is None, or the redirect that applied: ``from`` and ``to``
        (runner ids), ``when`` and ``because`` (the values its condition read)."""
        version = self.version
        return {
            "matrix": self.matrix.name,
            "version": str(version),
            "requested": self.requested,
            "runner": self.runner,
            "redirected": self._redirect_data(),
            "active": self._active_data(),
            "unsupported": {
                runner: [{"id": f.id, "name": f.name, "status": f.status(runner, version)}
                         for f in features]
                for runner, features in self.unsupported.items()
            },
            "warnings": self._warnings_data(),
            "adjustments": self._adjustments_data(),
            "effective": {p: _json_value(v) for p, v in self.effective.items()},
        }

    @property
    def redirect(self) -> Optional[Redirect]:
        """The redirect that made the request one for another runner (None: none did; a config
        refused before the request is considered, for a removed feature, has none)."""
        if not any(w.kind == "redirected" for w in self.warnings):
            return None
        adjusting = self._adjusting  # decided on the config of choice
        if adjusting is not None and adjusting[5] is not None:  # at a stage after the choice (issue 30, F6)
            return adjusting[5][0]  # type: ignore[no-any-return]
        mask = self._mask if adjusting is None else adjusting[1]
        if self.requested is None:  # a redirect with applies = "always" of the runner automatic choice took
            found = _choice.chosen_redirect(self._plan, mask)
            return None if found is None else found[1]
        return _redirect(self._plan, mask, self.requested)

    def _asked(self) -> Optional[str]:
        """The runner the request was for once its alias and its redirect are applied (the one
        validated as asked for), or None in automatic choice."""
        if self.requested is None:
            return None
        redirect = self.redirect
        if redirect is not None:
            return redirect.to
        return _choice.named(self.matrix, self.requested)  # type: ignore[no-any-return]

    def _redirect_data(self) -> Optional[Dict[str, Any]]:
        redirect = self.redirect
        if redirect is None:
            return None
        if redirect.stage is not None:  # the values its condition read at its stage (issue 30, F6)
            return {"from": redirect.runner, "to": redirect.to, "when": str(redirect.when),
                    "because": {p: _json_value(v) for p, v in self._adjusting[5][1].items()}, "stage": redirect.stage}
        return {"from": redirect.runner, "to": redirect.to, "when": str(redirect.when),
                "because": {p: _json_value(v) for p, v in _because(redirect, self._values_of(redirect.runner)).items()}}

    def _adjustments_data(self) -> List[Dict[str, Any]]:
        return [{"id": a.id, "runner": a.runner, "path": a.path, "before": _json_value(a.before),
                 "after": _json_value(a.after), "message": a.message, "level": a.level,
                 "overrode_user": a.overrode_user} for a in self.adjustments]

    def _active_data(self) -> List[Dict[str, Any]]:
        return [{"id": f.id, "name": f.name} for f in self.active]

    def _warnings_data(self) -> List[Dict[str, Any]]:
        return [{"kind": w.kind, "feature": w.feature, "runner": w.runner, "message": w.message,
                 **({"level": w.level} if w.level is not None else {})}
                for w in self.warnings]

    def _choice(self) -> Tuple[Optional[Order], List[Runner], Set[str]]:
        """The order of automatic choice that applied (None: by priority), every runner in that
        order, and the ids of those that are candidates."""
        plan: Plan = self._plan
        adjusting = self._adjusting
        mask = self._mask if adjusting is None else adjusting[1]  # the choice was made on C
        order, every = plan.choice(mask)
        return order, [self.matrix.runner(r) for r, _ in every], {r for r, _ in every if plan.is_candidate(r, mask)}

    def _said(self, gate: Feature, runner: str) -> str:
        """A blocker of *runner* as said of this config: a failed requirement's reason with the
        values it was read on (issue 30, F7), a feature by its name."""
        if isinstance(gate.origin, Requirement):
            return _choice.reason(self._plan, gate, self._values_of(runner))
        return gate.name

    def _reports(self) -> Iterator[Tuple[Runner, bool, List[Tuple[Feature, Statement, List[str]]]]]:
        """Per runner, in the order automatic choice tried them: the runner, whether it was a
        candidate, and its blockers as ``(gate, statement in force, paths its gate read)``
        (for the runner asked for, only what it does not support at all: an opt-in asked for
        is not a blocker). A requirement the config fails is a gate whose `Feature.origin` is
        the `Requirement`."""
        _, runners, candidates = self._choice()
        unsupported = self.unsupported
        for runner in runners:
            values = self._values_of(runner.id)
            blockers = unsupported[runner.id]
            if self._asked() == runner.id:
                blockers = tuple(f for f in blockers if f.status(runner.id, self.version) == "no")
            yield runner, runner.id in candidates, [
                (feature, feature.statement(runner.id, self.version),
                 [p for p in sorted(_read(feature).paths) if p in values])
                for feature in blockers]

    def explanation(self, *, remedies: bool = True) -> Dict[str, Any]:
        """Why this runner, as JSON-ready data (`explain` is its text): how the runner was
        chosen, the feature that overrode the request (``overridden_by``) and the one that put
        the chosen runner first (``preferred_by``), the order of automatic choice that applied
        (None: by priority) and every order the matrix declares (``orders``), and per runner (in
        the order tried) whether it was a candidate (and when it is one: ``candidate_when``)
        and chosen, and its blockers, each with its status, note, gate, and the config values
        that made the gate true (``because``; a section read as a whole shows as
        ``"<section>"``); a failed requirement has ``requirement`` (its kind and condition).
        A request by a former id names the runner it is an alias of (``alias_of``); a
        redirected request has ``how`` ``redirected`` and ``redirected`` as `to_dict` gives it.
        Then the active features, the warnings and the adjustments, as `to_dict` gives them, and
        the remedies (`remedies`, each as `matrix.Remedies.to_dict` gives it; an empty list with
        *remedies* False, for a caller that does not show them: the search resolves many configs)."""
        from . import _overlay_origin as _origin  # imported when an explanation is asked for: a resolve needs none

        order = self._choice()[0]
        overrider, preferrer = self._overrider(), self._preferrer()
        redirected = self._redirect_data()
        alias = self.matrix.alias(self.requested) if self.requested is not None else None
        return {
            "runner": self.runner,
            "requested": self.requested,
            "how": ("overridden" if overrider else "redirected" if redirected else "requested" if self.requested
                    else "preferred" if preferrer else "automatic"),
            "alias_of": None if alias is None else alias.runner,
            "redirected": redirected,
            "overridden_by": _feature_data(overrider),
            "preferred_by": _feature_data(preferrer),
            "order": None if order is None else _order_data(order),
            "orders": [_order_data(o) for o in self.matrix.orders],
            "version": str(self.version),
            "runners": [
                {"id": runner.id, "name": runner.name, "priority": runner.priority, "candidate": candidate,
                 "candidate_when": None if runner.candidate is None else str(runner.candidate),
                 "chosen": runner.id == self.runner,
                 "blockers": [{"id": f.id, "name": self._said(f, runner.id), "status": statement.status,
                               "note": statement.note,
                               "when": str(f.when),
                               "because": {p: _json_value(self._values_of(runner.id)[p]) for p in read},
                               **({"requirement": {"kind": f.origin.kind, "condition": str(f.origin.condition)}}
                                  if isinstance(f.origin, Requirement) else {}),
                               **_origin.blocker(self.matrix, f.id, runner.id, self.version)}
                              for f, statement, read in blockers],
                 **_origin.of_runner(self.matrix, runner.id, [f for f in self.active if f not in
                                                               {b for b, _, _ in blockers}], self.version)}
                for runner, candidate, blockers in self._reports()
            ],
            "active": self._active_data(),
            "warnings": self._warnings_data(),
            "adjustments": [dict(a, **_origin.adjustment(self.matrix, a["id"], a["runner"])) if self.matrix.overlay is not None
                            else a for a in self._adjustments_data()],
            "remedies": [r.to_dict() for r in self.remedies()] if remedies else [],
        }

    def remedy(self, runner: str, *, limit: Optional[int] = None, budget: Optional[int] = None) -> Remedies:
        """The smallest changes to this config that make *runner* serve it: asked for, when a
        runner was asked for here, else chosen automatically (`matrix._remedy` states the
        rules). Worked out on each call: it resolves many configs.

        :param limit: the most paths a remedy may change (3 by default).
        :param budget: the most candidate configs the search reads, weighed by the gates or resolved (15,000 by default).
        :raises UsageError: *runner* is not a runner of the matrix.
        """
        from . import _remedy

        self.matrix.runner(runner)
        return _remedy.search(self._plan, self._given(), runner, asked=self.requested is not None, resolve=resolve,
                              given=self._given_config(),
                              limit=_remedy.LIMIT if limit is None else limit,
                              budget=_remedy.BUDGET if budget is None else budget)

    def report(self, *, remedies: bool = True) -> Dict[str, Any]:
        """The five answers of vLLM's RFC #57649 as JSON-ready data (``matrix/report.schema.json``;
        `matrix._report` states each key): ``supported``, ``effective`` (the runner and the
        settings adjustments changed), ``action`` (``refuse``, ``redirect``, ``fall-back``,
        ``adjust`` or ``run``: the first that happened, in that order; ``actions`` lists them),
        ``why`` (each deciding rule: id, predicate, the values it read, ``file:line``) and
        ``remedy`` (`remedies`; an empty list with *remedies* False). Worked out on each call.
        """
        from . import _report

        return _report.report(self, remedies=remedies, json_value=_json_value)

    def remedies(self) -> Tuple[Remedies, ...]:
        """The remedies worth saying: for the runner asked for when it does not serve; for
        the runner automatic choice chose when it then refused the config (its own adjustments,
        or a requirement staged after the choice: an `AdjustmentError`); for every runner when
        automatic choice found none (none where a requirement staged before the choice refused
        the config, whatever the runner); else for the runner automatic choice would have taken
        first (a preference passed over, or the first of the order tried) when another was
        chosen; else none."""
        adjusting = self._adjusting
        if adjusting is not None and adjusting[5] is not None:
            return ()  # a redirect at a stage applied, whose condition is no gate the search varies (issue 30, F6)
        return tuple(self.remedy(r) for r in _remedy_targets(self))

    def _overrider(self) -> Optional[Feature]:
        """The feature that overrode the runner asked for, if one did."""
        return self._warned("override")

    def _preferrer(self) -> Optional[Feature]:
        """The feature that put the chosen runner first in automatic choice, if one did (a notice
        of a preference passed over may name the same runner, reached after it: `passed_over`)."""
        feature = next((w.feature for w in self.warnings if w.kind == "preference" and w.runner == self.runner
                        and w.feature is not None and not self.passed_over(w.feature)), None)
        return None if feature is None else self.matrix.feature(feature)

    def passed_over(self, feature: str) -> bool:
        """Whether automatic choice passed over the preference of *feature* (not outright, its
        runner not free on the config of choice): its ``preference`` warning is then a notice,
        never the preference that chose, whichever runner is reached after it (a redirect that
        applies always may lead to that very runner)."""
        prefers = self.matrix.feature(feature).prefers
        if prefers is None or prefers.outright:
            return False
        plan: Plan = self._plan
        adjusting = self._adjusting
        mask = self._mask if adjusting is None else adjusting[1]  # the choice was made on C
        return bool(mask & plan.blocking[prefers.runner]) or not plan.is_candidate(prefers.runner, mask)

    def _warned(self, kind: str, runner: Optional[str] = None) -> Optional[Feature]:
        feature = next((w.feature for w in self.warnings if w.kind == kind and (runner is None or w.runner == runner)),
                       None)
        return None if feature is None else self.matrix.feature(feature)

    def explain(self) -> str:
        """Why this runner, as text: `explanation` rendered. The order automatic choice
        followed, every runner's blockers (the features it does not support, with the gate and
        the values that made it true; the requirements the config fails, with the condition and
        the values), then the active features and the warnings."""
        values = {r.id: self._values_of(r.id) for r in self.matrix.runners}
        # A runner an overlay removed from choice is said so, not "a candidate when False".
        removed = {}
        if self.matrix.overlay is not None:
            from . import _overlay_origin as _origin  # imported when an explanation is asked for

            removed = {r.id: _origin.removed(self.matrix, r.id) for r in self.matrix.runners}
        from ._adjust import when_said

        adjusted = self.adjustments
        return _explanation_text(self.explanation(), values, adjusted, removed,
                                 tuple(when_said(self.matrix, a) for a in adjusted))

    def emit(self, logger: Optional[logging.Logger] = None, *,
             levels: Optional[Mapping[str, int]] = None, once: bool = True) -> None:
        """Log each warning, once per process (thread-safe) like vLLM's ``warning_once``.

        Each kind has its own logger below *logger* (default ``matrix``): ``matrix.deprecated``,
        ``matrix.fallback``, ``matrix.opt-in``, ``matrix.partial``, ``matrix.override``,
        ``matrix.preference``, ``matrix.deprecated-alias``, ``matrix.redirected``, ``matrix.adjusted``,
        ``matrix.deprecated-runner``, so a host routes, raises or silences one kind with the standard
        `logging` module. Every kind logs at WARNING, but ``override`` (a forced runner overriding
        a request) and ``preference`` (a feature choosing the runner to try first), which vLLM logs
        at INFO, and ``adjusted``, logged at the adjustment's own level (``info``: INFO), unless
        *levels* (kind → level) says otherwise. Records carry ``matrix_kind``,
        ``matrix_feature`` and ``matrix_runner`` for filters and formatters.

        :param once: False logs every time, not once per process.
        """
        import logging

        base = logging.getLogger("matrix") if logger is None else logger
        if levels is not None and not isinstance(levels, Mapping):
            raise UsageError(_messages.levels_not_a_mapping(levels))
        if not isinstance(once, bool):
            raise UsageError(_messages.not_a_bool_argument("once", once))
        chosen = dict(levels or {})
        unknown = sorted(set(chosen) - set(WARNING_KINDS), key=str)
        if unknown:
            raise UsageError(_messages.unknown_choice("warning kind", str(unknown[0]), WARNING_KINDS, one_of=True))
        for kind, level in chosen.items():
            if not isinstance(level, int) or isinstance(level, bool):
                raise UsageError(_messages.bad_log_level(kind, level))
        for warning in self.warnings:
            if once:
                key = (warning.kind, warning.feature, warning.runner, warning.message)
                with _EMIT_LOCK:
                    if key in _EMITTED:
                        continue
                    _EMITTED.add(key)
            default = logging.INFO if warning.level == "info" else _DEFAULT_LEVELS.get(warning.kind, logging.WARNING)
            base.getChild(warning.kind).log(
                chosen.get(warning.kind, default), "%s", warning.message,
                extra={"matrix_kind": warning.kind, "matrix_feature": warning.feature,
                       "matrix_runner": warning.runner})



_set_fields = vars(Resolution)["_fields"].__set__  # the slot's own setter: the class refuses setattr
_new = object.__new__


class _Section:
    """A section the gates read as a whole, in a Resolution that crossed a pickle."""

    def __repr__(self) -> str:
        return "<section>"

    def __reduce__(self) -> str:
        return "_SECTION"


_SECTION = _Section()


def _plain(value: object) -> object:
    """A config value as a pickle keeps it: scalars and versions as they are, lists as tuples,
    anything else (a section read as a whole: the host's object) as what explain() shows."""
    if value is None or isinstance(value, (bool, int, float, str, Version)):
        return value
    if isinstance(value, (tuple, list)):
        items = tuple(_plain(v) for v in value)
        return items if _SECTION not in items else _SECTION
    return _SECTION


def _section_of(config: object, section: str, schema: Any, facts: Optional[Mapping[str, object]]) -> bool:
    """Whether *section* is present in *config* as given (False: it is None)."""
    try:
        return _access.read(config, section, schema, facts) is not None
    except ConfigError:
        return False


class FrozenEffective(Dict[str, object]):
    """The effective config as a read-only mapping (`Resolution.effective`)."""

    def _refuse(self, *args: object, **kwargs: object) -> None:
        raise TypeError("The effective config is read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse  # type: ignore[assignment]

    def __reduce__(self) -> Tuple[Any, ...]:
        return (FrozenEffective, (dict(self),))


def _restored(matrix: Matrix, version: str, mask: int, values: Tuple[object, ...], runner: Optional[str],
              requested: Optional[str], warnings: Tuple[ResolutionWarning, ...],
              effective: Optional[FrozenEffective] = None, adjusting: Optional[Tuple[Any, ...]] = None) -> Resolution:
    return Resolution(_plan(matrix, version), mask, values, runner, requested, warnings, effective, None, adjusting)


def _remedy_targets(resolution: Resolution) -> List[str]:
    """The runners `Resolution.remedies` answers for."""
    chosen, requested = resolution.runner, resolution.requested
    if requested is not None:
        requested = _choice.named(resolution.matrix, requested)  # asked for by a former id: the runner it names
        return [] if chosen == requested else [requested]
    tried = [r.id for r in resolution._choice()[1]]
    if chosen is None:
        refused = resolution.staged_refusal  # outside roles (in a role: `_Refused._base_remedies`)
        if refused is not None:
            # After the choice, the runner chosen; before it, none: no runner is known yet, and
            # the refusal is every runner's (a search for each, minutes on SGLang's 23 backends).
            return [] if refused["runner"] is None else [refused["runner"]]
        adjusting = resolution._adjusting
        if adjusting is not None and adjusting[0] is not None and resolution.redirect is None:
            return [adjusting[0]]  # chosen, then refused by its own adjustments: an AdjustmentError
        return tried + [r.id for r in resolution.matrix.runners if r.id not in tried]
    preferred = [w.runner for w in resolution.warnings if w.kind == "preference"]
    if chosen in preferred:
        return []  # a preference put it first: automatic choice took it first
    first = preferred[0] if preferred and preferred[0] is not None else tried[0]  # one passed over, else the order's
    return [] if first == chosen else [first]


def _feature_data(feature: Optional[Feature]) -> Optional[Dict[str, str]]:
    return None if feature is None else {"id": feature.id, "name": feature.name}


def _order_data(order: Order) -> Dict[str, object]:
    data: Dict[str, object] = {"id": order.id, "name": order.name, "when": str(order.when)}
    if not order.fallback:  # said only where it is so: the data of every other order is as it was
        data["fallback"] = False
    return data


def _explanation_text(data: Mapping[str, Any], by_runner: Mapping[str, Mapping[str, object]],  # noqa: C901 — one branch per part of the explanation, in the order the text prints them
                      adjusted: Tuple[Adjusted, ...] = (), removed: Optional[Mapping[str, Optional[str]]] = None,
                      when: Sequence[str] = ()) -> str:
    """`Resolution.explain`'s text from `Resolution.explanation`'s *data*. A value read shows
    as Python spells it, from *by_runner* (runner id → the values its statuses read) at the
    paths ``because`` names, and so do the *adjusted* values: JSON cannot tell a section from
    the text ``'<section>'``, nor inf from ``'inf'``; *when*: when each applied, in words."""
    requested = data["requested"]
    how = f"asked for {requested!r}" if requested else "chosen automatically"
    if data["alias_of"] is not None:
        how += f" (a former id of {data['alias_of']!r})"
    redirected = data["redirected"]
    if redirected is not None:
        read = by_runner[redirected["from"]]  # the config of choice: the redirect's runner does not serve
        if "stage" in redirected:  # at a stage after the choice (issue 30, F6): the values read there
            read = redirected["because"]
        shown = ", ".join(f"{p} = {_show(read[p])}" for p in redirected["because"])
        # applies = "always" (chosen, then redirected), or a redirect at a stage: from the runner that served
        start = "" if requested and "stage" not in redirected else f" from {redirected['from']!r}"
        at = f" at stage {redirected['stage']!r}" if "stage" in redirected else ""
        how += f", redirected{start} to {redirected['to']!r}{at}: {shown}"
    if data["overridden_by"] is not None:
        how += f", overridden: {data['overridden_by']['name']} forces it"
    if data["preferred_by"] is not None:
        how += f", first because of {data['preferred_by']['name']}"
    chosen = next((r for r in data["runners"] if r["chosen"]), None)
    if chosen is not None:
        lines = [f"Runner: {chosen['id']} ({chosen['name']}), {how}, at version {data['version']}"]
    else:
        lines = [f"Runner: none ({how}), at version {data['version']}"]
    order = data["order"]
    if order is not None and requested is not None:  # a user trial: it read as if the order chose
        lines.append(_messages.order_not_read(order["name"]))
    elif order is not None:
        final = "" if order.get("fallback", True) else "; its first candidate is validated, without fallback"
        lines.append(f"Order: {_messages.order_applies(order['name'], order['when'])}{final}; runners in that order:")
    elif data["orders"] and requested is None:
        names = " nor ".join(o["name"] for o in data["orders"])
        lines.append(f"Order: by priority ({names} does not apply); runners, highest priority first:")
    else:
        lines.append("Runners, highest priority first:")
    # An order without fallback tries its first candidate only: the runners after it are said so.
    untried = order is not None and not order.get("fallback", True) and requested is None
    sent = redirected if redirected is not None and not requested else None  # applies = "always"
    first = None
    for runner in data["runners"]:
        values = by_runner[runner["id"]]
        said = []
        if sent is not None and runner["id"] == sent["to"]:
            said.append(_messages.redirected_here(sent["from"]))
        elif untried and first is not None:
            said.append(_messages.not_tried(order["name"]))
        elif runner["candidate"]:
            first = runner["id"]
        if not runner["candidate"] and requested is None:
            candidacy = runner["candidate_when"]
            out = (removed or {}).get(runner["id"]) or _messages.candidacy(candidacy, asked_only(candidacy))
            said.append(f"not a candidate ({out})")
        failed = sum(1 for b in runner["blockers"] if "requirement" in b)
        features = len(runner["blockers"]) - failed
        if features:
            said.append(f"blocked by {features} feature{'s' if features != 1 else ''}")
        if failed:
            said.append(f"fails {failed} requirement{'s' if failed != 1 else ''}")
        if not said:
            said.append("no blockers")
        if sent is not None and runner["id"] == sent["from"]:
            said.append(_messages.redirected_there(sent["to"]))
        if runner["chosen"]:
            said.append("chosen")
        lines.append(f"  {runner['id']} ({runner['name']}, priority {runner['priority']}): {', '.join(said)}")
        lines.extend(f"    origin: {o}" for o in runner.get("origin", ()))  # an overlay's (matrix._overlay_origin)
        for blocker in runner["blockers"]:
            requirement = blocker.get("requirement")
            if requirement is not None:
                lines.append(f"    - {blocker['name']} (requirement {requirement['kind']!r})")
                lines.append(f"        requires: {requirement['condition']}")
            else:
                lines.append(f"    - {blocker['name']} [{blocker['status']}]")
                lines.append(f"        when: {blocker['when']}")
            if blocker["because"]:
                shown = ", ".join(f"{p} = {_show(values[p])}" for p in blocker["because"])
                lines.append(f"        because: {shown}")
            if blocker["note"]:
                lines.append(f"        note: {blocker['note']}")
            if blocker.get("origin"):
                lines.append(f"        origin: {blocker['origin']}")
    if adjusted:
        lines.append("Adjustments:")
        for a, entry, applied in zip(adjusted, data["adjustments"], when):
            user = ", overriding the config's value" if a.overrode_user else ""
            lines.append(f"  - {a.id} ({applied}): {a.path} = {_show(a.before)} -> {_show(a.after)}{user}")
            if entry.get("origin"):  # an overlay's (matrix._overlay_origin)
                lines.append(f"    origin: {entry['origin']}")
    names = ", ".join(f["name"] for f in data["active"]) or "none"
    lines.append(f"Active features: {names}")
    if data["warnings"]:
        lines.append("Warnings:")
        lines.extend(f"  - {w['kind']}: {w['message']}" for w in data["warnings"])
    if data["remedies"]:
        lines.append("Remedies:")
        lines.extend(f"  - {r['text']}" for r in data["remedies"])
    return "\n".join(lines)


def _show(value: object) -> str:
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, Version):
        return repr(str(value))
    if isinstance(value, (tuple, list)):
        return repr(list(value))
    return "<section>"


def _json_value(value: object) -> object:
    """A config value as JSON holds it: versions as text, tuples as lists, a section as
    ``"<section>"``, a float that JSON cannot hold (inf, -inf) as its text."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        import math  # an extension module `import matrix` does without (issue 29, cold start)

        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [_json_value(v) for v in value]
    return "<section>"


def _read(gate: Feature) -> Predicate:
    """What a gate is shown to read: a failed requirement, its condition; else the gate's own."""
    return gate.origin.condition if isinstance(gate.origin, Requirement) else gate.when


def resolve(matrix: Matrix, config: object, *, runner: Optional[str] = None,
            version: Optional[VersionLike] = None, facts: Optional[Mapping[str, object]] = None,
            strict: bool = False) -> Resolution:
    """Resolve *config* against *matrix*.

    :param runner: the runner the user asked for (with ``[roles]``, for the base role, over its field:
        `matrix._roles`); None chooses automatically by priority.
    :param version: resolve as of this version (the matrix's own by default).
    :param facts: values the host computes rather than keeps in *config*, by dotted path; only
        fields the schema declares ``fact = true`` (they win over what *config* holds).
    :param strict: refuse a mapping key the schema does not declare where it declares fields
        (by default such keys are ignored, except keys with a dot in them, always refused).
    :raises ConfigError: the config does not fit the schema (a value of the wrong type, an
        attribute an object lacks, an undeclared fact; with *strict*, an undeclared key).
    :raises RemovedFeatureError: the config uses a feature removed at *version*.
    :raises NoRunnerError: automatic choice found every runner blocked.
    :raises UnsupportedFeatureError: the runner asked for cannot serve the config.
    :raises UsageError: *runner* or *version* is not valid.
    """
    if matrix._branch:  # roles (issue 30, F1: `matrix._roles`), staged requirements (F6: `matrix._staged`)
        return _resolve_branched(matrix, config, runner, version, facts, strict)
    try:
        compiled = matrix._engine.plans[version]
    except (AttributeError, KeyError, TypeError):  # no plan yet (the slot is None at first)
        compiled = _plan(matrix, version)
    if strict:
        _refuse_unknown_keys(matrix, config)
    if runner is None:
        mask, values = compiled.evaluate(config, facts)
        mask &= compiled.automatic
        # The common case, answered with integer operations: the top runner is free and
        # there is nothing to warn about.
        if not mask & compiled.quiet_top and compiled.fast:
            resolution = _new(Resolution)
            _set_fields(resolution, (compiled.top, None, (), compiled, mask, values, config, facts, None))
            return resolution
        # The next most common: a mask already decided, with nothing to adjust and no error (a
        # fallback, a notice): one look-up, keyed by the mask alone (`_resolve_unadjusted`). A
        # preference's notice may say this config's values: it is said there.
        decision = compiled.decisions.get(mask)
        if decision is not None and decision[2] is None and not mask & compiled.preferring:
            resolution = _new(Resolution)
            _set_fields(resolution, (decision[0], None, decision[1], compiled, mask, values, config, facts, None))
            return resolution
        slowly = _resolve_unadjusted if not mask & compiled.any_adjusting else _resolve_slowly
        return slowly(compiled, mask, values, runner, config, facts)
    if runner not in compiled.no:
        _choice.asked(compiled, runner)  # raises UsageError for an unknown or removed id
    mask, values = compiled.evaluate(config, facts)
    mask &= compiled.asked
    slowly = _resolve_unadjusted if not mask & compiled.any_adjusting else _resolve_slowly
    return slowly(compiled, mask, values, runner, config, facts)


def _refuse_unknown_keys(matrix: Matrix, config: object) -> None:

    unknown = _access.unknown_keys(config, matrix.schema)
    if unknown:
        (path, reason), more = unknown[0], len(unknown) - 1
        raise ConfigError(reason + (_messages.unknown_keys(more) if more else ""), path=path)


_DECISIONS_KEPT = 4096


def _resolve_unadjusted(compiled: Plan, mask: int, values: Tuple[object, ...], runner: Optional[str],
                        config: object, facts: Optional[Mapping[str, object]]) -> Resolution:
    """Every case with something to say where no adjustment can apply (C = F = the config): one
    decision for the mask, remembered (in automatic choice under the mask alone, which `resolve`
    looks up itself); `_resolve_slowly` is the case with adjustments."""
    plain = mask if runner is None else (mask, runner)
    decision: Optional[_choice.Decision]
    # A reason says this config's values, or a redirect that applies always says them in
    # automatic choice (not remembered under the mask, which `resolve` looks up): decided for it alone.
    if mask & compiled.templated or runner is None and mask & compiled.redirecting:
        decision = _choice.decide(compiled, mask, runner, dict(zip(compiled.paths, values)))
    else:
        decision = compiled.decisions.get(plain)
        if decision is None:
            decision = _choice.decide(compiled, mask, runner)
            if len(compiled.decisions) >= _DECISIONS_KEPT:
                compiled.decisions.clear()
            compiled.decisions[plain] = decision
    assert decision is not None
    chosen, warnings, error, message = decision
    if runner is not None and runner in compiled.aliases:
        warnings = _choice.alias_said(compiled, runner, _reader(compiled, config, facts), warnings)
    if runner is not None and mask & compiled.redirecting:
        warnings = _with_values(compiled, mask, values, runner, warnings, _reader(compiled, config, facts))
    if runner is None and mask & compiled.preferring:
        warnings = _choice.preferences_with_values(compiled, mask, values, warnings)
    if runner is None and mask & compiled.redirecting:
        warnings = _chosen_with_values(compiled, mask, values, warnings, _reader(compiled, config, facts))
    resolution = _new(Resolution)  # as the fast path builds it: no __init__ call
    _set_fields(resolution, (chosen, runner, warnings, compiled, mask, values, config, facts, None))
    if error is not None:
        raise error(message or "", resolution)
    return resolution


def _resolve_slowly(compiled: Plan, mask: int, values: Tuple[object, ...], runner: Optional[str],
                    config: object, facts: Optional[Mapping[str, object]],
                    known: Optional[Dict[str, object]] = None) -> Resolution:
    """Every case with something to say: warnings, fallbacks, explicit runners, errors,
    adjustments, staged requirements, in the one order of resolution (`matrix._stages`: the plan's
    steps before the choice, the choice on C, the steps of the runner that serves, its
    validation on F; an unstaged matrix is one with the single stage ``choice``).

    The decisions for a mask are remembered on the plan (keyed by the masks they read); the
    `Resolution` (and the error, if any) is new each time, since it carries this config's values.
    Every rule read on the way reads the config through views that remember what it holds
    (*known*: `matrix._access.Effective`), seeded with the *values* the plan read.
    """
    from ._adjust import Adjusted

    staged = compiled.matrix.staged  # requirements checked between the steps (`matrix._staged`)
    assert staged or mask & compiled.any_adjusting or compiled.staged_redirects, \
        "resolve() takes _resolve_unadjusted where nothing can apply"
    kept = compiled.automatic if runner is None else compiled.asked
    known = _known(compiled, values, known)
    basis: _Basis = (mask, {})  # the gates on the view as it was last evaluated (`_walk`)
    view: Optional[_access.Effective] = None
    adjusted: List[Union[Adjusted, Said]] = []
    cmask, cvalues = mask, values
    if staged or mask & compiled.pre_adjusting:
        view = _access.Effective(config, None, known)
        failed = _walk(compiled, compiled.before_steps, None, view, adjusted, facts, True, basis)
        if view.sets:
            cmask, cvalues = compiled.evaluate(view, facts)
            cmask &= kept
            basis = (cmask, dict(view.sets))
        if failed is not None:
            _staged_stop(compiled, runner, None, _adjusted_warnings(adjusted), cmask, cvalues, config, view, adjusted,
                         facts,
                         failed, NoRunnerError if runner is None else UnsupportedFeatureError)
    choice: _choice.Chosen = _decided(compiled, ("choose", cmask, runner),
                                      lambda values: _choice.choose(compiled, cmask, runner, values), cvalues)
    warnings = _said_of_choice(compiled, choice.warnings, runner, cmask, cvalues,
                               _reader(compiled, view if view is not None else config, facts))
    fmask, fvalues, before = cmask, cvalues, len(adjusted)
    chosen = served = choice.runner
    error, message = choice.error, choice.message
    if error is not None:
        # A runner forced where none is free: its adjustments said, then refused on C (`matrix._choice`);
        # it does not serve, so its staged requirements are not read.
        chosen = _choice.forced(compiled, cmask) if error is NoRunnerError and runner is None else None
    rerouted: Optional[Tuple[Redirect, Dict[str, object]]] = None
    # A redirect at a stage after the choice acts on the runner that serves, however it came to (issue 30, F6).
    redirecting = compiled.staged_redirects.get(chosen) if error is None and chosen is not None else None
    if chosen is not None and (staged or redirecting or cmask & compiled.adjusting[chosen]):
        view = view or _access.Effective(config, None, known)
        changed = len(view.sets)
        chosen, failed, rerouted = _walk_served(compiled, chosen, redirecting, runner, view, adjusted, facts,
                                                error is None, basis)
        if failed is not None:
            told = _adjusted_warnings(adjusted[:before]) + warnings + _adjusted_warnings(adjusted[before:])
            _staged_stop(compiled, runner, chosen, told, cmask, cvalues, config, view, adjusted, facts, failed,
                         AdjustmentError if runner is None else UnsupportedFeatureError, rerouted)
        if len(adjusted) > before or len(view.sets) != changed:
            fmask, fvalues = compiled.evaluate(view, facts)
            fmask &= kept
        served = chosen if error is None else served
    if error is None:
        assert chosen is not None
        warnings, error, message = _served(compiled, fmask, fvalues, runner, chosen, choice, adjusted, before,
                                           warnings, rerouted)
        if error is not None:
            chosen = None
    else:
        chosen = None
        warnings = _adjusted_warnings(adjusted[:before]) + warnings + _adjusted_warnings(adjusted[before:])
    adjusting = None
    if adjusted or rerouted is not None:
        assert view is not None
        adjusting = (served, cmask, cvalues, tuple(a for a in adjusted if isinstance(a, Adjusted)), dict(view.sets),
                     rerouted)
    resolution = Resolution(compiled, fmask, fvalues, chosen, runner, warnings, config, facts, adjusting)
    if error is not None:
        raise error(message or "", resolution)
    return resolution


def _known(compiled: Plan, values: Tuple[object, ...], known: Optional[Dict[str, object]]
           ) -> Optional[Dict[str, object]]:
    """What the config holds, by path (`matrix._access.Effective`): *known* (or a new one) with the
    *values* the plan read of it; None where the interpreter reads every rule (`_COMPILED`)."""
    if not _COMPILED:
        return None
    if known is None:
        return dict(zip(compiled.paths, values))
    known.update(zip(compiled.paths, values))
    return known


def _how(compiled: Plan, runner: Optional[str], served: str) -> str:
    """How *served* came to serve a request for *runner*: ``chosen`` (automatically), ``asked`` (by
    its id or a former one), or ``served`` (a feature overrode the request)."""
    if runner is None:
        return "chosen"
    return "asked" if _choice.named(compiled.matrix, runner) == served else "served"


def _walk_served(compiled: Plan, chosen: str, redirects: Optional[Tuple[Redirect, ...]], runner: Optional[str],
                 view: _access.Effective, adjusted: List[Any], facts: Optional[Mapping[str, object]], check: bool,
                 basis: Optional[_Basis] = None
                 ) -> Tuple[str, Optional[Tuple[str, Optional[str], List[Requirement]]], Optional[Tuple[Redirect, Dict[str, object]]]]:
    """The steps of *chosen* once it serves (`_walk`), where *redirects* (its redirects at a stage
    after ``choice``, in the order read: `matrix._stages.redirects`) may send it on: at each such
    stage, on the config the stages before it left, the first whose condition holds names the
    runner that serves from that stage on, walking its own steps from there (one hop), with a
    warning of kind ``redirected`` among the adjustments'. The runner that serves, the first
    staged refusal (`_walk`), and the redirect that applied with the values its condition read."""
    if not redirects:
        return chosen, _walk(compiled, compiled.after_steps[chosen], chosen, view, adjusted, facts, check, basis), None
    from .predicates import truth

    stages = compiled.matrix.stages
    start = stages.index(_stages.CHOICE)
    at = 0
    while at < len(redirects):
        k = stages.index(redirects[at].stage)
        here = [d for d in redirects[at:] if d.stage == redirects[at].stage]
        at += len(here)
        failed = _walk(compiled, compiled.span(chosen, start, k), chosen, view, adjusted, facts, check, basis)
        if failed is not None:
            return chosen, failed, None
        start = k
        read = _staged_reader(compiled, chosen, view, facts)
        found = next((d for d in here if (compiled.test(d.when)(read) if _COMPILED else truth(d.when.node, read))),
                     None)
        if found is None:
            continue
        because = {p: read(p) for p in sorted(found.when.paths)}
        if found.message is not None:
            from ._templates import filled

            said = filled(found.message, read)
        else:
            said = _messages.redirected_at(chosen, found.to, found.stage or "", ", ".join(
                f"{p} = {_show(v)}" for p, v in because.items()), _how(compiled, runner, chosen))
        adjusted.append(ResolutionWarning("redirected", None, found.to, said))
        to = found.to
        failed = _walk(compiled, compiled.span(to, k, len(stages)), to, view, adjusted, facts, check, basis)
        return to, failed, (found, because)
    return chosen, _walk(compiled, compiled.span(chosen, start, len(stages)), chosen, view, adjusted, facts, check,
                         basis), None


#: Whether the rules a resolution reads on a view (adjustments, staged requirements, redirects at
#: a stage) are decided by the compiled plan (`Plan.holds`, `Plan.test`); False: by the
#: interpreter (`matrix.predicates.truth`), the reference the tests compare the two with.
_COMPILED = True

#: The plan's gates evaluated on a view (the mask), and the sets the view had then (`Plan.holds`).
_Basis = Tuple[int, Dict[str, object]]


def _walk(compiled: Plan, steps: Sequence[_stages.Step], runner: Optional[str], view: _access.Effective,
          adjusted: List[Union[Adjusted, Said]], facts: Optional[Mapping[str, object]], check: bool,
          basis: Optional[_Basis] = None) -> Optional[Tuple[str, Optional[str], List[Requirement]]]:
    """*steps* walked on *view* (its sets change in place; what the adjustments did appended to
    *adjusted*): each step's adjustments, then, where *check*, its staged requirements checked
    once *runner* serves (None: before the choice; `matrix._staged.failing`). The stage, the
    runner refused and the clauses of the first step that refuses, or None. *basis*: the plan's
    gates evaluated on the view when it had the sets given, where known: an adjustment whose
    ``when`` reads nothing set since is decided by its gate there (`Plan.holds`), not read again."""
    from . import _adjust
    from ._staged import failing

    roles = _roles_read(compiled, runner) if runner is not None else None
    known = None if basis is None or not _COMPILED else functools.partial(compiled.holds, *basis)
    for stage, adjustments, clauses in steps:
        if adjustments:
            adjusted += _adjust.apply(adjustments, view, compiled.reading, facts, runner, roles, known)
        if clauses and check:
            refused, failed = failing(clauses, runner, _staged_reader(compiled, runner, view, facts),
                                      [r.id for r in compiled.matrix.roles], compiled.test if _COMPILED else None)
            if failed:
                return stage, refused, failed
    return None


def _staged_reader(compiled: Plan, runner: Optional[str], view: _access.Effective,
                   facts: Optional[Mapping[str, object]]) -> Callable[[str], object]:
    """How a staged requirement reads *view*: its paths, and once *runner* serves the roles as they
    stand (`matrix._roles.reader`)."""
    from . import _roles

    return _roles.reader(compiled.matrix, runner, view.reader(compiled.reading, facts))


def _staged_stop(compiled: Plan, runner: Optional[str], served: Optional[str], warnings: Tuple[ResolutionWarning, ...],
                 cmask: int, cvalues: Tuple[object, ...], config: object, view: _access.Effective,
                 adjusted: List[Union[Adjusted, Said]], facts: Optional[Mapping[str, object]],
                 failed: Tuple[str, Optional[str], List[Requirement]], error: Any,
                 rerouted: Optional[Tuple[Redirect, Dict[str, object]]] = None) -> None:
    """Raise *error* for a staged refusal (`matrix._staged`): *failed* (its stage, the runner
    refused and the clauses) once *served* serves (None: before the choice), the resolution
    carrying what was done before it (*rerouted*: a redirect at a stage that sent it on)."""
    from ._adjust import Adjusted
    from ._staged import refusal

    stage, refused, clauses = failed
    kept = compiled.automatic if runner is None else compiled.asked
    fmask, fvalues = compiled.evaluate(view, facts)
    read = _staged_reader(compiled, served, view, facts)
    message, reasons, role = refusal(compiled, refused, clauses, read)
    adjusting = None
    if adjusted:
        adjusting = (served, cmask, cvalues, tuple(a for a in adjusted if isinstance(a, Adjusted)), dict(view.sets),
                     rerouted)
    data = {"stage": stage, "runner": refused, "role": role, "requirements": [f"{c.runner}:{c.kind}" for c in clauses],
            "reasons": reasons, "kind": next((c.error_kind for c in clauses if c.error_kind is not None), None)}
    roles: Tuple[Any, ...] = ()  # as they stand at the stage, once a runner serves (a user trial)
    if served is not None and compiled.matrix.roles:
        from ._roles import standing

        roles = standing(compiled.matrix, served, runner, read)
    resolution = _refused_as(_StagedResolution, Resolution(compiled, fmask & kept, fvalues, None, runner, warnings,
                                                           config, facts, adjusting), data, roles)
    raise error(message, resolution)


def _served(compiled: Plan, fmask: int, fvalues: Tuple[object, ...], runner: Optional[str], chosen: str,
            choice: _choice.Chosen, adjusted: Sequence[Union[Adjusted, Said]], before: int,
            warnings: Tuple[ResolutionWarning, ...], rerouted: Optional[Tuple[Redirect, Dict[str, object]]] = None
            ) -> Tuple[Tuple[ResolutionWarning, ...], Any, Optional[str]]:
    """*chosen* validated on F (its mask and values): the warnings in the order said (the
    adjustments before the choice, the choice's, the runner's adjustments, serving's), and the
    error and its message, if serving refuses (one the runner's adjustments caused says them).
    A runner a redirect at a stage after the choice sent it to (*rerouted*) is validated as a
    runner asked for is (`matrix._choice.serve`)."""
    from ._adjust import Adjusted

    overriding = choice.overriding
    redirected, staged = choice.redirected, None
    if rerouted is not None:
        redirected = (rerouted[0].runner, chosen)
        staged = (rerouted[0].stage or "", _how(compiled, runner, rerouted[0].runner))
    key = ("serve", fmask, runner, chosen, None if overriding is None else overriding.id, redirected, staged)
    more, error, message = _decided(compiled, key, lambda values: _choice.serve(
        compiled, fmask, runner, chosen, overriding, redirected, values, staged), fvalues)
    warnings = _adjusted_warnings(adjusted[:before]) + warnings + _adjusted_warnings(adjusted[before:]) + more
    if error is AdjustmentError and staged is None:
        message = _messages.adjustment_blocks(list(dict.fromkeys(a.message for a in adjusted[before:]
                                                                 if isinstance(a, Adjusted))), message or "")
    return warnings, error, message


def _redirect(plan: Plan, mask: int, runner: Optional[str]) -> Optional[Redirect]:
    """The redirect that applied to a request for *runner* (an id or a former id), if any."""
    if runner is None:
        return None
    return _choice.redirect_of(plan, mask, _choice.named(plan.matrix, runner))


def _because(redirect: Redirect, values: Mapping[str, object]) -> Dict[str, object]:
    """The config values a redirect's condition read, by path (what made it hold)."""
    return {p: values[p] for p in sorted(redirect.when.paths) if p in values}


def _with_values(plan: Plan, mask: int, values: Tuple[object, ...], runner: str,
                 warnings: Tuple[ResolutionWarning, ...], read: Callable[[str], object], chosen: bool = False
                 ) -> Tuple[ResolutionWarning, ...]:
    """*warnings* with the ``redirected`` one naming this config's values (the decision, shared
    by every config of the mask, names the condition), or, where the file gave the message, that
    message with the values *read* gives (path → value) of the config paths it names (F7)."""
    redirect = _redirect(plan, mask, runner)
    if redirect is None:
        return warnings
    if redirect.message is not None:
        from ._templates import filled

        if "{" not in redirect.message and "}" not in redirect.message:
            return warnings
        said = filled(redirect.message, read)
    else:
        because = _because(redirect, dict(zip(plan.paths, values)))
        said = _messages.redirected(runner, redirect.to, ", ".join(f"{p} = {_show(v)}" for p, v in because.items()),
                                    chosen)
    return tuple(attrs.evolve(w, message=said) if w.kind == "redirected" else w for w in warnings)


def _reader(compiled: Plan, config: object, facts: Optional[Mapping[str, object]]) -> Any:
    """Reads a config value by path, as a message template names it (issue 30, F7)."""
    return lambda path: _access.read(config, path, compiled.reading, facts)


def _decided(compiled: Plan, key: Tuple[Any, ...], work: Any, values: Tuple[object, ...]) -> Any:
    """What *work* decides for the mask of *key* (the second item), remembered; where a gate
    active there has a reason that says config values (`Plan.templated`), worked out for
    *values* (of the plan's paths) alone."""
    if key[1] & compiled.templated:
        return work(dict(zip(compiled.paths, values)))
    decision = compiled.decisions.get(key)
    if decision is None:
        decision = work(None)
        if len(compiled.decisions) >= _DECISIONS_KEPT:
            compiled.decisions.clear()
        compiled.decisions[key] = decision
    return decision


def _adjusted_warnings(adjusted: Sequence[Union[Adjusted, Said, ResolutionWarning]]) -> Tuple[ResolutionWarning, ...]:
    """One warning of kind ``adjusted`` per adjustment that changed a path or spoke (`Said`), and
    in its place the ``redirected`` one of a redirect at a stage after the choice (`_walk_served`)."""
    out: Dict[Tuple[Optional[str], Optional[str]], ResolutionWarning] = {}
    for a in adjusted:
        if isinstance(a, ResolutionWarning):
            out[("redirected", None)] = a
        else:
            out.setdefault((a.id, a.runner), ResolutionWarning("adjusted", a.id, a.runner, a.message, a.level))
    return tuple(out.values())


def is_supported(matrix: Matrix, config: object, runner: str, *,
                 version: Optional[VersionLike] = None,
                 facts: Optional[Mapping[str, object]] = None) -> bool:
    """Whether *runner*, asked for explicitly, can serve *config* (see `resolve`): no feature
    removed at *version* is used (on the config after the adjustments before the choice) and
    none the runner says no to is active, nor a requirement it fails, on the config after its
    own adjustments; with ``[roles]``, *runner* filling the base role, no other role's runner
    refuses the config there (`matrix._roles.others`). Features that force another runner, and
    redirects, are not weighed: *runner* itself serves the base role."""
    compiled = _plan(matrix, version)
    _choice.asked(compiled, runner)  # an unknown id, or a former id removed: UsageError, as resolve says
    runner = _choice.named(matrix, runner)  # a former id asks for the runner it names, as in resolve (a user trial)
    staged = matrix.staged  # a staged requirement refuses where it is checked (issue 30, F6)
    mask, values = compiled.evaluate(config, facts)
    known = _known(compiled, values, None)
    view: Optional[_access.Effective] = None
    fmask, fvalues = mask, values
    if staged or mask & compiled.any_adjusting:  # removal read on C, the runner's gates on its F
        view = _access.Effective(config, None, known)
        adjusted: List[Union[Adjusted, Said]] = []
        basis: _Basis = (mask, {})  # the gates on the config itself (`_walk`)
        if staged or mask & compiled.pre_adjusting:
            if _walk(compiled, compiled.before_steps, None, view, adjusted, facts, True, basis) is not None:
                return False
            if view.sets:
                mask = compiled.evaluate(view, facts)[0]
                basis = (mask, dict(view.sets))
        if mask & compiled.asked & compiled.removed:
            return False
        fmask = mask
        if staged or mask & compiled.adjusting[runner]:
            changed, before = len(view.sets), len(adjusted)
            if _walk(compiled, compiled.after_steps[runner], runner, view, adjusted, facts, True, basis) is not None:
                return False
            if len(adjusted) > before or len(view.sets) != changed:
                fmask, fvalues = compiled.evaluate(view, facts)
        if fmask & compiled.asked & compiled.no[runner]:
            return False
    elif mask & compiled.asked & (compiled.no[runner] | compiled.removed):
        return False
    return not matrix.roles or _roles_serve(compiled, runner, fmask, fvalues, config, facts, view, known)


def _roles_serve(compiled: Plan, runner: str, fmask: int, fvalues: Tuple[object, ...], config: object,
                 facts: Optional[Mapping[str, object]], view: Optional[_access.Effective],
                 known: Optional[Dict[str, object]]) -> bool:
    """Whether, *runner* serving the base role on F (*fmask*, *fvalues*; *view*: the config with
    the paths the adjustments set, None where none applied), every other role's runner serves
    too, as `resolve` fills and validates them (`matrix._roles.others`)."""
    from . import _roles

    adjusting = None if view is None or not view.sets else (runner, fmask, fvalues, (), dict(view.sets), None)
    served = Resolution(compiled, fmask & compiled.asked, fvalues, runner, runner, (), config, facts, adjusting)
    try:
        _roles.others(compiled, served, runner, config, facts, known)
    except ResolutionError:
        return False
    return True


class _RolesResolution(Resolution):
    """A `Resolution` of a matrix with ``[roles]`` (issue 30, F1: `matrix._roles`): each role's
    runner beside the base's."""

    __slots__ = ("_roles",)

    _roles: Tuple[Tuple[str, Optional[str], str, Optional[str]], ...]  # `matrix._roles.Filled`

    @property
    def roles(self) -> Mapping[str, Optional[str]]:
        return MappingProxyType({role: runner for role, runner, _, _ in self._roles})

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        restore, args = super().__reduce__()
        return (_restored_roles, (restore, args, self._roles))

    # A refusal's resolution (`_Refused`) is one too, its roles empty where none is known (a
    # matrix without roles, a refusal before the choice): nothing is said of them there.
    def to_dict(self) -> Dict[str, Any]:
        out = super().to_dict()
        return {**out, "roles": dict(self.roles)} if self._roles else out

    def explanation(self, *, remedies: bool = True) -> Dict[str, Any]:
        out = super().explanation(remedies=remedies)
        if not self._roles:
            return out
        return {**out, "roles": [{"id": role, "runner": runner, "how": how, "follows": followed}
                                 for role, runner, how, followed in self._roles]}

    def explain(self) -> str:
        from ._roles import said

        if not self._roles:
            return super().explain()
        first, *rest = super().explain().split("\n")
        return "\n".join([first, "Roles: " + "; ".join(said(self.matrix, *r) for r in self._roles), *rest])


_set_roles = vars(_RolesResolution)["_roles"].__set__


def _with_roles(resolution: Resolution, roles: Tuple[Any, ...], warnings: Tuple[ResolutionWarning, ...]
                ) -> _RolesResolution:
    out = _new(_RolesResolution)
    fields = resolution._fields
    _set_fields(out, fields[:2] + (fields[2] + warnings,) + fields[3:])
    _set_roles(out, roles)
    return out


def _restored_roles(restore: Any, args: Tuple[Any, ...], roles: Tuple[Any, ...]) -> _RolesResolution:
    return _with_roles(restore(*args), roles, ())


def _resolve_branched(matrix: Matrix, config: object, runner: Optional[str], version: Optional[VersionLike],
                      facts: Optional[Mapping[str, object]], strict: bool) -> Resolution:
    """`resolve` for a matrix with roles, staged requirements or redirects at a stage: its steps
    walked, their conditions compiled (no answer from the gates alone)."""
    compiled = _plan(matrix, version)
    if strict:
        _refuse_unknown_keys(matrix, config)
    try:
        if matrix.roles:
            return _resolve_roles(compiled, config, runner, facts)
        if runner is not None and runner not in compiled.no:
            _choice.asked(compiled, runner)  # raises UsageError for an unknown or removed id
        return _resolve_base(compiled, runner, config, facts)
    except ConfigError as error:
        if error.path in matrix.schema.fields:  # a bad value (not an undeclared fact): with the others
            _every_bad_value(compiled, error, config, facts)
        raise


def _every_bad_value(compiled: Plan, error: ConfigError, config: object, facts: Optional[Mapping[str, object]]
                     ) -> None:
    """*error*, the first bad value the branched path read, with every other one the matrix's
    rules read in its ``others`` (`matrix._access.with_others`), as the compiled reader says
    them: the gates' paths, and those read only after the choice or at a stage, by no gate (a
    role's field, a staged requirement, an adjustment that reads a role, a redirect at a
    stage; a user trial: only the first was said). Only on the way to an error."""
    from ._given import ROLE
    from ._templates import has_paths, paths_only

    matrix = compiled.matrix
    readers: Dict[str, Optional[str]] = {}
    for feature in compiled.features:
        for path in sorted(feature.when.paths):
            readers.setdefault(path, feature.id)
    for role in matrix.roles:
        readers.setdefault(role.field, None)  # a role's field: read by no gate
    rules: List[Tuple[str, Any]] = [(f"{c.runner}:{c.kind}", c.condition) for c in matrix.staged]
    rules += [(f"adjustment:{a.id}", a.when) for a in matrix.adjustments]
    rules += [(f"{r.id}:redirect:{d.index + 1}", d.when) for r in matrix.runners for d in r.redirects]
    for reader, when in rules:
        for path in sorted(when.paths):
            if not path.startswith(ROLE):
                readers.setdefault(path, reader)
    for clause in matrix.staged:
        for path in sorted(paths_only(clause.reason).paths) if has_paths(clause.reason) else ():
            if not path.startswith(ROLE):
                readers.setdefault(path, f"{clause.runner}:{clause.kind}")
    if error.feature is None:
        error.feature = readers.get(error.path)
    _access.with_others(error, config, list(readers), {p: r for p, r in readers.items() if r is not None},
                        compiled.reading, facts)


def _resolve_base(compiled: Plan, runner: Optional[str], config: object,
                  facts: Optional[Mapping[str, object]], known: Optional[Dict[str, object]] = None,
                  evaluated: Optional[Tuple[int, Tuple[object, ...]]] = None) -> Resolution:
    """The base role's resolution (*runner* asked for, or None), off the fast path (*evaluated*:
    the plan's evaluation of *config*, where made already)."""
    mask, values = compiled.evaluate(config, facts) if evaluated is None else evaluated
    mask &= compiled.automatic if runner is None else compiled.asked
    if not (mask & compiled.any_adjusting or compiled.matrix.staged or compiled.staged_redirects):
        return _resolve_unadjusted(compiled, mask, values, runner, config, facts)
    return _resolve_slowly(compiled, mask, values, runner, config, facts, known)


def _roles_read(compiled: Plan, runner: str) -> Any:
    """How the adjustments after the choice read the roles (`matrix._roles.reading`): None without roles."""
    if not compiled.matrix.roles:
        return None
    from . import _roles

    return _roles.reading(compiled.matrix, runner)


def _resolve_roles(compiled: Plan, config: object, runner: Optional[str], facts: Optional[Mapping[str, object]]
                   ) -> _RolesResolution:
    """`resolve` for a matrix with ``[roles]``: the base role's request is *runner*, else its
    field in the config of choice; then every other role (`matrix._roles` states the rules)."""
    from . import _roles

    matrix = compiled.matrix
    evaluated: Optional[Tuple[int, Tuple[object, ...]]] = None
    known: Optional[Dict[str, object]] = None  # what the config holds, read once (`matrix._access.Effective`)
    if _COMPILED:
        try:
            evaluated = compiled.evaluate(config, facts)
        except Exception:  # raised again below, where the base's request has been read as always
            pass
        else:
            known = _known(compiled, evaluated[1], None)
    asked = runner if runner is not None else _roles.of_choice(
        compiled, matrix.roles[0], config, facts, known, None if evaluated is None else (evaluated[0], {}))
    if asked is not None and asked not in compiled.no:
        _choice.asked(compiled, asked)  # raises UsageError for an unknown or removed id
    base = _resolve_base(compiled, asked, config, facts, known, evaluated)
    roles, warnings = _roles.others(compiled, base, asked, config, facts, known)
    return _with_roles(base, roles, warnings)


def _said_of_choice(compiled: Plan, warnings: Tuple[ResolutionWarning, ...], runner: Optional[str], cmask: int,
                    cvalues: Tuple[object, ...], read: Any) -> Tuple[ResolutionWarning, ...]:
    """The choice's *warnings* with this config's values said (as `_resolve_slowly` says them)."""
    if runner is not None and runner in compiled.aliases:  # said of C, before the runner's adjustments
        warnings = _choice.alias_said(compiled, runner, read, warnings)
    if runner is not None and cmask & compiled.redirecting:
        warnings = _with_values(compiled, cmask, cvalues, runner, warnings, read)
    if runner is None and cmask & compiled.preferring:
        warnings = _choice.preferences_with_values(compiled, cmask, cvalues, warnings)
    if runner is None and cmask & compiled.redirecting:
        warnings = _chosen_with_values(compiled, cmask, cvalues, warnings, read)
    return warnings


def _chosen_with_values(plan: Plan, mask: int, values: Tuple[object, ...], warnings: Tuple[ResolutionWarning, ...],
                        read: Callable[[str], object]) -> Tuple[ResolutionWarning, ...]:
    """In automatic choice, *warnings* with the ``redirected`` one of a redirect with ``applies =
    "always"`` saying this config's values (`_with_values`)."""
    found = _choice.chosen_redirect(plan, mask)
    if found is None:
        return warnings
    return _with_values(plan, mask, values, found[0], warnings, read, chosen=True)


class _Refused(_RolesResolution):
    """The `Resolution` an error carries where a rule read after the choice refused the config:
    its data (`_KEY` in `to_dict()` and `explanation()`, and `explain()`'s last line) says where,
    and in a matrix with roles, every role's runner as the roles stood there (a user trial: the
    explanation said "Runner: none" and no role). A refusal in a role other than the base says
    the remedy for the base role's runner; a staged refusal outside roles says those of any
    refusal (`Resolution.remedies`)."""

    __slots__ = ("_refused",)

    _refused: Dict[str, Any]
    _KEY = ""

    def _refusal_line(self) -> str:
        raise NotImplementedError

    def to_dict(self) -> Dict[str, Any]:
        return {**super().to_dict(), self._KEY: dict(self._refused)}

    def explanation(self, *, remedies: bool = True) -> Dict[str, Any]:
        return {**super().explanation(remedies=remedies), self._KEY: dict(self._refused)}

    def remedies(self) -> Tuple[Any, ...]:
        return ()

    def _base_remedies(self) -> Tuple[Any, ...]:
        """Where a runner filling a role other than the base refused: the remedy for the base
        role's runner, asked for or chosen (the search varies the roles' fields and the paths
        their requirements read)."""
        runner = _choice.named(self.matrix, self.requested) if self.requested is not None \
            else self.roles.get(self.matrix.roles[0].id)
        return () if runner is None else (self.remedy(runner),)

    def explain(self) -> str:
        return super().explain() + "\n" + self._refusal_line()

    def __reduce__(self) -> Tuple[Any, Tuple[Any, ...]]:
        restore, args = super().__reduce__()
        return (_restored_refused, (type(self), restore, args, dict(self._refused)))


class _StagedResolution(_Refused):
    """Where a staged requirement refused (`matrix._staged`): `staged_refusal`."""

    __slots__ = ()
    _KEY = "staged_refusal"

    @property
    def staged_refusal(self) -> Optional[Mapping[str, Any]]:
        return dict(self._refused)

    def _refusal_line(self) -> str:
        data = self._refused
        return _messages.staged_refusal_said(data["stage"], data["runner"], data["reasons"], data["role"])

    def remedies(self) -> Tuple[Any, ...]:
        # Outside roles, the search weighs the staged requirements as it weighs every rule
        # resolve reads (`matrix._remedy.rule_atoms`): the remedies of any refusal.
        return self._base_remedies() if self._refused["role"] is not None else Resolution.remedies(self)


class _RoleRefusedResolution(_Refused):
    """Where the runner filling a role other than the base refused the config (`matrix._roles`):
    `role_refusal` says which role, which runner, why."""

    __slots__ = ()
    _KEY = "role_refusal"

    @property
    def role_refusal(self) -> Optional[Mapping[str, Any]]:
        return dict(self._refused)

    def _refusal_line(self) -> str:
        data = self._refused
        return _messages.role_refusal_said(data["role"], data["runner"], data["reason"])

    def remedies(self) -> Tuple[Any, ...]:
        return self._base_remedies()


def _refused_as(kind: Any, resolution: Resolution, data: Dict[str, Any], roles: Optional[Tuple[Any, ...]] = None
                ) -> Resolution:
    """*resolution* as a `_Refused` of class *kind* saying *data*, and *roles* (`matrix._roles.Filled`;
    None: *resolution*'s own, if any)."""
    out = kind.__new__(kind)
    object.__setattr__(out, "_fields", resolution._fields)
    object.__setattr__(out, "_refused", data)
    _set_roles(out, getattr(resolution, "_roles", ()) if roles is None else roles)
    return out  # type: ignore[no-any-return]


def _restored_refused(kind: Any, restore: Any, args: Tuple[Any, ...], data: Dict[str, Any]) -> Resolution:
    return _refused_as(kind, restore(*args), data)


# Matrix.resolve and Matrix.is_supported are these functions themselves (see schema.Matrix).
Matrix.resolve = resolve  # type: ignore[method-assign,assignment]
Matrix.is_supported = is_supported  # type: ignore[method-assign,assignment]
