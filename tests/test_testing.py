import dataclasses
import types
import pytest

import matrix
from matrix import UsageError
from matrix.testing import Choice, assert_matches

from . import vllm_reference

DEFAULT = matrix.default()


@pytest.mark.parametrize("version", ["0.30.0", "0.31.0", "0.32.0", "0.33.0"])
def test_the_default_matrix_matches_the_transcription_of_vllms_own_checks(version):
    assert_matches(DEFAULT, lambda c: vllm_reference.v2_blockers(c, version), runner="v2", version=version)
    # unsupported["v1"]: vLLM's V1 list, then the features V1 does not serve that make vLLM use V2.
    assert_matches(DEFAULT, lambda c: vllm_reference.v1_blockers(c, version) + vllm_reference.forcing_v2(c),
                   runner="v1", version=version)


SMALL = matrix.loads("""
[matrix]
name = "jobs"
version = "1.0"
[config]
"job.gpus" = { type = "int", min = 0, default = 0 }
"job.os" = { type = "str", choices = ["linux", "windows"], default = "linux" }
"host.cuda" = { type = "bool", default = true, fact = true }
[features.gpu]
name = "GPU jobs"
when = "job.gpus > 0 and host.cuda"
support = { cpu = "no", gpu = "yes" }
[features.windows]
name = "Windows"
when = "job.os == 'windows'"
support = { cpu = "yes", gpu = "no" }
""", runners={"gpu": {"name": "GPU", "priority": 2}, "cpu": {"name": "CPU", "priority": 1}})


@dataclasses.dataclass
class Job:
    gpus: int = 0
    os: str = "linux"


@dataclasses.dataclass
class Host:
    job: Job = dataclasses.field(default_factory=Job)


def build(config: dict) -> Host:
    return Host(Job(**config.get("job", {})))


def legacy_gpu(host: Host) -> list:
    out = []
    if host.job.os == "windows":
        out.append("Windows")
    return out


def test_an_equivalent_legacy_function_passes_with_and_without_build():
    assert_matches(SMALL, legacy_gpu, runner="gpu", build=build)
    assert_matches(SMALL, lambda c: ["Windows"] if c.get("job", {}).get("os") == "windows" else [], runner="gpu")
    def with_facts(host, facts):
        return ["GPU jobs"] if host.job.gpus > 0 and facts["host.cuda"] else []

    assert_matches(SMALL, with_facts, runner="cpu", build=build)


def test_a_legacy_function_that_forgot_a_gate_fails_naming_it_with_the_shrunk_config():
    with pytest.raises(AssertionError) as info:
        assert_matches(SMALL, lambda h: [], runner="gpu", build=build)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix disagree on what gpu (GPU) cannot do at version 1.0",
        '  config: {"job": {"os": "windows"}}',
        "  legacy: []",
        "  matrix: ['Windows']",
        "  only the legacy function names: []",
        "  only the matrix names: ['Windows']",
    ])


def test_a_legacy_function_that_ignores_a_fact_fails():
    with pytest.raises(AssertionError) as info:
        assert_matches(SMALL, lambda h, facts: ["GPU jobs"] if h.job.gpus > 0 else [], runner="cpu", build=build)
    assert str(info.value).splitlines()[1:] == [
        '  config: {"host": {"cuda": false}, "job": {"gpus": 1}}',
        "  legacy: ['GPU jobs']",
        "  matrix: []",
        "  only the legacy function names: ['GPU jobs']",
        "  only the matrix names: []",
    ]


def test_bad_arguments():
    with pytest.raises(UsageError) as info:
        assert_matches(SMALL, legacy_gpu, runner="tpu")
    assert info.exconly() == "matrix.errors.UsageError: Unknown runner 'tpu' (expected one of 'cpu', 'gpu'), did you mean 'gpu'"
    with pytest.raises(TypeError) as info:
        assert_matches(SMALL, lambda c: "Windows", runner="gpu", max_examples=5)
    assert str(info.value) == ("legacy() must return the names of what a runner cannot do, a mapping from runner id "
                               "to such names, or a matrix.testing.Choice, not 'Windows'")
    with pytest.raises(UsageError) as info:
        assert_matches(SMALL, lambda c: [], max_examples=5)
    assert str(info.value) == "legacy() returned a list of names: pass runner= to say which runner's they are"


