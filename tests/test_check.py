import io
from collections import Counter
import json
import pathlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, RemovedFeatureError, UnsupportedFeatureError, _messages
from matrix.check import CODES, check
from matrix.schema import Requirement
from matrix.cli import run
from matrix.strategies import configs, matrices

DATA = pathlib.Path(__file__).parent / "data" / "check"
ROOT = pathlib.Path(__file__).parent.parent
CORPUS = sorted(DATA.glob("*.toml"))


def call(*args):
    out, err = io.StringIO(), io.StringIO()
    status = run(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_check_corpus(path, monkeypatch):
    monkeypatch.chdir(DATA)
    expected = path.with_suffix(".txt").read_text()
    status, out, err = call("check", "--matrix", path.name)
    assert err == ""
    assert out + f"exit: {status}\n" == expected


def test_the_corpus_has_a_matrix_per_code():
    codes = {p.stem for p in CORPUS}
    assert codes == set(CODES) - {"inconclusive"}  # inconclusive: see the budget test
    for path in CORPUS:
        assert f"[{path.stem}]" in path.with_suffix(".txt").read_text()


def _shows(m, finding):
    """Re-resolve a finding's witness and check that it shows the finding."""
    config = finding.witness
    if finding.code == "no-runner":
        with pytest.raises(NoRunnerError) as excinfo:
            m.resolve(config)
        resolution = excinfo.value.resolution
        # A failed runner requirement is not an active feature: it blocks its runner.
        blocking = {g.id for gates in resolution.unsupported.values() for g in gates}
        assert set(finding.combinations[0]) <= {f.id for f in resolution.active} | blocking
    elif finding.code == "implied-contradiction":
        narrow, broad = finding.features
        try:
            active = {f.id for f in m.resolve(config).active}
        except (NoRunnerError, RemovedFeatureError) as error:
            active = {f.id for f in error.resolution.active}
        assert {narrow, broad} <= active
    elif finding.code == "adjustment-refuses":
        # Free on the config of choice, blocked on the runner's effective config.
        with pytest.raises(matrix.AdjustmentError) as excinfo:
            m.resolve(config)
        assert excinfo.value.resolution.adjustments[-1].runner == finding.runner
    elif finding.code == "forced-freed":
        # No runner on the config of choice, the forced runner's adjustments said (and applied
        # on its effective config, where no gate that blocks it holds).
        with pytest.raises(NoRunnerError) as excinfo:
            m.resolve(config)
        resolution = excinfo.value.resolution
        mine = [a for a in resolution.adjustments if a.runner == finding.runner]
        said = [w.feature for w in resolution.warnings if w.kind == "adjusted" and w.runner == finding.runner]
        # Every adjustment that changed a value says so, in order; the others said are those
        # that speak always (README: says = "always", or a notice, speaks wherever its when
        # holds, a value changed or not), which change nothing.
        speaks_always = {a.id for a in m.adjustments if a.says == "always" or not a.set}
        assert mine and [i for i in said if i not in speaks_always or i in {a.id for a in mine}] \
            == list(dict.fromkeys(a.id for a in mine))
        assert set(said) - {a.id for a in mine} <= speaks_always
        plan = resolution._plan
        assert not resolution._mask & plan.blocking[finding.runner] & plan.automatic
    elif finding.code == "redirect-refused":
        # The request for the redirect's runner goes to its target, which refuses it.
        with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
            m.resolve(config, runner=finding.runner)
        resolution = excinfo.value.resolution
        assert resolution.redirect is not None and resolution.redirect.runner == finding.runner
        assert excinfo.value.args[0].startswith(f"Asked for {finding.runner!r}, redirected to ")
    else:  # pragma: no cover - every code with a witness is listed above
        raise AssertionError(finding.code)


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_corpus_witnesses_really_show_their_findings(path):
    m = matrix.load(path)
    for finding in check(m).findings:
        if finding.witness is not None:
            _shows(m, finding)


def test_the_default_matrix_has_no_errors_and_lists_its_no_runner_combinations():
    m = matrix.default()
    report = check(m)
    assert report.failed is False
    assert report.counts()["error"] == 0
    # Issue 27: its adjustments are weighed exactly, and none of them refuses, never applies, or is undone.
    assert {f.code for f in report.findings} == {"no-runner"}
    # 86 refused pairs, a V1-only feature with a V2-only one each, read as two products (the
    # "with …" DBO rules apply only when a runner is asked for: automatic choice has no pair of them).
    first, second = [f for f in report.findings if f.code == "no-runner"]
    assert (len(first.combinations), len(second.combinations)) == (70, 16)
    assert ("prefill_context_parallel", "spec_suffix") in first.combinations
    assert set(first.combinations) == {(a, b) for a in first.features[:10] for b in first.features[10:]}
    assert str(second) == (
        "features.toml:293:1: note[no-runner]: No runner can serve a config that uses any of [dspark speculative "
        "decoding, xpress speculative decoding, mixed sliding/full dflash drafts, DFlash candidate-head drafts] "
        "together with any of [pipeline parallelism with external_launcher, heterogeneous-vocabulary draft models, "
        "dual batch overlap, missing Triton] (16 combinations): Model Runner V2 does not "
        "support the second list; Model Runner V1 does not support the first list (acknowledged: a feature only "
        "Model Runner V1 serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error)"
    )
    assert second.witness == {"parallel_config": {"distributed_executor_backend": "external_launcher",
                                                  "pipeline_parallel_size": 2}, "speculative_config": {"method": "dspark"}}
    # Every pair of a product is refused: each one, resolved.
    space = Space(m.schema, [f.when.node for f in m.features_at()])
    for finding in report.findings:
        for pair in finding.combinations:
            config = space.witness(space.solve(true=[m.feature(gate).when.node for gate in pair]))
            with pytest.raises(NoRunnerError) as info:
                m.resolve(config)
            assert set(pair) <= {f.id for f in info.value.resolution.active}, pair
    for finding in report.findings:
        _shows(m, finding)
    assert check(m, strict=True).failed is False  # its refusals are declared: see below


def test_the_default_matrix_records_its_removals_and_an_unrecorded_one_is_overdue():
    for version in ("0.30.0", "0.31.0", "0.32.0", "0.33.0"):
        assert [str(f) for f in check(matrix.default(), version=version).findings if f.severity == "error"] == []
    text = (ROOT / "features.toml").read_text().replace(
        'remove_in = "0.32.0", removed = true, replacement', 'remove_in = "0.32.0", replacement')
    unrecorded = matrix.loads(text, runners=str(ROOT / "runners"), path="features.toml")
    assert [str(f) for f in check(unrecorded, version="0.32.0").findings if f.severity == "error"] == [
        "features.toml:258:34: error[removal-overdue]: mamba cache mode 'all' was due for removal in 0.32.0, "
        "and the matrix is checked as of 0.32.0: record the removal with removed = true (configs that use it are "
        "then refused with the replacement), or move remove_in"
    ]


def test_automatic_choice_analyses_leave_out_a_gate_that_applies_only_when_asked():
    text = """
[matrix]
name = "t"
version = "1.0"
[config]
"x" = { type = "bool", default = false }
"y" = { type = "bool", default = false }
[features.both_refuse]
name = "both refuse"
when = "x"
support = { a = "no", b = "no" }
APPLIES
[features.a_refuses]
name = "a refuses"
when = "y"
support = { a = "no", b = "yes" }
"""
    runners = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}
    always = check(matrix.loads(text.replace("APPLIES", ""), runners=runners))
    assert [f.message for f in always.findings if f.code == "no-runner"] == [
        "No runner can serve a config that uses both refuse: A does not support both refuse; B does not support both refuse"]
    asked = check(matrix.loads(text.replace("APPLIES", 'applies = "asked"'), runners=runners))
    assert [f.code for f in asked.findings if f.code == "no-runner"] == []
    # In force only in automatic choice, it still blocks both there.
    automatic = check(matrix.loads(text.replace("APPLIES", 'applies = "automatic"'), runners=runners))
    assert [f.message for f in automatic.findings if f.code == "no-runner"] == [
        "No runner can serve a config that uses both refuse: A does not support both refuse; B does not support both refuse"]


def test_a_search_over_budget_is_inconclusive_never_a_guess():
    m = matrix.load(DATA / "no-runner.toml")
    report = check(m, budget=2)
    inconclusive = [f for f in report.findings if f.code == "inconclusive"]
    assert inconclusive
    assert all(f.severity == "warning" for f in inconclusive)
    assert inconclusive[0].message == "Could not decide within 2 steps whether a can be active"
    assert not any(f.code in ("never-active", "always-active") for f in report.findings)


def test_json_format_and_exit_codes(monkeypatch):
    monkeypatch.chdir(DATA)
    status, out, _ = call("check", "--matrix", "never-active.toml", "--format", "json")
    data = json.loads(out)
    assert status == 1 and data["failed"] is True
    assert data["counts"] == {"error": 2, "warning": 0, "note": 0}
    assert data["findings"][0] == {
        "code": "never-active", "severity": "error",
        "message": "impossible range can never be active: no config satisfies x > 4 and x < 2",
        "feature": "impossible", "runner": None, "place": "$.features.impossible",
        "file": "never-active.toml", "line": 11, "column": 1, "witness": None, "features": [],
        "combinations": [], "refusal": None, "path": None, "member": None,
    }
    assert call("check", "--matrix", "no-runner.toml")[0] == 0
    assert call("check", "--matrix", "no-runner.toml", "--strict")[0] == 1
    assert call("check", "--matrix", "missing.toml")[0] == 2


@given(st.data())
def test_every_config_without_a_runner_is_covered_by_a_reported_combination(data):
    m = data.draw(matrices(max_features=5))
    report = check(m)
    combos = [set(c) for f in report.findings if f.code == "no-runner" for c in f.combinations]
    assert not any(f.code == "inconclusive" for f in report.findings)
    # A search cut at two failed requirements covers only the configs that fail at most two.
    cut = any(f.code == "no-runner-cut" for f in report.findings)
    for finding in report.findings:
        if finding.code == "no-runner":
            try:
                m.resolve(finding.witness)
            except RemovedFeatureError:
                continue  # removal is decided before runners; the combination still stands
            except NoRunnerError as error:
                assert set(finding.combinations[0]) <= _holding(m, error.resolution)
            else:
                raise AssertionError(f"witness {finding.witness} has a runner")
    for _ in range(5):
        config = data.draw(configs(m))
        try:
            m.resolve(config)
        except NoRunnerError as error:
            holding = _holding(m, error.resolution)
            failed = sum(1 for g in error.resolution._plan.active(error.resolution._mask)
                         if isinstance(g.origin, Requirement))
            if not cut or failed <= 2:
                assert any(combo <= holding for combo in combos), (holding, combos)
        except RemovedFeatureError:
            pass


def _holding(m, resolution):
    """The ids of the gates a no-runner combination may name that hold for a resolution: the
    active gates, the runner requirements it fails, and ``<runner>:not-candidate`` for each
    runner that is not a candidate."""
    active = resolution._plan.active(resolution._mask)
    ids = {g.id for g in active}
    for runner in m.runners:
        if runner.candidate is not None and f"{runner.id}:candidate" not in ids:
            ids.add(f"{runner.id}:not-candidate")
    return ids


# --- exactness: check against brute force over every config of small matrices ---------------------

import itertools  # noqa: E402
import re  # noqa: E402
import math  # noqa: E402
import zlib  # noqa: E402

from hypothesis import settings  # noqa: E402

from matrix._space import Space  # noqa: E402

_VERSIONS = ["0.dev0", "0.1", "1.0.dev0", "1.0a0", "1.0", "1.0+a", "1.0+local", "1.0+local.1", "1.0.post1", "1.5",
             "2.0.dev0", "2.0a0", "2.0a1", "2.0b1", "2.0", "2.0+x", "2.0.post1", "2.0.post1+0", "3.0"]
_MAX = 1.7976931348623157e308
# The last six: past every float (an int of a float field is compared exactly; one below 2**1024
# is a value of it: f > _MAX and f < i holds at f = int(_MAX) + 1, i = 2**1025, which the
# brute force once missed).
_BIG = [2 ** 53, 2 ** 53 + 1, 10 ** 16 - 1, 10 ** 16, 10 ** 16 + 1, 2 ** 1025, -2 ** 1025,
        int(_MAX) + 1, int(_MAX) + 2, -int(_MAX) - 1, -int(_MAX) - 2]
_INT_CONSTANTS = [0, 1, 2, 2.5, -1, 0.5, 1e16, 2 ** 53 + 1]
_FLOAT_CONSTANTS = [0.5, 1.0, 2, 1e16, _MAX, -_MAX, 2 ** 60]
_VERSION_CONSTANTS = ["1.0", "2.0.dev0", "2.0", "2.0.post1", "1.0+local", "2.0a1"]

# Every field of the small matrices, and a generous universe of values for each, built
# independently of the partition (neighbours of every constant, infinities, big integers, every
# choice of t as a value of s, the lists of every subset of the strings compared): enough that
# "no config does X" can be checked in both directions.
_FIELDS = {
    "i": ('"i" = { type = "int", nullable = true }',
          sorted({v for c in _INT_CONSTANTS for v in (math.floor(c) - 1, math.floor(c), math.ceil(c), math.ceil(c) + 1)}
                 | set(range(-2, 4)) | set(_BIG)
                 | {int(c) + d for c in _FLOAT_CONSTANTS if float(c).is_integer() for d in (-1, 0, 1)}) + [None]),
    "j": ('"j" = { type = "int", min = 0, max = 3, default = 0 }', [0, 1, 2, 3]),
    "f": ('"f" = { type = "float", default = 0.0 }',
          sorted({v for c in _FLOAT_CONSTANTS for v in (c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf))}
                 | {0.0, 0.75, 1.5, 3.0, -1.0, -2.0, math.inf, -math.inf, 2 ** 60 + 1, 2 ** 60 - 1}
                 # An int is a value of a float field too, compared exactly: f == i holds at
                 # i = f = 2**53 + 1, which no float equals (the brute force once missed it).
                 | {b for b in _BIG if abs(b) < 2 ** 1024})),
    "v": ('"v" = { type = "version", default = "1.0" }', _VERSIONS),
    "w": ('"w" = { type = "version", nullable = true }', _VERSIONS + [None]),
    "s": ('"s" = { type = "str", default = "" }', ["", "a", "b", "c", "q", "zz"]),
    "t": ('"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }', ["a", "b", "c"]),
    "l": ('"l" = { type = "list[str]", default = [] }',
          [list(c) for n in range(5) for c in itertools.combinations(["a", "b", "c", "zz"], n)] + [[""], ["q"]]),
    "b": ('"b" = { type = "bool", default = false }', [False, True]),
}

# Where two numeric fields meet (f == i, j < f): every integral float is an integer too, and
# every integer a float.
_INTS, _FLOATS = _FIELDS["i"][1][:-1], _FIELDS["f"][1]
_FIELDS["i"] = (_FIELDS["i"][0], sorted(set(_INTS) | {int(x) for x in _FLOATS if math.isfinite(x) and float(x).is_integer()})
                + [None])
_FIELDS["f"] = (_FIELDS["f"][0], sorted(set(_FLOATS) | {float(n) for n in _INTS if abs(n) < 2 ** 1023}))

_ATOMS = {
    "i": [f"i {op} {c!r}" for op in ("<", "<=", ">", ">=", "==", "!=") for c in _INT_CONSTANTS] + ["i is None"],
    "j": [f"j {op} {c}" for op in ("<", ">", "==") for c in (0, 1.5, 3)],
    "f": [f"f {op} {c!r}" for op in ("<", "<=", ">", ">=", "==") for c in _FLOAT_CONSTANTS],
    "v": [f"v {op} '{c}'" for op in ("<", "<=", ">", ">=", "==") for c in _VERSION_CONSTANTS],
    "w": ["w is None", "w > '1.0'", "w == '2.0'"],
    "s": ["s == 'a'", "s != 'b'", "s in ['a', 'b']"],
    "t": ["t == 'a'", "t != 'c'"],
    "l": ["'a' in l", "'zz' not in l", "l"],
    "b": ["b", "not b"],
}
_RELATIONS = [("i", "j", "i {op} j"), ("j", "f", "j {op} f"), ("i", "f", "f {op} i"), ("v", "w", "v {op} w"),
              ("s", "t", "s == t"), ("s", "t", "s != t"), ("s", "l", "s in l"), ("t", "l", "t not in l")]


_ATOMS["i"] += ["i % 2 == 0", "i % 3 == 2", "i % 4 <= 1", "i % 4 != 2"]
_ATOMS["j"] += ["j % 2 == 1", "j < 0"]  # j < 0: no config (min 0), for clauses no config meets
_RELATIONS += [("i", "j", "j == i % 3"), ("i", "j", "i % 2 < j % 3"), ("i", "f", "i % 4 > f")]
# Residues of every divisor the atoms use (lcm 12) in every gap: the universe must hold a config
# for each class the partition may claim is empty.
_FIELDS["i"] = (_FIELDS["i"][0], sorted(set(_FIELDS["i"][1][:-1]) | set(range(-14, 20))) + [None])


# Arithmetic across fields (issue 30, F3): bounded ints, enumerated by the solver; a derived
# field of p; divisions by a field that may be 0 or None; and one sum with the unbounded i,
# which check may only leave undecided (inconclusive), never answer wrongly.
_FIELDS["p"] = ('"p" = { type = "int", min = -2, max = 5, default = 0 }\n'
                '"pd" = { type = "int", derive = "p * p // 3 - max(p, 1)" }', list(range(-2, 6)))
_FIELDS["q"] = ('"q" = { type = "int", min = 0, max = 4, nullable = true }', list(range(0, 5)) + [None])


def _div(a, b, f):
    """The README's rule: an int operation of None, or by a zero divisor, is None."""
    return None if a is None or b is None or (b == 0 and f in ("//", "%")) else \
        {"+": a + b, "-": a - b, "*": a * b, "//": a // b if b else None, "%": a % b if b else None}[f]


def _pd(p):
    return _div(_div(p * p, 3, "//"), max(p, 1), "-")


# Each arithmetic atom with its reference, written from the README, not from the engine.
_ARITH = {
    "p + 1 == 3": lambda c: c["p"] + 1 == 3,
    "p * 2 > 5": lambda c: c["p"] * 2 > 5,
    "p // 2 == -1": lambda c: c["p"] // 2 == -1,
    "(p - 1) % 3 == 0": lambda c: (c["p"] - 1) % 3 == 0,
    "pd >= 2": lambda c: _pd(c["p"]) >= 2,
    "pd == -1": lambda c: _pd(c["p"]) == -1,
    "max(p, 1) == 1": lambda c: max(c["p"], 1) == 1,
    "min(p, 0) - 1 < -2": lambda c: min(c["p"], 0) - 1 < -2,
    "q * q > 5": lambda c: c["q"] is not None and c["q"] * c["q"] > 5,
    "q - 1 <= 0": lambda c: c["q"] is not None and c["q"] - 1 <= 0,
    "p % q == 1": lambda c: _div(c["p"], c["q"], "%") == 1,
    "p % q != 0": lambda c: _div(c["p"], c["q"], "%") != 0,
    "p // q < 1": lambda c: (lambda v: v is not None and v < 1)(_div(c["p"], c["q"], "//")),
    "max(p, j) > j + 1": lambda c: max(c["p"], c["j"]) > c["j"] + 1,
    "p + i == 3": lambda c: c["i"] is not None and c["p"] + c["i"] == 3,
    "q * 2 == pd": lambda c: c["q"] is not None and _pd(c["p"]) == c["q"] * 2,
}
_ATOMS["p"] = ["p + 1 == 3", "p * 2 > 5", "p // 2 == -1", "(p - 1) % 3 == 0", "pd >= 2", "pd == -1",
               "max(p, 1) == 1", "min(p, 0) - 1 < -2", "p == 1", "p > 3"]
_ATOMS["q"] = ["q * q > 5", "q - 1 <= 0", "q is None", "q % 2 == 0"]
_RELATIONS += [("p", "q", "p % q == 1"), ("p", "q", "p % q != 0"), ("p", "q", "p // q < 1"),
               ("p", "j", "max(p, j) > j + 1"), ("p", "i", "p + i == 3"), ("p", "q", "q < p"),
               ("p", "q", "q * 2 == pd")]


# A bounded int read modulo numbers (residue classes, every int of which is known) and, with its
# atom of arithmetic, enumerated value by value: a remedy says many values that serve by their
# rule ("a multiple of 3 from 3 to 39", trial 9). Drawn only where a test names it in its pool
# (`_DRAWN`): 41 values make the universes of the other brute forces too large.
_FIELDS["m"] = ('"m" = { type = "int", min = 0, max = 40, default = 0 }', list(range(0, 41)))
_ATOMS["m"] = ["m % 3 == 0", "m % 4 <= 1", "m % 7 != 2", "m > 20", "m == 9", "m * 2 != 14"]


# A nullable float that adjustments set, copy and scale (times, issue 30): every constant its
# atoms compare with, with its neighbours, and what the times the adjustments draw make of them.
_G_CONSTANTS = [0.0, 0.5, 0.85, 1.0]
_FIELDS["g"] = ('"g" = { type = "float", nullable = true }',
                sorted({v for c in _G_CONSTANTS for v in (c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf))}
                       | {-1.5, 2.0, math.inf, -math.inf}) + [None])
_ATOMS["g"] = ["g is None", "g > 0.5", "g <= 1.0", "g == 0.85", "g < 0.0"]


#: The fields a matrix draws from unless a test names its pool.
# An int field with choices: a remedy says the choices that serve, never a range between its
# constants that holds values the field refuses (a user trial read "a value from 2 to 8" of
# choices [1, 3, 6, 9]).
_FIELDS["k"] = ('"k" = { type = "int", choices = [1, 3, 6, 9], default = 3 }', [1, 3, 6, 9])
_ATOMS["k"] = ["k == 9", "k > 3", "k < 6", "k != 1"]
_DRAWN = sorted(n for n in _FIELDS if n != "m")
#: Fields small enough for a brute force over every config with adjustments (resolved once per
#: runner asked for and automatically, and by the reference).
_ADJUSTABLE = ["i", "j", "t", "b", "w", "s", "g"]
#: What a copy into a field of each kind may be scaled by (``times``, issue 30): the loader
#: refuses a product that leaves the target's bounds (j's), which the brute force skips.
_TIMES = {"int": (2, -3), "float": (0.85, 2, -1.5)}
_KINDS = {"i": ("int", True), "j": ("int", False), "t": ("str", False), "b": ("bool", False),
          "w": ("version", True), "s": ("str", False), "g": ("float", True)}
#: The text after this line of a small matrix is its adjustments.
ADJUSTMENTS_MARK = "# --- adjustments"


#: Per adjustable field, an atom and a value that makes it hold: the steered matrices (`_small_matrices`)
#: gate a runner with the atom and give it an adjustment that sets the value, so that its own
#: adjustments may leave it blocked where it was free (adjustment-refuses).
_HITS = {"i": ("i == 1", 1), "j": ("j == 3", 3), "t": ("t == 'b'", "b"), "b": ("b", True), "w": ("w == '2.0'", "2.0"),
         "s": ("s == 'a'", "a"), "g": ("g is None", None)}


def _toml_value(value):
    if value is None:
        return "{ none = true }"
    if isinstance(value, bool):
        return str(value).lower()
    return json.dumps(value)


def _error_kind(draw):
    """A requirement kind's ``kind`` (the exception a host raises for it), mostly left out; a
    kind with one may say its reason alone (``alone = true``)."""
    kind = draw(st.sampled_from([None, None, "ValueError", "TypeError", "ValueError alone"]))
    if kind is None:
        return ""
    return f", kind = {json.dumps(kind.split()[0])}" + (", alone = true" if kind.endswith("alone") else "")


