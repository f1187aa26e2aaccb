"""The private, strict cattrs converter that gives the raw file contents their shape.

cattrs coerces by default (``"no"`` becomes ``True``, ``7`` becomes ``"7"``, ``"ab"`` becomes
two runners), so this converter has exact-type hooks for scalars, a sequence hook that rejects
anything but an array, and forbids unknown keys. The global converter is never touched.
The specs below are the file's words; the loader turns them into the model in `schema`.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Dict, Iterator, List, Optional, Tuple, Union, get_args, get_origin

import attrs
import cattrs
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError, IterableValidationError

from . import _messages
from .schema import NOTHING

#: A place in the document: the keys and indexes from its top.
Place = Tuple[object, ...]
#: A cattrs structure hook.
Hook = Callable[[Any, Any], Any]

_TOML_TYPES = {str: "a string", int: "an integer", bool: "a boolean", float: "a float"}


class Invalid(ValueError):
    """A value of the wrong shape; its text is the sentence to show."""


class _AtIndex(ValueError):
    def __init__(self, index: int, error: BaseException) -> None:
        super().__init__(index, error)
        self.index = index
        self.error = error


def toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    for kind, name in _TOML_TYPES.items():
        if isinstance(value, kind):
            return name
    return type(value).__name__


def expected(what: str, value: object) -> Invalid:
    return Invalid(_messages.expected_toml(what, toml_type(value), value))


# The words a key's type is marked with, for the JSON Schemas `editor` generates from these
# specs (structuring reads the type under the mark): a string of a given form; a runner, feature
# or requirement kind id (one of the matrix's own, in its schemas); an array that may not be
# empty or repeat an item.
VERSION, ID, PATH, CLASS, PREDICATE = "version", "id", "path", "class", "predicate"
STATUS, BARE_STATUS, FIELD_TYPE, APPLIES = "status", "bare status", "field type", "applies"
#: When a redirect is in force, one of `matrix.schema.REDIRECT_APPLIES` (issue 30, F6).
REDIRECT_APPLIES = "redirect applies"
#: When an adjustment's message is said, one of `matrix.schema.ADJUSTMENT_SAYS` (issue 30, F9).
SAYS = "says"
#: How an adjustment's message is said, one of `matrix.schema.ADJUSTMENT_LEVELS`.
LEVEL = "level"
#: A built-in exception's name, one of `matrix._error_kinds.ERROR_KINDS` (issue 30, F5).
ERROR_KIND = "error kind"
RUNNER, SUPPORT_KEY, GATE, KIND = "runner", "support key", "gate", "kind"
NONEMPTY, UNIQUE, NOT_BLANK = "nonempty", "unique", "not blank"
#: A TOML scalar (a choice), a number (a bound) and any TOML value (a default).
SCALAR, NUMBER, ANY = "scalar", "number", "any"
#: Values of several shapes, described in `matrix._format.SHAPES`.
CELL, CHAIN, ENTRY = "cell", "chain", "config entry"

Version = Annotated[str, VERSION]
Condition = Annotated[str, PREDICATE]
BareStatus = Annotated[str, BARE_STATUS]
Scalar = Annotated[object, SCALAR]


@attrs.frozen
class MatrixSpec:
    name: str
    version: Version
    runners: str = "runners"
    description: Optional[str] = None
    config_class: Optional[Annotated[str, CLASS]] = None
    default_support: Optional[BareStatus] = None
    stages: Annotated[Tuple[Annotated[str, ID], ...], NONEMPTY, UNIQUE] = ()


@attrs.frozen
class ChoiceSpec:
    value: Scalar
    since: Optional[Version] = None
    until: Optional[Version] = None


@attrs.frozen
class FieldSpec:
    type: Annotated[str, FIELD_TYPE]
    nullable: bool = False
    default: Annotated[object, ANY] = NOTHING
    choices: Optional[Annotated[Tuple[Union[Scalar, ChoiceSpec], ...], UNIQUE]] = None
    min: Optional[Annotated[object, NUMBER]] = None
    max: Optional[Annotated[object, NUMBER]] = None
    doc: Optional[str] = None
    fact: bool = False
    since: Optional[Version] = None
    until: Optional[Version] = None
    classes: bool = False
    derive: Optional[str] = None


@attrs.frozen
class StatementSpec:
    status: Annotated[str, STATUS]
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[Version] = None


@attrs.frozen
class DeprecationSpec:
    since: Version
    remove_in: Optional[Version] = None
    message: Optional[str] = None
    replacement: Optional[str] = None
    removed: bool = False


@attrs.frozen
class ForcesSpec:
    runner: Annotated[str, RUNNER]
    override: bool = False
    message: Optional[str] = None


@attrs.frozen
class PrefersSpec:
    runner: Annotated[str, RUNNER]
    outright: bool = False
    message: Optional[str] = None
    skipped: Optional[str] = None


#: A support cell: a status, a statement, or a history of them (the loader reads each itself).
Cell = Annotated[Union[BareStatus, StatementSpec, Annotated[Tuple[Union[BareStatus, StatementSpec], ...], NONEMPTY]],
                 CELL]


@attrs.frozen
class FeatureSpec:
    name: str
    when: Condition
    support: Dict[Annotated[str, SUPPORT_KEY], Cell]
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[Version] = None
    until: Optional[Version] = None
    deprecated: Optional[DeprecationSpec] = None
    group: Optional[str] = None
    forces: Optional[ForcesSpec] = None
    prefers: Optional[PrefersSpec] = None
    applies: Annotated[str, APPLIES] = "always"


@attrs.frozen
class RefusalSpec:
    reason: str
    together: Annotated[Tuple[Annotated[Tuple[Annotated[str, GATE], ...], NONEMPTY], ...], NONEMPTY]
    links: Tuple[str, ...] = ()


@attrs.frozen
class ClauseSpec:
    condition: Condition
    reason: Optional[str] = None
    doc: Optional[str] = None
    kind: Optional[Annotated[str, ERROR_KIND]] = None
    roles: Annotated[Tuple[Annotated[str, ID], ...], NONEMPTY, UNIQUE] = ()
    stage: Optional[Annotated[str, ID]] = None


@attrs.frozen
class AliasSpec:
    """A former id of the runner, with its deprecation (the fields of `DeprecationSpec`; the
    replacement is the runner itself)."""

    id: Annotated[str, ID]
    since: Version
    remove_in: Optional[Version] = None
    message: Optional[str] = None
    removed: bool = False


@attrs.frozen
class RunnerDeprecationSpec:
    """The runner's own deprecation (the fields of `DeprecationSpec` but ``removed``: a runner's
    removal is its file's; the replacement is another runner's id, or words)."""

    since: Version
    remove_in: Optional[Version] = None
    replacement: Optional[str] = None
    message: Optional[str] = None


@attrs.frozen
class RedirectSpec:
    to: Annotated[str, RUNNER]
    when: Condition
    message: Optional[str] = None
    since: Optional[Version] = None
    until: Optional[Version] = None
    applies: Optional[Annotated[str, REDIRECT_APPLIES]] = None
    stage: Optional[Annotated[str, ID]] = None


#: What a runner requires of one kind: a condition, a chain of clauses, or one clause.
Requirement = Union[Condition, Annotated[Tuple[ClauseSpec, ...], NONEMPTY, CHAIN], ClauseSpec]


@attrs.frozen
class WideClauseSpec:
    """A clause of a matrix-wide requirement (``[requires]`` of features.toml): a runner
    file's clause, and the runners it is not required of (``exempt``: a chain's first clause)."""

    condition: Condition
    reason: Optional[str] = None
    doc: Optional[str] = None
    kind: Optional[Annotated[str, ERROR_KIND]] = None
    exempt: Annotated[Tuple[Annotated[str, RUNNER], ...], NONEMPTY, UNIQUE] = ()
    stage: Optional[Annotated[str, ID]] = None


#: What every runner requires of one kind (``[requires]`` of features.toml): a condition, a
#: chain of clauses, or one clause.
WideRequirement = Union[Condition, Annotated[Tuple[WideClauseSpec, ...], NONEMPTY, CHAIN], WideClauseSpec]


@attrs.frozen
class RunnerSpec:
    name: str
    priority: int
    description: Optional[str] = None
    links: Tuple[str, ...] = ()
    candidate: Optional[Condition] = None
    requires: Dict[Annotated[str, KIND], Requirement] = attrs.Factory(dict)
    aliases: Tuple[AliasSpec, ...] = ()
    redirects: Tuple[RedirectSpec, ...] = ()
    deprecated: Optional[RunnerDeprecationSpec] = None


@attrs.frozen
class KindSpec:
    name: str
    reason: Optional[str] = None
    kind: Optional[Annotated[str, ERROR_KIND]] = None
    alone: bool = False


@attrs.frozen
class OrderSpec:
    name: str
    runners: Annotated[Tuple[Annotated[str, RUNNER], ...], NONEMPTY, UNIQUE]
    when: Optional[Condition] = None
    fallback: bool = True


@attrs.frozen
class RoleSpec:
    name: str
    field: Annotated[str, PATH]
    follows: Optional[Annotated[str, ID]] = None


@attrs.frozen
class AdjustmentSpec:
    name: str
    when: Optional[Condition] = None
    set: Optional[Dict[Annotated[str, PATH], Annotated[object, ANY]]] = None
    runners: Annotated[Tuple[Annotated[str, RUNNER], ...], NONEMPTY, UNIQUE] = ()
    override: bool = True
    level: Annotated[str, LEVEL] = "warning"
    message: Optional[str] = None
    says: Annotated[str, SAYS] = "changes"
    stage: Optional[Annotated[str, ID]] = None
    since: Optional[Version] = None
    until: Optional[Version] = None
    links: Tuple[str, ...] = ()


@attrs.frozen
class IgnoreSpec:
    code: str
    reason: Annotated[str, NOT_BLANK]
    gate: Optional[str] = None


@attrs.frozen
class CheckSpec:
    ignore: Tuple[IgnoreSpec, ...] = ()


@attrs.frozen
class ColumnSpec:
    """``[docs.columns.<id>]``: a question users ask, derived (``when``) or declared."""

    name: Annotated[str, NOT_BLANK]
    when: Optional[Condition] = None
    declared: Dict[Annotated[str, ID], bool] = attrs.Factory(dict)
    doc: Optional[str] = None


@attrs.frozen
class ColumnRowSpec:
    """``[docs.rows.<id>]``: a row of the columns table, a runner on some configs."""

    runner: Optional[Annotated[str, RUNNER]] = None
    name: Optional[str] = None
    where: Optional[Condition] = None


@attrs.frozen
class DocsSpec:
    """``[docs]``: what the generated docs say beyond the rules (the columns table)."""

    columns: Dict[Annotated[str, ID], ColumnSpec] = attrs.Factory(dict)
    rows: Dict[Annotated[str, ID], ColumnRowSpec] = attrs.Factory(dict)


@attrs.frozen
class SentencesSpec:
    """Sentences in the matrix's own words (templates: see `matrix._templates`)."""

    does_not_support: Optional[str] = None
    fallback: Optional[str] = None
    no_runner: Optional[str] = None
    preferred_blocked: Optional[str] = None
    order_refused: Optional[str] = None


