"""Runner requirements (``[requires]`` in a runner file, kinds in ``[requirements]``), candidacy
(``candidate``) and config-dependent orders of automatic choice (``[orders]``): loaded and
type-checked, resolved, explained, and exact in the compiled fast path."""

import io
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

import matrix
from matrix import NoRunnerError, UnsupportedFeatureError
from matrix._compile import plan
from matrix.cli import run
from matrix.resolver import iter_observations

FEATURES = """\
[matrix]
name = "kernels"
version = "1.0"

[config]
"s.h" = { type = "int", min = 1 }
"s.dtype" = { type = "str", choices = ["f16", "f32"], default = "f16" }
"s.fast" = { type = "bool", default = false }
"s.sink" = { type = "bool", default = false }
"gpu.cc" = { type = "version" }

[requirements]
head = { name = "Head sizes", reason = "head_size not supported" }
dtype = { name = "Dtypes", reason = "dtype not supported" }
combination = { name = "Combinations" }

[orders.new_gpu]
name = "new-GPU order"
when = "gpu.cc >= '10.0' and not s.fast"
runners = ["small", "big"]

[features.sinks]
name = "attention sinks"
when = "s.sink"
support = { big = "no", small = "yes", combo = "yes" }
"""

RUNNERS = {
    "big": """\
name = "Big"
priority = 30

[requires]
head = { condition = "s.h % 8 == 0 and s.h <= 256", doc = "multiples of 8 up to 256" }
dtype = "s.dtype == 'f16'"
""",
    "small": """\
name = "Small"
priority = 20

[requires]
head = "s.h >= 32"
combination = [
  { condition = "not (s.fast and s.h == 64)", reason = "fast mode misreads head 64" },
  { condition = "not s.fast", reason = "fast mode not supported" },
]
""",
    "combo": """\
name = "Combo"
priority = 40
candidate = "s.fast and gpu.cc < '10.0'"

[requires]
head = "s.h == 256"
""",
}


def _load(tmp_path, features=FEATURES, runners=None):
    (tmp_path / "runners").mkdir()
    for id, text in (runners or RUNNERS).items():
        (tmp_path / "runners" / f"{id}.toml").write_text(text)
    (tmp_path / "features.toml").write_text(features)
    return matrix.load(tmp_path / "features.toml")


@pytest.fixture(scope="module")
def kernels(tmp_path_factory):
    return _load(tmp_path_factory.mktemp("kernels"))


def _config(h, cc="9.0", **flags):
    return {"s": {"h": h, **flags}, "gpu": {"cc": cc}}


def test_requirements_load_in_the_order_of_their_kinds(kernels):
    small = kernels.runner("small")
    assert [(r.kind, r.reason, str(r.condition)) for r in small.requires] == [
        ("head", "head_size not supported", "s.h >= 32"),
        ("combination", "fast mode misreads head 64", "not (s.fast and s.h == 64)"),
        ("combination", "fast mode not supported", "not s.fast"),
    ]
    assert kernels.runner("big").requires[0].doc == "multiples of 8 up to 256"
    assert str(kernels.runner("combo").candidate) == "s.fast and gpu.cc < '10.0'"
    assert [(o.id, o.name, o.runners) for o in kernels.orders] == [("new_gpu", "new-GPU order", ("small", "big"))]
    assert [(k.id, k.name, k.reason) for k in kernels.requirement_kinds] == [
        ("head", "Head sizes", "head_size not supported"), ("dtype", "Dtypes", "dtype not supported"),
        ("combination", "Combinations", None)]


def test_a_failed_requirement_blocks_its_runner_with_its_reason(kernels):
    resolution = kernels.resolve(_config(36))
    assert resolution.runner == "small"
    assert [(w.kind, w.message) for w in resolution.warnings] == [
        ("fallback", "Big is not valid for this config: head_size not supported; using Small instead")]
    assert kernels.resolve(_config(40)).runner == "big"


def test_the_reasons_are_listed_in_unsupported_and_in_to_dict(kernels):
    with pytest.raises(NoRunnerError) as caught:
        kernels.resolve(_config(12, dtype="f32"))
    assert caught.value.reason == (
        "No runner can serve this config: Big is not valid for this config: head_size not supported, "
        "dtype not supported; Small is not valid for this config: head_size not supported")
    resolution = caught.value.resolution
    assert resolution.active == ()
    assert {r: [g.name for g in gates] for r, gates in resolution.unsupported.items()} == {
        "combo": ["head_size not supported"], "big": ["head_size not supported", "dtype not supported"],
        "small": ["head_size not supported"]}
    assert resolution.to_dict()["unsupported"]["big"] == [
        {"id": "big:head", "name": "head_size not supported", "status": "no"},
        {"id": "big:dtype", "name": "dtype not supported", "status": "no"}]
    # The same requirements, as what they are: the clauses of the runner files.
    assert {r: [(c.runner, c.kind, c.reason) for c in clauses] for r, clauses in resolution.failed.items()} == {
        "combo": [("combo", "head", "head_size not supported")],
        "big": [("big", "head", "head_size not supported"), ("big", "dtype", "dtype not supported")],
        "small": [("small", "head", "head_size not supported")]}


def test_a_chain_reports_only_its_first_failing_clause(kernels):
    with pytest.raises(UnsupportedFeatureError) as caught:
        kernels.resolve(_config(64, fast=True), runner="small")
    assert caught.value.reason == "Small is not valid for this config: fast mode misreads head 64"
    with pytest.raises(UnsupportedFeatureError) as caught:
        kernels.resolve(_config(128, fast=True), runner="small")
    assert caught.value.reason == "Small is not valid for this config: fast mode not supported"


def test_features_and_requirements_block_together(kernels):
    with pytest.raises(UnsupportedFeatureError) as caught:
        kernels.resolve(_config(12, sink=True), runner="big")
    assert caught.value.reason == "Big does not support: attention sinks; and is not valid for this config: head_size not supported"


def test_a_runner_that_is_not_a_candidate_is_never_chosen_automatically_but_serves_when_asked(kernels):
    config = _config(256)  # combo serves head 256, but is a candidate only in fast mode before 10.0
    assert kernels.resolve(config).runner == "big"
    assert kernels.resolve(config, runner="combo").runner == "combo"
    assert kernels.is_supported(config, "combo")
    fast = _config(256, fast=True)
    assert kernels.resolve(fast).runner == "combo"
    assert kernels.resolve(_config(256, cc="10.0", fast=True)).runner == "big"  # no candidate there


