import dataclasses
import logging
import operator
import pickle
import threading

import attrs

import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import (ConfigError, NoRunnerError, RemovedFeatureError, UnsupportedFeatureError,
                    UsageError)
from matrix.resolver import as_version
from matrix.schema import BLOCKING, Requirement
from matrix.strategies import as_object, configs

from . import vllm_reference

DEFAULT = matrix.default()
MAMBA_ALL = {"cache_config": {"mamba_cache_mode": "all"}}


def names(features):
    return [f.name for f in features]



def _said(excinfo):
    """The error as ``exconly()`` shows it, up to the remedy lines that follow its sentence
    (`ResolutionError.reason`; the remedies are tested on their own, below)."""
    error = excinfo.value
    return f"{type(error).__module__}.{type(error).__qualname__}: {error.reason}"

def test_mamba_all_falls_back_to_v1_with_a_deprecation_warning():
    resolution = matrix.resolve(MAMBA_ALL, version="0.31.0")
    assert resolution.runner == "v1"
    assert names(resolution.active) == ["mamba cache mode 'all'"]
    assert {r: names(fs) for r, fs in resolution.unsupported.items()} == {"v2": ["mamba cache mode 'all'"], "v1": []}
    assert [(w.kind, w.feature, w.runner, w.message) for w in resolution.warnings] == [
        ("deprecated", "mamba_cache_all", None,
         "mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; "
         "use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)"),
        ("fallback", None, "v1",
         "Model Runner V2 does not yet support mamba cache mode 'all'; using the V1 model runner instead."),
    ]


def test_asking_for_v2_with_mamba_all_is_refused():
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        matrix.resolve(MAMBA_ALL, runner="v2", version="0.31.0")
    assert _said(excinfo) == (
        "matrix.errors.UnsupportedFeatureError: Model Runner V2 does not yet support: mamba cache mode 'all'"
    )
    assert excinfo.value.reason == "Model Runner V2 does not yet support: mamba cache mode 'all'"
    assert excinfo.value.resolution.runner is None
    assert excinfo.value.resolution.requested == "v2"
    assert isinstance(excinfo.value, ValueError)


def test_mamba_all_is_removed_in_0_32_0():
    with pytest.raises(RemovedFeatureError) as excinfo:
        matrix.resolve(MAMBA_ALL, version="0.32.0")
    assert str(excinfo.value) == (
        "mamba cache mode 'all' was removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' "
        "instead (Open an issue if that is a problem)"
    )
    assert names(excinfo.value.resolution.active) == ["mamba cache mode 'all'"]


def test_a_v2_only_and_a_v1_only_feature_leave_no_runner_said_as_vllm_falls_back_then_refuses():
    config = {"cache_config": {"mamba_cache_mode": "all"}, "parallel_config": {"prefill_context_parallel_size": 2}}
    with pytest.raises(NoRunnerError) as excinfo:
        matrix.resolve(config, version="0.31.0")
    assert _said(excinfo) == "matrix.errors.NoRunnerError: Model Runner V1 does not support: prefill context parallel"
    resolution = excinfo.value.resolution
    assert [(w.kind, w.runner, w.message) for w in resolution.warnings][1:] == [
        ("fallback", "v1", "Model Runner V2 does not yet support mamba cache mode 'all'; using the V1 model runner instead.")]
    assert resolution.runner is None
    assert {r: names(fs) for r, fs in resolution.unsupported.items()} == {
        "v2": ["mamba cache mode 'all'"], "v1": ["prefill context parallel"]}


def test_dual_batch_overlap_blocks_v2_in_automatic_choice_and_its_detailed_rules_apply_when_asked():
    config = {"parallel_config": {"use_ubatching": True}, "lora_config": {}}
    automatic = matrix.resolve(config)
    assert automatic.runner == "v1"
    assert names(automatic.unsupported["v2"]) == ["dual batch overlap"]  # vLLM's collapsed entry only
    assert [w.message for w in automatic.warnings] == [
        "Model Runner V2 does not yet support dual batch overlap; using the V1 model runner instead."]
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        matrix.resolve(config, runner="v2")
    assert excinfo.value.reason == "Model Runner V2 does not yet support: dual batch overlap with LoRA"
    assert names(excinfo.value.resolution.unsupported["v2"]) == ["dual batch overlap with LoRA"]
    asked = matrix.resolve({"parallel_config": {"use_ubatching": True}}, runner="v2")
    assert (asked.runner, asked.warnings, asked.active) == ("v2", (), ())  # vLLM says nothing
    # Watermarking overrides a request for V1: a runner was asked for, so the detailed rules apply.
    overridden = matrix.resolve({"parallel_config": {"use_ubatching": True}, "watermark_config": {}}, runner="v1")
    assert overridden.runner == "v2"
    assert [w.kind for w in overridden.warnings] == ["override"]


def test_an_opt_in_feature_on_a_runner_forced_over_the_request_says_what_forced_it():
    m = matrix.loads("""
[matrix]
name = "t"
version = "1.0"
[config]
"dbo" = { type = "bool", default = false }
"watermark" = { type = "bool", default = false }
[features.dbo]
name = "dual batch overlap"
when = "dbo"
support.v1 = "yes"
support.v2 = { status = "opt-in", note = "under development" }
[features.watermarking]
name = "watermarking"
when = "watermark"
support = { v1 = "no", v2 = "yes" }
forces = { runner = "v2", override = true }
""", runners={"v2": {"name": "Model Runner V2", "priority": 20}, "v1": {"name": "Model Runner V1", "priority": 10}})
    resolution = m.resolve({"dbo": True, "watermark": True}, runner="v1")
    assert resolution.runner == "v2"
    assert [(w.kind, w.message) for w in resolution.warnings] == [
        ("override", "watermarking requires Model Runner V2 and overrides the request for Model Runner V1"),
        ("opt-in", "dual batch overlap is opt-in on Model Runner V2: used because watermarking requires "
                   "Model Runner V2 (under development)"),
    ]
    assert [w.message for w in m.resolve({"dbo": True}, runner="v2").warnings] == [
        "dual batch overlap is opt-in on Model Runner V2: used because Model Runner V2 was asked for explicitly "
        "(under development)"]


def test_history_gives_0_31_0_answers():
    config = {"speculative_config": {"method": "draft_model"}, "model_config": {"logits_processors": ["x"]}}
    assert matrix.resolve(config, version="0.30.0").runner == "v1"
    assert matrix.resolve(config, version="0.31.0").runner == "v2"
    dflash = {"speculative_config": {"method": "dflash", "draft_model_config": {"architectures": ["LiLiCorrDraftModel"]}}}
    assert matrix.resolve(dflash, version="0.30.0").unsupported["v1"] == ()
    assert names(matrix.resolve(dflash, version="0.31.0").unsupported["v1"]) == ["DFlash candidate-head drafts"]
    pp_async = {"parallel_config": {"pipeline_parallel_size": 2}, "scheduler_config": {"async_scheduling": True}}
    assert matrix.resolve(pp_async, version="0.30.0").unsupported["v1"] == ()
    assert names(matrix.resolve(pp_async, version="0.31.0").unsupported["v1"]) == ["pipeline parallelism with async scheduling"]


def test_use_heterogeneous_vocab_is_a_field_at_every_release():
    # 0.30.0's SpeculativeConfig already has it; no gate reads it before 0.32.0.
    for version in ("0.30.0", "0.31.0", "0.32.0", "0.33.0"):
        field = DEFAULT.schema.at(as_version(version)).get("speculative_config.use_heterogeneous_vocab")
        assert field is not None and (field.since, field.until) == (None, None), version


def test_explain_shows_the_gate_and_the_values_that_made_it_true():
    config = {"cache_config": {"mamba_cache_mode": "all"}, "parallel_config": {"use_ubatching": True, "pipeline_parallel_size": 2}}
    assert matrix.resolve(config, version="0.31.0").explain() == "\n".join([
        "Runner: v1 (Model Runner V1), chosen automatically, at version 0.31.0",
        "Runners, highest priority first:",
        "  v2 (Model Runner V2, priority 20): blocked by 2 features",
        "    - dual batch overlap [no]",
        "        when: parallel_config.use_ubatching",
        "        because: parallel_config.use_ubatching = True",
        "    - mamba cache mode 'all' [no]",
        "        when: cache_config.mamba_cache_mode == 'all'",
        "        because: cache_config.mamba_cache_mode = 'all'",
        "  v1 (Model Runner V1, priority 10): no blockers, chosen",
        "Active features: dual batch overlap, mamba cache mode 'all'",
        "Warnings:",
        "  - deprecated: mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)",
        "  - fallback: Model Runner V2 does not yet support dual batch overlap, mamba cache mode 'all'; using the V1 model runner instead.",
        "Remedies:",
        "  - To use Model Runner V2, change: set parallel_config.use_ubatching to False and set "
        "cache_config.mamba_cache_mode to one of 'none', 'align'",
    ])


def test_explain_renders_the_explanation_data(monkeypatch):
    resolution = matrix.resolve(MAMBA_ALL, version="0.31.0")
    data = resolution.explanation()
    assert (data["active"], data["warnings"]) == (resolution.to_dict()["active"], resolution.to_dict()["warnings"])
    data["runners"][1]["name"] = "renamed"
    data["runners"][0]["blockers"][0]["note"] = "a note said only in the data"
    data["warnings"] = data["warnings"][:1]
    data["remedies"][0]["text"] = "a remedy said only in the data"
    monkeypatch.setattr(matrix.Resolution, "explanation", lambda self: data)
    assert resolution.explain() == "\n".join([
        "Runner: v1 (renamed), chosen automatically, at version 0.31.0",
        "Runners, highest priority first:",
        "  v2 (Model Runner V2, priority 20): blocked by 1 feature",
        "    - mamba cache mode 'all' [no]",
        "        when: cache_config.mamba_cache_mode == 'all'",
        "        because: cache_config.mamba_cache_mode = 'all'",
        "        note: a note said only in the data",
        "  v1 (renamed, priority 10): no blockers, chosen",
        "Active features: mamba cache mode 'all'",
        "Warnings:",
        "  - deprecated: mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)",
        "Remedies:",
        "  - a remedy said only in the data",
    ])


def test_explain_shows_the_values_read_as_python_spells_them_where_json_cannot():
    m = matrix.loads("""
[matrix]
name = "t"
version = "1.0"
[config]
"x" = { type = "float", default = 0.0 }
"s" = { type = "section", nullable = true }
"t" = { type = "str", default = "" }
[features.big]
name = "big"
when = "x > 5.0 or s is not None or t == '<section>'"
support = { a = { status = "no", note = "a note" }, b = "yes" }
""", runners={"a": {"name": "A", "priority": 20}, "b": {"name": "B", "priority": 10}})
    for config, json_values, shown in [
        ({"x": float("inf"), "s": {"k": 1}}, {"s": "<section>", "t": "", "x": "inf"}, "s = <section>, t = '', x = inf"),
        ({"t": "<section>"}, {"s": None, "t": "<section>", "x": 0.0}, "s = None, t = '<section>', x = 0.0"),
    ]:
        resolution = m.resolve(config)
        assert resolution.explanation()["runners"][0]["blockers"][0]["because"] == json_values
        assert resolution.explain().splitlines()[2:7] == [
            "  a (A, priority 20): blocked by 1 feature",
            "    - big [no]",
            "        when: x > 5.0 or s is not None or t == '<section>'",
            f"        because: {shown}",
            "        note: a note",
        ]


def test_to_dict_has_stable_keys():
    assert matrix.resolve(MAMBA_ALL, version="0.31.0").to_dict() == {
        "matrix": "vLLM model runners",
        "version": "0.31.0",
        "requested": None,
        "runner": "v1",
        "redirected": None,
        "active": [{"id": "mamba_cache_all", "name": "mamba cache mode 'all'"}],
        "unsupported": {"v2": [{"id": "mamba_cache_all", "name": "mamba cache mode 'all'", "status": "no"}], "v1": []},
        "warnings": [
            {"kind": "deprecated", "feature": "mamba_cache_all", "runner": None,
             "message": "mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)"},
            {"kind": "fallback", "feature": None, "runner": "v1",
             "message": "Model Runner V2 does not yet support mamba cache mode 'all'; using the V1 model runner instead."},
        ],
        "adjustments": [],
        "effective": EFFECTIVE_MAMBA_ALL_031,
    }


#: The effective config of MAMBA_ALL at 0.31.0 (no adjustment in force): every path at that
#: version, as given or by default; what no section holds reads None.
EFFECTIVE_MAMBA_ALL_031 = {
    "cache_config.mamba_cache_mode": "all", "cache_config.enable_prefix_caching": None,
    "compilation_config.mode": "VLLM_COMPILE", "compilation_config.pass_config.enable_sp": False,
    "compilation_config.cudagraph_mode": "FULL_AND_PIECEWISE",
    "parallel_config.tensor_parallel_size": 1, "parallel_config.pipeline_parallel_size": 1,
    "parallel_config.decode_context_parallel_size": 1, "parallel_config.prefill_context_parallel_size": 1,
    "parallel_config.distributed_executor_backend": None, "parallel_config.use_ubatching": False,
    "parallel_config.enable_elastic_ep": False, "parallel_config.enable_batch_sharded_sampling": False,
    "scheduler_config.async_scheduling": False,
    **dict.fromkeys(["speculative_config.method", "speculative_config.parallel_drafting",
                     "speculative_config.enable_adaptive_verification", "speculative_config.use_heterogeneous_vocab",
                     "speculative_config.draft_model_config.architectures",
                     "speculative_config.draft_model_config.max_model_len",
                     "speculative_config.draft_model_config.mixed_sliding_attention",
                     "model_config.logits_processors", "model_config.is_multimodal_model",
                     "model_config.is_encoder_decoder", "model_config.is_hybrid", "model_config.max_model_len",
                     "model_config.is_diffusion", "model_config.architectures", "model_config.architecture",
                     "lora_config.max_loras"]),
    "is_mm_encoder_only": False, "platform.has_triton": True, "platform.logits_processor_plugins": False,
    "platform.is_rocm": False, "platform.is_unspecified": False,
}


def test_bad_arguments_are_usage_errors():
    with pytest.raises(UsageError) as excinfo:
        matrix.resolve({}, runner="v3")
    assert str(excinfo.value) == "Unknown runner 'v3' (expected one of 'v1', 'v2')"
    with pytest.raises(UsageError) as excinfo:
        matrix.resolve({}, version="next")
    assert str(excinfo.value) == "Invalid version 'next': expected a PEP 440 version such as '0.31.0'"
    with pytest.raises(UsageError) as excinfo:
        matrix.resolve({}, version=31)
    assert str(excinfo.value) == "Invalid version 31: expected a PEP 440 version such as '0.31.0'"


def test_a_config_error_says_every_bad_value_the_resolution_reads():
    # The first read stays first (its message alone, where it is the only one, as before), then
    # each other bad value, in the order of [config], with the feature that reads it.
    config = {"parallel_config": {"pipeline_parallel_size": "2"}, "model_config": {"is_diffusion": 0},
              "speculative_config": 7}
    with pytest.raises(ConfigError) as excinfo:
        matrix.resolve(config)
    assert excinfo.exconly() == (
        "matrix.errors.ConfigError: Config 'parallel_config.pipeline_parallel_size' (read by feature "
        "'pp_external_launcher'): Expected int, got str '2'\n"
        "Config 'speculative_config' (read by feature 'spec_ngram'): Expected a section, got int 7\n"
        "Config 'model_config.is_diffusion' (read by feature 'diffusion'): Expected bool, got int 0: write True or "
        "False (1 and 0 are not read as booleans)")
    error = excinfo.value
    assert (error.path, error.feature) == ("parallel_config.pipeline_parallel_size", "pp_external_launcher")
    assert [(o.path, o.feature) for o in error.others] == [("speculative_config", "spec_ngram"),
                                                          ("model_config.is_diffusion", "diffusion")]
    assert [o["path"] for o in error.to_dict()["others"]] == ["speculative_config", "model_config.is_diffusion"]
    assert str(pickle.loads(pickle.dumps(error))) == str(error)
    with pytest.raises(ConfigError) as excinfo:
        matrix.resolve({"parallel_config": {"pipeline_parallel_size": "2"}})
    assert (str(excinfo.value), excinfo.value.others) == (
        "Config 'parallel_config.pipeline_parallel_size' (read by feature 'pp_external_launcher'): "
        "Expected int, got str '2'", ())
    assert "others" not in excinfo.value.to_dict()


def test_config_errors_name_the_feature():
    with pytest.raises(ConfigError) as excinfo:
        matrix.resolve({"parallel_config": {"pipeline_parallel_size": "2"}})
    assert str(excinfo.value) == (
        "Config 'parallel_config.pipeline_parallel_size' (read by feature 'pp_external_launcher'): "
        "Expected int, got str '2'"
    )
    assert excinfo.value.feature == "pp_external_launcher"
    assert excinfo.value.path == "parallel_config.pipeline_parallel_size"
    with pytest.raises(ConfigError) as excinfo:
        matrix.resolve({"speculative_config": {"parallel_drafting": True}})
    assert str(excinfo.value) == (
        "Config 'speculative_config.method' (read by feature 'spec_ngram'): Missing, and the schema gives no default"
    )


def test_undeclared_fields_are_ignored():
    assert matrix.resolve({"model_config": {"model": "llama", "max_len": 4096}, "extra": object()}).runner == "v2"


def test_is_supported():
    assert DEFAULT.is_supported(MAMBA_ALL, "v1", version="0.31.0") is True
    assert DEFAULT.is_supported(MAMBA_ALL, "v2", version="0.31.0") is False
    assert DEFAULT.is_supported({"parallel_config": {"use_ubatching": True}}, "v2") is True
    assert DEFAULT.is_supported(MAMBA_ALL, "v1", version="0.32.0") is False


def test_emit_logs_each_warning_once(caplog):
    config = {"parallel_config": {"use_ubatching": True, "tensor_parallel_size": 3}}
    logger = logging.getLogger("test_emit_logs_each_warning_once")
    resolution = matrix.resolve(config)
    with caplog.at_level(logging.WARNING, logger=logger.name):
        resolution.emit(logger)
        matrix.resolve(config).emit(logger)
    assert [r.getMessage() for r in caplog.records] == [
        "Model Runner V2 does not yet support dual batch overlap; using the V1 model runner instead."
    ]


def test_emit_logs_each_kind_to_its_own_logger_at_the_level_chosen(caplog):
    config = {"parallel_config": {"use_ubatching": True, "tensor_parallel_size": 7},
              "cache_config": {"mamba_cache_mode": "all"}}
    logger = logging.getLogger("test_emit_kinds")
    with caplog.at_level(logging.DEBUG, logger=logger.name):
        DEFAULT.resolve(config, version="0.31.0").emit(logger, levels={"fallback": logging.INFO}, once=False)
    assert [(r.name, r.levelname, r.matrix_kind, r.matrix_feature, r.matrix_runner) for r in caplog.records] == [
        ("test_emit_kinds.deprecated", "WARNING", "deprecated", "mamba_cache_all", None),
        ("test_emit_kinds.fallback", "INFO", "fallback", None, "v1"),
    ]
    assert caplog.records[0].getMessage() == (
        "mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; use "
        "cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)")


def test_a_host_silences_one_kind_with_the_logging_module(caplog):
    config = {"parallel_config": {"use_ubatching": True, "tensor_parallel_size": 9},
              "cache_config": {"mamba_cache_mode": "all"}}
    logging.getLogger("matrix.deprecated").setLevel(logging.ERROR)
    try:
        with caplog.at_level(logging.WARNING, logger="matrix"):
            DEFAULT.resolve(config, version="0.31.0").emit(once=False)
    finally:
        logging.getLogger("matrix.deprecated").setLevel(logging.NOTSET)
    assert [r.name for r in caplog.records] == ["matrix.fallback"]


def test_emit_refuses_an_unknown_kind():
    with pytest.raises(UsageError) as info:
        DEFAULT.resolve({}).emit(levels={"fallbak": logging.INFO})
    assert str(info.value) == ("Unknown warning kind 'fallbak', did you mean 'fallback' "
                               "(expected one of 'adjusted', 'deprecated', 'deprecated-alias', 'deprecated-runner', 'fallback', 'opt-in', 'override', 'partial', 'preference', 'redirected')")


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"levels": ["fallback"]},
     "levels must map warning kinds to logging levels, such as {'fallback': logging.INFO}, not ['fallback']"),
    ({"levels": {"fallback": "loud"}},
     "The level for 'fallback' must be a logging level (an int such as logging.INFO), not 'loud'"),
    ({"levels": {"fallback": True}},
     "The level for 'fallback' must be a logging level (an int such as logging.INFO), not True"),
    ({"levels": {1: logging.INFO}},
     "Unknown warning kind '1' (expected one of 'adjusted', 'deprecated', 'deprecated-alias', 'deprecated-runner', 'fallback', 'opt-in', 'override', 'partial', 'preference', 'redirected')"),
    ({"once": "no"}, "once must be True or False, not 'no'"),
])
def test_emit_refuses_bad_arguments_before_logging_anything(kwargs, message, caplog):
    with caplog.at_level(logging.DEBUG, logger="matrix"):
        with pytest.raises(UsageError) as info:
            DEFAULT.resolve(MAMBA_ALL, version="0.31.0").emit(**kwargs)
    assert str(info.value) == message
    assert caplog.records == []


