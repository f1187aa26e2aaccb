"""vLLM's model-runner check written by hand, checking every value it reads as `resolve` does.

`vllm_ifchain.py` reads only the values its tests need and checks none: a wrong-typed value
(``tensor_parallel_size = "2"``, ``use_ubatching = 1``, a method no release has) goes through
unnoticed or fails far from its cause. `matrix.resolve` promises more: every value a gate in
force reads is checked against the schema on every call, whatever the other values, and a
wrong one raises an error naming its path. This is the hand-written chain that keeps the same
promise, as an engineer would write it for speed: each value the gates of the default
features.toml at 0.30.0 read is read once into a local and checked (the schema's type, choices,
minimum and nullability, with the engine's exceptions: an `int` subclass but not `bool` is an
int, a `str` subclass is a str, a section is anything but a plain value), then the same gates
as `vllm_ifchain.py` are tested on the locals. A wrong value raises `TypeError` or `ValueError`
naming its path. `run.py` checks that it raises wherever `resolve` raises a `ConfigError`, on
each field the gates read, before it times it.
"""

#: What is not a section (`matrix._operators.PLAIN_TYPES`). A section read for itself is tested
#: with ``issubclass(type(x), _PLAIN)``: the same answer as ``isinstance(x, _PLAIN)`` for these
#: types, in a third of the time (60 against 170 ns on an object that is none of them); one read
#: for its fields, by the first read raising `AttributeError`, as the engine's reader does.
_PLAIN = (bool, int, float, str, bytes, list, tuple, set, frozenset)
_MODES = frozenset({"DYNAMO_TRACE_ONCE", "NONE", "STOCK_TORCH_COMPILE", "VLLM_COMPILE"})
_CUDAGRAPH_MODES = frozenset({"FULL", "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY", "NONE", "PIECEWISE"})
_MAMBA_CACHE_MODES = frozenset({"align", "all", "none"})
_BACKENDS = frozenset({"external_launcher", "mp", "ray", "uni"})
_METHODS = frozenset({"custom_class", "dflash", "draft_model", "dspark", "eagle", "eagle3", "extract_hidden_states",
                      "medusa", "mlp_speculator", "mtp", "ngram", "ngram_gpu", "suffix"})
_V2_METHODS = frozenset({"ngram", "ngram_gpu", "draft_model", "suffix", "medusa", "mlp_speculator", "custom_class"})
_ROCM_V1 = frozenset({"DeepseekV32ForCausalLM", "DeepseekV4ForCausalLM", "GlmMoeDsaForCausalLM"})


def _wrong(path, value, expected):
    raise TypeError(f"{path}: expected {expected}, got {type(value).__name__} {value!r}")


def _not_one_of(path, value, choices):
    raise ValueError(f"{path}: {value!r} is not one of {', '.join(map(repr, sorted(choices)))}")


