import pathlib
from types import SimpleNamespace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import matrix
from matrix import NoRunnerError, Predicate, PredicateError, ResolutionError
from matrix.check import check
from matrix.strategies import configs, matrices, predicate_sources, predicates

DEFAULT = matrix.default()


def _active(m, config, **kwargs):
    try:
        return {f.id for f in m.resolve(config, **kwargs).active}
    except ResolutionError as error:
        return {f.id for f in error.resolution.active}


def _active_either_way(m, config):
    """The gates active in automatic choice or with some runner asked for (`Feature.applies`)."""
    return set().union(_active(m, config), *(_active(m, config, runner=r.id) for r in m.runners))


@given(configs(DEFAULT))
def test_configs_are_valid_under_the_schema(config):
    _active(DEFAULT, config)  # a ConfigError would fail the test


@given(configs(DEFAULT, as_objects=True))
def test_configs_as_objects(config):
    assert isinstance(config, SimpleNamespace)
    _active(DEFAULT, config)


@given(configs(DEFAULT, version="0.30.0", active=["dflash2", "mamba_cache_all"], inactive=["diffusion"]))
def test_configs_steer_toward_active_and_away_from_inactive_gates(config):
    active = _active(DEFAULT, config, version="0.30.0")
    assert {"dflash2", "mamba_cache_all"} <= active
    assert "diffusion" not in active


@given(configs(DEFAULT, version="0.31.0", active=["dflash_candidate_head"]))
def test_configs_at_a_version(config):
    assert "dflash_candidate_head" in _active(DEFAULT, config, version="0.31.0")


def test_every_gate_of_the_default_matrix_is_active_in_a_200_example_run():
    # In the session, after whatever earlier tests imported (`matrix schema --from` in test_cli
    # imports a module of its own): the same seeds reach the same gates whatever the process
    # imported before (see test_configs_draw_the_same_examples_whatever_the_process_imported).
    seen = set()

    @settings(max_examples=200, derandomize=True, database=None)
    @given(configs(DEFAULT))
    def run(config):
        seen.update(_active_either_way(DEFAULT, config))

    run()
    # The records of removed settings are never drawn: their fields and choices are gone at 0.33.0.
    records = {f.id for f in DEFAULT.features_at() if f.deprecated and f.deprecated.is_removed(DEFAULT.version)}
    assert records == {"enable_sp_removed", "mamba_cache_all", "spec_medusa", "spec_mlp_speculator"}
    assert {f.id for f in DEFAULT.features_at()} - seen == records


_DRAWN = """
import sys

if len(sys.argv) > 1:  # a module of the user's with literals of its own, and more of matrix's
    sys.path.insert(0, sys.argv[1])
    import literals  # noqa: F401

    import matrix.binding  # noqa: F401

from hypothesis import given, settings

import matrix
from matrix.strategies import configs

D = matrix.default()


@settings(max_examples=200, derandomize=True, database=None)
@given(configs(D))
def run(config):
    print(repr(config))
    try:
        D.resolve(config)  # imports modules lazily, mid-run
    except matrix.ResolutionError:
        pass


run()
"""


def test_configs_draw_the_same_examples_whatever_the_process_imported(tmp_path):
    # Hypothesis draws a wide integer, float or string, with some probability, from the literals
    # of the local modules imported so far (matrix's own, in a checkout, and the user's):
    # configs() draws nothing that pool could hold (see `_integers` in matrix/strategies.py).
    import subprocess
    import sys

    from tests._env import plain_env

    (tmp_path / "literals.py").write_text("SIZES = [128, 256, 1000, 4096, 65536, 123456, 1000000007, -500]\n"
                                          "RATIOS = [0.25, 1.5, 1e6, -3.75]\n"
                                          "NAMES = ['FLASHINFER', 'dspark', 'LlamaForCausalLM']\n")
    (tmp_path / "drawn.py").write_text(_DRAWN)
    drawn = []
    for extra in ([], [str(tmp_path)]):
        done = subprocess.run([sys.executable, str(tmp_path / "drawn.py"), *extra], cwd=pathlib.Path(__file__).parent.parent,
                              capture_output=True, text=True, env=plain_env())
        assert done.returncode == 0, done.stderr
        drawn.append(done.stdout.splitlines())
    assert len(drawn[0]) == 200
    assert drawn[0] == drawn[1]


