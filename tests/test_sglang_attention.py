"""The third real matrix: SGLang 0.5.23's attention-backend resolution (`examples/sglang-attention/`),
held to the plain-Python transcription of the facts (`tests/sglang_attention_reference.py`) on
random configs over every field the transcription reads, and on the 16 worked examples of §10.

What is compared: the three backends (the roles' runners) or the refusal (SGLang's rule, exception
kind and message: SGLang stops at its first failed check, the matrix names every failed
requirement in the order of its kinds, which is SGLang's, so the first is compared), the final
value of every path an adjustment changed, and the warnings, in order. The rules the engine
cannot say yet are `UNSAID`: a config whose transcription record involves one is not compared,
and the number compared has a floor, so that the filter cannot swallow everything."""

import pathlib
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import matrix
from matrix import ResolutionError
from matrix.binding import raise_as_host
from tests import sglang_attention_reference as reference
from tests import test_sglang_reference as transcription_tests

EXAMPLE = pathlib.Path(__file__).parent.parent / "examples" / "sglang-attention"
SGLANG = matrix.load(EXAMPLE / "features.toml")
KINDS = [kind.id for kind in SGLANG.requirement_kinds]

# Every rule of §2–§6 the example does not say, with what it waits for (README.md's table).
UNSAID = {
    "D1": "left out: an out-of-tree platform plugin's backend is open-ended, not a runner",
    "E1-E3-S1": "requirements checked at a stage before the choice (F6): E1–E3 read the base before S1 rewrites it",
    "E6": "requirements checked at a stage before the choice (F6): A16 sets the fields it reads",
    "E7": "requirements checked at a stage before the choice (F6): A16 sets the fields it reads",
    "E8": "requirements checked at a stage before the choice (F6): A16 sets the fields it reads",
    "E9": "requirements checked at a stage before the choice (F6): A16 sets the fields it reads",
    "A28-default": "redirects that act on the automatic choice (applies = 'always', F6): D3/D8's fa3",
    "A31": "staged redirects (F6): SGLang falls back to torch_native after A19 has read intel_amx",
    "W1": "role.<id> in conditions (F1): the FP4 prefill/decode pair, the automatic choice included",
    "E38": "role.<id> in conditions (F1): the FP4 prefill/decode pair",
    "E39": "role.<id> in conditions (F1): the FP4 prefill/decode pair",
    "E40": "role.<id> in conditions (F1): the FP4 prefill/decode pair",
    "E41": "role.<id> in conditions (F1): the FP4 prefill/decode pair",
    "E44": "role.<id> in conditions (F1): both phases' runners flashinfer",
    "E45": "role.<id> in conditions (F1): the prefill phase's runner fa3 or fa4",
}
# A redirect's warning is said at the choice; SGLang logs A28's and A32's after the page rules':
# where a record holds one, its warnings are compared as a multiset (their order waits for F6).
REDIRECTS = {"A28", "A32"}


def _involved(config, record):
    """The rule ids of *record*, and of what it shows without an id (D1, A28 on the default, W1,
    E1–E3 where S1 rewrites the base)."""
    rules = {adjustment.rule for adjustment in record.adjustments}
    if record.error is not None:
        rules.add(record.error.rule)
    if "A18" in rules and config.get("platform", {}).get("out_of_tree_attention_backend") is not None:
        rules.add("D1")
    if {"A18", "A28"} <= rules:
        rules.add("A28-default")
    # E1–E3 are checked on the effective config, where S1 may have rewritten the base they read at
    # step 7: a deterministic config that S1 rewrites, or that step 7 or 8 refuses before S1 runs.
    deterministic = "A9" in rules or config.get("enable_deterministic_inference")
    early = record.error is not None and record.error.rule in {f"E{n}" for n in range(1, 10)}
    if deterministic and ("A17" in rules or early):
        rules.add("E1-E3-S1")
    if any(warning.startswith("Attention: Using KV4 with") for warning in record.warnings):
        rules.add("W1")
    return rules


def _to_matrix(config):
    """The host's config: the transcription's, with a ':N' device suffix dropped (step 2, which §10
    does not count as an adjustment)."""
    config = dict(config)
    if config.get("device") is not None:
        config["device"] = config["device"].split(":")[0]
    return config


def _finals(pairs):
    finals = {}
    for path, after in pairs:
        finals[path] = after
    return finals


def _expected(record):
    """What the transcription says, in the shape `_answer` gives."""
    if record.error is not None:
        answer = {"refusal": (record.error.rule, record.error.kind, record.error.message)}
    else:
        answer = {"roles": (record.attention_backend, record.prefill_attention_backend,
                            record.decode_attention_backend)}
    # The base backend is compared as the base role's runner (the engine does not write its
    # automatic choice or a redirect back into the field): attention_backend is left out here.
    answer["adjusted"] = _finals((a.path, a.after) for a in record.adjustments if a.path != "attention_backend")
    answer["warnings"] = list(record.warnings)
    return answer


