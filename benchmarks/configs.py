"""Realistic vLLM configs as attribute objects (what vLLM's own config classes look like)."""

import enum
from types import SimpleNamespace as NS

#: The release `vllm_ifchain.py` transcribes: the benchmarks resolve the default matrix as of it,
#: so that both contenders answer the same question.
VERSION = "0.30.0"


def config(**changes):
    c = NS(
        cache_config=NS(mamba_cache_mode="none"),
        compilation_config=NS(mode="VLLM_COMPILE", pass_config=NS(enable_sp=False), cudagraph_mode="FULL_AND_PIECEWISE"),
        parallel_config=NS(tensor_parallel_size=1, pipeline_parallel_size=1, decode_context_parallel_size=1,
                           prefill_context_parallel_size=1, distributed_executor_backend=None, use_ubatching=False,
                           enable_elastic_ep=False, enable_batch_sharded_sampling=False),
        scheduler_config=NS(async_scheduling=False),
        speculative_config=None,
        model_config=NS(logits_processors=[], is_multimodal_model=False, is_encoder_decoder=False, is_hybrid=False,
                        is_diffusion=False, architectures=["LlamaForCausalLM"], architecture="LlamaForCausalLM"),
        lora_config=None,
        attention_config=NS(hisparse_config=None),
        watermark_config=None,
        is_mm_encoder_only=False,
        platform=NS(has_triton=True, logits_processor_plugins=False, is_rocm=False, is_unspecified=False),
    )
    for path, value in changes.items():
        target = c
        parts = path.split("__")
        for part in parts[:-1]:
            target = getattr(target, part)
        setattr(target, parts[-1], value)
    return c


SAMPLES = [
    config(),
    config(parallel_config__tensor_parallel_size=8, lora_config=NS(max_loras=4)),
    config(speculative_config=NS(method="eagle3", parallel_drafting=False, enable_adaptive_verification=False,
                                 draft_lm_head_quantization=None, use_heterogeneous_vocab=False,
                                 draft_model_config=NS(architectures=["Eagle3LlamaForCausalLM"], mixed_sliding_attention=False))),
    config(cache_config__mamba_cache_mode="all"),
    config(speculative_config=NS(method="ngram", parallel_drafting=False, enable_adaptive_verification=False,
                                 draft_lm_head_quantization=None, use_heterogeneous_vocab=False,
                                 draft_model_config=None)),
    config(parallel_config__use_ubatching=True),
]


class _Size(enum.IntEnum):
    TWO = 2


class _Name(str):
    pass


_EAGLE = dict(method="eagle3", parallel_drafting=False, enable_adaptive_verification=False,
              draft_lm_head_quantization=None, use_heterogeneous_vocab=False)

#: Configs the chains' answers are checked on besides SAMPLES (not timed): the gates that force
#: or prefer a runner, each runner blocked, a model-less config, the values the engine accepts
#: beside the plain ones (an int enum, a str subclass, a tuple, a class for a name, a dict).
CHECKED = SAMPLES + [
    config(watermark_config=NS()),
    config(watermark_config=NS(), cache_config__mamba_cache_mode="all"),
    config(watermark_config=NS(), parallel_config__prefill_context_parallel_size=2),
    config(platform__is_rocm=True, model_config__architectures=["DeepseekV32ForCausalLM"]),
    config(platform__is_rocm=True, model_config__architectures=("GlmMoeDsaForCausalLM",),
           parallel_config__prefill_context_parallel_size=2),
    config(platform__is_rocm=True, model_config__architectures=["DeepseekV32ForCausalLM"], watermark_config=NS()),
    config(platform__is_rocm=True),
    config(cache_config__mamba_cache_mode="all", model_config__is_diffusion=True),
    config(model_config=None, platform__logits_processor_plugins=True),
    config(platform__logits_processor_plugins=True),
    config(model_config__logits_processors=[NS]),
    config(lora_config={}, parallel_config__use_ubatching=True, compilation_config__cudagraph_mode="PIECEWISE"),
    config(compilation_config__pass_config__enable_sp=True, parallel_config__tensor_parallel_size=2 ** 70),
    config(compilation_config__pass_config__enable_sp=True, parallel_config__tensor_parallel_size=_Size.TWO,
           compilation_config__mode=_Name("STOCK_TORCH_COMPILE")),
    config(parallel_config__distributed_executor_backend="external_launcher", parallel_config__pipeline_parallel_size=2),
    config(attention_config__hisparse_config=NS(), parallel_config__enable_batch_sharded_sampling=True),
    config(speculative_config=NS(**dict(_EAGLE, method="dflash", enable_adaptive_verification=True, parallel_drafting=True),
                                 draft_model_config=NS(architectures=["DFlash2DraftModel"], mixed_sliding_attention=True))),
    config(speculative_config=NS(**dict(_EAGLE, method="dspark", parallel_drafting=True), draft_model_config=None)),
    config(speculative_config=NS(**dict(_EAGLE, method="eagle", parallel_drafting=True), draft_model_config=None)),
]