# --- issue 24: a dataframe library with three engines ----------------------------------------

FRAMES = matrix.loads("""
[matrix]
name = "frames"
version = "3.0"
[config]
"query.sql" = { type = "bool", default = false }
"query.streaming" = { type = "bool", default = false }
"query.index" = { type = "bool", default = false }
"query.v1_api" = { type = "bool", default = false }
"query.threads" = { type = "int", min = 1, default = 4 }
"query.chunk_size" = { type = "int", min = 1, default = 100000 }
"host.gpu" = { type = "bool", default = false, fact = true }
[features.sql]
name = "SQL queries"
when = "query.sql"
support = { polars = "yes", duckdb = "yes", pandas = "no" }
prefers = { runner = "duckdb" }
[features.streaming]
name = "streaming"
when = "query.streaming"
support = { polars = "yes", duckdb = "yes", pandas = "no" }
prefers = { runner = "polars" }
[features.index]
name = "row index"
when = "query.index"
support = { polars = "no", duckdb = "no", pandas = "yes" }
[features.gpu]
name = "GPU"
when = "host.gpu"
support = { polars = "yes", duckdb = "no", pandas = "no" }
[features.v1_api]
name = "the v1 API"
when = "query.v1_api"
support = { default = "yes" }
deprecated = { since = "2.0", remove_in = "3.0", removed = true }
""", runners={"polars": {"name": "Polars", "priority": 3}, "duckdb": {"name": "DuckDB", "priority": 2},
              "pandas": {"name": "pandas", "priority": 1}})
ENGINES = ["polars", "duckdb", "pandas"]


def blocked(q) -> dict:
    """The legacy gate function: what each engine cannot do (reads attributes)."""
    out = {e: [] for e in ENGINES}
    if q.sql:
        out["pandas"].append("SQL queries")
    if q.streaming:
        out["pandas"].append("streaming")
    if q.index:
        out["polars"].append("row index")
        out["duckdb"].append("row index")
    return out


def choose_engine(q, runner=None, sql_first=True):
    """The legacy choice: raises ValueError on a removed setting or an engine that cannot serve."""
    if q.v1_api:
        raise ValueError("The v1 API was removed in 3.0")
    no = blocked(q)
    if runner is not None:
        if no[runner]:
            raise ValueError(f"{runner} cannot run this query")
        return runner
    preferences = [("sql", "duckdb"), ("streaming", "polars")]
    for setting, engine in preferences if sql_first else preferences[::-1]:
        if getattr(q, setting) and not no[engine]:
            return engine
    return next((e for e in ENGINES if not no[e]), None)


def frames_legacy(config, runner=None, order=True):
    q = config.query
    return Choice(choose_engine(q, runner, order), blocked(q))


def test_the_choice_is_compared_automatic_and_asked_for_and_refusals_are_answers():
    reached = assert_matches(FRAMES, frames_legacy, as_objects=True, refuses=ValueError)
    # 14 configs solved for (each gate, each pair with one that weighs in the choice), then 200 drawn.
    assert str(reached) == "214 examples ran 23 of 23 lines of the legacy code (100%)"
    assert (reached.examples, reached.measured, reached.missed, reached.fraction) == (214, True, (), 1.0)


def test_swapped_preferences_are_found_though_every_unsupported_list_agrees():
    # Before: only the unsupported lists were compared, and this passed.
    with pytest.raises(AssertionError) as info:
        assert_matches(FRAMES, lambda c, runner=None: frames_legacy(c, runner, order=False),
                       as_objects=True, refuses=ValueError)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix choose differently at version 3.0",
        '  config: {"query": {"sql": true, "streaming": true}}',
        "  asked for: nothing (automatic choice)",
        "  legacy: 'polars' (Polars)",
        "  matrix: 'duckdb' (DuckDB)",
    ])


def test_a_request_the_matrix_refuses_but_the_legacy_function_serves_is_reported():
    def lenient(config, runner=None):
        if runner is not None and config.query.v1_api:  # forgot the removal when asked
            return Choice(runner, blocked(config.query))
        return frames_legacy(config, runner)

    with pytest.raises(AssertionError) as info:
        assert_matches(FRAMES, lenient, as_objects=True, refuses=ValueError)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix choose differently at version 3.0",
        '  config: {"query": {"v1_api": true}}',
        "  asked for: 'polars' (Polars)",
        "  legacy: 'polars' (Polars)",
        "  matrix: refused: RemovedFeatureError: the v1 API was removed in 3.0",
    ])


