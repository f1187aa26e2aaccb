"""The ``[docs]`` table: the columns table's questions (``[docs.columns]``) and rows
(``[docs.rows]``), docs only (`matrix._columns` derives the cells)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

from . import _messages
from .schema import Column, ColumnRow, Runner, Schema

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source


def docs(b: _Builder, source: _Source, raw: object, schema: Schema,
         runners: Optional[List[Runner]]) -> Tuple[Tuple[Column, ...], Tuple[ColumnRow, ...]]:
    """``[docs]``: its columns and rows, every problem said at its key."""
    spec, _ = b.shaped(source, raw, b.shapes.DocsSpec, ("docs",))
    if spec is None:
        return (), ()
    known = [r.id for r in runners or ()] + list(b.broken_runners)
    rows: List[ColumnRow] = []
    for id, where, row in _entries(b, source, "rows", spec.rows, b.shapes.ColumnRowSpec):
        runner = row.runner if row.runner is not None else id
        if runners is not None and runner not in known:
            b.problem(source, where + (("runner",) if row.runner is not None else ()),
                      _messages.unknown_choice("runner", runner, known))
            continue
        condition = b.predicate(source, where + ("where",), row.where, schema) if row.where is not None else None
        if row.where is not None and condition is None:
            continue
        name = row.name if row.name is not None else next((r.name for r in runners or () if r.id == runner), runner)
        rows.append(ColumnRow(id, runner, name, condition))
    row_ids = list(spec.rows) if spec.rows else known
    columns: List[Column] = []
    for id, where, column in _entries(b, source, "columns", spec.columns, b.shapes.ColumnSpec):
        if (column.when is None) == (not column.declared):
            b.problem(source, where, _messages.column_when_or_declared(id))
            continue
        for key in column.declared:
            if key not in row_ids and (runners is not None or spec.rows):
                b.problem(source, where + ("declared", key), _messages.unknown_choice("row", key, row_ids))
        when = b.predicate(source, where + ("when",), column.when, schema) if column.when is not None else None
        if column.when is not None and when is None:
            continue
        columns.append(Column(id, column.name, when, dict(column.declared), column.doc))
    return tuple(columns), tuple(rows)


def _entries(b: _Builder, source: _Source, table: str, raw: Dict[str, object], cls: type
             ) -> Iterator[Tuple[str, Place, Any]]:
    from . import _format  # the words of the file format: needed to load, not to resolve

    for id, value in raw.items():
        where: Place = ("docs", table, id)
        if not _format.ID_RE.match(id):
            b.problem(source, where, _messages.bad_feature_id(id, "Column" if table == "columns" else "Row"))
            continue
        spec, _ = b.shaped(source, value, cls, where)
        if spec is not None:
            yield id, where, spec