def test_emit_once_is_per_warning_and_once_false_logs_every_time(caplog):
    # A matrix of its own: "once" is per process, and other tests emit the default matrix's warnings.
    m = matrix.loads('[matrix]\nname = "m"\nversion = "1"\n[config]\nx = { type = "bool", default = false }\n'
                     '[features.x]\nname = "the once test"\nwhen = "x"\nsupport = { a = "no", b = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    logger = logging.getLogger("test_emit_once")
    with caplog.at_level(logging.WARNING, logger=logger.name):
        for _ in range(2):
            m.resolve({"x": True}).emit(logger)
        for _ in range(2):
            m.resolve({"x": True}).emit(logger, once=False)
    assert [r.getMessage() for r in caplog.records] == ["A does not support: the once test; using B instead"] * 3


def test_an_enum_member_read_by_its_name_is_said_so_with_did_you_mean():
    import enum

    class Mode(enum.Enum):
        ALL = 1

    class Named(str, enum.Enum):
        ALL = "ALL"

    with pytest.raises(ConfigError) as info:
        DEFAULT.resolve({"cache_config": {"mamba_cache_mode": Mode.ALL}})
    assert str(info.value) == ("Config 'cache_config.mamba_cache_mode' (read by feature 'mamba_cache_all'): Mode.ALL "
                               "is read by its name, 'ALL', which is not one of 'align', 'all', 'none', did you mean 'all'")
    with pytest.raises(ConfigError) as info:
        DEFAULT.resolve({"cache_config": {"mamba_cache_mode": Named.ALL}})
    assert info.value.reason == ("Named.ALL is read by its value, 'ALL', which is not one of 'align', 'all', 'none', "
                                 "did you mean 'all'")


@pytest.mark.parametrize(("value", "reason"), [
    ("True", "Expected bool, got str 'True': a boolean is written without quotes (true / false in JSON and TOML, "
             "True / False in Python)"),
    (0, "Expected bool, got int 0: write True or False (1 and 0 are not read as booleans)"),
    ([], "Expected bool, got list []"),
])
def test_a_bool_given_something_else_is_told_the_spelling(value, reason):
    with pytest.raises(ConfigError) as info:
        DEFAULT.resolve({"model_config": {"is_diffusion": value}})
    assert info.value.reason == reason


def test_emit_from_racing_threads_logs_once(caplog):
    config = {"parallel_config": {"use_ubatching": True}, "speculative_config": {"method": "custom_class"}}
    logger = logging.getLogger("test_emit_from_racing_threads_logs_once")
    barrier = threading.Barrier(8)

    def work():
        resolution = DEFAULT.resolve(config)
        barrier.wait()
        resolution.emit(logger)

    with caplog.at_level(logging.WARNING, logger=logger.name):
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(caplog.records) == 1


def test_resolving_from_eight_threads_matches_sequential_results():
    samples = [
        {}, MAMBA_ALL, {"parallel_config": {"use_ubatching": True}},
        {"model_config": {"is_diffusion": True}},
        {"speculative_config": {"method": "ngram"}},
    ] * 20
    expected = [_outcome(DEFAULT, c) for c in samples]
    results = [None] * 8

    def work(index):
        results[index] = [_outcome(DEFAULT, c) for c in samples]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [expected] * 8


def _outcome(m, config, **kwargs):
    try:
        return m.resolve(config, **kwargs).to_dict()
    except matrix.ResolutionError as error:
        return (type(error).__name__, str(error), error.resolution.to_dict())


# --- a matrix's own sentences ([messages]) -----------------------------------------------------

HOST_WORDS = """[matrix]
name = "host words"
version = "1.0"

[config]
"fast" = { type = "bool", default = false }
"slow" = { type = "bool", default = false }
"forced" = { type = "bool", default = false }

[features.fast]
name = "fast path"
when = "fast"
support = { a = "no", b = "yes", c = "no" }

[features.slow]
name = "slow path"
when = "slow"
support = { a = "yes", b = "no", c = "no" }

[features.forced]
name = "forced path"
when = "forced"
support = { a = "yes", b = "no", c = "no" }
forces = { runner = "a" }

[messages]
fallback = "{runner} cannot do {features} ({{{skipped}}}); using {chosen}."
no_runner = "{refusal}"

[messages.runners.a]
does_not_support = "{runner} does not yet support: {features}"
"""
HOST_RUNNERS = {"a": {"name": "A", "priority": 30}, "b": {"name": "B", "priority": 20},
                "c": {"name": "C", "priority": 10}}


def _host(**messages):
    text = HOST_WORDS
    for key, value in messages.items():
        text = text.replace(f"\n{key} = ", f"\n{key} = {value!r}\n#", 1)
    return matrix.loads(text, runners=HOST_RUNNERS)


def test_a_matrix_says_its_hosts_words_a_runners_own_over_the_matrixs():
    m = _host()
    assert m.messages == {"fallback": "{runner} cannot do {features} ({{{skipped}}}); using {chosen}.",
                          "no_runner": "{refusal}", "runners.a.does_not_support": "{runner} does not yet support: {features}"}
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        m.resolve({"fast": True}, runner="a")
    assert _said(excinfo) == "matrix.errors.UnsupportedFeatureError: A does not yet support: fast path"
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        m.resolve({"slow": True}, runner="b")
    assert _said(excinfo) == "matrix.errors.UnsupportedFeatureError: B does not support: slow path"
    assert [w.message for w in m.resolve({"fast": True}).warnings] == [
        "A cannot do fast path ({A does not yet support: fast path}); using B."]


def test_a_no_runner_sentence_of_the_last_refusal_says_the_runners_before_it_as_a_fallback():
    """A host that falls back and then refuses (vLLM): the error is the last runner's refusal,
    and the runners passed over on the way are said in a fallback warning to it."""
    with pytest.raises(NoRunnerError) as excinfo:
        _host().resolve({"fast": True, "slow": True})
    assert _said(excinfo) == "matrix.errors.NoRunnerError: C does not support: fast path, slow path"
    assert [(w.kind, w.runner, w.message) for w in excinfo.value.resolution.warnings] == [
        ("fallback", "c", "A, B cannot do fast path, slow path ({A does not yet support: fast path; "
                          "B does not support: slow path}); using C.")]


def test_a_no_runner_sentence_that_names_every_runner_says_no_fallback():
    with pytest.raises(NoRunnerError) as excinfo:
        _host(no_runner="Nothing runs this: {blocked}").resolve({"fast": True, "slow": True})
    assert _said(excinfo) == (
        "matrix.errors.NoRunnerError: Nothing runs this: A does not yet support: fast path; "
        "B does not support: slow path; C does not support: fast path, slow path")
    assert excinfo.value.resolution.warnings == ()


def test_with_a_forcing_feature_active_the_no_runner_sentence_is_the_forced_runners_refusal():
    """vLLM validates V2 alone when HiSparse or watermarking forces it: the runners forced away
    are not said, neither in the error nor as a fallback."""
    with pytest.raises(NoRunnerError) as excinfo:
        _host().resolve({"forced": True, "fast": True})
    assert _said(excinfo) == "matrix.errors.NoRunnerError: A does not yet support: fast path"
    assert excinfo.value.resolution.warnings == ()


def test_the_rocm_default_of_0_30_0_with_v1_blocked_is_said_as_vllm_says_it():
    """vLLM 0.30.0 logs its ROCm default to V1, then raises V1's error alone."""
    config = {"platform": {"is_rocm": True},
              "model_config": {"architectures": ["DeepseekV32ForCausalLM"], "is_diffusion": True}}
    with pytest.raises(NoRunnerError) as excinfo:
        matrix.resolve(config, version="0.30.0")
    assert _said(excinfo) == "matrix.errors.NoRunnerError: Model Runner V1 does not support: diffusion models"
    assert [(w.kind, w.feature, w.message) for w in excinfo.value.resolution.warnings] == [
        ("preference", "rocm_v1_default",
         "Defaulting to V1 model runner on ROCm for model architectures: DeepseekV32ForCausalLM")]


def test_the_rocm_notices_name_the_architectures_found_as_vllm_does():
    """vLLM names the ROCm V1 architectures the model has (not the others) when it defaults to
    V1, and in 0.31.0, when V1 is blocked, when it skips the default (then V2 serves here)."""
    archs = ["MyDraftHelper", "GlmMoeDsaForCausalLM", "DeepseekV32ForCausalLM"]
    for version in ("0.30.0", "0.31.0"):
        taken = matrix.resolve({"platform": {"is_rocm": True}, "model_config": {"architectures": archs}},
                               version=version)
        assert (taken.runner, [w.message for w in taken.warnings]) == ("v1", [
            "Defaulting to V1 model runner on ROCm for model architectures: GlmMoeDsaForCausalLM, "
            "DeepseekV32ForCausalLM"])
    config = {"platform": {"is_rocm": True}, "parallel_config": {"prefill_context_parallel_size": 2,
              "enable_batch_sharded_sampling": True}, "model_config": {"architectures": archs}}
    skipped = matrix.resolve(config, version="0.31.0")
    assert (skipped.runner, [(w.kind, w.runner, w.message) for w in skipped.warnings]) == ("v2", [
        ("preference", "v1", "Skipping the ROCm V1 model runner default for GlmMoeDsaForCausalLM, "
         "DeepseekV32ForCausalLM: V1 does not support prefill context parallel, batch-sharded sampling.")])
    assert _says(config, "0.31.0", None) == vllm_reference.says(config, "0.31.0", None)


def test_a_preferences_sentences_name_its_parts_and_the_values_its_condition_read():
    m = matrix.loads("""[matrix]
name = "p"
version = "1.0"

[config]
"tags" = { type = "list[str]", default = [] }
"size" = { type = "int", default = 1 }
"slow" = { type = "bool", default = false }

[features.slow]
name = "slow path"
when = "slow"
support = { a = "yes", b = "no" }

[features.tagged]
name = "tagged"
when = "'x' in tags or 'y' in tags"
support = { a = "yes", b = "yes" }
prefers = { runner = "b", message = "{{{feature}}}: {runner} for {tags}", skipped = "{runner} skipped for {tags}: {features} ({refusal})" }

[features.sized]
name = "sized"
when = "size > 4 and tags"
support = { a = "yes", b = "yes" }
prefers = { runner = "b", message = "{runner} for size {size}, tags {tags}" }
""", runners={"a": {"name": "A", "priority": 20}, "b": {"name": "B", "priority": 10}})
    taken = m.resolve({"tags": ["z", "y", "x"]})
    assert (taken.runner, [w.message for w in taken.warnings]) == ("b", ["{tagged}: B for y, x"])
    skipped = m.resolve({"tags": ["y", "z"], "slow": True, "size": 9})
    assert (skipped.runner, [w.message for w in skipped.warnings]) == ("a", [
        "B skipped for y: slow path (B does not support: slow path)",
        "sized would prefer B, but B does not support: slow path; choosing in the usual order"])
    sized = m.resolve({"tags": ["z"], "size": 9})  # a condition that looks for no entry: every entry
    assert [w.message for w in sized.warnings] == ["B for size 9, tags z"]


def test_with_watermarking_or_hisparse_and_v2_blocked_vllms_v2_error_is_said_alone():
    """vLLM validates V2 alone when a feature forces it (V1 is never tried): no fallback, and
    the error is V2's, its DBO entry collapsed in automatic choice."""
    for forcing in ({"watermark_config": {}}, {"attention_config": {"hisparse_config": {}}}):
        config = {**forcing, "speculative_config": {"method": "suffix"}, "parallel_config": {"use_ubatching": True},
                  "model_config": {"is_diffusion": True}}
        with pytest.raises(NoRunnerError) as excinfo:
            matrix.resolve(config)
        assert _said(excinfo) == ("matrix.errors.NoRunnerError: Model Runner V2 does not yet support: "
                                     "speculative method 'suffix', dual batch overlap")
        assert excinfo.value.resolution.warnings == ()


def test_an_outright_preference_sentence_that_names_the_feature_says_no_warning():
    text = HOST_WORDS.replace('forces = { runner = "a" }', 'prefers = { runner = "b", outright = true }')
    worded = text.replace('no_runner = "{refusal}"', 'preferred_blocked = "{feature} wants {runner}: {refusal}"')
    with pytest.raises(NoRunnerError) as excinfo:
        matrix.loads(worded, runners=HOST_RUNNERS).resolve({"forced": True})
    assert _said(excinfo) == "matrix.errors.NoRunnerError: forced path wants B: B does not support: forced path"
    assert excinfo.value.resolution.warnings == ()
    refusal = text.replace('no_runner = "{refusal}"', 'preferred_blocked = "{refusal}"')
    with pytest.raises(NoRunnerError) as excinfo:
        matrix.loads(refusal, runners=HOST_RUNNERS).resolve({"forced": True})
    assert _said(excinfo) == "matrix.errors.NoRunnerError: B does not support: forced path"
    assert [(w.kind, w.message) for w in excinfo.value.resolution.warnings] == [("preference", "forced path: using B")]


def test_a_runners_sentence_says_its_features_and_the_engine_adds_the_requirements_it_fails():
    m = matrix.loads("""[matrix]
name = "r"
version = "1.0"

[config]
"h" = { type = "int", default = 64 }
"fast" = { type = "bool", default = false }

[requirements.head]
name = "Head sizes"
reason = "head_size not supported"

[features.fast]
name = "fast path"
when = "fast"
support = { a = "no", b = "yes" }

[messages.runners.a]
does_not_support = "{runner} lacks {features}"
""", runners={"a": 'name = "A"\npriority = 20\n[requires]\nhead = "h >= 32"\n', "b": {"name": "B", "priority": 10}})
    assert [w.message for w in m.resolve({"h": 16, "fast": True}).warnings] == [
        "A lacks fast path; and is not valid for this config: head_size not supported; using B instead"]
    assert [w.message for w in m.resolve({"h": 16}).warnings] == [
        "A is not valid for this config: head_size not supported; using B instead"]


def test_without_messages_the_engines_sentences_are_unchanged():
    m = matrix.loads(HOST_WORDS[:HOST_WORDS.index("[messages]")], runners=HOST_RUNNERS)
    assert m.messages == {}
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve({"fast": True, "slow": True})
    assert _said(excinfo) == (
        "matrix.errors.NoRunnerError: No runner can serve this config: A does not support: fast path; "
        "B does not support: slow path; C does not support: fast path, slow path")
    assert [w.message for w in m.resolve({"fast": True}).warnings] == ["A does not support: fast path; using B instead"]


# --- properties over random configs drawn from the schema ----------------------------------

VERSIONS = st.sampled_from(["0.30.0", "0.31.0", "0.32.0", "0.33.0"])


@st.composite
def _versioned_configs(draw):
    """A release of the default matrix, and a config as that release has it."""
    version = draw(VERSIONS)
    return draw(configs(DEFAULT, version=version)), version


def _choice(config, version, asked, facts=None):
    try:
        resolution = DEFAULT.resolve(config, version=version, runner=asked, facts=facts)
    except RemovedFeatureError:
        return None, "removed"
    except (NoRunnerError, UnsupportedFeatureError):
        return None, "error"
    return resolution.runner, None, _changed(resolution)


def _changed(resolution):
    """The effective values the adjustments changed, by path, checked against `effective`."""
    changed = {a.path: a.after for a in resolution.adjustments}
    assert {p: resolution.effective[p] for p in changed} == changed
    return changed


def _vllm_choice(config, version, asked):
    runner, error = vllm_reference.choose(config, version, asked)
    return (runner, error) if runner is None else (runner, error, vllm_reference.effective(config, version, asked))


def _says(config, version, asked, facts=None):
    """The matrix's answer in the shape of `vllm_reference.says`: the lists and the messages."""
    error = None
    try:
        resolution = DEFAULT.resolve(config, version=version, runner=asked, facts=facts)
    except RemovedFeatureError as caught:
        resolution = caught.resolution
    except (NoRunnerError, UnsupportedFeatureError) as caught:
        resolution, error = caught.resolution, caught
    v2, v1 = names(resolution.unsupported["v2"]), _v1_list(resolution)
    said = []
    for w in resolution.warnings:
        if w.kind in ("deprecated", "partial"):
            said.append((w.kind, DEFAULT.feature(w.feature).name))
        elif w.kind == "fallback":
            assert w.message == vllm_reference.fallback_text(v2)
            said.append(("fallback", v2))
        elif w.kind == "adjusted":  # vLLM's text where the facts give it, else the adjustment's id
            said.append(("adjusted", w.message if w.feature == "stock_compile_cudagraphs" else w.feature))
        else:
            said.append((w.kind, w.message))
    if error is not None:
        said.extend(_error_says(error, v2, v1))
    return v2, v1, said


def _v1_list(resolution):
    """V1's list as vLLM builds it: `unsupported["v1"]` without the features that force V2,
    which it names last (V1 does not serve them). vLLM builds the list only when it validates
    V1, which it never does while one of them is active (`vllm_reference.forcing_v2`)."""
    v1 = names(resolution.unsupported["v1"])
    forcing = [f.name for f in resolution.active if f.forces is not None]
    assert v1[len(v1) - len(forcing):] == forcing
    return v1[:len(v1) - len(forcing)]


def _error_says(error, v2, v1):
    """What the error reports, its text vLLM's own: which runner's error it is ("hisparse": the
    forced runner's own message). Where vLLM logs the fallback (or 0.30.0's ROCm default) and
    then raises the V1 error, the matrix warns so (in `resolution.warnings`) and raises it."""
    text = error.reason  # vLLM's sentence; the remedies follow it in str(error)
    if text == vllm_reference.HISPARSE_ERROR:
        return [("error", "hisparse")]
    runner = "v1" if text == vllm_reference.error_text("v1", v2, v1) else "v2"
    assert text == vllm_reference.error_text(runner, v2, v1), text
    return [("error", runner)]


@given(_versioned_configs(), st.sampled_from([None, "v1", "v2"]))
def test_the_lists_and_messages_are_vllms_automatic_and_asked(drawn, asked):
    """The display strings vLLM appends to its V2 and V1 lists (V2's DBO entries collapsed in
    automatic choice, detailed when a runner is asked for) and what it reports, in order."""
    config, version = drawn
    _assert_says(_says(config, version, asked), vllm_reference.says(config, version, asked), asked)


def _assert_says(got, expected, asked):
    # Issue 25: no tolerance. Where a feature forces V2 in automatic choice and no runner serves,
    # V2's overrides are said before V2's error, as vLLM logs them (`matrix._choice`, step 4).
    assert got == expected


@given(_versioned_configs())
def test_unsupported_matches_vllm_own_checks(drawn):
    config, version = drawn
    try:
        resolution = DEFAULT.resolve(config, version=version)
    except (NoRunnerError, RemovedFeatureError) as error:
        resolution = error.resolution
    assert names(resolution.unsupported["v2"]) == vllm_reference.v2_blockers(config, version)
    # vLLM's V1 list, then what V1 does not serve and vLLM checks first, making it use V2.
    assert names(resolution.unsupported["v1"]) == (vllm_reference.v1_blockers(config, version)
                                                   + vllm_reference.forcing_v2(config))


@given(_versioned_configs(), st.sampled_from([None, "v1", "v2"]))
def test_the_choice_matches_vllms_at_every_release_automatic_and_asked(drawn, asked):
    """The chosen runner, or the kind of error, as vLLM 0.30.0 to 0.33.0 decide it: removed
    settings, HiSparse and watermarking forcing V2, the ROCm default to V1, missing Triton."""
    config, version = drawn
    assert _choice(config, version, asked) == _vllm_choice(config, version, asked)


# --- vLLM's own config objects, resolved directly ------------------------------------------

from tests.hosts import shapes  # noqa: E402

_VLLM_CLASSES = {
    "": shapes.VllmConfig, "model_config": shapes.ModelConfig, "cache_config": shapes.CacheConfig,
    "compilation_config": shapes.CompilationConfig, "compilation_config.pass_config": shapes.PassConfig,
    "parallel_config": shapes.ParallelConfig, "scheduler_config": shapes.SchedulerConfig,
    "speculative_config": shapes.SpeculativeConfig, "speculative_config.draft_model_config": shapes.DraftModelConfig,
    "lora_config": shapes.LoRAConfig, "attention_config": shapes.AttentionConfig,
    "attention_config.hisparse_config": shapes.HiSparseConfig, "watermark_config": shapes.WatermarkConfig,
}
_ENUMS = {"compilation_config.mode": shapes.CompilationMode, "compilation_config.cudagraph_mode": shapes.CUDAGraphMode}


class _CustomLogitsProcessor(shapes.LogitsProcessor):
    pass


def _vllm_objects(config, draw, version):
    """A drawn config as vLLM holds it: its own classes (a field a release no longer has set as
    an attribute), enum members, None for an empty list of logits processors or a class in
    it; and the facts the host passes beside it."""
    facts = {}

    def build(values, path):
        if values is None:
            return None
        cls = _VLLM_CLASSES[path]
        names = {f.name for f in dataclasses.fields(cls)}
        known, later = {}, {}
        for key, value in values.items():
            full = f"{path}.{key}" if path else key
            field = DEFAULT.schema.get(full)
            if field is not None and field.fact and field.type != "section":
                facts[full] = value
                continue
            if full not in _VLLM_CLASSES and isinstance(value, dict):  # platform: facts only
                facts.update({f"{full}.{k}": v for k, v in value.items()})
                continue
            if full in _VLLM_CLASSES:
                value = build(value, full)
            elif full in _ENUMS:
                value = _ENUMS[full][value]
            elif full == "model_config.logits_processors":
                if value == [] and draw(st.booleans()):
                    value = None
                elif value:
                    value = [_CustomLogitsProcessor if draw(st.booleans()) else v for v in value]
            (known if key in names else later)[key] = value
        if "method" in names and "method" not in known:
            known["method"] = later.pop("method", "eagle")
        obj = cls(**known)
        for key, value in later.items():
            setattr(obj, key, value)
        return obj

    built = build(config, "")
    return shapes.vllm_config(version, **{f.name: getattr(built, f.name) for f in dataclasses.fields(built)}), facts


def test_vllms_all_defaults_config_and_one_without_a_model_resolve_at_every_release():
    for version in ("0.30.0", "0.31.0", "0.32.0", "0.33.0"):
        assert DEFAULT.resolve(shapes.vllm_config(version), version=version).runner == "v2"
        with_model = shapes.vllm_config(version, model_config=shapes.ModelConfig())
        assert DEFAULT.resolve(with_model, version=version).runner == "v2"
    processors = shapes.ModelConfig(logits_processors=["my.Processor", _CustomLogitsProcessor])
    resolution = DEFAULT.resolve(shapes.vllm_config("0.30.0", model_config=processors), version="0.30.0")
    assert resolution.runner == "v1"
    assert resolution.values["model_config.logits_processors"] == (
        "my.Processor", "tests.test_resolver._CustomLogitsProcessor")


def test_installed_logits_processor_plugins_block_v2_only_with_a_model_config():
    plugins = {"platform.logits_processor_plugins": True}
    assert DEFAULT.resolve(shapes.vllm_config("0.30.0"), version="0.30.0", facts=plugins).runner == "v2"
    with_model = shapes.vllm_config("0.30.0", model_config=shapes.ModelConfig())
    assert names(DEFAULT.resolve(with_model, version="0.30.0", facts=plugins).unsupported["v2"]) == [
        "custom logits processors"]


def test_the_schema_accepts_vllms_classes_and_says_where_it_would_not():
    from matrix import binding

    assert binding.compare(DEFAULT.schema.at(as_version("0.33.0")), shapes.VllmConfig) == ()
    assert binding.derive(shapes.VllmConfig, ["model_config.logits_processors"]).splitlines()[1:] == [
        "[config]",
        '"model_config" = { type = "section", nullable = true }',
        '"model_config.logits_processors" = { type = "list[str]", nullable = true, classes = true }',
    ]
    field = DEFAULT.schema["model_config.logits_processors"]
    without = matrix.schema.Schema({**DEFAULT.schema.fields, field.path: attrs.evolve(field, classes=False)})
    assert [d.message for d in binding.compare(without.at(as_version("0.33.0")), shapes.VllmConfig)] == [
        "ModelConfig.logits_processors is Optional[List[Union[str, type[tests.hosts.shapes.LogitsProcessor]]]], "
        "which may hold "
        "classes, but [config] 'model_config.logits_processors' refuses them: declare classes = true to read a "
        "class as its qualified name"]


@given(_versioned_configs(), st.sampled_from([None, "v1", "v2"]), st.data())
def test_vllms_own_objects_resolve_directly_as_vllm_decides(drawn, asked, data):
    config, version = drawn
    obj, facts = _vllm_objects(config, data.draw, version)
    host = vllm_reference.Host(obj, facts)
    assert _choice(obj, version, asked, facts) == _vllm_choice(host, version, asked)
    _assert_says(_says(obj, version, asked, facts), vllm_reference.says(host, version, asked), asked)


@given(_versioned_configs())
def test_chosen_runner_is_free_and_every_runner_above_it_is_blocked_unless_preferred(drawn):
    config, version = drawn
    try:
        resolution = DEFAULT.resolve(config, version=version)
    except NoRunnerError as error:
        assert any(error.resolution.unsupported[r.id] for r in DEFAULT.runners)
        return
    except RemovedFeatureError as error:
        assert any(f.deprecated and f.deprecated.is_removed(as_version(version)) for f in error.resolution.active)
        return
    order = [r.id for r in DEFAULT.runners]
    chosen = order.index(resolution.runner)
    assert resolution.unsupported[resolution.runner] == ()
    preferred = [w for w in resolution.warnings if w.kind == "preference" and w.runner == resolution.runner]
    assert preferred or all(resolution.unsupported[r] for r in order[:chosen])


@given(_versioned_configs())
def test_unsupported_equals_evaluating_each_gate_directly(drawn):
    config, version = drawn
    v = as_version(version)
    try:
        resolution = DEFAULT.resolve(config, version=version)
    except (NoRunnerError, RemovedFeatureError) as error:
        resolution = error.resolution
    active = [f for f in DEFAULT.features
              if f.in_force(v) and f.applies != "asked" and f.when.evaluate(config, schema=DEFAULT.schema)]
    assert list(resolution.active) == active
    for runner in DEFAULT.runners:
        assert list(resolution.unsupported[runner.id]) == [f for f in active if f.status(runner.id, v) in BLOCKING]


@given(configs(DEFAULT), VERSIONS, st.sampled_from([None, "v1", "v2"]))
def test_resolution_is_deterministic_and_objects_equal_dicts(config, version, runner):
    first = _outcome(DEFAULT, config, version=version, runner=runner)
    assert _outcome(DEFAULT, config, version=version, runner=runner) == first
    assert _outcome(DEFAULT, as_object(config, DEFAULT.schema), version=version, runner=runner) == first


@given(configs(DEFAULT))
def test_an_explicit_runner_is_refused_exactly_when_a_feature_is_no_there(config):
    for runner in DEFAULT.runners:
        try:
            resolution = DEFAULT.resolve(config, runner=runner.id)
        except UnsupportedFeatureError as error:
            assert any(f.status(runner.id, DEFAULT.version) == "no" for f in error.resolution.unsupported[runner.id])
            assert DEFAULT.is_supported(config, runner.id) is False
        except RemovedFeatureError:
            assert DEFAULT.is_supported(config, runner.id) is False
        else:
            if any(w.kind == "override" for w in resolution.warnings):  # watermarking runs on V2 whatever was asked
                assert resolution.runner != runner.id and DEFAULT.is_supported(config, runner.id) is False
                continue
            assert resolution.runner == runner.id
            assert all(f.status(runner.id, DEFAULT.version) == "opt-in" for f in resolution.unsupported[runner.id])
            assert DEFAULT.is_supported(config, runner.id) is True


# --- the compiled fast path against the plain interpreter ----------------------------------

from matrix import Predicate  # noqa: E402
from matrix.strategies import matrices  # noqa: E402


def reference(m, config, version):
    """What the plain interpreter says: the first bad value (in the order resolve reads
    them), else the gates active in automatic choice (runner requirements, candidacies and
    orders included; a gate in force only when a runner is asked for left out)."""
    gates = m.gates_at(version)
    # The schema as resolve reads it at *version*: a field the host no longer has (gone) may be
    # missing from an object, and reads as its default; a choice it has not got then is refused,
    # unless a gate that records its removal compares with it (no other gate opens it: a runner's
    # requirement that names it did, a user trial found).
    schema = m.schema.reading_at(version, [g for g in gates if g.removed_at(version)])
    # The plan reads what the gates read, then what the adjustments' conditions read.
    conditions = [sorted(f.when.paths) for f in gates] + [sorted(a.when.paths) for a in m.adjustments_at(version)]
    # Then what a failed requirement's reason says (issue 30, F7): read as its condition is.
    conditions += [sorted(_template_paths(f.name)) for f in gates if isinstance(f.origin, Requirement)]
    faults = []  # every bad value read (docs: the first read, then the others in [config] order)
    for paths in conditions:
        for path in paths:
            try:
                Predicate(f"{path} is None").evaluate(config, schema=schema)
            except ConfigError as error:
                if not any(error.path == p or error.path.startswith(p + ".") or p.startswith(error.path + ".")
                           for p, _ in faults):
                    faults.append((error.path, error.reason))
    if faults:
        order = {f.path: i for i, f in enumerate(schema)}
        return ("ConfigError", *faults[0], tuple(sorted(faults[1:], key=lambda f: order.get(f[0], len(order)))))
    adjustments = [a for a in m.adjustments_at(version)
                   if Predicate(str(a.when)).evaluate(config, schema=schema)]
    return [f.id for f in gates if f.applies != "asked" and f.when.evaluate(config, schema=schema)] + [
        f"adjustment:{a.id}" for a in adjustments]


def _template_paths(text):
    """The fields a message template names, as Python's str.format reads it (README)."""
    import string

    return {path for _, path, _, _ in string.Formatter().parse(text) if path}


def _template_said(text, read):
    """A message template said of a config (README): each placeholder's value converted and
    formatted as str.format does; with neither, text as it is, anything else as its repr."""
    import string

    out = []
    for literal, path, spec, conversion in string.Formatter().parse(text):
        out.append(literal)
        if path is None:
            continue
        value = read(path)
        value = list(value) if isinstance(value, tuple) else value  # a list field's value: a list
        if conversion:
            value = {"r": repr, "s": str, "a": ascii}[conversion](value)
        out.append(format(value, spec) if spec and value is not None else value if isinstance(value, str) else repr(value))
    return "".join(out)


def compiled(m, config, version):
    try:
        resolution = m.resolve(config, version=version)
    except ConfigError as error:
        return ("ConfigError", error.path, error.reason, tuple((o.path, o.reason) for o in error.others))
    except matrix.ResolutionError as error:
        resolution = error.resolution
    # Every gate the compiled plan found active: the features, and the gates derived from the
    # runners (a failed requirement, a candidacy, an order) and from the adjustments (on the
    # config as given: the resolution's own mask is of the effective config), which only the
    # plan itself lists.
    plan = resolution._plan
    return [f.id for f in plan.active(plan.evaluate(config)[0] & plan.automatic)]


WEIRD = st.sampled_from([None, True, False, 0, 1, -3, 2.5, "", "a", "all", [], ["a"], [1], {}, {"x": True}, (), object()])


def _mutate(config, data):
    """Put a weird value somewhere in a copy of *config*."""
    import copy

    config = copy.deepcopy(config)
    target = config
    while True:
        if not isinstance(target, dict) or not target:
            return config
        key = data.draw(st.sampled_from(sorted(target)))
        if isinstance(target[key], dict) and data.draw(st.booleans()):
            target = target[key]
            continue
        target[key] = data.draw(WEIRD)
        return config


@given(st.data())
def test_fast_path_equals_the_interpreter_on_random_matrices(data):
    m = data.draw(matrices())
    # Versions past the newest release the file knows of are a UsageError (test_lifecycle).
    version = data.draw(st.sampled_from([v for v in [None, "0.9", "1.0", "1.1", "2.0"]
                                         if v is None or as_version(v) <= m.newest_release]))
    v = m.version if version is None else as_version(version)
    config = data.draw(configs(m, as_objects=data.draw(st.booleans())))
    expected = reference(m, config, v)
    assert compiled(m, config, version) == expected
    if isinstance(expected, tuple):
        return
    # Each failed requirement's reason, as explain() says it: its template said of the config
    # (issue 30, F7; no adjustment here: the values read are the config's own).
    try:
        resolution = m.resolve(config, version=version)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    from matrix._access import read

    schema = m.schema.reading_at(v, [g for g in m.gates_at(v) if g.removed_at(v)])
    for runner in resolution.explanation(remedies=False)["runners"]:
        said = [b["name"] for b in runner["blockers"] if "requirement" in b]
        failed = resolution.failed[runner["id"]]
        assert said == [_template_said(c.reason, lambda p: read(config, p, schema)) for c in failed]


def test_an_object_may_lack_a_field_the_host_no_longer_has():
    # Found by the hostile-config test: at 0.33.0 PassConfig has no enable_sp (removed in
    # 0.32.0), so an object without it is read with the field's default, not refused; at 0.31.0
    # the host has the field and an object lacking it is refused.
    config = {"compilation_config": {"mode": "VLLM_COMPILE", "pass_config": object()}}
    assert compiled(DEFAULT, config, None) == reference(DEFAULT, config, DEFAULT.version) == []
    assert compiled(DEFAULT, config, "0.31.0") == reference(DEFAULT, config, as_version("0.31.0")) == (
        "ConfigError", "compilation_config.pass_config.enable_sp", "object object has no attribute 'enable_sp'", ())


@given(st.data())
def test_fast_path_equals_the_interpreter_on_hostile_configs(data):
    m = data.draw(st.sampled_from([DEFAULT])) if data.draw(st.booleans()) else data.draw(matrices())
    config = _mutate(data.draw(configs(m)), data)
    assert compiled(m, config, None) == reference(m, config, m.version)


def test_nothing_from_the_file_reaches_the_generated_code_unescaped():
    import json

    when = """spec.class == '\\'); import os; os._exit(3) #' or spec.class == "\\"\\"\\"" or spec.class == 'a\\nb\\\\'"""
    text = f"""[matrix]
name = "hostile"
version = "1"
[config]
"spec" = {{ type = "section", nullable = true }}
"spec.class" = {{ type = "str", default = "" }}
"spec.import" = {{ type = "bool", default = false }}
[features.quote]
name = "quote"
when = {json.dumps(when)}
support = {{ r = "no", s = "yes" }}
[features.keyword]
name = "keyword"
when = "spec.import"
support = {{ r = "no", s = "yes" }}
"""
    m = matrix.loads(text, runners={"r": {"name": "R", "priority": 2}, "s": {"name": "S", "priority": 1}})
    for value in ["'); import os; os._exit(3) #", '"""', "a\nb\\"]:
        for config in ({"spec": {"class": value}}, as_object({"spec": {"class": value}}, m.schema)):
            assert [f.id for f in m.resolve(config).active] == ["quote"]
    assert [f.id for f in m.resolve({"spec": {"class": "x"}}).active] == []
    assert [f.id for f in m.resolve(as_object({"spec": {"class": "", "import": True}}, m.schema)).active] == ["keyword"]
    assert m.resolve({"spec": None}).runner == "r"


def test_iter_observations_yields_the_facts_one_by_one():
    from matrix.resolver import iter_observations

    config = {"cache_config": {"mamba_cache_mode": "all"}, "parallel_config": {"use_ubatching": True}}
    assert [(f.kind, f.feature.id, f.runner, f.status) for f in iter_observations(DEFAULT, config, version="0.31.0")] == [
        ("active", "dbo", None, None),
        ("status", "dbo", "v2", "no"),
        ("active", "mamba_cache_all", None, None),
        ("deprecated", "mamba_cache_all", None, None),
        ("status", "mamba_cache_all", "v2", "no"),
    ]
    assert [f.kind for f in iter_observations(DEFAULT, config, version="0.32.0")][:4] == ["active", "status", "active", "removed"]


# --- binding to the host's objects: missing attributes, dotted keys, strict, facts ---------

from typing import Optional as _Optional  # noqa: E402


JOB = matrix.loads("""
[matrix]
name = "jobs"
version = "1.0"
[config]
"job.gpus" = { type = "int", min = 0, default = 0 }
"job.os" = { type = "str", choices = ["linux", "windows"], default = "linux" }
"job.extra" = { type = "section", nullable = true }
"job.extra.debug" = { type = "bool", default = false }
"host.has_cuda" = { type = "bool", default = true, fact = true }
"derived" = { type = "section", fact = true }
"derived.big" = { type = "bool", default = false }
[features.gpu]
name = "GPU jobs"
when = "job.gpus > 0 and host.has_cuda"
support = { cpu = "no", gpu = "yes" }
[features.windows]
name = "Windows"
when = "job.os == 'windows'"
support = { cpu = "yes", gpu = "no" }
[features.debug]
name = "debug"
when = "job.extra.debug or derived.big"
support = { cpu = "yes", gpu = "yes" }
""", runners={"gpu": {"name": "GPU", "priority": 2}, "cpu": {"name": "CPU", "priority": 1}})


@dataclasses.dataclass
class _Job:
    gpus: int = 0
    os: str = "linux"
    extra: "_Optional[_Extra]" = None


@dataclasses.dataclass
class _Extra:
    debug: bool = False


@dataclasses.dataclass
class _Renamed:
    num_gpus: int = 0
    os: str = "linux"
    extra: "_Optional[_Extra]" = None


@dataclasses.dataclass
class _Host:
    job: object = dataclasses.field(default_factory=_Job)


def test_an_object_lacking_a_declared_attribute_is_a_config_error_with_a_near_miss():
    with pytest.raises(ConfigError) as info:
        JOB.resolve(_Host(_Renamed(num_gpus=2)))
    assert info.value.path == "job.gpus"
    assert info.value.feature == "gpu"
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'job.gpus' (read by feature 'gpu'): "
                              "_Renamed object has no attribute 'gpus', did you mean 'num_gpus'")


