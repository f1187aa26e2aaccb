"""The release-notes table's part of the documentation model (`matrix._docs_model`): for each
release the matrix names (`matrix._releases.named`) up to the version, what changed for users
since the release before it, as `matrix.diff` finds it between the two (the behaviour and
breaking changes, each in words with its configs and a witness). Its generic table is
`matrix._docs_tables`'s, like every other; a diff per pair of releases takes time, so the table
is not in the default set (`matrix.render.DEFAULT_TABLES`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

import attrs
from packaging.version import Version

from . import _derived
from .schema import Matrix

if TYPE_CHECKING:  # pragma: no cover
    from .diff import DiffReport

#: Said before the release-notes table.
RELEASE_NOTES_INTRO = ("What each release changed for users: every region of configs that resolves differently "
                       "from the release before it (matrix diff of the two), breaking changes first, each with a "
                       "config that shows it.")
NO_RELEASE_NOTES = "No release changed what a config resolves to."


@attrs.frozen
class ReleaseNote:
    """One change a release made for users (a `matrix.diff.Difference` of level behaviour or
    breaking), from release ``previous`` to ``version``."""

    version: str
    previous: str
    id: str
    level: str
    message: str
    region: str
    witness: Dict[str, object]
    features: Tuple[str, ...]

    @property
    def witness_text(self) -> str:
        return json.dumps(self.witness, ensure_ascii=False)


@attrs.frozen
class ReleaseGap:
    """What the diff from ``previous`` to ``version`` did not compare (`DiffReport.undecided`)."""

    version: str
    previous: str
    text: str


def release_notes(matrix: Matrix, v: Version, spell: Callable[[str], str]) -> Tuple[
        Tuple[ReleaseNote, ...], Tuple[ReleaseGap, ...]]:
    """The changes for users of each release up to *v*, oldest release first."""
    from ._releases import named

    versions = [r for r in named(matrix) if r <= v]
    notes: List[ReleaseNote] = []
    gaps: List[ReleaseGap] = []
    for before, after in zip(versions, versions[1:]):
        report = _between(matrix, before, after)
        for change in report.changes:
            if change.level == "cosmetic":
                continue
            notes.append(ReleaseNote(str(after), str(before), change.id, change.level, spell(change.message),
                                     spell(change.region), change.witness, change.features))
        gaps += [ReleaseGap(str(after), str(before), spell(text)) for text in report.undecided]
    return tuple(notes), tuple(gaps)


def _between(matrix: Matrix, before: Version, after: Version) -> DiffReport:
    """The diff of *matrix* from release *before* to *after*, worked out once for as long as
    the matrix lives (`matrix._derived`): a matrix is a value, and so is its diff."""
    from .diff import diff

    kept = _derived.of(matrix).releases
    report: Optional[DiffReport] = kept.get((before, after))
    if report is None:
        report = kept[before, after] = diff(matrix, matrix, old_version=before, new_version=after)
    return report
