"""``matrix check`` on SGLang's attention example (examples/sglang-attention/): CPU time of one
whole check, median of the rounds.

Before issue 30's fixes to check (commit 4213269) it did not finish: its no-runner search ran 16
minutes without an answer. Before timing, the answer is checked: every warning or error it
reports is one the file's ``[check] ignore`` acknowledges, or a stale editor schema. With ``--base
REV``, REV's package (``git archive``, imported as ``matrix_base``: `revisions.export`) checks the
same file in the same rounds, interleaved, and each revision's notes are counted beside its time.

Run: python benchmarks/check_sglang.py [--base REV] (5 rounds; ``--quick``: 1).
"""

import argparse
import collections
import importlib
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import revisions

import matrix

FILE = pathlib.Path(__file__).parent.parent / "examples" / "sglang-attention" / "features.toml"


def _checker(package):
    """A function that checks the example with *package* (this checkout's ``matrix``, or REV's
    ``matrix_base``) and returns its report, after checking that it keeps no unacknowledged warning."""
    check = importlib.import_module(package.__name__ + ".check").check
    apply = importlib.import_module(package.__name__ + "._ignore").apply
    m = package.load(FILE)

    def run():
        report = check(m)
        kept, _ = apply(m, report)
        wrong = [str(f) for f in kept.findings if f.severity != "note" and f.code != "schema-stale"]
        assert not wrong, wrong
        return report

    return m, run


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 round (CI: that it runs)")
    parser.add_argument("--base", metavar="REV", help="time REV's check beside this checkout's, in one process")
    options = parser.parse_args(argv)
    rounds = 1 if options.quick else 5
    contenders = {"this checkout": _checker(matrix)}
    if options.base is not None:
        sys.path.insert(0, revisions.export(options.base, package="matrix_base"))
        contenders[options.base] = _checker(importlib.import_module("matrix_base"))
    times = {name: [] for name in contenders}
    reports = {}
    for _ in range(rounds):
        for name, (_, run) in contenders.items():  # interleaved, round by round
            start = time.thread_time()
            reports[name] = run()
            times[name].append(time.thread_time() - start)
    m = contenders["this checkout"][0]
    for name in contenders:
        notes = collections.Counter(f.code for f in reports[name].findings if f.severity == "note")
        said = ", ".join(f"{n} {code}" for code, n in sorted(notes.items()))
        print(f"matrix check on {FILE.parent.name} at {name} ({len(m.runners)} runners, "
              f"{len(reports[name].findings)} findings; notes: {said or 'none'}): "
              f"median {statistics.median(times[name]):.2f} s CPU over {rounds} round{'s' * (rounds > 1)}")


if __name__ == "__main__":
    main()
