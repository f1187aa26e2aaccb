"""A deprecated gate's life after its removal: recorded as done (removed = true) it stays as
the record, configs that use it are refused with the replacement, `matrix check` is satisfied;
unrecorded, a passed remove_in is an error. A removal without a deprecation period is a
deprecation whose remove_in is its since."""

import json

import pytest
from packaging.version import Version

import matrix
from matrix import RemovedFeatureError
from matrix.check import check
from matrix.render import render

RUNNERS = {"v2": {"name": "Model Runner V2", "priority": 20}, "v1": {"name": "Model Runner V1", "priority": 10}}
TEXT = """[matrix]
name = "life"
version = "2.0"

[config]
"mode" = { type = "str", choices = ["fast", "old"], default = "fast" }
"legacy" = { type = "bool", default = false }

[features.old_mode]
name = "old mode"
when = "mode == 'old'"
support = { v1 = "yes", v2 = "no" }
deprecated = { since = "1.0", remove_in = "2.0", replacement = "mode = 'fast'", removed = REMOVED }

[features.legacy]
name = "legacy switch"
when = "legacy"
support = { v1 = "yes", v2 = "yes" }
deprecated = { since = "2.0", remove_in = "2.0", removed = true, message = "It did nothing" }
"""


def _matrix(removed):
    return matrix.loads(TEXT.replace("REMOVED", "true" if removed else "false"), runners=RUNNERS, path="life.toml")


def test_a_recorded_removal_is_not_overdue_and_an_unrecorded_one_is():
    assert [str(f) for f in check(_matrix(True)).findings if f.severity == "error"] == []
    assert [str(f) for f in check(_matrix(False)).findings if f.code == "removal-overdue"] == [
        "life.toml:13:31: error[removal-overdue]: old mode was due for removal in 2.0, and the matrix is checked as "
        "of 2.0: record the removal with removed = true (configs that use it are then refused with the replacement), "
        "or move remove_in"]


@pytest.mark.parametrize("removed", [True, False])
def test_a_removed_feature_is_refused_with_its_replacement_before_any_runner(removed):
    m = _matrix(removed)
    with pytest.raises(RemovedFeatureError) as excinfo:
        m.resolve({"mode": "old"}, runner="v1")
    assert str(excinfo.value) == "old mode was removed in 2.0; use mode = 'fast' instead"
    with pytest.raises(RemovedFeatureError) as excinfo:
        m.resolve({"legacy": True})
    assert str(excinfo.value) == "legacy switch was removed in 2.0 (It did nothing)"
    # At 1.5 the old mode is deprecated, and served; the legacy switch is not yet deprecated.
    resolution = m.resolve({"mode": "old", "legacy": True}, version="1.5")
    assert resolution.runner == "v1"
    assert [w.kind for w in resolution.warnings] == ["deprecated", "fallback"]


def test_check_counts_no_config_that_uses_a_removed_feature_as_served_or_unserved():
    # The only gate V1 and V2 both refuse holds only with the old mode, which is removed: every
    # such config is refused for the removal, before any runner choice, so it is no no-runner
    # case (check reported one, with a witness that raised RemovedFeatureError).
    text = TEXT.replace("REMOVED", "true") + """
[features.old_only]
name = "old-mode extras"
when = "mode == 'old' and legacy"
support = { v1 = "no", v2 = "no" }
"""
    m = matrix.loads(text, runners=RUNNERS, path="life.toml")
    with pytest.raises(RemovedFeatureError):
        m.resolve({"mode": "old", "legacy": True})
    assert {m.resolve({"mode": "fast", "legacy": False}).runner} == {"v2"}
    findings = check(m).findings
    assert [f.code for f in findings if f.code in ("no-runner", "never-chosen")] == ["never-chosen"]
    assert [str(f) for f in findings if f.code == "never-chosen"] == [
        "life.toml:1:1: warning[never-chosen]: Model Runner V1 is never chosen automatically: whenever it is free, a "
        "runner of higher priority is free too"]


def test_the_timeline_shows_deprecated_removed_and_removed_without_a_deprecation_period():
    m = _matrix(True)
    lines = render(m, format="markdown", tables=["deprecations"]).splitlines()
    assert lines[4:8] == [
        "| Feature | Deprecated in | Removed in | State | Replacement | Message |",
        "|---|---|---|---|---|---|",
        "| old mode | 1.0 | 2.0 | removed | mode = 'fast' |  |",
        "| legacy switch | no deprecation period | 2.0 | removed without a deprecation period |  | It did nothing |",
    ]
    earlier = render(m, format="markdown", tables=["deprecations"], version="1.5").splitlines()
    assert earlier[6:8] == ["| old mode | 1.0 | 2.0 | deprecated | mode = 'fast' |  |",
                            "| legacy switch | no deprecation period | 2.0 | not yet deprecated |  | It did nothing |"]
    support = render(m, format="markdown", tables=["support"])
    assert "| legacy switch | `legacy` | ⛔ removed since 2.0 | ⛔ removed since 2.0 | removed in 2.0 without a deprecation period |" in support
    assert "| old mode | `mode == 'old'` | ⛔ removed since 2.0 | ⛔ removed since 2.0 | deprecated in 1.0 · removed in 2.0 · use mode = 'fast' |" in support
    data = json.loads(render(m, format="json", tables=["deprecations"]))
    assert [(d["feature"], d["removed"], d["without_period"], d["state"]) for d in data["deprecations"]] == [
        ("old_mode", True, False, "removed"), ("legacy", True, True, "removed")]