def test_an_order_applies_when_its_condition_holds_and_explain_says_so(kernels):
    config = _config(128, cc="10.0")
    resolution = kernels.resolve(config)
    assert resolution.runner == "small"
    assert resolution.explain() == textwrap.dedent("""\
        Runner: small (Small), chosen automatically, at version 1.0
        Order: new-GPU order, because gpu.cc >= '10.0' and not s.fast holds; runners in that order:
          small (Small, priority 20): no blockers, chosen
          big (Big, priority 30): no blockers
          combo (Combo, priority 40): not a candidate (a candidate when s.fast and gpu.cc < '10.0'), fails 1 requirement
            - head_size not supported (requirement 'head')
                requires: s.h == 256
                because: s.h = 128
        Active features: none""")
    assert resolution.explanation()["order"] == {"id": "new_gpu", "name": "new-GPU order",
                                                 "when": "gpu.cc >= '10.0' and not s.fast"}
    assert kernels.resolve(_config(128)).explain().splitlines()[1] == (
        "Order: by priority (new-GPU order does not apply); runners, highest priority first:")
    assert kernels.resolve(_config(128)).runner == "big"


def test_explanation_data_names_the_failed_requirement(kernels):
    data = kernels.resolve(_config(36, cc="9.0")).explanation()
    big = next(r for r in data["runners"] if r["id"] == "big")
    assert big["candidate"] is True
    assert big["blockers"] == [{
        "id": "big:head", "name": "head_size not supported", "status": "no", "note": None,
        "when": "not (s.h % 8 == 0 and s.h <= 256)", "because": {"s.h": 36},
        "requirement": {"kind": "head", "condition": "s.h % 8 == 0 and s.h <= 256"}}]
    assert data["runner"] == "small"


def test_explanation_data_holds_the_orders_and_when_each_runner_is_a_candidate(kernels):
    data = kernels.resolve(_config(128)).explanation()
    assert (data["order"], data["orders"]) == (None, [
        {"id": "new_gpu", "name": "new-GPU order", "when": "gpu.cc >= '10.0' and not s.fast"}])
    assert [(r["id"], r["candidate"], r["candidate_when"]) for r in data["runners"]] == [
        ("combo", False, "s.fast and gpu.cc < '10.0'"), ("big", True, None), ("small", True, None)]


def test_observations_say_which_requirements_fail(kernels):
    seen = [(o.kind, o.feature.name, o.runner, o.status) for o in iter_observations(kernels, _config(12, sink=True))]
    assert seen == [
        ("status", "head_size not supported", "combo", "no"),
        ("status", "head_size not supported", "big", "no"),
        ("status", "head_size not supported", "small", "no"),
        ("active", "attention sinks", None, None),
        ("status", "attention sinks", "big", "no"),
    ]


@settings(max_examples=300, deadline=None)
@given(h=st.integers(1, 600), dtype=st.sampled_from(["f16", "f32"]), fast=st.booleans(), sink=st.booleans(),
       cc=st.sampled_from(["8.0", "9.0", "10.0", "12.0"]), runner=st.sampled_from([None, "big", "small", "combo"]))
def test_resolution_follows_the_rules_as_written(kernels, h, dtype, fast, sink, cc, runner):
    """A transcription of the three runner files and the order, as plain Python."""
    reasons = {
        "big": [r for r, ok in (("head_size not supported", h % 8 == 0 and h <= 256),
                                ("dtype not supported", dtype == "f16")) if not ok],
        "small": [r for r, ok in (("head_size not supported", h >= 32),) if not ok]
        + (["fast mode misreads head 64"] if fast and h == 64 else ["fast mode not supported"] if fast else []),
        "combo": [] if h == 256 else ["head_size not supported"],
    }
    blocked = {r: bool(reasons[r]) or (sink and r == "big") for r in reasons}
    new_gpu = Version(cc) >= Version("10.0") and not fast
    order = ["small", "big", "combo"] if new_gpu else ["combo", "big", "small"]
    candidates = [r for r in order if r != "combo" or (fast and Version(cc) < Version("10.0"))]
    config = {"s": {"h": h, "dtype": dtype, "fast": fast, "sink": sink}, "gpu": {"cc": cc}}
    if runner is None:
        expected = next((r for r in candidates if not blocked[r]), None)
    else:
        expected = None if blocked[runner] else runner
    try:
        got = kernels.resolve(config, runner=runner).runner
    except (NoRunnerError, UnsupportedFeatureError) as error:
        got = None
        unsupported = error.resolution.unsupported
    else:
        unsupported = kernels.resolve(config, runner=runner).unsupported
    assert got == expected
    assert {r: [g.name for g in gates if g.origin is not None] for r, gates in unsupported.items()} == reasons


def test_mistakes_in_requirements_and_orders_are_reported_all_at_once(tmp_path):
    features = FEATURES.replace('combination = { name = "Combinations" }', textwrap.dedent('''\
        combination = { name = "Combinations" }
        "bad id!" = { name = "x" }
        extra = { name = "E", reson = "typo" }''')).replace('runners = ["small", "big"]', textwrap.dedent('''\
        runners = ["big", "c", "big"]

        [orders.empty]
        name = "nothing"
        when = "s.fst"
        runners = []'''))
    runners = {
        "big": 'name = "Big"\npriority = 30\ncandidate = "s.h > \'x\'"\n\n[requires]\nhed = "s.h > 1"\n'
               'combination = [{ condition = "s.fast" }, { condition = "s.h % 0 == 1", reason = "r" }]\n',
        "small": 'name = "Small"\npriority = 20\nrequires = { head = [], combination = { condition = "not s.fast", '
                 'reason = "no", extra = 1 } }\n',
        "combo": RUNNERS["combo"],
    }
    (tmp_path / "runners").mkdir()
    for id, text in runners.items():
        (tmp_path / "runners" / f"{id}.toml").write_text(text)
    (tmp_path / "features.toml").write_text(features)
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", "--matrix", str(tmp_path / "features.toml")], stdout=out, stderr=err) == 2
    lines = [line.replace(str(tmp_path) + "/", "") for line in err.getvalue().splitlines()]
    assert lines == [
        "matrix: error: features.toml: 12 problems",
        "  features.toml:16:1: $.requirements[\"bad id!\"]: Requirement kind id 'bad id!' must be letters, digits, "
        "'_', '.' or '-'",
        "  features.toml:17:23: $.requirements.extra.reson: Unknown key 'reson', did you mean 'reason' (expected "
        "'alone', 'kind', 'name', 'reason')",
        "  features.toml:22:19: $.orders.new_gpu.runners[1]: Unknown runner 'c' (expected 'big', 'combo', 'small')",
        "  features.toml:22:24: $.orders.new_gpu.runners[2]: Runner 'big' is listed twice",
        "  features.toml:26:9: $.orders.empty.when: Unknown config path 's.fst', did you mean 's.fast'",
        "      s.fst",
        "      ^^^^^",
        "  features.toml:27:1: $.orders.empty.runners: An order needs at least one runner: runners = [\"…\"] lists "
        "the runners tried first, in order",
        "  runners/big.toml:3:14: $.candidate: Cannot order str 'x' with '>': only int, float and version values "
        "are ordered",
        "      s.h > 'x'",
        "      ^^^^^^^^^",
        "  runners/big.toml:6:1: $.requires.hed: Unknown requirement kind 'hed', did you mean 'head' (expected "
        "'combination', 'dtype', 'head')",
        "  runners/big.toml:7:16: $.requires.combination[0]: Requirement 'combination' needs a reason, the text users "
        "read when it fails: give { condition = \"…\", reason = \"…\" } here, or reason = \"…\" in "
        "[requirements.combination]",
        "  runners/big.toml:7:63: $.requires.combination[1].condition: Division by zero whatever the config: "
        "s.h % 0 (the divisor is the literal 0)",
        "      s.h % 0 == 1",
        "            ^",
        "  runners/small.toml:3:14: $.requires.head: Requirement 'head' is an empty array: give a condition, or "
        "delete the key",
        "  runners/small.toml:3:82: $.requires.combination.extra: Unknown key 'extra' (expected 'condition', 'doc', "
        "'kind', 'reason', 'roles', 'stage')",
    ]


