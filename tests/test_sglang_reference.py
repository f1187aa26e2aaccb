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


@settings(max_examples=settings.default.max_examples * 8, deadline=None)
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
