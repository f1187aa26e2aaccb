"""Roles (issue 30, F1): several selected values of one config, each a runner.

A matrix that declares ``[roles]`` resolves a config into one runner per role, in this order:

1. **The base role** (the first declared). Its request is the runner asked for (``runner=``),
   else the value of its field in the config of choice C (after the adjustments that name no
   runner): a runner id or a former id is a request, validated as a request is (aliases,
   redirects, forced runners, the runner's adjustments, its blockers on the effective config
   F); None leaves the runner to automatic choice. This is `matrix.resolve` without roles, with
   that request: `Resolution.runner` is the base role's runner, and every error is the one a
   matrix without roles raises for that request.
2. **Every other role**, in declaration order, reads its field on F (so an adjustment before
   the choice or of the base runner may set it). A runner id or former id there names that
   role's runner, validated as a runner asked for is, on F: a former id warns
   (``deprecated-alias``), a gate the runner says ``no`` to (or a requirement it fails) refuses
   the config (`UnsupportedFeatureError`, the reason a request for it gets, the runner named in
   its role, without remedies: their search asks for the base role's runner), its ``opt-in``
   and ``partial`` features are said. Its redirects, forced runners and its own adjustments
   play no part (they are the base role's: a host's single request). None: the runner of the
   role it ``follows`` (not validated again), or no runner when it follows none.
3. **Requirements that name roles** (``roles`` on a runner file's clause): one that names the
   base is a gate as any requirement, and applies in another role only where it names that role;
   one that leaves the base out is no gate (`Runner.role_requires`). The runner that fills each
   role but the base, asked for or followed into it, is checked on F against its requirements
   that name that role: one that fails refuses the config (`UnsupportedFeatureError`; of a chain,
   the first clause that fails). One staged after ``choice`` is no gate, and is checked at its
   stage instead, where its runner fills one of its roles (`matrix._staged`).

`Resolution.roles` gives each role's runner, in declaration order (`matrix.resolver` builds it);
the error of a refusal in a role, or of a staged one after the choice, gives them as they stood
there (`standing`).

**Reading a role** (``role.<id>``): a rule read after the choice (an adjustment of a runner or
at a stage after ``choice``, a requirement whose roles leave out the base or staged after
``choice``: the loader refuses it anywhere else, `matrix._load_roles.after_choice`) reads the runner that fills a role at that
point, `At`: for the base, the runner that serves; for another role, its field's value on the
config as it stands there (a former id read as the runner it names now), else, where that is
None, the value of the role it follows (None for a role that follows none). The plan's gates
never read one: an adjustment gate whose condition reads a role says only that it may apply
(`gate`), and its condition, compiled (`Plan.test`), decides on the view, the roles read there. ``matrix check`` rewrites each
``role.<id>`` into the fields it stands for, for each runner that serves (`Filling`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple

from . import _access, _choice, _messages
from ._given import ROLE
from .schema import Requirement

if TYPE_CHECKING:  # pragma: no cover
    from ._choice import ResolutionWarning
    from ._compile import Plan
    from ._nodes import Node
    from .predicates import Predicate
    from .resolver import Resolution
    from .schema import Matrix, Role

#: How a role got its runner, as `Resolution.explanation` says it (``how`` of each role).
ASKED, CHOSEN, FOLLOWS, EMPTY = "asked", "chosen", "follows", "empty"
#: What is known of a role: its id, its runner (or None), how it got it, the role it follows.
Filled = Tuple[str, Optional[str], str, Optional[str]]


def said(matrix: Matrix, role: str, runner: Optional[str], how: str, followed: Optional[str]) -> str:
    """A role as `Resolution.explain` says it."""
    name = next(r.name for r in matrix.roles if r.id == role)
    because = {ASKED: "asked for", CHOSEN: "chosen automatically", FOLLOWS: f"follows {followed}",
               EMPTY: "none asked for, follows no role"}[how]
    return f"{name} ({role}) = {runner if runner is not None else 'none'}, {because}"


def others(compiled: Plan, resolution: Resolution, asked: Optional[str], config: object,
           facts: Optional[Mapping[str, object]], known: Optional[Dict[str, object]] = None
           ) -> Tuple[Tuple[Filled, ...], Tuple[ResolutionWarning, ...]]:
    """Every role filled, given the base role's *resolution* (*asked*: its request, or None), in
    declaration order, and what the other roles' runners say (the module's docstring states the
    rules); a refusal is raised. *known*: what the config holds, as the base's resolution read it
    (`matrix._access.Effective`)."""
    adjusting = resolution._fields[8]
    effective = _access.Effective(config, {} if adjusting is None else dict(adjusting[4]), known)
    warnings: List[ResolutionWarning] = []
    checked: List[Tuple[int, Dict[str, object]]] = []

    def gates() -> Tuple[int, Dict[str, object]]:
        if not checked:
            mask, values = compiled.evaluate(effective, facts)
            checked.append((mask & compiled.asked, dict(zip(compiled.paths, values))))
        return checked[0]

    def named(role: Role, value: object) -> str:
        assert isinstance(value, str)
        return _validated(compiled, resolution, value, role.id, effective, facts, gates(), warnings)

    def followed(role: Role, runner: Optional[str]) -> None:
        if runner is not None and _scoped(compiled, runner, role.id):
            _in_role(compiled, resolution, runner, role.id, effective, facts, gates(), warnings)

    roles = _fill(compiled.matrix, resolution.runner, asked,
                  lambda path: _access.read(effective, path, compiled.reading, facts), named, followed)
    return roles, tuple(warnings)


def standing(matrix: Matrix, runner: Optional[str], asked: Optional[str], read: Callable[[str], object]
             ) -> Tuple[Filled, ...]:
    """Every role's runner, in declaration order, as the roles stand where *read* reads the
    config (its fields), *runner* serving the base (asked for where *asked*: the base's
    request): what the error of a refusal after the choice says of them (`Resolution.roles`),
    by the rules of `others` and without validating (a former id read as the runner it names)."""
    return _fill(matrix, runner, asked, read, lambda role, value: _choice.named(matrix, value))


def _fill(matrix: Matrix, runner: Optional[str], asked: Optional[str], read: Callable[[str], object],
          named: Callable[[Role, object], Optional[str]],
          followed: Optional[Callable[[Role, Optional[str]], None]] = None) -> Tuple[Filled, ...]:
    """Every role's runner, in declaration order, by the rules of `others`: *runner* serves the
    base (asked for where *asked*), every other role, each after the one it follows, reads its
    field with *read*; a value names its runner through *named* (which may validate it), None
    takes the followed role's runner, then given to *followed*."""
    base, *rest = matrix.roles
    found: Dict[str, Optional[str]] = {base.id: runner}
    out: Dict[str, Filled] = {base.id: (base.id, runner, CHOSEN if asked is None else ASKED, None)}
    for role in _in_order(rest):
        value = read(role.field)
        if value is not None:
            found[role.id] = named(role, value)
            out[role.id] = (role.id, found[role.id], ASKED, None)
        else:
            found[role.id] = found.get(role.follows) if role.follows is not None else None
            out[role.id] = (role.id, found[role.id], FOLLOWS if role.follows is not None else EMPTY, role.follows)
            if followed is not None:
                followed(role, found[role.id])
    return tuple(out[r.id] for r in matrix.roles)


