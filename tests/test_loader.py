import json
import pathlib
import textwrap

import pytest

import matrix
import matrix.loader
from matrix import LoadError

DATA = pathlib.Path(__file__).parent / "data"
RUNNERS = (DATA / "runners").resolve()
INVALID = sorted(p for p in (DATA / "invalid").iterdir() if p.suffix == ".toml" or p.is_dir())


def _load_invalid(path):
    """A file is loaded with the shared runners; a folder holds its own features.toml and
    runners/ (for mistakes in runner files)."""
    if path.is_dir():
        return matrix.load(f"{path.name}/features.toml")
    return matrix.loads(path.read_text(encoding="utf-8"), runners=RUNNERS, path=path.name)


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_corpus(path, monkeypatch):
    monkeypatch.chdir(path.parent)
    expected = path.with_suffix(".txt").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(LoadError) as excinfo:
        _load_invalid(path)
    assert str(excinfo.value) == expected
    assert excinfo.value.problems
    assert isinstance(excinfo.value, ValueError)


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_corpus_says_the_same_when_read_with_tomli(path, monkeypatch):
    # tomli (the parser before Python 3.11) keeps its errors' parts as attributes since 2.1, as
    # Python 3.14's tomllib does, and gives the end of the document a line and column: an
    # unclosed bracket was said as `Invalid value` past the end of the file.
    import tomli

    monkeypatch.setattr(matrix.loader, "_toml", lambda: tomli)
    monkeypatch.chdir(path.parent)
    expected = path.with_suffix(".txt").read_text(encoding="utf-8").rstrip("\n")
    with pytest.raises(LoadError) as excinfo:
        _load_invalid(path)
    assert str(excinfo.value) == expected


def test_the_invalid_corpus_holds_at_least_40_mistakes():
    assert len(INVALID) >= 40


def test_five_distinct_mistakes_are_reported_at_once():
    path = DATA / "invalid" / "five_mistakes.toml"
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(path.read_text(), runners=RUNNERS, path="features.toml")
    problems = excinfo.value.problems
    assert [(p.line, p.column, p.place) for p in problems] == [
        (11, 9, "$.features.one.when"),
        (17, 36, "$.features.two.support.v3"),
        (21, 18, "$.features.three.when"),
        (22, 25, "$.features.three.support.v2"),
        (28, 31, "$.features.four.deprecated.remove_in"),
    ]
    assert problems[0].message == (
        "Unknown config path 'cache_config.mamba_cach_mode', "
        "did you mean 'cache_config.mamba_cache_mode'"
    )
    assert problems[0].detail == (
        "    cache_config.mamba_cach_mode == 'all'\n"
        "    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
    )


def test_load_reads_the_runner_folder_next_to_the_file(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "fast.toml").write_text('name = "Fast"\npriority = 2\n')
    (tmp_path / "runners" / "slow.toml").write_text('name = "Slow"\npriority = 1\n')
    (tmp_path / "features.toml").write_text(textwrap.dedent("""\
        [matrix]
        name = "m"
        version = "1.0"

        [features.x]
        name = "x"
        when = "x"
        support = { slow = "yes", fast = "no" }
    """))
    m = matrix.load(tmp_path / "features.toml")
    assert [r.id for r in m.runners] == ["fast", "slow"]
    assert m.resolve({"x": True}).runner == "slow"
    assert m.resolve({"x": False}).runner == "fast"
    assert m.schema.fields == {}


def test_problems_in_runner_files_name_those_files(tmp_path):
    (tmp_path / "runners").mkdir()
    (tmp_path / "runners" / "a.toml").write_text('name = "A"\npriority = "high"\n')
    (tmp_path / "runners" / "b.toml").write_text('name = "B"\npriority = 1\n')
    (tmp_path / "runners" / "e.toml").write_text('name = "E"\npriority = 5\nprority = 2\n')
    (tmp_path / "runners" / "c.toml").write_text('name = "C"\npriority = 1\n')
    (tmp_path / "runners" / "d.toml").write_text('name = "D\n')
    (tmp_path / "features.toml").write_text('[matrix]\nname = "m"\nversion = "1.0"\n')
    with pytest.raises(LoadError) as excinfo:
        matrix.load(tmp_path / "features.toml")
    text = str(excinfo.value).replace(str(tmp_path), "TMP")
    assert text == (
        "TMP/features.toml: 4 problems\n"
        "  TMP/runners/a.toml:2:1: $.priority: Expected an integer, got a string 'high'\n"
        "  TMP/runners/c.toml:2:1: $.priority: Runner 'c' has the same priority 1 as 'b': automatic choice needs an order\n"
        "  TMP/runners/d.toml:1:10: $.name: Unterminated string: the line ends before its closing quote "
        "(a string over several lines needs triple quotes)\n"
        "      name = \"D\n"
        "               ^\n"
        "  TMP/runners/e.toml:3:1: $.prority: Unknown key 'prority', did you mean 'priority' (expected 'aliases', 'candidate', 'deprecated', 'description', 'links', 'name', 'priority', 'redirects', 'requires')"
    )