@given(configs(DEFAULT, active=["dbo_lora"]))
def test_configs_make_a_gate_active_that_applies_only_when_a_runner_is_asked_for(config):
    # The condition holds; the gate is in force only when a runner is asked for.
    assert "dbo_lora" in _active(DEFAULT, config, runner="v2")
    assert "dbo_lora" not in _active(DEFAULT, config) and "dbo" in _active(DEFAULT, config)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"active": ["nope"]}, "active: 'nope' is not a gate of this matrix"),
        ({"inactive": ["diffusion_model"]}, "inactive: 'diffusion_model' is not a gate of this matrix, did you mean 'diffusion'"),
        ({"inactive": "diffusion"}, "inactive must be a list of gate ids, not 'diffusion'"),
        ({"active": ["dflash2"], "version": "0.31.0"}, "active: 'dflash2' is not in force at 0.31.0"),
        ({"version": "soon"}, "Invalid version 'soon': expected a PEP 440 version such as '0.31.0'"),
        ({"active": ["spec_ngram", "spec_suffix"]}, "No config makes 'spec_ngram', 'spec_suffix' active and nothing inactive together"),
        ({"active": ["diffusion"], "inactive": ["diffusion"]}, "No config makes 'diffusion' active and 'diffusion' inactive together"),
        ({"as_objects": 1}, "as_objects must be a bool, not 1"),
    ],
)
def test_configs_validate_their_arguments_eagerly(kwargs, message):
    with pytest.raises(InvalidArgument) as excinfo:
        configs(DEFAULT, **kwargs)
    assert str(excinfo.value) == message


def test_other_strategies_validate_their_arguments():
    with pytest.raises(InvalidArgument, match="configs\\(\\) takes a Matrix, not dict"):
        configs({})
    with pytest.raises(InvalidArgument, match="max_leaves must be a positive int, not 0"):
        predicate_sources(DEFAULT.schema, max_leaves=0)
    with pytest.raises(InvalidArgument, match="schema must be a Schema, not Matrix"):
        predicates(DEFAULT)
    with pytest.raises(InvalidArgument, match="max_features must be a positive int, not True"):
        matrices(max_features=True)


@given(predicate_sources(DEFAULT.schema))
def test_noisy_valid_sources_parse_and_type_check(text):
    predicate = Predicate(text, schema=DEFAULT.schema)
    assert Predicate(str(predicate), schema=DEFAULT.schema) == predicate


@given(predicate_sources(DEFAULT.schema, valid=False))
def test_edited_sources_give_a_predicate_or_a_predicate_error(text):
    try:
        predicate = Predicate(text, schema=DEFAULT.schema)
    except PredicateError as error:
        assert str(error).startswith(error.message + "\n    ")
    else:
        assert Predicate(str(predicate)) == predicate


@given(predicates(DEFAULT.schema))
def test_predicates_are_typed_values(predicate):
    assert Predicate(str(predicate), schema=DEFAULT.schema) == predicate
    # A path is a field, or a field read as given (issue 30, F8: given.PATH).
    assert {p.removeprefix("given.") for p in predicate.paths} <= set(DEFAULT.schema.fields)


@settings(max_examples=30)
@given(st.data())
def test_matrices_load_resolve_and_check(data):
    m = data.draw(matrices())
    assert 1 <= len(m.runners) <= 3
    config = data.draw(configs(m))
    _active(m, config)
    check(m)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["kitchen sink", "synthetic 300 gates"])