# --- fields and choices that exist only from or until a version ------------------------------

VERSIONED = """[matrix]
name = "versions"
version = "0.33.0"

[config]
"method" = { type = "str", nullable = true, choices = ["ngram", { value = "medusa", until = "0.33.0" }, { value = "xpress", since = "0.33.0" }] }
"quant" = { type = "str", nullable = true, choices = ["fp8"], since = "0.33.0" }
"sp" = { type = "bool", default = false, until = "0.32.0" }

[features.medusa]
name = "speculative method 'medusa'"
when = "method == 'medusa'"
support = { v1 = "yes", v2 = "no" }
deprecated = { since = "0.33.0", remove_in = "0.33.0", removed = true }

[features.sp]
name = "sequence parallelism"
when = "sp"
support = { v1 = "yes", v2 = "no" }
deprecated = { since = "0.32.0", remove_in = "0.32.0", removed = true }

[features.quant]
name = "draft lm_head quantization"
when = "quant is not None"
support = { v1 = "no", v2 = "yes" }
since = "0.33.0"

[features.xpress]
name = "xpress"
when = "method == 'xpress'"
support = { v1 = "no", v2 = "yes" }
since = "0.33.0"
"""


def _versioned(text=VERSIONED):
    return matrix.loads(text, runners=RUNNERS, path="versions.toml")


def test_a_removed_setting_is_refused_from_its_release_and_served_before():
    m = _versioned()
    for version, config, expected in [
        ("0.31.0", {"sp": True}, "v1"), ("0.32.0", {"method": "medusa"}, "v1"), ("0.33.0", {"quant": "fp8"}, "v2"),
    ]:
        assert m.resolve(config, version=version).runner == expected
    for version, config, message in [
        ("0.32.0", {"sp": True}, "sequence parallelism was removed in 0.32.0"),
        ("0.33.0", {"sp": True}, "sequence parallelism was removed in 0.32.0"),
        ("0.33.0", {"method": "medusa"}, "speculative method 'medusa' was removed in 0.33.0"),
    ]:
        with pytest.raises(RemovedFeatureError) as excinfo:
            m.resolve(config, version=version)
        assert str(excinfo.value) == message


def test_an_object_config_need_not_have_a_field_the_host_has_not_got_at_the_version():
    from types import SimpleNamespace

    m = _versioned()
    at_33 = SimpleNamespace(method="xpress", quant=None)  # no sp: the host removed it in 0.32.0
    assert m.resolve(at_33).runner == "v2"
    with pytest.raises(RemovedFeatureError):
        m.resolve(SimpleNamespace(method="ngram", quant=None, sp=True))  # still set: refused with the record
    with pytest.raises(matrix.ConfigError) as excinfo:
        m.resolve(SimpleNamespace(method="ngram", quant=None), version="0.31.0")  # 0.31.0 has sp
    assert str(excinfo.value) == "Config 'sp' (read by feature 'sp'): SimpleNamespace object has no attribute 'sp'"
    # The general reader (a value the fast path hands over) says the same.
    assert m.resolve(SimpleNamespace(method="xpress", quant="fp8")).runner == "v2"


@pytest.mark.parametrize(("change", "problem"), [
    ('since = "0.33.0"\n"""', None),
    ("", "versions.toml:24:9: $.features.quant.when: [config] 'quant' exists from 0.33.0, but this gate reads it at "
         "every version: bound the gate with since/until (or deprecate it with remove_in), or widen the [config] entry"),
])
def test_a_gate_reads_a_field_only_while_it_exists(change, problem):
    text = VERSIONED.replace('support = { v1 = "no", v2 = "yes" }\nsince = "0.33.0"\n\n[features.xpress]',
                             'support = { v1 = "no", v2 = "yes" }\n\n[features.xpress]')
    if problem is None:
        assert _versioned(VERSIONED).schema["quant"].since is not None
        return
    with pytest.raises(matrix.LoadError) as excinfo:
        _versioned(text)
    assert [str(p).split("\n")[0] for p in excinfo.value.problems] == [problem]


def test_a_gate_compares_with_a_choice_only_while_it_exists():
    text = VERSIONED.replace('deprecated = { since = "0.33.0", remove_in = "0.33.0", removed = true }\n', "")
    with pytest.raises(matrix.LoadError) as excinfo:
        _versioned(text)
    assert str(excinfo.value) == (
        "versions.toml: 1 problem\n"
        "  versions.toml:12:19: $.features.medusa.when: The choice 'medusa' of 'method' exists until 0.33.0, but this "
        "gate reads it at every version: bound the gate with since/until (or deprecate it with remove_in), or widen "
        "the [config] entry\n"
        "      method == 'medusa'\n"
        "                ^^^^^^^^")


