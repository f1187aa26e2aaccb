"""The ``[features]`` table: each gate (its condition, support table, window, deprecation,
forced or preferred runner), the display names they share, and the runner files that look
misnamed (said once, as the likely mistake, not once per feature)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Tuple

from . import _format, _load_lifecycle, _load_support, _messages, _templates
from .schema import APPLIES, Feature, Forces, Prefers, Runner, Schema, Statement

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import ForcesSpec, Place
    from .predicates import Predicate
    from .loader import _Builder, _Source


def features(b: _Builder, source: _Source, raw: object, schema: Schema, runners: Optional[List[Runner]], *,
             limit: int) -> List[Feature]:
    """The gates of ``[features]`` (at most *limit*), each checked against the schema and the
    runners."""
    if not isinstance(raw, dict):
        b.problem(source, ("features",), b.shapes.expected("a table", raw).args[0])
        return []
    if len(raw) > limit:
        b.problem(source, ("features",), _messages.too_many_features(len(raw), limit))
        return []
    runner_ids = [r.id for r in runners] if runners is not None else None
    if runners is not None:
        runner_ids = _misnamed_runner_files(b, raw, runners)
    features = []
    # A display name belongs to one gate at a time: two gates may share it when they are
    # never in force at the same version (a condition that changed in a release).
    names: Dict[str, List[Feature]] = {}
    versioned = schema.versioned  # asked once, not once per gate
    for id, value in raw.items():
        feature = _feature(b, source, id, value, schema, runner_ids)
        if feature is None:
            continue
        if versioned:
            _load_lifecycle.lifetimes(b, source, ("features", id, "when"), feature, schema)
        clash = next((f for f in names.get(feature.name, ()) if _overlap(f, feature)), None)
        if clash is not None:
            b.problem(source, ("features", id, "name"), _messages.name_taken(feature.name, clash.id))
        names.setdefault(feature.name, []).append(feature)
        features.append(feature)
    return features


def _misnamed_runner_files(b: _Builder, raw: Dict[str, object], runners: List[Runner]) -> List[str]:
    """The runner ids the features are checked against, less each runner file that looks
    misnamed: no feature names its id, while some name a close one that has no file. Such a
    file is reported once, as the likely mistake (not once per feature, each "did you mean"
    the typo), and the id the features name stands for it, known to be broken."""
    ids = [r.id for r in runners]
    named: Dict[str, int] = {}  # runner id: how many features name it
    for value in raw.values():
        if not isinstance(value, dict):
            continue
        support = value.get("support")
        mentioned = set(support) if isinstance(support, dict) else set()
        for key in ("prefers", "forces"):
            table = value.get(key)
            if isinstance(table, dict) and isinstance(table.get("runner"), str):
                mentioned.add(table["runner"])
        for runner in mentioned:
            named[runner] = named.get(runner, 0) + 1
    unnamed = [r for r in runners if r.id not in named and r.file is not None]
    unknown = sorted((u for u in named if u not in ids and u != "default" and u not in b.broken_runners),
                     key=lambda u: (-named[u], u))
    import difflib

    for wanted in unknown:
        close = difflib.get_close_matches(wanted, [r.id for r in unnamed], n=1, cutoff=0.6)
        if not close:
            continue
        runner = next(r for r in unnamed if r.id == close[0])
        unnamed.remove(runner)
        ids.remove(runner.id)
        b.broken_runners[wanted] = runner.priority
        source = b.runner_specs[runner.id][0]
        b.problem(source, (), _messages.misnamed_runner_file(runner.id, wanted, named[wanted]), at=(1, 1))
    return ids


def _feature(b: _Builder, source: _Source, id: str, raw: object, schema: Schema,
             runner_ids: Optional[List[str]]) -> Optional[Feature]:
    where = ("features", id)
    before = len(b.problems)
    if not _format.ID_RE.match(id):
        b.problem(source, where, _messages.bad_feature_id(id))
    if not isinstance(raw, dict):
        b.problem(source, where, b.shapes.expected("a table", raw).args[0])
        return None
    spec, bad = b.shaped(source, raw, b.shapes.FeatureSpec, where)
    when = raw.get("when")
    predicate = None
    if "when" not in bad and isinstance(when, str):
        predicate = b.predicate(source, where + ("when",), when, schema)
    support = raw.get("support")
    history = None
    if "support" not in bad and isinstance(support, dict):
        beside = any(k != "support" and _messages.near_miss(k, ["support"]) == "support" for k in raw)
        history = _load_support.support(b, source, where + ("support",), support, runner_ids, beside=beside)
    since = b.version(source, where + ("since",), raw.get("since")) if "since" not in bad else None
    until = b.version(source, where + ("until",), raw.get("until")) if "until" not in bad else None
    if since is not None and until is not None and until <= since:
        b.problem(source, where + ("until",), _messages.not_after('until', until, 'since', since))
    deprecation = None
    if spec is not None and spec.deprecated is not None:
        deprecation = _load_lifecycle.deprecation(b, source, where + ("deprecated",), spec.deprecated)
    forces = None
    if spec is not None and spec.forces is not None and history is not None:
        forces = _forces(b, source, where, spec.forces, history, runner_ids)
    prefers = None
    if spec is not None and spec.prefers is not None:
        if runner_ids is not None and spec.prefers.runner not in runner_ids:
            if spec.prefers.runner not in b.broken_runners:
                b.problem(source, where + ("prefers", "runner"), _messages.unknown_runner(spec.prefers.runner, runner_ids))
        else:
            prefers = Prefers(spec.prefers.runner, spec.prefers.outright, spec.prefers.message, spec.prefers.skipped)
            if predicate is not None:
                _preference_templates(b, source, where, prefers, predicate, schema)
    if spec is not None and spec.applies not in APPLIES:
        b.problem(source, where + ("applies",), _messages.unknown_choice("applies", spec.applies, APPLIES,
                                                                         one_of=True))
    if len(b.problems) > before or spec is None or predicate is None or history is None:
        return None
    feature = Feature(id, spec.name, predicate, history, spec.note, spec.links, since, until, deprecation,
                      spec.group, forces, prefers, spec.applies)
    return feature


def _forces(b: _Builder, source: _Source, where: Place, spec: ForcesSpec, history: Mapping[str, Tuple[Statement, ...]],
            runner_ids: Optional[List[str]]) -> Optional[Forces]:
    """A forced runner: a known one, and every other runner says no to the feature at every
    version (automatic choice and `matrix check` then see the forcing in the statuses)."""
    if spec.runner in b.broken_runners:
        return None
    if runner_ids is not None and spec.runner not in runner_ids:
        b.problem(source, where + ("forces", "runner"), _messages.unknown_runner(spec.runner, runner_ids))
        return None
    for runner in runner_ids or sorted(history):
        if runner != spec.runner and any(s.status != "no" for s in history.get(runner, ())):
            b.problem(source, where + ("support", runner), _messages.forced_elsewhere(runner, spec.runner))
    return Forces(spec.runner, spec.override, spec.message)


def _preference_templates(b: _Builder, source: _Source, where: Place, prefers: Prefers, when: Predicate,
                          schema: Schema) -> None:
    """The sentences of ``prefers``: templates of their parts and of the paths the condition
    reads (the values a notice can say are those the decision read)."""
    for sentence, parts in _templates.PREFERENCE.items():
        text = getattr(prefers, sentence)
        if text is None:
            continue
        template, problems = _templates.parse(text, parts, sorted(p for p in schema.fields if p not in parts),
                                              sorted(b.broken))
        for problem in problems:
            b.problem(source, where + ("prefers", sentence), problem)
        for path in template.paths if template is not None else ():
            if path not in when.paths:
                b.problem(source, where + ("prefers", sentence), _messages.template_path_unread(path, sorted(when.paths)))


def _overlap(one: Feature, other: Feature) -> bool:
    """Whether two gates are in force at some version together."""
    return ((one.until is None or other.since is None or other.since < one.until)
            and (other.until is None or one.since is None or one.since < other.until))
