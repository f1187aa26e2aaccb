"""A request by a runner's former id (an ``aliases`` entry of a runner file), as `matrix.diff`
compares it: ``alias-warning-added`` and ``-lifted``.

A request by a former id asks for the runner it names, with a warning of kind
``deprecated-alias`` from the alias's ``since`` on, and is refused (a usage error) from its
``remove_in`` on (`matrix._choice.former`, `matrix._choice.asked`). Which of those a side does
is decided by the side's version alone, for every config, whether the request is then served
or refused: so a change of it holds for every config, and is one finding per former id. A
runner renamed with its former id kept as an alias is the common case: the old side serves a
request by that id as the runner's own, the new side warns from the alias's ``since`` on.

Compared: whether the warning is said, where both sides accept the id and it names the same
runner (by the new side's ids). Not compared, said so (`matrix._diff_unread._unread_words`): an id one
side refuses (an alias removed, or added where the id named nothing), another runner named,
and the words of the warning (its versions, its message) where both say it. The runner a
warning names (``use 'bb' instead``) is compared by the new side's id: a runner renamed is said
by ``renamed``, not again by each of its former ids.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

#: What a side does with a request by a former id: ``("runner", id)`` (the id is a runner's own),
#: ``("served", runner)``, ``("warned", runner, since, remove_in, message)``, ``("removed",
#: runner, remove_in, message)``, or None (the id names nothing: a usage error).
State = Optional[Tuple[str, ...]]


def state(side: Any, former: str) -> State:
    """What *side* does with a request by *former*, its runner by the new side's id."""
    from ._choice import _str

    plan = side.plan
    alias = plan.aliases.get(former)
    if alias is None:
        return ("runner", side.ids.get(former, former)) if former in plan.no else None
    d, target = alias.deprecation, side.ids.get(alias.runner, alias.runner)
    if d.is_removed(plan.version):
        return ("removed", target, str(d.remove_in), d.message or "")
    if plan.version >= d.since:
        return ("warned", target, str(d.since), _str(d.remove_in) or "", d.message or "")
    return ("served", target)


def formers(old: Any, new: Any) -> List[str]:
    """Every former id either side has (an alias at its version), each once, sorted."""
    return sorted({a for side in (old, new) for a in side.plan.aliases})


def warned(found: State) -> Optional[bool]:
    """Whether a request by the id is warned (None: refused, or the id names nothing)."""
    if found is None or found[0] == "removed":
        return None
    return found[0] == "warned"


def compared(old: Any, new: Any, former: str) -> Optional[str]:
    """The change id of a request by *former* where the diff compares it (``alias-warning-added``
    or ``-lifted``: both sides accept it, for the same runner, one warns), else None."""
    before, after = state(old, former), state(new, former)
    said = warned(before), warned(after)
    if None in said or said[0] == said[1] or before is None or after is None or before[1] != after[1]:
        return None
    return "alias-warning-added" if said[1] else "alias-warning-lifted"


def unread(old: Any, new: Any, former: str) -> bool:
    """Whether a request by *former* differs between the sides in what the diff does not compare
    (an id one side refuses, another runner, or the warning's words where both warn)."""
    before, after = state(old, former), state(new, former)
    if before == after or compared(old, new, former) is not None:
        return False
    accepted = [s is not None and s[0] != "removed" for s in (before, after)]
    # Accepted alike, the same runner, neither warning: no answer differs (a runner's own id
    # before, an alias not yet warned after).
    return not (all(accepted) and before is not None and after is not None and before[1] == after[1]
                and not warned(before) and not warned(after))


def entry_side(old: Any, new: Any, former: str) -> Any:
    """The side whose runner file holds the alias that makes the change (the new side's where
    it has it, else the old side's)."""
    return new if former in new.plan.aliases else old
