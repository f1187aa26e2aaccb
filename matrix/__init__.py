"""matrix: a declarative feature-support matrix engine.

Declare features, the condition under which a config uses each, which runners support them and
their deprecation lifecycle in one ``features.toml``; ask :func:`resolve` which runner serves a
config, what to warn about, and why.
"""

from __future__ import annotations

import gc as _gc
from typing import TYPE_CHECKING, List, Mapping, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ._adjust import Adjusted
    from ._remedy import Change, ChangeAction, Remedies, Remedy
    from ._report import ResolutionAction
    from .check import Finding, Report, Severity

# The cyclic collector is off while the package's modules run, then as the host had it: they
# make classes and functions that live as long as the process, and the collector's passes over
# them while they were made (eleven) were 2 % of a first resolve in a new process (issue 29, cold
# start; the little garbage made, attrs' classes before their slotted copies, goes at its next pass).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from ._deferred import defer

    defer(__name__ + "._messages")  # imported when something is said (issue 29, cold start)
    from ._versions import VersionLike
    from .errors import (AdjustmentError, ConfigError, LoadError, MatrixError, NoRunnerError, PredicateError, Problem,
                         RemovedFeatureError, ResolutionError, UnsupportedFeatureError, UsageError)
    from .loader import default, installed_overlays, load, loads
    from .predicates import (And, Arith, Call, Compare, DerivedField, IsNone, ListLiteral, Literal, Mod, Not, Or, Path,
                             Predicate)
    from .resolver import Observation, ObservationKind, Resolution, ResolutionWarning, WarningKind
    from .schema import (Adjustment, AdjustmentLevel, AdjustmentSays, Alias, Applies, Column, ColumnRow, Deprecation,
                         Feature, Field,
                         FieldType, Forces, From, Matrix, Order, Prefers, Redirect, Refusal, Requirement, RequirementKind,
                         Role, Runner, Schema, Statement, Status)
finally:
    if _collecting:
        _gc.enable()
    del _collecting, _gc, defer

__all__ = [
    "load",
    "loads",
    "default",
    "installed_overlays",
    "resolve",
    "Matrix",
    "Feature",
    "Runner",
    "Statement",
    "Deprecation",
    "Forces",
    "Prefers",
    "Order",
    "Role",
    "Alias",
    "Redirect",
    "Requirement",
    "RequirementKind",
    "Refusal",
    "Adjustment",
    "Column",
    "ColumnRow",
    "From",
    "Field",
    "Schema",
    # The closed sets of values (`typing.Literal` types; `typing.get_args` lists each).
    "Status",
    "FieldType",
    "Applies",
    "WarningKind",
    "ObservationKind",
    "Severity",
    "Predicate",
    # The nodes of a predicate's tree (`Predicate.node`).
    "And",
    "Or",
    "Not",
    "Compare",
    "IsNone",
    "Mod",
    "Arith",
    "Call",
    "DerivedField",
    "Path",
    "Literal",
    "ListLiteral",
    "VersionLike",
    "Resolution",
    "ResolutionWarning",
    "Adjusted",
    "Observation",
    "Finding",
    "Report",
    "Remedies",
    "Remedy",
    "Change",
    "ChangeAction",
    "AdjustmentLevel",
    "AdjustmentSays",
    "ResolutionAction",
    "MatrixError",
    "UsageError",
    "LoadError",
    "Problem",
    "PredicateError",
    "ConfigError",
    "ResolutionError",
    "NoRunnerError",
    "UnsupportedFeatureError",
    "RemovedFeatureError",
    "AdjustmentError",
]


def __dir__() -> List[str]:
    return __all__


def __getattr__(name: str) -> object:
    # The findings of `matrix check` are exported too, but imported when asked for: the checker
    # is not needed to resolve, and `import matrix` stays small.
    if name in ("Finding", "Report", "Severity"):
        from . import check

        return getattr(check, name)
    if name in ("Remedies", "Remedy", "Change", "ChangeAction"):  # imported when a remedy is first asked for
        from . import _remedy

        return getattr(_remedy, name)
    if name == "Adjusted":  # imported where an adjustment may apply (matrix.resolver)
        from ._adjust import Adjusted

        return Adjusted
    if name == "ResolutionAction":  # imported when a report is first asked for
        from . import _report

        return _report.ResolutionAction
    raise AttributeError(f"module 'matrix' has no attribute {name!r}")


def resolve(config: object, *, runner: Optional[str] = None, version: Optional[VersionLike] = None,
            facts: Optional[Mapping[str, object]] = None, strict: bool = False) -> Resolution:
    """Resolve *config* against the packaged default matrix (see `Matrix.resolve`)."""
    return default().resolve(config, runner=runner, version=version, facts=facts, strict=strict)