def test_when_every_runner_is_a_candidate_only_sometimes_a_config_with_none_has_no_runner(tmp_path):
    m = _load(tmp_path, features='[matrix]\nname = "c"\nversion = "1.0"\n[config]\n"f" = { type = "bool" }\n',
              runners={"only": 'name = "Only"\npriority = 1\ncandidate = "f"\n'})
    assert m.resolve({"f": True}).runner == "only"
    with pytest.raises(NoRunnerError) as caught:
        m.resolve({"f": False})
    assert caught.value.reason == "No runner can serve this config: no runner is a candidate for it"
    assert m.resolve({"f": False}, runner="only").runner == "only"


def test_a_bad_value_is_said_with_the_rule_that_read_it_every_bad_value_in_config_order():
    """A candidacy, a requirement (a clause of a chain, a matrix-wide one) and an order are not
    features: a bad value they read says which rule read it (a user trial: "read by feature
    'nvenc:candidate'"); every bad value is said, the first read first."""
    text = (
        '[matrix]\nname = "t"\nversion = "1.0"\n[config]\nhw = { type = "bool" }\ncrf = { type = "int" }\n'
        'preset = { type = "str", choices = ["fast", "slow"] }\nlevel = { type = "int" }\nlong = { type = "int" }\n'
        '[requirements.crf]\nname = "CRF"\nreason = "crf {crf} is too high"\n'
        '[requirements.level]\nname = "Level"\nreason = "level {level} is too high"\n'
        '[requires.level]\ncondition = "level < 6"\n'
        '[orders.long]\nname = "Long"\nwhen = "long > 60"\nrunners = ["x264", "nvenc"]\n'
        '[features.slow]\nname = "Slow"\nwhen = "preset == \'slow\'"\nsupport = { nvenc = "yes", x264 = "yes" }\n')
    runners = {"nvenc": {"name": "NVENC", "priority": 2, "candidate": "hw",
                         "requires": {"crf": [{"condition": "crf > 0"}, {"condition": "crf < 52"}]}},
               "x264": {"name": "x264", "priority": 1}}
    m = matrix.loads(text, runners=runners)
    with pytest.raises(matrix.ConfigError) as caught:
        m.resolve({"hw": 1, "crf": "x", "preset": 3, "level": "6", "long": None})
    assert caught.exconly() == (
        "matrix.errors.ConfigError: Config 'preset' (read by feature 'slow'): Expected str, got int 3\n"
        "Config 'hw' (read by the candidacy of runner 'nvenc'): Expected bool, got int 1: write True or False "
        "(1 and 0 are not read as booleans)\n"
        "Config 'crf' (read by requirement 'crf' (clause 1) of runner 'nvenc'): Expected int, got str 'x'\n"
        "Config 'level' (read by requirement 'level'): Expected int, got str '6'\n"
        "Config 'long' (read by order 'long'): Is None, but the schema does not declare it nullable")
    assert [(e.path, e.feature) for e in (caught.value, *caught.value.others)] == [
        ("preset", "slow"), ("hw", "nvenc:candidate"), ("crf", "nvenc:crf:1"), ("level", "*:level"),
        ("long", "order:long")]


def test_requirements_read_only_fields_that_exist_at_every_version(tmp_path):
    features = FEATURES.replace('"gpu.cc" = { type = "version" }',
                                '"gpu.cc" = { type = "version" }\n"s.new" = { type = "bool", default = false, since = "1.0" }')
    runners = dict(RUNNERS, small='name = "Small"\npriority = 20\ncandidate = "s.new"\n')
    with pytest.raises(matrix.LoadError) as caught:
        _load(tmp_path, features, runners)
    assert [p.message for p in caught.value.problems] == [
        "[config] 's.new' exists from 1.0, but runner requirements, candidacies and orders apply at every version: "
        "read a field that always exists"]


def test_a_chain_longer_than_any_predicate_text_resolves(tmp_path):
    # The gate of clause 150 fails where clause 150 does and the 149 before it hold: as text,
    # 5,441 characters, past the 4,096 a predicate may be written in. Derived gates are built
    # as trees, never pasted together and parsed again.
    features = textwrap.dedent("""\
        [matrix]
        name = "chain"
        version = "1.0"

        [config]
        "s.h" = { type = "int" }
        "s.dtype" = { type = "str", choices = ["f16", "f32"], default = "f16" }

        [requirements]
        combination = { name = "Combinations" }
        """)
    clauses = ",\n".join(f"  {{ condition = \"s.h != {i} or s.dtype == 'f16'\", reason = \"head {i} needs f16\" }}"
                         for i in range(1, 151))
    runners = {"chain": f'name = "Chain"\npriority = 20\n\n[requires]\ncombination = [\n{clauses},\n]\n',
               "plain": 'name = "Plain"\npriority = 10\n'}
    m = _load(tmp_path, features, runners)
    resolution = m.resolve({"s": {"h": 150, "dtype": "f32"}})
    assert (resolution.runner, [w.message for w in resolution.warnings]) == (
        "plain", ["Chain is not valid for this config: head 150 needs f16; using Plain instead"])
    last = m.gates_at()[-1]
    chain = [c.condition for c in m.runner("chain").requires]
    expected = ~chain[-1]
    for clause in chain[:-1]:
        expected &= clause
    assert (last.id, last.when, len(str(last.when))) == ("chain:combination:150", expected, 5441)
    # The fast path holds the clauses before each gate in a local that grows by one clause a gate
    # (h0 … h148: matrix._compile._Running), so its source is linear in the chain (22,014
    # characters; written out it was 394,035, 0.3 s to compile), and it agrees with the interpreter.
    # 22,039: every evaluator takes issubclass as a default argument (issue 29: a section's check).
    compiled = plan(m, m.version)
    assert [line.split(" = ")[0].strip() for line in compiled.source.splitlines() if line.startswith("    h")] == [
        f"h{i}" for i in range(149)]
    assert len(compiled.source) == 22039
    for h in (1, 2, 75, 150, 151):
        for dtype in ("f16", "f32"):
            config = {"s": {"h": h, "dtype": dtype}}
            mask, _ = compiled.evaluate(config)
            assert [bool(mask >> i & 1) for i in range(len(compiled.features))] == [
                g.when.evaluate(config, schema=m.schema) for g in compiled.features]