def test_a_mapping_still_takes_defaults_and_a_complete_object_needs_no_facts():
    assert JOB.resolve({}).runner == "gpu"
    assert JOB.resolve(_Host()).runner == "gpu"
    assert JOB.resolve(_Host(_Job(gpus=2))).active == (JOB.feature("gpu"),)


def test_facts_are_passed_beside_the_host_object_and_win_over_the_config():
    host = _Host(_Job(gpus=2))
    assert JOB.resolve(host, facts={"host.has_cuda": False}).active == ()
    assert JOB.resolve({"host": {"has_cuda": True}, "job": {"gpus": 1}},
                       facts={"host.has_cuda": False}).active == ()
    assert JOB.resolve({"host": {"has_cuda": False}, "job": {"gpus": 1}}).active == ()
    assert JOB.resolve(host, facts={"derived.big": True}).runner == "gpu"
    assert [f.id for f in JOB.resolve(host, facts={"derived.big": True}).active] == ["gpu", "debug"]
    assert JOB.is_supported(host, "cpu", facts={"host.has_cuda": False}) is True


def test_facts_are_checked():
    with pytest.raises(ConfigError) as info:
        JOB.resolve({}, facts={"host.has_cud": True})
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'host.has_cud': Not a fact the schema "
                              "declares, did you mean 'host.has_cuda' (facts: 'derived.big', 'host.has_cuda')")
    with pytest.raises(ConfigError) as info:
        JOB.resolve({}, facts={"job.gpus": 3})
    assert info.value.path == "job.gpus"
    # Every fact that is not one is said, in the order given (a user trial: the first alone).
    with pytest.raises(ConfigError) as info:
        JOB.resolve({}, facts={"host.has_cud": True, "host.has_cuda": True, "job.gpus": 3})
    assert info.exconly() == (
        "matrix.errors.ConfigError: Config 'host.has_cud': Not a fact the schema declares, did you mean "
        "'host.has_cuda' (facts: 'derived.big', 'host.has_cuda')\n"
        "Config 'job.gpus': Not a fact the schema declares (facts: 'derived.big', 'host.has_cuda')")
    # A bad fact value is a bad value as any: said with the config's others.
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job": {"gpus": "1"}}, facts={"host.has_cuda": "yes"})
    assert [(e.path, e.feature) for e in (info.value, *info.value.others)] == [
        ("host.has_cuda", "gpu"), ("job.gpus", "gpu")]
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job": {"gpus": 1}}, facts={"host.has_cuda": "yes"})
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'host.has_cuda' (read by feature 'gpu'): "
                              "Expected bool, got str 'yes': a boolean is written without quotes "
                              "(true / false in JSON and TOML, True / False in Python)")
    with pytest.raises(UsageError) as info:
        JOB.resolve({}, facts=[("host.has_cuda", True)])
    assert info.exconly() == ("matrix.errors.UsageError: facts must be a mapping of fact paths to values, "
                              "not list")


def test_a_flat_dotted_key_is_refused_never_ignored():
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job.os": "windows"})
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'job.os': Key 'job.os' has a dot in it: "
                              "configs are nested, so write {'job': {'os': ...}} instead")
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job": {"extra.debug": True}})
    assert info.value.path == "job.extra.debug"


def test_undeclared_keys_are_ignored_unless_strict():
    config = {"job": {"gpu": 2, "os": "linux"}, "jobs": 1}
    assert JOB.resolve(config).active == ()
    with pytest.raises(ConfigError) as info:
        JOB.resolve(config, strict=True)
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'job.gpu': Not declared in the schema, "
                              "did you mean 'job.gpus' (and 1 more undeclared key)")
    # The first key the config writes is said, a section's where it is written (a user trial: the
    # second was said first, the keys sorted).
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"jobz": 1, "job": {"gpu": 2}}, strict=True)
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'jobz': Not declared in the schema, "
                              "did you mean 'job' (and 1 more undeclared key)")
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job": {"gpu": 2}, "jobz": 1}, strict=True)
    assert info.value.path == "job.gpu"
    assert JOB.resolve({"job": {"gpus": 2, "extra": {"debug": False}}}, strict=True).runner == "gpu"
    # An object's other attributes are its own business: strict looks at mappings only.
    assert JOB.resolve(_Host(_Job(gpus=2)), strict=True).runner == "gpu"


def test_strict_reports_a_dotted_key_for_its_dot_never_as_undeclared():
    """Issue 24, item 14: 'job.os' is a declared path; the mistake is the dot."""
    with pytest.raises(ConfigError) as info:
        JOB.resolve({"job": {"gpus": 2, "os": "linux"}, "job.os": "windows"}, strict=True)
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'job.os': Key 'job.os' has a dot in it: "
                              "configs are nested, so write {'job': {'os': ...}} instead")


_DECLARED_NAMES = {"job", "host", "derived", "gpus", "os", "extra", "debug", "cuda", "big"}


@given(st.dictionaries(st.text().filter(lambda k: k not in _DECLARED_NAMES), st.integers()), st.text(), st.text(),
       st.data())
def test_any_dotted_key_at_a_declared_level_is_refused(keys, head, tail, data):
    keys[f"{head}.{tail}"] = 1
    where = data.draw(st.sampled_from(["top", "job"]))
    config = dict(keys) if where == "top" else {"job": dict(keys)}
    with pytest.raises(ConfigError) as info:
        JOB.resolve(config)
    assert "has a dot in it" in info.value.reason


@given(configs(JOB, as_objects=True), st.sampled_from(["gpus", "os"]))
def test_removing_any_attribute_a_gate_reads_is_a_config_error_naming_it(config, name):
    delattr(config.job, name)
    with pytest.raises(ConfigError) as info:
        JOB.resolve(config)
    assert info.value.path == f"job.{name}"


@given(configs(JOB), st.booleans(), st.booleans())
def test_facts_give_the_same_answer_as_the_same_values_in_a_dict(config, cuda, big):
    import copy

    merged = copy.deepcopy(config)
    merged.setdefault("host", {})["has_cuda"] = cuda
    merged.setdefault("derived", {})["big"] = big
    expected = _outcome(JOB, merged)
    facts = {"host.has_cuda": cuda, "derived.big": big}
    assert _outcome(JOB, config, facts=facts) == expected
    assert _outcome(JOB, as_object(config, JOB.schema), facts=facts) == expected


def test_a_dotted_key_is_refused_wherever_a_read_key_is_absent_by_every_reader():
    from types import SimpleNamespace

    # A fact too: platform.logits_processor_plugins is absent beside a dotted key.
    config = {"platform": {"has_triton": True, "logits_processor_plugins.enabled": True}}
    with pytest.raises(ConfigError) as info:
        DEFAULT.resolve(config)
    assert info.value.path == "platform.logits_processor_plugins.enabled"
    # `job` as an object sends the whole config to the general reader; as a dict, the fast path.
    for job in ({"gpus": 1, "os": "linux", "extra": None}, SimpleNamespace(gpus=1, os="linux", extra=None)):
        complete = {"job": job, "host": {"cuda": True}, "derived": {"big": False}, "a.b": 1}
        assert [f.id for f in JOB.resolve(complete).active] == ["gpu"]  # nothing read is absent
        partial = {"job": job, "host.cuda": False}
        with pytest.raises(ConfigError) as info:
            JOB.resolve(partial)
        assert info.value.reason.startswith("Key 'host.cuda' has a dot in it")


# --- remedies (issue 27 item 4) ----------------------------------------------------------------


_ADJUSTED_THEN_ASKED = """[matrix]
name = "w4"
version = "1.0"

[config]
"a" = { type = "int", choices = [1, 2], default = 1 }
"b" = { type = "bool", default = false }

[features.nb]
name = "b on"
when = "b"
support = { r1 = "yes", r2 = "no" }

[features.k]
name = "a is two"
when = "a == 2"
support = { r1 = "no", r2 = "yes" }

[adjustments.up]
name = "r2 sets a"
when = "a == 1"
set = { "a" = 2 }
runners = ["r2"]
"""


