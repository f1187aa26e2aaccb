"""The second real matrix: vLLM 0.33.0's attention-backend selection on CUDA
(`examples/vllm-attention/`), checked against a hand transcription of vLLM's rules
(`tests/vllm_attention_reference.py`) on random configs, and on the worked examples of the facts."""

import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, UnsupportedFeatureError
from matrix.check import check
from matrix.strategies import configs
from tests import vllm_attention_reference as reference

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "vllm-attention"
ATTENTION = matrix.load(EXAMPLE / "features.toml")
KV = ATTENTION.schema["selector.kv_cache_dtype"].choices


def _facts(major, *, version=None, layer_version=None, fp8_ok=False, fp8_kv_ok=False, kernel_block_size=16,
           trtllm=True, use_trtllm_attention=None):
    return {"fa": {"version": version, "layer_version": layer_version, "fp8_ok": fp8_ok, "fp8_kv_ok": fp8_kv_ok,
                   "kernel_block_size": kernel_block_size},
            "flashinfer": {"trtllm": trtllm, "use_trtllm_attention": use_trtllm_attention}}


@st.composite
def _configs(draw):
    """Configs as a host would pass them: realistic values (and any int), every fact drawn."""
    selector = {
        "head_size": draw(st.sampled_from([16, 32, 64, 72, 80, 96, 128, 192, 256, 320, 512, 576]) | st.integers(1, 1100)),
        "dtype": draw(st.sampled_from(["float16", "bfloat16", "float32"])),
    }
    if draw(st.booleans()):
        selector["kv_cache_dtype"] = draw(st.sampled_from(KV))
    if draw(st.booleans()):
        selector["block_size"] = draw(st.sampled_from([1, 8, 16, 32, 48, 64, 128, 256]) | st.integers(1, 1100))
    if draw(st.booleans()):
        selector["attn_type"] = draw(st.sampled_from(["decoder", "encoder", "encoder_only", "encoder_decoder"]))
    for flag in ("use_mla", "has_sink", "use_sparse", "use_mm_prefix", "use_per_head_quant_scales",
                 "has_sliding_window", "use_non_causal", "use_batch_invariant", "use_kv_connector", "use_pcp",
                 "use_dcp", "use_adaptive_verification", "use_rswa"):
        if draw(st.integers(0, 3)) == 0:
            selector[flag] = True
    capability = draw(st.sampled_from(["7.5", "8.0", "8.6", "8.9", "9.0", "10.0", "10.3", "11.0", "12.0", "12.1"]))
    config = {"selector": selector, "device": {"capability": capability}}
    versions = st.sampled_from([None, 2, 3, 4])
    config.update(_facts(0, version=draw(versions), layer_version=draw(versions), fp8_ok=draw(st.booleans()),
                         fp8_kv_ok=draw(st.booleans()), kernel_block_size=draw(st.sampled_from([16, 64, 128])),
                         trtllm=draw(st.booleans()), use_trtllm_attention=draw(st.sampled_from([None, True, False]))))
    return config


def _answer(config):
    """What the matrix says: the backend chosen (None: none), and every backend's reasons."""
    try:
        resolution = ATTENTION.resolve(config)
    except NoRunnerError as error:
        resolution = error.resolution
    return resolution.runner, {r: [g.name for g in gates] for r, gates in resolution.unsupported.items()}


def _agrees(config):
    chosen, reasons = _answer(config)
    assert reasons == {b: reference.reasons(b, config) for b in reference.BACKENDS}, config
    assert chosen == reference.choose(config), config
    for backend in reference.BACKENDS:  # asked for explicitly: no fallback
        expected = reference.reasons(backend, config)
        if expected:
            with pytest.raises(UnsupportedFeatureError):
                ATTENTION.resolve(config, runner=backend)
        else:
            assert ATTENTION.resolve(config, runner=backend).runner == backend


# Eight times the profile's examples: 400 in development, 4,000 in CI.
@settings(max_examples=settings.default.max_examples * 8, deadline=None)
@given(_configs())
def test_the_matrix_answers_as_vllm_on_random_configs(config):
    _agrees(config)


@settings(max_examples=settings.default.max_examples * 4, deadline=None)
@given(configs(ATTENTION), st.data())
def test_the_matrix_answers_as_vllm_on_configs_steered_to_each_requirement(config, data):
    # The strategies draw every field the schema declares; the facts come with them.
    _agrees(config)