def test_configs_pass_the_default_health_checks_from_a_cold_start(which, tmp_path, data):
    from tests.cold import run_cold

    bench = pathlib.Path(__file__).parent.parent / "benchmarks"
    load = (f"m = matrix.load({str(data / 'valid' / 'kitchen_sink.toml')!r})" if which == "kitchen sink" else
            f"sys.path.insert(0, {str(bench)!r})\nimport synthetic\n"
            "text, runners, _ = synthetic.generate(300)\nm = matrix.loads(text, runners=runners)")
    (tmp_path / "test_cold.py").write_text(
        f"import sys\nfrom hypothesis import given\nimport matrix\nfrom matrix.strategies import configs\n{load}\n\n"
        "@given(configs(m))\ndef test_resolve(config):\n    try:\n        m.resolve(config)\n"
        "    except matrix.ResolutionError:\n        pass\n")
    results = run_cold(tmp_path, "test_cold.py", 4, tmp_path)
    assert [out for code, out in results if code != 0] == []
    # Each run's closing line, less its time: no warning, nothing skipped.
    assert {out.splitlines()[-1].split(" in ")[0] for _, out in results} == {"1 passed"}


# A runner file's redirects are gates of the plan (`<runner>:redirect:<n>`): configs() steers
# toward a redirect applying and not, as toward any gate (issue 27, item 7).
REDIRECTING = matrix.loads(
    '[matrix]\nname = "r"\nversion = "1.0"\n[config]\n'
    'kv = { type = "str", choices = ["auto", "fp8_e5m2", "fp8_e4m3"], default = "auto" }\n'
    'page = { type = "int", default = 1, min = 1 }\n',
    runners={"fa3": {"name": "FA3", "priority": 2, "redirects": [
                 {"to": "triton", "when": "kv == 'fp8_e5m2' and page > 16"}, {"to": "triton", "when": "page == 7"}]},
             "triton": {"name": "Triton", "priority": 1}})


@given(configs(REDIRECTING, active=["fa3:redirect:1"]))
def test_configs_steer_toward_a_redirect_applying(config):
    resolution = REDIRECTING.resolve(config, runner="fa3")
    assert resolution.runner == "triton" and resolution.redirect == REDIRECTING.runner("fa3").redirects[0]


@given(configs(REDIRECTING, inactive=["fa3:redirect:1", "fa3:redirect:2"]))
def test_configs_steer_away_from_a_redirect_applying(config):
    resolution = REDIRECTING.resolve(config, runner="fa3")
    assert (resolution.runner, resolution.redirect) == ("fa3", None)


KITCHEN = matrix.load(pathlib.Path(__file__).parent / "data" / "valid" / "kitchen_sink.toml")
ATTENTION = matrix.load(pathlib.Path(__file__).parent.parent / "examples" / "vllm-attention" / "features.toml")


@pytest.mark.parametrize("m", [DEFAULT, KITCHEN, ATTENTION, REDIRECTING], ids=["default", "kitchen sink", "attention",
                                                                                "redirecting"])
def test_each_adjustment_and_redirect_applies_and_does_not_in_a_100_example_run(m):
    # An adjustment of a runner applies once that runner serves: asked for, or chosen. A
    # redirect applies to a request for its runner (issue 27, item 7).
    seen = set()

    @settings(max_examples=100, derandomize=True, database=None)
    @given(configs(m))
    def run(config):
        for asked in [None, *(r.id for r in m.runners)]:
            try:
                resolution = m.resolve(config, runner=asked)
            except ResolutionError as error:
                resolution = error.resolution
            applied = {a.id for a in resolution.adjustments}
            seen.update((a.id, a.id in applied) for a in m.adjustments_at())
            if asked is not None:
                seen.update((f"{asked}:redirect:{r.index + 1}", resolution.redirect == r)
                            for r in m.runner(asked).redirects)

    run()
    ids = [a.id for a in m.adjustments_at()] + [f"{r.id}:redirect:{x.index + 1}" for r in m.runners for x in r.redirects]
    assert {(i, applies) for i in ids for applies in (True, False)} - seen == set()


