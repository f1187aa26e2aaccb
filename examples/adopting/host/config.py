"""frames' config classes, cut down to what its choice of engine reads."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, Optional

FileFormat = Literal["csv", "parquet", "json"]


class Join(str, enum.Enum):
    HASH = "hash"
    SORT_MERGE = "sort_merge"
    ASOF = "asof"


@dataclass
class IoConfig:
    format: FileFormat = "csv"
    """The input file's format."""
    lazy: bool = False
    """Plan the query, read on collect."""


@dataclass
class QueryConfig:
    threads: int = 1
    """Worker threads."""
    udf: bool = False
    """The query calls a Python function per row."""
    join: Join = Join.HASH
    """How frames are joined."""


@dataclass
class SpillConfig:
    memory_limit_mb: int = 1024
    """Memory the engine may use before it spills to disk."""


@dataclass
class FramesConfig:
    io: IoConfig = field(default_factory=IoConfig)
    query: QueryConfig = field(default_factory=QueryConfig)
    spill: Optional[SpillConfig] = None
    """None when the engine may use all memory."""
