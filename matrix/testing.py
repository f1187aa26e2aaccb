"""Test helpers for projects that adopt ``matrix``: prove the matrix answers as the code it replaces.

`assert_matches` is the migration harness: before deleting a hand-written gate function (vLLM's
``_get_v2_model_runner_unsupported_features``), show on many configs, steered so that rare gates
are reached, that ``resolve`` names the same features. It needs hypothesis, and nothing else;
call it from a plain pytest test.
"""

from __future__ import annotations

import copy
import inspect
import json
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Tuple

from .errors import ResolutionError
from ._versions import VersionLike, as_version
from .schema import Matrix

__all__ = ["assert_matches"]

#: A config as the strategies draw it: nested dicts.
Config = Dict[str, Any]


def __dir__() -> List[str]:
    return __all__


def assert_matches(matrix: Matrix, legacy: Callable[..., Iterable[str]], *, runner: str,
                   build: Optional[Callable[[Config], object]] = None, version: Optional[VersionLike] = None,
                   max_examples: int = 200) -> None:
    """Check that *legacy* and the matrix agree on what *runner* cannot do, for many configs.

    Configs are drawn with ``matrix.strategies.configs(matrix, version=version)`` (steered
    toward every gate). Each is turned into the host's object with ``build(config_dict)`` when
    *build* is given, then ``legacy(config)`` (the display names of what *runner* cannot do, as
    vLLM's function returns them) is compared, as a set, with the names of
    ``resolve(config, version=version, facts=facts).unsupported[runner]``. The facts
    (``fact = true`` fields: the drawn values, or their defaults) go to ``resolve`` as
    ``facts``, since a host object does not carry them, and to *legacy* as ``facts=`` (flat
    dotted keys) when it has a parameter of that name.

    :raises AssertionError: on the first disagreement, after hypothesis has shrunk it: the
        config, both answers and the names that only one of them gives.
    :raises UsageError: *runner* is not a runner of *matrix*.
    """
    from hypothesis import HealthCheck, given, settings

    from .strategies import configs

    matrix.runner(runner)  # an unknown runner is a usage error, not a failed comparison
    at = matrix.version if version is None else as_version(version)
    facts = [f for f in matrix.schema if f.fact and f.type != "section"]

    takes_facts = _takes_facts(legacy)

    def answers(config: Config) -> Tuple[Set[str], Set[str]]:
        host = build(copy.deepcopy(config)) if build is not None else copy.deepcopy(config)
        given = {}
        for field in facts:
            value = _lookup(config, field.path)
            if value is _ABSENT and field.has_default:
                value = field.default
            if value is not _ABSENT:
                given[field.path] = value
        expected = legacy(host, facts=dict(given)) if takes_facts else legacy(host)
        if isinstance(expected, str):
            raise TypeError(f"legacy() must return a collection of names, not the string {expected!r}")
        try:
            resolution = matrix.resolve(host, version=at, facts=given or None)
        except ResolutionError as error:
            resolution = error.resolution
        return set(expected), {f.name for f in resolution.unsupported[runner]}

    # Generation cost is the solver's, not the host's; building objects and calling the legacy
    # function may be slow too: neither is what this harness checks.
    @settings(max_examples=max_examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(configs(matrix, version=at))
    def agree(config: Config) -> None:
        expected, actual = answers(config)
        if actual != expected:
            config = _reduced(config, answers)
            expected, actual = answers(config)
            raise AssertionError(_report(matrix, runner, at, config, expected, actual))

    agree()


_ABSENT = object()


def _takes_facts(legacy: Callable[..., object]) -> bool:
    try:
        return "facts" in inspect.signature(legacy).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        return False


def _reduced(config: Config, answers: Callable[[Config], Tuple[Set[str], Set[str]]]) -> Config:
    """*config* with every key left out (so that its default applies) whose absence keeps the
    disagreement: values the steering solver pinned do not shrink on their own."""

    def disagrees(candidate: Config) -> bool:
        try:
            expected, actual = answers(candidate)
        except Exception:  # a config the host or the matrix refuses says nothing here
            return False
        return expected != actual

    def paths(value: Mapping[str, object], prefix: Tuple[str, ...] = ()) -> List[Tuple[str, ...]]:
        out: List[Tuple[str, ...]] = []
        for key, inner in value.items():
            out.append(prefix + (key,))
            if isinstance(inner, Mapping):
                out.extend(paths(inner, prefix + (key,)))
        return out

    current = copy.deepcopy(config)
    changed = True
    while changed:
        changed = False
        for path in paths(current):
            candidate = copy.deepcopy(current)
            holder = candidate
            for key in path[:-1]:
                holder = holder[key]
            del holder[path[-1]]
            if disagrees(candidate):
                current, changed = candidate, True
                break
    return current


def _lookup(config: Mapping[str, object], path: str) -> object:
    value: object = config
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _ABSENT
        value = value[part]
    return value


def _report(matrix: Matrix, runner: str, version: object, config: Config, expected: Set[str],
            actual: Set[str]) -> str:
    name = matrix.runner(runner).name
    shown = json.dumps(config, sort_keys=True, default=str)
    return "\n".join([
        f"The legacy function and the matrix disagree on what {runner} ({name}) cannot do at "
        f"version {version}",
        f"  config: {shown}",
        f"  legacy: {sorted(expected)}",
        f"  matrix: {sorted(actual)}",
        f"  only the legacy function names: {sorted(expected - actual)}",
        f"  only the matrix names: {sorted(actual - expected)}",
    ])