@st.composite
def _small_matrices(draw, pool=None, adjustments=False, requests=True, redirects=False, issue30=True, staged=False,  # noqa: C901 — one composite strategy that draws every construct of a matrix, so that they combine
                    steer=False):
    """Small matrices with every construct of choice: forces, prefers (outright or not), orders,
    candidacy, requirements and chains (a clause may be one no config meets), removals and
    refusals (one may repeat another), runners deprecated themselves (from before, at or after
    the version, their removal planned, due or overdue), runners' former ids (deprecated, removed, overdue) and
    redirects (in force or not at the version), over fields with remainders beside float bounds
    and remainders compared with fields. With *pool*, the fields are drawn from it only. With
    *adjustments*: over at most two of the small fields, and 0 to 3 adjustments after
    `ADJUSTMENTS_MARK` (before the choice and per runner, override and fill, constants and
    copies of another field); with *redirects* too, former ids and redirects beside them. Without
    *requests*, no former ids or redirects. Without *issue30*, none of issue 30's F7, F8 and
    ``times`` (reasons as templates, values as given, scaled copies, the float field they scale):
    for `matrix diff`'s brute force, which does not weigh them yet. With *staged* (and stages
    drawn), staged requirements of kind ``ks`` (issue 30, F6): a matrix-wide one at any stage but
    choice (after it, perhaps exempting a runner) and a runner's after the choice, declared after
    `ADJUSTMENTS_MARK` and in *runners* (`_unstaged` leaves them out for the matrix of choice).
    With *steer* too, a third of them are steered to the paths of check that free draws seldom
    reach together (see below): check's brute force only, where CI time allows it."""
    if adjustments:
        adjustable = _ADJUSTABLE if issue30 else [n for n in _ADJUSTABLE if n != "g"]
        names = draw(st.lists(st.sampled_from(adjustable), min_size=1, max_size=2, unique=True))
    elif pool is not None:
        names = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3, unique=True))
    elif draw(st.booleans()):  # half the matrices are built around two related fields
        x, y, _ = draw(st.sampled_from(_RELATIONS))
        names = [x, y] + draw(st.lists(st.sampled_from(_DRAWN), max_size=1))
        names = list(dict.fromkeys(names))
    else:
        names = draw(st.lists(st.sampled_from(_DRAWN), min_size=1, max_size=3, unique=True))
    plain = [a for n in names for a in _ATOMS[n]]
    relations = [r.replace("{op}", op) for x, y, r in _RELATIONS if x in names and y in names
                 for op in (("<", "==", ">=") if "{op}" in r else ("",))]
    atom = st.sampled_from(plain) | st.sampled_from(relations) if relations else st.sampled_from(plain)
    gate = st.one_of(atom, st.builds(lambda a, b, o: f"({a}) {o} ({b})", atom, atom, st.sampled_from(["and", "or"])),
                     atom.map(lambda a: f"not ({a})"))
    ids = ["a", "b", "c"][: draw(st.sampled_from([2, 2, 3]))]
    # Steered (a third of the matrices with adjustments, redirects and staged requirements): the
    # constructs whose paths of check a matrix drawn freely seldom reaches together. A runner x
    # with a redirect at a stage after the choice to y, both with adjustments of their own; x
    # gated by an atom its own adjustment makes hold (adjustment-refuses); a staged requirement
    # after the choice binding x or y (read through resolved configs, `witnessed`). At most two
    # gates besides: with more, over one or two fields, a runner is seldom free anywhere.
    steered = None
    if steer and adjustments and redirects and staged and requests and issue30 and draw(st.integers(0, 2)) == 0:
        x = draw(st.sampled_from(ids))
        steered = (x, draw(st.sampled_from([r for r in ids if r != x])), draw(st.sampled_from(names)))
    gates = draw(st.lists(gate, min_size=1, max_size=4 if steered is None else 2))
    text = '[matrix]\nname = "small"\nversion = "1.0"\n[config]\n' + "\n".join(_FIELDS[n][0] for n in names) + "\n"
    # Reasons are templates (issue 30, F7): a kind's may say a drawn field's value.
    reasons = _reasons if issue30 else (lambda lead, names: st.just(f"{lead} fails"))
    # A kind may name the built-in exception a host raises for it (issue 30, F5).
    text += "[requirements]\n" + "".join(
        f'{k} = {{ name = "{k.upper()}", reason = {json.dumps(draw(reasons(k, names)))}{_error_kind(draw)} }}\n'
        for k in ("k1", "k2"))
    # Matrix-wide requirements (issue 30, F4): of every runner, or but one (exempt), a condition or a chain.
    wide = {}
    for kind in ("k1", "k2"):
        shape = draw(st.sampled_from(["none", "none", "plain", "exempt", "chain"]))
        if shape == "plain":
            wide[kind] = json.dumps(draw(atom))
        elif shape == "exempt":
            wide[kind] = f'{{ condition = {json.dumps(draw(atom))}, exempt = ["{draw(st.sampled_from(ids))}"] }}'
        elif shape == "chain":
            wide[kind] = f'[{{ condition = {json.dumps(draw(atom))}, ' \
                         f'reason = {json.dumps(draw(reasons(kind + " first", names)))} }}, ' \
                         f'{{ condition = {json.dumps(draw(atom))} }}]'
    if wide:
        text += "[requires]\n" + "".join(f"{k} = {v}\n" for k, v in wide.items())
    forced = False
    forced_runners = []  # an adjustment of a forced runner is drawn more often: forced-freed needs one
    for index, when in enumerate(gates):
        support = {r: draw(st.sampled_from(["yes", "no"])) for r in ids}
        extra = ""
        # Some gates force a runner (every other runner says no), with or without override.
        forces = draw(st.none() | st.tuples(st.sampled_from(ids), st.booleans())) if index < 2 else None
        if forces is not None:
            support = {r: "yes" if r == forces[0] else "no" for r in ids}
            extra += f'forces = {{ runner = "{forces[0]}", override = {str(forces[1]).lower()} }}\n'
            forced = True
            forced_runners.append(forces[0])
        prefer = draw(st.none() | st.tuples(st.sampled_from(ids), st.booleans()))
        if prefer is not None:
            extra += f'prefers = {{ runner = "{prefer[0]}", outright = {str(prefer[1]).lower()} }}\n'
        if draw(st.integers(0, 4)) == 0:  # a removal: configs that use it are refused first
            extra += 'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\n'
        if forces is None and draw(st.integers(0, 3)) == 0:  # in force in one mode of choice only
            extra += f'applies = "{draw(st.sampled_from(["asked", "automatic"]))}"\n'
        cells = ", ".join(f'{r} = "{s}"' for r, s in support.items())
        text += f'[features.g{index}]\nname = "g{index}"\nwhen = "{when}"\nsupport = {{ {cells} }}\n{extra}'
    if steered is not None:  # the gate x's own adjustment may make hold
        x, _, path = steered
        cells = ", ".join(f'{r} = "{"no" if r == x else draw(st.sampled_from(["yes", "no"]))}"' for r in ids)
        text += f'[features.hit]\nname = "hit"\nwhen = "{_HITS[path][0]}"\nsupport = {{ {cells} }}\n'
    runners = {r: {"name": r.upper(), "priority": 3 - i} for i, r in enumerate(ids)}
    for r in ids if steered is None else [r for r in ids if r not in steered[:2]]:  # x and y: the staged one only
        requires = {}
        for kind in ("k1", "k2"):
            shape = draw(st.sampled_from(["none", "none", "plain", "chain"]))
            if shape == "plain":
                requires[kind] = draw(atom)
            elif shape == "chain":
                requires[kind] = [{"condition": draw(atom)} for _ in range(2)]
        if requires:
            runners[r]["requires"] = requires
    # Former ids and redirects: not with adjustments, whose reference (below) validates the runner
    # asked for itself; the two are held to their own references here.
    for r in ids if requests and (redirects or not adjustments) else ():
        if draw(st.integers(0, 2)) == 0:  # a former id: deprecated, removal planned, recorded or overdue
            alias = {"id": f"old_{r}", "since": "0.5"}
            alias.update(draw(st.sampled_from([{}, {"remove_in": "2.0"}, {"remove_in": "1.0", "removed": True},
                                               {"remove_in": "0.9"}])))
            runners[r]["aliases"] = [alias]
        redirects = []
        for _ in range(draw(st.integers(0, 2))):
            redirect = {"to": draw(st.sampled_from([o for o in ids if o != r])), "when": draw(atom)}
            redirect.update(draw(st.sampled_from([{}, {}, {"since": "1.0"}, {"until": "1.0"}, {"applies": "always"},
                                                  {"applies": "always", "until": "1.0"}])))
            redirects.append(redirect)
        if redirects:
            runners[r]["redirects"] = redirects
    for r in ids:  # a runner deprecated: since and remove_in before, at or after the matrix's version (1.0)
        if draw(st.integers(0, 3)) == 0:
            since, remove_in = draw(st.sampled_from([("0.5", None), ("0.5", "0.9"), ("0.5", "1.0"), ("0.5", "2.0"),
                                                     ("1.0", None), ("1.0", "2.0"), ("2.0", "3.0")]))
            replacement = draw(st.sampled_from([None, "the old way", *(o for o in ids if o != r)]))
            runners[r]["deprecated"] = {"since": since, **({"remove_in": remove_in} if remove_in else {}),
                                        **({"replacement": replacement} if replacement else {}),
                                        **({"message": "retiring"} if draw(st.booleans()) else {})}
    if draw(st.booleans()):  # a candidacy, or (a quarter of them) a runner asked for only, as its file says
        runners[draw(st.sampled_from(ids[1:]))]["candidate"] = draw(st.one_of(atom, atom, atom, st.just("False")))
    # Gates a refusal may name besides the features: a redirect that applies always (issue 30, F6)
    # and an order without fallback.
    final = [f"{r}:redirect:{i + 1}" for r in ids for i, d in enumerate(runners[r].get("redirects", ()))
             if d.get("applies") == "always" and "stage" not in d]
    if draw(st.booleans()):  # an order that tries b first where its condition holds, perhaps without fallback
        text += f'[orders.b_first]\nname = "b first"\nwhen = "{draw(atom)}"\nrunners = ["b"]\n'
        if draw(st.booleans()):
            text += "fallback = false\n"
            final.append("order:b_first")  # a gate a refusal may name
    if draw(st.integers(0, 2)) == 0:  # a last order without when (D12): it applies wherever b_first does not
        text += f'[orders.last]\nname = "last"\nrunners = ["{draw(st.sampled_from(ids))}"]\n'
        if draw(st.booleans()):
            text += "fallback = false\n"
            final.append("order:last")
    # Refusals over the gates, one of them perhaps repeated.
    for number in range(draw(st.integers(0, 2))):
        parts = draw(st.lists(st.lists(st.sampled_from([f"g{i}" for i in range(len(gates))] + final), min_size=1, max_size=2,
                                       unique=True), min_size=1, max_size=2))
        together = ", ".join("[" + ", ".join(f'"{g}"' for g in part) + "]" for part in parts)
        for copy in range(1 + (number == 0 and draw(st.booleans()))):
            text += f'[refusals.r{number}_{copy}]\nreason = "r{number}"\ntogether = [{together}]\n'
    if adjustments:
        given_atom = st.sampled_from([re.sub(rf"\b{n}\b", f"given.{n}", a) for n in names for a in _ATOMS[n]])
        given_gate = st.one_of(given_atom, st.builds(lambda a, b: f"({a}) and ({b})", given_atom, atom))
        # Stages (issue 30, F6): the host's order of steps, choice among them; each adjustment may
        # name one (a runner's: choice or later).
        # (Three in eight: a staged matrix costs half as much again to check; `["choice"]` alone is
        # today's order, held by its own test.)
        stages = draw(st.sampled_from([None] * 5 + [["s0", "choice"], ["choice", "s1"],
                                                    ["s0", "choice", "s1", "s2"]])) if issue30 else None
        if steered is not None:  # a stage after the choice, for the redirect and the requirement
            stages = draw(st.sampled_from([["choice", "s1"], ["s0", "choice", "s1", "s2"]]))
        if stages is not None:
            text = text.replace('version = "1.0"\n', f'version = "1.0"\nstages = {json.dumps(stages)}\n', 1)
        text += ADJUSTMENTS_MARK + "\n"
        # A redirect at a stage after the choice (issue 30, F6), on a runner whose request is not
        # renamed away: it acts on that runner serving, on the config its stage finds.
        late = stages[stages.index("choice") + 1:] if stages is not None else []
        if redirects and requests and late:
            r = draw(st.sampled_from(ids)) if steered is None else steered[0]
            redirect = {"to": draw(st.sampled_from([o for o in ids if o != r])) if steered is None else steered[1],
                        "when": draw(atom), "stage": draw(st.sampled_from(late))}
            redirect.update(draw(st.sampled_from([{}, {}, {"until": "1.0"}])))
            runners[r] = {**runners[r], "redirects": [*runners[r].get("redirects", ()), redirect]}
        # (Half the staged matrices: a staged matrix resolves off the fast path, so the brute force
        # of resolve stays near its CI time.)
        if staged and stages is not None and (steered is not None or draw(st.booleans())):
            after = stages[stages.index("choice") + 1:]
            error_kind = draw(st.sampled_from(["", 'kind = "ValueError"\n']))
            text += f'[requirements.ks]\nname = "KS"\nreason = "ks fails"\n{error_kind}'
            if draw(st.booleans()) or not after:
                stage = draw(st.sampled_from([s for s in stages if s != "choice"]))
                text += f'[requires.ks]\ncondition = {json.dumps(draw(atom))}\nstage = "{stage}"\n'
                if stage in after and draw(st.booleans()):
                    text += f'exempt = ["{draw(st.sampled_from(ids))}"]\n'
            bound = draw(st.lists(st.sampled_from(ids), max_size=2, unique=True)) if after else []
            if steered is not None and not set(bound) & set(steered[:2]):  # one of x and y, whose steps the redirect changes
                bound.append(draw(st.sampled_from(steered[:2])))
            for r in bound:
                clauses = [{"condition": draw(atom), "stage": draw(st.sampled_from(after))}]
                if draw(st.integers(0, 3)) == 0:  # a chain: its stage is its first clause's
                    clauses.append({"condition": draw(atom)})
                runners[r] = {**runners[r], "requires": {**runners[r].get("requires", {}), "ks": clauses}}
        if steered is not None:  # x's own adjustment that makes its gate hold, perhaps at a stage
            x, _, path = steered
            when = draw(atom | st.none())
            stage = draw(st.sampled_from([None, *stages[stages.index("choice"):]]))
            text += ('[adjustments.hit]\nname = "hit"\n' + ("" if when is None else f'when = "{when}"\n')
                     + f'set = {{ "{path}" = {_toml_value(_HITS[path][1])} }}\noverride = true\nrunners = ["{x}"]\n'
                     + ("" if stage is None else f'stage = "{stage}"\n'))
        for number in range(draw(st.integers(0, 3))):
            path = draw(st.sampled_from(names))
            kind, nullable = _KINDS[path]
            sources = [n for n in names if n != path and _KINDS[n][0] == kind and (nullable or not _KINDS[n][1])
                       and (path != "t" and (path != "j" or n == "j"))]
            # The value as given (issue 30, F8): its own (undoing what came before), or another's.
            sources += [f"given.{n}" for n in names if _KINDS[n][0] == kind and (nullable or not _KINDS[n][1])
                        and (path != "t" and (path != "j" or n == "j")) and issue30]
            # A number may be scaled (times: an int into an int field, any into a float), its own
            # value too (SGLang's mem_fraction_static times 0.85).
            sources += [path] if kind in _TIMES and path != "j" and issue30 else []
            if sources and draw(st.booleans()):
                times = draw(st.sampled_from([None, None, *_TIMES.get(kind, ())])) if issue30 else None
                scaled = "" if times is None else f", times = {times!r}"
                value = f'{{ from = "{draw(st.sampled_from(sources))}"{scaled} }}'
            else:  # no local version: beside its public one the partition is inexact, and check undecided
                value = _toml_value(draw(st.sampled_from([v for v in _FIELDS[path][1]
                                                          if (v is not None or nullable) and
                                                          (not isinstance(v, int) or abs(v) < 2 ** 31)
                                                          and not (isinstance(v, float) and not math.isfinite(v))
                                                          and not (isinstance(v, str) and "+" in v)])))
            override = draw(st.booleans()) if nullable else True
            applies_to = draw(st.sampled_from([[], [], [ids[0]], [ids[-1]], ids[:2]] + [[r] for r in forced_runners] * 2
                                              + ([[steered[0]], [steered[1]], [steered[1]]] if steered else [])))
            # When it speaks (issue 30, F9): where it changes a value, always, or a notice (no set).
            speaks = draw(st.sampled_from(["changes", "changes", "always", "notice"]))
            # Its condition may read the values as given (issue 30, F8), or be left out: it then
            # applies wherever it applies at all (a runner's wherever that runner serves).
            when = draw((gate | given_gate | st.none()) if issue30 else gate)
            text += f'[adjustments.a{number}]\nname = "a{number}"\n' + ("" if when is None else f'when = "{when}"\n')
            if speaks != "notice":
                text += f'set = {{ "{path}" = {value} }}\noverride = {str(override).lower()}\n'
            if speaks != "changes":
                said = draw(st.sampled_from(["", *(f" {{given.{n}!r}}" for n in names if issue30)]))
                text += f'message = "a{number} says{said}"\n' + ('says = "always"\n' if speaks == "always" else "")
            if applies_to:
                text += f'runners = {json.dumps(applies_to)}\n'
            if stages is not None:
                stage = draw(st.sampled_from([None, *stages[stages.index("choice") if applies_to else 0:]]))
                text += f'stage = "{stage}"\n' if stage is not None else ""
    return text, names, runners, forced


#: A format spec each field's values take (issue 30, F7), with its conversion: a version or a
#: list is said through !s or !r (an object's own format takes no spec).
_SPECS = {"g": ("", ".2f"), "i": ("", ">5"), "j": ("", "03d"), "f": ("", ".3f"), "p": ("", "+d"), "pd": ("", "+d"), "q": ("", ">3"),
          "s": ("", ">4"), "t": ("r", ">6"), "b": ("", ""), "v": ("s", ">8"), "w": ("s", "<6"), "l": ("r", ""), "m": ("", "03d"), "k": ("", "02d")}


def _reasons(lead, names):
    """A requirement's reason: plain text, or a template (issue 30, F7) that says a field's value
    (a derived one too) as it is, through a conversion, or with a format spec, with braces
    written twice."""
    paths = names + (["pd"] if "p" in names else [])
    said = st.sampled_from(paths).flatmap(lambda path: st.sampled_from([
        f"{{{path}}}", f"{{{path}!r}}",
        f"{{{path}{'!' + _SPECS[path][0] if _SPECS[path][0] else ''}{':' + _SPECS[path][1] if _SPECS[path][1] else ''}}}"]))
    return st.one_of(st.just(f"{lead} fails"), said.map(lambda s: f"{lead} fails at {s} {{{{x}}}}"))


def _said(template, config):
    """*template* said of *config* as the README says a message template is: each placeholder's
    value (a derived field computed) converted and formatted as Python's str.format does; with
    neither, text as it is and anything else as its repr; None, or a value the spec cannot
    format, said as without the spec; a version as the version it spells."""
    import string

    from packaging.version import Version

    out = []
    for literal, path, spec, conversion in string.Formatter().parse(template):
        out.append(literal)
        if path is None:
            continue
        if path.startswith("given."):  # the value as given (issue 30, F8)
            path, config = path[len("given."):], config.get(_GIVEN, config)
        value = _pd(config["p"]) if path == "pd" else config[path]
        if path in ("v", "w") and isinstance(value, str):
            value = Version(value)
        value = list(value) if isinstance(value, tuple) else value  # a list field's value: a list
        if conversion:
            value = {"r": repr, "s": str, "a": ascii}[conversion](value)
        if spec and value is not None:
            out.append(format(value, spec))
        else:
            out.append(value if isinstance(value, str) else repr(value))
    return "".join(out)


def _universe(m, names):
    for values in itertools.product(*(_FIELDS[n][1] for n in names)):
        yield dict(zip(names, values))


def _explains(m, compiled, ids, refused, mask, combo):
    """Whether the set of gate ids *combo* explains why automatic choice finds no runner for
    *mask*, as the README defines no-runner: every gate of it is active, and it refuses every
    runner, or one of its gates prefers outright a runner it refuses and decides (no feature that
    forces a runner is active, and every active preference declared before it is not outright
    and its runner is not free), or it holds an order without fallback that decides (no active
    preference decides) and refuses every runner the order tries up to its first candidate."""
    away = set().union(*(refused[g] for g in combo))
    if away == {r.id for r in m.runners}:
        return True
    bits = {g.id: 1 << i for i, g in enumerate(compiled.features)}
    # A redirect that applies always that decides (issue 30, F6), its runner refused as asked for
    # by a gate of the set: one it says no to (an opt-in or its candidacy keeps a request no away).
    # Where one decides, no order or preference does.
    deciding = _deciding_redirect(m, compiled, bits, mask)
    if deciding is not None:
        features = {f.id for f in m.features}
        return deciding.id in combo and any(
            deciding.origin.to in refused[h] and not h.endswith(":not-candidate") and ":redirect:" not in h
            and not h.startswith("order:") and (h not in features or m.feature(h).status(deciding.origin.to,
                                                                                        m.version) == "no")
            for h in combo)
    applying = next((o for o in m.orders if mask & bits[f"order:{o.id}"]), None)  # the first that applies decides
    for g in combo:
        order = next((o for o in m.orders if f"order:{o.id}" == g and not o.fallback), None)
        if order is None or order is not applying or _a_preference_decides(compiled, mask):
            continue
        for r in order.tried([r.id for r in m.runners]):
            if r not in away:
                break
            if compiled.is_candidate(r, mask):
                return True
    for g in combo:
        feature = m.feature(g) if g in {f.id for f in m.features} else None
        if feature is None or feature.prefers is None or not feature.prefers.outright \
                or feature.prefers.runner not in away or mask & compiled.forcing:
            continue
        decides = True
        for h in compiled.active(mask & compiled.preferring):
            if h.id == g:
                break
            free = not mask & compiled.blocking[h.prefers.runner] and compiled.is_candidate(h.prefers.runner, mask)
            if h.prefers.outright or free:
                decides = False
                break
        if decides:
            return True
    return False


def _deciding_redirect(m, compiled, bit, auto):
    """The gate of the redirect that applies always that decides automatic choice on the gates
    *auto* (docs/reference/file-format.md, "A redirect that applies always"), or None: where no
    removed feature or matrix-wide requirement exempting no runner refuses first, the choice
    reaches the active preferences' runners in order (unless a feature forcing a runner is
    active), then the runners the order that applies tries (its first candidate only, without
    fallback), each a candidate before its blockers are read; the first whose always-redirect
    holds is sent on, and a runner that decides before (an outright preference, a free runner)
    ends it."""
    if auto & (compiled.removed | compiled.required):
        return None

    def redirect_of(runner):
        found = next((d for d in m.runner(runner).redirects if d.applies == "always"
                      and auto & bit.get(f"{runner}:redirect:{d.index + 1}", 0)), None)
        return None if found is None else compiled.features[bit[f"{runner}:redirect:{found.index + 1}"].bit_length() - 1]

    if not auto & compiled.forcing:
        for h in compiled.active(auto & compiled.preferring):
            r = h.prefers.runner
            if compiled.is_candidate(r, auto) and redirect_of(r) is not None:
                return redirect_of(r)
            if h.prefers.outright or (not auto & compiled.blocking[r] and compiled.is_candidate(r, auto)):
                return None
    applying = next((o for o in m.orders if auto & bit[f"order:{o.id}"]), None)
    priority = [r.id for r in m.runners]
    tried = [r for r in (applying.tried(priority) if applying is not None else priority)
             if compiled.is_candidate(r, auto)]
    for r in tried[:1] if applying is not None and not applying.fallback else tried:
        if redirect_of(r) is not None:
            return redirect_of(r)
        if not auto & compiled.blocking[r]:
            return None
    return None


def _a_preference_decides(compiled, mask):
    """Whether an active preference decides automatic choice for *mask* (no feature forcing a
    runner is active, and one is outright or its runner is free)."""
    if mask & compiled.forcing:
        return False
    for h in compiled.active(mask & compiled.preferring):
        if h.prefers.outright or (not mask & compiled.blocking[h.prefers.runner]
                                  and compiled.is_candidate(h.prefers.runner, mask)):
            return True
    return False


def _a_preference_redirects(m, compiled, bit, mask):
    """Whether automatic choice reaches an active preference's runner (a candidate, no feature
    forcing a runner active) whose redirect that applies always holds: that redirect then decides,
    before the order (docs/reference/file-format.md, "A redirect that applies always": a
    preference's runner is reached before its blockers are read)."""
    if mask & compiled.forcing:
        return False
    return any(compiled.is_candidate(h.prefers.runner, mask) and _sent(m, compiled, bit, h.prefers.runner, mask)
               is not None for h in compiled.active(mask & compiled.preferring))


def _wide_failing(m, config):
    """The clauses of the matrix-wide requirements that *config* fails, in the order of the kinds:
    of each chain, the first clause that does not hold (README: a chain's first failing clause is
    its reason)."""
    out = []
    for kind in m.requirement_kinds:
        chain = [c for c in m.requires if c.kind == kind.id]
        failed = next((c for c in chain if not c.condition.evaluate(config, schema=m.schema)), None)
        if failed is not None:
            out.append(failed)
    return out


def _failed_requirement(gate_id):
    """A gate id of a no-runner set that names a failed requirement (RUNNER:KIND[:N])."""
    return ":" in gate_id and not gate_id.endswith(":not-candidate") and not gate_id.startswith("order:")


# 1,200 matrices in CI (4 × the profile): this test is what keeps check honest. Two tests
# draw them, 2 × the profile each from a seed of its own (a test's name seeds a derandomized
# draw), so that CI's two cores share them rather than one running them all at its end.
# Runner b is asked for only (candidate = "False") and its requirements' search is undecided
# (i % 2 < j % 3 beside i < j): check said it never chosen, which its file says outright.
_ASKED_ONLY_UNDECIDED = (
    '[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"i" = { type = "int", nullable = true }\n'
    '"j" = { type = "int", min = 0, max = 3, default = 0 }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\n'
    'k2 = { name = "K2", reason = "k2 fails" }\n[requires]\nk2 = { condition = "i % 2 < j % 3" }\n[features.g0]\n'
    'name = "g0"\nwhen = "i < j"\nsupport = { a = "yes", b = "yes" }\n', ["i", "j"],
    {"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 1, "requires": {"k1": "j == 1.5"},
                                               "candidate": "False"}}, False)


@settings(max_examples=settings.default.max_examples * 2, deadline=None)
@given(_small_matrices())
@example(_ASKED_ONLY_UNDECIDED)
def test_check_agrees_with_brute_force_over_every_config(case):
    _check_agrees(case)


# Runner b is asked for only, and chosen all the same where a's redirect that applies always sends
# automatic choice to it (the reference said it should then be reported never chosen).
_ASKED_ONLY_SENT = (
    '[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"b" = { type = "bool", default = false }\n[features.g0]\n'
    'name = "g0"\nwhen = "b"\nsupport = { a = "yes", b = "yes" }\n', ["b"],
    {"a": {"name": "A", "priority": 3, "redirects": [{"to": "b", "when": "b", "applies": "always"}]},
     "b": {"name": "B", "priority": 2, "candidate": "False"}}, False)


@settings(max_examples=settings.default.max_examples * 2, deadline=None)
@given(_small_matrices())
@example(_ASKED_ONLY_SENT)
def test_check_agrees_with_brute_force_over_every_config_drawn_again(case):
    _check_agrees(case)


@pytest.mark.parametrize("atom", sorted(_ARITH))
def test_brute_force_arithmetic_atoms_agree_with_the_readme_reference(atom):
    """Each arithmetic atom the brute force draws, on every config of its fields, by the
    interpreter and by the compiled fast path, against its reference written from the README."""
    names = [n for n in ("p", "q", "i", "j") if re.search(rf"\b{n}\b", atom) or (n == "p" and "pd" in atom)]
    text = ('[matrix]\nname = "a"\nversion = "1.0"\n[config]\n' + "\n".join(_FIELDS[n][0] for n in names)
            + f'\n[features.g]\nname = "g"\nwhen = "{atom}"\nsupport = {{ r = "yes" }}\n')
    m = matrix.loads(text, runners={"r": {"name": "R", "priority": 1}})
    from matrix._compile import plan

    compiled = plan(m, m.version)
    for config in _universe(m, names):
        expected = bool(_ARITH[atom](config))
        assert m.feature("g").when.evaluate(config, schema=m.schema) is expected, config
        assert bool(compiled.evaluate(config)[0] & 1) is expected, config


# A staged requirement before the choice, and a forced runner whose adjustments read the roles
# (found by the ci profile when roles and staged requirements first met).
_STAGED_FORCED = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["s0", "choice"]\n[config]\n"j" = { type = "int", min = 0, max = 3, default = 0 }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[requires]\nk1 = [{ condition = "j < 0", reason = "k1 first fails" }, { condition = "j < 0" }]\n[features.g0]\nname = "g0"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes", c = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.g1]\nname = "g1"\nwhen = "j < 1.5"\nsupport = { a = "yes", b = "no", c = "no" }\nforces = { runner = "a", override = false }\n[features.g2]\nname = "g2"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes", c = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\n[orders.last]\nname = "last"\nrunners = ["a"]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[requires.ks]\ncondition = "j < 1.5"\nstage = "s0"\n', ['j'], {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}]}, 'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}]}, 'c': {'name': 'C', 'priority': 1, 'aliases': [{'id': 'old_c', 'since': '0.5'}]}}, True)


# A staged requirement before the choice refusing every config, beside a forced runner, in the
# matrix with roles too (found by the ci profile: check's roles run once read it as refusing none).
_STAGED_REFUSES_ALL = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["s0", "choice"]\n[config]\n"j" = { type = "int", min = 0, max = 3, default = 0 }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes", c = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.g1]\nname = "g1"\nwhen = "j < 3"\nsupport = { a = "yes", b = "no", c = "no" }\nforces = { runner = "a", override = false }\n[features.g2]\nname = "g2"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes", c = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\nrunners = ["a"]\n[refusals.r0_0]\nreason = "r0"\ntogether = [["g0"]]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[requires.ks]\ncondition = "j < 0"\nstage = "s0"\n[adjustments.a0]\nname = "a0"\nwhen = "not (j < 0)"\nset = { "j" = 0 }\noverride = true\nrunners = ["a"]\n', ['j'], {'a': {'name': 'A', 'priority': 3, 'requires': {'k1': 'j < 1.5'}, 'aliases': [{'id': 'old_a', 'since': '0.5'}]}, 'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}]}, 'c': {'name': 'C', 'priority': 1}}, True)


# A redirect that applies always sending automatic choice to a runner whose own adjustment then
# fails a matrix-wide requirement: resolve raises NoRunnerError there, not AdjustmentError (check
# crashed asking adjustment-refuses; found after the engine and check lanes were merged).
_ALWAYS_THEN_ADJUSTED = ('[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"b" = { type = "bool", default = false }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[requires]\nk2 = [{ condition = "b", reason = "k2 first fails" }, { condition = "b" }]\n[features.g0]\nname = "g0"\nwhen = "b"\nsupport = { a = "yes", b = "yes" }\n[features.g1]\nname = "g1"\nwhen = "b"\nsupport = { a = "no", b = "yes" }\nforces = { runner = "b", override = false }\n# --- adjustments\n[adjustments.a0]\nname = "a0"\nwhen = "b"\nset = { "b" = false }\noverride = true\nrunners = ["b"]\n', ['b'], {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}], 'redirects': [{'to': 'b', 'when': 'b', 'applies': 'always'}]}, 'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}]}}, True)


# A random (development-profile) run at 1bbc795: an always-redirect b → a, then a's redirect at a
# stage back to b, which a forced gate's "no" refuses: the reference counted the refusal as the
# runner chosen on C refused by its adjustments (m0 has no stage: a is refused there by its
# requirement). A refusal after a redirect at a stage is redirect-refused (lane-check, 66cc834).
_STAGE_REDIRECT_REFUSED = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n"b" = { type = "bool", default = false }\n"i" = { type = "int", nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "b"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.g1]\nname = "g1"\nwhen = "b"\nsupport = { a = "yes", b = "no" }\nforces = { runner = "a", override = false }\n[features.g2]\nname = "g2"\nwhen = "b"\nsupport = { a = "yes", b = "yes" }\n[features.g3]\nname = "g3"\nwhen = "not b"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\n[orders.last]\nname = "last"\nrunners = ["a"]\n[refusals.r0_0]\nreason = "r0"\ntogether = [["g0"]]\n# --- adjustments\n[adjustments.a0]\nname = "a0"\nwhen = "not b"\nset = { "b" = false }\noverride = true\n',
['b', 'i'],
{'a': {'name': 'A',
'priority': 3,
'requires': {'k2': 'not b'},
'aliases': [{'id': 'old_a', 'since': '0.5'}],
'redirects': [{'to': 'b', 'when': 'b', 'stage': 's1'}]},
'b': {'name': 'B',
'priority': 2,
'redirects': [{'to': 'a', 'when': 'b', 'applies': 'always'}]}},
True)

# The two cases the CI profile's draw found once lane-check-53 was merged (its test source
# differs): a forced runner's adjustment past its redirect at a stage, and a staged requirement
# exempting the runner an AdjustmentError refused on F.
_FORCED_PAST_A_REDIRECT_CASE = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n"i" = { type = "int", nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "no" }\nforces = { runner = "a", override = false }\n[features.g1]\nname = "g1"\nwhen = "i < 0"\nsupport = { a = "no", b = "yes" }\nforces = { runner = "b", override = false }\n[features.hit]\nname = "hit"\nwhen = "i == 1"\nsupport = { a = "no", b = "yes" }\n[orders.last]\nname = "last"\nrunners = ["a"]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[adjustments.hit]\nname = "hit"\nwhen = "i < 0"\nset = { "i" = 1 }\noverride = true\nrunners = ["a"]\nstage = "s1"\n', ['i'], {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}], 'redirects': [{'to': 'b', 'when': 'i < 0', 'stage': 's1'}], 'requires': {'ks': [{'condition': 'i < 0', 'stage': 's1'}, {'condition': 'i < 0'}]}}, 'b': {'name': 'B', 'priority': 2, 'redirects': [{'to': 'a', 'when': 'i < 0'}]}}, True)
_EXEMPT_REFUSED_ON_F_CASE = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n"i" = { type = "int", nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.hit]\nname = "hit"\nwhen = "i == 1"\nsupport = { a = "no", b = "yes" }\n[orders.last]\nname = "last"\nrunners = ["a"]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[requires.ks]\ncondition = "i < 0"\nstage = "s1"\nexempt = ["a"]\n[adjustments.hit]\nname = "hit"\nwhen = "i < 0"\nset = { "i" = 1 }\noverride = true\nrunners = ["a"]\n', ['i'], {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}], 'requires': {'ks': [{'condition': 'i < 2', 'stage': 's1'}]}}, 'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}]}}, False)


@settings(deadline=None)
@given(_small_matrices(adjustments=True, redirects=True, staged=True, steer=True))
@example(_FORCED_PAST_A_REDIRECT_CASE)
@example(_EXEMPT_REFUSED_ON_F_CASE)
@example(_STAGED_FORCED)
@example(_STAGED_REFUSES_ALL)
@example(_ALWAYS_THEN_ADJUSTED)
@example(_STAGE_REDIRECT_REFUSED)
def test_check_agrees_with_brute_force_over_every_config_with_adjustments(case):
    """Issue 27: on matrices with adjustments, the questions about choice are put to the config
    of choice (the choice reference: the matrix without adjustments, resolving the reference's
    C), the adjustment findings to resolve itself over the whole space. Issue 30, F1: where the
    space is small, the matrix with roles besides (`_check_roles_agree`)."""
    _check_agrees(case)
    _check_roles_agree(case)


#: Check's brute force with roles runs on half the matrices whose space with its three role fields
#: varied has at most this many configs: its CI time stays within a tenth of what it was.
_ROLES_CHECKED = 96


def _check_roles_agree(case):
    """Issue 30, F1: check's findings about adjustments on the matrix with roles (`_with_roles`,
    its adjustment after the choice reading roles) against resolve over every config with the
    fields of roles p, d and x taking their runner and None (*narrow*: one runner each; the base's
    left None, which no rule reads: its runner is chosen automatically, or asked for, as the brute
    force asks for each)."""
    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
        # The matrix of choice: a redirect at a stage acts after the choice (issue 30, F6).
        m0 = matrix.loads(text.split(ADJUSTMENTS_MARK)[0], runners={r: {**spec, "redirects": [
            d for d in spec.get("redirects", ()) if "stage" not in d]} for r, spec in runners.items()})
    except matrix.LoadError:
        return
    universe = list(_universe(m, names))
    if len(universe) * 8 > _ROLES_CHECKED or zlib.crc32(text.encode()) % 2:  # half the small ones
        return
    roled = _with_roles(text, runners, names, narrow=True)
    ids = sorted(runners)
    p, d, x = ([None, ids[_NARROW[f]]] for f in ("rp", "rd", "rx"))
    universe = [{**config, "rp": a, "rd": b, "rx": c} for config in universe for a in p for b in d for c in x]
    pre = _before_choice(roled)
    report = check(roled)
    by_code = {}
    for finding in report.findings:
        by_code.setdefault(finding.code, []).append(finding)
    _adjustment_findings_agree(roled, m0, universe, by_code, lambda config: _reference_apply(roled, pre, config, None)[0],
                               _staged_of(text, runners) + _roles_staged(roled), "kr", _roles_staged(roled))


def _boolean_parts(node):
    """*node* and every part of it under and, or, not: the places a search reads a part as a goal."""
    from matrix._nodes import And, Not, Or

    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        if isinstance(current, (And, Or)):
            stack.extend(current.operands)
        elif isinstance(current, Not):
            stack.append(current.operand)
    return out