@attrs.frozen
class MessagesSpec:
    """``[messages]``: the matrix's sentences, and a runner's own (``[messages.runners.ID]``)."""

    does_not_support: Optional[str] = None
    fallback: Optional[str] = None
    no_runner: Optional[str] = None
    preferred_blocked: Optional[str] = None
    order_refused: Optional[str] = None
    runners: Dict[Annotated[str, RUNNER], SentencesSpec] = attrs.Factory(dict)


@attrs.frozen
class DocumentSpec:
    """The whole of ``features.toml``. The loader reads each table itself (one bad table must
    not hide another); this spec names the tables, for it and for the JSON Schemas."""

    matrix: MatrixSpec
    config: Dict[Annotated[str, PATH], Annotated[Union[Annotated[str, FIELD_TYPE], FieldSpec], ENTRY]] = attrs.Factory(
        dict)
    requirements: Dict[Annotated[str, ID], KindSpec] = attrs.Factory(dict)
    requires: Dict[Annotated[str, KIND], WideRequirement] = attrs.Factory(dict)
    orders: Dict[Annotated[str, ID], OrderSpec] = attrs.Factory(dict)
    features: Dict[Annotated[str, ID], FeatureSpec] = attrs.Factory(dict)
    refusals: Dict[Annotated[str, ID], RefusalSpec] = attrs.Factory(dict)
    adjustments: Dict[Annotated[str, ID], AdjustmentSpec] = attrs.Factory(dict)
    roles: Dict[Annotated[str, ID], RoleSpec] = attrs.Factory(dict)
    check: Optional[CheckSpec] = None
    messages: Optional[MessagesSpec] = None
    docs: Optional[DocsSpec] = None


