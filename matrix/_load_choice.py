"""What the choice of a runner reads beyond the features: the kinds of requirement
(``[requirements]``), each runner file's ``[requires]`` and ``candidate``, and the ``[orders]``.
All of them apply at every version, so what they read must exist at every version."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple

import attrs

from . import _load_roles, _messages
from ._error_kinds import ERROR_KINDS
from ._stages import CHOICE
from .predicates import Predicate
from .schema import WIDE, Order, Requirement, RequirementKind, Runner, Schema, window_text

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source


def requirement_kinds(b: _Builder, source: _Source, raw: object, schema: Schema) -> Dict[str, RequirementKind]:
    """``[requirements]``: the kinds of requirement a runner file may state, by id."""
    out = {}
    for id, where, spec in b.entries(source, raw, "requirements", "Requirement kind", b.shapes.KindSpec):
        if spec.reason is not None:
            _reason(b, source, where + ("reason",), spec.reason, schema)
        out[id] = RequirementKind(id, spec.name, spec.reason,
                                  _error_kind(b, source, ("requirements", id, "kind"), spec.kind), spec.alone)
    return out


def _reason(b: _Builder, source: _Source, where: Place, text: str, schema: Schema, roles: bool = False) -> bool:
    """Whether a requirement's reason is a template of config paths (`matrix._templates`; issue
    30, F7) that reads only fields that exist at every version, as its condition must (said, else);
    it says a role only where *roles* (read after the choice)."""
    template = b.template(source, where, text, schema, roles=roles)
    if template is None:
        return False
    before = len(b.problems)
    for path in template.paths:
        _field_everlasting(b, source, where, path, schema)
    return len(b.problems) == before


def _error_kind(b: _Builder, source: _Source, where: Place, kind: Optional[str]) -> Optional[str]:
    """*kind* when it is one of the built-in exceptions a requirement may name; None (said) else."""
    if kind is None or kind in ERROR_KINDS:
        return kind
    b.problem(source, where, _messages.unknown_choice("error kind", kind, ERROR_KINDS, one_of=True))
    return None


def requirements(b: _Builder, runner: Runner, kinds: Dict[str, RequirementKind], schema: Schema) -> Runner:
    """*runner* with what its file says it requires (``[requires]``) and when it is a candidate."""
    found = b.runner_specs.get(runner.id)
    if found is None:
        return runner
    source, spec = found
    candidate = None
    if spec.candidate is not None:
        candidate = b.predicate(source, ("candidate",), spec.candidate, schema)
        _everlasting(b, source, ("candidate",), candidate, schema)
    ordered = _clauses(b, source, ("requires",), spec.requires, kinds, schema, runner.id, b.shapes.ClauseSpec)
    return attrs.evolve(runner, requires=ordered, candidate=candidate)


def wide_requirements(b: _Builder, source: _Source, raw: object, kinds: Dict[str, RequirementKind], schema: Schema,
                      runners: Optional[List[Runner]]) -> Tuple[Requirement, ...]:
    """``[requires]`` of features.toml: what every runner requires (a runner file's ``[requires]``),
    each chain but of the runners its first clause exempts (``exempt``)."""
    if not isinstance(raw, dict):
        if raw is not None:
            b.problem(source, ("requires",), b.shapes.expected("a table", raw).args[0])
        return ()
    known = [r.id for r in runners or ()] + list(b.broken_runners)
    return _clauses(b, source, ("requires",), raw, kinds, schema, WIDE, b.shapes.WideClauseSpec,
                    known if runners is not None else None)


def _clauses(b: _Builder, source: _Source, top: Place, requires: Mapping[str, object],
             kinds: Dict[str, RequirementKind], schema: Schema, owner: str, shape: type,
             runners: Optional[List[str]] = None) -> Tuple[Requirement, ...]:
    """The clauses of a ``[requires]`` table (a runner file's, or features.toml's: *owner* `WIDE`,
    whose clauses may name *runners* in ``exempt``), in the order of the kinds."""
    clauses: Dict[str, List[Requirement]] = {}
    for kind, value in requires.items():
        where: Place = top + (kind,)
        if kind not in kinds:
            b.problem(source, where, _messages.unknown_choice("requirement kind", kind, list(kinds)))
            continue
        items = value if isinstance(value, list) else [value]
        if not items:
            b.problem(source, where, _messages.empty_requirement(kind))
        exempt: Tuple[str, ...] = ()
        roles: Tuple[str, ...] = ()
        stage: Optional[str] = None
        for index, item in enumerate(items):
            at: Place = where + (index,) if isinstance(value, list) else where
            if isinstance(item, str):
                item = {"condition": item}
            clause, _ = b.shaped(source, item, shape, at)
            if clause is None:
                continue
            # A chain's roles and stage are its first clause's; one whose roles leave out the base, or
            # staged after the choice, is read after the choice.
            late = _load_roles.after_choice(b, roles=tuple(getattr(clause, "roles", ())) if index == 0 else roles,
                                            stage=getattr(clause, "stage", None) if index == 0 else stage)
            condition = b.predicate(source, at + (("condition",) if isinstance(value, (dict, list)) else ()),
                                    clause.condition, schema, roles=late)
            _everlasting(b, source, at, condition, schema)
            reason = clause.reason or kinds[kind].reason
            if reason is None:
                b.problem(source, at, _messages.requirement_without_reason(kind))
                continue
            if clause.reason is not None and not _reason(b, source, at + ("reason",), clause.reason, schema, late):
                continue  # a kind's reason is checked with the kind
            error_kind = _error_kind(b, source, at + ("kind",), clause.kind) or kinds[kind].error_kind
            if index == 0:
                exempt, roles, stage = _chain_keys(b, source, at, clause, owner, runners)
            else:
                _not_first(b, source, at, kind, clause)
            if condition is not None:
                clauses.setdefault(kind, []).append(Requirement(owner, kind, condition, reason, clause.doc,
                                                                error_kind, exempt, roles, stage, kinds[kind].alone))
    return tuple(c for kind in kinds for c in clauses.get(kind, ()))


def _chain_keys(b: _Builder, source: _Source, at: Place, clause: object, owner: str, runners: Optional[List[str]]
                ) -> Tuple[Tuple[str, ...], Tuple[str, ...], Optional[str]]:
    """What a chain's first clause says of the whole chain: the runners it exempts, the roles it
    applies in (checked against [roles] by matrix._load_roles), its stage."""
    exempt = _exempt(b, source, at + ("exempt",), tuple(getattr(clause, "exempt", ())), runners)
    roles = tuple(getattr(clause, "roles", ()))
    given = getattr(clause, "stage", None)
    return exempt, roles, None if given is None else _stage(b, source, at + ("stage",), given, owner, exempt, roles)


def _not_first(b: _Builder, source: _Source, at: Place, kind: str, clause: object) -> None:
    """A later clause of a chain takes none of the keys its first clause says for the chain."""
    for key, said in (("exempt", _messages.exempt_not_first), ("roles", _messages.roles_not_first),
                      ("stage", _messages.stage_not_first)):
        if getattr(clause, key, None):
            b.problem(source, at + (key,), said(kind))


def _stage(b: _Builder, source: _Source, where: Place, stage: str, owner: str, exempt: Tuple[str, ...],
           roles: Tuple[str, ...]) -> Optional[str]:
    """A requirement's ``stage`` (issue 30, F6: `matrix._staged`): one of ``[matrix] stages``; before
    ``choice`` only a matrix-wide one that exempts no runner (no runner is known yet, nor the
    runner that fills a role). None where ``choice``: there it is a gate, as one without a stage."""
    stages = b.stages
    if not b.stage(source, where, stage):
        return None
    if stage == CHOICE:
        return None
    elif CHOICE in stages and stages.index(stage) < stages.index(CHOICE):
        if roles:
            b.problem(source, where, _messages.role_requirement_before_choice(stage, CHOICE))
        elif owner != WIDE:
            b.problem(source, where, _messages.runner_requirement_before_choice(stage, CHOICE))
        elif exempt:
            b.problem(source, where, _messages.exempting_requirement_before_choice(stage, CHOICE))
        else:
            return stage
    else:
        return stage
    return None


def _exempt(b: _Builder, source: _Source, where: Place, given: Tuple[str, ...],
            runners: Optional[List[str]]) -> Tuple[str, ...]:
    """The runners a matrix-wide chain exempts: each one a runner of the matrix (said, else)."""
    for index, runner in enumerate(given):
        if runners is not None and runner not in runners:
            b.problem(source, where + (index,), _messages.unknown_choice("runner", runner, runners))
        elif runner in given[:index]:
            b.problem(source, where + (index,), _messages.listed_twice(runner))
    return tuple(dict.fromkeys(given))


def orders(b: _Builder, source: _Source, raw: object, schema: Schema, runners: Optional[List[Runner]]) -> List[Order]:
    """``[orders]``: the runners to try first, in order, when a condition holds."""
    known = [r.id for r in runners or ()] + list(b.broken_runners)
    out = []
    final: Optional[str] = None  # an order without when: it always applies, so none after it ever does
    for id, where, spec in b.entries(source, raw, "orders", "Order", b.shapes.OrderSpec):
        if final is not None:
            b.problem(source, where, _messages.order_after_final(id, final))
        if spec.when is None:
            final = id
        when = b.predicate(source, where + ("when",), ALWAYS if spec.when is None else spec.when, schema)
        _everlasting(b, source, where + ("when",), when, schema)
        ok = bool(spec.runners)
        if not spec.runners:
            b.problem(source, where + ("runners",), _messages.empty_order())
        for index, runner in enumerate(spec.runners):
            if runner not in known:
                if runners is not None:
                    b.problem(source, where + ("runners", index), _messages.unknown_choice("runner", runner, known))
                ok = False
            elif runner in spec.runners[:index]:
                b.problem(source, where + ("runners", index), _messages.listed_twice(runner))
                ok = False
        if ok and not spec.fallback:
            ok = _all_tried(b, source, where, id, spec.runners, runners or [])
        if ok and when is not None:
            out.append(Order(id, spec.name, when, tuple(spec.runners), spec.fallback))
    return out


#: The condition of an order without ``when``: it applies wherever no order before it does.
ALWAYS = "True"


def _all_tried(b: _Builder, source: _Source, where: Place, id: str, listed: Sequence[str],
               runners: List[Runner]) -> bool:
    """An order without fallback tries no runner after one that is always a candidate: a
    runner listed after it is never tried, a mistake of the file."""
    always = {r.id for r in runners if r.candidate is None}
    for index, runner in enumerate(listed[:-1]):
        if runner in always:
            b.problem(source, where + ("runners", index + 1), _messages.order_never_tries(id, listed[index + 1], runner))
            return False
    return True


def _everlasting(b: _Builder, source: _Source, where: Place, predicate: Optional[Predicate], schema: Schema) -> None:
    """Requirements, candidacies and orders apply at every version: what they read must exist
    at every version too."""
    if predicate is None:
        return
    for path in sorted(predicate.paths):
        _field_everlasting(b, source, where, path, schema)


def _field_everlasting(b: _Builder, source: _Source, where: Place, path: str, schema: Schema) -> None:
    if not schema.versioned:
        return
    field = schema.get(path)
    if field is not None and (field.since is not None or field.until is not None):
        b.problem(source, where, _messages.not_everlasting(path, window_text(field.window)))
