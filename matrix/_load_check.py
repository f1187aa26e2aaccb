"""The ``[check]`` table: the findings `matrix check` is told to ignore."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

import attrs

from . import _messages
from .schema import Runner

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source


def ignores(b: _Builder, source: _Source, raw: object, features: object,  # noqa: C901 — every rule of a [check] ignore entry, each problem collected in the order the entry is read
            runners: Optional[List[Runner]], refusals: object = None) -> None:
    """``[check] ignore = [{ code, gate, reason }]``: findings `matrix check` is told to
    ignore, each with its reason (applied by `matrix._ignore`; checked here, so that a
    misspelt code or gate is a load error, not an entry that silently ignores nothing)."""
    from .check import CODES  # only for a file that has a [check] table

    if not isinstance(raw, dict):
        b.problem(source, ("check",), b.shapes.expected("a table", raw).args[0])
        return
    known = [a.name for a in attrs.fields(b.shapes.CheckSpec)]
    for key in raw:
        if key not in known:
            b.problem(source, ("check", key), _messages.unknown_choice("key", key, known))
    entries = raw.get("ignore", [])
    if not isinstance(entries, list):
        b.problem(source, ("check", "ignore"), b.shapes.expected("an array of tables", entries).args[0])
        return
    # A finding about a [refusals] entry (refusal-unused, refusal-shadowed) is about its id.
    gates = (list(features) if isinstance(features, dict) else []) + [r.id for r in runners or ()] + \
        (list(refusals) if isinstance(refusals, dict) else [])
    keys = [a.name for a in attrs.fields(b.shapes.IgnoreSpec)]
    required = [a.name for a in attrs.fields(b.shapes.IgnoreSpec) if a.default is attrs.NOTHING]
    for index, entry in enumerate(entries):
        where: Place = ("check", "ignore", index)
        if not isinstance(entry, dict):
            b.problem(source, where, b.shapes.expected("a table", entry).args[0])
            continue
        for key in entry:
            if key not in keys:
                b.problem(source, where + (key,), _messages.unknown_choice("key", key, keys))
        for key in required:
            if key not in entry:
                b.problem(source, where, _messages.missing_key(key))
        for key, value in entry.items():
            if key in keys and not isinstance(value, str):
                b.problem(source, where + (key,), b.shapes.expected("a string", value).args[0])
        code, gate, reason = entry.get("code"), entry.get("gate"), entry.get("reason")
        if isinstance(code, str) and code not in CODES:
            b.problem(source, where + ("code",), _messages.unknown_finding_code(code, list(CODES)))
        if isinstance(gate, str) and gate not in gates:
            b.problem(source, where + ("gate",), _messages.unknown_choice("gate", gate, gates))
        if isinstance(reason, str) and not reason.strip():
            b.problem(source, where + ("reason",), _messages.ignore_without_reason())
