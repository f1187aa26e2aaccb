"""Which overlay operation an answer depends on (issue 31, "origin everywhere"): the words
`matrix.resolver.Resolution.explanation` and ``explain()`` add beside a runner whose candidacy
or priority an overlay set, and beside a blocker whose cell an overlay set, each naming the
overlay, its file:line and its reason. Upstream's own matrix has no overlay: nothing is added."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from . import _messages

if TYPE_CHECKING:  # pragma: no cover
    from packaging.version import Version

    from ._overlay import Operation
    from .schema import Feature, Matrix


def _said(verb: str, op: Operation) -> str:
    return _messages.overlay_origin(verb, str(op.overlay), f"{op.file}:{op.line}", op.why, op.link)


def _live(matrix: Matrix) -> List[Operation]:
    overlay = matrix.overlay
    return [] if overlay is None else [o for o in overlay.operations if not (o.dangling or o.noop)]


def runner(matrix: Matrix, id: str) -> List[str]:
    """What the overlays did to runner *id*'s place in automatic choice, in the order they apply:
    an owned choice ranks the runners of its order (each keeps its own candidacy) and removes
    the others; a change removes it (`Operation.removes`) or sets its candidacy."""
    out: List[str] = []
    for op in _live(matrix):
        if op.kind == "own-choice":
            out.append(_said("removed from choice" if id in op.removes else "ranked", op))
        elif op.kind == "change-runner" and op.target == id:
            if "candidate" in op.keys:
                out.append(_said("removed from choice" if id in op.removes else "candidacy set", op))
            if "priority" in op.keys:
                out.append(_said("priority set", op))
        elif op.kind == "add-runner" and op.target == id:
            out.append(_said("added", op))
    return out


def cell(matrix: Matrix, feature: str, runner: str, verb: str, version: Optional[Version] = None) -> Optional[str]:
    """The last operation that set *feature*'s cell for *runner* (or added the feature, or added
    the runner ``from`` another: its cells are copied from that runner's, except where the
    feature forces that runner), said with *verb* (``blocked``, ``lifted``); at *version*, a
    statement appended from a later ``since`` has not set it (`Operation.sets_cell`)."""
    found: Optional[str] = None
    for op in _live(matrix):
        if op.kind == "add-runner" and op.target == runner and op.copies is not None:
            forces = matrix.feature(feature).forces if feature in _ids(matrix) else None
            found = _said(verb if forces is not None and forces.runner == op.copies
                          else _messages.overlay_copied_from(op.copies), op)
        kind = _kind(feature, runner)
        if op.kind == "change-runner" and op.target == runner and kind is not None and f"requires.{kind}" in op.keys:
            found = _said(verb, op)  # a requirement of the runner the overlay set (its gate RUNNER:KIND[:N])
        if op.kind == "change-requirement" and _kind(feature, "*") == op.target:
            found = _said(verb, op)  # a matrix-wide requirement the overlay set (its gate *:KIND[:N])
        if op.target != feature:
            continue
        if op.kind == "change-feature" and op.sets_cell(runner, version):
            found = _said(verb, op)
        elif op.kind == "add-feature":
            found = _said("added", op)
    return found


def _kind(gate: str, runner: str) -> Optional[str]:
    """The requirement kind of *runner*'s gate *gate* (``RUNNER:KIND``, ``RUNNER:KIND:N``), else None."""
    owner, _, rest = gate.partition(":")
    return rest.partition(":")[0] if owner == runner and rest else None


def _ids(matrix: Matrix) -> List[str]:
    return [f.id for f in matrix.features]


def of_runner(matrix: Matrix, id: str, serves: Sequence[Feature],
              version: Optional[Version] = None) -> Dict[str, List[str]]:
    """``{"origin": […]}`` for a runner entry of the explanation of a composed matrix, else ``{}``
    (upstream's explanation keeps its keys): its place in choice, then each active feature it
    *serves* whose cell an overlay set ("FEATURE: lifted by …")."""
    if matrix.overlay is None:
        return {}
    cells = [(f.name, cell(matrix, f.id, id, "lifted", version)) for f in serves]
    return {"origin": [*runner(matrix, id), *(f"{name}: {said}" for name, said in cells if said is not None)]}


