"""`Resolution.report()` and ``matrix resolve --json``'s ``report`` (issue 27 item 5): the five
answers of vLLM's RFC #57649 as data, and ``matrix/report.schema.json``."""

import io
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import cli
from matrix._report import ACTIONS, ROLES, json_schema
from matrix.strategies import configs, matrices

from .test_check import _small_matrices, _universe

DATA = Path(__file__).parent / "data"
DEFAULT = matrix.default()
KITCHEN = matrix.load(DATA / "valid" / "kitchen_sink.toml")
SINK = str(DATA / "valid" / "kitchen_sink.toml")
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def report(m, config, **kwargs):
    """The report of *config*, resolved or refused (a refusal's resolution reports too)."""
    try:
        resolution = m.resolve(config, **kwargs)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    data = resolution.report()
    VALIDATOR.validate(data)
    return data


def rule(role, id, name, runner, predicate, because, line, *, kind="feature", holds=True, file="features.toml",
         place=None, column=1, **more):
    return {"role": role, "kind": kind, "id": id, "name": name, "runner": runner, "predicate": predicate,
            "holds": holds, "because": because, "file": file, "line": line, "column": column,
            "place": place or f"$.features.{id}.when", **more}


def remedies(runner, text, options, *, asked=False, size=1):
    return {"runner": runner, "asked": asked, "served": False, "options": options, "more": 0, "size": size,
            "exhausted": False, "gave_up": None, "inexact": [], "text": text}


def option(runner, *changes):
    return {"runner": runner, "changes": [{"path": p, "action": a, "values": v, "text": t} for p, a, v, t in changes],
            "conditions": [], "text": "; ".join(t for _, _, _, t in changes)}


def when(id, table="features", m=None):
    """The line of the ``when`` of ``[<table>.<id>]`` in the features.toml of *m* (the default
    matrix unless given)."""
    lines = (m or DEFAULT).text.splitlines()
    start = lines.index(f"[{table}.{id}]")
    return next(n + 1 for n in range(start, len(lines)) if lines[n].startswith("when = "))


V2 = {"runner": "v2", "name": "Model Runner V2", "settings": {}}
V1 = {"runner": "v1", "name": "Model Runner V1", "settings": {}}
NONE = {"runner": None, "name": None, "settings": {}}


def test_a_config_the_top_runner_serves_as_given_is_run_with_nothing_to_say():
    assert report(DEFAULT, {}) == {
        "matrix": "vLLM model runners", "version": "0.33.0", "requested": None, "supported": True,
        "effective": V2, "action": "run", "actions": ["run"], "why": [], "remedy": [], "warnings": []}


def test_a_fallback_names_the_blocker_of_the_runner_passed_over_with_its_line_and_the_remedy():
    data = report(DEFAULT, {"cache_config": {"mamba_cache_mode": "all"}}, version="0.31.0")
    mamba = ("mamba_cache_all", "mamba cache mode 'all'")
    assert {k: data[k] for k in ("version", "supported", "effective", "action", "actions", "why", "remedy")} == {
        "version": "0.31.0", "supported": True, "effective": V1, "action": "fall-back", "actions": ["fall-back"],
        "why": [
            rule("blocks", *mamba, "v2", "cache_config.mamba_cache_mode == 'all'",
                 {"cache_config.mamba_cache_mode": "all"}, when("mamba_cache_all")),
            rule("warns", *mamba, None, "cache_config.mamba_cache_mode == 'all'",
                 {"cache_config.mamba_cache_mode": "all"}, when("mamba_cache_all")),
        ],
        "remedy": [remedies("v2", "To use Model Runner V2, change: set cache_config.mamba_cache_mode to one of "
                                  "'none', 'align'",
                            [option("v2", ("cache_config.mamba_cache_mode", "set", ["none", "align"],
                                           "set cache_config.mamba_cache_mode to one of 'none', 'align'"))])],
    }
    assert [w["kind"] for w in data["warnings"]] == ["deprecated", "fallback"]
    # The line is the feature's `when` in features.toml.
    assert DEFAULT.text.splitlines()[data["why"][0]["line"] - 1] == "when = \"cache_config.mamba_cache_mode == 'all'\""


