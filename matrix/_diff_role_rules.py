"""The rules of a role other than the base that differ between the two sides of ``matrix diff``
(issue 28 with ``[roles]``), as causes of a change of a role's refusal.

Where a runner fills a role other than the base (named in its field, or followed into it), what
refuses the config there is, besides the gates (compared as gates: `matrix._diff.signature`), the
role's declaration (``[roles]``: its field, the runner each of its choices names, the role it
follows, and so on up the chain; none on a side that does not declare it), the runner's
requirements limited to roles other than the base (`Runner.role_requires`: no gate) that name
the role, and the roles its requirement gates name. Where those differ between the sides for a
role and runner, each side's part of `matrix._diff.Side.role_refusing` for them (where that
runner, filling that role, refuses the config) is a cause: the search asks for regions where one
holds (`matrix._diff.Search._causes`), and a finding names the entries that differ
(`matrix._diff_changes._Changes.role_entries`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional, Tuple

import attrs

from . import _choice
from ._nodes import Node
from .schema import Requirement

if TYPE_CHECKING:  # pragma: no cover
    from ._diff import Search, Side


@attrs.frozen
class RoleCause:
    """Where *runner* (the new side's id), filling *role*, refuses the config on the side named
    *side*, its rules there differing from the other side's (`rules`)."""

    side: str
    role: str
    runner: str
    node: Node


def declared(side: Side, role: str) -> object:
    """What of *role*'s declaration on *side* decides which runner fills it: for it and each role
    it follows in turn, its id, field and the runner each choice names (by the new side's ids);
    None where *side* does not declare it."""
    roles = {r.id: r for r in side.matrix.roles}
    if role not in roles:
        return None
    out: List[Tuple[object, ...]] = []
    current: Optional[str] = role
    while current is not None and current in roles and current not in {o[0] for o in out}:
        found = roles[current]
        if found is side.matrix.roles[0]:
            out.append((current,))
            break
        choices = side.matrix.schema.fields[found.field].choices or ()
        named = tuple((c, side.ids.get(_choice.named(side.matrix, c), _choice.named(side.matrix, c))) for c in choices)
        out.append((current, found.field, named))
        current = found.follows
    return tuple(out)


def _runner(side: Side, runner: str) -> Any:
    """*side*'s runner of the new side's id *runner*, or None where it has none."""
    local = side.local(runner) or runner
    return next((r for r in side.matrix.runners if r.id == local), None)


def clauses(side: Side, role: str, runner: str) -> Tuple[Tuple[str, str], ...]:
    """The requirements of *runner* limited to roles other than the base that name *role*, as
    (kind, condition)."""
    found = _runner(side, runner)
    return () if found is None else tuple((c.kind, str(c.condition)) for c in found.role_requires if role in c.roles)


def gates(side: Side, role: str, runner: str) -> Tuple[Tuple[str, bool, bool], ...]:
    """*runner*'s requirement gates that name roles: each one's id, whether it names *role* and
    whether it names any."""
    found = _runner(side, runner)
    if found is None:
        return ()
    return tuple(sorted((g.id, role in g.origin.roles, bool(g.origin.roles)) for g in side.plan.features
                        if isinstance(g.origin, Requirement) and g.origin.runner == found.id and g.origin.roles))


def rules(side: Side, role: str, runner: str) -> object:
    """What, beside the gates, refuses the config where *runner* (the new side's id) fills
    *role* on *side* (the module's docstring)."""
    return declared(side, role), clauses(side, role, runner), gates(side, role, runner), _runner(side, runner) is None


def causes(search: Search) -> List[RoleCause]:
    """Each side's parts of `matrix._diff.Side.role_refusing` whose role and runner have rules
    that differ from the other side's, once each."""
    out: List[RoleCause] = []
    for this, other in ((search.old, search.new), (search.new, search.old)):
        for base in this.plan.no:
            for (role, filler), node in this.role_parts(base):
                runner = this.ids.get(filler, filler)
                if rules(this, role, runner) != rules(other, role, runner):
                    out.append(RoleCause(this.name, role, runner, node))
    return list(dict.fromkeys(out))