@pytest.mark.parametrize(("choice", "problem"), [
    ('{ value = "x", after = "1.0" }', "$.config.method.choices[3].after: Unknown key 'after' in a choice: write the value "
                                       "alone, or { value = …, since = \"V\", until = \"V\" } (versions as strings)"),
    ('{ since = "1.0" }', "$.config.method.choices[3]: A choice given as a table: write the value alone, or "
                          "{ value = …, since = \"V\", until = \"V\" } (versions as strings)"),
    ('{ value = "x", since = "2.0", until = "1.0" }', "$.config.method.choices[3].until: until '1.0' must come after "
                                                       "since '2.0'"),
    ('{ value = "x", since = "one" }', "$.config.method.choices[3].since: Invalid version 'one': expected a PEP 440 "
                                       "version such as '0.31.0'"),
])
def test_a_malformed_choice_window_is_refused(choice, problem):
    text = VERSIONED.replace('{ value = "xpress", since = "0.33.0" }] }', '{ value = "xpress", since = "0.33.0" }, ' + choice + "] }")
    with pytest.raises(matrix.LoadError) as excinfo:
        _versioned(text)
    assert [str(p).split("\n")[0].split(": ", 1)[1] for p in excinfo.value.problems][:1] == [problem]


def test_strategies_draw_only_what_exists_at_the_version():
    from hypothesis import given, settings

    from matrix.strategies import configs

    m = _versioned()
    seen = {"0.31.0": set(), "0.33.0": set()}
    for version in seen:
        def drawn(version):
            @settings(max_examples=150, database=None)
            @given(configs(m, version=version))
            def draw(config):
                seen[version].update((key, value) for key, value in config.items() if value is not None)
                m.resolve(config, version=version)  # never a removed setting: none is drawn
            return draw

        drawn(version)()
    assert {k for k, _ in seen["0.33.0"]} <= {"method", "quant"} and ("method", "xpress") in seen["0.33.0"]
    assert ("method", "medusa") not in seen["0.33.0"]
    assert {k for k, _ in seen["0.31.0"]} <= {"method", "sp"} and ("sp", True) in seen["0.31.0"]
    assert ("method", "xpress") not in seen["0.31.0"] and ("method", "medusa") in seen["0.31.0"]


ENDED = """[matrix]
name = "versions"
version = "0.33.0"

[config]
"method" = { type = "str", nullable = true, choices = ["ngram", { value = "medusa", until = "0.33.0" }, { value = "xpress", since = "0.33.0" }] }

[features.other]
name = "other methods"
when = "method is not None and method != 'ngram'"
support = { v1 = "no", v2 = "no" }
"""


def test_a_choice_outside_its_window_is_refused_where_no_gate_records_its_removal(tmp_path, monkeypatch):
    # Before: 'medusa' at 0.33.0, after its until, was answered as any other method.
    import io

    from hypothesis import given, settings

    from matrix.cli import run
    from matrix.strategies import configs

    m = matrix.loads(ENDED, runners=RUNNERS, path="versions.toml")
    for version, value, said in [
        ("0.33.0", "medusa", "'medusa' is not one of 'ngram', 'xpress' at 0.33.0: that choice exists until 0.33.0 only"),
        ("0.32.0", "xpress", "'xpress' is not one of 'medusa', 'ngram' at 0.32.0: that choice exists from 0.33.0 only"),
    ]:
        with pytest.raises(matrix.ConfigError) as excinfo:
            m.resolve({"method": value}, version=version)
        assert excinfo.exconly() == f"matrix.errors.ConfigError: Config 'method' (read by feature 'other'): {said}"
    with pytest.raises(matrix.NoRunnerError):
        m.resolve({"method": "medusa"}, version="0.32.0")  # in its window: served as it was
    # A gate that records the removal still says it (test_a_removed_setting_is_refused_...).
    with pytest.raises(RemovedFeatureError):
        _versioned().resolve({"method": "medusa"}, version="0.33.0")
    # matrix resolve: the same error, bad input (exit 2).
    (tmp_path / "features.toml").write_text(ENDED)
    (tmp_path / "runners").mkdir()
    for id, spec in RUNNERS.items():
        (tmp_path / "runners" / f"{id}.toml").write_text(f'name = "{spec["name"]}"\npriority = {spec["priority"]}\n')
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert run(["resolve", "--set", "method=medusa"], stdout=out, stderr=err) == 2
    assert (out.getvalue(), err.getvalue()) == ("", (
        "matrix: error: Config 'method' (read by feature 'other'): 'medusa' is not one of 'ngram', 'xpress' at "
        "0.33.0: that choice exists until 0.33.0 only\n"))
    # configs() never draws it, and every witness of matrix check is a config resolve reads.
    seen = set()

    @settings(max_examples=100, database=None)
    @given(configs(m))
    def draw(config):
        seen.add(config.get("method"))

    draw()
    assert "medusa" not in seen and "xpress" in seen
    witnesses = [f.witness for f in check(m).findings if f.witness is not None]
    assert witnesses == [{"method": "xpress"}]
    assert [f.witness for f in check(m, version="0.32.0").findings if f.witness is not None] == [{"method": "medusa"}]


