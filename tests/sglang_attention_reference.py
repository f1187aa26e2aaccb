"""SGLang 0.5.23's attention-backend resolution, transcribed by hand as plain Python from
`../shared/reference/sglang-attention-backends.md` (sections 1 to 6), independently of any
matrix file: a future `examples/sglang-attention/` matrix is held to it. Each rule is cited
beside its code by the facts' id (S and D: §3's selection and default ladder; A: §4's
adjustments; E and W: §5's refusals and warnings) and SGLang's `file:line`; each function by its
step of §2.

Out of scope, as the facts scope it: the per-architecture overrides of step 6 and step 10 (§8),
the speculative-decoding step (§7.1), the model-specific asserts (§7.2) and the checks at model
start (§7.3). Everything else of §2 to §6 that touches the attention settings is here, in the
order of §2.

A config is a nested dict. Its top level holds server arguments under SGLang's ServerArgs
names (`SERVER_ARGS`, with SGLang's defaults; `cuda_graph_config` is a section of two phases);
`platform` the hardware facts of §1.2 (`PLATFORM`), `model` the model facts of §1.3 (`MODEL`),
`env` the environment variables of §1.4 (`ENV`, typed as `environ.py` reads them). A key left
out takes its default; the facts' defaults are §10's ("Facts not listed take these values": an
H100 with CUDA 12.8, flashinfer installed, x86_64, LlamaForCausalLM).

`resolve(config)` returns a `Record`: the three selected backends (the effective ones:
prefill and decode fall back to `attention_backend`, §1.1 `attention_backends_of`), or the
refusal (its rule id, SGLang's exception type name and exact message); every adjustment in the
order made (path, value before, value after, the source SGLang declares it under, the rule id);
and every `logger.warning` in the order logged. Info logs are not warnings (§10 example 1 has
none although S2 logs one).

What is an adjustment, as §10 counts them: a declaration that changes a value (one that
declares the value already held changes nothing and is not recorded; its warning still is).
Steps 2, 3 and 5 of §2 (`device` from the detected device with `:N` dropped, the built
`cuda_graph_config`, `mem_fraction_static` from the memory step) only complete the input
before any rule reads it: §10 does not count them, and neither does this module.
Environment writes are adjustments of `env.<NAME>`, with typed values.
"""

import attrs

__all__ = ["ATTENTION_BACKEND_CHOICES", "ENV", "ENV_WRITTEN", "KINDS", "MODEL", "PLATFORM", "REFUSALS", "SERVER_ARGS",
           "Adjustment", "Record", "Refusal", "resolve"]

# §1.1, `arg_groups/choices.py:69–99`.
ATTENTION_BACKEND_CHOICES = (
    "triton", "torch_native", "flex_attention", "dsa", "nsa", "qsa", "dsv4", "compressed", "fa3", "fa4", "flashinfer",
    "llada2_cfg_flashinfer", "flashmla", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla", "trtllm_mha", "hpc_ops",
    "minicpm_flashattn", "minicpm_flashinfer", "aiter", "wave", "intel_amx", "ascend", "intel_xpu")
# §1.1: `speculative_draft_attention_backend` is a free string at parse time.
DRAFT_ATTENTION_BACKEND_CHOICES = ("flashinfer", "fa3", "fa4", "triton", "ascend", "trtllm_mha", "intel_xpu")
KV_CACHE_DTYPES = ("auto", "fp8_e5m2", "fp8_e4m3", "mxfp8", "bf16", "bfloat16", "nvfp4", "fp4_mx_block16")
SPECULATIVE_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO")
DEVICES = ("cuda", "xpu", "hpu", "npu", "cpu", "musa", "mps")
CUDA_GRAPH_MODES = ("full", "breakable", "disabled")

# Server arguments and their defaults (§1.1), plus `sampling_backend` and `enable_torch_symm_mem`,
# which rules A6, A7, A12 and A15 set (None and False: SGLang's defaults, before a rule sets them).
SERVER_ARGS = {
    "attention_backend": None,
    "prefill_attention_backend": None,
    "decode_attention_backend": None,
    "speculative_draft_attention_backend": None,
    "page_size": None,
    "kv_cache_dtype": "auto",
    "prefill_kv_cache_dequant_dtype": "auto",
    "speculative_algorithm": None,
    "speculative_eagle_topk": None,
    "speculative_attention_mode": "prefill",
    "speculative_ngram_max_bfs_breadth": 10,
    "device": None,
    "tp_size": 1,
    "dcp_size": 1,
    "attn_cp_size": 1,
    "mem_fraction_static": None,
    "disable_radix_cache": False,
    "enable_deterministic_inference": False,
    "rl_on_policy_target": None,
    "disable_custom_all_reduce": False,
    "enable_aiter_allreduce_fusion": False,
    "flashinfer_allreduce_fusion_backend": None,
    "enable_unified_memory": False,
    "enable_hierarchical_cache": False,
    "enable_lmcache": False,
    "disaggregation_mode": "null",
    "enable_mis": False,
    "prefill_only_disable_kv_cache": False,
    "chunked_prefill_size": None,
    "sampling_backend": None,
    "enable_torch_symm_mem": False,
}
# `cuda_graph_config` per phase: None until step 3 builds it (§1.1).
CUDA_GRAPH_CONFIG = {"decode": None, "prefill": None}

# Hardware facts (§1.2), defaults of §10.
PLATFORM = {
    "device": "cuda",  # what the device probe reports (ROCm reports "cuda")
    "is_hip": False,  # ROCm (`torch.version.hip`); read only when `device` is "cuda"
    "device_sm": 90,  # `get_device_sm`: major × 10 + minor; read only on CUDA
    "cuda_version": "12.8",  # `torch.version.cuda`
    "flashinfer_installed": True,  # the `flashinfer` package imports
    "has_amx": False,  # `has_amx` (§10 example 12: an x86 CPU without AMX)
    "xpu_has_xmx": False,  # `xpu_has_xmx_support`
    "machine": "x86_64",  # `platform.machine()`
    "out_of_tree_attention_backend": None,  # an active platform plugin's `get_default_attention_backend()`
    "default_mem_fraction_static": 0.85,  # what step 5 fills when `mem_fraction_static` is None (§10)
    "npu_default_chunked_prefill_size": 8192,  # A8's memory default, 4096 or 8192 (§10: 64 GiB gives 8192)
}

