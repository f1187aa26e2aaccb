"""The report of ``matrix diff``: its levels, the ids of its changes (`CHANGES`), a finding
(`Difference`), the entries it names (`Entry`) and the report (`DiffReport`). Re-exported by
`matrix.diff`."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Sequence, Tuple, get_args

import attrs

from . import _messages


Level = Literal["breaking", "behaviour", "cosmetic"]
#: Most severe first.
LEVELS: Tuple[Level, ...] = get_args(Level)

#: The ``why`` of an answer refused by a role other than the base (`matrix._diff.Side.role_refusing`).
ROLE_REFUSAL = "role"

#: id → (default level, what it means).
CHANGES: Dict[str, Tuple[Level, str]] = {
    "served-refused": ("breaking", "configs automatic choice served are refused: no runner is free"),
    "request-refused": ("breaking", "a runner that served a request for it now refuses it"),
    "runner-removed": ("breaking", "a runner that served a request for it is gone (no former id kept as an alias, or its alias removed): a request for it is a usage error"),
    "removed-without-deprecation": ("breaking", "configs are refused for a feature removed without a deprecation period (the old side's entry declares none that starts by the new side's version)"),
    "removed-early": ("breaking", "configs are refused for a feature removed before its announced remove_in"),
    "config-rejected": ("breaking", "a [config] value that was accepted is now a config error (a choice, bound or default gone)"),
    "config-field-removed": ("breaking", "a [config] field is no longer declared: resolve() ignores a value given for it, resolve(strict=True) and matrix resolve refuse it"),
    "refusal-kind-changed": ("breaking", "a refusal raises another exception kind (a requirement's kind): a host's callers catch the kind they know"),
    "removed": ("behaviour", "configs are refused for a feature removed at or after its announced remove_in, after a deprecation period (one that starts after the old side's version counts: the releases between warned)"),
    "removal-lifted": ("behaviour", "configs refused for a removed feature are resolved again"),
    "runner-changed": ("behaviour", "automatic choice picks another runner"),
    "refused-served": ("behaviour", "configs automatic choice refused are served"),
    "fallback-added": ("behaviour", "automatic choice picks the same runner, now with a fallback warning"),
    "fallback-lifted": ("behaviour", "automatic choice picks the same runner, without the fallback warning"),
    "preference-added": ("behaviour", "automatic choice picks the same runner, now because a feature prefers it"),
    "preference-lifted": ("behaviour", "automatic choice picks the same runner, no longer by a preference"),
    "redirected-added": ("behaviour", "automatic choice picks the same runner, now by a redirect that applies always"),
    "redirected-lifted": ("behaviour", "automatic choice picks the same runner, no longer by a redirect that applies always"),
    "preference-changed": ("behaviour", "automatic choice picks the same runner, now because another feature prefers it (its warning names that feature)"),
    "role-runner-changed": ("behaviour", "configs served by the same runner have another runner in a role other than the base"),
    "request-served": ("behaviour", "a request a runner refused is now served"),
    "runner-added": ("behaviour", "a runner is added: a request for it, a usage error before, is served"),
    "request-overridden": ("behaviour", "a request is now served by another runner (an override starts or ends)"),
    "redirect-added": ("behaviour", "a request is now redirected to another runner, which serves it"),
    "redirect-removed": ("behaviour", "a request that was redirected is now served by another runner"),
    "request-refusal-changed": ("behaviour", "a request refused on both sides is refused after another redirect or override (one starts, ends or leads to another runner)"),
    "deprecation-started": ("behaviour", "configs that use a feature are warned that it is deprecated"),
    "deprecation-ended": ("behaviour", "configs that use a feature are no longer warned that it is deprecated"),
    "deprecation-reworded": ("behaviour", "configs that use a feature deprecated on both sides are warned in other words (its removal version, replacement or message)"),
    "removal-reworded": ("behaviour", "configs refused for a feature removed on both sides are refused in other words (its removal version, replacement or message)"),
    "runner-deprecation-started": ("behaviour", "configs and requests a runner serves are warned that it is deprecated"),
    "runner-deprecation-ended": ("behaviour", "configs and requests a runner serves are no longer warned that it is deprecated"),
    "runner-deprecation-reworded": ("behaviour", "configs and requests a runner deprecated on both sides serves are warned in other words (its removal version, replacement or message)"),
    "blocker-added": ("behaviour", "a runner does not support a feature that configs use"),
    "blocker-lifted": ("behaviour", "a runner supports a feature it did not"),
    "partial-added": ("behaviour", "configs a runner serves are warned that it supports a feature they use only partly"),
    "partial-lifted": ("behaviour", "configs a runner serves are no longer warned that it supports a feature only partly"),
    "opt-in-added": ("behaviour", "a request a runner serves is warned that a feature it uses is opt-in there"),
    "opt-in-lifted": ("behaviour", "a request a runner serves is no longer warned that a feature it uses is opt-in there"),
    "preference-notice-added": ("behaviour", "automatic choice, choosing the same runner, says it passed over a feature's preference"),
    "preference-notice-lifted": ("behaviour", "automatic choice, choosing the same runner, no longer passes over a feature's preference"),
    "alias-warning-added": ("behaviour", "a request by a runner's former id (an alias) is now warned that the id is deprecated (a runner renamed, its former id kept)"),
    "alias-warning-lifted": ("behaviour", "a request by a runner's former id is no longer warned that the id is deprecated"),
    "config-accepted": ("behaviour", "a [config] value that was a config error is now accepted"),
    "config-field-added": ("behaviour", "a [config] field is now declared: a value given for it is read (resolve() ignored it, resolve(strict=True) and matrix resolve refused it)"),
    "config-default-changed": ("behaviour", "configs that leave a [config] field unset read another default"),
    "adjustment-added": ("behaviour", "configs have other effective values: an adjustment was added"),
    "adjustment-removed": ("behaviour", "configs have other effective values: an adjustment was removed"),
    "adjustment-changed": ("behaviour", "configs have other effective values: an adjustment changed"),
    "adjustment-warning-added": ("behaviour", "configs are warned by an adjustment that did not warn them"),
    "adjustment-warning-lifted": ("behaviour", "configs are no longer warned by an adjustment"),
    "adjustment-warning-changed": ("behaviour", "configs are warned otherwise by an adjustment (its message, its level, or the values that fill its words)"),
    "renamed": ("cosmetic", "a feature or runner is named differently"),
    "note-changed": ("cosmetic", "a feature's note changed"),
    "links-changed": ("cosmetic", "a feature's links changed"),
    "group-changed": ("cosmetic", "a feature moved to another group"),
}

#: The changes that say configs served are now refused (a fleet's row that goes from served to
#: refused takes their level: `matrix._diff_cli`).
REFUSING = frozenset({"served-refused", "request-refused", "removed", "removed-early", "removed-without-deprecation",
                      "config-rejected", "config-field-removed"})

Side = Literal["old", "new"]


@attrs.frozen
class Entry:
    """An entry of a matrix that causes a change, where it stands: ``side`` is the matrix it
    is read from (``old`` for what was removed)."""

    side: Side
    place: str  # ``$.features.fp8``
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None

    def __str__(self) -> str:
        """``features.toml:9: feature 'fp8' as it is now`` (the old side's: ``as it was``)."""
        where = self.file or "<matrix>"
        if self.line is not None:
            where += f":{self.line}"
        return _messages.diff_entry(where, _messages.diff_entry_named(_place_parts(self.place)), self.side)


def _place_parts(place: str) -> List[object]:
    """The keys of a place (`matrix._messages.place`): ``$.config["a.b"]`` is ``["config", "a.b"]``,
    ``$.runners.b.redirects[0]`` ``["runners", "b", "redirects", 0]``."""
    parts: List[object] = []
    for name, quoted, index in re.findall(r'\.([^.\[]+)|\[("(?:[^"\\]|\\.)*")\]|\[(\d+)\]', place[1:]):
        parts.append(name if name else json.loads(quoted) if quoted else int(index))
    return parts


@attrs.frozen
class Accepted:
    """An intended change: its ``id``, the gate ids it is accepted for (empty: any), and why."""

    id: str
    reason: str
    features: Tuple[str, ...] = ()

    def covers(self, change: Difference) -> bool:
        return change.id == self.id and (not self.features or bool(set(self.features) & set(change.features)))


@attrs.frozen
class Difference:
    """One change: what it is (``id``, see `CHANGES`; ``level``), in words, for which configs
    (``region``), shown by ``witness``, caused by ``entries``."""

    id: str
    level: Level = attrs.field(validator=attrs.validators.in_(LEVELS))
    message: str
    region: str
    witness: Dict[str, Any]
    old: str  # what the witness resolves to on each side
    new: str
    runner: Optional[str] = None  # the runner asked for (None: automatic choice)
    features: Tuple[str, ...] = ()
    entries: Tuple[Entry, ...] = ()
    accepted: Optional[str] = None  # the reason of the accept entry that covers it
    #: The ids of the changes of the same cause folded into this one (`_folded`).
    also: Tuple[str, ...] = ()

    def to_dict(self) -> Dict[str, Any]:
        out = attrs.asdict(self, recurse=False)
        out["features"] = list(self.features)
        out["also"] = list(self.also)
        out["entries"] = [attrs.asdict(e) for e in self.entries]
        return out


@attrs.frozen
class DiffReport:
    """Every change of one diff, most severe first; searches that gave up in ``undecided``."""

    changes: Tuple[Difference, ...]
    old_version: str
    new_version: str
    undecided: Tuple[str, ...] = ()

    def counts(self) -> Dict[str, int]:
        return {level: sum(1 for c in self.changes if c.level == level) for level in LEVELS}

    def failed(self, fail_on: Level = "breaking") -> bool:
        """Whether a change not accepted is at *fail_on* or more severe."""
        worst = LEVELS.index(fail_on)
        return any(LEVELS.index(c.level) <= worst and c.accepted is None for c in self.changes)

    def headline(self) -> str:
        compared = _messages.versions_compared(self.old_version, self.new_version)
        if not self.changes and self.undecided:
            # Never "no change" where a part of the answers was not compared or not decided.
            n = len(self.undecided)
            return f"No change found where compared ({compared}); {n} undecided"
        if not self.changes:
            return f"No change for any config ({compared})"
        parts = [f"{n} {level}" for level, n in self.counts().items()]
        total = len(self.changes)
        return f"{total} change{'s' if total != 1 else ''} ({compared}): {', '.join(parts)}"

    def with_levels(self, levels: Mapping[str, Level], accept: Sequence[Accepted] = ()) -> DiffReport:
        """The report with the levels of *levels* (id → level) and the accept list applied."""
        changes = []
        for change in self.changes:
            level = levels.get(change.id, change.level)
            reason = next((a.reason for a in accept if a.covers(change)), None)
            changes.append(attrs.evolve(change, level=level, accepted=reason))
        return attrs.evolve(self, changes=_sorted(changes))
_AUTOMATIC = ("runner-changed", "refused-served", "fallback-added", "fallback-lifted", "preference-added",
              "preference-lifted", "preference-changed", "redirected-added", "redirected-lifted")


def _sorted(changes: Iterable[Difference]) -> Tuple[Difference, ...]:
    order = list(CHANGES)
    return tuple(sorted(changes, key=lambda c: (LEVELS.index(c.level), order.index(c.id), c.runner or "",
                                                c.features, c.region)))
