"""Hostile input of every kind: only MatrixError escapes, and nothing hangs or crashes."""

import io
import pathlib
import sys

import pytest
import tomli
from hypothesis import example, given
from hypothesis import strategies as st

import matrix
import matrix.check
import matrix.render
from matrix import LoadError, MatrixError
from matrix.cli import run
from matrix.loader import MAX_FILE_BYTES, toml_syntax_problem
from matrix.loader import _toml as _toml_module
from matrix.strategies import _toml

DATA = pathlib.Path(__file__).parent / "data"
RUNNERS = (DATA / "runners").resolve()
VALID_TEXTS = [
    (DATA / "valid" / "kitchen_sink.toml").read_text(),
    (pathlib.Path(matrix.__file__).parent.parent / "features.toml").read_text(),
]

_KEYS = st.sampled_from(["matrix", "config", "features", "name", "version", "runners", "when", "support",
                         "v1", "v2", "default", "status", "note", "since", "until", "deprecated", "remove_in",
                         "type", "choices", "nullable", "links", "x", "a.b", "flag"])
_SCALARS = st.one_of(st.text(max_size=12), st.integers(-3, 3), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                     st.sampled_from(["yes", "no", "partial", "opt-in", "1.0", "0.31.0", "bool", "int", "str",
                                      "section", "flag", "x == 1", "a.b and flag", "list[str]", "version"]))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=4),
                       max_leaves=12)


def _loads(text):
    try:
        return matrix.loads(text, runners=RUNNERS, path="fuzz.toml")
    except LoadError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.message and problem.place.startswith("$")
        return error


@given(st.dictionaries(_KEYS, _VALUES, max_size=4))
def test_random_toml_documents_load_or_raise_a_load_error(document):
    _loads("\n".join(f"{_toml(k)} = {_toml(v)}" for k, v in document.items()) + "\n")


@given(st.fixed_dictionaries({"matrix": st.fixed_dictionaries({"name": st.just("m"), "version": st.sampled_from(["1.0", "x"])}),
                              "config": st.dictionaries(st.sampled_from(["flag", "x", "a.b", "a", "_p"]), _VALUES, max_size=3),
                              "features": st.dictionaries(st.sampled_from(["f", "g", "bad id"]), st.dictionaries(_KEYS, _VALUES, max_size=5), max_size=3)}))
def test_random_matrix_shaped_documents(document):
    text = "".join(f"[{section}]\n" + "".join(f"{_toml(k)} = {_toml(v)}\n" for k, v in body.items())
                   for section, body in document.items())
    _loads(text)


_MUTATIONS = st.sampled_from(["delete", "insert", "duplicate-line", "swap-lines", "replace"])


_EDITS = st.lists(st.tuples(_MUTATIONS, st.integers(0, 10**6), st.integers(0, 10**6),
                            st.text(alphabet="=\"'[]{}.,#\n abcv12\\", max_size=8)), min_size=1, max_size=3)


def _mutate(text, mutations):
    for kind, i, j, insert in mutations:
        lines = text.split("\n")
        if kind == "delete":
            at = i % (len(text) + 1)
            text = text[:at] + text[at + j % 20:]
        elif kind == "insert":
            at = i % (len(text) + 1)
            text = text[:at] + insert + text[at:]
        elif kind == "duplicate-line":
            at = i % len(lines)
            lines.insert(at, lines[at])
            text = "\n".join(lines)
        elif kind == "swap-lines":
            a, b = i % len(lines), j % len(lines)
            lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        else:
            at = i % (len(text) + 1)
            text = text[:at] + insert + text[at + len(insert):]
    return text


@given(st.sampled_from(VALID_TEXTS), _EDITS)
def test_mutated_feature_files_load_or_raise_a_load_error(text, mutations):
    result = _loads(_mutate(text, mutations))
    if isinstance(result, matrix.Matrix):
        matrix.check.check(result, budget=2_000)
        matrix.render.render(result, format="markdown")