def test_a_missing_runner_folder_and_file(tmp_path):
    (tmp_path / "features.toml").write_text('[matrix]\nname = "m"\nversion = "1.0"\nrunners = "backends"\n')
    with pytest.raises(LoadError) as excinfo:
        matrix.load(tmp_path / "features.toml")
    assert str(excinfo.value).replace(str(tmp_path), "TMP") == (
        "TMP/features.toml: 1 problem\n"
        "  TMP/features.toml:4:1: $.matrix.runners: Runner folder 'backends' does not exist next to TMP/features.toml"
    )
    with pytest.raises(LoadError) as excinfo:
        matrix.load(tmp_path / "nope.toml")
    assert str(excinfo.value).replace(str(tmp_path), "TMP") == (
        "TMP/nope.toml: 1 problem\n  TMP/nope.toml: $: Cannot read the file: No such file or directory"
    )


def test_loads_takes_runners_as_tables_text_or_objects():
    text = '[matrix]\nname = "m"\nversion = "1.0"\n[features.x]\nname = "x"\nwhen = "x"\nsupport.default = "yes"\n'
    m = matrix.loads(text, runners={
        "a": {"name": "A", "priority": 3},
        "b": 'name = "B"\npriority = 2\n',
        "c": matrix.Runner("c", "C", 1),
    })
    assert [(r.id, r.name, r.priority) for r in m.runners] == [("a", "A", 3), ("b", "B", 2), ("c", "C", 1)]
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners={"a": {"name": "A", "priority": True}, "default": {"name": "D", "priority": 1}})
    assert str(excinfo.value) == (
        "<string>: 2 problems\n"
        "  runners/a.toml: $.priority: Expected an integer, got a boolean True\n"
        "  runners/default.toml: $: Runner id 'default' must be letters, digits, '_', '.' or '-', and not 'default'"
    )
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners={})
    assert str(excinfo.value) == "<string>: 1 problem\n  <string>:1:1: $.matrix.runners: No runners were given"


def test_the_file_model():
    m = matrix.load(DATA / "valid" / "kitchen_sink.toml")
    assert m.name == "kitchen sink"
    assert str(m.version) == "1.0"
    assert [f.id for f in m.features] == ["legacy", "many_workers", "eagle", "ngram", "plugins", "new_torch"]
    eagle = m.feature("eagle")
    assert eagle.support == {"v2": (matrix.Statement("opt-in", "Experimental"),), "v1": (matrix.Statement("yes"),)}
    ngram = m.feature("ngram")
    assert [ngram.status("v2", matrix.resolver.as_version(v)) for v in ("0.9", "1.0", "1.1", "5")] == ["no", "no", "yes", "yes"]
    assert m.schema["torch"].default == matrix.resolver.as_version("2.4.0")
    assert m.schema["plugins"].default == ()
    assert m.schema["spec"].default is None
    assert m.schema["spec.method"].has_default is False
    assert m.schema["debug"].has_default is False
    assert [f.id for f in m.features_at("1.1")] == ["legacy", "many_workers", "eagle", "ngram", "new_torch"]


VALID_CASES = [
    (path, index, case)
    for path in sorted((DATA / "valid").glob("*.toml"))
    for index, case in enumerate(json.loads(path.with_suffix(".json").read_text()))
]