# An order without fallback refuses where its first runner is blocked (a validated default):
# configs() steers toward that refusal and away from it, as toward an adjustment applying.
VALIDATED = matrix.loads(
    '[matrix]\nname = "v"\nversion = "1.0"\n[config]\n'
    'm = { type = "int", default = 0 }\nn = { type = "int", default = 0 }\npage = { type = "int", default = 1, min = 1 }\n'
    # Many gates beside: steering toward gates one by one seldom picks the order and the
    # blocker together.
    + "".join(f'[features.g{i}]\nname = "g{i}"\nwhen = "m == {i}"\nsupport = {{ fa3 = "yes", triton = "yes" }}\n'
              for i in range(100))
    + '[features.odd_page]\nname = "pages of 7 mod 1000"\nwhen = "page % 1000 == 7"\nsupport = { fa3 = "no", triton = "yes" }\n'
      '[orders.hopper]\nname = "Hopper default"\nwhen = "n > 5000 and n < 5003"\nrunners = ["fa3"]\nfallback = false\n',
    runners={"fa3": {"name": "FA3", "priority": 1}, "triton": {"name": "Triton", "priority": 2}})


def test_configs_reach_a_refused_default_and_a_served_one_in_a_100_example_run():
    seen = set()

    @settings(max_examples=100, derandomize=True, database=None)
    @given(configs(VALIDATED))
    def run(config):
        try:
            seen.add(VALIDATED.resolve(config).runner)
        except NoRunnerError:
            seen.add(NoRunnerError)

    run()
    assert seen == {"fa3", "triton", NoRunnerError}


# --- rules after the choice that no gate says (issue 30, F6 with F1) ------------------------------

from .test_check import _small_matrices, _with_roles  # noqa: E402

SGLANG = matrix.load(pathlib.Path(__file__).parent.parent / "examples" / "sglang-attention" / "features.toml")


def _reached(m, config, asked):
    """What the rules after the choice that no gate says did for *config*, *asked* for (None:
    automatic choice): each redirect at a stage that applied ``(runner, n, True)``, or that the
    runner asked for reached and passed ``(runner, n, False)`` (no redirect; it served, or was
    refused from the redirect's stage on); each requirement of roles staged after the choice that refused ``(runner, kind,
    True)``, or that was passed where its runner fills one of its roles ``(runner, kind, False)``
    (no staged refusal at its stage or before it; the roles as the resolution gives them)."""
    raised = None
    try:
        resolution = m.resolve(config, runner=asked)
    except ResolutionError as error:
        resolution, raised = error.resolution, error
    out = set()
    refusal = resolution.staged_refusal
    # The runner asked for was validated itself: not sent elsewhere at the choice, nor refused for
    # a removed feature before any step ran.
    itself = not {w.kind for w in resolution.warnings} & {"redirected", "override"} and not isinstance(
        raised, matrix.RemovedFeatureError)
    for runner in m.runners:
        for redirect in runner.redirects:
            if redirect.stage is None:
                continue
            if resolution.redirect == redirect:
                out.add((runner.id, redirect.index + 1, True))
            elif asked == runner.id and resolution.redirect is None and itself and (
                    refusal is None or m.stages.index(refusal["stage"]) >= m.stages.index(redirect.stage)):
                # passed: it served, or was refused from the redirect's stage on (a staged
                # requirement there or later, or its validation on F: the redirect is read before
                # its stage's steps, file-format.md)
                out.add((runner.id, redirect.index + 1, False))
    roles = dict(resolution.roles)
    serving = resolution.runner or asked  # a role refused after the stages names no runner
    if not roles and m.roles and serving is not None:  # ... nor the roles: read as given
        from matrix import _access
        from matrix._roles import At

        at = At(m, serving, lambda path: _access.read(config, path, m.schema))
        roles = {role.id: at.read("role." + role.id) for role in m.roles}
    for clause in m.staged:
        if not clause.roles:
            continue
        if refusal and f"{clause.runner}:{clause.kind}" in refusal["requirements"]:
            out.add((clause.runner, clause.kind, True))
        elif (refusal is None or m.stages.index(refusal["stage"]) > m.stages.index(clause.stage)) and any(
                roles.get(role) == clause.runner for role in clause.roles):
            out.add((clause.runner, clause.kind, False))
    return out


