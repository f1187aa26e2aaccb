"""The columns table: for each row (a runner, on the configs its ``where`` names) and each
declared column (a question users ask: ``when``), what asking for that runner does on the
configs of the column, derived exactly from the rules (docs/reference/docs-tables.md says it
for users).

- **The configs of a cell**: every config on which the column's ``when`` and the row's ``where``
  hold and every other path takes its default (None where it has none and may be None): the
  config of a user who sets only what the column and the row are about. The paths the two
  conditions read (and a path with no default that cannot be None) take every class of the
  partition `matrix check` searches (`matrix._space`): one representative per class decides
  every config of the class, so the cell is exact over all of them.
- **Asking for the runner**: ``resolve(config, runner=R)``, with the base role's field set to
  R as well in a matrix with ``[roles]`` (the host's request is that field).
- **What the cell says** of each class: ``served`` (R serves the config as given), ``adjusted``
  (R serves it after adjustments changed values: each path, its new value and the adjustment;
  an adjustment that fills a value left None and fills only where None changes nothing the
  user gave and is not said), ``redirected`` (another runner serves it), ``refused`` (the
  requirement kinds or features that refused it). One answer for every class: the cell is
  that answer; several: ``depends``, each answer with the classes it holds on, spelled in the
  matrix's terms as remedies spell values (`matrix._remedy`). No class at all: ``never``.
- **Honesty**: more than `LIMIT` classes is ``undecided`` (never guessed); a path whose
  partition is not exact (`matrix._space.CAUSES`) is said beside the answer.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import attrs

from . import _messages
from packaging.version import Version

from ._nodes import Compare, Literal, Path, walk
from ._space import PRESENT, Space, compared_constants, json_value
from .errors import MatrixError, ResolutionError
from .schema import Column, ColumnRow, From, Matrix, Requirement

#: The most classes one cell resolves; past it the cell is ``undecided``.
LIMIT = 2048

#: What a cell's answer is (`Outcome.kind`), in the order a ``depends`` cell lists them.
KINDS = ("served", "adjusted", "redirected", "refused")


@attrs.frozen
class Outcome:
    """What asking for a runner does on some configs: ``kind`` (one of `KINDS`), ``to`` the
    runner a redirect sends to (which serves it, or refuses it), ``ids`` the requirement kinds or features that refused it,
    ``sets`` the (path, new value as written, adjustment id) of an adjusted config."""

    kind: str
    to: Optional[str] = None
    ids: Tuple[str, ...] = ()
    sets: Tuple[Tuple[str, str, str], ...] = ()
    #: A refusal no requirement kind or feature names (a role's requirement): its reason.
    reason: str = ""


@attrs.frozen
class Answer:
    """One answer of a cell, and where it holds: ``where`` is empty for the whole cell, else
    the alternatives (each a conjunction of ``path: values`` terms) its classes make up."""

    outcome: Outcome
    where: Tuple[Tuple[str, ...], ...] = ()


@attrs.frozen
class ColumnCell:
    """One row × column: ``kind`` is ``derived`` (``parts``), ``declared`` (``declared``),
    ``undeclared`` (a declared column that says nothing of the row), ``never`` (no config of
    the column on the row's configs) or ``undecided`` (``note`` says why); ``inexact`` the
    causes of a partition that is not exact (`matrix._space.CAUSES`)."""

    kind: str
    parts: Tuple[Answer, ...] = ()
    declared: Optional[bool] = None
    inexact: Tuple[str, ...] = ()
    note: str = ""


def cells(matrix: Matrix, version: Any) -> Tuple[Tuple[ColumnRow, ...], Tuple[Tuple[ColumnCell, ...], ...]]:
    """The rows of the columns table and, for each, its cell in every column of *matrix*."""
    rows = matrix.column_rows or tuple(ColumnRow(r.id, r.id, r.name) for r in matrix.runners)
    derived = [c for c in matrix.columns if c.when is not None]
    space = None
    if derived:
        from .resolver import _plan

        from ._remedy import rule_atoms

        plan = _plan(matrix, version)
        # The gates' conditions and those of the rules that are no gate (staged requirements, a role's,
        # adjustments': the brute force found a staged refusal inside a cell said "served").
        # And each redirect's condition: a redirect at a stage after the choice sent some configs
        # of a cell said "served" to another runner (the brute force: i % 2 == 0 within i < 0).
        nodes = [f.when.node for f in plan.features] + rule_atoms(matrix) \
            + [d.when.node for r in matrix.runners for d in r.redirects] \
            + [c.when.node for c in derived if c.when is not None] \
            + [r.where.node for r in rows if r.where is not None] + _setting(matrix, version)
        space = _Cells(matrix, plan, Space(matrix.schema, nodes), compared_constants(nodes))
        space.scaled = {p for a in matrix.adjustments_at(plan.version) for p, v in a.set.items()
                        if isinstance(v, From) and v.times is not None}
    out = []
    for row in rows:
        line = []
        for column in matrix.columns:
            if column.when is None:
                value = column.declared.get(row.id)
                line.append(ColumnCell("undeclared") if value is None else ColumnCell("declared", declared=value))
            else:
                assert space is not None
                line.append(space.cell(row, column))
        out.append(tuple(line))
    return rows, tuple(out)


def _setting(matrix: Matrix, version: Any) -> List[Any]:
    """``path == value`` for each value an adjustment sets (a constant, or a plain copy of
    another path): where a path already holds it, setting it changes nothing, so the value is
    a class of its own (a scaled copy's cannot be one: `_Cells.scaled`)."""
    out: List[Any] = []
    for adjustment in matrix.adjustments_at(matrix.release(version)):
        for path, value in adjustment.set.items():
            if isinstance(value, From):
                if value.times is None:
                    out.append(Compare(Path(path), "==", Path(value.path)))
            elif value is None or isinstance(value, (bool, int, float, str, Version)):
                out.append(Compare(Path(path), "==", Literal(str(value) if isinstance(value, Version) else value)))
    return out


class _Cells:
    """The space every cell of one matrix at one version is searched in."""

    def __init__(self, matrix: Matrix, plan: Any, space: Space, constants: Dict[str, List[object]]) -> None:
        self.matrix, self.plan, self.space, self.constants = matrix, plan, space, constants
        self.request = matrix.roles[0].field if matrix.roles else None
        #: Paths a scaled copy sets (``{ from, times }``): where one already holds the product the
        #: copy changes nothing, a class no constant cuts, so a cell that varies them is not exact.
        self.scaled: Set[str] = set()
        self.base: Dict[str, object] = {}
        self.required: List[str] = []
        for path in space.paths:
            field = space.field(path)
            domain = space.domains[path]
            if PRESENT in domain:
                self.base[path] = PRESENT if field is None or not field.nullable else None
            elif field is not None and field.has_default:
                self.base[path] = _plain(field.default)
            elif None in domain:
                self.base[path] = None
            else:
                self.required.append(path)  # no default, never None: every class of it

    def _read(self, *conditions: Any) -> List[str]:
        names = {n.name for c in conditions if c is not None for n in walk(c.node) if isinstance(n, Path)}
        wanted: Set[str] = set()
        for name in names:
            parts = name.split(".")
            wanted.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
        return [p for p in self.space.paths if p in wanted or p in self.required]

    def cell(self, row: ColumnRow, column: Column) -> ColumnCell:
        space = self.space
        paths = self._read(column.when, row.where)
        inexact = tuple(dict.fromkeys([*(space.inexact[p] for p in paths if p in space.inexact),
                                       *(["scaled"] if self.scaled & set(paths) else [])]))
        conditions = [c.node for c in (column.when, row.where) if c is not None]
        leaves = _classes(space, {p: v for p, v in self.base.items() if p not in paths}, paths, conditions)
        if leaves is None:
            return ColumnCell("undecided", note=_messages.columns_too_many(LIMIT))
        found: Dict[Outcome, List[Tuple[object, ...]]] = {}
        for assignment in leaves:
            outcome = self._outcome(row.runner, _config(space, assignment))
            found.setdefault(outcome, []).append(tuple(assignment.get(p) for p in paths))
        if not found:
            return ColumnCell("never", inexact=inexact)
        ordered = sorted(found, key=lambda o: (KINDS.index(o.kind), o.to or "", o.ids, o.sets, o.reason))
        if len(ordered) == 1:
            return ColumnCell("derived", (Answer(ordered[0]),), inexact=inexact)
        # Only the paths whose value tells the answers apart are said: each path without which
        # the others still decide the answer is dropped, in turn.
        varying = [i for i, p in enumerate(paths) if len({_key(w[i]) for ws in found.values() for w in ws}) > 1]
        for i in list(varying):
            rest = [j for j in varying if j != i]
            decided: Dict[Tuple[object, ...], Outcome] = {}
            if all(decided.setdefault(tuple(_key(w[j]) for j in rest), o) == o for o, ws in found.items() for w in ws):
                varying = rest
        return ColumnCell("derived", tuple(Answer(o, self._where(row.runner, [paths[i] for i in varying],
                                                                 [tuple(w[i] for i in varying) for w in found[o]]))
                                           for o in ordered), inexact=inexact)

    def _where(self, runner: str, paths: Sequence[str], working: List[Tuple[object, ...]]) -> Tuple[Tuple[str, ...], ...]:
        from ._remedy import _products

        if not paths:
            return ()
        unique = list({tuple(_key(v) for v in w): w for w in working}.values())
        out = []
        for remedy in _products(self.space, self.constants, runner, tuple(paths), unique):
            terms = [*remedy.changes, *remedy.conditions]
            out.append(tuple(_messages.column_term(c.path, c.spelled, c.action) for c in terms))
        return tuple(out)

    def _outcome(self, runner: str, config: Dict[str, Any]) -> Outcome:
        from .resolver import resolve

        if self.request is not None:
            config = _with(config, self.request, runner)
        try:
            resolution = resolve(self.matrix, config, runner=runner, version=self.plan.version)
        except ResolutionError as error:
            # A redirect's target that refuses: its refusal, the target named.
            redirected = error.resolution.to_dict()["redirected"] if error.resolution.staged_refusal is None else None
            target = redirected["to"] if redirected else None
            ids = _refusing(error, target or runner)
            return Outcome("refused", to=target, ids=ids, reason="" if ids else error.reason)
        except MatrixError as error:  # a config the schema refuses: said as the refusal it is
            return Outcome("refused", ids=(type(error).__name__,))
        if resolution.runner != runner:
            return Outcome("redirected", to=resolution.runner)
        adjustments = {a.id: a for a in self.matrix.adjustments}
        sets = []
        for adjusted in resolution.adjustments:
            if adjusted.path == self.request or adjusted.before == adjusted.after:
                continue
            declared = adjustments.get(adjusted.id)
            if adjusted.before is None and declared is not None and not declared.override:
                continue  # a default filled in: nothing the user gave changed
            sets.append((adjusted.path, _messages.remedy_value(json_value(adjusted.after)), adjusted.id))
        return Outcome("adjusted", sets=tuple(sets)) if sets else Outcome("served")


def _classes(space: Space, base: Dict[str, object], paths: Sequence[str],
             conditions: Sequence[Any]) -> Optional[List[Dict[str, object]]]:
    """Every assignment of *paths* (one representative per class, *base* for the rest) on which
    every condition holds, found depth first: a branch is left as soon as a condition reads
    False on the paths assigned so far. None past `LIMIT` of them."""
    out: List[Dict[str, object]] = []
    stack: List[Tuple[int, Dict[str, object]]] = [(0, dict(base))]
    while stack:
        index, assignment = stack.pop()
        if any(space.truth(c, assignment) is False for c in conditions):
            continue
        if index == len(paths):
            if all(space.truth(c, assignment) is True for c in conditions):
                out.append(assignment)
                if len(out) > LIMIT:
                    return None
            continue
        path = paths[index]
        for value in reversed(space.domains[path]):
            stack.append((index + 1, {**assignment, path: value}))
    return out


def _refusing(error: ResolutionError, runner: str) -> Tuple[str, ...]:
    """The requirement kinds (or feature ids) that refused *runner*: a staged requirement's, or
    those the resolution says it fails."""
    resolution = error.resolution
    staged = resolution.staged_refusal
    # Sorted: the same refusal is one answer whichever order the resolution found its gates in.
    if staged is not None:  # RUNNER:KIND or RUNNER:KIND:INDEX (a clause of a chain)
        return tuple(sorted({n.split(":")[1] for n in staged["requirements"]}))
    return tuple(sorted({g.origin.kind if isinstance(g.origin, Requirement) else g.id
                         for g in resolution.unsupported.get(runner, ())}))


def _config(space: Space, assignment: Dict[str, object]) -> Dict[str, Any]:
    from ._remedy import _config as config

    return config(space, assignment)


def _with(config: Dict[str, Any], path: str, value: object) -> Dict[str, Any]:
    from ._remedy import _apply

    return _apply(config, [path], [value])


def _plain(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


def _key(value: object) -> Tuple[str, str]:
    return type(value).__name__, repr(value)


#: Said before the columns table.
INTRO = ("What asking for each runner does on the configs each column is about, derived from the rules exactly "
         "(the classes of configs `matrix check` searches, each resolved): a config of a cell has the column's "
         "condition and the row's where true and every other setting at its default. A cell says one answer where "
         "every such config gets it, else each answer after where it holds. A declared cell is a fact the matrix "
         "states, which no rule reads.")

#: Each answer a cell gives: (symbol, word, meaning), for the legend.
SYMBOLS = {
    "served": ("✅", "yes", "served as given"),
    "adjusted": ("🔧", "adjusted", "served after adjustments changed what was given (path = new value, adjustment)"),
    "redirected": ("↪️", "redirected", "another runner serves it (a redirect)"),
    "refused": ("❌", "no", "refused (the requirements or features that refuse it)"),
    "declared": ("📝", "declared", "a fact the matrix declares, which no rule reads: not derived"),
    "never": ("➖", "never", "no config of the column among the row's configs"),
    "undecided": ("❔", "undecided", "not decided exactly (the cell says why), never guessed"),
}


def symbol_of(cell: ColumnCell) -> List[str]:
    """The `SYMBOLS` keys *cell* uses, for the legend."""
    if cell.kind == "derived":
        return [p.outcome.kind for p in cell.parts]
    if cell.kind == "declared":
        return ["served" if cell.declared else "refused", "declared"]
    return [] if cell.kind == "undeclared" else [cell.kind]


def outcome_text(outcome: Outcome, symbols: bool) -> str:
    """One answer as text: ``✅ yes``, ``🔧 adjusted: page_size = 64 (A25)``, ``↪️ redirected
    to triton``, ``❌ no: E11``."""
    symbol, word, _ = SYMBOLS[outcome.kind]
    head = f"{symbol} {word}" if symbols else word
    if outcome.kind == "adjusted":
        return f"{head}: " + ", ".join(f"{path} = {value} ({id})" for path, value, id in outcome.sets)
    if outcome.kind == "redirected":
        return f"{head} to {outcome.to}"
    if outcome.kind == "refused":
        said = f"{head}: " + (", ".join(outcome.ids) if outcome.ids else outcome.reason)
        return said + (f" ({_messages.columns_refused_after_redirect(outcome.to)})" if outcome.to else "")
    return head


def cell_text(cell: ColumnCell, symbols: bool) -> str:
    """A whole cell as text: its answer, or each answer after where it holds (``where …:``)."""
    if cell.kind == "declared":
        symbol, word, _ = SYMBOLS["served" if cell.declared else "refused"]
        mark, declared, _ = SYMBOLS["declared"]
        return (f"{symbol} {word} {mark} {declared}" if symbols else f"{word} ({declared})")
    if cell.kind == "undeclared":
        return ""
    if cell.kind in ("never", "undecided"):
        symbol, word, _ = SYMBOLS[cell.kind]
        text = f"{symbol} {word}" if symbols else word
        return f"{text}: {cell.note}" if cell.note else text
    said = []
    for part in cell.parts:
        where = " or ".join(" and ".join(terms) for terms in part.where)
        said.append(f"where {where}: {outcome_text(part.outcome, symbols)}" if where else
                    outcome_text(part.outcome, symbols))
    text = "; ".join(said)
    if cell.inexact:
        text += " " + _messages.columns_inexact(cell.inexact)
    return text
