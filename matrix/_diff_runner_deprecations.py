"""A runner's own deprecation (``deprecated`` in its runner file), as `matrix.diff` reads it: not
compared yet, said where it can change an answer.

A resolution that ends on a deprecated runner warns (``deprecated-runner``, from the
deprecation's ``since`` on: `matrix._choice.runner_deprecation`). Which configs end on a runner is
compared (automatic choice, a request, their findings); whether the runner's warning is said, and
its words, are not: where a runner both sides have warns in other words (or on one side only) at
the versions compared, a line of ``undecided`` says so (`unread`), never "no change".
"""

from __future__ import annotations

from typing import Any, List, Tuple


def unread(old: Any, new: Any) -> List[Tuple[str, str]]:
    """``(what, where)`` of `matrix._messages.diff_not_compared`, where a runner the two sides
    have (by the new side's ids) warns differently where a resolution ends on it; else nothing."""
    from ._choice import runner_deprecation

    said = {old.ids.get(r.id, r.id): runner_deprecation(old.matrix, r.id, old.plan.version) for r in old.matrix.runners}
    differ = [r.name for r in new.matrix.runners
              if r.id in said and said[r.id] != runner_deprecation(new.matrix, r.id, new.plan.version)]
    if not differ:
        return []
    return [(f"the warning that a runner is deprecated ({', '.join(differ)})", "a config or request that ends on it")]
