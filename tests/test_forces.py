"""Features that force a runner (`forces` in features.toml): vLLM's HiSparse (a request for V1
is an error) and watermarking (a request for V1 is overridden, at info level)."""

import json
import logging

import pytest

import matrix
from matrix import NoRunnerError, UnsupportedFeatureError
from matrix.check import check
from matrix.render import render

RUNNERS = {"v2": {"name": "Model Runner V2", "priority": 20}, "v1": {"name": "Model Runner V1", "priority": 10}}
TEXT = """[matrix]
name = "forces"
version = "1.0"

[config]
"hisparse" = { type = "bool", default = false }
"watermark" = { type = "bool", default = false }
"ngram" = { type = "bool", default = false }

[features.hisparse]
name = "HiSparse"
when = "hisparse"
support = { v1 = "no", v2 = "yes" }
forces = { runner = "v2", message = "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0." }

[features.watermark]
name = "watermarking"
when = "watermark"
support = { v1 = "no", v2 = "yes" }
forces = { runner = "v2", override = true, message = "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0." }

[features.ngram]
name = "speculative method 'ngram'"
when = "ngram"
support = { v1 = "yes", v2 = "no" }
"""
M = matrix.loads(TEXT, runners=RUNNERS, path="forces.toml")


def test_a_request_for_another_runner_is_an_error_with_the_features_message():
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        M.resolve({"hisparse": True}, runner="v1")
    assert excinfo.value.reason == "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0."
    # The message ends with what to change for the runner asked for (a forced runner refuses it).
    assert str(excinfo.value) == ("HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0.\n"
                                  "To use Model Runner V1, change: set hisparse to False")
    assert M.resolve({"hisparse": True}, runner="v2").runner == "v2"
    assert M.resolve({"hisparse": True}).runner == "v2"


def test_an_overriding_feature_runs_on_its_runner_and_says_so_at_info_level(caplog):
    resolution = M.resolve({"watermark": True}, runner="v1")
    assert (resolution.runner, resolution.requested) == ("v2", "v1")
    assert [(w.kind, w.feature, w.runner, w.message) for w in resolution.warnings] == [
        ("override", "watermark", "v2", "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0.")]
    assert resolution.explain().splitlines()[0] == (
        "Runner: v2 (Model Runner V2), asked for 'v1', overridden: watermarking forces it, at version 1.0")
    assert resolution.explanation()["how"] == "overridden"
    assert (resolution.explanation()["overridden_by"], resolution.explanation()["preferred_by"]) == (
        {"id": "watermark", "name": "watermarking"}, None)
    with caplog.at_level(logging.INFO, logger="matrix"):
        resolution.emit(once=False)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("matrix.override", logging.INFO, "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0.")]


def test_the_choice_before_validation_is_a_record_with_named_fields():
    """What the rules of choice answer for a mask before the runner is validated is a record
    (issue 23: it was a 6-tuple read by position): an override names its feature, a refusal its
    error, and nothing is left to a field's place."""
    from matrix import _choice
    from matrix._compile import plan

    compiled = plan(M, M.version)
    watermark, hisparse = (1 << [f.id for f in compiled.features].index(i) for i in ("watermark", "hisparse"))
    overridden = _choice.choose(compiled, watermark, "v1")
    assert overridden == _choice.Chosen(runner="v2", warnings=overridden.warnings, overriding=M.feature("watermark"))
    assert [w.kind for w in overridden.warnings] == ["override"]
    assert _choice.choose(compiled, hisparse, "v1") == _choice.Chosen(
        runner=None, warnings=(), error=UnsupportedFeatureError,
        message="HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0.")
    assert _choice.Chosen._fields == ("runner", "warnings", "error", "message", "overriding", "redirected")
    assert not isinstance(overridden, tuple)


def test_the_forced_runner_is_validated_and_a_blocked_one_is_no_runner():
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        M.resolve({"watermark": True, "ngram": True}, runner="v1")
    assert excinfo.value.reason == "Model Runner V2 does not support: speculative method 'ngram'"
    with pytest.raises(NoRunnerError) as excinfo:
        M.resolve({"hisparse": True, "ngram": True})
    assert excinfo.value.reason == ("No runner can serve this config: Model Runner V2 does not support: speculative "
                                  "method 'ngram'; Model Runner V1 does not support: HiSparse")


def test_the_default_wordings():
    plain = matrix.loads(TEXT.replace(', message = "HiSparse requires Model Runner V2; remove VLLM_USE_V2_MODEL_RUNNER=0."', "")
                         .replace(', message = "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0."', ""),
                         runners=RUNNERS, path="forces.toml")
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        plain.resolve({"hisparse": True}, runner="v1")
    assert excinfo.value.reason == "HiSparse requires Model Runner V2; it cannot run on Model Runner V1, which was asked for"
    assert plain.resolve({"watermark": True}, runner="v1").warnings[0].message == (
        "watermarking requires Model Runner V2 and overrides the request for Model Runner V1")


