"""What the docs say of a composed matrix's overlays (issue 31): which support cells an overlay
set (marked with `SYMBOL` in the support table, the reason in the cell's note), which
requirements (the capability table's cells) and adjustments (the adjustments table's rows) it
set (marked likewise, the reason in the overlay table), and the ``overlay`` table, "What this
platform changes": the overlay's operations alone."""

from __future__ import annotations

import os
from typing import Callable, Dict, Optional, Tuple

import attrs
from packaging.version import Version

from . import _messages
from ._versions import parsed
from .schema import WIDE, Matrix

#: The mark beside a cell an overlay set (its words: `matrix._messages.OVERLAY_MARK_WORD`,
#: ``OVERLAY_MARK_MEANING``; each kind of operation as the table says it: ``OVERLAY_KINDS``).
SYMBOL = "🧩"


@attrs.frozen
class OverlayRow:
    """One operation of the overlays a matrix was composed by, as the table shows it."""

    overlay: str
    kind: str  # `matrix._overlay.Operation.kind` (the table says `matrix._messages.OVERLAY_KINDS`' words)
    target: str
    keys: Tuple[str, ...]
    why: str
    link: Optional[str]
    place: str  # FILE:LINE
    state: str  # "", or `matrix._messages.OVERLAY_STATE_NOOP` / ``OVERLAY_STATE_DANGLING``


def cells_set(matrix: Matrix, version: Optional[Version] = None
              ) -> Dict[Tuple[str, str], Tuple[str, Optional[str], Optional[Version]]]:
    """``(feature id, runner id) → (overlay name, words)`` of each support cell an overlay set,
    as of *version* (`Operation.sets_cell`), by the last operation that set it: a change of the
    feature's cell (replaced, or a statement appended from a ``since`` by *version*), adding the
    feature, or adding a runner ``from`` another (each cell it copied). *words* is what the cell's note must
    add, None where the cell's own note says it already (a change's or an added feature's
    "set by …"): a copied cell's "copied from V2 by overlay 'NAME': WHY (LINK)", or where the
    feature forces that runner (the copy says no), the overlay's "set by …". The version: the
    words end the notes of the statements before it only (None: of every statement), those of a
    copied cell a statement was appended to since (the appended statement has its own words)."""
    overlay = matrix.overlay
    out: Dict[Tuple[str, str], Tuple[str, Optional[str], Optional[Version]]] = {}
    if overlay is None:
        return out
    runners = [r.id for r in matrix.runners]
    features = {f.id: f for f in matrix.features}
    for op in overlay.operations:
        if op.dangling or op.noop:
            continue
        name = str(op.overlay)
        if op.kind == "change-feature":
            for r in runners:
                if not op.sets_cell(r, version):
                    continue
                _, words, before = out.get((op.target, r), (name, None, None))
                since = dict(op.appends).get(r)
                if f"support.{r}" in op.keys or since is None or words is None:
                    out[(op.target, r)] = (name, None, None)
                else:  # appended to a copied cell: its statements before keep the copy's words
                    out[(op.target, r)] = (name, words, min(parsed(since), before or parsed(since)))
        elif op.kind == "add-feature":
            out.update({(op.target, r): (name, None, None) for r in runners})
        elif op.kind == "add-runner" and op.copies is not None:
            for id in op.copied:
                forces = features[id].forces if id in features else None
                words = (_messages.overlay_provenance(name, op.why, op.link)
                         if forces is not None and forces.runner == op.copies
                         else _messages.overlay_copied_note(op.copies, name, op.why, op.link))
                out[(id, op.target)] = (name, words, None)
    return out


def requirements_set(matrix: Matrix, wide_apart: bool = False) -> Dict[Tuple[str, str], str]:
    """``(requirement kind, runner id) → overlay name`` of each cell of the capability table an
    overlay set, by the last operation that did: a change of the runner that writes or unsets its
    entry of the kind (``requires.KIND``), a change of the kind's matrix-wide entry (each
    runner's cell: the entry applies to it or exempts it; with *wide_apart*, the entry's own cell
    ``(kind, "*")`` instead, as the capability table says it once), or adding the runner, where it has an
    entry of its own of the kind (written, or copied ``from`` another)."""
    overlay = matrix.overlay
    out: Dict[Tuple[str, str], str] = {}
    if overlay is None:
        return out
    kinds = [k.id for k in matrix.requirement_kinds]
    for op in overlay.operations:
        if op.dangling or op.noop:
            continue
        name = str(op.overlay)
        if op.kind == "change-runner":
            out.update({(k, op.target): name for k in kinds if f"requires.{k}" in op.keys})
        elif op.kind == "change-requirement" and wide_apart:
            out[(op.target, WIDE)] = name  # the entry itself, said once under Every runner
        elif op.kind == "change-requirement":
            out.update({(op.target, r.id): name for r in matrix.runners})
        elif op.kind == "add-runner":
            out.update({(c.kind, op.target): name for c in matrix.runner(op.target).requires})
    return out


def adjustments_set(matrix: Matrix) -> Dict[str, str]:
    """``adjustment id → overlay name`` of each adjustment an overlay set, by the last operation
    that did: adding or changing it, or adding a runner ``from`` one it names (it names the new
    runner too)."""
    overlay = matrix.overlay
    out: Dict[str, str] = {}
    if overlay is None:
        return out
    for op in overlay.operations:
        if op.dangling or op.noop:
            continue
        if op.kind in ("add-adjustment", "change-adjustment"):
            out[op.target] = str(op.overlay)
        elif op.kind == "add-runner":
            out.update({id: str(op.overlay) for id in op.adjusted})
    return out


def rows(matrix: Matrix, spell: Callable[[str], str]) -> Tuple[OverlayRow, ...]:
    """The operations of *matrix*'s overlays in the order they apply (none: not composed)."""
    overlay = matrix.overlay
    if overlay is None:
        return ()
    return tuple(
        OverlayRow(spell(str(op.overlay)), op.kind, spell(op.target), op.keys, spell(op.why),
                   op.link, spell(f"{_where(op.file)}:{op.line}"),
                   _messages.OVERLAY_STATE_DANGLING if op.dangling else _messages.OVERLAY_STATE_NOOP if op.noop
                   else "")
        for op in overlay.operations)


def _where(file: Optional[str]) -> Optional[str]:
    """*file* as a page says it, from whatever folder the page is made: relative to its project,
    the checkout it lies in (the nearest folder above it with ``.git``: a user trial made the
    page from another folder, with the overlay's absolute path, and the page said that path where
    made at the project's top it said ``examples/…``); outside any checkout, relative to the
    working folder where it lies under it (the MkDocs and Sphinx plugins join the page's argument
    to the project's folder: a published page said the builder's own path); else whole (an
    installed overlay's). Never with ``..`` steps."""
    if file is None:
        return None
    from ._files import shown

    file = os.path.normpath(file)
    absolute = os.path.abspath(file)
    project = _checkout(os.path.dirname(absolute))
    if project is not None:
        return os.path.relpath(absolute, project)
    if os.path.isabs(file):
        relative = shown(file)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative
    return file


def _checkout(folder: str) -> Optional[str]:
    """The nearest of *folder* and the folders above it that is a checkout's top (holds ``.git``:
    a folder, or a worktree's file), else None."""
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        above = os.path.dirname(folder)
        if above == folder:
            return None
        folder = above


def extends(matrix: Matrix) -> Optional[Tuple[str, str]]:
    """(upstream's name, its version) of a composed matrix, else None."""
    overlay = matrix.overlay
    return None if overlay is None else (overlay.extends, overlay.upstream_version)
