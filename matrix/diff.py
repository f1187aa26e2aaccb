"""``matrix diff``: what a change to a matrix does to every config, exactly.

`diff` compares two matrices (or one matrix at two versions: pass it twice with
``old_version`` and ``new_version``) over the union of their config spaces and returns a
`DiffReport`: one `Difference` per cause, each with a stable ``id`` (`CHANGES` lists them with their
default level), the region of configs it changes in the matrix's own terms, a witness config
that resolves differently on the two sides (re-resolved on both with `resolve` before it is
reported), and the entries that cause it with ``file:line`` on the side where they stand (the old
file for what was removed).

Method: `matrix._diff`. The questions asked, in order: the automatic runner (no runner and
removals included); the answer to a request for each runner both sides have; deprecation
warnings; each runner's blockers. Each question is split into independent parts before it is
searched (`matrix._split`). Searches that give up are listed in `DiffReport.undecided`, never
guessed. The exception kind a refusal raises (``refusal-kind-changed``) is compared where both
sides refuse, as `matrix._diff_kinds` reads a refusal's words; the warnings of a runner's partial or
opt-in support and the notice of a preference passed over where both serve the same runner
(`matrix._diff_warnings`). One finding per cause: a region is bounded by as few of the entries that differ as can
be (a pair of rules whose configs change by other causes too gives a region per cause, up to
`matrix._diff.MAX_REGIONS`), and a deprecation or blocker whose gate alone causes a behaviour
change of automatic choice is said by that change (`Difference.also`) where every config it
changes is one of that change's (else it is a finding of its own). A region's text is exact:
every config it describes goes from the finding's ``old`` answer to its ``new`` one (findings are
merged only where their witnesses answer alike); it reads the config as given, said with as few
conditions as those configs need (`matrix._simplify`).

What is not compared (yet), each said by a line of ``undecided`` where the sides do not decide
alike and either has what produces it (`_unread`): the answer for a config that one side's ``[config]`` rejects
(a choice or field only one side has), the blockers and deprecation warnings of a config a
removal refuses, a request for a runner only one side has (a runner added or removed is the cause
it names of what automatic choice does differently; one renamed with its former id an alias is
the same runner to automatic choice, the cells, its requests and its blockers, asked for by its
former id on the old side: `matrix._diff.Side.local`), and the blockers a request reads beside its answer (read as automatic choice reads
them: a gate with ``applies = "asked"`` is not asked about; the deprecation warnings a request
reads are compared). A ``[config]`` field one side
lacks reads, on that side, as if the config did not set it. A config that leaves out a field
whose default differs between the sides reads each side's default: leaving it out is compared as
a value of its own (`matrix._diff.unset_defaults`), a region saying ``PATH is unset``.

Adjustments and redirects: every question reads the config of choice C (the adjustments before
the choice, by predicate substitution: `matrix._substitute`, as ``matrix check`` does), a request
follows the first redirect that applies, and the runner chosen is validated on its effective
config F (its own adjustments: `matrix._diff.Side.on_its_f`). Each path an adjustment that differs
sets is one question "its value differs where both sides choose the same runner, or both refuse"
over each pair of runners whose F the resolutions end on, for automatic choice and for a request
for each runner both sides have (``adjustment-added`` / ``-removed`` /
``-changed``, with the witness's ``Resolution.effective`` on both sides); its region is exactly
the configs whose value differs as the witness's does (each side read as the same literal, or
the same field: `matrix._diff.pinned`, said as that field where it varies), each pair of
runners' options held to the configs whose resolutions end on those runners' F
(`matrix._diff.Search.exact_regions`). A list value, or a
rewrite past `matrix._substitute.MAX_NODES`, is not compared: the report says so in
``undecided``. What every adjustment says (its ``adjusted`` warning: where it speaks, its text
and level, and the values that fill its words) is compared the same way
(`matrix._diff.said_questions`: ``adjustment-warning-*``).
"""

from __future__ import annotations

import copy
import functools
import json
import re
import shlex
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Literal, Mapping, Optional, Sequence, Set, Tuple,
                    Union, get_args)

import attrs

from . import _diff, _messages
# The module, not its function: `resolve` is read at each call (tests/test_diff.py's brute force
# replaces it to resolve each config once per question), without an import statement in each
# call (`observe`, called 1.4 million times by the brute force's dev profile: 5 % of its time).
from . import resolver as _resolver
from . import predicates as _predicates
from ._versions import VersionLike
from .errors import ConfigError, PredicateError, RemovedFeatureError, ResolutionError
from ._nodes import Literal as _Literal, Path, walk
from ._templates import described
from .schema import Adjustment, Feature, Matrix, Requirement, Schema

__all__ = ["CHANGES", "LEVELS", "Accepted", "Difference", "DiffReport", "Entry", "Level", "brief", "diff", "json_schema",
           "region_predicate", "reproduces"]


def __dir__() -> List[str]:
    return __all__


Level = Literal["breaking", "behaviour", "cosmetic"]
#: Most severe first.
LEVELS: Tuple[Level, ...] = get_args(Level)

