"""The ``[adjustments]`` table of features.toml: each entry checked against ``[config]``.

Every value an adjustment sets is typed at load, as a config value would be at resolve time
(`matrix._access.check`), and the paths it sets, copies and names in its message must be
declared for the whole window of the adjustment. See `matrix._adjust` for what they do.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

import attrs

from . import _adjust, _load_roles, _messages
from ._given import ROLE, base
from ._stages import CHOICE
from .errors import ConfigError
from .schema import ADJUSTMENT_LEVELS, ADJUSTMENT_SAYS, Adjustment, AdjustmentSays, Field, From, Runner, Schema, Window, covers, window_text

if TYPE_CHECKING:  # pragma: no cover
    from .loader import _Builder, _Source


def adjustments(builder: _Builder, source: _Source, raw: object, schema: Schema,
                runners: Optional[List[Runner]]) -> List[Adjustment]:
    """The well-formed adjustments of *raw*, in declaration order; each mistake is a problem."""
    known = [r.id for r in runners or ()]
    out = []
    for id, where, spec in builder.entries(source, raw, "adjustments", "Adjustment", builder.shapes.AdjustmentSpec):
        before = len(builder.problems)
        window = builder.window(source, where, spec.since, spec.until)
        late = _load_roles.after_choice(builder, runners=spec.runners, stage=spec.stage)
        # No `when`: wherever it applies (a runner's: wherever that runner serves), as an order without one.
        when = builder.predicate(source, where + ("when",), "True" if spec.when is None else spec.when, schema,
                                 roles=late)
        if spec.level not in ADJUSTMENT_LEVELS:
            builder.problem(source, where + ("level",),
                            _messages.unknown_choice("level", spec.level, ADJUSTMENT_LEVELS, one_of=True))
        for index, runner in enumerate(spec.runners):
            if runners is not None and runner not in known and runner not in builder.broken_runners:
                builder.problem(source, where + ("runners", index), _messages.unknown_runner(runner, known))
        if spec.set is not None and not spec.set:
            builder.problem(source, where + ("set",), _messages.adjustment_empty_set())
        says = _says(builder, source, where, spec)
        if spec.stage is not None:
            _stage(builder, source, where, spec)
        values: Dict[str, object] = {}
        for path, value in (spec.set or {}).items():
            checked = _value(builder, source, where + ("set", path), schema, path, value, window, spec.override)
            if checked is not _BAD:
                values[path] = checked
        if spec.message is not None:
            template = builder.template(source, where + ("message",), spec.message, schema, roles=late)
            for path in template.paths if template is not None else ():
                if schema.derived_field(path) is not None:
                    continue  # computed from fields that the expression's types checked
                field = schema.get(path)
                assert field is not None  # the template's paths are the schema's (given ones too)
                if window is not None and not covers(field.window, window):
                    builder.problem(source, where + ("message",), _messages.adjustment_window(
                        path, window_text(field.window), window_text(window)))
        if len(builder.problems) > before or when is None or window is None:
            continue
        out.append(Adjustment(id, spec.name, when, values, tuple(spec.runners), spec.override, spec.level,
                              spec.message, window[0], window[1], tuple(spec.links), says, spec.stage))
    return out


def _stage(builder: _Builder, source: _Source, where: Sequence[Any], spec: Any) -> None:
    """An adjustment's ``stage`` (issue 30, F6: `matrix._stages`): one of ``[matrix] stages``, and
    for a runner's adjustment ``choice`` or a later one (before the choice no runner serves)."""
    stages = builder.stages
    if not builder.stage(source, (*where, "stage"), spec.stage):
        return
    if spec.runners and CHOICE in stages and stages.index(spec.stage) < stages.index(CHOICE):
        builder.problem(source, (*where, "stage"), _messages.runner_adjustment_before_choice(spec.stage, CHOICE))


_BAD = object()


def _says(builder: _Builder, source: _Source, where: Sequence[Any], spec: Any) -> AdjustmentSays:
    """When the adjustment's message is said (`Adjustment.says`): a notice (no ``set``) changes
    nothing, so it says always; one that says always needs a message (said, else)."""
    if spec.says not in ADJUSTMENT_SAYS:
        builder.problem(source, (*where, "says"), _messages.unknown_choice("says", spec.says, ADJUSTMENT_SAYS,
                                                                           one_of=True))
    says = "always" if spec.set is None else spec.says
    if says == "always" and spec.message is None:
        builder.problem(source, (*where, "message"), _messages.notice_without_message(spec.set is None))
    return "always" if says == "always" else "changes"


def _within(source: Field, target: Field, times: Optional[Union[int, float]]) -> bool:
    """Whether every value *source* allows, times *times* when given, is one *target* allows
    (its choices and bounds). A bounded int source is weighed value by value (up to
    `_ENUMERATED` of them): ``{ from = "n", times = 3 }`` from 0..3 into choices [0, 3, 6, 9]
    is within, though 0..9 is not."""
    values = _values(source)
    if values is not None:
        scaled = [v if v is None or times is None else v * times for v in values]  # type: ignore[operator]  # a number: times is only on int and float fields
        return all(v is None or _allows(target, v) for v in scaled)
    source = source if times is None else _scaled(source, times)
    if target.choices is not None and (source.choices is None or not set(source.choices) <= set(target.choices)):
        return False
    if target.min is not None and (source.min is None or source.min < target.min):
        return False
    return target.max is None or (source.max is not None and source.max <= target.max)


#: A copy's source with at most this many values is weighed value by value (`_within`).
_ENUMERATED = 10_000


