"""What ``matrix diff`` does not compare, said by lines of ``DiffReport.undecided`` where the two
sides could answer differently (`_not_compared`)."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _diff, _messages


def _not_compared(*sides: _diff.Side, requests: bool = False) -> Tuple[str, ...]:
    """What the diff does not compare, said rather than claimed unchanged: answers where the
    conditions read through the adjustments grow too large (`matrix._substitute.MAX_NODES`):
    there the questions read configs as given. *requests*: a request's blockers are compared
    (`matrix._diff_requests.exact`)."""
    out: List[str] = [_messages.diff_not_compared(what, where) for what, where in (*_unweighed(*sides),
                                                                                   *_unread(*sides, requests=requests))]
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
        out.append(("what the runner of a role other than the base says where the config is served (a former "
                    "id, its deprecation, its opt-in and partial support: which runner fills each role, and a role's refusal, are "
                    "compared)", "a config served"))
    # Which runner fills a role one side declares only: no role-runner-changed finding (that
    # compares a role both sides declare); its refusals are compared (`matrix._diff_role_rules`).
    one_sided = [r.name for side, other in ((old, new), (new, old)) for r in side.matrix.roles[1:]
                 if r.id not in {o.id for o in other.matrix.roles}]
    if one_sided:
        out.append((f"which runner fills a role one side declares only ({', '.join(one_sided)})", "a config served"))
    if any(a.stage is not None for a in adjustments) and differs(lambda side: repr(side.matrix.stages)):
        out.append(("the order of adjustments by stage ([matrix] stages)", "a config a staged adjustment changes"))
    if any(p.matrix.staged for p in plans) and differs(lambda side: repr(side.matrix.staged)):  # F6
        out.append(("staged requirements (a stage other than choice)", "a config a staged requirement refuses"))
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


def _unread(*sides: _diff.Side, requests: bool = False) -> List[Tuple[str, str]]:
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
    # The kinds that differ are named (a user trial: ValueError → RuntimeError beside a reason that
    # says a config value was this line alone, with nothing to tell the reviewer what changed).
    differing = _messages.diff_kinds_differing(_kinds_by_requirement(old), _kinds_by_requirement(new))
    kind = [(f"the exception kind a refusal raises (a requirement's kind): {why}{differing}",
             "a config or request that is refused")] \
        if why is not None and any(kinds) and (kinds[0] != kinds[1] or not _alike(old, new)) else []
    # A refusal by a role other than the base raises the kind of the runner that fills it, which
    # `matrix._diff_kinds` does not read (whether the config is refused is compared).
    if not kind and any(kinds) and (kinds[0] != kinds[1] or not _alike(old, new)) and any(
            side.role_refusing(r) for side in sides for r in side.plan.no):
        kind = [("the exception kind a refusal raises in a role other than the base (a requirement's kind of the "
                 "runner that fills it)", "a config a role refuses")]
    said = [*kind, *_unread_words(old, new)]
    if _alike(old, new):
        return said
    out = said
    features = [g for p in plans for g in p.features]
    shared = _diff.shared_runners(old, new)  # by the new side's ids
    one_sided = sorted({r.name for side in sides for r in side.matrix.runners if side.ids.get(r.id, r.id) not in shared})
    if one_sided:
        # Where the side that has it serves it, a finding says so (`_Changes.one_sided_runners`).
        out.append((f"a request for a runner only one side has ({', '.join(one_sided)}) where that side refuses it, "
                    "and its blockers", "a request for it"))
    # Where an adjustment before the choice sets the base role's field, a config that leaves it
    # None may be a request on one side and automatic choice on the other: which runner answers
    # is compared (`_diff.Search._named_by_base`), what else automatic choice says there is not,
    # nor a config whose field names a runner as given (compared as a request for that runner).
    if any(p.matrix.roles and any(p.matrix.roles[0].field in a.set for a in p.pre_adjustments) for p in plans):
        out.append(("what automatic choice says beside its runner where an adjustment before the choice sets the "
                    "base role's field (effective values, warnings, blockers, roles), and the runner a field naming "
                    "one as given asks for there", "a config whose base role's field it sets"))
    # A request's blockers are automatic choice's but where a gate is in force in one mode only,
    # or the runner served reads its own effective config (`Resolution.unsupported`); with roles,
    # automatic choice reads them only where the base role's field names no runner (elsewhere the
    # config is a request: `matrix._diff.Side`'s ``unasked``). Compared where no runner's own
    # adjustments change its blockers and there are no roles (`matrix._diff_requests`).
    if shared and not requests and (any(g.applies != "always" for g in features)
                                    or any(own for p in plans for own in p.adjustments.values())
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


def _kinds_by_requirement(side: _diff.Side) -> Dict[str, Optional[str]]:
    """Each requirement, by its kind's id (``[requirements.ID]``) and the runner that has it
    (``split of b``; a matrix-wide one by its id alone) → the exception its clauses raise (the
    first with one; None: none), as *side* has them: a runner's clause may give its own."""
    from .schema import WIDE, Requirement

    out: Dict[str, Optional[str]] = {}
    for gate in side.plan.features:
        origin = gate.origin
        if isinstance(origin, Requirement):
            key = origin.kind if origin.runner == WIDE else f"{origin.kind} of {side.ids.get(origin.runner, origin.runner)}"
            if out.get(key) is None:
                out[key] = origin.error_kind
    return out


