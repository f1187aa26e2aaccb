import io
import os
import re
import sys
import json
import textwrap

import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix.cli import run


def call(*args, stdin=""):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _away_from_the_repository(tmp_path, monkeypatch):
    # The matrix is found from the current folder: run in one whose pyproject.toml names the
    # packaged matrix, as a project that uses it would.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.matrix]\nmatrix = "default"\n')


DEPRECATION = (
    "mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; "
    "use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)"
)


def test_resolve_mamba_all_chooses_v1_and_says_why():
    status, out, err = call("resolve", "--version", "0.31.0", "--set", "cache_config.mamba_cache_mode=all")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v1 (Model Runner V1) automatically at version 0.31.0\n"
        "Skipped v2 (Model Runner V2) because of: mamba cache mode 'all'\n"
        f"Warning (deprecated): {DEPRECATION}\n"
        "Warning (fallback): Model Runner V2 does not yet support mamba cache mode 'all'; using the V1 model runner instead.\n"
    )


def test_resolve_explain_prints_the_explanation_with_each_warning_once():
    status, out, err = call("resolve", "--version", "0.31.0", "--set", "cache_config.mamba_cache_mode=all", "--explain")
    assert (status, err) == (0, "")
    assert out == (
        "Runner: v1 (Model Runner V1), chosen automatically, at version 0.31.0\n"
        "Runners, highest priority first:\n"
        "  v2 (Model Runner V2, priority 20): blocked by 1 feature\n"
        "    - mamba cache mode 'all' [no]\n"
        "        when: cache_config.mamba_cache_mode == 'all'\n"
        "        because: cache_config.mamba_cache_mode = 'all'\n"
        "  v1 (Model Runner V1, priority 10): no blockers, chosen\n"
        "Active features: mamba cache mode 'all'\n"
        "Warnings:\n"
        f"  - deprecated: {DEPRECATION}\n"
        "  - fallback: Model Runner V2 does not yet support mamba cache mode 'all'; using the V1 model runner instead.\n"
        "Remedies:\n"
        "  - To use Model Runner V2, change: set cache_config.mamba_cache_mode to one of 'none', 'align'\n"
    )


def test_resolve_asking_for_v2_exits_1():
    status, out, err = call("resolve", "--version", "0.31.0", "--set", "cache_config.mamba_cache_mode=all", "--runner", "v2")
    # What was said on the way comes first, on stdout, as on success.
    assert (status, out) == (1, (
        "Warning (deprecated): mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; "
        "use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)\n"))
    assert err == ("matrix: Model Runner V2 does not yet support: mamba cache mode 'all'\n"
                   "To use Model Runner V2, change: set cache_config.mamba_cache_mode to one of 'none', 'align'\n")


def test_resolve_at_the_removal_version_exits_1():
    status, out, err = call("resolve", "--set", "cache_config.mamba_cache_mode=all", "--version", "0.32.0")
    assert (status, out) == (1, "")
    assert err == (
        "matrix: mamba cache mode 'all' was removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' "
        "instead (Open an issue if that is a problem)\n"
    )


def test_resolve_of_a_removed_setting_at_the_matrix_version_exits_1_with_the_replacement():
    status, out, err = call("resolve", "--set", "cache_config.mamba_cache_mode=all")
    assert (status, out) == (1, "")
    assert err == (
        "matrix: mamba cache mode 'all' was removed in 0.32.0; use cache_config.mamba_cache_mode = 'align' "
        "instead (Open an issue if that is a problem)\n"
    )


def test_resolve_watermarking_with_v1_asked_for_runs_on_v2_and_says_the_request_was_overridden():
    status, out, err = call("resolve", "--set", "watermark_config={}", "--runner", "v1")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v2 (Model Runner V2) over the v1 asked for, at version 0.33.0\n"
        "Also blocked v1 (Model Runner V1) because of: watermarking\n"
        "Warning (override): Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0.\n"
    )


def test_resolve_with_no_runner_says_the_fallback_then_the_v1_error_as_vllm_does():
    status, out, err = call("resolve", "--version", "0.31.0", "--set", "cache_config.mamba_cache_mode=all",
                            "--set", "model_config.is_diffusion=true")
    assert (status, out) == (1, (
        "Warning (deprecated): mamba cache mode 'all' is deprecated since 0.30.0 and will be removed in 0.32.0; "
        "use cache_config.mamba_cache_mode = 'align' instead (Open an issue if that is a problem)\n"
        "Warning (fallback): Model Runner V2 does not yet support mamba cache mode 'all'; "
        "using the V1 model runner instead.\n"))
    assert err == ("matrix: Model Runner V1 does not support: diffusion models\n"
                   "To use Model Runner V2, change: set cache_config.mamba_cache_mode to one of 'none', 'align'\n"
                   "To use Model Runner V1, change: unset model_config; or set model_config.is_diffusion to False\n")


def test_resolve_explain_on_a_finding_prints_the_explanation():
    status, out, err = call("resolve", "--set", "model_config.is_diffusion=true", "--runner", "v1", "--explain")
    assert status == 1
    assert err == ("matrix: Model Runner V1 does not support: diffusion models\n"
                   "To use Model Runner V1, change: unset model_config; or set model_config.is_diffusion to False\n")
    assert out == (
        "Runner: none (asked for 'v1'), at version 0.33.0\n"
        "Runners, highest priority first:\n"
        "  v2 (Model Runner V2, priority 20): no blockers\n"
        "  v1 (Model Runner V1, priority 10): blocked by 1 feature\n"
        "    - diffusion models [no]\n"
        "        when: model_config.is_diffusion\n"
        "        because: model_config.is_diffusion = True\n"
        "Active features: diffusion models\n"
        "Remedies:\n"
        "  - To use Model Runner V1, change: unset model_config; or set model_config.is_diffusion to False\n"
    )


SUFFIX_REMEDY = ("To use Model Runner V2, change: unset speculative_config; or set speculative_config.method to one "
                 "of 'ngram', 'ngram_gpu', 'draft_model', 'eagle', 'eagle3', 'extract_hidden_states', 'mtp', "
                 "'dflash', 'dspark'")


def test_resolve_how_prints_the_remedy_for_the_runner_after_the_summary():
    status, out, err = call("resolve", "--set", "speculative_config.method=suffix", "--how", "v2")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v1 (Model Runner V1) automatically at version 0.33.0\n"
        "Skipped v2 (Model Runner V2) because of: speculative method 'suffix'\n"
        "Warning (fallback): Model Runner V2 does not yet support speculative method 'suffix'; using the V1 model runner instead.\n"
        f"How: {SUFFIX_REMEDY}\n"
    )
    assert call("resolve", "--how", "v2") == (0, "Chose v2 (Model Runner V2) automatically at version 0.33.0\n"
                                                 "How: Model Runner V2 serves this config as it is\n", "")


def test_resolve_asking_for_a_runner_that_refuses_fails_with_the_remedy_in_the_message():
    status, out, err = call("resolve", "--set", "speculative_config.method=suffix", "--runner", "v2", "--how", "v2")
    assert status == 1
    assert err == f"matrix: Model Runner V2 does not yet support: speculative method 'suffix'\n{SUFFIX_REMEDY}\n"
    assert out == f"How: {SUFFIX_REMEDY}\n"


def test_resolve_how_json_holds_the_structured_remedy():
    status, out, err = call("resolve", "--json", "--set", "speculative_config.method=suffix", "--how", "v2")
    assert (status, err) == (0, "")
    how = json.loads(out)["how"]
    methods = ["ngram", "ngram_gpu", "draft_model", "eagle", "eagle3", "extract_hidden_states", "mtp", "dflash", "dspark"]
    assert how == {
        "runner": "v2", "asked": False, "served": False, "more": 0, "size": 1, "exhausted": False,
        "gave_up": None, "inexact": [], "text": SUFFIX_REMEDY,
        "options": [
            {"runner": "v2", "conditions": [], "text": "unset speculative_config",
             "changes": [{"path": "speculative_config", "action": "unset", "values": [None],
                          "text": "unset speculative_config"}]},
            {"runner": "v2", "conditions": [], "text": SUFFIX_REMEDY.split("change: unset speculative_config; or ")[1],
             "changes": [{"path": "speculative_config.method", "action": "set", "values": methods,
                          "text": SUFFIX_REMEDY.split("change: unset speculative_config; or ")[1]}]},
        ]}


def test_resolve_how_names_an_unknown_runner_as_bad_usage():
    assert call("resolve", "--how", "v3") == (2, "", "matrix: error: Unknown runner 'v3' (expected one of 'v1', 'v2')\n")