@given(st.sampled_from(VALID_TEXTS), _EDITS)
@example(VALID_TEXTS[0], [("delete", len(VALID_TEXTS[0]) - len('"1.1"\n'), 6, "")])  # ends at `since = `
def test_toml_syntax_errors_are_said_as_every_other_problem(text, mutations):
    tomllib = _toml_module()  # tomllib, or tomli before Python 3.11
    text = _mutate(text, mutations)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        parsed = error
    else:
        return
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners=RUNNERS, path="fuzz.toml")
    [problem] = excinfo.value.problems
    # tomli since 2.1 (and Python 3.14's tomllib) keeps the parts of its errors as attributes:
    # where it stops where tomllib does, with the same sentence, it is said the same way. (It
    # reads TOML 1.1 since 2.3, so a few texts, with a newline in an inline table, it accepts or
    # stops elsewhere in: about 1 in 100.)
    try:
        tomli.loads(text)
    except tomli.TOMLDecodeError as other:
        if str(other) == str(parsed):
            assert toml_syntax_problem("fuzz.toml", text, other) == problem
    assert problem.file == "fuzz.toml" and problem.line is not None and problem.column is not None
    assert problem.place.startswith("$") and "(at line" not in problem.message and "(at end" not in problem.message
    shown, marks = problem.detail.split("\n")
    # The excerpt is the problem's line, with the caret under its column (long lines are windowed).
    line = text.split("\n")[problem.line - 1].rstrip("\r")
    if len(line) <= 100:
        assert shown == "    " + line
        assert marks.index("^") == 4 + problem.column - 1


class _Raises:
    def __init__(self, exc):
        self._exc = exc

    def __getattr__(self, name):
        raise self._exc


class _HostileValue:
    def __eq__(self, other):
        raise RuntimeError("no comparing me")

    def __hash__(self):
        raise RuntimeError("no hashing me")

    def __bool__(self):
        raise RuntimeError("no truth for me")

    def __repr__(self):
        raise RuntimeError("no repr either")


_WEIRD = st.one_of(
    _SCALARS, st.none(), st.lists(_SCALARS, max_size=3),
    st.builds(_Raises, st.sampled_from([RuntimeError("boom"), KeyError("k"), AttributeError("gone"), RecursionError("deep")])),
    st.builds(_HostileValue),
)
_CONFIG_KEYS = st.sampled_from(["cache_config", "mamba_cache_mode", "parallel_config", "pipeline_parallel_size",
                                "speculative_config", "method", "model_config", "logits_processors", "platform",
                                "has_triton", "lora_config", "draft_model_config", "architectures", "mode", "spec",
                                "workers", "torch", "plugins", "debug"])
_CONFIGS = st.recursive(_WEIRD, lambda inner: st.dictionaries(_CONFIG_KEYS, inner, max_size=5), max_leaves=15)
_SCHEMALESS = matrix.loads('[matrix]\nname = "bare"\nversion = "1"\n[features.f]\nname = "f"\nwhen = "cache_config.mamba_cache_mode == \'all\' or spec in [1, 2] or debug"\nsupport.default = "yes"\n',
                           runners=RUNNERS)


@given(st.sampled_from([matrix.default(), matrix.load(DATA / "valid" / "kitchen_sink.toml"), _SCHEMALESS]),
       _CONFIGS, st.sampled_from([None, "v1", "v2"]), st.booleans())
def test_random_and_hostile_configs_resolve_or_raise_a_matrix_error(m, config, runner, cyclic):
    if cyclic and isinstance(config, dict):
        config["cache_config"] = config  # a cycle: paths are finite, so reading ends
    try:
        resolution = m.resolve(config, runner=runner)
    except MatrixError as error:
        assert str(error)
    else:
        resolution.explain()
        try:
            resolution.to_dict()
        except matrix.ConfigError as error:
            # `effective` reads every path of the config, also those no gate reads (resolve read
            # the others, so a hostile value there was refused already): only those may raise.
            assert error.path not in resolution._plan.paths and str(error)