def test_a_runner_asked_for_and_refused_is_unsupported_with_its_blocker_and_the_remedy():
    data = report(DEFAULT, {"speculative_config": {"method": "suffix"}}, runner="v2")
    text = ("unset speculative_config; or set speculative_config.method to one of 'ngram', 'ngram_gpu', "
            "'draft_model', 'eagle', 'eagle3', 'extract_hidden_states', 'mtp', 'dflash', 'dspark'")
    assert {k: data[k] for k in ("requested", "supported", "effective", "action", "actions", "why", "warnings")} == {
        "requested": "v2", "supported": False, "effective": NONE, "action": "refuse", "actions": ["refuse"],
        "why": [rule("blocks", "spec_suffix", "speculative method 'suffix'", "v2",
                     "speculative_config.method == 'suffix'", {"speculative_config.method": "suffix"},
                     when("spec_suffix"))],
        "warnings": []}
    assert [(r["runner"], r["asked"], r["text"]) for r in data["remedy"]] == [
        ("v2", True, f"To use Model Runner V2, change: {text}")]


def test_a_removed_feature_refuses_and_is_the_only_rule():
    data = report(DEFAULT, {"cache_config": {"mamba_cache_mode": "all"}}, version="0.32.0")
    assert (data["supported"], data["actions"], data["why"]) == (False, ["refuse"], [
        rule("removed", "mamba_cache_all", "mamba cache mode 'all'", None, "cache_config.mamba_cache_mode == 'all'",
             {"cache_config.mamba_cache_mode": "all"}, when("mamba_cache_all"))])


def test_no_runner_falls_back_then_refuses_with_a_remedy_for_each_runner():
    config = {"cache_config": {"mamba_cache_mode": "all"}, "parallel_config": {"prefill_context_parallel_size": 2}}
    data = report(DEFAULT, config, version="0.31.0")
    assert (data["supported"], data["effective"], data["action"], data["actions"]) == (
        False, NONE, "refuse", ["refuse", "fall-back"])
    assert [(r["role"], r["id"], r["runner"], r["line"]) for r in data["why"]] == [
        ("blocks", "mamba_cache_all", "v2", when("mamba_cache_all")),
        ("blocks", "prefill_context_parallel", "v1", when("prefill_context_parallel")),
        ("warns", "mamba_cache_all", None, when("mamba_cache_all"))]
    assert [r["text"] for r in data["remedy"]] == [
        "To use Model Runner V2, change: set cache_config.mamba_cache_mode to one of 'none', 'align'",
        "To use Model Runner V1, change: set parallel_config.prefill_context_parallel_size to 1"]


def test_an_adjustment_is_the_action_with_the_setting_and_the_values_it_found():
    data = report(DEFAULT, {"compilation_config": {"mode": "STOCK_TORCH_COMPILE"}}, version="0.32.0")
    message = ("CUDA graphs are not supported with stock torch.compile in Model Runner V2. "
               "Overriding cudagraph_mode FULL_AND_PIECEWISE to NONE.")
    assert data == {
        "matrix": "vLLM model runners", "version": "0.32.0", "requested": None, "supported": True,
        "effective": {"runner": "v2", "name": "Model Runner V2", "settings": {"compilation_config.cudagraph_mode": "NONE"}},
        "action": "adjust", "actions": ["adjust"],
        "why": [rule("adjusts", "stock_compile_cudagraphs", "CUDA graphs off under stock torch.compile", "v2",
                     "compilation_config.mode == 'STOCK_TORCH_COMPILE' and compilation_config.cudagraph_mode != 'NONE'",
                     {"compilation_config.cudagraph_mode": "FULL_AND_PIECEWISE",
                      "compilation_config.mode": "STOCK_TORCH_COMPILE"}, when("stock_compile_cudagraphs", "adjustments"),
                     kind="adjustment",
                     place="$.adjustments.stock_compile_cudagraphs.when",
                     sets={"compilation_config.cudagraph_mode": "NONE"})],
        "remedy": [],
        "warnings": [{"kind": "adjusted", "feature": "stock_compile_cudagraphs", "runner": "v2", "message": message,
                      "level": "info"}],
    }


