import io
import json
import pathlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import NoRunnerError, RemovedFeatureError
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
    assert {f.code for f in report.findings} == {"no-runner"}
    # 86 refused pairs, a V1-only feature with a V2-only one each, read as two products (the
    # "with …" DBO rules apply only when a runner is asked for: automatic choice has no pair of them).
    first, second = report.findings
    assert (len(first.combinations), len(second.combinations)) == (70, 16)
    assert ("prefill_context_parallel", "spec_suffix") in first.combinations
    assert set(first.combinations) == {(a, b) for a in first.features[:10] for b in first.features[10:]}
    assert str(second) == (
        "features.toml:287:1: note[no-runner]: No runner can serve a config that uses any of [dspark speculative "
        "decoding, xpress speculative decoding, mixed sliding/full dflash drafts, DFlash candidate-head drafts] "
        "together with any of [pipeline parallelism with external_launcher, heterogeneous-vocabulary draft models, "
        "dual batch overlap, missing Triton] (16 combinations): Model Runner V2 does not "
        "support the second list; Model Runner V1 does not support the first list (acknowledged: a feature only "
        "Model Runner V1 serves cannot be combined with one only Model Runner V2 serves: vLLM raises the V1 error)"
    )
    assert second.witness == {"parallel_config": {"distributed_executor_backend": "external_launcher",
                                                  "pipeline_parallel_size": 2}, "speculative_config": {"method": "dspark"}}
    # Every pair of a product is refused: each one, resolved.
    space = Space(m.schema, [f.when._node for f in m.features_at()])
    for finding in report.findings:
        for pair in finding.combinations:
            config = space.witness(space.solve(true=[m.feature(gate).when._node for gate in pair]))
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
        "features.toml:252:34: error[removal-overdue]: mamba cache mode 'all' was due for removal in 0.32.0, "
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
    assert inconclusive[0].message == "Could not decide within 2 steps whether a can be active and inactive"
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
import math  # noqa: E402

from hypothesis import settings  # noqa: E402

from matrix._space import Space  # noqa: E402

_VERSIONS = ["0.dev0", "0.1", "1.0.dev0", "1.0a0", "1.0", "1.0+a", "1.0+local", "1.0+local.1", "1.0.post1", "1.5",
             "2.0.dev0", "2.0a0", "2.0a1", "2.0b1", "2.0", "2.0+x", "2.0.post1", "2.0.post1+0", "3.0"]
_BIG = [2 ** 53, 2 ** 53 + 1, 10 ** 16 - 1, 10 ** 16, 10 ** 16 + 1, 2 ** 1025, -2 ** 1025]  # the last two: past every float
_MAX = 1.7976931348623157e308
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
                 | {0.0, 0.75, 1.5, 3.0, -1.0, -2.0, math.inf, -math.inf, 2 ** 60 + 1, 2 ** 60 - 1})),
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


@st.composite
def _small_matrices(draw):
    if draw(st.booleans()):  # half the matrices are built around two related fields
        x, y, _ = draw(st.sampled_from(_RELATIONS))
        names = [x, y] + draw(st.lists(st.sampled_from(sorted(_FIELDS)), max_size=1))
        names = list(dict.fromkeys(names))
    else:
        names = draw(st.lists(st.sampled_from(sorted(_FIELDS)), min_size=1, max_size=3, unique=True))
    plain = [a for n in names for a in _ATOMS[n]]
    relations = [r.replace("{op}", op) for x, y, r in _RELATIONS if x in names and y in names
                 for op in (("<", "==", ">=") if "{op}" in r else ("",))]
    atom = st.sampled_from(plain) | st.sampled_from(relations) if relations else st.sampled_from(plain)
    gate = st.one_of(atom, st.builds(lambda a, b, o: f"({a}) {o} ({b})", atom, atom, st.sampled_from(["and", "or"])),
                     atom.map(lambda a: f"not ({a})"))
    gates = draw(st.lists(gate, min_size=1, max_size=4))
    supports = draw(st.lists(st.tuples(st.sampled_from(["yes", "no"]), st.sampled_from(["yes", "no"])),
                             min_size=len(gates), max_size=len(gates)))
    # Some gates put a runner first in automatic choice (outright, or when it is free), and
    # runner b may be a candidate only sometimes.
    prefers = draw(st.lists(st.none() | st.tuples(st.sampled_from(["a", "b"]), st.booleans()),
                            min_size=len(gates), max_size=len(gates)))
    # Some gates record a removal: a config that uses one is refused before any runner choice.
    removed = draw(st.lists(st.booleans(), min_size=len(gates), max_size=len(gates)))
    text = '[matrix]\nname = "small"\nversion = "1.0"\n[config]\n' + "\n".join(_FIELDS[n][0] for n in names) + "\n"
    for index, (when, (a, b), prefer) in enumerate(zip(gates, supports, prefers)):
        text += f'[features.g{index}]\nname = "g{index}"\nwhen = "{when}"\nsupport = {{ a = "{a}", b = "{b}" }}\n'
        if prefer is not None:
            text += f'prefers = {{ runner = "{prefer[0]}", outright = {str(prefer[1]).lower()} }}\n'
        if removed[index]:
            text += 'deprecated = { since = "0.5", remove_in = "1.0", removed = true }\n'
    runners = {"a": {"name": "A", "priority": 2}, "b": {"name": "B", "priority": 1}}
    if draw(st.booleans()):
        runners["b"]["candidate"] = draw(atom)
    if draw(st.booleans()):  # an order that tries b first where its condition holds
        text += f'[orders.b_first]\nname = "b first"\nwhen = "{draw(atom)}"\nrunners = ["b"]\n'
    return text, names, runners