def _answer(config):
    """What the matrix says of *config*."""
    try:
        resolution = SGLANG.resolve(_to_matrix(config))
    except ResolutionError as error:
        resolution = error.resolution
        failed = [q for requirements in resolution.failed.values() for q in requirements]
        first = min(failed, key=lambda q: KINDS.index(q.kind)).kind if failed else None
        answer = {"refusal": (first, error.kind, error.reason)}
    else:
        roles = resolution.roles
        answer = {"roles": (roles["base"], roles["prefill"], roles["decode"])}
    answer["adjusted"] = _finals((a.path, a.after) for a in resolution.adjustments
                                 if not a.id.startswith("input_") and a.path != "attention_backend")
    answer["warnings"] = [w.message for w in resolution.warnings if not (w.kind == "adjusted" and w.level == "info")]
    return answer


def _agrees(config, record):
    expected, answer = _expected(record), _answer(config)
    if "refusal" in expected and "refusal" in answer:
        # SGLang raises its first failed check; the matrix says every failed one, its first first.
        rule, kind, message = expected["refusal"]
        first, error_kind, reason = answer["refusal"]
        assert (first, error_kind) == (rule, kind), (config, answer["refusal"], expected["refusal"])
        assert reason == message or reason.startswith(message + "; "), (config, reason, message)
        return  # a refusal's earlier declarations are moot (§5)
    if _involved(config, record) & REDIRECTS:
        expected["warnings"], answer["warnings"] = Counter(expected["warnings"]), Counter(answer["warnings"])
    assert answer == expected, config


# The transcription's own strategies (tests/test_sglang_reference.py: every field it reads, and its
# two rare corners), but the environment variables SGLang writes drawn as the typed fields they
# are here (the transcription draws them as the string '1' the environment may hold).
ENV = {**{name: transcription_tests.ENV[name] for name in reference.ENV},
       "SGLANG_VLM_CACHE_SIZE_MB": st.none() | st.just(64), "SGLANG_ENABLE_DETERMINISTIC_INFERENCE": st.none() | st.booleans(),
       "NCCL_ALGO": st.none() | st.just("ring"), "NCCL_MIN_NCHANNELS": st.none() | st.just(4),
       "NCCL_MAX_NCHANNELS": st.none() | st.just(4)}


def _with_env(strategy):
    return strategy.flatmap(lambda config: transcription_tests._section(ENV).map(lambda env: {**config, "env": env}))


CONFIGS = _with_env(transcription_tests.CONFIGS)
# Four times the profile's examples: 200 in development, 2,000 in CI (about 10 s). Of CI's 4,000 at
# eight times, 3,428 were compared (1,696 served, 1,732 refused): the floors are two thirds and a tenth.
EXAMPLES = settings.default.max_examples * 4
FLOOR = EXAMPLES * 2 // 3


def test_the_matrix_answers_as_sglang_on_random_configs():
    seen = Counter()

    @settings(max_examples=EXAMPLES, deadline=None)
    @given(CONFIGS)
    def agrees(config):
        seen["drawn"] += 1
        record = reference.resolve(config)
        if _involved(config, record) & set(UNSAID):
            return
        seen["compared"] += 1
        seen["refused" if record.error else "served"] += 1
        _agrees(config, record)

    agrees()
    assert seen["compared"] >= FLOOR, seen
    assert seen["refused"] >= EXAMPLES // 10, seen  # the refusals are compared, not only the served


# --- §10's worked examples, exactly ----------------------------------------------------------------

def _waits(reason):
    return pytest.mark.xfail(strict=True, reason=f"waits for {reason}")


WAITING = {
    "12 x86 CPU without AMX: A7 fills intel_amx, A31 falls back, CUDA graphs untouched": UNSAID["A31"],
}


@pytest.mark.parametrize(("config", "record"), [
    pytest.param(config, record, id=name, marks=[_waits(WAITING[name])] if name in WAITING else [])
    for name, (config, record) in transcription_tests.EXAMPLES.items()])
def test_worked_examples(config, record):
    _agrees(config, record)


def test_worked_example_1_h100_says_its_choice():
    resolution = SGLANG.resolve({})
    assert resolution.explanation()["order"]["id"] == "D3"
    assert dict(resolution.roles) == {"base": "fa3", "prefill": "fa3", "decode": "fa3"}
    assert [(a.id, a.path, a.before, a.after) for a in resolution.adjustments if not a.id.startswith("input_")] == [
        ("A36", "page_size", None, 1)]


def test_worked_example_10_refusal_is_sglangs_value_error():
    config = transcription_tests.EXAMPLES["10 H100, MLA, trtllm_mla"][0]
    with pytest.raises(ResolutionError) as excinfo:
        SGLANG.resolve(config)
    with pytest.raises(ValueError, match=r"^TRTLLM MLA backend is only supported on Blackwell GPUs \(SM100/SM12x\)\. "
                                         r"Please use a different backend\.$"):
        raise_as_host(excinfo.value)
