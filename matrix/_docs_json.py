"""The JSON rendering of the model."""

from __future__ import annotations

import json
from typing import Dict, Sequence

from ._docs_model import Document, banner

def json_text(doc: Document, tables: Sequence[str]) -> str:
    data: Dict[str, object] = {
        "generated_by": banner(doc.source),
        "matrix": doc.title,
        "version": doc.version,
        "runners": [{"id": r.id, "name": r.name, "priority": r.priority, "description": r.description or None,
                     "links": list(r.links)} for r in doc.runner_rows],
    }
    if "support" in tables:
        notes = dict(enumerate(doc.notes, 1))
        data["legend"] = [{"symbol": s, "status": t, "meaning": m} for s, t, m in doc.legend]
        data["features"] = [
            {
                "id": row.id,
                "name": row.name,
                "group": row.group,
                "condition": row.condition,
                "lifecycle": list(row.lifecycle),
                "note": notes[row.note] if row.note is not None else None,
                "links": list(row.links),
                "support": {
                    rid: {"status": cell.now.status, "symbol": cell.now.symbol,
                          "note": notes[cell.now.note] if cell.now.note is not None else None,
                          "link": cell.now.link, "since": cell.now.since,
                          "history": [{"status": step.status, "since": step.since,
                                       "note": notes[step.note] if step.note is not None else None,
                                       "link": step.link} for step in cell.history]}
                    for (rid, _), cell in zip(doc.runners, row.cells)
                },
            }
            for row in doc.rows
        ]
    if "config" in tables:
        data["config"] = [{"path": e.path, "type": e.type, "choices": e.choices, "default": e.default or None,
                           "doc": e.doc} for e in doc.config]
    if "deprecations" in tables:
        data["deprecations"] = [{"feature": d.feature, "since": d.since, "remove_in": d.remove_in or None,
                                 "replacement": d.replacement or None, "message": d.message or None}
                                for d in doc.deprecations]
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