#: id → (default level, what it means).
CHANGES: Dict[str, Tuple[Level, str]] = {
    "served-refused": ("breaking", "configs automatic choice served are refused: no runner is free"),
    "request-refused": ("breaking", "a runner that served a request for it now refuses it"),
    "removed-without-deprecation": ("breaking", "configs are refused for a feature removed without a deprecation period"),
    "removed-early": ("breaking", "configs are refused for a feature removed before its announced remove_in"),
    "config-rejected": ("breaking", "a [config] value that was accepted is now a config error (a choice, bound or default gone)"),
    "config-field-removed": ("breaking", "a [config] field is no longer declared: resolve() ignores a value given for it, resolve(strict=True) and matrix resolve refuse it"),
    "refusal-kind-changed": ("breaking", "a refusal raises another exception kind (a requirement's kind): a host's callers catch the kind they know"),
    "removed": ("behaviour", "configs are refused for a feature removed at or after its announced remove_in"),
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
    "request-served": ("behaviour", "a request a runner refused is now served"),
    "request-overridden": ("behaviour", "a request is now served by another runner (an override starts or ends)"),
    "redirect-added": ("behaviour", "a request is now redirected to another runner, which serves it"),
    "redirect-removed": ("behaviour", "a request that was redirected is now served by another runner"),
    "request-refusal-changed": ("behaviour", "a request refused on both sides is refused after another redirect or override (one starts, ends or leads to another runner)"),
    "deprecation-started": ("behaviour", "configs that use a feature are warned that it is deprecated"),
    "deprecation-ended": ("behaviour", "configs that use a feature are no longer warned that it is deprecated"),
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


def diff(old: Matrix, new: Matrix, *, old_version: Optional[VersionLike] = None,
         new_version: Optional[VersionLike] = None, budget: int = 20_000) -> DiffReport:
    """Every change from *old* (as of *old_version*, its own by default) to *new*.

    :param budget: the most search steps any one question may take; a question that needs
        more is listed in `DiffReport.undecided` (a diff asks a question per pair of rules, so
        its default is a tenth of ``matrix check``'s).
    :raises UsageError: a version is past its matrix's newest release.
    """
    from .resolver import _plan

    plans = _plan(old, old_version), _plan(new, new_version)
    # A field whose default differs: a config that leaves it out is compared too (`matrix._diff.unset_defaults`).
    defaults = _diff.unset_defaults(*plans)
    sides = (_diff.Side("old", plans[0], {p: d[0] for p, d in defaults.items()}),
             _diff.Side("new", plans[1], {p: d[1] for p, d in defaults.items()}))
    search = _diff.Search(*sides, budget=budget)
    changes = _Changes(search)
    changes.add_regions(search.pairs(None))
    # A request for each runner both sides have; one renamed, its former id an alias, by its new id
    # (its former on the old side: `matrix._diff.Side.local`).
    runners = [r.id for r in new.runners if r.id in {o.id for o in old.runners} or r.id in search.renamed.values()]
    for runner in runners:
        changes.add_regions(search.pairs(runner))
    bounds = changes.bounds  # a region per cause: where the adjustments named beside a gate change a value
    changes.add_regions(search.one_gate("removal", _diff.removed, bounds=bounds))
    if runners:
        # A removal a request reads (merged with what automatic choice says of the same gate).
        changes.add_regions(search.one_gate("removal", _diff.removed, asked=runners[0], bounds=bounds))
    changes.add_regions(search.one_gate("deprecation", _diff.deprecated, bounds=bounds))
    if runners:
        # The deprecation warnings a request reads (a gate in force for requests only: applies =
        # "asked"), whichever runner it asks for; merged as removals are.
        changes.add_regions(search.one_gate("deprecation", _diff.deprecated, asked=runners[0], bounds=bounds))
    for runner in runners:
        changes.add_regions(search.one_gate("blocker", _diff.blocking(runner), blocked=runner, bounds=bounds))
    changes.effective(runners)
    changes.said(runners)
    changes.kinds(runners)
    changes.warnings(runners)
    changes.aliases()
    changes.config()
    changes.cosmetic()
    return DiffReport(_sorted(_set_required(_readable(_folded(changes)), _diff.required_fields(plans[0]) &
                                            _diff.required_fields(plans[1]), search.space.schema)),
                      str(sides[0].version), str(sides[1].version),
                      tuple(dict.fromkeys(search.undecided)) + tuple(changes.unreproduced)
                      + _not_compared(*sides))


#: The one-gate changes that a change of automatic choice of the same cause already shows, and
#: the note they add to its new answer.
_FOLDED = {"deprecation-started": "deprecated", "blocker-added": "", "blocker-lifted": ""}
_AUTOMATIC = ("runner-changed", "refused-served", "fallback-added", "fallback-lifted", "preference-added",
              "preference-lifted", "preference-changed", "redirected-added", "redirected-lifted")


def _folded(changes: _Changes) -> List[Difference]:
    """One finding per cause: a deprecation that starts, or a blocker added or lifted, whose
    gate alone causes a behaviour change of automatic choice, is said by that change (its id in
    ``also``, a deprecation in its message), not beside it, where every config it changes is one
    of that change's configs (else its region would say fewer configs than change)."""
    out: Dict[int, Difference] = dict(enumerate(changes.out))

    def covers(target: int, one: int) -> bool:
        from ._nodes import Or
        from ._space import Inconclusive

        inner, outer = changes.nodes.get(one), changes.nodes.get(target)
        if inner is None or outer is None:
            return False
        try:
            return changes.search.split.solve(true=[Or(tuple(inner))], false=[Or(tuple(outer))]) is None
        except Inconclusive:
            return False  # not known to be covered: said beside it

    for index, one in enumerate(changes.out):
        if one.id not in _FOLDED or one.level != "behaviour" or len(one.features) != 1 \
                or one.id.startswith("deprecation-") and one.runner is not None:  # a request's: not automatic choice's
            continue
        into = next((i for i, c in enumerate(changes.out) if c.id in _AUTOMATIC and c.level == "behaviour"
                     and c.features == one.features and covers(i, index)), None)
        if into is None:
            continue
        target = out[into]
        note, message = _FOLDED[one.id], target.message
        if note:  # in the message only: ``new`` stays what `observe` says of the witness
            message = message[:-1] + f", {note})" if message.endswith(")") else f"{message} ({note})"
        out[into] = attrs.evolve(target, message=message, also=(*target.also, one.id))
        del out[index]
    return list(out.values())


def _readable(changes: List[Difference]) -> List[Difference]:
    """Each region said with as few conditions as the same configs need (`matrix._simplify`: a
    user trial's three edits read ``x and not (x and not y)``): before `_set_required`, which reads
    the text that is said."""
    return [attrs.evolve(c, region=_simplified(c.region)) for c in changes]


def _simplified(region: str) -> str:
    """The text of a region, shorter where `matrix._simplify` finds it can be (as it is where not)."""
    from ._simplify import FALSE, TRUE, simplified

    if region in ("every config", "no config") or " set to any value" in region:
        return region
    try:
        node = region_predicate(region).node
    except PredicateError:
        return region
    shorter = simplified(node)
    if shorter == node or shorter == FALSE:
        return region
    if shorter == TRUE:
        return "every config"
    unset = {_diff.unset_path(m.group(1)): m.group(1) for m in _UNSET_TEXT.finditer(region)}
    return _said(shorter, unset)


def _said(node: Any, unset: Mapping[str, str]) -> str:
    """*node*'s text, each path that says a field is left out said ``PATH is unset``."""
    from ._nodes import And, Not, Or, Path

    if isinstance(node, (And, Or)):
        parts = [_said(o, unset) for o in node.operands]
        joiner = " and " if isinstance(node, And) else " or "
        return joiner.join(f"({t})" if isinstance(o, (Or, And)) and not isinstance(o, type(node)) else t
                           for o, t in zip(node.operands, parts))
    if isinstance(node, Not):
        inner = _said(node.operand, unset)
        return f"not ({inner})" if " " in inner else f"not {inner}"
    if isinstance(node, Path) and node.name in unset:
        return f"{unset[node.name]} is unset"
    return str(node)


def _set_required(changes: List[Difference], required: Set[str], schema: Any) -> List[Difference]:
    """Each region that does not read a field both sides require says it is set: a config that
    leaves such a field out is refused by both sides, so its answer does not change (the search
    reads every config with the field set: `matrix._diff.union_schema`). A region one of whose
    conjuncts (not a disjunction) reads the field holds no config that leaves it out already
    (`_inside`); a field below a nullable
    section is required only where the section is there, and is left as it is."""
    from ._prune import _above

    required = {path for path in required if not any(
        (schema.get(above) is None or schema.get(above).nullable) for above in _above(path))}
    if not required:
        return changes
    out = []
    for change in changes:
        # Read by a conjunct with no ``or`` in it: a config that leaves it out is in no region
        # (``i != 2.5 or j == 1`` holds for {} without reading j).
        conjuncts = [c for c in _top_level(change.region, "and") if " or " not in c]
        said = [f"not ({path} is unset)" for path in sorted(required)
                if not any(re.search(rf"(?<![\w.]){re.escape(path)}(?![\w])", c) for c in conjuncts)]
        if change.level == "cosmetic" or not said:
            out.append(change)
            continue
        region = " and ".join(said) if change.region == "every config" else \
            " and ".join([_grouped(change.region, alone=" or " not in change.region), *said])
        out.append(attrs.evolve(change, region=region))
    return out


def _not_compared(*sides: _diff.Side) -> Tuple[str, ...]:
    """What the diff does not compare, said rather than claimed unchanged: answers where the
    conditions read through the adjustments grow too large (`matrix._substitute.MAX_NODES`):
    there the questions read configs as given."""
    out: List[str] = [_messages.diff_not_compared(what, where) for what, where in (*_unweighed(*sides),
                                                                                   *_unread(*sides))]
    if not all(side.exact for side in sides) and any(side.plan.any_adjusting for side in sides):
        out.append(_messages.diff_not_compared("adjustments", "a config an adjustment changes"))
    # A runner's blockers are read on its effective config where the resolution ends on it
    # (`Resolution.unsupported`), and so are the one-gate questions (`_diff.Search.blocker_cases`)
    # where the conditions read through the adjustments stay within the limit; past it they read
    # the config as given: where a runner with adjustments of its own gains or loses a blocker,
    # that is said, not guessed.
    if all(side.exact for side in sides):
        return tuple(out)
    old, new = sides
    if _alike(old, new):
        return tuple(out)  # the same rules on both sides: no answer can differ
    for r in old.matrix.runners:
        if r.id not in {n.id for n in new.matrix.runners}:
            continue
        written = {path for side in sides for a in side.plan.adjustments.get(r.id, ()) for path in a.set}
        if not written:
            continue
        block = _diff.blocking(r.id)
        # Where the resolution ends on the runner (chosen, or forced) a gate that reads a path its
        # adjustments write may block it on F and not on C: which F it ends on moves with the choice.
        if any(written & set(g.when.paths) for side in sides for g in side.plan.features if block(side, g)):
            out.append(_messages.diff_not_compared(f"the blockers of {r.name} on its effective config",
                                                   f"a config {r.name}'s own adjustments change where it serves"))
    return tuple(out)


def _unweighed(*sides: _diff.Side) -> List[Tuple[str, str]]:
    """Issue 30's constructs the diff does not weigh yet, where either side uses one: a reason
    that says config values (F7), a condition or copy that reads ``given.PATH`` (F8), and a copy
    scaled by ``times``, roles (F1) and stages (F6). Their answers may differ where no finding says
    so, so each is said, but where the sides decide every other answer alike (`_alike`), read
    the same ``[config]`` and have the construct word for word: there it answers alike too (issue
    28: ``matrix diff F F`` said them)."""
    from ._given import PREFIX
    from .schema import From

    plans = [side.plan for side in sides]
    adjustments = [a for p in plans for a in _diff.every_adjustment(p)]
    copies = [v for a in adjustments for v in a.set.values() if isinstance(v, From)]
    old, new = sides
    alike = _alike(old, new) and repr(old.matrix.schema) == repr(new.matrix.schema)

    def differs(made_of: Callable[[_diff.Side], object]) -> bool:
        return not alike or made_of(old) != made_of(new)

    out = []
    if any(p.templated for p in plans) and differs(lambda side: [
            (g.id, g.name) for g in side.plan.features if side.plan.templated >> side.bit(g) & 1]):
        out.append(("requirement reasons that say config values", "a config whose values a reason says"))
    if (any(path.startswith(PREFIX) for p in plans for path in p.paths) or any(
            c.path.startswith(PREFIX) for c in copies) or any(PREFIX in (a.message or "") for a in adjustments)) \
            and differs(lambda side: [(a.id, a.message) for a in _diff.every_adjustment(side.plan)]):
        out.append(("conditions and copies that read the config as given (given.PATH)",
                    "a config an adjustment changes"))
    if any(c.times is not None for c in copies) and differs(lambda side: ()):
        out.append(("copies scaled by times", "a config a scaled copy changes"))
    if any(len(p.matrix.roles) > 1 for p in plans) and differs(
            lambda side: (repr(side.matrix.roles), repr(side.matrix.runners))):  # F1: each role's runner beside the base's
        out.append(("the runners of roles other than the base", "a config that names a role's runner"))
    if any(a.stage is not None for a in adjustments) and differs(lambda side: repr(side.matrix.stages)):
        out.append(("the order of adjustments by stage ([matrix] stages)", "a config a staged adjustment changes"))
    if any(p.matrix.staged for p in plans) and differs(lambda side: repr(side.matrix.staged)):  # F6
        out.append(("staged requirements (a stage other than choice)", "a config a staged requirement refuses"))
    if any(d.applies == "always" for p in plans for r in p.redirects.values() for _, d in r) \
            and differs(lambda side: ()):  # F6: in automatic choice too
        out.append(("redirects that apply always (automatic choice too)", "a config such a redirect sends elsewhere"))
    if any(p.staged_redirects for p in plans) and differs(lambda side: repr(side.plan.staged_redirects)):  # F6
        out.append(("redirects at a stage (after the choice)", "a config such a redirect sends elsewhere"))
    return out


def _alike(old: _diff.Side, new: _diff.Side) -> bool:
    """Whether the two sides decide every answer alike: the same runners in the same order (with
    the same redirects and former ids), the same adjustments, no default that differs, and each
    gate the same (`matrix._diff.signature`). Where they do not, every construct the diff does not
    compare may answer differently (`_unread`)."""
    runners = _diff.shared_runners(old, new)

    def runner(side: _diff.Side, r: Any) -> object:
        return side.ids.get(r.id, r.id), repr(r.redirects), repr(r.aliases)

    return _diff.adjusting(old) == _diff.adjusting(new) and not old.defaults \
        and len(runners) == len(old.matrix.runners) == len(new.matrix.runners) \
        and [runner(old, r) for r in old.matrix.runners] == [runner(new, r) for r in new.matrix.runners] \
        and [_diff.signature(old, g, runners) for g in old.plan.features] == \
        [_diff.signature(new, g, runners) for g in new.plan.features]


def _unread(*sides: _diff.Side) -> List[Tuple[str, str]]:
    """What of a resolution the diff does not compare, where either side has what produces it and
    the sides do not decide alike (`_alike`): said, never claimed unchanged (the brute force of
    tests/test_diff.py holds every other difference of a resolution to a finding)."""
    old, new = sides
    plans = [side.plan for side in sides]
    # The built-in exception a refusal raises (`ResolutionError.kind`) is compared where each
    # side's refusals say it as `matrix._diff_kinds` reads them (`_Changes.kinds`); elsewhere it is
    # said not compared, wherever either side gives a requirement a kind and a requirement's kind,
    # or anything else, differs.
    from . import _diff_kinds

    kinds = [sorted((g.id, str(kind)) for g in p.features for kind in (_diff_kinds.kind_of(g),) if kind is not None)
             for p in plans]
    why = next((w for side in sides for w in (_diff_kinds.unmodelled(side),) if w is not None), None)
    kind = [(f"the exception kind a refusal raises (a requirement's kind): {why}",
             "a config or request that is refused")] \
        if why is not None and any(kinds) and (kinds[0] != kinds[1] or not _alike(old, new)) else []
    said = [*kind, *_unread_words(old, new)]
    if _alike(old, new):
        return said
    out = said
    features = [g for p in plans for g in p.features]
    shared = _diff.shared_runners(old, new)  # by the new side's ids
    one_sided = sorted({r.name for side in sides for r in side.matrix.runners if side.ids.get(r.id, r.id) not in shared})
    if one_sided:
        out.append((f"a request for a runner only one side has ({', '.join(one_sided)}), and its blockers",
                    "a request for it"))
    if any(p.removed for p in plans):
        out.append(("the blockers and deprecation warnings of a config a removal refuses",
                    "a config a removed feature refuses"))
    # A request's blockers are automatic choice's but where a gate is in force in one mode only,
    # or the runner served reads its own effective config (`Resolution.unsupported`); with roles,
    # automatic choice reads them only where the base role's field names no runner (elsewhere the
    # config is a request: `matrix._diff.Side`'s ``unasked``).
    if shared and (any(g.applies != "always" for g in features) or any(own for p in plans for own in p.adjustments.values())
                   or any(p.matrix.roles for p in plans)):
        out.append(("the blockers a request reads", "a request"))
    # A refusal after the choice (a runner's own adjustments, a stage, a role) keeps the warnings
    # of the way there: a fallback too (the brute force found one said nowhere).
    if any(r.redirects for side in sides for r in side.matrix.runners) or any(
            g.prefers is not None or g.forces is not None and g.forces.override for g in features) or any(
            any(p.adjustments.values()) or p.matrix.staged or p.matrix.roles for p in plans):
        out.append(("the warnings said beside a refusal: a fallback or a preference that led to it, and the words of a "
                    "redirect or an override that led to it", "a config or request that is refused"))
    return out


def _unread_words(old: _diff.Side, new: _diff.Side) -> List[Tuple[str, str]]:
    """Two answers the diff does not compare yet, said where they differ (a user trial found
    both said "No change"): the words of a deprecation warning (its removal version, replacement
    or message) of a gate both sides deprecate, and a request by a runner's former id (an alias
    added or removed, naming another runner, or warning in other words: whether it warns is
    compared, `_Changes.aliases`)."""
    from . import _diff_aliases
    from ._choice import deprecation_words

    out: List[Tuple[str, str]] = []
    changed = []
    for gate in new.plan.features:
        there = old.gate(gate.id)
        if there is None or not (_diff.deprecated(new, gate) and _diff.deprecated(old, there)):
            continue
        # Said by the new name on both sides: a feature renamed is a cosmetic finding of its own.
        if deprecation_words(there, gate.name) != deprecation_words(gate):
            changed.append(gate.name)
    if changed:
        out.append((f"the words of a deprecation warning ({', '.join(changed)})", "a config that uses it"))

    # Whether it is warned is compared (`_Changes.aliases`); the rest is said here, a runner
    # renamed's former id too (its alias removed: a request by it is refused).
    differ = [a for a in _diff_aliases.formers(old, new) if _diff_aliases.unread(old, new, a)]
    if differ:
        out.append((f"a request by a runner's former id ({', '.join(differ)})", "a request by it"))
    return out


def _sorted(changes: Iterable[Difference]) -> Tuple[Difference, ...]:
    order = list(CHANGES)
    return tuple(sorted(changes, key=lambda c: (LEVELS.index(c.level), order.index(c.id), c.runner or "",
                                                c.features, c.region)))


# --- from regions to changes --------------------------------------------------------------------


class _Changes:
    """Regions classified, merged by cause and re-resolved."""

    def __init__(self, search: _diff.Search) -> None:
        self.search = search
        self.old, self.new = search.old, search.new
        self.out: List[Difference] = []
        self.unreproduced: List[str] = []
        self._merged: Dict[Tuple[Any, ...], int] = {}
        #: The configs of each finding of a region search (by its index in ``out``), as the
        #: conditions of the regions merged into it: a change folds into another only where its
        #: configs are all the other's (`_folded`).
        self.nodes: Dict[int, List[Any]] = {}

    def side(self, name: str) -> _diff.Side:
        return self.old if name == "old" else self.new

    def add_regions(self, regions: Iterable[_diff.Region]) -> None:
        for region in regions:
            self.add(region)

    def causes(self, region: _diff.Region) -> List[Tuple[str, Feature]]:
        """The gates whose entry differs between the sides (or exists on one side only) that are
        causes in the region (`matrix._diff.Side.cause`: active, or a candidacy that does not
        hold), each on the side where it stands (the old side for a gate gone)."""
        if region.feature is not None:
            side = self.side(region.gates[0][0])
            gate = side.gate(region.feature)
            assert gate is not None
            return [(side.name, gate)]
        return self.causes_at(region.assignment, asked=region.kind == "asked")

    def causes_at(self, assignment: _diff.Assignment, asked: bool = False) -> List[Tuple[str, Feature]]:
        """The gates whose entry differs between the sides that are causes at *assignment*
        (`causes`); with *asked*, of a request, which never reads a gate's ``prefers`` (issue 28:
        a preference made outright was named beside a change of a request's refusal)."""
        out: List[Tuple[str, Feature]] = []
        seen = set()

        def read(side: _diff.Side, gate: Optional[Feature]) -> object:
            said = _diff.signature(side, gate, self.search.shared)
            # The sixth part of a signature is the gate's prefers (`matrix._diff.signature`).
            return said[:5] + said[6:] if asked and isinstance(said, tuple) else said

        for side in (self.new, self.old):
            for gate in side.plan.features:
                if gate.id in seen or self.search.space.truth(side.cause(gate), assignment) is not True:
                    continue
                other = (self.old if side is self.new else self.new)
                if read(side, gate) != read(other, other.gate(gate.id)):
                    seen.add(gate.id)
                    out.append((side.name, gate))
        return out

    def reprioritised(self) -> Tuple[Entry, ...]:
        """The runners of both sides whose priority differs, each where it stands on the new side
        (its runner file, or the overlay's line that set it): what decides a change no gate causes."""
        old = {self.old.ids.get(r.id, r.id): r.priority for r in self.old.matrix.runners}
        return tuple(_runner_entry(self.new, r.id, ("priority",)) for r in self.new.matrix.runners
                     if r.id in old and old[r.id] != r.priority)

    def standing(self, region: _diff.Region, side: str, gate: Feature) -> Tuple[_diff.Side, Feature]:
        """Where the entry of a one-gate question's gate stands: on the new side where it has the
        gate (on a composed matrix, the overlay's line that changed it), the old side only for a
        gate gone (a blocker an overlay lifted was said at upstream's line, where it was active)."""
        now = self.new.gate(gate.id) if region.feature == gate.id else None
        return (self.new, now) if now is not None else (self.side(side), gate)

    def standing_at(self, side: str, gate: Feature) -> Tuple[_diff.Side, Feature]:
        """Where a gate that differs stands: on the new side where it has it, else the old."""
        now = self.new.gate(gate.id)
        return (self.new, now) if now is not None else (self.side(side), gate)

    def one_sided(self, region: _diff.Region) -> List[Tuple[str, str]]:
        """The runners only one side has that the region's answers involve, as (side, runner id):
        one that answers on its side, or one passed over there (automatic choice: it is not the
        answer); none for a one-gate question. A runner added or removed is a cause of its own."""
        if region.feature is not None:
            return []
        out = []
        for side, outcome in ((self.old, region.old), (self.new, region.new)):
            for runner in side.matrix.runners:
                if side.ids.get(runner.id, runner.id) in self.search.shared:
                    continue
                if outcome[1] == runner.id or region.kind == "automatic":
                    out.append((side.name, runner.id))
        return out

    def blocking_one_sided(self, region: _diff.Region, runners: Sequence[Tuple[str, str]],
                           causes: Sequence[Tuple[str, Feature]]) -> List[Tuple[str, Feature]]:
        """The gates active in the region that block a one-sided runner passed over there (they
        decide its answer: the choice moves past it), beside *causes*."""
        out: List[Tuple[str, Feature]] = []
        known = {g.id for _, g in causes}
        for name, runner in runners:
            side = self.side(name)
            answer = region.old if side is self.old else region.new
            if answer[1] == runner:
                continue
            blocks = _diff.blocking(runner)
            for gate in side.plan.features:
                if gate.id not in known and blocks(side, gate) and \
                        self.search.space.truth(side.on_c(gate.when.node), region.assignment) is True:
                    known.add(gate.id)
                    out.append((side.name, gate))
        return out

    def add(self, region: _diff.Region) -> None:
        change_id = _classify(region, self.old, self.new)
        causes = self.causes(region)
        runners = self.one_sided(region)
        causes += self.blocking_one_sided(region, runners, causes)
        if causes and not any(r in (region.old[1], region.new[1]) for _, r in runners) \
                and not any(_diff.blocking(r)(self.side(n), g) for n, r in runners for s, g in causes if s == n):
            runners = []  # passed over where nothing blocks it, and other causes: not what decides
        # The configs of a question are those where the adjustments named change a value: a
        # question of choice asks again where they do not (`_diff.Search._regions`), a one-gate
        # question too, its adjustments one entry each, changing a value on either side
        # (`_diff.Search.one_gate`, `bounds`).
        adjusted = [(side, a, node) for side, a, node in (self.search.adjusted() or [])
                    if self.search.space.truth(node, region.assignment) is True] if region.feature is None else \
            [(side, a, node) for side, a, node in self.search.changing()
             if self.search.space.truth(node, region.assignment) is True
             and self.feeds_either(a.id, {p for s in (self.old, self.new) for g in (s.gate(region.feature),)
                                          if g is not None for p in g.when.paths})]
        bounding = [node for _, _, node in adjusted]
        # A field left out whose default differs is a cause like an entry (`matrix._diff.unset_defaults`):
        # where the choice's question found it one (`matrix._diff.Search._regions`), or a one-gate
        # question held its region to it (`bounds`).
        unset = self.unset_causes(region)
        if region.feature is None:
            bounding += [_diff.unset_guard(p, self.search.space.schema) for p in unset]
        avoid = [g.when.node for side in (self.old, self.new) for g in side.plan.features
                 if g.id not in {c.id for _, c in causes}]
        witness = self.search.witness(self.search.unnamed_roles(region), avoid=avoid)
        seen = self.observe(region, witness)
        if seen is None:
            return
        if any(text.startswith(_CONFIG_ERROR) for text in seen):
            return  # a value one side's [config] refuses: said by the config-* finding of its field (`config`)
        # One finding per cause and per pair of answers: configs merged into one finding all go
        # from the same answer to the same answer (review finding W5).
        key = (change_id, region.runner, region.blocked, seen, tuple(g.id for _, g in causes) + tuple(unset),
               tuple(runners) + tuple((side.name, a.id) for side, a, _ in adjusted))
        region_text = self.region_text(region, causes, bounding)
        if region.kind in ("removal", "deprecation") and region.runner is not None:
            # What a request reads of a removal (or a deprecation) is said by automatic choice's
            # finding of the same gate where both describe the same configs (a gate that applies
            # in both modes).
            automatic = self._merged.get((change_id, None, None, seen, key[-2], key[-1]))
            if automatic is not None and self.out[automatic].region == region_text:
                return
        if key in self._merged:
            index = self._merged[key]
            before = self.out[index]
            self.nodes[index].append(self.region_node(region, causes, bounding))
            if region_text not in before.region.split(" or "):
                self.out[index] = attrs.evolve(before, region=f"{before.region} or {_grouped(region_text)}")
            return
        inside = _inside(region_text, self.search.space.schema)

        def same(config: Dict[str, Any]) -> bool:  # the same answers, and still in the region
            return self.answers(region, config) == seen and inside(config)

        shorter = _pruned(witness, self.old, self.new)
        if shorter != witness and same(shorter):
            witness = shorter  # the same answers on both sides, said with only the paths that matter
        witness = _fewest_paths(witness, same)
        old_text, new_text = seen
        entries = tuple(_runner_entry(self.side(side), runner) for side, runner in runners) + \
            tuple(_entry(*self.standing(region, side, gate)) for side, gate in causes) + \
            tuple(dict.fromkeys(_located(self.adjustment_standing(side, a.id), ("adjustments", a.id))
                                for side, a, _ in adjusted)) + \
            self.default_entries(unset)
        entries = tuple(dict.fromkeys(entries)) or self.reprioritised() or (_order_entry(self.new),)
        message = _message(change_id, region, old_text, new_text, self.new, self.old)
        self._merged[key] = len(self.out)
        self.nodes[len(self.out)] = [self.region_node(region, causes, bounding)]
        self.out.append(Difference(change_id, CHANGES[change_id][0], message, _grouped(region_text, alone=True),
                                   witness, old_text, new_text, runner=region.runner or region.blocked,
                                   features=tuple(g.id for _, g in causes) +
                                   tuple(dict.fromkeys(a.id for _, a, _ in adjusted)), entries=entries))

    def adjustment_standing(self, side: _diff.Side, adjustment_id: str) -> _diff.Side:
        """Where an adjustment that differs stands: the new side where it has it, else the old
        (a user trial: one changed was named twice, once on each side)."""
        return self.new if adjustment_named(self.new, adjustment_id) is not None else side

    def unset_causes(self, region: _diff.Region) -> List[str]:
        """The fields whose default differs that are causes of *region*: left out there, where
        the choice's search asks for regions of causes (`matrix._diff.Search._changed`), or held
        to be by a one-gate question (`bounds`)."""
        search = self.search
        if not search.unset:
            return []
        if region.feature is not None:
            return [p for p in search.unset if _diff.unset_guard(p, search.space.schema) in region.true]
        return search.unset_at(region.assignment) if search.changed is not None else []

    def default_entries(self, paths: Iterable[str]) -> Tuple[Entry, ...]:
        """The ``[config]`` line of each field of *paths* (its default differs), on the new side."""
        return tuple(_located(self.new, ("config", p)) for p in paths)

    def writes_what_it_reads(self, side: _diff.Side, adjustment: Any, feature: str) -> bool:
        """Whether *adjustment* (of *side*) writes a path the gate *feature* reads on either side,
        or one that an adjustment of *side* reads (its ``when`` or a ``from``) that writes such a
        path, and so on (`feeds`): where it changes a value, it may make the gate apply or stop
        applying."""
        reads = {p for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None for p in g.when.paths}
        return self.feeds(side, adjustment, reads)

    def feeds_either(self, adjustment_id: str, reads: Set[str]) -> bool:
        """`feeds` of the adjustment *adjustment_id* as either side has it (one that sets a path on
        one side only, a notice on the other, changes a value where it does)."""
        return any(self.feeds(side, mine, reads) for side in (self.old, self.new)
                   for mine in (adjustment_named(side, adjustment_id),) if mine is not None)

    def bounds(self, feature: str, found: _diff.Assignment) -> List[Any]:
        """Where the adjustments named beside the gate *feature* in the region *found* change a
        value (`add`: those that differ, change a value there and write what it reads): a one-gate
        region holds where they do (`matrix._diff.Search.one_gate`)."""
        reads = {p for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None for p in g.when.paths}
        out = [node for _, a, node in self.search.changing()
               if self.search.space.truth(node, found) is True and self.feeds_either(a.id, reads)]
        # A field left out there whose default differs, read by the gate (on the config of choice).
        read = {n.name for s in (self.old, self.new) for g in (s.gate(feature),) if g is not None
                for n in walk(s.on_c(g.when.node)) if isinstance(n, Path)}
        return out + [_diff.unset_guard(p, self.search.space.schema) for p in self.search.unset_at(found)
                      if _diff.unset_path(p) in read]

    def conjuncts(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                  adjusting: Sequence[Any] = ()) -> List[Tuple[Any, bool]]:
        """The question a region answers, with its causes active, as (condition, holds) pairs."""
        from ._nodes import Or

        conjuncts: List[Tuple[Any, bool]] = [(node, False) for node in region.false]
        conjuncts += [(group[0] if len(group) == 1 else Or(group), True) for group in region.groups]
        conjuncts += [(node, True) for node in region.true]
        if region.feature is None:  # a one-gate question holds its gate as read (a blocker: on C or on F)
            conjuncts += [(self.side(side).cause(gate), True) for side, gate in causes]
        conjuncts += [(node, True) for node in adjusting]  # where an adjustment that differs changes a value
        return conjuncts

    def region_node(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                    adjusting: Sequence[Any] = ()) -> Any:
        """The configs of a region as one condition (its text's, before the text drops what the
        rest implies)."""
        from ._nodes import And, Not

        return And(tuple(node if holds else Not(node) for node, holds in self.conjuncts(region, causes, adjusting)))

    def region_text(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]],
                    adjusting: Sequence[Any] = ()) -> str:
        """The configs of a region, exactly, as the conditions that bound it: the question the
        region answers (its deciding rules, the earlier rules that do not hold, the removals
        that do not refuse) with its causes active, less every condition the others imply
        (`matrix._diff.Search.fewest_conjuncts`). Conditions read the config as given: a gate
        that reads the config of choice is said rewritten (`matrix._substitute`)."""
        from ._nodes import Or

        conjuncts = self.conjuncts(region, causes, adjusting)
        self._text(Or(()))  # the gates' own texts, known
        kept = self.search.fewest_conjuncts(conjuncts, whole=self._texts)
        first = [self.side(side).cause(gate) for side, gate in causes]  # the causes said first
        positive = sorted((node for node, wanted in kept if wanted),
                          key=lambda node: first.index(node) if node in first else len(first))
        return self._conjunction(positive, [n for n, w in kept if not w])

    def _conjunction(self, positive: Sequence[Any], negative: Sequence[Any]) -> str:
        """Conditions that hold (*positive*) and that do not (*negative*) as one text, in that
        order, each said once ("every config" for none)."""
        from ._nodes import Not

        texts = [self._text(node) for node in positive]
        texts = [f"({t})" if " or " in t else t for t in texts]
        for node in negative:
            if isinstance(node, Not):  # ``not (not x)`` said as ``x``
                inner = self._text(node.operand)
                texts.append(f"({inner})" if " or " in inner else inner)
            else:
                texts.append(self._negative(node))
        return " and ".join(dict.fromkeys(texts)) or "every config"

    def _negative(self, node: Any) -> str:
        """The text of ``not node``: ``x != v`` for ``x == v`` (the same configs: a comparison
        with None is False but for ``!=``), the path first."""
        from ._nodes import Compare, Literal

        if isinstance(node, Compare) and node.op == "==" and self._plain_bool(node) is None:
            left, right = (node.right, node.left) if isinstance(node.left, Literal) else (node.left, node.right)
            return self._text(Compare(left, "!=", right))
        return _negated(self._text(node))

    def _text(self, node: Any) -> str:
        from ._nodes import Or

        if not hasattr(self, "_texts"):
            # A gate whose condition reads the config as given is said as the matrix writes it.
            self._texts: Dict[Any, str] = {}
            for side in (self.old, self.new):
                for gate in side.plan.features:
                    on_c = side.on_c(gate.when.node)
                    if on_c == gate.when.node or self._equivalent(on_c, gate.when.node):
                        # Read on C, it holds exactly where it holds on the config as given (the
                        # adjustments leave what it reads alone): said as the matrix writes it.
                        self._texts.setdefault(on_c, str(gate.when))
        if isinstance(node, Or):
            return " or ".join(f"({t})" if " and " in t or " or " in t else t
                               for t in (self._text(o) for o in node.operands))
        from ._nodes import And, Not

        if isinstance(node, Path) and node.name.startswith(_diff.UNSET):
            return f"{_diff.unset_text(node.name, self.search.space.schema)} is unset"

        known = self._texts.get(node)
        if known is not None:
            return known
        plain = self._plain_bool(node)
        if plain is not None:
            return plain
        if isinstance(node, And):
            return " and ".join(f"({t})" if " or " in t else t for t in (self._text(o) for o in node.operands))
        if isinstance(node, Not):
            if isinstance(node.operand, Not):  # ``not (not x)`` said as ``x``
                return self._text(node.operand.operand)
            return self._negative(node.operand)
        from ._nodes import Compare, Literal

        if isinstance(node, Compare) and isinstance(node.right, Literal) and isinstance(node.right.value, tuple):
            # A list field's default read in its place: said as the list a matrix writes.
            return f"{node.left} {node.op} {list(node.right.value)!r}"
        return str(node)

    def _plain_bool(self, node: Any) -> Optional[str]:
        """``x == True`` said ``x`` (``x == False``: ``not x``) for a bool field that is never None
        (a rewritten condition compares a path with the value an adjustment sets)."""
        from ._nodes import Compare, Literal, Path

        if not (isinstance(node, Compare) and node.op == "=="):
            return None
        path, value = (node.left, node.right) if isinstance(node.left, Path) else (node.right, node.left)
        if not (isinstance(path, Path) and isinstance(value, Literal) and isinstance(value.value, bool)):
            return None  # ``True == x`` alike: the rewriting puts the value an adjustment sets first
        field = self.search.space.schema.get(path.name)
        if field is None or field.type != "bool" or field.nullable:
            return None
        return path.name if value.value else f"not {path.name}"

    def _equivalent(self, a: Any, b: Any) -> bool:
        """Whether two conditions hold for the same configs (False where a search gives up)."""
        from ._space import Inconclusive

        try:
            return all(self.search.split.solve(true=[x], false=[y]) is None for x, y in ((a, b), (b, a)))
        except Inconclusive:
            return False

    def config(self) -> None:
        """``[config]`` as each side has it at its version: a value one side accepts and the
        other refuses (a field, a choice, a bound or None gone or added), and a default that
        changed; each value re-resolved on both sides before it is said."""
        from .schema import NOTHING

        old, new = (side.matrix.schema.at(side.version) for side in (self.old, self.new))
        required = _diff.required_fields(self.old.plan, self.new.plan)
        for path in dict.fromkeys([*old.fields, *new.fields]):
            a, b = old.fields.get(path), new.fields.get(path)
            if a == b:
                continue
            # Every other field either side requires, set to a value both accept: a probe is
            # refused for its own value only (review of issue 28, D2: a value of threads was said
            # accepted now, where the old side refused the probe for leaving req out).
            base = self.settled(required, path, old, new)
            flips: Dict[str, List[Tuple[object, str]]] = {"config-rejected": [], "config-accepted": []}
            for value in _probes(a, b):
                config = _with(base, path, value)
                seen = [rejection(side.matrix, config, side.version) for side in (self.old, self.new)]
                if (seen[0] is None) != (seen[1] is None):
                    flips["config-rejected" if seen[0] is None else "config-accepted"].append(
                        (value, seen[0] or seen[1] or ""))
            for change_id, values in flips.items():
                if not values:
                    continue
                narrow = (b if change_id == "config-rejected" else a)
                if narrow is not None and narrow.type in ("int", "float"):  # the witness next to the bound that moved
                    bounds = [x for x in (narrow.min, narrow.max) if x is not None]
                    values.sort(key=lambda found: min((abs(found[0] - x) for x in bounds), default=0)
                                if isinstance(found[0], (int, float)) else float("inf"))
                side = self.new if b is not None else self.old  # a field gone: its old line
                value, error = values[0]
                region = _config_region(path, a, b, [v for v, _ in values], change_id == "config-rejected")
                old_text, new_text = ("accepted", _CONFIG_ERROR) if change_id == "config-rejected" else \
                    (_CONFIG_ERROR, "accepted")
                message = _messages.diff_config_value(path, change_id == "config-rejected", error)
                if (b if change_id == "config-rejected" else a) is None:
                    # Refused where the field is not declared: `resolve()` ignores a key [config]
                    # does not declare (strict=False, its default), `resolve(strict=True)` and
                    # `matrix resolve` refuse it (a user trial: "now a config error" was untrue of
                    # the first). A value the declaring side refuses (None, not nullable) is one.
                    change_id = "config-field-removed" if b is None else "config-field-added"
                    old_text, new_text = ("declared", _NOT_DECLARED) if b is None else (_NOT_DECLARED, "declared")
                    message = _messages.diff_config_field(path, removed=b is None)
                self.out.append(Difference(change_id, CHANGES[change_id][0], message, region,
                                           _with(base, path, value), old_text, new_text,
                                           entries=(_located(side, ("config", path)),)))
            if a is not None and b is not None and (a.default is NOTHING) != (b.default is NOTHING):
                # A default gone (the field now required) or given: a config that leaves it out is
                # refused on one side only.
                seen = [rejection(side.matrix, base, side.version) for side in (self.old, self.new)]
                if (seen[0] is None) != (seen[1] is None):
                    change_id = "config-rejected" if seen[0] is None else "config-accepted"
                    self.out.append(Difference(
                        change_id, CHANGES[change_id][0],
                        _messages.diff_config_value(path, change_id == "config-rejected", seen[0] or seen[1] or ""),
                        f"{path} is unset", base, *(("accepted", _CONFIG_ERROR) if change_id == "config-rejected"
                                                  else (_CONFIG_ERROR, "accepted")),
                        entries=(_located(self.new, ("config", path)),)))
            if a is not None and b is not None and a.default is not NOTHING and b.default is not NOTHING \
                    and not _same_value(a.default, b.default):
                # The field's own finding; what a config that leaves it unset resolves to is compared
                # with every other config (`matrix._diff.unset_defaults`): the findings whose
                # regions say ``PATH is unset``.
                # Its witness leaves it out of the sections above it, there (a nullable section left
                # out reads None, not the field's default).
                # Every field either side requires set (`settled`): both sides accept it.
                witness = _with(base, path.rsplit(".", 1)[0], {}) if "." in path else base
                self.out.append(Difference(
                    "config-default-changed", "behaviour", _messages.diff_config_default(path, a.default, b.default),
                    _unset_region(path, new), witness, repr(a.default), repr(b.default),
                    entries=(_located(self.new, ("config", path)),)))

    def settled(self, required: Set[str], path: str, old: Any, new: Any) -> Dict[str, Any]:
        """A config that sets each field of *required* but *path* (and those above or below
        it, and those below a nullable section), each to the first value of its probes that
        neither side refuses it for (`rejection` does not name it)."""
        from ._space import _representatives, json_value

        config: Dict[str, Any] = {}
        for other in sorted(required):
            if other == path or other.startswith(path + ".") or path.startswith(other + "."):
                continue
            parts = other.split(".")
            if any(f is None or f.nullable for i in range(1, len(parts))
                   for f in (new.fields.get(".".join(parts[:i])) or old.fields.get(".".join(parts[:i])),)):
                continue
            named = f"Config '{other}'"
            fields = (old.fields.get(other), new.fields.get(other))
            # Its probes, then a value of each class of its domain (a field without bound,
            # choice or default has no probe but None).
            for value in [*_probes(*fields), *(json_value(v) for f in fields if f is not None
                                               for v in _representatives(f, [])[0])]:
                if value is None:
                    continue
                tried = _with(config, other, value)
                if not any(named in (rejection(side.matrix, tried, side.version) or "")
                           for side in (self.old, self.new)):
                    config = tried
                    break
        return config

    def cosmetic(self) -> None:
        """Names, notes, links and groups that changed (no config answers differently)."""
        old, new = self.old.matrix, self.new.matrix
        for after in new.features:
            before = next((f for f in old.features if f.id == after.id), None)
            if before is None:
                continue
            for change_id, what, a, b in (("renamed", "name", before.name, after.name),
                                          ("note-changed", "note", before.note, after.note),
                                          ("links-changed", "links", before.links, after.links),
                                          ("group-changed", "group", before.group, after.group)):
                if a != b:
                    a, b = _cosmetic_value(a), _cosmetic_value(b)
                    self.out.append(Difference(change_id, CHANGES[change_id][0], f"{after.name}: {what} {a} → {b}",
                                           "no config", {}, a, b, features=(after.id,),
                                           entries=(_entry(self.new, after),)))
        # A runner's name, compared by its id on the new side (its former id where it was renamed
        # with an alias: a user trial found the name of a runner renamed both ways lost), said at
        # its runner file (it was said at [matrix] runners).
        formers = {now: was for was, now in self.search.renamed.items()}
        for runner in new.runners:
            was = formers.get(runner.id, runner.id)
            if was in {r.id for r in old.runners} and old.runner(was).name != runner.name:
                self.out.append(Difference("renamed", "cosmetic", f"Runner {runner.id!r}: name "
                                       f"{old.runner(was).name!r} → {runner.name!r}", "no config", {},
                                       repr(old.runner(was).name), repr(runner.name), runner=runner.id,
                                       entries=(_runner_entry(self.new, runner.id),)))
        for was, now in self.search.renamed.items():  # an id renamed, the former one kept as an alias
            self.out.append(Difference("renamed", "cosmetic", _messages.diff_runner_renamed(was, now),
                                       "no config", {}, repr(was), repr(now), runner=now,
                                       entries=(_runner_entry(self.new, now),)))

    def effective(self, runners: Sequence[str] = ()) -> None:
        """Paths whose value after the adjustments differs (`matrix._diff.effective_questions`):
        a finding per path and per cause (`rounds`), caused by the adjustments that differ and
        change a value where it differs (or, where none does, the gates that differ there: the
        resolutions end on another runner's effective config), for automatic choice and for a
        request for each of *runners* (where a request's configs are automatic choice's, that
        finding says it)."""
        search = self.search
        for path, causes, by_runner, read_as in search.effective:
            field = search.space.schema.get(path)
            if field is not None and field.item_type is not None:
                search.undecided.append(_messages.diff_not_compared(
                    f"the effective value of {path}", "a config an adjustment changes (a list)"))
                continue

            def where(asked: Optional[str], extra: List[Any], path: str = path,
                      by_runner: Any = by_runner) -> Optional[_diff.Assignment]:
                return search.effective_region(path, by_runner, asked=asked, extra=extra)

            def value(asked: Optional[str], path: str = path) -> Callable[[_diff.Side, Dict[str, Any]], str]:
                return lambda at, config: effective_value(at, config, path, asked)

            def pin(asked: Optional[str], witness: Dict[str, Any], seen: Tuple[str, ...], named: List[Any],
                    path: str = path, by_runner: Any = by_runner, read_as: Any = read_as) -> Optional[_Pinned]:
                # The terms the witness reads on each side: a literal is said as it is, any other
                # term (the config's own value, a field it copies) as that term, or as the
                # witness's value where every config of the region reads it.
                terms = search.reading(by_runner, read_as, asked, witness)
                if terms is None:
                    return None

                def settle(goals: List[Any], terms: Tuple[Any, Any] = terms) -> Tuple[str, ...]:
                    return tuple(text if isinstance(term, _Literal) or isinstance(term, Path) and (
                        value := _literal(text)) is not None and search.read_alike(goals, term.name, value)
                        else _term_text(term, path, text) for term, text in zip(terms, seen))

                return _diff.pinned(by_runner, read_as, terms), settle

            for asked, witness, seen, named, found, region, stated in self.rounds(
                    by_runner, runners, where, value, "effective", {path}, pin=pin):
                entries = [_located(side, ("adjustments", a.id)) for side, a, _ in named]
                ids = tuple(a.id for _, a, _ in named)
                if not ids:  # no adjustment that differs changes a value there: what else differs
                    # (an adjustment's own gate only where it runs: `runs`)
                    gates = [(standing, gate) for standing, gate in self.causes_at(found)
                             if not isinstance(gate.origin, Adjustment) or self.runs(gate.origin.id, witness, asked)]
                    entries = [_entry(*self.standing_at(standing, gate)) for standing, gate in gates]
                    entries += self.default_entries(search.unset_at(found))  # a default read that differs
                    ids = tuple(gate.id for _, gate in gates)
                    if not entries:  # the adjustments that differ and change a value here (another F)
                        named_here = [(side, a) for side, a, node in search.changing() if search.holds(node, witness)]
                        entries = [_located(side, ("adjustments", a.id)) for side, a in named_here]
                        ids = tuple(a.id for _, a in named_here)
                    if not entries:  # not known what else: the adjustments that set it
                        entries = [_located(next(side for side in (self.new, self.old)
                                                 if adjustment_named(side, c) is not None), ("adjustments", c))
                                   for c in causes]
                        ids = causes
                sides = {side.name for side, _, _ in named}
                change_id = ("adjustment-changed" if any(adjustment_named(self.old, a.id) is not None
                                                         and adjustment_named(self.new, a.id) is not None
                                                         for _, a, _ in named)
                             else "adjustment-added" if sides == {"new"} else "adjustment-removed"
                             if sides == {"old"} else "adjustment-changed")
                said = stated or _copied(path, seen, named, (self.old, self.new))
                message = self._asking(asked, _messages.diff_effective(path, said[0], said[1]))
                self.out.append(Difference(change_id, CHANGES[change_id][0], message, region, witness, said[0],
                                           said[1], runner=asked, features=ids, entries=tuple(dict.fromkeys(entries))))

    def rounds(self, by_runner: Dict[Any, List[Any]], runners: Sequence[str],
               search: Callable[[Optional[str], List[Any]], Optional[_diff.Assignment]],
               read: Callable[[Optional[str]], Callable[[_diff.Side, Dict[str, Any]], str]], what: str,
               reads: Set[str], subject: Optional[str] = None,
               pin: Optional[Callable[[Optional[str], Dict[str, Any], Tuple[str, ...], List[Any]],
                                      Optional[_Pinned]]] = None
               ) -> Iterator[Tuple[Optional[str], Dict[str, Any], Tuple[str, ...], List[Any], _diff.Assignment, str,
                                   Optional[Tuple[str, ...]]]]:
        """The regions where what *by_runner*'s options say differs (an effective value, or what an
        adjustment says: *read* of a request for a runner, None for automatic choice, gives it), one
        per cause: for automatic choice and a request for each of *runners*, a witness *search*
        finds (the same runner or none chosen on both sides, the groups it is given each holding),
        the adjustments that differ and change a value there and write a path of *reads* (or one an
        adjustment writing such a path reads: `feeds`; *subject*, the adjustment a warning is
        about, left out), and the region, exactly (`options_text`), where those change a value;
        then again where not all of them do, until no config is left or none is named (at most
        `matrix._diff.MAX_REGIONS`, the rest said in ``undecided``). Each as (runner asked for,
        witness, what each side reads there, the adjustments named as (side, adjustment, where it
        changes a value), the search's assignment, the region). A request whose regions are
        automatic choice's (the same configs change, by the same causes) is said by its findings.
        With *pin* (the request, the witness, what each side reads there, the adjustments named →
        *by_runner*'s options held to the configs that read so, `matrix._diff.pinned`, and what
        each side reads said for the region's cases, yielded last), a region holds only the configs
        that change as its witness does, and the rest are asked again."""
        from ._nodes import Not
        from ._substitute import disjoin, negate

        if not by_runner:
            return
        options = [n for nodes in by_runner.values() for n in nodes]
        automatic: Optional[List[Any]] = None
        covered = False  # whether automatic choice's findings say every config of its regions
        said: Set[Tuple[str, Tuple[str, ...]]] = set()
        for asked in [None, *runners]:
            base = self.search.exact_regions(by_runner, asked)
            if asked is not None and base == automatic and covered:
                continue  # the same cases (no runner's own adjustments read apart), said by automatic choice's
            if asked is None:
                automatic = base
            groups: List[List[Any]] = []
            found = search(asked, [])
            whole = False  # the regions said hold every config where it differs
            for _ in range(_diff.MAX_REGIONS):
                if found is None:
                    break
                settled = self._witness(found, read(asked), what, asked, _holding(groups, self.search.holds))
                if settled is None:
                    break
                witness, seen = settled
                named = [(side, a, node) for side, a, node in self.search.changing()
                         if a.id != subject and self.feeds_either(a.id, reads) and self.search.holds(node, witness)
                         and self.runs(a.id, witness, asked)]
                more = [(node, True) for _, _, node in named] + [(disjoin(group), True) for group in groups]
                pinned = None if pin is None else pin(asked, witness, seen, named)
                goals, here, stated = self._region_of(by_runner, asked, more, pinned, witness)
                region = self.options_text(goals) or "every config"
                key = (region, tuple(a.id for _, a, _ in named))
                if asked is None:
                    said.add(key)
                if asked is None or key not in said:
                    yield asked, witness, seen, named, found, region, stated
                if here is not None:  # the configs said, whatever changes a value there
                    groups.append([negate(here)])
                elif not named:
                    whole = True
                    break
                else:
                    groups.append([Not(node) for _, _, node in named])
                # Asked whole only where an option can hold beside the groups at all (a cheap
                # question: one option beside where the causes named do not all change a value).
                if self.search._solve({"true": [], "false": [], "extra": [
                        ("any", options), *(("any", g) for g in groups)]}, what) is None:
                    whole = True
                    break
                found = search(asked, [("any", g) for g in groups])
            else:
                if found is not None:
                    self.search.undecided.append(_messages.diff_regions_left(_diff.MAX_REGIONS, what))
            if asked is None:
                # Where no witness was found (the runner changes there, or a request alone reads
                # alike), a request may have one: its regions are asked too.
                covered = whole or found is None and not self.search.exact_regions(
                    by_runner, None, [(disjoin(group), True) for group in groups])

    def _region_of(self, by_runner: Dict[Any, List[Any]], asked: Optional[str], more: List[Any],
                   pinned: Optional[_Pinned], witness: Dict[str, Any]
                   ) -> Tuple[List[Any], Optional[Any], Optional[Tuple[str, ...]]]:
        """The cases of a region of `rounds` (`matrix._diff.Search.exact_regions`, *more* holding),
        held to its witness's terms where *pinned* gives them; with, where it does, the region as
        one condition and what each side reads there."""
        from ._substitute import conjoin, disjoin, negate

        if pinned is not None:
            goals = self.search.exact_regions(pinned[0], asked, more)
            here = disjoin([conjoin([n if w else negate(n) for n, w in g]) for g in goals])
            if self.search.holds(here, witness):
                return goals, here, pinned[1](goals)
            # Not held to its own witness (a value the terms spell otherwise): said whole.
        return self.search.exact_regions(by_runner, asked, more), None, None

    def runs(self, adjustment_id: str, witness: Dict[str, Any], asked: Optional[str]) -> bool:
        """Whether the adjustment *adjustment_id* changes a value where *witness* is resolved
        (automatic choice, or a request for *asked*) on a side that has it: one before the choice,
        or the own adjustment of the runner whose effective config the resolution ends on (issue
        28: a runner's own adjustment never runs where another runner is asked for, and is never
        named there)."""
        for side in (self.old, self.new):
            if adjustment_named(side, adjustment_id) is None:
                continue
            try:
                try:
                    resolution = _resolver.resolve(side.matrix, witness, runner=side.local(asked),
                                                   version=side.version)
                except ResolutionError as raised:
                    resolution = raised.resolution
            except ConfigError:
                return True  # not read here: named as the search found it
            if any(changed.id == adjustment_id for changed in resolution.adjustments):
                return True
        return False

    def feeds(self, side: _diff.Side, adjustment: Any, reads: Set[str]) -> bool:
        """Whether *adjustment* (of *side*) writes a path of *reads*, or one that an adjustment of
        *side* reads (its ``when`` or a ``from``) that writes such a path, and so on: where it
        changes a value, it may change what is read there."""
        from .schema import From

        reads = set(reads)
        everyone = _diff.every_adjustment(side.plan)
        grown = True
        while grown:
            grown = False
            for a in everyone:
                if set(a.set) & reads:
                    more = set(a.when.paths) | {v.path for v in a.set.values() if isinstance(v, From)}
                    if not more <= reads:
                        reads |= more
                        grown = True
        return bool(set(adjustment.set) & reads)

    def _asking(self, asked: Optional[str], message: str) -> str:
        """*message* of a request for *asked* (as it is for automatic choice)."""
        return message if asked is None else f"Asking for {self.new.matrix.runner(asked).name}: {message}"

    def _witness(self, found: Any, read: Callable[[_diff.Side, Dict[str, Any]], str], what: str,
                 asked: Optional[str] = None, keep: Optional[Callable[[Dict[str, Any]], bool]] = None
                 ) -> Optional[Tuple[Dict[str, Any], Tuple[str, ...]]]:
        """The witness of the search's region *found* where *read* (a side, a config → what it
        says there) differs between the sides, shortened, and what each side says; None (and a
        line in `unreproduced`, ``(what)``) where it does not differ. A shorter witness answers
        alike: the same reads, *keep* holding, and the resolutions ending as the search asks (the
        same runner on both sides, or both refused, in automatic choice or a request for *asked*;
        or, where the witness found ends otherwise, as it does)."""
        sides = (self.old, self.new)
        witness = self.search.witness(found)
        seen = tuple(read(side, witness) for side in sides)
        if seen[0] == seen[1]:
            self.unreproduced.append(f"A witness did not reproduce ({what}): {json.dumps(witness)}")
            return None
        kind = "automatic" if asked is None else "asked"

        def ending(config: Dict[str, Any]) -> Tuple[bool, Tuple[str, ...]]:
            """Where the resolutions end, as far as the search asks: alike (the same runner, or
            both refused, both for a removal or neither), or what each side answers."""
            answers = tuple(observe(s, config, kind, asked) for s in sides)
            ends = [a if a.startswith("refused") else a.split(" (")[0] for a in answers]
            refused = [e.startswith("refused") for e in ends]
            alike = ends[0] == ends[1] or all(refused) and (ends[0] == _REMOVED) == (ends[1] == _REMOVED)
            return alike, answers

        ended = ending(witness)

        def same(config: Dict[str, Any]) -> bool:
            try:
                if tuple(read(s, config) for s in sides) != seen or keep is not None and not keep(config):
                    return False
            except ConfigError:
                return False  # it leaves out a value a side requires: no shorter witness (found by the brute force)
            now = ending(config)
            return now[0] if ended[0] else now == ended

        shorter = _pruned(witness, self.old, self.new)
        if shorter != witness and same(shorter):
            witness = shorter
        return _fewest_paths(witness, same), seen

    def options_text(self, regions: List[Any]) -> str:
        """The configs as given where an effective value (or what an adjustment says) differs,
        exactly: for each pair of effective configs the resolutions end on, where they end there
        and an option of that pair holds (*regions*: `matrix._diff.Search.exact_regions`; the
        adjustments' conditions read the config after the earlier ones, not as given), each said
        with as few conditions as can be."""
        from ._nodes import Or
        from ._space import Inconclusive

        search = self.search
        texts: List[str] = []
        self._text(Or(()))  # the gates' own texts, known
        for goals in regions:
            try:
                kept = search.fewest_conjuncts(goals, whole=self._texts)
            except Inconclusive:  # said as it stands
                kept = list(goals)
            text = self._conjunction([n for n, w in kept if w], [n for n, w in kept if not w])
            if text not in texts:
                texts.append(text)
        return _union(texts)

    def said(self, runners: Sequence[str] = ()) -> None:
        """What each adjustment says (its ``adjusted`` warning: `matrix._diff.said_questions`):
        a finding per adjustment, change and cause (`rounds`), its region exactly where it speaks
        so, its witness where both sides choose the same runner, or both refuse, re-resolved on
        both sides; caused by the adjustment where it differs, and by the adjustments that differ
        and change a value there and write what it reads (one that stands alike says otherwise
        where one before it differs), else by the gates that differ there (the resolutions end on
        another runner's effective config). For automatic choice and a request for each of
        *runners*, as `effective`."""
        from .schema import From

        search = self.search
        for adjustment_id, change_id, by_runner in search.said:
            old_one, new_one = (adjustment_named(side, adjustment_id) for side in (self.old, self.new))
            either = new_one or old_one
            assert either is not None  # an id of one side at least
            name = either.name
            # What it reads: its condition, what it sets (from what), and what fills its words.
            reads = {p for a in (old_one, new_one) if a is not None
                     for p in (*a.when.paths, *a.set, *(v.path for v in a.set.values() if isinstance(v, From)),
                               *_diff.word_paths(a))}

            def where(asked: Optional[str], extra: List[Any], adjustment_id: str = adjustment_id,
                      by_runner: Any = by_runner, name: str = name) -> Optional[_diff.Assignment]:
                return search.effective_region(adjustment_id, by_runner, f"where what {name} says changes", asked,
                                               extra)

            def saying(asked: Optional[str], adjustment_id: str = adjustment_id
                       ) -> Callable[[_diff.Side, Dict[str, Any]], str]:
                return lambda at, config: said_by(at, config, adjustment_id, asked)

            varying: List[str] = []  # the word paths whose values vary over the last region (`pin`)

            def pin(asked: Optional[str], witness: Dict[str, Any], seen: Tuple[str, ...], named: List[Any],
                    by_runner: Any = by_runner, old_one: Any = old_one, new_one: Any = new_one,
                    varying: List[str] = varying) -> Optional[_Pinned]:
                # Its words are filled with the values of its word paths as it finds them: the
                # region holds the configs where each side that speaks reads them as the witness
                # does (`matrix._diff.pinned`'s rule); where that is the config's own value, the
                # words vary with it and the witness's are said (`_said`).
                held = search.words_as_at(witness, [(side, one) for side, one, text in
                                                    zip((self.old, self.new), (old_one, new_one), seen)
                                                    if one is not None and text != _NOT_WARNED])
                if held is None:
                    return None
                held_node, read = held
                varying[:] = [p for p, _ in read]  # where the region is not held to them: every one
                from ._substitute import conjoin

                def settle(goals: List[Any], seen: Tuple[str, ...] = seen, witness: Dict[str, Any] = witness,
                           read: Any = read) -> Tuple[str, ...]:
                    varying[:] = search.words_vary(goals, witness, read)
                    return seen

                return {pair: [conjoin([option, held_node]) for option in options]
                        for pair, options in by_runner.items()}, settle

            for asked, witness, seen, named, found, region, _ in self.rounds(by_runner, runners, where, saying,
                                                                             "said", reads, adjustment_id, pin=pin):
                if varying:
                    line = _messages.diff_not_compared(_messages.diff_words_varying(name, list(dict.fromkeys(varying))),
                                                       "a config it warns")
                    if line not in search.undecided:
                        search.undecided.append(line)
                self._said(adjustment_id, change_id, name, asked, witness, seen, named, found, region, old_one,
                           new_one)

    def _said(self, adjustment_id: str, change_id: str, name: str, asked: Optional[str], witness: Dict[str, Any],
              seen: Tuple[str, ...], named: List[Any], found: _diff.Assignment, region: str, old_one: Any,
              new_one: Any) -> None:
        """One finding of `said`: what adjustment *adjustment_id* (*old_one*, *new_one*: as each
        side has it) says, in automatic choice or a request for *asked*, at *witness*, caused by the
        adjustments *named* (`rounds`)."""
        differs = old_one is None or new_one is None or _diff.saying(old_one) != _diff.saying(new_one) \
            or _diff.adjusting_one(old_one) != _diff.adjusting_one(new_one) or old_one.says != new_one.says
        entries: List[Entry] = []
        ids: List[str] = []
        if differs:
            side = self.new if new_one is not None else self.old
            entries.append(_located(side, ("adjustments", adjustment_id)))
            ids.append(adjustment_id)
        for side, a, _ in named:
            entries.append(_located(side, ("adjustments", a.id)))
            ids.append(a.id)
        if not ids:  # the adjustment stands alike: the gates that differ where the resolutions end
            for standing, gate in self.causes_at(found):
                entries.append(_entry(*self.standing_at(standing, gate)))
                ids.append(gate.id)
            entries += self.default_entries(self.search.unset_at(found))  # a default read that differs
        if not entries:  # not known what else: the adjustment itself
            side = self.new if new_one is not None else self.old
            entries, ids = [_located(side, ("adjustments", adjustment_id))], [adjustment_id]
        if not ids or ids[0] != adjustment_id:
            ids.insert(0, adjustment_id)  # the adjustment said first: `reproduces` reads it
        self.out.append(Difference(change_id, CHANGES[change_id][0],
                                   self._asking(asked, _messages.diff_said(name, seen[0], seen[1])),
                                   region, witness, seen[0], seen[1], runner=asked, features=tuple(ids),
                                   entries=tuple(entries)))

    def kinds(self, runners: Sequence[str] = ()) -> None:
        """The exception kind a refusal raises (`ResolutionError.kind`, the kind of the requirement
        that decides it: `matrix._diff_kinds`), for automatic choice and a request for each of
        *runners*: where both sides refuse, one finding per pair of kinds, its region exactly
        the configs whose refusals raise those kinds, its witness re-resolved on both sides."""
        from . import _diff_kinds
        from ._substitute import conjoin, constant

        search, sides = self.search, (self.old, self.new)
        if not any(_diff_kinds.kinded(side) for side in sides) or any(_diff_kinds.unmodelled(side) for side in sides):
            return  # no requirement has a kind, or not compared (`_unread` says so)
        what = "where the exception kind of a refusal changes"
        for asked in [None, *runners]:
            cases = [_diff_kinds.cases(search, side, asked) for side in sides]
            found: Dict[Tuple[Optional[str], Optional[str]], List[List[Any]]] = {}
            for a_question, a_kinds in cases[0]:
                for b_question, b_kinds in cases[1]:
                    options = [(conjoin([a, b]), x, y) for a, x in a_kinds for b, y in b_kinds if x != y]
                    options = [o for o in options if constant(o[0]) is not False]
                    if not options:
                        continue
                    question = {key: a_question[key] + b_question[key] for key in ("true", "false", "extra")}
                    if search._solve({**question, "extra": [*question["extra"], ("any", [o[0] for o in options])]},
                                     what) is None:
                        continue
                    goals = [*_diff._goals(a_question), *_diff._goals(b_question)]
                    for node, x, y in options:
                        region = [*goals, (node, True)]
                        if search._solve(_diff._question_of(region), what) is not None:
                            found.setdefault((x, y), []).append(region)
            for (x, y), regions in found.items():
                self._by_cause(regions, what, functools.partial(self._kind, asked, x, y), asked)

    def warnings(self, runners: Sequence[str] = ()) -> None:
        """The warnings a config is served with that name a feature (`matrix._diff_warnings`: a
        runner's partial support, a request's opt-in, a preference passed over), for automatic
        choice and a request for each of *runners*: where both sides serve the same runner, one
        finding per warning, change and cause, its region exact, its witness re-resolved."""
        from . import _diff_warnings

        search = self.search
        for asked in [None, *runners]:
            keys = _diff_warnings.keys(self.old, self.new, asked, search.shared)
            if not keys:
                continue
            cases = (_diff_warnings.served(search, self.old, asked), _diff_warnings.served(search, self.new, asked))
            for key in keys:
                for direction, regions in _diff_warnings.questions(search, asked, key, cases).items():
                    self._by_cause(regions, f"where a {key[0]} warning changes",
                                   functools.partial(self._warning, asked, key, direction), asked)

    def aliases(self) -> None:
        """A request by a runner's former id (`matrix._diff_aliases`): where both sides accept it
        for the same runner and one warns that the id is deprecated, a finding for every config
        that side does not refuse for a removed feature first (the side's version alone decides
        the rest), its witness re-resolved on both sides, its cause the runner's ``aliases`` where
        the alias stands."""
        from . import _diff_aliases

        for former in _diff_aliases.formers(self.old, self.new):
            change_id = _diff_aliases.compared(self.old, self.new, former)
            if change_id is None:
                continue
            warning = self.new if change_id == "alias-warning-added" else self.old
            removed = warning.removed(True)  # a removal refuses a request before the id is said
            found = self.search._solve({"true": [], "false": list(removed), "extra": []},
                                       f"where a request by {former!r} is warned")
            if found is None:
                continue

            def same(config: Dict[str, Any], seen: Tuple[str, ...] = (), former: str = former) -> bool:
                return tuple(observe(side, config, "alias", former) for side in (self.old, self.new)) == seen

            witness = self.search.witness(found)
            seen = tuple(observe(side, witness, "alias", former) for side in (self.old, self.new))
            if seen[0] == seen[1]:
                self.unreproduced.append(f"A witness did not reproduce (alias): {json.dumps(witness)}")
                continue
            witness = _fewest_paths(witness, functools.partial(same, seen=seen))
            side = _diff_aliases.entry_side(self.old, self.new, former)
            runner = side.plan.aliases[former].runner
            self.out.append(Difference(change_id, CHANGES[change_id][0],
                                       _messages.diff_alias(former, side.matrix.runner(runner).name, *seen),
                                       self._conjunction([], removed), witness, seen[0], seen[1], runner=former,
                                       entries=(_runner_entry(side, runner, ("aliases",)),)))

    def _warning(self, asked: Optional[str], key: Tuple[str, str], direction: str, regions: List[List[Any]],
                 named: List[Any], found: _diff.Assignment) -> None:
        """One finding of `warnings` (`_by_cause`): the warning *key* said on the new side only
        (*direction* ``added``) or the old only, caused by its gate where it stands and the
        adjustments *named*."""
        search = self.search
        kind, gate_id = key
        change_id = f"{'preference-notice' if kind == 'preference' else kind}-{direction}"
        region = self.options_text(regions) or "every config"
        said = ("not warned", "warned") if direction == "added" else ("warned", "not warned")
        inside = _inside(region, search.space.schema)
        sides = (self.old, self.new)

        question = "preference-notice" if kind == "preference" else kind

        def same(config: Dict[str, Any]) -> bool:
            seen = tuple(observe(side, config, question, asked, gate_id) for side in sides)
            ends = [observe(side, config, "automatic" if asked is None else "asked", asked) for side in sides]
            return seen == said and ends[0].split(" (")[0] == ends[1].split(" (")[0] and inside(config)

        witness = search.witness(found)
        if any(observe(side, witness, question, asked, gate_id).startswith(_CONFIG_ERROR) for side in sides):
            return  # a value one side's [config] refuses: said by the config-* finding of its field, as `add` does
        if not same(witness):
            self.unreproduced.append(f"A witness did not reproduce ({kind}): {json.dumps(witness)}")
            return
        shorter = _pruned(witness, self.old, self.new)
        if shorter != witness and same(shorter):
            witness = shorter
        witness = _fewest_paths(witness, same)
        gate = self.new.gate(gate_id) or self.old.gate(gate_id)
        assert gate is not None
        entries = [_entry(*self.standing_at("new" if self.new.gate(gate_id) is not None else "old", gate))]
        entries += [_located(side, ("adjustments", a.id)) for side, a, _ in named]
        ids = [gate_id, *(a.id for _, a, _ in named)]
        message = _messages.diff_warned(kind, gate.name, *said)
        message = f"Automatic choice: {message}" if asked is None else self._asking(asked, message)
        self.out.append(Difference(change_id, CHANGES[change_id][0], message, region, witness, said[0], said[1],
                                   runner=asked, features=tuple(dict.fromkeys(ids)),
                                   entries=tuple(dict.fromkeys(entries))))

    def _by_cause(self, regions: List[List[Any]], what: str,
                  emit: Callable[[List[List[Any]], List[Any], _diff.Assignment], None],
                  asked: Optional[str]) -> None:
        """The findings of one change in *regions* (each a list of goals), one per cause: at a
        witness, the adjustments that differ, change a value there and write what a gate reads
        (`_diff.Search.changing`), the region where those change a value (*emit* of its goals, the
        adjustments and the search's assignment), then again where not all of them do (at most
        `matrix._diff.MAX_REGIONS`, the rest said in ``undecided``). Only the adjustments that run for
        the witness on a side are named (`runs`: a request for *asked*, None for automatic choice)."""
        from ._nodes import Not
        from ._substitute import conjoin, disjoin, negate

        search = self.search
        anywhere = disjoin([conjoin([n if w else negate(n) for n, w in goals]) for goals in regions])
        reads = {p for side in (self.old, self.new) for g in side.plan.features for p in g.when.paths}
        groups: List[List[Any]] = []
        for _ in range(_diff.MAX_REGIONS):
            found = search._solve({"true": [anywhere], "false": [], "extra": [("any", g) for g in groups]}, what)
            if found is None:
                return
            witness = search.witness(found)
            named = [(side, a, node) for side, a, node in search.changing()
                     if self.feeds_either(a.id, reads) and search.holds(node, witness)
                     and self.runs(a.id, witness, asked)]
            more = [(node, True) for _, _, node in named] + [(disjoin(g), True) for g in groups]
            held = [[*more, *goals] for goals in regions]
            held = [goals for goals in held if search._solve(_diff._question_of(goals), what) is not None]
            if not held:
                return
            emit(held, named, found)
            if not named:
                return
            groups.append([Not(node) for _, _, node in named])
        if search._solve({"true": [anywhere], "false": [], "extra": [("any", g) for g in groups]}, what) is not None:
            search.undecided.append(_messages.diff_regions_left(_diff.MAX_REGIONS, what))

    def _kind(self, asked: Optional[str], old_kind: Optional[str], new_kind: Optional[str],
              regions: List[List[Any]], named: List[Any], found: _diff.Assignment) -> None:
        """One finding of `kinds` (`_by_cause`): its witness from *found*, shortened, caused by the
        requirement that decides each side's kind there (its kind's table too, where the kind it
        gives differs), the adjustments *named*, and, where neither, the entries that differ there
        (what makes the refusal say another requirement first)."""
        from . import _diff_kinds

        search = self.search
        region = self.options_text(regions) or "every config"
        said = (_messages.diff_kind_said(old_kind), _messages.diff_kind_said(new_kind))
        inside = _inside(region, search.space.schema)

        def kinds(config: Dict[str, Any]) -> Tuple[str, ...]:
            return tuple(observe(side, config, "refusal-kind", asked) for side in (self.old, self.new))

        witness = search.witness(found)
        if kinds(witness) != said:
            self.unreproduced.append(f"A witness did not reproduce (refusal-kind): {json.dumps(witness)}")
            return

        def same(config: Dict[str, Any]) -> bool:
            return kinds(config) == said and inside(config)

        shorter = _pruned(witness, self.old, self.new)
        if shorter != witness and same(shorter):
            witness = shorter
        witness = _fewest_paths(witness, same)
        entries: List[Entry] = []
        ids: List[str] = []
        gates = [_diff_kinds.deciding(side, witness, asked) for side in (self.old, self.new)]
        moved = False  # whether a requirement that decides gives another kind on the other side
        for name, gate in zip(("old", "new"), gates):
            if gate is None:
                continue
            other = (self.new if name == "old" else self.old).gate(gate.id)
            moved = moved or other is None or _diff_kinds.kind_of(other) != _diff_kinds.kind_of(gate)
            entries.append(_entry(*self.standing_at(name, gate)))
            ids.append(gate.id)
            kind_id = str(getattr(gate.origin, "kind", ""))
            tables = [next((k for k in side.matrix.requirement_kinds if k.id == kind_id), None)
                      for side in (self.old, self.new)]
            if None not in tables and tables[0].error_kind != tables[1].error_kind:  # type: ignore[union-attr]
                entries.append(_located(self.new, ("requirements", kind_id)))
        for side, a, _ in named:
            entries.append(_located(side, ("adjustments", a.id)))
            ids.append(a.id)
        if not moved and not named:
            for standing, gate in self.causes_at(found):
                entries.append(_entry(*self.standing_at(standing, gate)))
                ids.append(gate.id)
        entries = list(dict.fromkeys(entries)) or [_order_entry(self.new)]
        change = _messages.diff_refusal_kind(*said)
        message = f"Automatic choice: {change}" if asked is None else self._asking(asked, change)
        self.out.append(Difference("refusal-kind-changed", CHANGES["refusal-kind-changed"][0], message, region, witness,
                                   said[0], said[1], runner=asked, features=tuple(dict.fromkeys(ids)),
                                   entries=tuple(entries)))

    def _excluded(self, region: _diff.Region, causes: Sequence[Tuple[str, Feature]]) -> List[Feature]:
        out: List[Feature] = []
        for side, gate_id in region.excluded:
            gate = self.side(side).gate(gate_id)
            if gate is not None and gate.origin is None and all(gate.when != g.when for g in out) \
                    and all(gate.when != c.when for _, c in causes):
                out.append(gate)
        return out

    def _bound(self, region: _diff.Region) -> List[Feature]:
        out = []
        for side, gate_id in region.gates:
            gate = self.side(side).gate(gate_id)
            if gate is not None and gate not in out:
                out.append(gate)
        return out

    def observe(self, region: _diff.Region, witness: Dict[str, Any]) -> Optional[Tuple[str, str]]:
        """What the witness resolves to on each side, in the terms of the region's question;
        None (and a line in `unreproduced`) when both say the same."""
        answers = self.answers(region, witness)
        if answers[0] == answers[1]:
            self.unreproduced.append(f"A witness did not reproduce ({region.kind}): {json.dumps(witness)}")
            return None
        return answers

    def answers(self, region: _diff.Region, witness: Dict[str, Any]) -> Tuple[str, str]:
        name = None
        if region.kind == "blocker" and region.feature is not None:
            gate = self.new.gate(region.feature) or self.old.gate(region.feature)
            name = gate.name if gate is not None else None
        old, new = (observe(side, witness, region.kind, region.runner, region.feature, region.blocked, name)
                    for side in (self.old, self.new))
        return old, new


