"""The transcription of SGLang 0.5.23's attention-backend resolution
(`tests/sglang_attention_reference.py`) against the worked examples of §10 of
`../shared/reference/sglang-attention-backends.md`, each as its whole record, and the
transcription's totality on random configs over every field it reads."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import sglang_attention_reference as reference
from tests.sglang_attention_reference import Adjustment, Record, Refusal

H100 = {}  # §10's defaults: capability 9.0, CUDA 12.8
B200 = {"device_sm": 100}
A100 = {"device_sm": 80}
MLA = {"architecture": "DeepseekV2ForCausalLM", "is_mla": True, "total_num_kv_heads": 1}


def _config(platform=None, model=None, **server_args):
    return {"platform": platform or {}, "model": model or {}, **server_args}


def _default(backend):
    return Adjustment("attention_backend", None, backend, "_attention_backend_default", "A18")


PAGE_1 = Adjustment("page_size", None, 1, "_page_size_default", "A36")


def _chosen(backend, *adjustments, warnings=(), prefill=None, decode=None):
    return Record(backend, prefill or backend, decode or backend, None, adjustments, warnings)


def _refused(rule, message, *adjustments, warnings=()):
    return Record(error=Refusal(rule, reference.REFUSALS[rule], message), adjustments=adjustments,
                  warnings=warnings)


EXAMPLES = {
    "1 H100, Llama, nothing set": (_config(), _chosen("fa3", _default("fa3"), PAGE_1)),
    "2 H100, EAGLE, topk 4: D3 needs topk 1": (
        _config(speculative_algorithm="EAGLE", speculative_eagle_topk=4),
        _chosen("flashinfer", _default("flashinfer"), PAGE_1)),
    "3 B200, Llama, nothing set": (
        _config(B200),
        _chosen("trtllm_mha", _default("trtllm_mha"),
                Adjustment("page_size", None, 64, "_mla_backend_page_constraints", "A25"),
                warnings=("TensorRT-LLM MHA only supports page_size of 16, 32, 64 or 128, changing page_size from None "
                          "to 64.",))),
    "4 B200, head dims 192/128": (
        _config(B200, {"head_dim": 192, "v_head_dim": 128}),
        _chosen("fa4", _default("fa4"), Adjustment("page_size", None, 128, "_fa4_page_constraint", "A29"),
                warnings=("FA4 backend only supports page size 128 for non-MLA model architectures, changing "
                          "page_size from None to 128.",))),
    "5 B200, EAGLE, topk unset: D4's extra clause": (
        _config(B200, speculative_algorithm="EAGLE"), _chosen("flashinfer", _default("flashinfer"), PAGE_1)),
    "6 A100, attention sinks": (
        _config(A100, {"has_attention_sinks": True}), _chosen("triton", _default("triton"), PAGE_1)),
    "7 H100, fa3 with fp8_e5m2": (
        _config(attention_backend="fa3", kv_cache_dtype="fp8_e5m2"),
        _chosen("triton", Adjustment("attention_backend", "fa3", "triton", "handle_attention_backend_compatibility",
                                     "A28"), PAGE_1,
                warnings=("FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton.",))),
    "8 B200, MLA, nothing set": (_config(B200, MLA), _chosen("flashinfer", _default("flashinfer"), PAGE_1)),
    "9 H100, MLA, flashmla, page 16": (
        _config(H100, MLA, attention_backend="flashmla", page_size=16),
        _chosen("flashmla", Adjustment("page_size", 16, 64, "_mla_backend_page_constraints", "A22"),
                warnings=("FlashMLA only supports a page_size of 64, change page_size to 64.",))),
    "10 H100, MLA, trtllm_mla": (
        _config(H100, MLA, attention_backend="trtllm_mla"),
        _refused("E11", "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different "
                        "backend.",
                 Adjustment("page_size", None, 64, "_mla_backend_page_constraints", "A23"),
                 warnings=("TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from None to "
                           "64.",))),
    "11 H100, flex_attention, EAGLE": (
        _config(attention_backend="flex_attention", speculative_algorithm="EAGLE"),
        _refused("E10", "Speculative decoding is currently not supported with Flex Attention backend",
                 Adjustment("cuda_graph_config.decode", "full", "disabled", "handle_attention_backend_compatibility",
                            "A20"),
                 Adjustment("cuda_graph_config.prefill", "breakable", "disabled",
                            "handle_attention_backend_compatibility", "A20"),
                 warnings=("Cuda graph is disabled because of using torch Flex Attention backend",))),
    "12 x86 CPU without AMX: A7 fills intel_amx, A31 falls back, CUDA graphs untouched": (
        _config({"device": "cpu"}, device="cpu"),
        _chosen("torch_native", Adjustment("attention_backend", None, "intel_amx", "handle_cpu_backends", "A7"),
                Adjustment("sampling_backend", None, "pytorch", "handle_cpu_backends", "A7"),
                Adjustment("attention_backend", "intel_amx", "torch_native", "handle_attention_backend_compatibility",
                           "A31"), PAGE_1,
                warnings=("The current platform does not support Intel AMX, will fallback to torch_native backend.",))),
    "12 arm64 CPU: torch_native from A7, A19 switches decode graphs off": (
        _config({"device": "cpu", "machine": "aarch64"}, device="cpu"),
        _chosen("torch_native", Adjustment("attention_backend", None, "torch_native", "handle_cpu_backends", "A7"),
                Adjustment("sampling_backend", None, "pytorch", "handle_cpu_backends", "A7"),
                Adjustment("cuda_graph_config.decode", "full", "disabled", "handle_attention_backend_compatibility",
                           "A19"), PAGE_1,
                warnings=("Cuda graph is disabled because of using torch native attention backend",))),
    "13 Ascend NPU, nothing set, 64 GiB": (
        _config({"device": "npu"}),
        _chosen("ascend", *(Adjustment(path, before, after, "handle_npu_backends", "A8") for path, before, after in (
            ("attention_backend", None, "ascend"), ("prefill_attention_backend", None, "ascend"),
            ("decode_attention_backend", None, "ascend"), ("page_size", None, 128),
            ("chunked_prefill_size", None, 8192), ("disable_custom_all_reduce", False, True))))),
    "14 H100, deterministic, flashinfer, tp 2": (
        _config(enable_deterministic_inference=True, attention_backend="flashinfer", tp_size=2),
        _chosen("flashinfer", *(Adjustment(path, before, after, "handle_deterministic_inference", rule)
                                for path, before, after, rule in (
            ("sampling_backend", None, "pytorch", "A12"), ("disable_radix_cache", False, True, "A14"),
            ("env.NCCL_ALGO", None, "allreduce:tree", "A15"), ("env.NCCL_MIN_NCHANNELS", None, 8, "A15"),
            ("env.NCCL_MAX_NCHANNELS", None, 8, "A15"), ("disable_custom_all_reduce", False, True, "A15"))), PAGE_1,
                warnings=("Sampling backend is set to pytorch for deterministic inference.",
                          "Currently radix cache is not compatible with flashinfer attention backend for deterministic "
                          "inference. It will be supported in the future.",
                          "NCCL_ALGO is set to 'allreduce:tree', the NCCL channel count is pinned, and custom and "
                          "symmetric-memory all reduce are disabled for deterministic inference when TP size > 1."))),
    "15 B200, MLA, tokenspeed_mla, EAGLE": (
        _config(B200, MLA, attention_backend="tokenspeed_mla", speculative_algorithm="EAGLE"),
        _chosen("cutedsl_mla",
                Adjustment("attention_backend", "tokenspeed_mla", "cutedsl_mla", "handle_deprecated_args", "A2"),
                Adjustment("kv_cache_dtype", "auto", "fp8_e4m3", "handle_deprecated_args", "A4"),
                Adjustment("speculative_attention_mode", "prefill", "decode", "handle_deprecated_args", "A5"),
                Adjustment("page_size", None, 64, "_mla_backend_page_constraints", "A24"),
                Adjustment("prefill_attention_backend", None, "trtllm_mla", "handle_attention_backend_compatibility",
                           "A27"),
                prefill="trtllm_mla",
                warnings=("--attention-backend=tokenspeed_mla is deprecated; use 'cutedsl_mla' instead.",
                          "tokenspeed_mla required FP8 KV; setting --kv-cache-dtype=fp8_e4m3.",
                          "CuteDSL MLA only supports page_size of 32 or 64, changing page_size from None to 64."))),
    "16 ROCm MI300, Llama, context 32768": (
        _config({"is_hip": True, "device_sm": None, "cuda_version": None}, {"context_len": 32768}),
        # 0.85 × 0.85 as Python multiplies it: 0.7224999999999999, which §10 rounds to 0.7225
        _chosen("aiter", _default("aiter"),
                Adjustment("mem_fraction_static", 0.85, 0.85 * 0.85, "handle_attention_backend_compatibility", "A30"),
                PAGE_1)),
}


@pytest.mark.parametrize(("config", "expected"), EXAMPLES.values(), ids=EXAMPLES.keys())
def test_worked_examples(config, expected):
    assert reference.resolve(config) == expected


# --- Totality ---------------------------------------------------------------------------------------

def _maybe(values):
    return st.none() | values


def _mostly(default, values):
    """*default* three times in four: so that the rules deep in the pipeline are reached."""
    return st.one_of(st.just(default), st.just(default), st.just(default), values)


RARELY = _mostly(False, st.just(True))
# Every backend, and more often the ones most rules name.
BACKENDS = st.sampled_from(reference.ATTENTION_BACKEND_CHOICES) | st.sampled_from(
    ["flashinfer", "trtllm_mha", "trtllm_mla", "cutedsl_mla", "tokenspeed_mla", "fa4", "intel_xpu", "triton"])
DRAFT = st.sampled_from(reference.DRAFT_ATTENTION_BACKEND_CHOICES + ("tokenspeed_mla", "compressed"))
PAGES = st.sampled_from([1, 16, 32, 64, 128, 256]) | st.integers(1, 1024)
SIZES = _mostly(1, st.sampled_from([2, 4, 8]) | st.integers(1, 64))
TEXT = st.sampled_from(["x", "cuda"])  # a value no rule names

SERVER_ARGS = {
    "attention_backend": _maybe(BACKENDS),
    "prefill_attention_backend": _maybe(BACKENDS),
    "decode_attention_backend": _maybe(BACKENDS),
    "speculative_draft_attention_backend": _maybe(DRAFT),
    "page_size": _maybe(PAGES),
    "kv_cache_dtype": st.sampled_from(reference.KV_CACHE_DTYPES) | st.sampled_from(["nvfp4", "fp4_mx_block16"]),
    "prefill_kv_cache_dequant_dtype": _mostly("auto", st.sampled_from(["nvfp4", "fp8_e4m3"])),
    "speculative_algorithm": _maybe(st.sampled_from(reference.SPECULATIVE_ALGORITHMS)),
    "speculative_eagle_topk": _maybe(st.integers(1, 8)),
    "speculative_attention_mode": st.sampled_from(["prefill", "decode"]),
    "speculative_ngram_max_bfs_breadth": _mostly(1, st.integers(1, 16)),
    "device": _maybe(st.sampled_from(reference.DEVICES + ("cuda:1", "npu:0"))),
    "tp_size": SIZES,
    "dcp_size": SIZES,
    "attn_cp_size": SIZES,
    "mem_fraction_static": _maybe(st.floats(0.05, 0.99)),
    "disable_radix_cache": st.booleans(),
    "enable_deterministic_inference": RARELY,
    "rl_on_policy_target": _mostly(None, st.just("fsdp")),
    "disable_custom_all_reduce": st.booleans(),
    "enable_aiter_allreduce_fusion": st.booleans(),
    "flashinfer_allreduce_fusion_backend": _maybe(TEXT),
    "enable_unified_memory": RARELY,
    "enable_hierarchical_cache": RARELY,
    "enable_lmcache": RARELY,
    "disaggregation_mode": _mostly("null", st.sampled_from(["prefill", "decode"])),
    "enable_mis": RARELY,
    "prefill_only_disable_kv_cache": RARELY,
    "chunked_prefill_size": _maybe(st.sampled_from([-1, 2048, 4096, 8192])),
    "sampling_backend": _maybe(st.sampled_from(["flashinfer", "pytorch", "ascend"])),
    "enable_torch_symm_mem": st.booleans(),
}
GRAPHS = st.fixed_dictionaries({}, optional={phase: _maybe(st.sampled_from(reference.CUDA_GRAPH_MODES))
                                             for phase in reference.CUDA_GRAPH_CONFIG})
PLATFORM = {
    "device": _mostly("cuda", st.sampled_from(reference.DEVICES)),
    "is_hip": RARELY,
    "device_sm": _maybe(st.sampled_from([75, 80, 86, 89, 90, 100, 103, 110, 120, 121])),
    "cuda_version": _mostly("12.8", _maybe(st.sampled_from(["11.8", "12.2", "12.3", "12.4", "13.0"]))),
    "flashinfer_installed": st.booleans(),
    "has_amx": st.booleans(),
    "xpu_has_xmx": st.booleans(),
    "machine": st.sampled_from(["x86_64", "aarch64", "arm64"]),
    "out_of_tree_attention_backend": _mostly(None, st.sampled_from(["triton", "plugin_backend"])),
    "default_mem_fraction_static": st.floats(0.05, 0.99),
    "npu_default_chunked_prefill_size": st.sampled_from([4096, 8192]),
}
MODEL = {
    "architecture": st.sampled_from(["LlamaForCausalLM", "DeepseekV2ForCausalLM", reference.WHISPER,
                                     reference.DIFFUSION_GEMMA, "Qwen3_5ForConditionalGeneration"]),
    "is_mla": st.booleans(),
    "head_dim": st.sampled_from([64, 128, 192, 256]),
    "v_head_dim": st.sampled_from([64, 128, 192, 256]),
    "swa_head_dim": _maybe(st.sampled_from([64, 128])),
    "swa_v_head_dim": _maybe(st.sampled_from([64, 128])),
    "has_attention_sinks": st.booleans(),
    "total_num_kv_heads": st.sampled_from([1, 2, 4, 8, 16, 128]) | st.integers(1, 256),
    "total_num_attention_heads": st.sampled_from([8, 32, 64, 128]) | st.integers(1, 256),
    "context_len": st.sampled_from([4096, 8192, 8193, 32768]),
    "is_encoder_decoder": RARELY,
    "attention_chunk_size": _mostly(None, st.just(8192)),
    "is_deepseek_family": st.booleans(),
    "is_qwen3_5": st.booleans(),
}
ENV = {
    "SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR": _maybe(st.sampled_from([0.0, 0.5])),
    "SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": st.booleans(),
    "SGLANG_AITER_KV_CACHE_LAYOUT": st.sampled_from(["nhd", "vectorized_5d"]),
    "SGLANG_IS_FLASHINFER_AVAILABLE": st.booleans(),
    "SGLANG_DETERMINISTIC_NCCL_NCHANNELS": st.integers(1, 32),
    **{name: _maybe(st.just("1")) for name in reference.ENV_WRITTEN},  # as the environment may hold them
}


def _section(fields):
    """Any subset of *fields*: a key left out takes its default."""
    return st.fixed_dictionaries({}, optional=fields)


def _configs(**fixed):
    """Configs over every field, with the strategies of *fixed* (a section's as a dict) in place of the usual."""
    sections = {"platform": PLATFORM, "model": MODEL, "env": ENV}
    required = {name: _section({**fields, **fixed.pop(name, {})}) for name, fields in sections.items()}
    optional = {name: strategy for name, strategy in SERVER_ARGS.items() if name not in fixed}
    return st.fixed_dictionaries({**required, "cuda_graph_config": GRAPHS, **fixed}, optional=optional)


_OFF = {"enable_deterministic_inference": st.just(False), "rl_on_policy_target": st.none(),
        "enable_mis": st.just(False), "prefill_only_disable_kv_cache": st.just(False)}
# Two corners that random configs reach rarely: DCP on Intel XPU (E20–E28), and SM100 native
# NVFP4 (E32–E37, A34, A35).
XPU_DCP = _configs(platform={"device": st.just("xpu"), "xpu_has_xmx": st.just(True)}, device=st.none(),
                   attention_backend=st.just("intel_xpu"), prefill_attention_backend=_mostly(None, BACKENDS),
                   decode_attention_backend=_mostly(None, BACKENDS), dcp_size=st.sampled_from([2, 3, 4, 8]),
                   tp_size=st.sampled_from([1, 2, 4, 8, 16]), kv_cache_dtype=st.just("auto"),
                   prefill_kv_cache_dequant_dtype=st.just("auto"), **_OFF)
NVFP4_SM100 = _configs(platform={"device": st.just("cuda"), "is_hip": st.just(False), "device_sm": st.just(100),
                                 "cuda_version": st.just("12.8")},
                       device=st.none(), kv_cache_dtype=st.just("nvfp4"),
                       prefill_kv_cache_dequant_dtype=st.just("auto"), prefill_attention_backend=st.none(),
                       decode_attention_backend=st.none(), attention_backend=st.sampled_from([None, "trtllm_mha",
                                                                                              "flashinfer"]),
                       speculative_algorithm=st.sampled_from(reference.SPECULATIVE_ALGORITHMS), **_OFF)
CONFIGS = _configs() | XPU_DCP | NVFP4_SM100
PATHS = {*reference.SERVER_ARGS, *(f"cuda_graph_config.{phase}" for phase in reference.CUDA_GRAPH_CONFIG),
         *(f"env.{name}" for name in reference.ENV_WRITTEN)}


def test_refusal_kinds_are_sglangs():
    assert reference.KINDS == {"ValueError", "AssertionError", "RuntimeError"}
    assert sorted(reference.REFUSALS, key=lambda rule: int(rule[1:])) == [f"E{n}" for n in range(1, 46) if n != 29]


# Four times the profile's examples: 200 in development, 2,000 in CI.
@settings(max_examples=settings.default.max_examples * 4, deadline=None)
@given(CONFIGS)
def test_total(config):
    """Any config gives a record: the backends or one of the declared refusals, nothing raised."""
    record = reference.resolve(config)
    backends = (record.attention_backend, record.prefill_attention_backend, record.decode_attention_backend)
    if record.error is None:
        assert all(isinstance(backend, str) for backend in backends), record
    else:
        assert backends == (None, None, None)
        assert record.error.kind == reference.REFUSALS[record.error.rule]
    for adjustment in record.adjustments:
        assert adjustment.path in PATHS, adjustment
        assert adjustment.before != adjustment.after or type(adjustment.before) is not type(adjustment.after)
    assert all(isinstance(warning, str) for warning in record.warnings)
    assert reference.resolve(config) == record  # deterministic


# --- Every refusal of §5, reached, with its exact message -------------------------------------------

DETERMINISTIC = {"enable_deterministic_inference": True}
ROCM = {"is_hip": True, "device_sm": None, "cuda_version": None}
XPU = {"device": "xpu", "xpu_has_xmx": True}
XPU_DCP = {"attention_backend": "intel_xpu", "tp_size": 4, "dcp_size": 2}
REPLICATED_KV = {"total_num_kv_heads": 1}  # each rank holds its DCP group's KV heads (E24 passes)
NATIVE_NVFP4 = {"kv_cache_dtype": "nvfp4"}  # on a B200 with no backend set: trtllm_mha in both phases (A16)

REFUSALS = {
    "E1": (_config(attention_backend="torch_native", **DETERMINISTIC),
           "Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'intel_xpu', 'triton'] attention backends are "
           "supported for deterministic inference, but you explicitly specified 'torch_native'."),
    "E2": (_config(H100, {"is_deepseek_family": True}, attention_backend="flashinfer", **DETERMINISTIC),
           "Currently only ['ascend', 'fa3', 'fa4', 'triton'] attention backends are supported for deterministic "
           "inference with absorbed-MLA models. But you're using flashinfer."),
    "E3": (_config(H100, {"is_deepseek_family": True}, attention_backend="fa4", **DETERMINISTIC),
           "Deterministic inference with absorbed-MLA models on the fa4 attention backend requires SM100/SM110: it "
           "runs absorbed MLA, whose qv argument flash_attn.cute only implements on those archs."),
    "E4": (_config(ROCM, tp_size=4, disable_custom_all_reduce=True, **DETERMINISTIC),
           "--disable-custom-all-reduce cannot be combined with --enable-deterministic-inference on ROCm when "
           "--tp-size is above 2: the all-reduce would run through RCCL, which is not batch-invariant."),
    "E5": (_config(prefill_kv_cache_dequant_dtype="nvfp4"),
           "--prefill-kv-cache-dequant-dtype applies only with --kv-cache-dtype=nvfp4."),
    "E6": (_config(kv_cache_dtype="nvfp4", attention_backend="fa3"),
           "NVFP4 prefill supports an FP8 E4M3 workspace or native NVFP4, but backend 'fa3' provides neither."),
    "E7": (_config(kv_cache_dtype="nvfp4", attention_backend="trtllm_mha"),
           "Native NVFP4 prefill currently requires SM100; use --prefill-kv-cache-dequant-dtype=fp8_e4m3 on this "
           "platform."),
    "E8": (_config(B200, kv_cache_dtype="nvfp4", prefill_kv_cache_dequant_dtype="fp8_e4m3",
                   prefill_attention_backend="trtllm_mha"),
           "--prefill-kv-cache-dequant-dtype=fp8_e4m3 requires prefill backend 'flashinfer', but "
           "--prefill-attention-backend='trtllm_mha' was set. Remove the backend option and select the KV dtype only."),
    "E9": (_config(B200, kv_cache_dtype="nvfp4", decode_attention_backend="fa3"),
           "NVFP4 decode requires --decode-attention-backend=trtllm_mha; got 'fa3'. Remove the backend option; NVFP4 "
           "selects the supported decode implementation automatically."),
    "E10": (_config(attention_backend="flex_attention", speculative_algorithm="NGRAM"),
            "Speculative decoding is currently not supported with Flex Attention backend"),
    "E11": (_config(A100, MLA, decode_attention_backend="trtllm_mla"),
            "TRTLLM MLA backend is only supported on Blackwell GPUs (SM100/SM12x). Please use a different backend."),
    "E12": (_config(B200, MLA, attention_backend="trtllm_mla", kv_cache_dtype="fp8_e5m2"),
            "TensorRT-LLM MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."),
    "E13": (_config(B200, MLA, prefill_attention_backend="cutedsl_mla"), "CuteDSL MLA only supports decoding for now"),
    "E14": (_config(H100, MLA, attention_backend="cutedsl_mla"),
            "CuteDSL MLA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."),
    "E15": (_config(B200, MLA, attention_backend="cutedsl_mla", kv_cache_dtype="fp8_e5m2"),
            "CuteDSL MLA backend only supports kv-cache-dtype of fp8_e4m3, bf16, or auto."),
    "E16": (_config(A100, prefill_attention_backend="trtllm_mha"),
            "TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell (SM100), or SM120 GPUs. Please use a "
            "different prefill backend."),
    "E17": (_config({"device_sm": 120}, attention_backend="trtllm_mha",
                    env={"SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR": 0.5}),
            "TRTLLM FMHAv2 prefill on SM120 does not support fp8_e4m3 KV cache or skip-softmax."),
    "E18": (_config(A100, decode_attention_backend="trtllm_mha"),
            "TRTLLM MHA backend for decode is only supported on Hopper (SM90), Blackwell (SM100) and (SM120) GPUs. "
            "Please use a different decode backend."),
    "E19": (_config(attention_backend="trtllm_mha", attn_cp_size=2),
            "Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 (trtllm-gen context "
            "kernel): the SM90/SM120 fmha_v2 prefill path does not implement CP shard masking."),
    "E20": (_config(XPU, **{**XPU_DCP, "decode_attention_backend": "triton"}),
            "--dcp-size > 1 on Intel XPU needs --attention-backend intel_xpu."),
    "E21": (_config(XPU, {"is_mla": True}, **XPU_DCP), "--dcp-size > 1 is not supported for MLA models on Intel XPU."),
    "E22": (_config(XPU, {"head_dim": 192}, **XPU_DCP), "--dcp-size > 1 on Intel XPU needs equal K and V head dims."),
    "E23": (_config(XPU, **{**XPU_DCP, "dcp_size": 3}), "--dcp-size 3 must divide --tp-size 4."),
    "E24": (_config(XPU, **XPU_DCP),
            "--dcp-size 2 at --tp-size 4 needs each rank to hold its DCP group's KV heads, which LlamaForCausalLM does "
            "not. Use a smaller --dcp-size."),
    "E25": (_config(XPU, {**REPLICATED_KV, "total_num_attention_heads": 64}, **XPU_DCP),
            "--dcp-size 2 gives the intel_xpu decode kernel a GQA group of 32, above the 16 it is built for. Use a "
            "smaller --dcp-size or a larger --tp-size."),
    "E26": (_config(XPU, REPLICATED_KV, speculative_algorithm="EAGLE", **XPU_DCP),
            "--dcp-size > 1 with speculative decoding is not supported on Intel XPU."),
    "E27": (_config(XPU, {**REPLICATED_KV, "attention_chunk_size": 8192}, **XPU_DCP),
            "--dcp-size > 1 is not supported on Intel XPU for models with chunked local attention."),
    "E28": (_config(XPU, {**REPLICATED_KV, "is_encoder_decoder": True}, **XPU_DCP),
            "--dcp-size > 1 is not supported on Intel XPU for encoder-decoder models."),
    "E30": (_config(kv_cache_dtype="nvfp4", attention_backend="flashinfer"),
            "--kv-cache-dtype=nvfp4 requires Blackwell SM100 or SM120. Use --kv-cache-dtype=fp4_mx_block16 for the "
            "block-size-16 FP4 recipe."),
    "E31": (_config(kv_cache_dtype="fp4_mx_block16", attention_backend="triton", enable_unified_memory=True),
            "FP4 KV cache does not yet support --enable-unified-memory: the unified MHA pool does not allocate FP4 "
            "block scales or the prefill dequant workspace."),
    "E32": (_config(B200, speculative_algorithm="DFLASH", **NATIVE_NVFP4),
            "SM100 native NVFP4 speculative decoding does not yet support DFLASH; use EAGLE/NEXTN or NGRAM."),
    "E33": (_config(B200, speculative_algorithm="STANDALONE", **NATIVE_NVFP4),
            "SM100 native NVFP4 speculative decoding supports EAGLE, EAGLE3, NEXTN, and breadth-1 NGRAM; got "
            "STANDALONE."),
    "E34": (_config(B200, speculative_algorithm="NGRAM", **NATIVE_NVFP4),
            "SM100 native NVFP4 NGRAM speculative decoding requires --speculative-ngram-max-bfs-breadth=1 because "
            "trtllm_mha supports linear target verification only; got 10."),
    "E35": (_config(B200, speculative_algorithm="EAGLE", speculative_draft_attention_backend="fa3", **NATIVE_NVFP4),
            "SM100 native NVFP4 speculative decoding requires --speculative-draft-attention-backend=trtllm_mha so the "
            "draft worker consumes its physical NVFP4 KV layout; got 'fa3'."),
    "E36": (_config(B200, disaggregation_mode="prefill", **NATIVE_NVFP4),
            "SM100 native NVFP4 with trtllm_mha does not yet support PD disaggregation because its physical "
            "block-scale layout is not implemented by the KV transfer path."),
    "E37": (_config(B200, enable_lmcache=True, **NATIVE_NVFP4),
            "SM100 native NVFP4 with trtllm_mha does not yet support hierarchical KV cache or LMCache because their "
            "host pools do not preserve the physical block-scale layout."),
    "E38": (_config(B200, MLA, kv_cache_dtype="fp4_mx_block16", prefill_attention_backend="fa4",
                    decode_attention_backend="triton"),
            "KV4 FA4 MLA expects decode_attention_backend to be one of ['flashinfer', 'trtllm_mla'], but got triton"),
    "E39": (_config(B200, kv_cache_dtype="fp4_mx_block16", prefill_attention_backend="fa4",
                    decode_attention_backend="flashinfer"),
            "KV4 FA4 MHA expects decode_attention_backend to be one of ['triton', 'torch_native', 'flex_attention'], "
            "but got flashinfer"),
    "E40": (_config(B200, MLA, kv_cache_dtype="fp4_mx_block16", attention_backend="flashmla"),
            "KV4 MLA expects attention_backend to be one of ['flashinfer', 'trtllm_mla'], but got flashmla"),
    # §12: FP4 KV on an H100 defaults to fa3, which then fails
    "E41": (_config(kv_cache_dtype="fp4_mx_block16"),
            "KV4 MHA expects attention_backend to be one of ['triton', 'torch_native', 'flex_attention', 'trtllm_mha'], "
            "but got fa3"),
    "E42": (_config(ROCM, kv_cache_dtype="fp4_mx_block16"), "KV4 is not tested on non-CUDA platforms."),
    "E43": (_config(kv_cache_dtype="mxfp8"),
            "--kv-cache-dtype mxfp8 requires an SM100+ (Blackwell) GPU for the block-scaled operands used by the FA4 "
            "MXFP8 attention path."),
    "E44": (_config(enable_mis=True),
            "Multi-item scoring requires flashinfer attention backend for custom attention mask support. Please set "
            "--attention-backend flashinfer when using --enable-mis. Current backends: prefill=fa3, decode=fa3"),
    "E45": (_config(prefill_only_disable_kv_cache=True, attention_backend="triton"),
            "--prefill-only-disable-kv-cache currently requires the FA prefill backend (fa3/fa4), but got prefill "
            "backend 'triton'. Other prefill-only workloads and backends may be supported in a future change."),
}


def test_every_refusal_has_a_case():
    assert list(REFUSALS) == list(reference.REFUSALS)


@pytest.mark.parametrize(("rule", "config", "message"), [(rule, *case) for rule, case in REFUSALS.items()],
                         ids=REFUSALS.keys())
def test_refusals(rule, config, message):
    assert reference.resolve(config).error == Refusal(rule, reference.REFUSALS[rule], message)


# --- Rules §10 does not show, each in a whole record -------------------------------------------------

def _adjusted(source, *changes):
    return tuple(Adjustment(path, before, after, source, rule) for path, before, after, rule in changes)


COMPAT = "handle_attention_backend_compatibility"
PAGES = "_mla_backend_page_constraints"
RULES = {
    "A1, A2, A3: aliases; the prefill's tokenspeed_mla becomes trtllm_mla": (
        _config(attention_backend="compressed", prefill_attention_backend="tokenspeed_mla"),
        Record("dsv4", "trtllm_mla", "dsv4", None, _adjusted("handle_deprecated_args",
               ("attention_backend", "compressed", "dsv4", "A1"),
               ("prefill_attention_backend", "tokenspeed_mla", "cutedsl_mla", "A2"),
               ("prefill_attention_backend", "cutedsl_mla", "trtllm_mla", "A3"))
               + (PAGE_1,),
               ("--attention-backend=compressed is deprecated; use 'dsv4' instead.",
                "--prefill-attention-backend=tokenspeed_mla is deprecated; use 'cutedsl_mla' instead."))),
    "A6: HPU forces torch_native over a user value, then A19": (
        _config({"device": "hpu"}, attention_backend="fa3"),
        _chosen("torch_native", *_adjusted("handle_hpu_backends", ("attention_backend", "fa3", "torch_native", "A6"),
                                           ("sampling_backend", None, "pytorch", "A6")),
                Adjustment("cuda_graph_config.decode", "full", "disabled", COMPAT, "A19"), PAGE_1,
                warnings=("Cuda graph is disabled because of using torch native attention backend",))),
    "A9-A13: rl_on_policy_target, fusions off, the SM100 DeepSeek-family default": (
        _config(B200, {**MLA, "is_deepseek_family": True}, rl_on_policy_target="fsdp",
                enable_aiter_allreduce_fusion=True, flashinfer_allreduce_fusion_backend="x"),
        _chosen("triton", *_adjusted("handle_deterministic_inference",
                ("enable_deterministic_inference", False, True, "A9"), ("env.SGLANG_VLM_CACHE_SIZE_MB", None, 0, "A9"),
                ("env.SGLANG_ENABLE_DETERMINISTIC_INFERENCE", None, True, "A9"),
                ("enable_aiter_allreduce_fusion", True, False, "A10"),
                ("flashinfer_allreduce_fusion_backend", "x", None, "A11"), ("sampling_backend", None, "pytorch", "A12"),
                ("attention_backend", None, "triton", "A13")), PAGE_1,
                warnings=("Enable deterministic inference because of rl_on_policy_target.",
                          "Disable --enable-aiter-allreduce-fusion because deterministic inference is enabled.",
                          "Disable --flashinfer-allreduce-fusion-backend because deterministic inference is enabled.",
                          "Sampling backend is set to pytorch for deterministic inference.",
                          "Attention backend not specified. Falling back to 'triton' for deterministic inference. You "
                          "can explicitly set --attention-backend to one of ['ascend', 'fa3', 'fa4', 'flashinfer', "
                          "'intel_xpu', 'triton'].",))),
    "A16, S1: native NVFP4 on a B200 fills both phases, S1 the base": (
        _config(B200, kv_cache_dtype="nvfp4"),
        _chosen("trtllm_mha", *_adjusted("handle_nvfp4_prefill_kv_dequant_dtype",
                ("prefill_attention_backend", None, "trtllm_mha", "A16"),
                ("decode_attention_backend", None, "trtllm_mha", "A16"),
                ("prefill_kv_cache_dequant_dtype", "auto", "nvfp4", "A16")),
                Adjustment("attention_backend", None, "trtllm_mha", "_attention_backend_default", "A17"),
                Adjustment("page_size", None, 64, PAGES, "A25"),
                warnings=("TensorRT-LLM MHA only supports page_size of 16, 32, 64 or 128, changing page_size from "
                          "None to 64.",))),
    "A16, A34, A35: mixed NVFP4 with EAGLE (no W1 for the NVFP4 pair)": (
        _config(B200, kv_cache_dtype="nvfp4", attention_backend="flashinfer", speculative_algorithm="EAGLE"),
        _chosen("flashinfer", *_adjusted("handle_nvfp4_prefill_kv_dequant_dtype",
                ("prefill_attention_backend", None, "flashinfer", "A16"),
                ("decode_attention_backend", None, "trtllm_mha", "A16"),
                ("prefill_kv_cache_dequant_dtype", "auto", "fp8_e4m3", "A16")),
                Adjustment("page_size", None, 64, PAGES, "A25"),
                *_adjusted("handle_kv4_compatibility",
                           ("speculative_draft_attention_backend", None, "trtllm_mha", "A34"),
                           ("speculative_attention_mode", "prefill", "decode", "A35")),
                decode="trtllm_mha",
                warnings=("TensorRT-LLM MHA only supports page_size of 16, 32, 64 or 128, changing page_size from "
                          "None to 64.",
                          "SM100 native NVFP4 speculative decoding uses trtllm_mha for the draft worker.",
                          "SM100 mixed NVFP4 speculative decoding routes target verify to trtllm_mha; overriding "
                          "--speculative-attention-mode=prefill to decode."))),
    "W1: FP4 KV with different prefill and decode backends": (
        _config(kv_cache_dtype="fp4_mx_block16", prefill_attention_backend="triton",
                decode_attention_backend="torch_native"),
        _chosen("fa3", _default("fa3"), PAGE_1, prefill="triton", decode="torch_native",
                warnings=("Attention: Using KV4 with PREFILL = triton and DECODE = torch_native. Compatibility issues "
                          "are unlikely, but may occur in rare edge cases.",))),
    "W2 and A36 on ROCm: an explicit memory fraction honoured, the vectorized layout's page 64": (
        _config(ROCM, {"context_len": 32768}, mem_fraction_static=0.8,
                env={"SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION": True,
                     "SGLANG_AITER_KV_CACHE_LAYOUT": "vectorized_5d"}),
        _chosen("aiter", _default("aiter"), Adjustment("page_size", None, 64, "_page_size_default", "A36"),
                warnings=("attention_backend=aiter with context_len=32768 (>8192) normally scales mem_fraction_static "
                          "by 0.85 to reserve non-static workspace, but SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION is "
                          "set, so mem_fraction_static=0.800 is used as-is. Ensure enough memory is left for attention "
                          "workspace and CUDA graphs.",))),
    "A21, A26: Whisper's radix cache (info), HPC-Ops' page": (
        _config(model={"architecture": reference.WHISPER, "is_encoder_decoder": True}, attention_backend="hpc_ops"),
        _chosen("hpc_ops", Adjustment("disable_radix_cache", False, True, COMPAT, "A21"),
                Adjustment("page_size", None, 64, PAGES, "A26"),
                warnings=("HPC-Ops attention only supports a page_size of 64, changing page_size from None to 64.",))),
    "A22: FlashMLA warns at page 64 too, and changes nothing": (
        _config(H100, MLA, attention_backend="flashmla", page_size=64),
        _chosen("flashmla", warnings=("FlashMLA only supports a page_size of 64, change page_size to 64.",))),
    "A23 then A25: the page pass chains": (
        _config(B200, MLA, prefill_attention_backend="trtllm_mha", decode_attention_backend="trtllm_mla", page_size=8),
        _chosen("flashinfer", _default("flashinfer"), Adjustment("page_size", 8, 64, PAGES, "A23"),
                prefill="trtllm_mha", decode="trtllm_mla",
                warnings=("TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from 8 to 64.",))),
    "A32: Intel XPU without XMX falls back to triton": (
        _config({"device": "xpu"}, attention_backend="intel_xpu"),
        _chosen("triton", Adjustment("attention_backend", "intel_xpu", "triton", COMPAT, "A32"), PAGE_1,
                warnings=("The current platform does not support Intel XMX, will fallback to triton backend.",))),
    "A33: Intel XPU's MLA page sizes": (
        _config(XPU, {"is_mla": True}, attention_backend="intel_xpu", page_size=256),
        _chosen("intel_xpu", Adjustment("page_size", 256, 128, COMPAT, "A33"),
                warnings=("Intel XPU attention backend for MLA only supports page_sizes of [64, 128, 16, 32], changing "
                          "page_size from 256 to 128.",))),
    "A37: multi-item scoring, after the page default": (
        _config(enable_mis=True, attention_backend="flashinfer"),
        _chosen("flashinfer", PAGE_1, *_adjusted("handle_multi_item_scoring",
                ("cuda_graph_config.decode", "full", "disabled", "A37"),
                ("cuda_graph_config.prefill", "breakable", "disabled", "A37"),
                ("disable_radix_cache", False, True, "A37"), ("chunked_prefill_size", None, -1, "A37")),
                warnings=("CUDA graph is disabled because --enable-mis is set.",
                          "Radix cache is disabled because --enable-mis is set.",
                          "Chunked prefill is disabled because --enable-mis is set."))),
}


@pytest.mark.parametrize(("config", "expected"), RULES.values(), ids=RULES.keys())
def test_rules(config, expected):
    assert reference.resolve(config) == expected