def _in_order(roles: List[Role]) -> List[Role]:
    """*roles* in declaration order, each after the role it follows (the loader refuses cycles)."""
    out: List[Role] = []
    left = list(roles)
    while left:
        done = {r.id for r in out}
        ready = next(r for r in left if r.follows is None or r.follows in done or r.follows not in
                     {o.id for o in left})
        out.append(ready)
        left.remove(ready)
    return out


def of_choice(compiled: Plan, role: Role, config: object, facts: Optional[Mapping[str, object]],
              known: Optional[Dict[str, object]] = None, basis: Optional[Tuple[int, Dict[str, object]]] = None
              ) -> Optional[str]:
    """The base role's field in the config of choice: as given, unless an adjustment before the
    choice sets it (*known*: what the config holds, remembered as read: `matrix._access.Effective`;
    *basis*: the plan's gates on it, `matrix.resolver._walk`)."""
    if not any(role.field in a.set for a in compiled.pre_adjustments):
        value = _access.read(config, role.field, compiled.reading, facts)
    else:
        from . import _adjust

        view = _access.Effective(config, None, known)
        _adjust.apply(compiled.pre_adjustments, view, compiled.reading, facts, None, None,
                      None if basis is None else functools.partial(compiled.holds, *basis))
        value = _access.read(view, role.field, compiled.reading, facts)
    assert value is None or isinstance(value, str)
    return value