def _solved(m, node):
    """A config (nested dicts) that makes *node* hold, found by `matrix._space` as `configs` finds one."""
    from matrix._space import Space
    from matrix.strategies import _plain

    space = Space(m.schema, [f.when.node for f in m.gates_at()] + [node])
    found = space.solve(true=[node])
    config = {}
    for path, value in sorted(found.items(), key=lambda item: item[0].count(".")):
        *parents, name = path.split(".")
        holder = config
        for part in parents:
            holder = holder.get(part)
            if holder is None:
                break
        if holder is None or (m.schema.fields[path].type == "section" and value is not None):
            if holder is not None and name not in holder:
                holder[name] = {}
            continue
        holder[name] = _plain(value)
    return config


def test_the_nodes_configs_steers_toward_reach_sglangs_redirects_at_a_stage_and_fa4s_prefill_requirements():
    # SGLang's A28 (fa3 → triton at fa4_pages), A31 (intel_amx → torch_native) and A32 (intel_xpu →
    # triton, both at xpu_pages), and fa4's E38 and E39 at kv4 in the prefill role: each node
    # `configs` steers toward (`matrix._steer_staged`), solved, does what it says.
    from matrix._steer_staged import staged_targets

    nodes = staged_targets(SGLANG, SGLANG.version)
    expected = [("intel_xpu", 1, True), ("intel_xpu", 1, False), ("intel_amx", 1, True), ("intel_amx", 1, False),
                ("fa3", 1, True), ("fa3", 1, False),
                ("fa4", "E38", True), ("fa4", "E38", False), ("fa4", "E39", True), ("fa4", "E39", False)]
    assert len(nodes) == len(expected)
    for node, outcome in zip(nodes, expected):
        config = _solved(SGLANG, node)
        asks = [None, outcome[0]]
        assert outcome in set().union(*(_reached(SGLANG, config, asked) for asked in asks)), (outcome, config)


def _outcomes(m, nodes):
    """What each node of `matrix._steer_staged.staged_targets` says: in its order, each redirect at a
    stage in force (stage by stage, declaration order within one) applying and passed, then each
    requirement of roles staged after the choice refusing and passed."""
    from matrix._stages import redirects

    out = []
    for runner, found in redirects(m.stages, m.runners, m.version).items():
        for redirect in found:
            out += [(runner, redirect.index + 1, True), (runner, redirect.index + 1, False)]
    seen = set()
    for clause in m.staged:
        if clause.roles and (clause.runner, clause.kind) not in seen and m.stages.index(clause.stage) > m.stages.index("choice"):
            seen.add((clause.runner, clause.kind))
            out += [(clause.runner, clause.kind, True), (clause.runner, clause.kind, False)]
    return out


# A fifth of the profile's examples (10 in development, 100 in CI: about 4 s), each a matrix compiled
# with roles; of 300 matrices drawn, 38 had such rules (98 nodes), and 14 nodes could be met (the
# others' runner is blocked or forced away wherever the rule would act, or the rule never acts).
# A runner asked for passes its redirect at a stage and is then refused on F by a requirement of
# roles with no stage (found by a random run after the lanes were merged: the reference counted
# only a runner that served as having passed).
_PASSED_THEN_REFUSED = (
    '[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n"i" = { type = "int", '
    'nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = '
    '"k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "yes" }\ndeprecated = '
    '{ since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\n'
    'runners = ["a"]\n# --- adjustments\n', ['i'],
    {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}],
           'redirects': [{'to': 'b', 'when': 'i < 0', 'stage': 's1'}]},
     'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}],
           'redirects': [{'to': 'a', 'when': 'i < 0'}]}}, False)