def test_a_remedy_changes_the_config_as_given_not_the_one_an_adjustment_made():
    """Review of this round: the search started from the effective config, so it proposed to
    set back a value the user had (a = 1, which Runner Two's adjustment made 2), also on a
    resolution restored from a pickle."""
    import pickle

    m = matrix.loads(_ADJUSTED_THEN_ASKED, runners={"r1": {"name": "Runner One", "priority": 1},
                                                   "r2": {"name": "Runner Two", "priority": 2}})
    resolution = m.resolve({})
    assert (resolution.runner, [(a.path, a.before, a.after) for a in resolution.adjustments]) == ("r2", [("a", 1, 2)])
    for r in (resolution, pickle.loads(pickle.dumps(resolution))):
        assert str(r.remedy("r1")) == ("To use Runner One, change: set b to True; or ask for it by id (runner='r1', "
                                       "--runner r1)")
    assert m.resolve({"b": True}).runner == "r1"


def test_a_remedy_sets_one_field_to_an_item_of_the_list_it_is_compared_with():
    """`s in l` with the user's l = ['zz']: setting s to 'zz' alone serves. The remedy said
    "set s to a value other than 'a' and set l to one of …" (the list's items were not among
    s's constants; found by the check brute force), and a class of one named value was said
    "a value other than 'a'", which 'b' is and does not serve."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n"s" = { type = "str", default = "" }\n'
                     '"l" = { type = "list[str]", default = [] }\n[requirements]\nk = { name = "K", reason = "k fails" }\n'
                     '[features.g]\nname = "G"\nwhen = "s == \'a\'"\nsupport = { a = "no" }\n',
                     runners={"a": {"name": "A", "priority": 1, "requires": {"k": "s in l"}}})
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"s": "a", "l": ["zz"]}, runner="a")
    assert str(caught.value).splitlines()[1] == "To use A, change: set s to 'zz'"
    assert m.resolve({"s": "zz", "l": ["zz"]}, runner="a").runner == "a"
    with pytest.raises(UnsupportedFeatureError):
        m.resolve({"s": "b", "l": ["zz"]}, runner="a")


def test_a_remedy_for_an_int_field_with_choices_says_the_choices_that_serve_never_a_range():
    """Choices [1, 3, 6, 9], blocked at 9, `k == 1` read elsewhere: the remedy said "set level to
    a value from 1 to 8" (a user trial read "from 2 to 8"), which admits 2, a config error. The
    check brute force draws such a field and holds every value a remedy's words admit to the
    field's choices."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n'
                     'level = { type = "int", choices = [1, 3, 6, 9], default = 3 }\n'
                     '[features.high]\nname = "high"\nwhen = "level == 9"\nsupport = { a = "no", b = "yes" }\n'
                     '[features.fast]\nname = "fast"\nwhen = "level == 1"\nsupport = { a = "yes", b = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"level": 9}, runner="a")
    assert str(caught.value).splitlines()[1] == "To use A, change: set level to one of 1, 3, 6"
    assert [m.resolve({"level": v}, runner="a").runner for v in (1, 3, 6)] == ["a"] * 3


def test_a_remedy_for_a_field_read_modulo_a_number_says_every_value_that_serves():
    """`p % 7 == 3`: a class of p is a residue within a range, so the remedy never joins them
    into a range (it said "set p to a value from 2 to 19", where only 3, 10 and 17 serve; found
    by review). It said the one value tried that serves, "among the values tried"; p being
    bounded and its partition exact, it says every int of the classes that serve (trial 9)."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n"p" = { type = "int", min = 1, max = 20, default = 1 }\n'
                     '[requirements]\nk = { name = "K", reason = "k fails" }\n'
                     '[features.g]\nname = "G"\nwhen = "p > 100"\nsupport = { a = "no" }\n',
                     runners={"a": {"name": "A", "priority": 1, "requires": {"k": "p % 7 == 3"}}})
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"p": 11}, runner="a")
    assert str(caught.value).splitlines()[1] == "To use A, change: set p to one of 3, 10, 17"
    assert [p for p in range(1, 21) if m.is_supported({"p": p}, "a")] == [3, 10, 17]



@pytest.mark.parametrize(("requirement", "user", "said", "serving"), [
    # Trial 9: x % 3 == 0 listed 340 values; x's classes are residues between its bounds.
    ("x % 3 == 0", 4, "a multiple of 3 from 3 to 1020", range(3, 1021, 3)),
    # Enumerated value by value (x + y reads both): the same rule.
    ("x % 3 == 0 and x + y < 2000", 4, "a multiple of 3 from 3 to 1020", range(3, 1021, 3)),
    ("x % 4 <= 1 and x > 100", 2, "a value from 101 to 1021 with remainder 0 or 1 when divided by 4",
     [n for n in range(101, 1022) if n % 4 <= 1]),
    ("x % 4 != 2 and x > y * 300", 2, "a value from 301 to 1021 with remainder 0, 1 or 3 when divided by 4",
     [n for n in range(301, 1022) if n % 4 != 2]),
    ("x % 7 == 2 or x < 10", 11, "a value from 1 to 9 or a value from 16 to 1017 with remainder 2 when divided by 7",
     [*range(1, 10), *range(16, 1018, 7)]),
    ("x < 20 or x > 1000", 500, "a value from 1 to 19 or a value from 1001 to 1022", [*range(1, 20), *range(1001, 1023)]),
    # A few values are said one by one.
    ("x % 300 == 7", 8, "one of 7, 307, 607, 907", [7, 307, 607, 907]),
])
def test_many_values_that_serve_are_said_by_the_rule_they_follow(requirement, user, said, serving):
    """A remedy of a bounded int field whose every value that serves is known (enumerated, or
    the ints of exact residue classes) says many of them by the rule they follow, which admits
    exactly the values that serve (each resolved here)."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n'
                     '"x" = { type = "int", min = 1, max = 1022, default = 1 }\n'
                     '"y" = { type = "int", min = 0, max = 3, default = 1 }\n'
                     '[requirements]\nk = { name = "K", reason = "k fails" }\n',
                     runners={"a": {"name": "A", "priority": 1, "requires": {"k": requirement}}})
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"x": user, "y": 1}, runner="a")
    assert str(caught.value).splitlines()[1] == f"To use A, change: set x to {said}"
    assert [n for n in range(1, 1023) if m.is_supported({"x": n, "y": 1}, "a")] == list(serving)

def test_classes_of_a_remedy_that_read_alike_are_said_once():
    """A new user's trial: a free string compared with a field of choices (s == t) has several
    classes "other than 'a'"; the remedy said "one of a value other than 'a', a value other than 'a', …"."""
    text = """[matrix]
name = "small"
version = "1.0"
[config]
"s" = { type = "str", default = "" }
"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }
[requirements]
k2 = { name = "K2", reason = "k2 fails" }
[features.g0]
name = "g0"
when = "s == 'a'"
support = { a = "no", b = "yes" }
forces = { runner = "b", override = false }
"""
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2, "requires": {
        "k2": [{"condition": "s == 'a'"}, {"condition": "s == t"}]}}})
    with pytest.raises(matrix.NoRunnerError) as info:
        m.resolve({"s": "a", "t": "b"})
    assert str(info.value).splitlines()[1:] == ["To use A, change: set s to a value other than 'a'",
                                                "To use B, change: set t to 'a'"]


def test_a_remedy_is_structured_and_says_every_working_value_of_its_class():
    from matrix import Change, Remedies, Remedy

    resolution = matrix.resolve({"speculative_config": {"method": "suffix"}})
    methods = ("ngram", "ngram_gpu", "draft_model", "eagle", "eagle3", "extract_hidden_states", "mtp", "dflash", "dspark")
    spelled = "one of " + ", ".join(repr(m) for m in methods)
    assert resolution.remedy("v2") == Remedies(
        "v2", "Model Runner V2", False, (
            Remedy("v2", (Change("speculative_config", "unset", (None,), "", "None when speculative decoding is off"),)),
            Remedy("v2", (Change("speculative_config.method", "set", methods, spelled),)),
        ), size=1, asking=True)
    assert resolution.remedies() == (resolution.remedy("v2"),)  # automatic choice would have taken v2 first
    assert resolution.remedy("v1") == Remedies("v1", "Model Runner V1", False, served=True)
    assert str(resolution.remedy("v1")) == "Model Runner V1 serves this config as it is"
    assert matrix.resolve({}).remedies() == ()


def test_a_remedy_never_proposes_a_choice_whose_until_has_passed():
    config = {"speculative_config": {"method": "eagle"}}
    common = ("; or set speculative_config.parallel_drafting to True; or set speculative_config.use_heterogeneous_vocab "
              "to True; or set parallel_config.use_ubatching to True; or ask for it by id (runner='v1', --runner v1); or no "
              "setting, only where platform.has_triton is False (a fact: Environment fact supplied by the host)")
    assert str(matrix.resolve(config, version="0.33.0").remedy("v1")) == (
        "To use Model Runner V1, change: set speculative_config.method to one of 'suffix', 'custom_class'" + common)
    assert str(matrix.resolve(config, version="0.32.0").remedy("v1")) == (
        "To use Model Runner V1, change: set speculative_config.method to one of 'suffix', 'medusa', 'mlp_speculator', "
        "'custom_class'" + common)


def test_a_fact_is_never_changed_but_stated_as_a_condition_after_the_remedies_without_one():
    found = matrix.resolve({"speculative_config": {"method": "eagle"}}).remedy("v1")
    assert [(c.path, c.action, c.values) for o in found.options for c in o.conditions] == [
        ("platform.has_triton", "where", (False,))]
    assert [o.changes for o in found.options][-1] == ()
    assert str(matrix.resolve({"platform": {"has_triton": False}}).remedy("v2")) == (
        "To use Model Runner V2, change: no setting, only where platform.has_triton is True (a fact: Environment fact "
        "supplied by the host); or no setting, only where platform.is_unspecified is True (a fact: vLLM detected no "
        "platform (its UnspecifiedPlatform))")


def test_numbers_are_said_as_the_ranges_their_classes_make_and_a_search_says_where_it_stopped():
    m = matrix.loads('''[matrix]
name = "t"
version = "1.0"
[config]
"x" = { type = "int", min = 0, default = 0 }
"f" = { type = "float", default = 1.0 }
"s" = { type = "str", default = "" }
[features.big]
name = "big x"
when = "x > 2 and x != 7"
support = { a = "no", b = "yes" }
[features.small]
name = "small f"
when = "f < 0.5"
support = { a = "no", b = "yes" }
[features.named]
name = "named s"
when = "s in ['p', 'q']"
support = { a = "no", b = "yes" }
''', runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    assert str(m.resolve({}).remedy("b")) == (
        "To use B, change: set x to a value from 3 to 6 or a value ≥ 8; or set f to a value < 0.5; "
        "or set s to one of 'p', 'q'; or ask for it by id (runner='b', --runner b)")
    used = m.resolve({"x": 5, "f": 0.1, "s": "p"})
    assert str(used.remedy("a")) == (
        "To use A, change: set x to a value from 0 to 2 or 7 and set f to a value ≥ 0.5 and set s to a value other "
        "than 'p', 'q'")
    assert str(used.remedy("a", limit=2)) == "No remedy found for A within 2 changes (asking for it by id counted as one)"
    # The budget counts the candidates the search reads: those the pruning weighs by the gates
    # (here the user's config, where three gates refuse A, rules out one and two changes; it is
    # weighed once a search, not once a size: automatic choice, and A asked for) and those it
    # resolves (the first: A asked for on the config as it is, a change of one path).
    assert str(used.remedy("a", budget=1)) == (
        "No remedy found for A: the search gave up: it read 1 candidate config before it finished the changes of 1 path "
        "(asking for it by id counted as one)")
    assert used.remedy("a", budget=1).size == 0
    assert str(used.remedy("a", budget=10)) == (
        "No remedy found for A: the search gave up: it read 10 candidate configs before it finished the changes of 3 paths "
        "(asking for it by id counted as one)")
    assert used.remedy("a", budget=10).size == 2
    with pytest.raises(matrix.UsageError) as excinfo:
        used.remedy("c")
    assert excinfo.exconly() == "matrix.errors.UsageError: Unknown runner 'c' (expected one of 'a', 'b')"


def test_an_errors_remedies_are_worked_out_when_its_message_is_read_not_when_it_is_raised():
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        matrix.resolve({"speculative_config": {"method": "suffix"}}, runner="v2")
    assert "_remedies" not in vars(excinfo.value)
    assert excinfo.value.reason == "Model Runner V2 does not yet support: speculative method 'suffix'"
    assert str(excinfo.value).split("\n")[1] == str(excinfo.value.resolution.remedy("v2"))
    assert excinfo.value.remedies == (excinfo.value.resolution.remedy("v2"),)
    import pickle

    again = pickle.loads(pickle.dumps(excinfo.value))
    assert (str(again), again.reason) == (str(excinfo.value), excinfo.value.reason)


def test_explanation_holds_the_remedies_unless_told_not_to_search():
    resolution = matrix.resolve({"speculative_config": {"method": "suffix"}})
    assert resolution.explanation()["remedies"] == [resolution.remedy("v2").to_dict()]
    assert resolution.explanation(remedies=False)["remedies"] == []
    assert {k: v for k, v in resolution.explanation(remedies=False).items() if k != "remedies"} == {
        k: v for k, v in resolution.explanation().items() if k != "remedies"}


# --- redirects and runner aliases (issue 27, item 3) ----------------------------------------------

from matrix.resolver import ResolutionWarning  # noqa: E402

SGLANG = """[matrix]
name = "attention"
version = "1.0"
[config]
kv_cache_dtype = { type = "str", choices = ["auto", "fp8_e5m2", "fp8_e4m3"], default = "auto" }
has_amx = { type = "bool", default = true, fact = true }
watermark = { type = "bool", default = false }
sinks = { type = "bool", default = false }
[features.fp8_e5m2]
name = "FP8 e5m2 KV cache"
when = "kv_cache_dtype == 'fp8_e5m2'"
support = { default = "yes" }
[features.sinks]
name = "attention sinks"
when = "sinks"
support = { default = "yes", triton = "no" }
[features.watermark]
name = "watermarking"
when = "watermark"
support = { default = "no", torch_native = "yes" }
forces = { runner = "torch_native", override = true }
"""

SGLANG_RUNNERS = {
    "fa3": {"name": "FlashAttention 3", "priority": 40,
            "redirects": [{"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'"}]},
    "triton": {"name": "Triton", "priority": 30,
               "redirects": [{"to": "torch_native", "when": "kv_cache_dtype == 'fp8_e5m2'"}]},
    "intel_amx": {"name": "Intel AMX", "priority": 20,
                  "redirects": [{"to": "torch_native", "when": "not has_amx",
                                 "message": "Intel AMX is not available on this CPU; using torch_native"}]},
    "torch_native": {"name": "Torch native", "priority": 10},
    "dsa": {"name": "DSA", "priority": 5,
            "aliases": [{"id": "nsa", "since": "0.5", "remove_in": "2.0", "message": "renamed to dsa"},
                        {"id": "old_dsa", "since": "0.3", "remove_in": "0.8", "removed": True}]},
}


@pytest.fixture(scope="module")
def sglang():
    return matrix.loads(SGLANG, runners=SGLANG_RUNNERS)


def test_a_redirect_makes_the_request_one_for_its_runner_and_says_the_values(sglang):
    resolution = sglang.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3")
    assert (resolution.runner, resolution.requested) == ("triton", "fa3")
    assert resolution.warnings == (ResolutionWarning(
        "redirected", None, "triton", "Asked for 'fa3', redirected to 'triton': kv_cache_dtype = 'fp8_e5m2'"),)
    assert resolution.redirect == sglang.runner("fa3").redirects[0]
    assert resolution.to_dict()["redirected"] == {"from": "fa3", "to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'",
                                                  "because": {"kv_cache_dtype": "fp8_e5m2"}}
    data = resolution.explanation()
    assert (data["how"], data["alias_of"], data["redirected"]) == ("redirected", None, resolution.to_dict()["redirected"])
    assert resolution.explain().splitlines()[0] == (
        "Runner: triton (Triton), asked for 'fa3', redirected to 'triton': kv_cache_dtype = 'fp8_e5m2', at version 1.0")
    # Where the condition does not hold, the request stands; automatic choice ignores redirects.
    assert sglang.resolve({"kv_cache_dtype": "fp8_e4m3"}, runner="fa3").warnings == ()
    assert sglang.resolve({"kv_cache_dtype": "fp8_e4m3"}, runner="fa3").to_dict()["redirected"] is None
    assert sglang.resolve({"kv_cache_dtype": "fp8_e5m2"}).runner == "fa3"


def test_a_redirect_is_one_hop_and_its_message_is_the_files(sglang):
    # triton's own redirect (to torch_native, on the same condition) does not apply to fa3's.
    assert sglang.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3").runner == "triton"
    assert sglang.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="triton").runner == "torch_native"
    resolution = sglang.resolve({}, runner="intel_amx", facts={"has_amx": False})
    assert resolution.runner == "torch_native"
    assert [w.message for w in resolution.warnings] == ["Intel AMX is not available on this CPU; using torch_native"]
    assert sglang.resolve({}, runner="intel_amx").runner == "intel_amx"


def test_a_redirect_s_message_is_a_template_of_config_paths():
    """Found by a user trial: a redirect's message kept its braces as written, while every other
    message of a file (reasons, adjustments', former ids') is a template of config paths."""
    runners = dict(SGLANG_RUNNERS, fa3={"name": "FlashAttention 3", "priority": 40, "redirects": [
        {"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'",
         "message": "fa3 cannot read a {kv_cache_dtype!r} cache ({{kv}}); using triton"}]})
    resolution = matrix.loads(SGLANG, runners=runners).resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3")
    assert [w.message for w in resolution.warnings] == ["fa3 cannot read a 'fp8_e5m2' cache ({kv}); using triton"]
    runners["fa3"]["redirects"][0]["message"] = "fa3 cannot read {kv_cache}"
    with pytest.raises(matrix.LoadError) as error:
        matrix.loads(SGLANG, runners=runners, path="features.toml")
    assert str(error.value).splitlines()[1:] == [
        "  runners/fa3.toml: $.redirects[0].message: Unknown config path 'kv_cache', did you mean "
        "'kv_cache_dtype'"]


def test_forces_act_on_the_redirected_request_and_a_refusal_names_the_redirect(sglang):
    resolution = sglang.resolve({"kv_cache_dtype": "fp8_e5m2", "watermark": True}, runner="fa3")
    assert resolution.runner == "torch_native"
    assert [(w.kind, w.message) for w in resolution.warnings] == [
        ("redirected", "Asked for 'fa3', redirected to 'triton': kv_cache_dtype = 'fp8_e5m2'"),
        ("override", "watermarking requires Torch native and overrides the request for Triton")]
    with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
        sglang.resolve({"kv_cache_dtype": "fp8_e5m2", "sinks": True}, runner="fa3")
    assert excinfo.value.args[0] == "Asked for 'fa3', redirected to 'triton'; Triton does not support: attention sinks"
    assert [w.kind for w in excinfo.value.resolution.warnings] == ["redirected"]


def test_a_former_id_asks_for_its_runner_with_a_deprecation(sglang):
    resolution = sglang.resolve({}, runner="nsa")
    assert (resolution.runner, resolution.requested) == ("dsa", "nsa")
    assert resolution.warnings == (ResolutionWarning(
        "deprecated-alias", None, "dsa",
        "Runner id 'nsa' is deprecated since 0.5 and will be removed in 2.0; use 'dsa' instead (renamed to dsa)"),)
    assert resolution.explanation()["alias_of"] == "dsa"
    assert resolution.explain().splitlines()[0] == (
        "Runner: dsa (DSA), asked for 'nsa' (a former id of 'dsa'), at version 1.0")
    # Before its deprecation the former id was the id: no warning.
    assert sglang.resolve({}, runner="nsa", version="0.4").warnings == ()
    with pytest.raises(matrix.UsageError) as excinfo:
        sglang.resolve({}, runner="old_dsa")
    assert excinfo.exconly() == "matrix.errors.UsageError: Runner id 'old_dsa' was removed in 0.8: use 'dsa' instead"
    assert sglang.resolve({}, runner="old_dsa", version="0.7").runner == "dsa"
    with pytest.raises(matrix.UsageError) as excinfo:
        sglang.runner("nsa")
    assert excinfo.exconly() == "matrix.errors.UsageError: Unknown runner 'nsa': 'nsa' is a former id of 'dsa'"
    # is_supported takes what resolve takes (a user trial: it raised on a former id resolve serves).
    assert sglang.is_supported({}, "nsa") is sglang.is_supported({}, "dsa") is True
    with pytest.raises(matrix.UsageError) as excinfo:
        sglang.is_supported({}, "old_dsa")
    assert excinfo.exconly() == "matrix.errors.UsageError: Runner id 'old_dsa' was removed in 0.8: use 'dsa' instead"
    with pytest.raises(matrix.UsageError) as excinfo:
        sglang.resolve({}, runner="nsaa")
    assert excinfo.exconly() == ("matrix.errors.UsageError: Unknown runner 'nsaa' (expected one of 'dsa', 'fa3', "
                                 "'intel_amx', 'torch_native', 'triton')")