@pytest.mark.parametrize(("path", "index", "case"), VALID_CASES, ids=[f"{p.stem}-{i}" for p, i, _ in VALID_CASES])
def test_valid_corpus(path, index, case):
    m = matrix.load(path)
    kwargs = {k: case[k] for k in ("runner", "version") if k in case}
    if "error" in case:
        with pytest.raises(matrix.MatrixError) as excinfo:
            m.resolve(case["config"], **kwargs)
        assert f"{type(excinfo.value).__name__}: {excinfo.value}" == case["error"]
        return
    resolution = m.resolve(case["config"], **kwargs)
    assert {
        "runner": resolution.runner,
        "active": [f.id for f in resolution.active],
        "warnings": [f"{w.kind}: {w.message}" for w in resolution.warnings],
    } == case["expect"]


def test_the_default_matrix():
    m = matrix.default()
    assert m is matrix.default()
    assert m.name == "vLLM model runners"
    assert str(m.version) == "0.33.0"
    assert [(r.id, r.name, r.priority) for r in m.runners] == [("v2", "Model Runner V2", 20), ("v1", "Model Runner V1", 10)]
    assert len(m.features) == 46
    assert [(a.id, a.runners, str(a.since)) for a in m.adjustments] == [
        ("stock_compile_cudagraphs", ("v2",), "0.32.0"), ("mamba_cache_align", (), "0.32.0"),
        ("mamba_cache_none", (), "0.32.0"), ("draft_max_model_len", ("v2",), "0.33.0")]
    assert m.adjustments_at("0.31.0") == ()
    mamba = m.feature("mamba_cache_all")
    assert (str(mamba.deprecated.since), str(mamba.deprecated.remove_in)) == ("0.30.0", "0.32.0")
    assert "align" in mamba.deprecated.replacement
    assert (m.feature("dbo").status("v2", m.version), m.feature("dbo").applies) == ("no", "automatic")
    assert m.feature("dbo_lora").applies == "asked" and m.feature("stock_torch_compile").applies == "always"


def test_load_without_a_path_is_the_packaged_default_wherever_it_runs(tmp_path, monkeypatch):
    """Unlike the command line, Python never looks for a file: ``matrix.load()`` is documented
    as the packaged matrix, and a features.toml in the current folder does not change it."""
    import matrix

    (tmp_path / "features.toml").write_text("not a matrix")
    monkeypatch.chdir(tmp_path)
    assert matrix.load() is matrix.default()


def test_a_matrix_wide_default_support_serves_every_runner_a_support_table_leaves_out():
    """Adding a runner to a matrix of many features is one line, not a missing cell per feature."""
    text = ('[matrix]\nname = "frames"\nversion = "1.0"\ndefault_support = "no"\n[config]\n"lazy" = "bool"\n'
            '"joins" = "bool"\n'
            '[features.lazy]\nname = "lazy frames"\nwhen = "lazy"\nsupport = { polars = "yes", duckdb = "yes" }\n'
            '[features.joins]\nname = "joins"\nwhen = "joins"\nsupport = { default = "yes" }\n')
    runners = {"polars": {"name": "Polars", "priority": 3}, "duckdb": {"name": "DuckDB", "priority": 2},
               "pandas": {"name": "pandas", "priority": 1}}
    m = matrix.loads(text, runners=runners)
    assert {f.id: {r: f.status(r, m.version) for r in ("polars", "duckdb", "pandas")} for f in m.features} == {
        "lazy": {"polars": "yes", "duckdb": "yes", "pandas": "no"},  # the matrix's default
        "joins": {"polars": "yes", "duckdb": "yes", "pandas": "yes"},  # the table's own default wins
    }
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text.replace('default_support = "no"', 'default_support = "partial"'), runners=runners)
    assert str(excinfo.value) == ("<string>: 1 problem\n  <string>:4:1: $.matrix.default_support: Unknown "
                                  "default_support 'partial' (expected one of 'no', 'opt-in', 'yes')")


def test_a_config_field_named_version_is_not_told_to_quote_its_shorthand():
    text = '[matrix]\nname = "t"\nversion = "1"\n[config]\n"version" = 3\n"x" = { type = "int", since = 2 }\n'
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners={"a": {"name": "A", "priority": 1}})
    assert str(excinfo.value) == (
        "<string>: 2 problems\n"
        "  <string>:5:1: $.config.version: Expected a table, got an integer 3\n"
        '  <string>:6:23: $.config.x.since: Expected a version, got the int 2: write the version in quotes, "2"')