def blocker(matrix: Matrix, feature: str, runner: str, version: Optional[Version] = None) -> Dict[str, Optional[str]]:
    """``{"origin": …}`` for a blocker of the explanation of a composed matrix, else ``{}``."""
    return {} if matrix.overlay is None else {"origin": cell(matrix, feature, runner, "blocked", version)}


def adjustment(matrix: Matrix, id: str, runner: Optional[str]) -> Dict[str, str]:
    """``{"origin": …}`` for an adjustment of the explanation of a composed matrix, applied for
    *runner* (None: before the choice), that an overlay added or changed, or that *runner* got
    by being made ``from`` a runner it names ("copied from R by overlay …", as its cells say):
    the last operation that did, else ``{}``."""
    found: Optional[str] = None
    for op in _live(matrix):
        if op.kind in ("add-adjustment", "change-adjustment") and op.target == id:
            found = _said(_messages.overlay_adjustment_origin(op.kind == "add-adjustment"), op)
        elif op.kind == "add-runner" and op.target == runner and id in op.adjusted:
            found = _said(_messages.overlay_copied_from(str(op.copies)), op)
    return {} if found is None else {"origin": found}


def removed(matrix: Matrix, id: str) -> Optional[str]:
    """"removed from choice by overlay 'NAME': WHY" when the last operation that set runner
    *id*'s candidacy removed it from choice (``choice = false``, or an owned choice that leaves
    it out), else None: what a runner out of choice is said as, instead of "a candidate when
    False" (no config satisfies False)."""
    candidate = matrix.runner(id).candidate
    if candidate is None or str(candidate) != "False":
        return None
    found: Optional[Operation] = None
    for op in _live(matrix):
        if (op.kind == "own-choice" and id in op.removes) or (
                op.kind in ("change-runner", "add-runner") and op.target == id
                and ("candidate" in op.keys or op.kind == "add-runner")):
            found = op
    if found is None or id not in found.removes:
        return None  # upstream's own candidacy, or a runner an owned choice ranks and keeps
    return _messages.overlay_removed_from_choice(str(found.overlay), found.why)


#: The key of a change of a feature that decides a rule of the report, by the rule's role
#: (``{runner}``: the rule's runner); a rule of another role is decided by the feature's
#: ``when`` and lifecycle, which an overlay does not change.
_DECIDES = {"blocks": "support.{runner}", "forbids": "forces", "overrides": "forces", "prefers": "prefers"}


def deciding(matrix: Matrix, key: Tuple[object, ...], role: str, runner: Optional[str],
             declared: Optional[str], version: Optional[Version] = None) -> Optional[Operation]:
    """The last operation that wrote the rule at *key* (a place of features.toml, or of runner
    *declared*'s file) as the report's rule of *role* on *runner* reads it, at *version*, or
    None: upstream's own (`matrix._report` then points at upstream's file, not the overlay's)."""
    found: Optional[Operation] = None
    for op in _live(matrix):
        if declared is not None:
            if op.kind == "own-choice" and key == ("candidate",) and declared in op.removes:
                found = op
            elif op.target == declared and op.kind in ("add-runner", "change-runner") and (
                    (op.kind == "add-runner" and op.copies is None) or key[:1] and (
                        key[0] in op.keys or ".".join(map(str, key[:2])) in op.keys)):
                found = op
        elif key[:1] == ("features",) and op.target == key[1]:
            decides = _DECIDES.get(role, "").format(runner=runner)
            if op.kind == "add-feature" or (op.kind == "change-feature" and (
                    op.sets_cell(str(runner), version) if role == "blocks" else decides in op.keys)):
                found = op
        elif key[:1] == ("orders",) and op.kind == "change-order" and op.target == key[1]:
            found = op
        elif key[:1] == ("requires",) and op.kind == "change-requirement" and op.target == key[1]:
            found = op
        elif key[:1] == ("adjustments",) and op.kind in ("add-adjustment", "change-adjustment") and op.target == key[1]:
            found = op
    return found


def upstream_runner(matrix: Matrix, id: str) -> str:
    """The upstream runner whose file holds what runner *id* does not write itself: *id*, or the
    runner an added one is made from (``from``), followed through every overlay of a chain."""
    for op in reversed(_live(matrix)):
        if op.kind == "add-runner" and op.target == id and op.copies is not None:
            return upstream_runner(matrix, op.copies)
    return id