def _universe(m, names):
    for values in itertools.product(*(_FIELDS[n][1] for n in names)):
        yield dict(zip(names, values))


@settings(deadline=None)
@given(_small_matrices())
def test_check_agrees_with_brute_force_over_every_config(case):
    text, names, runners = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return  # an ill-typed combination of atoms: the loader's business, tested elsewhere
    from matrix._compile import plan

    compiled = plan(m, m.version)
    masks = {compiled.evaluate(config)[0] for config in _universe(m, names)}
    report = check(m)
    gates = list(m.features)
    bit = {g.id: 1 << i for i, g in enumerate(compiled.features)}
    space = Space(m.schema, [g.when._node for g in gates])
    undecided = {f.feature for f in report.findings if f.code == "inconclusive"}

    def shows(goal_true, goal_false=()):
        """A config the exact search finds, re-resolved: its mask, or None."""
        found = space.solve(true=[g.when._node for g in goal_true], false=[g.when._node for g in goal_false])
        return None if found is None else compiled.evaluate(space.witness(found))[0]

    by_code = {}
    for finding in report.findings:
        by_code.setdefault(finding.code, []).append(finding)
        if finding.witness is not None:  # every witness is a config resolve accepts
            compiled.evaluate(finding.witness)
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
    # What automatic choice answers for each mask (the answer depends on the mask alone).
    outcome = {}
    for config in _universe(m, names):
        mask = compiled.evaluate(config)[0]
        if mask not in outcome:
            try:
                outcome[mask] = m.resolve(config).runner
            except matrix.ResolutionError as error:
                outcome[mask] = type(error)
    # Every config no runner serves uses one of the reported combinations (a runner that is no
    # candidate counts as its pseudo-gate), and each is real.
    combos = [frozenset(c) for f in by_code.get("no-runner", []) for c in f.combinations]
    if not undecided:
        for mask, answer in outcome.items():
            if answer is NoRunnerError:
                active = {g.id for g in gates if mask & bit[g.id]} | {
                    f"{r.id}:not-candidate" for r in m.runners if not compiled.is_candidate(r.id, mask)}
                assert any(combo <= active for combo in combos), f"no-runner misses {sorted(active)}"
    for finding in by_code.get("no-runner", []):
        with pytest.raises(NoRunnerError):
            m.resolve(finding.witness)
    # Each runner is reported never chosen exactly when no config resolves to it automatically
    # (preferences and candidacy included).
    chosen = set(outcome.values())
    unsure = {f.runner for f in by_code.get("inconclusive", []) if f.runner}
    # A runner that serves no config, or is never a candidate, is said so instead.
    never_chosen = {f.runner for code in ("never-chosen", "never-candidate", "runner-unusable")
                    for f in by_code.get(code, [])}
    for runner in m.runners:
        if runner.id not in unsure and not undecided:
            assert (runner.id in never_chosen) == (runner.id not in chosen), (
                f"{runner.id}: reported never chosen: {runner.id in never_chosen}; chosen for some config: "
                f"{runner.id in chosen}")


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
    space = Space(m.schema, [gate.when._node])
    found = space.witness(space.solve(true=[gate.when._node]))
    assert found == witness
    assert m.resolve(found).runner == "a" and m.resolve(found).active == (gate,)
    # ... and the witness of the other side, where the gate does not hold, resolves too.
    assert m.resolve(space.witness(space.solve(false=[gate.when._node]))).active == ()


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
        "inconclusive", "Could not decide exactly (not every value of 'x' could be represented) whether g can be "
                        "active and inactive")


# --- CI formats ----------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def sarif_schema(tmp_path_factory):
    """The official SARIF 2.1.0 schema, as Microsoft's @microsoft/jest-sarif package ships it
    (from the npm registry, with the machine's npm)."""
    import json as _json
    import shutil
    import subprocess
    import tarfile

    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: the SARIF schema comes from the npm package @microsoft/jest-sarif")
    folder = tmp_path_factory.mktemp("sarif")
    done = subprocess.run([npm, "pack", "@microsoft/jest-sarif@1.0.0-beta.0", "--pack-destination", str(folder)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"npm pack @microsoft/jest-sarif failed: {done.stderr.strip().splitlines()[-1:]}")
    archive = next(folder.glob("*.tgz"))
    with tarfile.open(archive) as tar:
        member = tar.extractfile("package/lib/schemas/sarif-2.1.0-rtm.5.json")
        return _json.load(member)


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
    assert {f.refusal for f in report.findings} == {"v1_only_with_v2_only"}
    assert report.summary() == "passed: 0 errors, 0 warnings, 2 notes (strict: every finding fails but acknowledged refusals)"
    assert all(f.message.endswith("(acknowledged: a feature only Model Runner V1 serves cannot be combined with one "
                                  "only Model Runner V2 serves: vLLM raises the V1 error)") for f in report.findings)
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


def test_a_malformed_refusal_id_is_named_as_such():
    text = (DATA / "refusal-unused.toml").read_text().replace("[refusals.stale]", '[refusals."bad id!"]')
    with pytest.raises(matrix.LoadError) as info:
        matrix.loads(text, runners=DATA / "runners")
    assert [p.message for p in info.value.problems] == ["Refusal id 'bad id!' must be letters, digits, '_', '.' or '-'"]
