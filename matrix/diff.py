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
(`matrix._diff_warnings`). With ``[roles]``, a config another role's runner refuses is refused in
every question (`matrix._diff.Side.role_refusing`), and which runner fills each role where both
sides serve with the same runner is ``role-runner-changed`` (`matrix._diff_roles`). The words of a
deprecation or a removal of a gate both sides deprecate (remove), and a runner's own deprecation
warning, are compared where the sides say them (`matrix._diff_words`). One finding per cause: a region is bounded by as few of the entries that differ as can
be (a pair of rules whose configs change by other causes too gives a region per cause, up to
`matrix._diff.MAX_REGIONS`), and a deprecation or blocker whose gate alone causes a behaviour
change of automatic choice is said by that change (`Difference.also`) where every config it
changes is one of that change's (else it is a finding of its own). A region's text is exact:
every config it describes goes from the finding's ``old`` answer to its ``new`` one (findings are
merged only where their witnesses answer alike); it reads the config as given, said with as few
conditions as those configs need (`matrix._simplify`).

What is not compared (yet), each said by a line of ``undecided`` where the sides do not decide
alike and either has what produces it (`matrix._diff_unread`): the answer for a config that one side's ``[config]`` rejects
(a choice or field only one side has), a request for a runner only one side has where that side refuses it (where it
serves it: ``runner-removed``, ``runner-added``; a runner added or removed is the cause
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

import json
import re
from typing import Any, Dict, List, Optional, Set

import attrs

from . import _diff, _diff_requests, _diff_words
from ._diff_changes import _Changes
from ._diff_regions import _grouped, _simplified, _top_level
from ._diff_types import _AUTOMATIC, _sorted
from ._diff_unread import _not_compared
from ._versions import VersionLike
from .schema import Matrix

# The names `matrix.diff` gives, each defined in the module of its part (``X as X``: a re-export).
from ._diff_entries import command as command
from ._diff_observe import adjustment_named as adjustment_named, effective_path as effective_path, \
    effective_value as effective_value, kind_of as kind_of, observe as observe, rejection as rejection, \
    reproduces as reproduces, said_by as said_by, served_how as served_how
from ._diff_regions import REGION_OPTIONS as REGION_OPTIONS, REGION_WIDTH as REGION_WIDTH, brief as brief, \
    region_predicate as region_predicate
from ._diff_types import CHANGES as CHANGES, LEVELS as LEVELS, Accepted as Accepted, Difference as Difference, \
    DiffReport as DiffReport, Entry as Entry, Level as Level

__all__ = ["CHANGES", "LEVELS", "Accepted", "Difference", "DiffReport", "Entry", "Level", "brief", "diff", "json_schema",
           "region_predicate", "reproduces"]


def __dir__() -> List[str]:
    return __all__


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
    changes.one_sided_runners()  # a request for a runner only one side has
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
    # The blockers a request reads where a gate in force in one mode only makes them not
    # automatic choice's (`matrix._diff_requests`).
    requests = _diff_requests.exact(search)
    if requests:
        changes.add_regions(_diff_requests.regions(search, runners, bounds))
    changes.effective(runners)
    changes.said(runners)
    changes.kinds(runners)
    changes.roles(runners)
    changes.warnings(runners)
    changes.aliases()
    for findings in _diff_words.FINDINGS:  # the words of deprecations and removals, a runner's own deprecation
        findings(changes, runners)
    changes.config()
    changes.cosmetic()
    return DiffReport(_sorted(_set_required(_readable(_alike(_folded(changes))), _diff.required_fields(plans[0]) &
                                            _diff.required_fields(plans[1]), search.space.schema)),
                      str(sides[0].version), str(sides[1].version),
                      tuple(dict.fromkeys(search.undecided)) + tuple(changes.unreproduced)
                      + _not_compared(*sides, requests=requests))


#: The one-gate changes that a change of automatic choice of the same cause already shows, and
#: the note they add to its new answer.
_FOLDED = {"deprecation-started": "deprecated", "blocker-added": "", "blocker-lifted": ""}


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
                or one.id.startswith("deprecation-") and one.runner is not None \
                or _diff_requests.asked(one) is not None:  # a request's: not automatic choice's
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


def _alike(changes: List[Difference]) -> List[Difference]:
    """One finding per message and cause: findings of one id, question, answers and entries, found
    as regions apart (an effective value ``2 → 1`` where an adjustment sets 2 and where the config
    gives 2, say), are one, its region their union, its witness the first's (a user trial: the same
    line said twice, for ``n == 2`` and for ``n > 2``). Exact still: every config of each region
    goes from that old answer to that new one. ``[config]`` findings say one probe each, and a
    cosmetic one no config: left as they are."""
    out: List[Difference] = []
    merged: Dict[Any, int] = {}
    for change in changes:
        key = (change.id, change.level, change.message, change.old, change.new, change.runner, change.features,
               change.entries, change.accepted)
        if change.level == "cosmetic" or change.id.startswith("config-") or key not in merged:
            if change.level != "cosmetic" and not change.id.startswith("config-"):
                merged[key] = len(out)
            out.append(change)
            continue
        first = out[merged[key]]
        region = "every config" if "every config" in (first.region, change.region) else \
            f"{_grouped(first.region)} or {_grouped(change.region)}"
        out[merged[key]] = attrs.evolve(first, region=region, also=tuple(dict.fromkeys((*first.also, *change.also))))
    return out


def _readable(changes: List[Difference]) -> List[Difference]:
    """Each region said with as few conditions as the same configs need (`matrix._simplify`: a
    user trial's three edits read ``x and not (x and not y)``): before `_set_required`, which reads
    the text that is said."""
    return [attrs.evolve(c, region=_simplified(c.region)) for c in changes]


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


def json_schema() -> Dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``matrix diff --format json``: ``matrix/diff.schema.json``."""
    import os

    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "diff.schema.json"), encoding="utf-8") as f:
        data: Dict[str, Any] = json.load(f)
    return data
