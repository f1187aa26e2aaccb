"""The private, strict cattrs converter that gives the raw file contents their shape.

cattrs coerces by default (``"no"`` becomes ``True``, ``7`` becomes ``"7"``, ``"ab"`` becomes
two runners), so this converter has exact-type hooks for scalars, a sequence hook that rejects
anything but an array, and forbids unknown keys. The global converter is never touched.
The specs below are the file's words; the loader turns them into the model in `schema`.
"""

from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

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


@attrs.frozen
class MatrixSpec:
    name: str
    version: str
    runners: str = "runners"
    description: Optional[str] = None
    config_class: Optional[str] = None
    default_support: Optional[str] = None


@attrs.frozen
class FieldSpec:
    type: str
    nullable: bool = False
    default: object = NOTHING
    choices: Optional[Tuple[object, ...]] = None
    min: object = None
    max: object = None
    doc: Optional[str] = None
    fact: bool = False
    since: Optional[str] = None
    until: Optional[str] = None
    classes: bool = False


@attrs.frozen
class StatementSpec:
    status: str
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[str] = None


@attrs.frozen
class DeprecationSpec:
    since: str
    remove_in: Optional[str] = None
    message: Optional[str] = None
    replacement: Optional[str] = None
    removed: bool = False


@attrs.frozen
class ForcesSpec:
    runner: str
    override: bool = False
    message: Optional[str] = None


@attrs.frozen
class PrefersSpec:
    runner: str
    outright: bool = False
    message: Optional[str] = None


@attrs.frozen
class FeatureSpec:
    name: str
    when: str
    support: Dict[str, object]
    note: Optional[str] = None
    links: Tuple[str, ...] = ()
    since: Optional[str] = None
    until: Optional[str] = None
    deprecated: Optional[DeprecationSpec] = None
    group: Optional[str] = None
    forces: Optional[ForcesSpec] = None
    prefers: Optional[PrefersSpec] = None
    applies: str = "always"


@attrs.frozen
class RefusalSpec:
    reason: str
    together: Tuple[object, ...]
    links: Tuple[str, ...] = ()


@attrs.frozen
class RunnerSpec:
    name: str
    priority: int
    description: Optional[str] = None
    links: Tuple[str, ...] = ()
    candidate: Optional[str] = None
    requires: Dict[str, object] = attrs.Factory(dict)


@attrs.frozen
class ClauseSpec:
    condition: str
    reason: Optional[str] = None
    doc: Optional[str] = None


@attrs.frozen
class KindSpec:
    name: str
    reason: Optional[str] = None


@attrs.frozen
class OrderSpec:
    name: str
    when: str
    runners: Tuple[str, ...]


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


converter = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
for _kind in (str, int, bool):
    converter.register_structure_hook(_kind, _exact(_kind))
converter.register_structure_hook(float, _exact(float))
for _generic, _hook in (
    (Tuple[str, ...], _array_of(str)),
    (Tuple[object, ...], _any_array),
    (Dict[str, object], _table),
):
    converter.register_structure_hook_func(functools.partial(operator.eq, _generic), _hook)
converter.register_structure_hook(object, _anything)
for _cls in (MatrixSpec, FieldSpec, StatementSpec, DeprecationSpec, ForcesSpec, PrefersSpec, FeatureSpec, RunnerSpec,
             RefusalSpec, ClauseSpec, KindSpec, OrderSpec):
    converter.register_structure_hook(_cls, _spec(_cls))


def structure(value: object, cls: type, path: Place) -> Tuple[Optional[Any], List[Tuple[Place, str]]]:
    """``(spec, [])``, or ``(None, [(path, message), …])`` naming every problem found."""
    try:
        return converter.structure(value, cls), []
    except Exception as exc:  # every failure of the hooks becomes a problem with a path
        return None, sorted(set(_problems(exc, path, cls)), key=lambda p: (str(p[0]), p[1]))


def _problems(exc: BaseException, path: Place, cls: Optional[type]) -> Iterator[Tuple[Place, str]]:
    if isinstance(exc, ClassValidationError):
        with_notes, without = exc.group_exceptions()
        for inner, note in with_notes:
            if isinstance(inner, KeyError):
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
