"""vLLM's own support checks and runner choice, 0.30.0 to 0.33.0, transcribed by hand from
shared/reference/vllm-model-runners.md.

This is deliberately written the way vLLM writes it (an if-chain that appends display strings,
then the choice as a sequence of early returns) and independently of features.toml, so that
the engine's answers can be checked against it: the lists vLLM builds, the choice, and what it
reports (`says`). It reads a config as vLLM's code does: nested dicts or vLLM's own objects
(enum members, None sections, classes among the logits processors), with the host's facts
beside them (`Host`). Two conventions of the matrix are kept: "missing Triton" is a V2
blocker (vLLM reports it on its own), and a removed setting ends the choice before any runner
("removed"). `fallback_text` and `error_text` are vLLM's own words. `v1_blockers` is vLLM's V1
list exactly; vLLM builds it only when it validates V1, which it never does while HiSparse or
watermarking is active (`forcing_v2`: both are checked first, and V2 is then validated alone).
"""

import enum

from packaging.version import Version

V030, V031, V032, V033 = Version("0.30.0"), Version("0.31.0"), Version("0.32.0"), Version("0.33.0")
ROCM_V1_ARCHS = ("DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "GlmMoeDsaForCausalLM")

DEFAULTS = {
    "cache_config.mamba_cache_mode": "none",
    "cache_config.enable_prefix_caching": None,  # the facts do not give vLLM's default
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
    "speculative_config.use_heterogeneous_vocab": False,
    "speculative_config.draft_lm_head_quantization": None,
    "speculative_config.draft_model_config": None,
    "speculative_config.draft_model_config.architectures": [],
    "speculative_config.draft_model_config.max_model_len": None,
    "speculative_config.draft_model_config.mixed_sliding_attention": False,
    "model_config": None,  # vLLM's VllmConfig() has no model config
    "model_config.logits_processors": None,
    "model_config.is_multimodal_model": False,
    "model_config.is_encoder_decoder": False,
    "model_config.is_hybrid": False,
    "model_config.is_diffusion": False,
    "model_config.max_model_len": None,
    "model_config.architectures": [],
    "model_config.architecture": "",
    "watermark_config": None,
    "lora_config": None,
    "attention_config.hisparse_config": None,
    "is_mm_encoder_only": False,
    "platform.has_triton": True,
    "platform.logits_processor_plugins": False,
    "platform.is_rocm": False,
    "platform.is_unspecified": False,
}


class Host:
    """A host's config object (vLLM's own classes, or the nested dicts the matrix reads) and the
    facts it passes beside it, as ``resolve(config, facts=...)`` takes them."""

    def __init__(self, config, facts=None):
        self.config, self.facts = config, facts or {}


_ABSENT = object()


def get(config, path):
    """What vLLM's code reads at *path*: None through a section that is None, an enum member by
    its name (vLLM compares members), the default for what a dict or object leaves out."""
    facts = {}
    if isinstance(config, Host):
        config, facts = config.config, config.facts
    value = config
    parts = path.split(".")
    for index, part in enumerate(parts):
        if value is None:
            return None
        prefix = ".".join(parts[: index + 1])
        if prefix in facts:
            value = facts[prefix]
            continue
        value = value.get(part, _ABSENT) if isinstance(value, dict) else getattr(value, part, _ABSENT)
        if value is _ABSENT:  # (vLLM's VllmConfig has no platform: the host passes it as facts)
            return facts.get(path, DEFAULTS.get(path))
    return value.name if isinstance(value, enum.Enum) else value


def _v2_methods(v):
    if v < V031:
        return ("ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class")
    if v < V032:
        return ("ngram", "ngram_gpu", "suffix", "medusa", "mlp_speculator", "custom_class")
    if v < V033:
        return ("suffix", "medusa", "mlp_speculator", "custom_class")
    return ("suffix", "custom_class")


def missing_triton(c, version):
    """The automatic fallback for missing Triton (and, before 0.33.0, V2's own Triton error)."""
    if Version(version) >= V033:
        return not get(c, "platform.has_triton") and not get(c, "platform.is_unspecified")
    return not get(c, "platform.has_triton")


def v2_blockers(c, version="0.33.0", detailed=False):  # noqa: C901 — vLLM's V2 model-runner checks transcribed line for line, to be read against its source
    """What blocks V2. *detailed*: the "with …" DBO rules (VLLM_USE_V2_MODEL_RUNNER set, to
    either value); otherwise (unset: automatic choice) only the collapsed "dual batch overlap"."""
    v = Version(version)
    out = []
    stock = get(c, "compilation_config.mode") == "STOCK_TORCH_COMPILE"
    if v < V032 and stock:
        out.append("stock torch.compile")
    if v < V032 and get(c, "compilation_config.pass_config.enable_sp") and get(c, "parallel_config.tensor_parallel_size") > 1:
        out.append("sequence parallelism")
    if get(c, "parallel_config.distributed_executor_backend") == "external_launcher" and get(c, "parallel_config.pipeline_parallel_size") > 1:
        out.append("pipeline parallelism with external_launcher")
    method = get(c, "speculative_config.method")
    if method in _v2_methods(v):
        out.append(f"speculative method '{method}'")
    if get(c, "speculative_config.parallel_drafting") and method not in ("dflash", "dspark"):
        out.append("parallel drafting for EAGLE speculative decoding")
    if v >= V032 and get(c, "speculative_config.use_heterogeneous_vocab"):
        out.append("heterogeneous-vocabulary draft models")
    if get(c, "parallel_config.use_ubatching"):
        if not detailed:
            out.append("dual batch overlap")
        else:
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
            # From 0.32.0 V2 turns CUDA graphs off for stock torch.compile before it is validated.
            if get(c, "compilation_config.cudagraph_mode") == "PIECEWISE" and not (v >= V032 and stock):
                out.append("dual batch overlap with PIECEWISE CUDA graphs")
            if get(c, "is_mm_encoder_only"):
                out.append("dual batch overlap with encoder only models")
    if v < V032 and get(c, "parallel_config.enable_elastic_ep"):
        out.append("elastic expert parallelism")
    # 0.30.0 looks for installed logits-processor plugins only when there is a model config.
    if v < V031 and (get(c, "model_config.logits_processors") or (
            get(c, "model_config") is not None and get(c, "platform.logits_processor_plugins"))):
        out.append("custom logits processors")
    if v < V032 and get(c, "cache_config.mamba_cache_mode") == "all":
        out.append("mamba cache mode 'all'")
    if missing_triton(c, version):
        out.append("missing Triton")
    return out


def v1_blockers(c, version="0.33.0"):
    v = Version(version)
    out = []
    method = get(c, "speculative_config.method")
    draft = get(c, "speculative_config.draft_model_config")
    archs = get(c, "speculative_config.draft_model_config.architectures") or []
    if get(c, "parallel_config.prefill_context_parallel_size") > 1:
        out.append("prefill context parallel")
    if v >= V031 and get(c, "parallel_config.pipeline_parallel_size") > 1 and get(c, "scheduler_config.async_scheduling"):
        out.append("pipeline parallelism with async scheduling")
    if method == "dspark":
        out.append("dspark speculative decoding")
    elif v >= V033 and method == "dflash" and draft is not None and (
            "Qwen3XPressModel" in archs or "DFlashQwen3XPressModel" in archs):
        out.append("xpress speculative decoding")
    if get(c, "speculative_config.enable_adaptive_verification"):
        out.append("adaptive draft verification")
    if v >= V033 and get(c, "speculative_config.draft_lm_head_quantization") is not None:
        out.append("draft lm_head quantization")
    if v >= V033 and draft is not None and "ParseAuxMTPModel" in archs:
        out.append("Parse 3.5 MTP")
    if method == "dflash" and get(c, "speculative_config.draft_model_config.mixed_sliding_attention"):
        out.append("mixed sliding/full dflash drafts")
    if v < V031:
        if method == "dflash" and "DFlash2DraftModel" in archs:
            out.append("dflash2 drafts")
    else:
        candidates = ("DFlash2DraftModel", "LiLiCorrDraftModel") + (("DFlash2BeamDraftModel",) if v >= V033 else ())
        if method == "dflash" and any(a in archs for a in candidates):
            out.append("DFlash candidate-head drafts")
    if get(c, "model_config.is_diffusion"):
        out.append("diffusion models")
    if get(c, "parallel_config.enable_batch_sharded_sampling"):
        out.append("batch-sharded sampling")
    if v >= V033 and get(c, "model_config.architecture") in ("Step5ForCausalLM", "Step5ForConditionalGeneration"):
        out.append("Step5")
    return out


def forcing_v2(c):
    """The features vLLM checks before anything else and that make it use V2 ("HiSparse
    requires Model Runner V2", "Watermarking requires Model Runner V2"): while one is active,
    V1 is never validated."""
    return [name for name, path in (("HiSparse", "attention_config.hisparse_config"),
                                    ("watermarking", "watermark_config")) if get(c, path) is not None]


def _removed(c, v):
    if v >= V032 and get(c, "cache_config.mamba_cache_mode") == "all":
        return True
    if v >= V032 and get(c, "compilation_config.pass_config.enable_sp"):
        return True
    return v >= V033 and get(c, "speculative_config.method") in ("medusa", "mlp_speculator")


def _validate_v2(c, version, detailed):
    if v2_blockers(c, version, detailed=detailed):
        return None, "error"  # "Model Runner V2 does not yet support: …" (or its Triton error)
    return "v2", None


def _validate_v1(c, version):
    assert not forcing_v2(c), "vLLM checks HiSparse and watermarking before it validates V1"
    if v1_blockers(c, version):
        return None, "error"
    return "v1", None


def choose(c, version="0.33.0", asked=None):
    """``(runner, None)`` or ``(None, "removed" | "error")``: vLLM's choice with the runner
    *asked* for (VLLM_USE_V2_MODEL_RUNNER=1 → "v2", =0 → "v1") or automatically (None)."""
    v = Version(version)
    if _removed(c, v):
        return None, "removed"
    if get(c, "attention_config.hisparse_config") is not None:
        if asked == "v1":
            return None, "error"  # "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0."
        return _validate_v2(c, version, detailed=asked is not None)
    if get(c, "watermark_config") is not None:
        # V1 asked for is overridden (logged at info level); the variable is set either way.
        return _validate_v2(c, version, detailed=asked is not None)
    if asked == "v2":
        return _validate_v2(c, version, detailed=True)
    if asked == "v1":
        return _validate_v1(c, version)
    archs = get(c, "model_config.architectures") or []
    if v < V032 and get(c, "platform.is_rocm") and any(a in archs for a in ROCM_V1_ARCHS):
        if v < V031:
            return _validate_v1(c, version)  # "Defaulting to V1 model runner on ROCm …"
        if not _validate_v1(c, version)[1]:
            return "v1", None
        # "Skipping the ROCm V1 model runner default …": the usual checks follow.
    if missing_triton(c, version):
        return _validate_v1(c, version)  # "Model Runner V2 requires Triton; using the V1 model runner instead."
    if v2_blockers(c, version, detailed=False):
        return _validate_v1(c, version)
    return "v2", None


V1_NAME, V2_NAME = "Model Runner V1", "Model Runner V2"


def fallback_text(v2):
    """The fallback vLLM logs in automatic choice (no colon before the list)."""
    return f"Model Runner V2 does not yet support {', '.join(v2)}; using the V1 model runner instead."


def error_text(runner, v2, v1):
    """The ValueError vLLM raises when it validates *runner* and its list is not empty."""
    if runner == "v2":
        return f"Model Runner V2 does not yet support: {', '.join(v2)}"
    return f"Model Runner V1 does not support: {', '.join(v1)}"
# The facts give "<list>" / "<archs>" for the architectures and V1's blockers: said here as
# vLLM's lists are said, joined by ", ".
ROCM_DEFAULT = "Defaulting to V1 model runner on ROCm for model architectures: {}"
ROCM_SKIPPED = "Skipping the ROCm V1 model runner default for {}: V1 does not support {}."
WATERMARK_OVERRIDE = "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0."
HISPARSE_ERROR = "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0."


def says(c, version="0.33.0", asked=None):
    """What vLLM reports: ``(v2 list, v1 list, messages)``. The lists are the display strings
    vLLM appends (V2's collapsed or detailed as the variable is unset or set); *messages* are
    ``(kind, what)`` in the order vLLM gives them: ``("deprecated", name)``, ``("override",
    text)``, ``("preference", text)`` (the ROCm default taken, or in 0.31.0 skipped because
    V1 is blocked: vLLM's notices, naming the architectures found), ``("fallback", v2 list)`` (automatic, V1 used instead), ``("partial",
    name)``, ``("adjusted", text)`` (0.32.0 on: V2 turns CUDA graphs off for stock torch.compile,
    when they are on, with vLLM's text; where the facts give no text, the matrix's adjustment id:
    the Mamba cache mode before anything is chosen, V2's max_model_len), and last, when vLLM
    raises, ``("error", runner validated)`` or ``("error", "hisparse")``."""
    v = Version(version)
    hisparse = get(c, "attention_config.hisparse_config") is not None
    watermark = get(c, "watermark_config") is not None
    v2 = v2_blockers(c, version, detailed=asked is not None)
    v1 = v1_blockers(c, version)
    messages = [("adjusted", said) for _, _, said in _pre_adjustments(c, v)]
    if v < V032 and get(c, "cache_config.mamba_cache_mode") == "all":
        messages.append(("deprecated", "mamba cache mode 'all'"))
    if _removed(c, v):
        return v2, v1, messages
    runner, error = choose(c, version, asked)
    if hisparse and asked == "v1":
        return v2, v1, messages + [("error", "hisparse")]
    if not hisparse and watermark and asked == "v1":
        messages.append(("override", WATERMARK_OVERRIDE))
    if asked is None and not hisparse and not watermark:
        archs = get(c, "model_config.architectures") or []
        rocm = [a for a in archs if a in ROCM_V1_ARCHS] if v < V032 and get(c, "platform.is_rocm") else []
        v1_free = not v1
        if rocm and (v < V031 or v1_free):
            messages.append(("preference", ROCM_DEFAULT.format(", ".join(rocm))))
            return v2, v1, messages + ([] if v1_free else [("error", "v1")])
        if rocm:
            messages.append(("preference", ROCM_SKIPPED.format(", ".join(rocm), ", ".join(v1))))
        if v2:
            messages.append(("fallback", v2))
            return v2, v1, messages + ([] if runner else [("error", "v1")])
    validated = "v1" if asked == "v1" and not watermark else "v2"
    if error or runner == "v2":  # V2 is in use: its overrides are logged before it is validated
        messages += [("adjusted", text) for _, _, text in _v2_adjustments(c, v)] if validated == "v2" else []
    if error:
        return v2, v1, messages + [("error", validated)]
    return v2, v1, messages


STOCK_OVERRIDE = ("CUDA graphs are not supported with stock torch.compile in Model Runner V2. "
                  "Overriding cudagraph_mode {} to NONE.")


def _pre_adjustments(c, v):
    """``(path, value, what is said)`` of what vLLM changes before any runner is chosen: for
    Mamba/hybrid models (0.32.0 on) the cache mode follows prefix caching (unknown: left)."""
    if v < V032 or not get(c, "model_config.is_hybrid") or get(c, "cache_config.mamba_cache_mode") == "all":
        return []
    caching = get(c, "cache_config.enable_prefix_caching")
    wanted = {True: "align", False: "none"}.get(caching)
    if wanted is None or get(c, "cache_config.mamba_cache_mode") == wanted:
        return []
    return [("cache_config.mamba_cache_mode", wanted, "mamba_cache_align" if caching else "mamba_cache_none")]


def _v2_adjustments(c, v):
    """What V2 changes when it is used: CUDA graphs off under stock torch.compile (0.32.0 on),
    max_model_len lowered to the draft model's when that is smaller (0.33.0 on)."""
    out = []
    mode = get(c, "compilation_config.cudagraph_mode")
    if v >= V032 and get(c, "compilation_config.mode") == "STOCK_TORCH_COMPILE" and mode != "NONE":
        out.append(("compilation_config.cudagraph_mode", "NONE", STOCK_OVERRIDE.format(mode)))
    target, draft = get(c, "model_config.max_model_len"), get(c, "speculative_config.draft_model_config.max_model_len")
    if v >= V033 and target is not None and draft is not None and draft < target:
        out.append(("model_config.max_model_len", draft, "draft_max_model_len"))
    return out


def effective(c, version="0.33.0", asked=None):
    """The values vLLM changes in the config it runs with (path → value), when it runs."""
    v = Version(version)
    runner, _ = choose(c, version, asked)
    if runner is None:
        return None
    changed = {path: value for path, value, _ in _pre_adjustments(c, v)}
    if runner == "v2":
        changed.update((path, value) for path, value, _ in _v2_adjustments(c, v))
    return changed
