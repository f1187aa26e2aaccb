"""``[check] ignore``: findings a matrix file says to ignore, each with its reason, as ruff's
``noqa`` comments do; applied by ``matrix check`` over `check.check`'s report."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import attrs

from . import _messages
from .check import Finding, Report
from .schema import Matrix


@attrs.frozen
class Ignore:
    """One entry: the finding ``code``, the ``gate`` (a feature, runner or ``[refusals]`` id) it
    is about, if given, and why it is not a mistake."""

    code: str
    reason: str
    gate: Optional[str]
    index: int
    #: The file the entry is written in and its text (a composed matrix's are upstream's).
    file: Optional[str] = None
    text: Optional[str] = attrs.field(default=None, repr=False)

    def matches(self, finding: Finding) -> bool:
        if finding.code != self.code:
            return False
        return self.gate is None or self.gate in (finding.feature, finding.runner) or self.gate in finding.features \
            or finding.place == _messages.place(("refusals", self.gate))  # a finding about a [refusals] entry


def entries(matrix: Matrix) -> List[Ignore]:
    """The ``[check] ignore`` entries of *matrix*'s file (the loader has checked their shape); of
    a composed matrix, upstream's (a user trial found upstream's entries dropped from the
    composed matrix's check, and the findings they ignore said again), then each overlay's of
    the chain, in the order they apply (an overlay acknowledges what it creates)."""
    overlay = matrix.overlay
    if overlay is None:
        return _read(matrix.text, matrix.file)
    texts: Dict[str, Optional[str]] = {}  # each file once, as the loader read it (`Overlay.checked`)
    for file, text in overlay.checked:
        texts.setdefault(file, text)
    return [entry for file, text in texts.items() for entry in _read(text, file)]


def _read(text: Optional[str], name: Optional[str]) -> List[Ignore]:
    if text is None or "check" not in text:
        return []
    from .loader import _toml

    raw: Any = _toml().loads(text).get("check", {})
    return [Ignore(e["code"], e["reason"], e.get("gate"), i, name, text) for i, e in enumerate(raw.get("ignore", []))]


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
    used = {(entry.file, entry.index) for _, entry in ignored}
    for entry in ignores:
        if (entry.file, entry.index) not in used:
            place = ("check", "ignore", entry.index)
            line, column = _position(entry.text, place)
            kept.append(Finding("ignore-unused", "warning", _messages.ignore_unused(entry.code, entry.gate),
                                feature=entry.gate, place=_messages.place(place), file=entry.file,
                                line=line, column=column))
    return Report(tuple(kept), strict=report.strict), ignored


def _position(text: Optional[str], place: Tuple[object, ...]) -> Tuple[Optional[int], Optional[int]]:
    from ._locate import Locations

    assert text is not None
    where = Locations(text).key(place)
    return where if where is not None else (None, None)