def test_resolve_json_from_a_file(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_config": {"is_diffusion": True}}))
    status, out, err = call("resolve", "config.json", "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    effective = data.pop("effective")
    assert data.pop("report") == matrix.default().resolve({"model_config": {"is_diffusion": True}}).report()
    assert data == {
        "matrix": "vLLM model runners", "version": "0.33.0", "requested": None, "runner": "v2",
        "redirected": None, "active": [{"id": "diffusion", "name": "diffusion models"}],
        "unsupported": {"v2": [], "v1": [{"id": "diffusion", "name": "diffusion models", "status": "no"}]},
        "warnings": [], "adjustments": [],
    }
    assert effective == matrix.default().resolve({"model_config": {"is_diffusion": True}}).to_dict()["effective"]
    assert (effective["model_config.is_diffusion"], effective["model_config.is_hybrid"]) == (True, False)


def test_resolve_json_on_a_finding_carries_the_error():
    status, out, err = call("resolve", "--json", "--runner", "v2", "--version", "0.31.0",
                            "--set", "parallel_config.enable_elastic_ep=true")
    assert (status, err) == (1, "")
    data = json.loads(out)
    reason = "Model Runner V2 does not yet support: elastic expert parallelism"
    remedy = "To use Model Runner V2, change: set parallel_config.enable_elastic_ep to False"
    change = {"path": "parallel_config.enable_elastic_ep", "action": "set", "values": [False],
              "text": "set parallel_config.enable_elastic_ep to False"}
    assert data["error"] == {
        "kind": "UnsupportedFeatureError", "message": f"{reason}\n{remedy}", "reason": reason, "raises": None,
        "remedies": [{"runner": "v2", "asked": True, "served": False, "more": 0, "size": 1, "exhausted": False,
                      "gave_up": None, "inexact": [], "text": remedy,
                      "options": [{"runner": "v2", "changes": [change], "conditions": [],
                                   "text": change["text"]}]}]}
    assert data["runner"] is None and data["requested"] == "v2"


def test_resolve_json_explain_holds_the_explanation():
    status, out, err = call("resolve", "--version", "0.31.0", "--json", "--explain", "--set", "cache_config.mamba_cache_mode=all",
                            "--set", "parallel_config.enable_elastic_ep=true")
    assert (status, err) == (0, "")
    data = json.loads(out)
    plain = json.loads(call("resolve", "--version", "0.31.0", "--json", "--set", "cache_config.mamba_cache_mode=all",
                            "--set", "parallel_config.enable_elastic_ep=true")[1])
    assert {k: v for k, v in data.items() if k != "explanation"} == plain
    assert data["explanation"] == {
        "runner": "v1", "requested": None, "how": "automatic", "alias_of": None, "redirected": None,
        "overridden_by": None, "preferred_by": None, "order": None, "orders": [], "version": "0.31.0",
        "runners": [
            {"id": "v2", "name": "Model Runner V2", "priority": 20, "candidate": True, "candidate_when": None,
             "chosen": False, "blockers": [
                {"id": "elastic_ep", "name": "elastic expert parallelism", "status": "no", "note": None,
                 "when": "parallel_config.enable_elastic_ep", "because": {"parallel_config.enable_elastic_ep": True}},
                {"id": "mamba_cache_all", "name": "mamba cache mode 'all'", "status": "no", "note": None,
                 "when": "cache_config.mamba_cache_mode == 'all'",
                 "because": {"cache_config.mamba_cache_mode": "all"}},
            ]},
            {"id": "v1", "name": "Model Runner V1", "priority": 10, "candidate": True, "candidate_when": None,
             "chosen": True, "blockers": []},
        ],
        "active": plain["active"], "warnings": plain["warnings"], "adjustments": [],
        "remedies": [{"runner": "v2", "asked": False, "served": False, "more": 0, "size": 2, "exhausted": False,
                      "gave_up": None, "inexact": [], "text": data["explanation"]["remedies"][0]["text"],
                      "options": data["explanation"]["remedies"][0]["options"]}],
    }
    assert data["explanation"]["remedies"][0]["text"] == (
        "To use Model Runner V2, change: set parallel_config.enable_elastic_ep to False and set "
        "cache_config.mamba_cache_mode to one of 'none', 'align'")


def test_the_cli_page_names_every_key_of_the_explanation():
    import re
    from pathlib import Path

    import matrix

    page = (Path(__file__).parents[1] / "docs" / "reference" / "cli.md").read_text()
    described = page.split("With `--explain` it also holds `explanation`", 1)[1].split("On exit 1", 1)[0]
    data = matrix.default().resolve({"cache_config": {"mamba_cache_mode": "all"}}, version="0.31.0").explanation()
    blocker = data["runners"][0]["blockers"][0]
    keys = set(data) | set(data["runners"][0]) | set(blocker) | {"requirement"}
    assert keys - set(re.findall(r"`(\w+)`", described)) == set()


def test_resolve_json_explain_on_a_finding_holds_the_explanation_and_the_error():
    status, out, err = call("resolve", "--json", "--explain", "--runner", "v1", "--set", "model_config.is_diffusion=true")
    assert (status, err) == (1, "")
    data = json.loads(out)
    assert (data["error"]["kind"], data["error"]["reason"]) == (
        "UnsupportedFeatureError", "Model Runner V1 does not support: diffusion models")
    assert data["error"]["message"] == (
        "Model Runner V1 does not support: diffusion models\n"
        "To use Model Runner V1, change: unset model_config; or set model_config.is_diffusion to False")
    assert data["explanation"]["how"] == "requested" and data["explanation"]["runner"] is None
    assert [(r["id"], [b["id"] for b in r["blockers"]]) for r in data["explanation"]["runners"]] == [
        ("v2", []), ("v1", ["diffusion"])]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["resolve", "--json", "--set", "cache_config.mamba_cach=all"],
         {"kind": "UsageError", "message": "Cannot set 'cache_config.mamba_cach': the matrix's [config] does not "
                                           "declare it, did you mean 'cache_config.mamba_cache_mode'"}),
        (["resolve", "--json", "--bogus"], {"kind": "UsageError", "message": "unrecognized arguments: --bogus"}),
        (["check", "--format", "json", "--matrix", "nope.toml"],
         {"kind": "LoadError", "message": "nope.toml: 1 problem", "file": "nope.toml", "problems": [
             {"file": "nope.toml", "line": None, "column": None, "place": "$",
              "message": "Cannot read the file: No such file or directory", "detail": None}]}),
        (["docs", "--format=json", "--version", "soon"],
         {"kind": "UsageError", "message": "Invalid version 'soon': expected a PEP 440 version such as '0.31.0'"}),
        (["resolve", "--json", "-"],
         {"kind": "ConfigError", "message": "Config 'cache_config.mamba_cache_mode' (read by feature 'mamba_cache_all'): "
                                            "'al' is not one of 'align', 'all', 'none', did you mean 'all'",
          "path": "cache_config.mamba_cache_mode", "feature": "mamba_cache_all",
          "reason": "'al' is not one of 'align', 'all', 'none', did you mean 'all'"}),
    ],
)
def test_json_output_on_exit_2_is_an_error_object(args, error):
    status, out, err = call(*args, stdin='{"cache_config": {"mamba_cache_mode": "al"}}')
    assert status == 2
    assert json.loads(out) == {"error": error}
    assert err.startswith("matrix: error: ")


def test_json_load_errors_carry_every_problem(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 1\n')
    (tmp_path / "pyproject.toml").unlink()  # a features.toml of this folder's own
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "m"\nversion = "1.0"\n[config]\nflag = "bool"\n[features.f]\nname = "F"\nwhen = "flg"\n')
    status, out, _ = call("resolve", "--json")
    assert status == 2
    assert json.loads(out)["error"]["problems"] == [
        {"file": "features.toml", "line": 6, "column": 1, "place": "$.features.f",
         "message": "Missing required key 'support'", "detail": None},
        {"file": "features.toml", "line": 8, "column": 9, "place": "$.features.f.when",
         "message": "Unknown config path 'flg', did you mean 'flag'", "detail": "    flg\n    ^^^"},
    ]


@given(st.lists(st.sampled_from(["--set", "--runner", "--version", "--explain", "v1", "v2", "v3", "x=1",
                                 "cache_config.mamba_cache_mode=all", "cache_config.mamba_cache_mode=al",
                                 "model_config.is_diffusion=true", "0.31.0", "0.32.0", "soon", "=", "--bogus"]),
                max_size=6))
def test_json_output_always_parses_and_has_an_error_exactly_when_the_exit_is_not_0(args):
    status, out, err = call("resolve", "--json", *args)
    data = json.loads(out)
    assert ("error" in data) == (status != 0)
    assert status in (0, 1, 2)
    if status == 2:
        assert list(data) == ["error"] and data["error"]["message"] in err


def test_resolve_toml_file_and_stdin(tmp_path):
    (tmp_path / "config.toml").write_text('[speculative_config]\nmethod = "suffix"\n')
    status, out, _ = call("resolve", "config.toml")
    assert status == 0
    assert out.splitlines()[:2] == ["Chose v1 (Model Runner V1) automatically at version 0.33.0",
                                    "Skipped v2 (Model Runner V2) because of: speculative method 'suffix'"]
    status, out2, _ = call("resolve", "-", stdin='{"speculative_config": {"method": "suffix"}}')
    assert (status, out2) == (0, out)
    status, out3, _ = call("resolve", "-", stdin='[speculative_config]\nmethod = "suffix"\n')
    assert (status, out3) == (0, out)


def test_set_values_are_json_then_toml_then_text():
    status, out, _ = call("resolve", "--json", "--set", "speculative_config={}",
                          "--set", "speculative_config.method=eagle", "--set", "lora_config=null",
                          "--set", "parallel_config.pipeline_parallel_size=2",
                          "--set", "model_config.logits_processors=['a']")
    assert status == 0
    assert [f["id"] for f in json.loads(out)["active"]] == ["custom_logits_processors"]


def test_a_local_features_toml_is_the_default_matrix(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "only.toml").write_text('name = "Only"\npriority = 1\n')
    (tmp_path / "pyproject.toml").unlink()  # a features.toml of this folder's own
    (tmp_path / "features.toml").write_text('[matrix]\nname = "local"\nversion = "1"\n')
    status, out, _ = call("resolve")
    assert (status, out) == (0, "Chose only (Only) automatically at version 1\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["resolve", "--set", "cache_config.mamba_cache_mode=alll"],
         "matrix: error: Cannot set 'cache_config.mamba_cache_mode' to 'alll': 'alll' is not one of 'align', 'all', 'none', did you mean 'all'"),
        (["resolve", "--runner", "v3"], "matrix: error: Unknown runner 'v3' (expected one of 'v1', 'v2')"),
        (["resolve", "--version", "soon"], "matrix: error: Invalid version 'soon': expected a PEP 440 version such as '0.31.0'"),
        (["resolve", "--bogus"], "matrix: error: unrecognized arguments: --bogus"),
        ([], "matrix: error: the following arguments are required: COMMAND"),
        (["frobnicate"], "matrix: error: argument COMMAND: invalid choice: 'frobnicate' (choose from 'resolve', 'check', 'schema', 'docs', 'init', 'overlays', 'diff')"),
        (["resolve", "nope.json"], "matrix: error: Cannot read config 'nope.json': No such file or directory"),
        (["resolve", "--set", "novalue"], "matrix: error: --set takes PATH=VALUE, such as cache_config.mamba_cache_mode=all, not 'novalue'"),
        (["resolve", "--set", "lora_config.max_loras=2", "--set", "lora_config.max_loras.x=2"],
         "matrix: error: Cannot set 'lora_config.max_loras.x': the matrix's [config] does not declare it, did you mean 'lora_config.max_loras'"),
        (["resolve", "--set", "cache_config.mamba_cache_mod=all"],
         "matrix: error: Cannot set 'cache_config.mamba_cache_mod': the matrix's [config] does not declare it, did you mean 'cache_config.mamba_cache_mode'"),
        (["resolve", "--set", "model_config.is_hybrid=yes"],
         "matrix: error: Cannot set 'model_config.is_hybrid' to 'yes': expected true or false"),
        (["resolve", "--set", "parallel_config.tensor_parallel_size=2.0"],
         "matrix: error: Cannot set 'parallel_config.tensor_parallel_size' to '2.0': expected an integer"),
        (["resolve", "--set", "parallel_config.tensor_parallel_size=0"],
         "matrix: error: Cannot set 'parallel_config.tensor_parallel_size' to '0': 0 is less than the minimum 1"),
        (["resolve", "--set", "model_config.logits_processors=a"],
         "matrix: error: Cannot set 'model_config.logits_processors' to 'a': expected an array such as [\"a\", \"b\"]"),
        (["resolve", "--set", "lora_config=1"],
         "matrix: error: Cannot set 'lora_config' to '1': expected a table such as {}"),
        (["resolve", "--set", "model_config.is_hybrid=null"],
         "matrix: error: Cannot set 'model_config.is_hybrid' to 'null': Is None, but the schema does not declare it nullable"),
        (["resolve", "-"], "matrix: error: Config <stdin> must be a table (a JSON object), not list"),
        (["resolve", "--matrix", "missing.toml"], "matrix: error: missing.toml: 1 problem\n  missing.toml: $: Cannot read the file: No such file or directory"),
    ],
)
def test_bad_input_exits_2_with_one_clear_message(args, message):
    status, out, err = call(*args, stdin="[1, 2]")
    assert (status, out) == (2, "")
    assert err == message + "\n"