# --- matrix-wide requirements (issue 30, F4): [requires] of features.toml -------------------------

WIDE = """\
[matrix]
name = "wide"
version = "1.0"

[config]
tp = { type = "int", min = 1, max = 8, default = 1 }
dcp = { type = "int", min = 1, max = 8, default = 1 }
xpu = { type = "bool", default = false }
page = { type = "int", min = 1, max = 256, default = 1 }

[requirements]
split = { name = "DCP split", reason = "tp_size must be divisible by dcp_size", kind = "ValueError" }
xpu_dcp = { name = "XPU with DCP", reason = "XPU with DCP needs the intel_xpu backend" }
page = { name = "Page sizes", reason = "page_size must be 1 or 64" }

[requires]
split = "tp % dcp == 0"
xpu_dcp = { condition = "not (xpu and dcp > 1)", exempt = ["intel_xpu"] }

[features.big_page]
name = "large pages"
when = "page > 64"
support = { fa3 = "no", triton = "yes", intel_xpu = "yes" }
"""

WIDE_RUNNERS = {
    "fa3": {"name": "FA3", "priority": 30},
    "triton": {"name": "Triton", "priority": 20, "requires": {"page": "page == 1 or page == 64"}},
    "intel_xpu": {"name": "Intel XPU", "priority": 10},
}


@pytest.mark.parametrize(("config", "runner", "error", "message", "kind"), [
    # No runner exempt: refused whatever the runner, with the reason alone, in either mode.
    ({"tp": 3, "dcp": 2}, None, NoRunnerError, "tp_size must be divisible by dcp_size", "ValueError"),
    ({"tp": 3, "dcp": 2}, "triton", UnsupportedFeatureError, "tp_size must be divisible by dcp_size", "ValueError"),
    ({"tp": 3, "dcp": 2, "xpu": True}, "intel_xpu", UnsupportedFeatureError, "tp_size must be divisible by dcp_size",
     "ValueError"),
    # Exempting a runner: a requirement of every other runner, said as theirs.
    ({"tp": 2, "dcp": 2, "xpu": True}, "fa3", UnsupportedFeatureError,
     "FA3 is not valid for this config: XPU with DCP needs the intel_xpu backend", None),
])
def test_a_matrix_wide_requirement_refuses_as_the_readme_says(config, runner, error, message, kind):
    m = matrix.loads(WIDE, runners=WIDE_RUNNERS)
    with pytest.raises(error) as excinfo:
        m.resolve(config, runner=runner)
    assert (excinfo.value.reason, excinfo.value.kind) == (message, kind)


ALONE = """\
[matrix]
name = "alone"
version = "1.0"
stages = ["choice", "pages"]

[config]
backend = { type = "str", nullable = true, choices = ["fa3", "triton"] }
decode = { type = "str", nullable = true, choices = ["fa3", "triton"] }
spec = { type = "bool", default = false }
page = { type = "int", min = 1, max = 256, default = 1 }
hopper = { type = "bool", default = true, fact = true }

[roles.base]
name = "Backend"
field = "backend"

[roles.decode]
name = "Decode backend"
field = "decode"
follows = "base"

[requirements]
spec = { name = "Speculative decoding", reason = "Speculative decoding is not supported with FA3", kind = "AssertionError", alone = true }
page = { name = "Page size", reason = "FA3 needs page 64, got {page}", kind = "ValueError", alone = true }
decode = { name = "Decode", alone = true, kind = "RuntimeError" }
plain = { name = "Plain", reason = "plain reason" }

[orders.hopper]
name = "Hopper default"
when = "hopper"
runners = ["fa3"]
fallback = false
"""

ALONE_RUNNERS = {
    "fa3": {"name": "FA3", "priority": 30,
            "requires": {"spec": "not spec", "plain": "page != 3",
                         "page": {"condition": "page == 64 or page < 32", "stage": "pages"},
                         "decode": {"condition": "role.base == 'fa3'", "roles": ["decode"],
                                    "reason": "FA3 decodes only beside FA3, not {role.base}"}}},
    "triton": {"name": "Triton", "priority": 20},
}


@pytest.mark.parametrize(("config", "runner", "error", "message", "kind"), [
    # A request, a gate: the reason alone, the host's exception kind.
    ({"spec": True}, "fa3", UnsupportedFeatureError, "Speculative decoding is not supported with FA3",
     "AssertionError"),
    # The validated default of an order without fallback: the reason alone inside the order's sentence.
    ({"spec": True}, None, NoRunnerError,
     "No runner can serve this config: Hopper default chooses FA3, and Speculative decoding is not supported with FA3",
     "AssertionError"),
    # Beside a reason of a kind without alone: the one alone first, then the runner's sentence.
    ({"spec": True, "page": 3}, "fa3", UnsupportedFeatureError,
     "Speculative decoding is not supported with FA3; FA3 is not valid for this config: plain reason", "AssertionError"),
    # A staged requirement, asked for and chosen.
    ({"page": 40}, "fa3", UnsupportedFeatureError, "FA3 needs page 64, got 40", "ValueError"),
    ({"page": 40}, None, matrix.AdjustmentError, "FA3 needs page 64, got 40", "ValueError"),
    # A requirement of the decode role, read after the choice (its kind said too: it was lost before).
    ({"backend": "triton", "decode": "fa3"}, None, UnsupportedFeatureError, "FA3 decodes only beside FA3, not triton",
     "RuntimeError"),
])
def test_a_requirement_kind_alone_says_its_reason_as_the_host_does(config, runner, error, message, kind):
    m = matrix.loads(ALONE, runners=ALONE_RUNNERS)
    with pytest.raises(error) as excinfo:
        m.resolve(config, runner=runner)
    assert (excinfo.value.reason, excinfo.value.kind) == (message, kind)
    if kind is not None:
        from matrix.binding import raise_as_host

        with pytest.raises(BaseException) as host:
            raise_as_host(excinfo.value)
        assert (type(host.value).__name__, str(host.value)) == (kind, message)


def test_a_requirement_kind_alone_still_names_its_runner_in_a_fallback_notice():
    m = matrix.loads(ALONE.replace("fallback = false", "fallback = true"), runners=ALONE_RUNNERS)
    resolution = m.resolve({"spec": True})
    assert (resolution.runner, [str(w) for w in resolution.warnings]) == ("triton", [
        "FA3 is not valid for this config: Speculative decoding is not supported with FA3; using Triton instead"])