H100, B200, A100 = "9.0", "10.0", "8.0"


def _example(capability, facts, **selector):
    selector = {"dtype": "bfloat16", **selector}
    return {"selector": selector, "device": {"capability": capability}, **facts}


# Section 10's worked examples that are in scope (12 is MLA), with the facts vLLM's helpers give there.
_H100_FA = _facts(9, version=3, layer_version=3, fp8_ok=True, fp8_kv_ok=True)
_B200_FA = _facts(10, version=4, layer_version=4, fp8_ok=True, fp8_kv_ok=True)
_A100_FA = _facts(8, version=2, layer_version=2)


def test_example_1_h100_head_128():
    config = _example(H100, _H100_FA, head_size=128)
    chosen, reasons = _answer(config)
    assert chosen == "FLASH_ATTN"
    assert [b for b in reference.candidates(config) if not reasons[b]] == [
        "FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION"]
    assert reasons["TURBOQUANT"] == ["kv_cache_dtype not supported"]


def test_example_2_and_3_b200_orders():
    config = _example(B200, _B200_FA, head_size=128)
    resolution = ATTENTION.resolve(config)
    assert resolution.runner == "FLASHINFER"
    assert resolution.explanation()["order"]["id"] == "sm100"
    assert ATTENTION.resolve(_example(B200, _B200_FA, head_size=128, use_non_causal=True)).runner == "FLASH_ATTN"


def test_example_4_a100_sinks():
    chosen, reasons = _answer(_example(A100, _A100_FA, head_size=64, has_sink=True))
    assert chosen == "TRITON_ATTN"
    assert reasons["FLASH_ATTN"] == ["attention sinks not supported", "sink not supported on compute capability < 9.0"]
    assert reasons["FLASHINFER"] == ["attention sinks not supported"]
    assert reasons["FLEX_ATTENTION"] == ["attention sinks not supported"]
    assert reasons["TURBOQUANT"] == ["kv_cache_dtype not supported", "attention sinks not supported"]


def test_example_5_h100_fp8_e5m2():
    facts = _facts(9, version=3, layer_version=3, fp8_ok=False, fp8_kv_ok=False)
    chosen, reasons = _answer(_example(H100, facts, head_size=128, kv_cache_dtype="fp8_e5m2"))
    assert chosen == "FLASHINFER"
    assert reasons["FLASH_ATTN"] == [
        "kv_cache_dtype not supported",
        "FP8 KV cache requires FA3 on SM90, FA4 with head_size=512 on SM90, or FA4 on SM100"]
    assert reasons["FLEX_ATTENTION"] == reasons["TURBOQUANT"] == ["kv_cache_dtype not supported"]


def test_example_6_block_size_precludes_flash_attention_and_explain_says_so():
    facts = _facts(10, version=4, layer_version=4, fp8_ok=True, fp8_kv_ok=True, kernel_block_size=128)
    resolution = ATTENTION.resolve(_example(B200, facts, head_size=256, use_non_causal=True, block_size=16))
    assert resolution.runner == "FLASHINFER"
    text = resolution.explain()
    assert text.splitlines()[:2] == [
        "Runner: FLASHINFER (FlashInfer), chosen automatically, at version 0.33.0",
        "Order: by priority (SM100 order does not apply); runners, highest priority first:"]
    assert ("  FLASH_ATTN (FlashAttention, priority 50): fails 1 requirement\n"
            "    - block_size not supported (requirement 'block_size')\n") in text
    assert "  FLASHINFER (FlashInfer, priority 40): no blockers, chosen\n" in text
    assert [w.message for w in resolution.warnings] == [
        "FlashAttention is not valid for this config: block_size not supported; using FlashInfer instead"]


def test_example_7_h100_mm_prefix():
    chosen, reasons = _answer(_example(H100, _H100_FA, head_size=128, use_mm_prefix=True))
    assert chosen == "TRITON_ATTN"
    assert reasons["TRITON_FLASH_ATTN"] == ["head_size not supported"]
    assert reasons["FLASH_ATTN"] == [
        "mm_prefix (PrefixLM bidirectional attention) requires FlashAttention v4, which does not resolve for this "
        "head_size"]
    assert reasons["FLASHINFER"] == ["partial multimodal token full attention not supported"]
    assert _answer(_example(H100, _H100_FA, head_size=256, use_mm_prefix=True))[0] == "TRITON_FLASH_ATTN"


