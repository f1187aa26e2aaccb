"""What one side of ``matrix diff`` answers for a config (`observe`), the effective value it ends
on (`effective_value`), what an adjustment says (`said_by`), and whether a finding's change
holds for a config (`reproduces`): read by the search's witnesses, the brute force and the
fleet view."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import attrs

from . import _diff, _diff_requests, _messages

# The module, not its function: `resolve` is read at each call (tests/test_diff.py's brute force
# replaces it to resolve each config once per question), without an import statement in each
# call (`observe`, called 1.4 million times by the brute force's dev profile: 5 % of its time).
from . import resolver as _resolver
from ._diff_regions import region_predicate
from ._diff_types import _AUTOMATIC, Difference
from ._versions import VersionLike
from .errors import ConfigError, RemovedFeatureError, ResolutionError
from .schema import Matrix, Schema

_CONFIG_ERROR = _messages.DIFF_CONFIG_ERROR
#: A field's side of a ``config-field-*`` change where the field is not declared.
_NOT_DECLARED = "not declared (ignored; refused when strict)"
_NOT_WARNED = _messages.diff_said_value(None, None)
#: The kinds of question of a warning a config is served with (`matrix._diff_warnings`), and the
#: kind of `ResolutionWarning` each reads.
_WARNINGS = {"partial": "partial", "opt-in": "opt-in", "preference-notice": "preference"}
_REMOVED = "refused (the feature is removed)"
#: The kinds of question of the words a config is warned or refused with (`matrix._diff_words`):
#: a feature's deprecation, a feature's removal, a runner's own deprecation.
_WORDS = ("deprecation-words", "removal-words", "runner-deprecation")
#: The change ids of those questions (`kind_of`).
WORD_KINDS = {"deprecation-reworded": "deprecation-words", "removal-reworded": "removal-words",
              **{f"runner-deprecation-{how}": "runner-deprecation" for how in ("started", "ended", "reworded")}}
#: The kinds of question asked of a request for the change's runner (``None``: automatic choice);
#: a blocker question asks it of the request its change names (`matrix._diff_requests.asked`).
_OF_REQUEST = frozenset({"asked", "removal", "deprecation", "refusal-kind", "role", *_WARNINGS, *_WORDS})


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
    if kind == "runner":  # a request for a runner only one side has
        return _runner_said(side, config, runner)
    # A blocker question with *runner*: a request's (`matrix._diff_requests`).
    asked = side.local(runner) if kind in _OF_REQUEST or kind == "blocker" else None
    blocked = side.local(blocked)
    try:
        try:
            resolution = _resolver.resolve(side.matrix, config, runner=asked, version=side.version)
            error: Optional[ResolutionError] = None
        except ResolutionError as raised:
            resolution, error = raised.resolution, raised
        dict(resolution.effective)  # every value held to the schema, read or not, as `matrix resolve` holds it
    except ConfigError as refused:
        return _messages.diff_config_error(refused)
    return _answer(side, kind, resolution, error, feature, blocked, name)


def _answer(side: Union[_diff.Side, _At], kind: str, resolution: _resolver.Resolution, error: Optional[ResolutionError],
            feature: Optional[str], blocked: Optional[str], name: Optional[str]) -> str:
    """`observe`'s answer, from the resolution it read (and the error that refused it, or None)."""
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
    if kind == "role":  # the runner that fills the role *feature*, by its name on the new side (`matrix._diff_roles`)
        if error is not None:
            return "refused"
        filled = resolution.roles.get(feature or "")
        from ._diff_roles import said

        return said(side, filled)
    if kind in _WARNINGS:
        if error is not None:
            return "refused"
        # A preference's warning is a notice where automatic choice passed it over (else it chose).
        warned = any(w.kind == _WARNINGS[kind] and w.feature == feature
                     and (kind != "preference-notice" or resolution.passed_over(w.feature)) for w in resolution.warnings)
        return "warned" if warned else "not warned"
    if kind == "removal":
        return "refused (the feature is removed)" if isinstance(error, RemovedFeatureError) else "not refused for it"
    if kind in _WORDS:
        return _words(side, kind, resolution, error, feature)
    if kind == "deprecation":
        warned = any(w.kind == "deprecated" and w.feature == feature for w in resolution.warnings)
        return "warned: deprecated" if warned else "not warned"
    assert blocked is not None
    if name is not None:
        return "blocked by it" if name in {g.name for g in resolution.unsupported.get(blocked, ())} else \
            "not blocked by it"
    blockers = {g.id for g in resolution.unsupported.get(blocked, ())}
    return "blocked by it" if feature in blockers else "not blocked by it"