@settings(deadline=None)
@given(st.data())
def test_a_question_made_of_its_own_goals_gets_the_answer_of_the_plain_search(data):
    """Issue 29: a search reads a part of a question that is itself one of its goals (a goal
    asked twice, a gate and its own parts, a group of "any of" the gates ruled out) as the value
    that goal must have. The answer is the plain search's, assignment for assignment (or the
    same `Inconclusive`), and a config exists exactly where brute force finds one."""
    from unittest import mock

    from matrix._nodes import Or
    from matrix._space import Inconclusive

    names = data.draw(st.lists(st.sampled_from(["i", "j", "t", "b", "s", "w", "l"]), min_size=1, max_size=2,
                               unique=True))
    atom = st.sampled_from([a for n in names for a in _ATOMS[n]])
    gate = st.recursive(atom, lambda inner: st.builds(lambda a, b, o: f"({a}) {o} ({b})", inner, inner,
                                                      st.sampled_from(["and", "or"])) | inner.map(lambda a: f"not ({a})"),
                        max_leaves=4)
    whens = data.draw(st.lists(gate, min_size=1, max_size=3))
    text = '[matrix]\nname = "q"\nversion = "1.0"\n[config]\n' + "\n".join(_FIELDS[n][0] for n in names) + "\n"
    text += "".join(f'[features.g{i}]\nname = "g{i}"\nwhen = "{w}"\nsupport = {{ r = "yes" }}\n' for i, w in enumerate(whens))
    try:
        m = matrix.loads(text, runners={"r": {"name": "R", "priority": 1}})
    except matrix.LoadError:
        return  # an ill-typed combination of atoms: the loader's business
    gates = [f.when.node for f in m.features]
    pool = [part for node in gates for part in _boolean_parts(node)]
    pick = st.sampled_from(pool)
    true = data.draw(st.lists(pick, max_size=3))
    false = data.draw(st.lists(pick, max_size=3))
    if data.draw(st.booleans()):  # a goal asked twice, perhaps both ways
        (true if data.draw(st.booleans()) else false).append(data.draw(st.sampled_from(true + false + pool)))
    extra = [("any", data.draw(st.lists(st.one_of(pick, st.lists(pick, min_size=2, max_size=4).map(
        lambda nodes: Or(tuple(nodes)))), min_size=1, max_size=3))) for _ in range(data.draw(st.integers(0, 2)))]
    space = Space(m.schema, gates)

    def answer():
        try:
            return space.solve(true=true, false=false, extra=extra)
        except Inconclusive as error:
            return ("inconclusive", error.paths, error.causes)

    settled = answer()
    with mock.patch.object(Space, "_settles", return_value=False):
        plain = answer()
    assert settled == plain
    if isinstance(settled, tuple):
        return
    holds = matrix.predicates.truth

    def satisfied(config):
        read = config.__getitem__
        return (all(holds(n, read) for n in true) and not any(holds(n, read) for n in false)
                and all(any(holds(n, read) for n in nodes) for _, nodes in extra))

    assert (settled is not None) == any(satisfied(c) for c in _universe(m, names))


