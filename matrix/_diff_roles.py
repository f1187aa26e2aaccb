"""Which runner fills each role other than the base (issue 28 with ``[roles]``), as
`matrix.diff` compares it: where both sides serve a config (automatic choice, or a request for a
runner) with the same runner, a role whose runner differs is ``role-runner-changed``.

Once a runner R serves the base role, another role's runner is read on R's effective config F
(`matrix._roles.Filling`): each choice of its field names the runner it stands for (a former id,
the runner it names now), and where the field is None the role it follows gives its own (none
where it follows no role). Each of those cases, read on F and rewritten over the config as given
(`matrix._diff.Side.on_f`), beside a served case of each side (`matrix._diff_warnings.served`,
which a role's refusal leaves out: `matrix._diff.Side.role_refusing`), is a question of the
search: one finding per pair of runners and cause, its region exactly the configs where the role
goes from the one to the other.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from . import _diff, _messages
from ._given import ROLE
from ._nodes import Literal, Node
from ._substitute import conjoin, constant

#: The runner of a role where a condition holds (this side's id, None for no runner).
Options = List[Tuple[Node, Optional[str]]]


def shared(old: Any, new: Any) -> List[str]:
    """The roles other than the base both sides declare (by id), in the new side's order."""
    before = {r.id for r in old.matrix.roles[1:]}
    return [r.id for r in new.matrix.roles[1:] if r.id in before]


def options(side: Any, runner: str, role: str) -> Options:
    """Where *role* is filled by each runner once *runner* serves the base role on *side*, over
    the config as given."""
    from ._roles import Filling

    out: Options = []
    for case, filled in Filling(side.matrix, runner).cases(ROLE + role):
        node = side.on_f(runner, case)
        if constant(node) is not False:
            value = filled.value if isinstance(filled, Literal) else None
            out.append((node, value if isinstance(value, str) else None))
    return out


def regions(search: Any, asked: Optional[str], role: str) -> Dict[Tuple[Optional[str], Optional[str]], List[List[Any]]]:
    """The configs where both sides serve with the same runner and *role* is filled by another
    (automatic choice, or a request for *asked*), by pair of runners (the new side's ids), each
    a list of goal lists (`matrix._diff._goals`)."""
    from . import _diff_warnings

    old, new = search.old, search.new
    what = question(role)
    renamed = search.renamed
    found: Dict[Tuple[Optional[str], Optional[str]], List[List[Any]]] = {}
    for a_question, a_runner, _ in _diff_warnings.served(search, old, asked):
        for b_question, b_runner, _ in _diff_warnings.served(search, new, asked):
            if renamed.get(a_runner, a_runner) != b_runner:
                continue
            pairs = [(conjoin([a, b]), renamed.get(x, x) if x is not None else None, y)
                     for a, x in options(old, a_runner, role) for b, y in options(new, b_runner, role)]
            pairs = [p for p in pairs if p[1] != p[2] and constant(p[0]) is not False]
            if pairs:
                _diff.option_regions(search, a_question, b_question, pairs, what, found)
    return found


def question(role: str) -> str:
    """What a search of *role*'s runner covers, as a line of ``undecided`` says it where it gives up."""
    return f"where the runner of role {role!r} changes"


def said(side: Any, runner: Optional[str]) -> str:
    """A role's runner as a ``role-runner-changed`` change says it: its name, or none."""
    return _messages.DIFF_ROLE_NONE if runner is None else side.matrix.runner(runner).name


def role_of(message: str) -> str:
    """The role a ``role-runner-changed`` change's message is about (`_messages.diff_role_runner`)."""
    return message.split(_messages.DIFF_ROLE_SAID, 1)[1].split("'", 1)[0]