def test_a_runner_requirement_that_names_a_choice_does_not_open_it_outside_its_window():
    # A user trial: a runner's requirement `not (method == 'xpress' and ...)` let 'xpress' through
    # at 0.32.0, before its since (resolve chose a runner, and `matrix diff --from-version` read
    # configs that release refused as served). Only a gate that records a removal keeps a choice.
    runners = {**RUNNERS, "v2": {**RUNNERS["v2"], "requires": {"x": "method != 'xpress'"}}}
    m = matrix.loads(ENDED + '\n[requirements]\nx = { name = "no xpress", reason = "V2 has no xpress" }\n', runners=runners, path="versions.toml")
    with pytest.raises(matrix.ConfigError) as excinfo:
        m.resolve({"method": "xpress"}, version="0.32.0")
    assert excinfo.exconly() == ("matrix.errors.ConfigError: Config 'method' (read by feature 'other'): 'xpress' is "
                                 "not one of 'medusa', 'ngram' at 0.32.0: that choice exists from 0.33.0 only")
    assert m.resolve({"method": "ngram"}, version="0.32.0").runner == "v2"


def test_the_config_reference_says_when_fields_and_choices_exist():
    m = _versioned()
    lines = render(m, format="markdown", tables=["config"]).splitlines()
    assert "| `method` | str, or None | 'ngram', 'medusa' (until 0.33.0), 'xpress' (from 0.33.0) | `None` |  |" in lines
    assert "| `quant` | str, or None; from 0.33.0 | 'fp8' | `None` |  |" in lines
    assert "| `sp` | bool; until 0.32.0 |  | `False` |  |" in lines
    data = json.loads(render(m, format="json", tables=["config"]))
    method = next(e for e in data["config"] if e["path"] == "method")
    assert method["choices"] == ["ngram", "medusa", "xpress"]
    assert method["choice_versions"] == [{"value": "medusa", "since": None, "until": "0.33.0"},
                                         {"value": "xpress", "since": "0.33.0", "until": None}]
    assert next(e for e in data["config"] if e["path"] == "sp")[("since")] is None
    assert next(e for e in data["config"] if e["path"] == "sp")["until"] == "0.32.0"


def test_the_drift_check_compares_with_the_host_class_of_the_version_checked(tmp_path, monkeypatch):
    import dataclasses
    import sys
    import types
    from typing import Literal, Optional

    @dataclasses.dataclass
    class Host33:  # the host at 0.33.0: no sp, no medusa, has quant and xpress
        method: Optional[Literal["ngram", "xpress"]] = None
        quant: Optional[Literal["fp8"]] = None

    module = types.ModuleType("host_versions")
    module.Host33 = Host33
    monkeypatch.setitem(sys.modules, "host_versions", module)
    m = _versioned()
    assert [f.code for f in check(m, against="host_versions:Host33").findings if f.code.startswith("class-")] == []
    assert sorted(f.code for f in check(m, version="0.31.0", against="host_versions:Host33").findings
                  if f.code.startswith("class-")) == ["class-choices", "class-missing", "class-wider"]


def test_the_general_reader_reads_a_gone_field_of_an_object_as_its_default():
    from types import SimpleNamespace

    from matrix import _access
    from matrix._versions import as_version

    schema = _versioned().schema
    assert _access.read(SimpleNamespace(), "sp", schema.reading_at(as_version("0.33.0"))) is False
    with pytest.raises(matrix.ConfigError):
        _access.read(SimpleNamespace(), "sp", schema.reading_at(as_version("0.31.0")))


def test_the_changes_by_release_of_the_default_matrix():
    from packaging.version import Version

    data = json.loads(render(matrix.default(), format="json", tables=["deprecations"]))
    rows = [(c["version"], c["feature"], c["kind"], c["text"]) for c in data["changes"]]
    for row in [
        ("0.30.0", "mamba_cache_all", "deprecated", "deprecated"),
        ("0.31.0", "rocm_v1_default_when_free", "changed",
         "rule changed: now prefers Model Runner V1 in automatic choice, when nothing blocks it"),
        ("0.32.0", "elastic_ep", "support", "Model Runner V2: no → yes"),
        ("0.32.0", "mamba_cache_all", "removed", "removed"),
        ("0.32.0", "rocm_v1_default_when_free", "ended", "gate ended"),
        ("0.32.0", "heterogeneous_vocab", "added", "gate added"),
        ("0.33.0", "spec_medusa", "removed", "removed without a deprecation period"),
        ("0.33.0", "missing_triton_detected", "changed",
         "condition now not platform.has_triton and not platform.is_unspecified"),
    ]:
        assert row in rows
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), key=Version)
    assert ("0.33.0", "missing_triton", "ended", "gate ended") not in rows  # said as the change of condition
    earlier = json.loads(render(matrix.default(), format="json", tables=["deprecations"], version="0.31.0"))
    assert {c["version"] for c in earlier["changes"]} == {"0.30.0", "0.31.0"}
    lines = render(matrix.default(), format="markdown", tables=["deprecations"]).splitlines()
    assert "| 0.32.0 | elastic expert parallelism | Model Runner V2: no → yes |" in lines


# --- issue 24: versions outside the file, and defaults with a history ---------------------------

