"""How long reading an error's message takes when it computes its remedies.

``str(error)`` of an `UnsupportedFeatureError` or a `NoRunnerError` says the smallest changes
that would make a runner serve ("To use Model Runner V2, change: …", `matrix._remedy`), worked
out when the message is first read. This times that on configs drawn by
`matrix.strategies.configs` (hypothesis, derandomised: the same configs every run) from the
default matrix and from examples/vllm-attention, each resolved with no runner asked for and
with each runner asked for. Before timing, every remedy found is checked: with its first and its
last values, it makes its runner serve.

Run: python benchmarks/remedy.py (60 configs of each matrix, 3 rounds); ``--quick``: 10
configs, 1 round (CI: that it runs and its answers hold).
"""

from __future__ import annotations

import argparse
import copy
import pathlib
import statistics
import time
from typing import Any, Dict, List, Optional, Tuple

from hypothesis import HealthCheck, given, settings

import matrix
from matrix.strategies import configs

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _draw(m: matrix.Matrix, count: int) -> List[Any]:
    drawn: List[Any] = []

    @settings(max_examples=count, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(configs(m))
    def collect(config: Any) -> None:
        drawn.append(config)

    collect()
    return drawn[:count]


def _cases(m: matrix.Matrix, drawn: List[Any]) -> List[Tuple[Any, Optional[str]]]:
    """The (config, runner asked for) pairs whose resolution is an error with remedies."""
    out = []
    for config in drawn:
        for runner in [None, *(r.id for r in m.runners)]:
            try:
                m.resolve(config, runner=runner)
            except (matrix.UnsupportedFeatureError, matrix.NoRunnerError):
                out.append((config, runner))
            except matrix.MatrixError:
                pass
    return out


def _error(m: matrix.Matrix, config: Any, runner: Optional[str]) -> matrix.ResolutionError:
    try:
        m.resolve(config, runner=runner)
    except (matrix.UnsupportedFeatureError, matrix.NoRunnerError) as error:
        return error
    raise AssertionError("the case resolved")


def _set(config: Any, path: str, value: object) -> None:
    *sections, name = path.split(".")
    holder = config
    for part in sections:
        inner = holder.get(part)
        if not isinstance(inner, dict):
            inner = holder[part] = {}
        holder = inner
    holder[name] = value


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return str(value) if type(value).__name__ == "Version" else value


def _check(m: matrix.Matrix, config: Any, runner: Optional[str]) -> int:
    """Every remedy of the error serves, with its first and its last values; how many."""
    checked = 0
    for found in _error(m, config, runner).remedies:
        for remedy in found.options:
            for pick in (0, -1):
                changed: Dict[str, Any] = copy.deepcopy(config)
                for change in (*remedy.changes, *remedy.conditions):
                    value = None if change.action == "unset" else {} if change.action == "add" \
                        else _plain(change.values[pick])
                    _set(changed, change.path, value)
                try:
                    served = m.resolve(changed, runner=found.runner if found.asked else None).runner
                except matrix.MatrixError as error:
                    raise AssertionError(f"{remedy} does not serve {config!r}: {error}") from None
                assert served == found.runner, (config, str(remedy), served)
            checked += 1
    return checked


def _time(m: matrix.Matrix, cases: List[Tuple[Any, Optional[str]]], rounds: int) -> List[float]:
    """Per case, the median over *rounds* of ``str(error)`` on a new error (seconds)."""
    # By runner asked for, then config: no two cases in a row share a config, so none reads
    # what the search before it cached (the remedies of one error share one config's space).
    cases = sorted(cases, key=lambda case: str(case[1]))
    times: List[List[float]] = [[] for _ in cases]
    for _ in range(rounds):
        for i, (config, runner) in enumerate(cases):
            error = _error(m, config, runner)
            start = time.perf_counter()
            str(error)
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 configs, 1 round (CI: that it runs)")
    quick = parser.parse_args(argv).quick
    count, rounds = (10, 1) if quick else (60, 3)
    for label, m in (("default matrix", matrix.default()),
                     ("vllm-attention", matrix.load(ROOT / "examples" / "vllm-attention" / "features.toml"))):
        cases = _cases(m, _draw(m, count))
        checked = sum(_check(m, config, runner) for config, runner in cases)
        per_case = _time(m, cases, rounds)
        if not per_case:
            print(f"{label}: no config of {count} is an error")
            continue
        ms = sorted(t * 1000 for t in per_case)
        print(f"{label}: {len(cases)} errors of {count} configs x runner None/each ({checked} remedies checked); "
              f"str(error): median {statistics.median(ms):.1f} ms, max {ms[-1]:.1f} ms, "
              f"total {sum(ms) / 1000:.2f} s")


if __name__ == "__main__":
    main()