def _validated(compiled: Plan, resolution: Resolution, asked: str, role: str, effective: _access.Effective,
               facts: Optional[Mapping[str, object]], checked: Tuple[int, Dict[str, object]],
               warnings: List[ResolutionWarning]) -> str:
    """The runner a role's field names (*asked*: an id or a former id), validated on F as a
    request is, but for its requirements that apply in other roles only (`_in_role` checks those
    of *role*); what it says joins *warnings*, an error is raised with the base's resolution."""
    _choice.asked(compiled, asked)
    alias: List[ResolutionWarning] = []
    runner = _choice.former(compiled, asked, alias)
    alias = list(_choice.alias_said(compiled, asked, lambda p: _access.read(effective, p, compiled.reading, facts),
                                    tuple(alias)))
    mask, values = checked
    more, error, message = _choice.serve(compiled, mask & ~_elsewhere(compiled, runner, role), runner, runner, None,
                                         None, values, role=role)
    if error is not None:
        _refuse(compiled, resolution, error, message or "", tuple(warnings) + tuple(alias), role, runner, effective,
                facts)
    known = set(resolution.warnings) | set(warnings)
    warnings += [w for w in (*alias, *more) if w not in known]
    _in_role(compiled, resolution, runner, role, effective, facts, checked, warnings)
    return runner


def _refuse(compiled: Plan, resolution: Resolution, error: Any, message: str, warnings: Tuple[ResolutionWarning, ...],
            role: str, runner: str, effective: _access.Effective, facts: Optional[Mapping[str, object]],
            kinds: Optional[List[Optional[str]]] = None) -> None:
    """Raise *error* with the base's resolution, its runner None (as every error's), saying that
    *runner*, filling *role*, refused the config (`Resolution.role_refusal`) and every role's
    runner on F (`standing`: the base's is its resolution's); *kinds*, the failed requirements'
    exception kinds in the order the message says them, give `ResolutionError.kind` (the base's
    gates do not say it): the first that is not None."""
    _, requested, told, plan, fmask, fvalues, config, given_facts, adjusting = resolution._fields
    roles = standing(compiled.matrix, resolution.runner, requested,
                     lambda path: _access.read(effective, path, compiled.reading, facts))
    refused = type(resolution)(plan, fmask, fvalues, None, requested, told + warnings, config, given_facts,
                               adjusting)._in_role_refused({"role": role, "runner": runner, "reason": message}, roles)
    raised = error(message, refused)
    if kinds is not None:
        raised.__dict__["_kind"] = next((k for k in kinds if k is not None), None)
    raise raised


def _elsewhere(compiled: Plan, runner: str, role: str) -> int:
    """The gates of *runner*'s requirements that apply in roles other than *role* only."""
    return sum(1 << i for i, g in enumerate(compiled.features) if isinstance(g.origin, Requirement)
               and g.origin.runner == runner and g.origin.roles and role not in g.origin.roles)


def _scoped(compiled: Plan, runner: str, role: str) -> bool:
    """Whether *runner* has a requirement that names *role* (`_in_role` checks them)."""
    found = compiled.matrix.runner(runner)
    return any(role in r.roles for r in (*found.requires, *found.role_requires))


def _in_role(compiled: Plan, resolution: Resolution, runner: str, role: str, effective: _access.Effective,
             facts: Optional[Mapping[str, object]], checked: Tuple[int, Dict[str, object]],
             warnings: List[ResolutionWarning]) -> None:
    """Refuse the config where *runner*, filling *role*, fails a requirement that names that
    role, on F: of each kind, the first clause of the chain that fails (its reason said)."""
    from ._templates import filled
    from .errors import UnsupportedFeatureError
    from .predicates import truth

    mask, values = checked
    gates = [g for g in compiled.active(mask)
             if isinstance(g.origin, Requirement) and g.origin.runner == runner and role in g.origin.roles]
    reasons = [_choice.reason(compiled, g, values) for g in gates]
    alone = [r for g, r in zip(gates, reasons) if getattr(g.origin, "alone", False)]
    kinds = [getattr(g.origin, "error_kind", None) for g in gates]
    found = compiled.matrix.runner(runner)

    def plain(path: str) -> object:
        return _access.read(effective, path, compiled.reading, facts)

    assert resolution.runner is not None
    read = reader(compiled.matrix, resolution.runner, plain)  # on F, the base's runner serving
    failed = set()
    for clause in found.role_requires:
        if role in clause.roles and clause.kind not in failed and not truth(clause.condition.node, read):
            failed.add(clause.kind)
            reasons.append(filled(clause.reason, read))
            kinds.append(clause.error_kind)
            if clause.alone:
                alone.append(reasons[-1])
    if reasons:
        said = [k for r, k in zip(reasons, kinds) if r in alone] + [k for r, k in zip(reasons, kinds) if r not in alone]
        _refuse(compiled, resolution, UnsupportedFeatureError,
                _messages.does_not_support(_messages.in_role(found.name, role), [], [r for r in reasons if r not in alone],
                                           alone=alone),
                tuple(warnings), role, runner, effective, facts, said)