ENGINES = {"polars": {"name": "Polars", "priority": 3}, "pandas": {"name": "pandas", "priority": 1}}
THREADS = """[matrix]
name = "frames"
version = "3.0"

[config]
"threads" = { type = "int", min = 1, default = [{ value = 4 }, { value = 8, since = "3.0" }], doc = "Worker threads." }

[features.many_threads]
name = "more than six threads"
when = "threads > 6"
support = { polars = "no", pandas = "yes" }
since = "1.0"
"""


@pytest.fixture
def frames():
    return matrix.loads(THREADS, runners=ENGINES, path="features.toml")


def test_a_default_with_a_history_is_the_default_of_the_version_everywhere(frames):
    # Before: `default` was a plain value, and "as of" 2.0 the new default 8 was used.
    import dataclasses

    from hypothesis import find

    from matrix.binding import compare
    from matrix.render import render
    from matrix.strategies import as_object, values

    assert frames.schema["threads"].default == 8  # as of the file's version
    assert [frames.resolve({}, version=v).runner for v in ("2.0", "2.9", "3.0")] == ["polars", "polars", "pandas"]
    assert frames.resolve({}).runner == "pandas"
    # The fast path's plan and the interpreter's reading agree at each version.
    assert [frames.resolve({"threads": 8}, version=v).runner for v in ("2.0", "3.0")] == ["pandas", "pandas"]
    assert frames.is_supported({}, "polars", version="2.0") is True
    assert frames.schema.at(Version("2.0"))["threads"].default == 4
    assert find(values(frames.schema.at(Version("2.0"))["threads"]), lambda x: True) == 4
    assert find(values(frames.schema.at(Version("3.0"))["threads"]), lambda x: True) == 8
    assert vars(as_object({}, frames.schema.at(Version("2.0")))) == {"threads": 4}

    @dataclasses.dataclass
    class Host:
        threads: int = 8

    def drifts(v):
        return [(d.code, d.message) for d in compare(frames.schema.at(Version(v)), Host) if d.code == "class-default"]

    assert drifts("3.0") == []
    assert drifts("2.0") == [("class-default", "[config] 'threads' defaults to 4, but Host.threads defaults to 8")]
    table = render(frames, format="markdown", version="2.0", tables=("config",))
    assert table.splitlines()[-1] == "| `threads` | int, at least 1 |  | `4 (4 until 3.0, 8 from 3.0)` | Worker threads. |"
    as_json = {v: json.loads(render(frames, format="json", version=v, tables=("config",)))["config"][0]["default"]
               for v in ("2.0", "3.0")}
    assert as_json == {"2.0": 4, "3.0": 8}