def test_example_8_no_backend_lists_every_candidates_reasons():
    with pytest.raises(NoRunnerError) as caught:
        ATTENTION.resolve(_example(H100, _H100_FA, head_size=16, dtype="float32", kv_cache_dtype="fp8"))
    assert caught.value.reason == (
        "No runner can serve this config: FlashAttention is not valid for this config: dtype not supported; "
        "FlashInfer is not valid for this config: head_size not supported, dtype not supported; "
        "Triton is not valid for this config: head_size not supported; "
        "FlexAttention is not valid for this config: kv_cache_dtype not supported; "
        "TurboQuant is not valid for this config: dtype not supported, kv_cache_dtype not supported")


def test_example_9_an_explicit_backend_does_not_fall_back():
    with pytest.raises(UnsupportedFeatureError) as caught:
        ATTENTION.resolve(_example(H100, _H100_FA, head_size=96), runner="FLASHINFER")
    assert str(caught.value) == ("FlashInfer is not valid for this config: head_size not supported\n"
                                 "To use FlashInfer, change: set selector.head_size to one of 64, 128, 256, 512")


def test_example_10_batch_invariance_on_b200():
    facts = _facts(10, version=2, layer_version=2, trtllm=False)
    chosen, reasons = _answer(_example(B200, facts, head_size=128, use_batch_invariant=True))
    assert chosen == "FLASH_ATTN"
    assert reasons["FLASHINFER"] == ["batch invariance not supported"]


def test_example_11_pcp_leaves_no_backend():
    chosen, reasons = _answer(_example(H100, _H100_FA, head_size=128, use_pcp=True))
    assert chosen is None
    assert all(reasons[b] == ["PCP not supported"] for b in ("FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION"))
    assert reasons["TURBOQUANT"] == ["kv_cache_dtype not supported", "PCP not supported"]


def test_every_backend_gives_check_15_for_non_causal_mla_with_dcp_in_the_order_of_section_5():
    config = _example(H100, _H100_FA, head_size=128, use_mla=True, use_non_causal=True, use_dcp=True)
    chosen, reasons = _answer(config)
    mla, check_15 = "MLA not supported", "non-causal MLA attention with DCP not supported"
    assert chosen is None
    assert reasons == {
        "TRITON_FLASH_ATTN": ["head_size not supported", mla, "non-causal attention not supported", check_15,
                              "DCP not supported"],
        "TRITON_FLASHINFER": ["head_size not supported", mla, "compute capability not supported",
                              "non-causal attention not supported", check_15, "DCP not supported"],
        "FLASH_ATTN": [mla, check_15],
        "FLASHINFER": [mla, check_15],
        "TRITON_ATTN": [mla, check_15, "DCP not supported"],
        "FLEX_ATTENTION": [mla, check_15, "DCP not supported"],
        "TURBOQUANT": ["kv_cache_dtype not supported", mla, "non-causal attention not supported", check_15,
                       "DCP not supported"],
    }
    assert reasons == {b: reference.reasons(b, config) for b in reasons}
    # Two of the three alone are not check 15.
    assert _answer(_example(H100, _H100_FA, head_size=128, use_mla=True, use_dcp=True))[1]["FLASH_ATTN"] == [mla]


def test_a_composite_that_is_not_a_candidate_is_never_chosen_but_can_be_asked_for():
    config = _example(H100, _H100_FA, head_size=256)  # no mm_prefix: TRITON_FLASH_ATTN is no candidate
    assert ATTENTION.resolve(config).runner == "FLASH_ATTN"
    assert ATTENTION.resolve(config, runner="TRITON_FLASH_ATTN").runner == "TRITON_FLASH_ATTN"
    text = ATTENTION.resolve(config).explain()
    assert ("  TRITON_FLASH_ATTN (Triton + FlashAttention, priority 70): not a candidate (a candidate when "
            "device.capability >= '9.0' and device.capability < '10.0' and selector.use_mm_prefix)\n") in text


def test_matrix_check_is_clean_and_finds_that_no_backend_serves_pcp():
    report = check(ATTENTION)
    assert report.counts() == {"error": 0, "warning": 0, "note": 17}
    pcp = next(f for f in report.findings if f.code == "no-runner" and "PCP" in f.message)
    assert pcp.message.startswith(
        "No runner can serve a config with 'PCP not supported' (failing not selector.use_pcp, "
        "Triton + FlashAttention's requirement 'pcp'): Triton + FlashAttention is not valid for it: PCP not supported; ")
    assert pcp.witness["selector"]["use_pcp"] is True
    with pytest.raises(NoRunnerError) as caught:
        ATTENTION.resolve(pcp.witness)
    assert all("PCP not supported" in [g.name for g in gates]
               for gates in caught.value.resolution.unsupported.values())
    assert [f.code for f in report.findings].count("no-runner-cut") == 1