def test_adjustments_before_the_choice_and_of_the_runner_each_read_the_config_they_found():
    config = {"model_config": {"is_hybrid": True, "max_model_len": 8192},
              "cache_config": {"enable_prefix_caching": True},
              "speculative_config": {"method": "eagle", "draft_model_config": {"max_model_len": 4096}}}
    data = report(DEFAULT, config)
    assert (data["effective"], data["actions"]) == (
        {"runner": "v2", "name": "Model Runner V2",
         "settings": {"cache_config.mamba_cache_mode": "align", "model_config.max_model_len": 4096}}, ["adjust"])
    assert [(r["id"], r["runner"], r["because"], r["sets"], r["line"]) for r in data["why"]] == [
        ("mamba_cache_align", None, {"cache_config.enable_prefix_caching": True, "cache_config.mamba_cache_mode": "none",
                                     "model_config.is_hybrid": True}, {"cache_config.mamba_cache_mode": "align"},
         when("mamba_cache_align", "adjustments")),
        ("draft_max_model_len", "v2", {"model_config.max_model_len": 8192,
                                       "speculative_config.draft_model_config.max_model_len": 4096},
         {"model_config.max_model_len": 4096}, when("draft_max_model_len", "adjustments"))]


def test_a_pickled_resolution_reports_the_same():
    import pickle

    config = {"model_config": {"is_hybrid": True, "max_model_len": 8192},
              "cache_config": {"enable_prefix_caching": True},
              "speculative_config": {"method": "eagle", "draft_model_config": {"max_model_len": 4096}}}
    resolution = DEFAULT.resolve(config)
    assert pickle.loads(pickle.dumps(resolution)).report() == resolution.report()


def test_a_forced_runner_over_the_request_is_a_redirect_and_not_supported():
    data = report(DEFAULT, {"watermark_config": {}}, runner="v1")
    assert (data["supported"], data["effective"], data["action"], data["why"]) == (False, V2, "redirect", [
        rule("overrides", "watermarking", "watermarking", "v2", "watermark_config is not None",
             {"watermark_config": "<section>"}, when("watermarking"))])
    assert [r["text"] for r in data["remedy"]] == ["To use Model Runner V1, change: unset watermark_config"]


def test_a_preference_that_chose_the_runner_is_why_and_one_passed_over_is_a_fallback():
    config = {"platform": {"is_rocm": True}, "model_config": {"architectures": ["DeepseekV32ForCausalLM"]}}
    predicate = ("platform.is_rocm and ('DeepseekV32ForCausalLM' in model_config.architectures or "
                 "'DeepseekV4ForCausalLM' in model_config.architectures or "
                 "'GlmMoeDsaForCausalLM' in model_config.architectures)")
    prefers = rule("prefers", "rocm_v1_default_when_free", "ROCm V1 default for DeepSeek V3.2 / V4 and GLM-MoE-DSA",
                   "v1", predicate, {"model_config.architectures": ["DeepseekV32ForCausalLM"], "platform.is_rocm": True},
                   when("rocm_v1_default_when_free"))
    data = report(DEFAULT, config, version="0.31.0")
    assert (data["supported"], data["effective"], data["actions"], data["why"]) == (True, V1, ["run"], [prefers])
    config["parallel_config"] = {"prefill_context_parallel_size": 2}
    data = report(DEFAULT, config, version="0.31.0")
    assert (data["effective"], data["actions"], data["why"]) == (V2, ["fall-back"], [
        prefers, rule("blocks", "prefill_context_parallel", "prefill context parallel", "v1",
                      "parallel_config.prefill_context_parallel_size > 1",
                      {"parallel_config.prefill_context_parallel_size": 2}, when("prefill_context_parallel"))])


def test_an_outright_preference_whose_runner_is_blocked_refuses_without_falling_back():
    """vLLM 0.30.0 says it defaults to V1 on ROCm for these models, then raises V1's error: a
    preference said, no runner passed over."""
    config = {"platform": {"is_rocm": True}, "model_config": {"architectures": ["DeepseekV32ForCausalLM"]},
              "parallel_config": {"prefill_context_parallel_size": 2}}
    data = report(DEFAULT, config, version="0.30.0")
    assert [(w["kind"], w["runner"]) for w in data["warnings"]] == [("preference", "v1")]
    assert (data["supported"], data["actions"], [(r["role"], r["id"], r["runner"]) for r in data["why"]]) == (
        False, ["refuse"], [("prefers", "rocm_v1_default", "v1"), ("blocks", "prefill_context_parallel", "v1")])