def test_a_version_past_the_newest_release_the_file_knows_of_is_an_error(frames, tmp_path, monkeypatch):
    # Before: `--version 9.0` on a file whose newest release is 3.0 was answered silently.
    import io

    from hypothesis.errors import InvalidArgument

    from matrix.cli import run
    from matrix.strategies import configs

    message = ("Version '9.0' is past 3.0, the newest release features.toml knows of: "
               "what a later release does it cannot say")
    with pytest.raises(matrix.UsageError) as info:
        frames.resolve({}, version="9.0")
    assert info.exconly() == "matrix.errors.UsageError: " + message
    with pytest.raises(matrix.UsageError):
        frames.is_supported({}, "polars", version="3.0.1")
    with pytest.raises(InvalidArgument) as info:
        configs(frames, version="9.0")
    assert str(info.value) == message
    # A release the file names past its version (a planned removal) is one it knows of.
    planned = matrix.loads(THREADS.replace('since = "1.0"', 'deprecated = { since = "3.0", remove_in = "4.0" }'),
                           runners=ENGINES, path="features.toml")
    assert planned.newest_release == Version("4.0")
    with pytest.raises(matrix.RemovedFeatureError):
        planned.resolve({"threads": 7}, version="4.0")
    # Before every `since`: answered by what held before (here, no gate yet).
    assert frames.resolve({"threads": 7}, version="0.1").runner == "polars"
    (tmp_path / "features.toml").write_text(THREADS)
    (tmp_path / "runners").mkdir()
    for id, spec in ENGINES.items():
        (tmp_path / "runners" / f"{id}.toml").write_text(f'name = "{spec["name"]}"\npriority = {spec["priority"]}\n')
    monkeypatch.chdir(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert run(["resolve", "--version", "9.0"], stdout=out, stderr=err) == 2
    assert (out.getvalue(), err.getvalue()) == ("", f"matrix: error: {message}\n")


def test_docs_and_check_refuse_a_version_past_the_newest_release_as_resolve_does(frames, tmp_path, monkeypatch):
    # Before: `matrix docs --version 9.0` and `matrix check --version 9.0` answered as of 9.0.
    import io

    from matrix.cli import run
    from matrix.render import render

    message = ("Version '9.0' is past 3.0, the newest release features.toml knows of: "
               "what a later release does it cannot say")
    for call in (lambda: render(frames, version="9.0"), lambda: check(frames, version="9.0")):
        with pytest.raises(matrix.UsageError) as info:
            call()
        assert info.exconly() == "matrix.errors.UsageError: " + message
    (tmp_path / "features.toml").write_text(THREADS)
    (tmp_path / "runners").mkdir()
    for id, spec in ENGINES.items():
        (tmp_path / "runners" / f"{id}.toml").write_text(f'name = "{spec["name"]}"\npriority = {spec["priority"]}\n')
    monkeypatch.chdir(tmp_path)
    for command in (["docs", "--version", "9.0"], ["check", "--version", "9.0"]):
        out, err = io.StringIO(), io.StringIO()
        assert run(command, stdout=out, stderr=err) == 2
        assert (out.getvalue(), err.getvalue()) == ("", f"matrix: error: {message}\n")
    out, err = io.StringIO(), io.StringIO()
    assert run(["check", "--version", "9.0", "--format", "json"], stdout=out, stderr=err) == 2
    assert json.loads(out.getvalue()) == {"error": {"kind": "UsageError", "message": message}}


def test_check_weighs_the_default_of_the_version_it_checks():
    m = matrix.loads(THREADS.replace('since = "1.0"', 'deprecated = { since = "1.0", remove_in = "4.0" }'),
                     runners=ENGINES, path="features.toml")
    by_default = {v: [f.message for f in check(m, version=v).findings if f.code == "deprecated-by-default"]
                  for v in ("2.0", "3.0")}
    assert by_default == {"2.0": [], "3.0": [
        "more than six threads is deprecated, and active under the default config: every resolve of a config "
        "that leaves threads at its default warns"]}


def test_a_default_is_a_choice_wherever_it_is_the_default():
    # Review: a default that is a choice until 2.0 was accepted; at 2.0 resolve read {} as the
    # ended choice while check searched without it (and said a gate on the other choice always held).
    field = '"method" = { type = "str", default = DEFAULT, choices = ["ngram", { value = "medusa", until = "2.0" }] }\n'
    text = ('[matrix]\nname = "p"\nversion = "2.0"\n[config]\n' + field +
            '[features.ng]\nname = "ngram"\nwhen = "method == \'ngram\'"\nsupport = { r1 = "yes", r2 = "no" }\n')
    runners = {"r1": {"name": "R1", "priority": 2}, "r2": {"name": "R2", "priority": 1}}
    with pytest.raises(matrix.LoadError) as excinfo:
        matrix.loads(text.replace("DEFAULT", '"medusa"'), runners=runners)
    assert str(excinfo.value).splitlines()[1] == (
        "  <string>:5:28: $.config.method.default: Default 'medusa' is a choice until 2.0 only, but it is the default "
        "always: give the default a history that moves off it where the choice ends")
    moved = matrix.loads(text.replace("DEFAULT", '[{ value = "medusa" }, { value = "ngram", since = "2.0" }]'),
                         runners=runners)
    assert [f.id for f in moved.resolve({}).active] == ["ng"]


# --- a runner deprecated (its own `deprecated` table) ----------------------------------------

RETIRING = """[matrix]
name = "retiring"
version = "2.0"

[config]
"mode" = { type = "str", choices = ["fast", "old"], default = "fast" }
"sink" = { type = "bool", default = false }

[features.old_mode]
name = "old mode"
when = "mode == 'old'"
support = { v1 = "yes", v2 = "no", v3 = "no" }

[features.sinks]
name = "sinks"
when = "sink"
support = { v1 = "no", v2 = "yes", v3 = "no" }
forces = { runner = "v2", override = true }
"""
V1_RETIRING = {"name": "Model Runner V1", "priority": 10, "aliases": [{"id": "legacy", "since": "1.0"}],
               "deprecated": {"since": "1.0", "remove_in": "3.0", "replacement": "v2", "message": "V1 is frozen"}}
RETIRING_RUNNERS = {"v2": {"name": "Model Runner V2", "priority": 20}, "v1": V1_RETIRING,
                    "v3": {"name": "V3", "priority": 5, "redirects": [{"to": "v1", "when": "mode == 'old'"}]}}
V1_SAID = "Model Runner V1 is deprecated since 1.0 and will be removed in 3.0; use Model Runner V2 instead (V1 is frozen)"


def _retiring(runners=RETIRING_RUNNERS):
    return matrix.loads(RETIRING, runners=runners, path="retiring.toml")


def _said(resolution):
    return [(w.kind, w.runner, w.message) for w in resolution.warnings]


def test_a_resolution_that_ends_on_a_deprecated_runner_warns_however_it_came_to_it():
    m = _retiring()
    fallback = "Model Runner V2 does not support: old mode; using Model Runner V1 instead"
    assert _said(m.resolve({"mode": "old"})) == [("fallback", "v1", fallback), ("deprecated-runner", "v1", V1_SAID)]
    assert _said(m.resolve({}, runner="v1")) == [("deprecated-runner", "v1", V1_SAID)]
    assert _said(m.resolve({}, runner="legacy")) == [
        ("deprecated-alias", "v1", "Runner id 'legacy' is deprecated since 1.0; use 'v1' instead"),
        ("deprecated-runner", "v1", V1_SAID)]
    assert _said(m.resolve({"mode": "old"}, runner="v3")) == [
        ("redirected", "v1", "Asked for 'v3', redirected to 'v1': mode = 'old'"), ("deprecated-runner", "v1", V1_SAID)]
    # Another runner serves: nothing is said of V1, whatever was asked.
    assert _said(m.resolve({})) == []
    assert [w.kind for w in m.resolve({"sink": True}, runner="v1").warnings] == ["override"]
    # Refused, it does not serve: no warning of it beside the refusal.
    with pytest.raises(matrix.UnsupportedFeatureError) as refused:
        m.resolve({"mode": "old", "sink": True}, runner="v3")
    assert "deprecated-runner" not in [w.kind for w in refused.value.resolution.warnings]


def test_a_runner_is_said_deprecated_from_its_since_and_overdue_from_its_remove_in():
    m = _retiring()
    assert _said(m.resolve({}, runner="v1", version="0.9")) == []
    assert _said(m.resolve({}, runner="v1", version="1.0")) == [("deprecated-runner", "v1", V1_SAID)]
    # Past remove_in it still serves (its removal is its file's), and the words say the removal was due.
    assert _said(m.resolve({}, runner="v1", version="3.0")) == [("deprecated-runner", "v1", (
        "Model Runner V1 is deprecated since 1.0 and was due for removal in 3.0; use Model Runner V2 instead "
        "(V1 is frozen)"))]
    words = dict(V1_RETIRING, deprecated={"since": "1.0", "replacement": "the V2 runner, with --async"})
    assert _said(_retiring({**RETIRING_RUNNERS, "v1": words}).resolve({}, runner="v1")) == [
        ("deprecated-runner", "v1", "Model Runner V1 is deprecated since 1.0; use the V2 runner, with --async instead")]


def test_a_deprecated_top_runner_warns_where_nothing_else_would_be_said():
    # The fast path answers "the top runner, nothing to say" with integer operations: it must
    # not where the top runner is deprecated (before the fix, {} resolved to v2 with no warning).
    runners = {"v2": {"name": "Model Runner V2", "priority": 20, "deprecated": {"since": "2.0"}},
               "v1": {"name": "Model Runner V1", "priority": 10}, "v3": RETIRING_RUNNERS["v3"]}
    m = _retiring(runners)
    said = [("deprecated-runner", "v2", "Model Runner V2 is deprecated since 2.0")]
    assert _said(m.resolve({})) == said
    assert _said(m.resolve({})) == said  # remembered decisions say it too
    assert _said(m.resolve({}, version="1.0")) == []


def test_explain_emit_and_the_data_say_a_deprecated_runner(caplog):
    import logging

    resolution = _retiring().resolve({}, runner="v1")
    assert resolution.explain().splitlines()[-2:] == ["Warnings:", f"  - deprecated-runner: {V1_SAID}"]
    assert resolution.to_dict()["warnings"] == [
        {"kind": "deprecated-runner", "feature": None, "runner": "v1", "message": V1_SAID}]
    assert [w["kind"] for w in resolution.report()["warnings"]] == ["deprecated-runner"]
    with caplog.at_level(logging.WARNING, logger="matrix"):
        resolution.emit(once=False)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("matrix.deprecated-runner", logging.WARNING, V1_SAID)]


