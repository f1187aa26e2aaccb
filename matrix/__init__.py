"""matrix: a declarative feature-support matrix engine.

Declare features, the condition under which a config uses each, which runners support them and
their deprecation lifecycle in one ``features.toml``; ask :func:`resolve` which runner serves a
config, what to warn about, and why.
"""

from __future__ import annotations

from typing import Mapping, Optional

from .errors import (ConfigError, LoadError, MatrixError, NoRunnerError, PredicateError, Problem,
                     RemovedFeatureError, ResolutionError, UnsupportedFeatureError, UsageError)
from .loader import default, load, loads
from .predicates import Predicate
from ._versions import VersionLike
from .resolver import Resolution, ResolutionWarning
from .schema import Deprecation, Feature, Field, Matrix, Runner, Schema, Statement

__all__ = [
    "load",
    "loads",
    "default",
    "resolve",
    "Matrix",
    "Feature",
    "Runner",
    "Statement",
    "Deprecation",
    "Field",
    "Schema",
    "Predicate",
    "Resolution",
    "ResolutionWarning",
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
]


def resolve(config: object, *, runner: Optional[str] = None, version: Optional[VersionLike] = None,
            facts: Optional[Mapping[str, object]] = None, strict: bool = False) -> Resolution:
    """Resolve *config* against the packaged default matrix (see `Matrix.resolve`)."""
    return default().resolve(config, runner=runner, version=version, facts=facts, strict=strict)
