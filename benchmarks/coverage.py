"""How often a 200-example run of configs(matrix.default()) makes every gate active (every gate
an automatic resolve can find active at the default version).

Run: python benchmarks/coverage.py (20 runs of 200 examples, random seeds; about 30 s;
``--quick``: 2 runs).
"""

import argparse
from collections import Counter

from hypothesis import given, settings

import matrix
from matrix.strategies import configs


def one_run(m: matrix.Matrix) -> Counter:
    seen: Counter = Counter()

    @settings(max_examples=200, database=None)
    @given(configs(m))
    def run(config):
        try:
            resolution = m.resolve(config)
        except matrix.ResolutionError as error:
            resolution = error.resolution
        seen.update(f.id for f in resolution.active)

    run()
    return seen


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 runs (CI: that it runs)")
    runs = 2 if parser.parse_args(argv).quick else 20
    m = matrix.default()
    # The gates an automatic resolve can find active: not those removed at this version (a
    # config setting one is refused, and configs() draws none), nor those that apply only when
    # their runner is asked for (applies = "asked": resolve(config) asks for none).
    gates = [f.id for f in m.features_at()
             if f.applies != "asked" and not (f.deprecated is not None and f.deprecated.removed)]
    left_out = len(m.features_at()) - len(gates)
    full = 0
    fewest = []
    rare: Counter = Counter()
    for _ in range(runs):
        seen = one_run(m)
        full += all(seen[g] for g in gates)
        fewest.append(min(seen[g] for g in gates))
        rare.update(g for g in gates if seen[g] <= 1)
    print(f"{full} of {runs} runs covered all {len(gates)} gates ({left_out} removed or asked-only left out); "
          f"fewest hits of any gate per run: {fewest}")
    print(f"gates hit at most once in a run: {dict(rare)}")


if __name__ == "__main__":
    main()
