"""How long ``matrix diff`` takes on two consecutive releases of the default matrix, with the
``matrix check`` of the newer release beside it for scale.

Run: python benchmarks/diff.py (3 rounds of each diff, medians; ``--quick``: one round of the
0.31.0 → 0.32.0 diff). The answers are checked before anything is timed: the 0.31.0 → 0.32.0 diff
reports the removal of mamba cache mode 'all' as announced, and 0.32.0 → 0.33.0 lifts the V2
blocker of missing Triton.
"""

import argparse
import statistics
import time

import matrix
from matrix.check import check
from matrix.diff import diff

#: (old release, new release, a change the diff must report: (id, runner, gate ids)).
PAIRS = [("0.31.0", "0.32.0", ("removed", None, ("mamba_cache_all",))),
         ("0.32.0", "0.33.0", ("blocker-lifted", "v2", ("missing_triton",)))]


def timed(function, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one round of one diff (CI: that it runs)")
    quick = parser.parse_args(argv).quick
    rounds = 1 if quick else 3
    print("| diff | changes | undecided questions | diff (median) | matrix check of the newer release |")
    print("|---|---|---|---|---|")
    for old, new, expected in PAIRS[:1] if quick else PAIRS:
        m = matrix.default()
        seconds, report = timed(lambda m=m, old=old, new=new: diff(m, m, old_version=old, new_version=new), rounds)
        said = {(c.id, c.runner, c.features) for c in report.changes}
        assert expected in said, (expected, sorted(said, key=str))
        checked, _ = timed(lambda new=new: check(matrix.default(), version=new), rounds)
        print(f"| {old} → {new} | {len(report.changes)} | {len(report.undecided)} | {seconds:.1f} s | {checked:.1f} s |")


if __name__ == "__main__":
    main()