def test_the_kitchen_sink_falls_back_warns_and_refuses_with_lines_in_its_own_file():
    legacy = rule("blocks", "legacy", "legacy mode", "v2", "mode == 'legacy'", {"mode": "legacy"}, when("legacy", m=KITCHEN), file=SINK)
    data = report(KITCHEN, {"mode": "legacy", "workers": 9, "debug": False})
    assert (data["effective"], data["actions"], data["why"]) == (V1, ["fall-back"], [
        legacy, dict(legacy, role="warns", runner=None),
        rule("warns", "many_workers", "many workers", "v1", "workers > 8", {"workers": 9}, when("many_workers", m=KITCHEN), file=SINK)])
    assert [w["kind"] for w in data["warnings"]] == ["deprecated", "fallback", "partial"]
    data = report(KITCHEN, {"spec": {"method": "ngram"}, "debug": False}, runner="v2")
    assert (data["supported"], data["actions"], data["why"], data["remedy"]) == (False, ["refuse"], [
        rule("blocks", "ngram", "n-gram drafts", "v2", "spec.method == 'ngram'", {"spec.method": "ngram"}, when("ngram", m=KITCHEN),
             file=SINK)], [remedies("v2", "To use Model Runner V2, change: unset spec; or set spec.method to 'eagle'", [
                 option("v2", ("spec", "unset", [None], "unset spec")),
                 option("v2", ("spec.method", "set", ["eagle"], "set spec.method to 'eagle'"))], asked=True)])
    data = report(KITCHEN, {"spec": {"method": "eagle"}, "debug": False}, runner="v2")
    assert (data["supported"], data["actions"], data["why"]) == (True, ["run"], [
        rule("warns", "eagle", "EAGLE drafts", "v2", "spec.method == 'eagle'", {"spec.method": "eagle"}, when("eagle", m=KITCHEN),
             file=SINK)])


ATTENTION = Path(__file__).parents[1] / "examples" / "vllm-attention"


def test_the_attention_example_says_runners_not_candidates_and_failed_requirement_clauses_in_their_files():
    m = matrix.load(ATTENTION / "features.toml")
    facts = {"fa": {"version": 3, "layer_version": 3, "fp8_ok": False, "fp8_kv_ok": False, "kernel_block_size": 16},
             "flashinfer": {"trtllm": True, "use_trtllm_attention": None}}
    config = {"selector": {"head_size": 128, "dtype": "bfloat16", "has_sink": True}, "device": {"capability": "8.0"},
              **facts}
    data = report(m, config)
    runners = str(ATTENTION / "runners")
    assert (data["effective"], data["actions"]) == ({"runner": "TRITON_ATTN", "name": "Triton", "settings": {}},
                                                    ["fall-back"])
    assert data["why"] == [
        rule("not-a-candidate", "TRITON_FLASH_ATTN:candidate", "Triton + FlashAttention is a candidate",
             "TRITON_FLASH_ATTN", "device.capability >= '9.0' and device.capability < '10.0' and selector.use_mm_prefix",
             {"device.capability": "8.0", "selector.use_mm_prefix": False}, 5, kind="candidate", holds=False,
             file=f"{runners}/TRITON_FLASH_ATTN.toml", place="$.candidate"),
        rule("not-a-candidate", "TRITON_FLASHINFER:candidate", "Triton + FlashInfer is a candidate",
             "TRITON_FLASHINFER", "device.capability >= '10.0' and device.capability < '11.0' and not "
             "selector.use_non_causal and selector.use_mm_prefix",
             {"device.capability": "8.0", "selector.use_mm_prefix": False, "selector.use_non_causal": False}, 5,
             kind="candidate", holds=False, file=f"{runners}/TRITON_FLASHINFER.toml", place="$.candidate"),
        rule("blocks", "FLASH_ATTN:combination:1", "sink not supported on compute capability < 9.0", "FLASH_ATTN",
             "not (selector.has_sink and device.capability < '9.0')", {"device.capability": "8.0",
                                                                       "selector.has_sink": True}, 20,
             kind="requirement", holds=False, file=f"{runners}/FLASH_ATTN.toml", place="$.requires.combination[0]",
             column=3),
        rule("blocks", "FLASHINFER:sinks", "attention sinks not supported", "FLASHINFER",
             "not selector.has_sink or flashinfer.use_trtllm_attention != False and flashinfer.trtllm and "
             "(device.capability == '9.0' or device.capability >= '10.0' and device.capability < '11.0' or "
             "device.capability >= '12.0' and device.capability < '13.0')",
             {"device.capability": "8.0", "flashinfer.trtllm": True, "flashinfer.use_trtllm_attention": None,
              "selector.has_sink": True}, 16, kind="requirement", holds=False, file=f"{runners}/FLASHINFER.toml",
             place="$.requires.sinks"),
    ]


