"""vLLM's model-runner check as vLLM writes it: a hand-written if chain over the config object.

The same gates as the default features.toml at 0.30.0, in the same order, appending display
strings to one list per runner, then choosing: V2 if watermarking forces it, V1 if the ROCm
default for DeepSeek V3.2 / V4 and GLM-MoE-DSA prefers it, else V2 if nothing blocks it, else
V1. This is the baseline that `matrix.resolve` is measured against. It reads only the values its
tests need and checks none: `vllm_ifchain_checked.py` is the same chain checking every value it
reads, as `resolve` does.
"""


def blockers(c):  # noqa: C901 — the baseline measured is vLLM's if chain as vLLM writes it, one function
    pc = c.parallel_config
    sc = c.speculative_config
    mc = c.model_config
    v2 = []
    if c.compilation_config.mode == "STOCK_TORCH_COMPILE":
        v2.append("stock torch.compile")
    if c.compilation_config.pass_config.enable_sp and pc.tensor_parallel_size > 1:
        v2.append("sequence parallelism")
    if pc.distributed_executor_backend == "external_launcher" and pc.pipeline_parallel_size > 1:
        v2.append("pipeline parallelism with external_launcher")
    method = sc.method if sc is not None else None
    if method in ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class"):
        v2.append(f"speculative method '{method}'")
    if sc is not None and sc.parallel_drafting and method not in ("dflash", "dspark"):
        v2.append("parallel drafting for EAGLE speculative decoding")
    if pc.use_ubatching:
        v2.append("dual batch overlap")
    if pc.use_ubatching and c.lora_config is not None:
        v2.append("dual batch overlap with LoRA")
    if pc.use_ubatching and sc is not None:
        v2.append("dual batch overlap with speculative decoding")
    if pc.use_ubatching and pc.pipeline_parallel_size > 1:
        v2.append("dual batch overlap with pipeline parallelism")
    if pc.use_ubatching and (pc.decode_context_parallel_size > 1 or pc.prefill_context_parallel_size > 1):
        v2.append("dual batch overlap with context parallelism")
    if pc.use_ubatching and (mc.is_multimodal_model or mc.is_encoder_decoder):
        v2.append("dual batch overlap with multimodal models")
    if pc.use_ubatching and mc.is_hybrid:
        v2.append("dual batch overlap with hybrid models")
    if pc.use_ubatching and c.compilation_config.cudagraph_mode == "PIECEWISE":
        v2.append("dual batch overlap with PIECEWISE CUDA graphs")
    if pc.use_ubatching and c.is_mm_encoder_only:
        v2.append("dual batch overlap with encoder only models")
    if pc.enable_elastic_ep:
        v2.append("elastic expert parallelism")
    if mc.logits_processors or c.platform.logits_processor_plugins:
        v2.append("custom logits processors")
    if c.cache_config.mamba_cache_mode == "all":
        v2.append("mamba cache mode 'all'")
    if not c.platform.has_triton:
        v2.append("missing Triton")
    v1 = []
    if pc.prefill_context_parallel_size > 1:
        v1.append("prefill context parallel")
    if method == "dspark":
        v1.append("dspark speculative decoding")
    if sc is not None and sc.enable_adaptive_verification:
        v1.append("adaptive draft verification")
    dm = sc.draft_model_config if sc is not None else None
    if method == "dflash" and dm is not None and dm.mixed_sliding_attention:
        v1.append("mixed sliding/full dflash drafts")
    if method == "dflash" and dm is not None and "DFlash2DraftModel" in dm.architectures:
        v1.append("dflash2 drafts")
    if mc.is_diffusion:
        v1.append("diffusion models")
    if pc.enable_batch_sharded_sampling:
        v1.append("batch-sharded sampling")
    if c.attention_config.hisparse_config is not None:
        v1.append("HiSparse")
    forced = preferred = None
    if c.watermark_config is not None:
        v1.append("watermarking")
        forced = "v2"
    if c.platform.is_rocm and any(a in ("DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "GlmMoeDsaForCausalLM")
                                  for a in mc.architectures):
        preferred = "v1"
    return v2, v1, forced, preferred


def choose(c):
    v2, v1, forced, preferred = blockers(c)
    if forced == "v2" or preferred is None and not v2:
        if v2:
            raise ValueError(f"Model Runner V2 does not support: {', '.join(v2)}")
        return "v2"
    if v1:
        raise ValueError(f"Model Runner V1 does not support: {', '.join(v1)}")
    return "v1"
