"""The ``[config]`` table: each field's declaration (type, choices, bounds, default and its
history, since/until), the sections its dotted paths imply, and the facts they inherit."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

import attrs
from packaging.version import Version

from . import _access, _format, _messages
from ._given import RESERVED_ROOTS
from .errors import ConfigError, excerpt
from .schema import FIELD_TYPES, NOTHING, Field, Schema, Window, window_text

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source

_NUMERIC = frozenset({"int", "float"})


def schema(b: _Builder, source: _Source, raw: object) -> Schema:
    if not isinstance(raw, dict):
        b.problem(source, ("config",), b.shapes.expected("a table", raw).args[0])
        return Schema({})
    declared: Dict[str, Field] = {}
    for path, value in raw.items():
        field = _field(b, source, path, value)
        if field is not None:
            declared[path] = field
        else:
            # Reported already: predicates that read it are not told it is unknown too.
            b.broken.add(path)
    sources = {p: f.derive for p, f in declared.items() if isinstance(f.derive, str)}
    derivations: Dict[str, Field] = {}
    if sources:
        from . import _load_derive

        declared = {p: f for p, f in declared.items() if p not in sources}
        derivations, problems = _load_derive.expressions(declared, sources)
        for path, error in problems:
            where = ("config", path, "derive")
            at = source.locations.in_string(where, error.span[0]) if source.text else None
            b.problem(source, where, error.message, at=at,
                      detail=excerpt(error.source, error.span, opened=error.opened))
            b.broken.add(path)
    fields: Dict[str, Field] = {}
    for path, field in declared.items():
        parts = path.split(".")
        for end in range(1, len(parts)):
            prefix = ".".join(parts[:end])
            parent = declared.get(prefix)
            if parent is None:
                fields.setdefault(prefix, Field(prefix, "section", implied=True))
            elif parent.type != "section":
                b.problem(source, ("config", path),
                          _messages.not_a_section(prefix, parent.type, path))
        fields[path] = field
    return Schema(_facts_inherited(fields), derivations)


def _field(b: _Builder, source: _Source, path: str, raw: object) -> Optional[Field]:  # noqa: C901 — every rule of one [config] entry, each problem collected in the order the entry is read
    where = ("config", path)
    if not _format.PATH_RE.match(path):
        b.problem(source, where, _messages.bad_config_path(path))
        return None
    if not _format.FIELD_PATH_RE.match(path):
        b.problem(source, where, _messages.underscore_segment(next(p for p in path.split(".") if p.startswith("_"))))
        return None
    root = path.split(".")[0]
    if root in RESERVED_ROOTS:
        b.problem(source, where, _messages.reserved_root(path, root, RESERVED_ROOTS[root]))
        return None
    if isinstance(raw, str):
        raw = {"type": raw}
    spec, bad = b.shaped(source, raw, b.shapes.FieldSpec, where)
    if spec is None:
        return None
    if spec.type not in FIELD_TYPES:
        b.problem(source, where + ("type",), _messages.unknown_type(spec.type, FIELD_TYPES))
        return None
    if spec.derive is not None:
        return _derived(b, source, where, path, spec)
    kind = spec.type
    choices: Optional[Tuple[object, ...]] = None
    choice_windows: Dict[object, Window] = {}
    ok = True
    if spec.choices is not None:
        read = None
        if kind not in CHOOSABLE:
            b.problem(source, where + ("choices",), _messages.no_choices_for(kind))
        elif not spec.choices:
            b.problem(source, where + ("choices",), _messages.empty_choices())
        else:
            read = choices_read(b, source, where + ("choices",), spec.choices, Field(path, kind))
            written = values_written(spec.choices)
            if len(set(map(repr, written))) != len(written):
                b.problem(source, where + ("choices",), _messages.repeated_choices())
                read = None
        if read is None:
            ok = False
        else:
            choices, choice_windows = read
    for bound in ("min", "max"):
        value = getattr(spec, bound)
        if value is None:
            continue
        if kind not in _NUMERIC:
            b.problem(source, where + (bound,), _messages.no_bound_for(bound, kind))
            ok = False
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            b.problem(source, where + (bound,), _messages.not_a_number(value))
            ok = False
    if ok and spec.min is not None and spec.max is not None and spec.min > spec.max:
        b.problem(source, where + ("max",), _messages.max_below_min(spec.max, spec.min))
        ok = False
    if spec.classes and kind not in ("str", "list[str]"):
        b.problem(source, where + ("classes",), _messages.classes_for(kind))
        ok = False
    window = b.window(source, where, spec.since, spec.until)
    if not ok or window is None:
        return None
    field = Field(path, kind, nullable=spec.nullable, choices=choices,
                  min=spec.min, max=spec.max, doc=spec.doc)
    default = spec.default
    defaults: Tuple[Tuple[Optional[Version], object], ...] = ()
    if default is not NOTHING and kind == "section":
        b.problem(source, where + ("default",), _messages.section_default())
        return None
    if isinstance(default, list) and any(isinstance(item, dict) for item in default):
        history = _default_history(b, source, where + ("default",), field, default)
        if history is None:
            return None
        defaults = history
        history_field = Field(path, kind, nullable=spec.nullable, defaults=defaults)
        default = history_field.default_at(b.matrix_version) if b.matrix_version is not None else defaults[-1][1]
    elif default is not NOTHING:
        try:
            default = _default(field, default)
        except ConfigError as exc:
            b.problem(source, where + ("default",), _messages.default_misfit(spec.default, exc.reason))
            return None
    elif spec.nullable:
        default = None
    if choice_windows and not _defaults_are_choices(b, source, where, choice_windows, default, defaults):
        return None
    return Field(path, kind, nullable=spec.nullable, default=default, choices=choices,
                 min=spec.min, max=spec.max, doc=spec.doc, fact=spec.fact, since=window[0], until=window[1],
                 choice_windows=choice_windows, defaults=defaults,
                 classes=spec.classes)


def _derived(b: _Builder, source: _Source, where: Place, path: str, spec: Any) -> Optional[Field]:
    """A derived field: an int, with no key that says how a config holds it (its expression is
    parsed once every field is declared: `matrix._load_derive.expressions`)."""
    if spec.type != "int":
        b.problem(source, where + ("type",), _messages.derive_type(spec.type))
        return None
    given = [key for key, unset in (("nullable", False), ("default", NOTHING), ("choices", None), ("min", None),
                                    ("max", None), ("fact", False), ("since", None), ("until", None),
                                    ("classes", False)) if getattr(spec, key) is not unset and getattr(spec, key) != unset]
    if given:
        b.problem(source, where + (given[0],), _messages.derive_keys(given))
        return None
    return Field(path, "int", doc=spec.doc, derive=spec.derive)


def _defaults_are_choices(b: _Builder, source: _Source, where: Place, windows: Mapping[object, Window],
                          default: object, defaults: Tuple[Tuple[Optional[Version], object], ...]) -> bool:
    """A default is a choice wherever it is the default: a choice with a window (``since`` /
    ``until``) is the default only inside it (a default with a history moves off it in time)."""
    spans = [(since, defaults[i + 1][0] if i + 1 < len(defaults) else None, value)
             for i, (since, value) in enumerate(defaults)] if defaults else [(None, None, default)]
    for since, until, value in spans:
        if value not in windows:
            continue
        first, last = windows[value]
        if (first is not None and (since is None or since < first)) or (last is not None and (until is None or until > last)):
            b.problem(source, where + ("default",), _messages.default_outside_choice(value, window_text((first, last)),
                                                                                     window_text((since, until))))
            return False
    return True


def _default(field: Field, value: object) -> object:
    return _access.check(field, tuple(value) if isinstance(value, list) else value)


def _default_history(b: _Builder, source: _Source, where: Place, field: Field,
                     raw: List[object]) -> Optional[Tuple[Tuple[Optional[Version], object], ...]]:
    """``default = [{ value = 4 }, { value = 8, since = "3.0" }]``: the default's history,
    oldest first; None (said) when it is malformed."""
    history: List[Tuple[Optional[Version], object]] = []
    ok = True
    for index, entry in enumerate(raw):
        at = where + (index,)
        unknown = sorted(set(entry) - {"value", "since"}) if isinstance(entry, dict) else []
        if not isinstance(entry, dict) or unknown or "value" not in entry:
            b.problem(source, at + ((unknown[0],) if unknown else ()),
                      _messages.default_entry(unknown[0] if unknown else None))
            ok = False
            continue
        since: Optional[Version] = None
        if "since" in entry:
            if not isinstance(entry["since"], str):
                b.problem(source, at + ("since",), _messages.invalid_version(entry["since"]))
                ok = False
                continue
            since = b.version(source, at + ("since",), entry["since"])
            if since is None:
                ok = False
                continue
        try:
            value = _default(field, entry["value"])
        except ConfigError as exc:
            b.problem(source, at + ("value",), _messages.default_misfit(entry["value"], exc.reason))
            ok = False
            continue
        if history and since is None:
            b.problem(source, at, _messages.since_left_out())
            ok = False
            continue
        previous = history[-1][0] if history else None
        if previous is not None and since is not None and since <= previous:
            b.problem(source, at + ("since",), _messages.history_order(since, history[-1][0]))
            ok = False
            continue
        history.append((since, value))
    return tuple(history) if ok else None


#: The field types that take choices.
CHOOSABLE = ("str", "int", "float")


def choices_read(b: _Builder, source: _Source, at: Place, raw: Sequence[object],
                 field: Field) -> Optional[Tuple[Tuple[object, ...], Dict[object, Window]]]:
    """The choices *raw* of *field* (its path and type), each a value or ``{ value = …, since =
    …, until = … }``, each said at *at* and its index (a ``[config]`` entry's ``choices[i]``, an
    overlay's ``add_choices[i]``): their values and the windows of those that exist only from or
    until a version. None when one is malformed or does not fit the field's type (each said)."""
    values: List[object] = []
    windows: Dict[object, Window] = {}
    ok = True
    for index, choice in enumerate(raw):
        where = at + (index,)
        window: Window = (None, None)
        if isinstance(choice, dict):
            unknown = sorted(set(choice) - {a.name for a in attrs.fields(b.shapes.ChoiceSpec)})
            if unknown or "value" not in choice:
                b.problem(source, where + ((unknown[0],) if unknown else ()),
                          _messages.choice_table(unknown[0] if unknown else None))
                ok = False
                continue
            since, until = choice.get("since"), choice.get("until")
            if not all(v is None or isinstance(v, str) for v in (since, until)):
                b.problem(source, where, _messages.choice_table(None))
                ok = False
                continue
            read = b.window(source, where, since, until)
            if read is None:
                ok = False
                continue
            window = read
        value = value_of(choice)
        try:
            _access.check(field, value)
        except ConfigError:
            b.problem(source, where, _messages.choice_misfit(value, field.type))
            ok = False
            continue
        values.append(value)
        if window != (None, None):
            windows[value] = window
    return (tuple(values), windows) if ok else None


def value_of(choice: object) -> object:
    """A choice's value: itself, or a ``{ value, since, until }`` table's ``value``."""
    return choice.get("value") if isinstance(choice, dict) else choice


def values_written(raw: Sequence[object]) -> List[object]:
    """The values of the choices *raw* as written, to compare them: a table without a value
    (malformed, said by `choices_read`) has none."""
    return [value_of(c) for c in raw if not (isinstance(c, dict) and "value" not in c)]


def _facts_inherited(fields: Dict[str, Field]) -> Dict[str, Field]:
    """Every field below a fact section is a fact; a section, implied or declared, is one when
    every field below it is (the host supplies all of it: vLLM's ``platform``; a user trial's
    declared ``net``, which its config object did not have, was refused with the fact given)."""
    out = dict(fields)
    for path, field in fields.items():
        if not field.fact and not field.implied:
            parts = path.split(".")
            if any(fields[".".join(parts[:end])].fact for end in range(1, len(parts))):
                out[path] = attrs.evolve(field, fact=True)
    for path, field in fields.items():
        if field.type == "section" and not field.fact:
            below = [f for p, f in out.items() if p.startswith(path + ".") and f.type != "section"]
            if below and all(f.fact for f in below):
                out[path] = attrs.evolve(field, fact=True)
    return out