def test_the_order_that_applied_is_a_deciding_rule_and_its_first_runner_not_a_candidate_too():
    m = matrix.load(ATTENTION / "features.toml")
    facts = {"fa": {"version": 3, "layer_version": 3, "fp8_ok": False, "fp8_kv_ok": False, "kernel_block_size": 16},
             "flashinfer": {"trtllm": True, "use_trtllm_attention": None}}
    config = {"selector": {"head_size": 128, "dtype": "bfloat16"}, "device": {"capability": "10.0"}, **facts}
    data = report(m, config)
    assert (data["effective"]["runner"], data["actions"]) == ("FLASHINFER", ["run"])
    assert [(r["role"], r["kind"], r["id"], r["holds"], r["because"], r["file"], r["line"], r["place"])
            for r in data["why"]] == [
        ("orders", "order", "sm100", True, {"device.capability": "10.0", "selector.use_non_causal": False},
         str(ATTENTION / "features.toml"), 68, "$.orders.sm100.when"),
        ("not-a-candidate", "candidate", "TRITON_FLASHINFER:candidate", False,
         {"device.capability": "10.0", "selector.use_mm_prefix": False, "selector.use_non_causal": False},
         str(ATTENTION / "runners" / "TRITON_FLASHINFER.toml"), 5, "$.candidate")]


def _attention(folder):
    """A small matrix in files: a request for fa3 with an fp8 KV cache goes to triton, whose own
    adjustment then sets pages triton's requirement refuses."""
    (folder / "runners").mkdir()
    (folder / "features.toml").write_text(
        '[matrix]\nname = "attention"\nversion = "1.0"\nrunners = "runners"\n\n[config]\n'
        'kv = { type = "str", choices = ["auto", "fp8_e5m2"], default = "auto" }\n'
        'head = { type = "int", default = 64 }\npage = { type = "int", default = 16 }\n\n[requirements]\n'
        'head = { name = "Head sizes", reason = "head size not supported" }\n'
        'page = { name = "Page sizes", reason = "page size not supported" }\n\n'
        '[adjustments.triton_pages]\nname = "Triton pages for fp8"\nwhen = "kv == \'fp8_e5m2\'"\n'
        'set = { page = 64 }\nrunners = ["triton"]\n')
    (folder / "runners" / "fa3.toml").write_text(
        'name = "FA3"\npriority = 2\nredirects = [{ to = "triton", when = "kv == \'fp8_e5m2\'" }]\n\n'
        '[requires]\nhead = "head <= 256"\n')
    (folder / "runners" / "triton.toml").write_text('name = "Triton"\npriority = 1\n\n[requires]\npage = "page <= 32"\n')


REDIRECT = rule("redirects", "fa3:redirect:1", "A request for FA3 redirected to Triton", "triton", "kv == 'fp8_e5m2'",
                {"kv": "fp8_e5m2"}, 3, kind="redirect", file="runners/fa3.toml", place="$.redirects[0]", column=14)
PAGES = rule("adjusts", "triton_pages", "Triton pages for fp8", "triton", "kv == 'fp8_e5m2'", {"kv": "fp8_e5m2"}, 17,
             kind="adjustment", place="$.adjustments.triton_pages.when", sets={"page": 64})
PAGE = rule("blocks", "triton:page", "page size not supported", "triton", "page <= 32", {"page": 64}, 5,
            kind="requirement", holds=False, file="runners/triton.toml", place="$.requires.page")