def _words(side: Union[_diff.Side, _At], kind: str, resolution: _resolver.Resolution,
           error: Optional[ResolutionError], subject: Optional[str]) -> str:
    """`observe`'s answer for a question of `_WORDS`: the words a config is warned with that the
    feature *subject* is deprecated, or that the runner *subject* (by the new side's id) is, by
    the resolution that ends on it (not a role's runner); or the words its refusal says that the
    feature *subject* is removed."""
    if kind == "deprecation-words":
        said = [w.message for w in resolution.warnings if w.kind == "deprecated" and w.feature == subject]
    elif kind == "runner-deprecation":
        runner = side.local(subject)
        said = [w.message for w in resolution.warnings if w.kind == "deprecated-runner" and w.runner == runner
                and resolution.runner == runner]
    else:
        from ._choice import removal_words
        from .resolver import _plan

        plan = side.plan if isinstance(side, _diff.Side) else _plan(side.matrix, side.version)
        gate = next((f for f in plan.features if f.id == subject and f.deprecated is not None), None)
        words = None if gate is None else removal_words(gate)
        # The refusal says each removed feature the config uses, "; " between them.
        if words is None or not isinstance(error, RemovedFeatureError) or f"; {words}; " not in f"; {error.reason}; ":
            return _messages.DIFF_NOT_REFUSED_FOR_IT
        return _messages.diff_words_said("refused", words)
    return _messages.diff_words_said("warned", said[0]) if said else _messages.DIFF_NOT_WARNED


def served_how(resolution: _resolver.Resolution, also: Sequence[str] = ()) -> Tuple[List[str], Optional[str]]:
    """How a served *resolution* came to serve, as the diff says an answer: the kinds of the
    choice's warnings (a fallback, an override, a redirect that applies always; and the kinds
    *also* names), sorted, and the feature whose preference chose the runner (not a notice of
    one passed over: that names a runner not free), or None."""
    kinds = sorted({w.kind for w in resolution.warnings if w.kind in ("fallback", "override", "redirected", *also)})
    chose = resolution._preferrer()
    return kinds, None if chose is None else chose.id


def _runner_said(side: Union[_diff.Side, _At], config: Dict[str, Any], runner: Optional[str]) -> str:
    """A request for *runner*, a runner only one side has, on *side*: served, refused, or a usage
    error (no runner of that id there)."""
    from .errors import UsageError

    try:
        try:
            resolution = _resolver.resolve(side.matrix, config, runner=side.local(runner), version=side.version)
            dict(resolution.effective)  # every value held to the schema, as `matrix resolve` holds it
        except ResolutionError as raised:
            dict(raised.resolution.effective)
            return _messages.DIFF_RUNNER_REFUSED
    except UsageError:
        return _messages.DIFF_NO_RUNNER
    except ConfigError as refused:
        return _messages.diff_config_error(refused)
    return _messages.DIFF_RUNNER_SERVED


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
        return _messages.diff_config_error(refused)
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
    (a request by a former id, *runner*), ``runner`` (a request for a runner only one side has),
    ``role`` (the runner of a role other than the base, the role its message names), or
    ``cosmetic``)."""
    if change.id in WORD_KINDS:
        return WORD_KINDS[change.id]
    if change.id == "refusal-kind-changed":
        return "refusal-kind"
    if change.id == "role-runner-changed":
        return "role"
    if change.id.startswith("alias-"):
        return "alias"
    if change.id in ("runner-removed", "runner-added"):
        return "runner"
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
        asked = change.runner if kind in _OF_REQUEST or kind in ("alias", "runner") else _diff_requests.asked(change)
        feature = change.features[0] if change.features else None
        if kind == "role":
            from ._diff_roles import role_of

            feature = role_of(change.message)
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


def _resolved(side: Union[_diff.Side, _At], config: Dict[str, Any],
              runner: Optional[str]) -> Union[_resolver.Resolution, str]:
    """*config*'s resolution on *side* in automatic choice (in a request for *runner*), a refusal's
    too, or what a config error says (`said_by` and `effective_value` read it)."""
    try:
        return _resolver.resolve(side.matrix, config, runner=side.local(runner), version=side.version)
    except ConfigError as refused:
        return _messages.diff_config_error(refused)
    except ResolutionError as raised:
        return raised.resolution


def said_by(side: Union[_diff.Side, _At], config: Dict[str, Any], adjustment_id: str,
            runner: Optional[str] = None) -> str:
    """What the adjustment *adjustment_id* says to *config* on *side* in automatic choice (in a
    request for *runner*): its ``adjusted`` warning (``Resolution.warnings``), or nothing
    (`_messages.diff_said_value`)."""
    resolution = _resolved(side, config, runner)
    if isinstance(resolution, str):
        return resolution
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
    resolution = _resolved(side, config, runner)
    if isinstance(resolution, str):
        return resolution
    try:  # the effective config is read as asked: a required field left out is refused there
        return repr(resolution.effective.get(path))
    except ConfigError as refused:
        return _messages.diff_config_error(refused)