def test_the_capability_table_in_every_format():
    import json

    import jsonschema
    from docutils.core import publish_doctree

    from matrix.render import json_schema, render

    markdown = render(ATTENTION, tables=("capabilities",))
    lines = markdown.splitlines()
    header = lines.index("| Requirement | Triton + FlashAttention | Triton + FlashInfer | FlashAttention | FlashInfer | "
                         "Triton | FlexAttention | TurboQuant | Reason |")
    assert lines[header + 2] == (
        "| Head sizes | 256, or 512 where FA4 runs (CC 9.x to 11.x) | `selector.head_size in [256, 512]` | "
        "multiples of 8 up to 256; up to 512 where FA4 runs (CC 9.x to 11.x) | "
        "`selector.head_size in [64, 128, 256, 512]` | `selector.head_size >= 32` |  |  | head\\_size not supported |")
    assert ("| Candidate for automatic choice | `device.capability >= '9.0' and device.capability < '10.0' and "
            "selector.use_mm_prefix` | ") in markdown
    assert ("When `device.capability >= '10.0' and device.capability < '11.0' and not selector.use_non_causal`: "
            "SM100 order, trying TRITON\\_FLASHINFER, FLASHINFER, TRITON\\_FLASH\\_ATTN, FLASH\\_ATTN") in markdown
    data = json.loads(render(ATTENTION, format="json", tables=("capabilities",)))
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    assert data["capabilities"][0]["requires"]["FLASHINFER"] == [
        {"condition": "selector.head_size in [64, 128, 256, 512]", "reason": "head_size not supported", "doc": None}]
    assert data["candidates"]["FLASH_ATTN"] is None
    assert data["orders"][0]["runners"][:2] == ["TRITON_FLASHINFER", "FLASHINFER"]
    html = render(ATTENTION, format="html", tables=("capabilities",))
    assert "<td><code>selector.head_size in [64, 128, 256, 512]</code></td>" in html
    rst = render(ATTENTION, format="rst", tables=("capabilities",))
    publish_doctree(rst, settings_overrides={"halt_level": 2, "report_level": 2})  # no docutils warning
    # A matrix whose runners state nothing keeps its pages as they were: no capability section.
    assert "capabilities" not in json.loads(render(matrix.default(), format="json"))
    assert "Runner capabilities" not in render(matrix.default())


def test_the_docs_page_of_the_example_is_current():
    from matrix.render import render

    page = (EXAMPLE.parent.parent / "docs" / "vllm-attention.md").read_text()
    begin, end = page.index("<!-- matrix:begin -->\n"), page.index("<!-- matrix:end -->")
    assert page[begin + len("<!-- matrix:begin -->\n"):end].strip("\n") == render(
        ATTENTION, tables=("runners", "capabilities", "config")).strip("\n")


def test_matrix_resolve_says_which_order_applied_and_which_backends_were_no_candidates():
    import io

    from matrix.cli import run

    out, err = io.StringIO(), io.StringIO()
    sets = ["selector.head_size=256", "selector.dtype=bfloat16", "device.capability=10.0", "fa.version=4",
            "fa.layer_version=4", "fa.fp8_ok=true", "fa.fp8_kv_ok=true", "flashinfer.trtllm=true"]
    status = run(["resolve", "--matrix", str(EXAMPLE / "features.toml"), *(w for s in sets for w in ("--set", s))],
                 stdout=out, stderr=err)
    assert (status, err.getvalue()) == (0, "")
    assert out.getvalue().splitlines() == [
        "Chose FLASHINFER (FlashInfer) automatically at version 0.33.0",
        "Order: SM100 order, because device.capability >= '10.0' and device.capability < '11.0' and not "
        "selector.use_non_causal holds",
        "Not a candidate: TRITON_FLASHINFER (Triton + FlashInfer), a candidate when device.capability >= '10.0' and "
        "device.capability < '11.0' and not selector.use_non_causal and selector.use_mm_prefix",
        "Also blocked TURBOQUANT (TurboQuant) because of: kv_cache_dtype not supported",
    ]