def test_check_says_a_runner_deprecation_without_removal_and_one_overdue():
    assert [(f.code, f.runner, f.message) for f in check(_retiring()).findings
            if f.code.startswith("runner-")] == []
    runners = {**RETIRING_RUNNERS, "v1": dict(V1_RETIRING, deprecated={"since": "1.0", "remove_in": "2.0"}),
               "v3": dict(RETIRING_RUNNERS["v3"], deprecated={"since": "0.5"})}
    assert [(f.code, f.severity, f.runner, f.message) for f in check(_retiring(runners)).findings
            if f.code.startswith("runner-")] == [
        ("runner-no-removal-version", "warning", "v3",
         "Runner 'v3' is deprecated since 0.5 without remove_in: users cannot plan for its removal"),
        ("runner-overdue", "error", "v1", "Runner 'v1' was due for removal in 2.0, and the matrix is checked as of "
         "2.0: remove its file (its id, a former id of its replacement recorded removed, then refuses a request with "
         "the new id), or move remove_in")]


def test_the_runners_table_says_each_deprecation_in_every_format():
    runners = {**RETIRING_RUNNERS, "v3": dict(RETIRING_RUNNERS["v3"], deprecated={
        "since": "2.5", "remove_in": "3.0", "replacement": "the V2 runner"})}
    m = _retiring(runners)
    lines = render(m, format="markdown", tables=["runners"]).splitlines()
    assert [line for line in lines if line.startswith("|")] == [
        "| Runner | Name | Priority | Description | Links | Former ids | Redirects | Deprecation |",
        "|---|---|---|---|---|---|---|---|",
        "| `v2` | Model Runner V2 | 20 |  |  |  |  |  |",
        "| `v1` | Model Runner V1 | 10 |  |  | `legacy` (deprecated since 1.0) |  | deprecated since 1.0, to be "
        "removed in 3.0; use Model Runner V2 instead (V1 is frozen) |",
        "| `v3` | V3 | 5 |  |  |  | to `v1` when `mode == 'old'` | deprecated from 2.5, to be removed in 3.0; use "
        "the V2 runner instead |"]
    assert lines[-1] == ("A deprecated runner still serves: from its deprecation on, a resolution that ends on it warns "
                         "(deprecated-runner).")
    # Past its remove_in (the tables of a later version), due.
    assert "deprecated since 1.0, due for removal in 3.0; use Model Runner V2 instead (V1 is frozen)" in \
        render(m, format="markdown", tables=["runners"], version="3.0")
    data = json.loads(render(m, format="json", tables=["runners"]))
    assert [r["deprecated"] for r in data["runners"]] == [
        None, {"since": "1.0", "remove_in": "3.0", "replacement": "v2", "message": "V1 is frozen", "state": "deprecated"},
        {"since": "2.5", "remove_in": "3.0", "replacement": "the V2 runner", "message": None,
         "state": "not yet deprecated"}]
    html = render(m, format="html", tables=["runners"]).splitlines()
    assert [line for line in html if line.startswith(("<th scope=\"col\">Dep", "<tr><th scope=\"row\"><code>v1"))] == [
        '<th scope="col">Deprecation</th>',
        '<tr><th scope="row"><code>v1</code></th><td>Model Runner V1</td><td>10</td><td></td><td></td><td><code>legacy'
        '</code> (deprecated since 1.0)</td><td></td><td>deprecated since 1.0, to be removed in 3.0; use Model Runner V2 '
        'instead (V1 is frozen)</td></tr>']
    rst = render(m, format="rst", tables=["runners"]).splitlines()
    assert rst[rst.index("     - Redirects") + 1] == "     - Deprecation"
    assert rst[rst.index("     - ``legacy`` (deprecated since 1.0)") + 2] == (
        "     - deprecated since 1.0, to be removed in 3.0; use Model Runner V2 instead (V1 is frozen)")
    # The changes by release list it at its since (a former id's deprecation beside it), not before.
    assert [line for line in render(m, format="markdown", tables=["deprecations"]).splitlines()
            if line.startswith("| 1.0")] == ["| 1.0 | runner id 'legacy' | deprecated: use 'v1' |",
                                             "| 1.0 | runner 'v1' | deprecated: use Model Runner V2 |"]
    assert [c for c in json.loads(render(m, format="json", tables=["deprecations"], version="3.0"))["changes"]
            if c["feature"] in ("v1", "v3")] == [
        {"version": "1.0", "feature": "v1", "kind": "deprecated", "text": "deprecated: use Model Runner V2", "runner": "v1"},
        {"version": "2.5", "feature": "v3", "kind": "deprecated", "text": "deprecated: use the V2 runner", "runner": "v3"}]
    assert [c["feature"] for c in json.loads(render(m, format="json", tables=["deprecations"]))["changes"]] == [
        "legacy", "v1"]
    # Without a runner deprecated, no column and no key.
    assert "Deprecation" not in render(_matrix(True), format="markdown", tables=["runners"])
    assert "deprecated" not in json.loads(render(_matrix(True), format="json", tables=["runners"]))["runners"][0]


