"""Reading config values by dotted path, from any nesting of mappings and objects.

A config is whatever the host has: dicts, dataclasses, attrs or pydantic models,
``SimpleNamespace``, or a mix. A path through a ``None`` section yields ``None``; a key missing
from a mapping takes the schema's default, but an attribute missing from an object is a
`ConfigError` (a renamed or misspelt field must not read as its default), except for facts
(``fact = true``), which the host may pass separately in ``facts`` (flat dotted keys) and which
take their default when absent. Where a mapping lacks a key that is read, a key with a dot in
it beside it is a `ConfigError`: configs are nested, and a flat ``{"job.os": …}`` must not
leave ``job.os`` silently at its default. A value the schema
does not allow is a `ConfigError`. Values are checked, never coerced (an enum member reads as
its value for ``str`` enums and as its name otherwise, which is how vLLM spells its modes in
configs and docs).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple


from . import _messages
from .errors import ConfigError, UsageError
from ._given import PREFIX as GIVEN
from ._versions import to_version
from .schema import Field, Schema

MISSING = object()
_EMPTY: Dict[str, Field] = {}
_SCALARS = (bool, int, float, str, bytes, list, tuple, set, frozenset)


def child(obj: object, name: str, path: str) -> object:
    """``obj[name]`` for a mapping, else ``obj.name``; MISSING when there is none."""
    try:
        if isinstance(obj, Mapping):
            return obj.get(name, MISSING)
        value = getattr(obj, name, MISSING)
        if value is MISSING or callable(value):
            # A pydantic field aliased *name* (a user trial: a field `json` shadows BaseModel.json,
            # so the model calls it `json_columns` with alias="json"): the config's key is the alias.
            field = _aliased(type(obj), name)
            if field is not None:
                return getattr(obj, field, MISSING)
        return value
    except Exception as exc:  # a property that raises is the host's bug, reported as such
        raise ConfigError(_messages.reading_raised(exc), path=path) from None


def _aliased(cls: type, alias: str) -> Optional[str]:
    """The name of the pydantic field of *cls* whose alias is *alias* (None: no such field)."""
    if not hasattr(cls, "__pydantic_fields__"):  # not pydantic: `_introspect` left unimported
        return None
    from ._introspect import _pydantic_fields

    fields = _pydantic_fields(cls)
    if fields is None:
        return None
    return next((name for name, info in fields.items() if getattr(info, "alias", None) == alias and name != alias), None)


def lacks(config: object, path: str) -> bool:
    """Whether an object on the way to *path* in *config* (an effective config: its own) has
    no attribute for the next part: a path no rule read, which the effective config leaves out
    rather than read as a default or refuse (docs/explanation/effective-config.md). A mapping
    that leaves out a field without default is another matter: such a config is refused, by
    `matrix resolve` and by `effective`, whether or not a rule reads the field."""
    current = config.config if isinstance(config, Effective) else config
    prefix = ""
    for part in path.split("."):
        prefix = part if not prefix else f"{prefix}.{part}"
        value = child(current, part, prefix)
        if value is MISSING:
            return not isinstance(current, Mapping)
        if value is None:
            return False
        current = value
    return False


class _ViewRead(Exception):
    """Raised by attribute access on an `Effective` view: the compiled fast readers then fall
    through to the general reader, which reads a view as one."""


class Effective:
    """A read-only view of a config with some paths set (by adjustments): a set path reads as
    set; a path below a section set to None reads as below a None section; everything else
    reads through to the config.

    *known*, where given, remembers what the config itself holds, by path, as it is read through
    the view (a resolution seeds it with the values the compiled plan read: `matrix.resolver`):
    one resolution reads the same paths again and again, stage by stage, rule by rule, on a
    config that does not change meanwhile, and each read through is then one look-up. Only a
    resolution's own views share one: it holds values read with one schema and one *facts*."""

    __slots__ = ("config", "sets", "known")

    config: object
    sets: Dict[str, object]
    known: Optional[Dict[str, object]]

    def __init__(self, config: object, sets: Optional[Dict[str, object]] = None,
                 known: Optional[Dict[str, object]] = None) -> None:
        object.__setattr__(self, "config", config)
        object.__setattr__(self, "sets", {} if sets is None else sets)
        object.__setattr__(self, "known", known)

    def __getattr__(self, name: str) -> object:
        raise _ViewRead(name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("An effective config is read-only")

    def reader(self, schema: Optional[Schema], facts: Optional[Mapping[str, object]]) -> Callable[[str], object]:
        """``read(self, path, schema, facts)`` as a function of *path*: the same answers, in
        fewer steps where the view remembers what the config holds."""
        known = self.known
        if known is None:
            return lambda path: read(self, path, schema, facts)
        sets = self.sets
        derivations = schema.derivations if schema is not None and schema.derivations else None

        def at(path: str) -> object:
            if path in sets:  # never a derived field nor one read as given: an adjustment sets neither
                return sets[path]
            if derivations is not None and path in derivations or path.startswith(GIVEN):
                return read(self, path, schema, facts)
            return self.read(path, schema, facts)

        return at

    def read(self, path: str, schema: Optional[Schema], facts: Optional[Mapping[str, object]]) -> object:
        sets = self.sets
        if path in sets:
            return sets[path]
        if sets:
            end = path.rfind(".")
            while end > 0:
                section = path[:end]
                if section in sets and sets[section] is None:
                    return None
                end = path.rfind(".", 0, end)
        known = self.known
        if known is None:
            return read(self.config, path, schema, facts)
        value = known.get(path, MISSING)
        if value is MISSING:
            value = known[path] = read(self.config, path, schema, facts)
        return value


def read(config: object, path: str, schema: Optional[Schema],  # noqa: C901 — the general reader, one loop over the parts: a helper call per read is what the fast path avoids
         facts: Optional[Mapping[str, object]] = None) -> object:
    """The value at *path* in *config* (or *facts*), checked against *schema* when there is one;
    ``given.PATH`` is PATH in the config as given (an effective config's own: `matrix._given`)."""
    if path.startswith(GIVEN):
        return read(config.config if isinstance(config, Effective) else config, path[len(GIVEN):], schema, facts)
    if schema is not None and schema.derivations and path in schema.derivations:
        # A derived field is computed, never read (a message template may name one), from the
        # values as read here (an effective config's, adjusted).
        from ._derive import value as derived

        return derived(schema.derivations[path], lambda p: read(config, p, schema, facts))
    if isinstance(config, Effective):
        return config.read(path, schema, facts)
    fields = schema.fields if schema else _EMPTY
    if facts is not None and path in facts:
        field = fields.get(path)
        if field is not None and field.fact:  # a fact given wins over what the config holds, above it too
            return check(field, facts[path])
    parts = path.split(".")
    current = config
    prefix = ""
    for index, part in enumerate(parts):
        parent = prefix
        prefix = part if not prefix else f"{prefix}.{part}"
        field = fields.get(prefix)
        if field is not None and field.fact and facts is not None and prefix in facts:
            value = facts[prefix]
        else:
            value = child(current, part, prefix)
        last = index == len(parts) - 1
        if value is MISSING:
            if isinstance(current, Mapping):
                # A flat {"a.b": …} may be meant for what is missing here: refused, not ignored.
                # (Where every key read is present it cannot change the answer; the compiled
                # fast path scans on a miss too.)
                if fields:
                    dotted_key(current, parent, fields)
            elif field is not None and not field.fact and not field.gone:
                raise ConfigError(_messages.missing_attribute(
                    type(current).__name__, part, attribute_names(current)), path=prefix)
            if field is not None and field.has_default:
                value = field.default
            elif field is not None and field.type == "section" and not field.nullable:
                # A section that is always there but was left out: its fields take defaults.
                value = _EMPTY
            else:
                raise ConfigError(_messages.missing_value(), path=prefix)
            if last:
                return value
        elif field is not None:
            value = check(field, value)
        if value is None:
            return None
        if not last:
            current = value
    return value


def dotted_key(mapping: Mapping[object, object], prefix: str, fields: Mapping[str, Field]) -> None:
    """Raise a `ConfigError` for a key with a dot at a level where the schema declares fields."""
    if prefix and prefix not in fields:
        return
    for key in mapping:
        if isinstance(key, str) and "." in key:
            path = f"{prefix}.{key}" if prefix else key
            raise ConfigError(_messages.dotted_key(key), path=path)


def attribute_names(obj: object) -> List[str]:
    """The public attribute names of *obj*, for "did you mean" (its fields when it has them)."""
    for names in (getattr(type(obj), "__dataclass_fields__", None),
                  getattr(type(obj), "__attrs_attrs__", None),
                  getattr(type(obj), "model_fields", None)):
        if names:
            return [getattr(n, "name", n) for n in names]
    try:
        return [n for n in dir(obj) if not n.startswith("_")]
    except Exception:  # a hostile __dir__ only costs the hint
        return []


def unknown_keys(config: object, schema: Schema) -> List[Tuple[str, str]]:
    """``(path, reason)`` for every mapping key of *config* that the schema does not declare, at
    every level where the schema declares fields (objects' attributes are not listed), in the
    config's order (a section's keys where the section is written: a user trial's first key was
    said second, sorted); a key with a dot in it is reported as such, whether or not it spells
    a declared path."""
    children: Dict[str, Dict[str, Field]] = {}
    for field in schema:
        parent, _, name = field.path.rpartition(".")
        children.setdefault(parent, {})[name] = field
    found: List[Tuple[str, str]] = []

    def walk(value: object, prefix: str) -> None:
        known = children.get(prefix)
        if not known:
            return
        if isinstance(value, Mapping):
            for key in value:
                field = known.get(key) if isinstance(key, str) else None
                if field is not None:
                    if field.type == "section":
                        within(value, field)
                    continue
                path = f"{prefix}.{key}" if prefix else str(key)
                if isinstance(key, str) and "." in key:  # not undeclared, but misplaced: say so
                    found.append((path, _messages.dotted_key(key)))
                elif schema.derivations and any(d == path or d.startswith(f"{path}.") for d in schema.derivations):
                    # declared, but computed: a derived field (or a section of them, not a field)
                    found.append((path, _messages.derived_given(
                        [d for d in schema.derivations if d.startswith(f"{path}.")])))
                else:  # the whole path, as the person will write it
                    found.append((path, _messages.unknown_key(path, [f.path for f in known.values()])))
            return
        for field in known.values():
            if field.type == "section":
                within(value, field)

    def within(value: object, field: Field) -> None:
        name = field.path.rpartition(".")[2]
        try:
            inner = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
        except Exception:
            return
        if inner is not None and not isinstance(inner, _SCALARS):
            walk(inner, field.path)

    walk(config, "")
    return found


def with_others(first: ConfigError, config: object, paths: Sequence[str], readers: Mapping[str, str],
                schema: Optional[Schema], facts: Optional[Mapping[str, object]]) -> ConfigError:
    """*first*, the first bad value read, with the other bad values of *config* among *paths*
    (each read, ``given.PATH`` at PATH, with the feature *readers* names) in its ``others``, in
    the order of ``[config]``: a value below one already said (a section that is not one) is
    not said again. Only on the way to an error: the compiled reader stops at the first."""
    from ._given import base

    said = [first.path]
    found: List[ConfigError] = []
    for path in paths:
        try:
            read(config, path, schema, facts)
        except ConfigError as error:
            if any(error.path == p or error.path.startswith(p + ".") or p.startswith(error.path + ".") for p in said):
                continue
            read_at = base(path) or path
            if error.feature is None and (error.path == read_at or read_at.startswith(error.path + ".")):
                error.feature = readers.get(path)
            said.append(error.path)
            found.append(error)
    order = {f.path: i for i, f in enumerate(schema or ())}
    first.others = tuple(sorted(found, key=lambda e: order.get(e.path, len(order))))
    return first


def check_facts(facts: object, schema: Optional[Schema]) -> None:
    """Raise unless *facts* is a mapping whose keys are all facts the schema declares: the first
    key that is not, with every other in its ``others``, in the order of *facts*."""
    if not isinstance(facts, Mapping):
        raise UsageError(_messages.facts_not_a_mapping(facts))
    fields = schema.fields if schema else _EMPTY
    declared = [p for p, f in fields.items() if f.fact and f.type != "section"]
    found = []
    for key in facts:
        field = fields.get(key) if isinstance(key, str) else None
        if field is None or not field.fact or field.type == "section":
            found.append(ConfigError(_messages.not_a_fact(key, declared), path=str(key)))
    if found:
        found[0].others = tuple(found[1:])
        raise found[0]


def check(field: Field, value: object) -> object:  # noqa: C901 — one branch per FIELD_TYPES entry, each that type's whole rule, read as one table
    """*value* as the evaluator sees it, or a `ConfigError` if *field* does not allow it."""
    path = field.path
    if value is None:
        if field.nullable:
            return None
        raise ConfigError(_messages.not_nullable_value(), path=path)
    kind = field.type
    if kind == "section":
        if isinstance(value, _SCALARS):
            raise ConfigError(_messages.wrong_type("a section", value), path=path)
        return value
    if kind == "bool":
        if type(value) is not bool:
            raise ConfigError(_messages.not_a_bool(value), path=path)
        return value
    if kind == "int":
        value = _enum_value(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ConfigError(_messages.wrong_type("int", value), path=path)
        return _bounded(field, value)
    if kind == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise ConfigError(_messages.wrong_type("float", value), path=path)
        if value != value:  # NaN: every comparison with it is False, so no gate could read it
            raise ConfigError(_messages.nan_value(), path=path)
        return _bounded(field, value)
    if kind == "str":
        member = value if isinstance(value, enum.Enum) else None
        value = _enum_name(value)
        if field.classes and isinstance(value, type):
            value = qualified_name(value)
        if not isinstance(value, str):
            raise ConfigError(_messages.wrong_type("str", value), path=path)
        if field.choices is not None and value not in field.choices:
            raise ConfigError(field.refused.get(value) or _messages.not_in_choices(value, field.choices, member),
                              path=path)
        return value
    if kind == "version":
        version = to_version(value)
        if version is not None:
            return version
        if isinstance(value, str):
            raise ConfigError(_messages.invalid_version(value), path=path)
        raise ConfigError(_messages.wrong_type("version", value), path=path)
    # list[str], list[int]
    if not isinstance(value, (list, tuple)):
        raise ConfigError(_messages.wrong_type(kind, value), path=path)
    item_type = str if kind == "list[str]" else int
    if field.classes and any(isinstance(item, type) for item in value):
        value = [qualified_name(item) if isinstance(item, type) else item for item in value]
    for item in value:
        if type(item) is not item_type and not (
            item_type is str and isinstance(item, str)
        ):
            raise ConfigError(_messages.wrong_type(f"{kind} items of type {item_type.__name__}", item), path=path)
    return tuple(value)


def qualified_name(cls: type) -> str:
    """How a class reads where a field takes names (``classes = true``): ``module.Qualname``."""
    return f"{cls.__module__}.{cls.__qualname__}"


def _bounded(field: Field, value: Any) -> Any:
    if field.choices is not None and value not in field.choices:
        raise ConfigError(field.refused.get(value) or _messages.not_in_choices(value, field.choices), path=field.path)
    if field.min is not None and value < field.min:
        raise ConfigError(_messages.below_min(value, field.min), path=field.path)
    if field.max is not None and value > field.max:
        raise ConfigError(_messages.above_max(value, field.max), path=field.path)
    return value


def _enum_name(value: object) -> object:
    if isinstance(value, enum.Enum):
        return value.value if isinstance(value, str) else value.name
    return value


def _enum_value(value: object) -> object:
    if isinstance(value, enum.IntEnum):
        return int(value)
    return value
