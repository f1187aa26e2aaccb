"""vLLM 0.33.0's attention-backend selection on CUDA for non-MLA layers, transcribed by hand as
plain Python from `../shared/reference/vllm-attention-backends.md` (sections 4, 5, 7 and 8),
independently of `examples/vllm-attention/`: the tests check that the matrix answers as this does.

A config is the nested dict the matrix reads (``selector``, ``device``, and the facts ``fa``
and ``flashinfer`` that the host computes with vLLM's own helpers).
"""

from packaging.version import Version

BACKENDS = ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT", "TRITON_FLASHINFER",
            "TRITON_FLASH_ATTN")
UNQUANTIZED = ("auto", "float16", "bfloat16")
NVFP4 = ("nvfp4", "nvfp4_4over6", "nvfp4_ds_mla")  # the values that start with "nvfp4"
TURBOQUANT = ("turboquant_k8v4", "turboquant_4bit_nc", "turboquant_k3v4_nc", "turboquant_3bit_nc")


def _cc(config):
    """The compute capability, compared as vLLM compares (major, minor) tuples: as a version."""
    return Version(config["device"]["capability"])


def _get(config, section, key, default):
    return config.get(section, {}).get(key, default)


def _selector(config):
    s = {"kv_cache_dtype": "auto", "block_size": None, "attn_type": "decoder"}
    for flag in ("use_mla", "has_sink", "use_sparse", "use_mm_prefix", "use_per_head_quant_scales",
                 "has_sliding_window", "use_non_causal", "use_batch_invariant", "use_kv_connector", "use_pcp",
                 "use_dcp", "use_adaptive_verification", "use_rswa"):
        s[flag] = False
    s.update(config["selector"])
    return s


def _fa_combination(s, cc, fa, mm_prefix):
    """FLASH_ATTN's supports_combination: the first rule that matches, or None."""
    quantized = s["kv_cache_dtype"] not in UNQUANTIZED
    if s["has_sink"] and cc < Version("9.0"):
        return "sink not supported on compute capability < 9.0"
    if mm_prefix and quantized and cc == Version("9.0"):
        return "SM90 FP8 KV with mm_prefix requires Triton"
    if quantized and not fa["fp8_ok"]:
        return "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100"
    if mm_prefix and fa["layer_version"] != 4:
        return ("mm_prefix (PrefixLM bidirectional attention) requires FlashAttention v4, which does not resolve "
                "for this head_size")
    return None


def _fi_combination(s, cc):
    if s["kv_cache_dtype"] in NVFP4 and cc.major in (8, 9, 12):
        if s["head_size"] == 64:
            return "fa2 prefill misreads an NVFP4 KV cache at head_size 64"
        if s["has_sink"]:
            return "the sink prefill wrapper cannot read an NVFP4 KV cache"
    return None


