"""Adjustments: declared changes of config values, and the effective configuration.

An adjustment (``[adjustments.<id>]`` in features.toml, `matrix.schema.Adjustment`) sets one
or more paths where its ``when`` holds. A config is resolved in this order:

1. The adjustments that name no runner apply first, in declaration order, each ``when``
   reading the values the ones before it set. This gives the *config of choice*, C.
2. Removal, deprecation warnings and the choice (automatic, or the runner asked for, with
   ``forces``) are decided on C.
3. The adjustments of the runner that serves, R (those whose ``runners`` list R), then apply
   to C, in declaration order: the *effective config*, F.
4. R's blockers (for a request, the gates it says ``no`` to; in automatic choice, its blocking
   gates), its requirements and its ``partial`` / ``opt-in`` warnings are evaluated on F: a
   runner asked for is validated on F only. In automatic choice R was chosen because it was
   free on C; when it is blocked on F, resolve raises `AdjustmentError`, naming the
   adjustments and what then blocks R.
   Where automatic choice finds no runner free on C and an active feature forces a candidate
   (`matrix._choice.forced`: the runner the no-runner error ends on), that runner's
   adjustments apply to C too and are said, as a host that uses the forced runner changes the
   config before it validates it (vLLM); the answer stays `NoRunnerError`, the runner's
   refusal read on C (its F decides nothing: ``matrix check`` says ``forced-freed`` where it
   would serve there).
5. What is said of the other runners (their blockers, fallback warnings, the explanation of
   the choice) reads C; `Resolution.active` and the served runner's statuses read F.

With ``[matrix] stages`` (`matrix._stages`), steps 1 and 3 go stage by stage: before the choice
the adjustments that name no runner at ``choice`` or a stage before it; after it the runner's
own and those that name no runner at a later stage (which apply whatever the runner).

One adjustment, where its ``when`` holds on the config it finds:

- each path of ``set`` takes its value: a constant, or ``{ from = "path" }``, the value that
  other path has on the config as the adjustment found it (all paths of one adjustment are
  set at once, from the values before it), times ``times`` when given (``{ from = "path",
  times = 0.85 }``: Python's product; None stays None);
- with ``override = false``, a path is set only where it reads None (fill only);
- a path below a section that reads None, or that the same adjustment sets to None, is left
  alone (there is nothing to set it on);
- a path whose value would not change is not set, and not reported;
- its message is said where it changes a value; with ``says = "always"``, wherever its
  ``when`` holds, a value changed or not (an adjustment without ``set`` is a notice: it
  changes nothing and says always).

Each path changed is one `Adjusted` record (``Resolution.adjustments``), in order. Its
``overrode_user`` is True when the value before was not None and no earlier adjustment had
set the path: the adjustment replaced a value the config itself held (given by the user, or
the schema's default). Each adjustment that changed a path is one warning of kind
``adjusted`` at the adjustment's level; its text is the ``message`` template filled with the
values the adjustment found (``{dotted.path}``; ``{{`` and ``}}`` are braces:
`matrix._templates`), or one generated sentence per path.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import attrs

from . import _access, _messages
from ._access import Effective
from ._record import Model, Record, _set
from .errors import ConfigError
from .predicates import truth
from .schema import Adjustment, AdjustmentLevel, Field, From, Matrix, Schema

__all__ = ["Adjusted", "Said", "apply", "typed"]


class Said(Record):
    """An adjustment that spoke and changed nothing (``says = "always"``, or a notice: no
    ``set``): its filled message, at its level. `apply` lists it among the `Adjusted` records,
    in order, for the warnings; `Resolution.adjustments` lists the changes only."""

    __slots__ = ("id", "runner", "message", "level")
    id: str
    runner: Optional[str]
    message: str
    level: AdjustmentLevel

    def __init__(self, id: str, runner: Optional[str], message: str, level: AdjustmentLevel) -> None:
        _set(self, "id", id)
        _set(self, "runner", runner)
        _set(self, "message", message)
        _set(self, "level", level)


@attrs.frozen(eq=False, repr=False)
class Adjusted(Model):
    """One path an adjustment changed: ``runner`` is None for an adjustment applied before the
    choice; ``before`` and ``after`` are the values; ``message`` the adjustment's filled
    message; ``overrode_user`` see `matrix._adjust`."""

    id: str
    runner: Optional[str]
    path: str
    before: object
    after: object
    message: str
    level: AdjustmentLevel
    overrode_user: bool


def when_said(matrix: Matrix, change: Adjusted) -> str:
    """When *change*'s adjustment applied, in words (`matrix._messages.adjusted_when`)."""
    adjustment = next(a for a in matrix.adjustments if a.id == change.id)
    return _messages.adjusted_when(change.runner, change.runner in adjustment.runners, adjustment.stage)