def test_a_forcing_feature_must_say_no_to_every_other_runner_and_name_a_known_one():
    with pytest.raises(matrix.LoadError) as excinfo:
        matrix.loads(TEXT.replace('support = { v1 = "no", v2 = "yes" }\nforces = { runner = "v2", message',
                                  'support = { v1 = "yes", v2 = "yes" }\nforces = { runner = "v3", message'),
                     runners=RUNNERS, path="forces.toml")
    assert [str(p) for p in excinfo.value.problems] == [
        "forces.toml:14:12: $.features.hisparse.forces.runner: Unknown runner 'v3' (expected one of 'v1', 'v2')"]
    with pytest.raises(matrix.LoadError) as excinfo:
        matrix.loads(TEXT.replace('support = { v1 = "no", v2 = "yes" }\nforces = { runner = "v2", override',
                                  'support.v2 = "yes"\nsupport.v1 = [{ status = "no" }, { status = "partial", note = "n", since = "2.0" }]\n'
                                  'forces = { runner = "v2", override'),
                     runners=RUNNERS, path="forces.toml")
    assert [str(p) for p in excinfo.value.problems] == [
        "forces.toml:20:1: $.features.watermark.support.v1: The feature forces 'v2', so 'v1' must say \"no\" to it at "
        "every version (a config that uses it never runs there)"]


def test_check_counts_a_forced_runner_that_is_blocked_as_no_runner():
    assert [str(f) for f in check(M).findings] == [
        "forces.toml:10:1: note[no-runner]: No runner can serve a config that uses any of [HiSparse, watermarking] "
        "together with any of [speculative method 'ngram'] (2 combinations): Model Runner V2 does not support the "
        "second list; Model Runner V1 does not support the first list"]


def test_docs_say_which_runner_a_feature_forces():
    support = render(M, format="markdown", tables=["support"])
    assert ("| HiSparse | `hisparse` | ✅ yes | ❌ no | forces Model Runner V2: a request for another runner is an "
            "error |") in support
    assert "| watermarking | `watermark` | ✅ yes | ❌ no | forces Model Runner V2: overrides a request for another runner |" in support
    data = json.loads(render(M, format="json", tables=["support"]))
    assert data["features"][1]["forces"] == {
        "runner": "v2", "override": True,
        "message": "Watermarking requires Model Runner V2 and overrides VLLM_USE_V2_MODEL_RUNNER=0."}
    assert data["features"][2]["forces"] is None


# --- features that change the order of automatic choice (`prefers`) ---------------------------

PREFERS = """[matrix]
name = "prefers"
version = "1.0"

[config]
"rocm_arch" = { type = "bool", default = false }
"pcp" = { type = "bool", default = false }
"ngram" = { type = "bool", default = false }

[features.rocm]
name = "ROCm architecture default"
when = "rocm_arch"
support = { v1 = "yes", v2 = "yes" }
prefers = { runner = "v1", OUTRIGHT message = "Defaulting to V1 model runner on ROCm" }

[features.pcp]
name = "prefill context parallel"
when = "pcp"
support = { v1 = "no", v2 = "yes" }

[features.ngram]
name = "speculative method 'ngram'"
when = "ngram"
support = { v1 = "yes", v2 = "no" }
"""


def _prefers(outright):
    return matrix.loads(PREFERS.replace("OUTRIGHT ", "outright = true, " if outright else ""), runners=RUNNERS,
                        path="prefers.toml")


@pytest.mark.parametrize("outright", [False, True])
def test_a_preference_puts_its_runner_first_in_automatic_choice_only(outright):
    m = _prefers(outright)
    resolution = m.resolve({"rocm_arch": True})
    assert resolution.runner == "v1"
    assert [(w.kind, w.runner, w.message) for w in resolution.warnings] == [
        ("preference", "v1", "Defaulting to V1 model runner on ROCm")]
    assert resolution.explain().splitlines()[0] == (
        "Runner: v1 (Model Runner V1), chosen automatically, first because of ROCm architecture default, at version 1.0")
    assert resolution.explanation()["how"] == "preferred"
    assert (resolution.explanation()["overridden_by"], resolution.explanation()["preferred_by"]) == (
        None, {"id": "rocm", "name": "ROCm architecture default"})
    assert m.resolve({"rocm_arch": True}, runner="v2").runner == "v2"  # a request wins
    assert m.resolve({}).runner == "v2"


def test_a_preference_for_a_blocked_runner_falls_back_to_the_usual_order():
    resolution = _prefers(False).resolve({"rocm_arch": True, "pcp": True})
    assert resolution.runner == "v2"
    assert [(w.kind, w.message) for w in resolution.warnings] == [
        ("preference", "ROCm architecture default would prefer Model Runner V1, but Model Runner V1 does not support: "
                       "prefill context parallel; choosing in the usual order")]


def test_an_outright_preference_for_a_blocked_runner_is_no_runner():
    with pytest.raises(NoRunnerError) as excinfo:
        _prefers(True).resolve({"rocm_arch": True, "pcp": True})
    assert excinfo.value.reason == ("No runner can serve this config: ROCm architecture default makes the choice, and "
                                  "Model Runner V1 does not support: prefill context parallel")