def test_bad_json_and_toml_config_files(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "bad.toml").write_text("a = ")
    assert call("resolve", "bad.json")[2] == (
        "matrix: error: Config bad.json is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n")
    assert call("resolve", "bad.toml")[2] == (
        "matrix: error: Config bad.toml is not valid TOML:\n"
        "  bad.toml:1:4: $.a: The file ends where a value is expected\n"
        "      a = \n"
        "         ^\n")
    assert call("resolve", "-", stdin='[model_config]\nis_diffusion = true\nis_diffusion = false\n')[2] == (
        "matrix: error: Config <stdin> is not valid TOML:\n"
        "  <stdin>:3:1: $.model_config.is_diffusion: Key 'is_diffusion' is set twice (first at line 2)\n"
        "      is_diffusion = false\n"
        "      ^^^^^^^^^^^^\n")


def test_help_goes_to_stdout():
    status, out, err = call("resolve", "--help")
    assert (status, err) == (0, "")
    assert out.startswith("usage: matrix resolve [-h]")


@given(st.lists(st.sampled_from(["resolve", "--set", "--runner", "--version", "--json", "--explain",
                                 "--matrix", "-", "v1", "v2", "x=1", "cache_config.mamba_cache_mode=all",
                                 "0.31.0", "=", "a.b", "--", "-h"]), max_size=6)
       | st.lists(st.text(max_size=10), max_size=4))
def test_random_arguments_never_raise(args):
    status, out, err = call(*args)
    assert status in (0, 1, 2)
    assert "Traceback" not in err


def test_human_output_lists_every_runners_blockers():
    status, out, err = call("resolve", "--set", "model_config.is_diffusion=true", "--set", "speculative_config.method=suffix",
                            "--runner", "v1", "--set", "model_config.is_diffusion=false")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v1 (Model Runner V1) as asked at version 0.33.0\n"
        "Also blocked v2 (Model Runner V2) because of: speculative method 'suffix'\n"
    )
    status, out, err = call("resolve", "--set", "model_config.is_diffusion=true")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v2 (Model Runner V2) automatically at version 0.33.0\n"
        "Also blocked v1 (Model Runner V1) because of: diffusion models\n"
    )