def typed(field: Field, value: object) -> object:
    """A constant of features.toml as the config would hold it; `ConfigError` if *field* does
    not allow it."""
    if isinstance(value, float) and field.type == "int":
        raise ConfigError(_messages.wrong_type("int", value), path=field.path)
    return _access.check(field, value)


def _under_none(view: Effective, path: str, schema: Optional[Schema], facts: Optional[Mapping[str, object]]) -> bool:
    parts = path.split(".")
    return any(_access.read(view, ".".join(parts[:end]), schema, facts) is None for end in range(1, len(parts)))


def _copied(value: From, found: object) -> object:
    """What a copy sets: the value *found* at its path, times its ``times`` when given (a number
    the loader checked; None stays None)."""
    if value.times is None or found is None:
        return found
    return found * value.times  # type: ignore[operator]


def apply(adjustments: Sequence[Adjustment], view: Effective, schema: Optional[Schema],
          facts: Optional[Mapping[str, object]], runner: Optional[str],
          roles: Optional[Callable[[Callable[[str], object]], Callable[[str], object]]] = None,
          known: Optional[Callable[[Mapping[str, object], Adjustment, Callable[[str], object]], bool]] = None
          ) -> List[Union[Adjusted, Said]]:
    """Apply *adjustments* in order to *view* (its ``sets`` change in place); what changed, and
    what spoke without a change (`Said`). After the choice, in a matrix with roles, *roles* makes
    the reader of the view one that reads ``role.<id>`` on it as it stands too
    (`matrix._roles.reading`). *known*, given the view's sets, an adjustment and the reader,
    tells whether its ``when`` holds as the compiled plan says it (`Plan.holds`); without it,
    the interpreter reads it (`matrix.predicates.truth`)."""
    out: List[Union[Adjusted, Said]] = []

    plain = view.reader(schema, facts)
    lookup = plain if roles is None else roles(plain)

    sets = view.sets
    for adjustment in adjustments:
        if not (truth(adjustment.when.node, lookup) if known is None else known(sets, adjustment, lookup)):
            continue
        changes: Dict[str, Tuple[object, object]] = {}
        for path, value in adjustment.set.items():
            if _under_none(view, path, schema, facts):
                continue
            before = lookup(path)
            if not adjustment.override and before is not None:
                continue
            after = _copied(value, lookup(value.path)) if isinstance(value, From) else value
            if type(after) is type(before) and after == before:
                continue
            changes[path] = (before, after)
        gone = [p for p, (_, after) in changes.items() if after is None]
        changes = {p: c for p, c in changes.items() if not any(p.startswith(g + ".") for g in gone)}
        if not changes and adjustment.says != "always":
            continue
        if adjustment.message is not None:
            from ._templates import paths_only  # imported for a matrix whose adjustments have a message

            template = paths_only(adjustment.message)
            message = template.fill({}, {p: lookup(p) for p in template.paths})
        else:
            message = "; ".join(_messages.adjusted(adjustment.name, p, b, a) for p, (b, a) in changes.items())
        if not changes:  # says = "always": said wherever it holds, a value changed or not
            out.append(Said(adjustment.id, runner, message, adjustment.level))
            continue
        for path, (before, after) in changes.items():
            out.append(Adjusted(adjustment.id, runner, path, before, after, message, adjustment.level,
                                before is not None and path not in view.sets))
        for path, (_, after) in changes.items():
            if after is None:  # a section set None: what was set below it is gone with it
                for below in [p for p in sets if p.startswith(path + ".")]:
                    del sets[below]
            sets[path] = after
    return out
