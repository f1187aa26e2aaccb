"""The ``[refusals]`` table: gates that are refused together, whatever the runner."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List, Sequence, Tuple

from . import _messages
from .schema import WIDE, Refusal, Requirement, Runner, requirement_chains

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


def gate_ids(features: Iterable[str], orders: Iterable[str], wide: Sequence[Requirement],
             runners: Sequence[Tuple[Runner, Sequence[Requirement]]]) -> List[str]:
    """The gates a refusal may name (`refusals` states the grammar): the *features*, ``order:ID``
    of the *orders* without fallback, and the gates derived from the matrix-wide requirements
    (*wide*) and from each runner with its requirement clauses, every one of its file's (the
    editor's schema lists these: `matrix.editor`)."""
    known = list(features) + [f"order:{id}" for id in orders]
    for owner, clauses in ((WIDE, wide), *((r.id, c) for r, c in runners)):
        for kind, chain in requirement_chains(clauses).items():
            length = len(chain)
            known += [f"{owner}:{kind}"] if length == 1 else [f"{owner}:{kind}:{n}" for n in range(1, length + 1)]
    for runner, _ in runners:
        if runner.candidate is not None:
            known.append(f"{runner.id}:not-candidate")
        # A redirect that applies always sends automatic choice to a runner that may refuse (issue 30, F6).
        known += [f"{runner.id}:redirect:{d.index + 1}" for d in runner.redirects if d.applies == "always"
                  and d.stage is None]
    return known
