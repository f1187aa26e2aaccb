"""Binding a matrix to the host's own config classes.

`derive` writes the ``[config]`` table of a class (what ``matrix schema --from`` prints), so the
schema starts as a copy of the real classes instead of a hand copy; `compare` says where a
schema and a class have drifted apart (what ``matrix check`` reports, with ``[matrix]
config_class`` or ``--against``); `import_class` imports ``"MODULE:CLASS"`` the way
``python -m`` would from the current folder.

Fields declared ``fact = true`` are the host's computed facts, not members of the class: the
comparison skips them.
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from typing import Dict, Iterable, List, Literal, NoReturn, Optional, Sequence, Set, Tuple, Union, cast

import attrs
from packaging.version import Version

from . import _introspect, _messages
from ._introspect import Member
from .errors import ConfigError, ResolutionError, UsageError
from .schema import CLASS_SPEC, NOTHING, Field, FieldType, Schema

__all__ = ["Drift", "DRIFT_CODES", "derive", "compare", "import_class", "raise_as_host"]


def __dir__() -> List[str]:
    return __all__


#: code → (severity, what it means); `matrix.check.CODES` includes these.
DRIFT_CODES: Dict[str, Tuple[Literal["error", "warning"], str]] = {
    "class-missing": ("error", "a [config] path the config class does not have"),
    "class-type": ("error", "a [config] type that differs from the class's"),
    "class-nullable": ("error", "nullable in one of [config] and the class, not in the other"),
    "class-choices": ("error", "a choice the class cannot hold"),
    "class-wider": ("warning", "the class allows values the [config] entry refuses"),
    "class-default": ("warning", "a default that differs from the class's"),
    "class-unavailable": ("warning", "the config class could not be imported"),
}


@attrs.frozen
class Drift:
    """One difference between a ``[config]`` entry at ``path`` and the class ``member``
    (``Owner.name``) it describes."""

    code: str
    path: str
    member: Optional[str]
    message: str

    @property
    def severity(self) -> Literal["error", "warning"]:
        return DRIFT_CODES[self.code][0]


# --- importing ----------------------------------------------------------------------------------

def import_class(spec: str) -> type:
    """The class named by *spec* (``"package.module:Class"`` or ``"module:Outer.Inner"``).

    The module is imported as ``python -m`` would: the current folder first on ``sys.path``,
    ``PYTHONPATH`` honoured.

    :raises UsageError: a malformed *spec*, a module that fails to import (one line naming the
        error), a missing class (with "did you mean"), or a class that is not a dataclass, an
        attrs class or a pydantic model.
    """
    if not isinstance(spec, str) or not CLASS_SPEC.match(spec):
        raise UsageError(_messages.bad_class_spec(spec))
    module_name, _, qualname = spec.partition(":")
    added = os.getcwd() not in sys.path and "" not in sys.path
    if added:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except (Exception, SystemExit) as exc:
        raise UsageError(_messages.cannot_import(module_name, exc)) from None
    finally:
        if added and sys.path and sys.path[0] == os.getcwd():
            del sys.path[0]
    found: object = module
    where = module_name
    for part in qualname.split("."):
        inner = getattr(found, part, None)
        if inner is None:
            names = [n for n, v in vars(found).items() if isinstance(v, type) and not n.startswith("_")]
            raise UsageError(_messages.no_such_class(where, part, names))
        found, where = inner, f"{where}.{part}" if where != module_name else f"{module_name}:{part}"
    if not _introspect.is_config_class(found):
        raise UsageError(_messages.not_a_config_class(spec, found))
    return found  # type: ignore[return-value]


def _resolve(cls: Union[type, str]) -> Tuple[type, str]:
    if isinstance(cls, str):
        return import_class(cls), cls
    if not _introspect.is_config_class(cls):
        raise UsageError(_messages.not_a_config_class(repr(cls), cls))
    return cls, f"{cls.__module__}:{cls.__qualname__}"


# --- derive -------------------------------------------------------------------------------------

def derive(cls: Union[type, str], paths: Sequence[str] = ()) -> str:
    """The ``[config]`` table that describes *cls* (a class or ``"MODULE:CLASS"``), as TOML.

    Without *paths*, every member that maps to a field type, and a comment for each that does
    not, saying why; with *paths*, only those (a section with everything below it) and the
    sections above them.

    :raises UsageError: *cls* cannot be imported or read; a path it does not have (with "did you
        mean") or cannot map.
    """
    klass, spec = _resolve(cls)
    every = list(_introspect.members(klass))
    if paths:
        chosen: List[Member] = []
        wanted: Set[str] = set()
        for path in paths:
            member, owner, names = _introspect.lookup(klass, path)
            if member is None:
                raise UsageError(_messages.no_member(path, owner.__name__ if owner else klass.__name__,
                                                     path.split(".")[-1], names))
            if member.type is None or member.why:
                raise UsageError(_messages.cannot_map(path, member.why or ""))
            parts = path.split(".")
            wanted.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
            if member.computed:
                chosen.append(member)
            if member.type == "section":
                wanted.update(m.path for m in every if m.path.startswith(path + "."))
        rows = [m for m in every if m.path in wanted] + chosen
    else:
        rows = every
    lines = [f"# Derived from {spec} by `matrix schema --from`: edit freely; `matrix check` "
             "compares it with the class", "[config]"]
    lines.extend(line for member in rows for line in _entry(member))
    return "\n".join(lines) + "\n"


def _entry(member: Member) -> Iterable[str]:
    key = _toml_string(member.path)
    if member.type is None or member.why:
        yield f"# {key} is not mapped: {member.why}"
        return
    if member.lost_bound:
        yield f"# {key}: {member.lost_bound}"
    items: List[Tuple[str, object]] = [("type", member.type)]
    if member.nullable:
        items.append(("nullable", True))
    if member.classes:
        items.append(("classes", True))
    if member.choices is not None:
        items.append(("choices", list(member.choices)))
    for bound in ("min", "max"):
        if getattr(member, bound) is not None:
            items.append((bound, getattr(member, bound)))
    default = member.default
    if default is not NOTHING and not (member.nullable and default is None):
        # `_introspect` names one of FIELD_TYPES (Field's validator says so if it ever did not).
        field = Field(member.path, cast(FieldType, member.type), nullable=member.nullable, choices=member.choices,
                      min=member.min, max=member.max)
        try:
            from ._access import check

            check(field, tuple(default) if isinstance(default, list) else default)
        except ConfigError as error:
            yield f"# {key}: the default {_messages.short_repr(default)} is left out: {error.reason}"
        else:
            items.append(("default", default))
    if member.doc:
        items.append(("doc", member.doc))
    yield f"{key} = {{ " + ", ".join(f"{name} = {_toml_value(value)}" for name, value in items) + " }"


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return _toml_string(str(value))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04X}" if ord(ch) < 0xD800 else "\\uFFFD")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


# --- compare ------------------------------------------------------------------------------------

def compare(schema: Schema, cls: Union[type, str]) -> Tuple[Drift, ...]:
    """Every difference between *schema* and *cls* (a class or ``"MODULE:CLASS"``), in schema
    order. Facts (``fact = true``) are skipped.

    :raises UsageError: *cls* cannot be imported or read.
    """
    klass, _ = _resolve(cls)
    found: List[Drift] = []
    missing: List[str] = []
    for field in sorted(schema, key=lambda f: f.path.count(".")):
        if field.fact or any(field.path.startswith(m + ".") for m in missing):
            continue
        member, owner, names = _introspect.lookup(klass, field.path)
        if member is None:
            missing.append(field.path)
            parent, _, name = field.path.rpartition(".")
            owner_name = owner.__name__ if owner is not None else "?"
            # A near miss to suggest is a member the schema does not map already: one it maps is
            # no typo of this entry (it is another entry's).
            mapped = {f.path.rpartition(".")[2] for f in schema if f.path.rpartition(".")[0] == parent}
            found.append(Drift("class-missing", field.path, f"{owner_name}.{name}",
                               _messages.class_missing(field.path, owner_name, name,
                                                       [n for n in names if n not in mapped])))
            continue
        found.extend(_field_drift(field, member))
    order = {f.path: i for i, f in enumerate(schema)}
    return tuple(sorted(found, key=lambda d: (order[d.path], d.code)))


_COMPATIBLE = {("version", "str"), ("float", "int")}


def _field_drift(field: Field, member: Member) -> Iterable[Drift]:  # noqa: C901 — one test per property a field declares (type, nullability, choices, bounds, default), in report order
    where = f"{member.owner}.{member.name}"
    path = field.path
    if member.type is None:
        if not member.computed or member.annotation != "(no annotation)":
            yield Drift("class-type", path, where, _messages.class_type_unmapped(
                path, field.type, where, member.annotation, member.why or ""))
        return
    if field.type != member.type and (field.type, member.type) not in _COMPATIBLE:
        yield Drift("class-type", path, where, _messages.class_type(
            path, field.type, where, member.annotation))
        return
    if member.others:
        yield Drift("class-wider", path, where, _messages.class_also(path, where, member.others))
    if member.classes and not field.classes:
        yield Drift("class-wider", path, where, _messages.class_takes_classes(path, where, member.annotation))
    if field.nullable != member.nullable and not (field.implied and not member.nullable):
        yield Drift("class-nullable", path, where, _messages.class_nullable(
            path, field.nullable, where, member.annotation))
    if field.choices is not None:
        if member.choices is None:
            if member.type != "bool":
                yield Drift("class-wider", path, where, _messages.class_any_value(path, where, member.type))
        else:
            cannot = [c for c in field.choices if c not in member.choices]
            beyond = [c for c in member.choices if c not in field.choices]
            if cannot:
                yield Drift("class-choices", path, where, _messages.class_cannot_hold(path, where, cannot))
            if beyond:
                yield Drift("class-wider", path, where, _messages.class_more_choices(path, where, beyond))
    if field.type in ("int", "float"):
        for bound, below in (("min", True), ("max", False)):
            mine, theirs = getattr(field, bound), getattr(member, bound)
            if mine is not None and (theirs is None or (theirs < mine if below else theirs > mine)):
                yield Drift("class-wider", path, where, _messages.class_bound(path, where, bound, mine, theirs))
    if field.type != "section" and member.default is not NOTHING:
        mine = _comparable(field.default)
        theirs = _comparable(member.default)
        if not field.has_default:
            yield Drift("class-default", path, where, _messages.class_default(
                path, where, None, member.default, declared=False))
        elif mine != theirs or (type(mine) is not type(theirs) and not _same_number(mine, theirs)):
            shown = list(mine) if isinstance(mine, tuple) else mine
            yield Drift("class-default", path, where, _messages.class_default(
                path, where, shown, member.default))


def _comparable(value: object) -> object:
    """A default as the class and the schema would both write it: lists as tuples, versions as text."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    if isinstance(value, Version):
        return str(value)
    return value


def _same_number(a: object, b: object) -> bool:
    return (isinstance(a, (int, float)) and isinstance(b, (int, float))
            and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def raise_as_host(error: ResolutionError) -> NoReturn:
    """Raise *error* as its host would: the built-in exception its `ResolutionError.kind` names
    (``kind = "ValueError"`` on the requirement that failed), with its reason (the message
    without the remedy lines a matrix adds), chained
    from *error*; *error* itself when it has no kind. A host that moves its checks to `matrix`
    keeps its public exceptions this way::

        try:
            resolution = m.resolve(config)
        except matrix.ResolutionError as error:
            matrix.binding.raise_as_host(error)

    :raises TypeError: *error* is not a `ResolutionError`.
    """
    if not isinstance(error, ResolutionError):
        raise TypeError(_messages.raise_as_host_needs(type(error).__name__))
    kind = error.kind
    if kind is None:
        raise error
    from ._error_kinds import builtin

    raise builtin(kind)(error.reason) from error