# Model facts (§1.3), defaults of §10.
MODEL = {
    "architecture": "LlamaForCausalLM",  # `architectures[0]`
    "is_mla": False,  # `attention_arch == AttentionArch.MLA`
    "head_dim": 128,
    "v_head_dim": 128,
    "swa_head_dim": None,  # the sliding-window layers' K head dim, None without such layers
    "swa_v_head_dim": None,
    "has_attention_sinks": False,
    "total_num_kv_heads": 8,
    "total_num_attention_heads": 32,
    "context_len": 8192,
    "is_encoder_decoder": False,
    "attention_chunk_size": None,  # chunked local attention (E27)
    # The facts name these lists without their members (A13: `overrides.py:1048–1056`, E2:
    # `attention_hook.py:626–635`, E24: "not Qwen3.5"): the host says whether the model is in them.
    "is_deepseek_family": False,
    "is_qwen3_5": False,
}

# Environment variables read (§1.4), typed as `environ.py` reads them.
ENV = {
    "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR": None,
    "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": False,
    "SGLANG_AITER_KV_CACHE_LAYOUT": "nhd",
    "SGLANG_IS_FLASHINFER_AVAILABLE": True,
    "SGLANG_DETERMINISTIC_NCCL_NCHANNELS": 8,
}
# Environment variables written (§1.4, A9 and A15): None is unset.
ENV_WRITTEN = {"SGLANG_VLM_CACHE_SIZE_MB": None, "SGLANG_ENABLE_DETERMINISTIC_INFERENCE": None, "NCCL_ALGO": None,
               "NCCL_MIN_NCHANNELS": None, "NCCL_MAX_NCHANNELS": None}

BACKEND_FIELDS = ("attention_backend", "decode_attention_backend", "prefill_attention_backend",
                  "speculative_draft_attention_backend")
DETERMINISTIC_ATTENTION_BACKEND_CHOICES = ["ascend", "fa3", "fa4", "flashinfer", "intel_xpu", "triton"]
RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND = ["ascend", "fa3", "fa4", "triton"]
KV4_FA4_MLA_BACKEND_CHOICES = ["flashinfer", "trtllm_mla"]
KV4_FA4_MHA_BACKEND_CHOICES = ["triton", "torch_native", "flex_attention"]
KV4_ATTENTION_MLA_BACKEND_CHOICES = ["flashinfer", "trtllm_mla"]
KV4_ATTENTION_MHA_BACKEND_CHOICES = ["triton", "torch_native", "flex_attention", "trtllm_mha"]
XPU_DECODE_MAX_Q_GROUP_SIZE = 16
WHISPER = "WhisperForConditionalGeneration"
DIFFUSION_GEMMA = "DiffusionGemmaForBlockDiffusion"

# §5: every refusal, by id, with the exception type SGLang raises. E29 is the gate of E20–E28.
REFUSALS = {
    "E1": "ValueError", "E2": "ValueError", "E3": "ValueError", "E4": "ValueError", "E5": "ValueError",
    "E6": "ValueError", "E7": "ValueError", "E8": "ValueError", "E9": "ValueError", "E10": "AssertionError",
    "E11": "ValueError", "E12": "ValueError", "E13": "AssertionError", "E14": "ValueError", "E15": "ValueError",
    "E16": "ValueError", "E17": "ValueError", "E18": "ValueError", "E19": "ValueError", "E20": "ValueError",
    "E21": "ValueError", "E22": "ValueError", "E23": "ValueError", "E24": "ValueError", "E25": "ValueError",
    "E26": "ValueError", "E27": "ValueError", "E28": "ValueError", "E30": "RuntimeError", "E31": "ValueError",
    "E32": "ValueError", "E33": "ValueError", "E34": "ValueError", "E35": "ValueError", "E36": "ValueError",
    "E37": "ValueError", "E38": "AssertionError", "E39": "AssertionError", "E40": "AssertionError",
    "E41": "AssertionError", "E42": "RuntimeError", "E43": "ValueError", "E44": "AssertionError", "E45": "ValueError",
}
KINDS = frozenset(REFUSALS.values())


@attrs.frozen
class Adjustment:
    """One declaration that changed a value: *source* is the name SGLang declares it under."""

    path: str
    before: object
    after: object
    source: str
    rule: str


@attrs.frozen
class Refusal:
    """SGLang's error: the rule of §5, the exception type's name and its exact message."""

    rule: str
    kind: str
    message: str


@attrs.frozen
class Record:
    """What SGLang resolves for one config: the backends (None each when refused) or the error."""

    attention_backend: object = None
    prefill_attention_backend: object = None
    decode_attention_backend: object = None
    error: object = None  # a Refusal, or None
    adjustments: tuple = ()
    warnings: tuple = ()


class _Refused(Exception):
    def __init__(self, rule, message):
        super().__init__(message)
        self.refusal = Refusal(rule, REFUSALS[rule], message)


