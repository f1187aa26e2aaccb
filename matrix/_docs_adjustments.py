"""The adjustments table's part of the documentation model (`matrix._docs_model`): per
adjustment in force at the version, who applies it, when, what it sets and how, what it says,
and in which releases. Its generic table is `matrix._docs_tables`'s, like every other."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Tuple, Union

import attrs
from packaging.version import Version

from . import _stages
from ._docs_overlay import adjustments_set
from .schema import Adjustment, From, Matrix

#: Said before the adjustments table: the order `matrix._adjust` applies them in.
ADJUSTMENTS_INTRO = ("The changes the host makes to a config, in the order they apply: those before the choice "
                     "apply to every config, each reading the values the ones before it set, and the runner is "
                     "chosen on the result; then the adjustments of the runner that serves apply, and that runner "
                     "is validated on the final config. In a message, {path} is that path's value before the "
                     "adjustment applied.")
NO_ADJUSTMENTS = "No adjustment is in force at this version."
#: The "Applies to" cell of an adjustment that names no runner.
BEFORE_CHOICE = "every config, before the choice"
#: The "Applies to" cell of an adjustment that names no runner, at a stage after the choice (F6).
AFTER_CHOICE = "every config a runner serves, after the choice"
#: The Message cell of an adjustment without a message of its own (`matrix._messages.adjusted`).
GENERATED_MESSAGE = "generated, per path: <name>: set <path> from <before> to <after>"
#: The Sets cell of a notice (an adjustment without ``set``), and what the Message cell adds for
#: one that says its message always.
NOTICE_SETS = "nothing: a notice"
SAYS_ALWAYS = " (said wherever it holds, a value changed or not)"


@attrs.frozen
class SetRow:
    """One path an adjustment sets: to ``value`` (None: unset), or, with ``source``, to the
    value that path holds (``{ from = "path" }``), times ``times`` when given."""

    path: str
    value: object
    source: Optional[str]
    value_text: str  # the value as Python writes it; "" with a source
    times: Union[int, float, None] = None


@attrs.frozen
class AdjustmentRow:
    """One adjustment, as the adjustments table shows it."""

    id: str
    name: str
    runners: Tuple[str, ...]  # ids, priority order; empty: before the choice
    applies: str  # BEFORE_CHOICE (AFTER_CHOICE at a stage after it), or the runners' names
    when: str
    sets: Tuple[SetRow, ...]
    override: bool
    level: str
    message: Optional[str]
    since: Optional[str]
    until: Optional[str]
    links: Tuple[str, ...]
    #: ``always``: its message is said wherever its condition holds (a notice: no sets).
    says: str = "changes"
    #: The overlay that set it, of a composed matrix (`matrix._docs_overlay.adjustments_set`).
    overlay: Optional[str] = None
    #: The stage it applies at, for a matrix that declares ``[matrix] stages`` (issue 30, F6: one
    #: that names none is at ``choice``); None without stages.
    stage: Optional[str] = None

    @property
    def lifecycle(self) -> str:
        """``since 0.32.0``, ``until 2.0``, both (``; ``), or ""."""
        return "; ".join([*([f"since {self.since}"] if self.since else []),
                          *([f"until {self.until}"] if self.until else [])])


def adjustment_rows(matrix: Matrix, v: Version, spell: Callable[[str], str],
                    value_text: Callable[[object], str]) -> Tuple[AdjustmentRow, ...]:
    """The adjustments in force at *v*: those before the choice first, then the runners'
    (declaration order within each, the order each stage applies them in)."""
    names = {r.id: r.name for r in matrix.runners}  # priority order
    found = matrix.adjustments_at(v)
    ordered = [a for a in found if not a.runners] + [a for a in found if a.runners]
    set_by = adjustments_set(matrix)
    if matrix.stages:  # stage by stage (`matrix._stages`): before the choice, then after it
        before = _stages.before_choice(matrix.stages, found)
        ordered = [*before, *sorted((a for a in found if a not in before),
                                    key=lambda a: matrix.stages.index(a.stage or _stages.CHOICE))]
        return tuple(attrs.evolve(_row(a, names, spell, value_text, after=a not in before), overlay=set_by.get(a.id),
                                  stage=spell(a.stage or _stages.CHOICE)) for a in ordered)
    return tuple(attrs.evolve(_row(a, names, spell, value_text), overlay=set_by.get(a.id)) for a in ordered)


def _row(adjustment: Adjustment, names: Dict[str, str], spell: Callable[[str], str],
         value_text: Callable[[object], str], after: bool = False) -> AdjustmentRow:
    sets = tuple(SetRow(spell(path), None, spell(value.path), "", value.times) if isinstance(value, From)
                 else SetRow(spell(path), value, None, spell(value_text(value)))
                 for path, value in adjustment.set.items())
    runners = tuple(r for r in names if r in adjustment.runners)  # as the support table's columns
    applies = ", ".join(spell(names[r]) for r in runners) if runners else AFTER_CHOICE if after else BEFORE_CHOICE
    return AdjustmentRow(spell(adjustment.id), spell(adjustment.name), tuple(spell(r) for r in runners),
                         applies, spell(str(adjustment.when)), sets, adjustment.override, adjustment.level,
                         None if adjustment.message is None else spell(adjustment.message),
                         None if adjustment.since is None else str(adjustment.since),
                         None if adjustment.until is None else str(adjustment.until), adjustment.links,
                         adjustment.says)