HEAD = rule("blocks", "fa3:head", "head size not supported", "fa3", "head <= 256", {"head": 512}, 6,
            kind="requirement", holds=False, file="runners/fa3.toml", place="$.requires.head")


def test_a_redirect_then_the_adjustment_of_the_runner_it_went_to_are_said_in_order(tmp_path, monkeypatch):
    _attention(tmp_path)
    monkeypatch.chdir(tmp_path)
    m = matrix.load("features.toml")
    data = report(m, {"kv": "fp8_e5m2"}, runner="fa3")
    assert {k: data[k] for k in ("requested", "supported", "effective", "action", "actions", "why")} == {
        "requested": "fa3", "supported": False, "effective": {"runner": None, "name": None, "settings": {"page": 64}},
        "action": "refuse", "actions": ["refuse", "redirect", "adjust"], "why": [REDIRECT, PAGES, PAGE]}
    assert [r["text"] for r in data["remedy"]] == ["To use FA3, change: set kv to 'auto'"]
    data = report(m, {"head": 512})
    assert (data["supported"], data["effective"], data["actions"], data["why"]) == (
        True, {"runner": "triton", "name": "Triton", "settings": {}}, ["fall-back"], [HEAD])
    # Automatic choice takes triton, free on the config of choice, and its adjustment blocks it.
    data = report(m, {"head": 512, "kv": "fp8_e5m2"})
    assert (data["supported"], data["effective"]["runner"], data["actions"], data["why"]) == (
        False, None, ["refuse", "fall-back", "adjust"], [HEAD, PAGES, PAGE])


def test_a_runner_file_line_is_left_out_where_the_files_are_not_read_by_the_names_loaded(tmp_path, monkeypatch):
    _attention(tmp_path)
    monkeypatch.chdir(tmp_path)
    m = matrix.load("features.toml")
    monkeypatch.chdir(tmp_path / "runners")  # "runners/fa3.toml" no longer names the file loaded
    data = report(m, {"kv": "fp8_e5m2"}, runner="fa3")
    assert data["why"] == [dict(REDIRECT, line=None, column=None), PAGES, dict(PAGE, line=None, column=None)]
    given = matrix.loads((tmp_path / "features.toml").read_text(), runners={
        id: (tmp_path / "runners" / f"{id}.toml").read_text() for id in ("fa3", "triton")})
    assert report(given, {"head": 512})["why"] == [dict(HEAD, line=None, column=None)]


def test_a_request_by_a_former_id_is_supported_when_its_runner_serves(tmp_path):
    m = matrix.loads('[matrix]\nname = "r"\nversion = "1.0"\n[config]\nx = "bool"\n', runners={
        "new": {"name": "New", "priority": 2, "aliases": [{"id": "old", "since": "0.5", "remove_in": "2.0"}]},
        "other": {"name": "Other", "priority": 1}})
    data = report(m, {"x": True}, runner="old")
    assert (data["requested"], data["supported"], data["effective"]["runner"], data["actions"], data["why"]) == (
        "old", True, "new", ["run"], [])
    assert [w["kind"] for w in data["warnings"]] == ["deprecated-alias"]


def test_the_schema_is_valid_and_its_closed_sets_are_the_engines():
    from matrix._choice import WARNING_KINDS
    from matrix._remedy import CHANGE_ACTIONS

    schema = json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["action"]["enum"] == list(ACTIONS) == ["refuse", "redirect", "fall-back", "adjust",
                                                                        "run"]
    assert schema["$defs"]["rule"]["properties"]["role"]["enum"] == list(ROLES)
    assert schema["$defs"]["warning"]["properties"]["kind"]["enum"] == list(WARNING_KINDS)
    assert schema["$defs"]["change"]["properties"]["action"]["enum"] == list(CHANGE_ACTIONS)
    assert sorted(schema["required"]) == sorted(report(DEFAULT, {}))
    import typing

    assert typing.get_args(matrix.ResolutionAction) == ACTIONS