_CONFIG_ERROR = "a config error"
#: A field's side of a ``config-field-*`` change where the field is not declared.
_NOT_DECLARED = "not declared (ignored; refused when strict)"
_NOT_WARNED = _messages.diff_said_value(None, None)
#: The kinds of question of a warning a config is served with (`matrix._diff_warnings`), and the
#: kind of `ResolutionWarning` each reads.
_WARNINGS = {"partial": "partial", "opt-in": "opt-in", "preference-notice": "preference"}
_REMOVED = "refused (the feature is removed)"


def rejection(matrix: Matrix, config: Dict[str, Any], version: Optional[VersionLike] = None) -> Optional[str]:
    """Why *matrix*'s ``[config]`` at *version* rejects *config*, held to the schema as ``matrix
    resolve`` holds it (a key it does not declare, and every value, read or not), or None where
    it accepts it (it resolves, or is refused: an answer)."""
    from ._access import unknown_keys

    if matrix.schema:
        unknown = [_messages.config_error(reason, path, None) for path, reason in unknown_keys(config, matrix.schema)]
        if unknown:
            return "; ".join(unknown)
    try:
        try:
            resolution = _resolver.resolve(matrix, config, version=version)
        except ResolutionError as error:
            resolution = error.resolution
        dict(resolution.effective)  # every value held to the schema
    except ConfigError as refused:
        return str(refused)
    return None