def _unread_words(old: _diff.Side, new: _diff.Side) -> List[Tuple[str, str]]:
    """Answers the diff does not compare yet, said where they differ (user trials found each
    said "No change"): a request by a runner's former id (an alias added or removed, naming
    another runner, or warning in other words: whether it warns is compared, `_Changes.aliases`).
    The words of a deprecation or a removal of a gate both sides deprecate (remove), and a
    runner's own deprecation warning, are compared (`matrix._diff_words`)."""
    from . import _diff_aliases

    # Whether it is warned is compared (`_Changes.aliases`); the rest is said here, a runner
    # renamed's former id too (its alias removed: a request by it is refused).
    differ = [a for a in _diff_aliases.formers(old, new) if _diff_aliases.unread(old, new, a)]
    out = [(f"a request by a runner's former id ({', '.join(differ)})", "a request by it")] if differ else []
    # The words a warning or a refusal says that the matrix writes, where they differ (a user
    # trial: a cell's note, a reason, [messages] reworded said "No change for any config").
    words = [_words(old), _words(new)]
    reworded = list(dict.fromkeys(said[0] for key, said in words[1].items()
                                  if key in words[0] and words[0][key][1] != said[1]))
    if reworded:
        out.append((f"the words of warnings and refusals where {', '.join(reworded)} "
                    f"{'differs' if len(reworded) == 1 else 'differ'}",
                    "a config warned or refused"))
    return out


def _words(side: _diff.Side) -> Dict[Tuple[str, ...], Tuple[str, Optional[str]]]:
    """The words of *side* that its warnings and refusals say (what each is, its text), by a key
    both sides read alike (a runner by the new side's id): each cell's note at the side's
    version, each requirement clause's reason, ``[messages]``, each preference's, override's and
    redirect's message."""
    from .schema import Requirement

    ids, version, matrix = side.ids, side.version, side.matrix
    out: Dict[Tuple[str, ...], Tuple[str, Optional[str]]] = {}
    for gate in side.plan.features:
        origin = gate.origin
        if isinstance(origin, Requirement):
            if side.plan.templated >> side.bit(gate) & 1:
                continue  # a reason that says config values: a line of its own (`unread`)
            out[("reason", side.new_id(gate.id))] = (f"the reason of requirement {origin.kind!r}", gate.name)
            continue
        if origin is not None:
            continue
        for runner in gate.support:  # a note said by a warning: partial or opt-in support's
            statement = gate.statement(runner, version)
            if statement.status in ("partial", "opt-in"):
                out[("note", gate.id, ids.get(runner, runner))] = (f"the note of {gate.name} on {runner}",
                                                                   statement.note)
        if gate.prefers is not None:
            out[("prefers", gate.id)] = (f"the message of {gate.name}'s preference", gate.prefers.message)
        if gate.forces is not None:
            out[("forces", gate.id)] = (f"the message of {gate.name}'s forced runner", gate.forces.message)
    for one in matrix.runners:
        for redirect in one.redirects:
            out[("redirect", ids.get(one.id, one.id), str(redirect.index))] = (
                f"the message of a redirect of {one.name}", redirect.message)
    out[("messages",)] = ("[messages]", repr(sorted(matrix.messages.items())) if matrix.messages else None)
    return out
