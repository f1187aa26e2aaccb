"""The models and answers are values: immutable all the way down, hashable, copyable, picklable."""

import concurrent.futures
import copy
import pickle

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import matrix
from matrix import (ConfigError, LoadError, MatrixError, NoRunnerError, PredicateError, Problem,
                    RemovedFeatureError, Resolution, UnsupportedFeatureError, UsageError)
from matrix.strategies import configs

DEFAULT = matrix.default()


def test_models_refuse_every_edit():
    feature = DEFAULT.features[0]
    with pytest.raises(TypeError):
        feature.support["v1"] = ()  # used to succeed, and the compiled plan then disagreed
    with pytest.raises(AttributeError):
        feature.support.update  # noqa: B018 - a read-only mapping has no update
    with pytest.raises(TypeError):
        DEFAULT.schema.fields["x"] = DEFAULT.schema.declared[0]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        feature.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        feature.support._data = {}  # type: ignore[attr-defined]


def test_equal_models_hash_equal():
    first, second = matrix.load("features.toml"), matrix.load("features.toml")
    assert first == second and hash(first) == hash(second)
    assert {first.features[3]: 1}[second.features[3]] == 1
    assert hash(first.schema) == hash(second.schema)
    assert first.features[0].support == dict(first.features[0].support)  # equal to a plain dict too
    edited = attrs.evolve(first, name="other")
    assert edited != first
    # Equality, hashing and repr are matrix._record.Model's, as attrs wrote them: the fields
    # declared eq=False (a runner's file and text) are left out of equality and hashing, and
    # those declared repr=False out of the repr.
    runner = first.runners[0]
    moved = attrs.evolve(runner, file="elsewhere.toml", text="")
    assert (moved, hash(moved), repr(moved)) == (runner, hash(runner), repr(runner))
    assert repr(matrix.Statement("partial", note="n")) == "Statement(status='partial', note='n', links=(), since=None)"
    assert repr(runner).startswith("Runner(id='v2', name='Model Runner V2', priority=20, description=")
    assert "file=" not in repr(runner) and attrs.evolve(runner, priority=1) != runner
    assert (matrix.Statement("yes") == matrix.Forces("v2"), matrix.Statement("yes") != matrix.Statement("no")) == (
        False, True)


def test_copies_and_pickles_of_a_matrix_are_equal_and_answer_alike():
    m = matrix.load("features.toml")
    m.resolve({})  # a compiled plan in its caches must not stop a pickle
    for other in (copy.copy(m), copy.deepcopy(m), pickle.loads(pickle.dumps(m))):
        assert other == m and hash(other) == hash(m)
        assert other.resolve({"cache_config": {"mamba_cache_mode": "all"}}, version="0.31.0") == m.resolve(
            {"cache_config": {"mamba_cache_mode": "all"}}, version="0.31.0")


def test_a_resolution_is_a_value_not_a_tuple():
    r = DEFAULT.resolve({"cache_config": {"mamba_cache_mode": "all"}}, version="0.31.0")
    assert not isinstance(r, tuple)
    for operation, error in [
        (lambda: 1 in r, TypeError),
        (lambda: r < r, TypeError),
        (lambda: r + (1,), TypeError),
        (lambda: r[0], TypeError),
        (lambda: len(r), TypeError),
        (lambda: list(r), TypeError),
    ]:
        with pytest.raises(error):
            operation()
    with pytest.raises(AttributeError, match="A Resolution is read-only"):
        r.runner = "v2"
    assert copy.copy(r) == r and copy.deepcopy(r) == r
    back = pickle.loads(pickle.dumps(r))
    assert back == r and hash(back) == hash(r)
    assert (back.explain(), back.to_dict(), back.explanation()) == (r.explain(), r.to_dict(), r.explanation())
    assert r != DEFAULT.resolve({})


@given(configs(DEFAULT, as_objects=True), st.sampled_from([None, "v1", "v2"]))
def test_resolutions_of_random_configs_survive_a_pickle(config, runner):
    try:
        r = DEFAULT.resolve(config, runner=runner)
    except matrix.ResolutionError as error:
        back = pickle.loads(pickle.dumps(error))
        assert (type(back), str(back), back.resolution) == (type(error), str(error), error.resolution)
        assert back.resolution.explain() == error.resolution.explain()
    else:
        back = pickle.loads(pickle.dumps(r))
        assert back == r and back.explain() == r.explain()


def _errors():
    """One instance of every error class, with its data."""
    out = [MatrixError("plain"), UsageError("Unknown runner 'v3'")]
    out.append(LoadError("f.toml", [Problem("Bad", "$.x", "f.toml", 1, 2, "    x\n    ^")]))
    try:
        matrix.Predicate("a ===", schema=None)
    except PredicateError as error:
        out.append(error)
    try:
        DEFAULT.resolve({"cache_config": {"mamba_cache_mode": "al"}})
    except ConfigError as error:
        out.append(error)
    for config, runner, version in [({"model_config": {"is_diffusion": True}}, "v1", None),
                                    ({"model_config": {"is_diffusion": True},
                                      "cache_config": {"mamba_cache_mode": "all"}}, None, "0.31.0"),
                                    ({"cache_config": {"mamba_cache_mode": "all"}}, None, "0.32.0")]:
        try:
            DEFAULT.resolve(config, runner=runner, version=version)
        except (UnsupportedFeatureError, NoRunnerError, RemovedFeatureError) as error:
            out.append(error)
    return out


def _describe(error):
    data = {k: v for k, v in vars(error).items() if k != "resolution"}
    resolution = getattr(error, "resolution", None)
    return type(error).__name__, str(error), data, resolution.to_dict() if resolution is not None else None


def _raise(index):
    raise _errors()[index]


def test_every_error_class_crosses_a_process_boundary():
    errors = _errors()
    assert [type(e).__name__ for e in errors] == [
        "MatrixError", "UsageError", "LoadError", "PredicateError", "ConfigError",
        "UnsupportedFeatureError", "NoRunnerError", "RemovedFeatureError"]
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        futures = [pool.submit(_raise, index) for index in range(len(errors))]
        received = [f.exception() for f in futures]
    assert [_describe(e) for e in received] == [_describe(e) for e in errors]
    assert all(isinstance(r, Resolution) for r in (e.resolution for e in received[5:]))