def _probes(*fields: Optional[Any]) -> List[object]:
    """Values of a field that one side may accept and the other refuse: every choice of either
    side, None, the booleans, each bound and its neighbours, each default."""
    from ._operators import exact_float
    from ._space import json_value
    from .schema import NOTHING

    out: List[object] = []
    for field in fields:
        if field is None:
            continue
        if field.choices is not None:
            out += list(field.choices)
            if field.type == "str":  # a string no choice is: accepted where the other side has none
                out.append(max((str(c) for c in field.choices), key=lambda c: (len(c), c), default="") + "?")
        elif field.type == "bool":
            out += [True, False]
        elif field.type in ("int", "float"):
            for bound in (field.min, field.max):
                if bound is not None:
                    # A float field's as floats where they are exactly (its bound 2**53 + 1, an
                    # int, and its neighbours stay ints: float() rounded them onto 2**53).
                    out += [int(bound + step) if field.type == "int" else exact_float(bound + step) for step in (-1, 0, 1)]
        out.append(None)
        if field.default is not NOTHING and field.default is not None:
            out.append(json_value(field.default))  # as a config holds it: a version as text (a witness is JSON)
    seen: List[object] = []
    for value in out:
        if not any(_same_value(value, other) for other in seen):
            seen.append(value)
    return seen


