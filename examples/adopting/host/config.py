"""Config classes shaped like vLLM's (vllm/config/*.py), cut down to what the gates read."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal, Optional

MambaCacheMode = Literal["none", "align", "all"]
SpeculativeMethod = Literal["ngram", "draft_model", "eagle", "eagle3", "mtp"]


class CompilationMode(enum.IntEnum):
    NONE = 0
    STOCK_TORCH_COMPILE = 1
    DYNAMO_TRACE_ONCE = 2
    VLLM_COMPILE = 3


@dataclass
class CacheConfig:
    mamba_cache_mode: MambaCacheMode = "none"
    """How the Mamba state cache is kept."""


@dataclass
class ParallelConfig:
    tensor_parallel_size: int = 1
    """Number of tensor parallel groups."""
    pipeline_parallel_size: int = 1
    """Number of pipeline parallel groups."""
    enable_elastic_ep: bool = False
    """Elastic expert parallelism."""


@dataclass
class CompilationConfig:
    mode: CompilationMode = CompilationMode.VLLM_COMPILE
    """The compilation approach."""


@dataclass
class SpeculativeConfig:
    method: SpeculativeMethod = "eagle"
    """The speculative decoding method."""


@dataclass
class VllmConfig:
    cache_config: CacheConfig = field(default_factory=CacheConfig)
    parallel_config: ParallelConfig = field(default_factory=ParallelConfig)
    compilation_config: CompilationConfig = field(default_factory=CompilationConfig)
    speculative_config: Optional[SpeculativeConfig] = None
    """None when speculative decoding is off."""