def test_set_reads_values_by_the_declared_type(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 1\n')
    (tmp_path / "features.toml").write_text("""
[matrix]
name = "typed"
version = "1.0"
[config]
"x.v" = { type = "version", default = "1.0" }
"x.s" = { type = "str", default = "" }
"x.f" = { type = "float", default = 0.0 }
"x.flag" = { type = "bool", default = false }
[features.new]
name = "new"
when = "x.v >= '19.03' and x.s == '007' and x.f > 1 and x.flag"
support = { a = "yes" }
""")
    matrix_file = str(tmp_path / "features.toml")
    status, out, err = call("resolve", "--matrix", matrix_file, "--json", "--set", "x.v=19.03",
                            "--set", "x.s=007", "--set", "x.f=1e3", "--set", "x.flag=True")
    assert (status, err) == (0, "")
    assert [f["id"] for f in json.loads(out)["active"]] == ["new"]
    status, out, err = call("resolve", "--matrix", matrix_file, "--set", "x.v=nineteen")
    assert (status, out, err) == (2, "", "matrix: error: Cannot set 'x.v' to 'nineteen': Invalid version "
                                         "'nineteen': expected a PEP 440 version such as '0.31.0'\n")
    status, out, err = call("resolve", "--matrix", matrix_file, "--set", 'x.s="quoted"')
    assert status == 0


def test_undeclared_keys_of_a_config_file_are_refused_with_the_whole_path(tmp_path):
    """Issue 24, item 5: a misspelt key was a warning, and the answer was the default's."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"cache_config": {"mamba_cach_mode": "all"}}))
    assert call("resolve", str(config)) == (2, "", (
        "matrix: error: Config 'cache_config.mamba_cach_mode': Not declared in the schema, did you mean "
        "'cache_config.mamba_cache_mode' (--allow-extra ignores keys the matrix does not declare)\n"))
    config.write_text(json.dumps({"cache_config": {"mamba_cach_mode": "all"}, "paralel_config": {}}))
    assert call("resolve", "config.json") == (2, "", (
        "matrix: error: Config config.json: 2 undeclared keys (--allow-extra ignores keys the matrix does not declare)\n"
        "  Config 'cache_config.mamba_cach_mode': Not declared in the schema, did you mean 'cache_config.mamba_cache_mode'\n"
        "  Config 'paralel_config': Not declared in the schema, did you mean 'parallel_config'\n"))
    # A host whose configs hold more than the matrix declares says so.
    assert call("resolve", "config.json", "--allow-extra") == (
        0, "Chose v2 (Model Runner V2) automatically at version 0.33.0\n", "")


def test_a_value_no_gate_reads_is_refused_in_every_output_format(tmp_path, data):
    """A new user's trial: a wrong type at a path no gate reads was answered in text and with
    --explain (exit 0) and refused with --json (whose effective config reads every path)."""
    sink = str(data / "valid" / "kitchen_sink.toml")
    (tmp_path / "config.json").write_text(json.dumps({"log_dir": 5, "debug": False}))
    for options in ([], ["--explain"], ["--runner", "v1"]):
        assert call("resolve", "--matrix", sink, "config.json", *options) == (
            2, "", "matrix: error: Config 'log_dir': Expected str, got int 5\n"), options
    status, out, err = call("resolve", "--matrix", sink, "config.json", "--json")
    assert (status, json.loads(out), err) == (2, {"error": {
        "kind": "ConfigError", "message": "Config 'log_dir': Expected str, got int 5", "path": "log_dir",
        "feature": None, "reason": "Expected str, got int 5"}}, "matrix: error: Config 'log_dir': Expected str, got int 5\n")


def test_a_table_given_by_set_is_held_to_the_schema_as_a_config_file_is():
    """A new user's trial: a misspelt key inside a table value of --set was answered for as the
    default."""
    assert call("resolve", "--set", 'cache_config={"mamba_cach_mode": "all"}') == (2, "", (
        "matrix: error: Config 'cache_config.mamba_cach_mode': Not declared in the schema, did you mean "
        "'cache_config.mamba_cache_mode' (--allow-extra ignores keys the matrix does not declare)\n"))


def test_a_misspelt_key_of_a_nested_section_is_refused_not_answered_for_as_its_default(tmp_path):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "polars.toml").write_text('name = "Polars"\npriority = 2\n')
    (tmp_path / "runners" / "pandas.toml").write_text('name = "pandas"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "frames"\nversion = "1.0"\n[config]\n"engine" = "section"\n'
        '"engine.memory_limit_mb" = { type = "int", default = 4096 }\n'
        '[features.small]\nname = "small memory"\nwhen = "engine.memory_limit_mb < 1024"\n'
        'support = { polars = "no", pandas = "yes" }\n')
    (tmp_path / "config.json").write_text('{"engine": {"memroy_limit_mb": 512}}')
    assert call("resolve", "config.json") == (2, "", (
        "matrix: error: Config 'engine.memroy_limit_mb': Not declared in the schema, did you mean "
        "'engine.memory_limit_mb' (--allow-extra ignores keys the matrix does not declare)\n"))
    (tmp_path / "config.json").write_text('{"engine": {"memory_limit_mb": 512}}')
    assert call("resolve", "config.json")[:2] == (0, (
        "Chose pandas automatically at version 1.0\nSkipped polars (Polars) because of: small memory\n"
        "Warning (fallback): Polars does not support: small memory; using pandas instead\n"))


def test_a_dotted_key_that_spells_a_declared_path_is_refused_for_its_dot_alone(tmp_path):
    """Issue 24, item 14: it was first warned about as "Not declared in the schema"."""
    (tmp_path / "config.json").write_text(json.dumps({"cache_config.mamba_cache_mode": "all"}))
    assert call("resolve", "config.json") == (2, "", (
        "matrix: error: Config 'cache_config.mamba_cache_mode': Key 'cache_config.mamba_cache_mode' has a dot "
        "in it: configs are nested, so write {'cache_config': {'mamba_cache_mode': ...}} instead\n"))
    # --allow-extra is not suggested (a user trial: it does not help), and refuses it alike.
    assert call("resolve", "config.json", "--allow-extra") == (2, "", (
        "matrix: error: Config 'cache_config.mamba_cache_mode': Key 'cache_config.mamba_cache_mode' has a dot "
        "in it: configs are nested, so write {'cache_config': {'mamba_cache_mode': ...}} instead\n"))


# --- schema --from and check --against ---------------------------------------------------------

def _host_folder(tmp_path, monkeypatch, module):
    import shutil

    shutil.copy(os.path.join(os.path.dirname(__file__), "hosts", "shapes.py"), tmp_path / f"{module}.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # removed again after the test, with the module
    monkeypatch.delitem(sys.modules, module, raising=False)


def test_schema_from_imports_from_the_current_folder_and_prints_a_config_table(tmp_path, monkeypatch):
    _host_folder(tmp_path, monkeypatch, "cli_shapes_a")
    status, out, err = call("schema", "--from", "cli_shapes_a:Job", "tuning.workers", "flag")
    assert (status, err) == (0, "")
    assert out == (
        "# Derived from cli_shapes_a:Job by `matrix schema --from`: edit freely; `matrix check` compares it with the class\n"
        "[config]\n"
        '"flag" = { type = "bool", default = false }\n'
        '"tuning" = { type = "section" }\n'
        '"tuning.workers" = { type = "int", min = 1, max = 64, default = 4 }\n')


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["schema", "--from", "cli_shapes_b:Jobb"], "matrix: error: cli_shapes_b has no class 'Jobb', did you mean 'Job'"),
        (["schema", "--from", "cli_nowhere:Job"],
         "matrix: error: Cannot import 'cli_nowhere': ModuleNotFoundError: No module named 'cli_nowhere'"),
        (["schema", "--from", "cli_shapes_b:Job", "tuning.worker"],
         "matrix: error: Cannot derive 'tuning.worker': Tuning has no member 'worker', did you mean 'workers'"),
        (["schema"], "matrix: error: one of the arguments --from --json-schema is required"),
        (["check", "--against", "cli_shapes_b"],
         "matrix: error: Expected 'MODULE:CLASS' (such as 'vllm.config:VllmConfig'), got 'cli_shapes_b'"),
    ],
)
def test_schema_and_against_refuse_with_one_line(tmp_path, monkeypatch, args, message):
    _host_folder(tmp_path, monkeypatch, "cli_shapes_b")
    status, out, err = call(*args)
    assert (status, out, err) == (2, "", message + "\n")


def test_a_derived_schema_checks_clean_and_a_renamed_path_fails_check(tmp_path, monkeypatch):
    _host_folder(tmp_path, monkeypatch, "cli_shapes_c")
    status, derived, _ = call("schema", "--from", "cli_shapes_c:Job", "count", "policy", "tuning")
    assert status == 0
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    gates = ("\n[features.big]\nname = \"big\"\nwhen = \"count > 10\"\nsupport = { a = \"yes\", b = \"no\" }\n"
             "\n[features.lifo]\nname = \"lifo\"\nwhen = \"policy == 'lifo'\"\nsupport = { a = \"no\", b = \"yes\" }\n")
    header = '[matrix]\nname = "jobs"\nversion = "1.0"\n'
    (tmp_path / "pyproject.toml").unlink()  # a features.toml of this folder's own
    (tmp_path / "features.toml").write_text(header + derived + gates)
    status, out, err = call("check", "--against", "cli_shapes_c:Job")
    assert (status, err) == (0, "")
    assert out.splitlines()[-1] == "features.toml: passed: 0 errors, 0 warnings, 1 note"
    renamed = derived.replace('"count"', '"counts"')
    (tmp_path / "features.toml").write_text(header.replace('"1.0"\n', '"1.0"\nconfig_class = "cli_shapes_c:Job"\n')
                                            + renamed + gates.replace("count >", "counts >"))
    status, out, err = call("check")
    assert status == 1
    assert out.splitlines()[0] == ("features.toml:7:1: error[class-missing]: [config] declares 'counts', "
                                   "but Job has no member 'counts', did you mean 'count'")
    status, out, err = call("check", "--format", "json")
    finding = json.loads(out)["findings"][0]
    assert (finding["code"], finding["path"], finding["member"], finding["line"]) == (
        "class-missing", "counts", "Job.counts", 7)


def test_a_closed_pipe_ends_every_command_quietly(tmp_path):
    """`matrix … | head -1`: no traceback, and the exit status is the command's own."""
    import shutil
    import subprocess

    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    # Every gate blocks both runners: a no-runner note each, far more output than a pipe holds.
    gates = "".join(f'[features.g{i}]\nname = "gate {i} {"x" * 80}"\nwhen = "x == {i}"\n'
                    f'support = {{ a = "no", b = "no" }}\n' for i in range(300))
    (tmp_path / "pyproject.toml").unlink()  # a features.toml of this folder's own
    (tmp_path / "features.toml").write_text('[matrix]\nname = "big"\nversion = "1.0"\n[config]\n"x" = "int"\n' + gates)
    script = shutil.which("matrix") or os.path.join(os.path.dirname(sys.executable), "matrix")
    for command, status in (("docs", 0), ("docs --format json", 0), ("docs --format html", 0),
                            ("check", 0), ("check --format json", 0), ("check --strict", 1)):
        done = subprocess.run(["bash", "-c", f"'{script}' {command} | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}"],
                              cwd=tmp_path, capture_output=True, text=True)
        assert (done.stdout, done.stderr) == (f"{status}\n", ""), command


def test_pipe_safe_output_swallows_only_a_broken_pipe():
    from matrix.cli import _PipeSafe

    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    quiet = _PipeSafe(Closed())
    assert quiet.write("a") == 1 and quiet.write("b") == 1
    quiet.flush()

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        _PipeSafe(Full()).write("a")


def test_docs_text_only_writes_every_status_as_its_word():
    status, out, err = call("docs", "--table", "support", "--text-only")
    assert (status, err) == (0, "")
    assert not any(symbol in out for symbol in "✅❌🟠🧪")
    assert "| diffusion models | `model_config.is_diffusion` | yes | no |  |" in out.splitlines()


# --- which matrix: found up the folder tree, never the packaged one unasked (issue 24, item 1) ---

def _project(root, where="", runner="a"):
    """A small matrix in *root*/*where*, its runner file named *runner*."""
    folder = root / where if where else root
    (folder / "runners").mkdir(parents=True)
    (folder / "runners" / f"{runner}.toml").write_text('name = "A"\npriority = 1\n')
    (folder / "features.toml").write_text('[matrix]\nname = "local"\nversion = "1"\n')
    return folder


def test_without_a_matrix_every_command_says_where_it_looked_and_exits_2(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / ".git").mkdir()  # the search stops at the root of the repository
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "pkg")
    message = (f"matrix: error: No matrix found: no features.toml, and no pyproject.toml naming one in "
               f"[tool.matrix] matrix, in '{tmp_path}/src/pkg' and the folders above it up to '{tmp_path}'; "
               f"pass --matrix FILE, or --matrix default for the packaged vLLM matrix\n")
    for command in (["resolve"], ["check"], ["docs"], ["schema", "--json-schema"]):
        assert call(*command) == (2, "", message), command
    assert call("resolve", "--matrix", "default", "--set", "speculative_config.method=suffix")[:2] == (0, (
        "Chose v1 (Model Runner V1) automatically at version 0.33.0\n"
        "Skipped v2 (Model Runner V2) because of: speculative method 'suffix'\n"
        "Warning (fallback): Model Runner V2 does not yet support speculative method 'suffix'; "
        "using the V1 model runner instead.\n"))


def test_check_of_the_packaged_matrix_says_it_is_the_packaged_one():
    status, out, err = call("check", "--matrix", "default")
    assert (status, err, out.splitlines()[-1]) == (
        0, "", "features.toml (the packaged default matrix): passed: 0 errors, 0 warnings, 2 notes")


def test_check_of_a_users_matrix_does_not_load_the_packaged_one(tmp_path, monkeypatch):
    """Only to tell whether to say "(the packaged default matrix)", `matrix check` loaded it:
    0.27 s of a check of a user's matrix (issue 29, item 4). A new process, so that no earlier
    test has loaded it."""
    (tmp_path / "pyproject.toml").unlink()
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = ("import io, sys\n"
            "from matrix import cli, loader\n"
            "out = io.StringIO()\n"
            "print(cli.run(['check'], stdout=out, stderr=sys.stderr), out.getvalue().strip())\n"
            "print(loader.default.cache_info().currsize)\n")
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert (done.returncode, done.stderr, done.stdout) == (
        0, "", "0 features.toml: passed: 0 errors, 0 warnings, 0 notes\n0\n")


def test_the_matrix_of_a_folder_above_is_used_and_named(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").unlink()
    _project(tmp_path)
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "src" / "pkg")
    assert call("resolve") == (0, "Chose a (A) automatically at version 1\n",
                               "matrix: note: Using the matrix ../../features.toml\n")
    assert call("check") == (0, "../../features.toml: passed: 0 errors, 0 warnings, 0 notes\n", "")


def test_pyproject_names_the_matrix_and_a_broken_one_fails_the_check(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "frames"\n\n[tool.matrix]\nmatrix = "src/pkg/features.toml"\n')
    package = _project(tmp_path, "src/pkg")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path / "docs")
    assert call("check") == (0, "../src/pkg/features.toml: passed: 0 errors, 0 warnings, 0 notes\n", "")
    assert call("resolve") == (0, "Chose a (A) automatically at version 1\n",
                               "matrix: note: Using the matrix ../src/pkg/features.toml\n")
    (package / "features.toml").write_text('[matrix]\nname = "local"\nversion = "1"\n[features.x]\nname = "X"\n')
    assert call("check") == (2, "", (
        "matrix: error: ../src/pkg/features.toml: 2 problems\n"
        "  ../src/pkg/features.toml:4:1: $.features.x: Missing required key 'support'\n"
        "  ../src/pkg/features.toml:4:1: $.features.x: Missing required key 'when'\n"))
    (tmp_path / "pyproject.toml").write_text('[tool.matrix]\nmatrix = 3\n')
    assert call("check") == (2, "", (
        f"matrix: error: {tmp_path}/pyproject.toml: [tool.matrix] matrix must be the path of a features.toml, "
        "or 'default' for the packaged matrix, not 3\n"))