# CI's draw (stop 54): a requirement of roles staged after the choice, a redirect at that stage.
_CI_STAGED_ROLES = ('[matrix]\nname = "small"\nversion = "1.0"\nstages = ["choice", "s1"]\n[config]\n"i" = { type = "int", nullable = true }\n[requirements]\nk1 = { name = "K1", reason = "k1 fails" }\nk2 = { name = "K2", reason = "k2 fails" }\n[features.g0]\nname = "g0"\nwhen = "i < 0"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[features.g1]\nname = "g1"\nwhen = "i < 0"\nsupport = { a = "yes", b = "yes" }\ndeprecated = { since = "0.5", remove_in = "1.0", removed = true }\napplies = "asked"\n[orders.last]\nname = "last"\nrunners = ["a"]\n# --- adjustments\n[adjustments.a0]\nname = "a0"\nset = { "i" = -14 }\noverride = true\n', ['i'], {'a': {'name': 'A', 'priority': 3, 'aliases': [{'id': 'old_a', 'since': '0.5'}], 'redirects': [{'to': 'b', 'when': 'i < 0', 'stage': 's1'}]}, 'b': {'name': 'B', 'priority': 2, 'aliases': [{'id': 'old_b', 'since': '0.5'}], 'redirects': [{'to': 'a', 'when': 'i < 0'}]}}, False)

@settings(max_examples=max(settings.default.max_examples // 5, 1), deadline=None)
@given(_small_matrices(adjustments=True, redirects=True, staged=True))
@example(_PASSED_THEN_REFUSED)
@example(_CI_STAGED_ROLES)
def test_a_config_that_meets_a_node_configs_steers_toward_reaches_what_it_says(case):
    """On random matrices with redirects at a stage, and (with `_with_roles`) a requirement of roles
    staged after the choice: a config that meets a node `configs` steers toward, resolved asking
    for the rule's runner (or automatically), does what the node says (`_reached`)."""
    from matrix._space import Inconclusive, Space
    from matrix._steer_staged import staged_targets

    text, names, runners, _ = case
    try:
        m = matrix.loads(text, runners=runners)
    except matrix.LoadError:
        return
    if m.stages:
        m = _with_roles(text, runners, names)
    nodes = staged_targets(m, m.version)
    expected = _outcomes(m, nodes)
    assert len(nodes) == len(expected)
    for node, outcome in zip(nodes, expected):
        try:
            if Space(m.schema, [node]).solve(true=[node]) is None:
                continue
        except Inconclusive:  # no config found and none proved: nothing reaches it to check (a random draw had one)
            continue
        config = _solved(m, node)
        if isinstance(outcome[1], int) and _changed_before_the_choice(m, config, node):
            continue  # a redirect's nodes do not weigh the adjustments before the choice (the module's docstring)
        assert outcome in _reached(m, config, None) | _reached(m, config, outcome[0]), (outcome, config)


def _changed_before_the_choice(m, config, node):
    """Whether an adjustment before the choice (of no runner, at no stage but the choice) that
    holds on *config* sets a path *node* reads: what a redirect's nodes leave unweighed (CI's draw:
    an adjustment that always sets i made "passed" a config it never reaches)."""
    from matrix._nodes import Path, walk

    read = {p.name for p in walk(node) if isinstance(p, Path)}
    for a in m.adjustments:
        if a.runners or a.stage not in (None, "choice") or not read & set(a.set):
            continue
        try:
            if a.when is None or a.when.evaluate(config, schema=m.schema):
                return True
        except matrix.ConfigError:
            return True  # it reads what the config leaves out: it may apply
    return False


@settings(max_examples=20)
@given(st.data())
def test_values_of_a_float_field_whose_only_value_no_float_equals_draw_that_value(data):
    """A float field with min = max = 2**53 + 1 (an int, compared exactly) holds that int only:
    the strategy returned float(2**53 + 1), which rounds to 2**53, outside the field's range."""
    from matrix.strategies import values

    m = matrix.loads('[matrix]\nname = "x"\nversion = "1.0"\n[config]\n'
                     'f = { type = "float", min = 9007199254740993, max = 9007199254740993, default = 9007199254740993 }\n'
                     '[features.g]\nname = "g"\nwhen = "f > 1.0"\nsupport = { a = "yes" }\n',
                     runners={"a": {"name": "A", "priority": 1}})
    value = data.draw(values(m.schema.fields["f"]))
    assert (type(value), value) == (int, 2 ** 53 + 1)
