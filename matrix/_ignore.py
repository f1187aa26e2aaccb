"""``[check] ignore``: findings a matrix file says to ignore, each with its reason, as ruff's
``noqa`` comments do; applied by ``matrix check`` over `check.check`'s report."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

import attrs

from . import _messages
from .check import Finding, Report
from .schema import Matrix


@attrs.frozen
class Ignore:
    """One entry: the finding ``code``, the ``gate`` (a feature or runner id) it is about, if
    given, and why it is not a mistake."""

    code: str
    reason: str
    gate: Optional[str]
    index: int

    def matches(self, finding: Finding) -> bool:
        if finding.code != self.code:
            return False
        return self.gate is None or self.gate in (finding.feature, finding.runner) or self.gate in finding.features


def entries(matrix: Matrix) -> List[Ignore]:
    """The ``[check] ignore`` entries of *matrix*'s file (the loader has checked their shape)."""
    if matrix.text is None or "check" not in matrix.text:
        return []
    from .loader import _toml

    raw: Any = _toml().loads(matrix.text).get("check", {})
    return [Ignore(e["code"], e["reason"], e.get("gate"), i) for i, e in enumerate(raw.get("ignore", []))]


def apply(matrix: Matrix, report: Report) -> Tuple[Report, List[Tuple[Finding, Ignore]]]:
    """*report* less the findings an entry ignores, plus an ``ignore-unused`` warning for each
    entry that ignores none (a fixed mistake leaves its entry behind, which would hide the next
    one); and the findings ignored, each with its entry."""
    ignores = entries(matrix)
    if not ignores:
        return report, []
    kept: List[Finding] = []
    ignored: List[Tuple[Finding, Ignore]] = []
    for finding in report.findings:
        entry = next((i for i in ignores if i.matches(finding)), None)
        if entry is None:
            kept.append(finding)
        else:
            ignored.append((finding, entry))
    used = {entry.index for _, entry in ignored}
    for entry in ignores:
        if entry.index not in used:
            place = ("check", "ignore", entry.index)
            line, column = _position(matrix, place)
            kept.append(Finding("ignore-unused", "warning", _messages.ignore_unused(entry.code, entry.gate),
                                feature=entry.gate, place=_messages.place(place), file=matrix.file,
                                line=line, column=column))
    return Report(tuple(kept), strict=report.strict), ignored


def _position(matrix: Matrix, place: Tuple[object, ...]) -> Tuple[Optional[int], Optional[int]]:
    from ._locate import Locations

    assert matrix.text is not None
    where = Locations(matrix.text).key(place)
    return where if where is not None else (None, None)
