"""``matrix check`` on SGLang's attention example (examples/sglang-attention/): CPU time of one
whole check, median of the rounds.

Before issue 30's fixes to check (commit 4213269) it did not finish: its no-runner search ran 16
minutes without an answer. Before timing, the answer is checked: every warning or error it
reports is one the file's ``[check] ignore`` acknowledges, or a stale editor schema.

Run: python benchmarks/check_sglang.py (5 rounds; ``--quick``: 1).
"""

import argparse
import pathlib
import statistics
import time

import matrix
from matrix._ignore import apply
from matrix.check import check

FILE = pathlib.Path(__file__).parent.parent / "examples" / "sglang-attention" / "features.toml"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 round (CI: that it runs)")
    rounds = 1 if parser.parse_args(argv).quick else 5
    m = matrix.load(FILE)
    times = []
    for _ in range(rounds):
        start = time.thread_time()
        report = check(m)
        times.append(time.thread_time() - start)
        kept, _ = apply(m, report)
        wrong = [str(f) for f in kept.findings if f.severity != "note" and f.code != "schema-stale"]
        assert not wrong, wrong
    print(f"matrix check on {FILE.parent.name} ({len(m.runners)} runners, {len(report.findings)} findings): "
          f"median {statistics.median(times):.2f} s CPU over {rounds} round{'s' * (rounds > 1)}")


if __name__ == "__main__":
    main()