def _exact(kind: type) -> Hook:
    def structure(value: object, _type: type) -> object:
        if type(value) is not kind:
            raise expected(_TOML_TYPES[kind], value)
        return value

    return structure


def _array_of(item_type: type) -> Hook:
    def structure(value: object, _type: type) -> Tuple[object, ...]:
        if not isinstance(value, list):
            raise expected("an array", value)
        items: List[object] = []
        for index, item in enumerate(value):
            try:
                items.append(converter.structure(item, item_type))
            except Exception as exc:
                raise _AtIndex(index, exc) from None
        return tuple(items)

    return structure


def _table(value: object, _type: type) -> Dict[str, object]:
    if not isinstance(value, dict):
        raise expected("a table", value)
    return dict(value)


def _anything(value: object, _type: type) -> object:
    return value


def _any_array(value: object, _type: type) -> Tuple[object, ...]:
    if not isinstance(value, list):
        raise expected("an array", value)
    return tuple(value)


def _spec(cls: type) -> Hook:
    inner: Hook = cattrs.gen.make_dict_structure_fn(cls, converter, _cattrs_forbid_extra_keys=True)

    def structure(value: object, _type: type) -> object:
        if not isinstance(value, dict):
            raise expected("a table", value)
        return inner(value, _type)

    return structure


