"""The ``[refusals]`` table: gates that are refused together, whatever the runner."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence

from . import _messages
from .schema import Refusal, Requirement, Runner, gate_ids

if TYPE_CHECKING:  # pragma: no cover
    from .loader import _Builder, _Source


def refusals(b: _Builder, source: _Source, raw: object, features: object, runners: List[Runner],
             orders: object = None, wide: Sequence[Requirement] = ()) -> List[Refusal]:
    """``[refusals]``: combinations of gates no runner serves, each with its reason; a gate they
    name must be one of *features* (the raw ``[features]`` table) or a gate derived from the
    runners' files, as `matrix check` names them: ``RUNNER:KIND`` for a failed requirement
    (``RUNNER:KIND:N`` for clause N of a chain), ``RUNNER:not-candidate``, ``RUNNER:redirect:N``
    for its N-th redirect, one that applies always; ``*:KIND`` for a
    matrix-wide requirement (*wide*); or ``order:ID`` for an order without fallback (the raw
    *orders* table)."""
    known = gate_ids(list(features) if isinstance(features, dict) else [],
                     [id for id, spec in orders.items() if isinstance(spec, dict) and spec.get("fallback") is False]
                     if isinstance(orders, dict) else [], wide, [(r, r.requires) for r in runners])
    out = []
    for id, where, spec in b.entries(source, raw, "refusals", "Refusal", b.shapes.RefusalSpec):
        lists = []
        ok = bool(spec.together)
        if not spec.together:
            b.problem(source, where + ("together",), _messages.refusal_shape())
        for index, part in enumerate(spec.together):
            if not isinstance(part, list) or not part or not all(isinstance(g, str) for g in part):
                b.problem(source, where + ("together", index), _messages.refusal_shape())
                ok = False
                continue
            for position, gate in enumerate(part):
                if gate not in known:
                    b.problem(source, where + ("together", index, position),
                              _messages.unknown_choice("gate", gate, known))
                    ok = False
            lists.append(tuple(part))
        if ok:
            out.append(Refusal(id, spec.reason, tuple(lists), spec.links))
    return out

