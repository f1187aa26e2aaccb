"""frames' next release, for the drift example: a field renamed, a format dropped and one added."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

from .config import Join, SpillConfig


@dataclass
class IoConfig:
    format: Literal["csv", "parquet", "avro"] = "csv"
    """The input file's format."""
    lazy: bool = False
    """Plan the query, read on collect."""


@dataclass
class QueryConfig:
    n_threads: int = 1
    """Worker threads."""
    udf: bool = False
    """The query calls a Python function per row."""
    join: Join = Join.HASH
    """How frames are joined."""


@dataclass
class FramesConfig:
    io: IoConfig = field(default_factory=IoConfig)
    query: QueryConfig = field(default_factory=QueryConfig)
    spill: Optional[SpillConfig] = None
    """None when the engine may use all memory."""
