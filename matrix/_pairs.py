"""Which runners serve each pair of features: the feature × feature table of `matrix docs`.

For two gates A and B in force at a version, and a runner R, R *serves the pair* when some
config makes A and B active, makes no gate that R says ``no`` to active, meets R's
requirements (`Matrix.gates_at`), and uses no removed
feature: that config, asked of R explicitly, resolves (an ``opt-in`` asked for is served; a
gate of automatic choice only, ``applies = "automatic"``, is neither paired nor refusing). The
answer is exact, decided over the same partition of the config space as ``matrix check``
(`matrix._space`), and each "serves" comes with its witness config; a pair no config makes
active together is ``never``; a question the search could not settle within its budget is
``undecided``, never guessed. The conditions are read on the config as given: adjustments
(`matrix._adjust`) are not applied, so a runner that its own adjustment frees of a refusing gate
is not counted as serving the pair (the table's introduction says so).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Tuple

import attrs
from packaging.version import Version

from . import _derived
from ._space import Inconclusive, Space
from ._versions import VersionLike, as_version
from .schema import Feature, Matrix, Refusal

@attrs.frozen
class Pair:
    """Two gates (``first`` declared before ``second``) and the runners that serve them together."""

    first: Feature
    second: Feature
    #: What its cell says: every runner serves it (``all``), ``some`` do, ``none`` does, the two
    #: are ``never`` active together, or the search could not decide (``undecided``).
    kind: str
    runners: Tuple[str, ...] = ()  # the ids of the runners that serve both, priority order
    witnesses: Mapping[str, Dict[str, Any]] = attrs.field(factory=dict, eq=False)  # runner id → a config it serves
    refusal: Optional[Refusal] = None  # the acknowledged refusal of a pair no runner serves


def pair_gates(matrix: Matrix, version: Optional[VersionLike] = None) -> Tuple[Feature, ...]:
    """The gates the table pairs: those in force and not removed at *version*, and in force
    when a runner is asked for (not ``applies = "automatic"``)."""
    v = matrix.version if version is None else as_version(version)
    return tuple(g for g in matrix.features_at(v) if not g.removed_at(v) and g.applies != "automatic")


def pairs(matrix: Matrix, version: Optional[VersionLike] = None, *, budget: int = 200_000) -> List[Pair]:
    """Every pair of the gates of `pair_gates`, in declaration order: (1, 2), (1, 3), (2, 3), …
    (worked out once per matrix, version and budget)."""
    v = matrix.version if version is None else as_version(version)
    kept = _derived.of(matrix).pairs
    found = kept.get((v, budget))
    if found is None:
        found = kept[(v, budget)] = tuple(_pairs(matrix, v, budget))
    return list(found)


def _pairs(matrix: Matrix, v: Version, budget: int) -> List[Pair]:
    in_force = matrix.features_at(v)
    gates = pair_gates(matrix, v)
    # A removed gate refuses the configs that use it only where it is in force: a gate of
    # automatic choice only is not, when a runner is asked for.
    removed = [g.when.node for g in in_force if g.removed_at(v) and g.applies != "automatic"]
    # A runner's requirements refuse configs as the features it says no to do (`Matrix.gates_at`).
    every = matrix.gates_at(v)
    space = Space(matrix.schema, [g.when.node for g in every], budget=budget)
    # Asked for, a runner is refused by what it says no to, except the gates of automatic choice only.
    refusing = {r.id: [g for g in every if g.status(r.id, v) == "no" and g.applies != "automatic"]
                for r in matrix.runners}
    out = []
    for j, second in enumerate(gates):
        for first in gates[:j]:
            out.append(_pair(matrix, space, first, second, removed, refusing))
    return out


def _pair(matrix: Matrix, space: Space, first: Feature, second: Feature, removed: List[Any],
          refusing: Dict[str, List[Feature]]) -> Pair:
    both = [first.when.node, second.when.node]
    try:
        if space.solve(true=both, false=removed) is None:
            return Pair(first, second, "never")
        witnesses = {}
        for runner in matrix.runners:
            if first in refusing[runner.id] or second in refusing[runner.id]:
                continue  # one of the two is refused there (the search would find that out slowly)
            avoid = [g.when.node for g in refusing[runner.id]] + removed
            found = space.solve(true=both, false=avoid)
            if found is not None:
                witnesses[runner.id] = space.witness(found, avoid=avoid)
    except Inconclusive:
        return Pair(first, second, "undecided")
    served = tuple(witnesses)
    if not served:
        # The refusal of the two together, else of either alone: a config that uses a gate
        # every runner refuses (a one-gate refusal) is refused whatever else it uses.
        refusal = next((r for gates in ({first.id, second.id}, {first.id}, {second.id})
                        for r in matrix.refusals if r.covers(gates)), None)
        return Pair(first, second, "none", refusal=refusal)
    kind = "all" if len(served) == len(matrix.runners) else "some"
    return Pair(first, second, kind, served, witnesses)