def test_check_sees_preferences():
    # Outright: the ROCm default with prefill context parallel is a no-runner case; and V1, which
    # the preference chooses where it is free, is never reported as never chosen.
    assert [str(f) for f in check(_prefers(True)).findings if f.code in ("no-runner", "never-chosen")] == [
        "prefers.toml:16:1: note[no-runner]: No runner can serve a config that uses any of [prefill context parallel] "
        "together with any of [ROCm architecture default, speculative method 'ngram'] (2 combinations): Model Runner "
        "V2 does not support the second list, or is passed over by an outright preference there; Model Runner V1 does "
        "not support the first list"]
    assert [str(f) for f in check(_prefers(False)).findings if f.code in ("no-runner", "never-chosen")] == [
        "prefers.toml:16:1: note[no-runner]: No runner can serve a config that uses prefill context parallel and "
        "speculative method 'ngram': Model Runner V2 does not support speculative method 'ngram'; Model Runner V1 "
        "does not support prefill context parallel"]


TWO_PREFERENCES = """[matrix]
name = "two preferences"
version = "1.0"

[config]
"a" = { type = "bool", default = false }
"b" = { type = "bool", default = false }
"pcp" = { type = "bool", default = false }

[features.first]
name = "first preference"
when = "a"
support = { v1 = "yes", v2 = "yes" }
prefers = { runner = "v2" }

[features.second]
name = "second preference"
when = "b"
support = { v1 = "yes", v2 = "yes" }
prefers = { runner = "v1", outright = true }

[features.pcp]
name = "prefill context parallel"
when = "pcp"
support = { v1 = "no", v2 = "yes" }
"""


def test_check_weighs_preferences_in_the_order_the_resolver_does():
    m = matrix.loads(TWO_PREFERENCES, runners=RUNNERS, path="two.toml")
    # The first preference decides while V2 is free: the outright one for V1 then never speaks.
    assert m.resolve({"a": True, "b": True, "pcp": True}).runner == "v2"
    with pytest.raises(NoRunnerError):
        m.resolve({"b": True, "pcp": True})
    findings = [f for f in check(m).findings if f.code == "no-runner"]
    assert [str(f) for f in findings] == [
        "two.toml:16:1: note[no-runner]: No runner can serve a config that uses second preference and prefill context "
        "parallel: Model Runner V2 is passed over: second preference chooses Model Runner V1 outright; Model Runner V1 "
        "does not support prefill context parallel"]
    # Its witness keeps the first preference out, as it must.
    assert findings[0].witness == {"a": False, "b": True, "pcp": True}


def test_check_finds_a_runner_that_preferences_always_pass_over():
    # V2 goes first by priority and nothing blocks it, but one of two preferences for V1 always
    # holds, and V1 is never blocked: V2 is never chosen (check used to miss it).
    text = TWO_PREFERENCES.replace('when = "a"', 'when = "not a"').replace('when = "b"', 'when = "a"') \
        .replace("outright = true", "outright = false").replace('v1 = "no"', 'v1 = "yes"')
    m = matrix.loads(text.replace('prefers = { runner = "v2" }', 'prefers = { runner = "v1" }'), runners=RUNNERS,
                     path="two.toml")
    assert {m.resolve({"a": a, "pcp": pcp}).runner for a in (False, True) for pcp in (False, True)} == {"v1"}
    assert [str(f) for f in check(m).findings if f.code == "never-chosen"] == [
        "two.toml:1:1: warning[never-chosen]: Model Runner V2 is never chosen automatically: whenever it is free, "
        "a preference chooses another runner"]


def test_a_preference_for_a_runner_that_is_no_candidate_is_passed_over():
    runners = {**RUNNERS, "v1": {**RUNNERS["v1"], "candidate": "not pcp"}}
    m = matrix.loads(TWO_PREFERENCES.replace('v1 = "no"', 'v1 = "yes"'), runners=runners, path="two.toml")
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve({"b": True, "pcp": True})
    assert excinfo.value.reason == ("No runner can serve this config: second preference makes the choice, and "
                                  "Model Runner V1 is not a candidate for this config")
    text = TWO_PREFERENCES.replace('v1 = "no"', 'v1 = "yes"').replace('{ runner = "v2" }', '{ runner = "v1" }')
    resolution = matrix.loads(text, runners=runners, path="two.toml").resolve({"a": True, "pcp": True})
    assert resolution.runner == "v2"
    assert [(w.kind, w.message) for w in resolution.warnings] == [
        ("preference", "first preference would prefer Model Runner V1, but Model Runner V1 is not a candidate for "
                       "this config; choosing in the usual order")]


def test_docs_and_json_show_the_preference():
    m = _prefers(False)
    assert ("| ROCm architecture default | `rocm_arch` | ✅ yes | ✅ yes | prefers Model Runner V1 in automatic choice, "
            "when nothing blocks it |") in render(m, format="markdown", tables=["support"])
    data = json.loads(render(m, format="json", tables=["support"]))
    assert data["features"][0]["prefers"] == {"runner": "v1", "outright": False,
                                              "message": "Defaulting to V1 model runner on ROCm"}