class _Run:
    """The view of §0: reads see the last declaration; each declaration is recorded."""

    def __init__(self, config):
        self.v = dict(SERVER_ARGS)
        self.v.update({k: config[k] for k in SERVER_ARGS if k in config})
        graphs = config.get("cuda_graph_config") or {}
        self.v.update({f"cuda_graph_config.{k}": graphs.get(k) for k in CUDA_GRAPH_CONFIG})
        env = {**ENV, **ENV_WRITTEN, **config.get("env", {})}
        self.v.update({f"env.{k}": value for k, value in env.items()})
        self.platform = {**PLATFORM, **config.get("platform", {})}
        self.model = {**MODEL, **config.get("model", {})}
        self.user_mem_fraction = self.v["mem_fraction_static"]
        self.adjustments = []
        self.warnings = []

    def __getitem__(self, path):
        return self.v[path]

    def declare(self, source, rule, **values):
        for path, value in values.items():
            self.set(path, value, source, rule)

    def set(self, path, value, source, rule):
        before = self.v[path]
        if before != value or type(before) is not type(value):
            self.v[path] = value
            self.adjustments.append(Adjustment(path, before, value, source, rule))

    def warn(self, text):
        self.warnings.append(text)

    # The effective per-phase backends, `attention_backends_of` (§1.1).
    @property
    def prefill(self):
        return self.v["prefill_attention_backend"] or self.v["attention_backend"]

    @property
    def decode(self):
        return self.v["decode_attention_backend"] or self.v["attention_backend"]

    def uses(self, backend, *fields):
        """§1.1: backend X "in use" is X in `attention_backend` or one of the fields the rule names."""
        return any(self.v[f] == backend for f in ("attention_backend",) + fields)


# --- §1.2: the probes --------------------------------------------------------------------------

def _version(text):
    return tuple(int(part) for part in str(text).split(".") if part.isdigit())


class _Probes:
    def __init__(self, platform, env):
        device = platform["device"]
        self.is_hip = device == "cuda" and bool(platform["is_hip"])
        self.is_cuda = device == "cuda" and not self.is_hip and platform["cuda_version"] is not None
        self.is_npu, self.is_xpu = device == "npu", device == "xpu"
        self.is_musa, self.is_mps = device == "musa", device == "mps"
        self.detected_device = device

        def check(majors, cuda):  # `_check_cuda_device_version`, common.py:274–284: the major only
            return (self.is_cuda and platform["device_sm"] is not None and platform["device_sm"] // 10 in majors
                    and _version(platform["cuda_version"]) >= cuda)

        self.is_sm90 = check((9,), (12, 3))  # is_hopper_with_cuda_12_3
        self.is_sm100 = check((10,), (12, 8))
        self.is_sm100_or_sm110 = check((10, 11), (12, 8))
        self.is_sm120 = check((12,), (12, 8))
        self.is_blackwell = check((10, 11, 12), (12, 8))
        self.has_flashinfer = bool(env["SGLANG_IS_FLASHINFER_AVAILABLE"]) and platform["flashinfer_installed"] \
            and self.is_cuda
        self.has_amx = bool(platform["has_amx"])
        self.xpu_has_xmx = bool(platform["xpu_has_xmx"])
        self.arm64 = platform["machine"] in ("aarch64", "arm64")
        self.out_of_tree = platform["out_of_tree_attention_backend"]


