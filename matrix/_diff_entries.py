"""Where the entries a finding of ``matrix diff`` names stand (``file:line``), its level where a
removal is concerned (`_classify`), its message, and the ``matrix resolve`` command that
reproduces it (`command`)."""

from __future__ import annotations

import json
import shlex
from typing import Any, List, Mapping, Optional, Tuple

from . import _diff, _diff_requests, _messages

from ._diff_types import Difference, Entry
from ._templates import described
from .schema import Feature, Matrix, Requirement


def _classify(region: _diff.Region, old: _diff.Side, new: _diff.Side) -> str:
    a, b = region.old, region.new
    if region.kind == "automatic":
        if a[0] == "served" and b[0] == "served":
            if a[1] != b[1]:
                return "runner-changed"
            if _diff.warning_kind(a[2]) == _diff.warning_kind(b[2]) == "preference":
                # the same runner by another feature's preference (`matrix._diff.preferred_by`)
                return "preference-changed"
            return f"{_diff.warning_kind(b[2])}-added" if b[2] else f"{_diff.warning_kind(a[2])}-lifted"
        return "served-refused" if a[0] == "served" else "refused-served"
    if region.kind == "asked":
        if a[0] == "served" and b[0] == "served":
            if "redirected" in b[2] and ("redirected" not in a[2] or a[1] != b[1]):
                return "redirect-added"
            if "redirected" in a[2] and "redirected" not in b[2]:
                return "redirect-removed"
            return "request-overridden"
        if a[0] == b[0]:  # refused on both sides, another way (`matrix._diff._same`)
            return "request-refusal-changed"
        return "request-refused" if a[0] == "served" else "request-served"
    added = b[2] == "added"
    if region.kind == "deprecation":
        return "deprecation-started" if added else "deprecation-ended"
    if region.kind == "blocker":
        return "blocker-added" if added else "blocker-lifted"
    if not added:
        return "removal-lifted"
    assert region.feature is not None
    before = old.gate(region.feature)
    # A deprecation period: warned on the old side, or (an upgrade across releases, ``--from-version
    # 1.0 --to-version 1.3``) one the old side's entry declares, started by the new side's version
    # and before its removal (a user trial: a feature deprecated in 1.1 and removed in 1.3 on
    # schedule was "removed-without-deprecation" from 1.0; the releases between warned).
    declared = before.deprecated if before is not None else None
    if before is None or not _diff.deprecated(old, before) and (
            declared is None or declared.without_period or declared.since > new.version):
        return "removed-without-deprecation"
    assert before.deprecated is not None
    remove_in = before.deprecated.remove_in
    return "removed-early" if remove_in is None or new.version < remove_in else "removed"


def _entry(side: _diff.Side, gate: Feature) -> Entry:
    from .schema import Adjustment, Order, Redirect, Requirement, Runner

    matrix = side.matrix
    origin = gate.origin
    if isinstance(origin, Requirement):  # its kind in [requires]: features.toml's, or its runner's file
        place, file, line, column = side.places.requirement(origin)
        return Entry(side.name, place, file, line, column)  # type: ignore[arg-type]
    if isinstance(origin, Adjustment):
        return _located(side, ("adjustments", origin.id))
    if isinstance(origin, Order):  # the [orders.ID] table, not the gate made of it
        return _located(side, ("orders", origin.id))
    if isinstance(origin, Redirect):  # its entry of the runner's redirects
        return _runner_entry(side, origin.runner, ("redirects", origin.index))
    if isinstance(origin, Runner):  # its candidacy
        return _runner_entry(side, origin.id, ("candidate",))
    if origin is not None:
        runner = getattr(origin, "runner", None) or getattr(origin, "id", None)
        if isinstance(runner, str) and runner in {r.id for r in matrix.runners}:
            if matrix.runner(runner).file is not None:
                return _runner_entry(side, runner)
    return _located(side, ("features", gate.id))


def _located(side: _diff.Side, key: Tuple[str, ...]) -> Entry:
    """An entry at *key* on *side*: its line in the side's file (on a composed matrix, the
    overlay's line that wrote it, else upstream's, as ``matrix check`` says it)."""
    file, line, column = side.places.located(key)
    return Entry(side.name, _messages.place(key), file, line, column)  # type: ignore[arg-type]


def _cosmetic_value(value: Any) -> str:
    """A name, note, group or list of links as a reader reads it: quoted, a list as its items,
    none said so (a user trial: ``note None → 'level 3'``, ``links () → ('https://…',)``)."""
    if value is None or value == ():
        return "(none)"
    if isinstance(value, (tuple, list)):
        return ", ".join(repr(v) for v in value)
    return repr(value)


