"""What the engine derives from a matrix and keeps for as long as the matrix lives.

A `Matrix` is a value: it knows nothing of plans. It has one private slot, ``_engine``, that
only this module fills, with a `Derived`; nothing in `matrix.schema` reads it. The slot is on
the matrix, and not in a table beside it keyed by the matrix, for two reasons (issue 23):

- what is derived refers back to the matrix (a plan's `matrix`, which a `Resolution` and a
  decision's messages read), so a table holding plans would keep every matrix alive; a table
  of weak references works only if plans refer to their matrix weakly too, and a resolution
  or a diff outliving the matrix it was made from would then lose it;
- `resolve` finds its plan on every call: one slot and one dict look-up, where a table keyed
  by identity costs an ``id()`` call and a second look-up more (about 50 ns, a few per cent of
  a resolve at the speed of an if chain).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Union

if TYPE_CHECKING:  # pragma: no cover
    from types import CodeType

    from ._compile import Plan
    from .schema import Matrix


class Derived:
    """The engine's derivations of one matrix.

    ``plans``: the compiled plans (`matrix._compile.plan`), by `Version`, and also by the
    version argument of `matrix.resolver.resolve` as given (None, text), so that a repeated
    call costs one look-up. ``code``: by the source of a plan's evaluator (versions whose gates
    are the same share it), the code compiled from it, or its marshalled bytes as a cache entry
    brought them (`matrix._cache`: loaded when a plan needs them). ``spaces``: by `Version`,
    what `matrix._remedy` derives from a plan's gates. ``pairs``: by version and budget, the
    pairs of `matrix._pairs.pairs` (each docs table of pairs, in every format, reads them).
    ``parts``: by `Version`, what a plan is made of (`matrix._compile.Parts`) as a cache entry
    brought it, taken out when that plan is assembled. ``releases``: by pair of consecutive
    releases, the `matrix.diff.DiffReport` of the matrix from the one to the other (the
    release notes of `matrix._docs_release`: a diff takes about a second, and each rendering of
    the table, in every format and at every version, reads the same ones).
    """

    __slots__ = ("plans", "code", "spaces", "pairs", "parts", "releases")

    def __init__(self) -> None:
        self.plans: Dict[object, Plan] = {}
        self.code: Dict[str, Union[bytes, CodeType]] = {}
        self.spaces: Dict[object, Any] = {}
        self.pairs: Dict[object, Any] = {}
        self.parts: Dict[object, Any] = {}
        self.releases: Dict[object, Any] = {}


def of(matrix: Matrix) -> Derived:
    """The derivations kept for *matrix* (made empty on first use)."""
    found: Derived = matrix._engine
    if found is None:
        found = Derived()
        object.__setattr__(matrix, "_engine", found)
    return found