def test_a_legacy_refusal_is_an_answer_the_matrix_must_give_too():
    # Before: the legacy function's ValueError crashed the harness.
    def refuses_index(config, runner=None):
        if config.query.index:
            raise ValueError("No index support")
        return frames_legacy(config, runner)

    with pytest.raises(AssertionError) as info:
        assert_matches(FRAMES, refuses_index, as_objects=True, refuses=ValueError)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix choose differently at version 3.0",
        '  config: {"query": {"index": true}}',
        "  asked for: nothing (automatic choice)",
        "  legacy: refused: ValueError: No index support",
        "  matrix: 'pandas' (pandas)",
    ])
    def removal(config):
        if config.query.v1_api:
            raise ValueError("The v1 API was removed in 3.0")
        return blocked(config.query)

    with pytest.raises(ValueError) as info:  # not declared: the legacy function's own error
        assert_matches(FRAMES, removal, as_objects=True)
    assert str(info.value) == "The v1 API was removed in 3.0"


def test_a_mapping_of_unsupported_lists_is_compared_runner_by_runner():
    assert_matches(FRAMES, lambda c: blocked(c.query), as_objects=True, max_examples=50)

    def forgot(c):
        out = blocked(c.query)
        out["polars"] = []
        return out

    with pytest.raises(AssertionError) as info:
        assert_matches(FRAMES, forgot, as_objects=True, max_examples=50)
    assert str(info.value).splitlines()[:2] == [
        "The legacy function and the matrix disagree on what polars (Polars) cannot do at version 3.0",
        '  config: {"query": {"index": true}}',
    ]


def test_a_dict_is_handed_over_as_documented_and_reading_attributes_of_it_says_what_to_pass():
    seen = []
    assert_matches(FRAMES, lambda c: seen.append(type(c)) or blocked(types.SimpleNamespace(
        **{k: c.get("query", {}).get(k, False) for k in ("sql", "streaming", "index")})), max_examples=5)
    assert set(seen) == {dict}
    with pytest.raises(TypeError) as info:
        assert_matches(FRAMES, lambda c: blocked(c.query), max_examples=5)
    assert str(info.value) == (
        "legacy() read an attribute of the config dict it was given (AttributeError: 'dict' object "
        "has no attribute 'query'): pass build= to make the host's objects from it, or as_objects=True for "
        "attribute objects")


def test_facts_are_left_at_their_defaults_for_a_legacy_function_that_takes_none():
    # Before: host.gpu was drawn true and given to resolve, which then blocked duckdb and
    # pandas for a reason the legacy function cannot know.
    assert_matches(FRAMES, lambda c: blocked(c.query), as_objects=True, max_examples=100)
    with_gpu = lambda c, facts: {**blocked(c.query), **({"duckdb": blocked(c.query)["duckdb"] + ["GPU"],
                                                           "pandas": blocked(c.query)["pandas"] + ["GPU"]}
                                                          if facts["host.gpu"] else {})}
    assert_matches(FRAMES, with_gpu, as_objects=True, max_examples=100)
    with pytest.raises(AssertionError) as info:
        assert_matches(FRAMES, lambda c, facts: blocked(c.query), as_objects=True, max_examples=100)
    assert str(info.value).splitlines()[:2] == [
        "The legacy function and the matrix disagree on what duckdb (DuckDB) cannot do at version 3.0",
        '  config: {"host": {"gpu": true}}',
    ]


def test_rules_on_values_no_predicate_mentions_are_found_from_the_legacy_codes_constants():
    # Before: threads == 17 was never drawn, chunk_size == 1000 in one run of three.
    def threads(config):
        out = blocked(config.query)
        if config.query.threads == 17:
            out["polars"].append("seventeen threads")
        return out

    def chunks(config):
        out = blocked(config.query)
        if config.query.chunk_size >= 1000 and config.query.chunk_size < 1001:
            out["duckdb"].append("small chunks")
        return out

    for legacy, runner, name in [(threads, "polars (Polars)", "seventeen threads"),
                                 (chunks, "duckdb (DuckDB)", "small chunks")]:
        with pytest.raises(AssertionError) as info:
            assert_matches(FRAMES, legacy, as_objects=True, max_examples=1)
        value = 17 if legacy is threads else 1000
        assert str(info.value).splitlines()[:3] == [
            f"The legacy function and the matrix disagree on what {runner} cannot do at version 3.0",
            f'  config: {{"query": {{"{legacy.__name__.replace("chunks", "chunk_size")}": {value}}}}}',
            f"  legacy: [{name!r}]",
        ]