def test_a_matrix_wide_requirement_exempting_a_runner_blocks_the_others_as_their_own_would():
    m = matrix.loads(WIDE, runners=WIDE_RUNNERS)
    resolution = m.resolve({"tp": 2, "dcp": 2, "xpu": True})
    assert resolution.runner == "intel_xpu"
    assert [str(w) for w in resolution.warnings] == [
        "FA3 is not valid for this config: XPU with DCP needs the intel_xpu backend; Triton is not valid for this "
        "config: XPU with DCP needs the intel_xpu backend; using Intel XPU instead"]
    assert [(r.runner, r.kind, r.exempt) for r in resolution.failed["fa3"]] == [("*", "xpu_dcp", ("intel_xpu",))]
    assert resolution.failed["intel_xpu"] == ()
    # The gates are named *:KIND; the capability table shows them in each runner's column they bind.
    assert [g.id for g in m.gates_at() if g.origin is not None][:2] == ["*:split", "*:xpu_dcp"]
    from matrix.render import render

    rows = [line for line in render(m, tables=["capabilities"]).splitlines() if line.startswith("| ")][1:3]
    # Said once, under Every runner (issue 30, item 4): a runner's column says only its own.
    assert rows == [
        "| DCP split | `tp % dcp == 0` |  |  |  | tp\\_size must be divisible by dcp\\_size (raises ValueError) |",
        "| XPU with DCP | `not (xpu and dcp > 1)` (not Intel XPU) |  |  |  | XPU with DCP needs the intel\\_xpu backend |"]


def test_check_reports_a_matrix_wide_refusal_acknowledged_and_a_refusal_may_name_it():
    from matrix.check import check

    m = matrix.loads(WIDE, runners=WIDE_RUNNERS)
    found = [f for f in check(m).findings if f.code == "no-runner"]
    assert [(f.features, f.refusal, f.place, f.witness) for f in found] == [
        (("*:split",), "*:split", "$.requires.split", {"dcp": 2, "tp": 1})]
    named = matrix.loads(WIDE + '[refusals.x]\nreason = "said"\ntogether = [["*:split"]]\n', runners=WIDE_RUNNERS)
    assert [(f.refusal, f.message.endswith("(acknowledged: said)")) for f in check(named).findings
            if f.code == "no-runner"] == [("x", True)]


# --- an order without when (issue 30, D12): the last rule of a ladder -----------------------------

LADDER = """\
[matrix]
name = "ladder"
version = "1.0"

[config]
sm = { type = "int", min = 0, max = 100, default = 0 }
kv = { type = "str", choices = ["auto", "fp8"], default = "auto" }

[features.fp8]
name = "FP8 KV cache"
when = "kv == 'fp8'"
support = { fa3 = "yes", triton = "no", flashinfer = "yes" }

[orders.hopper]
name = "Hopper default"
when = "sm == 90"
runners = ["fa3"]
fallback = false

[orders.rest]
name = "Default"
runners = ["triton"]
fallback = false
"""

LADDER_RUNNERS = {"fa3": {"name": "FA3", "priority": 3}, "flashinfer": {"name": "FlashInfer", "priority": 2},
                  "triton": {"name": "Triton", "priority": 1}}


def test_an_order_without_when_is_the_validated_default_wherever_no_order_before_it_applies():
    m = matrix.loads(LADDER, runners=LADDER_RUNNERS)
    assert [m.resolve(c).runner for c in ({}, {"sm": 90}, {"sm": 90, "kv": "fp8"})] == ["triton", "fa3", "fa3"]
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve({"kv": "fp8"})  # FlashInfer serves FP8, but the last order does not fall back to it
    assert excinfo.value.reason == ("No runner can serve this config: Default chooses Triton, and Triton does not "
                                    "support: FP8 KV cache")
    assert m.resolve({}).explain().splitlines()[1:5] == [
        "Order: Default, which applies wherever no order before it does; its first candidate is validated, "
        "without fallback; runners in that order:",
        "  triton (Triton, priority 1): no blockers, chosen",
        # The runners after the first candidate are never tried, and said so (not "no blockers").
        "  fa3 (FA3, priority 3): not tried: Default does not fall back",
        "  flashinfer (FlashInfer, priority 2): not tried: Default does not fall back"]
    # Asked for, a runner reads no order: the order's runners are listed, not said to decide (a user trial).
    assert m.resolve({}, runner="fa3").explain().splitlines()[1:5] == [
        "Runners, in the order 'Default' gives automatic choice (a runner asked for does not read it):",
        "  triton (Triton, priority 1): no blockers",
        "  fa3 (FA3, priority 3): no blockers, chosen",
        "  flashinfer (FlashInfer, priority 2): no blockers"]
    from matrix.check import check
    from matrix.render import render

    assert [f.message for f in check(m).findings if f.code in ("no-runner", "never-chosen")] == [
        # (Not "a runner before it is free too": Triton may be blocked, and FlashInfer is still not tried.)
        "FlashInfer is never chosen automatically: whenever it is free, an order without fallback that applies tries "
        "another runner first",
        "No runner can serve a config with FP8 KV cache and the order 'Default' applying wherever no order before it "
        "does, without fallback: FA3 is not tried: Default does not fall back; FlashInfer is not tried: Default does "
        "not fall back; Triton does not support FP8 KV cache"]
    text = render(m, tables=["capabilities"])
    assert text.splitlines()[-3:] == [
        "When `sm == 90`: Hopper default, the first candidate of fa3, validated without fallback (blocked: no runner).",
        "",
        "Otherwise: Default, the first candidate of triton, validated without fallback (blocked: no runner)."]


# --- reasons and former ids' messages as templates (issue 30, F7) ----------------------------

TEMPLATED = """
[matrix]
name = "t"
version = "1.0"
[config]
tp = { type = "int", min = 1, default = 1 }
dcp = { type = "int", min = 1, default = 1 }
frac = { type = "float", nullable = true }
mode = { type = "str", default = "a" }
heads = { type = "int", derive = "tp // dcp" }
[requirements]
split = { name = "DCP split", reason = "tp_size ({tp}) must be divisible by dcp_size ({dcp:d}) {{sic}}", kind = "ValueError" }
small = { name = "Small", reason = "tp {tp!r} is over 8 ({heads} heads, fraction {frac:.3f}, mode {mode!r:>5})" }
[requires]
split = "tp % dcp == 0"
[adjustments.fraction]
name = "Fraction"
when = "tp == 6"
set = { frac = 0.85 }
[features.f]
name = "F"
when = "tp > 100"
support = { a = "yes", b = "yes" }
"""


def _templated():
    runners = {"a": {"name": "A", "priority": 2, "requires": {"small": "tp <= 8"},
                     "aliases": [{"id": "old_a", "since": "0.5", "message": "A reads mode {mode!r}"}]},
               "b": {"name": "B", "priority": 1}}
    return matrix.loads(TEMPLATED, runners=runners)


