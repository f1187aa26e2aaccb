"""The host's next release, for the README's drift example: a field renamed, a method dropped."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

from .config import CompilationConfig, ParallelConfig


@dataclass
class CacheConfig:
    mamba_mode: Literal["none", "align", "all"] = "none"
    """How the Mamba state cache is kept."""


@dataclass
class SpeculativeConfig:
    method: Literal["ngram", "eagle", "eagle3", "mtp", "suffix"] = "eagle"
    """The speculative decoding method."""


@dataclass
class VllmConfig:
    cache_config: CacheConfig = field(default_factory=CacheConfig)
    parallel_config: ParallelConfig = field(default_factory=ParallelConfig)
    compilation_config: CompilationConfig = field(default_factory=CompilationConfig)
    speculative_config: Optional[SpeculativeConfig] = None
    """None when speculative decoding is off."""