def _values(field: Field) -> Optional[List[object]]:
    """Every value *field* allows (its choices, or its ints from min to max), or None when
    there are none to list or too many."""
    if field.choices is not None:
        return list(field.choices)
    if field.type != "int" or field.min is None or field.max is None or field.max - field.min >= _ENUMERATED:
        return None
    return list(range(math.ceil(field.min), math.floor(field.max) + 1))


def _allows(target: Field, value: object) -> bool:
    if target.choices is not None:
        return value in target.choices
    return (target.min is None or value >= target.min) and (target.max is None or value <= target.max)  # type: ignore[operator]


def _times(field: Field, times: object) -> Optional[str]:
    """The problem with ``times`` scaling a copy into *field*, or None: a finite number other
    than 0, into an int or a float field; into an int field an int, so that the product is an
    int as Python computes it, exactly (an int times 0.85 is a float, which an int field refuses)."""
    if isinstance(times, bool) or not isinstance(times, (int, float)):
        return _messages.adjustment_times_not_a_number(times)
    if not math.isfinite(times) or times == 0:
        return _messages.adjustment_times_finite(times)
    if field.type not in ("int", "float"):
        return _messages.adjustment_times_type(field.path, _kind(field))
    if field.type == "int" and not isinstance(times, int):
        return _messages.adjustment_times_int(field.path, times)
    return None


def _scaled(field: Field, times: Union[int, float]) -> Field:
    """*field* as its values times *times* range: its choices and bounds scaled (a negative
    *times* swaps the bounds)."""
    low, high = (None if b is None else b * times for b in (field.min, field.max))
    if times < 0:
        low, high = high, low
    choices = None if field.choices is None else tuple(c * times for c in field.choices)  # type: ignore[operator]
    return attrs.evolve(field, min=low, max=high, choices=choices)


def _kind(field: Field) -> str:
    return f"{'a nullable ' if field.nullable else ''}{field.type}"


def _field(builder: _Builder, source: _Source, where: Sequence[Any], schema: Schema, path: str,
           window: Optional[Window], *, copied: bool = False) -> Optional[Field]:
    """The field at *path*, declared for the whole *window*, that a user may change (or, where
    it is *copied* from, read: a fact too); None (said) otherwise."""
    if path.startswith(ROLE):
        builder.problem(source, tuple(where), _messages.adjustment_role(path))
        return None
    field = schema.get(path)
    if field is None and path in schema.derivations:
        builder.problem(source, tuple(where), _messages.adjustment_derived(path, copied))
        return None
    if field is None:
        if not any(path == b or path.startswith(b + ".") for b in builder.broken):
            builder.problem(source, tuple(where), _messages.unknown_path(path, schema.fields))
        return None
    if field.fact and not copied:
        builder.problem(source, tuple(where), _messages.adjustment_fact(path))
        return None
    if window is not None and not covers(field.window, window):
        builder.problem(source, tuple(where), _messages.adjustment_window(
            path, window_text(field.window), window_text(window)))
        return None
    return field


def _value(builder: _Builder, source: _Source, where: Sequence[Any], schema: Schema, path: str,
           value: object, window: Optional[Window], override: bool) -> object:
    """*value* as the resolver will set it at *path* (a `From`, or the checked constant)."""
    if base(path) is not None:
        builder.problem(source, tuple(where), _messages.adjustment_sets_given(path))
        return _BAD
    field = _field(builder, source, where, schema, path, window)
    if field is None:
        return _BAD
    if not override and not field.nullable:
        builder.problem(source, tuple(where), _messages.adjustment_fill_not_nullable(path))
        return _BAD
    if isinstance(value, dict) and set(value) == {"none"} and value["none"] is True:
        value = None  # TOML has no None: { none = true } stands for it
    elif isinstance(value, dict):
        unknown = sorted(set(value) - {"from", "times"})
        if unknown or not isinstance(value.get("from"), str):
            builder.problem(source, tuple(where), _messages.adjustment_from_table(unknown[0] if unknown else None))
            return _BAD
        times = value.get("times")
        problem = _times(field, times) if "times" in value else None
        if problem is not None:
            builder.problem(source, tuple(where) + ("times",), problem)
            return _BAD
        other = _field(builder, source, tuple(where) + ("from",), schema, value["from"], window, copied=True)
        if other is None:
            return _BAD
        if (other.type, other.item_type) != (field.type, field.item_type) or (other.nullable and not field.nullable):
            builder.problem(source, tuple(where) + ("from",), _messages.adjustment_from_type(
                path, _kind(field), value["from"], _kind(other)))
            return _BAD
        if not _within(other, field, times):
            copied = value["from"] if times is None else f"{value['from']} times {times!r}"
            builder.problem(source, tuple(where) + ("from",), _messages.adjustment_from_range(path, copied))
            return _BAD
        return From(value["from"], times)  # given.PATH stays so: the value as given
    if field.type == "section" and value is not None:
        builder.problem(source, tuple(where), _messages.adjustment_section(path))
        return _BAD
    try:
        checked = _adjust.typed(field, value)
    except ConfigError as error:
        builder.problem(source, tuple(where), _messages.adjustment_value(path, error.reason))
        return _BAD
    if checked is not None and checked in field.choice_windows and window is not None \
            and not covers(field.choice_window(checked), window):
        builder.problem(source, tuple(where), _messages.adjustment_window(
            f"{path} = {checked!r}", window_text(field.choice_window(checked)), window_text(window)))
        return _BAD
    return checked