def test_check_checks_the_matrix_of_each_changed_file_once(tmp_path):
    """The pre-commit hook passes the changed files: features files and runner files."""
    (tmp_path / "pyproject.toml").unlink()
    _project(tmp_path, "src/pkg")
    _project(tmp_path, "other", runner="b")
    (tmp_path / "ci" / "runners").mkdir(parents=True)  # another tool's runner files: not a matrix
    assert call("check", "src/pkg/runners/a.toml", "src/pkg/features.toml", "other/runners/b.toml",
                "ci/runners/x.toml") == (0, (
        "src/pkg/features.toml: passed: 0 errors, 0 warnings, 0 notes\n"
        "other/features.toml: passed: 0 errors, 0 warnings, 0 notes\n"), "")
    (tmp_path / "src" / "pkg" / "features.toml").write_text('[matrix]\nname = "local"\n')
    status, out, err = call("check", "src/pkg/features.toml", "other/features.toml")
    assert (status, out) == (2, "other/features.toml: passed: 0 errors, 0 warnings, 0 notes\n")
    assert err == ("matrix: error: src/pkg/features.toml: 1 problem\n"
                   "  src/pkg/features.toml:1:1: $.matrix: Missing required key 'version'\n")
    assert call("check", "--matrix", "default", "other/features.toml") == (
        2, "", "matrix: error: Pass either --matrix or the changed files to check, not both\n")
    assert call("check", "--format", "sarif", "src/pkg/features.toml", "other/features.toml") == (
        2, "", "matrix: error: --format sarif writes one document: check one matrix at a time\n")


def test_the_pre_commit_hook_passes_the_changed_files(tmp_path):
    """The hook run as pre-commit runs it: its entry, then the changed files its pattern selects."""
    import yaml

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, ".pre-commit-hooks.yaml")) as handle:
        hook = {hook["id"]: hook for hook in yaml.safe_load(handle)}["matrix-check"]
    (tmp_path / "pyproject.toml").unlink()
    _project(tmp_path, "src/pkg")
    _project(tmp_path, "other", runner="b")
    changed = ["README.md", "other/runners/b.toml", "src/pkg/features.toml", "src/pkg/features.toml.orig", "setup.py"]
    passed = [path for path in changed if re.search(hook["files"], path)] if hook["pass_filenames"] else []
    assert passed == ["other/runners/b.toml", "src/pkg/features.toml"]
    program, *words = hook["entry"].split()
    assert program == "matrix"
    assert call(*words, *passed) == (0, (
        "other/features.toml: passed: 0 errors, 0 warnings, 0 notes\n"
        "src/pkg/features.toml: passed: 0 errors, 0 warnings, 0 notes\n"), "")


def test_version_prints_the_installed_version_of_matrix():
    from importlib.metadata import version

    assert call("--version") == (0, f"matrix {version('support-matrix')}\n", "")
    # A command's own --version is the matrix version to answer as of.
    assert call("resolve", "--version", "0.31.0")[1] == "Chose v2 (Model Runner V2) automatically at version 0.31.0\n"


def test_the_summary_names_the_runners_a_preference_passed_over_and_a_runner_named_as_its_id_once(tmp_path):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    for id, name, priority in (("polars", "Polars", 3), ("duckdb", "DuckDB", 2), ("pandas", "pandas", 1)):
        (tmp_path / "runners" / f"{id}.toml").write_text(f'name = "{name}"\npriority = {priority}\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "frames"\nversion = "1.0"\n[config]\n"rows" = { type = "int", default = 1000000 }\n'
        '"strings" = { type = "bool", default = false }\n'
        '[features.tiny]\nname = "tiny frames"\nwhen = "rows < 100"\nsupport = { default = "yes" }\n'
        'prefers = { runner = "pandas" }\n'
        '[features.strings]\nname = "string columns"\nwhen = "strings"\nsupport = { default = "yes", duckdb = "no" }\n')
    assert call("resolve", "--set", "rows=10", "--set", "strings=true") == (0, (
        "Chose pandas automatically at version 1.0\n"
        "Preferred because of tiny frames, passing over polars (Polars), which automatic choice tries first\n"
        "Skipped duckdb (DuckDB) because of: string columns\n"
        "Warning (preference): tiny frames: using pandas\n"), "")
    assert call("resolve")[1] == "Chose polars (Polars) automatically at version 1.0\n"


def test_schema_write_puts_the_schema_line_editors_read_atop_each_file_that_lacks_it(tmp_path):
    (tmp_path / "pyproject.toml").unlink()
    _project(tmp_path)
    (tmp_path / "runners" / "b.toml").write_text('#:schema ./runner.schema.json\nname = "B"\npriority = 2\n')
    assert call("schema", "--json-schema", "--write") == (0, (
        "wrote features.schema.json\nwrote runners/runner.schema.json\n"
        "added the #:schema line to features.toml\nadded the #:schema line to runners/a.toml\n"), "")
    assert (tmp_path / "features.toml").read_text() == (
        '#:schema ./features.schema.json\n[matrix]\nname = "local"\nversion = "1"\n')
    assert (tmp_path / "runners" / "a.toml").read_text() == '#:schema ./runner.schema.json\nname = "A"\npriority = 1\n'
    assert call("schema", "--json-schema", "--write") == (
        0, "wrote features.schema.json\nwrote runners/runner.schema.json\n", "")
    assert call("check") == (0, (  # and no schema-stale
        "runners/a.toml:1:1: warning[never-chosen]: A is never chosen automatically: B is never blocked\n"
        "features.toml: passed: 0 errors, 1 warning, 0 notes\n"), "")


ALL_VERSIONS = """[matrix]
name = "frames"
version = "2.0"

[config]
"rows" = { type = "int", default = 0 }

[features.big]
name = "big frames"
when = "rows > 1000"
support = { polars = "yes", pandas = "no" }

[features.mid]
name = "mid frames"
when = "rows > 100"
since = "1.0"
support = { polars = [{ status = "no" }, { status = "yes", since = "2.0" }], pandas = "yes" }
"""


def test_check_all_versions_finds_what_only_an_older_release_has(tmp_path):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "polars.toml").write_text('name = "Polars"\npriority = 2\n')
    (tmp_path / "runners" / "pandas.toml").write_text('name = "pandas"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(ALL_VERSIONS)
    # At its own version, the file's contradiction of 1.0 is not seen.
    assert call("check") == (0, (
        "runners/pandas.toml:1:1: warning[never-chosen]: pandas is never chosen automatically: Polars is never blocked\n"
        "features.toml: passed: 0 errors, 1 warning, 0 notes\n"), "")
    assert call("check", "--all-versions") == (0, (
        "features.toml:8:1: warning[implied-contradiction]: big frames implies mid frames, yet Polars supports big "
        "frames and not mid frames: every config that uses big frames is refused there\n"
        '    witness: {"rows": 1001}\n'
        "    at: 1.0\n"
        "features.toml:8:1: note[no-runner]: No runner can serve a config that uses big frames and mid frames: "
        "Polars does not support mid frames; pandas does not support big frames\n"
        '    witness: {"rows": 1001}\n'
        "    at: 1.0\n"
        "runners/pandas.toml:1:1: warning[never-chosen]: pandas is never chosen automatically: Polars is never blocked\n"
        "    at: 2.0\n"
        "features.toml: passed: 0 errors, 2 warnings, 1 note, at every release the file names (1.0, 2.0)\n"), "")
    status, out, _ = call("check", "--all-versions", "--format", "json")
    data = json.loads(out)
    assert (status, data["versions"], [(f["code"], f["versions"]) for f in data["findings"]]) == (
        0, ["1.0", "2.0"], [("implied-contradiction", ["1.0"]), ("no-runner", ["1.0"]), ("never-chosen", ["2.0"])])
    assert call("check", "--all-versions", "--strict")[0] == 1
    assert call("check", "--all-versions", "--version", "1.0") == (
        2, "", "matrix: error: argument --version: not allowed with argument --all-versions\n")


def test_check_all_versions_and_the_release_notes_know_the_release_an_adjustment_begins_at(tmp_path):
    """Found by a user trial: the releases were only those of gates, cells and fields, so an
    adjustment added at 1.5 was credited to 2.0 in the release notes, and 1.5 was never checked."""
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "polars.toml").write_text('name = "Polars"\npriority = 2\n')
    (tmp_path / "runners" / "pandas.toml").write_text('name = "pandas"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(ALL_VERSIONS + (
        '[adjustments.cap]\nname = "Cap rows"\nwhen = "rows > 5000"\nset = { rows = 5000 }\nsince = "1.5"\n'))
    status, out, _ = call("check", "--all-versions", "--format", "json")
    assert (status, json.loads(out)["versions"]) == (0, ["1.0", "1.5", "2.0"])
    status, out, _ = call("docs", "--table", "release-notes")
    assert status == 0
    assert [line.split(" | ")[:3] for line in out.splitlines() if "adjustment-added" in line] == [
        ["| 1.5", "behaviour", "`adjustment-added`"]]


