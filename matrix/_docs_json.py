"""The JSON rendering of the model: data, not display strings. Choices are lists, defaults are
the values themselves, versions are strings, statuses are their words; the shape is documented
by ``matrix/docs.schema.json`` (`matrix.render.json_schema`), which the tests validate every
output against."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from packaging.version import Version

from ._docs_adjustments import AdjustmentRow
from ._docs_model import Document, DeprecationRow, RunnerRow, banner
from .schema import Field

#: The version of the shape below; it changes only when a key changes meaning or goes away.
FORMAT = 1


def _value(value: object) -> Any:
    """A config value as JSON: versions as strings, tuples as lists."""
    if isinstance(value, Version):
        return str(value)
    if isinstance(value, tuple):
        return [_value(v) for v in value]
    return value


def _field(path: str, doc: str, field: Optional[Field]) -> Dict[str, Any]:
    assert field is not None  # every config row of a document carries its field
    return {
        "path": path,
        "type": field.type,
        "nullable": field.nullable,
        "choices": None if field.choices is None else [_value(c) for c in field.choices],
        "min": field.min,
        "max": field.max,
        "has_default": field.has_default,
        "default": _value(field.default) if field.has_default else None,
        "fact": field.fact,
        "classes": field.classes,
        "derive": None if field.derive is None else str(field.derive),
        "since": _version(field.since),
        "until": _version(field.until),
        "choice_versions": [{"value": _value(c), "since": _version(field.choice_window(c)[0]),
                             "until": _version(field.choice_window(c)[1])} for c in field.choices or ()
                            if c in field.choice_windows],
        "doc": doc or None,
    }


def _version(version: Optional[Version]) -> Optional[str]:
    return None if version is None else str(version)


def _deprecation(d: DeprecationRow) -> Dict[str, Any]:
    return {"feature": d.id, "name": d.feature, "since": d.since, "remove_in": d.remove_in or None,
            "removed": d.removed, "without_period": d.without_period, "state": d.state,
            "replacement": d.replacement or None, "message": d.message or None}


def _redirect_data(row: RunnerRow) -> Dict[str, Any]:
    return {"aliases": [{"id": a.id, "since": a.since, "remove_in": a.remove_in, "removed": a.removed,
                         "message": a.message} for a in row.aliases],
            "redirects": [{"to": d.to, "when": d.when, "message": d.message, "since": d.since, "until": d.until,
                           **({"applies": "always"} if d.applies == "always" else {}),
                           **({"stage": d.stage} if d.stage is not None else {})} for d in row.redirects]}


def _runner_deprecation(row: RunnerRow) -> Optional[Dict[str, Any]]:
    d = row.deprecated
    if d is None:
        return None
    return {"since": d.since, "remove_in": d.remove_in, "replacement": d.replacement, "message": d.message,
            "state": d.state}


def _adjustment(a: AdjustmentRow, composed: bool) -> Dict[str, Any]:
    return {"id": a.id, "name": a.name, "runners": list(a.runners), "when": a.when,
            "set": [{"path": s.path, "value": None if s.source is not None else _value(s.value), "from": s.source,
                     **({"times": s.times} if s.times is not None else {})} for s in a.sets],
            "override": a.override, "level": a.level, "message": a.message, "says": a.says,
            "since": a.since, "until": a.until,
            "links": list(a.links), **({"overlay": a.overlay} if composed else {}),
            **({"stage": a.stage} if a.stage is not None else {})}


def json_text(doc: Document, tables: Sequence[str]) -> str:
    notes = dict(enumerate(doc.notes, 1))

    def note(number: Optional[int]) -> Optional[str]:
        return notes[number] if number is not None else None

    # Every runner has aliases and redirects, or none has (a matrix without either).
    extra = any(r.aliases or r.redirects for r in doc.runner_rows)
    # Every runner has its deprecation (null: none), or none has (a matrix without a runner deprecated).
    deprecated = any(r.deprecated for r in doc.runner_rows)
    data: Dict[str, Any] = {
        "format": FORMAT,
        "generated_by": banner(doc.source),
        "matrix": doc.title,
        "version": doc.version,
        "runners": [{"id": r.id, "name": r.name, "priority": r.priority, "description": r.description or None,
                     "links": list(r.links), **(_redirect_data(r) if extra else {}),
                     **({"deprecated": _runner_deprecation(r)} if deprecated else {})} for r in doc.runner_rows],
    }
    if "support" in tables:
        data["legend"] = [{"status": t, "symbol": s, "meaning": m} for s, t, m in doc.legend]
        data["features"] = [
            {
                "id": row.id,
                "name": row.name,
                "group": row.group,
                "condition": row.condition,
                "since": row.since,
                "until": row.until,
                "deprecated": _deprecation(row.deprecated) if row.deprecated else None,
                "forces": None if row.forces is None else {
                    "runner": row.forces.runner, "override": row.forces.override, "message": row.forces.message},
                "prefers": None if row.prefers is None else {
                    "runner": row.prefers.runner, "outright": row.prefers.outright, "message": row.prefers.message},
                "applies": row.applies,
                "note": note(row.note),
                "links": list(row.links),
                "support": {
                    rid: {"status": cell.now.status, "note": note(cell.now.note), "link": cell.now.link,
                          "since": cell.now.since,
                          "history": [{"status": step.status, "since": step.since, "note": note(step.note),
                                       "link": step.link} for step in cell.history],
                          **({"overlay": cell.overlay} if doc.extends is not None else {})}
                    for (rid, _), cell in zip(doc.runners, row.cells)
                },
            }
            for row in doc.rows
        ]
    if "capabilities" in tables and doc.candidates:
        data["capabilities"] = [
            {"id": row.id, "name": row.name, "reason": row.reason or None,
             "requires": {rid: [{"condition": str(c.condition), "reason": c.reason, "doc": c.doc,
                                **({} if c.error_kind is None else {"kind": c.error_kind}),
                                **({} if c.stage is None else {"stage": c.stage}),
                                **({"roles": list(c.roles)} if c.roles else {})} for c in clauses]
                          for (rid, _), clauses in zip(doc.runners, row.clauses)},
             **({"overlay": {rid: by for (rid, _), by in zip(doc.runners, row.overlays)}}
                if doc.extends is not None else {})}
            for row in doc.capabilities]
        data["candidates"] = {rid: c or None for (rid, _), c in zip(doc.runners, doc.candidates)}
        data["orders"] = [{"id": o.id, "name": o.name, "when": o.when, "runners": list(o.runners),
                           **({} if o.fallback else {"fallback": False})} for o in doc.orders]
    if "adjustments" in tables and doc.adjusts:
        data["adjustments"] = [_adjustment(a, doc.extends is not None) for a in doc.adjustments]
    if "columns" in tables and doc.columns:
        data["columns"] = _columns(doc)
    if "pairs" in tables:
        refusals = {r.id: r for r in doc.refusals}
        pairs: List[Dict[str, Any]] = []
        for row in doc.pairs:
            for other, cell in zip(doc.pairs, row.cells):
                refusal = refusals.get(cell.refusal) if cell.refusal else None
                pairs.append({
                    "features": [other.id, row.id],
                    "served": cell.kind,
                    "runners": list(cell.runners),
                    "refusal": None if refusal is None else {"id": refusal.id, "reason": refusal.reason,
                                                             "links": list(refusal.links)},
                })
        data["pairs"] = pairs
    if "config" in tables:
        data["config"] = [_field(e.path, e.doc, e.field) for e in doc.config]
    if "deprecations" in tables:
        data["deprecations"] = [_deprecation(d) for d in doc.deprecations]
        data["changes"] = [{"version": c.version, "feature": c.feature, "kind": c.kind, "text": c.text,
                            **({"runner": c.runner} if c.runner is not None else {})} for c in doc.changes]
    if "overlay" in tables and doc.extends is not None:
        data["overlay"] = {"extends": doc.extends[0], "version": doc.extends[1], "operations": [
            {"overlay": o.overlay, "kind": o.kind, "target": o.target, "keys": list(o.keys), "why": o.why,
             "link": o.link, "place": o.place, "state": o.state} for o in doc.overlay_rows]}
    if "release-notes" in tables:
        data["release_notes"] = [{"version": n.version, "previous": n.previous, "id": n.id, "level": n.level,
                                  "message": n.message, "region": n.region, "witness": n.witness,
                                  "features": list(n.features)} for n in doc.release_notes]
        data["release_gaps"] = [{"version": g.version, "previous": g.previous, "text": g.text}
                                for g in doc.release_gaps]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _columns(doc: Document) -> Dict[str, Any]:
    """The columns table as data: the columns, then each row with its cell in every column."""
    def outcome(o: Any) -> Dict[str, Any]:
        return {"kind": o.kind, "to": o.to, "ids": list(o.ids),
                "sets": [{"path": p, "value": v, "adjustment": a} for p, v, a in o.sets], "reason": o.reason or None}

    def cell(c: Any) -> Dict[str, Any]:
        return {"kind": c.kind, "declared": c.declared,
                "answers": [{**outcome(p.outcome), "where": [list(t) for t in p.where]} for p in c.parts],
                "inexact": list(c.inexact), "note": c.note or None}

    return {
        "columns": [{"id": c.id, "name": c.name, "when": None if c.when is None else str(c.when),
                     "declared": dict(c.declared) if c.when is None else None, "doc": c.doc} for c in doc.columns],
        "rows": [{"id": r.id, "runner": r.runner, "name": r.name, "where": None if r.where is None else str(r.where),
                  "cells": {c.id: cell(x) for c, x in zip(doc.columns, line)}}
                 for r, line in zip(doc.column_rows, doc.column_cells)],
    }