def test_a_role_filled_by_a_deprecated_runner_warns_once():
    text = ('[matrix]\nname = "r"\nversion = "1.0"\n[config]\n'
            'backend = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            'decode = { type = "str", nullable = true, choices = ["a", "b"] }\n'
            '[roles.base]\nname = "Backend"\nfield = "backend"\n'
            '[roles.decode]\nname = "Decode backend"\nfield = "decode"\nfollows = "base"\n')
    m = matrix.loads(text, runners={"a": {"name": "A", "priority": 2},
                                    "b": {"name": "B", "priority": 1, "deprecated": {"since": "0.5", "remove_in": "2.0"}}})
    said = ("deprecated-runner", "b", "B is deprecated since 0.5 and will be removed in 2.0")
    assert [(c, r.runner, r.roles["decode"], _said(r)) for c in (
        {}, {"decode": "b"}, {"backend": "b"}, {"backend": "b", "decode": "b"}, {"backend": "b", "decode": "a"})
        for r in (m.resolve(c),)] == [
        ({}, "a", "a", []), ({"decode": "b"}, "a", "b", [said]), ({"backend": "b"}, "b", "b", [said]),
        ({"backend": "b", "decode": "b"}, "b", "b", [said]), ({"backend": "b", "decode": "a"}, "b", "a", [said])]
    # A role's refusal after the base's runner served keeps the base's warnings, its deprecation too.
    refusing = text.replace('"b"] }\n[roles', '"b"] }\nx = { type = "bool", default = false }\n[roles', 1) + \
        '[features.f]\nname = "F"\nwhen = "x"\nsupport = { a = "no", b = "yes" }\n'
    m = matrix.loads(refusing, runners={"a": {"name": "A", "priority": 2}, "b": {
        "name": "B", "priority": 1, "deprecated": {"since": "0.5", "remove_in": "2.0"}}})
    with pytest.raises(matrix.UnsupportedFeatureError) as refused:
        m.resolve({"backend": "b", "decode": "a", "x": True})
    assert (refused.value.reason, _said(refused.value.resolution)) == ("A in role 'decode' does not support: F", [said])