def test_check_all_versions_says_a_finding_once_with_the_witness_of_each_release(tmp_path):
    """A finding whose witness differs between releases (the default mode is removed at 2.0, so
    its witness sets another) was reported twice, once per witness (found by a user trial)."""
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "r.toml").write_text('name = "R"\npriority = 2\nredirects = [{ to = "s", when = "gpu == \'none\'" }]\n')
    (tmp_path / "runners" / "s.toml").write_text('name = "S"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(textwrap.dedent("""\
        [matrix]
        name = "av"
        version = "2.0"
        [config]
        "mode" = { type = "str", choices = ["a", "b", "old"], default = "old" }
        "gpu" = { type = "str", choices = ["none", "x"], default = "none", fact = true }
        [features.old]
        name = "old mode"
        when = "mode == 'old'"
        support = { r = "yes", s = "yes" }
        deprecated = { since = "1.0", remove_in = "2.0", removed = true }
        [features.f]
        name = "F"
        when = "gpu == 'none'"
        support = { r = "yes", s = "no" }
        """))
    status, out, _ = call("check", "--all-versions")
    assert out.splitlines()[2:5] == [
        "runners/r.toml:3:14: warning[redirect-refused]: R's redirect 1 to S (gpu == 'none') can leave a request S "
        "refuses: where it applies, S does not support F",
        '    witness at 1.0: {"gpu": "none"}',
        '    witness at 2.0: {"gpu": "none", "mode": "a"}']
    status, out, _ = call("check", "--all-versions", "--format", "json")
    refused = [f for f in json.loads(out)["findings"] if f["code"] == "redirect-refused"]
    assert [(f["versions"], f["witness"], f["witnesses"]) for f in refused] == [
        (["1.0", "2.0"], {"gpu": "none"}, [{"versions": ["1.0"], "witness": {"gpu": "none"}},
                                           {"versions": ["2.0"], "witness": {"gpu": "none", "mode": "a"}}])]


IGNORES = """
[check]
ignore = [
  { code = "never-chosen", gate = "pandas", reason = "pandas is asked for by name, for small frames" },
  { code = "implied-contradiction", gate = "big", reason = "Polars lacked mid frames in 1.0" },
]
"""


def test_check_ignores_the_findings_its_file_says_to_with_their_reason(tmp_path):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "polars.toml").write_text('name = "Polars"\npriority = 2\n')
    (tmp_path / "runners" / "pandas.toml").write_text('name = "pandas"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(ALL_VERSIONS + IGNORES)
    assert call("check", "--all-versions", "--strict") == (1, (
        "features.toml:8:1: error[no-runner]: No runner can serve a config that uses big frames and mid frames: "
        "Polars does not support mid frames; pandas does not support big frames\n"
        '    witness: {"rows": 1001}\n'
        "    at: 1.0\n"
        "features.toml: failed: 1 error, 0 warnings, 0 notes (strict: every finding fails but acknowledged refusals); "
        "2 findings ignored by [check] ignore, at every release the file names (1.0, 2.0)\n"), "")
    # At 2.0 alone, the contradiction of 1.0 is not there: its entry ignores nothing, and says so.
    assert call("check") == (0, (
        "features.toml:22:3: warning[ignore-unused]: [check] ignores implied-contradiction about 'big', but there "
        "is no such finding: remove the entry\n"
        "features.toml: passed: 0 errors, 1 warning, 0 notes; 1 finding ignored by [check] ignore\n"), "")
    status, out, _ = call("check", "--format", "json")
    assert [(f["code"], f["runner"], f["reason"]) for f in json.loads(out)["ignored"]] == [
        ("never-chosen", "pandas", "pandas is asked for by name, for small frames")]


def test_check_of_a_composed_matrix_ignores_what_upstreams_file_says_to(tmp_path):
    """A user trial: upstream's `[check] ignore` entries were dropped from the check of a matrix
    an overlay composes (an overlay has no `[check]`), so the findings they ignore failed it."""
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "polars.toml").write_text('name = "Polars"\npriority = 2\n')
    (tmp_path / "runners" / "pandas.toml").write_text('name = "pandas"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(ALL_VERSIONS + IGNORES)
    (tmp_path / "plugin").mkdir()
    (tmp_path / "plugin" / "overlay.toml").write_text(
        '[overlay]\nname = "tiny"\nextends = "../features.toml"\n\n[change.features.big]\n'
        'why = "a note only"\nname = "large frames"\n')
    status, out, err = call("check", "--matrix", "plugin/overlay.toml")
    assert (status, err) == (0, "")
    assert out.splitlines()[-2:] == [
        "plugin/../features.toml:22:3: warning[ignore-unused]: [check] ignores implied-contradiction about 'big', but "
        "there is no such finding: remove the entry",
        "plugin/overlay.toml: passed: 0 errors, 1 warning, 0 notes; 1 finding ignored by [check] ignore"]


_SPILL_UPSTREAM = """\
[matrix]
name = "query engines"
version = "1.0"

[config]
"spill" = { type = "bool", default = false }
"workers" = { type = "int", min = 1, max = 16, default = 1 }
"platform.has_fpga" = { type = "bool", default = false }

[features.spill]
name = "spilling to disk"
when = "spill"
support = { vectorized = "no", row = "yes" }

[features.wide]
name = "more than 8 workers"
when = "workers > 8"
support = { vectorized = "yes", row = "no" }

[orders.default]
name = "Fastest first"
runners = ["vectorized", "row"]

[refusals.spill_wide]
reason = "no engine spills with more than 8 workers"
together = [["spill"], ["wide"]]
"""

_FPGA_OVERLAY = """\
[overlay]
name = "fpga"
extends = "../features.toml"

[runners.fpga]
why = "the FPGA engine ships as a plugin"
name = "FPGA"
priority = 3
candidate = "platform.has_fpga"

[change.features.spill]
why = "the FPGA engine spills"
support = { fpga = "yes" }

[change.features.wide]
why = "the FPGA engine has 16 lanes"
support = { fpga = "yes" }

[change.orders.default]
why = "the FPGA engine is the fastest, where there is one"
runners = ["fpga", "vectorized", "row"]
"""

_FPGA_ACKNOWLEDGED = _FPGA_OVERLAY + """
[refusals.spill_wide_without_fpga]
reason = "only the FPGA engine spills with more than 8 workers"
together = [["spill"], ["wide"], ["fpga:not-candidate"]]

[check]
ignore = [
  { code = "refusal-unused", reason = "with the FPGA engine, spill_wide is spill_wide_without_fpga" },
]
"""

_FPGA_SET = (
    "plugin/overlay.toml:11:1: {severity}[no-runner]: No runner can serve a config with spilling to disk and more "
    "than 8 workers and FPGA not being a candidate (not platform.has_fpga): FPGA is not a candidate; Vectorized does "
    "not support spilling to disk; Row does not support more than 8 workers{acknowledged}\n"
    '    witness: {{"platform": {{"has_fpga": false}}, "spill": true, "workers": 9}}\n')
_SPILL_WIDE_UNUSED = (
    "plugin/../features.toml:24:1: warning[refusal-unused]: The refusal 'spill_wide' matches no combination of gates "
    "that leaves no runner free: delete it, or check its gate lists\n")


def _fpga(tmp_path, overlay):
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "vectorized.toml").write_text('name = "Vectorized"\npriority = 2\n')
    (tmp_path / "runners" / "row.toml").write_text('name = "Row"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(_SPILL_UPSTREAM)
    (tmp_path / "plugin").mkdir(exist_ok=True)
    (tmp_path / "plugin" / "overlay.toml").write_text(overlay)


def test_an_overlay_acknowledges_the_no_runner_set_its_runners_candidacy_creates(tmp_path):
    """A user trial: a plugin's runner with a candidate condition joins the set upstream's
    refusal acknowledged (its gate ``fpga:not-candidate``), so upstream's refusal is unused and
    the set an error under --strict, and the overlay could not say a [refusals] table."""
    _fpga(tmp_path, _FPGA_OVERLAY)
    assert call("check", "--strict") == (0, (
        "features.toml:10:1: note[no-runner]: No runner can serve a config that uses spilling to disk and more than 8 "
        "workers: Vectorized does not support spilling to disk; Row does not support more than 8 workers "
        "(acknowledged: no engine spills with more than 8 workers)\n"
        '    witness: {"spill": true, "workers": 9}\n'
        "features.toml: passed: 0 errors, 0 warnings, 1 note (strict: every finding fails but acknowledged "
        "refusals)\n"), "")
    assert call("check", "--strict", "--matrix", "plugin/overlay.toml") == (1, (
        _FPGA_SET.format(severity="error", acknowledged="") + _SPILL_WIDE_UNUSED
        + "plugin/overlay.toml: failed: 1 error, 1 warning, 0 notes (strict: every finding fails but acknowledged "
        "refusals)\n"), "")
    # Its refusal acknowledges the set; its [check] ignore, upstream's refusal it leaves unused.
    (tmp_path / "plugin" / "overlay.toml").write_text(_FPGA_ACKNOWLEDGED)
    assert call("check", "--strict", "--matrix", "plugin/overlay.toml") == (0, (
        _FPGA_SET.format(severity="note",
                         acknowledged=" (acknowledged: only the FPGA engine spills with more than 8 workers)")
        + "plugin/overlay.toml: passed: 0 errors, 0 warnings, 1 note (strict: every finding fails but acknowledged "
        "refusals); 1 finding ignored by [check] ignore\n"), "")
    m = matrix.load(tmp_path / "plugin" / "overlay.toml")
    assert [(r.id, r.reason, r.together) for r in m.refusals] == [
        ("spill_wide", "no engine spills with more than 8 workers", (("spill",), ("wide",))),
        ("spill_wide_without_fpga", "only the FPGA engine spills with more than 8 workers",
         (("spill",), ("wide",), ("fpga:not-candidate",)))]
    # The operation, with its reason as its why, in the overlay table.
    status, out, _ = call("docs", "--matrix", "plugin/overlay.toml", "--table", "overlay")
    assert out.splitlines()[-1] == (
        "| fpga | adds the refusal | `spill_wide_without_fpga` |  | only the FPGA engine spills with more than 8 "
        "workers | `plugin/overlay.toml:23` |  |")


def test_an_overlays_unused_check_ignore_entry_is_said_at_the_overlays_line(tmp_path):
    _fpga(tmp_path, _FPGA_ACKNOWLEDGED.replace('code = "refusal-unused"', 'code = "never-chosen", gate = "fpga"'))
    assert call("check", "--strict", "--matrix", "plugin/overlay.toml") == (1, (
        _FPGA_SET.format(severity="note",
                         acknowledged=" (acknowledged: only the FPGA engine spills with more than 8 workers)")
        + _SPILL_WIDE_UNUSED
        + "plugin/overlay.toml:29:3: warning[ignore-unused]: [check] ignores never-chosen about 'fpga', but there is "
        "no such finding: remove the entry\n"
        "plugin/overlay.toml: failed: 0 errors, 2 warnings, 1 note (strict: every finding fails but acknowledged "
        "refusals)\n"), "")


def test_each_overlay_of_a_chain_ignores_by_its_own_check_table(tmp_path):
    _fpga(tmp_path, _FPGA_ACKNOWLEDGED)
    (tmp_path / "plugin" / "second.toml").write_text(
        '[overlay]\nname = "second"\nextends = "overlay.toml"\n\n[change.features.spill]\nwhy = "a note"\n'
        'note = "spills to /tmp"\n\n[check]\nignore = [{ code = "never-chosen", gate = "row", reason = "x" }]\n')
    status, out, err = call("check", "--strict", "--matrix", "plugin/second.toml")
    assert (status, err) == (1, "")
    assert out.splitlines()[-2:] == [
        "plugin/second.toml:10:11: warning[ignore-unused]: [check] ignores never-chosen about 'row', but there is no "
        "such finding: remove the entry",
        "plugin/second.toml: failed: 0 errors, 1 warning, 1 note (strict: every finding fails but acknowledged "
        "refusals); 1 finding ignored by [check] ignore"]


def test_an_earlier_overlay_of_a_chain_with_only_a_check_table_is_found(tmp_path):
    """An overlay whose only content is [check] has no operation: its entries were looked for
    only in the files of the chain's operations (and the last overlay's), so they ignored
    nothing, and `after` could not name it."""
    _fpga(tmp_path, _FPGA_ACKNOWLEDGED.partition("\n[check]")[0])
    (tmp_path / "plugin" / "acks.toml").write_text(
        '[overlay]\nname = "acks"\nextends = "overlay.toml"\n\n[check]\nignore = [\n'
        '  { code = "refusal-unused", reason = "with the FPGA engine, spill_wide is spill_wide_without_fpga" },\n'
        '  { code = "never-chosen", gate = "row", reason = "x" },\n]\n')
    (tmp_path / "plugin" / "second.toml").write_text(
        '[overlay]\nname = "second"\nextends = "acks.toml"\nafter = ["acks"]\n\n[change.features.spill]\n'
        'why = "a note"\nnote = "spills to /tmp"\n')
    said = [
        "plugin/acks.toml:8:3: warning[ignore-unused]: [check] ignores never-chosen about 'row', but there is no such "
        "finding: remove the entry",
        "plugin/second.toml: failed: 0 errors, 1 warning, 1 note (strict: every finding fails but acknowledged "
        "refusals); 1 finding ignored by [check] ignore"]
    status, out, err = call("check", "--strict", "--matrix", "plugin/second.toml")
    assert (status, err, out.splitlines()[-2:]) == (1, "", said)
    # Given as a list, the same: the middle overlay's entries apply.
    status, out, err = call("check", "--strict", "--matrix", "features.toml", "--overlay", "plugin/overlay.toml",
                            "--overlay", "plugin/acks.toml", "--overlay", "plugin/second.toml")
    assert (status, err, out.splitlines()[-2:]) == (1, "", said)
    m = matrix.load(tmp_path / "plugin" / "second.toml")
    assert [(name, os.path.basename(file)) for name, file in m.overlay.chain] == [
        ("fpga", "overlay.toml"), ("acks", "acks.toml"), ("second", "second.toml")]


@pytest.mark.parametrize(("old", "new", "problem"), [
    ('["fpga:not-candidate"]', '["fpga:not-candidat"]',
     "plugin/overlay.toml:25:35: $.refusals.spill_wide_without_fpga.together[2][0]: Unknown gate "
     "'fpga:not-candidat', did you mean 'fpga:not-candidate' (expected 'fpga:not-candidate', 'spill', 'wide')"),
    ("[refusals.spill_wide_without_fpga]", "[refusals.spill_wide]",
     "plugin/overlay.toml:23:1: $.refusals.spill_wide: Upstream has refusal 'spill_wide' already: an overlay adds "
     "refusals, it does not change them"),
    ('reason = "only the FPGA engine spills with more than 8 workers"\n', "",
     "plugin/overlay.toml:23:1: $.refusals.spill_wide_without_fpga: Missing required key 'reason'"),
    ('code = "refusal-unused"', 'code = "never-chosen", gate = "fpgb"',
     "plugin/overlay.toml:29:28: $.check.ignore[0].gate: Unknown gate 'fpgb', did you mean 'fpga' (expected "
     "'fpga', 'row', 'spill', 'vectorized', 'wide')"),
])
def test_an_overlays_refusals_and_check_ignore_are_checked_on_the_composed_matrix(tmp_path, old, new, problem):
    assert old in _FPGA_ACKNOWLEDGED
    _fpga(tmp_path, _FPGA_ACKNOWLEDGED.replace(old, new))
    assert call("check", "--matrix", "plugin/overlay.toml") == (
        2, "", f"matrix: error: plugin/overlay.toml: 1 problem\n  {problem}\n")


def test_init_writes_a_starter_that_checks_clean_and_whose_test_passes(tmp_path):
    import importlib.util

    (tmp_path / "pyproject.toml").unlink()
    assert call("init", "frames") == (0, (
        "wrote frames/features.toml\nwrote frames/runners/fast.toml\nwrote frames/runners/simple.toml\n"
        "wrote frames/test_matrix.py\nwrote frames/features.schema.json\nwrote frames/runners/runner.schema.json\n"
        "Next: cd frames && matrix check && python -m pytest test_matrix.py\n"), "")
    folder = tmp_path / "frames"
    assert (folder / "features.toml").read_text().splitlines()[:6] == [
        "#:schema ./features.schema.json",
        "# Written by `matrix init`. Declare what a config holds in [config], one [features.<id>] table",
        "# per gate, and one file per runner in runners/ (its stem is the runner id). `matrix check`",
        "# proves the file sound; `matrix resolve --set engine.debug=true --explain` says why.",
        "[matrix]",
        'name = "frames"']
    assert (folder / "runners" / "simple.toml").read_text().splitlines()[0] == "#:schema ./runner.schema.json"
    # Clean, with current schemas (no schema-stale), and the migration test passes as written.
    assert call("check", "frames/features.toml") == (0, "frames/features.toml: passed: 0 errors, 0 warnings, 0 notes\n", "")
    assert call("resolve", "--matrix", "frames/features.toml", "--set", "engine.debug=true") == (0, (
        "Chose simple (Simple) automatically at version 0.1.0\n"
        "Skipped fast (Fast) because of: step debugger\n"
        "Warning (fallback): Fast does not support: step debugger; using Simple instead\n"), "")
    spec = importlib.util.spec_from_file_location("init_starter_test", folder / "test_matrix.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_the_matrix_answers_as_the_legacy_gate_function()
    # It never writes over a file.
    before = (folder / "features.toml").read_text()
    assert call("init", "frames") == (2, "", (
        "matrix: error: Nothing written: 'frames/features.toml', 'frames/runners/fast.toml', "
        "'frames/runners/simple.toml', 'frames/test_matrix.py' already exist (matrix init overwrites no file)\n"))
    assert (folder / "features.toml").read_text() == before


def _redirecting(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "fa3.toml").write_text(
        'name = "FA3"\npriority = 2\nredirects = [{ to = "triton", when = "kv == \'fp8_e5m2\'" }]\n')
    (tmp_path / "runners" / "triton.toml").write_text(
        'name = "Triton"\npriority = 1\naliases = [{ id = "old", since = "0.5", remove_in = "2.0" },'
        ' { id = "older", since = "0.1", remove_in = "0.9", removed = true }]\n')
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "attention"\nversion = "1.0"\n[config]\n'
        'kv = { type = "str", choices = ["auto", "fp8_e5m2"], default = "auto" }\n')


def test_resolve_says_a_redirect_and_a_former_id(tmp_path):
    _redirecting(tmp_path)
    assert call("resolve", "--runner", "fa3", "--set", "kv=fp8_e5m2") == (0, (
        "Chose triton (Triton) redirected from the fa3 asked for, at version 1.0\n"
        "Warning (redirected): Asked for 'fa3', redirected to 'triton': kv = 'fp8_e5m2'\n"), "")
    assert call("resolve", "--runner", "old") == (0, (
        "Chose triton (Triton) as asked at version 1.0\n"
        "Warning (deprecated-alias): Runner id 'old' is deprecated since 0.5 and will be removed in 2.0; "
        "use 'triton' instead\n"), "")
    status, out, err = call("resolve", "--runner", "fa3", "--set", "kv=fp8_e5m2", "--json")
    assert (status, err) == (0, "")
    data = json.loads(out)
    assert (data["requested"], data["runner"], data["redirected"]) == (
        "fa3", "triton", {"from": "fa3", "to": "triton", "when": "kv == 'fp8_e5m2'", "because": {"kv": "fp8_e5m2"}})
    assert call("resolve", "--runner", "older") == (
        2, "", "matrix: error: Runner id 'older' was removed in 0.9: use 'triton' instead\n")


def test_resolve_how_takes_a_former_id_as_a_request_by_it_does(tmp_path):
    # Before: `--how old` was "Unknown runner 'old': 'old' is a former id of 'triton'", exit 2.
    _redirecting(tmp_path)
    warning = ("Runner id 'old' is deprecated since 0.5 and will be removed in 2.0; use 'triton' instead")
    assert call("resolve", "--how", "old") == (0, (
        "Chose fa3 (FA3) automatically at version 1.0\n"
        f"Warning (deprecated-alias): {warning}\n"
        "How: To use Triton, change: ask for it by id (runner='triton', --runner triton)\n"), "")
    # Asked for by it too: the warning is said once.
    assert call("resolve", "--runner", "old", "--how", "old") == (0, (
        "Chose triton (Triton) as asked at version 1.0\n"
        f"Warning (deprecated-alias): {warning}\n"
        "How: Triton serves this config as it is\n"), "")
    status, out, err = call("resolve", "--how", "old", "--json")
    data = json.loads(out)
    assert (status, err, data["how"]["runner"], data["warnings"]) == (0, "", "triton", [
        {"kind": "deprecated-alias", "feature": None, "runner": "triton", "message": warning}])
    assert call("resolve", "--how", "older") == (
        2, "", "matrix: error: Runner id 'older' was removed in 0.9: use 'triton' instead\n")


def test_resolve_says_the_adjustments_in_text_and_json():
    """Issue 27 items 1-2: what an adjustment changed, in the summary and in --json."""
    args = ("resolve", "--version", "0.32.0", "--set", "compilation_config.mode=STOCK_TORCH_COMPILE")
    status, out, err = call(*args)
    message = ("CUDA graphs are not supported with stock torch.compile in Model Runner V2. "
               "Overriding cudagraph_mode FULL_AND_PIECEWISE to NONE.")
    assert (status, err) == (0, "")
    assert out == (
        "Chose v2 (Model Runner V2) automatically at version 0.32.0\n"
        "Adjusted compilation_config.cudagraph_mode: 'FULL_AND_PIECEWISE' -> 'NONE' "
        "(adjustment 'stock_compile_cudagraphs', for v2)\n"
        f"Warning (adjusted): {message}\n")
    status, out, err = call(*args, "--json")
    data = json.loads(out)
    assert (status, err) == (0, "")
    assert data["warnings"] == [{"kind": "adjusted", "feature": "stock_compile_cudagraphs", "runner": "v2",
                                 "message": message, "level": "info"}]
    assert data["adjustments"] == [{"id": "stock_compile_cudagraphs", "runner": "v2",
                                    "path": "compilation_config.cudagraph_mode", "before": "FULL_AND_PIECEWISE",
                                    "after": "NONE", "message": message, "level": "info", "overrode_user": True}]
    assert (data["effective"]["compilation_config.cudagraph_mode"], data["effective"]["compilation_config.mode"]) == (
        "NONE", "STOCK_TORCH_COMPILE")


def test_resolve_says_an_adjustment_that_is_not_the_runners_own_at_its_stage(tmp_path):
    """A user trial: an adjustment that names no runner, at a stage after the choice, applied
    because b filled the inter role, was said "for a" (the runner of the base role)."""
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(textwrap.dedent('''\
        [matrix]
        name = "backends"
        version = "1.0"
        stages = ["choice", "cast"]

        [config]
        dtype = { type = "str", choices = ["fp32", "bf16"], default = "fp32" }
        backend = { type = "str", nullable = true, choices = ["a", "b"] }
        inter = { type = "str", nullable = true, choices = ["a", "b"] }

        [roles.intra]
        name = "Intra"
        field = "backend"

        [roles.inter]
        name = "Inter"
        field = "inter"
        follows = "intra"

        [adjustments.b_fp32]
        name = "b reduces in fp32"
        stage = "cast"
        when = "dtype == 'bf16' and (role.intra == 'b' or role.inter == 'b')"
        set = { dtype = "fp32" }

        [adjustments.a_notice]
        name = "a notice"
        runners = ["a"]
        message = "A is a"
        '''))
    (tmp_path / "pyproject.toml").unlink()
    assert call("resolve", "--set", "dtype=bf16", "--set", "inter=b") == (0, (
        "Chose a (A) automatically at version 1.0\n"
        "Roles: Intra (intra) = a, chosen automatically; Inter (inter) = b, asked for\n"
        "Adjusted dtype: 'bf16' -> 'fp32' (adjustment 'b_fp32', at stage 'cast')\n"
        "Warning (adjusted): A is a\n"
        "Warning (adjusted): b reduces in fp32: set dtype from 'bf16' to 'fp32'\n"), "")
    status, out, err = call("resolve", "--set", "dtype=bf16", "--set", "inter=b", "--explain")
    assert (status, err) == (0, "")
    assert out.split("Adjustments:\n")[1].split("\n")[0] == (
        "  - b_fp32 (at stage 'cast'): dtype = 'bf16' -> 'fp32', overriding the config's value")


def test_resolve_says_the_forced_runners_override_before_no_runner():
    """Issue 25: watermarking forces V2, which refuses speculative method 'suffix', and V1 does not
    serve watermarking: V2's CUDA-graph override under stock torch.compile is said first, as vLLM
    logs it, then V2's error and its remedies."""
    status, out, err = call("resolve", "--set", "watermark_config={}", "--set", "compilation_config.mode=STOCK_TORCH_COMPILE",
                            "--set", "compilation_config.cudagraph_mode=PIECEWISE", "--set", "speculative_config.method=suffix")
    assert (status, out) == (1, "Warning (adjusted): CUDA graphs are not supported with stock torch.compile in Model "
                                "Runner V2. Overriding cudagraph_mode PIECEWISE to NONE.\n")
    assert err == (
        "matrix: Model Runner V2 does not yet support: speculative method 'suffix'\n"
        "To use Model Runner V2, change: unset speculative_config; or set speculative_config.method to one of 'ngram', "
        "'ngram_gpu', 'draft_model', 'eagle', 'eagle3', 'extract_hidden_states', 'mtp', 'dflash', 'dspark'\n"
        "To use Model Runner V1, change: unset watermark_config\n")