def _unset_region(path: str, schema: Any) -> str:
    """``PATH is unset``, and each nullable section above it not None: a config without such a
    section reads None there, not the default (review of issue 28, D3)."""
    parts = path.split(".")
    above = [".".join(parts[:end]) for end in range(1, len(parts))]
    return " and ".join([f"{path} is unset", *(f"{s} is not None" for s in above
                                                 if (schema.fields.get(s) is None or schema.fields[s].nullable))])


def _with(config: Dict[str, Any], path: str, value: object) -> Dict[str, Any]:
    """*config* (not changed) with *path* set to *value*: its sections as tables."""
    out = copy.deepcopy(config)
    table = out
    *sections, last = path.split(".")
    for section in sections:
        if not isinstance(table.get(section), dict):
            table[section] = {}
        table = table[section]
    table[last] = value
    return out


def _nested(path: str, value: object) -> Dict[str, Any]:
    """``{"a": {"b": value}}`` for ``a.b``."""
    out: Dict[str, Any] = {}
    table = out
    *sections, last = path.split(".")
    for section in sections:
        table = table.setdefault(section, {})
    table[last] = value
    return out


def _config_region(path: str, a: Optional[Any], b: Optional[Any], values: List[object], rejected: bool) -> str:
    """The values of *path* one side accepts and the other refuses, as text: a field on one side
    only (any value), the bounds that moved (numbers: exactly), else the values found."""
    wide, narrow = (a, b) if rejected else (b, a)
    if narrow is None:  # the side that refuses them does not declare the field
        return f"{path} set to any value"
    # A side without the field at its version (a field's since or until) reads no value of it:
    # it refuses none, so the region is what the other refuses (not "any value": 0 of min 0).
    free = wide if wide is not None else attrs.evolve(narrow, choices=None, min=None, max=None)
    if free.type == narrow.type and narrow.type in ("int", "float") and free.choices is None and narrow.choices is None:
        parts = []
        if narrow.max is not None and (free.max is None or free.max > narrow.max):
            parts.append(f"{path} > {narrow.max}" + (f" and {path} <= {free.max}" if free.max is not None else ""))
        if narrow.min is not None and (free.min is None or free.min < narrow.min):
            parts.append(f"{path} < {narrow.min}" + (f" and {path} >= {free.min}" if free.min is not None else ""))
        parts += [f"{path} is None" for v in values if v is None]
        if parts:
            return " or ".join(f"({p})" if " and " in p and len(parts) > 1 else p for p in parts)
    if free.type == narrow.type == "str" and narrow.choices is not None and free.choices is None:
        # Choices where any string was accepted: every string but those (and None, if it flips).
        parts = [f"{path} not in {list(narrow.choices)!r}", *(f"{path} is None" for v in values if v is None)]
        return " or ".join(parts)
    texts = [f"{path} is None" if v is None else f"{path} == {v!r}" for v in values]
    # Whole: `brief` shortens it where a report says it (it said "and N more conditions (the
    # whole region: --format json)" in the JSON too, which `region_predicate` cannot read).
    return " or ".join(texts)