def test_a_redirect_holds_only_in_its_window():
    runners = {**SGLANG_RUNNERS, "fa3": {"name": "FA3", "priority": 40, "redirects": [
        {"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "since": "0.9"}]}}
    m = matrix.loads(SGLANG, runners=runners)
    assert m.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3").runner == "triton"
    assert m.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3", version="0.8").runner == "fa3"
    assert [g.id for g in m.gates_at("0.8") if g.origin is not None] == ["triton:redirect:1", "intel_amx:redirect:1"]


def test_a_redirected_resolution_survives_a_pickle(sglang):
    import pickle

    resolution = sglang.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3")
    again = pickle.loads(pickle.dumps(resolution))
    assert again == resolution and again.explain() == resolution.explain()


# --- adjustments and the effective config (issue 27 items 1, 2 and 6) -----------------------

STOCK_FULL = {"compilation_config": {"mode": "STOCK_TORCH_COMPILE", "cudagraph_mode": "FULL_AND_PIECEWISE"}}
STOCK_MESSAGE = ("CUDA graphs are not supported with stock torch.compile in Model Runner V2. "
                 "Overriding cudagraph_mode FULL_AND_PIECEWISE to NONE.")


def test_stock_compile_at_032_runs_v2_with_cuda_graphs_off_and_at_031_falls_back():
    resolution = DEFAULT.resolve(STOCK_FULL, version="0.32.0")
    assert resolution.runner == "v2"
    assert resolution.effective["compilation_config.cudagraph_mode"] == "NONE"
    assert resolution.effective["compilation_config.mode"] == "STOCK_TORCH_COMPILE"
    assert resolution.warnings == (
        matrix.ResolutionWarning("adjusted", "stock_compile_cudagraphs", "v2", STOCK_MESSAGE, "info"),)
    assert resolution.adjustments == (matrix.Adjusted(
        "stock_compile_cudagraphs", "v2", "compilation_config.cudagraph_mode", "FULL_AND_PIECEWISE", "NONE",
        STOCK_MESSAGE, "info", True),)
    old = DEFAULT.resolve(STOCK_FULL, version="0.31.0")
    assert (old.runner, old.adjustments, old.effective["compilation_config.cudagraph_mode"]) == (
        "v1", (), "FULL_AND_PIECEWISE")
    assert [(w.kind, w.message) for w in old.warnings] == [
        ("fallback", "Model Runner V2 does not yet support stock torch.compile; using the V1 model runner instead.")]


def test_stock_compile_with_cuda_graphs_already_off_says_nothing():
    """Issue 25 item 4: no partial warning, no adjustment, where there is nothing to override."""
    resolution = DEFAULT.resolve({"compilation_config": {"mode": "STOCK_TORCH_COMPILE", "cudagraph_mode": "NONE"}},
                                 version="0.32.0")
    assert (resolution.runner, resolution.warnings, resolution.adjustments) == ("v2", (), ())


def test_v2_asked_with_dbo_and_piecewise_is_validated_after_the_adjustment():
    config = {"compilation_config": {"mode": "STOCK_TORCH_COMPILE", "cudagraph_mode": "PIECEWISE"},
              "parallel_config": {"use_ubatching": True}}
    resolution = DEFAULT.resolve(config, version="0.32.0", runner="v2")
    assert (resolution.runner, resolution.effective["compilation_config.cudagraph_mode"]) == ("v2", "NONE")
    assert resolution.unsupported["v2"] == ()
    assert [w.message for w in resolution.warnings] == [
        "CUDA graphs are not supported with stock torch.compile in Model Runner V2. "
        "Overriding cudagraph_mode PIECEWISE to NONE."]
    without_stock = {"compilation_config": {"cudagraph_mode": "PIECEWISE"}, "parallel_config": {"use_ubatching": True}}
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        DEFAULT.resolve(without_stock, version="0.32.0", runner="v2")
    assert excinfo.value.reason == "Model Runner V2 does not yet support: dual batch overlap with PIECEWISE CUDA graphs"
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        DEFAULT.resolve(config, version="0.31.0", runner="v2")
    assert excinfo.value.reason == ("Model Runner V2 does not yet support: stock torch.compile, "
                                     "dual batch overlap with PIECEWISE CUDA graphs")


def test_mamba_cache_mode_follows_prefix_caching_before_the_choice_from_032():
    hybrid = {"model_config": {"is_hybrid": True}, "cache_config": {"enable_prefix_caching": True}}
    resolution = DEFAULT.resolve(hybrid, version="0.32.0")
    assert resolution.adjustments == (matrix.Adjusted(
        "mamba_cache_align", None, "cache_config.mamba_cache_mode", "none", "align",
        "Mamba cache mode follows prefix caching (on): set cache_config.mamba_cache_mode from 'none' to 'align'",
        "info", True),)
    off = {"model_config": {"is_hybrid": True}, "cache_config": {"enable_prefix_caching": False,
                                                                   "mamba_cache_mode": "align"}}
    assert [(a.id, a.after) for a in DEFAULT.resolve(off, version="0.33.0").adjustments] == [("mamba_cache_none", "none")]
    unknown = {"model_config": {"is_hybrid": True}}  # prefix caching None: the facts do not say
    assert DEFAULT.resolve(unknown, version="0.33.0").adjustments == ()
    assert DEFAULT.resolve(hybrid, version="0.31.0").adjustments == ()
    with pytest.raises(RemovedFeatureError):  # 'all' is refused, not adjusted
        DEFAULT.resolve({**hybrid, "cache_config": {"enable_prefix_caching": True, "mamba_cache_mode": "all"}},
                        version="0.32.0")


def test_v2_lowers_max_model_len_to_the_draft_models_at_033():
    config = {"model_config": {"max_model_len": 8192},
              "speculative_config": {"method": "eagle", "draft_model_config": {"max_model_len": 4096}}}
    resolution = DEFAULT.resolve(config)
    message = ("The draft model's max_model_len (4096) is smaller than the target model's (8192): "
               "Model Runner V2 lowers max_model_len to 4096")
    assert (resolution.runner, resolution.effective["model_config.max_model_len"]) == ("v2", 4096)
    assert resolution.warnings == (matrix.ResolutionWarning("adjusted", "draft_max_model_len", "v2", message,
                                                            "warning"),)
    assert DEFAULT.resolve(config, runner="v1").effective["model_config.max_model_len"] == 8192
    assert DEFAULT.resolve(config, version="0.32.0").adjustments == ()


ADJUSTING = """
[matrix]
name = "adjusting"
version = "1.0"

[config]
"x" = { type = "int", default = 0 }
"y" = { type = "int", nullable = true }
"z" = { type = "int", nullable = true }
"s" = { type = "section", nullable = true }
"s.k" = { type = "int", nullable = true }

[features.big]
name = "big x"
when = "x > 5"
support = { a = "no", b = "yes" }

[adjustments.first]
name = "First"
when = "x == 1"
set = { "x" = 2, "y" = { from = "x" } }

[adjustments.second]
name = "Second"
when = "x == 2"
set = { "z" = 7 }
override = false
message = "x was {x}, z was {z} {{kept}}"

[adjustments.drop_s]
name = "Drop s"
when = "x == 3"
set = { "s" = { none = true }, "s.k" = 4 }

[adjustments.grow]
name = "Grow x on a"
when = "x == 4"
set = { "x" = 9 }
runners = ["a"]
"""
AB = {"a": {"name": "A", "priority": 20}, "b": {"name": "B", "priority": 10}}


def test_adjustments_apply_in_order_each_seeing_the_last():
    m = matrix.loads(ADJUSTING, runners=AB)
    resolution = m.resolve({"x": 1, "z": 3})
    assert resolution.adjustments == (
        matrix.Adjusted("first", None, "x", 1, 2, "First: set x from 1 to 2; First: set y from None to 1", "warning", True),
        matrix.Adjusted("first", None, "y", None, 1, "First: set x from 1 to 2; First: set y from None to 1",
                        "warning", False),
    )  # second sees x == 2, but z is 3, not None: a fill leaves it
    filled = m.resolve({"x": 1})
    assert [(a.id, a.path, a.after, a.overrode_user) for a in filled.adjustments] == [
        ("first", "x", 2, True), ("first", "y", 1, False), ("second", "z", 7, False)]
    assert filled.warnings[-1] == matrix.ResolutionWarning("adjusted", "second", None, "x was 2, z was None {kept}",
                                                           "warning")
    assert (filled.effective["x"], filled.effective["y"], filled.effective["z"]) == (2, 1, 7)


def test_a_section_set_to_none_hides_what_is_below_it():
    m = matrix.loads(ADJUSTING, runners=AB)
    resolution = m.resolve({"x": 3, "s": {"k": 1}})
    assert [(a.path, a.before, a.after) for a in resolution.adjustments] == [("s", {"k": 1}, None)]
    assert resolution.effective["s.k"] is None


def test_a_runner_free_on_the_config_of_choice_but_blocked_after_its_adjustments_is_an_adjustment_error():
    m = matrix.loads(ADJUSTING, runners=AB)
    with pytest.raises(matrix.AdjustmentError) as excinfo:
        m.resolve({"x": 4})
    # The message ends with the remedy for the runner chosen (a review: an AdjustmentError said
    # none): x of 4 is the one a's adjustment grows, above 5 big x blocks it.
    assert excinfo.exconly() == (
        "matrix.errors.AdjustmentError: An adjustment leaves a config the runner cannot serve: "
        "Grow x on a: set x from 4 to 9; then A does not support: big x\n"
        "To use A, change: set x to a value ≤ 3 or 5")
    assert excinfo.value.to_dict()["remedies"] == [r.to_dict() for r in excinfo.value.resolution.remedies()]
    assert isinstance(excinfo.value, matrix.ResolutionError)
    resolution = excinfo.value.resolution
    assert (resolution.runner, resolution.unsupported, [a.after for a in resolution.adjustments]) == (
        None, {"a": (m.feature("big"),), "b": ()}, [9])
    asked = pytest.raises(UnsupportedFeatureError, m.resolve, {"x": 4}, runner="a")
    assert asked.value.reason == "A does not support: big x"
    assert m.resolve({"x": 4}, runner="b").effective["x"] == 4


def test_emit_logs_an_adjustment_at_its_level(caplog):
    resolution = DEFAULT.resolve(STOCK_FULL, version="0.32.0")
    with caplog.at_level(logging.DEBUG, logger="matrix"):
        resolution.emit(once=False)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("matrix.adjusted", logging.INFO, STOCK_MESSAGE)]


def test_a_resolution_with_adjustments_pickles_copies_and_compares_as_a_value():
    import copy
    import pickle

    resolution = DEFAULT.resolve(STOCK_FULL, version="0.32.0")
    again = pickle.loads(pickle.dumps(resolution))
    assert again == resolution and copy.deepcopy(resolution) == resolution
    assert (again.adjustments, dict(again.effective), again.warnings) == (
        resolution.adjustments, dict(resolution.effective), resolution.warnings)
    assert resolution != DEFAULT.resolve(STOCK_FULL, version="0.31.0")
    with pytest.raises(TypeError):
        resolution.effective["compilation_config.mode"] = "NONE"


def test_explain_and_explanation_say_the_adjustments():
    resolution = DEFAULT.resolve(STOCK_FULL, version="0.32.0")
    assert resolution.explanation()["adjustments"] == resolution.to_dict()["adjustments"] == [
        {"id": "stock_compile_cudagraphs", "runner": "v2", "path": "compilation_config.cudagraph_mode",
         "before": "FULL_AND_PIECEWISE", "after": "NONE", "message": STOCK_MESSAGE, "level": "info",
         "overrode_user": True}]
    assert resolution.explain().splitlines()[-5:] == [
        "Adjustments:",
        "  - stock_compile_cudagraphs (for v2): compilation_config.cudagraph_mode = 'FULL_AND_PIECEWISE' -> 'NONE', "
        "overriding the config's value",
        "Active features: stock torch.compile",
        "Warnings:",
        f"  - adjusted: {STOCK_MESSAGE}",
    ]


def test_the_fast_readers_check_every_item_of_a_list_and_any_mapping_keys():
    """The compiled readers check a list's first item, then the others at once, and look at a
    mapping's keys for a dotted one with a join (issue 29): every item is still checked, a key
    that is not text still reads, and the messages are the general reader's."""
    m = matrix.loads('[matrix]\nname = "m"\nversion = "1.0"\n[config]\nx = { type = "int", default = 0 }\n'
                     'names = { type = "list[str]", default = [] }\n'
                     '[features.f]\nname = "F"\nwhen = "x > 1"\nsupport = { a = "no", b = "yes" }\n'
                     '[features.g]\nname = "G"\nwhen = "\'q\' in names"\nsupport = { a = "yes", b = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    assert [m.resolve({1: "x", "x": 2}).runner, m.resolve({1: "x"}).runner] == ["b", "a"]
    assert [[f.id for f in m.resolve({"names": names}).active] for names in (["a", "q"], ("q",), [])] == [
        ["g"], ["g"], []]
    for names, bad in ((["a", 3], "int 3"), ([3], "int 3"), (["a", "b", True], "bool True")):
        with pytest.raises(matrix.ConfigError) as excinfo:
            m.resolve({"names": names})
        assert str(excinfo.value) == (
            f"Config 'names' (read by feature 'g'): Expected list[str] items of type str, got {bad}")
    with pytest.raises(matrix.ConfigError) as excinfo:
        m.resolve({"x.y": 1})
    assert str(excinfo.value) == ("Config 'x.y': Key 'x.y' has a dot in it: configs are nested, so write "
                                  "{'x': {'y': ...}} instead")



def test_the_fast_readers_select_a_fields_gates_by_every_value_it_may_have():
    """Several gates comparing one field with literals are one table look-up (issue 29: a
    subscript where the checks leave the field a few values: a bool, its choices, None under a
    nullable section), and a fact an object lacks takes its default without a getattr call:
    every value of each field, on dicts and objects, answers as the interpreter does."""
    import itertools

    m = matrix.loads('[matrix]\nname = "m"\nversion = "1.0"\n[config]\n'
                     's = { type = "section", nullable = true }\n'
                     '"s.mode" = { type = "str", choices = ["a", "b", "c"], default = "a" }\n'
                     '"s.on" = { type = "bool", default = false }\n'
                     '"s.size" = { type = "int", choices = [1, 2, 4], default = 1 }\n'
                     '"s.here" = { type = "bool", default = true, fact = true }\n'
                     + "".join(f'[features.{id}]\nname = "{id}"\nwhen = "{when}"\nsupport = {{ r = "yes" }}\n'
                               for id, when in (("ma", "s.mode == 'a'"), ("mb", "s.mode == 'b'"), ("on", "s.on == True"),
                                                ("off", "s.on == False"), ("two", "s.size == 2"), ("four", "s.size == 4"),
                                                ("gone", "not s.here"))),
                     runners={"r": {"name": "R", "priority": 1}})
    seen = set()
    for mode, on, size, here in itertools.product(("a", "b", "c"), (True, False), (1, 2, 4), (True, False, None)):
        section = {"mode": mode, "on": on, "size": size, **({} if here is None else {"here": here})}
        for config in ({"s": section}, as_object({"s": section}, m.schema)):
            active = compiled(m, config, None)
            assert active == reference(m, config, m.version)
            seen.add(tuple(active))
    for config in ({"s": None}, as_object({"s": None}, m.schema), {}):
        assert compiled(m, config, None) == reference(m, config, m.version) == ["gone"]  # None is not true
    # Each gate, and each pair the table gives at once, was seen.
    assert {g for active in seen for g in active} == {"ma", "mb", "on", "off", "two", "four", "gone"}
    assert ("mb", "on", "four", "gone") in {tuple(sorted(a, key=["ma", "mb", "on", "off", "two", "four", "gone"].index))
                                            for a in seen}



def test_a_section_read_for_itself_refuses_what_poses_as_a_scalar():
    """The compiled readers ask isinstance only of a value whose class is not plainly a
    section's (issue 29: its 9 types each looked the value's __class__ up); a value that says
    its __class__ is int is still no section, on objects and dicts alike."""
    m = matrix.loads('[matrix]\nname = "m"\nversion = "1.0"\n[config]\n'
                     'lora = { type = "section", nullable = true }\n'
                     '[features.l]\nname = "LoRA"\nwhen = "lora is not None"\nsupport = { r = "yes" }\n',
                     runners={"r": {"name": "R", "priority": 1}})

    class Posing:
        __class__ = property(lambda self: int)  # type: ignore[assignment]

        def __repr__(self):
            return "<posing>"

    class Plain:
        pass

    assert [f.id for f in m.resolve(as_object({"lora": None}, m.schema)).active] == []
    assert [f.id for f in m.resolve({"lora": Plain()}).active] == ["l"]
    for config in (as_object({"lora": {}}, m.schema), {"lora": {}}):
        assert [f.id for f in m.resolve(config).active] == ["l"]
    for value, said in ((Posing(), "Posing <posing>"), (3, "int 3"), ([], "list []")):
        for config in ({"lora": value}, dataclasses.make_dataclass("C", ["lora"])(value)):
            with pytest.raises(ConfigError) as excinfo:
                m.resolve(config)
            assert str(excinfo.value) == f"Config 'lora' (read by feature 'l'): Expected a section, got {said}"


_FORCED_V2 = {"watermark_config": {}, "speculative_config": {"method": "suffix"},
              "compilation_config": {"mode": "STOCK_TORCH_COMPILE", "cudagraph_mode": "PIECEWISE"}}


def test_a_forced_runners_adjustments_are_said_before_no_runner():
    """Issue 25: where no runner is free and watermarking forces V2, V2's CUDA-graph override
    (0.32.0 on) is said before V2's error, as vLLM logs it before V2 fails; the error is V2's
    refusal on the config of choice, the adjustment recorded, the statuses read on C."""
    with pytest.raises(NoRunnerError) as excinfo:
        DEFAULT.resolve(_FORCED_V2, version="0.33.0")
    assert excinfo.value.reason == "Model Runner V2 does not yet support: speculative method 'suffix'"
    resolution = excinfo.value.resolution
    assert [(w.kind, w.feature, w.runner, w.level, w.message) for w in resolution.warnings] == [
        ("adjusted", "stock_compile_cudagraphs", "v2", "info", "CUDA graphs are not supported with stock torch.compile "
         "in Model Runner V2. Overriding cudagraph_mode PIECEWISE to NONE.")]
    assert [(a.id, a.runner, a.path, a.before, a.after) for a in resolution.adjustments] == [
        ("stock_compile_cudagraphs", "v2", "compilation_config.cudagraph_mode", "PIECEWISE", "NONE")]
    assert resolution.runner is None and resolution.effective["compilation_config.cudagraph_mode"] == "NONE"
    assert names(resolution.unsupported["v2"]) == ["speculative method 'suffix'"]
    report = resolution.report(remedies=False)
    assert (report["actions"], report["effective"]) == (
        ["refuse", "adjust"], {"runner": None, "name": None, "settings": {"compilation_config.cudagraph_mode": "NONE"}})
    # Before 0.32.0 V2 has no such adjustment: the error alone, as vLLM says it.
    with pytest.raises(NoRunnerError) as excinfo:
        DEFAULT.resolve(_FORCED_V2, version="0.31.0")
    assert (excinfo.value.reason, excinfo.value.resolution.warnings) == (
        "Model Runner V2 does not yet support: stock torch.compile, speculative method 'suffix'", ())
    assert vllm_reference.says(_FORCED_V2, "0.33.0") == _says(_FORCED_V2, "0.33.0", None)


def test_the_differences_from_vllm_are_the_triton_sentence_alone():
    """Issue 25: docs/default-matrix.md says exactly what differs from vLLM, and that is only where
    vLLM reports missing Triton (V2's overrides before a forced V2 fails are said as vLLM says them)."""
    import pathlib

    text = (pathlib.Path(__file__).parent.parent / "docs" / "default-matrix.md").read_text()
    paragraph = text[text.index("What differs from vLLM"):].split("\n\n")[0].strip()
    assert paragraph == (
        "What differs from vLLM, and the tests say so where they compare: where vLLM reports missing\n"
        "Triton relative to the blocker list (both are reported here when both apply, \"missing Triton\"\n"
        "as a V2 blocker).")


def test_a_remedy_that_automatic_choice_never_takes_asks_for_the_runner():
    # A new user's trial: "No remedy found for In-memory within 3 changes", for a runner that a
    # request serves as the config is: automatic choice never takes it there, and the line said
    # nothing of the request. Asking for it is a remedy of one change.
    m = matrix.loads('[matrix]\nname = "t"\nversion = "1.0"\n[config]\n"x" = { type = "int", default = 0 }\n'
                     '[features.big]\nname = "big x"\nwhen = "x > 2"\nsupport = { a = "yes", b = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    resolution = m.resolve({"x": 5})
    assert str(resolution.remedy("b")) == "To use B, change: ask for it by id (runner='b', --runner b)"
    assert [(o.ask, o.changes) for o in resolution.remedy("b").options] == [(True, ())]
    assert str(m.resolve({"x": 5}, runner="b").remedy("b")) == "B serves this config as it is"


_REQUEST_ONLY = ('[matrix]\nname = "t"\nversion = "1.0"\n[config]\n"x" = { type = "bool", default = false }\n'
                 '"y" = { type = "int", default = 0 }\n"fast" = { type = "bool", default = false }\n'
                 '[features.fx]\nname = "x on"\nwhen = "x"\nsupport = { a = "no", b = "no", c = "yes" }\n'
                 '[features.fy]\nname = "big y"\nwhen = "y > 2"\nsupport = { a = "yes", b = "yes", c = "no" }\n')


@pytest.mark.parametrize("candidate, said", [
    ("False", "To use C, change: ask for it by id (runner='c', --runner c) and set y to a value ≤ 2"),
    # A candidacy that does not hold on the config: making it hold is a change too, of the same size.
    ("fast", "To use C, change: set y to a value ≤ 2 and set fast to True; "
             "or ask for it by id (runner='c', --runner c) and set y to a value ≤ 2")])
def test_a_remedy_asks_for_a_runner_that_automatic_choice_does_not_try_on_the_config(candidate, said):
    """A last user trial: where no runner serves, a runner used only on request (``candidate =
    "False"``, or a candidacy that does not hold) that serves once asked for and y changed was
    said "No change of the config makes C serve it". Asking for it counts as one change."""
    m = matrix.loads(_REQUEST_ONLY, runners={"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2},
                                             "c": {"name": "C", "priority": 1, "candidate": candidate}})
    with pytest.raises(NoRunnerError) as error:
        m.resolve({"x": True, "y": 5})
    assert str(error.value).splitlines()[1:] == [
        # B, a candidate, is never first where x is False (A is): asked for (a review: "No change").
        "To use A, change: set x to False", "To use B, change: ask for it by id (runner='b', --runner b) and set x to False",
        said]
    found = error.value.remedies[-1]
    assert (found.size, found.asking, [o.ask for o in found.options]) == (2, True, [False, True][candidate == "False":])
    assert found.options[-1].to_dict() == {
        "runner": "c", "ask": True, "text": said.split("; or ")[-1].removeprefix("To use C, change: "), "conditions": [],
        "changes": [{"path": "y", "action": "set", "values": [1, 2], "text": "set y to a value ≤ 2"}]}
    # As the config is, the request alone (one change) serves.
    assert str(m.resolve({}).remedy("c")) == "To use C, change: ask for it by id (runner='c', --runner c)"
    # Nothing serves C: the line says the search asked for it too.
    never = matrix.loads(
        _REQUEST_ONLY + '[features.all]\nname = "all"\nwhen = "y >= 0 or y < 0"\nsupport = { a = "yes", b = "yes", c = "no" }\n',
        runners={"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2},
                 "c": {"name": "C", "priority": 1, "candidate": candidate}})
    assert str(never.resolve({}).remedy("c")) == {
        "False": "No change of the config makes C serve it, asked for by id or not",
        # Three paths and the request: the search stops at three.
        "fast": "No remedy found for C within 3 changes (asking for it by id counted as one)"}[candidate]


# --- when an adjustment speaks (issue 30, F9): says = "always", and notices -------------------------

_SPEAKS = """\
[matrix]
name = "speaks"
version = "1.0"

[config]
page = { type = "int", min = 1, max = 256, default = 1 }
radix = { type = "bool", default = true }

[features.big]
name = "big pages"
when = "page > 128"
support = { flashmla = "no", triton = "yes" }

[adjustments.flashmla_page]
name = "FlashMLA page size"
when = "page != 64"
set = { page = 64 }
runners = ["flashmla"]
message = "FlashMLA only supports a page_size of 64, change page_size to 64."

[adjustments.deterministic]
name = "deterministic radix"
when = "True"
set = { radix = false }
says = "always"
level = "info"
message = "Radix cache is disabled for deterministic inference (radix was {radix})."

[adjustments.w2]
name = "memory notice"
when = "page > 64"
message = "page_size {page} is large: memory use grows"
"""


def test_an_adjustment_that_says_always_and_a_notice_speak_wherever_they_hold():
    m = matrix.loads(_SPEAKS, runners={"flashmla": {"name": "FlashMLA", "priority": 2},
                                       "triton": {"name": "Triton", "priority": 1}})
    def said(resolution):
        return [(w.feature, w.runner, w.level, w.message) for w in resolution.warnings if w.kind == "adjusted"]

    first = m.resolve({})  # radix changes (said), the page changes (said), no notice
    assert said(first) == [
        ("deterministic", None, "info", "Radix cache is disabled for deterministic inference (radix was True)."),
        ("flashmla_page", "flashmla", "warning", "FlashMLA only supports a page_size of 64, change page_size to 64.")]
    assert [(a.id, a.path, a.before, a.after) for a in first.adjustments] == [
        ("deterministic", "radix", True, False), ("flashmla_page", "page", 1, 64)]
    again = m.resolve({"radix": False, "page": 100})  # radix already off: said all the same; the notice
    assert said(again) == [
        ("deterministic", None, "info", "Radix cache is disabled for deterministic inference (radix was False)."),
        ("w2", None, "warning", "page_size 100 is large: memory use grows"),
        ("flashmla_page", "flashmla", "warning", "FlashMLA only supports a page_size of 64, change page_size to 64.")]
    assert [a.id for a in again.adjustments] == ["flashmla_page"]  # the changes only
    from matrix.check import check

    assert [f.code for f in check(m).findings if f.code.startswith("adjustment-")] == []
    dead = matrix.loads(_SPEAKS.replace('when = "page > 64"', 'when = "page > 300"'),
                        runners={"flashmla": {"name": "FlashMLA", "priority": 2}, "triton": {"name": "Triton", "priority": 1}})
    assert [f.message for f in check(dead).findings if f.code == "adjustment-never"] == [
        "memory notice is never said: its condition holds for no config; delete it, or check its condition"]


def test_an_adjustment_without_when_applies_wherever_it_applies_at_all():
    text = _SPEAKS.replace('when = "True"\n', "").replace('when = "page != 64"\nset = { page = 64 }\nrunners',
                                                          'set = { page = 64 }\nrunners')
    assert 'when = "True"' not in text and 'when = "page != 64"' not in text
    m = matrix.loads(text, runners={"flashmla": {"name": "FlashMLA", "priority": 2},
                                    "triton": {"name": "Triton", "priority": 1}})
    assert [str(a.when) for a in m.adjustments if a.id in ("deterministic", "flashmla_page")] == ["True", "True"]
    # The runner's: wherever flashmla serves (said even at 64: nothing changes, nothing said); the other: every config.
    assert [(a.id, a.path, a.before, a.after) for a in m.resolve({"page": 16}).adjustments] == [
        ("deterministic", "radix", True, False), ("flashmla_page", "page", 16, 64)]
    assert [(a.id, a.path, a.before, a.after) for a in m.resolve({"page": 16}, runner="triton").adjustments] == [
        ("deterministic", "radix", True, False)]


# --- the value as given (issue 30, F8) -------------------------------------------------------

GIVEN_TEXT = """
[matrix]
name = "given"
version = "1.0"
[config]
"attention_backend" = { type = "str", nullable = true }
"kv" = { type = "str", default = "auto" }
"mem" = { type = "float", nullable = true }
"ctx" = { type = "int", default = 0 }
"tp" = { type = "int", min = 1, default = 1 }
"heads" = { type = "int", derive = "tp * 2" }
[requirements]
tp = { name = "TP", reason = "tp {tp} (given {given.tp}) is over 2" }
[adjustments.rename]
name = "rename"
when = "attention_backend == 'tokenspeed_mla'"
set = { attention_backend = "cutedsl_mla" }
[adjustments.fp8]
name = "fp8"
when = "given.attention_backend == 'tokenspeed_mla' and attention_backend == 'cutedsl_mla'"
set = { kv = "fp8_e4m3" }
message = "given {given.attention_backend!r}, now {attention_backend!r}, {given.heads} heads given"
[adjustments.fill]
name = "fill"
when = "mem is None"
set = { mem = 0.9 }
override = false
[adjustments.scale]
name = "scale"
when = "ctx > 8192 and given.mem is None"
set = { tp = 4 }
message = "mem as given {given.mem}, now {mem:.3f}"
[adjustments.back]
name = "back"
when = "ctx < 0"
set = { mem = { from = "given.mem" } }
runners = ["a"]
[features.f]
name = "F"
when = "given.kv == 'fp8_e4m3' or given.heads > 6"
support = { a = "yes", b = "no" }
"""


_TRIED = " (among the values tried; others may work too)"
_NOT_PROVED = (" (not proved the smallest: a field that arithmetic across fields reads (a + b, a % b, a derived "
               "field), or that is compared with it, has no min and max or is not an int, or the fields read together "
               "take more than 20000 combinations of values)")


def _given_matrix():
    return matrix.loads(GIVEN_TEXT, runners={"a": {"name": "A", "priority": 2, "requires": {"tp": "tp <= 2"}},
                                             "b": {"name": "B", "priority": 1}})


@pytest.mark.parametrize("as_objects", [False, True])
def test_given_reads_the_config_as_the_user_gave_it(as_objects):
    m = _given_matrix()

    def resolve(config, **kwargs):
        return m.resolve(as_object(config, m.schema) if as_objects else config, **kwargs)

    # A4: the alias renamed the backend; the next adjustment reads the name as given.
    r = resolve({"attention_backend": "tokenspeed_mla"})
    assert [(a.id, a.path, a.after) for a in r.adjustments] == [
        ("rename", "attention_backend", "cutedsl_mla"), ("fp8", "kv", "fp8_e4m3"), ("fill", "mem", 0.9)]
    assert [w.message for w in r.warnings][1] == "given 'tokenspeed_mla', now 'cutedsl_mla', 2 heads given"
    # The feature reads kv as given ('auto'), not as the adjustment set it.
    assert r.active == ()
    # A30: scaled only where the user gave no mem (the fill before it does not count).
    r = resolve({"ctx": 9000})
    assert [(a.id, a.path, a.after) for a in r.adjustments] == [("fill", "mem", 0.9), ("scale", "tp", 4)]
    assert [w.message for w in r.warnings] == [
        "fill: set mem from None to 0.9", "mem as given None, now 0.900",
        "A is not valid for this config: tp 4 (given 1) is over 2; using B instead"]
    assert resolve({"ctx": 9000, "mem": 0.5}).adjustments == ()
    assert [f.id for f in resolve({"kv": "fp8_e4m3", "tp": 2}).active] == ["f"]
    with pytest.raises(NoRunnerError) as refused:  # given.heads = 8: F, which B refuses; A's tp too
        resolve({"tp": 4})
    assert [f.id for f in refused.value.resolution.active] == ["f"]
    # The remedies change the config given: a path read as given is that path (they once said
    # "set kv to any value", the user's kv unknown to the search, and found none for B).
    assert [str(r) for r in refused.value.remedies] == [
        "To use A, change: set tp to one of 1, 2" + _TRIED + _NOT_PROVED,
        "To use B, change: set tp to 3" + _TRIED + _NOT_PROVED]
    # A requirement's reason says the value as given beside the effective one (scale set tp = 4).
    with pytest.raises(UnsupportedFeatureError) as caught:
        resolve({"ctx": 9000}, runner="a")
    assert caught.value.reason == "A is not valid for this config: tp 4 (given 1) is over 2"
    # A copy of the value as given undoes what the fill set, for runner a.
    r = resolve({"ctx": -1}, runner="a")
    assert [(a.id, a.path, a.after) for a in r.adjustments] == [("fill", "mem", 0.9), ("back", "mem", None)]


def test_given_is_checked_as_its_field_and_check_says_where_it_cannot_decide():
    m = _given_matrix()
    with pytest.raises(ConfigError) as caught:
        m.resolve({"kv": 3})
    assert caught.exconly() == ("matrix.errors.ConfigError: Config 'kv' (read by feature 'f'): "
                                "Expected str, got int 3")
    from matrix.check import check

    assert [str(f) for f in check(m).findings if f.code == "inconclusive"] == [
        "<string>:38:1: warning[inconclusive]: Could not decide exactly (not every value of 'given.kv', 'given.tp' "
        "could be represented: a condition read alone names given.PATH, the value as given, of a path an adjustment "
        "sets: on the configs resolution reads it may differ from PATH, which a condition alone cannot tell) whether "
        "F can be active"]


# --- times in set (issue 30: SGLang's mem_fraction_static *= 0.85) ---------------------------

TIMES_TEXT = """
[matrix]
name = "times"
version = "1.0"
[config]
"mem" = { type = "float", nullable = true }
"ctx" = { type = "int", default = 0 }
"pages" = { type = "int", nullable = true }
[adjustments.fill]
name = "fill"
when = "mem is None"
set = { mem = 0.9 }
override = false
[adjustments.scale]
name = "scale"
when = "ctx > 8192 and given.mem is None"
set = { mem = { from = "mem", times = 0.85 }, pages = { from = "ctx", times = -2 } }
message = "mem {mem:.3f} scaled"
[features.small]
name = "small memory"
when = "mem < 0.8"
support = { a = "yes" }
"""


def test_times_scales_a_copy_by_pythons_product():
    import json

    import jsonschema

    from matrix.render import json_schema, render

    m = matrix.loads(TIMES_TEXT, runners={"a": {"name": "A", "priority": 1}})
    r = m.resolve({"ctx": 9000})
    assert [(a.id, a.path, a.before, a.after) for a in r.adjustments] == [
        ("fill", "mem", None, 0.9), ("scale", "mem", 0.9, 0.9 * 0.85), ("scale", "pages", None, -18000)]
    assert [f.id for f in r.active] == ["small"]  # 0.765, read on the effective config
    assert r.effective["mem"] == 0.765 and type(r.effective["pages"]) is int
    assert m.resolve({"ctx": 9000, "mem": 0.5}).adjustments == ()  # given: not scaled
    rows = [line for line in render(m, tables=["adjustments"]).splitlines() if line.startswith("| `scale`")]
    assert rows == ["| `scale` | scale | every config, before the choice | `ctx > 8192 and given.mem is None` | "
                    "`mem` from `mem` times `0.85`; `pages` from `ctx` times `-2` | yes | warning | mem {mem:.3f} scaled |  |"]
    data = json.loads(render(m, format="json", tables=["adjustments"]))
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    assert data["adjustments"][1]["set"] == [{"path": "mem", "value": None, "from": "mem", "times": 0.85},
                                             {"path": "pages", "value": None, "from": "ctx", "times": -2}]


def test_a_copy_is_weighed_value_by_value_against_the_choices_it_sets():
    """A bounded int copied into a field with choices is within them where every value it may
    hold, scaled, is a choice (0..3 times 3 into [0, 3, 6, 9]); the bounds alone (0..9) are not.
    The load check refused it (found by review); one value outside is still refused."""
    text = ('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n"n" = {{ type = "int", min = 0, max = {high}, default = 1 }}\n'
            '"pages" = {{ type = "int", choices = [0, 3, 6, 9], default = 0 }}\n"k" = {{ type = "int", min = 0, max = 9, default = 1 }}\n'
            '[adjustments.scale]\nname = "Scale"\nwhen = "n > 0"\nset = {{ pages = {{ from = "n", times = 3 }}, k = {{ from = "pages" }} }}\n'
            '[features.f]\nname = "F"\nwhen = "pages > 3"\nsupport = {{ a = "yes" }}\n')
    m = matrix.loads(text.format(high=3), runners={"a": {"name": "A", "priority": 1}})
    r = m.resolve({"n": 2})
    assert [(a.path, a.after) for a in r.adjustments] == [("pages", 6), ("k", 0)]  # k: pages before the adjustment
    assert [f.id for f in r.active] == ["f"]
    with pytest.raises(matrix.LoadError) as caught:
        matrix.loads(text.format(high=4), runners={"a": {"name": "A", "priority": 1}})
    assert [p.message for p in caught.value.problems] == [
        "'pages' does not take every value 'n times 3', which it copies, may hold (its choices or bounds are narrower)"]


TEXT_REQUIRED = ('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n"a" = { type = "bool" }\n'
                 '"s.t" = { type = "int" }\n[features.f]\nname = "F"\nwhen = "a"\nsupport = { r = "yes" }\n')


def test_the_effective_config_leaves_out_a_path_an_object_lacks_that_no_rule_in_force_reads():
    """An object without a declared path that nothing at the version reads is served (resolve
    reads only what the gates in force read); its effective config leaves the path out, so that
    `effective`, `to_dict()`, equality and pickling work, rather than raising a ConfigError for
    a value no rule asked for (found on benchmarks/configs.py at 0.30.0, which lacks
    `cache_config.enable_prefix_caching`). A value of the wrong type is still refused there."""
    import pickle
    from types import SimpleNamespace as NS

    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n"s.a" = { type = "bool" }\n'
                     '"s.b" = { type = "int", default = 3 }\n"c" = { type = "int", nullable = true }\n'
                     '[features.f]\nname = "F"\nwhen = "s.a"\nsupport = { r = "no", q = "yes" }\n',
                     runners={"r": {"name": "R", "priority": 1}, "q": {"name": "Q", "priority": 2}})
    resolution = m.resolve(NS(s=NS(a=True)))
    assert resolution.runner == "q"
    assert dict(resolution.effective) == {"s.a": True}
    assert resolution.to_dict()["effective"] == {"s.a": True}
    assert resolution == m.resolve(NS(s=NS(a=True)))
    assert dict(pickle.loads(pickle.dumps(resolution)).effective) == {"s.a": True}
    # A dict takes the defaults, as everywhere; one that leaves out a field without default is
    # refused there, read by a rule or not (as matrix resolve refuses it).
    assert dict(m.resolve({"s": {"a": True}}).effective) == {"s.a": True, "s.b": 3, "c": None}
    required = matrix.loads(TEXT_REQUIRED, runners={"r": {"name": "R", "priority": 1}})
    with pytest.raises(ConfigError) as raised:
        dict(required.resolve({"a": True}).effective)
    assert str(raised.value) == "Config 's.t': Missing, and the schema gives no default"
    with pytest.raises(ConfigError) as raised:
        dict(m.resolve(NS(s=NS(a=True, b="3"), c=None)).effective)
    assert str(raised.value) == "Config 's.b': Expected int, got str '3'"


ROLES_TEXT = """
[matrix]
name = "roles"
version = "1.0"

[config]
backend = { type = "str", nullable = true, choices = ["a", "b", "c", "old_b"] }
prefill = { type = "str", nullable = true, choices = ["a", "b", "c"] }
decode = { type = "str", nullable = true, choices = ["a", "b", "c", "old_b"] }
eager = { type = "bool", default = false }
spec = { type = "bool", default = false }
cpu = { type = "bool", default = false }

[roles.base]
name = "Attention backend"
field = "backend"

[roles.prefill]
name = "Prefill backend"
field = "prefill"
follows = "base"

[roles.decode]
name = "Decode backend"
field = "decode"
follows = "prefill"

[features.eager]
name = "Eager mode"
when = "eager"
support = { a = "no", b = "yes", c = { status = "partial", note = "slow" } }

[features.spec]
name = "Speculative decoding"
when = "spec"
support = { a = "yes", b = "opt-in", c = "yes" }

[adjustments.cpu]
name = "CPU decodes on c"
when = "cpu"
set = { decode = "c" }
message = "CPU: decode on c"

[adjustments.pair]
name = "A prefills on b"
when = "prefill is None"
runners = ["a"]
set = { prefill = "b" }
message = "a prefills on b"
"""

ROLES_RUNNERS = {"a": {"name": "A", "priority": 3},
                 "b": {"name": "B", "priority": 2, "aliases": [{"id": "old_b", "since": "1.0"}]},
                 "c": {"name": "C", "priority": 1}}


def test_a_matrix_without_roles_has_no_roles():
    text = ROLES_TEXT[:ROLES_TEXT.index("[roles.base]")] + ROLES_TEXT[ROLES_TEXT.index("[features.eager]"):]
    r = matrix.loads(text, runners=ROLES_RUNNERS).resolve({"eager": True})
    assert r.runner == "b" and dict(r.roles) == {} and "roles" not in r.to_dict()
    with pytest.raises(TypeError):
        r.roles["base"] = "a"


def test_each_role_has_its_runner():
    import pickle

    m = matrix.loads(ROLES_TEXT, runners=ROLES_RUNNERS)
    assert [(r.id, r.field, r.follows) for r in m.roles] == [
        ("base", "backend", None), ("prefill", "prefill", "base"), ("decode", "decode", "prefill")]
    # Automatic choice fills the base; a's own adjustment sets the prefill field, which that role reads on F.
    r = m.resolve({})
    assert (r.runner, dict(r.roles)) == ("a", {"base": "a", "prefill": "b", "decode": "b"})
    assert [w.message for w in r.warnings] == ["a prefills on b"]
    assert r.to_dict()["roles"] == {"base": "a", "prefill": "b", "decode": "b"}
    assert r.explain().splitlines()[:2] == [
        "Runner: a (A), chosen automatically, at version 1.0",
        "Roles: Attention backend (base) = a, chosen automatically; Prefill backend (prefill) = b, asked for; "
        "Decode backend (decode) = b, follows prefill"]
    assert [(x["id"], x["runner"], x["how"], x["follows"]) for x in r.explanation()["roles"]] == [
        ("base", "a", "chosen", None), ("prefill", "b", "asked", None), ("decode", "b", "follows", "prefill")]
    # A role field set before the choice is read on F; the roles stay in declaration order.
    r = m.resolve({"cpu": True, "eager": True})
    assert (r.runner, dict(r.roles)) == ("b", {"base": "b", "prefill": "b", "decode": "c"})
    assert [w.message for w in r.warnings] == [
        "CPU: decode on c", "A does not support: Eager mode; using B instead",
        "Eager mode is only partly supported on C: slow"]
    for copy in (pickle.loads(pickle.dumps(r)),):
        assert copy == r and dict(copy.roles) == dict(r.roles)
    # The base field is a request, as runner= is (and runner= wins over it); a former id warns in any role.
    r = m.resolve({"backend": "old_b", "decode": "old_b", "spec": True})
    assert (r.runner, r.requested, dict(r.roles)) == ("b", "old_b", {"base": "b", "prefill": "b", "decode": "b"})
    assert [w.kind for w in r.warnings] == ["deprecated-alias", "opt-in"]
    assert dict(m.resolve({"backend": "b"}, runner="c").roles) == {"base": "c", "prefill": "c", "decode": "c"}


def test_a_role_asked_for_is_validated_as_a_request():
    m = matrix.loads(ROLES_TEXT, runners=ROLES_RUNNERS)
    with pytest.raises(UnsupportedFeatureError) as asked:
        m.resolve({"eager": True}, runner="a")
    with pytest.raises(UnsupportedFeatureError) as base:
        m.resolve({"eager": True, "backend": "a"})
    assert str(base.value) == str(asked.value) == (
        "A does not support: Eager mode\nTo use A, change: set eager to False")
    # A role other than the base: the same reason, naming the role, and the remedy for the base's
    # runner (a review: none was said); the error's resolution says every role's runner (a user
    # trial: it said "Runner: none" and no role).
    with pytest.raises(UnsupportedFeatureError) as prefill:
        m.resolve({"eager": True, "prefill": "a"})
    assert str(prefill.value) == ("A in role 'prefill' does not support: Eager mode\n"
                                  "To use B, change: set prefill to one of 'b', 'c', None")
    assert prefill.value.resolution.runner is None
    assert [r.runner for r in prefill.value.remedies] == ["b"]
    refused = prefill.value.resolution
    assert dict(refused.roles) == refused.to_dict()["roles"] == {"base": "b", "prefill": "a", "decode": "a"}
    assert [(x["id"], x["runner"], x["how"]) for x in refused.explanation()["roles"]] == [
        ("base", "b", "chosen"), ("prefill", "a", "asked"), ("decode", "a", "follows")]
    said = refused.explain().splitlines()
    assert said[:2] + said[-1:] == [
        "Runner: none (chosen automatically), at version 1.0",
        "Roles: Attention backend (base) = b, chosen automatically; Prefill backend (prefill) = a, asked for; "
        "Decode backend (decode) = a, follows prefill",
        "Refused in role 'prefill' (filled by a): A in role 'prefill' does not support: Eager mode"]
    # A following role takes the runner it follows as it is, not validated again.
    assert dict(m.resolve({"eager": True}).roles) == {"base": "b", "prefill": "b", "decode": "b"}
    # is_supported says what resolve with that request says (a user trial: True where a role refused).
    assert [m.is_supported({"eager": True, "prefill": p}, "b") for p in (None, "a", "c")] == [True, False, True]


def test_a_requirement_applies_in_the_roles_it_names():
    text = ROLES_TEXT.replace('cpu = { type = "bool", default = false }',
                              'cpu = { type = "bool", default = false }\npage = { type = "int", default = 1 }')
    text += '[requirements.pages]\nname = "Page size"\nreason = "page size {page} is not 64"\n'
    runners = {**ROLES_RUNNERS,
               "b": {**ROLES_RUNNERS["b"], "requires": {"pages": [
                   {"condition": "page > 0", "roles": ["base", "prefill"], "reason": "page {page} is not positive"},
                   {"condition": "page < 100"}]}},
               "c": {"name": "C", "priority": 1, "requires": {"pages": {"condition": "page == 64", "roles": ["decode"]}}}}
    m = matrix.loads(text, runners=runners)
    # c's requirement leaves out the base: no gate of choice, kept apart; b's is a gate, as any.
    assert [(r.id, [x.roles for x in r.requires], [x.roles for x in r.role_requires]) for r in m.runners] == [
        ("a", [], []), ("b", [("base", "prefill"), ("base", "prefill")], []), ("c", [], [("decode",)])]
    refused = "C in role 'decode' is not valid for this config: page size 1 is not 64"
    for config, remedy in [  # asked for, or followed into decode; the remedy is the base runner's
            ({"decode": "c"}, "To use A, change: set page to 64; or set decode to one of 'a', 'b', None"),
            ({"prefill": "c"}, "To use A, change: set page to 64; or set prefill to one of 'a', 'b', None; "
                               "or set decode to one of 'a', 'b'"),
            ({"backend": "c"}, "To use C, change: set page to 64; or set prefill to one of 'a', 'b'; "
                               "or set decode to one of 'a', 'b'")]:
        with pytest.raises(UnsupportedFeatureError) as caught:
            m.resolve(config)
        assert str(caught.value) == f"{refused}\n{remedy}"
        # The error's resolution says which role refused, and explain() ends with it.
        said = {"role": "decode", "runner": "c", "reason": refused}
        assert dict(caught.value.resolution.role_refusal) == said
        assert caught.value.resolution.to_dict()["role_refusal"] == said
        assert caught.value.resolution.explain().splitlines()[-1] == f"Refused in role 'decode' (filled by c): {refused}"
    assert m.resolve({"decode": "c", "page": 64}).role_refusal is None
    # is_supported weighs the runner followed into a role too (a user trial: UCC followed into the
    # inter role and refused there, is_supported said True).
    assert [m.is_supported({"page": p}, "c") for p in (1, 64)] == [False, True]
    assert [m.is_supported({"decode": d}, "c") for d in ("a", "b", "c")] == [True, True, False]
    assert dict(m.resolve({"decode": "c", "page": 64}).roles) == {"base": "a", "prefill": "b", "decode": "c"}
    assert dict(m.resolve({"backend": "c", "prefill": "c", "decode": "b", "page": 0}).roles) == {
        "base": "c", "prefill": "c", "decode": "b"}  # b's chain names base and prefill only
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"backend": "c", "prefill": "b", "decode": "c", "page": 200})
    assert str(caught.value) == ("B in role 'prefill' is not valid for this config: page size 200 is not 64\n"  # the chain's second clause
                                 "To use C, change: set page to 64")
    # The capability table says which roles a runner's clauses apply in (the base's too).
    from matrix.render import render

    row = next(line for line in render(m, tables=["capabilities"], standalone=False).splitlines()
               if line.startswith("| Page size"))
    assert row == ("| Page size |  | `(page > 0) and (page < 100)` (in roles base, prefill) | `page == 64` (in role decode) "
                   "| page size ‹page› is not 64 |")


def _reading_roles():
    """ROLES_TEXT with a stage after the choice, a page size, and rules that read roles there."""
    text = ROLES_TEXT.replace('version = "1.0"\n', 'version = "1.0"\nstages = ["choice", "pages"]\n', 1)
    text = text.replace('cpu = { type = "bool", default = false }',
                        'cpu = { type = "bool", default = false }\npage = { type = "int", nullable = true }')
    text += '''
[adjustments.decode_pages]
name = "Pages of a decode on c"
stage = "pages"
when = "role.decode == 'c' and role.base != role.decode and page is None"
set = { page = 64 }
message = "{role.decode!r} decodes beside {role.base}: page {page} -> 64"

[requirements.pair]
name = "Prefill and decode"
'''
    runners = {**ROLES_RUNNERS, "c": {**ROLES_RUNNERS["c"], "requires": {"pair": {
        "condition": "role.prefill != role.decode", "roles": ["decode"],
        "reason": "{role.prefill!r} cannot prefill for {role.decode!r}"}}}}
    return matrix.loads(text, runners=runners)


def test_every_bad_value_a_matrix_with_roles_reads_is_said():
    """As without roles (`ConfigError.others`), the values read by no gate too: a role's field,
    an adjustment that reads a role, at its stage (a user trial: the first alone was said)."""
    m = _reading_roles()
    with pytest.raises(ConfigError) as caught:
        m.resolve({"decode": 3, "prefill": 4, "page": "x"})
    assert caught.exconly() == (
        "matrix.errors.ConfigError: Config 'prefill' (read by adjustment 'pair'): Expected str, got int 4\n"
        "Config 'decode': Expected str, got int 3\n"
        "Config 'page' (read by adjustment 'decode_pages'): Expected int, got str 'x'")
    with pytest.raises(ConfigError) as caught:
        m.resolve({"backend": 1, "eager": "no"}, strict=True)
    assert [(e.path, e.feature) for e in (caught.value, *caught.value.others)] == [
        ("backend", None), ("eager", "eager")]


def test_rules_after_the_choice_read_the_runner_that_fills_each_role():
    m = _reading_roles()
    # The base is the runner that serves; decode its field as the config stands (after a's own
    # adjustment set prefill to b), a former id as the runner it names, else the role it follows.
    r = m.resolve({"decode": "c"})
    assert (r.runner, dict(r.roles)) == ("a", {"base": "a", "prefill": "b", "decode": "c"})
    assert [(a.id, a.runner, a.path, a.after, a.message) for a in r.adjustments] == [
        ("pair", "a", "prefill", "b", "a prefills on b"),
        ("decode_pages", "a", "page", 64, "'c' decodes beside a: page None -> 64")]
    assert m.resolve({"decode": "old_b"}).adjustments[1:] == ()  # read as b: not c
    assert m.resolve({"backend": "c", "prefill": "a", "decode": "c"}).adjustments == ()  # c decodes, but is the base
    with pytest.raises(UnsupportedFeatureError) as caught:  # decode follows prefill, which follows the base: c
        m.resolve({"backend": "c"})
    assert str(caught.value) == ("C in role 'decode' is not valid for this config: 'c' cannot prefill for 'c'\n"
                                 "To use C, change: set prefill to one of 'a', 'b'; or set decode to one of 'a', 'b'")
    # An adjustment before the choice may set a role's field: read where the rule after it is.
    r = m.resolve({"cpu": True, "backend": "b"})
    assert [(a.id, a.runner, a.after) for a in r.adjustments] == [("cpu", None, "c"), ("decode_pages", "b", 64)]
    # A requirement whose roles leave out the base reads the roles on F, and says them.
    with pytest.raises(UnsupportedFeatureError) as caught:
        m.resolve({"backend": "b", "prefill": "c", "decode": "c"})
    assert caught.exconly() == ("matrix.errors.UnsupportedFeatureError: C in role 'decode' is not valid for this config: "
                                "'c' cannot prefill for 'c'\nTo use B, change: set prefill to one of 'a', 'b', None; "
                                "or set decode to one of 'a', 'b'")
    assert dict(m.resolve({"backend": "b", "prefill": "a", "decode": "c"}).roles) == {
        "base": "b", "prefill": "a", "decode": "c"}


def test_a_role_is_read_where_the_rule_that_reads_it_stands():
    # A runner's adjustment that sets a role's field changes what a later rule reads (SGLang's
    # cutedsl_mla fills the prefill backend), not what an earlier one read.
    text = ROLES_TEXT.replace("[adjustments.pair]", '''[adjustments.early]
name = "Early"
runners = ["a"]
when = "role.prefill == 'a'"
message = "early: prefill {role.prefill}"

[adjustments.pair]''')
    text += '''
[adjustments.late]
name = "Late"
runners = ["a"]
when = "role.prefill == 'b'"
message = "late: prefill {role.prefill}, decode {role.decode}"
'''
    m = matrix.loads(text, runners=ROLES_RUNNERS)
    r = m.resolve({})
    assert [w.message for w in r.warnings if w.kind == "adjusted"] == [
        "early: prefill a", "a prefills on b", "late: prefill b, decode b"]
    assert [w.message for w in m.resolve({"backend": "b"}).warnings if w.kind == "adjusted"] == []


def test_a_condition_reading_a_role_is_no_gate_of_the_compiled_plan():
    from matrix._compile import plan

    m = _reading_roles()
    compiled = plan(m, m.version)
    gate = next(g for g in compiled.features if g.id == "adjustment:decode_pages")
    assert str(gate.when) == "True" and all(not p.startswith("role.") for p in compiled.paths)
    # is_supported weighs the other roles as resolve fills them (a user trial: it said True where
    # the runner in the decode role refused): c prefilling for c is refused, a for c is not.
    assert [m.is_supported({"decode": "c", "prefill": p}, "c") for p in (None, "a")] == [False, True]
    assert m.schema.get("role.decode") == matrix.schema.Field("role.decode", "str", choices=("a", "b", "c"))


# --- stages: the host's order of steps (issue 30, F6) --------------------------------------------

_STAGED = '''[matrix]
name = "staged"
version = "1.0"
stages = ["device", "choice", "graphs", "pages"]

[config]
device = { type = "str", choices = ["cuda", "cpu"], default = "cuda" }
graphs = { type = "bool", default = true }
page = { type = "int", nullable = true }

[features.cpu]
name = "CPU"
when = "device == 'cpu'"
support = { fast = "no", slow = "yes" }

# Declared first, applied last: after the choice, whatever the runner.
[adjustments.page_default]
name = "page default"
when = "page is None"
set = { page = 1 }
override = false
stage = "pages"

[adjustments.slow_graphs]
name = "graphs off"
when = "graphs"
set = { graphs = false }
runners = ["slow"]
stage = "graphs"
message = "CUDA graphs are off on slow"

[adjustments.slow_pages]
name = "slow pages"
when = "page is not None and page < 16"
set = { page = 16 }
runners = ["slow"]
stage = "pages"

# Named no stage: at choice, before the choice.
[adjustments.cpu_page]
name = "cpu page"
when = "device == 'cpu'"
set = { page = 8 }
override = false
'''

_STAGED_RUNNERS = {"fast": {"name": "Fast", "priority": 2}, "slow": {"name": "Slow", "priority": 1}}


def test_adjustments_apply_stage_by_stage_around_the_choice():
    """Issue 30, F6: before the choice the adjustments that name no runner at choice or before;
    after it, stage by stage, the runner's and those that name no runner at a later stage (the
    page default, declared first, applies after slow's graphs rule, at a stage before its own, and
    before slow's page rule, declared after it at the same stage)."""
    m = matrix.loads(_STAGED, runners=_STAGED_RUNNERS)
    assert m.stages == ("device", "choice", "graphs", "pages")
    r = m.resolve({"device": "cpu"})
    assert r.runner == "slow"
    assert [(a.id, a.runner, a.path, a.before, a.after) for a in r.adjustments] == [
        ("cpu_page", None, "page", None, 8), ("slow_graphs", "slow", "graphs", True, False),
        ("slow_pages", "slow", "page", 8, 16)]
    assert [w.message for w in r.warnings] == [
        "cpu page: set page from None to 8", "Fast does not support: CPU; using Slow instead",
        "CUDA graphs are off on slow", "slow pages: set page from 8 to 16"]
    r = m.resolve({})  # fast: the page default, after the choice, for a runner without adjustments of its own
    assert (r.runner, [(a.id, a.runner, a.path, a.before, a.after) for a in r.adjustments]) == (
        "fast", [("page_default", "fast", "page", None, 1)])
    # The page default is said at its stage, not "for slow": it is not slow's own (a user trial).
    r = m.resolve({}, runner="slow")  # the page default (pages, declared first) before slow_pages: page 1, then 16
    assert [(a.id, a.before, a.after) for a in r.adjustments] == [
        ("slow_graphs", True, False), ("page_default", None, 1), ("slow_pages", 1, 16)]
    assert r.explain().split("Adjustments:\n")[1].split("\nActive")[0] == (
        "  - slow_graphs (for slow): graphs = True -> False, overriding the config's value\n"
        "  - page_default (at stage 'pages'): page = None -> 1\n"
        "  - slow_pages (for slow): page = 1 -> 16")


def test_stages_that_no_adjustment_names_resolve_as_without_stages():
    """`stages = ["choice"]` (or stages no adjustment names) is today's order: the same answers."""
    plain = _STAGED.replace('stages = ["device", "choice", "graphs", "pages"]\n', "").replace('stage = "pages"\n', "") \
        .replace('stage = "graphs"\n', "")
    staged = plain.replace('version = "1.0"\n', 'version = "1.0"\nstages = ["choice"]\n', 1)
    a, b = (matrix.loads(t, runners=_STAGED_RUNNERS) for t in (plain, staged))
    def answer(m, config, runner):
        try:
            return m.resolve(config, runner=runner).to_dict()
        except matrix.ResolutionError as error:
            return (type(error), str(error), error.resolution.to_dict())

    for config in ({}, {"device": "cpu"}, {"page": 4}, {"device": "cpu", "graphs": False}):
        for runner in (None, "fast", "slow"):
            assert answer(a, config, runner) == answer(b, config, runner)


def test_the_adjustments_table_shows_each_stage_in_the_order_they_apply():
    from matrix.render import render

    m = matrix.loads(_STAGED, runners=_STAGED_RUNNERS)
    table = render(m, format="markdown", tables=["adjustments"])
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert rows[0].startswith("| Adjustment | Name | Stage | Applies to | When |")
    assert [[c.strip() for c in row.split("|")[1:5]] for row in rows[1:]] == [
        ["`cpu_page`", "cpu page", "`choice`", "every config, before the choice"],
        ["`slow_graphs`", "graphs off", "`graphs`", "Slow"],
        ["`page_default`", "page default", "`pages`", "every config a runner serves, after the choice"],
        ["`slow_pages`", "slow pages", "`pages`", "Slow"]]


def test_an_adjustment_may_copy_a_fact_it_cannot_set():
    """Found writing the SGLang example (A8: the chunked prefill size from the platform's
    default): copying a fact was refused as if the adjustment changed it."""
    text = ('[matrix]\nname = "r"\nversion = "1.0"\n[config]\n"chunk" = { type = "int", nullable = true }\n'
            '"platform.default_chunk" = { type = "int", default = 8192, fact = true }\n'
            '[adjustments.fill]\nname = "fill"\nwhen = "chunk is None"\nset = { chunk = { from = "platform.default_chunk" } }\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 1}})
    resolution = m.resolve({}, facts={"platform.default_chunk": 4096})
    assert [(a.path, a.before, a.after) for a in resolution.adjustments] == [("chunk", None, 4096)]
    assert m.resolve({"chunk": 5}).effective["chunk"] == 5
    with pytest.raises(matrix.LoadError) as error:
        matrix.loads(text.replace('set = { chunk = { from = "platform.default_chunk" } }',
                                  'set = { "platform.default_chunk" = 1 }'), runners={"a": {"name": "A", "priority": 1}})
    assert str(error.value).splitlines()[1] == (
        "  <string>:10:9: $.adjustments.fill.set[\"platform.default_chunk\"]: 'platform.default_chunk' is a fact the "
        "host computes: an adjustment cannot change it")


def test_a_remedy_never_asks_for_another_runner_through_the_base_role_s_field():
    """Found trying the SGLang example: "To use TensorRT-LLM MLA, change: set attention_backend to
    one of 'triton', …": the base role's field is the request, and changing it asks for another
    runner, which is no way to get this one."""
    text = ('[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
            'encoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
            'slices = { type = "int", min = 1, max = 4, default = 1 }\n'
            '[roles.encode]\nname = "Encoder"\nfield = "encoder"\n'
            '[features.three]\nname = "three slices on HW"\nwhen = "encoder == \'hw\' and slices == 3"\n'
            'support = { hw = "no", sw = "yes" }\n')
    m = matrix.loads(text, runners={"hw": {"name": "HW", "priority": 2}, "sw": {"name": "SW", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as error:
        m.resolve({"encoder": "hw", "slices": 3})
    assert str(error.value) == (
        "HW does not support: three slices on HW\nTo use HW, change: set slices to a value from 1 to 2 or 4")


def test_a_remedy_never_asks_for_another_runner_through_an_adjustment_of_the_base_role_s_field():
    """Found writing the SGLang example: "To use TensorRT-LLM MLA, change: set device to one of
    'hpu', 'npu'": HPU's adjustment forces the base field to torch_native over the request, so
    the request the gate read is gone; the change asks for another runner, as setting the field would."""
    text = ('[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
            'encoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
            'device = { type = "str", default = "gpu", choices = ["gpu", "cpu"] }\n'
            'slices = { type = "int", min = 1, max = 4, default = 1 }\n'
            '[roles.encode]\nname = "Encoder"\nfield = "encoder"\n'
            '[adjustments.cpu]\nname = "CPU encodes in software"\nwhen = "device == \'cpu\'"\n'
            'set = { encoder = "sw" }\n'
            '[features.three]\nname = "three slices on HW"\nwhen = "encoder == \'hw\' and slices == 3"\n'
            'support = { hw = "no", sw = "yes" }\n')
    m = matrix.loads(text, runners={"hw": {"name": "HW", "priority": 2}, "sw": {"name": "SW", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as error:
        m.resolve({"encoder": "hw", "slices": 3})
    assert str(error.value) == (
        "HW does not support: three slices on HW\nTo use HW, change: set slices to a value from 1 to 2 or 4")


def test_a_remedy_sets_a_field_that_only_a_role_s_requirement_reads_as_a_truth_value():
    """Found by the remedy brute force with roles ("No remedy found for A within 3 changes" where
    setting i and b served): a role's requirement reading a field bare (``fast``, no comparison)
    left that field out of the space searched, so no remedy set it."""
    text = ('[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
            'encoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
            'decoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
            'fast = { type = "bool", default = false }\n'
            'slices = { type = "int", min = 1, max = 4, default = 1 }\n'
            '[roles.encode]\nname = "Encoder"\nfield = "encoder"\n'
            '[roles.decode]\nname = "Decoder"\nfield = "decoder"\nfollows = "encode"\n'
            '[requirements.quick]\nname = "Quick"\nreason = "not quick"\n'
            '[features.three]\nname = "three slices on HW"\nwhen = "slices == 3"\nsupport = { hw = "no", sw = "yes" }\n')
    m = matrix.loads(text, runners={
        "hw": {"name": "HW", "priority": 2,
               "requires": {"quick": {"condition": "fast", "roles": ["decode"], "reason": "decodes slowly"}}},
        "sw": {"name": "SW", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as error:
        m.resolve({"encoder": "hw", "slices": 3})
    assert str(error.value) == (
        "HW does not support: three slices on HW\nTo use HW, change: set slices to a value from 1 to 2 or 4 and set "
        "fast to True; or set slices to a value from 1 to 2 or 4 and set decoder to 'sw'")

@pytest.mark.parametrize("where", ['runners = ["a"]', 'stage = "late"'])
def test_a_remedy_clears_a_role_s_field_the_user_set_that_an_adjustment_after_the_choice_reads(where):
    """A review: "No change of the config makes A serve it" where clearing the inter role's field
    serves: an adjustment after the choice (A's own, or one at a stage) reads ``role.inter`` and
    sets what A says no to, and the search ruled out every candidate that changed the field (the
    adjustment's condition named ``role.inter``, not the field it reads)."""
    text = ('[matrix]\nname = "g"\nversion = "1.0"\nstages = ["choice", "late"]\n[config]\n'
            'rb = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            'ri = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            'n = { type = "int", default = 1 }\n'
            '[roles.base]\nname = "Base"\nfield = "rb"\n[roles.inter]\nname = "Inter"\nfield = "ri"\n'
            '[features.big]\nname = "big n"\nwhen = "n > 4"\nsupport = { a = "no", b = "yes" }\n'
            f'[adjustments.inter_n]\nname = "inter sets n"\n{where}\nwhen = "role.inter == \'b\'"\n'
            'set = { n = 8 }\noverride = true\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as error:
        m.resolve({"ri": "b"}, runner="a")
    assert str(error.value) == "A does not support: big n\nTo use A, change: set ri to one of 'a', None"


@pytest.mark.parametrize("asked, said", [
    ("a", "To use A, change: set n to a value ≤ 3; or set ri to one of 'a', None"),
    ("b", "To use B, change: set n to a value ≤ 3; or set ri to 'a'")])
def test_a_refusal_in_a_role_but_the_base_at_a_stage_ends_with_the_remedy_for_the_base_s_runner(asked, said):
    """A review: a runner filling a role other than the base and failing a requirement staged
    there refused the config with no remedy, where changing n, or the role's field, serves."""
    text = ('[matrix]\nname = "g"\nversion = "1.0"\nstages = ["choice", "late"]\n[config]\n'
            'rb = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            'ri = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            'n = { type = "int", default = 1 }\n'
            '[roles.base]\nname = "Base"\nfield = "rb"\n[roles.inter]\nname = "Inter"\nfield = "ri"\nfollows = "base"\n'
            '[requirements.small]\nname = "Small"\nreason = "n is {n}, not below 4"\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1, "requires": {
        "small": {"condition": "n < 4", "roles": ["inter"], "stage": "late"}}}})
    with pytest.raises(UnsupportedFeatureError) as error:
        m.resolve({"ri": "b", "n": 6} if asked == "a" else {"n": 6}, runner=asked)
    assert str(error.value) == f"B in role 'inter' is not valid for this config: n is 6, not below 4\n{said}"
    assert error.value.resolution.staged_refusal["role"] == "inter"


@pytest.mark.parametrize("gain", [float("-inf"), float("inf")])
def test_a_remedy_search_keeps_an_infinite_float_of_the_config_as_given(gain):
    """Found by the remedy brute force with roles (a float field at -inf that no rule reads): the
    search started from the config as JSON holds it, -inf as the text '-inf', which the float
    field refuses; reading the error's message raised "Config 'gain': Expected float, got str
    '-inf'"."""
    text = ('[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
            'encoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
            'slices = { type = "int", min = 1, max = 4, default = 1 }\n'
            'gain = { type = "float", nullable = true }\n'
            '[roles.encode]\nname = "Encoder"\nfield = "encoder"\n'
            '[features.three]\nname = "three slices on HW"\nwhen = "encoder == \'hw\' and slices == 3"\n'
            'support = { hw = "no", sw = "yes" }\n')
    m = matrix.loads(text, runners={"hw": {"name": "HW", "priority": 2}, "sw": {"name": "SW", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as error:
        m.resolve({"encoder": "hw", "slices": 3, "gain": gain})
    assert str(error.value) == (
        "HW does not support: three slices on HW\nTo use HW, change: set slices to a value from 1 to 2 or 4")

def _always_redirecting(order=None, message=True):
    """SGLang's A28 (docs/reference/file-format.md, a redirect that applies always): fa3 with an
    fp8_e5m2 KV cache becomes triton, asked for or chosen; triton refuses attention sinks."""
    import textwrap

    text = textwrap.dedent('''\
        [matrix]
        name = "a28"
        version = "1.0"
        [config]
        kv_cache_dtype = { type = "str", choices = ["auto", "fp8_e4m3", "fp8_e5m2"], default = "auto" }
        sinks = { type = "bool", default = false }
        hopper = { type = "bool", default = true }
        [features.sinks]
        name = "Attention sinks"
        when = "sinks"
        support = { fa3 = "yes", flashinfer = "yes", triton = "no" }
        [features.old_gpu]
        name = "Before Hopper"
        when = "not hopper"
        support = { fa3 = "no", flashinfer = "yes", triton = "yes" }
        ''') + (order or "")
    return matrix.loads(text, runners={
        "fa3": {"name": "FA3", "priority": 3, "redirects": [
            {"to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'", "applies": "always",
             **({"message": "FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton."}
                if message else {})}]},
        "flashinfer": {"name": "FlashInfer", "priority": 2},
        "triton": {"name": "Triton", "priority": 1}})


def test_a_redirect_that_applies_always_acts_on_the_runner_automatic_choice_takes():
    m = _always_redirecting()
    said = "FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton."
    # The top runner fa3 is reached and redirected: the fast path does not answer "fa3".
    chosen = m.resolve({"kv_cache_dtype": "fp8_e5m2"})
    assert (chosen.runner, chosen.requested, [str(w) for w in chosen.warnings]) == ("triton", None, [said])
    assert chosen.redirect == m.runner("fa3").redirects[0]
    assert chosen.to_dict()["redirected"] == {"from": "fa3", "to": "triton", "when": "kv_cache_dtype == 'fp8_e5m2'",
                                              "because": {"kv_cache_dtype": "fp8_e5m2"}}
    assert chosen.explanation()["how"] == "redirected"
    assert chosen.explain().splitlines()[:5] == [
        "Runner: triton (Triton), chosen automatically, redirected from 'fa3' to 'triton': kv_cache_dtype = "
        "'fp8_e5m2', at version 1.0",
        "Runners, highest priority first:",
        "  fa3 (FA3, priority 3): no blockers, reached, and redirected to 'triton' before its blockers were read",
        "  flashinfer (FlashInfer, priority 2): no blockers",
        "  triton (Triton, priority 1): redirected here from 'fa3', validated as a runner asked for, chosen"]
    assert m.resolve({}).runner == "fa3" and m.resolve({}).warnings == ()
    # Asked for, as any redirect.
    assert m.resolve({"kv_cache_dtype": "fp8_e5m2"}, runner="fa3").runner == "triton"
    # Reached before its blockers are read: fa3 blocked on an older GPU is still redirected, and
    # the CLI's summary does not say it skipped (it says the redirect).
    assert m.resolve({"kv_cache_dtype": "fp8_e5m2", "hopper": False}).runner == "triton"
    # Triton validated as asked for: a refusal is final, no fallback to flashinfer.
    with pytest.raises(NoRunnerError) as refused:
        m.resolve({"kv_cache_dtype": "fp8_e5m2", "sinks": True})
    assert refused.value.message.splitlines() == [
        "No runner can serve this config: chose 'fa3' automatically, redirected to 'triton'; Triton does not support: "
        "Attention sinks",
        "To use FA3, change: set kv_cache_dtype to one of 'auto', 'fp8_e4m3'",  # the remedies, resolved
        "To use FlashInfer, change: ask for it by id (runner='flashinfer', --runner flashinfer)",
        "To use Triton, change: set sinks to False"]
    assert [str(w) for w in refused.value.resolution.warnings] == [said]
    # An order without fallback (a validated default): its first candidate is reached, redirected.
    ladder = _always_redirecting('[orders.default]\nname = "Default"\nrunners = ["fa3"]\nfallback = false\n')
    assert ladder.resolve({"kv_cache_dtype": "fp8_e5m2", "hopper": False}).runner == "triton"
    with pytest.raises(NoRunnerError):
        ladder.resolve({"hopper": False})
    # Without a message, the engine's words say the values (the decision is not remembered by mask).
    plain = _always_redirecting(message=False)
    for _ in range(2):
        assert [str(w) for w in plain.resolve({"kv_cache_dtype": "fp8_e5m2"}).warnings] == [
            "Chose 'fa3' automatically, redirected to 'triton': kv_cache_dtype = 'fp8_e5m2'"]


def test_check_and_the_docs_read_a_redirect_that_applies_always():
    import json

    from matrix.check import check
    from matrix.render import render

    m = _always_redirecting()
    found = [(f.code, f.message) for f in check(m).findings if f.code in ("inconclusive", "redirect-refused",
                                                                             "redirect-never", "never-chosen",
                                                                             "no-runner")]
    # Automatic choice reads it as its decision list does (issue 30, F6): fa3 reached, triton
    # validated as asked for, so Attention sinks with the redirect leave no runner.
    assert found == [
        ("redirect-refused", "FA3's redirect 1 to Triton (kv_cache_dtype == 'fp8_e5m2') can leave a request Triton "
                             "refuses: where it applies, Triton does not support Attention sinks"),
        ("no-runner", "No runner can serve a config with Attention sinks and FA3's redirect 1 to Triton (kv_cache_dtype "
                      "== 'fp8_e5m2'): FA3 is reached and redirected to Triton; FlashInfer is passed over: automatic "
                      "choice reaches FA3 first, redirected to Triton; Triton does not support Attention sinks")]
    with pytest.raises(NoRunnerError):
        m.resolve(next(f for f in check(m).findings if f.code == "no-runner").witness)
    # A [refusals] entry naming the redirect's gate acknowledges it; the order of priority then
    # never takes Triton but by the redirect, which check says it does.
    acknowledged = _always_redirecting('[refusals.sinks_fp8]\nreason = "SGLang refuses it too"\n'
                                       'together = [["sinks"], ["fa3:redirect:1"]]\n')
    report = check(acknowledged, strict=True)
    assert [(f.code, f.severity, f.refusal) for f in report.findings if f.code == "no-runner"] == [
        ("no-runner", "note", "sinks_fp8")]
    assert not any(f.code == "never-chosen" for f in report.findings)
    table = render(m, tables=["runners"], standalone=False).splitlines()
    assert "| `fa3` | FA3 | 3 |  |  | to `triton` when `kv_cache_dtype == 'fp8_e5m2'` (automatic choice too) |" in table
    # What automatic choice reads of redirects, never that it ignores them all; then what those it
    # reads do (and nothing of former ids: no runner has one).
    assert table[-3:] == [
        "A request for a runner goes to the runner of its first redirect whose condition holds. Automatic choice "
        "ignores the redirects but those marked \"automatic choice too\".", "",
        "A redirect marked \"automatic choice too\" also acts where automatic choice reaches its runner: the runner it "
        "names is then validated as a runner asked for, a refusal final."]
    data = json.loads(render(m, format="json", tables=["runners"]))
    assert data["runners"][0]["redirects"][0]["applies"] == "always"


def test_a_remedy_search_spends_its_budget_on_the_candidates_it_reads_not_on_those_it_rules_out():
    """Eleven fields of six values each make C(11, 3) * 5**3 = 20,625 candidates of three
    changes, more than the budget; four gates refusing A rule out every one of them by the gates
    alone (matrix._prune), so the search answers, where it once gave up before it read any."""
    values = [f"v{j}" for j in range(6)]
    fields = "\n".join(f'"f{i}" = {{ type = "str", choices = {values!r}, default = "v0" }}' for i in range(11))
    features = "\n".join(f'[features.g{i}]\nname = "g{i}"\nwhen = "f{i} == \'v5\'"\nsupport = {{ a = "no", b = "yes" }}'
                         for i in range(11))
    m = matrix.loads(f'[matrix]\nname = "t"\nversion = "1.0"\n[config]\n{fields}\n{features}\n',
                     runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    used = m.resolve({"f0": "v5", "f1": "v5", "f2": "v5", "f3": "v5"})
    assert str(used.remedy("a")) == "No remedy found for A within 3 changes (asking for it by id counted as one)"
    others = ", ".join(repr(v) for v in values[:-1])
    assert str(used.remedy("a", limit=4)) == "To use A, change: " + " and ".join(
        f"set f{i} to one of {others}" for i in range(4))


_QUERY_ENGINES = """[matrix]
name = "q"
version = "1.0"
[config]
"exec" = { type = "section" }
"exec.parallelism" = { type = "int", min = 1, max = 16, default = 1 }
"exec.memory_limit_mb" = { type = "int", min = 0, max = 1023, default = 512 }
"exec.mode" = { type = "str", choices = ["batch", "interactive", "streaming"], default = "batch" }
[features.wide]
name = "more than 8 workers"
when = "exec.parallelism > 8"
support = { vectorized = "no", gpu = "yes" }
[requirements]
mem_split = { name = "Memory split", reason = "memory_limit_mb must be divisible by parallelism" }
[adjustments.interactive_cap]
name = "Interactive parallelism cap"
when = "exec.mode == 'interactive' and exec.parallelism > 4"
set = { "exec.parallelism" = 4 }
"""
_QUERY_RUNNERS = {"vectorized": {"name": "Vectorized", "priority": 2},
                  "gpu": {"name": "GPU", "priority": 1,
                          "requires": {"mem_split": "exec.memory_limit_mb % exec.parallelism == 0"}}}


def test_a_remedy_search_tries_the_path_sets_of_few_combinations_first_and_keeps_what_it_found_when_cut():
    """The user trial's query engines (trial 7): exec.memory_limit_mb (1,024 values) and
    exec.parallelism (16) are read together by a requirement, so they are enumerated exactly,
    and the changes of two paths that hold memory_limit_mb read more than the budget. The
    search once walked them first and gave up ("No remedy found"), where setting exec.mode and
    exec.parallelism (2 x 15 candidates) serves. Cheapest first, it finds that pair; cut short
    within the size, it keeps the remedies found and says that it was cut. (On the trial's
    config, asking for gpu serves as it is: 100 MB split by the capped parallelism of 4. 101 MB,
    a prime, is split by no parallelism above 8, so two changes are needed, a request among them.)"""
    m = matrix.loads(_QUERY_ENGINES, runners=_QUERY_RUNNERS)
    trial = m.resolve({"exec": {"mode": "interactive", "parallelism": 12, "memory_limit_mb": 100}})
    assert str(trial.remedy("gpu")) == "To use GPU, change: ask for it by id (runner='gpu', --runner gpu)"
    used = m.resolve({"exec": {"mode": "interactive", "parallelism": 12, "memory_limit_mb": 101}})
    assert used.runner == "vectorized"
    found = used.remedy("gpu")
    ask = "ask for it by id (runner='gpu', --runner gpu)"
    options = ["set exec.memory_limit_mb to a multiple of 12 from 0 to 1020 and set exec.mode to one of 'batch', "
               "'streaming'", f"{ask} and set exec.parallelism to 1",
               f"{ask} and set exec.memory_limit_mb to a multiple of 4 from 0 to 1020"]
    assert [str(o) for o in found.options] == options
    assert (found.size, found.gave_up, found.exhausted) == (
        2, "it read 15000 candidate configs before it finished the changes of 2 paths", False)
    assert str(found) == ("To use GPU, change: " + "; or ".join(options) + " (the search was cut short: it read 15000 "
                          "candidate configs before it finished the changes of 2 paths; other changes of 2 paths may "
                          "serve too)")
    # With a budget for every candidate, the path set it did not finish (memory_limit_mb and
    # parallelism: the adjustment caps an interactive parallelism at 4) adds nothing.
    whole = used.remedy("gpu", budget=60_000)
    assert ([str(o) for o in whole.options], whole.size, whole.gave_up) == (options, 2, None)


def test_the_cli_says_a_runner_a_redirect_that_applies_always_sent_elsewhere_was_redirected_not_skipped(tmp_path):
    """fa3 is blocked on an older GPU, but automatic choice reaches it and its redirect acts before
    its blockers are read: the summary says the redirect, not "Skipped fa3"."""
    import io

    from matrix import cli

    (tmp_path / "runners").mkdir()
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "t"\nversion = "1.0"\nrunners = "runners"\n[config]\n'
        'kv = { type = "str", choices = ["auto", "fp8_e5m2"], default = "auto" }\n'
        'hopper = { type = "bool", default = true }\n'
        '[features.old_gpu]\nname = "Before Hopper"\nwhen = "not hopper"\n'
        'support = { fa3 = "no", flashinfer = "no", triton = "yes" }\n')
    (tmp_path / "runners" / "fa3.toml").write_text(
        'name = "FA3"\npriority = 3\nredirects = [{ to = "triton", when = "kv == \'fp8_e5m2\'", applies = "always" }]\n')
    (tmp_path / "runners" / "flashinfer.toml").write_text('name = "FlashInfer"\npriority = 2\n')
    (tmp_path / "runners" / "triton.toml").write_text('name = "Triton"\npriority = 1\n')
    out, err = io.StringIO(), io.StringIO()
    status = cli.run(["resolve", "--matrix", str(tmp_path / "features.toml"), "--set", "kv=fp8_e5m2", "--set",
                      "hopper=false"], stdout=out, stderr=err)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().splitlines() == [
        "Chose triton (Triton) automatically at version 1.0",
        "Also blocked flashinfer (FlashInfer) because of: Before Hopper",
        "Warning (redirected): Chose 'fa3' automatically, redirected to 'triton': kv = 'fp8_e5m2'"]


# Issue 30, F6: a redirect at a stage after the choice (SGLang's A31: intel_amx falls back to
# torch_native after A19 has read the backend, so CUDA graphs stay on, §10 example 12).
_REROUTED = '''[matrix]
name = "rerouted"
version = "1.0"
stages = ["device", "choice", "graphs", "fallbacks", "pages"]

[config]
backend = { type = "str", nullable = true, choices = ["intel_amx", "torch_native", "triton"] }
device = { type = "str", choices = ["cpu", "cuda"], default = "cuda" }
"platform.has_amx" = { type = "bool", default = true, fact = true }
graphs = { type = "bool", default = true }
page = { type = "int", nullable = true }
sinks = { type = "bool", default = false }

[roles.base]
name = "Attention backend"
field = "backend"

[features.sinks]
name = "attention sinks"
when = "sinks"
support = { default = "yes", torch_native = "no" }

[requirements]
small_page = { name = "Small page", reason = "page {page} is too large for torch_native", kind = "ValueError" }

[adjustments.cpu_backend]
name = "A7"
when = "device == 'cpu'"
set = { backend = "intel_amx" }
override = false
stage = "device"

[adjustments.graphs_off]
name = "A19"
runners = ["torch_native"]
stage = "graphs"
set = { graphs = false }
message = "Cuda graph is disabled because of using torch native attention backend"

[adjustments.amx_graphs]
name = "graphs said"
stage = "graphs"
message = "graphs read with {role.base} serving"

[adjustments.amx_page]
name = "amx page"
runners = ["intel_amx"]
stage = "pages"
set = { page = 16 }
override = false

[adjustments.page_default]
name = "page default"
stage = "pages"
when = "page is None"
set = { page = 1 }
message = "page 1 for {role.base}"
'''
_REROUTED_RUNNERS = {
    "intel_amx": {"name": "Intel AMX", "priority": 3, "redirects": [
        {"to": "torch_native", "when": "not platform.has_amx", "stage": "fallbacks",
         "message": "The current platform does not support Intel AMX, will fallback to torch_native backend."}]},
    "torch_native": {"name": "Torch native", "priority": 2,
                     "requires": {"small_page": {"condition": "page is None or page < 64", "stage": "pages"}},
                     "redirects": [{"to": "triton", "when": "graphs", "stage": "pages"}]},
    "triton": {"name": "Triton", "priority": 1}}


def test_a_redirect_at_a_stage_acts_on_the_runner_that_serves_with_the_steps_before_it_said():
    """Before its stage the runner that serves walks its own steps (a notice reading role.base
    says intel_amx); the redirect's condition is read on the config those stages left; from its
    stage on the redirect's runner walks its own (A19 at graphs, before, never runs; the page
    default says torch_native); torch_native's own redirect does not apply (one hop)."""
    m = matrix.loads(_REROUTED, runners=_REROUTED_RUNNERS)
    assert m._branch  # it walks its steps on every config, as a matrix with staged requirements does
    no_amx = {"platform.has_amx": False}
    for config, asked, how in (({}, None, "chosen automatically"), ({"device": "cpu"}, None, "asked for 'intel_amx'"),
                               ({}, "intel_amx", "asked for 'intel_amx'")):
        r = m.resolve(config, runner=asked, facts=no_amx)
        assert r.runner == "torch_native"
        assert [(a.id, a.runner, a.path, a.before, a.after) for a in r.adjustments if a.id != "cpu_backend"] == [
            ("page_default", "torch_native", "page", None, 1)]
        assert r.effective["graphs"] is True
        assert [(w.kind, w.runner, w.message) for w in r.warnings if w.feature != "cpu_backend"] == [
            ("adjusted", "intel_amx", "graphs read with intel_amx serving"),
            ("redirected", "torch_native", "The current platform does not support Intel AMX, will fallback to "
                                           "torch_native backend."),
            ("adjusted", "torch_native", "page 1 for torch_native")]
        assert r.redirect == m.runner("intel_amx").redirects[0]
        assert r.to_dict()["redirected"] == r.explanation()["redirected"] == {
            "from": "intel_amx", "to": "torch_native", "when": "not platform.has_amx",
            "because": {"platform.has_amx": False}, "stage": "fallbacks"}
        assert r.explain().splitlines()[0] == (
            f"Runner: torch_native (Torch native), {how}, redirected from 'intel_amx' to 'torch_native' at stage "
            "'fallbacks': platform.has_amx = False, at version 1.0")
        assert r.remedies() == ()  # its condition is no gate the search varies
    # Where it does not hold, intel_amx serves; torch_native asked for runs A19 (and its own redirect,
    # at pages, reads graphs as A19 left it: off).
    r = m.resolve({})
    assert (r.runner, [(a.id, a.after) for a in r.adjustments], r.redirect) == ("intel_amx", [("amx_page", 16)], None)
    r = m.resolve({}, runner="torch_native")
    assert (r.runner, [(a.id, a.after) for a in r.adjustments]) == ("torch_native", [("graphs_off", False),
                                                                                    ("page_default", 1)])
    # is_supported weighs the runner itself, as for every redirect.
    assert m.is_supported({"sinks": True}, "intel_amx", facts=no_amx)


def test_the_runner_a_redirect_at_a_stage_names_is_validated_as_asked_for_and_its_refusal_is_final():
    """Chosen automatically, then redirected at a stage: the choice is made, so a refusal is an
    AdjustmentError (as a staged requirement's after the choice), saying both; asked for, an
    UnsupportedFeatureError; the redirect's runner's staged requirements from its stage on are
    checked, and no remedies are said."""
    m = matrix.loads(_REROUTED, runners=_REROUTED_RUNNERS)
    no_amx = {"platform.has_amx": False}
    with pytest.raises(matrix.AdjustmentError) as automatic:
        m.resolve({"sinks": True}, facts=no_amx)
    assert str(automatic.value) == ("Chose 'intel_amx' automatically, redirected to 'torch_native' at stage "
                                    "'fallbacks'; Torch native does not support: attention sinks")
    assert automatic.value.resolution.redirect == m.runner("intel_amx").redirects[0]
    assert automatic.value.remedies == ()
    with pytest.raises(UnsupportedFeatureError) as asked:
        m.resolve({"sinks": True}, runner="intel_amx", facts=no_amx)
    assert str(asked.value) == ("Asked for 'intel_amx', redirected to 'torch_native' at stage 'fallbacks'; Torch "
                                "native does not support: attention sinks")
    with pytest.raises(matrix.AdjustmentError) as staged:
        m.resolve({"page": 64}, facts=no_amx)
    assert str(staged.value) == "Torch native is not valid for this config: page 64 is too large for torch_native"
    assert staged.value.resolution.staged_refusal == {
        "stage": "pages", "runner": "torch_native", "role": None, "requirements": ["torch_native:small_page"],
        "reasons": ["page 64 is too large for torch_native"], "kind": "ValueError"}
    assert staged.value.resolution.to_dict()["redirected"]["to"] == "torch_native"


def test_a_matrix_with_a_redirect_at_a_stage_walks_its_steps_its_condition_compiled():
    """Without roles or staged requirements, the top runner free and nothing to adjust would be the
    answer from the gates alone; a redirect at a stage after the choice sends it on (issue 30, F6),
    so such a matrix walks its steps on every config (`Matrix._branch`), the redirect's condition
    compiled by the plan as first read (`Plan.test`), not interpreted."""
    from matrix._compile import plan

    text = ('[matrix]\nname = "t"\nversion = "1.0"\nstages = ["choice", "fallbacks"]\n'
            '[config]\namx = { type = "bool", default = true }\n')
    runners = {"a": {"name": "A", "priority": 2, "redirects": [{"to": "b", "when": "not amx", "stage": "fallbacks"}]},
               "b": {"name": "B", "priority": 1}}
    m = matrix.loads(text, runners=runners)
    assert m._branch and not matrix.loads(text, runners={"a": {"name": "A", "priority": 2},
                                                         "b": {"name": "B", "priority": 1}})._branch
    assert plan(m, m.version).tests == {}
    assert m.resolve({}).runner == "a"
    assert [when for when, _ in plan(m, m.version).tests.values()] == [m.runner("a").redirects[0].when]
    r = m.resolve({"amx": False})
    assert (r.runner, [w.message for w in r.warnings]) == (
        "b", ["Chose 'a' automatically, redirected to 'b' at stage 'fallbacks': amx = False"])
    assert m.resolve({"amx": False}, runner="a").warnings[0].message == (
        "Asked for 'a', redirected to 'b' at stage 'fallbacks': amx = False")


_HUGE = [-(10 ** 309), -2 ** 1025, 2 ** 53 + 1, 10 ** 16 + 1, 10 ** 309]


@pytest.mark.parametrize("literal", ["1e+16", "9007199254740993", "9007199254740992.0", "1.7976931348623157e+308"])
@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!="])
def test_an_int_past_2_53_or_the_float_range_compares_with_a_number_exactly(op, literal):
    """Python compares an int with a float exactly (never through float(), which rounds 2**53 + 1
    and overflows past 1.8e308): so does resolve, and a remedy's
    values, each of which serves."""
    text = ('[matrix]\nname = "n"\nversion = "1.0"\n[config]\ni = { type = "int", nullable = true }\n'
            f'[features.g]\nname = "g"\nwhen = "i {op} {literal}"\nsupport = {{ a = "no", b = "yes" }}\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    number = float(literal) if "." in literal or "e" in literal else int(literal)
    python = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
              "!=": operator.ne}[op]
    holds = [v for v in _HUGE if m.resolve({"i": v}).runner == "b"]
    assert holds == [v for v in _HUGE if python(v, number)]
    for value in holds:
        remedy = m.resolve({"i": value}).remedy("a")
        assert remedy.options and all(m.resolve({"i": v}).runner == "a" for o in remedy.options
                                      for c in o.changes for v in c.values), (value, str(remedy))