def test_the_summary_of_a_matrix_with_roles_says_each_roles_runner(tmp_path):
    """`matrix resolve` without --explain said the base role's runner alone; a matrix with
    [roles] now gets explain()'s Roles line under it (docs/reference/cli.md)."""
    (tmp_path / "runners").mkdir()
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "attn"\nversion = "1.0"\n[config]\n'
        'attention_backend = { type = "str", nullable = true, choices = ["fa3", "triton"] }\n'
        'decode_attention_backend = { type = "str", nullable = true, choices = ["fa3", "triton"] }\n'
        '[roles.base]\nname = "Attention backend"\nfield = "attention_backend"\n'
        '[roles.decode]\nname = "Decode attention backend"\nfield = "decode_attention_backend"\nfollows = "base"\n')
    (tmp_path / "runners" / "fa3.toml").write_text('name = "FA3"\npriority = 2\n')
    (tmp_path / "runners" / "triton.toml").write_text('name = "Triton"\npriority = 1\n')
    out, err = io.StringIO(), io.StringIO()
    status = run(["resolve", "--matrix", str(tmp_path / "features.toml"), "--set", "decode_attention_backend=triton"],
                 stdout=out, stderr=err)
    assert (status, out.getvalue(), err.getvalue()) == (0, (
        "Chose fa3 (FA3) automatically at version 1.0\n"
        "Roles: Attention backend (base) = fa3, chosen automatically; "
        "Decode attention backend (decode) = triton, asked for\n"), "")