def blockers(c):  # noqa: C901 — the baseline measured is a hand-written chain, one function as vLLM's
    cc = c.compilation_config
    mode = cc.mode
    if mode not in _MODES:
        _not_one_of("compilation_config.mode", mode, _MODES)
    enable_sp = cc.pass_config.enable_sp
    if type(enable_sp) is not bool:
        _wrong("compilation_config.pass_config.enable_sp", enable_sp, "bool")
    cudagraph_mode = cc.cudagraph_mode
    if cudagraph_mode not in _CUDAGRAPH_MODES:
        _not_one_of("compilation_config.cudagraph_mode", cudagraph_mode, _CUDAGRAPH_MODES)
    mamba_cache_mode = c.cache_config.mamba_cache_mode
    if mamba_cache_mode not in _MAMBA_CACHE_MODES:
        _not_one_of("cache_config.mamba_cache_mode", mamba_cache_mode, _MAMBA_CACHE_MODES)

    pc = c.parallel_config
    tp = pc.tensor_parallel_size
    if type(tp) is not int and (type(tp) is bool or not isinstance(tp, int)) or tp < 1:
        _wrong("parallel_config.tensor_parallel_size", tp, "an int >= 1")
    pp = pc.pipeline_parallel_size
    if type(pp) is not int and (type(pp) is bool or not isinstance(pp, int)) or pp < 1:
        _wrong("parallel_config.pipeline_parallel_size", pp, "an int >= 1")
    dcp = pc.decode_context_parallel_size
    if type(dcp) is not int and (type(dcp) is bool or not isinstance(dcp, int)) or dcp < 1:
        _wrong("parallel_config.decode_context_parallel_size", dcp, "an int >= 1")
    pcp = pc.prefill_context_parallel_size
    if type(pcp) is not int and (type(pcp) is bool or not isinstance(pcp, int)) or pcp < 1:
        _wrong("parallel_config.prefill_context_parallel_size", pcp, "an int >= 1")
    backend = pc.distributed_executor_backend
    if backend is not None and backend not in _BACKENDS:
        _not_one_of("parallel_config.distributed_executor_backend", backend, _BACKENDS)
    ubatching = pc.use_ubatching
    if type(ubatching) is not bool:
        _wrong("parallel_config.use_ubatching", ubatching, "bool")
    elastic_ep = pc.enable_elastic_ep
    if type(elastic_ep) is not bool:
        _wrong("parallel_config.enable_elastic_ep", elastic_ep, "bool")
    batch_sharded = pc.enable_batch_sharded_sampling
    if type(batch_sharded) is not bool:
        _wrong("parallel_config.enable_batch_sharded_sampling", batch_sharded, "bool")

    mc = c.model_config
    if mc is None:
        multimodal = encoder_decoder = hybrid = diffusion = processors = architectures = None
    else:
        try:  # a plain value has no such attribute
            multimodal = mc.is_multimodal_model
        except AttributeError:
            _wrong("model_config", mc, "a section or None")
        if type(multimodal) is not bool:
            _wrong("model_config.is_multimodal_model", multimodal, "bool")
        encoder_decoder = mc.is_encoder_decoder
        if type(encoder_decoder) is not bool:
            _wrong("model_config.is_encoder_decoder", encoder_decoder, "bool")
        hybrid = mc.is_hybrid
        if type(hybrid) is not bool:
            _wrong("model_config.is_hybrid", hybrid, "bool")
        diffusion = mc.is_diffusion
        if type(diffusion) is not bool:
            _wrong("model_config.is_diffusion", diffusion, "bool")
        processors = mc.logits_processors
        if processors is not None:
            if type(processors) is not list and type(processors) is not tuple:
                _wrong("model_config.logits_processors", processors, "a list of str")
            for item in processors:
                if type(item) is not str and not isinstance(item, (str, type)):
                    _wrong("model_config.logits_processors", item, "str items")
        architectures = mc.architectures
        if type(architectures) is not list and type(architectures) is not tuple:
            _wrong("model_config.architectures", architectures, "a list of str")
        for item in architectures:
            if type(item) is not str and not isinstance(item, str):
                _wrong("model_config.architectures", item, "str items")

    sc = c.speculative_config
    if sc is None:
        method = parallel_drafting = adaptive = mixed_sliding = draft_architectures = dm = None
    else:
        try:  # a plain value has no such attribute
            method = sc.method
        except AttributeError:
            _wrong("speculative_config", sc, "a section or None")
        if method not in _METHODS:
            _not_one_of("speculative_config.method", method, _METHODS)
        parallel_drafting = sc.parallel_drafting
        if type(parallel_drafting) is not bool:
            _wrong("speculative_config.parallel_drafting", parallel_drafting, "bool")
        adaptive = sc.enable_adaptive_verification
        if type(adaptive) is not bool:
            _wrong("speculative_config.enable_adaptive_verification", adaptive, "bool")
        dm = sc.draft_model_config
        if dm is None:
            mixed_sliding = draft_architectures = None
        else:
            try:  # a plain value has no such attribute
                mixed_sliding = dm.mixed_sliding_attention
            except AttributeError:
                _wrong("speculative_config.draft_model_config", dm, "a section or None")
            if type(mixed_sliding) is not bool:
                _wrong("speculative_config.draft_model_config.mixed_sliding_attention", mixed_sliding, "bool")
            draft_architectures = dm.architectures
            if type(draft_architectures) is not list and type(draft_architectures) is not tuple:
                _wrong("speculative_config.draft_model_config.architectures", draft_architectures, "a list of str")
            for item in draft_architectures:
                if type(item) is not str and not isinstance(item, str):
                    _wrong("speculative_config.draft_model_config.architectures", item, "str items")

    lora = c.lora_config
    if lora is not None and issubclass(type(lora), _PLAIN):
        _wrong("lora_config", lora, "a section or None")
    hisparse = c.attention_config.hisparse_config
    if hisparse is not None and issubclass(type(hisparse), _PLAIN):
        _wrong("attention_config.hisparse_config", hisparse, "a section or None")
    watermark = c.watermark_config
    if watermark is not None and issubclass(type(watermark), _PLAIN):
        _wrong("watermark_config", watermark, "a section or None")
    encoder_only = c.is_mm_encoder_only
    if type(encoder_only) is not bool:
        _wrong("is_mm_encoder_only", encoder_only, "bool")
    platform = c.platform
    plugins = platform.logits_processor_plugins
    if type(plugins) is not bool:
        _wrong("platform.logits_processor_plugins", plugins, "bool")
    has_triton = platform.has_triton
    if type(has_triton) is not bool:
        _wrong("platform.has_triton", has_triton, "bool")
    is_rocm = platform.is_rocm
    if type(is_rocm) is not bool:
        _wrong("platform.is_rocm", is_rocm, "bool")

    v2 = []
    if mode == "STOCK_TORCH_COMPILE":
        v2.append("stock torch.compile")
    if enable_sp and tp > 1:
        v2.append("sequence parallelism")
    if backend == "external_launcher" and pp > 1:
        v2.append("pipeline parallelism with external_launcher")
    if method in _V2_METHODS:
        v2.append(f"speculative method '{method}'")
    if parallel_drafting and method not in ("dflash", "dspark"):
        v2.append("parallel drafting for EAGLE speculative decoding")
    if ubatching:
        v2.append("dual batch overlap")
        if lora is not None:
            v2.append("dual batch overlap with LoRA")
        if sc is not None:
            v2.append("dual batch overlap with speculative decoding")
        if pp > 1:
            v2.append("dual batch overlap with pipeline parallelism")
        if dcp > 1 or pcp > 1:
            v2.append("dual batch overlap with context parallelism")
        if multimodal or encoder_decoder:
            v2.append("dual batch overlap with multimodal models")
        if hybrid:
            v2.append("dual batch overlap with hybrid models")
        if cudagraph_mode == "PIECEWISE":
            v2.append("dual batch overlap with PIECEWISE CUDA graphs")
        if encoder_only:
            v2.append("dual batch overlap with encoder only models")
    if elastic_ep:
        v2.append("elastic expert parallelism")
    if processors or mc is not None and plugins:
        v2.append("custom logits processors")
    if mamba_cache_mode == "all":
        v2.append("mamba cache mode 'all'")
    if not has_triton:
        v2.append("missing Triton")
    v1 = []
    if pcp > 1:
        v1.append("prefill context parallel")
    if method == "dspark":
        v1.append("dspark speculative decoding")
    if adaptive:
        v1.append("adaptive draft verification")
    if method == "dflash" and dm is not None:
        if mixed_sliding:
            v1.append("mixed sliding/full dflash drafts")
        if "DFlash2DraftModel" in draft_architectures:
            v1.append("dflash2 drafts")
    if diffusion:
        v1.append("diffusion models")
    if batch_sharded:
        v1.append("batch-sharded sampling")
    if hisparse is not None:
        v1.append("HiSparse")
    forced = preferred = None
    if watermark is not None:
        v1.append("watermarking")
        forced = "v2"
    if is_rocm and architectures and not _ROCM_V1.isdisjoint(architectures):
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
