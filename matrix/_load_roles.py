"""The ``[roles]`` table (issue 30, F1): the selected values of one config, the base first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, Tuple

import attrs

from . import _messages
from ._given import ROLE
from ._stages import CHOICE
from .schema import Field, Role, Runner, Schema

if TYPE_CHECKING:  # pragma: no cover
    from .loader import _Builder, _Source


def roles(b: _Builder, source: _Source, raw: object, schema: Schema, runners: Optional[List[Runner]]) -> List[Role]:
    """``[roles]``: each role's field (a nullable str whose choices name runners, its own) and
    the role it follows (a declared role other than the base, in no cycle)."""
    out: List[Role] = []
    fields: Dict[str, str] = {}
    # The former ids as the runner files spell them (read before their aliases are checked, so that
    # a rule may read a role: `typed`); a mistake in one is said by its own unit.
    specs = [b.runner_specs[r.id][1] for r in runners or () if r.id in b.runner_specs]
    names = ([r.id for r in runners or ()] + [a.id for r in runners or () for a in r.aliases]
             + [a.id for spec in specs for a in spec.aliases if isinstance(getattr(a, "id", None), str)]
             + list(b.broken_runners))
    entries = list(b.entries(source, raw, "roles", "Role", b.shapes.RoleSpec))
    ids = [id for id, _, _ in entries]
    for id, where, spec in entries:
        ok = _field(b, source, where + ("field",), spec.field, schema, names if runners is not None else None)
        if ok and spec.field in fields:
            b.problem(source, where + ("field",), _messages.role_field_twice(spec.field, fields[spec.field]))
            ok = False
        fields.setdefault(spec.field, id)
        if spec.follows is not None:
            if id == ids[0]:
                b.problem(source, where + ("follows",), _messages.role_base_follows(id))
                ok = False
            elif spec.follows not in ids:
                b.problem(source, where + ("follows",), _messages.unknown_choice("role", spec.follows, ids))
                ok = False
        if ok:
            out.append(Role(id, spec.name, spec.field, spec.follows))
    follows = {id: spec.follows for id, _, spec in entries if spec.follows in ids and id != ids[0]}
    said: Set[str] = set()
    for id in follows:
        cycle = [id]
        while follows.get(cycle[-1]) is not None and follows[cycle[-1]] not in cycle:
            cycle.append(follows[cycle[-1]])
        if follows.get(cycle[-1]) == id and not said & set(cycle):
            said |= set(cycle)
            b.problem(source, ("roles", id, "follows"), _messages.role_cycle([*cycle, id]))
    return [r for r in out if r.id not in said]


def _field(b: _Builder, source: _Source, where: Tuple[object, ...], path: str, schema: Schema,
           names: Optional[List[str]]) -> bool:
    """Whether *path* is a field a role may hold its runner in (said, else)."""
    field = schema.fields.get(path)
    if field is None:
        if not any(path == p or path.startswith(p + ".") for p in b.broken):
            b.problem(source, where, _messages.unknown_path(path, schema.fields))
        return False
    what = (f"it is {'a nullable ' if field.nullable else ''}{field.type}" if field.type != "str" or not field.nullable
            else "it has no choices" if field.choices is None else None)
    if what is not None:
        b.problem(source, where, _messages.role_field(path, what))
        return False
    ok = True
    for choice in field.choices or ():
        if names is not None and choice not in names:
            b.problem(source, where, _messages.role_field_choice(choice, path))
            ok = False
    return ok


def scoped(b: _Builder, runners: List[Runner], roles: List[Role], declared: List[str]) -> List[Runner]:
    """*runners* with each requirement's ``roles`` checked against the *declared* role ids (said,
    else), and those that leave out the base role moved to `Runner.role_requires`: no gate of
    choice, checked where the runner fills one of their roles (`matrix._roles`)."""
    out = []
    base = declared[0] if declared else None
    for runner in runners:
        source = b.runner_specs[runner.id][0] if runner.id in b.runner_specs else None
        said = set()
        for requirement in runner.requires:
            for role in requirement.roles:
                if role in declared or (requirement.kind, role) in said or source is None:
                    continue
                said.add((requirement.kind, role))
                b.problem(source, ("requires", requirement.kind), _messages.unknown_choice("role", role, declared)
                          if declared else _messages.no_roles_declared(role))
        gates = tuple(r for r in runner.requires if not r.roles or base in r.roles)
        if len(gates) != len(runner.requires):
            runner = attrs.evolve(runner, requires=gates,
                                  role_requires=tuple(r for r in runner.requires if r.roles and base not in r.roles))
        out.append(runner)
    return out


def typed(schema: Schema, roles: List[Role], declared: List[str], runners: Optional[List[Runner]]) -> Schema:
    """*schema* with the runner that fills each *declared* role, ``role.<id>`` (`Schema.roles`): a
    str whose choices are the runner ids, None only where the role may have no runner (it follows
    no role, or follows one that may have none, or failed to load; never the base, the first
    declared, which a runner fills wherever a rule after the choice is read)."""
    if not declared:
        return schema
    base = declared[0]
    follows = {r.id: r.follows for r in roles}

    def may_be_none(role: Optional[str], seen: Tuple[str, ...] = ()) -> bool:
        if role == base:
            return False
        if role is None or role not in follows or role in seen:
            return True
        return may_be_none(follows[role], (*seen, role))

    ids = tuple(sorted(r.id for r in runners or ()))
    return attrs.evolve(schema, roles={ROLE + r: Field(ROLE + r, "str", nullable=may_be_none(r), choices=ids)
                                       for r in declared})


def after_choice(b: _Builder, *, runners: Sequence[str] = (), stage: Optional[str] = None,
                 roles: Sequence[str] = ()) -> bool:
    """Whether a rule is read only once a runner is chosen, so that it may read a role
    (``role.<id>``): an adjustment of *runners*, or at a *stage* after ``choice``; a requirement
    whose *roles* leave out the base (no gate: checked on the effective config), or staged after
    ``choice`` (issue 30, F6: checked for the runner that serves). This is the one place that says so."""
    stages = b.stages
    if stage is not None and stage not in stages:
        return True  # an unknown stage (or stages not declared) is its own problem, said once
    if stage is not None and CHOICE in stages and stages.index(stage) > stages.index(CHOICE):
        return True
    return bool(runners) or (bool(roles) and b.base_role is not None and b.base_role not in roles)