def _check_agrees(case):  # noqa: C901 — the oracle: each rule of choice restated naively in one place, to be read against the engine
    text, names, runners, forced = case
    try:
        m = matrix.loads(text, runners=runners)
        m0 = matrix.loads(text.split(ADJUSTMENTS_MARK)[0], runners=_unstaged(runners))
    except matrix.LoadError:
        return  # an ill-typed combination of atoms: the loader's business, tested elsewhere
    pre = _before_choice(m)

    def chosen_on(config):
        """The config of choice C of *config* (docs/explanation/effective-config.md)."""
        return _reference_apply(m, pre, config, None)[0]
    from matrix._compile import plan
    from matrix._space import CAUSES
    from matrix.schema import in_window

    compiled = plan(m, m.version)
    universe = list(_universe(m, names))
    report = check(m)
    # Each no-runner witness too: a value the enumeration lacks (an int past 10**16 with given
    # remainders, `i % 3 == 2 and i % 4 == 3 and i > 1e16`) is a config all the same (every
    # witness is one resolve accepts: held below).
    for f in report.findings:
        if f.code == "no-runner" and f.witness is not None:
            whole = {n: f.witness.get(n, m.schema.get(n).default if m.schema.get(n).has_default else None)
                     for n in names}  # the fields it leaves out at their defaults, as resolve reads them
            if whole not in universe:
                universe.append(whole)
    masks = {compiled.evaluate(config)[0] for config in universe}
    gates = list(m.features)
    bit = {g.id: 1 << i for i, g in enumerate(compiled.features)}
    space = Space(m.schema, [g.when.node for g in compiled.features])
    by_code = {}
    for finding in report.findings:
        by_code.setdefault(finding.code, []).append(finding)
        if finding.witness is not None:  # every witness is a config resolve accepts
            compiled.evaluate(finding.witness)
    # Every inconclusive finding names a cause the README lists, and no finding is said twice.
    causes = "|".join(re.escape(c) for c in CAUSES.values())
    # A redirect that applies always (issue 30, F6) sends automatic choice to its runner, validated
    # as asked for on that runner's F once the stages are walked: never-chosen, no-runner and the
    # refusals read it exactly where F is C and no staged requirement after the choice is checked
    # for it first (none of its own or matrix-wide that exempts it not, no requirement of roles);
    # elsewhere they say inconclusive, once, naming it, and the rest of check stays exact.
    after = [c for c in m.staged if m.stages.index(c.stage) > m.stages.index("choice")]
    sent = [d for d in _always_in_force(m) if compiled.adjustments.get(d.to) or any(
        c.roles or c.runner == d.to or c.runner == "*" and d.to not in c.exempt for c in after)
        or any(x.stage is not None and in_window(x.window, m.version) for x in m.runner(d.to).redirects)]
    redirected = [f for f in by_code.get("inconclusive", []) if "a redirect that applies always" in f.message
                  or "a redirect at a stage after the choice" in f.message]
    assert [f.message.split(": ")[0] for f in redirected if f.runner is None and "applies always" in f.message] == (
        ["Could not decide which runners automatic choice never picks, which configs no runner serves, nor which "
         "[refusals] entries acknowledge them"]
        if sent else [])
    for finding in by_code.get("inconclusive", []):
        if finding in redirected:
            assert finding.message.endswith(("which these questions do not read yet", "these questions do not read "
                                                 "it yet", "these questions read the config of choice",
                                                 "may stand before it)", "does not read at a stage yet",
                                                 "grow too large to search there")), finding.message
            continue
        assert re.search(rf"within \d+ steps|could be represented: ({causes})(; ({causes}))*\)", finding.message), \
            finding.message
    said_once = [str(f) for f in report.findings]
    assert len(set(said_once)) == len(said_once), "a finding is reported twice"
    undecided = {f.feature for f in by_code.get("inconclusive", []) if f not in redirected}

    def shows(goal_true, goal_false=()):
        """A config the exact search finds, re-resolved: its mask, or None."""
        found = space.solve(true=[g.when.node for g in goal_true], false=[g.when.node for g in goal_false])
        return None if found is None else compiled.evaluate(space.witness(found))[0]

    never = {f.feature for f in by_code.get("never-active", [])}
    always = {f.feature for f in by_code.get("always-active", [])}
    for g in gates:
        if g.id in undecided:
            continue
        active = [mask for mask in masks if mask & bit[g.id]]
        if g.id in never:
            assert not active, f"{g.when} reported never active, but a config activates it"
        else:
            mask = shows([g])
            assert mask is not None and mask & bit[g.id], f"{g.when}: no witness of activity"
        if g.id in always:
            assert all(mask & bit[g.id] for mask in masks), f"{g.when} reported always active"
        elif g.id not in never:
            mask = shows([], [g])
            assert mask is not None and not mask & bit[g.id], f"{g.when}: no witness of inactivity"
    for finding in by_code.get("equivalent-gates", []):
        a, b = finding.features
        assert all(bool(mask & bit[a]) == bool(mask & bit[b]) for mask in masks)
    for finding in by_code.get("implied-contradiction", []):
        narrow, broad = finding.features
        assert not any(mask & bit[narrow] and not mask & bit[broad] for mask in masks)
    # Requirements, each clause on its own: one no config meets (wherever it stands in its
    # chain) is requirement-unmet; one that never fails is requirement-idle, unless its runner
    # serves no config; requirements that exclude every config together, runner-unusable.
    unsure = {f.runner for f in by_code.get("inconclusive", []) if f.runner}
    said = {code: {f.runner for f in by_code.get(code, []) if not _staged_finding(f)} for code in
            ("requirement-unmet", "requirement-idle", "runner-unusable", "never-candidate")}
    for runner in m.runners:
        if runner.id in unsure or undecided:
            continue
        clauses = [g for g in compiled.features if isinstance(g.origin, Requirement) and g.origin.runner == runner.id]
        unmet = any(not any(c.origin.condition.evaluate(config, schema=m.schema) for config in universe)
                    for c in clauses)
        assert (runner.id in said["requirement-unmet"]) == unmet, runner.id
        unusable = not unmet and bool(clauses) and all(mask & sum(bit[c.id] for c in clauses) for mask in masks)
        assert (runner.id in said["runner-unusable"]) == unusable, runner.id
        idle = not unmet and not unusable and any(not any(mask & bit[c.id] for mask in masks) for c in clauses)
        assert (runner.id in said["requirement-idle"]) == idle, runner.id
    # A matrix-wide requirement's clause (issue 30, F4): unmet where no config meets it, idle where
    # it never fails (among the configs that meet the clauses before it), said of its gate.
    wide_said = {code: {f.feature for f in by_code.get(code, []) if f.runner is None}
                 for code in ("requirement-unmet", "requirement-idle")}
    for g in compiled.features if not unsure and not undecided else ():
        if isinstance(g.origin, Requirement) and g.origin.runner == "*":
            unmet = not any(g.origin.condition.evaluate(config, schema=m.schema) for config in universe)
            assert (g.id in wide_said["requirement-unmet"]) == unmet, g.id
            assert (g.id in wide_said["requirement-idle"]) == (not unmet and not any(mask & bit[g.id] for mask in masks))
    # What automatic choice answers for each mask (the answer depends on the mask alone).
    # With adjustments, the choice reads C: the runner the matrix without them gives C.
    outcome = {}
    for config in universe:
        c = chosen_on(config)
        mask = compiled.evaluate(c)[0]
        if mask not in outcome:
            try:
                outcome[mask] = m0.resolve(c).runner
            except matrix.ResolutionError as error:
                outcome[mask] = type(error)
    # An order without fallback that decides chooses its first candidate, and no runner serves
    # when that candidate is blocked (docs/explanation/choice.md).
    for index, o in enumerate(m.orders):
        for mask, answer in outcome.items() if not o.fallback else ():
            auto = mask & compiled.automatic
            if not auto & bit[f"order:{o.id}"] or auto & compiled.removed or _a_preference_decides(compiled, auto) \
                    or _a_preference_redirects(m, compiled, bit, auto) \
                    or any(auto & bit[f"order:{e.id}"] for e in m.orders[:index]):  # the first order that applies
                continue
            first = next((r for r in o.tried([r.id for r in m.runners]) if compiled.is_candidate(r, auto)), None)
            sent_to = _sent(m, compiled, bit, first, auto) if first is not None else None
            if sent_to is not None:  # its always-redirect holds: the runner it names, validated as asked for
                assert answer == sent_to, mask
                continue
            assert answer == (NoRunnerError if first is None or auto & compiled.blocking[first] else first), mask
    # Orders (docs/explanation/choice.md), restated where no preference, force, removal or
    # matrix-wide refusal speaks: the first order whose condition holds (one without when holds
    # wherever none before it does) tries its runners, then the rest by priority; without an
    # order, by priority. With fallback the first free candidate serves; without, the first
    # candidate, or no runner when it is blocked.
    for o in m.orders:
        if f"[orders.{o.id}]\nname = \"{o.name}\"\nrunners" in text:  # written without when
            assert all(mask & bit[f"order:{o.id}"] for mask in masks), o.id
    priority = [r.id for r in m.runners]
    for mask, answer in outcome.items():
        auto = mask & compiled.automatic
        if auto & (compiled.preferring | compiled.forcing | compiled.removed | compiled.required):
            continue
        applying = next((o for o in m.orders if auto & bit[f"order:{o.id}"]), None)
        tried = [r for r in (applying.tried(priority) if applying is not None else priority)
                 if compiled.is_candidate(r, auto)]
        if applying is not None and not applying.fallback:
            tried = tried[:1]
        expected_answer = NoRunnerError
        for r in tried:  # docs/explanation/choice.md: a runner reached whose always-redirect holds sends it on
            to = _sent(m, compiled, bit, r, auto)
            if to is not None:
                expected_answer = to
                break
            if not auto & compiled.blocking[r]:
                expected_answer = r
                break
        assert answer == expected_answer, (mask, applying)
    # No runner: the reported combinations are exactly the minimal sets of gates that explain a
    # config no runner serves (failed requirements with one condition count as one gate, a runner
    # that is no candidate as its pseudo-gate; at most two failed requirements in a set).
    merged = {}
    for g in compiled.features:
        if isinstance(g.origin, Requirement):
            merged.setdefault(str(g.when), g.id)
    refused = {}
    for g in compiled.features:
        if g.origin is None and not g.removed_at(m.version):
            refused[g.id] = {r.id for r in m.runners if g.status(r.id, m.version) in ("no", "opt-in")}
        elif isinstance(g.origin, Requirement):  # a matrix-wide one: every runner it does not exempt
            refused.setdefault(merged[str(g.when)], set()).update(
                {r.id for r in m.runners if r.id not in g.origin.exempt} if g.origin.runner == "*" else {g.origin.runner})
    for r in m.runners:
        if r.candidate is not None:
            refused[f"{r.id}:not-candidate"] = {r.id}
    for o in m.orders:
        if not o.fallback:  # refuses no runner itself: it keeps the runners after its first candidate away
            refused[f"order:{o.id}"] = set()
    for d in _always_in_force(m):  # refuses no runner itself: it sends the choice to one that may refuse
        refused[f"{d.runner}:redirect:{d.index + 1}"] = set()
    expected = set()
    if not undecided and not unsure and not sent:
        for mask, answer in outcome.items():
            if answer is not NoRunnerError:
                continue
            mask &= compiled.automatic  # what automatic choice sees: no gate of requests only
            active = {g.id for g in compiled.features if mask & bit[g.id] and g.id in refused}
            active |= {merged[str(g.when)] for g in compiled.features if isinstance(g.origin, Requirement)
                       and mask & bit[g.id]}
            active |= {f"{r.id}:not-candidate" for r in m.runners if r.candidate is not None
                       and not compiled.is_candidate(r.id, mask)}
            explaining = [frozenset(s) for n in range(1, len(active) + 1) for s in itertools.combinations(sorted(active), n)
                          if sum(1 for g in s if _failed_requirement(g)) <= 2
                          and _explains(m, compiled, active, refused, mask, s)]
            assert explaining or sum(1 for g in active if _failed_requirement(g)) > 2, \
                f"nothing explains {sorted(active)}"
            expected.update(explaining)
        # Minimal by name and by the conditions they hold (a gate with another's condition stands
        # for it: the README).
        when = {g.id: str(g.when) for g in compiled.features}
        when.update({f"{r.id}:not-candidate": str(~r.candidate) for r in m.runners if r.candidate is not None})
        held = {s: frozenset(when[g] for g in s) for s in expected}
        expected = {s for s in expected if not any(o < s or held[o] < held[s] for o in expected)}
        combos = {frozenset(c) for f in by_code.get("no-runner", []) for c in f.combinations}
        assert combos == expected, f"reported {sorted(map(sorted, combos))}, expected {sorted(map(sorted, expected))}"
    if sent:
        assert not any(by_code.get(c) for c in ("no-runner", "never-chosen", "refusal-unused", "refusal-shadowed"))
    for finding in by_code.get("no-runner", []):
        with pytest.raises(NoRunnerError):
            m.resolve(finding.witness)
    # A combination is acknowledged by the first [refusals] entry that covers it, else by a
    # matrix-wide requirement of it that exempts no runner (merged gates: the first one's origin).
    origin = {g.id: g.origin for g in reversed(compiled.features)}
    for finding in by_code.get("no-runner", []) if not undecided and not unsure else ():
        for combo in finding.combinations:
            covering = next((r.id for r in m.refusals if r.covers(set(combo))), None)
            wide = [g for g in combo if isinstance(origin.get(g), Requirement) and origin[g].runner == "*"
                    and not origin[g].exempt]
            assert finding.refusal == (covering if covering is not None else wide[0] if wide else None), combo
    # Automatic choice refuses a config of choice that fails a matrix-wide requirement exempting no
    # runner with the reasons alone (no removed feature active), in the order of the kinds.
    # Each config of choice once per gates and reasons: resolve's answer is said of those (CI time).
    asked_of = set()
    for config in universe if m.requires else ():
        c = chosen_on(config)
        failing = [_said(clause.reason, c) for clause in _wide_failing(m, c) if not clause.exempt]
        removed = any(g.removed_at(m.version) and g.applies != "asked" and g.when.evaluate(c, schema=m.schema)
                      for g in m.features)
        key = (compiled.evaluate(c)[0], tuple(failing))
        if failing and not removed and key not in asked_of:
            asked_of.add(key)
            with pytest.raises(NoRunnerError) as caught:
                m0.resolve(c)
            assert caught.value.reason == "; ".join(failing), c
    # What a runner's failed requirements say of a config (issue 30, F7): of each kind's chain (the
    # matrix-wide ones first), the first clause that fails, its reason said of the config, as
    # explain() lists them (on a sample of the space: explaining is slow).
    for config in universe[::max(1, len(universe) // 40)]:
        c = chosen_on(config)
        try:
            resolution = m0.resolve(c)
        except matrix.ResolutionError as error:
            resolution = error.resolution
        for runner in resolution.explanation(remedies=False)["runners"]:
            own = [x for x in m.requires if runner["id"] not in x.exempt] + list(m.runner(runner["id"]).requires)
            failed = [next(x for x in chain if not x.condition.evaluate(c, schema=m.schema))
                      for kind in m.requirement_kinds
                      for chain in ([x for x in own if x.kind == kind.id and x.wide],
                                    [x for x in own if x.kind == kind.id and not x.wide])
                      if chain and not all(x.condition.evaluate(c, schema=m.schema) for x in chain)]
            failed.sort(key=lambda x: not x.wide)
            said = [b["name"] for b in runner["blockers"] if "requirement" in b]
            assert said == [_said(x.reason, c) for x in failed], (runner["id"], c)
            # A runner asked for and refused by its requirements alone (no feature it says no to,
            # none that forces, no redirect, no removed feature): the reasons of the kinds with
            # `alone = true` first, as written, then the others in the engine's words (file-format.md,
            # "The host's sentence alone"); a matrix-wide one exempting no runner is said alone anyway.
            if (len(said) == len(runner["blockers"]) and failed and not any(x.wide and not x.exempt for x in failed)
                    and not any(g.forces is not None or g.removed_at(m.version) or g.applies == "asked"
                                for g in m.features
                                if g.when.evaluate(c, schema=m.schema)) and not m.runner(runner["id"]).redirects):
                kinds = {k.id: k for k in m.requirement_kinds}
                alone = [_said(x.reason, c) for x in failed if kinds[x.kind].alone]
                rest = [_said(x.reason, c) for x in failed if not kinds[x.kind].alone]
                expected = "; ".join(alone + ([f"{m.runner(runner['id']).name} is not valid for this config: "
                                               f"{', '.join(rest)}"] if rest else []))
                with pytest.raises(UnsupportedFeatureError) as refused:
                    m0.resolve(c, runner=runner["id"])
                assert refused.value.reason == expected, (runner["id"], c)
    # Refusals: one that acknowledges no combination is unused; one whose combinations an earlier
    # one acknowledges is shadowed.
    if not undecided and not unsure and not sent:
        combos = [frozenset(c) for f in by_code.get("no-runner", []) for c in f.combinations]
        unused = {f.message.split("'")[1] for f in by_code.get("refusal-unused", [])}
        shadowed = {f.message.split("'")[1] for f in by_code.get("refusal-shadowed", [])}
        for index, refusal in enumerate(m.refusals):
            mine = [c for c in combos if refusal.covers(c)]
            first = [c for c in mine if not any(r.covers(c) for r in m.refusals[:index])]
            assert (refusal.id in unused) == (not mine), refusal.id
            assert (refusal.id in shadowed) == (bool(mine) and not first), refusal.id
    # Each runner is reported never chosen exactly when no config resolves to it automatically
    # (preferences, forces and candidacy included).
    chosen = set(outcome.values())
    # A runner that serves no config, or is never a candidate, is said so instead.
    never_chosen = {f.runner for code in ("never-chosen", "never-candidate", "runner-unusable", "requirement-unmet")
                    for f in by_code.get(code, []) if not _staged_finding(f)}
    # A runner whose file says candidate = "False" is asked for only, as it says: nothing is said of
    # it (file-format.md: no never-candidate, and it is not said never chosen).
    asked_only = {r.id for r in m.runners if runners[r.id].get("candidate") == "False"}
    assert not [f for code in ("never-candidate", "never-chosen") for f in by_code.get(code, [])
                if f.runner in asked_only], asked_only
    # (It may be chosen all the same, sent by another's redirect that applies always: said by neither.)
    _redirect_findings_agree(m, universe, by_code, unsure, chosen_on)
    _adjustment_findings_agree(m, m0, universe, by_code, chosen_on, _staged_of(text, runners))
    for runner in m.runners:
        if runner.id not in unsure and not undecided and not sent and runner.id not in asked_only:
            assert (runner.id in never_chosen) == (runner.id not in chosen), (
                f"{runner.id}: reported never chosen: {runner.id in never_chosen}; chosen for some config: "
                f"{runner.id in chosen}")


def _sent(m, compiled, bit, runner, auto):
    """docs/explanation/choice.md, redirects that apply always: where automatic choice reaches
    *runner* (a candidate) on the gates *auto*, its first redirect with applies = "always" in force
    whose condition holds sends it to that redirect's runner, validated as asked for: refused
    (NoRunnerError, final) where a gate in force it says no to is active. None: no such redirect holds."""
    to = next((d.to for d in m.runner(runner).redirects if d.applies == "always"
               and auto & bit.get(f"{runner}:redirect:{d.index + 1}", 0)), None)
    if to is None:
        return None
    refused = any(auto & bit[g.id] and g.status(to, m.version) == "no" for g in compiled.features)
    return NoRunnerError if refused else to


def _always_in_force(m):
    """The redirects with applies = "always" in force at the matrix's version (issue 30, F6)."""
    from matrix.schema import in_window

    return [d for r in m.runners for d in r.redirects if d.applies == "always" and d.stage is None
            and in_window(d.window, m.version)]


def _staged_finding(finding):
    """Whether a finding is said of a staged requirement (issue 30, F6), not of a gate."""
    return ", at stage '" in finding.message


def _adjustment_findings_agree(m, m0, universe, by_code, chosen_on, staged=(), kind="ks", idle_of=None):  # noqa: C901 — one reference per finding of adjustments, read against resolve
    """adjustment-refuses, adjustment-never and adjustment-undone against resolve over every
    config: a runner is refused by its adjustments exactly when some config resolves
    automatically to AdjustmentError with it chosen on C (and each witness does); an adjustment
    never changes a value exactly when no resolution records it (automatic, or a request for any
    runner: one of its runners, or one a redirect or an overriding feature takes to it); one is undone exactly when, wherever it changes a
    value (a runner's: on any C, for each of its runners), the adjustments after it leave the
    same config with it as without it. With staged requirements (issue 30, F6), resolve stops at
    the first that refuses (its refusal is no adjustment-refuses); one is said never to refuse
    (requirement-idle) exactly when no resolution is refused by it."""
    v = m.version
    undecided = {f.place for f in by_code.get("inconclusive", [])}
    refused, applied, staged_refused, served, staged_passed = set(), set(), set(), set(), set()
    # Without an adjustment no config is refused by one and none is said (the two sets stay
    # empty, and check must say neither): the resolutions below are read for nothing else.
    for config in universe if m.adjustments else ():
        try:
            resolution = m.resolve(config)
            staged_passed.update(_staged_passed(m, resolution, staged if idle_of is None else idle_of, kind))
        except matrix.AdjustmentError as error:
            # A redirect at a stage (issue 30, F6) that sent the runner on: its runner's refusal is
            # the redirect's (redirect-refused), not the chosen runner's adjustments'.
            rerouted = error.resolution.redirect is not None and error.resolution.redirect.stage is not None
            if error.resolution.staged_refusal is None and not rerouted:
                refused.add(m0.resolve(chosen_on(config)).runner)
            if error.resolution.staged_refusal is None:  # refused on F: after every stage
                # The runner that served up to F (the error's resolution names none): the one
                # chosen on C, or the one a redirect at a stage sent it to.
                ended = error.resolution.redirect.to if rerouted else m0.resolve(chosen_on(config)).runner
                staged_passed.update(_staged_passed(m, error.resolution, staged if idle_of is None else idle_of, kind,
                                                    runner=ended))
            resolution = error.resolution
        except matrix.ResolutionError as error:
            resolution = error.resolution
            if type(error) is NoRunnerError and resolution.staged_refusal is None:  # refused by the choice, after the stages before it
                staged_passed.update(_staged_passed(m, resolution, staged if idle_of is None else idle_of, kind, True))
        staged_refused.update((resolution.staged_refusal or {}).get("requirements", ()))
        # Said: a change's warning, or one that says always (README: an adjustment speaks where it
        # changes a value; with says = "always", or a notice, wherever its when holds).
        applied.update(w.feature for w in resolution.warnings if w.kind == "adjusted")
        for runner in m.runners:
            try:
                resolution = m.resolve(config, runner=runner.id)
                staged_passed.update(_staged_passed(m, resolution, staged if idle_of is None else idle_of, kind))
            except matrix.ResolutionError as error:
                resolution = error.resolution
            applied.update(w.feature for w in resolution.warnings if w.kind == "adjusted")  # a redirect's runner too
            staged_refused.update((resolution.staged_refusal or {}).get("requirements", ()))
            served.add(resolution.runner)
    idle = {("*" if f.runner is None else f.runner) + ":" + kind for f in by_code.get("requirement-idle", [])
            if _staged_finding(f) and f"'{kind}'" in f.message}
    unsure_staged = {("*" if f.runner is None else f.runner) + ":" + kind for f in by_code.get("inconclusive", [])
                     if f"requirement '{kind}'" in f.message}
    # One said unmet refuses every config it is checked on: no served resolution passed it.
    unmet = {("*" if f.runner is None else f.runner) + ":" + kind for f in by_code.get("requirement-unmet", [])
             if _staged_finding(f) and f"'{kind}'" in f.message}
    assert not unmet & staged_passed, unmet & staged_passed
    for owner, _, _, exempt, scoped in staged if idle_of is None else idle_of:  # those of *kind* (all: *staged*)
        gate = ("*" if owner is None else owner) + ":" + kind
        # Reached where a runner it binds serves (a served config passed every stage): a
        # requirement of roles is read wherever a runner serves (it refuses where its runner fills one).
        bound = {r.id for r in m.runners if r.id == owner or owner is None and r.id not in exempt or scoped}
        if gate in idle:
            assert gate not in staged_refused, gate
        elif gate not in unsure_staged and served & bound:
            assert gate in staged_refused, gate
    # Runner by runner: one whose question check leaves undecided is left out; none where the
    # conditions grew too large (then the question is not asked).
    unsure = {f.runner for f in by_code.get("inconclusive", []) if f.runner and "own adjustments" in f.message}
    if not by_code.get("adjustment-unchecked"):
        assert {f.runner for f in by_code.get("adjustment-refuses", [])} - unsure == refused - unsure
    # forced-freed, both ways: said of a forcing feature exactly when some config shows it.
    # The configs no staged requirement before the choice refuses (the choice is made on them).
    first = [s for s in staged if s[0] is None and s[2] in m.stages[:m.stages.index("choice")]] if staged else []
    kept = [c for c in universe if not _reference_stages(m, _before_choice(m), c, None, first,
                                                         m.stages[:m.stages.index("choice") + 1])[2]] \
        if first else universe
    if not any(f.place.endswith(".forces") for f in by_code.get("inconclusive", [])):
        assert {f.feature for f in by_code.get("forced-freed", [])} == _reference_forced_freed(m, m0, kept,
                                                                                               chosen_on)
    for finding in by_code.get("forced-freed", []):
        _shows(m, finding)
    for finding in by_code.get("adjustment-refuses", []):
        with pytest.raises(matrix.AdjustmentError):
            m.resolve(finding.witness)
    adjustments = m.adjustments_at(v)
    never = {f.place for f in by_code.get("adjustment-never", [])}
    undone = {f.place for f in by_code.get("adjustment-undone", [])}
    forced = None
    for a in adjustments:
        place = f"$.adjustments.{a.id}"
        if place in undecided:
            continue
        assert (place in never) == (a.id not in applied), place
        if a.id in applied:  # one that says always: its message is its effect, never undone
            if forced is None:  # once a matrix: the forced runners on its configs of choice
                forced = _forced_on(m0, kept, chosen_on) if _rerouted_runners(m) else {}
            assert (place in undone) == (a.says != "always" and _undone_reference(m, a, universe, chosen_on,
                                                                                 forced)), place


def _staged_passed(m, resolution, staged, kind, before=False, runner=None):
    """The staged requirements of *kind* (owner:kind, as `_adjustment_findings_agree` names them)
    that a *resolution* served, or refused on F after every stage (`AdjustmentError`: *runner* is
    the runner that served up to F, which its resolution does not name), passed:
    each before the choice, and each after it that binds the
    runner serving at its stage (the one a redirect at a later stage sent on: docs/reference/
    file-format.md, Stages); not one of roles (whether its runner filled a role is not read back).
    With *before*, of a resolution the choice refused: those before the choice alone."""
    at = m.stages.index("choice") if m.stages else 0
    redirect = resolution.redirect
    ended = resolution.runner if runner is None else runner
    assert before or ended is not None  # a runner served up to F (an error's resolution names none)
    out = set()
    for owner, _, stage, exempt, scoped in staged:
        k = m.stages.index(stage)
        serving = redirect.runner if redirect is not None and redirect.stage is not None and \
            m.stages.index(redirect.stage) > k else ended
        if k < at or not before and not scoped and (owner == serving or owner is None and serving not in exempt):
            out.add(("*" if owner is None else owner) + ":" + kind)
    return out


def _undone_reference(m, a, universe, chosen_on, forced=None):
    """Whether the adjustments after *a* undo it wherever it changes a value (see above). One
    after the choice whose runners' steps a redirect at a stage changes (issue 30, F6): on each
    config of choice and each runner serving there, the adjustments its walk makes (`_way`), and
    wherever *a* changes a value among them, the same walk without it (the way taken with it);
    and on each config of choice (*forced*, by config: no staged refusal before the choice) where automatic
    choice finds no runner free and a feature forces R (`_forced_on`), R's adjustments,
    every one of them: R does not serve, so no redirect at a stage is read (effective-config.md,
    step 4)."""

    def same(x, y):
        return {n: (type(_plain(x[n])), _plain(x[n])) for n in x} == {n: (type(_plain(y[n])), _plain(y[n])) for n in y}

    if a not in _before_choice(m) and _rerouted_runners(m) & set(a.runners or [r.id for r in m.runners]):
        forced = forced or {}
        for config in universe:
            c = chosen_on(config)
            ways = [(r.id, _way(m, c, r.id)) for r in m.runners]
            if forced.get(id(config)) is not None:
                ways.append((forced[id(config)], _after_choice(m, forced[id(config)])))
            for r, steps in ways:
                if a not in steps:
                    continue
                index = steps.index(a)
                x = _reference_apply(m, steps[:index], c, r)[0]
                if _reference_apply(m, [a], x, r)[1] and not same(_reference_apply(m, steps[index:], x, r)[0],
                                                                  _reference_apply(m, steps[index + 1:], x, r)[0]):
                    return False
        return True
    lists = [(_before_choice(m), lambda config: config, None)] if a in _before_choice(m) else \
        [(_after_choice(m, r.id), chosen_on, r.id) for r in m.runners if a in _after_choice(m, r.id)]
    for steps, start, runner in lists:  # the runner that serves: a role reads it (issue 30, F1)
        index = steps.index(a)
        if index == len(steps) - 1:
            return False
        for config in universe:
            x = _reference_apply(m, steps[:index], start(config), runner)[0]
            if not _reference_apply(m, [a], x, runner)[1]:
                continue  # it changes nothing here
            if not same(_reference_apply(m, steps[index:], x, runner)[0],
                        _reference_apply(m, steps[index + 1:], x, runner)[0]):
                return False
    return True


def _forced_on(m0, kept, chosen_on):
    """By id of each config of *kept*: the runner automatic choice's no-runner error ends on
    because a feature forces it, on its config of choice (`_reference_forced`; not where a
    redirect that applies always was reached and refused), or None."""
    forced = {}
    for config in kept:
        c = chosen_on(config)
        try:
            m0.resolve(c)
        except NoRunnerError as error:
            if error.resolution.redirect is None:
                forced[id(config)] = _reference_forced(m0, c)
        except matrix.ResolutionError:
            pass
    return forced


def _rerouted_runners(m):
    """The runners whose steps a redirect at a stage in force changes: its own, and its runner."""
    from matrix.schema import in_window

    return {r for x in m.runners for d in x.redirects if d.stage is not None and in_window(d.window, m.version)
            for r in (x.id, d.to)}


def _way(m, c, serving):
    """The adjustments after the choice made once *serving* serves on the config of choice *c*
    (docs/reference/file-format.md, "A redirect at a stage"), as `_reference_walk` walks them
    (staged requirements left out): *serving*'s, stage by stage, until its first redirect at a
    stage in force holds on the config the stages before it left; then that redirect's runner's,
    from that stage on."""
    from matrix.schema import in_window

    steps, current, runner, rerouted = [], c, serving, None
    for stage in m.stages[m.stages.index("choice"):]:
        if rerouted is None:
            rerouted = next((d for d in m.runner(runner).redirects if d.stage == stage and in_window(d.window, m.version)
                             and _holds_given(m, d.when, current, current.get(_GIVEN, current),
                                              _role_values(m, current, runner))), None)
            runner = runner if rerouted is None else rerouted.to
        here = [a for a in _after_choice(m, runner) if (a.stage or "choice") == stage]
        current = _reference_apply(m, here, current, runner)[0]
        steps += here
    return steps


def _applied(m, config, runner):
    """The redirect of a request for *runner* that applies to *config*, as the docs say: the
    first of its file's redirects in force at the version whose condition holds."""
    from matrix.schema import in_window

    for redirect in m.runner(runner).redirects:
        if redirect.stage is None and in_window(redirect.window, m.version) and \
                redirect.when.evaluate(config, schema=m.schema):
            return redirect
    return None


def _redirect_findings_agree(m, universe, by_code, unsure, chosen_on=lambda config: config):  # noqa: C901 — one reference per kind of redirect (of a request, applying always, at a stage), read against resolve
    """redirect-never and redirect-refused, the former ids' findings and those of runners deprecated, against brute force:
    a redirect is said never to apply exactly when no config makes it the one that applies
    (with no removed feature active); said refused exactly when some such config leaves a
    request its runner refuses at itself (a gate in force for requests it says no to, not a
    force with override, or a failed requirement; no overriding force to another runner), by a
    gate some runner does not say no to (a matrix-wide requirement that exempts none refuses
    every request: not the redirect's doing). With adjustments the request is decided on the config of choice and the runner it is sent to
    validated on its effective config."""
    from matrix.schema import in_window

    v, schema = m.version, m.schema
    asked = [f for f in m.features_at(v) if f.applies != "automatic"]
    said = {code: {f.place for f in by_code.get(code, [])} for code in ("redirect-never", "redirect-refused")}
    staged = None  # the redirects at a stage, as resolve answers (read once, where there are some)
    for runner in m.runners:
        if runner.id in unsure:
            continue
        for redirect in runner.redirects:
            place = f"$.runners.{runner.id}.redirects[{redirect.index}]"
            if not in_window(redirect.window, v):
                assert place not in said["redirect-never"] | said["redirect-refused"], place
                continue
            if redirect.stage is not None:  # at a stage after the choice (issue 30, F6): as resolve answers
                if staged is None:
                    staged = _staged_redirects_reference(m, universe)
                _staged_redirect_agrees(m, staged, by_code, said, place, (runner.id, redirect.index))
                continue
            applies = refused = False
            for config in universe:
                config = chosen_on(config)
                active = [f for f in asked if f.when.evaluate(config, schema=schema)]
                if any(f.removed_at(v) for f in active) or _applied(m, config, runner.id) != redirect:
                    continue
                applies = True
                to = redirect.to
                if any(f.forces is not None and f.forces.override and f.forces.runner != to for f in active):
                    continue
                config = _reference_apply(m, _after_choice(m, to), config, to)[0]
                active = [f for f in asked if f.when.evaluate(config, schema=schema)]
                # A gate every runner says no to refuses the request wherever it goes: not counted.
                if any(f.status(to, v) == "no" and not all(f.status(r.id, v) == "no" for r in m.runners)
                       for f in active) \
                        or any(not c.condition.evaluate(config, schema=schema)
                               for c in [*(w for w in m.requires if to not in w.exempt and w.exempt),
                                         *m.runner(to).requires]):
                    refused = True
                    break
            # One that applies always acts where automatic choice reaches its runner too (issue 30,
            # F6): as resolve answers, which the orders' reference holds to the docs.
            for config in universe if redirect.applies == "always" and not refused else ():
                try:
                    resolution, error = m.resolve(config), None
                except matrix.ResolutionError as caught:
                    resolution, error = caught.resolution, caught
                found = resolution.redirect if resolution.requested is None else None
                if found is not None and (found.runner, found.index) == (runner.id, redirect.index):
                    applies = True
                    # Refused by a gate some runner does not say no to (one every runner says no
                    # to refuses the config wherever the choice goes: no-runner says it).
                    if isinstance(error, NoRunnerError) and any(
                            not all(g.status(r.id, v) == "no" for r in m.runners)
                            for g in resolution.unsupported.get(redirect.to, ())):
                        refused = True
                        break
            assert (place in said["redirect-never"]) == (not applies), place
            assert (place in said["redirect-refused"]) == refused, place
    for code, due in (("alias-no-removal-version", lambda d: d.remove_in is None),
                      ("alias-overdue", lambda d: d.remove_in is not None and v >= d.remove_in and not d.removed)):
        expected = {r.id for r in m.runners for a in r.aliases if due(a.deprecation)}
        assert {f.runner for f in by_code.get(code, [])} == expected, code
    # A runner deprecated (file-format.md, A runner deprecated): without remove_in, or past it (its
    # file still there), whatever the version of its since.
    for code, due in (("runner-no-removal-version", lambda d: d.remove_in is None),
                      ("runner-overdue", lambda d: d.remove_in is not None and v >= d.remove_in)):
        assert sorted(f.runner for f in by_code.get(code, [])) == sorted(
            r.id for r in m.runners if r.deprecated is not None and due(r.deprecated)), code


def _staged_redirect_agrees(m, staged, by_code, said, place, key):
    """redirect-never and redirect-refused of a redirect at a stage (*key*: runner, index) against
    `_staged_redirects_reference` (*staged*), unless check says it inconclusive; a refusal's
    witness resolves to it, refused."""
    applies, refused = staged.get(key, (False, False))
    if not any(f.place == place for f in by_code.get("inconclusive", ())):
        assert (place in said["redirect-never"]) == (not applies), place
        assert (place in said["redirect-refused"]) == refused, place
    assert not (place in said["redirect-never"] and applies), place
    for finding in by_code.get("redirect-refused", ()):
        if finding.place == place:
            assert _staged_redirects_reference(m, [finding.witness]).get(key) == (True, True), place


def _staged_redirects_reference(m, universe):
    """(runner, index) of each redirect at a stage after the choice (issue 30, F6) that applies to
    some config of *universe*, resolved automatically or with any runner asked for (it acts on
    whichever runner serves at its stage, which `_reference_walk` holds resolve to) → whether its
    runner, validated as asked for, then refuses one (by a gate some runner does not say no to;
    a staged requirement's refusal is not the redirect's)."""
    out = {}
    for config in universe:
        for asked in (None, *(r.id for r in m.runners)):
            try:
                resolution, error = m.resolve(config, runner=asked), None
            except matrix.ResolutionError as caught:
                resolution, error = caught.resolution, caught
            found = resolution.redirect if resolution is not None else None
            if found is None or found.stage is None:
                continue
            key = (found.runner, found.index)
            refused = error is not None and resolution.staged_refusal is None and any(
                not all(g.status(r.id, m.version) == "no" for r in m.runners)
                for g in resolution.unsupported.get(found.to, ()))
            out[key] = out.get(key, False) or refused
    return {key: (True, refused) for key, refused in out.items()}


def _requested_reference(m, config, asked):
    """What a request for *asked* (a runner id or a former one) answers for *config*, written
    from matrix/_choice.py's docstring with the plain interpreter: the runner or the error's
    class, and the kinds of the notices about the request, in order."""
    v, schema = m.version, m.schema
    active = [f for f in m.features_at(v) if f.applies != "automatic" and f.when.evaluate(config, schema=schema)]
    alias = next((a for r in m.runners for a in r.aliases if a.id == asked), None)
    if alias is not None and alias.deprecation.is_removed(v):
        return matrix.UsageError, []
    if any(f.removed_at(v) for f in active):
        return RemovedFeatureError, []
    said, runner = [], asked
    if alias is not None:
        if v >= alias.deprecation.since:
            said.append("deprecated-alias")
        runner = alias.runner
    redirect = _applied(m, config, runner)
    if redirect is not None:
        said.append("redirected")
        runner = redirect.to
    forcing = [f for f in active if f.forces is not None and f.forces.runner != runner]
    if any(not f.forces.override for f in forcing):
        return matrix.UnsupportedFeatureError, said
    for f in forcing:
        if f.forces.runner != runner:
            said.append("override")
            runner = f.forces.runner
    if any(f.status(runner, v) == "no" for f in active) \
            or any(not c.condition.evaluate(config, schema=schema)
                   for c in [*(w for w in m.requires if runner not in w.exempt), *m.runner(runner).requires]):
        return matrix.UnsupportedFeatureError, said
    if _deprecated_runner(m, runner):
        said.append("deprecated-runner")
    return runner, said


def _deprecated_runner(m, runner):
    """Whether a resolution that ends on *runner* warns that it is deprecated (file-format.md, A
    runner deprecated): it has a deprecation whose ``since`` the version has reached, overdue or not."""
    d = m.runner(runner).deprecated
    return d is not None and m.version >= d.since


@settings(deadline=None)
@given(_small_matrices(pool=["j", "t", "b", "s"]))
def test_a_request_resolves_as_the_rules_say_over_every_config(case):
    """Each runner and each former id asked for, over the whole config space: resolve agrees
    with the reference (the runner or the error, the notices about the request), and a
    redirect's notice names the values its condition read."""
    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return
    asking = [r.id for r in m.runners] + [a.id for r in m.runners for a in r.aliases]
    for config in _universe(m, names):
        for asked in asking:
            expected, said = _requested_reference(m, config, asked)
            try:
                resolution = m.resolve(config, runner=asked)
                got = resolution.runner
            except matrix.UsageError:
                got, resolution = matrix.UsageError, None
            except matrix.ResolutionError as error:
                got, resolution = type(error), error.resolution
            assert got == expected, (asked, config)
            if resolution is None:
                continue
            kinds = [w.kind for w in resolution.warnings
                     if w.kind in ("deprecated-alias", "redirected", "override", "deprecated-runner")]
            assert kinds == said, (asked, config)
            redirect = resolution.redirect
            assert ("redirected" in said) == (redirect is not None)
            if redirect is not None and redirect.message is None:
                shown = ", ".join(f"{p} = {config[p]!r}" for p in sorted(redirect.when.paths))
                message = next(w.message for w in resolution.warnings if w.kind == "redirected")
                assert message == f"Asked for {asked!r}, redirected to {redirect.to!r}: {shown}"


def _one_gate(config, when):
    text = (f'[matrix]\nname = "t"\nversion = "1"\n[config]\n{config}\n[features.g]\nname = "g"\nwhen = "{when}"\n'
            'support = { a = "yes", b = "no" }\n')
    return matrix.loads(text, runners={"a": {"name": "A", "priority": 1}, "b": {"name": "B", "priority": 2}})


@pytest.mark.parametrize(
    ("config", "when", "witness"),
    [
        ('"x" = { type = "int", default = 0 }', "x > 2.5", {"x": 3}),
        ('"x" = { type = "int", default = 0 }', "not x >= 0.5", {"x": 0}),
        ('"x" = { type = "version", default = "1.0" }', "x < '2.0.dev0'", {"x": "0.dev0"}),
        ('"x" = { type = "version", default = "1.0" }', "x > '2.0.post1'", {"x": "2.0.post1+0"}),
        ('"x" = { type = "float", default = 0.0 }', "x < 1e16", {"x": 9999999999999998.0}),
        ('"x" = { type = "int", default = 0 }', "x < 1e16", {"x": 9999999999999999}),
        ('"x" = { type = "float", default = 0.0 }', "x > 1.7976931348623157e308", {"x": math.inf}),
        # Integers past the largest float are compared exactly, never converted.
        ('"x" = { type = "int", default = 0 }', f"x < {10 ** 400}", {"x": 10 ** 400 - 1}),
        ('"x" = { type = "float", default = 0.0 }', f"x > {10 ** 400}", {"x": math.inf}),
        ('"x" = { type = "float", default = 0.0 }', f"x == {10 ** 400}", {"x": 10 ** 400}),
        ('"x" = { type = "int", default = 0 }\n"y" = { type = "int", default = 0 }', "x < y", {"x": 0, "y": 1}),
        ('"s" = { type = "str", default = "" }\n"t" = { type = "str", default = "" }', "s != t",
         {"s": "other", "t": "other_"}),
        ('"s" = { type = "str", default = "" }\n"l" = { type = "list[str]", default = [] }', "s in l",
         {"s": "other", "l": ["other"]}),
    ],
)
def test_gates_the_partition_once_missed_are_live_with_witnesses_that_resolve(config, when, witness):
    m = _one_gate(config, when)
    assert [f.code for f in check(m).findings if f.feature == "g"] == []
    gate = m.feature("g")
    space = Space(m.schema, [gate.when.node])
    found = space.witness(space.solve(true=[gate.when.node]))
    assert found == witness
    assert m.resolve(found).runner == "a" and m.resolve(found).active == (gate,)
    # ... and the witness of the other side, where the gate does not hold, resolves too.
    assert m.resolve(space.witness(space.solve(false=[gate.when.node]))).active == ()


def test_nan_is_refused_everywhere_so_a_total_condition_is_always_active():
    m = _one_gate('"x" = { type = "float", default = 0.0 }', "x > 1.0 or x <= 1.0")
    assert sorted(f.code for f in check(m).findings) == ["always-active", "never-chosen", "no-yes"]
    with pytest.raises(matrix.ConfigError) as info:
        m.resolve({"x": float("nan")})
    assert info.exconly() == ("matrix.errors.ConfigError: Config 'x' (read by feature 'g'): Is NaN, which no "
                              "comparison can order: give a number (inf and -inf are numbers)")
    assert m.resolve({"x": math.inf}).active == (m.feature("g"),)


def test_a_gap_that_cannot_be_constructed_is_inconclusive_not_never_active():
    m = _one_gate('"x" = { type = "version", default = "1.0" }', "x > '1.0' and x < '1.0+a'")
    assert [(f.code, f.message) for f in check(m).findings if f.feature == "g"][0] == (
        "inconclusive", "Could not decide exactly (not every value of 'x' could be represented: a version is "
                        "compared near its own local variant (between 1.0 and 1.0+a nothing can be constructed)) "
                        "whether g can be active")


# --- CI formats ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["no-runner.toml", "class-nullable.toml", "never-active.toml", "history-unused.toml"])
def test_sarif_output_validates_against_the_sarif_schema(name, sarif_schema, monkeypatch):
    import jsonschema

    monkeypatch.chdir(DATA)
    status, out, err = call("check", "--matrix", name, "--format", "sarif")
    log = json.loads(out)
    jsonschema.validators.validator_for(sarif_schema)(sarif_schema).validate(log)
    text_status, text, _ = call("check", "--matrix", name)
    assert status == text_status
    results = log["runs"][0]["results"]
    assert len(results) == len(text.splitlines()) - 1 - text.count("    witness: ")
    first = results[0]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == name
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[first["ruleIndex"]]["id"] == first["ruleId"]


def test_github_format_is_one_workflow_command_per_finding(monkeypatch):
    monkeypatch.chdir(DATA)
    status, out, err = call("check", "--matrix", "no-runner.toml", "--format", "github", "--strict")
    assert (status, err) == (1, "")
    assert out.splitlines()[0].startswith("::error file=no-runner.toml,line=")
    assert ",title=matrix no-runner::No runner can serve a config that uses " in out.splitlines()[0]
    assert "%0Awitness: {" in out.splitlines()[0]
    status, out, _ = call("check", "--matrix", "history-unused.toml", "--format", "github")
    assert out.splitlines()[0] == (
        "::warning file=history-unused.toml,line=13,col=15,title=matrix history-unused::late gate: what Runner One "
        "says first ('no') is never in force: the statement from 1.1 takes over before the gate begins in 1.2")


def test_github_commands_escape_what_would_end_them():
    from matrix._ci_formats import github
    from matrix.check import Finding, Report

    report = Report((Finding("no-yes", "warning", "100% of A:B,\nnext", file="a,b:c.toml", line=2, column=3),))
    assert github(report) == "::warning file=a%2Cb%3Ac.toml,line=2,col=3,title=matrix no-yes::100%25 of A:B,%0Anext\n"


def test_strict_passes_on_the_default_matrix_with_its_refusals_and_fails_on_one_more_gate(tmp_path):
    import shutil

    report = check(matrix.default(), strict=True)
    assert not report.failed
    refusals = [f for f in report.findings if f.code == "no-runner"]
    assert {f.refusal for f in refusals} == {"v1_only_with_v2_only"}
    # Issue 27: its adjustments are weighed exactly (no note says otherwise), and none is found wanting.
    assert not [f for f in report.findings if f.code.startswith("adjustment-")]
    assert report.summary() == "passed: 0 errors, 0 warnings, 2 notes (strict: every finding fails but acknowledged refusals)"
    assert all(f.message.endswith("(acknowledged: a feature only Model Runner V1 serves cannot be combined with one "
                                  "only Model Runner V2 serves: vLLM raises the V1 error)") for f in refusals)
    root = pathlib.Path(__file__).parent.parent
    shutil.copytree(root / "runners", tmp_path / "runners")
    text = (root / "features.toml").read_text()
    extra = ('\n[features.new_v2_gap]\nname = "a new V2 gap"\nwhen = "model_config.is_hybrid and lora_config is not None"\n'
             'support = { v1 = "yes", v2 = "no" }\n')
    (tmp_path / "features.toml").write_text(text + extra)
    report = check(matrix.load(tmp_path / "features.toml"), strict=True)
    assert report.failed
    new = [f for f in report.findings if f.refusal is None]
    assert [(f.code, f.severity, f.features[-8:]) for f in new][0][:2] == ("no-runner", "error")
    assert all("new_v2_gap" in f.features for f in new)


def test_a_refusal_is_checked_when_loaded():
    text = (DATA / "refusal-unused.toml").read_text().replace('together = [["a"], ["c"]]', 'together = [["a"], ["cc"]]')
    with pytest.raises(matrix.LoadError) as info:
        matrix.loads(text, runners=DATA / "runners")
    assert [(p.place, p.message) for p in info.value.problems] == [
        ("$.refusals.stale.together[1][0]", "Unknown gate 'cc', did you mean 'c' (expected 'a', 'b', 'c')")]


_REQUIRED_GPU = """[matrix]
name = "req"
version = "1.0"
[config]
"gpu" = { type = "bool", default = false }
"hdr" = { type = "bool", default = false }
[requirements]
device = { name = "Device", reason = "needs a GPU" }
[features.hdr]
name = "HDR"
when = "hdr"
support = { cuda = "yes", cpu = "no" }
[refusals.hdr_without_gpu]
reason = "HDR needs the GPU encoder"
together = [["hdr"], ["GATE"]]
"""


def test_a_refusal_names_the_gates_derived_from_runner_files_as_the_findings_do():
    """A new user's trial: the file format says `together` names RUNNER:KIND and
    RUNNER:not-candidate, as check's findings do; the loader knew only feature ids, so a
    no-runner finding of a requirement could not be acknowledged."""
    runners = {"cuda": {"name": "CUDA", "priority": 2, "requires": {"device": [{"condition": "gpu"}]}},
               "cpu": {"name": "CPU", "priority": 1}}
    m = matrix.loads(_REQUIRED_GPU.replace("GATE", "cuda:device"), runners=runners)
    assert [str(f) for f in check(m).findings if f.code == "no-runner"] == [
        "<string>:9:1: note[no-runner]: No runner can serve a config with HDR and 'needs a GPU' (failing gpu, CUDA's requirement "
        "'device'): CUDA is not valid for it: needs a GPU; CPU does not support HDR (acknowledged: HDR needs the GPU encoder)"]
    with pytest.raises(matrix.LoadError) as info:
        matrix.loads(_REQUIRED_GPU.replace("GATE", "cuda:devise"), runners=runners)
    assert [(p.place, p.message) for p in info.value.problems] == [
        ("$.refusals.hdr_without_gpu.together[1][0]",
         "Unknown gate 'cuda:devise', did you mean 'cuda:device' (expected 'cuda:device', 'hdr')")]


_ORDER_STANDS_FOR = """
[matrix]
name = "query engines"
version = "1.0"
[config]
"mode" = { type = "str", choices = ["batch", "streaming"], default = "batch" }
"spill" = { type = "bool", default = false }
"workers" = { type = "int", min = 1, max = 16, default = 1 }
[features.spill]
name = "spilling to disk"
when = "spill"
support = { vectorized = "yes", gpu = "yes", row = "yes", remote = "opt-in" }
[features.streaming]
name = "streaming mode"
when = "mode == 'streaming'"
support = { vectorized = "no", gpu = "no", row = "yes", remote = "yes" }
[features.wide]
name = "more than 8 workers"
when = "workers > 8"
support = { vectorized = "no", gpu = "yes", row = "no", remote = "yes" }
[orders.streaming]
name = "Streaming default"
when = "mode == 'streaming'"
runners = ["row"]
fallback = false
[refusals.streaming_wide]
reason = "streaming runs on the row engine alone"
together = [["streaming", "order:streaming"], ["wide"]]
"""


_QUERY_ENGINES = {"vectorized": {"name": "Vectorized", "priority": 4}, "gpu": {"name": "GPU", "priority": 3},
                  "row": {"name": "Row", "priority": 2}, "remote": {"name": "Remote", "priority": 1}}


def test_a_set_whose_conditions_include_another_sets_is_not_said():
    """A user trial: spilling, streaming and more than 8 workers leave no runner free by priority,
    but a feature with the order's condition stands for the order: every such config is the
    order's and more than 8 workers', said (and acknowledged) already. It was an error of its
    own that `--strict` failed on."""
    m = matrix.loads(_ORDER_STANDS_FOR, runners=_QUERY_ENGINES)
    assert [(f.severity, f.combinations) for f in check(m, strict=True).findings if f.code == "no-runner"] == [
        ("note", (("wide", "order:streaming"),))]
    # Without the order the three are the set (the feature stands for nothing else).
    m = matrix.loads(_ORDER_STANDS_FOR.split("[orders.")[0], runners=_QUERY_ENGINES)
    assert [(f.severity, f.combinations) for f in check(m, strict=True).findings if f.code == "no-runner"] == [
        ("error", (("spill", "streaming", "wide"),))]


def test_a_malformed_refusal_id_is_named_as_such():
    text = (DATA / "refusal-unused.toml").read_text().replace("[refusals.stale]", '[refusals."bad id!"]')
    with pytest.raises(matrix.LoadError) as info:
        matrix.loads(text, runners=DATA / "runners")
    assert [p.message for p in info.value.problems] == ["Refusal id 'bad id!' must be letters, digits, '_', '.' or '-'"]


# --- the wrong answers an independent brute force found (issue 26), each with its minimal matrix ----

_R12 = {"r1": {"name": "R1", "priority": 2}, "r2": {"name": "R2", "priority": 1}}


def _loads(config, features, runners=_R12):
    return matrix.loads(f'[matrix]\nname = "t"\nversion = "1.0"\n[config]\n{config}\n{features}', runners=runners)


@pytest.mark.parametrize(("when", "witness"), [
    ("x > 2.5 and x % 2 == 0", {"x": 4}),
    ("x < -0.5 and x % 2 == 0", {"x": -2}),
    ("not (not (1.5 >= x and x % 4 == 2))", {"x": -2}),
])
def test_a_remainder_beside_a_non_integral_bound_is_decided_exactly(when, witness):
    m = _loads('"x" = { type = "int", default = 0 }',
               f'[features.g]\nname = "g"\nwhen = "{when}"\nsupport = {{ r1 = "yes", r2 = "no" }}\n')
    assert [f.code for f in check(m).findings if f.feature == "g"] == []
    assert m.resolve(witness).active == (m.feature("g"),)
    negated = _loads('"x" = { type = "int", default = 0 }',
                     f'[features.g]\nname = "g"\nwhen = "not ({when})"\nsupport = {{ r1 = "yes", r2 = "no" }}\n')
    assert [f.code for f in check(negated).findings if f.feature == "g"] == []  # not always active


def test_a_remainder_compared_with_another_field_is_decided_exactly():
    m = _loads('"x" = { type = "int", default = 0 }\n"y" = { type = "int", default = 0 }',
               '[features.g]\nname = "g"\nwhen = "y == x % 5 and y == 2"\nsupport = { r1 = "yes", r2 = "no" }\n')
    assert [f.code for f in check(m).findings if f.feature == "g"] == []
    assert m.resolve({"x": 2, "y": 2}).active == (m.feature("g"),)
    # A remainder compared with a remainder: the runner is no candidate at a = 4 (4 % 4 == 0).
    m = _loads('"a" = { type = "int", min = 1, max = 5, default = 1 }\n"d" = { type = "int", default = 0 }', "",
               {"r1": {"name": "R1", "priority": 2, "candidate": "d % 1 < a % 4"}})
    assert [(f.code, f.message, f.witness) for f in check(m).findings if f.code == "no-runner"] == [
        ("no-runner", "No runner can serve a config with R1 not being a candidate (not d % 1 < a % 4): R1 is not "
                      "a candidate", {"a": 4, "d": 0})]
    with pytest.raises(NoRunnerError):
        m.resolve({"a": 4, "d": 0})


def test_a_no_runner_finding_says_a_compound_candidacy_negated_whole():
    """A user trial: `not a and b` reads `(not a) and b`, so the negation of a candidacy of two
    parts is said in parentheses, the condition the finding's witness meets."""
    m = _loads('"v" = { type = "str", choices = ["n", "i"], default = "n" }\n"c" = { type = "int", min = 0, max = 2, default = 1 }',
               "", {"r1": {"name": "R1", "priority": 2, "candidate": "v == 'n' and c >= 1"}})
    findings = [f for f in check(m).findings if f.code == "no-runner"]
    assert [f.message.split(":")[0] for f in findings] == [
        "No runner can serve a config with R1 not being a candidate (not (v == 'n' and c >= 1))"]
    condition = matrix.Predicate("not (v == 'n' and c >= 1)")
    assert condition.evaluate(findings[0].witness, schema=m.schema) is True
    with pytest.raises(NoRunnerError):
        m.resolve(findings[0].witness)


def test_a_no_runner_finding_says_a_negated_candidacy_without_not_not():
    """The NPU example's `candidate = "not platform.is_npu"` was said "(not not platform.is_npu)"."""
    m = _loads('"v" = { type = "str", choices = ["n", "i"], default = "n" }\n"b" = { type = "bool", default = false }',
               "", {"r1": {"name": "R1", "priority": 2, "candidate": "not (v == 'n' or b)"}})
    findings = [f for f in check(m).findings if f.code == "no-runner"]
    assert [(f.message, f.witness) for f in findings] == [
        ("No runner can serve a config with R1 not being a candidate (v == 'n' or b): R1 is not a candidate",
         {"v": "n"})]


def test_a_chain_clause_no_config_meets_is_requirement_unmet_wherever_it_stands():
    m = _loads('"x" = { type = "int", min = 0, default = 0 }', '[requirements]\nk = { name = "K", reason = "k fails" }\n',
               {"r1": {"name": "R1", "priority": 2, "requires": {"k": [{"condition": "x > 1"}, {"condition": "x < 0"}]}},
                "r2": {"name": "R2", "priority": 1}})
    assert [(f.code, f.message) for f in check(m).findings if f.runner == "r1"] == [
        ("requirement-unmet", "R1's requirement 'k', clause 2 (k fails), is met by no config: x < 0 never holds, so R1 "
                              "can serve no config")]


def test_an_outright_preference_is_combined_with_the_gates_that_really_refuse():
    # g0 forces r0 and is always active, so preferences are set aside: g1's outright preference
    # never decides, and {g0, g1} leave no runner by refusal alone.
    text = ('[features.g0]\nname = "g0"\nwhen = "True"\nsupport = { r0 = "yes", r1 = "no", r3 = "no" }\n'
            'forces = { runner = "r0" }\n'
            '[features.g1]\nname = "g1"\nwhen = "c"\nsupport = { r0 = "no", r1 = "yes", r3 = "no" }\n'
            'prefers = { runner = "r3", outright = true }\n')
    m = _loads('"c" = { type = "bool", default = false }', text,
               {"r0": {"name": "R0", "priority": 34}, "r3": {"name": "R3", "priority": 24},
                "r1": {"name": "R1", "priority": 23}})
    with pytest.raises(NoRunnerError):
        m.resolve({"c": True})
    assert [(f.message, f.witness) for f in check(m).findings if f.code == "no-runner"] == [
        ("No runner can serve a config that uses g0 and g1: R0 does not support g1; R3 does not support g0, g1; "
         "R1 does not support g0", {"c": True})]


def test_an_outright_preference_counts_only_where_it_decides():
    # Wherever g1 holds, g0 holds and decides first: g1 is no finding of its own.
    text = ('[features.g0]\nname = "g0"\nwhen = "a or b"\nsupport = { r0 = "no", r1 = "no" }\n'
            'prefers = { runner = "r1", outright = true }\n'
            '[features.g1]\nname = "g1"\nwhen = "b"\nsupport = { r0 = { status = "partial", note = "n" }, r1 = "no" }\n'
            'prefers = { runner = "r1", outright = true }\n')
    m = _loads('"a" = { type = "bool", default = false }\n"b" = { type = "bool", default = false }', text,
               {"r0": {"name": "R0", "priority": 2}, "r1": {"name": "R1", "priority": 1}})
    assert [f.combinations for f in check(m).findings if f.code == "no-runner"] == [(("g0",),)]


def test_a_gate_is_never_compared_with_itself_and_a_related_remainder_is_exact_beside_choices():
    m = _loads('"a" = { type = "int", nullable = true, choices = [0, 3] }\n"c" = { type = "int", min = 0, default = 0 }',
               '[features.g0]\nname = "g0"\nwhen = "c > a"\nsupport = { r1 = "yes", r2 = "no" }\n'
               '[features.g1]\nname = "g1"\nwhen = "c % 2 <= 2"\nsupport = { r1 = "no", r2 = "yes" }\n')
    findings = check(m).findings
    assert [f.code for f in findings] == ["never-chosen", "no-runner", "always-active"]
    # A float bounded to [-1, 4] is exact beside constants far outside its bounds.
    m = _loads('"d" = { type = "float", min = -1, max = 4, default = 0.0 }\n"e" = { type = "int", default = 0 }\n'
               '"a" = { type = "int", default = 0 }',
               '[features.g0]\nname = "g0"\nwhen = "e > d"\nsupport = { r1 = "yes", r2 = "no" }\n'
               '[features.g1]\nname = "g1"\nwhen = "9007199254740993 == e"\nsupport = { r1 = "no", r2 = "yes" }\n'
               '[features.g2]\nname = "g2"\nwhen = "a <= d"\nsupport = { r1 = "no", r2 = "yes" }\n')
    assert "inconclusive" not in [f.code for f in check(m).findings]


def test_a_requirement_reason_that_says_config_values_is_said_with_their_paths_in_a_finding():
    """Trial 11: a finding of many configs said a reason template as it is (``c ({c})``)."""
    m = _loads('"c" = { type = "int", min = 0, max = 9, default = 0 }',
               '[requirements]\nk0 = { name = "K0", reason = "c ({c!r}) must be even" }\n',
               {"r1": {"name": "R1", "priority": 2, "requires": {"k0": "c % 2 == 0"}},
                "r2": {"name": "R2", "priority": 1, "requires": {"k0": "c % 2 == 0"}}})
    assert [f.message for f in check(m).findings if f.code == "no-runner"] == [
        "No runner can serve a config with 'c (‹c›) must be even' (failing c % 2 == 0, R1's requirement "
        "'k0'): R1 is not valid for it: c (‹c›) must be even; R2 is not valid for it: c (‹c›) "
        "must be even"]

def test_candidacy_is_not_merged_with_a_requirement_of_the_same_condition():
    m = _loads('"c" = { type = "bool", default = false }',
               '[requirements]\nk0 = { name = "K0", reason = "k0 fails" }\n'
               '[features.g]\nname = "g"\nwhen = "c"\nsupport = { r1 = "yes", r2 = "yes" }\n',
               {"r1": {"name": "R1", "priority": 2, "requires": {"k0": "c"}},
                "r2": {"name": "R2", "priority": 1, "candidate": "c"}})
    assert [(f.message, f.combinations) for f in check(m).findings if f.code == "no-runner"] == [
        ("No runner can serve a config with 'k0 fails' (failing c, R1's requirement 'k0') and R2 not being a candidate (not c): R1 is not "
         "valid for it: k0 fails; R2 is not a candidate", (("r1:k0", "r2:not-candidate"),))]


@pytest.mark.parametrize("first", ["fo", "fn"])
def test_a_refusing_forced_runner_wins_over_an_overriding_one_whatever_the_order(first):
    fo = '[features.fo]\nname = "fo"\nwhen = "a"\nsupport = { r0 = "yes", r1 = "no" }\nforces = { runner = "r0", override = true }\n'
    fn = '[features.fn]\nname = "fn"\nwhen = "b"\nsupport = { r0 = "yes", r1 = "no" }\nforces = { runner = "r0" }\n'
    m = _loads('"a" = { type = "bool", default = false }\n"b" = { type = "bool", default = false }',
               fo + fn if first == "fo" else fn + fo, {"r0": {"name": "R0", "priority": 2}, "r1": {"name": "R1", "priority": 1}})
    with pytest.raises(matrix.UnsupportedFeatureError) as excinfo:
        m.resolve({"a": True, "b": True}, runner="r1")
    changes = ("set a to False", "set b to False")  # in the order the gates that read them stand
    assert excinfo.exconly() == ("matrix.errors.UnsupportedFeatureError: fn requires R0; it cannot run on R1, which "
                                 "was asked for\nTo use R1, change: "
                                 + " and ".join(changes if first == "fo" else changes[::-1]))
    assert m.resolve({"a": True}, runner="r1").runner == "r0"  # the override alone still overrides


# --- remedies (issue 27 item 4) ----------------------------------------------------------------


def _apply_remedy(config, remedy, pick):
    """*config* with the remedy's changes and conditions made, each value chosen by *pick*."""
    out = dict(config)
    for change in (*remedy.changes, *remedy.conditions):
        out[change.path] = None if change.action == "unset" else pick(change.values)
    return out


def _serves(m, config, runner, asked):
    try:
        return m.resolve(config, runner=runner if asked else None).runner == runner
    except matrix.MatrixError:
        return False


#: One value a remedy's words for an int field say: read from the words, never from the values
#: the engine found (`_admitted`).
_INT_PIECE = re.compile(r"a multiple of (\d+) from (-?\d+) to (-?\d+)"
                        r"|a value from (-?\d+) to (-?\d+) with remainder ([\d, or]+?) when divided by (\d+)"
                        r"|a value from (-?\d+) to (-?\d+)|a value ≥ (-?\d+)|a value ≤ (-?\d+)|(-?\d+)|(None)")


def _admitted(spelled, universe):
    """The values of *universe* that the words of a remedy's change of an int field admit."""
    text = spelled.removesuffix(" (among the values tried; others may work too)").removeprefix("one of ")
    pieces, at = [], 0
    for match in _INT_PIECE.finditer(text):
        assert text[at:match.start()] in ("", ", ", " or "), spelled
        at = match.end()
        pieces.append([None if g is None else g if "or" in g or "," in g else int(g) if g != "None" else "None"
                       for g in match.groups()])
    assert pieces and at == len(text), spelled

    def admits(v, g):
        if g[12] == "None" or v is None:
            return g[12] == "None" and v is None
        if g[0] is not None:
            return g[1] <= v <= g[2] and v % g[0] == 0
        if g[3] is not None:
            return g[3] <= v <= g[4] and v % g[6] in [int(r) for r in re.findall(r"\d+", str(g[5]))]
        if g[7] is not None:
            return g[7] <= v <= g[8]
        if g[9] is not None or g[10] is not None:
            return v >= g[9] if g[9] is not None else v <= g[10]
        return v == g[11]

    return [v for v in universe if any(admits(v, g) for g in pieces)]


def _words_serve(m, config, remedy, runner, asked):
    """Every value of an int field's universe that the words of *remedy*'s change admit serves,
    with the other changes' first values, and the values found are among them."""
    asked = asked or remedy.ask
    first = _apply_remedy(config, remedy, lambda vs: vs[0])
    for change in (*remedy.changes, *remedy.conditions):
        field = m.schema.get(change.path)
        if change.action == "unset" or field is None or field.type != "int" or change.path not in _FIELDS:
            continue
        admitted = _admitted(change.spelled, _FIELDS[change.path][1])
        assert all(v in admitted for v in change.values if v in _FIELDS[change.path][1]), str(remedy)
        if field.choices is not None:  # the words admit no value the field refuses
            assert set(_admitted(change.spelled, range(-20, 40))) <= set(field.choices), str(remedy)
        for value in admitted:
            assert _serves(m, {**first, change.path: value}, runner, asked), (config, str(remedy), value)


@settings(deadline=None)
@given(st.sampled_from([0, 0, 1, 2, 3]).flatmap(lambda kind: st.tuples(st.just(kind), _small_matrices(
    adjustments=kind in (1, 2), staged=kind in (1, 2), pool=["m", "j", "b", "t"] if kind == 3 else None))), st.data())
def test_every_remedy_serves_and_no_smaller_change_does(drawn, data):
    """On random matrices: every remedy, with any of its values, makes its runner serve the
    config (asked for and automatic; a remedy that asks for the runner, asked for), and no
    change of fewer paths does: brute force over the independent universe of each field's
    values (and of each role's field but the base's). A fifth of the matrices have adjustments
    and staged requirements, a fifth roles too (`_with_roles`: a role's requirement, roles read
    after the choice), the role fields drawn: every candidate a remedy names is the user's
    config changed, a role's field and the paths only rules that are no gate read kept; a fifth
    read m, a bounded int modulo numbers, whose values a remedy may say by their rule. Of an int
    field, every value of its universe that the words admit ("a multiple of 3 from 3 to 39", "a
    value ≥ 2") serves, with the other changes' first values. A quarter of the matrices make a
    runner asked for only (``candidate = "False"``). For any runner chosen automatically, the
    search asks for it too, which counts as one change: no request with a change of fewer paths
    (nor the config as it is) serves either. Every refusal's message ends with the remedies the
    docs say (`_remedies_said`)."""
    kind, case = drawn
    text, names, runners, _ = case
    if data.draw(st.integers(0, 3)) == 0:  # a runner used only on request
        only = data.draw(st.sampled_from(sorted(runners)))
        runners = {**runners, only: {**runners[only], "candidate": "False"}}
    try:
        m = matrix.loads(text, runners=runners) if kind != 2 else _with_roles(text, runners, names)
    except matrix.LoadError:
        return
    config = data.draw(st.sampled_from(list(itertools.islice(_universe(m, names), 0, None, 97)) or [{}]))
    universes = {n: _FIELDS[n][1] for n in names}
    if kind == 2:
        ids = [None, *sorted(runners)]
        # The base role's field asks for a runner (asked for is runner= here): left None.
        config = {**config, **{f: data.draw(st.sampled_from(ids)) for _, f, _ in _ROLES[1:]}}
        universes.update({f: ids for _, f, _ in _ROLES[1:]})
    _remedies_hold(m, config, universes)


def _remedies_hold(m, config, universes):
    """`test_every_remedy_serves_and_no_smaller_change_does` on one matrix and config."""
    for asked in (True, False):
        refusals = {}
        for runner in m.runners:
            try:
                resolution = m.resolve(config, runner=runner.id if asked else None)
            except matrix.ResolutionError as error:
                resolution = error.resolution
                refusals[runner.id] = error
            except matrix.MatrixError:
                return  # a config the schema refuses
            found = resolution.remedy(runner.id)
            assert found.asked is asked
            assert found.served is _serves(m, config, runner.id, asked)
            # Automatic choice: the search asks for the runner too (one change), whatever its candidacy.
            assert found.asking is (not asked and not found.served), str(found)
            for remedy in found.options:
                assert len(remedy.changes) + len(remedy.conditions) + remedy.ask == found.size
                assert not remedy.ask or found.asking
                for pick in (lambda vs: vs[0], lambda vs: vs[-1]):
                    assert _serves(m, _apply_remedy(config, remedy, pick), runner.id, asked or remedy.ask), (
                        config, str(remedy))
                _words_serve(m, config, remedy, runner.id, asked)
            if found.inexact or found.gave_up is not None and not found.options:
                continue
            # Every change of fewer paths (or, with none found, of as many as were searched in
            # full; cut short within a size, the sizes below it were), up to two paths: three
            # fields' universes together are too many configs. Asking for the runner is one.
            smaller = min(found.size - 1 if found.options else found.size, 2)
            if not asked and smaller >= 1:
                assert not _serves(m, config, runner.id, True), (config, str(found))
            for count in range(1, smaller + 1):
                for paths in itertools.combinations(universes, count):
                    for values in itertools.product(*(universes[n] for n in paths)):
                        changed = {**config, **dict(zip(paths, values))}
                        assert not _serves(m, changed, runner.id, asked), (config, changed, str(found))
                        if not asked and count < smaller:
                            assert not _serves(m, changed, runner.id, True), (config, changed, str(found))
        for error in refusals.values() if asked else list(refusals.values())[:1]:
            said = _remedies_said(m, error)
            assert [r.runner for r in error.remedies] == said, (config, str(error))
            assert error.remedies == tuple(error.resolution.remedy(r) for r in said)
            assert str(error) == "\n".join([error.reason, *(str(r) for r in error.remedies)])


#: Draws of the brute force above that the engine answered wrongly, each with the config:
#: automatic choice never takes B (A is first wherever B is free), and a request for B serves
#: with m changed (said "No change of the config makes B serve it"); a request for B serves the
#: config as it is (said as no remedy, beside "B serves this config as it is" asked for); a
#: matrix-wide requirement staged before the choice refused the config with no remedy.
_REMEDY_DRAWS = [
    ('[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"b" = { type = "bool", default = false }\n'
     '"m" = { type = "int", min = 0, max = 40, default = 0 }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\n'
     'k2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "b"\nsupport = { a = "yes", b = "yes" }\n'
     'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.g1]\nname = "g1"\n'
     'when = "m % 3 == 0"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\n'
     'applies = "asked"\n[orders.last]\nname = "last"\nrunners = ["a"]\n',
     {"a": {"name": "A", "priority": 3, "aliases": [{"id": "old_a", "since": "0.5"}]}, "b": {"name": "B", "priority": 2}},
     {"b": False, "m": 0}),
    ('[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"j" = { type = "int", min = 0, max = 3, default = 0 }\n'
     '[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\n'
     'name = "g0"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes" }\n'
     'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\n'
     'runners = ["a"]\n# --- adjustments\n',
     {"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}}, {"j": 0}),
    ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["s0", "choice"]\n[config]\n'
     '"j" = { type = "int", min = 0, max = 3, default = 0 }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\n'
     'k2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes" }\n'
     'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\n'
     'runners = ["a"]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[requires.ks]\n'
     'condition = "j < 0"\nstage = "s0"\n',
     {"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}}, {"j": 0}),
]


@pytest.mark.parametrize("text, runners, config", _REMEDY_DRAWS)
def test_every_remedy_serves_and_no_smaller_change_does_on_the_draws_it_found_wrong(text, runners, config):
    _remedies_hold(matrix.loads(text, runners=runners), config, {n: _FIELDS[n][1] for n in config})


def _remedies_said(m, error):
    """The runners whose remedies a refusal's message ends with, as docs/explanation/remedies.md
    says: none for a removed feature; in a role but the base, the base role's runner (asked for
    or chosen); else the runner asked for; in automatic choice, the runner chosen where it then
    refused (an AdjustmentError: the runner its own adjustments, after the choice, name, or the
    one a requirement staged after the choice refused), none where a requirement staged before
    the choice refused (whatever the runner), else (every runner blocked) every runner, in the
    order automatic choice tried them."""
    resolution = error.resolution
    if isinstance(error, matrix.RemovedFeatureError):
        return []
    staged = resolution.staged_refusal
    in_role = resolution.role_refusal is not None or staged is not None and staged["role"] is not None
    if in_role:
        base = resolution.requested if resolution.requested is not None else resolution.roles["base"]
        return [base] if base is not None else []
    if resolution.requested is not None:
        return [resolution.requested]
    if isinstance(error, matrix.AdjustmentError):
        if staged is not None:
            return [staged["runner"]]
        chosen = {a.runner for a in resolution.adjustments if a.runner is not None}
        assert len(chosen) == 1, str(error)
        return sorted(chosen)
    if staged is not None:
        return []
    tried = [entry["id"] for entry in resolution.explanation(remedies=False)["runners"]]
    return tried + [r.id for r in m.runners if r.id not in tried]


@settings(deadline=None)
@given(st.booleans().flatmap(lambda adjusting: _small_matrices(adjustments=adjusting)), st.data())
def test_a_remedy_search_answers_as_resolving_every_candidate_would(case, data):
    """The search resolves only the candidates where no gate refusing the runner is active, by
    the plan's masks (matrix._prune); resolving every candidate instead (no gate ever said to
    refuse) gives the same answer, on matrices with adjustments too, which the brute force
    above leaves out."""
    from matrix import _prune

    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return
    config = data.draw(st.sampled_from(list(itertools.islice(_universe(m, names), 0, None, 97)) or [{}]))
    for runner in m.runners:
        for asked in (True, False):
            try:
                resolution = m.resolve(config, runner=runner.id if asked else None)
            except matrix.ResolutionError as error:
                resolution = error.resolution
            except matrix.MatrixError:
                return  # a config the schema refuses
            pruned = resolution.remedy(runner.id)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(_prune.Pruning, "_refusing", lambda self, state: [])
                every = resolution.remedy(runner.id)
            if every.gave_up is not None:
                # Unpruned, the search reads more candidates, so its budget may run out first:
                # the pruned one then searched at least as far (cut short with remedies found, a
                # search reached their size; without, the size after the one it finished).
                def reached(found):
                    return found.size + (found.gave_up is not None and not found.options)
                assert reached(pruned) >= reached(every), (str(pruned), str(every))
                continue
            assert pruned == every, (config, runner.id, asked, str(pruned), str(every))


# --- adjustments: resolve held to a reference written from the documented semantics ------------

def _plain(value):
    """A value as both sides compare it: versions as text, lists as lists."""
    from packaging.version import Version

    if isinstance(value, Version):
        return str(value)
    if isinstance(value, (list, tuple)):
        return list(value)
    return value


def _reference_apply(m, adjustments, config, runner):
    """docs/explanation/effective-config.md on a plain dict: each adjustment in order, its when
    read on what the ones before it left; a fill only where the value is None; every path of
    one adjustment set at once; a path whose value would not change left out."""
    current, changes = dict(config), []
    given = current.setdefault(_GIVEN, config)  # the config as given, carried along (issue 30, F8)
    for a in adjustments:
        if not _holds_given(m, a.when, current, given, _role_values(m, current, runner)):
            continue
        new = {}
        for path, value in a.set.items():
            before = current[path]
            if not a.override and before is not None:
                continue
            source = value.path if isinstance(value, matrix.From) else None
            after = value if source is None else given[source[len("given."):]] if source.startswith("given.") \
                else current[source]
            if source is not None and value.times is not None and after is not None:
                after = after * value.times  # times: Python's product; None stays None
            if _plain(after) == _plain(before) and type(_plain(after)) is type(_plain(before)):
                continue
            new[path] = after
            changes.append((a.id, runner, path, _plain(before), _plain(after)))
        if not new and a.says == "always":  # said, nothing changed: (id, runner, None, None, None)
            changes.append((a.id, runner, None, None, None))
        current.update(new)
    return current, changes


def _stage(m, a):
    """Where an adjustment stands in ``[matrix] stages`` (docs/explanation/effective-config.md,
    Stages): at its stage, or at ``choice`` where it names none; 0 for a matrix without stages."""
    return m.stages.index(a.stage or "choice") if m.stages else 0


def _before_choice(m):
    """The adjustments applied before the choice, in order (the docs, Stages): those that name no
    runner, at choice or a stage before it, stage by stage, declaration order within a stage."""
    choice = m.stages.index("choice") if m.stages else 0
    return sorted((a for a in m.adjustments_at(m.version) if not a.runners and _stage(m, a) <= choice),
                  key=lambda a: _stage(m, a))


def _after_choice(m, runner):
    """The adjustments applied once *runner* serves, in order: its own and those that name no
    runner at a stage after choice, stage by stage, declaration order within a stage."""
    choice = m.stages.index("choice") if m.stages else 0
    return sorted((a for a in m.adjustments_at(m.version)
                   if runner in a.runners or (not a.runners and _stage(m, a) > choice)), key=lambda a: _stage(m, a))


def _unstaged(runners):
    """*runners* without their staged requirements (kind ``ks``: `_small_matrices`), for the matrix
    of choice, which does not declare the kind, and without their redirects at a stage (issue 30,
    F6: they act after the choice)."""
    out = {}
    for r, spec in runners.items():
        if "ks" in spec.get("requires", {}):
            spec = {**spec, "requires": {k: v for k, v in spec["requires"].items() if k != "ks"}}
        if any("stage" in d for d in spec.get("redirects", ())):
            spec = {**spec, "redirects": [d for d in spec["redirects"] if "stage" not in d]}
        out[r] = spec
    return out


def _bare(runners):
    """*runners* without former ids and redirects: the matrix with roles (`_with_roles`) of the
    resolve brute force, whose reference (`_roles_agree`) reads neither."""
    return {r: {k: v for k, v in spec.items() if k not in ("aliases", "redirects")} for r, spec in runners.items()}


def _staged_of(text, runners):
    """The staged requirements as the file says them (docs/reference/file-format.md, Stages): of
    each, its owner (a runner id, or None for a matrix-wide one), the conditions of its chain, its
    stage, the runners it exempts and the roles it names (none here: `_roles_staged`)."""
    import tomli

    wide = tomli.loads(text).get("requires", {}).get("ks")
    out = [(None, [matrix.Predicate(wide["condition"])], wide["stage"], wide.get("exempt", []), [])] if wide else []
    for r, spec in runners.items():
        chain = spec.get("requires", {}).get("ks")
        if chain:
            out.append((r, [matrix.Predicate(c["condition"]) for c in chain], chain[0]["stage"], [], []))
    return out


def _staged_refuses(m, staged, stage, runner, current):
    """Whether a staged requirement at *stage* refuses *current*, and the runner it refuses: one
    matrix-wide (not exempting *runner*; before the choice, *runner* None) or *runner*'s own
    without roles, whose chain has a clause that fails, refuses *runner*; else a requirement of
    roles whose runner fills one of them there (docs: Staged requirements), its runner (the
    first role's, in declaration order, whose runner one refuses). The roles are read as they
    stand once *runner* serves (`_role_values`). False, or (the runner refused,)."""
    roles = _role_values(m, current, runner)  # after the choice, a staged requirement may read them (F1)

    def fails(chain):
        return not all(_holds_given(m, c, current, current.get(_GIVEN, current), roles) for c in chain)

    if any(at == stage and (owner is None and runner not in exempt or owner == runner and runner is not None
                            and not scoped) and fails(chain) for owner, chain, at, exempt, scoped in staged):
        return (runner,)
    if roles is None:  # before the choice: no runner fills a role
        return False
    failed = {owner for owner, chain, at, _, scoped in staged
              if at == stage and scoped and any(roles[r] == owner for r in scoped) and fails(chain)}
    if runner in failed:
        return (runner,)
    return next(((roles[r.id],) for r in m.roles if roles[r.id] in failed), False)


def _reference_stages(m, adjustments, config, runner, staged, stages):
    """*adjustments* applied stage by stage over *stages* (those of *stages*, in order), each
    stage's staged requirements checked after its adjustments: the config they leave, the
    changes, and whether a staged requirement refused (the first failure stops: False, or (the
    runner refused,) as `_staged_refuses` says)."""
    if not staged:  # every stage at once: the adjustments are in stage order already
        current, changes = _reference_apply(m, adjustments, config, runner)
        return current, changes, False
    current, changes = config, []
    for stage in stages:
        current, more = _reference_apply(m, [a for a in adjustments if (a.stage or "choice") == stage], current, runner)
        changes += more
        refused = _staged_refuses(m, staged, stage, runner, current) if staged else False
        if refused:
            return current, changes, refused
    return current, changes, False


#: The key under which a reference config carries the config as given (`_reference_apply`).
_GIVEN = "__given__"


def _holds_given(m, predicate, current, given, roles=None):
    """Whether *predicate* holds where each ``given.n`` reads *given*, each ``role.r`` the runner
    *roles* says fills r (`_role_values`), and every other path *current* (docs: the value as
    given, before any adjustment; reading a role): written as a predicate over fields
    ``given_n`` and ``role_r`` declared beside the others, read by the plain interpreter."""
    import attrs

    from matrix.schema import Field, Schema

    text = str(predicate)
    if "given." not in text and "role." not in text:
        return predicate.evaluate(current, schema=m.schema)
    key = (id(m), text, bool(roles))
    found = _TRANSLATED.get(key)
    if found is None or found[0] is not m:  # the matrix kept beside: its id is not reused meanwhile
        ids = tuple(sorted(r.id for r in m.runners))
        schema = Schema({**m.schema.fields, **{f"given_{p}": attrs.evolve(f, path=f"given_{p}")
                                               for p, f in m.schema.fields.items()},
                         **{f"role_{r.id}": Field(f"role_{r.id}", "str", nullable=True, choices=ids)
                            for r in m.roles if roles}}, m.schema.derivations)
        translated = matrix.Predicate(re.sub(r"\brole\.(\w+)", r"role_\1", re.sub(r"\bgiven\.(\w+)", r"given_\1",
                                                                                   text)))
        if len(_TRANSLATED) > 512:
            _TRANSLATED.clear()
        found = _TRANSLATED[key] = (m, translated, schema)
    values = {**{k: v for k, v in current.items() if k != _GIVEN}, **{f"given_{k}": v for k, v in given.items()
                                                                      if k != _GIVEN},
              **{f"role_{r}": v for r, v in (roles or {}).items()}}
    return found[1].evaluate(values, schema=found[2])


#: `_holds_given`'s predicates rewritten over plain fields, with their schemas, by matrix and text.
_TRANSLATED = {}


def _role_values(m, current, runner):
    """docs/reference/file-format.md, Roles (reading a role), restated: once *runner* serves, the
    base role reads it; another role its field's value on *current*, or where that is None the
    value of the role it follows (None for one that follows none). None before the choice."""
    if runner is None or not m.roles:
        return None
    roles = {r.id: r for r in m.roles}

    def value(role):
        if role == m.roles[0].id:
            return runner
        found = current.get(roles[role].field)
        if found is not None:
            return found
        return value(roles[role].follows) if roles[role].follows is not None else None

    return {r: value(r) for r in roles}


def _reference_forced(m0, c):
    """The runner automatic choice's no-runner error ends on because a feature forces it, on C:
    the first active feature of automatic choice (in declaration order) that forces a runner
    that is a candidate there; None when there is none, or when the order that applies has no
    fallback (its refusal ends on its first candidate: a runner of it is always tried)."""
    v = m0.version
    applying = next((o for o in m0.orders if o.when.evaluate(c, schema=m0.schema)), None)
    if applying is not None and not applying.fallback:
        return None
    candidates = {r.id for r in m0.runners if r.candidate is None or r.candidate.evaluate(c, schema=m0.schema)}
    forcing = [g.forces.runner for g in m0.features_at(v) if g.forces is not None and g.applies != "asked"
               and g.when.evaluate(c, schema=m0.schema)]
    return next((r for r in forcing if r in candidates), None)


def _reference_forced_freed(m, m0, universe, chosen_on):
    """The ids of the features that force a runner R where some config has no runner free on C,
    R is the runner the error ends on (`_reference_forced`), the feature is active on C, and no
    gate that blocks R in automatic choice holds on R's F (R's adjustments applied to C)."""
    v = m.version
    out = set()
    gates = m0.gates_at(v)  # derived anew on each call: once, not once a config
    from matrix._compile import plan

    compiled = plan(m0, v)
    ended = {}  # automatic choice's answer on C, by C's gates: it depends on them alone (CI time)

    def no_runner(c):
        """Whether automatic choice finds no runner free on *c*, none reached and redirected."""
        mask = compiled.evaluate(c)[0]
        if mask not in ended:
            try:
                m0.resolve(c)
                ended[mask] = False
            except NoRunnerError as error:  # not where a runner was reached, then redirected and refused (F6)
                ended[mask] = error.resolution.redirect is None
            except matrix.ResolutionError:
                ended[mask] = False
        return ended[mask]
    # Only a feature that forces a runner can be said (the set is of forcing features).
    for config in universe if any(g.forces is not None for g in m0.features_at(v)) else ():
        c = chosen_on(config)
        if not no_runner(c):
            continue
        forced = _reference_forced(m0, c)
        if forced is None:
            continue
        f, _ = _reference_apply(m, _after_choice(m, forced), c, forced)
        if any(g.applies != "asked" and g.status(forced, v) in ("no", "opt-in") and g.when.evaluate(f, schema=m.schema)
               for g in gates):
            continue
        out |= {g.id for g in m0.features_at(v) if g.forces is not None and g.forces.runner == forced
                and g.applies != "asked" and g.when.evaluate(c, schema=m.schema)}
    return out


def _reference_resolve(m, m0, config, asked, staged=(), where=None, sent=None):
    """``(runner or error class, adjustments, effective)`` by the documented order: the
    adjustments before the choice give C; the choice is made on C (by the matrix without
    adjustments, whose choice the other tests hold to the README: a redirect of the request, or
    one that applies always, included); the adjustments after the choice (the runner's own, and
    with stages those that name no runner after choice) give F; the runner is validated on F.
    With *staged* requirements (`_staged_of`), stage by stage: one before the choice that fails
    refuses the config (NoRunnerError, or UnsupportedFeatureError for a runner asked for); one
    after it, for the runner that serves (AdjustmentError, or UnsupportedFeatureError), the
    adjustments after it unmade; *where* (a list) is then told the runner it refused (None before
    the choice). A redirect at a stage after the choice (issue 30, F6: `_reference_walk`) sends
    the runner that serves on; *sent* (a list) is told it. A runner a redirect sent the request or
    the choice to is validated as asked for (the gates in force it says no to)."""
    v = m.version
    pre = _before_choice(m)
    stages = list(m.stages) or ["choice"]
    before, after = stages[:stages.index("choice") + 1], stages[stages.index("choice"):]
    c, changes, refused = _reference_stages(m, pre, config, None, staged, before)
    if refused:
        where is not None and where.append(None)
        return (NoRunnerError if asked is None else matrix.UnsupportedFeatureError), changes, c
    gates = _gates_of(m0)
    always = None  # the redirect that applies always that sent automatic choice on (docs, file-format.md)
    if asked is None:
        try:
            found = m0.resolve(c)
            chosen, always = found.runner, found.redirect
        except matrix.ResolutionError as error:
            always = error.resolution.redirect if isinstance(error, NoRunnerError) else None
            forced = _reference_forced(m0, c) if isinstance(error, NoRunnerError) and always is None else None
            if always is not None:  # reached, sent on, refused on C: validated on its F below
                chosen = always.to
            elif forced is None:
                return type(error), changes, c
            else:
                # The runner a feature forces, where no runner is free: its adjustments are said, and
                # the answer is no runner, its refusal read on C (docs/explanation/effective-config.md).
                f, more = _reference_apply(m, _after_choice(m, forced), c, forced)
                return NoRunnerError, changes + more, f
    else:
        try:
            m0.resolve(c, runner=asked)
        except RemovedFeatureError as error:
            return type(error), changes, c
        except matrix.ResolutionError:
            pass
        plain = _applied(m, c, asked)  # the request's redirect: the runner it names is asked for
        chosen = target = asked if plain is None else plain.to
        forcing = [g for g in m0.features_at(v) if g.forces is not None and g.forces.runner != target
                   and g.applies != "automatic" and g.when.evaluate(c, schema=m.schema)]
        if any(not g.forces.override for g in forcing):
            return matrix.UnsupportedFeatureError, changes, c
        for g in forcing:
            chosen = g.forces.runner
    f, more, refused, served, rerouted = _reference_walk(m, chosen, c, staged, after)
    if sent is not None and rerouted is not None:
        sent.append(rerouted)
    if refused:
        where is not None and where.append(refused[0])
        return (matrix.UnsupportedFeatureError if asked is not None else matrix.AdjustmentError), changes + more, f
    refusing = ("no",) if asked is not None or always is not None or rerouted is not None else ("no", "opt-in")
    mode = "automatic" if asked is not None else "asked"
    if any(g.applies != mode and g.status(served, v) in refusing and g.when.evaluate(f, schema=m.schema)
           for g in gates):
        error = matrix.UnsupportedFeatureError if asked is not None else \
            NoRunnerError if always is not None and rerouted is None else matrix.AdjustmentError
        return error, changes + more, f
    return served, changes + more, f


def _gates_of(m0):
    """*m0*'s gates at its version, derived once per matrix (not once per config and request)."""
    found = _GATES.get(id(m0))
    if found is None or found[0] is not m0:  # the matrix kept beside: its id is not reused meanwhile
        _GATES.clear()
        found = _GATES[id(m0)] = (m0, m0.gates_at(m0.version))
    return found[1]


_GATES = {}


def _reference_walk(m, chosen, c, staged, after):
    """The stages from choice on (*after*) once *chosen* serves (docs/reference/file-format.md,
    Redirects at a stage): at each stage, first the redirects of the runner serving at that stage
    in force (declaration order), read on the config the stages before it left: the first that
    holds makes its runner the one that serves from there (once: its own are not read); then the
    stage's adjustments of the runner serving (and those that name no runner), then its staged
    requirements. The config left, the changes, whether a staged requirement refused, the runner
    that serves, and the redirect that applied (or None): whether a staged requirement refused is
    False or (the runner refused,), as `_staged_refuses` says."""
    from matrix.schema import in_window

    current, changes, runner, rerouted = c, [], chosen, None
    for stage in after:
        if rerouted is None:
            rerouted = next((d for d in m.runner(runner).redirects if d.stage == stage and in_window(d.window, m.version)
                             and _holds_given(m, d.when, current, current.get(_GIVEN, current),
                                              _role_values(m, current, runner))), None)
            runner = runner if rerouted is None else rerouted.to
        current, more = _reference_apply(m, [a for a in _after_choice(m, runner) if (a.stage or "choice") == stage],
                                         current, runner)
        changes += more
        refused = _staged_refuses(m, staged, stage, runner, current) if staged else False
        if refused:  # (the runner refused,): the runner serving, or another role's
            return current, changes, refused, runner, rerouted
    return current, changes, False, runner, rerouted


def _docs_adjustments_agree(m, text):
    """The docs' adjustments as data (``matrix docs --format json``), against the file as written
    (docs/explanation/effective-config.md): each adjustment's paths in the order set, and when it
    speaks (``says``: a notice, without ``set``, and ``says = "always"`` say always); the document
    its schema accepts (a notice sets nothing)."""
    import jsonschema
    import tomli

    from matrix.render import json_schema, render

    data = json.loads(render(m, format="json", tables=["adjustments"]))
    jsonschema.Draft202012Validator(json_schema()).validate(data)
    written = tomli.loads(text).get("adjustments", {})
    in_order = sorted(written.items(), key=lambda item: bool(item[1].get("runners")))  # before the choice first
    stages = tomli.loads(text)["matrix"].get("stages")
    if stages:  # stage by stage: those before the choice (no runner, at choice or before), then the rest

        def place(item):
            return stages.index(item[1].get("stage", "choice"))

        before = [i for i in written.items() if not i[1].get("runners") and place(i) <= stages.index("choice")]
        in_order = sorted(before, key=place) + sorted((i for i in written.items() if i not in before), key=place)
    assert [(a["id"], [s["path"] for s in a["set"]], a["says"], a["message"], a.get("stage"))
            for a in data.get("adjustments", [])] == [
        (i, list(a.get("set", {})), "always" if "set" not in a or a.get("says") == "always" else "changes",
         a.get("message"), a.get("stage", "choice") if stages else None) for i, a in in_order]


#: Roles (issue 30, F1) are held to their reference on every this-many-th config of the brute
#: force with adjustments (each runner asked for and automatic): its CI time stays as it was.
_ROLES_EVERY = 8
#: The roles of `_with_roles`: each with its field and the role it follows.
_ROLES = (("base", "rb", None), ("p", "rp", "base"), ("d", "rd", "p"), ("x", "rx", None))


def _role_atoms(ids):
    """The atoms a condition read after the choice makes of the roles of `_with_roles` (issue 30,
    F1): each role against each runner, two roles against each other, the role that follows none
    against None."""
    return ([f"role.{r} == '{i}'" for r in ("base", "p", "d") for i in ids]
            + ["role.x is None", f"role.x == '{ids[0]}'", f"role.x != '{ids[-1]}'", "role.d != role.p",
               "role.base == role.d", f"role.p in ['{ids[-1]}']", "role.x == role.base"])


#: The message of `_with_roles`'s adjustment that reads roles: it says two.
_BY_ROLE = "by role {role.d!r} {role.base}"


#: The one runner each role field may name in check's brute force with roles (`_with_roles`'s
#: *narrow*), by index of the sorted ids: its space stays small.
_NARROW = {"rb": 0, "rp": -1, "rd": 0, "rx": -1}


def _with_roles(text, runners, names, narrow=False):
    """The matrix of *text* with four roles over fields no rule of *text* reads: ``base`` (``rb``),
    ``p`` (``rp``, following base), ``d`` (``rd``, following p) and ``x`` (``rx``, following
    none), each field a nullable str whose choices are the runner ids; runner a with a
    requirement that applies in role d only, the first atom of the first field, or a role atom
    (`_in_d`); and an adjustment after the choice whose condition reads roles (a runner's, or one
    that names none at a stage after choice), which sets rp or rd (a role's field) or is a
    notice, its message saying two roles (`_BY_ROLE`). With *narrow*, each field's choices are
    one runner (`_NARROW`). What it draws is drawn by a generator seeded with *text*, so that the
    matrices the brute force draws are the ones it drew without roles (and its CI time is too)."""
    import random
    import zlib

    import tomli

    rng = random.Random(zlib.crc32(text.encode()))

    ids = sorted(runners)
    fields = "".join(f'"{f}" = {{ type = "str", nullable = true, choices = '
                     f'{json.dumps([ids[_NARROW[f]]] if narrow else ids)} }}\n' for _, f, _ in _ROLES)
    roles = "".join(f'[roles.{r}]\nname = "{r.upper()}"\nfield = "{f}"\n' + (f'follows = "{w}"\n' if w else "")
                    for r, f, w in _ROLES)
    roles += '[requirements.in_d]\nname = "In d"\nreason = "not in d"\n'
    role_atoms = _role_atoms(ids)
    field_atoms = [a for n in names for a in _ATOMS[n]]
    when = rng.choice([rng.choice(role_atoms), f"not ({rng.choice(role_atoms)})",
                       f"({rng.choice(role_atoms)}) {rng.choice(['and', 'or'])} ({rng.choice(role_atoms + field_atoms)})"])
    stages = tomli.loads(text.partition(ADJUSTMENTS_MARK)[0])["matrix"].get("stages") or []
    late = stages[stages.index("choice") + 1:] if stages else []
    where = rng.choice([f'runners = ["{i}"]\n' for i in ids] + [f'stage = "{s}"\n' for s in late])
    sets = rng.choice(["notice", *(f'set = {{ {f} = {_toml_value(v)} }}\n' for f in ("rp", "rd")
                                   for v in (None, *([ids[_NARROW[f]]] if narrow else ids)))])
    adjustment = (f'[adjustments.by_role]\nname = "by role"\nwhen = "{when}"\n{where}'
                  f'{"" if sets == "notice" else sets}message = "{_BY_ROLE}"\n')
    in_d = rng.choice([_in_d(names), f"({_in_d(names)}) or ({rng.choice(role_atoms)})", rng.choice(role_atoms)])
    head, mark, tail = text.partition(ADJUSTMENTS_MARK)
    a = runners["a"]
    scoped = {**runners, "a": {**a, "requires": {**a.get("requires", {}), "in_d": {
        "condition": in_d, "roles": ["d"], "reason": "not in d beside {role.p!r}"}}}}
    staged = _role_staged(rng, late, ids, role_atoms, field_atoms)
    if staged is not None:  # a requirement staged after the choice reading roles (issue 30, F6 with F1)
        owner, clause = staged
        tail += '[requirements.kr]\nname = "KR"\nreason = "kr fails"\n'
        if owner is None:
            tail += "[requires.kr]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in clause.items())
        else:
            scoped[owner] = {**scoped[owner], "requires": {**scoped[owner].get("requires", {}), "kr": [clause]}}
    return matrix.loads(head.replace("[config]\n", "[config]\n" + fields, 1) + roles + mark + tail + adjustment,
                        runners=scoped)


def _role_staged(rng, late, ids, role_atoms, field_atoms):
    """A requirement of kind ``kr`` at a stage after the choice (*late*) whose condition reads roles,
    and whose reason says one: matrix-wide (perhaps exempting a runner), or runner a's or b's,
    perhaps of roles (``roles``: checked where that runner fills one of them); None where the
    matrix has no stage after the choice. Its owner (None: matrix-wide) and clause."""
    if not late:
        return None
    condition = rng.choice([rng.choice(role_atoms), f"not ({rng.choice(role_atoms)})",
                            f"({rng.choice(role_atoms)}) or ({rng.choice(role_atoms + field_atoms)})"])
    clause = {"condition": condition, "stage": rng.choice(late), "reason": "kr fails for {role.d!r}"}
    owner = rng.choice([None, None, "b", "a", "b"])
    if owner is None and rng.random() < 0.3:
        clause["exempt"] = [rng.choice(ids)]
    if owner is not None and rng.random() < 0.6:  # a requirement of roles, checked where its runner fills one
        clause["roles"] = rng.choice([["d"], ["p"], ["x"], ["p", "d"], ["base", "d"]])
    return owner, clause


def _roles_staged(roled):
    """The staged requirements of kind ``kr`` that `_with_roles` drew, as `_staged_of` says them."""
    return [(None if c.wide else c.runner, [c.condition], c.stage, list(c.exempt), list(c.roles))
            for c in roled.staged if c.kind == "kr"]


def _in_d(names):
    return _ATOMS[names[0]][0]


def _told(m, config, asked):
    """All that resolve and is_supported say of *config*: the resolution's to_dict() and
    explanation, or the error's class, reason and kind and its resolution's (the remedies left
    out: the search resolves other configs, each compared where drawn)."""
    supported = m.is_supported(config, asked) if asked is not None else None
    try:
        resolution, error = m.resolve(config, runner=asked), None
    except matrix.ResolutionError as raised:
        resolution, error = raised.resolution, (type(raised), raised.reason, raised.kind)
    return supported, error, resolution.to_dict(), resolution.explanation(remedies=False)


def _compiled_alike(m, config, asked):
    """The rules read on a view (adjustments, staged requirements, redirects at a stage) decided
    by the compiled plan say what the interpreter says (`matrix.resolver._COMPILED`), to the
    letter."""
    from matrix import resolver

    compiled = _told(m, config, asked)
    resolver._COMPILED = False
    try:
        interpreted = _told(m, config, asked)
    finally:
        resolver._COMPILED = True
    assert compiled == interpreted, (config, asked)


def _role_config(roled, config, index):
    """*config* with the role fields `_roles_agree` gives it at *index* in the universe."""
    options = [None, *sorted(r.id for r in roled.runners)]
    return {**config, **{f: options[(index // _ROLES_EVERY + k) % len(options)] for k, (_, f, _) in enumerate(_ROLES)}}


def _other_roles(roled, m0, f, given, base):
    """Every role's runner once *base* serves the base role on F (*f*), or None where one refuses
    (docs/reference/file-format.md, Roles): every other role takes its field's runner on F,
    refused where a gate the runner says no to holds on F (in force when a runner is asked for),
    else the runner of the role it follows (none for x); and the runner that fills d, either way,
    is refused where a requirement that names d fails on F, its roles read there."""
    v = roled.version
    roles = {"base": base}
    for role, field, follows in _ROLES[1:]:
        runner = f[field]  # on F: an adjustment after the choice may set it
        if runner is None:
            roles[role] = roles[follows] if follows is not None else None
        elif any(g.applies != "automatic" and g.status(runner, v) == "no" and g.when.evaluate(f, schema=roled.schema)
                 for g in _gates_of(m0)):
            return None
        else:
            roles[role] = runner
    in_d = roled.runner("a").role_requires[-1].condition
    if roles["d"] == "a" and not _holds_given(roled, in_d, f, given, _role_values(roled, f, base)):
        return None
    return roles


def _reference_supported(roled, m0, given, asked, staged):
    """docs/reference/python-api.md, is_supported, restated: whether *asked*, filling the base
    role itself (a force is not weighed; the matrix has no redirects), serves: no staged
    requirement before the choice refuses, no feature removed is active on C, no staged
    requirement refuses on the way to its F (its own adjustments applied), no gate it says no to
    holds on F, and no other role refuses there (`_other_roles`)."""
    v = roled.version
    stages = list(roled.stages) or ["choice"]
    at = stages.index("choice")
    c, _, early = _reference_stages(roled, _before_choice(roled), given, None, staged, stages[:at + 1])
    if early or any(g.removed_at(v) and g.applies != "automatic" and g.when.evaluate(c, schema=roled.schema)
                    for g in m0.features_at(v)):
        return False
    f, _, late = _reference_stages(roled, _after_choice(roled, asked), c, asked, staged, stages[at:])
    if late or any(g.applies != "automatic" and g.status(asked, v) == "no" and g.when.evaluate(f, schema=roled.schema)
                   for g in _gates_of(m0)):
        return False
    return _other_roles(roled, m0, f, given, asked) is not None


def _roles_agree(roled, m0, config, asked, index, staged=()):
    """docs/reference/file-format.md, Roles, restated: the base role's request is runner=, else
    its field, and from there the answer is the matrix's without roles, its adjustments after the
    choice reading the roles (`_reference_apply`: base the runner that serves, another role its
    field as the config stands, else the role it follows); every other role takes its field's
    runner on F, refused where a gate the runner says no to holds on F (in force when a runner is
    asked for), else the runner of the role it follows (none for x); and the runner that fills d,
    either way, is refused where a requirement that names d fails on F, its roles read there.
    The role fields take each runner and None in turn, by the config's place in the universe.
    is_supported for the base's request, against `_reference_supported`."""
    given = _role_config(roled, config, index)
    base = asked if asked is not None else given["rb"]
    where = []
    expected, changes, f = _reference_resolve(roled, m0, given, base, staged, where)
    roles = None
    if not isinstance(expected, type):
        roles = _other_roles(roled, m0, f, given, expected)
        if roles is None:
            expected = matrix.UnsupportedFeatureError
    if base is not None:  # is_supported weighs the roles too (a user trial: it weighed the base alone)
        assert roled.is_supported(given, base) is _reference_supported(roled, m0, given, base, staged), (given, base)
    try:
        resolution = roled.resolve(given, runner=asked)
        got = (resolution.runner, dict(resolution.roles))
    except matrix.ResolutionError as error:
        resolution, got = error.resolution, (type(error), None)
    assert got == (expected, roles), (given, asked)
    refusal = resolution.staged_refusal  # the runner a staged requirement refused: of a role, its runner's
    assert (refusal is not None, refusal and refusal["runner"]) == (bool(where), where[0] if where else None), \
        (given, asked)
    assert [(a.id, a.runner, a.path, _plain(a.before), _plain(a.after)) for a in resolution.adjustments] == \
        [c for c in changes if c[2] is not None], (given, asked)
    said = [w.message for w in resolution.warnings if w.kind == "adjusted" and w.feature == "by_role"]
    if said:  # its message says the roles as the adjustment found them
        runner = next(c[1] for c in changes if c[0] == "by_role")
        own = _after_choice(roled, runner)
        c, _ = _reference_apply(roled, _before_choice(roled), given, None)
        found, _ = _reference_apply(roled, own[:[a.id for a in own].index("by_role")], c, runner)
        filled = {**found, **{f"role.{r}": v for r, v in _role_values(roled, found, runner).items()}}
        assert said == [_said(_BY_ROLE, filled)], (given, asked)
        # The report's rule, where it lists it (it changed the config, and no removed feature
        # cut the report short), says the values it read so too, the roles' runners among them
        # (a user trial: None for each role).
        if any(a.id == "by_role" for a in resolution.adjustments):
            when = next(a for a in roled.adjustments if a.id == "by_role").when
            from matrix.resolver import _json_value  # as JSON holds a value: inf as 'inf' (report.schema.json)

            expected = {p: _json_value(filled[p]) for p in sorted(when.paths)}
            assert all(r["because"] == expected for r in resolution.report(remedies=False)["why"]
                       if r["id"] == "by_role"), (given, asked)


# Twice the profile (1,000 matrices in CI): check's brute force with adjustments resolves every
# config of its matrices too.
_STAGED_FORCED_RESOLVED = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["s0", "choice"]\n[config]\n"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }\n"i" = { type = "int", nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[requires]\nk1 = [{ condition = "t == \'a\'", reason = "k1 first fails" }, { condition = "i < 0" }]\n[features.g0]\nname = "g0"\nwhen = "t == \'a\'"\nsupport = { a = "yes", b = "no" }\nforces = { runner = "a", override = false }\n[features.g1]\nname = "g1"\nwhen = "t == \'a\'"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\nrunners = ["a"]\n# --- adjustments\n[requirements.ks]\nname = "KS"\nreason = "ks fails"\n[requires.ks]\ncondition = "t == \'a\'"\nstage = "s0"\n', ['t', 'i'], {'a': {'name': 'A', 'priority': 3}, 'b': {'name': 'B', 'priority': 2}}, True)


@settings(max_examples=settings.default.max_examples * 2, deadline=None)
@given(_small_matrices(adjustments=True, staged=True, redirects=True))
@example(_STAGED_FORCED_RESOLVED)
def test_resolve_with_adjustments_agrees_with_the_reference_over_every_config(case):
    """Issue 27: random matrices carry adjustments; automatic and each runner asked for, the
    runner (or the error's class), the adjustments and the effective values over the whole space.
    Staged requirements (issue 30, F6) too: is_supported, and where one refuses, the error's
    kind and `Resolution.staged_refusal`. Redirects (issue 27; F6: applies = "always", and at a
    stage after the choice, `_reference_walk`). Issue 30, F1: the matrix with roles besides
    (`_with_roles`, without former ids and redirects), on every `_ROLES_EVERY`-th config,
    automatic and one runner asked for (each in turn)."""
    text, names, runners, _ = case
    if zlib.crc32(text.encode()) % 2:  # redirects on half the matrices: its CI time stays near what it was
        runners = _bare(runners)
    try:
        m = matrix.loads(text, runners=runners)
        m0 = matrix.loads(text.split(ADJUSTMENTS_MARK)[0], runners=_unstaged(runners))
        plain = m0 if runners == _bare(runners) else \
            matrix.loads(text.split(ADJUSTMENTS_MARK)[0], runners=_bare(_unstaged(runners)))
    except matrix.LoadError:
        return  # an ill-typed combination of atoms: the loader's business, tested elsewhere
    _docs_adjustments_agree(m, text)
    roled = _with_roles(text, _bare(runners), names)
    staged = _staged_of(text, runners)
    roled_staged = staged + _roles_staged(roled)
    kind = "ValueError" if staged and 'kind = "ValueError"' in text.partition(ADJUSTMENTS_MARK)[2] else None
    ids = [r.id for r in m.runners]
    # Read once, not once a config (each is derived anew on each call).
    messages = {a.id: a.message for a in m.adjustments}
    levels = {a.id: a.level for a in m.adjustments_at(m.version)}
    features0, gates0 = m0.features_at(m.version), m0.gates_at(m.version)
    for index, config in enumerate(_universe(m, names)):
        for asked in (None, *ids):
            # Automatic choice, and each runner asked for in turn.
            if index % _ROLES_EVERY == 0 and asked in (None, ids[index // _ROLES_EVERY % len(ids)]):
                _roles_agree(roled, plain, config, asked, index, roled_staged)
                # The compiled rules and the interpreter, to the letter, on every other such
                # config: the matrix with redirects where it has them, else the one with roles.
                if index // _ROLES_EVERY % 2 == 0:
                    if runners != _bare(runners):
                        _compiled_alike(m, config, asked)
                    else:
                        _compiled_alike(roled, _role_config(roled, config, index), asked)
            raised = None
            try:
                resolution = m.resolve(config, runner=asked)
                outcome = resolution.runner
            except matrix.ResolutionError as error:
                resolution, outcome, raised = error.resolution, type(error), error
            effective_got = resolution.effective  # computed on each read
            got = (outcome, [(a.id, a.runner, a.path, _plain(a.before), _plain(a.after)) for a in resolution.adjustments],
                   {n: _plain(effective_got[n]) for n in names})
            where, sent = [], []
            expected, changes, effective = _reference_resolve(m, m0, config, asked, staged, where, sent)
            assert got == (expected, [c for c in changes if c[2] is not None],
                           {n: _plain(effective[n]) for n in names}), (config, asked)
            # A resolution that ends on a deprecated runner says it, once (none refused: it does not serve).
            assert [w.runner for w in resolution.warnings if w.kind == "deprecated-runner"] == (
                [expected] if isinstance(expected, str) and _deprecated_runner(m, expected) else []), (config, asked)
            if sent:  # a redirect at a stage after the choice: said, with the values it read there (F6)
                assert resolution.redirect == sent[0], (config, asked)
                assert resolution.to_dict()["redirected"]["stage"] == sent[0].stage, (config, asked)
            # A staged requirement's refusal says where, and its kind (issue 30, F6).
            refusal = resolution.staged_refusal
            assert (refusal is not None, refusal and refusal["runner"]) == (bool(where), where[0] if where else None)
            if where:
                assert raised is not None and raised.kind == kind, (config, asked)
            # A notice, or one that says always and changed nothing, says its message, the values
            # as given filled in (issue 30, F8).
            said = {i for i, _, path, *_ in changes if path is None}
            assert all(w.message == _said(messages[w.feature], config) for w in resolution.warnings
                       if w.kind == "adjusted" and w.feature in said), (config, asked)
            # One warning per adjustment that changed a path, at its level, an error's too (a forced
            # runner's, where no runner serves, included).
            assert [(w.feature, w.runner, w.level) for w in resolution.warnings if w.kind == "adjusted"] == \
                [(i, r, levels[i]) for i, r in dict.fromkeys((i, r) for i, r, *_ in changes)], (config, asked)
            if asked is not None:  # is_supported: removal on C, the runner's own refusals on its F
                stages = list(m.stages) or ["choice"]
                at = stages.index("choice")
                c, _, early = _reference_stages(m, _before_choice(m), config, None, staged, stages[:at + 1])
                f, _, late = _reference_stages(m, _after_choice(m, asked), c, asked, staged, stages[at:])
                removed = any(g.removed_at(m.version) and g.applies != "automatic" and g.when.evaluate(c, schema=m.schema)
                              for g in features0)
                refused = any(g.applies != "automatic" and g.status(asked, m.version) == "no"
                              and g.when.evaluate(f, schema=m.schema) for g in gates0)
                assert m.is_supported(config, asked) is not (removed or refused or early or late), (config, asked)




@st.composite
def _given_gates(draw):
    """Small matrices with adjustments whose features' conditions may read the values as given
    (issue 30, F8): in some ``when`` a field is read as ``given.FIELD``."""
    text, names, runners, forced = draw(_small_matrices(adjustments=True))
    head, mark, tail = text.partition(ADJUSTMENTS_MARK)

    def given(match):
        line = match.group(0)
        name = draw(st.sampled_from(names))
        if not draw(st.booleans()) or not re.search(rf"\b{name}\b", line):
            return line
        return re.sub(rf"(?<![.\w']){name}\b(?!')", f"given.{name}", line, count=1)

    head = re.sub(r'(?m)^when = ".*"$', given, head)
    return head + mark + tail, names, runners, forced


@settings(deadline=None)
@given(_given_gates())
def test_a_condition_that_reads_the_value_as_given_is_exact_or_inconclusive(case):
    """Issue 30, F8: a feature's condition may read given.FIELD. Resolve reads it on the config of
    choice as the config given holds it (the reference: the adjustments applied by the docs, the
    condition read with given.FIELD bound to the value given); check decides never-active and
    always-active exactly where no adjustment sets FIELD (there given.FIELD is FIELD) and says
    inconclusive, never a guess, where one does."""
    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return
    v = m.version
    adjustments = m.adjustments_at(v)
    universe = list(_universe(m, names))
    report = check(m)
    by_code = {}
    for finding in report.findings:
        by_code.setdefault(finding.code, set()).add(finding.feature)
    set_paths = {p for a in adjustments for p in a.set}
    pre = _before_choice(m)
    for g in m.features_at(v):
        read = set(re.findall(r"\bgiven\.(\w+)", str(g.when)))
        if read & set_paths:
            assert g.id in by_code.get("inconclusive", set()), g.when
            assert g.id not in by_code.get("never-active", set()) | by_code.get("always-active", set()), g.when
        elif g.id not in by_code.get("inconclusive", set()):
            holds = [g.when.evaluate(config, schema=m.schema) for config in universe]
            assert (g.id in by_code.get("never-active", set())) == (not any(holds)), g.when
            assert (g.id in by_code.get("always-active", set())) == all(holds), g.when
    # Resolve: the features active on the config of choice, where the runner that serves adds no
    # adjustment of its own (its effective config is then C).
    for config in universe:
        c, _ = _reference_apply(m, pre, config, None)
        try:
            resolution = m.resolve(config)
        except matrix.ResolutionError as error:
            resolution = error.resolution
        if any(a.runner is not None for a in resolution.adjustments):
            continue
        expected = [g.id for g in m.features_at(v) if g.applies != "asked" and _holds_given(m, g.when, c, config)]
        assert [f.id for f in resolution.active] == expected, (config, c)

_SECTIONS = '''[matrix]
name = "sections"
version = "1.0"

[config]
"x" = { type = "bool", default = false }
"m" = { type = "int", default = 0 }
"spec" = { type = "section", nullable = true }
"spec.n" = { type = "int", default = 1 }

[features.many]
name = "many steps"
when = "spec.n > 4"
support = { a = "no", b = "yes" }

[adjustments.drop]
name = "no spec when x"
when = "x"
set = { "spec" = { none = true } }

[adjustments.steps]
name = "steps from m"
when = "m > 0"
set = { "spec.n" = { from = "m" } }
runners = ["a"]

[adjustments.again]
name = "drop again"
when = "x and spec is not None"
set = { "spec" = { none = true } }
'''


def test_check_reads_adjustments_through_sections_set_none_and_copies():
    """Issue 27: a section set to None hides what is below it from a later adjustment and from
    the gates, a copy reads the other field as found: check says where A's own adjustment leaves
    a config it cannot serve (its witness raises AdjustmentError), that the second drop never
    changes a value after the first, and that the first has no effect since the second does the same."""
    m = matrix.loads(_SECTIONS, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    findings = [f for f in check(m).findings if f.code.startswith("adjustment-")]
    assert [str(f) for f in findings] == [
        "<string>:16:1: warning[adjustment-undone]: no spec when x has no effect: wherever it changes a value, the "
        "adjustments after it leave the config as they would without it (they undo it, or do the same); delete it, "
        "or check the ones after it",
        "<string>:21:1: warning[adjustment-refuses]: Automatic choice gives A configs that its own adjustments leave "
        "it unable to serve (an AdjustmentError); resolve then says: An adjustment leaves a config the runner cannot "
        "serve: steps from m: set spec.n from -2 to 5; then A does not support: many steps",
        "<string>:27:1: warning[adjustment-never]: drop again never changes a value: the adjustments before it leave "
        "no config where its condition holds; delete it, or check its condition",
    ]
    refuses = findings[1]
    assert refuses.witness == {"spec": {"n": -2}, "x": False, "m": 5}
    with pytest.raises(matrix.AdjustmentError):
        m.resolve(refuses.witness)
    # With x, the spec is gone before A's adjustment: A is served.
    assert m.resolve({**refuses.witness, "x": True}).runner == "a"


_REACHED_BY_REDIRECT = """[matrix]
name = "p5"
version = "1.0"

[config]
"q" = { type = "bool", default = false }
"z" = { type = "int", choices = [1, 2], default = 1 }

[features.fq]
name = "q on"
when = "q"
support = { r1 = "yes", r2 = "no" }
applies = "automatic"

[features.fz]
name = "z two"
when = "z == 2"
support = { r1 = "yes", r2 = "yes" }

[adjustments.adj]
name = "r2 sets z"
when = "q"
set = { "z" = 2 }
runners = ["r2"]
"""


def test_an_adjustment_of_a_runner_reached_only_by_a_redirect_is_not_said_never_to_apply():
    """Review of this round: r2 serves only requests redirected to it from r1, and there its
    adjustment applies; check said adjustment-never (it searched only requests for r2 itself)."""
    m = matrix.loads(_REACHED_BY_REDIRECT, runners={
        "r1": {"name": "Runner One", "priority": 2, "redirects": [{"to": "r2", "when": "q"}]},
        "r2": {"name": "Runner Two", "priority": 1, "redirects": [{"to": "r1", "when": "q"}]}})
    resolution = m.resolve({"q": True}, runner="r1")
    assert (resolution.runner, [(a.id, a.before, a.after) for a in resolution.adjustments]) == ("r2", [("adj", 1, 2)])
    assert [f.code for f in check(m).findings] == ["never-chosen"]


_READS_ROLES = """[matrix]
name = "roles"
version = "1.0"
stages = ["choice", "pages"]
[config]
backend = { type = "str", nullable = true, choices = ["a", "b"] }
decode = { type = "str", nullable = true, choices = ["a", "b"] }
page = { type = "int", nullable = true }
[roles.base]
name = "Backend"
field = "backend"
[roles.decode]
name = "Decode backend"
field = "decode"
follows = "base"
[adjustments.mine]
name = "b's pages when a decodes"
runners = ["b"]
when = "role.base == 'a'"
set = { page = 1 }
[adjustments.pair]
name = "pages of a split pair"
stage = "pages"
when = "role.decode != role.base and page is None"
set = { page = 16 }
[adjustments.same]
name = "pages of one runner"
stage = "pages"
when = "role.decode == role.base and decode is not None and backend is None"
set = { page = 8 }
"""


def test_check_reads_a_role_as_the_fields_it_stands_for_where_each_runner_serves():
    """Issue 30, F1: role.base is the runner that serves (never a where b serves); role.decode its
    field, else the base's runner (so 'decode == base' holds where decode names the runner chosen
    automatically, which check finds: a serves automatically)."""
    m = matrix.loads(_READS_ROLES, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    assert [(f.code, f.place, f.message) for f in check(m).findings if f.code.startswith("adjustment")] == [
        ("adjustment-never", "$.adjustments.mine", "b's pages when a decodes never changes a value: its condition "
         "holds for no config; delete it, or check its condition")]
    assert [a.id for a in m.resolve({"decode": "a"}).adjustments] == ["same"]
    assert [a.id for a in m.resolve({"decode": "b"}).adjustments] == ["pair"]


# Cases the brute force with adjustments found: a removed feature (refused on the config of choice
# first) that a runner's own adjustment makes active on its effective config refuses it there, as
# the runner a request is redirected to (redirect-refused) and in automatic choice
# (adjustment-refuses).
_REMOVED_ON_F = [
    ("""[matrix]
name = "small"
version = "1.0"
[config]
"j" = { type = "int", min = 0, max = 3, default = 0 }
"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }
[requirements]
k1 = { name = "K1", reason = "k1 fails" }
k2 = { name = "K2", reason = "k2 fails" }
[features.g0]
name = "g0"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[features.g1]
name = "g1"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[features.g2]
name = "g2"
when = "t == 'a'"
support = { a = "yes", b = "no" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[features.g3]
name = "g3"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[refusals.r0_0]
reason = "r0"
together = [["g0"]]
# --- adjustments
[adjustments.a0]
name = "a0"
when = "not (j < 0)"
set = { "t" = "a" }
override = true
runners = ["b"]
""", ["j", "t"],
     {"a": {"name": "A", "priority": 3, "redirects": [{"to": "b", "when": "j == 3"}]},
      "b": {"name": "B", "priority": 2, "aliases": [{"id": "old_b", "since": "0.5"}]}}, False),
    ("""[matrix]
name = "small"
version = "1.0"
[config]
"j" = { type = "int", min = 0, max = 3, default = 0 }
"t" = { type = "str", choices = ["a", "b", "c"], default = "a" }
[requirements]
k1 = { name = "K1", reason = "k1 fails" }
k2 = { name = "K2", reason = "k2 fails" }
[features.g0]
name = "g0"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[features.g1]
name = "g1"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
applies = "asked"
[features.g2]
name = "g2"
when = "t == 'a'"
support = { a = "yes", b = "no" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
[features.g3]
name = "g3"
when = "j < 0"
support = { a = "yes", b = "yes" }
deprecated = { since = "0.5", remove_in = "1.0", removed = true }
# --- adjustments
[adjustments.a0]
name = "a0"
when = "j < 1.5"
set = { "t" = "a" }
override = true
runners = ["b"]
""", ["j", "t"],
     {"a": {"name": "A", "priority": 3, "requires": {"k2": "j < 0"}, "aliases": [{"id": "old_a", "since": "0.5"}]},
      "b": {"name": "B", "priority": 2, "aliases": [{"id": "old_b", "since": "0.5"}]}}, False),
]


@pytest.mark.parametrize("case", _REMOVED_ON_F, ids=["redirect-refused", "adjustment-refuses"])
def test_a_removed_feature_active_only_on_the_effective_config_refuses_the_runner(case):
    _check_agrees(case)
    m = matrix.loads(case[0], runners=case[2])
    code = "redirect-refused" if "redirects" in case[2]["a"] else "adjustment-refuses"
    assert [f.code for f in check(m).findings if f.code == code] == [code]


def test_a_refused_default_is_a_no_runner_set_with_the_orders_gate_and_a_refusal_may_acknowledge_it():
    text = ('[matrix]\nname = "m"\nversion = "1.0"\n[config]\nx = { type = "int", default = 0 }\n'
            '[features.big]\nname = "big x"\nwhen = "x > 5"\nsupport = { a = "no", b = "yes" }\n'
            '[orders.small]\nname = "small default"\nwhen = "x > 2"\nrunners = ["a"]\nfallback = false\n')
    runners = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}
    m = matrix.loads(text, runners=runners)
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve({"x": 6})
    assert str(excinfo.value).splitlines()[0] == (
        "No runner can serve this config: small default chooses A, and A does not support: big x")
    assert excinfo.value.resolution.explain().splitlines()[1] == (
        "Order: small default, because x > 2 holds; its first candidate is validated, without fallback; runners in "
        "that order:")
    assert excinfo.value.resolution.explanation()["order"] == {"id": "small", "name": "small default", "when": "x > 2",
                                                              "fallback": False}
    assert m.resolve({"x": 2}).runner == "a"  # the order does not apply: by priority
    message = ("No runner can serve a config with big x and the order 'small default' applying (x > 2), without "
               "fallback: A does not support big x; B is not tried: small default does not fall back")
    assert [(f.message, f.combinations, f.witness) for f in check(m).findings if f.code == "no-runner"] == [
        (message, (("big", "order:small"),), {"x": 6})]
    acknowledged = matrix.loads(text + '[refusals.r]\nreason = "a refused default is final"\n'
                                       'together = [["big", "order:small"]]\n', runners=runners)
    assert [(f.severity, f.message) for f in check(acknowledged).findings if f.code == "no-runner"] == [
        ("note", message + " (acknowledged: a refused default is final)")]


def test_an_alias_finding_points_at_the_alias_entry_in_its_runner_file(tmp_path):
    # Before: both findings stood at runners/b.toml:1:1, the top of the file.
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = 2\n')
    (tmp_path / "runners" / "b.toml").write_text(
        'name = "B"\npriority = 1\n\naliases = [\n  { id = "old_b", since = "0.5" },\n'
        '  { id = "older_b", since = "0.5", remove_in = "1.0" },\n]\n')
    (tmp_path / "features.toml").write_text(
        '[matrix]\nname = "t"\nversion = "1.0"\n[config]\n"x" = "bool"\n'
        '[features.f]\nname = "F"\nwhen = "x"\nsupport = { a = "no", b = "yes" }\n')
    report = check(matrix.load(tmp_path / "features.toml"))
    found = [(f.code, f.file, f.line, f.column, f.place) for f in report.findings if f.code.startswith("alias-")]
    runner_file = str(tmp_path / "runners" / "b.toml")
    assert found == [
        ("alias-no-removal-version", runner_file, 5, 3, "$.runners.b.aliases[0]"),
        ("alias-overdue", runner_file, 6, 36, "$.runners.b.aliases[1].remove_in"),
    ]


# --- forced-freed (issue 25): a forced runner its own adjustments would free --------------------

_FORCED = '''[matrix]
name = "forced"
version = "1.0"

[config]
"w" = { type = "bool", default = false }
"x" = { type = "int", default = 0 }

[features.wm]
name = "watermarking"
when = "w"
support = { a = "no", b = "yes" }
forces = { runner = "b" }

[features.big]
name = "big x"
when = "x > 4"
support = { a = "yes", b = "no" }

[adjustments.shrink]
name = "Shrink x on b"
when = "x > 4"
set = { "x" = SET }
runners = ["b"]
'''
_FORCED_RUNNERS = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}


def test_forced_freed_where_the_forced_runners_own_adjustment_removes_its_blocker():
    """Where no runner is free and watermarking forces B, B's adjustment would remove what blocks
    it: check says so, and its witness resolves to NoRunnerError after saying the adjustment."""
    m = matrix.loads(_FORCED.replace("SET", "4"), runners=_FORCED_RUNNERS)
    findings = [f for f in check(m).findings if f.code == "forced-freed"]
    assert [str(f) for f in findings] == [
        "<string>:13:1: warning[forced-freed]: B, forced by watermarking, is refused on the config as given for big x "
        "that its own adjustment 'shrink' removes: a host that validates the forced runner after adjusting would "
        "serve it"]
    assert (findings[0].feature, findings[0].runner, findings[0].witness) == ("wm", "b", {"w": True, "x": 5})
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve(findings[0].witness)
    assert excinfo.value.args[0] == "No runner can serve this config: A does not support: watermarking; B does not " \
                                    "support: big x"
    assert [(w.kind, w.feature, w.runner, w.message) for w in excinfo.value.resolution.warnings] == [
        ("adjusted", "shrink", "b", "Shrink x on b: set x from 5 to 4")]


def test_no_forced_freed_where_the_forced_runners_adjustment_leaves_it_blocked():
    """B's adjustment sets x to 9: B stays blocked on its effective config, so nothing is said
    (the adjustment is said on the way, and is not adjustment-never: the forced step reaches it)."""
    m = matrix.loads(_FORCED.replace("SET", "9"), runners=_FORCED_RUNNERS)
    assert [f.code for f in check(m).findings] == ["no-runner"]
    with pytest.raises(NoRunnerError) as excinfo:
        m.resolve({"w": True, "x": 5})
    assert [(w.kind, w.message) for w in excinfo.value.resolution.warnings] == [
        ("adjusted", "Shrink x on b: set x from 5 to 9")]


def test_forced_freed_never_fires_on_the_default_matrix():
    """Issue 25: where HiSparse or watermarking forces V2 and no runner is free, V2's own
    adjustments (CUDA graphs off under stock torch.compile, max_model_len lowered to the draft's)
    remove none of its blockers in automatic choice: decided at every release, never inconclusive."""
    for version in ("0.30.0", "0.31.0", "0.32.0", "0.33.0"):
        codes = {f.code for f in check(matrix.default(), version=version).findings}
        assert codes.isdisjoint({"forced-freed", "inconclusive"}), (version, codes)


def test_an_overriding_feature_that_forces_the_runner_asked_for_does_not_hide_another_override():
    # Review: g1 overrides a request for A to B (g0 forces A itself), B's adjustment applies, and
    # check said adjustment-never (it ruled out every config where any other override was active).
    m = matrix.loads('[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"i" = { type = "int", nullable = true }\n'
                     '"j" = { type = "int", min = 0, max = 3, default = 0 }\n'
                     '[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "no" }\n'
                     'forces = { runner = "a", override = true }\n'
                     '[features.g1]\nname = "g1"\nwhen = "i < 0"\nsupport = { a = "no", b = "yes" }\n'
                     'forces = { runner = "b", override = true }\n'
                     '[adjustments.a0]\nname = "a0"\nwhen = "i < 0"\nset = { "j" = 0 }\noverride = true\nrunners = ["b"]\n',
                     runners={"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}})
    with pytest.raises(UnsupportedFeatureError) as excinfo:
        m.resolve({"i": -1, "j": 2}, runner="a")
    assert [(w.kind, w.message) for w in excinfo.value.resolution.warnings] == [
        ("override", "g1 requires B and overrides the request for A"), ("adjusted", "a0: set j from 2 to 0")]
    assert [f.code for f in check(m).findings if f.code.startswith("adjustment-")] == []


def test_a_matrix_wide_clause_and_a_runner_s_own_that_read_alike_are_said_apart():
    """Found by the brute force: a matrix-wide chain and runner B's own chain of one kind share
    a clause (``p + i == 3``, clause 2); the two undecided combinations with the order read as
    one finding said twice. A runner's own clause now names its runner. (Since, the matrix-wide
    one is not tried with the order: it refuses every runner alone.)"""
    text = (
        '[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"b" = { type = "bool", default = false }\n'
        '"p" = { type = "int", min = -2, max = 5, default = 0 }\n"i" = { type = "int", nullable = true }\n'
        '[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\n'
        '[requires]\nk1 = [{ condition = "b", reason = "k1 first" }, { condition = "p + i == 3" }]\n'
        '[orders.b_first]\nname = "b first"\nwhen = "p + i == 3"\nrunners = ["b"]\nfallback = false\n')
    runners = {"a": {"name": "A", "priority": 3},
               "b": {"name": "B", "priority": 2, "requires": {"k1": [{"condition": "not b"}, {"condition": "p + i == 3"}]}}}
    findings = [str(f) for f in check(matrix.loads(text, runners=runners)).findings]
    assert len(set(findings)) == len(findings)
    undecided = ("<string>: warning[inconclusive]: Could not decide exactly (not every value of 'i', 'p' could be "
                 "represented: a field that arithmetic across fields reads (a + b, a % b, a derived field), or that "
                 "is compared with it, has no min and max or is not an int, or the fields read together take more "
                 "than 20000 combinations of values) whether the order 'b first' applying (p + i == 3), without "
                 "fallback and 'k1 fails' (failing p + i == 3, clause 2 of {}) can be active together; combinations "
                 "that include them were not searched")
    assert [f for f in findings if "b first' applying (p + i == 3), without fallback and 'k1 fails' (failing p + i"
            in f] == [undecided.format("B's requirement 'k1'")]
    # The matrix-wide clause refuses every runner: found alone, it is never minimal with the order
    # (the search does not try the two together).
    assert [f for f in findings if "clause 2 of 'k1'" in f] == [
        "<string>:11:1: note[no-runner]: No runner can serve a config with 'k1 fails' (failing p + i == 3, clause 2 "
        "of 'k1'): every runner refuses it: k1 fails (acknowledged: a matrix-wide requirement, which refuses it "
        "whatever the runner)"]
    assert ("<string>: note[no-runner]: No runner can serve a config with 'k1 fails' (failing not b, clause 1 of B's "
            "requirement 'k1') and the order 'b first' applying (p + i == 3), without fallback: A is not tried: b "
            "first does not fall back; B is not valid for it: k1 fails") in findings


def test_an_adjustment_after_the_choice_that_names_no_runner_is_every_runners():
    """Issue 30, F6: an adjustment at a stage after the choice that names no runner applies
    wherever any runner serves; check reads it so (here the page default before it, at the same
    stage, always fills the page it waits for)."""
    from tests.test_resolver import _STAGED, _STAGED_RUNNERS

    text = _STAGED + ('\n[adjustments.never_late]\nname = "never late"\nwhen = "page is None"\n'
                      'set = { graphs = false }\nstage = "pages"\n')
    m = matrix.loads(text, runners=_STAGED_RUNNERS)
    assert [str(f) for f in check(m).findings if f.code.startswith("adjustment")] == [
        "<string>:46:1: warning[adjustment-never]: never late never changes a value: no config that automatic "
        "choice gives to Fast, Slow, or that a request for it leaves with it, makes it change a value; delete it, "
        "or check its condition"]
    m = matrix.loads(text.replace('when = "page is None"\nset = { graphs', 'when = "page == 1"\nset = { graphs'),
                     runners=_STAGED_RUNNERS)
    assert [str(f) for f in check(m).findings if f.code.startswith("adjustment")] == []
    assert [a.id for a in m.resolve({}).adjustments] == ["page_default", "never_late"]


def test_an_override_does_not_reach_a_runner_where_a_force_without_override_refuses_the_request():
    """A request for B where g1 forces A without overriding is refused, whatever g0 (forcing A,
    overriding) says: a refusal wins over an override. So A's adjustment a0 (when i < 1, where a
    request for A is redirected to B and automatic choice is refused) is never said; check read
    the override as taking the request to A and said nothing (found by the brute force)."""
    text = """[matrix]
name = "small"
version = "1.0"
[config]
"i" = { type = "int", nullable = true }
"b" = { type = "bool", default = false }
[features.g0]
name = "g0"
when = "i < 1"
support = { a = "yes", b = "no" }
forces = { runner = "a", override = true }
[features.g1]
name = "g1"
when = "i < 1"
support = { a = "yes", b = "no" }
forces = { runner = "a", override = false }
[orders.b_first]
name = "b first"
when = "i < 1"
runners = ["b"]
fallback = false
[adjustments.a0]
name = "a0"
when = "i < 1"
set = { "b" = false }
runners = ["a"]
"""
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 3, "redirects": [{"to": "b", "when": "i < 1"}]},
                                    "b": {"name": "B", "priority": 2}})
    for runner in (None, "a", "b"):
        with pytest.raises(matrix.ResolutionError) as caught:
            m.resolve({"i": 0, "b": True}, runner=runner)
        assert [w.kind for w in caught.value.resolution.warnings if w.kind == "adjusted"] == []
    assert [(f.code, f.place) for f in check(m).findings if f.code.startswith("adjustment")] == [
        ("adjustment-never", "$.adjustments.a0")]


def test_no_runner_says_an_opt_in_is_opt_in_as_resolve_does():
    """A runner with an opt-in cell serves the config when asked for it: the no-runner note says
    "(opt-in)" beside the feature, as resolve's error does (it said "does not support AV1";
    found by a user trial)."""
    m = matrix.loads('[matrix]\nname = "oi"\nversion = "1.0"\n[config]\n'
                     '"codec" = { type = "str", choices = ["h264", "av1"], default = "h264" }\n'
                     '[features.av1]\nname = "AV1"\nwhen = "codec == \'av1\'"\nsupport = { r = "no", s = "opt-in" }\n',
                     runners={"r": {"name": "R", "priority": 2}, "s": {"name": "S", "priority": 1}})
    assert [f.message for f in check(m).findings if f.code == "no-runner"] == [
        "No runner can serve a config that uses AV1: R does not support AV1; S does not support AV1 (opt-in)"]
    with pytest.raises(NoRunnerError) as caught:
        m.resolve({"codec": "av1"})
    assert str(caught.value).splitlines()[0] == (
        "No runner can serve this config: R does not support: AV1; S does not support: AV1 (opt-in)")
    assert m.resolve({"codec": "av1"}, runner="s").runner == "s"


def test_a_finding_about_a_requirement_stands_at_its_key_in_requires(tmp_path, monkeypatch):
    """Found by a user trial: a finding made of runners' requirements stood at the first feature
    of features.toml (its gate's id, 'hw:split', is no key there), and matrix diff's cause of a
    matrix-wide requirement at '$.features["*:split"]'. A runner's clause stands in its runner
    file, a matrix-wide one at features.toml's [requires]."""
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "hw.toml").write_text('name = "HW"\npriority = 20\n\n[requires]\nsplit = "slices != 3"\n')
    (tmp_path / "runners" / "sw.toml").write_text('name = "SW"\npriority = 10\n[requires]\nsplit = "slices < 3"\n')
    head = ('[matrix]\nname = "enc"\nversion = "1.0"\n[config]\nslices = { type = "int", min = 1, max = 4, default = 1 }\n'
            'hdr = { type = "bool", default = false }\n'
            '[requirements]\nsplit = { name = "Split", reason = "slices must not be 3" }\n')
    tail = '[features.hdr]\nname = "HDR"\nwhen = "hdr"\nsupport = { hw = "yes", sw = "yes" }\n'
    (tmp_path / "features.toml").write_text(head + tail)
    monkeypatch.chdir(tmp_path)
    [finding] = [f for f in check(matrix.load("features.toml")).findings if f.code == "no-runner"]
    assert (finding.file, finding.line, finding.column, finding.place) == ("runners/hw.toml", 5, 1, "$.requires.split")
    (tmp_path / "runners" / "sw.toml").write_text('name = "SW"\npriority = 10\n')
    (tmp_path / "old.toml").write_text(head + tail)
    (tmp_path / "features.toml").write_text(head + '[requires]\nsplit = "slices != 3"\n' + tail)
    status, out, _ = call("diff", "old.toml", "features.toml", "--format", "json")
    assert {(e["file"], e["line"], e["place"]) for c in json.loads(out)["changes"] for e in c["entries"]} == {
        ("features.toml", 10, "$.requires.split")}


def test_a_staged_requirement_is_said_idle_or_unmet_where_it_is_checked_and_cuts_off_later_adjustments():
    """docs/reference/check.md (issue 30, F6): A's page requirement follows A's own page
    adjustment, so it never refuses; B's refuses every config B serves, so B's later adjustment
    never applies; the matrix-wide one before the choice refuses tp over 8."""
    import textwrap

    text = textwrap.dedent('''\
    [matrix]
    name = "staged"
    version = "1.0"
    stages = ["device", "choice", "pages", "late"]
    [config]
    page = { type = "int", min = 1, default = 16 }
    tp = { type = "int", min = 1, default = 1 }
    [requirements]
    page = { name = "Page size", reason = "page {page} refused" }
    tp = { name = "TP", reason = "tp over 8" }
    [requires]
    tp = { condition = "tp <= 8", stage = "device" }
    [features.big]
    name = "Big pages"
    when = "page > 512"
    support = { a = "yes", b = "yes" }
    [adjustments.page64]
    name = "page 64"
    when = "page < 64"
    set = { page = 64 }
    runners = ["a"]
    stage = "pages"
    [adjustments.late_b]
    name = "late b"
    when = "tp > 1"
    set = { tp = 1 }
    runners = ["b"]
    stage = "late"
    ''')
    runners = {"a": {"name": "A", "priority": 2, "requires": {"page": {"condition": "page >= 64", "stage": "pages"}}},
               "b": {"name": "B", "priority": 1, "requires": {"page": {"condition": "page < 1", "stage": "pages"}}}}
    m = matrix.loads(text, runners=runners)
    assert [str(f) for f in check(m).findings] == [
        "<string>:1:1: warning[never-chosen]: B is never chosen automatically: A is never blocked",
        "<string>:1:1: warning[requirement-idle]: A's requirement 'page' (page {page} refused), at stage 'pages', "
        "never refuses: it holds for every config checked there; delete it, or check its condition",
        "<string>:1:1: error[requirement-unmet]: B's requirement 'page' (page {page} refused), at stage 'pages', "
        "refuses every config that reaches that stage where B serves",
        "<string>:23:1: warning[adjustment-never]: late b never changes a value: no config that automatic choice "
        "gives to B, or that a request for it leaves with it, makes it change a value; delete it, or check its "
        "condition"]
    with pytest.raises(matrix.UnsupportedFeatureError):
        m.resolve({"tp": 4}, runner="b")
    from matrix.diff import diff

    # Said where the sides differ, not where they decide alike (issue 28: a matrix diffed with itself).
    assert diff(m, m).undecided == ()
    tighter = matrix.loads(text.replace("tp <= 8", "tp <= 4"), runners=runners)
    assert diff(m, tighter).undecided[-1] == (
        "Not compared: staged requirements (a stage other than choice) (the answers for a config a staged requirement "
        "refuses may differ unseen)")


def test_the_no_runner_search_tries_a_gate_that_refuses_every_runner_alone_and_one_order_at_a_time():
    """Issue 30: with orders without fallback (each passes over every runner but its first) and
    matrix-wide requirements (each refuses every runner), the search tried every way of adding
    them to each other, runner by runner: on SGLang's example (14 orders, 34 requirements, 23
    runners) it had not finished in 16 minutes. A set with a gate that refuses every runner is
    never minimal with another gate, nor one with two gates that refuse no runner (only the one
    that decides counts): the search skips them, and finds the same sets."""
    from unittest import mock

    from matrix._space import Space

    text = '[matrix]\nname = "m"\nversion = "1.0"\n[config]\nx = { type = "int", default = 0, min = 0, max = 9 }\n'
    text += "[requirements]\n" + "".join(f'k{i} = {{ name = "K{i}", reason = "x is {i}" }}\n' for i in range(6))
    text += "[requires]\n" + "".join(f'k{i} = "x != {i}"\n' for i in range(6))
    text += "".join(f'[orders.o{i}]\nname = "o{i}"\nwhen = "x >= {i}"\nrunners = ["r{(i + 3) % 8}"]\nfallback = false\n'
                    for i in range(6))
    text += '[orders.last]\nname = "last"\nrunners = ["r0"]\nfallback = false\n'
    m = matrix.loads(text, runners={f"r{i}": {"name": f"R{i}", "priority": 10 - i} for i in range(8)})
    calls = []
    solve = Space.solve

    def counted(self, *args, **kwargs):
        calls.append(1)
        return solve(self, *args, **kwargs)

    with mock.patch.object(Space, "solve", counted):
        report = check(m)
    assert [(f.message, f.witness) for f in report.findings if f.code == "no-runner"] == [
        (f"No runner can serve a config with 'x is {i}' (failing x != {i}): every runner refuses it: x is {i} "
         "(acknowledged: a matrix-wide requirement, which refuses it whatever the runner)", {"x": i}) for i in range(6)]
    assert len(calls) < 60  # 907 before (4 s), and 16 minutes on the example


def test_a_question_ruled_out_before_an_inexact_value_is_read_is_decided():
    """Issue 30: SGLang's example said 18 runners 'inconclusive' (ever chosen?): the fields its
    arithmetic reads have no max, so the search cannot try every value of them; but the order
    without when and without fallback (D12) applies wherever no order before it does, so the
    step that would choose those runners (no order applies) fails before any value is read.
    Such a "none" is proved; and the reason said is the order's."""
    text = ('[matrix]\nname = "m"\nversion = "1.0"\n[config]\ntp = { type = "int", default = 1, min = 1 }\n'
            'dcp = { type = "int", default = 1, min = 1 }\n'
            '[requirements]\nk = { name = "K", reason = "dcp must divide tp" }\n[requires]\nk = "tp % dcp == 0"\n'
            '[orders.big]\nname = "big"\nwhen = "tp > 4"\nrunners = ["b"]\nfallback = false\n'
            '[orders.last]\nname = "last"\nrunners = ["a"]\nfallback = false\n')
    runners = {"a": {"name": "A", "priority": 1}, "b": {"name": "B", "priority": 2}, "c": {"name": "C", "priority": 3}}
    findings = [str(f) for f in check(matrix.loads(text, runners=runners)).findings if f.code != "no-runner"]
    assert findings == ["<string>:1:1: warning[never-chosen]: C is never chosen automatically: whenever it is free, "
                        "an order without fallback that applies tries another runner first"]


def test_a_redirect_is_not_said_refused_for_a_gate_every_runner_says_no_to():
    """Issue 30: SGLang's example said fa3's redirect to triton refused, with E1 (deterministic
    inference with a backend outside its list) as the reason: a matrix-wide requirement that
    exempts no runner, so the request is refused wherever it goes, redirected or not (no-runner
    says it of the config). Only a gate some runner does not say no to counts: here the one that
    exempts the runner asked for, which would have served."""
    text = ('[matrix]\nname = "m"\nversion = "1.0"\n[config]\nd = { type = "bool", default = false }\n'
            'kv = { type = "str", default = "auto", choices = ["auto", "e5m2"] }\n'
            'x = { type = "bool", default = false }\n'
            '[requirements]\ne1 = { name = "E1", reason = "not for deterministic inference" }\n'
            'ex = { name = "EX", reason = "x needs FA3" }\n'
            '[requires]\ne1 = "not d"\nex = { condition = "not x", exempt = ["fa3"] }\n')
    runners = {"fa3": {"name": "FA3", "priority": 2, "redirects": [{"to": "triton", "when": "kv == 'e5m2'"}]},
               "triton": {"name": "Triton", "priority": 1}}
    m = matrix.loads(text, runners=runners)
    with pytest.raises(UnsupportedFeatureError) as excinfo:  # refused either way: E1 refuses every runner
        m.resolve({"d": True, "kv": "e5m2"}, runner="fa3")
    assert excinfo.value.reason == "not for deterministic inference"
    with pytest.raises(UnsupportedFeatureError):
        m.resolve({"d": True}, runner="fa3")
    assert [(f.message, f.witness) for f in check(m).findings if f.code == "redirect-refused"] == [
        ("FA3's redirect 1 to Triton (kv == 'e5m2') can leave a request Triton refuses: where it applies, Triton "
         "fails a requirement (x needs FA3)", {"kv": "e5m2", "x": True})]
    without = matrix.loads(text.replace('ex = { condition = "not x", exempt = ["fa3"] }\n', ""), runners=runners)
    assert [f for f in check(without).findings if f.code == "redirect-refused"] == []


def test_check_on_the_sglang_example_keeps_no_finding_but_its_notes():
    """Issue 30: ``matrix check --strict`` on SGLang's example ran 16 minutes without finishing;
    it now finishes in seconds, and every warning it keeps is acknowledged in the file's
    ``[check]`` (the runners the default ladder never names, the former ids SGLang gives no
    removal version, A28, A31 and A32 as redirects at a stage, which check says it does not read
    yet), but the editor schemas beside the files when they are stale (regenerated
    with ``matrix schema --json-schema --write``). Every refusal is staged at its step (no gate of the
    choice: no no-runner set), so the notes are about check's reach: adjustment-unchecked, and
    requirement-unchecked of the four staged refusals check leaves undecided: the 9 before the choice
    are read through the adjustments before their stage (each within the limit), and 31 of the 35
    after it are shown refusing and passing by resolved configs (`_check_adjust.witnessed`); E38
    and E39 are requirements of roles (passing is not read back), and no config tried shows E40 or
    E42 refusing."""
    status, out, err = call("check", "--strict", "--matrix", str(ROOT / "examples" / "sglang-attention" / "features.toml"))
    kept = [line.split(": ", 1)[1].split(":", 1)[0] for line in out.splitlines()
            if ": warning[" in line or ": error[" in line]
    notes = Counter(line.split(": ", 1)[1].split(":", 1)[0] for line in out.splitlines() if ": note[" in line)
    assert notes == {"note[adjustment-unchecked]": 18, "note[requirement-unchecked]": 4}, notes
    unchecked = [line.split("requirement ", 1)[1].split(" ", 1)[0] for line in out.splitlines()
                 if ": note[requirement-unchecked]" in line]
    assert unchecked == ["'E42'", "'E40'", "'E38'", "'E39'"], unchecked
    assert [code for code in kept if code != "warning[schema-stale]"] == [], out
    assert err == "" and status == (1 if kept else 0)
    assert out.splitlines()[-1] == str(ROOT / "examples" / "sglang-attention" / "features.toml") + (
        ": passed: 0 errors, 0 warnings, 22 notes (strict: every finding fails "
        "but acknowledged refusals and notes on what check did not search); 21 findings ignored by [check] ignore")


def test_an_undecided_notice_is_asked_whether_it_is_ever_said_not_whether_it_changes_a_value():
    """A notice (an adjustment without set) changes nothing: check's question about it, left
    undecided within a budget of one step, is whether it is ever said."""
    m = matrix.loads('''[matrix]
name = "t"
version = "1.0"
[config]
x = { type = "int", min = 0, max = 9, default = 0 }
y = { type = "int", min = 0, max = 9, default = 0 }
[features.g]
name = "g"
when = "x > 5"
support = { a = "no", b = "yes" }
[adjustments.n]
name = "Notice"
when = "x * y == 12"
message = "x times y is 12"
[adjustments.s]
name = "Setter"
when = "x * y == 12"
set = { y = 0 }
''', runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    found = [f.message for f in check(m, budget=1).findings if f.code == "inconclusive" and f.place.startswith(
        "$.adjustments")]
    assert found == ["Could not decide within 1 step whether Notice is ever said",
                     "Could not decide within 1 step whether Setter ever changes a value, or is always undone"]



def test_check_reads_a_redirect_at_a_stage_where_it_changes_the_answer():
    """Issue 30, F6: a redirect at a stage after the choice splits the steps of the runner that
    serves. Its own findings are read: its condition on the config the runner's steps before its
    stage leave (torch_native's A19 turns graphs off before 'pages', so its redirect never
    applies), a refusal confirmed by resolving its witness (sinks after intel_amx → torch_native).
    The adjustments after the choice of the runners it joins (and those that name no runner) are
    read on each way they run (`_check_adjust._ways`): each changes a value, or is said, on a
    config resolve confirms, and none is undone, so neither adjustment-never nor adjustment-undone
    is said of them (they were inconclusive, naming the redirect). No
    adjustment here blocks a runner: adjustment-refuses is decided (none), where it was
    inconclusive (`test_adjustment_refuses_reads_where_a_redirect_at_a_stage_applies`). Their staged
    requirements are decided where resolved configs show them refusing and passing: torch_native's
    small_page refuses page 64 (asked for) and passes every default, so neither requirement-idle nor
    requirement-unmet is said, nor inconclusive. The choice itself is made before it: never-chosen
    is exact."""
    from tests.test_resolver import _REROUTED, _REROUTED_RUNNERS

    from matrix.diff import diff

    m = matrix.loads(_REROUTED, runners=_REROUTED_RUNNERS)
    # Said where the sides differ, not where they decide alike (issue 28: a matrix diffed with itself).
    assert [line for line in diff(m, m).undecided if "redirects at a stage" in line] == []
    other = matrix.loads(_REROUTED.replace('support = { default = "yes", torch_native = "no" }',
                                           'support = { default = "yes", torch_native = "yes" }'), runners=_REROUTED_RUNNERS)
    assert [line for line in diff(m, other).undecided if "redirects at a stage" in line] == [
        "Not compared: redirects at a stage (after the choice) (the answers for a config such a redirect sends "
        "elsewhere may differ unseen)"]
    found = [(f.code, f.place, f.message.split(": a redirect at a stage")[0]) for f in check(m).findings]
    said = set()
    for config in ({}, {"platform": {"has_amx": False}}):
        for asked in (None, "intel_amx", "torch_native"):
            said.update(w.feature for w in m.resolve(config, runner=asked).warnings if w.kind == "adjusted")
    assert said >= {"graphs_off", "amx_graphs", "amx_page", "page_default"}
    with pytest.raises(UnsupportedFeatureError) as staged:
        m.resolve({"page": 64}, runner="torch_native")
    assert staged.value.resolution.staged_refusal["requirements"] == ["torch_native:small_page"]
    assert m.resolve({}, runner="torch_native").runner == "torch_native"
    refused = next(f for f in check(m).findings if f.code == "redirect-refused")
    assert refused.witness == {"sinks": True, "platform": {"has_amx": False}}
    with pytest.raises(UnsupportedFeatureError):
        m.resolve(refused.witness, runner="intel_amx")
    assert found == [
        ("never-chosen", "$.runners.torch_native", "Torch native is never chosen automatically: Intel AMX is never "
                                                   "blocked"),
        ("never-chosen", "$.runners.triton", "Triton is never chosen automatically: Intel AMX is never blocked"),
        ("no-yes", "$.runners.torch_native", "Torch native supports no feature: no cell says yes to it"),
        ("redirect-never", "$.runners.torch_native.redirects[0]", "Torch native's redirect 1 to Triton (graphs) never "
                                                                  "applies: its condition never holds on the config its "
                                                                  "runner's steps leave at its stage, where that runner "
                                                                  "serves"),
        ("redirect-refused", "$.runners.intel_amx.redirects[0]", "Intel AMX's redirect 1 to Torch native (not "
                                                                 "platform.has_amx) can leave a request Torch native "
                                                                 "refuses: where it applies, Torch native does not "
                                                                 "support attention sinks")]


_STAGED_BEFORE_CHOICE = '''[matrix]
name = "t"
version = "1.0"
stages = ["device", "choice", "pages"]
[config]
x = { type = "int", min = 0, max = 9, default = 0 }
y = { type = "int", min = 0, max = 9, default = 0 }
[features.g]
name = "g"
when = "x > 5"
support = { a = "yes", b = "no" }
[requirements]
never = { name = "Never", reason = "y is negative" }
small = { name = "Small", reason = "y {y} is too large" }
late = { name = "Late", reason = "x {x} is too large" }
always = { name = "Always", reason = "x {x} is past its bound" }
[requires]
never = { condition = "y >= 0", stage = "device" }
small = { condition = "y < 8", stage = "device" }
late = { condition = "x < 7", stage = "pages" }
always = { condition = "x <= 9", stage = "pages" }
[adjustments.bump]
name = "Bump"
stage = "device"
when = "y == 3"
set = { x = 9 }
'''


def test_two_staged_requirements_before_the_choice_at_one_stage_are_each_read_as_themselves():
    """Each staged requirement before the choice is read as its own condition: 'small' (at the
    same stage as 'never', declared after it) was read as 'never''s and said idle, where y = 8
    refuses it."""
    m = matrix.loads(_STAGED_BEFORE_CHOICE, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    with pytest.raises(matrix.ResolutionError) as refused:
        m.resolve({"y": 8})
    assert refused.value.resolution.staged_refusal["requirements"] == ["*:small"]
    assert [(f.code, f.place) for f in check(m).findings if f.code.startswith("requirement")] == [
        ("requirement-idle", "$.requires.never"), ("requirement-idle", "$.requires.always")]


def test_staged_requirements_are_decided_where_the_rest_grows_too_large(monkeypatch):
    """Where the conditions read through the adjustments grow too large (here: past a limit of 6
    nodes), a staged requirement before the choice is still read exactly through the adjustments
    before its stage (its own rewrite, and those at earlier stages, within the limit): 'never' is
    idle, 'small' not. After the choice, one that resolved configs show both refusing (x = 7,
    chosen automatically) and passing (every default) is neither idle nor unmet: nothing is said
    of 'late'. 'always' never refuses, which no config shows otherwise: requirement-unchecked."""
    from matrix import _substitute

    m = matrix.loads(_STAGED_BEFORE_CHOICE, runners={"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}})
    with pytest.raises(matrix.ResolutionError) as refused:
        m.resolve({"x": 7})
    assert refused.value.resolution.staged_refusal["requirements"] == ["*:late"]
    assert m.resolve({}).runner == "a"
    monkeypatch.setattr(_substitute, "MAX_NODES", 6)
    assert [(f.code, f.place, f.message) for f in check(m).findings if f.code.startswith(("requirement", "adjustment"))] == [
        ("requirement-idle", "$.requires.never", "The matrix-wide requirement 'never' (y is negative), at stage "
         "'device', never refuses: it holds for every config checked there; delete it, or check its condition"),
        ("requirement-unchecked", "$.requires.always", "The matrix-wide requirement 'always' (x {x} is past its "
         "bound), at stage 'pages', is not searched: the conditions read through the adjustments before it grow too "
         "large to search, so whether it never refuses, or refuses every config it is checked on, is not said"),
        ("adjustment-unchecked", "$.adjustments.bump", "Bump sets 'x', which gates read, and the conditions read "
         "through the adjustments grow too large to search: the answers about choice read configs as given, before "
         "any adjustment, and are not exact where it applies")]


_REFUSED_UNLESS_SENT = '''[matrix]
name = "t"
version = "1.0"
stages = ["choice", "mid", "late"]
[config]
s = { type = "bool", default = false }
t = { type = "bool", default = false }
r = { type = "bool", default = false }
[features.f]
name = "f"
when = "s"
support = { x = "no", y = "yes" }
[adjustments.sx]
name = "S for X"
runners = ["x"]
stage = "mid"
when = "t"
set = { s = true }
'''


@pytest.mark.parametrize("when", ["r", "t"])
def test_adjustment_refuses_reads_where_a_redirect_at_a_stage_applies(when):
    """Issue 30, F6: X's own adjustment sets s (which X says no to) where t holds, after the
    choice; X's redirect at stage 'late' sends it to Y, which is validated instead. Where the
    redirect reads r, a config with t and not r leaves X blocked on F: adjustment-refuses, its
    witness raising AdjustmentError. Where it reads t, it applies wherever the adjustment does:
    X is never refused (the refusal would be Y's, redirect-refused's). Both were inconclusive."""
    m = matrix.loads(_REFUSED_UNLESS_SENT, runners={
        "x": {"name": "X", "priority": 2, "redirects": [{"to": "y", "when": when, "stage": "late"}]},
        "y": {"name": "Y", "priority": 1}})
    findings = check(m).findings
    # sx changes a value on X's way (before the redirect's stage) and nothing after it undoes it:
    # neither adjustment-never nor adjustment-undone, and decided (it was inconclusive, naming the redirect).
    assert [f.code for f in findings if f.place == "$.adjustments.sx" and f.code != "adjustment-refuses"] == []
    found = [(f.code, f.place, f.message, f.witness) for f in findings if f.code != "inconclusive"]
    refuses = [("adjustment-refuses", "$.adjustments.sx", "Automatic choice gives X configs that its own adjustments "
                "leave it unable to serve (an AdjustmentError); resolve then says: An adjustment leaves a config the "
                "runner cannot serve: S for X: set s from False to True; then X does not support: f",
                {"s": False, "t": True, "r": False})]
    assert found == [("no-yes", "$.runners.x", "X supports no feature: no cell says yes to it", None),
                     *(refuses if when == "r" else [])]
    if when == "r":
        with pytest.raises(matrix.AdjustmentError):
            m.resolve({"t": True, "r": False})
    else:
        assert m.resolve({"t": True, "r": False}).runner == "y"
    assert m.resolve({"t": True, "r": True}).runner == "y"


def test_a_refusal_used_at_some_release_is_not_unused_with_all_versions_and_one_is_ignored_by_its_id(tmp_path):
    """A user trial: fp8 had no runner at 1.0 only, so `--all-versions --strict` needed a refusal
    of it, which plain `check` (at 2.0) said unused, and `[check] ignore` could not name it ("Unknown
    gate"); `--all-versions` said unused at 1.0 a refusal used at 2.0 only."""
    text = (DATA / "refusal-unused.toml").read_text().replace('version = "1.0"', 'version = "2.0"').replace(
        'support = { r1 = "yes", r2 = "yes" }',
        'support = { r1 = "yes", r2 = [{ status = "no" }, { status = "yes", since = "2.0" }] }').replace(
        'support = { r1 = "no", r2 = "yes" }', 'support = { r1 = "no", r2 = [{ status = "no" }, { status = "yes", since = "1.0" }] }')
    (tmp_path / "runners").mkdir()
    for name in ("r1", "r2"):
        (tmp_path / "runners" / f"{name}.toml").write_text((DATA / "runners" / f"{name}.toml").read_text())
    (tmp_path / "features.toml").write_text(text)
    status, out, err = _cli("check", str(tmp_path / "features.toml"), "--all-versions", "--strict")
    assert (status, [line.split(": ", 1)[1] for line in out.splitlines()[:-1] if not line.startswith(" ")], err) == (
        0, ["note[no-runner]: No runner can serve a config that uses a and b: Runner One does not support a; Runner "
            "Two does not support b (acknowledged: a and b need different hardware)",
            "note[no-runner]: No runner can serve a config that uses a and c: Runner One does not support a; Runner "
            "Two does not support c (acknowledged: c once blocked r2)"], "")
    status, out, err = _cli("check", str(tmp_path / "features.toml"), "--strict")
    assert status == 1
    assert [line.split(": ", 1)[1] for line in out.splitlines() if "refusal-unused" in line] == [
        "warning[refusal-unused]: The refusal 'stale' matches no combination of gates that leaves no runner free: "
        "delete it, or check its gate lists"]
    (tmp_path / "features.toml").write_text(text + '\n[check]\nignore = [\n  { code = "refusal-unused", gate = "stale", '
                                                   'reason = "a and c leave no runner before 2.0" },\n]\n')
    status, out, err = _cli("check", str(tmp_path / "features.toml"), "--strict")
    assert (status, err) == (0, "")
    assert "refusal-unused" not in out
    assert out.splitlines()[-1].endswith("; 1 finding ignored by [check] ignore")


def _cli(*args):
    out, err = io.StringIO(), io.StringIO()
    return run(list(args), stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_a_runner_whose_file_says_candidate_false_is_asked_for_only_and_said_so():
    """A user trial: `candidate = "False"` (a runner only asked for) was a never-candidate warning
    to ignore, "a candidate when False" in explanations and "a candidate only when False" in the
    runners table."""
    m = matrix.loads('[matrix]\nname = "t"\nversion = "1.0"\n[config]\nx = { type = "bool", default = false }\n'
                     '[features.x]\nname = "X"\nwhen = "x"\nsupport = { a = "yes", b = "no" }\n',
                     runners={"a": {"name": "A", "priority": 2, "candidate": "False"}, "b": {"name": "B", "priority": 1}})
    assert [f.code for f in check(m, strict=True).findings if f.runner == "a"] == []
    assert m.resolve({}).explain().splitlines()[2] == "  a (A, priority 2): not a candidate (asked for only: candidate = False)"
    from matrix.render import render

    said = render(m, tables=["capabilities"])
    assert "| Candidate for automatic choice | never: asked for only | always |  |" in said
    assert "a is asked for only: automatic choice never tries it." in said


_REACHED_BY_A_REDIRECT = '''[matrix]
name = "t"
version = "1.0"
stages = ["choice", "mid", "late"]
[config]
t = { type = "bool", default = false }
u = { type = "int", min = 0, max = 1, default = 0 }
v = { type = "bool", default = false }
[features.f]
name = "f"
when = "v and not t"
support = { x = "yes", y = "yes" }
[adjustments.zx]
name = "Z for X"
runners = ["x"]
stage = "mid"
set = { u = 0 }
[adjustments.zy]
name = "Z for Y"
runners = ["y"]
stage = "mid"
set = { u = 0 }
[adjustments.ux]
name = "U for X"
runners = ["x"]
stage = "mid"
when = "t"
set = { u = 1 }
[adjustments.vy]
name = "V for Y"
runners = ["y"]
stage = "late"
when = "u == 1"
set = { v = true }
'''


@pytest.mark.parametrize(("when", "undo", "expected"), [
    ("t", False, []),
    ("t", True, [("adjustment-undone", "$.adjustments.vy", "V for Y has no effect: wherever it changes a value, the "
                  "adjustments after it leave the config as they would without it (they undo it, or do the same); "
                  "delete it, or check the ones after it")]),
    ("not t", False, [("adjustment-never", "$.adjustments.vy", "V for Y never changes a value: no config that "
                       "automatic choice gives to Y, or that a request for it leaves with it, makes it change a value; "
                       "delete it, or check its condition")]),
])
def test_adjustment_never_and_undone_read_each_way_a_redirect_at_a_stage_makes(when, undo, expected):
    """Issue 30, F6: X's redirect at stage 'late' sends it to Y, whose adjustments from 'late' on
    then run after X's before it (`_check_adjust._ways`). Y's V sets v where u is 1, which only X's
    U makes (Y's own Z sets u to 0 at 'mid', which that way skips): where the redirect reads t (U's
    condition), V changes a value on that way alone, and a W after it that resets v undoes it;
    where it reads not t, V never changes a value. Each was inconclusive, naming the redirect."""
    text = _REACHED_BY_A_REDIRECT + ('[adjustments.wy]\nname = "W for Y"\nrunners = ["y"]\nstage = "late"\n'
                                     'set = { v = false }\n' if undo else "")
    m = matrix.loads(text, runners={"x": {"name": "X", "priority": 2, "redirects": [{"to": "y", "when": when,
                                                                                     "stage": "late"}]},
                                    "y": {"name": "Y", "priority": 1}})
    found = [(f.code, f.place, f.message) for f in check(m).findings if f.place.startswith("$.adjustments")]
    assert found == expected
    said = set()
    for values in itertools.product([False, True], [0, 1], [False, True]):
        for asked in (None, "x", "y"):
            resolution = m.resolve(dict(zip("tuv", values)), runner=asked)
            said.update(a.id for a in resolution.adjustments)
    assert ("vy" in said) == (when == "t")


_FORCED_PAST_A_REDIRECT = '''
[matrix]
name = "small"
version = "1.0"
stages = ["choice", "s1", "s2"]
[config]
i = { type = "int", nullable = true }
[features.g0]
name = "g0"
when = "i < 0"
support = { a = "yes", b = "no" }
forces = { runner = "a", override = false }
[features.g1]
name = "g1"
when = "i < 0"
support = { a = "no", b = "yes" }
forces = { runner = "b", override = false }
[features.hit]
name = "hit"
when = "i == 1"
support = { a = "no", b = "yes" }
[adjustments.hit]
name = "hit"
when = "i < 0"
set = { i = 1 }
runners = ["a"]
stage = "s1"
'''


@pytest.mark.parametrize(("undo", "expected"), [
    (False, []),
    (True, [("adjustment-undone", "$.adjustments.hit", "hit has no effect: wherever it changes a value, the "
             "adjustments after it leave the config as they would without it (they undo it, or do the same); "
             "delete it, or check the ones after it"),
            ("adjustment-never", "$.adjustments.same", "same never changes a value: no config that automatic "
             "choice gives to A, or that a request for it leaves with it, makes it change a value; delete it, or "
             "check its condition")]),
])
def test_an_adjustment_of_a_forced_runner_is_read_past_its_redirect_at_a_stage(undo, expected):
    """A random run (lane-check-53 merged): where i < 0, g0 and g1 force a and b, which each say
    no to the other: no runner is free, and the error ends on a (forced, the first declared), whose
    adjustments all apply to C and are said: hit sets i to 1. a does not serve, so its redirect at
    stage 's1' (to b, where i < 0) is not read there (effective-config.md, step 4; resolve applies
    hit). check read hit only on the ways a serving a takes (there the redirect holds wherever hit's
    condition does) and said adjustment-never; it now reads the forced way too. A `same` after it
    at 's2' (a's, setting i to 1 where i < 0) does the same, so undoes it on that way (the only one
    where it changes a value), and itself never changes one (hit set i to 1 wherever it reads i < 0)."""
    text = _FORCED_PAST_A_REDIRECT + ('[adjustments.same]\nname = "same"\nwhen = "i < 0"\nset = { i = 1 }\n'
                                      'runners = ["a"]\nstage = "s2"\n' if undo else "")
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 3,
                                          "redirects": [{"to": "b", "when": "i < 0", "stage": "s1"}]},
                                    "b": {"name": "B", "priority": 2}})
    found = [(f.code, f.place, f.message) for f in check(m).findings if f.place.startswith("$.adjustments")]
    assert found == expected
    with pytest.raises(NoRunnerError) as refused:
        m.resolve({"i": -1})
    assert [(a.id, a.runner) for a in refused.value.resolution.adjustments] == \
        [("hit", "a")]
    assert refused.value.resolution.redirect is None


def test_a_staged_requirement_exempting_the_runner_refused_on_f_is_unmet_where_the_runners_it_binds_serve():
    """A random run (lane-check-53 merged): the matrix-wide 'ks' at stage 's1' (i < 0) exempts a.
    Where i < 0, automatic choice takes a, whose hit sets i to 1, which a says no to: an
    AdjustmentError after every stage, its resolution naming no runner; 'ks' was not checked
    there (a is exempt). b, the one runner it binds, serves only where i >= 0 (i < 0 uses g0,
    removed, when asked for), where it fails: requirement-unmet is right (check.md: refuses every
    config that reaches its stage where a runner it binds serves). The brute force's reference read
    the AdjustmentError's runner as None, bound by every matrix-wide requirement, and counted a pass."""
    text, _, runners, _ = (
        '[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n'
        '"i" = { type = "int", nullable = true }\n[requirements]\nks = { name = "KS", reason = "ks fails" }\n'
        '[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "yes" }\n'
        'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n'
        '[features.hit]\nname = "hit"\nwhen = "i == 1"\nsupport = { a = "no", b = "yes" }\n'
        '[requires.ks]\ncondition = "i < 0"\nstage = "s1"\nexempt = ["a"]\n'
        '[adjustments.hit]\nname = "hit"\nwhen = "i < 0"\nset = { "i" = 1 }\noverride = true\nrunners = ["a"]\n',
        None, {"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}}, None)
    m = matrix.loads(text, runners=runners)
    found = [(f.code, f.place, f.message) for f in check(m).findings
             if f.code in ("requirement-unmet", "requirement-idle", "inconclusive")]
    assert found == [("requirement-unmet", "$.requires.ks", "The matrix-wide requirement 'ks' (ks fails), at stage "
                      "'s1', refuses every config that reaches that stage where B serves")]
    with pytest.raises(matrix.AdjustmentError) as refused:
        m.resolve({"i": -1})
    assert refused.value.resolution.runner is None and refused.value.resolution.staged_refusal is None
    assert [(a.id, a.runner) for a in refused.value.resolution.adjustments] == [("hit", "a")]
    refusals = []
    for i in (None, -1, 0, 1, 2):
        for asked in (None, "b"):
            try:
                resolution = m.resolve({"i": i}, runner=asked)
            except matrix.ResolutionError as error:
                resolution = error.resolution
            assert resolution.runner != "b"  # b never serves past 's1'
            if (resolution.staged_refusal or {}).get("runner") == "b":
                refusals.append((i, asked, resolution.staged_refusal["requirements"]))
    assert refusals == [(i, asked, ["*:ks"]) for i in (None, 0, 1, 2) for asked in (None, "b") if asked or i == 1]


# --- --all-versions: refusals and [check] ignore across the releases the file names -----------------


@st.composite
def _with_history(draw):
    """A small matrix (`_small_matrices`) whose cells change by release: some of a gate that forces
    no runner say another status before a release (0.8 or 1.0, beside the 0.5 and 1.0 the file
    may name already); with ``[check] ignore`` entries of the refusals' findings (a refusal by its
    id, or any), of a gate's no-runner and of a runner never chosen."""
    text, names, runners, forced = draw(_small_matrices())
    blocks = [b for b in re.finditer(r"\[features\.g\d+\]\n(?:(?!\[).*\n)*", text) if "forces" not in b.group(0)]
    edits = []
    for block in draw(st.lists(st.sampled_from(blocks), unique_by=lambda b: b.start(), min_size=1, max_size=3)) if blocks else ():
        cells = list(re.finditer(r'\b([abc]) = "(yes|no)"', block.group(0)))
        cell = draw(st.sampled_from(cells))
        before = "no" if cell.group(2) == "yes" else "yes"
        since = draw(st.sampled_from(["0.8", "1.0"]))
        at = block.start() + cell.start()
        edits.append((at, at + len(cell.group(0)),
                      f'{cell.group(1)} = [{{ status = "{before}" }}, {{ status = "{cell.group(2)}", since = "{since}" }}]'))
    for start, end, body in sorted(edits, reverse=True):
        text = text[:start] + body + text[end:]
    refusals = sorted(set(re.findall(r"\[refusals\.(r\d_\d)\]", text)))
    gates = sorted(set(re.findall(r"\[features\.(g\d+)\]", text)))
    entry = st.one_of(
        st.builds(lambda r: f'{{ code = "refusal-unused", gate = "{r}", reason = "r" }}', st.sampled_from(refusals))
        if refusals else st.nothing(),
        st.just('{ code = "refusal-unused", reason = "r" }'),
        st.builds(lambda r: f'{{ code = "refusal-shadowed", gate = "{r}", reason = "r" }}', st.sampled_from(refusals))
        if refusals else st.nothing(),
        st.builds(lambda g: f'{{ code = "no-runner", gate = "{g}", reason = "r" }}', st.sampled_from(gates)),
        st.builds(lambda r: f'{{ code = "never-chosen", gate = "{r}", reason = "r" }}', st.sampled_from(sorted(runners))))
    ignores = draw(st.lists(entry, max_size=3))
    if ignores:
        text += "[check]\nignore = [\n" + "".join(f"  {e},\n" for e in ignores) + "]\n"
    return text, names, runners, forced


def _ignores_match(entry, finding):
    """Whether a ``[check] ignore`` entry (code, gate) is about *finding*, as check.md says: its
    code, and the feature or runner id it is about (a `[refusals]` entry's id for the refusals'
    findings), any when left out."""
    code, gate = entry
    if finding["code"] != code:
        return False
    if gate is None:
        return True
    if code in ("refusal-unused", "refusal-shadowed"):
        return finding["message"].split("'")[1] == gate
    return gate in (finding.get("feature"), finding.get("runner")) or gate in finding.get("features", ())


def _inline(value):
    """*value* as a TOML value, tables inline."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_inline(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return _toml_value(value)


def _all_versions_agree(case, tmp_path):
    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return  # an ill-typed combination of atoms, a refusal of a gate only some releases have
    folder = tmp_path / f"m{zlib.crc32(text.encode())}"
    (folder / "runners").mkdir(parents=True, exist_ok=True)
    (folder / "features.toml").write_text(text)
    for rid, table in runners.items():
        (folder / "runners" / f"{rid}.toml").write_text("".join(f"{k} = {_inline(v)}\n" for k, v in table.items()))
    m = matrix.load(str(folder / "features.toml"))  # its findings at the lines of its files, as the command's
    status, out, err = _cli("check", str(folder / "features.toml"), "--all-versions", "--format", "json")
    assert err == "" and status in (0, 1), err
    data = json.loads(out)
    versions = data["versions"]
    assert versions[-1] == str(m.version) and versions == sorted(versions, key=matrix.schema.Version)
    # Each release as check() reports it (every finding, none ignored).
    at = {v: [f.to_dict() for f in check(m, version=v).findings] for v in versions}
    for v, findings in at.items():
        if any(f["code"] == "inconclusive" for f in findings):
            continue  # a question check could not decide at v: its refusals are not said (held elsewhere)
        combos = [(frozenset(c), f) for f in findings if f["code"] == "no-runner" for c in f["combinations"]]
        for _, finding in combos:
            with pytest.raises(NoRunnerError):  # each combination's witness is refused at v
                m.resolve(finding["witness"], version=v)
        # A refusal is unused at v where it matches no combination that leaves no runner free at v,
        # shadowed where an earlier one acknowledges each it matches.
        said = {code: {f["message"].split("'")[1] for f in findings if f["code"] == code}
                for code in ("refusal-unused", "refusal-shadowed")}
        for index, refusal in enumerate(m.refusals):
            mine = [c for c, _ in combos if refusal.covers(c)]
            first = [c for c in mine if not any(r.covers(c) for r in m.refusals[:index])]
            assert (refusal.id in said["refusal-unused"]) == (not mine), (v, refusal.id)
            assert (refusal.id in said["refusal-shadowed"]) == (bool(mine) and not first), (v, refusal.id)
    # Merged: a finding once, with the releases it is found at; a refusal unused only where it is
    # unused at every release.
    found, seen = {}, {}
    for v, findings in at.items():
        for f in findings:
            key = json.dumps([f[k] for k in ("line", "column", "severity", "code", "message")])
            found.setdefault(key, f)
            seen.setdefault(key, []).append(v)
    merged = [k for k in found if found[k]["code"] != "refusal-unused" or seen[k] == versions]
    # [check] ignore: a finding is ignored by the first entry about it; an entry is used where it
    # ignores a finding at any release (a refusal unused at one release but not all included),
    # else said ignore-unused (one after an entry alike ignores nothing).
    entries = [(e["code"], e.get("gate")) for e in _toml_ignore(text)]
    by = {k: next((i for i, e in enumerate(entries) if _ignores_match(e, found[k])), None) for k in found}
    ignored = [k for k in merged if by[k] is not None]
    unused = [e for i, e in enumerate(entries) if i not in by.values()]
    expected = [(found[k]["code"], found[k]["message"], seen[k]) for k in merged if k not in ignored]
    expected += [("ignore-unused", _ignore_unused(code, gate), versions) for code, gate in unused]
    assert [(f["code"], f["message"], f["versions"]) for f in data["findings"]] == expected
    assert [(f["code"], f["message"]) for f in data.get("ignored", [])] == [
        (found[k]["code"], found[k]["message"]) for k in ignored]
    # The text form says the same findings, and how many it ignored.
    status, out, err = _cli("check", str(folder / "features.toml"), "--all-versions")
    assert err == "" and status in (0, 1), err
    lines = out.splitlines()
    assert [line.split(": ", 1)[1] for line in lines[:-1] if not line.startswith(" ")] == [
        f"{f['severity']}[{f['code']}]: {f['message']}" for f in data["findings"]]
    assert lines[-1].endswith((_messages.ignored_count(len(ignored)) if ignored else "")
                              + _messages.at_every_release(versions)), lines[-1]


def _toml_ignore(text):
    from matrix._files import toml

    return toml().loads(text).get("check", {}).get("ignore", [])


def _ignore_unused(code, gate):
    return _messages.ignore_unused(code, gate)


# An unused entry crashed --all-versions (its ignore-unused finding had no releases): drawn by the
# brute force.
_IGNORES_NOTHING = ('[matrix]\nname = "small"\nversion = "1.0"\n[config]\n"j" = { type = "int", min = 0, max = 3, '
                    'default = 0 }\n[features.g0]\nname = "g0"\nwhen = "j < 0"\nsupport = { a = "yes", b = "yes" }\n'
                    '[check]\nignore = [\n  { code = "refusal-unused", reason = "r" },\n]\n', ["j"],
                    {"a": {"name": "A", "priority": 3}, "b": {"name": "B", "priority": 2}}, False)
# The refusal 'stale' (a and c) is used before 2.0 only, where c blocks r2: its refusal-unused of
# 2.0 is not said, and the entry that ignores it there is used (it was said ignore-unused).
_STALE_IGNORED = ((DATA / "refusal-unused.toml").read_text().replace('version = "1.0"', 'version = "2.0"').replace(
    'support = { r1 = "yes", r2 = "yes" }',
    'support = { r1 = "yes", r2 = [{ status = "no" }, { status = "yes", since = "2.0" }] }').replace(
    'support = { r1 = "no", r2 = "yes" }', 'support = { r1 = "no", r2 = [{ status = "no" }, { status = "yes", since = "1.0" }] }')
    + '[check]\nignore = [\n  { code = "refusal-unused", gate = "stale", reason = "r" },\n]\n', ["a", "b", "c"],
    {"r1": {"name": "Runner One", "priority": 2}, "r2": {"name": "Runner Two", "priority": 1}}, False)


@settings(max_examples=max(10, settings.default.max_examples // 5), deadline=None)
@given(_with_history())
@example(_IGNORES_NOTHING)
@example(_STALE_IGNORED)
def test_all_versions_says_a_refusal_unused_only_at_every_release_and_an_ignore_used_at_any(tmp_path_factory, case):
    _all_versions_agree(case, tmp_path_factory.mktemp("history"))