def _checked(resolution, data):
    VALIDATOR.validate(data)
    assert data["action"] == data["actions"][0]
    assert data["effective"]["runner"] == resolution.runner
    assert ("refuse" in data["actions"]) is (resolution.runner is None)
    assert ("adjust" in data["actions"]) is bool(resolution.adjustments)
    # Automatic choice is supported wherever a runner serves (a redirect that applies always
    # included); a request where the runner asked for serves it, neither redirected nor overridden.
    assert data["supported"] is (resolution.runner is not None and (resolution.requested is None or (
        data["actions"][0] in ("run", "adjust", "fall-back") and "fall-back" not in data["actions"])))
    # The redirect that sent a request or automatic choice elsewhere is a deciding rule (unless a
    # removed feature refused the config first).
    if not any(r["role"] == "removed" for r in data["why"]):
        assert any(r["role"] == "redirects" for r in data["why"]) is (resolution.redirect is not None), data["why"]
    for found in data["why"]:
        if found["file"] == resolution.matrix.file and resolution.matrix.text is not None:
            assert found["line"] is not None, found


@settings(max_examples=10, deadline=None)
@given(configs(DEFAULT), st.sampled_from(["0.30.0", "0.31.0", "0.32.0", "0.33.0"]),
       st.sampled_from([None, "v1", "v2"]))
def test_the_report_of_any_default_matrix_config_fits_the_schema(config, version, runner):
    try:
        resolution = DEFAULT.resolve(config, version=version, runner=runner)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    _checked(resolution, resolution.report())


@settings(max_examples=50)
@given(st.data())
def test_the_report_of_any_config_of_a_random_matrix_fits_the_schema(data):
    m = data.draw(matrices(max_features=4))
    config = data.draw(configs(m))
    runner = data.draw(st.sampled_from([None, *(r.id for r in m.runners)]))
    try:
        resolution = m.resolve(config, runner=runner)
    except matrix.ResolutionError as error:
        resolution = error.resolution
    _checked(resolution, resolution.report(remedies=False))


@settings(deadline=None)
@given(st.booleans().flatmap(lambda adjusting: _small_matrices(adjustments=adjusting)))
def test_the_report_fits_the_schema_on_matrices_with_every_construct_of_choice(case):
    """Forces, preferences, orders, candidacy, requirement chains, removals, former ids and
    redirects, or adjustments (`test_check`'s matrices): every request, over a small config space."""
    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return  # an ill-typed combination of atoms (see test_check)
    asks = [None, *(r.id for r in m.runners), *(a.id for r in m.runners for a in r.aliases)]
    for config in itertools.islice(_universe(m, names), 12):
        for ask in asks:
            try:
                resolution = m.resolve(config, runner=ask)
            except matrix.UsageError:  # a former id removed at the version
                continue
            except matrix.ResolutionError as error:
                resolution = error.resolution
            _checked(resolution, resolution.report(remedies=False))


def test_resolving_imports_nothing_of_the_report():
    code = ("import sys, matrix; matrix.resolve({'cache_config': {'mamba_cache_mode': 'all'}}, version='0.31.0'); "
            "print('matrix._report' in sys.modules)")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout == "False\n"


def call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = cli.run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_resolve_json_holds_the_report():
    args = ("resolve", "--json", "--version", "0.32.0", "--set", "compilation_config.mode=STOCK_TORCH_COMPILE")
    status, out, err = call(*args)
    assert (status, err) == (0, "")
    data = json.loads(out)
    resolution = DEFAULT.resolve({"compilation_config": {"mode": "STOCK_TORCH_COMPILE"}}, version="0.32.0")
    assert data["report"] == resolution.report()
    assert {k: v for k, v in data.items() if k != "report"} == resolution.to_dict()
    assert (data["report"]["action"], data["report"]["effective"]["settings"]) == (
        "adjust", {"compilation_config.cudagraph_mode": "NONE"})


def test_resolve_json_on_a_refusal_holds_the_report_with_the_errors_remedy():
    status, out, err = call("resolve", "--json", "--runner", "v2", "--set", "speculative_config.method=suffix")
    assert (status, err) == (1, "")
    data = json.loads(out)
    assert data["report"]["remedy"] == data["error"]["remedies"]
    assert (data["report"]["supported"], data["report"]["actions"], [r["id"] for r in data["report"]["why"]]) == (
        False, ["refuse"], ["spec_suffix"])
    with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
        DEFAULT.resolve({"speculative_config": {"method": "suffix"}}, runner="v2")
    assert data["report"] == excinfo.value.resolution.report()


