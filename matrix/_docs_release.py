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
#: A version below every one a file can name: what held before its first release is read there.
_BEFORE_ALL = Version("0.dev0")


@attrs.frozen
class ReleaseNote:
    """One change a release made for users (a `matrix.diff.Difference` of level behaviour or
    breaking), from release ``previous`` to ``version`` (``previous`` None: from what the file says held
    before ``version``, the first release it names)."""

    version: str
    previous: Optional[str]
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
    """What the diff from ``previous`` to ``version`` did not compare (`DiffReport.undecided`;
    ``previous`` as a note's)."""

    version: str
    previous: Optional[str]
    text: str


def gaps_said(gaps: Tuple[ReleaseGap, ...], releases: Tuple[str, ...]) -> Tuple[Tuple[str, str], ...]:
    """What the diffs of *releases* (each release's from the one before it) did not compare, each
    once, with the releases whose diff did not: ``(releases in words, text)``, in the order they
    are first said. A user trial read the same "Not compared" lines under the table again for
    every release; a reader of one release finds its own beside those of every release."""
    by_text: Dict[str, List[str]] = {}
    for gap in gaps:
        versions = by_text.setdefault(gap.text, [])
        if gap.version not in versions:
            versions.append(gap.version)
    return tuple((_releases_said(versions, releases), text) for text, versions in by_text.items())


def _releases_said(versions: List[str], releases: Tuple[str, ...]) -> str:
    if len(releases) > 1 and tuple(versions) == releases:
        return "Every release"
    if len(versions) == 1:
        return f"Release {versions[0]}"
    return f"Releases {', '.join(versions[:-1])} and {versions[-1]}"


def release_notes(matrix: Matrix, v: Version, spell: Callable[[str], str]) -> Tuple[
        Tuple[ReleaseNote, ...], Tuple[ReleaseGap, ...], Tuple[str, ...]]:
    """The changes for users of each release up to *v*, oldest release first; what each release's
    diff did not compare; and the releases compared (each with the one before it)."""
    from ._releases import named

    versions = [r for r in named(matrix) if r <= v]
    notes: List[ReleaseNote] = []
    gaps: List[ReleaseGap] = []
    # The first release the file names is compared with what the file says held before it (a
    # statement without `since` beside one from that release on: a user trial found its changes
    # missing), read at a version below every one it names.
    pairs = list(zip(versions, versions[1:]))
    if versions and versions[0] > _BEFORE_ALL:
        pairs.insert(0, (_BEFORE_ALL, versions[0]))
    for before, after in pairs:
        report = _between(matrix, before, after)
        previous = str(before) if before != _BEFORE_ALL else None
        for change in report.changes:
            if change.level == "cosmetic":
                continue
            notes.append(ReleaseNote(str(after), previous, change.id, change.level, spell(change.message),
                                     spell(change.region), change.witness, change.features))
        gaps += [ReleaseGap(str(after), previous, spell(text)) for text in report.undecided]
    return tuple(notes), tuple(gaps), tuple(str(after) for _, after in pairs)


def _between(matrix: Matrix, before: Version, after: Version) -> DiffReport:
    """The diff of *matrix* from release *before* to *after*, worked out once for as long as
    the matrix lives (`matrix._derived`): a matrix is a value, and so is its diff."""
    from .diff import diff

    kept = _derived.of(matrix).releases
    report: Optional[DiffReport] = kept.get((before, after))
    if report is None:
        report = kept[before, after] = diff(matrix, matrix, old_version=before, new_version=after)
    return report