def _negated(text: str) -> str:
    """``not`` a condition's text (``not b`` said ``b``)."""
    if text.startswith("not ") and " " not in text[4:]:
        return text[4:]
    return f"not ({text})" if " " in text else f"not {text}"


def region_predicate(region: str) -> Any:
    """The `Predicate` a region's text says (``Difference.region``), however long: a region is the
    diff's own text, which may be longer than a condition of a matrix may be. ``PATH is unset``
    holds where a config leaves PATH out (a field whose default differs between the sides), and
    ``PATH set to any value`` where it does not (a field one side declares: any value, None
    included); ``every config`` and ``no config`` (a change of no config's answer: a name, a
    note) are True and False. Every region the diff says is read (a user trial: ``no config``
    and ``label set to any value`` raised `PredicateError`)."""
    from .predicates import _unchecked

    whole = _WHOLE.get(region)
    if whole is not None:
        return _unchecked(whole, text=region, kind=_Region)
    depths = _depths(region)
    texts: List[str] = []
    start = 0
    for found in _UNSET_TEXT.finditer(region):
        at = found.start()
        if depths[at] is None or at and (region[at - 1].isalnum() or region[at - 1] in "_."):
            continue  # inside quotes, or the tail of another word
        unset = _diff.unset_path(found.group(1))
        texts += [region[start:at], unset if found.group(2) == "is unset" else f"not {unset}"]
        start = found.end()
    texts.append(region[start:])
    return _unchecked("".join(texts), text=region, kind=_Region)


_UNSET_TEXT = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*) (is unset|set to any value)\b")

#: The regions said in words, as a predicate says them.
_WHOLE = {"every config": "True", "no config": "False"}