def test_a_reason_is_a_template_said_of_the_config_it_refuses():
    m = _templated()
    with pytest.raises(matrix.NoRunnerError) as caught:
        m.resolve({"tp": 3, "dcp": 2})
    assert caught.value.reason == "tp_size (3) must be divisible by dcp_size (2) {sic}"
    assert caught.value.kind == "ValueError"
    from matrix.binding import raise_as_host

    with pytest.raises(ValueError) as raised:
        raise_as_host(caught.value)
    assert raised.exconly() == "ValueError: tp_size (3) must be divisible by dcp_size (2) {sic}"
    # Said of each config: the decision is not shared by the configs of one mask.
    with pytest.raises(matrix.NoRunnerError) as caught:
        m.resolve({"tp": 5, "dcp": 2})
    assert caught.value.reason == "tp_size (5) must be divisible by dcp_size (2) {sic}"
    # A runner's own: its fallback notice, a None under a format spec said None, a derived field.
    resolution = m.resolve({"tp": 9, "mode": "x"})
    assert [w.message for w in resolution.warnings] == [
        "A is not valid for this config: tp 9 is over 8 (9 heads, fraction None, mode   'x'); using B instead"]
    with pytest.raises(matrix.UnsupportedFeatureError) as caught:
        m.resolve({"tp": 9, "frac": 0.25}, runner="a")
    assert caught.value.reason == "A is not valid for this config: tp 9 is over 8 (9 heads, fraction 0.250, mode   'a')"
    assert "    - tp 9 is over 8 (9 heads, fraction 0.250, mode   'a') (requirement 'small')" in \
        caught.value.resolution.explain().splitlines()
    # The runner's validation reads its effective config: the adjustment's value is said.
    with pytest.raises(matrix.UnsupportedFeatureError) as caught:
        m.resolve({"tp": 12, "dcp": 2}, runner="a")
    assert caught.value.reason == "A is not valid for this config: tp 12 is over 8 (6 heads, fraction None, mode   'a')"


def test_a_former_ids_message_says_the_config_and_the_docs_and_check_say_the_template():
    m = _templated()
    assert [w.message for w in m.resolve({"mode": "z"}, runner="old_a").warnings] == [
        "Runner id 'old_a' is deprecated since 0.5; use 'a' instead (A reads mode 'z')"]
    # Where no config is at hand, a requirement's reason says the slot of each path (trial 11:
    # it was shown as written, braces and format specs).
    from matrix.check import check
    from matrix.render import render

    rows = [line for line in render(m, tables=["capabilities"]).splitlines() if line.startswith("| ")][1:3]
    assert rows == [
        "| DCP split | `tp % dcp == 0` |  |  | tp\\_size (‹tp›) must be divisible by dcp\\_size (‹dcp›) {sic} "
        "(raises ValueError) |",
        "| Small |  | `tp <= 8` |  | tp ‹tp› is over 8 (‹heads› heads, fraction ‹frac›, mode ‹mode›) |",
    ]
    assert [str(f) for f in check(m).findings if f.code == "no-runner"] == [
        "<string>:15:1: note[no-runner]: No runner can serve a config with 'tp_size (‹tp›) must be divisible by "
        "dcp_size (‹dcp›) {sic}' (failing tp % dcp == 0): every runner refuses it: tp_size (‹tp›) must be "
        "divisible by dcp_size (‹dcp›) {sic} (acknowledged: a matrix-wide requirement, which refuses it whatever "
        "the runner)"]


def test_a_none_is_said_none_whatever_the_spec_unless_a_conversion_made_it_text_first():
    """docs/reference/file-format.md, message templates: the reviewer read "a None is said None
    whatever the spec" as covering `{n!r:>6}` too; a conversion makes it text, which the spec pads."""
    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\nn = { type = "int", nullable = true }\n'
                     '[requirements]\nk = { name = "K", reason = "[{n!r:>6}] [{n:>6}] [{n:.3f}]" }\n',
                     runners={"r": {"name": "R", "priority": 1, "requires": {"k": "n is not None"}}})
    with pytest.raises(matrix.NoRunnerError) as raised:
        m.resolve({})
    assert str(raised.value).split("\n")[0] == ("No runner can serve this config: R is not valid for this config: "
                                               "[  None] [None] [None]")


def _staged_matrix():
    """docs/reference/file-format.md, "Staged requirements": a matrix-wide requirement before the
    choice, a runner's after the adjustment of its stage."""
    return matrix.loads(textwrap.dedent('''\
        [matrix]
        name = "staged"
        version = "1.0"
        stages = ["device", "choice", "pages", "late"]
        [config]
        page_size = { type = "int", min = 1, default = 16 }
        tp_size = { type = "int", min = 1, default = 1 }
        mla = { type = "bool", default = false }
        [requirements]
        page = { name = "Page size", reason = "page_size must be 64, not {page_size}", kind = "ValueError" }
        tp = { name = "Tensor parallel", reason = "tp_size must be at most 8" }
        [requires]
        tp = { condition = "tp_size <= 8", stage = "device" }
        [features.mla]
        name = "MLA"
        when = "mla"
        support = { flashmla = "yes", triton = "no" }
        [adjustments.mla_page]
        name = "MLA page"
        when = "page_size < 64"
        set = { page_size = 64 }
        runners = ["flashmla"]
        stage = "pages"
        message = "flashmla needs page 64"
        [adjustments.late]
        name = "late"
        when = "tp_size > 1"
        set = { tp_size = 1 }
        stage = "late"
        message = "tp back to 1"
        '''), runners={"flashmla": {"name": "FlashMLA", "priority": 2,
                                    "requires": {"page": {"condition": "page_size == 64", "stage": "pages"}}},
                       "triton": {"name": "Triton", "priority": 1}})


