"""A gate's support table: one cell per runner, each a status, a table (status, note, links,
since) or the history of them, oldest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from . import _messages
from .schema import STATUSES, Statement

if TYPE_CHECKING:  # pragma: no cover
    from ._converter import Place
    from .loader import _Builder, _Source


def support(b: _Builder, source: _Source, where: Place, raw: Dict[str, object],
             runner_ids: Optional[List[str]], *, beside: bool = False) -> Optional[Dict[str, Tuple[Statement, ...]]]:
    """Each runner's history of statements about a gate (``default`` standing for the runners
    left out, or the header's ``default_support``); None (said) when a cell is malformed.
    *beside*: a key beside it is a near miss of ``support`` (said already, "did you mean"),
    which may hold the cells missing here: they are not said again."""
    cells: Dict[str, Tuple[Statement, ...]] = {}
    ok = True
    for runner, cell in raw.items():
        if runner in b.broken_runners:
            ok = False  # its file failed to load, and said so
            continue
        if runner_ids is not None and runner != "default" and runner not in runner_ids:
            b.problem(source, where + (runner,), _messages.unknown_runner(runner, runner_ids + ["default"]))
            ok = False
            continue
        history = _cell(b, source, where + (runner,), cell)
        if history is None:
            ok = False
        else:
            cells[runner] = history
    if runner_ids is None:
        return None
    # A runner that an unknown key is a near miss of was said already ("did you mean"): one
    # mistake, one problem.
    misspelt = {_messages.near_miss(k, runner_ids) for k in raw if k != "default" and k not in runner_ids}
    missing = [r for r in runner_ids if r not in raw]
    if missing and "default" not in raw and b.default_support is None:
        missing = [r for r in missing if r not in misspelt]
        for runner in [] if beside else missing:
            b.problem(source, where, _messages.missing_cell(runner))
        return None
    if not ok:
        return None
    fallback = cells["default"] if "default" in cells else b.default_support or ()
    return {r: cells[r] if r in cells else fallback for r in runner_ids}


def _cell(b: _Builder, source: _Source, where: Place, raw: object) -> Optional[Tuple[Statement, ...]]:
    if isinstance(raw, list):
        if not raw:
            b.problem(source, where, _messages.empty_history())
            return None
        items = [(where + (i,), item) for i, item in enumerate(raw)]
    elif isinstance(raw, (str, dict)):
        items = [(where, raw)]
    else:
        b.problem(source, where, _messages.bad_cell(STATUSES, b.shapes.toml_type(raw), raw))
        return None
    history: List[Statement] = []
    ok = True
    for place, item in items:
        statement = _statement(b, source, place, item)
        if statement is None:
            ok = False
            continue
        if history and statement.since is None:
            b.problem(source, place, _messages.since_left_out())
            ok = False
        elif history and history[-1].since is not None and statement.since is not None \
                and statement.since <= history[-1].since:
            b.problem(source, place + ("since",), _messages.history_order(statement.since, history[-1].since))
            ok = False
        history.append(statement)
    return tuple(history) if ok else None


def _statement(b: _Builder, source: _Source, where: Place, raw: object) -> Optional[Statement]:
    if isinstance(raw, str) and raw in STATUSES and raw != "partial":
        return Statement(raw)  # the common case, with nothing to check
    if isinstance(raw, str):
        raw = {"status": raw}
        status_place = where
    else:
        status_place = where + ("status",)
    spec, bad = b.shaped(source, raw, b.shapes.StatementSpec, where)
    if spec is None:
        return None
    if spec.status not in STATUSES:
        b.problem(source, status_place, _messages.unknown_choice('status', spec.status, STATUSES, one_of=True))
        return None
    if spec.status == "partial" and not spec.note:
        b.problem(source, where, _messages.partial_without_note())
        return None
    since = b.version(source, where + ("since",), spec.since)
    if spec.since is not None and since is None:
        return None
    return Statement(spec.status, spec.note, spec.links, since)