_EXAMPLE = re.compile(r"^```sh\n(?P<command>matrix [^\n]*)\n```\n\n(?:[^`\n][^\n]*\n\n)?```json\n(?P<json>.*?)\n```$",
                      re.S | re.M)
REFERENCE = Path(__file__).parents[1] / "docs" / "reference" / "report.md"


def test_the_reports_the_reference_page_shows_are_what_the_commands_print(monkeypatch):
    """The page's examples are real output (MATRIX_UPDATE_GOLDEN=1 writes them anew, as the golden
    files: the lines they cite move when features.toml does)."""
    import os
    import shlex

    monkeypatch.chdir(Path(__file__).parents[1])
    text = REFERENCE.read_text()
    found = list(_EXAMPLE.finditer(text))
    assert len(found) == 3
    fresh = text
    for example in found:
        status, out, _ = call(*shlex.split(example.group("command"))[1:])
        printed = json.dumps(json.loads(out)["report"], indent=2, ensure_ascii=False)
        fresh = fresh.replace(example.group(0), example.group(0).replace(example.group("json"), printed))
    if os.environ.get("MATRIX_UPDATE_GOLDEN") == "1":
        REFERENCE.write_text(fresh)
    assert text == fresh


_ROLES_REPORT = '''[matrix]
name = "roles report"
version = "1.0"
stages = ["choice", "cast"]

[config]
dtype = { type = "str", choices = ["fp32", "bf16"], default = "fp32" }
device = { type = "str", choices = ["gpu", "cpu"], default = "gpu" }
backend = { type = "str", nullable = true, choices = ["a", "b"] }
inter = { type = "str", nullable = true, choices = ["a", "b"] }

[roles.intra]
name = "Intra"
field = "backend"

[roles.inter]
name = "Inter"
field = "inter"
follows = "intra"

[requirements]
device = { name = "Device", reason = "cannot run on a {device} device" }

[adjustments.b_fp32]
name = "b reduces in fp32"
stage = "cast"
when = "dtype == 'bf16' and (role.intra == 'b' or role.inter == 'b')"
set = { dtype = "fp32" }
message = "b has no {dtype} reductions"
'''
_ROLES_REPORT_RUNNERS = {"a": {"name": "A", "priority": 2, "requires": {"device": "device == 'gpu'"}},
                         "b": {"name": "B", "priority": 1}}


def test_an_adjustment_that_reads_roles_says_the_runners_that_filled_them_and_a_requirement_its_reason_filled():
    """A user trial: the report said None for each role an adjustment read (its ``because``), and
    a failed requirement by its unfilled reason, where explain() fills it."""
    m = matrix.loads(_ROLES_REPORT, runners=_ROLES_REPORT_RUNNERS)
    line = _ROLES_REPORT.splitlines().index("[adjustments.b_fp32]") + 4  # its when, counted from 1
    predicate = "dtype == 'bf16' and (role.intra == 'b' or role.inter == 'b')"
    for config, roles in (({"dtype": "bf16", "inter": "b"}, {"role.inter": "b", "role.intra": "a"}),
                          ({"dtype": "bf16", "backend": "b"}, {"role.inter": "b", "role.intra": "b"})):
        assert report(m, config)["why"] == [
            rule("adjusts", "b_fp32", "b reduces in fp32", roles["role.intra"], predicate, {"dtype": "bf16", **roles},
                 line, kind="adjustment", file="<string>", place="$.adjustments.b_fp32.when", sets={"dtype": "fp32"})]
    with pytest.raises(matrix.UnsupportedFeatureError) as refused:
        m.resolve({"device": "cpu"}, runner="a")
    said = refused.value.resolution.explain().splitlines()
    assert said[3] == "    - cannot run on a cpu device (requirement 'device')"
    assert report(m, {"device": "cpu"}, runner="a")["why"] == [
        rule("blocks", "a:device", "cannot run on a cpu device", "a", "device == 'gpu'", {"device": "cpu"}, None,
             kind="requirement", holds=False, file=None, place="$.requires.device", column=None)]