def test_a_property_raising_is_reported_with_its_path_and_feature():
    config = {"cache_config": _Raises(RuntimeError("boom"))}
    with pytest.raises(matrix.ConfigError) as excinfo:
        matrix.resolve(config)
    # Each path read below it raises: each is a bad value of the config, the first read first.
    assert str(excinfo.value) == (
        "Config 'cache_config.mamba_cache_mode' (read by feature 'mamba_cache_all'): "
        "Reading it raised RuntimeError: boom\n"
        "Config 'cache_config.enable_prefix_caching' (read by adjustment 'mamba_cache_align'): "
        "Reading it raised RuntimeError: boom"
    )


def test_a_hostile_value_in_a_schemaless_matrix_is_a_config_error():
    with pytest.raises(matrix.ConfigError) as excinfo:
        _SCHEMALESS.resolve({"cache_config": {"mamba_cache_mode": _HostileValue()}, "spec": 1, "debug": False})
    assert str(excinfo.value) == (
        "Config '(a compared value)': Comparing _HostileValue <_HostileValue> with str 'all' "
        "raised RuntimeError: no comparing me")


@given(st.sampled_from(["resolve", "check", "docs"]), st.lists(
    st.text(max_size=12) | st.sampled_from(["--matrix", "--set", "--runner", "--version", "--format", "--table",
                                            "--output", "--inject", "--check", "--json", "--explain", "--strict", "-",
                                            "\x00", "x=1", "markdown", "v1", "0.31.0"]), max_size=6))
def test_random_command_lines_never_print_a_traceback(tmp_path_factory, command, args):
    import os

    here = os.getcwd()
    os.chdir(tmp_path_factory.getbasetemp())  # whatever --output names lands in a scratch folder
    try:
        out, err = io.StringIO(), io.StringIO()
        status = run([command, *args], stdout=out, stderr=err, stdin=io.StringIO("{}"))
    finally:
        os.chdir(here)
    assert status in (0, 1, 2)
    assert "Traceback" not in err.getvalue()


def test_the_file_size_limit(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_FILE_BYTES + "\n")
    with pytest.raises(LoadError) as excinfo:
        matrix.load(big)
    assert str(excinfo.value).replace(str(tmp_path), "TMP") == (
        f"TMP/big.toml: 1 problem\n  TMP/big.toml: $: File is {MAX_FILE_BYTES + 3} bytes, more than the limit of 4194304")
    with pytest.raises(LoadError) as excinfo:
        matrix.loads("#" * (MAX_FILE_BYTES + 1), runners=RUNNERS)
    assert str(excinfo.value) == "<string>: 1 problem\n  <string>: $: Text is 4194305 characters long, more than the limit of 4194304"


def test_the_feature_count_limit(monkeypatch):
    monkeypatch.setattr(matrix.loader, "MAX_FEATURES", 2)
    text = '[matrix]\nname = "m"\nversion = "1"\n' + "".join(
        f'[features.f{i}]\nname = "f{i}"\nwhen = "x"\nsupport.default = "yes"\n' for i in range(3))
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners=RUNNERS)
    assert str(excinfo.value) == "<string>: 1 problem\n  <string>:4:1: $.features: 3 features, more than the limit of 2"


def test_the_feature_count_limit_is_the_one_the_limits_page_states():
    # docs/reference/limits.md: "at most 10,000 features". The count is checked before any
    # feature is built, so empty tables are enough.
    text = '[matrix]\nname = "m"\nversion = "1"\n[features]\n' + "".join(f"f{i} = {{}}\n" for i in range(10_001))
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners=RUNNERS)
    assert str(excinfo.value) == "<string>: 1 problem\n  <string>:4:1: $.features: 10001 features, more than the limit of 10000"


def test_deeply_nested_toml_is_a_load_error_not_a_crash():
    depth = sys.getrecursionlimit() + 100
    text = "x = " + "[" * depth + "]" * depth + "\n"
    with pytest.raises(LoadError) as excinfo:
        matrix.loads(text, runners=RUNNERS)
    assert str(excinfo.value) == "<string>: 1 problem\n  <string>: $: Arrays or tables nest too deeply to read"