def test_a_staged_requirement_is_no_gate_and_is_checked_after_the_adjustments_of_its_stage():
    m = _staged_matrix()
    # Not a gate: page 16 fails it on the config of choice, yet flashmla is chosen, and served
    # once its page adjustment has run.
    served = m.resolve({"page_size": 16, "tp_size": 2})
    assert (served.runner, [(a.id, a.path, a.before, a.after) for a in served.adjustments]) == (
        "flashmla", [("mla_page", "page_size", 16, 64), ("late", "tp_size", 2, 1)])
    assert served.staged_refusal is None and "staged_refusal" not in served.to_dict()
    # Page 128: the adjustment leaves it, the requirement refuses flashmla at its stage; the
    # validated choice is final (no move to triton), the stages after it are not run.
    with pytest.raises(matrix.AdjustmentError) as automatic:
        m.resolve({"page_size": 128, "tp_size": 2})
    # The message ends with the remedy for the runner chosen (a review: an AdjustmentError said
    # none): flashmla's adjustment sets a page below 64 to 64.
    assert automatic.value.message == (
        "FlashMLA is not valid for this config: page_size must be 64, not 128\n"
        "To use FlashMLA, change: set page_size to a value from 1 to 64")
    assert automatic.value.kind == "ValueError"
    refused = automatic.value.resolution
    assert (refused.runner, refused.adjustments, refused.effective["tp_size"]) == (None, (), 2)
    assert refused.staged_refusal == refused.to_dict()["staged_refusal"] == refused.explanation()["staged_refusal"] == {
        "stage": "pages", "runner": "flashmla", "role": None, "requirements": ["flashmla:page"],
        "reasons": ["page_size must be 64, not 128"], "kind": "ValueError"}
    assert refused.explain().splitlines()[-1] == "Refused at stage 'pages' for flashmla: page_size must be 64, not 128"
    assert automatic.value.remedies == refused.remedies() == (refused.remedy("flashmla"),)
    with pytest.raises(UnsupportedFeatureError) as asked:
        m.resolve({"page_size": 128}, runner="flashmla")
    assert asked.value.message == ("FlashMLA is not valid for this config: page_size must be 64, not 128\n"
                                   "To use FlashMLA, change: set page_size to a value from 1 to 64")
    assert m.resolve({"page_size": 128}, runner="triton").runner == "triton"
    assert [m.is_supported({"page_size": p}, "flashmla") for p in (16, 64, 128)] == [True, True, False]
    # MLA blocks triton: automatic choice takes flashmla, whose page then refuses.
    with pytest.raises(matrix.AdjustmentError) as blocked:
        m.resolve({"page_size": 128, "mla": True})
    assert str(blocked.value).splitlines()[1:] == ["To use FlashMLA, change: set page_size to a value from 1 to 64"]


def test_a_staged_requirement_before_the_choice_refuses_whatever_the_runner_with_its_reason_alone():
    m = _staged_matrix()
    with pytest.raises(NoRunnerError) as automatic:
        m.resolve({"tp_size": 16})
    # Refused whatever the runner, before any is chosen: no remedy in automatic choice; asked
    # for, the remedy for the runner asked for.
    assert (automatic.value.message, automatic.value.kind, automatic.value.remedies) == (
        "tp_size must be at most 8", None, ())
    assert automatic.value.resolution.staged_refusal == {
        "stage": "device", "runner": None, "role": None, "requirements": ["*:tp"], "reasons": ["tp_size must be at most 8"],
        "kind": None}
    for runner in ("flashmla", "triton"):
        with pytest.raises(UnsupportedFeatureError) as asked:
            m.resolve({"tp_size": 16}, runner=runner)
        assert asked.value.message == f"tp_size must be at most 8\nTo use {m.runner(runner).name}, change: set tp_size " \
                                      "to a value from 1 to 8"
        assert m.is_supported({"tp_size": 16}, runner) is False
    # The capability table: a Stage column, for a staged matrix only.
    from matrix.render import render

    assert [line for line in render(m, tables=["capabilities"]).splitlines() if line.startswith("| ")] == [
        "| Requirement | Every runner | FlashMLA | Triton | Stage | Reason |",
        "| Page size |  | `page_size == 64` |  | pages | page\\_size must be 64, not ‹page\\_size› (raises ValueError) |",
        "| Tensor parallel | `tp_size <= 8` |  |  | device | tp\\_size must be at most 8 |",
        "| Candidate for automatic choice |  | always | always | choice |  |"]


# Three backends in three roles (the prefill and decode roles following the base) over stages
# after the choice: the head of the matrices of requirements staged after the choice with roles.
_BACKENDS = '{ type = "str", nullable = true, choices = ["fa3", "flashinfer", "triton"] }'
_PHASES = textwrap.dedent(f'''\
        [matrix]
        name = "phases"
        version = "1.0"
        stages = ["choice", "pages", "serving"]
        [config]
        backend = {_BACKENDS}
        prefill = {_BACKENDS}
        decode = {_BACKENDS}
        enable_mis = {{ type = "bool", default = false }}
        [roles.base]
        name = "Backend"
        field = "backend"
        [roles.prefill]
        name = "Prefill"
        field = "prefill"
        follows = "base"
        [roles.decode]
        name = "Decode"
        field = "decode"
        follows = "base"
        ''')


def _staged_roles_matrix():
    """docs/reference/file-format.md, "Staged requirements" read after the choice with roles:
    SGLang's E44 (multi-item scoring needs flashinfer in both phases, checked at the last stage,
    whichever runner fills each role then) as a matrix-wide requirement staged after the choice."""
    return matrix.loads(_PHASES + textwrap.dedent('''\
        [requirements.mis]
        name = "Multi-item scoring"
        kind = "AssertionError"
        [requires.mis]
        condition = "not enable_mis or role.prefill == 'flashinfer' and role.decode == 'flashinfer'"
        stage = "serving"
        reason = "Multi-item scoring requires flashinfer. Current backends: prefill={role.prefill}, decode={role.decode}"
        [adjustments.decode_fi]
        name = "Decode with flashinfer"
        stage = "pages"
        when = "enable_mis and role.base == 'flashinfer' and decode is None"
        set = { decode = "flashinfer" }
        '''), runners={"fa3": {"name": "FA3", "priority": 3}, "flashinfer": {"name": "FlashInfer", "priority": 2},
                       "triton": {"name": "Triton", "priority": 1}})


def test_a_requirement_staged_after_the_choice_reads_the_roles_as_they_stand_at_its_stage():
    m = _staged_roles_matrix()
    # Automatic choice takes fa3, which fills every role: the requirement refuses it at its stage
    # (a validated default is final), its reason saying the roles as they stood there.
    with pytest.raises(matrix.AdjustmentError) as automatic:
        m.resolve({"enable_mis": True})
    said = "Multi-item scoring requires flashinfer. Current backends: prefill=fa3, decode=fa3"
    # The remedy for the runner chosen, fa3 (outside roles: the requirement is matrix-wide).
    assert (automatic.value.message, automatic.value.kind) == (
        f"{said}\nTo use FA3, change: set enable_mis to False", "AssertionError")
    assert str(automatic.value.resolution.remedy("flashinfer")) == (
        "To use FlashInfer, change: ask for it by id (runner='flashinfer', --runner flashinfer)")
    assert automatic.value.resolution.staged_refusal == {
        "stage": "serving", "runner": "fa3", "role": None, "requirements": ["*:mis"], "reasons": [said],
        "kind": "AssertionError"}
    # The error's resolution says the roles as they stood at the stage (a user trial: "Runner: none", no role).
    assert automatic.value.resolution.explain().splitlines()[1] == (
        "Roles: Backend (base) = fa3, chosen automatically; Prefill (prefill) = fa3, "
        "follows base; Decode (decode) = fa3, follows base")
    served = m.resolve({"enable_mis": True, "backend": "flashinfer"})
    assert (served.runner, dict(served.roles)) == ("flashinfer", {"base": "flashinfer", "prefill": "flashinfer",
                                                                  "decode": "flashinfer"})
    # A role's field, as the stages before it leave it: decode_fi sets it at 'pages', before the
    # check; asked for in the decode role, triton refuses.
    with pytest.raises(UnsupportedFeatureError) as asked:
        m.resolve({"enable_mis": True, "decode": "triton"}, runner="flashinfer")
    assert asked.value.message == ("Multi-item scoring requires flashinfer. Current backends: prefill=flashinfer, "
                                   "decode=triton\nTo use FlashInfer, change: set enable_mis to False; or set decode to "
                                   "one of 'flashinfer', None")
    assert [m.is_supported({"enable_mis": True, "decode": d}, "flashinfer") for d in (None, "flashinfer", "triton")] == [
        True, True, False]
    assert m.is_supported({"enable_mis": True}, "fa3") is False
    # Check reads the roles where each runner serves: the requirement refuses and passes.
    from matrix.check import check

    codes = {(f.code, f.place) for f in check(m).findings}
    assert not {c for c in codes if c[0] in ("requirement-idle", "requirement-unmet", "inconclusive")}, codes