class _Region(_predicates.Predicate):
    """A region's predicate: ``PATH is unset`` read on the config as given (`region_predicate`)."""

    __slots__ = ()

    def evaluate(self, config: object, *, schema: Any = None) -> bool:
        names = [p for p in self.paths if p.startswith(_diff.UNSET)]
        if names and isinstance(config, dict):
            fields = list(schema.fields) if schema is not None else []
            extra = {}
            for name in names:
                path = next((p for p in fields if _diff.unset_path(p) == name), name[len(_diff.UNSET):].replace("__", "."))
                extra[name] = _diff.left_out(config, path, schema)
            config = {**config, **extra}
        return super().evaluate(config, schema=schema)


def _holding(groups: Sequence[Sequence[Any]], holds: Callable[[Any, Dict[str, Any]], bool]
             ) -> Callable[[Dict[str, Any]], bool]:
    """Whether a config meets each of *groups* (one of its conditions holds), as given (*holds*:
    `matrix._diff.Search.holds`)."""
    frozen = [list(group) for group in groups]
    return lambda config: all(any(holds(n, config) for n in group) for group in frozen)


def _union(texts: List[str]) -> str:
    """Regions said by *texts* as one (one that holds for every config: every config)."""
    if "every config" in texts:
        return "every config"
    return " or ".join(f"({t})" if " and " in t and len(texts) > 1 else t for t in texts)


def _inside(region: str, schema: Any) -> Callable[[Dict[str, Any]], bool]:
    """Whether a config lies in the region said by the text *region* (a config that leaves out a
    value the region reads and that has no default does not)."""
    if region == "every config":
        return lambda config: True
    predicate = region_predicate(region)

    def holds(config: Dict[str, Any]) -> bool:
        try:
            return bool(predicate.evaluate(config, schema=schema))
        except ConfigError:
            return False

    return holds


def _pruned(witness: Dict[str, Any], *sides: _diff.Side) -> Dict[str, Any]:
    """*witness* without the values that every side's ``[config]`` that declares them has as the
    default at its version (a config that leaves them out reads the same), nor the tables that
    leaves empty where no side declares the section nullable."""
    def pruned(table: Dict[str, Any], prefix: str) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for key, value in table.items():
            path = prefix + key
            fields = [side.matrix.schema.get(path) for side in sides]
            if isinstance(value, dict):
                inner = pruned(value, path + ".")
                if inner or any(f is not None and f.nullable for f in fields):
                    out[key] = inner  # an empty table of a nullable section: the section is there
                continue
            # A field one side does not declare reads there as unset (the witness leaves it out
            # of that side's command): a value that is every declaring side's default is left out
            # (a user trial: "mmap": false, the default of the only side that declares it).
            if all(f is None or f.has_default and _same_value(f.default_at(side.version), value)
                   for f, side in zip(fields, sides)):
                continue
            out[key] = value
        return out

    return pruned(witness, "")


def _fewest_paths(witness: Dict[str, Any], same: Callable[[Dict[str, Any]], bool]) -> Dict[str, Any]:
    """*witness* without each value (or table) that it answers alike without, in turn, until none
    is left to leave out: a config that leaves a value out reads its default, a table left out its
    section's absence (so the witness and its ``matrix resolve`` commands carry only what the
    change needs)."""
    def without(config: Dict[str, Any], keys: Tuple[str, ...]) -> Dict[str, Any]:
        out = dict(config)
        if len(keys) == 1:
            del out[keys[0]]
        else:
            out[keys[0]] = without(out[keys[0]], keys[1:])
        return out

    def places(config: Dict[str, Any], prefix: Tuple[str, ...] = ()) -> List[Tuple[str, ...]]:
        out: List[Tuple[str, ...]] = []
        for key, value in config.items():
            out.append((*prefix, key))
            if isinstance(value, dict):
                out += places(value, (*prefix, key))
        return out

    shortened = True
    while shortened:  # again while a pass leaves something out: a value may matter only beside another
        shortened = False
        for keys in places(witness):  # a table before what is in it: the whole of it first
            try:
                shorter = without(witness, keys)
            except KeyError:
                continue  # inside a table already left out
            if same(shorter):
                witness, shortened = shorter, True
    return witness