def reasons(backend, config):  # noqa: C901 — vLLM's attention-backend checks transcribed line for line, to be read against its source
    """The reasons vLLM gives for *backend* on *config*, in the order it checks them ([]: valid)."""
    s = _selector(config)
    cc = _cc(config)
    major = cc.major
    fa4 = major in (9, 10, 11)
    fa = {"version": None, "layer_version": None, "kernel_block_size": 16, **config.get("fa", {})}
    trt = _get(config, "flashinfer", "trtllm", None)
    use_trt = _get(config, "flashinfer", "use_trtllm_attention", None)
    h, kv, b = s["head_size"], s["kv_cache_dtype"], s["block_size"]
    fa_head = h % 8 == 0 and (h <= 256 or (fa4 and h <= 512))
    fa_kv = kv in UNQUANTIZED or (kv in ("fp8", "fp8_e4m3") and fa["fp8_kv_ok"])
    k_fa = fa["kernel_block_size"]
    out = []

    def block(k):
        return b is None or b % k == 0

    # (head ok, dtypes, kv ok, block ok, mm_prefix ok, sinks ok, per-head ok, cc ok, attn types, sliding, rswa,
    #  non-causal, batch invariance, dcp, adaptive verification)
    if backend == "FLASH_ATTN":
        rules = (fa_head, ("float16", "bfloat16"), fa_kv, block(k_fa), fa4, fa["version"] in (3, 4),
                 fa["version"] is not None and fa["version"] >= 3, cc >= Version("8.0"), None, True, True, True, True, True,
                 True)
    elif backend == "FLASHINFER":
        kv_ok = (kv in UNQUANTIZED + ("fp8", "fp8_e4m3", "fp8_e5m2")
                 or (kv == "nvfp4" and major in (8, 9, 12)) or (kv in ("nvfp4", "nvfp4_4over6") and major == 10 and trt))
        sinks = use_trt is not False and trt and (cc == Version("9.0") or major in (10, 12))
        adaptive = major == 10 and not s["use_dcp"] and use_trt is not False and trt
        rules = (h in (64, 128, 256, 512), ("float16", "bfloat16"), kv_ok, block(16), False, sinks, False,
                 Version("8.0") <= cc <= Version("12.1"), ("decoder",), True, False, True, False, True, adaptive)
    elif backend == "TRITON_ATTN":
        kv_ok = kv in UNQUANTIZED + ("fp8", "fp8_e4m3", "fp8_e5m2", "int4_per_token_head", "int8_per_token_head",
                                     "fp8_per_token_head")
        rules = (h >= 32, ("float16", "bfloat16", "float32"), kv_ok, block(16), True, True, False, True, None, True,
                 True, True, True, False, True)
    elif backend == "FLEX_ATTENTION":
        rules = (True, ("float16", "bfloat16", "float32"), kv in UNQUANTIZED, block(16), True, False, False, True,
                 ("decoder", "encoder_only"), True, True, True, True, False, True)
    elif backend == "TURBOQUANT":
        rules = (h > 0, ("float16", "bfloat16"), kv in TURBOQUANT, block(16), False, False, False, True,
                 ("decoder",), False, False, False, False, False, True)
    elif backend == "TRITON_FLASHINFER":
        rules = (h in (256, 512), ("float16", "bfloat16"), kv in UNQUANTIZED + ("fp8", "fp8_e4m3", "fp8_e5m2"),
                 block(64), True, False, False, major == 10, ("decoder",), True, False, False, False, False, False)
    else:  # TRITON_FLASH_ATTN
        rules = (h in (256, 512) and fa_head, ("float16", "bfloat16"), fa_kv, block(k_fa), True, False, False,
                 major == 9, ("decoder",), True, True, False, False, False, False)
    (head, dtypes, kv_ok, block_ok, mm_ok, sinks_ok, per_head_ok, cc_ok, attn_types, sliding, rswa, non_causal,
     batch_invariant, dcp, adaptive) = rules
    if not head:
        out.append("head_size not supported")
    if s["dtype"] not in dtypes:
        out.append("dtype not supported")
    if not kv_ok:
        out.append("kv_cache_dtype not supported")
    if not block_ok:
        out.append("block_size not supported")
    if s["use_mm_prefix"] and not mm_ok:
        out.append("partial multimodal token full attention not supported")
    if s["use_mla"]:
        out.append("MLA not supported")
    if s["has_sink"] and not sinks_ok:
        out.append("attention sinks not supported")
    if s["use_sparse"]:
        out.append("sparse not supported")
    if s["use_per_head_quant_scales"] and not per_head_ok:
        out.append("per-head quant scales not supported")
    if not cc_ok:
        out.append("compute capability not supported")
    if attn_types is not None and s["attn_type"] not in attn_types:
        out.append(f"attention type AttentionType.{s['attn_type'].upper()} not supported")
    if s["has_sliding_window"] and not sliding:
        out.append("sliding window not supported")
    if s["use_rswa"] and not rswa:
        out.append("R-SWA not supported")
    if s["use_non_causal"] and not non_causal:
        out.append("non-causal attention not supported")
    # Check 15: none of these backends' builders has the non-causal multi-token DCP flag.
    if s["use_mla"] and s["use_non_causal"] and s["use_dcp"]:
        out.append("non-causal MLA attention with DCP not supported")
    if s["use_batch_invariant"] and not batch_invariant:
        out.append("batch invariance not supported")
    if s["use_pcp"]:
        out.append("PCP not supported")
    if s["use_dcp"] and not dcp:
        out.append("DCP not supported")
    if s["use_adaptive_verification"] and not adaptive:
        out.append("device-cpu query lens mismatch not supported, this is needed for adaptive verification")
    combination = None
    if backend == "FLASH_ATTN":
        combination = _fa_combination(s, cc, fa, s["use_mm_prefix"])
    elif backend == "FLASHINFER":
        combination = _fi_combination(s, cc)
    elif backend == "TRITON_FLASHINFER":
        found = _fi_combination(s, cc)
        combination = None if found is None else "FLASHINFER: " + found
    elif backend == "TRITON_FLASH_ATTN":
        found = _fa_combination(s, cc, fa, False)
        if found is None and fa["layer_version"] not in (3, 4):
            found = "causal route requires FlashAttention v3 or v4"
        combination = None if found is None else "FLASH_ATTN: " + found
    if combination is not None:
        out.append(combination)
    return out


def candidates(config):
    """Section 4: the candidates of automatic choice, in priority order."""
    s = _selector(config)
    major = _cc(config).major
    if major == 10 and not s["use_non_causal"]:
        first = ["TRITON_FLASHINFER"] if s["use_mm_prefix"] else []
        return first + ["FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT"]
    first = ["TRITON_FLASH_ATTN"] if major == 9 and s["use_mm_prefix"] else []
    return first + ["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION", "TURBOQUANT"]


def choose(config):
    """Section 8, automatic: the first valid candidate, or None (vLLM raises "No valid attention
    backend found")."""
    return next((b for b in candidates(config) if not reasons(b, config)), None)