def _num_kv_heads(model, tp, dcp=1):
    """`get_num_kv_heads(tp, dcp)`, model_config.py:1700."""
    return max(1, model["total_num_kv_heads"] // (tp // dcp))


def _asymmetric_kv(model):
    """`has_asymmetric_kv`, model_config.py:1262: K and V head dims differ, or the SWA pair does."""
    return model["head_dim"] != model["v_head_dim"] or model["swa_head_dim"] != model["swa_v_head_dim"]


# --- The steps of §2, in order -------------------------------------------------------------------

def _complete_inputs(run, hw):
    """§2 steps 2, 3 and 5: the input as the rules see it (not adjustments, see the docstring)."""
    device = run["device"]
    if device is None:  # step 2, handle_missing_default_values
        device = hw.detected_device
    run.v["device"] = device.split(":")[0]
    for phase, built in (("decode", "full"), ("prefill", "breakable" if run["device"] == "cuda" else "disabled")):
        if run[f"cuda_graph_config.{phase}"] is None:  # step 3, model_executor/cuda_graph_config.py:119–198
            run.v[f"cuda_graph_config.{phase}"] = built
    if run["mem_fraction_static"] is None:  # step 5, handle_gpu_memory_settings
        run.v["mem_fraction_static"] = run.platform["default_mem_fraction_static"]


def _deprecated_args(run):
    """§2 step 1, handle_deprecated_args: A1–A5 (`serving_hook.py:304–335`)."""
    source = "handle_deprecated_args"
    given = {field: run[field] for field in BACKEND_FIELDS}
    for field in BACKEND_FIELDS:
        new = {"compressed": "dsv4", "tokenspeed_mla": "cutedsl_mla"}.get(given[field])  # A1, A2
        if new is not None:
            run.warn(f"--{field.replace('_', '-')}={given[field]} is deprecated; use '{new}' instead.")
            run.set(field, new, source, "A1" if new == "dsv4" else "A2")
    if given["prefill_attention_backend"] == "tokenspeed_mla":  # A3: cutedsl_mla is decode-only
        run.set("prefill_attention_backend", "trtllm_mla", source, "A3")
    # A4 and A5 read the names as given: A2 has renamed them already.
    if "tokenspeed_mla" in (given["attention_backend"], given["decode_attention_backend"]):
        if run["kv_cache_dtype"] != "fp8_e4m3":  # A4
            run.warn("tokenspeed_mla required FP8 KV; setting --kv-cache-dtype=fp8_e4m3.")
            run.set("kv_cache_dtype", "fp8_e4m3", source, "A4")
        if run["speculative_algorithm"] is not None and run["speculative_attention_mode"] == "prefill":  # A5
            run.set("speculative_attention_mode", "decode", source, "A5")


def _device_backends(run, hw):
    """§2 step 4: handle_hpu_backends, handle_cpu_backends, handle_npu_backends (A6–A8)."""
    device = run["device"]
    if device == "hpu":  # A6, platform_hook.py:176–188: forced, over a user value
        run.declare("handle_hpu_backends", "A6", attention_backend="torch_native", sampling_backend="pytorch")
    if device == "cpu":  # A7, platform_hook.py:158–173
        if run["attention_backend"] is None:
            run.set("attention_backend", "torch_native" if hw.arm64 else "intel_amx", "handle_cpu_backends", "A7")
        run.set("sampling_backend", "pytorch", "handle_cpu_backends", "A7")
    if device == "npu":  # A8, hardware_backend/npu/utils.py:73–199
        source = "handle_npu_backends"
        run.declare(source, "A8", attention_backend="ascend", prefill_attention_backend="ascend",
                    decode_attention_backend="ascend")
        if run["page_size"] is None:
            run.set("page_size", 128, source, "A8")
        if run["chunked_prefill_size"] is None:
            run.set("chunked_prefill_size", run.platform["npu_default_chunked_prefill_size"], source, "A8")
        run.set("disable_custom_all_reduce", True, source, "A8")


def _deterministic_inference(run, hw):  # noqa: C901 — the facts' A9–A15 and E1–E4 in one step, as SGLang has them
    """§2 step 7, handle_deterministic_inference: A9–A15, E1–E4, in the order of their ids."""
    source = "handle_deterministic_inference"
    if run["rl_on_policy_target"] is not None:  # A9, attention_hook.py:586–597
        run.warn("Enable deterministic inference because of rl_on_policy_target.")
        run.declare(source, "A9", enable_deterministic_inference=True)
        run.set("env.SGLANG_VLM_CACHE_SIZE_MB", 0, source, "A9")
        run.set("env.SGLANG_ENABLE_DETERMINISTIC_INFERENCE", True, source, "A9")
    if not run["enable_deterministic_inference"]:
        return
    if run["enable_aiter_allreduce_fusion"]:  # A10, attention_hook.py:600–608
        run.warn("Disable --enable-aiter-allreduce-fusion because deterministic inference is enabled.")
        run.set("enable_aiter_allreduce_fusion", False, source, "A10")
    if run["flashinfer_allreduce_fusion_backend"] is not None:  # A11, overrides.py:1061–1071
        run.warn("Disable --flashinfer-allreduce-fusion-backend because deterministic inference is enabled.")
        run.set("flashinfer_allreduce_fusion_backend", None, source, "A11")
    if run["sampling_backend"] != "ascend":  # A12, overrides.py:1029–1036
        run.warn("Sampling backend is set to pytorch for deterministic inference.")
        run.set("sampling_backend", "pytorch", source, "A12")
    if run["attention_backend"] is None:  # A13, overrides.py:1098–1116
        if hw.is_sm100 or hw.is_sm120:
            backend = "triton" if run.model["is_deepseek_family"] else "flashinfer"
        else:
            backend = "fa3"
        run.warn(f"Attention backend not specified. Falling back to '{backend}' for deterministic inference. You can "
                 f"explicitly set --attention-backend to one of {DETERMINISTIC_ATTENTION_BACKEND_CHOICES}.")
        run.set("attention_backend", backend, source, "A13")
    backend = run["attention_backend"]
    if backend not in DETERMINISTIC_ATTENTION_BACKEND_CHOICES:  # E1, overrides.py:1117–1122
        raise _Refused("E1", f"Currently only {DETERMINISTIC_ATTENTION_BACKEND_CHOICES} attention backends are "
                             f"supported for deterministic inference, but you explicitly specified '{backend}'.")
    if run.model["is_deepseek_family"]:
        if backend not in RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND:  # E2, attention_hook.py:643–647
            raise _Refused("E2", f"Currently only {RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND} attention "
                                 "backends are supported for deterministic inference with absorbed-MLA models. But "
                                 f"you're using {backend}.")
        if backend == "fa4" and not hw.is_sm100_or_sm110:  # E3, attention_hook.py:648–654
            raise _Refused("E3", "Deterministic inference with absorbed-MLA models on the fa4 attention backend "
                                 "requires SM100/SM110: it runs absorbed MLA, whose qv argument flash_attn.cute only "
                                 "implements on those archs.")
    if backend not in RADIX_SUPPORTED_DETERMINISTIC_ATTENTION_BACKEND:  # A14, attention_hook.py:656–666
        run.warn(f"Currently radix cache is not compatible with {backend} attention backend for deterministic "
                 "inference. It will be supported in the future.")
        run.set("disable_radix_cache", True, source, "A14")
    if run["tp_size"] > 1:  # A15, attention_hook.py:668–703
        if not hw.is_hip:
            channels = run["env.SGLANG_DETERMINISTIC_NCCL_NCHANNELS"]
            run.declare(source, "A15", **{"env.NCCL_ALGO": "allreduce:tree", "env.NCCL_MIN_NCHANNELS": channels,
                                          "env.NCCL_MAX_NCHANNELS": channels},
                        disable_custom_all_reduce=True, enable_torch_symm_mem=False)
            run.warn("NCCL_ALGO is set to 'allreduce:tree', the NCCL channel count is pinned, and custom and "
                     "symmetric-memory all reduce are disabled for deterministic inference when TP size > 1.")
        elif run["tp_size"] > 2 and run["disable_custom_all_reduce"]:  # E4 (ROCm: an info log, then this check)
            raise _Refused("E4", "--disable-custom-all-reduce cannot be combined with --enable-deterministic-inference "
                                 "on ROCm when --tp-size is above 2: the all-reduce would run through RCCL, which is "
                                 "not batch-invariant.")


def _nvfp4_prefill_kv_dequant_dtype(run, hw):
    """§2 step 8, handle_nvfp4_prefill_kv_dequant_dtype: A16, E5–E9 (`kv_cache_hook.py:34–97`)."""
    requested = run["prefill_kv_cache_dequant_dtype"]
    if run["kv_cache_dtype"] != "nvfp4":
        if requested != "auto":  # E5
            raise _Refused("E5", "--prefill-kv-cache-dequant-dtype applies only with --kv-cache-dtype=nvfp4.")
        return
    explicit_prefill = run["prefill_attention_backend"]
    explicit_decode = run["decode_attention_backend"]
    explicit_backend = explicit_prefill or run["attention_backend"]
    if requested != "auto":
        dtype = requested
    elif explicit_backend is not None:
        dtype = {"flashinfer": "fp8_e4m3", "trtllm_mha": "nvfp4"}.get(explicit_backend)
        if dtype is None:  # E6
            raise _Refused("E6", "NVFP4 prefill supports an FP8 E4M3 workspace or native NVFP4, but backend "
                                 f"{explicit_backend!r} provides neither.")
    else:
        dtype = "nvfp4" if hw.is_sm100 else "fp8_e4m3"
    if dtype == "nvfp4" and not hw.is_sm100:  # E7
        raise _Refused("E7", "Native NVFP4 prefill currently requires SM100; use "
                             "--prefill-kv-cache-dequant-dtype=fp8_e4m3 on this platform.")
    target = "flashinfer" if dtype == "fp8_e4m3" else "trtllm_mha"
    if explicit_prefill is not None and explicit_prefill != target:  # E8
        raise _Refused("E8", f"--prefill-kv-cache-dequant-dtype={requested} requires prefill backend {target!r}, but "
                             f"--prefill-attention-backend={explicit_prefill!r} was set. Remove the backend option and "
                             "select the KV dtype only.")
    if explicit_decode is not None and explicit_decode != "trtllm_mha":  # E9
        raise _Refused("E9", f"NVFP4 decode requires --decode-attention-backend=trtllm_mha; got {explicit_decode!r}. "
                             "Remove the backend option; NVFP4 selects the supported decode implementation "
                             "automatically.")
    run.declare("handle_nvfp4_prefill_kv_dequant_dtype", "A16", prefill_attention_backend=target,
                decode_attention_backend="trtllm_mha", prefill_kv_cache_dequant_dtype=dtype)


def _default_attn_backend(run, hw):
    """§3, `get_default_attn_backend` (model_override_base.py:277–351): the first match wins."""
    model = run.model
    topk, page = run["speculative_eagle_topk"], run["page_size"]
    # `is_no_spec_infer_or_topk_one`, common.py:3960
    no_spec_or_topk_one = topk is None or (topk == 1 and page in (1, None))
    if hw.out_of_tree is not None:  # D1
        return hw.out_of_tree
    if model["architecture"] == WHISPER:  # D2
        return "flashinfer"
    if not model["is_mla"]:
        if hw.is_sm90 and no_spec_or_topk_one:  # D3
            return "fa3"
        algorithm = run["speculative_algorithm"]
        if hw.is_sm100 and no_spec_or_topk_one and (algorithm is None or topk is not None or algorithm == "DFLASH"):
            return "fa4" if _asymmetric_kv(model) else "trtllm_mha"  # D4
        if hw.is_hip:  # D5
            return "aiter"
        if hw.is_mps:  # D6
            return "torch_native"
        return "flashinfer" if hw.has_flashinfer and not model["has_attention_sinks"] else "triton"  # D7
    if hw.is_sm90:  # D8
        return "fa3"
    if hw.is_sm100:  # D9
        return "flashinfer"
    if hw.is_hip:  # D10
        return "aiter" if _num_kv_heads(model, run["tp_size"]) in (16, 128) else "triton"
    if hw.is_mps:  # D11
        return "torch_native"
    return "triton"  # D12


def _disable_cuda_graphs(run, rule, source):
    run.declare(source, rule, **{"cuda_graph_config.decode": "disabled", "cuda_graph_config.prefill": "disabled"})


def _page_constraints(run):
    """A22–A26 (overrides.py:1144–1200): one pass on a local value, each rule seeing the one before."""
    page, rule = run["page_size"], None
    if run.uses("flashmla", "decode_attention_backend"):  # A22: always, even at 64
        run.warn("FlashMLA only supports a page_size of 64, change page_size to 64.")
        page, rule = 64, "A22"
    if run.uses("trtllm_mla", "decode_attention_backend") and page not in (32, 64):  # A23
        run.warn(f"TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from {page} to 64.")
        page, rule = 64, "A23"
    if run.uses("cutedsl_mla", "decode_attention_backend", "prefill_attention_backend") and page not in (32, 64):
        run.warn(f"CuteDSL MLA only supports page_size of 32 or 64, changing page_size from {page} to 64.")  # A24
        page, rule = 64, "A24"
    if run.uses("trtllm_mha", "decode_attention_backend", "prefill_attention_backend",
                "speculative_draft_attention_backend") and page not in (16, 32, 64, 128):  # A25
        run.warn("TensorRT-LLM MHA only supports page_size of 16, 32, 64 or 128, changing page_size from "
                 f"{page} to 64.")
        page, rule = 64, "A25"
    if run.uses("hpc_ops", "decode_attention_backend", "prefill_attention_backend") and page != 64:  # A26
        run.warn(f"HPC-Ops attention only supports a page_size of 64, changing page_size from {page} to 64.")
        page, rule = 64, "A26"
    if rule is not None:  # the pass returns one value; its rule is the last that set it
        run.set("page_size", page, "_mla_backend_page_constraints", rule)


def _check_xpu_dcp(run):
    """E20–E28, `_check_xpu_dcp` (attention_hook.py:49–107), in that order."""
    model, tp, dcp = run.model, run["tp_size"], run["dcp_size"]
    if not (run.prefill == "intel_xpu" and run.decode == "intel_xpu"):  # E20
        raise _Refused("E20", "--dcp-size > 1 on Intel XPU needs --attention-backend intel_xpu.")
    if model["is_mla"]:  # E21
        raise _Refused("E21", "--dcp-size > 1 is not supported for MLA models on Intel XPU.")
    if model["head_dim"] != model["v_head_dim"]:  # E22
        raise _Refused("E22", "--dcp-size > 1 on Intel XPU needs equal K and V head dims.")
    if tp % dcp != 0:  # E23
        raise _Refused("E23", f"--dcp-size {dcp} must divide --tp-size {tp}.")
    if not model["is_qwen3_5"] and _num_kv_heads(model, tp, dcp) != _num_kv_heads(model, tp):  # E24
        raise _Refused("E24", f"--dcp-size {dcp} at --tp-size {tp} needs each rank to hold its DCP group's KV heads, "
                              f"which {model['architecture']} does not. Use a smaller --dcp-size.")
    # E25: the query heads a rank holds, times dcp, over the KV heads it holds (see the report's reading)
    q_group = (model["total_num_attention_heads"] // tp) * dcp // _num_kv_heads(model, tp)
    if q_group > XPU_DECODE_MAX_Q_GROUP_SIZE:
        raise _Refused("E25", f"--dcp-size {dcp} gives the intel_xpu decode kernel a GQA group of {q_group}, above the "
                              f"{XPU_DECODE_MAX_Q_GROUP_SIZE} it is built for. Use a smaller --dcp-size or a larger "
                              "--tp-size.")
    if run["speculative_algorithm"] is not None:  # E26
        raise _Refused("E26", "--dcp-size > 1 with speculative decoding is not supported on Intel XPU.")
    if model["attention_chunk_size"] is not None:  # E27
        raise _Refused("E27", "--dcp-size > 1 is not supported on Intel XPU for models with chunked local attention.")
    if model["is_encoder_decoder"]:  # E28
        raise _Refused("E28", "--dcp-size > 1 is not supported on Intel XPU for encoder-decoder models.")


def _attention_backend_compatibility(run, hw):  # noqa: C901 — the handler of §4, in its order
    """§2 step 9, handle_attention_backend_compatibility: S1, S2 and A17–A33, E10–E29 in the order of §4."""
    source = "handle_attention_backend_compatibility"
    model = run.model
    prefill, decode = run["prefill_attention_backend"], run["decode_attention_backend"]
    if prefill is not None and prefill == decode:  # S1 = A17, overrides.py:1128–1131: over a user value too
        run.set("attention_backend", prefill, "_attention_backend_default", "A17")
    if run["attention_backend"] is None:  # S2 = A18, overrides.py:1132–1139 (an info log)
        run.set("attention_backend", _default_attn_backend(run, hw), "_attention_backend_default", "A18")
    if run["attention_backend"] == "torch_native":  # A19, attention_hook.py:123–141: the base field only
        run.warn("Cuda graph is disabled because of using torch native attention backend")
        _disable_cuda_graphs(run, "A19", source)
    if run["attention_backend"] == "flex_attention":  # A20, attention_hook.py:143–160
        run.warn("Cuda graph is disabled because of using torch Flex Attention backend")
        _disable_cuda_graphs(run, "A20", source)
        if run["speculative_algorithm"] is not None:  # E10, attention_hook.py:161–163
            raise _Refused("E10", "Speculative decoding is currently not supported with Flex Attention backend")
    if model["is_encoder_decoder"] and model["architecture"] == WHISPER and not run["disable_radix_cache"]:
        run.set("disable_radix_cache", True, source, "A21")  # A21, attention_hook.py:167–180 (an info log)
    _page_constraints(run)  # A22–A26
    if run.uses("trtllm_mla", "decode_attention_backend"):  # overrides.py:1210–1217
        if not hw.is_blackwell:  # E11
            raise _Refused("E11", "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a "
                                  "different backend.")
        if run["kv_cache_dtype"] not in ("fp8_e4m3", "bf16", "auto"):  # E12
            raise _Refused("E12", "TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto.")
    if run.uses("cutedsl_mla", "decode_attention_backend", "prefill_attention_backend"):  # overrides.py:1241–1258
        if run["prefill_attention_backend"] == "cutedsl_mla":  # E13
            raise _Refused("E13", "CuteDSL MLA only supports decoding for now")
        if not hw.is_sm100:  # E14
            raise _Refused("E14", "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a "
                                  "different backend.")
        if run["kv_cache_dtype"] not in ("fp8_e4m3", "bf16", "bfloat16", "auto"):  # E15
            raise _Refused("E15", "CuteDSL MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto.")
        if run["prefill_attention_backend"] is None:  # A27
            run.set("prefill_attention_backend", "trtllm_mla", source, "A27")
    if run["attention_backend"] == "fa3" and run["kv_cache_dtype"] == "fp8_e5m2":  # A28, overrides.py:1262–1269
        run.warn("FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton.")
        run.set("attention_backend", "triton", source, "A28")
    topk = run["speculative_eagle_topk"]
    if (run.uses("fa4", "decode_attention_backend", "prefill_attention_backend") and not model["is_mla"]
            and hw.is_sm100 and (topk is None or topk <= 1)):  # A29, overrides.py:1273–1296
        if model["architecture"] == DIFFUSION_GEMMA:  # silent
            run.set("page_size", 1, "_fa4_page_constraint", "A29")
        else:  # always, even at 128
            run.warn("FA4 backend only supports page size 128 for non-MLA model architectures, changing page_size "
                     f"from {run['page_size']} to 128.")
            run.set("page_size", 128, "_fa4_page_constraint", "A29")
    # attention_hook.py:200–237, on the effective per-phase backends
    if run.prefill == "trtllm_mha":
        if not (hw.is_sm90 or hw.is_sm100 or hw.is_sm120):  # E16
            raise _Refused("E16", "TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 "
                                  "GPUs. Please use a different prefill backend.")
        skip_softmax = run["env.SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR"]
        if hw.is_sm120 and (run["kv_cache_dtype"] == "fp8_e4m3" or (skip_softmax is not None and skip_softmax > 0)):
            raise _Refused("E17", "TRTLLM FMHAv2 prefill on SM120 does not support fp8_e4m3 KV cache or "
                                  "skip-softmax.")  # E17
    if run.decode == "trtllm_mha" and not (hw.is_sm90 or hw.is_sm100 or hw.is_sm120):  # E18
        raise _Refused("E18", "TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and "
                              "(SM120) GPUs. Please use a different decode backend.")
    if run.prefill == "trtllm_mha" and not hw.is_sm100 and run["attn_cp_size"] > 1:  # E19
        raise _Refused("E19", "Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 "
                              "(trtllm-gen context kernel): the SM90/SM120 fmha_v2 prefill path does not implement CP "
                              "shard masking.")
    if run["attention_backend"] == "aiter" and model["context_len"] > 8192:  # A30, attention_hook.py:244–269
        if run.user_mem_fraction is not None and run["env.SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION"]:  # W2
            run.warn(f"attention_backend=aiter with context_len={model['context_len']:d} (>8192) normally scales "
                     "mem_fraction_static by 0.85 to reserve non-static workspace, but "
                     "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION is set, so "
                     f"mem_fraction_static={run['mem_fraction_static']:.3f} is used as-is. Ensure enough memory is "
                     "left for attention workspace and CUDA graphs.")  # SGLang's %d and %.3f
        else:  # silent
            run.set("mem_fraction_static", run["mem_fraction_static"] * 0.85, source, "A30")
    if run["attention_backend"] == "intel_amx" and run["device"] == "cpu" and not hw.has_amx:  # A31
        run.warn("The current platform does not support Intel AMX, will fallback to torch_native backend.")
        run.set("attention_backend", "torch_native", source, "A31")
    if run["attention_backend"] == "intel_xpu" and run["device"] == "xpu" and not hw.xpu_has_xmx:  # A32
        run.warn("The current platform does not support Intel XMX, will fallback to triton backend.")
        run.set("attention_backend", "triton", source, "A32")
    if "intel_xpu" in (run.prefill, run.decode):  # A33, overrides.py:1323–1336
        sizes, name = ([64, 128, 16, 32], "Intel XPU attention backend for MLA") if model["is_mla"] else \
            ([64, 128], "Intel XPU attention backend")
        if run["page_size"] not in sizes:
            run.warn(f"{name} only supports page_sizes of {sizes}, changing page_size from {run['page_size']} to 128.")
            run.set("page_size", 128, source, "A33")
    if run["device"] == "xpu" and run["dcp_size"] > 1:  # E29, attention_hook.py:275–276: after A32
        _check_xpu_dcp(run)


def _kv4_compatibility(run, hw):  # noqa: C901 — kv_cache_hook.py:125–318 in its order
    """§2 step 11, handle_kv4_compatibility: E30–E42, A34, A35, W1."""
    kv = run["kv_cache_dtype"]
    if kv not in ("nvfp4", "fp4_mx_block16"):
        return
    if not hw.is_cuda:  # E42, the else branch of kv_cache_hook.py:317–318: nothing before it applies off CUDA
        raise _Refused("E42", "KV4 is not tested on non-CUDA platforms.")
    if kv == "nvfp4" and not (hw.is_sm100 or hw.is_sm120):  # E30
        raise _Refused("E30", "--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. Use "
                              "--kv-cache-dtype=fp4_mx_block16 for the block-size-16 FP4 recipe.")
    if run["enable_unified_memory"]:  # E31
        raise _Refused("E31", "FP4 KV cache does not yet support --enable-unified-memory: the unified MHA pool does "
                              "not allocate FP4 block scales or the prefill dequant workspace.")
    prefill, decode = run.prefill, run.decode
    if kv == "nvfp4" and hw.is_sm100 and "trtllm_mha" in (prefill, decode):  # SM100 native NVFP4
        source = "handle_kv4_compatibility"
        algorithm = run["speculative_algorithm"]
        if algorithm is not None:
            if algorithm in ("DFLASH", "DSPARK"):  # E32
                raise _Refused("E32", f"SM100 native NVFP4 speculative decoding does not yet support {algorithm}; use "
                                      "EAGLE/NEXTN or NGRAM.")
            if algorithm not in ("EAGLE", "EAGLE3", "NEXTN", "NGRAM"):  # E33
                raise _Refused("E33", "SM100 native NVFP4 speculative decoding supports EAGLE, EAGLE3, NEXTN, and "
                                      f"breadth-1 NGRAM; got {algorithm}.")
            breadth = run["speculative_ngram_max_bfs_breadth"]
            if algorithm == "NGRAM" and breadth != 1:  # E34
                raise _Refused("E34", "SM100 native NVFP4 NGRAM speculative decoding requires "
                                      "--speculative-ngram-max-bfs-breadth=1 because trtllm_mha supports linear target "
                                      f"verification only; got {breadth}.")
            if algorithm != "NGRAM":  # a draft model
                draft = run["speculative_draft_attention_backend"]
                if draft is None:  # A34
                    run.warn("SM100 native NVFP4 speculative decoding uses trtllm_mha for the draft worker.")
                    run.set("speculative_draft_attention_backend", "trtllm_mha", source, "A34")
                elif draft != "trtllm_mha":  # E35
                    raise _Refused("E35", "SM100 native NVFP4 speculative decoding requires "
                                          "--speculative-draft-attention-backend=trtllm_mha so the draft worker "
                                          f"consumes its physical NVFP4 KV layout; got {draft!r}.")
            if (prefill, decode) == ("flashinfer", "trtllm_mha") and run["speculative_attention_mode"] == "prefill":
                run.warn("SM100 mixed NVFP4 speculative decoding routes target verify to trtllm_mha; overriding "
                         "--speculative-attention-mode=prefill to decode.")  # A35
                run.set("speculative_attention_mode", "decode", source, "A35")
        if run["disaggregation_mode"] != "null":  # E36
            raise _Refused("E36", "SM100 native NVFP4 with trtllm_mha does not yet support PD disaggregation because its "
                                  "physical block-scale layout is not implemented by the KV transfer path.")
        if run["enable_hierarchical_cache"] or run["enable_lmcache"]:  # E37
            raise _Refused("E37", "SM100 native NVFP4 with trtllm_mha does not yet support hierarchical KV cache or "
                                  "LMCache because their host pools do not preserve the physical block-scale layout.")
    if prefill != decode and prefill != "fa4" and not (kv == "nvfp4" and (prefill, decode) == ("flashinfer",
                                                                                                "trtllm_mha")):  # W1
        run.warn(f"Attention: Using KV4 with PREFILL = {prefill} and DECODE = {decode}. Compatibility issues are "
                 "unlikely, but may occur in rare edge cases.")
    mla = run.model["is_mla"]
    if prefill == "fa4":
        if mla and decode not in KV4_FA4_MLA_BACKEND_CHOICES:  # E38
            raise _Refused("E38", f"KV4 FA4 MLA expects decode_attention_backend to be one of "
                                  f"{KV4_FA4_MLA_BACKEND_CHOICES}, but got {decode}")
        if not mla and decode not in KV4_FA4_MHA_BACKEND_CHOICES:  # E39
            raise _Refused("E39", f"KV4 FA4 MHA expects decode_attention_backend to be one of "
                                  f"{KV4_FA4_MHA_BACKEND_CHOICES}, but got {decode}")
    elif prefill == decode:
        backend = run["attention_backend"]
        if mla and backend not in KV4_ATTENTION_MLA_BACKEND_CHOICES:  # E40
            raise _Refused("E40", f"KV4 MLA expects attention_backend to be one of {KV4_ATTENTION_MLA_BACKEND_CHOICES}, "
                                  f"but got {backend}")
        if not mla and backend not in KV4_ATTENTION_MHA_BACKEND_CHOICES:  # E41
            raise _Refused("E41", f"KV4 MHA expects attention_backend to be one of {KV4_ATTENTION_MHA_BACKEND_CHOICES}, "
                                  f"but got {backend}")


def _mxfp8_kv_cache_compatibility(run, hw):
    """§2 step 11, handle_mxfp8_kv_cache_compatibility: E43 (kv_cache_hook.py:100–109)."""
    if run["kv_cache_dtype"] == "mxfp8" and not hw.is_blackwell:
        raise _Refused("E43", "--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands "
                              "used by the FA4 MXFP8 attention path.")


def _page_size_default(run, hw):
    """§2 step 12, A36 (overrides.py:1340–1363): after every backend rule."""
    if run["page_size"] is None:
        vectorized = hw.is_hip and run["env.SGLANG_AITER_KV_CACHE_LAYOUT"] == "vectorized_5d"  # an info log
        run.set("page_size", 64 if vectorized or hw.is_musa else 1, "_page_size_default", "A36")


def _multi_item_scoring(run):
    """§2 step 13, handle_multi_item_scoring: A37, E44 (attention_hook.py:526–577)."""
    if not run["enable_mis"]:
        return
    source = "handle_multi_item_scoring"
    if run["cuda_graph_config.decode"] != "disabled":
        run.warn("CUDA graph is disabled because --enable-mis is set.")
    _disable_cuda_graphs(run, "A37", source)
    run.warn("Radix cache is disabled because --enable-mis is set.")
    run.set("disable_radix_cache", True, source, "A37")
    run.warn("Chunked prefill is disabled because --enable-mis is set.")
    run.set("chunked_prefill_size", -1, source, "A37")
    if not (run.prefill == "flashinfer" and run.decode == "flashinfer"):  # E44
        raise _Refused("E44", "Multi-item scoring requires flashinfer attention backend for custom attention mask "
                              "support. Please set --attention-backend flashinfer when using --enable-mis. Current "
                              f"backends: prefill={run.prefill}, decode={run.decode}")


def _prefill_only_disable_kv_cache(run):
    """§2 step 13, handle_prefill_only_disable_kv_cache: E45 (kv_cache_hook.py:343–348)."""
    if run["prefill_only_disable_kv_cache"] and run.prefill not in ("fa3", "fa4"):
        raise _Refused("E45", "--prefill-only-disable-kv-cache currently requires the FA prefill backend (fa3/fa4), but "
                              f"got prefill backend {run.prefill!r}. Other prefill-only workloads and backends may be "
                              "supported in a future change.")


def resolve(config):
    """SGLang 0.5.23's resolution of the attention settings of *config* (see the module docstring)."""
    run = _Run(config)
    hw = _Probes(run.platform, {k: run[f"env.{k}"] for k in ENV})
    error = None
    try:
        _deprecated_args(run)  # step 1
        _complete_inputs(run, hw)  # steps 2, 3 and 5 (step 5 reads nothing of step 4)
        _device_backends(run, hw)  # step 4
        # step 6, handle_model_specific_adjustments: out of scope (§8)
        _deterministic_inference(run, hw)  # step 7
        _nvfp4_prefill_kv_dequant_dtype(run, hw)  # step 8
        _attention_backend_compatibility(run, hw)  # step 9
        # step 10, disable_prefill_cuda_graph_for_deepseek_trtllm_mla: out of scope (§8)
        _kv4_compatibility(run, hw)  # step 11
        _mxfp8_kv_cache_compatibility(run, hw)
        _page_size_default(run, hw)  # step 12
        _multi_item_scoring(run)  # step 13
        _prefill_only_disable_kv_cache(run)
    except _Refused as refused:
        error = refused.refusal
    backends = (None, None, None) if error else (run["attention_backend"], run.prefill, run.decode)
    return Record(*backends, error=error, adjustments=tuple(run.adjustments), warnings=tuple(run.warnings))