def reads_role(when: Predicate) -> bool:
    """Whether *when* reads the runner that fills a role."""
    return any(p.startswith(ROLE) for p in when.paths)


def gate(when: Predicate) -> Predicate:
    """The condition of an adjustment's gate in the compiled plan (read on the config before the
    choice, to tell whether it may apply): its ``when``, or True where that reads a role, which
    is known only after the choice (`At`: `Plan.test` reads it there)."""
    if not reads_role(when):
        return when
    from .predicates import Predicate

    return Predicate("True")


class At:
    """The runners that fill the roles once *runner* serves, read on a config as it stands (the
    module's docstring states the rule): ``read(path)`` for ``role.<id>``, and any other path
    read through *read*."""

    __slots__ = ("matrix", "base", "runner", "roles", "through")

    def __init__(self, matrix: Matrix, runner: str, through: Callable[[str], object]) -> None:
        self.matrix = matrix
        self.base = matrix.roles[0].id
        self.runner = runner
        self.roles = {r.id: r for r in matrix.roles}
        self.through = through

    def read(self, path: str) -> object:
        if not path.startswith(ROLE):
            return self.through(path)
        role: Optional[str] = path[len(ROLE):]
        seen = set()
        while role is not None and role not in seen:
            if role == self.base:
                return self.runner
            seen.add(role)
            found = self.roles[role]
            value = self.through(found.field)
            if value is not None:
                assert isinstance(value, str)
                return _choice.named(self.matrix, value)
            role = found.follows
        return None


def reader(matrix: Matrix, runner: Optional[str], through: Callable[[str], object]) -> Callable[[str], object]:
    """*through*, or, where *matrix* has roles and *runner* serves, a reader of ``role.<id>``
    besides (`At`)."""
    if runner is None or not matrix.roles:
        return through
    return At(matrix, runner, through).read


def reading(matrix: Matrix, runner: Optional[str]) -> Optional[Callable[[Callable[[str], object]], Callable[[str], object]]]:
    """What `matrix._adjust.apply` takes to read the roles once *runner* serves: None where
    *matrix* has none (or before the choice)."""
    if runner is None or not matrix.roles:
        return None
    return functools.partial(reader, matrix, runner)


class Filling:
    """``matrix check``'s reading of ``role.<id>`` once *runner* serves (`At`, as a predicate): a
    step of `matrix._substitute.substituted` whose cases for a role are, over the config as it
    stands, *runner* for the base; for another role, each choice of its field (a former id as
    the runner it names), and where the field is None the cases of the role it follows (None for
    a role that follows none). Exact: a role's field is a str with choices."""

    def __init__(self, matrix: Matrix, runner: str) -> None:
        self.at = At(matrix, runner, lambda path: None)
        self.schema = matrix.schema

    def affects(self, path: str) -> bool:
        return path.startswith(ROLE)

    def cases(self, path: str) -> List[Tuple[Node, Node]]:
        from ._nodes import Compare, IsNone, Literal, Path
        from ._substitute import conjoin

        at = self.at
        out: List[Tuple[Node, Node]] = []
        unless: List[Node] = []  # the fields of the roles followed so far read None
        role: Optional[str] = path[len(ROLE):]
        seen = set()
        while role is not None and role not in seen:
            if role == at.base:
                out.append((conjoin(unless), Literal(at.runner)))
                return out
            seen.add(role)
            field = at.roles[role].field
            for choice in self.schema.fields[field].choices or ():
                out.append((conjoin([*unless, Compare(Path(field), "==", Literal(choice))]),
                            Literal(_choice.named(at.matrix, choice))))
            unless.append(IsNone(Path(field), False))
            role = at.roles[role].follows
        out.append((conjoin(unless), Literal(None)))
        return out

    def __call__(self, node: Node) -> Node:
        from ._substitute import substituted

        return substituted(self, node)


def filling(matrix: Matrix, runner: str) -> Optional[Callable[[Node], Node]]:
    """`Filling` for *runner*, where *matrix* has roles and a rule after the choice reads one (an
    adjustment, or a staged requirement: issue 30, F6; a staged requirement of roles reads
    whether its runner fills one)."""
    if not matrix.roles or not any(reads_role(r.when) for r in matrix.adjustments) and not any(
            reads_role(c.condition) or c.roles for c in matrix.staged):
        return None
    return Filling(matrix, runner)