def _same_value(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def observe(side: Union[_diff.Side, _At], config: Dict[str, Any], kind: str, runner: Optional[str] = None,
            feature: Optional[str] = None, blocked: Optional[str] = None, name: Optional[str] = None) -> str:
    """What *config* resolves to on *side*, as a diff reads it for one kind of question (with
    *name*, a blocker is the feature's name, whichever entry of that name blocks)."""
    if kind == "alias":  # a request by a former id, as a user writes it on either side
        return _alias_said(side, config, runner)
    asked = side.local(runner) if kind in ("asked", "removal", "deprecation", "refusal-kind", *_WARNINGS) else None
    blocked = side.local(blocked)
    try:
        try:
            resolution = _resolver.resolve(side.matrix, config, runner=asked, version=side.version)
            error: Optional[ResolutionError] = None
        except ResolutionError as raised:
            resolution, error = raised.resolution, raised
        dict(resolution.effective)  # every value held to the schema, read or not, as `matrix resolve` holds it
    except ConfigError as refused:
        return f"a config error: {refused}"
    if kind in ("automatic", "asked"):
        if isinstance(error, RemovedFeatureError):
            return _REMOVED
        if error is not None:
            return _messages.diff_refused(_way(side.matrix, resolution.warnings) if kind == "asked" else ())
        assert resolution.runner is not None
        name = side.matrix.runner(resolution.runner).name
        kinds, preferred = served_how(resolution)
        return _messages.diff_served(name, kinds, None if preferred is None else side.matrix.feature(preferred).name)
    if kind == "refusal-kind":
        return "served" if error is None else _messages.diff_kind_said(error.kind)
    if kind in _WARNINGS:
        if error is not None:
            return "refused"
        warned = any(w.kind == _WARNINGS[kind] and w.feature == feature for w in resolution.warnings)
        return "warned" if warned else "not warned"
    if kind == "removal":
        return "refused (the feature is removed)" if isinstance(error, RemovedFeatureError) else "not refused for it"
    if kind == "deprecation":
        warned = any(w.kind == "deprecated" and w.feature == feature for w in resolution.warnings)
        return "warned: deprecated" if warned else "not warned"
    assert blocked is not None
    if name is not None:
        return "blocked by it" if name in {g.name for g in resolution.unsupported.get(blocked, ())} else \
            "not blocked by it"
    blockers = {g.id for g in resolution.unsupported.get(blocked, ())}
    return "blocked by it" if feature in blockers else "not blocked by it"


def served_how(resolution: _resolver.Resolution, also: Sequence[str] = ()) -> Tuple[List[str], Optional[str]]:
    """How a served *resolution* came to serve, as the diff says an answer: the kinds of the
    choice's warnings (a fallback, an override, a redirect that applies always; and the kinds
    *also* names), sorted, and the feature whose preference chose the runner (not a notice of
    one passed over: that names a runner not free), or None."""
    kinds = sorted({w.kind for w in resolution.warnings if w.kind in ("fallback", "override", "redirected", *also)})
    preferred = next((w.feature for w in resolution.warnings
                      if w.kind == "preference" and w.runner == resolution.runner), None)
    return kinds, preferred


def _alias_said(side: Union[_diff.Side, _At], config: Dict[str, Any], former: Optional[str]) -> str:
    """Whether a request by the former id *former* is warned that the id is deprecated on *side*
    (`matrix._diff_aliases`), served or refused; or refused as a usage error (the id names no
    runner there)."""
    from .errors import UsageError

    try:
        try:
            resolution = _resolver.resolve(side.matrix, config, runner=former, version=side.version)
        except ResolutionError as raised:
            resolution = raised.resolution
    except UsageError:
        return _messages.DIFF_ALIAS_REFUSED
    except ConfigError as refused:
        return f"a config error: {refused}"
    return _messages.DIFF_ALIAS_WARNED if any(w.kind == "deprecated-alias" for w in resolution.warnings) \
        else "not warned"


def _way(matrix: Matrix, warnings: Sequence[Any]) -> List[Tuple[str, str]]:
    """The way a refused request went (`matrix._diff.Way`, by the runners' names): the runner a
    redirect made it a request for, then the runner the last override gave it to."""
    way = [("redirected", w.runner) for w in warnings if w.kind == "redirected"][:1]
    way += [("overridden", w.runner) for w in warnings if w.kind == "override"][-1:]
    return [(how, matrix.runner(runner).name) for how, runner in way]


def kind_of(change: Difference) -> str:
    """The kind of question a change answers (``automatic``, ``asked``, ``removal``,
    ``deprecation``, ``blocker``, ``effective``, ``said``, ``config``, ``refusal-kind``, ``alias``
    (a request by a former id, *runner*), or ``cosmetic``)."""
    if change.id == "refusal-kind-changed":
        return "refusal-kind"
    if change.id.startswith("alias-"):
        return "alias"
    if change.id.rsplit("-", 1)[0] in _WARNINGS:
        return change.id.rsplit("-", 1)[0]
    if change.id in _AUTOMATIC or change.id == "served-refused":
        return "automatic"
    if change.id.startswith(("request-", "redirect-")):
        return "asked"
    if change.id.startswith("remov"):
        return "removal"
    if change.id.startswith(("deprecation-", "blocker-")):
        return change.id.split("-")[0]
    if change.id.startswith("adjustment-warning-"):
        return "said"
    if change.id.startswith("adjustment-"):
        return "effective"
    if change.id.startswith("config-"):
        return "config"
    return "cosmetic"


def effective_path(change: Difference) -> str:
    """The path whose effective value an ``adjustment-*`` change is about (`_messages.diff_effective`,
    after ``Asking for NAME: `` for a request)."""
    return change.message.split("Effective value of ", 1)[1].split(": ", 1)[0]


def reproduces(change: Difference, old: Matrix, new: Matrix, config: Dict[str, Any], *,
               old_version: Optional[VersionLike] = None, new_version: Optional[VersionLike] = None) -> bool:
    """Whether *config* is one of the configs *change* is about: it lies in the change's region
    and resolves, re-resolved on both sides, as the change says (its ``old`` and ``new``)."""
    from .resolver import _plan

    kind = kind_of(change)
    if kind == "cosmetic":
        return False
    if kind == "config":
        return _config_reproduces(change, old, new, config, old_version, new_version)
    if change.region != "every config":
        schema = _diff.union_schema(old.schema, new.schema)
        try:
            if not region_predicate(change.region).evaluate(config, schema=schema):
                return False
        except ConfigError:
            return False
    former = {after: before for before, after in _diff.renamed_runners(old, new).items()}
    sides = [_At(old, _plan(old, old_version).version, former), _At(new, _plan(new, new_version).version)]
    if kind == "effective":  # one of its configs where the value differs, whatever the values
        seen = [effective_value(side, config, effective_path(change), change.runner) for side in sides]
        return seen[0] != seen[1]
    if kind == "said":  # one of its configs where what the adjustment says changes as its id says
        seen = [said_by(side, config, change.features[0], change.runner) for side in sides]
        warned = [text != _messages.diff_said_value(None, None) for text in seen]
        return seen[0] != seen[1] and warned == {"adjustment-warning-added": [False, True],
                                                 "adjustment-warning-lifted": [True, False]}.get(change.id, [True, True])
    else:
        asked = change.runner if kind in ("asked", "removal", "deprecation", "refusal-kind", "alias", *_WARNINGS) \
            else None
        feature = change.features[0] if change.features else None
        name = None
        if kind == "blocker" and feature is not None:
            gate = next((f for m in (new, old) for f in m.features if f.id == feature), None)
            name = gate.name if gate is not None else None
        seen = [observe(side, config, kind, asked, feature, change.runner, name) for side in sides]
    return seen == [change.old, change.new]


def _config_reproduces(change: Difference, old: Matrix, new: Matrix, config: Dict[str, Any],
                       old_version: Optional[VersionLike], new_version: Optional[VersionLike]) -> bool:
    """A config-* change holds for *config*: its region holds it (the field's value, or its
    absence for a default), and each side accepts or refuses it as the change says."""
    from .resolver import _plan

    key = change.entries[0].place[len("$.config"):]  # ``.name`` or ``["a.b"]`` (`_messages.place`)
    path = key[1:] if key.startswith(".") else json.loads(key[1:-1])
    if change.id == "config-default-changed":  # left out, no nullable section above it None or left out
        return _diff.left_out(config, path, new.schema)
    # In its region: the field's value there (its absence: a default gone or given), not another's;
    # read with the field's bounds, choices and None open, as one side refuses what it holds.
    schema = _diff.union_schema(old.schema, new.schema)
    if path in schema.fields:
        schema = Schema({**schema.fields, path: attrs.evolve(schema.fields[path], choices=None, min=None, max=None,
                                                             nullable=True)}, schema.derivations)
    try:
        if not region_predicate(change.region).evaluate(config, schema=schema):
            return False
    except ConfigError:
        return False
    sides = [_At(m, _plan(m, v).version) for m, v in ((old, old_version), (new, new_version))]
    said = ("declared", _NOT_DECLARED) if change.id.startswith("config-field-") else ("accepted", _CONFIG_ERROR)
    seen = [said[0] if rejection(side.matrix, config, side.version) is None else said[1] for side in sides]
    return seen == [change.old, change.new]


_UNSET = object()


@attrs.frozen
class _At:
    """A matrix at a version: what `observe` reads of a side (*local_ids*: the id it has for a
    runner the other side renamed with an alias, by the new id)."""

    matrix: Matrix
    version: Any
    local_ids: Mapping[str, str] = attrs.field(factory=dict)

    def local(self, runner: Optional[str]) -> Optional[str]:
        return None if runner is None else self.local_ids.get(runner, runner)


def adjustment_named(side: Union[_diff.Side, _At], adjustment_id: str) -> Optional[Any]:
    """The adjustment of *side* with that id in force at its version (None: it has none)."""
    from .resolver import _plan

    plan = side.plan if isinstance(side, _diff.Side) else _plan(side.matrix, side.version)
    return next((a for a in _diff.every_adjustment(plan) if a.id == adjustment_id), None)


def said_by(side: Union[_diff.Side, _At], config: Dict[str, Any], adjustment_id: str,
            runner: Optional[str] = None) -> str:
    """What the adjustment *adjustment_id* says to *config* on *side* in automatic choice (in a
    request for *runner*): its ``adjusted`` warning (``Resolution.warnings``), or nothing
    (`_messages.diff_said_value`)."""
    try:
        resolution = _resolver.resolve(side.matrix, config, runner=side.local(runner), version=side.version)
    except ConfigError as refused:
        return f"a config error: {refused}"
    except ResolutionError as raised:
        resolution = raised.resolution
    warning = next((w for w in resolution.warnings if w.kind == "adjusted" and w.feature == adjustment_id), None)
    return _messages.diff_said_value(None, None) if warning is None else \
        _messages.diff_said_value(warning.level, warning.message)


#: An effective-value finding's options held to its witness's terms (`matrix._diff.pinned`), and
#: what each side reads over the cases of its region (`_Changes.rounds`).
_Pinned = Tuple[Dict[Any, List[Any]], Callable[[List[Any]], Tuple[str, ...]]]


def _literal(text: str) -> Optional[object]:
    """The value said as its ``repr`` (None: not a value, a config error; or None itself)."""
    import ast

    try:
        return ast.literal_eval(text)  # type: ignore[no-any-return]
    except (ValueError, SyntaxError):
        return None


def _term_text(term: Any, path: str, at_witness: str) -> str:
    """A value of *path* read as *term* (a field's value, or a product of it: `matrix._diff.pinned`)."""
    from ._nodes import Arith, Literal, Path

    if term == Path(path):
        return _messages.diff_given_value(at_witness)
    if isinstance(term, Path):
        return _messages.diff_copied_value(term.name, None, at_witness)
    if isinstance(term, Arith) and isinstance(term.left, Path) and term.op == "*" and isinstance(term.right, Literal):
        return _messages.diff_copied_value(term.left.name, term.right.value, at_witness)
    return _messages.diff_copied_value(str(term), None, at_witness)


def _copies(path: str, named: List[Any], sides: Tuple[_diff.Side, _diff.Side]) -> List[Optional[Any]]:
    """For each side, the copy (``From``) an adjustment of that side named copies into *path*
    (`_copied`), or None."""
    from .schema import From

    out: List[Optional[Any]] = []
    for i, name in enumerate(("old", "new")):
        copies = [a.set[path] for side, a, _ in named if side.name == name and isinstance(a.set.get(path), From)]
        for side, a, _ in named:
            mine = adjustment_named(sides[i], a.id) if side.name != name else None
            if mine is not None and str(mine.when) == str(a.when) and isinstance(mine.set.get(path), From):
                copies.append(mine.set[path])
        out.append(copies[-1] if copies else None)
    return out


def _copied(path: str, seen: Tuple[str, ...], named: List[Any], sides: Tuple[_diff.Side, _diff.Side]
            ) -> Tuple[str, ...]:
    """What each side's effective value of *path* is over a region: where an adjustment of that
    side that differs there copies another field into *path*, that field (times its ``times``),
    with the witness's value beside it, since the value varies over the region; else the
    witness's value, which every config of the region has (found by a user trial: a scaled
    copy's finding said "8 → 128" of configs that go to 160). An adjustment that changed stands
    named on the new side; its old side's copy, under the same condition, is said so too (a user
    trial: "9 → the value of bits times 5" of a copy that was bits times 3)."""
    out = list(seen)
    for i, copied in enumerate(_copies(path, named, sides)):
        if copied is not None:
            out[i] = _messages.diff_copied_value(copied.path, copied.times, seen[i])
    return tuple(out)


def effective_value(side: Union[_diff.Side, _At], config: Dict[str, Any], path: str,
                    runner: Optional[str] = None) -> str:
    """The value of *path* in *config*'s effective config on *side* (``Resolution.effective``), in
    automatic choice (in a request for *runner*)."""
    try:
        resolution = _resolver.resolve(side.matrix, config, runner=side.local(runner), version=side.version)
    except ConfigError as refused:
        return f"a config error: {refused}"
    except ResolutionError as raised:
        resolution = raised.resolution
    try:  # the effective config is read as asked: a required field left out is refused there
        return repr(resolution.effective.get(path))
    except ConfigError as refused:
        return f"a config error: {refused}"


def _classify(region: _diff.Region, old: _diff.Side, new: _diff.Side) -> str:
    a, b = region.old, region.new
    if region.kind == "automatic":
        if a[0] == "served" and b[0] == "served":
            if a[1] != b[1]:
                return "runner-changed"
            if _diff.warning_kind(a[2]) == _diff.warning_kind(b[2]) == "preference":
                # the same runner by another feature's preference (`matrix._diff.preferred_by`)
                return "preference-changed"
            return f"{_diff.warning_kind(b[2])}-added" if b[2] else f"{_diff.warning_kind(a[2])}-lifted"
        return "served-refused" if a[0] == "served" else "refused-served"
    if region.kind == "asked":
        if a[0] == "served" and b[0] == "served":
            if "redirected" in b[2] and ("redirected" not in a[2] or a[1] != b[1]):
                return "redirect-added"
            if "redirected" in a[2] and "redirected" not in b[2]:
                return "redirect-removed"
            return "request-overridden"
        if a[0] == b[0]:  # refused on both sides, another way (`matrix._diff._same`)
            return "request-refusal-changed"
        return "request-refused" if a[0] == "served" else "request-served"
    added = b[2] == "added"
    if region.kind == "deprecation":
        return "deprecation-started" if added else "deprecation-ended"
    if region.kind == "blocker":
        return "blocker-added" if added else "blocker-lifted"
    if not added:
        return "removal-lifted"
    assert region.feature is not None
    before = old.gate(region.feature)
    if before is None or not _diff.deprecated(old, before):
        return "removed-without-deprecation"
    assert before.deprecated is not None
    remove_in = before.deprecated.remove_in
    return "removed-early" if remove_in is None or new.version < remove_in else "removed"


def _grouped(text: str, alone: bool = False) -> str:
    """A region's text as one operand of ``or`` (*alone*: as it stands)."""
    return text if alone or " and " not in text and " or " not in text else f"({text})"


def _region_text(gates: Sequence[Feature], excluded: Sequence[Feature] = ()) -> str:
    """The configs of a region as the matrix writes them: the conditions that hold there, then
    ``not (…)`` of those a deciding rule needs inactive."""
    parts = [f"({g.when})" if " or " in str(g.when) else str(g.when) for g in gates]
    parts += [f"not ({g.when})" if " " in str(g.when) else f"not {g.when}" for g in excluded]
    return " and ".join(parts) or "every config"


def _entry(side: _diff.Side, gate: Feature) -> Entry:
    from .schema import Adjustment, Order, Redirect, Requirement, Runner

    matrix = side.matrix
    origin = gate.origin
    if isinstance(origin, Requirement):  # its kind in [requires]: features.toml's, or its runner's file
        place, file, line, column = side.places.requirement(origin)
        return Entry(side.name, place, file, line, column)  # type: ignore[arg-type]
    if isinstance(origin, Adjustment):
        return _located(side, ("adjustments", origin.id))
    if isinstance(origin, Order):  # the [orders.ID] table, not the gate made of it
        return _located(side, ("orders", origin.id))
    if isinstance(origin, Redirect):  # its entry of the runner's redirects
        return _runner_entry(side, origin.runner, ("redirects", origin.index))
    if isinstance(origin, Runner):  # its candidacy
        return _runner_entry(side, origin.id, ("candidate",))
    if origin is not None:
        runner = getattr(origin, "runner", None) or getattr(origin, "id", None)
        if isinstance(runner, str) and runner in {r.id for r in matrix.runners}:
            if matrix.runner(runner).file is not None:
                return _runner_entry(side, runner)
    return _located(side, ("features", gate.id))


def _located(side: _diff.Side, key: Tuple[str, ...]) -> Entry:
    """An entry at *key* on *side*: its line in the side's file (on a composed matrix, the
    overlay's line that wrote it, else upstream's, as ``matrix check`` says it)."""
    file, line, column = side.places.located(key)
    return Entry(side.name, _messages.place(key), file, line, column)  # type: ignore[arg-type]


def _cosmetic_value(value: Any) -> str:
    """A name, note, group or list of links as a reader reads it: quoted, a list as its items,
    none said so (a user trial: ``note None → 'level 3'``, ``links () → ('https://…',)``)."""
    if value is None or value == ():
        return "(none)"
    if isinstance(value, (tuple, list)):
        return ", ".join(repr(v) for v in value)
    return repr(value)


def _runner_entry(side: _diff.Side, runner_id: str, key: Tuple[object, ...] = ()) -> Entry:
    """A runner's entry (*key* in it: its priority, a redirect, its candidacy; none: the runner
    added or removed) where it stands: the key's line of its own file (a user trial found a
    redirect changed cited at line 1), else of its table, else the line of ``[matrix] runners``."""
    from ._locate import Locations

    runner = side.matrix.runner(runner_id)
    place = _messages.place(("runners", runner_id, *key))
    if runner.file is not None:
        found = Locations(runner.text).key(key) if key and runner.text is not None else None
        return Entry(side.name, place, runner.file, *(found or (1, 1)))  # type: ignore[arg-type]
    file, line, column = side.places.located(("runners", runner_id, *key))
    if line is None:
        file, line, column = side.places.located(("matrix", "runners"))
    return Entry(side.name, place, file, line, column)  # type: ignore[arg-type]


def _order_entry(side: _diff.Side) -> Entry:
    line, column = side.places.where(("matrix", "runners"))
    return Entry(side.name, "$.matrix.runners", side.matrix.file, line, column)  # type: ignore[arg-type]


def _message(change_id: str, region: _diff.Region, old: str, new: str, side: _diff.Side,
             before: _diff.Side) -> str:
    if region.kind == "automatic":
        return f"Automatic choice: {old} → {new}"
    if region.kind == "asked":
        assert region.runner is not None
        return f"Asking for {side.matrix.runner(region.runner).name}: {old} → {new}"
    assert region.feature is not None
    gate = side.gate(region.feature) or before.gate(region.feature)  # a gate gone: its old name
    name = gate.name if gate is not None else region.feature
    if gate is not None and isinstance(gate.origin, Requirement):
        name = described(name)  # a reason that says config values, of many configs: by their paths
    if region.kind == "blocker":
        assert region.blocked is not None
        return f"{side.matrix.runner(region.blocked).name} and {name}: {old} → {new}"
    if region.runner is not None:  # a removal a request reads, not automatic choice
        return f"{name}, asking for {side.matrix.runner(region.runner).name}: {old} → {new}"
    return f"{name}: {old} → {new}"


def command(change: Difference, matrix_file: Optional[str], version: str, matrix: Optional[Matrix] = None,
            runner: Optional[str] = None) -> str:
    """The ``matrix resolve`` command that shows the witness on one side (*matrix*, where given:
    a value of a field it does not declare is left out, as the diff reads it there: unset;
    *runner*: the id that side has for the runner asked for, where it differs)."""
    parts = ["matrix", "resolve"]
    if matrix_file:
        parts += ["--matrix", matrix_file]
    parts += ["--version", version]
    if change.runner is not None and not change.id.startswith("blocker-"):
        parts += ["--runner", runner or change.runner]
    # A field one side does not declare is the point of its own finding: that side refuses the
    # --set (issue 28: both commands printed the same).
    fields = None if matrix is None or change.id in _DECLARED else matrix.schema.fields
    for path, value in sorted(_flat(change.witness)):
        if fields is not None and path not in fields and not any(f.startswith(path + ".") for f in fields):
            continue  # a field only the other side declares: this side reads its default
        shown = value if isinstance(value, str) else json.dumps(value)
        parts += ["--set", f"{path}={shown}"]
    # What the summary does not print, the output that shows it (issue 28: both commands printed
    # the same): a runner's blockers (--explain), an effective value (--json).
    parts += _SHOWN_BY.get(change.id, [])
    return " ".join(shlex.quote(p) for p in parts)


#: The findings of a field one side does not declare (`command`).
_DECLARED = ("config-field-removed", "config-field-added")
#: The flag of ``matrix resolve`` whose output shows what a finding is about (`command`).
_SHOWN_BY = {"blocker-added": ["--explain"], "blocker-lifted": ["--explain"], "adjustment-added": ["--json"],
             "adjustment-removed": ["--json"], "adjustment-changed": ["--json"], "config-default-changed": ["--json"]}


def _flat(config: Mapping[str, Any], prefix: str = "") -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    for key, value in config.items():
        if isinstance(value, dict) and value:
            out += _flat(value, f"{prefix}{key}.")
        else:
            out.append((prefix + key, value))
    return out


def json_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``matrix diff --format json``: ``matrix/diff.schema.json``."""
    import os

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "diff.schema.json"), encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data


#: The most characters of a region said in a report's text (the rest counted: `brief`).
REGION_WIDTH = 320
#: The most options of one ``or`` said in a region's brief text.
REGION_OPTIONS = 4


def _depths(text: str) -> List[Optional[int]]:
    """For each character of *text*, how many parentheses and brackets are open before it, or
    None inside quotes (a backslash escapes the next character there)."""
    out: List[Optional[int]] = []
    depth, quote, escaped = 0, "", False
    for ch in text:
        if quote:
            out.append(None)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
            continue
        out.append(depth)
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
    return out


def _top_level(text: str, word: str) -> List[str]:
    """*text* split at each `` word `` outside parentheses, brackets and quotes."""
    depths, sep = _depths(text), f" {word} "
    parts, start, i = [], 0, 0
    while i < len(text):
        if depths[i] == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i = start = i + len(sep)
            continue
        i += 1
    parts.append(text[start:])
    return parts


def _wrapped(text: str) -> bool:
    """Whether *text* is one parenthesised whole: ``(a or b)``, not ``(a) and (b)``."""
    return text.startswith("(") and text.endswith(")") and _closes(text) == len(text) - 1


def _closes(text: str) -> int:
    """The index of the parenthesis that closes the one *text* opens with (outside quotes)."""
    return next((i for i, depth in enumerate(_depths(text)) if depth == 1 and text[i] in ")]"), -1)


def _brief_or(part: str) -> str:
    """One conjunct of a region, an ``or`` of more than `REGION_OPTIONS` options said by its first
    ones and how many more."""
    inner, wrapped = part, False
    if _wrapped(part) and len(_top_level(part[1:-1], "or")) > 1:
        inner, wrapped = part[1:-1], True
    options = _top_level(inner, "or")
    if len(options) <= REGION_OPTIONS:
        return part
    said = " or ".join(options[:REGION_OPTIONS]) + f" or {len(options) - REGION_OPTIONS} more"
    return f"({said})" if wrapped else said


def brief(region: str, width: int = REGION_WIDTH) -> str:
    """A region's text as a report says it: whole where it is short, else its first conditions
    (each ``or`` of many options by its first `REGION_OPTIONS`) up to about *width* characters
    and ``and N more conditions`` (the whole text stays in `Difference.region` and
    ``--format json``)."""
    if len(region) <= width:
        return region
    options = _top_level(region, "or")
    if len(options) > 1:  # regions merged: each option said briefly
        said = [brief(o[1:-1] if _wrapped(o) else o, max(width // 3, 80))
                for o in options[:REGION_OPTIONS]]
        more = len(options) - REGION_OPTIONS
        return " or ".join(f"({o})" if " and " in o or " or " in o else o for o in said) + (f" or {more} more" if more > 0 else "")
    parts = [_brief_or(p) for p in _top_level(region, "and")]
    kept: List[str] = []
    for part in parts:
        if kept and len(" and ".join([*kept, part])) > width:
            break
        kept.append(part)
    rest = len(parts) - len(kept)
    text = " and ".join(kept)
    return text + _messages.diff_region_more(rest) if rest else text