def _runner_entry(side: _diff.Side, runner_id: str, key: Tuple[object, ...] = ()) -> Entry:
    """A runner's entry (*key* in it: its priority, a redirect, its candidacy; none: the runner
    added or removed) where it stands: the key's line of its own file (a user trial found a
    redirect changed cited at line 1), else of its table, else the line of ``[matrix] runners``."""
    from ._locate import Locations

    runner = side.matrix.runner(runner_id)
    place = _messages.place(("runners", runner_id, *key))
    if runner.file is not None:
        found = Locations(runner.text).key(key) if key and runner.text is not None else None
        return Entry(side.name, place, runner.file, *(found or (1, 1)))  # type: ignore[arg-type]
    file, line, column = side.places.located(("runners", runner_id, *key))
    if line is None:
        file, line, column = side.places.located(("matrix", "runners"))
    return Entry(side.name, place, file, line, column)  # type: ignore[arg-type]


def _order_entry(side: _diff.Side) -> Entry:
    line, column = side.places.where(("matrix", "runners"))
    return Entry(side.name, "$.matrix.runners", side.matrix.file, line, column)  # type: ignore[arg-type]


def _message(change_id: str, region: _diff.Region, old: str, new: str, side: _diff.Side,
             before: _diff.Side) -> str:
    if region.kind == "automatic":
        return f"Automatic choice: {old} → {new}"
    if region.kind == "asked":
        assert region.runner is not None
        return f"Asking for {side.matrix.runner(region.runner).name}: {old} → {new}"
    assert region.feature is not None
    gate = side.gate(region.feature) or before.gate(region.feature)  # a gate gone: its old name
    name = gate.name if gate is not None else region.feature
    if gate is not None and isinstance(gate.origin, Requirement):
        name = described(name)  # a reason that says config values, of many configs: by their paths
    if region.kind == "blocker":
        assert region.blocked is not None
        said = f"{side.matrix.runner(region.blocked).name} and {name}: {old} → {new}"
        # A request's (`matrix._diff_requests`), which reads it for the runner asked for.
        return said if region.runner is None else f"Asking for {side.matrix.runner(region.runner).name}: {said}"
    if region.runner is not None:  # a removal a request reads, not automatic choice
        return f"{name}, asking for {side.matrix.runner(region.runner).name}: {old} → {new}"
    return f"{name}: {old} → {new}"


def command(change: Difference, matrix_file: Optional[str], version: str, matrix: Optional[Matrix] = None,
            runner: Optional[str] = None) -> str:
    """The ``matrix resolve`` command that shows the witness on one side (*matrix*, where given:
    a value of a field it does not declare is left out, as the diff reads it there: unset;
    *runner*: the id that side has for the runner asked for, where it differs)."""
    parts = ["matrix", "resolve"]
    if matrix_file:
        parts += ["--matrix", matrix_file]
    parts += ["--version", version]
    if change.runner is not None and (not change.id.startswith("blocker-") or _diff_requests.asked(change)):
        parts += ["--runner", runner or change.runner]
    # A field one side does not declare is the point of its own finding: that side refuses the
    # --set (issue 28: both commands printed the same).
    fields = None if matrix is None or change.id in _DECLARED else matrix.schema.fields
    for path, value in sorted(_flat(change.witness)):
        if fields is not None and path not in fields and not any(f.startswith(path + ".") for f in fields):
            continue  # a field only the other side declares: this side reads its default
        shown = value if isinstance(value, str) else json.dumps(value)
        parts += ["--set", f"{path}={shown}"]
    # What the summary does not print, the output that shows it (issue 28: both commands printed
    # the same): a runner's blockers (--explain), an effective value and the exception kind a
    # refusal raises (--json: a user trial found both commands of a kind change print the same).
    parts += _SHOWN_BY.get(change.id, [])
    return " ".join(shlex.quote(p) for p in parts)


#: The findings of a field one side does not declare (`command`).
_DECLARED = ("config-field-removed", "config-field-added")
#: The flag of ``matrix resolve`` whose output shows what a finding is about (`command`).
_SHOWN_BY = {"blocker-added": ["--explain"], "blocker-lifted": ["--explain"], "adjustment-added": ["--json"],
             "adjustment-removed": ["--json"], "adjustment-changed": ["--json"], "config-default-changed": ["--json"],
             "refusal-kind-changed": ["--json"]}


def _flat(config: Mapping[str, Any], prefix: str = "") -> List[Tuple[str, Any]]:
    out: List[Tuple[str, Any]] = []
    for key, value in config.items():
        if isinstance(value, dict) and value:
            out += _flat(value, f"{prefix}{key}.")
        else:
            out.append((prefix + key, value))
    return out
