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

Side by side: ``python benchmarks/remedy.py --versus REV`` exports REV's package beside this
checkout (as ``matrix_base``, `revisions.export`) and times ``str(error)`` of both on the same
cases (drawn and checked here), interleaved case by case, round by round; each matrix gets both
medians (of the per-case medians), totals and the ratio this/REV, and how many messages differ
(a revision may change answers on purpose: then the two do different work). With it, the
OpenVINO overlay too (Model Runner V2 asked for only: the search asks for it).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import pathlib
import statistics
import sys
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
    """Every remedy of the error serves, with its first and its last values (asked for where it
    asks for the runner); how many."""
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
                    served = m.resolve(changed, runner=found.runner if found.asked or remedy.ask else None).runner
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


def _versus(rev: str, count: int, rounds: int) -> None:
    """This checkout against REV, side by side (the module docstring)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import revisions

    folder = pathlib.Path(revisions.export(rev, package="matrix_base"))
    sys.path.insert(0, str(folder))
    base = importlib.import_module("matrix_base")
    pairs = (("default matrix", matrix.default(), base.load(folder / "features.toml")),
             ("vllm-attention", *(m.load(ROOT / "examples" / "vllm-attention" / "features.toml") for m in (matrix, base))),
             ("openvino-overlay", *(m.load(ROOT / "examples" / "openvino-overlay" / "overlay.toml") for m in (matrix, base))))
    print(f"| matrix | errors | {rev} median | this median | this / {rev} | {rev} total | this total | messages that differ |")
    print("|---|---|---|---|---|---|---|---|")
    for label, here, there in pairs:
        cases = sorted(_cases(here, _draw(here, count)), key=lambda case: str(case[1]))
        checked = sum(_check(here, config, runner) for config, runner in cases)
        times: Dict[str, List[List[float]]] = {"here": [[] for _ in cases], "there": [[] for _ in cases]}
        differ = 0
        for round_ in range(rounds):
            for i, (config, runner) in enumerate(cases):
                said = {}
                for side, m in (("there", there), ("here", here)) if (round_ + i) % 2 else (("here", here), ("there", there)):
                    try:
                        m.resolve(config, runner=runner)
                        raise AssertionError("the case resolved")
                    except (AssertionError, KeyboardInterrupt):
                        raise
                    except Exception as error:  # each side's own error classes
                        start = time.perf_counter()
                        said[side] = str(error)
                        times[side][i].append(time.perf_counter() - start)
                differ += round_ == 0 and said["here"] != said["there"]
        medians = {side: sorted(statistics.median(t) * 1000 for t in per_case) for side, per_case in times.items()}
        if not cases:
            print(f"| {label} | 0 of {count} configs |  |  |  |  |  |  |")
            continue
        here_ms, there_ms = statistics.median(medians["here"]), statistics.median(medians["there"])
        here_total, there_total = sum(medians["here"]) / 1000, sum(medians["there"]) / 1000
        print(f"| {label} | {len(cases)} ({checked} remedies checked) | {there_ms:.1f} ms | {here_ms:.1f} ms | "
              f"{here_ms / there_ms:.2f} | {there_total:.2f} s | {here_total:.2f} s ({here_total / there_total:.2f}) | "
              f"{differ} |")


def main(argv: Optional[List[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="10 configs, 1 round (CI: that it runs)")
    parser.add_argument("--versus", metavar="REV", help="side by side with REV's package (any git revision)")
    args = parser.parse_args(argv)
    quick = args.quick
    count, rounds = (10, 1) if quick else (60, 3)
    if args.versus is not None:
        _versus(args.versus, count, rounds)
        return
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
