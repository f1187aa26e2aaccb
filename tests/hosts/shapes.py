"""Host config classes covering every mapping `matrix schema --from` makes (tests import them as
``tests.hosts.shapes``; the CLI tests import them from this folder as ``shapes``)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, Union

import attrs
import pydantic
from packaging.version import Version
from pydantic.dataclasses import dataclass as pydantic_dataclass


class Mode(enum.Enum):
    FAST = 1
    SAFE = 2


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass
class Leaf:
    depth: int = 3
    """How deep the leaf is.

    Only the first paragraph is kept."""


@dataclasses.dataclass
class Branch:
    leaf: Leaf = dataclasses.field(default_factory=Leaf)
    tags: List[str] = dataclasses.field(default_factory=lambda: ["a"])


@attrs.define
class Limits:
    gpus: int = attrs.field(default=1, metadata={"doc": "GPUs per node"})
    ids: Tuple[int, ...] = (1, 2)


class Tuning(pydantic.BaseModel):
    ratio: float = pydantic.Field(0.5, ge=0.0, le=1.0, description="A fraction")
    workers: int = pydantic.Field(4, gt=0, lt=65)
    margin: float = pydantic.Field(1.0, gt=0.0)
    label: Optional[str] = None


@pydantic_dataclass
class Extras:
    level: Annotated[int, pydantic.Field(ge=1)] = 2


@dataclasses.dataclass
class Job:
    flag: bool = False
    count: int = 0
    scale: float = 1.5
    name: str = "job"
    version: Version = dataclasses.field(default_factory=lambda: Version("1.2"))
    policy: Literal["fifo", "lifo"] = "fifo"
    priority: Literal[1, 2, 3] = 1
    mode: Mode = Mode.FAST
    color: Color = Color.RED
    maybe: Optional[int] = None
    either: Union[str, None] = "x"
    branch: Branch = dataclasses.field(default_factory=Branch)
    limits: Optional[Limits] = None
    tuning: Tuning = dataclasses.field(default_factory=Tuning)
    extras: Extras = dataclasses.field(default_factory=Extras)
    settings: Dict[str, Any] = dataclasses.field(default_factory=dict)
    backend: Union[str, type, None] = None
    weights: List[float] = dataclasses.field(default_factory=list)
    required: int = dataclasses.field(default=0, metadata={"description": "From metadata"})

    @property
    def is_big(self) -> bool:
        """Whether the job is big."""
        return self.count > 10


@dataclasses.dataclass
class Node:
    name: str = "n"
    child: Optional[Node] = None


# --- vLLM's config classes, shaped as vLLM 0.33.0 holds them (the fields the default matrix reads)

PositiveInt = Annotated[int, pydantic.Field(ge=1)]


class CompilationMode(enum.IntEnum):
    NONE = 0
    STOCK_TORCH_COMPILE = 1
    DYNAMO_TRACE_ONCE = 2
    VLLM_COMPILE = 3


class CUDAGraphMode(enum.Enum):
    NONE = 0
    PIECEWISE = 1
    FULL = 2
    FULL_DECODE_ONLY = (2, 0)
    FULL_AND_PIECEWISE = (2, 1)


class LogitsProcessor:
    """vLLM's base class of logits processors: ``logits_processors`` may hold subclasses."""


@dataclasses.dataclass
class CacheConfig:
    mamba_cache_mode: Literal["none", "align"] = "none"
    enable_prefix_caching: Optional[bool] = None


@dataclasses.dataclass
class PassConfig:
    fuse_norm_quant: bool = False


@dataclasses.dataclass
class CompilationConfig:
    mode: CompilationMode = CompilationMode.VLLM_COMPILE
    cudagraph_mode: CUDAGraphMode = CUDAGraphMode.FULL_AND_PIECEWISE
    pass_config: PassConfig = dataclasses.field(default_factory=PassConfig)


@dataclasses.dataclass
class ParallelConfig:
    tensor_parallel_size: PositiveInt = 1
    pipeline_parallel_size: PositiveInt = 1
    decode_context_parallel_size: PositiveInt = 1
    prefill_context_parallel_size: PositiveInt = 1
    distributed_executor_backend: Optional[Literal["ray", "mp", "uni", "external_launcher"]] = None
    use_ubatching: bool = False
    enable_elastic_ep: bool = False
    enable_batch_sharded_sampling: bool = False


@dataclasses.dataclass
class SchedulerConfig:
    async_scheduling: bool = False


@dataclasses.dataclass
class DraftModelConfig:
    architectures: List[str] = dataclasses.field(default_factory=list)
    max_model_len: Optional[int] = None


@dataclasses.dataclass
class SpeculativeConfig:
    method: Literal["ngram", "ngram_gpu", "draft_model", "suffix", "custom_class", "eagle", "eagle3",
                    "extract_hidden_states", "mtp", "dflash", "dspark"]
    parallel_drafting: bool = False
    enable_adaptive_verification: bool = False
    use_heterogeneous_vocab: bool = False
    draft_lm_head_quantization: Optional[Literal["fp8", "nvfp4"]] = None
    draft_model_config: Optional[DraftModelConfig] = None


@dataclasses.dataclass
class ModelConfig:
    logits_processors: Optional[List[Union[str, type[LogitsProcessor]]]] = None
    is_multimodal_model: bool = False
    is_encoder_decoder: bool = False
    is_hybrid: bool = False
    is_diffusion: bool = False
    max_model_len: Optional[int] = None


@dataclasses.dataclass
class LoRAConfig:
    max_loras: PositiveInt = 1


@dataclasses.dataclass
class HiSparseConfig:
    top_k: int = 2048


@dataclasses.dataclass
class AttentionConfig:
    hisparse_config: Optional[HiSparseConfig] = None


@dataclasses.dataclass
class WatermarkConfig:
    key: int = 0


@dataclasses.dataclass
class VllmConfig:
    """A config with no model (``model_config`` None) is one vLLM's tests and tools build."""

    model_config: Optional[ModelConfig] = None
    cache_config: CacheConfig = dataclasses.field(default_factory=CacheConfig)
    compilation_config: CompilationConfig = dataclasses.field(default_factory=CompilationConfig)
    parallel_config: ParallelConfig = dataclasses.field(default_factory=ParallelConfig)
    scheduler_config: SchedulerConfig = dataclasses.field(default_factory=SchedulerConfig)
    speculative_config: Optional[SpeculativeConfig] = None
    lora_config: Optional[LoRAConfig] = None
    attention_config: AttentionConfig = dataclasses.field(default_factory=AttentionConfig)
    watermark_config: Optional[WatermarkConfig] = None
    is_mm_encoder_only: bool = False


@dataclasses.dataclass
class PassConfigBefore032(PassConfig):
    """0.30.0 and 0.31.0: the sequence-parallelism pass (removed in 0.32.0)."""

    enable_sp: bool = False


def vllm_config(version: str, **sections: Any) -> VllmConfig:
    """A `VllmConfig` shaped as *version* holds it (before 0.32.0, `PassConfigBefore032`)."""
    config = VllmConfig(**sections)
    if Version(version) < Version("0.32.0"):
        passes = config.compilation_config.pass_config
        config.compilation_config.pass_config = PassConfigBefore032(
            fuse_norm_quant=passes.fuse_norm_quant, enable_sp=getattr(passes, "enable_sp", False))
    return config