def test_the_summary_says_a_request_made_through_the_base_role_s_field_as_asked_with_reasons_filled(tmp_path):
    """Found by a user trial: a runner named in the base role's field is a request (explain() said
    "asked for"), but the summary said "automatically", and a blocker's reason kept its template."""
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "hw.toml").write_text('name = "HW"\npriority = 20\n[requires]\nsplit = "slices != 3"\n')
    (tmp_path / "runners" / "sw.toml").write_text('name = "SW"\npriority = 10\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
        'encoder = { type = "str", nullable = true, choices = ["hw", "sw"] }\n'
        'slices = { type = "int", min = 1, max = 4, default = 1 }\n'
        '[requirements]\nsplit = { name = "Split", reason = "slices ({slices}) must not be 3" }\n'
        '[roles.encode]\nname = "Encoder"\nfield = "encoder"\n')
    assert call("resolve", "--set", "encoder=sw", "--set", "slices=3") == (0, (
        "Chose sw (SW) as asked at version 1.0\n"
        "Roles: Encoder (encode) = sw, asked for\n"
        "Also blocked hw (HW) because of: slices (3) must not be 3\n"), "")
    assert call("resolve", "--set", "slices=3") == (0, (
        "Chose sw (SW) automatically at version 1.0\n"
        "Roles: Encoder (encode) = sw, chosen automatically\n"
        "Skipped hw (HW) because of: slices (3) must not be 3\n"
        "Warning (fallback): HW is not valid for this config: slices (3) must not be 3; using SW instead\n"), "")


def test_set_of_a_derived_field_says_it_is_derived(tmp_path):
    """Found by a user trial: it said the matrix's [config] does not declare it."""
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "sw.toml").write_text('name = "SW"\npriority = 10\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "enc"\nversion = "1.0"\n[config]\n'
        'height = { type = "int", min = 16, max = 4096, default = 1080 }\n'
        '"mb.rows" = { type = "int", derive = "height // 16" }\n')
    assert call("resolve", "--set", "mb.rows=5") == (2, "", (
        "matrix: error: Cannot set 'mb.rows': it is a derived field, computed from other fields by its derive, "
        "never given\n"))


def test_resolve_says_a_deprecated_runner_in_text_and_json(tmp_path):
    _redirecting(tmp_path)
    (tmp_path / "runners" / "triton.toml").write_text(
        'name = "Triton"\npriority = 1\n'
        'deprecated = { since = "0.5", remove_in = "2.0", replacement = "fa3", message = "Triton is frozen" }\n')
    warning = "Triton is deprecated since 0.5 and will be removed in 2.0; use FA3 instead (Triton is frozen)"
    assert call("resolve", "--runner", "fa3", "--set", "kv=fp8_e5m2") == (0, (
        "Chose triton (Triton) redirected from the fa3 asked for, at version 1.0\n"
        "Warning (redirected): Asked for 'fa3', redirected to 'triton': kv = 'fp8_e5m2'\n"
        f"Warning (deprecated-runner): {warning}\n"), "")
    status, out, err = call("resolve", "--runner", "triton", "--json")
    assert (status, err, json.loads(out)["warnings"]) == (0, "", [
        {"kind": "deprecated-runner", "feature": None, "runner": "triton", "message": warning}])
    assert call("resolve") == (0, "Chose fa3 (FA3) automatically at version 1.0\n", "")