def test_what_the_examples_reached_of_the_legacy_code_names_the_lines_never_run():
    def legacy(config):
        out = blocked(config.query)
        if config.query.threads < 1:  # the schema's min: no config reaches it
            out["pandas"].append("no threads")
        return out

    reached = assert_matches(FRAMES, legacy, as_objects=True, max_examples=20)
    line = legacy.__code__.co_firstlineno + 3
    assert reached.missed == ((__file__, line),)
    assert str(reached) == f"38 examples ran 12 of 13 lines of the legacy code (92%); never run: tests/test_testing.py:{line}"


# A runner that switches CUDA graphs off under stock compile (an adjustment, issue 27 item 7):
# a legacy function that says the values it runs with has them compared with `effective`.
GRAPHS = matrix.loads("""
[matrix]
name = "graphs"
version = "1.0"

[config]
"compile" = { type = "str", choices = ["inductor", "stock"], default = "inductor" }
"graphs" = { type = "str", choices = ["FULL", "NONE"], default = "FULL" }
"threads" = { type = "int", default = 1, min = 1 }

[features.stock]
name = "stock compile"
when = "compile == 'stock'"
support = { v1 = "yes", v2 = "yes" }

[adjustments.no_graphs]
name = "No CUDA graphs under stock compile"
when = "compile == 'stock' and graphs != 'NONE'"
set = { "graphs" = "NONE" }
runners = ["v2"]
message = "Overriding graphs {graphs} to NONE"
""", runners={"v2": {"name": "V2", "priority": 2}, "v1": {"name": "V1", "priority": 1}})


def graphs_legacy(config, runner=None, adjusts=True):
    chosen = runner or "v2"
    graphs = config.get("graphs", "FULL")
    if adjusts and chosen == "v2" and config.get("compile", "inductor") == "stock":
        graphs = "NONE"
    return Choice(chosen, effective={"graphs": graphs, "threads": config.get("threads", 1)})


def test_effective_values_the_legacy_function_returns_are_compared():
    assert_matches(GRAPHS, graphs_legacy, max_examples=50)
    with pytest.raises(AssertionError) as info:
        assert_matches(GRAPHS, lambda c, runner=None: graphs_legacy(c, runner, adjusts=False), max_examples=50)
    assert str(info.value) == "\n".join([
        "The legacy function and the matrix disagree on the effective config at version 1.0",
        '  config: {"compile": "stock"}',
        "  asked for: nothing (automatic choice)",
        "  runner: 'v2' (V2)",
        "  graphs: legacy 'FULL', matrix 'NONE'",
    ])


def test_effective_values_must_name_config_fields_and_be_a_mapping():
    with pytest.raises(matrix.UsageError) as info:
        assert_matches(GRAPHS, lambda c: Choice("v2", effective={"graph": "FULL"}), max_examples=1)
    assert info.exconly() == ("matrix.errors.UsageError: legacy() returned the effective value of 'graph', which is "
                              "not a [config] field at version 1.0, did you mean 'graphs'")
    with pytest.raises(TypeError) as info:
        assert_matches(GRAPHS, lambda c: Choice("v2", effective=["graphs"]), max_examples=1)
    assert info.exconly() == "TypeError: Choice.effective must be a mapping from config path to value, not ['graphs']"


@pytest.mark.parametrize("module", ["matrix.strategies", "matrix.testing"])
def test_without_hypothesis_the_error_says_how_to_install_it(module):
    """A user trial: `pip install support-matrix`, then the test `matrix init` writes, failed with
    a bare "No module named 'hypothesis'" (an extra: `support-matrix[testing]`)."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['hypothesis'] = None\n"
            f"try:\n    import {module}\n    from matrix.testing import assert_matches\n    assert_matches(None, None)\n"
            "except ImportError as error:\n    print(error)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out == ("matrix.strategies needs hypothesis, which `pip install support-matrix` leaves out: "
                   "pip install 'support-matrix[testing]'\n")