def bare(kind: Any) -> Any:
    """*kind* without the marks of `Annotated` (structuring reads the type under them)."""
    if get_origin(kind) is Annotated:
        return bare(get_args(kind)[0])
    args = get_args(kind)
    origin = get_origin(kind)
    if origin is Union:
        return Union[tuple(bare(a) for a in args)]
    if origin is tuple:
        return Tuple[tuple(a if a is Ellipsis else bare(a) for a in args)]
    if origin is dict:
        return Dict[bare(args[0]), bare(args[1])]  # type: ignore[misc]
    return kind


def marks(kind: Any) -> Tuple[object, ...]:
    """The marks of *kind*, under Optional."""
    if get_origin(kind) is Union:
        return tuple(m for a in get_args(kind) for m in marks(a))
    return tuple(get_args(kind)[1:]) if get_origin(kind) is Annotated else ()


converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
for _kind in (str, int, bool):
    converter.register_structure_hook(_kind, _exact(_kind))
converter.register_structure_hook(float, _exact(float))
converter.register_structure_hook(object, _anything)
# An array of strings (or of tables of a spec) is structured strictly; the items of any other
# array (refusals' lists of gates, choices, a history) and the values of a table (support cells,
# requirements) are read by the loader itself, which says each mistake in its own words.
converter.register_structure_hook_func(lambda kind: get_origin(bare(kind)) is tuple, _any_array)
converter.register_structure_hook_func(lambda kind: bare(kind) == Tuple[str, ...], _array_of(str))
converter.register_structure_hook_func(lambda kind: get_origin(bare(kind)) is dict, _table)
converter.register_structure_hook_func(lambda kind: bare(kind) == Tuple[IgnoreSpec, ...], _array_of(IgnoreSpec))
converter.register_structure_hook_func(lambda kind: bare(kind) == Tuple[AliasSpec, ...], _array_of(AliasSpec))
converter.register_structure_hook_func(lambda kind: bare(kind) == Tuple[RedirectSpec, ...], _array_of(RedirectSpec))
#: Every spec: the document and what its tables and runner files hold.
SPECS = (DocumentSpec, MatrixSpec, FieldSpec, ChoiceSpec, StatementSpec, DeprecationSpec, ForcesSpec, PrefersSpec,
         FeatureSpec, RefusalSpec, CheckSpec, IgnoreSpec, DocsSpec, ColumnSpec, ColumnRowSpec, RunnerSpec, ClauseSpec, WideClauseSpec, KindSpec, OrderSpec, AliasSpec,
         RunnerDeprecationSpec, RedirectSpec, AdjustmentSpec, RoleSpec, MessagesSpec, SentencesSpec)
