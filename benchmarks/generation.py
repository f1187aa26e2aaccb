"""How fast `matrix.strategies.configs()` draws, from a cold start, against another revision.

    python benchmarks/generation.py [REV] [--runs N] [--examples N] [--quick]

Each run is a new process with a new, empty ``HYPOTHESIS_STORAGE_DIRECTORY`` (no example
database, no cached Unicode tables: what a user's first run, or a fresh CI machine, sees). It
loads a matrix and runs one ``@given(configs(m))`` test with hypothesis's default settings and
health checks, as the README's example does, and reports:

- whether the test passed its health checks (hypothesis fails a test whose first 10 valid
  examples take more than a second to draw);
- the time from the start of the test to its first example;
- the draw time of the first 10 examples, as hypothesis's health check adds it up (read
  from the engine's ``record_for_health_check``, an internal: only while it exists);
- examples per second over the whole run (``--examples``, 100 by default as in hypothesis).

Matrices: the default matrix, the kitchen-sink matrix of the tests, and a synthetic 300-gate
matrix (`synthetic.py`). With REV, that revision's package (``git archive``) runs the same
processes, interleaved run by run with this checkout's; rows give medians and this / REV.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(HERE)

from revisions import export  # noqa: E402

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, {bench!r})
import matrix
from hypothesis import given, settings
from hypothesis.internal.conjecture.engine import ConjectureRunner
from matrix.strategies import configs

which = {which!r}
if which == "default":
    m = matrix.default()
elif which == "kitchen sink":
    m = matrix.load({kitchen!r})
else:
    import synthetic
    text, runners, _ = synthetic.generate(300)
    m = matrix.loads(text, runners=runners)

marks = []
draws = []


record = ConjectureRunner.record_for_health_check


def observe(self, data):  # the draw time of each test case, as the health check adds it up
    draws.append(sum(data.draw_times.values()))
    return record(self, data)


ConjectureRunner.record_for_health_check = observe

@settings(max_examples={examples})
@given(configs(m))
def test(config):
    marks.append(time.perf_counter())


start = time.perf_counter()
try:
    test()
    passed = True
except Exception as error:
    passed = type(error).__name__
end = time.perf_counter()
gaps = [b - a for a, b in zip([start] + marks, marks)]
print(json.dumps({{"passed": passed, "first": gaps[0] if gaps else None,
                  "ten": sum(draws[:10]) if len(draws) >= 10 else None,
                  "rate": len(marks) / (end - start)}}))
"""

MATRICES = ("default", "kitchen sink", "synthetic 300")


def run_once(package_root: str, which: str, examples: int) -> dict:
    code = CHILD.format(bench=HERE, which=which, examples=examples,
                        kitchen=os.path.join(ROOT, "tests", "data", "valid", "kitchen_sink.toml"))
    with tempfile.TemporaryDirectory(prefix="hypothesis-cold-") as storage, \
            tempfile.TemporaryDirectory(prefix="generation-cwd-") as cwd:
        env = dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=storage, PYTHONPATH=package_root)
        env.pop("HYPOTHESIS_PROFILE", None)
        done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{which} ({package_root}) failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    # A failed health check is a result; any other error is a broken benchmark.
    if result["passed"] not in (True, "FailedHealthCheck"):
        raise SystemExit(f"{which} ({package_root}): the test raised {result['passed']}")
    return result


def summary(results: list) -> dict:
    def median(key):
        values = [r[key] for r in results if r[key] is not None]
        return statistics.median(values) if values else None

    return {"passed": sum(r["passed"] is True for r in results), "runs": len(results),
            "first": median("first"), "ten": median("ten"), "rate": median("rate")}


def cell(s: dict, key: str) -> str:
    value = s[key]
    if value is None:
        return "–"
    if key == "rate":
        return f"{value:.0f}/s"
    return f"{value * 1000:.0f} ms"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", nargs="?")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--examples", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="one run of 20 examples (CI: that every row runs)")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs, args.examples = 1, 20
    roots = {"this checkout": ROOT}
    if args.rev:
        roots = {args.rev: export(args.rev), "this checkout": ROOT}
    results = {(name, which): [] for name in roots for which in MATRICES}
    for index in range(args.runs):
        for which in MATRICES:
            for name, root in roots.items():
                results[name, which].append(run_once(root, which, args.examples))
        print(f"run {index + 1}/{args.runs} done", file=sys.stderr)
    print(f"Cold starts, medians of {args.runs} new processes, {args.examples} examples each.\n")
    print("| matrix | revision | health checks passed | first example | first 10 examples | examples/s |")
    print("|---|---|---|---|---|---|")
    for which in MATRICES:
        for name in roots:
            s = summary(results[name, which])
            print(f"| {which} | {name} | {s['passed']}/{s['runs']} | {cell(s, 'first')} | {cell(s, 'ten')} | "
                  f"{cell(s, 'rate')} |")
        if args.rev:
            base, here = summary(results[args.rev, which]), summary(results["this checkout", which])
            ratios = []
            for key in ("first", "ten", "rate"):
                ok = base[key] and here[key]
                ratios.append(f"{here[key] / base[key]:.2f}×" if ok else "–")
            print(f"| {which} | this / {args.rev} | | {ratios[0]} | {ratios[1]} | {ratios[2]} |")


if __name__ == "__main__":
    main()