def _staged_role_matrix(pair="role.prefill != 'fa3'"):
    """docs/reference/file-format.md, "Staged requirements": a requirement of roles at a stage,
    checked there where its runner fills one of its roles (triton in the decode role, at
    'pages'), before a matrix-wide one of a later stage (mis, at 'serving'); flashinfer's in the
    prefill role at 'serving', after the matrix-wide one of that stage."""
    return matrix.loads(_PHASES + textwrap.dedent('''\
        [requirements.pair]
        name = "Decode beside prefill"
        kind = "ValueError"
        [requirements.mis]
        name = "Multi-item scoring"
        kind = "AssertionError"
        [requirements.solo]
        name = "FlashInfer prefill"
        [requires.mis]
        condition = "not enable_mis or role.decode == 'flashinfer'"
        stage = "serving"
        reason = "Multi-item scoring needs a flashinfer decode, not {role.decode}"
        '''), runners={
        "fa3": {"name": "FA3", "priority": 3},
        "flashinfer": {"name": "FlashInfer", "priority": 2, "requires": {"solo": {
            "condition": "role.decode == 'flashinfer'", "roles": ["prefill"], "stage": "serving",
            "reason": "prefill flashinfer needs decode flashinfer"}}},
        "triton": {"name": "Triton", "priority": 1, "requires": {"pair": {
            "condition": pair, "roles": ["decode"], "stage": "pages",
            "reason": "Triton decode cannot read a {role.prefill!r} prefill"}}}})


def test_a_requirement_of_roles_at_a_stage_is_checked_there_where_its_runner_fills_one():
    m = _staged_role_matrix()
    assert [(c.runner, c.kind, c.roles, c.stage) for c in m.staged] == [  # in the order checked
        ("triton", "pair", ("decode",), "pages"), ("*", "mis", (), "serving"),
        ("flashinfer", "solo", ("prefill",), "serving")]
    assert m.runner("triton").requires == m.runner("triton").role_requires == ()  # no gate
    # Automatic choice takes fa3 (prefill follows it); triton asked for in the decode role is
    # refused at 'pages', as every staged refusal after the choice in automatic choice.
    with pytest.raises(matrix.AdjustmentError) as automatic:
        m.resolve({"decode": "triton"})
    # The message and the explanation name the role it was refused in (a user trial), and say the
    # roles as they stood at the stage.
    said = "Triton in role 'decode' is not valid for this config: Triton decode cannot read a 'fa3' prefill"
    # In automatic choice too (an AdjustmentError), the remedy for the base role's runner.
    assert (automatic.value.message, automatic.value.kind) == (
        f"{said}\nTo use FA3, change: set prefill to 'triton'; or set decode to one of 'fa3', 'flashinfer', None",
        "ValueError")
    assert automatic.value.resolution.staged_refusal == {
        "stage": "pages", "runner": "triton", "role": "decode", "requirements": ["triton:pair"],
        "reasons": ["Triton decode cannot read a 'fa3' prefill"], "kind": "ValueError"}
    assert dict(automatic.value.resolution.roles) == {"base": "fa3", "prefill": "fa3", "decode": "triton"}
    assert [automatic.value.resolution.explain().splitlines()[i] for i in (1, -1)] == [
        "Roles: Backend (base) = fa3, chosen automatically; Prefill (prefill) = fa3, "
        "follows base; Decode (decode) = triton, asked for",
        "Refused at stage 'pages' for triton in role 'decode': Triton decode cannot read a 'fa3' prefill"]
    # At its stage, before the matrix-wide requirement of a later one (mis, at 'serving').
    with pytest.raises(UnsupportedFeatureError) as asked:
        m.resolve({"decode": "triton", "enable_mis": True}, runner="fa3")
    assert asked.value.resolution.staged_refusal["requirements"] == ["triton:pair"]
    served = m.resolve({"decode": "triton", "prefill": "triton"})
    assert dict(served.roles) == {"base": "fa3", "prefill": "triton", "decode": "triton"}
    # Within a stage, the matrix-wide requirements and the serving runner's own refuse first.
    with pytest.raises(UnsupportedFeatureError) as first:
        m.resolve({"prefill": "flashinfer", "enable_mis": True}, runner="fa3")
    assert (first.value.message, first.value.resolution.staged_refusal["runner"]) == (
        "Multi-item scoring needs a flashinfer decode, not fa3\nTo use FA3, change: set decode to 'flashinfer'", "fa3")
    with pytest.raises(matrix.AdjustmentError) as other:
        m.resolve({"prefill": "flashinfer"})
    assert (other.value.message, other.value.resolution.staged_refusal["runner"]) == (
        "FlashInfer in role 'prefill' is not valid for this config: prefill flashinfer needs decode flashinfer\n"
        "To use FA3, change: set prefill to one of 'fa3', 'triton', None; or set decode to 'flashinfer'", "flashinfer")
    assert [m.is_supported({"decode": "triton", "prefill": p}, "fa3") for p in (None, "triton")] == [False, True]


def test_check_says_a_requirement_of_roles_at_a_stage_idle_or_unmet_where_its_runner_fills_one():
    from matrix.check import check

    def said(m):
        return [(f.code, f.runner, f.message) for f in check(m).findings
                if f.code in ("requirement-idle", "requirement-unmet", "inconclusive")]

    assert said(_staged_role_matrix()) == []
    assert said(_staged_role_matrix("False")) == [(
        "requirement-unmet", "triton", "Triton's requirement 'pair' (Triton decode cannot read a {role.prefill!r} "
        "prefill), at stage 'pages', refuses every config that reaches that stage where FA3, FlashInfer, Triton "
        "serves and Triton fills the decode role")]
    assert said(_staged_role_matrix("role.prefill in ['fa3', 'flashinfer', 'triton']")) == [(
        "requirement-idle", "triton", "Triton's requirement 'pair' (Triton decode cannot read a {role.prefill!r} "
        "prefill), at stage 'pages', never refuses: it holds for every config checked there; delete it, or check "
        "its condition")]