for _cls in SPECS:
    attrs.resolve_types(_cls, include_extras=True)  # the marks stay, for `editor`
    converter.register_structure_hook(_cls, _spec(_cls))
#: The keys that hold a version, wherever they are (a version written as a TOML number there is
#: told to be quoted).
VERSION_KEYS = frozenset(a.name for cls in SPECS for a in attrs.fields(cls) if VERSION in marks(a.type))


def structure(value: object, cls: type, path: Place) -> Tuple[Optional[Any], List[Tuple[Place, str]]]:
    """``(spec, [])``, or ``(None, [(path, message), …])`` naming every problem found."""
    try:
        return converter.structure(value, cls), []
    except Exception as exc:  # every failure of the hooks becomes a problem with a path
        return None, sorted(set(_problems(exc, path, cls)), key=lambda p: (str(p[0]), p[1]))


def _problems(exc: BaseException, path: Place, cls: Optional[type]) -> Iterator[Tuple[Place, str]]:
    if isinstance(exc, ClassValidationError):
        with_notes, without = exc.group_exceptions()
        # A misspelt key is said once, as the unknown key whose "did you mean" names the key
        # it stands for: that key is missing because of it, which is not a second mistake.
        meant = {_messages.near_miss(key, [a.name for a in attrs.fields(extra.cl)])
                 for extra in without if isinstance(extra, ForbiddenExtraKeysError) for key in extra.extra_fields}
        for inner, note in with_notes:
            if isinstance(inner, KeyError):
                if note.name not in meant:
                    yield path, _messages.missing_key(note.name)
            else:
                yield from _problems(inner, path + (note.name,), None)
        for inner in without:
            yield from _problems(inner, path, cls)
    elif isinstance(exc, IterableValidationError):
        indexed, unindexed = exc.group_exceptions()
        for inner, at in indexed:
            yield from _problems(inner, path + (at.index,), None)
        for inner in unindexed:
            yield from _problems(inner, path, None)
    elif isinstance(exc, ForbiddenExtraKeysError):
        known = [a.name for a in attrs.fields(exc.cl)]
        for key in sorted(exc.extra_fields):
            yield path + (key,), _messages.unknown_choice("key", key, known)
    elif isinstance(exc, _AtIndex):
        yield from _problems(exc.error, path + (exc.index,), None)
    elif isinstance(exc, Invalid):
        yield path, str(exc)
    else:
        yield path, _messages.invalid_value(exc)
