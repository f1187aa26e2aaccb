"""vLLM's own support checks, transcribed by hand from shared/reference/vllm-model-runners.md.

This is deliberately written the way vLLM writes it (an if-chain that appends display strings)
and independently of features.toml, so that the engine's answers can be checked against it.
"""

from packaging.version import Version

V2_UNSUPPORTED_METHODS = ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class")

DEFAULTS = {
    "cache_config.mamba_cache_mode": "none",
    "compilation_config.mode": "VLLM_COMPILE",
    "compilation_config.pass_config.enable_sp": False,
    "compilation_config.cudagraph_mode": "FULL_AND_PIECEWISE",
    "parallel_config.tensor_parallel_size": 1,
    "parallel_config.pipeline_parallel_size": 1,
    "parallel_config.decode_context_parallel_size": 1,
    "parallel_config.prefill_context_parallel_size": 1,
    "parallel_config.distributed_executor_backend": None,
    "parallel_config.use_ubatching": False,
    "parallel_config.enable_elastic_ep": False,
    "parallel_config.enable_batch_sharded_sampling": False,
    "scheduler_config.async_scheduling": False,
    "speculative_config": None,
    "speculative_config.parallel_drafting": False,
    "speculative_config.enable_adaptive_verification": False,
    "speculative_config.draft_model_config": None,
    "speculative_config.draft_model_config.architectures": [],
    "speculative_config.draft_model_config.mixed_sliding_attention": False,
    "model_config.logits_processors": [],
    "model_config.is_multimodal_model": False,
    "model_config.is_encoder_decoder": False,
    "model_config.is_hybrid": False,
    "model_config.is_diffusion": False,
    "lora_config": None,
    "attention_config.hisparse_config": None,
    "is_mm_encoder_only": False,
    "platform.has_triton": True,
    "platform.logits_processor_plugins": False,
}


def get(config, path):
    value = config
    for part in path.split("."):
        if value is None:
            return None
        if part not in value:
            return DEFAULTS.get(path)
        value = value[part]
    return value


def v2_blockers(c, version="0.30.0"):
    """What blocks V2 when the user asks for it (the DBO rows in full)."""
    v = Version(version)
    out = []
    if get(c, "compilation_config.mode") == "STOCK_TORCH_COMPILE":
        out.append("stock torch.compile")
    if get(c, "compilation_config.pass_config.enable_sp") and get(c, "parallel_config.tensor_parallel_size") > 1:
        out.append("sequence parallelism")
    if get(c, "parallel_config.distributed_executor_backend") == "external_launcher" and get(c, "parallel_config.pipeline_parallel_size") > 1:
        out.append("pipeline parallelism with external_launcher")
    method = get(c, "speculative_config.method")
    unsupported_methods = [m for m in V2_UNSUPPORTED_METHODS if not (m == "draft_model" and v >= Version("0.31.0"))]
    if method in unsupported_methods:
        out.append(f"speculative method '{method}'")
    if get(c, "speculative_config.parallel_drafting") and method not in ("dflash", "dspark"):
        out.append("parallel drafting for EAGLE speculative decoding")
    if get(c, "parallel_config.use_ubatching"):
        out.append("dual batch overlap")
        if get(c, "lora_config") is not None:
            out.append("dual batch overlap with LoRA")
        if get(c, "speculative_config") is not None:
            out.append("dual batch overlap with speculative decoding")
        if get(c, "parallel_config.pipeline_parallel_size") > 1:
            out.append("dual batch overlap with pipeline parallelism")
        if get(c, "parallel_config.decode_context_parallel_size") > 1 or get(c, "parallel_config.prefill_context_parallel_size") > 1:
            out.append("dual batch overlap with context parallelism")
        if get(c, "model_config.is_multimodal_model") or get(c, "model_config.is_encoder_decoder"):
            out.append("dual batch overlap with multimodal models")
        if get(c, "model_config.is_hybrid"):
            out.append("dual batch overlap with hybrid models")
        if get(c, "compilation_config.cudagraph_mode") == "PIECEWISE":
            out.append("dual batch overlap with PIECEWISE CUDA graphs")
        if get(c, "is_mm_encoder_only"):
            out.append("dual batch overlap with encoder only models")
    if get(c, "parallel_config.enable_elastic_ep"):
        out.append("elastic expert parallelism")
    if v < Version("0.31.0") and (get(c, "model_config.logits_processors") or get(c, "platform.logits_processor_plugins")):
        out.append("custom logits processors")
    if get(c, "cache_config.mamba_cache_mode") == "all":
        out.append("mamba cache mode 'all'")
    if not get(c, "platform.has_triton"):
        out.append("missing Triton")
    return out


def v1_blockers(c, version="0.30.0"):
    v = Version(version)
    out = []
    method = get(c, "speculative_config.method")
    archs = get(c, "speculative_config.draft_model_config.architectures") or []
    if get(c, "parallel_config.prefill_context_parallel_size") > 1:
        out.append("prefill context parallel")
    if method == "dspark":
        out.append("dspark speculative decoding")
    if get(c, "speculative_config.enable_adaptive_verification"):
        out.append("adaptive draft verification")
    if method == "dflash" and get(c, "speculative_config.draft_model_config.mixed_sliding_attention"):
        out.append("mixed sliding/full dflash drafts")
    if v < Version("0.31.0"):
        if method == "dflash" and "DFlash2DraftModel" in archs:
            out.append("dflash2 drafts")
    elif method == "dflash" and ("DFlash2DraftModel" in archs or "LiLiCorrDraftModel" in archs):
        out.append("DFlash candidate-head drafts")
    if get(c, "model_config.is_diffusion"):
        out.append("diffusion models")
    if get(c, "parallel_config.enable_batch_sharded_sampling"):
        out.append("batch-sharded sampling")
    if get(c, "attention_config.hisparse_config") is not None:
        out.append("HiSparse")
    if v >= Version("0.31.0") and get(c, "parallel_config.pipeline_parallel_size") > 1 and get(c, "scheduler_config.async_scheduling"):
        out.append("pipeline parallelism with async scheduling")
    return out
